// Kernel contract for Resize. The operator layer (src/ops/resize.cc) validates the desc and
// computes every axis's geometry; resize_taps.cc builds the per-axis tap tables below from
// it (all the coordinate math, in double) at plan time; kernels only combine taps and
// assert.
#pragma once

#include <cstdint>
#include <vector>

#include "gridops/dtype.h"
#include "gridops/ops/resize.h"
#include "gridops/tensor.h"

namespace gridops::kernels {

/// The taps of one resized axis: output position o reads input indices
/// idx[begin[o] .. begin[o+1]) with weights w[...] (already clamped to [0, in) or, with
/// exclude_outside, restricted to it and renormalized; antialias weights normalized).
/// outside[o] != 0 marks a tf_crop_and_resize position outside the input: every output
/// point with such a coordinate on any axis is the extrapolation value.
struct ResizeAxisTable {
  int axis = 0;  ///< the tensor axis
  int64_t in = 0, out = 0;
  std::vector<int64_t> begin;  ///< out + 1 entries
  std::vector<int64_t> idx;
  std::vector<double> w;
  std::vector<uint8_t> outside;
  bool any_outside = false;
  int64_t max_taps = 0;  ///< the largest begin[o + 1] - begin[o]
};

/// One Resize problem. Preconditions (guaranteed by make_resize_plan):
/// - src_shape and dst_shape have the same rank; they differ only on axes listed in
///   `tables`, and every axis whose map is not the identity is listed;
/// - the output is not empty; every listed axis has in >= 1;
/// - dtype is string only with nearest (every axis then has exactly one tap, weight 1).
struct ResizeProblem {
  DType dtype = DType::kFloat32;
  ResizeMode mode = ResizeMode::kNearest;
  bool antialias = false;
  double extrapolation_value = 0.0;
  Dims src_shape, dst_shape;
  std::vector<ResizeAxisTable> tables;  ///< in increasing axis order
  bool any_outside = false;
  /// Empty: a kernel that orders its passes chooses the order. Else the order of the
  /// tables' passes, fixed by the plan of a window (ResizeWindow) to the full problem's,
  /// so that the window's result has the full problem's bits.
  std::vector<size_t> pass_order;
};

/// The views of one run and the facts about them the operator computes once per run.
struct ResizeViews {
  const TensorView& src;
  const MutableTensorView& dst;
  bool src_dense = false;  ///< src's strides are row-major contiguous (resize_dense)
  bool dst_dense = false;  ///< dst's likewise
};

/// True when the view's strides are row-major contiguous (size-1 axes ignored).
bool resize_dense(const TensorView& v) noexcept;

/// The reference: for each output point, the extrapolation value if any axis is outside,
/// else the sum over every tap combination of the product of the axis weights times the
/// source element, in double (complex<double> for complex types), stored once with the
/// ERRATA GridSample 7 conversions. Views have the problem's shapes, any strides.
void resize_ref(const ResizeProblem& p, const TensorView& src, const MutableTensorView& dst);

}  // namespace gridops::kernels
