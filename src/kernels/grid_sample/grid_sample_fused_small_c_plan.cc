// grid_sample.fused_small_c at plan time, compiled without target flags: its scope
// (declines), its view checks (declines_views) and its schedule for the dispatch log. The
// kernel and its run are in grid_sample_fused_small_c_hwy.cc.
#include <string>

#include "core/coords.h"
#include "kernels/grid_sample/grid_sample.h"
#include "kernels/grid_sample/grid_sample_fast.h"

namespace gridops::kernels {
GRIDOPS_GRID_SAMPLE_FAST_PATH(fused_small_c)

namespace {

/// Why the path cannot take the views of c (empty: it can), and (should the target have
/// changed since the plan) the CPU's Highway target.
std::string ViewDeclines(const grid_sample_simd::Ctx& c) {
  if (!c.dst_dense) return "dst is not dense";
  const bool dense_grid = c.grid_dtype == DType::kFloat32 && c.g_coord == 1 &&
                          c.g_spatial[1] == 2 &&
                          (c.out_sizes[0] == 1 || c.g_spatial[0] == 2 * c.out_sizes[1]);
  if (!dense_grid) return "grid is not dense";
  if (!c.channels_last && c.sstride[1] != 1) return "src x stride is not 1";
  if (c.channels_last && c.s_channel != 1) return "src channel stride is not 1";
  if (c.K > 1 && !c.channels_last && !grid_sample_target_has_pairs()) {
    return "the CPU's Highway target has no pair gathers";
  }
  return {};
}

}  // namespace

std::string grid_sample_fused_small_c_declines(const GridSampleProblem& p) {
  std::string why = grid_sample_fast_declines(p);
  if (!why.empty()) return why;
  // NOTE [ GridSample fused small-channel path ]; the views (dense grid and dst, unit src x
  // or channel stride) are checked when it runs.
  const bool nearest = p.mode == InterpolationMode::kNearest;
  const int K = coords::taps_per_axis(p.mode);
  const bool last = p.layout == ChannelLayout::kChannelsLast;
  const int r = p.spatial_rank;
  if (r != 2) return "spatial rank 2 only";
  if (p.src_dtype != DType::kFloat32 || p.grid_dtype != DType::kFloat32) {
    return "float32 src and grid only";
  }
  if (p.channels > 4) return "more than 4 channels";
  // Linear/cubic: the x axis holds the K columns of an x window (not under wrap).
  if (!nearest && p.in_sizes[1] < K) return "an x axis shorter than the taps per axis";
  if (!nearest && p.padding == GridPadding::kWrap) return "linear/cubic wrap (no x window)";
  if (!nearest && !last && !grid_sample_target_has_pairs()) {
    return "channels-first linear/cubic needs the pair gathers (AVX2 and up)";
  }
  return {};
}

namespace {

std::string FusedSchedule(const GridSampleProblem& p, const void* tables, const char* taps) {
  return grid_sample_fast_schedule(p, tables) + ", tile=" + std::to_string(kFusedTileH) +
         "x" + std::to_string(kFusedTileW) + ", taps=" + taps;
}

}  // namespace

std::string grid_sample_fused_small_c_schedule(const GridSampleProblem& p, const void* tables) {
  // NOTE [ GridSample tap loads ]
  const bool loads = static_cast<const GridSampleFastTables*>(tables)->tap_loads;
  return FusedSchedule(p, tables, loads ? "loads" : "gathers");
}

std::string grid_sample_fused_small_c_portable_pairs_schedule(const GridSampleProblem& p,
                                                              const void* tables) {
  return FusedSchedule(p, tables, "portable gathers");
}

std::string grid_sample_fused_small_c_declines_views(const GridSampleProblem& p,
                                                     const void* tables,
                                                     const GridSampleViews& v) {
  return grid_sample_path_declines_views(p, tables, v, ViewDeclines);
}

}  // namespace gridops::kernels
