// GridSample's uint8 few-channel path (grid_sample_u8_hwy.cc): 2-D image warps of uint8
// images with 1 to 4 channels, channels-first or channels-last, float32 grid, bilinear or
// nearest, every padding and align_corners. See docs/ops/grid_sample.md, "uint8
// few-channel path".
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "kernels/grid_sample/grid_sample.h"

namespace gridops::kernels {

/// Empty when the uint8 few-channel path takes the problem, else why not: it takes spatial
/// rank 2, src uint8, grid float32, 1 to 4 channels, mode linear or nearest, input axes of
/// length 1 to 2^22-1; every padding, align_corners, layout and input window.
std::string grid_sample_u8_declines(const GridSampleProblem& p);

#ifdef GRIDOPS_HAVE_HWY
/// The schedule the plan fixes (grid_sample_u8_prepare; printed by grid_sample_u8_schedule).
struct GridSampleU8Tables {
  /// Channels-first src is first copied channels-last (NOTE [ GridSample uint8 interleaved
  /// copy ]) when its x stride is 1.
  bool interleave;
  /// Work items: tiles of tile_h x tile_w output points.
  int64_t tile_h, tile_w;
  /// Rows ahead of the source prefetch of dense grids on the whole-pixel reads.
  int prefetch_rows;
  /// A displacement grid's base coordinates per axis (y, x), the reference's
  /// base_coordinate in float, padded with zeros past the axis for a vector of x bases at
  /// a row's end; empty for absolute grids.
  std::vector<float> base[2];
};

/// Plan time: the tables of a problem grid_sample_u8_declines accepted.
std::shared_ptr<const void> grid_sample_u8_prepare(const GridSampleProblem& p);
/// The schedule the tables fix, for the dispatch log.
std::string grid_sample_u8_schedule(const GridSampleProblem& p, const void* tables);
/// Run time: why the kernel cannot take these views (empty: it takes them): a src view
/// reaching over 2^30 bytes (its offsets are int32) or under 8 (a word read).
std::string grid_sample_u8_declines_views(const GridSampleProblem& p, const void* tables,
                                          const GridSampleViews& v);
/// The uint8 few-channel kernel (Highway with dynamic dispatch, threaded over output rows
/// through parallel_for), with its tables, on views grid_sample_u8_declines_views took.
/// Preconditions: grid_sample_u8_declines(p) is empty. Nearest is bit-exact with
/// grid_sample_ref; linear is within 1 of it (|fast - ref| <= 1 per element). Results do
/// not depend on the thread count. Any strides.
void grid_sample_u8_run(const GridSampleProblem& p, const void* tables,
                        const GridSampleViews& v);
#endif

}  // namespace gridops::kernels
