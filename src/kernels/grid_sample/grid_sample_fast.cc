// The fast GridSample kernel's scalar parts, compiled without target-specific flags: the
// scope of each path (grid_sample_path_declines: the plan-time half of the choice) and the exact per-axis taps for lanes the SIMD code does not take
// (non-finite or huge coordinates). The latter are coords::grid_axis_taps in float, the
// reference's taps (grid_sample_taps.h), so such lanes give exactly the reference's taps
// and weights. See docs/ops/grid_sample.md, "Fast path".
#include <string>

#include "core/coords.h"
#include "kernels/grid_sample/grid_sample.h"

namespace gridops::kernels {

std::string grid_sample_fast_declines(const GridSampleProblem& p) {
  if (p.spatial_rank < 1 || p.spatial_rank > 3) {
    return "spatial rank " + std::to_string(p.spatial_rank) + " (fast path: 1 to 3)";
  }
  if (p.src_dtype != DType::kFloat32 && p.src_dtype != DType::kFloat16 &&
      p.src_dtype != DType::kBFloat16) {
    return std::string("src dtype ") + to_string(p.src_dtype) +
           " (fast path: float32, float16, bfloat16)";
  }
  if (p.grid_dtype != DType::kFloat32 && p.grid_dtype != DType::kFloat16 &&
      p.grid_dtype != DType::kBFloat16) {
    return std::string("grid dtype ") + to_string(p.grid_dtype) +
           " (fast path: float32, float16, bfloat16)";
  }
  for (int64_t len : p.in_sizes) {
    // Tap indices are int32 and reflection reduces them in float (exact below 2^24).
    if (len < 1 || len >= (int64_t{1} << 22)) {
      return "input axis of length " + std::to_string(len) + " (fast path: 1 to 2^22-1)";
    }
  }
  return {};
}

const char* grid_sample_path_name(GridSamplePath path) noexcept {
  switch (path) {
    case GridSamplePath::kBlocked: return "grid_sample.blocked";
    case GridSamplePath::kFusedSmallC: return "grid_sample.fused_small_c";
    case GridSamplePath::kPairs: return "grid_sample.pairs";
    case GridSamplePath::kChannels: return "grid_sample.channels";
    case GridSamplePath::kGeneric: return "grid_sample.generic";
  }
  return "grid_sample.unknown";
}

std::string grid_sample_path_declines(GridSamplePath path, const GridSampleProblem& p) {
  std::string why = grid_sample_fast_declines(p);
  if (!why.empty()) return why;
  const bool f32 = p.src_dtype == DType::kFloat32;
  const bool last = p.layout == ChannelLayout::kChannelsLast;
  const bool nearest = p.mode == InterpolationMode::kNearest;
  const int r = p.spatial_rank;
  const int K = nearest ? 1 : p.mode == InterpolationMode::kLinear ? 2 : 4;
  // Linear/cubic 2-D/3-D whose x axis holds the K columns of an x window.
  const bool x_window = r >= 2 && !nearest && p.in_sizes[static_cast<size_t>(r - 1)] >= K;
#ifdef GRIDOPS_HAVE_HWY
  const bool have_blocked = grid_sample_target_has_blocked();
  const bool have_pairs = grid_sample_target_has_pairs();
#else
  const bool have_blocked = false, have_pairs = false;
#endif
  switch (path) {
    case GridSamplePath::kBlocked: {
      // NOTE [ GridSample channel blocks ]: channels-first float32 2-D/3-D with at least 8
      // channels, when the output has at least an eighth as many points as the input (the
      // copy costs about one pass over the input).
      if (last || !f32) return "channels-first float32 only";
      if (r < 2) return "spatial rank 2 or 3 only";
      if (p.channels < 8) return "fewer than 8 channels";
      if (!have_blocked) return "the CPU's Highway target has no AVX-512";
      // Its copy spans the full input: with an input window the other paths run (the same
      // bits).
      if (!p.window_origin.empty()) return "an input window";
      int64_t in_points = 1, out_points = 1;
      for (int d = 0; d < r; ++d) {
        in_points *= p.in_sizes[static_cast<size_t>(d)];
        out_points *= p.out_sizes[static_cast<size_t>(d)];
      }
      if (in_points * 16 >= (int64_t{1} << 31)) return "input plane of 2^27 points or more";
      if (8 * out_points < in_points) {
        return "fewer than 1/8 as many output points as input points (the copy would not pay)";
      }
      // Nearest reads one line per point and block: the copy pays only while it stays in L2
      // (W1b: 1 MiB per block). W3b's 16 MiB block measured 5.2 vs 5.6 ms at 1 thread but
      // 16.6 vs 8.7 ms at 2 threads (random reads from L3 against per-channel planes in L2).
      if (nearest && in_points * 16 * 4 > (int64_t{2} << 20)) {
        return "nearest with a channel block over 2 MiB (out of L2)";
      }
      return {};
    }
    case GridSamplePath::kFusedSmallC:
      // NOTE [ GridSample fused small-channel path ]; the views (dense grid and dst, unit
      // src x or channel stride) are checked when it runs.
      if (r != 2) return "spatial rank 2 only";
      if (!f32 || p.grid_dtype != DType::kFloat32) return "float32 src and grid only";
      if (p.channels > 4) return "more than 4 channels";
      if (!nearest && !x_window) return "an x axis shorter than the taps per axis";
      if (!nearest && !last && !have_pairs) {
        return "channels-first linear/cubic needs the pair gathers (AVX2 and up)";
      }
      return {};
    case GridSamplePath::kPairs:
      // NOTE [ GridSample x-window gathers ]; unit src x stride checked when it runs.
      if (last || !f32) return "channels-first float32 only";
      if (!x_window) return "linear/cubic 2-D/3-D with an x axis of at least the taps per axis only";
      if (!have_pairs) return "the CPU's Highway target has no pair gathers (AVX2 and up)";
      return {};
    case GridSamplePath::kChannels:
      // Channels-last: a unit src channel stride, checked when it runs.
      if (!f32) return "float32 src only";
      return {};
    case GridSamplePath::kGeneric:
      return {};
  }
  return "unknown path";
}

void grid_sample_axis_taps_exact(InterpolationMode mode, GridPadding padding, bool align_corners,
                                 float x, int64_t len, int32_t* idx, float* w) {
  const int count = mode == InterpolationMode::kNearest ? 1
                    : mode == InterpolationMode::kLinear ? 2
                                                          : 4;
  for (int k = 0; k < count; ++k) {
    idx[k] = 0;  // a tap not put (outside under zeros) keeps index 0 and weight 0
    w[k] = 0.0f;
  }
  coords::grid_axis_taps<float>(mode, padding, align_corners, x, len,
                                [&](int k, int64_t i, float wk) {
                                  idx[k] = static_cast<int32_t>(i);
                                  w[k] = wk;
                                });
}

}  // namespace gridops::kernels
