// AffineWarp: AffineGrid followed by GridSample, fused (no grid is materialized).
// See docs/ops/affine_warp.md.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "gridops/ops/grid_sample.h"
#include "gridops/status.h"
#include "gridops/tensor.h"

namespace gridops {

/// What to compute: GridSample's attributes (mode, padding, align_corners, layout; the
/// same align_corners is AffineGrid's) and an optional implementation name
/// ("affine_warp.fused" or its alias "fast", "ref"; empty: the first that accepts). Shape-independent.
struct AffineWarpDesc {
  InterpolationMode mode = InterpolationMode::kLinear;
  GridPadding padding = GridPadding::kZeros;
  int64_t align_corners = 0;
  ChannelLayout layout = ChannelLayout::kChannelsFirst;
  std::string impl;
};

/// A window, for computing a part of a large warp (chunked execution, docs/dask.md).
/// Output: dst is the box at `out_origin` with spatial sizes dst's of the output whose
/// spatial sizes are `size` (the plan's); its coordinates are those of the whole output.
/// Input: src holds only the box at `in_origin` (spatial sizes src's) of a virtual full
/// input whose spatial sizes are `in_full`. Every element is the same bits as that
/// element of the unwindowed operator on the full input and full output (same
/// implementation). run() fails, writing nothing, when a tap the box needs is outside src
/// (affine_warp_input_box gives the box to provide).
struct AffineWarpWindow {
  Dims out_origin;  ///< r entries, each >= 0
  Dims in_full;     ///< r entries, each >= 0
  Dims in_origin;   ///< r entries, each >= 0
};

/// The box of the full input (spatial sizes `in_full`) that the output box at
/// `out_origin` with spatial sizes `out_shape` of the output of spatial sizes `size` may
/// read, per spatial axis [lo, hi): grid_sample_input_box of the grid points at the
/// corners of the output box. Exact for the hull of the taps because every step from the
/// output index to a tap index is monotone (docs/ops/affine_warp.md, "Input box"); a
/// non-finite theta value or corner coordinate gives the whole axis. theta (N, r, r+1),
/// any floating dtype; the box covers every batch entry.
StatusOr<std::vector<std::pair<int64_t, int64_t>>> affine_warp_input_box(
    const AffineWarpDesc& desc, const TensorView& theta, std::span<const int64_t> in_full,
    std::span<const int64_t> size, std::span<const int64_t> out_origin,
    std::span<const int64_t> out_shape);

/// A validated AffineWarp problem with its implementation chosen. Cheap to copy.
class AffineWarpPlan {
 public:
  /// src (N, C, in...) (or channels-last) of the planned dtype and shape; theta (N, r, r+1)
  /// of the planned dtype; dst (N, C, out...) src's dtype. Any strides; dst must not
  /// overlap src or theta. Nothing is written on error.
  Status run(const TensorView& src, const TensorView& theta, const MutableTensorView& dst) const;
  const Dims& dst_shape() const noexcept { return dst_shape_; }
  const char* impl_name() const noexcept { return impl_name_; }

 private:
  friend StatusOr<AffineWarpPlan> make_affine_warp_plan(const AffineWarpDesc&, DType,
                                                        std::span<const int64_t>, DType,
                                                        std::span<const int64_t>,
                                                        std::span<const int64_t>);
  friend StatusOr<AffineWarpPlan> make_affine_warp_plan(const AffineWarpDesc&, DType,
                                                        std::span<const int64_t>, DType,
                                                        std::span<const int64_t>,
                                                        std::span<const int64_t>,
                                                        std::span<const int64_t>,
                                                        const AffineWarpWindow&);
  AffineWarpDesc desc_;
  bool windowed_ = false;
  AffineWarpWindow window_;
  DType src_dtype_ = DType::kFloat32, theta_dtype_ = DType::kFloat32;
  Dims src_shape_, theta_shape_, size_, dst_shape_;
  const char* impl_name_ = "";
  const void* impl_ = nullptr;
  /// The planned entries: the chosen one and those a run may hand off to, with their tables
  /// (src/ops/dispatch.h, PlannedEntries; shared by copies of the plan).
  std::shared_ptr<const void> planned_;
};

/// src (N, C, D1..Dr) channels-first or (N, D1..Dr, C) channels-last, r = 1, 2 or 3, any
/// dtype GridSample takes with the mode; theta (N, r, r+1) float16/bfloat16/float32/
/// float64; size the r output spatial sizes. Output (N, C, size...) (or channels-last).
StatusOr<AffineWarpPlan> make_affine_warp_plan(const AffineWarpDesc& desc, DType src_dtype,
                                               std::span<const int64_t> src_shape,
                                               DType theta_dtype,
                                               std::span<const int64_t> theta_shape,
                                               std::span<const int64_t> size);

/// The windowed plan: src_shape's spatial sizes are the input box's, `size` the FULL
/// output's spatial sizes, `out_shape` the output box's (dst is (N, C, out_shape...)).
StatusOr<AffineWarpPlan> make_affine_warp_plan(const AffineWarpDesc& desc, DType src_dtype,
                                               std::span<const int64_t> src_shape,
                                               DType theta_dtype,
                                               std::span<const int64_t> theta_shape,
                                               std::span<const int64_t> size,
                                               std::span<const int64_t> out_shape,
                                               const AffineWarpWindow& window);

/// One-shot into a caller-provided dst.
Status affine_warp(const AffineWarpDesc& desc, const TensorView& src, const TensorView& theta,
                   std::span<const int64_t> size, const MutableTensorView& dst);
/// One-shot, allocating dst.
StatusOr<Tensor> affine_warp(const AffineWarpDesc& desc, const TensorView& src,
                             const TensorView& theta, std::span<const int64_t> size);

}  // namespace gridops
