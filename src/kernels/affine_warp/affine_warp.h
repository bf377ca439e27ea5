// AffineWarp kernel contract. The operator layer (src/ops/affine_warp.cc) validates
// everything; kernels only assert their preconditions. docs/ops/affine_warp.md.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "gridops/dtype.h"
#include "gridops/ops/grid_sample.h"
#include "gridops/tensor.h"

namespace gridops::kernels {

inline constexpr int kAffineWarpMaxSpatial = 3;

/// A validated AffineWarp problem (always described with windows: an unwindowed problem
/// has origins 0 and extents equal to the full sizes).
///
/// Preconditions every kernel may assume:
/// - 1 <= spatial_rank <= 3; theta_dtype floating; src_dtype any GridSample takes with mode.
/// - src: (batch, channels, in_ext...) channels-first or (batch, in_ext..., channels)
///   channels-last; dst: the same layout with out_ext; theta (batch, r, r + 1). Views
///   valid, any strides; dst overlaps neither input.
/// - The output box [out_origin, out_origin + out_ext) lies in out_full; the input box
///   [in_origin, in_origin + in_ext) in in_full; every tap any implementation reads
///   (affine_warp_input_box of the output box) lies in the input box.
/// - padding is kBorder or kReflection only when every in_full entry is >= 1.
struct AffineWarpProblem {
  InterpolationMode mode = InterpolationMode::kLinear;
  GridPadding padding = GridPadding::kZeros;
  bool align_corners = false;
  ChannelLayout layout = ChannelLayout::kChannelsFirst;
  DType src_dtype = DType::kFloat32;
  DType theta_dtype = DType::kFloat32;
  int spatial_rank = 0;
  int64_t batch = 0;
  int64_t channels = 0;
  int64_t in_full[kAffineWarpMaxSpatial] = {0, 0, 0};
  int64_t in_origin[kAffineWarpMaxSpatial] = {0, 0, 0};
  int64_t in_ext[kAffineWarpMaxSpatial] = {0, 0, 0};
  int64_t out_full[kAffineWarpMaxSpatial] = {0, 0, 0};
  int64_t out_origin[kAffineWarpMaxSpatial] = {0, 0, 0};
  int64_t out_ext[kAffineWarpMaxSpatial] = {0, 0, 0};
};

/// The views of one run.
struct AffineWarpViews {
  const TensorView& src;
  const TensorView& theta;
  const MutableTensorView& dst;
};

/// The reference: AffineGrid's reference kernel writes the grid of the output box (theta's
/// dtype) into a buffer, then GridSample's reference kernel samples it with the input
/// window. Every dtype, mode, padding and layout. Throws std::bad_alloc when the grid
/// buffer cannot be allocated.
void affine_warp_ref(const AffineWarpProblem& p, const TensorView& src, const TensorView& theta,
                     const MutableTensorView& dst);

/// Why the fast kernel declines p (empty: it accepts): it takes float32 src and theta,
/// channels-first, linear and nearest, every padding and align_corners, rank 1-3.
std::string affine_warp_fast_declines(const AffineWarpProblem& p);

#ifdef GRIDOPS_HAVE_HWY
/// The fused kernel's tables (the output box's base coordinates), built when the plan is
/// made (null for an empty output).
std::shared_ptr<const void> affine_warp_fast_prepare(const AffineWarpProblem& p);
/// Run time: views whose src offsets within a channel plane do not fit int32 (or a full
/// input axis of 2^30 or more) go to the next entry (the reference).
std::string affine_warp_fast_declines_views(const AffineWarpProblem& p, const void* tables,
                                            const AffineWarpViews& v);
/// The fused kernel (affine_warp_hwy.cc): NOTE [ AffineWarp fast path ]; `tables` from
/// affine_warp_fast_prepare (p), on views it takes.
void affine_warp_fast(const AffineWarpProblem& p, const void* tables, const AffineWarpViews& v);
#endif

}  // namespace gridops::kernels
