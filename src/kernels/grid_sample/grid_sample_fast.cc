// The fast GridSample kernel's scalar parts, compiled without target-specific flags: the
// scope all its paths share (grid_sample_fast_declines) and the exact per-axis taps for lanes the SIMD code does not take
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
