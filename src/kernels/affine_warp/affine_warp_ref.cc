// The AffineWarp reference: AffineGrid's reference, then GridSample's reference, through
// a materialized grid. Slow and obviously the composition.
#include <cassert>
#include <cstdint>
#include <vector>

#include "kernels/affine_grid/affine_grid.h"
#include "kernels/affine_warp/affine_warp.h"
#include "kernels/grid_sample/grid_sample.h"

namespace gridops::kernels {

void affine_warp_ref(const AffineWarpProblem& p, const TensorView& src, const TensorView& theta,
                     const MutableTensorView& dst) {
  const int r = p.spatial_rank;
  assert(r >= 1 && r <= kAffineWarpMaxSpatial);
  int64_t points = p.batch;
  for (int a = 0; a < r; ++a) points *= p.out_ext[a];
  if (points == 0 || p.channels == 0) return;

  // 1. The grid of the output box: AffineGrid with an output window.
  AffineGridProblem ap;
  ap.dtype = p.theta_dtype;
  ap.spatial_rank = r;
  ap.align_corners = p.align_corners;
  ap.batch = p.batch;
  ap.windowed = true;
  Dims grid_shape{p.batch};
  for (int a = 0; a < r; ++a) {
    ap.spatial[a] = p.out_ext[a];
    ap.full[a] = p.out_full[a];
    ap.origin[a] = p.out_origin[a];
    grid_shape.push_back(p.out_ext[a]);
  }
  grid_shape.push_back(r);
  // The operator checked that points * r * element size fits int64 and size_t.
  std::vector<unsigned char> buf(static_cast<size_t>(points * r) * dtype_size(p.theta_dtype));
  const MutableTensorView grid(p.theta_dtype, buf.data(), grid_shape);
  affine_grid_ref(ap, theta, grid);

  // 2. GridSample of the full input, reading src's window.
  GridSampleProblem gp;
  gp.mode = p.mode;
  gp.padding = p.padding;
  gp.align_corners = p.align_corners;
  gp.layout = p.layout;
  gp.src_dtype = p.src_dtype;
  gp.grid_dtype = p.theta_dtype;
  gp.spatial_rank = r;
  gp.batch = p.batch;
  gp.channels = p.channels;
  for (int a = 0; a < r; ++a) {
    gp.in_sizes.push_back(p.in_full[a]);
    gp.out_sizes.push_back(p.out_ext[a]);
    gp.window_origin.push_back(p.in_origin[a]);
    gp.window_extent.push_back(p.in_ext[a]);
  }
  grid_sample_ref(gp, src, grid, dst);
}

std::string affine_warp_fast_declines(const AffineWarpProblem& p) {
#ifndef GRIDOPS_HAVE_HWY
  (void)p;
  return "built without Highway";
#else
  if (p.src_dtype != DType::kFloat32) return "src dtype is not float32";
  if (p.theta_dtype != DType::kFloat32) return "theta dtype is not float32";
  if (p.layout != ChannelLayout::kChannelsFirst) return "channels-last layout";
  if (p.mode == InterpolationMode::kCubic) return "cubic mode";
  if (p.spatial_rank < 1 || p.spatial_rank > 3) return "spatial rank not 1-3";
  return {};
#endif
}

}  // namespace gridops::kernels
