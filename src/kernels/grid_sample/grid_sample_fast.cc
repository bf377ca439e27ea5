// The fast GridSample kernel's scalar parts, compiled without target-specific flags: its
// scope (declines) and the exact per-axis taps for lanes the SIMD code does not take
// (non-finite or huge coordinates). The latter mirrors the reference's axis_taps
// (grid_sample_ref.cc) in float, so such lanes give exactly the reference's taps and
// weights. See docs/ops/grid_sample.md, "Fast path".
#include <cmath>
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
    idx[k] = 0;
    w[k] = 0.0f;
  }
  // ERRATA GridSample 8, as in the reference.
  if (std::isnan(x)) {
    if (padding == GridPadding::kZeros) return;
    x = 0.0f;
  } else if (std::isinf(x)) {
    if (padding == GridPadding::kZeros) return;
    if (padding == GridPadding::kBorder) {
      x = x > 0.0f ? static_cast<float>(len - 1) : 0.0f;
    } else {
      x = 0.0f;
    }
  }
  const int64_t period = padding == GridPadding::kReflection
                             ? (align_corners ? 2 * (len - 1) : 2 * len)
                             : 0;
  auto put = [&](int k, int64_t i, float wk) {
    switch (padding) {
      case GridPadding::kZeros:
        if (i < 0 || i >= len) return;  // stays idx 0, weight 0
        break;
      case GridPadding::kBorder: i = coords::clamp_index(i, len); break;
      case GridPadding::kReflection:
        i = align_corners ? coords::reflect_index(i, len) : coords::symmetric_index(i, len);
        break;
    }
    idx[k] = static_cast<int32_t>(i);
    w[k] = wk;
  };
  switch (mode) {
    case InterpolationMode::kNearest:
      put(0, coords::to_index(coords::round_half_even(x), period), 1.0f);
      break;
    case InterpolationMode::kLinear: {
      const float f = std::floor(x);
      const float t = x - f;
      const int64_t i0 = coords::to_index(f, period);
      put(0, i0, 1.0f - t);
      put(1, i0 + 1, t);
      break;
    }
    case InterpolationMode::kCubic: {
      const float f = std::floor(x);
      const float t = x - f;
      const int64_t i0 = coords::to_index(f, period);
      float cw[4];
      coords::cubic_weights(t, cw);
      for (int k = 0; k < 4; ++k) put(k, i0 - 1 + k, cw[k]);
      break;
    }
  }
}

}  // namespace gridops::kernels
