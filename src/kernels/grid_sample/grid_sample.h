// GridSample kernel contract. The operator layer (src/ops/grid_sample.cc) validates
// everything; kernels only assert their preconditions.
#pragma once

#include <cstdint>

#include "gridops/dtype.h"
#include "gridops/ops/grid_sample.h"
#include "gridops/tensor.h"

namespace gridops::kernels {

/// A validated GridSample problem, independent of memory addresses and strides.
///
/// Preconditions every kernel may assume (the operator layer guarantees them):
/// - 1 <= spatial_rank <= kMaxRank - 2; in_sizes and out_sizes have spatial_rank entries,
///   ordered like the tensor axes (D1 first, innermost last); all sizes >= 0.
/// - src has dtype src_dtype and shape (batch, channels, in_sizes...) for kChannelsFirst or
///   (batch, in_sizes..., channels) for kChannelsLast; dst has src_dtype and the same
///   layout with out_sizes; grid has grid_dtype (float16, bfloat16, float32 or float64)
///   and shape (batch, out_sizes..., spatial_rank).
/// - Views are valid (validate_view passed): any strides, including zero and negative,
///   every reachable byte offset fits in int64.
/// - src_dtype == kString only with mode == kNearest.
/// - padding is kBorder or kReflection only when every in_sizes entry is >= 1 or the
///   output is empty.
/// - dst does not overlap src or grid.
struct GridSampleProblem {
  InterpolationMode mode = InterpolationMode::kLinear;
  GridPadding padding = GridPadding::kZeros;
  bool align_corners = false;
  ChannelLayout layout = ChannelLayout::kChannelsFirst;
  DType src_dtype = DType::kFloat32;
  DType grid_dtype = DType::kFloat32;
  int spatial_rank = 0;
  int64_t batch = 0;
  int64_t channels = 0;
  Dims in_sizes;   ///< D1..Dr of src
  Dims out_sizes;  ///< D1_out..Dr_out of grid and dst
};

/// The reference kernel: N-D, every dtype, mode and padding; single-threaded; computes
/// exactly the formulas of docs/ops/grid_sample.md.
void grid_sample_ref(const GridSampleProblem& p, const TensorView& src, const TensorView& grid,
                     const MutableTensorView& dst);

}  // namespace gridops::kernels
