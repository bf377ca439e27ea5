#include "core/coords.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace gridops::coords {
namespace {

// Slow definitions: reflect step by step until in range.
int64_t slow_reflect(int64_t i, int64_t n) {
  if (n == 1) return 0;
  while (i < 0 || i >= n) {
    if (i < 0) i = -i;
    if (i >= n) i = 2 * (n - 1) - i;
  }
  return i;
}
int64_t slow_symmetric(int64_t i, int64_t n) {
  while (i < 0 || i >= n) {
    if (i < 0) i = -i - 1;
    if (i >= n) i = 2 * n - 1 - i;
  }
  return i;
}

TEST(Coords, PaddingMapsMatchStepwiseDefinitions) {
  for (int64_t n = 1; n <= 7; ++n) {
    for (int64_t i = -40; i <= 40; ++i) {
      EXPECT_EQ(reflect_index(i, n), slow_reflect(i, n)) << i << " " << n;
      EXPECT_EQ(symmetric_index(i, n), slow_symmetric(i, n)) << i << " " << n;
      EXPECT_EQ(clamp_index(i, n), std::min(std::max<int64_t>(i, 0), n - 1));
      int64_t w = wrap_index(i, n);
      EXPECT_GE(w, 0);
      EXPECT_LT(w, n);
      EXPECT_EQ((w - i) % n, 0);
    }
  }
  // Examples from the Pad-1 document (n = 4): reflect -1 -> 1, 4 -> 2; symmetric -1 -> 0, 4 -> 3.
  EXPECT_EQ(reflect_index(-1, 4), 1);
  EXPECT_EQ(reflect_index(4, 4), 2);
  EXPECT_EQ(symmetric_index(-1, 4), 0);
  EXPECT_EQ(symmetric_index(4, 4), 3);
}

TEST(Coords, PaddingMapsHandleExtremeIndices) {
  const int64_t big = std::numeric_limits<int64_t>::max();
  const int64_t small = std::numeric_limits<int64_t>::min();
  for (int64_t n : {1, 2, 3, 1000}) {
    for (int64_t i : {big, small, big - 1, small + 1}) {
      EXPECT_LT(reflect_index(i, n), n);
      EXPECT_GE(reflect_index(i, n), 0);
      EXPECT_LT(symmetric_index(i, n), n);
      EXPECT_GE(symmetric_index(i, n), 0);
      EXPECT_LT(wrap_index(i, n), n);
      EXPECT_GE(wrap_index(i, n), 0);
    }
  }
}

TEST(Coords, RoundHalfEven) {
  EXPECT_EQ(round_half_even(0.5f), 0.0f);
  EXPECT_EQ(round_half_even(1.5f), 2.0f);
  EXPECT_EQ(round_half_even(2.5f), 2.0f);
  EXPECT_EQ(round_half_even(-0.5f), 0.0f);
  EXPECT_EQ(round_half_even(-1.5f), -2.0f);
  EXPECT_EQ(round_half_even(-2.5), -2.0);
  EXPECT_EQ(round_half_even(2.4999), 2.0);
  EXPECT_EQ(round_half_even(2.5001), 3.0);
  EXPECT_EQ(round_half_even(1e20), 1e20);
}

TEST(Coords, Unnormalize) {
  // align_corners=1: -1 -> 0, 1 -> L-1. align_corners=0: -1 -> -0.5, 1 -> L-0.5.
  EXPECT_EQ(unnormalize(-1.0f, 5, true), 0.0f);
  EXPECT_EQ(unnormalize(1.0f, 5, true), 4.0f);
  EXPECT_EQ(unnormalize(-1.0f, 5, false), -0.5f);
  EXPECT_EQ(unnormalize(1.0f, 5, false), 4.5f);
  EXPECT_EQ(unnormalize(0.0, 4, false), 1.5);
}

TEST(Coords, ToIndexSaturatesAndReducesExactly) {
  EXPECT_EQ(to_index(3.0f), 3);
  EXPECT_EQ(to_index(-7.0), -7);
  EXPECT_EQ(to_index(1e30f), kFarIndex);
  EXPECT_EQ(to_index(-1e300), -kFarIndex);
  // 2^60 + 256 is exact in double; mod 10: (2^60 mod 10 = 6) + 6 = 12 -> 2.
  const double v = std::ldexp(1.0, 60) + 256.0;
  const int64_t r = to_index(v, 10);
  EXPECT_EQ(((r % 10) + 10) % 10, 2);
  // 2^70 (beyond int64) reduces exactly: 2^70 mod 10 = 4.
  const int64_t r2 = to_index(std::ldexp(1.0f, 70), 10);
  EXPECT_EQ(((r2 % 10) + 10) % 10, 4);
}

TEST(Coords, CubicWeightsKeys) {
  float w[4];
  cubic_weights(0.0f, w);
  EXPECT_EQ(w[0], 0.0f);
  EXPECT_EQ(w[1], 1.0f);
  EXPECT_EQ(w[2], 0.0f);
  EXPECT_EQ(w[3], 0.0f);
  // t = 0.5 with A = -0.75: far(1.5) = -0.09375, near(0.5) = 0.59375.
  cubic_weights(0.5f, w);
  EXPECT_FLOAT_EQ(w[0], -0.09375f);
  EXPECT_FLOAT_EQ(w[1], 0.59375f);
  EXPECT_FLOAT_EQ(w[2], 0.59375f);
  EXPECT_FLOAT_EQ(w[3], -0.09375f);
  for (double t = 0; t < 1; t += 0.0625) {
    double d[4];
    cubic_weights(t, d);
    EXPECT_NEAR(d[0] + d[1] + d[2] + d[3], 1.0, 1e-15);
  }
}

TEST(Coords, ResampleNearestIsExact) {
  // ERRATA Resampling 1: I = 2, O = 41, o = 20 is an exact tie: (41 * 2) / 82 = 1.
  EXPECT_EQ(resample_nearest_index(20, 2, 41), 1);
  EXPECT_EQ(resample_nearest_index(0, 4, 2), 1);  // (1 * 4) / 4 = 1
  EXPECT_EQ(resample_nearest_index(1, 4, 2), 3);  // (3 * 4) / 4 = 3
  for (int64_t in = 1; in < 20; ++in) {
    for (int64_t out = 1; out < 20; ++out) {
      for (int64_t o = 0; o < out; ++o) {
        const int64_t i = resample_nearest_index(o, in, out);
        // i is the largest integer with 2 * out * i <= (2o + 1) * in.
        EXPECT_LE(2 * out * i, (2 * o + 1) * in);
        EXPECT_GT(2 * out * (i + 1), (2 * o + 1) * in);
      }
    }
  }
}

TEST(Coords, ResampleLinearTaps) {
  // I = 2, O = 4: s = -0.25, 0.25, 0.75, 1.25.
  auto t0 = resample_linear_taps(0, 2, 4);
  EXPECT_EQ(t0.i0, 0);
  EXPECT_EQ(t0.i1, 0);  // floor(-0.25) = -1 clamped, +1 = 0
  EXPECT_DOUBLE_EQ(t0.w1, 0.75);
  auto t1 = resample_linear_taps(1, 2, 4);
  EXPECT_EQ(t1.i0, 0);
  EXPECT_EQ(t1.i1, 1);
  EXPECT_DOUBLE_EQ(t1.w0, 0.75);
  EXPECT_DOUBLE_EQ(t1.w1, 0.25);
  auto t3 = resample_linear_taps(3, 2, 4);
  EXPECT_EQ(t3.i0, 1);
  EXPECT_EQ(t3.i1, 1);
}

// AffineGrid base coordinates: the single pixel is the centre (ERRATA AffineGrid 1);
// align_corners puts the end pixels at -1 and 1, otherwise at their centres.
TEST(Coords, AffineGridBase) {
  EXPECT_EQ(affine_grid_base<float>(0, 1, true), 0.0f);
  EXPECT_EQ(affine_grid_base<double>(0, 1, false), 0.0);
  EXPECT_EQ(affine_grid_base<double>(0, 5, true), -1.0);
  EXPECT_EQ(affine_grid_base<double>(4, 5, true), 1.0);
  EXPECT_EQ(affine_grid_base<double>(2, 5, true), 0.0);
  EXPECT_EQ(affine_grid_base<double>(0, 4, false), -0.75);
  EXPECT_EQ(affine_grid_base<double>(3, 4, false), 0.75);
  // Rounded in F, operation by operation: 2/3 - 1 in float.
  EXPECT_EQ(affine_grid_base<float>(1, 4, true), 2.0f / 3.0f - 1.0f);
}

}  // namespace
}  // namespace gridops::coords
