// Multi-scale deformable attention (the sampling core of Deformable DETR, DINO, Mask2Former):
// bilinear samples of every feature level at learned points, weighted and summed per head.
// docs/ops/ms_deform_attn.md.
#pragma once

#include <memory>
#include <span>
#include <string>

#include "gridops/status.h"
#include "gridops/tensor.h"

namespace gridops {

/// What to compute. Shape-independent.
struct MsDeformAttnDesc {
  /// Forces an implementation by name ("ref", "fast", "ms_deform_attn.heads"); empty: the
  /// first that accepts.
  std::string impl;
};

/// The shapes of one problem: a batch of N, S = sum of the levels' H_l * W_l value rows,
/// M heads of D channels, Lq queries, L levels of P points each.
struct MsDeformAttnShape {
  int64_t batch = 0;     ///< N
  int64_t heads = 0;     ///< M
  int64_t channels = 0;  ///< D, per head
  int64_t queries = 0;   ///< Lq
  int64_t points = 0;    ///< P, per level
  int64_t value_rows = 0;  ///< S
  /// (H_0, W_0, H_1, W_1, ...): L levels, each H, W >= 0.
  Dims spatial_shapes;
  /// L entries: level l's first row in value; start_l + H_l * W_l <= S.
  Dims level_start_index;
};

/// A validated problem.
///
/// output[n, q, m*D + d] = sum over l, p of attention_weights[n, q, m, l, p] *
///   bilinear(value[n, start_l .. start_l + H_l*W_l, m, d] as (H_l, W_l),
///            x = loc[.., 0] * W_l - 0.5, y = loc[.., 1] * H_l - 0.5)
/// with zeros outside the level (and for NaN locations), the convention of the reference
/// CUDA kernels and of F.grid_sample(2 loc - 1, align_corners=False, padding_mode="zeros").
class MsDeformAttnPlan {
 public:
  /// value (N, S, M, D), sampling_locations (N, Lq, M, L, P, 2), attention_weights
  /// (N, Lq, M, L, P), output (N, Lq, M*D); the plan's dtype, any strides; output does not
  /// overlap the inputs.
  Status forward(const TensorView& value, const TensorView& sampling_locations,
                 const TensorView& attention_weights, const MutableTensorView& output) const;
  /// The gradients of a loss with respect to value, sampling_locations and
  /// attention_weights given grad_output (N, Lq, M*D). Each output may be null (not
  /// computed); non-null ones have their input's shape, distinct elements and overlap
  /// nothing else. The value gradient's sum runs in a fixed order (queries, levels, points,
  /// taps): the same bits for any thread count.
  Status backward(const TensorView& grad_output, const TensorView& value,
                  const TensorView& sampling_locations, const TensorView& attention_weights,
                  const MutableTensorView* grad_value, const MutableTensorView* grad_locations,
                  const MutableTensorView* grad_weights) const;
  const MsDeformAttnShape& shape() const noexcept { return shape_; }
  DType dtype() const noexcept { return dtype_; }
  const char* impl_name() const noexcept { return impl_name_; }

 private:
  friend StatusOr<MsDeformAttnPlan> make_ms_deform_attn_plan(const MsDeformAttnDesc&, DType,
                                                             const MsDeformAttnShape&);
  MsDeformAttnShape shape_;
  DType dtype_ = DType::kFloat32;
  const char* impl_name_ = "";
  std::shared_ptr<const void> planned_;
};

/// dtype float32, float64, float16 or bfloat16 (every tensor of the problem; float16 and
/// bfloat16 are computed in float and rounded once when stored).
StatusOr<MsDeformAttnPlan> make_ms_deform_attn_plan(const MsDeformAttnDesc& desc, DType dtype,
                                                    const MsDeformAttnShape& shape);

/// One-shot forward into a fresh output (N, Lq, M*D): the shape from value (N, S, M, D),
/// sampling_locations (N, Lq, M, L, P, 2) and the level lists (spatial_shapes: H_0, W_0,
/// H_1, ...; level_start_index: L entries). The ONNX runner's ai.gridops::MsDeformAttn.
StatusOr<Tensor> ms_deform_attn(const MsDeformAttnDesc& desc, const TensorView& value,
                                std::span<const int64_t> spatial_shapes,
                                std::span<const int64_t> level_start_index,
                                const TensorView& sampling_locations,
                                const TensorView& attention_weights);

}  // namespace gridops
