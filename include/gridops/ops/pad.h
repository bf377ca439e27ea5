// Pad (OpenVINO Pad-1, with Pad-12 negative pads and ONNX wrap mode).
#pragma once

#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "gridops/ops/modes.h"
#include "gridops/status.h"
#include "gridops/tensor.h"

namespace gridops {

/// What to compute.
struct PadDesc {
  PadMode mode = PadMode::kConstant;
  /// One entry per axis of src; negative values crop (Pad-12).
  Dims pads_begin;
  Dims pads_end;
  /// Forces an implementation by name ("ref", ...); empty: the first that accepts. A name
  /// of the forward's list or of the backward's ("pad_backward.rows") forces that one and
  /// leaves the other's choice automatic; "ref" and "fast" force both (a backward that
  /// declines a forced name fails backward(), not the plan).
  std::string impl;
};

/// pads_begin[d] + src.shape[d] + pads_end[d] per axis, or why not (bounds included).
StatusOr<Dims> pad_output_shape(const PadDesc& desc, std::span<const int64_t> src_shape);

class PadPlan;
namespace detail {
/// make_pad_plan, planning the backward too only when `with_backward` (the forward
/// one-shots do without it).
StatusOr<PadPlan> make_pad_plan(const PadDesc& desc, DType dtype,
                                std::span<const int64_t> src_shape, bool with_backward);
}  // namespace detail

/// A validated Pad problem.
class PadPlan {
 public:
  /// pad_value: nullptr (zero / empty string / false) or a one-element view of src's dtype;
  /// only allowed with PadMode::kConstant.
  Status run(const TensorView& src, const MutableTensorView& dst,
             const TensorView* pad_value = nullptr) const;
  /// The adjoint of run, for training: given grad_dst (the gradient of a loss with respect
  /// to dst), grad_src[i] is the sum of grad_dst over the output positions that copy
  /// src[i] (none for a cropped element or the constant border; the pad value has no
  /// gradient here). The sum is taken in increasing row-major order of the output
  /// positions, from +0, in float64 for float64 and complex128 and in float32 otherwise
  /// (complex: each part), and stored once, so every implementation and thread count gives
  /// the same bits (docs/ops/pad.md, "Backward"). Floating and complex dtypes only (float16,
  /// bfloat16, float32, float64, complex64, complex128); grad_dst has
  /// dst_shape() and grad_src the plan's src shape; grad_src does not overlap grad_dst nor
  /// itself.
  Status backward(const TensorView& grad_dst, const MutableTensorView& grad_src) const;
  const Dims& dst_shape() const noexcept { return dst_shape_; }
  const Dims& src_shape() const noexcept { return src_shape_; }
  const char* impl_name() const noexcept { return impl_name_; }
  /// The backward's implementation ("" where backward is an error: an integer, bool or
  /// string dtype, or an implementation forced by name that declines the backward).
  const char* backward_impl_name() const noexcept { return backward_impl_name_; }

 private:
  friend StatusOr<PadPlan> detail::make_pad_plan(const PadDesc&, DType, std::span<const int64_t>,
                                                 bool);
  PadDesc desc_;
  DType dtype_ = DType::kFloat32;
  Dims src_shape_, dst_shape_;
  const char* impl_name_ = "";
  const void* impl_ = nullptr;
  const char* backward_impl_name_ = "";
  /// The backward's planned entries (null for an integer, bool or string dtype, or when
  /// planning them failed: then backward_error_ says why).
  std::shared_ptr<const void> prepared_backward_;
  Status backward_error_;
  /// The planned entries: the chosen one and those a run may hand off to, with their tables
  /// (src/ops/dispatch.h, PlannedEntries; shared by copies of the plan).
  std::shared_ptr<const void> prepared_;
};

/// Validates modes and bounds on every axis (ERRATA Pad 2).
StatusOr<PadPlan> make_pad_plan(const PadDesc& desc, DType dtype, std::span<const int64_t> src_shape);

/// One-shot into a caller-provided dst.
Status pad(const PadDesc& desc, const TensorView& src, const MutableTensorView& dst,
           const TensorView* pad_value = nullptr);
/// One-shot, allocating dst.
StatusOr<Tensor> pad(const PadDesc& desc, const TensorView& src,
                     const TensorView* pad_value = nullptr);

/// One-shot PadPlan::backward into a caller-provided grad_src (its shape is src's).
Status pad_backward(const PadDesc& desc, const TensorView& grad_dst,
                    const MutableTensorView& grad_src);

/// One-shot PadPlan::backward, allocating grad_src of shape src_shape.
StatusOr<Tensor> pad_backward(const PadDesc& desc, const TensorView& grad_dst,
                              std::span<const int64_t> src_shape);

}  // namespace gridops
