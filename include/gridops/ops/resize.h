// Resize (ONNX Resize 10/11/13/18/19): N-D nearest / linear / cubic resizing of any axes,
// every coordinate transformation, antialiasing, crop-and-resize. See docs/ops/resize.md.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gridops/ops/modes.h"
#include "gridops/status.h"
#include "gridops/tensor.h"

namespace gridops {


/// What to compute. The attribute names and defaults are ONNX Resize-19's.
struct ResizeDesc {
  ResizeMode mode = ResizeMode::kNearest;
  ResizeCoordinateMode coordinate_mode = ResizeCoordinateMode::kHalfPixel;
  ResizeNearestMode nearest_mode = ResizeNearestMode::kRoundPreferFloor;
  /// Keys' cubic coefficient A (cubic only); finite.
  double cubic_coeff_a = -0.75;
  /// Taps outside the input get weight 0 and the rest are renormalized (linear, cubic).
  bool exclude_outside = false;
  /// Linear and cubic widen their kernel by 1/scale when downsampling (not for nearest).
  bool antialias = false;
  /// How sizes are reconciled when they do not keep the aspect ratio (sizes only).
  ResizeAspectPolicy aspect_policy = ResizeAspectPolicy::kStretch;
  /// tf_crop_and_resize: the value of output points whose coordinate falls outside the
  /// input (converted to the element type like an interpolated value).
  double extrapolation_value = 0.0;
  /// The resized axes (negative counts from the end; no repeats). Empty: every axis.
  Dims axes;
  /// One scale per resized axis (finite, > 0): output length floor(in * scale). Exactly one
  /// of scales and sizes is given (both empty only when there is no axis to resize).
  std::vector<double> scales;
  /// One output length per resized axis (>= 0).
  Dims sizes;
  /// tf_crop_and_resize only: [start_1..start_k, end_1..end_k] per resized axis, in
  /// normalized input coordinates (finite). Empty: [0, 1] on every axis. Ignored by the
  /// other coordinate modes.
  std::vector<double> roi;
  /// Forces an implementation by name ("ref", ...); empty: the first that accepts. A name
  /// of the backward's list only ("resize_backward.passes") forces the backward and leaves
  /// the forward's choice automatic; "ref" and "fast" force both.
  std::string impl;
};

/// The geometry of one axis after the desc is applied to a shape: output length, the
/// scale used by the coordinate transformation and the real-valued output length
/// (in * scale; equal to `out` for stretched sizes). Axes that are not resized have
/// resized = false, out = in, scale = 1.
struct ResizeAxis {
  bool resized = false;
  int64_t in = 0;
  int64_t out = 0;
  double scale = 1.0;
  double length = 0.0;
  double roi_start = 0.0, roi_end = 1.0;
};

/// Per-axis geometry (one entry per axis of src) or the reason the desc does not fit.
StatusOr<std::vector<ResizeAxis>> resize_axes(const ResizeDesc& desc,
                                              std::span<const int64_t> src_shape);
/// The output shape.
StatusOr<Dims> resize_output_shape(const ResizeDesc& desc, std::span<const int64_t> src_shape);

/// A window of a Resize, for chunked execution (docs/dask.md): the plan is for the full
/// input shape `full_in` (the desc applies to it: axes, scales/sizes, roi), but src is only
/// its box at `in_origin` with shape `in_shape`, and dst is the box at `out_origin` with
/// shape `out_shape` of the full output. The tap tables are the full problem's rows for the
/// dst box, with input indices shifted by in_origin, so dst is the same values as that box
/// of the unwindowed result computed by the same implementation. Every tap of the dst box
/// (resize_input_box) must lie in the src box.
struct ResizeWindow {
  Dims full_in;     ///< the full input's shape (every axis)
  Dims in_origin;   ///< src's position in it
  Dims in_shape;    ///< src's shape
  Dims out_origin;  ///< dst's position in the full output
  Dims out_shape;   ///< dst's shape
};

class ResizePlan;
namespace detail {
/// make_resize_plan, planning the backward too only when `with_backward` (the forward
/// one-shots and a window's full plan do without it).
StatusOr<ResizePlan> make_resize_plan(const ResizeDesc& desc, DType dtype,
                                      std::span<const int64_t> src_shape, bool with_backward);
}  // namespace detail

/// The input box [lo, hi) per axis (every axis of the tensor) that the output box
/// [out_begin, out_end) of Resize(desc) on a full input of shape full_in reads (every
/// listed tap; tf_crop_and_resize positions outside the input read nothing). Axes whose
/// output range is empty or reads nothing give [0, 0).
StatusOr<std::vector<std::pair<int64_t, int64_t>>> resize_input_box(
    const ResizeDesc& desc, std::span<const int64_t> full_in, std::span<const int64_t> out_begin,
    std::span<const int64_t> out_end);

/// A validated Resize problem with its tables built and its implementation chosen. Cheap to
/// copy (the tables are shared).
class ResizePlan {
 public:
  /// dst = Resize(src). Views of the plan's dtype and shapes, any strides; dst must not
  /// overlap src. Nothing is written on a validation error.
  Status run(const TensorView& src, const MutableTensorView& dst) const;
  /// The adjoint of run, for training: grad_src = A^T grad_dst for the linear map A of the
  /// forward (each output point not at the extrapolation value adds the product of its
  /// axis weights times grad_dst to every input element its taps read; the extrapolation
  /// value has no gradient). Floating and complex dtypes (float16, bfloat16, float32,
  /// float64, complex64, complex128); grad_dst has dst_shape(), grad_src src_shape();
  /// grad_src does not overlap grad_dst nor itself. Deterministic (the same bits for any
  /// thread count); the fast entry is within docs/ops/resize.md's tolerance ("Backward") of
  /// the reference, which sums in double. For a window plan, the adjoint of the window's
  /// forward.
  Status backward(const TensorView& grad_dst, const MutableTensorView& grad_src) const;
  /// The backward's implementation ("" where backward is an error: an integer, bool or
  /// string dtype, or a forced implementation that declines).
  const char* backward_impl_name() const noexcept { return backward_impl_name_; }
  const Dims& src_shape() const noexcept { return src_shape_; }
  const Dims& dst_shape() const noexcept { return dst_shape_; }
  DType dtype() const noexcept { return dtype_; }
  const char* impl_name() const noexcept { return impl_name_; }

 private:
  friend StatusOr<ResizePlan> detail::make_resize_plan(const ResizeDesc&, DType,
                                                       std::span<const int64_t>, bool);
  friend StatusOr<ResizePlan> make_resize_plan(const ResizeDesc&, DType, const ResizeWindow&);
  DType dtype_ = DType::kFloat32;
  Dims src_shape_, dst_shape_;
  const char* impl_name_ = "";
  const void* impl_ = nullptr;  ///< the chosen entry (detail::ResizeEntry)
  std::shared_ptr<const void> problem_;  ///< kernels::ResizeProblem with its tables
  /// detail::PlannedEntries<detail::ResizeEntry>: the chosen entry and those a run may hand
  /// the views to, each with its own tables.
  std::shared_ptr<const void> prepared_;
  /// The backward's planned entries (null where backward is an error: backward_error_
  /// says why, or the dtype has no backward).
  std::shared_ptr<const void> prepared_backward_;
  Status backward_error_;
  const char* backward_impl_name_ = "";
};

/// Validates desc against (dtype, shape), builds the per-axis tap tables once and picks an
/// implementation. Every dtype is accepted; string supports nearest only.
StatusOr<ResizePlan> make_resize_plan(const ResizeDesc& desc, DType dtype,
                                      std::span<const int64_t> src_shape);

/// A plan for a window (ResizeWindow) of the Resize of desc on the full input.
StatusOr<ResizePlan> make_resize_plan(const ResizeDesc& desc, DType dtype,
                                      const ResizeWindow& window);

/// One-shot: plan and run into a caller-provided dst.
Status resize(const ResizeDesc& desc, const TensorView& src, const MutableTensorView& dst);
/// One-shot: plan, allocate dst and run.
StatusOr<Tensor> resize(const ResizeDesc& desc, const TensorView& src);

/// One-shot ResizePlan::backward: plan for an input of src_shape and grad_dst's dtype,
/// allocate grad_src and run.
StatusOr<Tensor> resize_backward(const ResizeDesc& desc, const TensorView& grad_dst,
                                 std::span<const int64_t> src_shape);

}  // namespace gridops
