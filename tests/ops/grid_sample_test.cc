// GridSample: hand-computed cases, one per ERRATA rule, every dtype, and every error path.
// Expected values are worked out by hand in the comments (Keys A = -0.75 weights at t = 0.5
// are w = (-0.09375, 0.59375, 0.59375, -0.09375); at t = 0 they are (0, 1, 0, 0)).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sys/mman.h>

#include <cmath>
#include <complex>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "core/convert.h"
#include "gridops/ops/grid_sample.h"
#include "kernels/grid_sample/grid_sample.h"
#include "ops/grid_sample_impls.h"
#include "support/test_util.h"

namespace gridops {
namespace {

using ::testing::HasSubstr;
using IM = InterpolationMode;
using GP = GridPadding;

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

template <class T>
Tensor make_tensor(Dims shape, const std::vector<T>& values) {
  Tensor t(dtype_of<T>(), std::move(shape));
  EXPECT_EQ(static_cast<size_t>(t.num_elements()), values.size());
  for (size_t i = 0; i < values.size(); ++i) t.data_as<T>()[i] = values[i];
  return t;
}

GridSampleDesc make_desc(IM mode, GP padding, int64_t align_corners) {
  GridSampleDesc d;
  d.mode = mode;
  d.padding = padding;
  d.align_corners = align_corners;
  return d;
}

Tensor run_ok(const GridSampleDesc& desc, const Tensor& src, const Tensor& grid) {
  auto r = grid_sample(desc, src.view(), grid.view());
  EXPECT_TRUE(r.ok()) << r.status().to_string();
  if (!r.ok()) return Tensor(src.dtype(), {0});
  return std::move(r).value();
}

/// 1-D sampling of float data at normalized positions gs: src (1, 1, L), grid (1, n, 1).
std::vector<float> sample_1d(const std::vector<float>& data, const std::vector<float>& gs, IM mode,
                             GP padding, int64_t align_corners) {
  Tensor src = make_tensor<float>({1, 1, static_cast<int64_t>(data.size())}, data);
  Tensor grid = make_tensor<float>({1, static_cast<int64_t>(gs.size()), 1}, gs);
  Tensor out = run_ok(make_desc(mode, padding, align_corners), src, grid);
  std::vector<float> v(out.data_as<float>(), out.data_as<float>() + out.num_elements());
  return v;
}

/// 1-D sampling of element type T at normalized float positions.
template <class T>
std::vector<T> sample_1d_typed(const std::vector<T>& data, const std::vector<float>& gs, IM mode,
                               GP padding, int64_t align_corners) {
  Tensor src = make_tensor<T>({1, 1, static_cast<int64_t>(data.size())}, data);
  Tensor grid = make_tensor<float>({1, static_cast<int64_t>(gs.size()), 1}, gs);
  Tensor out = run_ok(make_desc(mode, padding, align_corners), src, grid);
  std::vector<T> v(out.data_as<T>(), out.data_as<T>() + out.num_elements());
  return v;
}

// --- names ------------------------------------------------------------------------------

TEST(GridSampleNames, ParseAcceptsBothOpsetSpellings) {  // ERRATA GridSample 1
  EXPECT_EQ(*parse_interpolation_mode("linear"), IM::kLinear);
  EXPECT_EQ(*parse_interpolation_mode("bilinear"), IM::kLinear);
  EXPECT_EQ(*parse_interpolation_mode("nearest"), IM::kNearest);
  EXPECT_EQ(*parse_interpolation_mode("cubic"), IM::kCubic);
  EXPECT_EQ(*parse_interpolation_mode("bicubic"), IM::kCubic);
  EXPECT_EQ(*parse_grid_padding("zeros"), GP::kZeros);
  EXPECT_EQ(*parse_grid_padding("border"), GP::kBorder);
  EXPECT_EQ(*parse_grid_padding("reflection"), GP::kReflection);
  EXPECT_STREQ(to_string(IM::kLinear), "linear");
  EXPECT_STREQ(to_string(IM::kNearest), "nearest");
  EXPECT_STREQ(to_string(IM::kCubic), "cubic");
  EXPECT_STREQ(to_string(GP::kZeros), "zeros");
  EXPECT_STREQ(to_string(GP::kBorder), "border");
  EXPECT_STREQ(to_string(GP::kReflection), "reflection");
  EXPECT_STREQ(to_string(ChannelLayout::kChannelsFirst), "channels_first");
  EXPECT_STREQ(to_string(ChannelLayout::kChannelsLast), "channels_last");
}

TEST(GridSampleNames, ParseRejectsUnknownNames) {
  auto m = parse_interpolation_mode("trilinear");
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(m.status().message(), HasSubstr("grid_sample: mode must be one of linear, bilinear, "
                                              "nearest, cubic, bicubic, got 'trilinear'"));
  auto p = parse_grid_padding("wrap");
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(p.status().message(),
              HasSubstr("grid_sample: padding_mode must be one of zeros, border, reflection, got 'wrap'"));
  EXPECT_FALSE(parse_interpolation_mode("Linear").ok());  // case-sensitive, as ONNX
}

// --- hand-computed 2-D cases ---------------------------------------------------------------

// src 2x2 [[1, 2], [3, 4]]; grid entries are (x, y) = (grid[..., 0], grid[..., 1]).
TEST(GridSampleHand, Bilinear2x2AlignCorners) {
  Tensor src = make_tensor<float>({1, 1, 2, 2}, {1, 2, 3, 4});
  // align_corners=1, L=2: x = (g + 1) / 2.
  Tensor grid = make_tensor<float>({1, 1, 6, 2}, {
      0, 0,        // x = y = 0.5: mean of all four = 2.5
      -1, -1,      // (0, 0) -> 1
      1, -1,       // x = 1, y = 0 -> 2
      0.5f, -1,    // x = 0.75, y = 0: 0.25 * 1 + 0.75 * 2 = 1.75
      1, 1,        // (1, 1) -> 4
      -1, 0.5f,    // x = 0, y = 0.75: 0.25 * 1 + 0.75 * 3 = 2.5
  });
  Tensor out = run_ok(make_desc(IM::kLinear, GP::kZeros, 1), src, grid);
  ASSERT_EQ(out.shape(), (Dims{1, 1, 1, 6}));
  const float want[] = {2.5f, 1.0f, 2.0f, 1.75f, 4.0f, 2.5f};
  for (int i = 0; i < 6; ++i) EXPECT_FLOAT_EQ(out.data_as<float>()[i], want[i]) << i;
}

TEST(GridSampleHand, Bilinear2x2HalfPixelEachPadding) {
  Tensor src = make_tensor<float>({1, 1, 2, 2}, {1, 2, 3, 4});
  // align_corners=0, L=2: x = ((g + 1) * 2 - 1) / 2 = g + 0.5.
  Tensor grid = make_tensor<float>({1, 1, 4, 2}, {
      0, 0,          // x = y = 0.5 -> 2.5
      -0.5f, -0.5f,  // x = y = 0 -> 1
      -1, -1,        // x = y = -0.5: taps -1 and 0, weights 0.5 each per axis
      1, 1,          // x = y = 1.5: taps 1 and 2, weights 0.5 each per axis
  });
  // zeros: only (0, 0) is inside for (-1, -1): 0.25 * 1; only (1, 1) for (1, 1): 0.25 * 4.
  Tensor z = run_ok(make_desc(IM::kLinear, GP::kZeros, 0), src, grid);
  const float want_z[] = {2.5f, 1.0f, 0.25f, 1.0f};
  // border: taps clamp to the corner pixel.
  Tensor b = run_ok(make_desc(IM::kLinear, GP::kBorder, 0), src, grid);
  const float want_b[] = {2.5f, 1.0f, 1.0f, 4.0f};
  // reflection (align_corners=0: symmetric, -1 -> 0, 2 -> 1): also the corner pixel.
  Tensor r = run_ok(make_desc(IM::kLinear, GP::kReflection, 0), src, grid);
  for (int i = 0; i < 4; ++i) {
    EXPECT_FLOAT_EQ(z.data_as<float>()[i], want_z[i]) << i;
    EXPECT_FLOAT_EQ(b.data_as<float>()[i], want_b[i]) << i;
    EXPECT_FLOAT_EQ(r.data_as<float>()[i], want_b[i]) << i;
  }
}

// src 3x3 with value 3y + x.
TEST(GridSampleHand, Nearest3x3) {
  std::vector<float> v(9);
  for (int i = 0; i < 9; ++i) v[static_cast<size_t>(i)] = static_cast<float>(i);
  Tensor src = make_tensor<float>({1, 1, 3, 3}, v);
  // align_corners=1, L=3: x = g + 1.
  Tensor grid = make_tensor<float>({1, 2, 2, 2}, {
      0.5f, -0.5f,    // x = 1.5 -> 2 (tie, even), y = 0.5 -> 0 (tie, even): 2
      -0.5f, 0.5f,    // x = 0.5 -> 0, y = 1.5 -> 2: 6
      0.25f, 0.25f,   // x = y = 1.25 -> 1: 4
      -1, 1,          // x = 0, y = 2: 6
  });
  Tensor out = run_ok(make_desc(IM::kNearest, GP::kZeros, 1), src, grid);
  ASSERT_EQ(out.shape(), (Dims{1, 1, 2, 2}));
  const float want[] = {2, 6, 4, 6};
  for (int i = 0; i < 4; ++i) EXPECT_EQ(out.data_as<float>()[i], want[i]) << i;
}

// src 4x4 with value x^2 + 10y.
TEST(GridSampleHand, Bicubic4x4) {
  std::vector<float> v;
  for (int y = 0; y < 4; ++y)
    for (int x = 0; x < 4; ++x) v.push_back(static_cast<float>(x * x + 10 * y));
  Tensor src = make_tensor<float>({1, 1, 4, 4}, v);
  // align_corners=1, L=4: x = (g + 1) * 1.5.
  Tensor grid = make_tensor<float>({1, 1, 3, 2}, {
      0, 0,    // x = y = 1.5, t = 0.5. Along x, row [0, 1, 4, 9]:
               //   -0.09375*0 + 0.59375*1 + 0.59375*4 - 0.09375*9 = 2.125
               // (Keys A=-0.75 does not reproduce x^2 = 2.25). Along y, 10y is linear and
               // reproduced exactly: 15. Total 17.125.
      -1, -1,  // x = y = 0, t = 0: weight 1 on (0, 0): 0
      1, 1,    // x = y = 3: 9 + 30 = 39 (taps 4 and 5 are outside but weigh 0)
  });
  for (GP pad : {GP::kZeros, GP::kBorder, GP::kReflection}) {
    Tensor out = run_ok(make_desc(IM::kCubic, pad, 1), src, grid);
    EXPECT_NEAR(out.data_as<float>()[0], 17.125f, 1e-5f) << to_string(pad);
    EXPECT_NEAR(out.data_as<float>()[1], 0.0f, 1e-6f) << to_string(pad);
    EXPECT_NEAR(out.data_as<float>()[2], 39.0f, 1e-5f) << to_string(pad);
  }
  // align_corners=0, L=4: x = 2g + 1.5. g = (-0.5, 0): x = 0.5 (t = 0.5, taps -1..2), y = 1.5
  // (taps 0..3, all inside, weights summing to 1 with sum w_y * y = 1.5). The x weights are
  // (-0.09375, 0.59375, 0.59375, -0.09375) on taps -1, 0, 1, 2; v = x^2 + 10y.
  //   zeros: tap -1 dropped: sum w_x = 1.09375, sum w_x x^2 = 0.59375 - 0.375 = 0.21875:
  //          0.21875 + 10 * 1.5 * 1.09375 = 16.625.
  //   border and reflection (align_corners=0: -1 -> 0): x weights (0.5, 0.59375, -0.09375)
  //          on 0, 1, 2 sum to 1: 0.21875 + 15 = 15.21875.
  Tensor grid0 = make_tensor<float>({1, 1, 1, 2}, {-0.5f, 0});
  EXPECT_NEAR(run_ok(make_desc(IM::kCubic, GP::kZeros, 0), src, grid0).data_as<float>()[0],
              16.625f, 1e-5f);
  for (GP pad : {GP::kBorder, GP::kReflection}) {
    Tensor out = run_ok(make_desc(IM::kCubic, pad, 0), src, grid0);
    EXPECT_NEAR(out.data_as<float>()[0], 15.21875f, 1e-5f) << to_string(pad);
  }
}

// --- ERRATA GridSample 3 and 4: padding per tap --------------------------------------------

TEST(GridSampleErrata, CubicBorderPadsEachTapNotTheCoordinate) {
  // Data 0..8, L = 9, align_corners=1: x = (g + 1) * 4.
  std::vector<float> data(9);
  for (int i = 0; i < 9; ++i) data[static_cast<size_t>(i)] = static_cast<float>(i);
  // x = -0.5 (g = -1.125): taps -2, -1, 0, 1 clamp to 0, 0, 0, 1: only tap 1 has a non-zero
  // value: 1 * -0.09375 = -0.09375. Clamping the coordinate first (x -> 0) would give 0.
  // x = 8.5 (g = 1.125): taps 7, 8, 9, 10 -> 7, 8, 8, 8:
  //   7*(-0.09375) + 8*(0.59375 + 0.59375 - 0.09375) = -0.65625 + 8.75 = 8.09375; clamping
  // the coordinate first would give 8.
  // x = 7.5 (g = 0.875): taps 6..9 -> 6, 7, 8, 8:
  //   -0.5625 + 4.15625 + 4.75 - 0.75 = 7.59375.
  auto out = sample_1d(data, {-1.125f, 1.125f, 0.875f}, IM::kCubic, GP::kBorder, 1);
  EXPECT_NEAR(out[0], -0.09375f, 1e-6f);
  EXPECT_NEAR(out[1], 8.09375f, 1e-5f);
  EXPECT_NEAR(out[2], 7.59375f, 1e-5f);
  EXPECT_GT(std::fabs(out[0] - 0.0f), 0.09f);  // differs from clamp-the-coordinate-first
  EXPECT_GT(std::fabs(out[1] - 8.0f), 0.09f);
}

TEST(GridSampleErrata, CubicReflectionPadsEachTap) {
  std::vector<float> data(9);
  for (int i = 0; i < 9; ++i) data[static_cast<size_t>(i)] = static_cast<float>(i);
  // align_corners=1, x = -0.5 (g = -1.125): taps -2, -1, 0, 1 reflect about 0 to 2, 1, 0, 1:
  //   2*(-0.09375) + 1*0.59375 + 0 + 1*(-0.09375) = 0.3125.
  EXPECT_NEAR(sample_1d(data, {-1.125f}, IM::kCubic, GP::kReflection, 1)[0], 0.3125f, 1e-6f);
  // align_corners=0, x = ((g + 1) * 9 - 1) / 2 = -0.5 at g = -1: taps -2, -1, 0, 1 reflect
  // about -0.5 to 1, 0, 0, 1: 1*(-0.09375) + 0 + 0 + 1*(-0.09375) = -0.1875.
  EXPECT_NEAR(sample_1d(data, {-1.0f}, IM::kCubic, GP::kReflection, 0)[0], -0.1875f, 1e-6f);
}

TEST(GridSampleErrata, ReflectionAnyDistance) {
  // Data [10, 11, 12, 13], align_corners=1, x = (g + 1) * 1.5, period 6.
  const std::vector<float> data = {10, 11, 12, 13};
  // Nearest x = 9 (g = 5) -> 9 mod 6 = 3 -> 13; x = -7.5 (g = -6) rounds to -8 (even)
  // -> -8 mod 6 = 4 -> 6 - 4 = 2 -> 12; x = 15 (g = 9) -> 3 -> 13.
  auto n1 = sample_1d(data, {5, -6, 9}, IM::kNearest, GP::kReflection, 1);
  EXPECT_EQ(n1[0], 13);
  EXPECT_EQ(n1[1], 12);
  EXPECT_EQ(n1[2], 13);
  // align_corners=0, x = ((g + 1) * 4 - 1) / 2 = 2g + 1.5, period 8, symmetric:
  // g = 3.25 -> x = 8 -> 8 mod 8 = 0 -> 10; g = -2.75 -> x = -4 -> 4 -> 8 - 1 - 4 = 3 -> 13;
  // g = 2.75 -> x = 7 -> 8 - 1 - 7 = 0 -> 10.
  auto n0 = sample_1d(data, {3.25f, -2.75f, 2.75f}, IM::kNearest, GP::kReflection, 0);
  EXPECT_EQ(n0[0], 10);
  EXPECT_EQ(n0[1], 13);
  EXPECT_EQ(n0[2], 10);
  // Linear, align_corners=1: x = -1.5 (g = -2): taps -2, -1 -> 2, 1, weights 0.5:
  // (12 + 11) / 2 = 11.5.
  EXPECT_FLOAT_EQ(sample_1d(data, {-2}, IM::kLinear, GP::kReflection, 1)[0], 11.5f);
  // The spec's example, in normalized units with align_corners=1: -3.3 reflects about -1 to
  // 1.3, then about 1 to 0.7. On data d[i] = i (L = 5, x = 2(g + 1)) both give x = 3.4:
  // per tap, x = -4.6 has taps -5, -4 (weights 0.6, 0.4) that reflect to 3, 4 -> 3.4.
  const std::vector<float> ramp = {0, 1, 2, 3, 4};
  auto spec = sample_1d(ramp, {-3.3f, 0.7f}, IM::kLinear, GP::kReflection, 1);
  EXPECT_NEAR(spec[0], 3.4f, 1e-5f);
  EXPECT_NEAR(spec[1], 3.4f, 1e-5f);
  // "the reflected value at index -1 will be the same as the value at index 1":
  // x = -1 (g = -1.5).
  EXPECT_EQ(sample_1d(ramp, {-1.5f}, IM::kNearest, GP::kReflection, 1)[0], 1.0f);
}

// --- ERRATA GridSample 5: nearest ties to even ----------------------------------------------

TEST(GridSampleErrata, NearestTiesToEven) {
  const std::vector<float> data = {10, 11, 12, 13, 14};
  // align_corners=1, L=5: x = 2(g + 1).
  // x = 0.5 -> 0, 1.5 -> 2, 2.5 -> 2, 3.5 -> 4; x = -0.5 -> -0 -> 0 (inside).
  auto a = sample_1d(data, {-0.75f, -0.25f, 0.25f, 0.75f, -1.25f}, IM::kNearest, GP::kZeros, 1);
  EXPECT_EQ(a, (std::vector<float>{10, 12, 12, 14, 10}));
  // align_corners=0, L=4: x = 2g + 1.5. g = 0 -> 1.5 -> 2; g = -0.5 -> 0.5 -> 0;
  // g = 0.5 -> 2.5 -> 2; g = 1 -> 3.5 -> 4 (outside: zeros 0, border 3, reflection 8-1-4 = 3).
  const std::vector<float> d4 = {10, 11, 12, 13};
  EXPECT_EQ(sample_1d(d4, {0, -0.5f, 0.5f, 1}, IM::kNearest, GP::kZeros, 0),
            (std::vector<float>{12, 10, 12, 0}));
  EXPECT_EQ(sample_1d(d4, {1}, IM::kNearest, GP::kBorder, 0)[0], 13);
  EXPECT_EQ(sample_1d(d4, {1}, IM::kNearest, GP::kReflection, 0)[0], 13);
}

// Rounding happens before the padding map (ERRATA 3). With align_corners=1 the mirrors sit on
// integers and both orders agree; with align_corners=0 they sit on half-integers and differ
// at ties. L = 4, x = 2g + 1.5:
//   x = -1.5 (g = -1.5): round -> -2 (even), symmetric -> 1 (value 11). Reflecting first
//   (PyTorch) would give 0.5 -> 0 (value 10).
//   x = 4.5 (g = 1.5): round -> 4, symmetric -> 8 - 1 - 4 = 3 (value 13). Reflecting first
//   would give 2.5 -> 2 (value 12).
TEST(GridSampleErrata, NearestRoundsThenPads) {
  const std::vector<float> d4 = {10, 11, 12, 13};
  EXPECT_EQ(sample_1d(d4, {-1.5f, 1.5f}, IM::kNearest, GP::kReflection, 0),
            (std::vector<float>{11, 13}));
}

// --- ERRATA GridSample 8: non-finite and huge coordinates -----------------------------------

TEST(GridSampleErrata, NonFiniteCoordinates) {
  const std::vector<float> data = {5, 6, 7};
  const std::vector<float> gs = {kNaN, kInf, -kInf};
  for (IM mode : {IM::kNearest, IM::kLinear, IM::kCubic}) {
    for (int64_t ac : {0, 1}) {
      SCOPED_TRACE(std::string(to_string(mode)) + " align_corners=" + std::to_string(ac));
      // zeros: outside -> 0.
      EXPECT_EQ(sample_1d(data, gs, mode, GP::kZeros, ac), (std::vector<float>{0, 0, 0}));
      // border: NaN -> x = 0 (value 5); +inf -> x = L-1 (7); -inf -> x = 0 (5). Cubic at an
      // integer x puts weight 1 on the centre tap.
      EXPECT_EQ(sample_1d(data, gs, mode, GP::kBorder, ac), (std::vector<float>{5, 7, 5}));
      // reflection: all like NaN, x = 0.
      EXPECT_EQ(sample_1d(data, gs, mode, GP::kReflection, ac), (std::vector<float>{5, 5, 5}));
    }
  }
}

TEST(GridSampleErrata, NaNOnOneAxisZerosTheWholePoint) {
  Tensor src = make_tensor<float>({1, 1, 2, 2}, {1, 2, 3, 4});
  Tensor grid = make_tensor<float>({1, 1, 2, 2}, {0, kNaN, kNaN, 1});
  Tensor z = run_ok(make_desc(IM::kLinear, GP::kZeros, 1), src, grid);
  EXPECT_EQ(z.data_as<float>()[0], 0.0f);
  EXPECT_EQ(z.data_as<float>()[1], 0.0f);
  // border: y = NaN -> 0, x = 0.5: (1 + 2) / 2; x = NaN -> 0, y = 1: 3.
  Tensor b = run_ok(make_desc(IM::kLinear, GP::kBorder, 1), src, grid);
  EXPECT_FLOAT_EQ(b.data_as<float>()[0], 1.5f);
  EXPECT_FLOAT_EQ(b.data_as<float>()[1], 3.0f);
}

TEST(GridSampleErrata, HugeFiniteCoordinates) {
  const std::vector<float> data = {5, 6, 7};
  const float big = 1e30f, max = std::numeric_limits<float>::max();
  const std::vector<float> gs = {big, -big, max, -max};
  for (IM mode : {IM::kNearest, IM::kLinear, IM::kCubic}) {
    for (int64_t ac : {0, 1}) {
      SCOPED_TRACE(std::string(to_string(mode)) + " align_corners=" + std::to_string(ac));
      EXPECT_EQ(sample_1d(data, gs, mode, GP::kZeros, ac), (std::vector<float>{0, 0, 0, 0}));
      EXPECT_EQ(sample_1d(data, gs, mode, GP::kBorder, ac), (std::vector<float>{7, 5, 7, 5}));
      // Huge floats are integers, so t = 0 and the result is one of the data values.
      for (float v : sample_1d(data, gs, mode, GP::kReflection, ac)) {
        EXPECT_TRUE(v == 5 || v == 6 || v == 7) << v;
      }
    }
  }
}

TEST(GridSampleErrata, HugeCoordinatesReflectExactly) {
  // double grid g = +-2^62, L = 3, align_corners=0: x = ((g + 1) * 3 - 1) / 2 = +-3 * 2^61
  // (the +1 and -1 vanish in rounding). The symmetric period is 6 and 3 * 2^61 = 6 * 2^60,
  // so the exact index is 0 (value 5). Saturating to 2^62 first would give 2^62 mod 6 = 4
  // -> index 1 (value 6).
  Tensor src = make_tensor<float>({1, 1, 3}, {5, 6, 7});
  const double g = std::ldexp(1.0, 62);
  Tensor grid = make_tensor<double>({1, 2, 1}, {g, -g});
  for (IM mode : {IM::kNearest, IM::kLinear, IM::kCubic}) {
    Tensor out = run_ok(make_desc(mode, GP::kReflection, 0), src, grid);
    EXPECT_EQ(out.data_as<float>()[0], 5.0f) << to_string(mode);
    EXPECT_EQ(out.data_as<float>()[1], 5.0f) << to_string(mode);
  }
}

// --- length-1 axes --------------------------------------------------------------------------

TEST(GridSampleErrata, LengthOneAxis) {
  const std::vector<float> data = {42};
  // align_corners=1: x = (g + 1) / 2 * 0 = 0 for every finite g.
  for (GP pad : {GP::kZeros, GP::kBorder, GP::kReflection}) {
    for (IM mode : {IM::kNearest, IM::kLinear, IM::kCubic}) {
      EXPECT_EQ(sample_1d(data, {-3, 0, 0.7f, 5}, mode, pad, 1),
                (std::vector<float>{42, 42, 42, 42}))
          << to_string(pad) << " " << to_string(mode);
    }
  }
  // align_corners=0: x = g / 2. g = 0.5 -> x = 0.25: zeros 0.75 * 42 = 31.5, border and
  // reflection (period 2: tap 1 -> 0) 42. g = 3 -> x = 1.5: zeros 0; others 42.
  EXPECT_EQ(sample_1d(data, {0.5f, 3}, IM::kLinear, GP::kZeros, 0), (std::vector<float>{31.5f, 0}));
  EXPECT_EQ(sample_1d(data, {0.5f, 3}, IM::kLinear, GP::kBorder, 0), (std::vector<float>{42, 42}));
  EXPECT_EQ(sample_1d(data, {0.5f, 3}, IM::kLinear, GP::kReflection, 0),
            (std::vector<float>{42, 42}));
}

// --- ERRATA GridSample 7: element types ------------------------------------------------------

TEST(GridSampleTypes, IntegersTruncateTowardZero) {
  // Linear, align_corners=1, L=2: x = (g + 1) / 2.
  // [1, 2] at g = 0.5 (x = 0.75): 1.75 -> 1; at g = -0.5 (x = 0.25): 1.25 -> 1.
  EXPECT_EQ(sample_1d_typed<int8_t>({1, 2}, {0.5f, -0.5f}, IM::kLinear, GP::kZeros, 1),
            (std::vector<int8_t>{1, 1}));
  // [-1, -2] at x = 0.5: -1.5 -> -1 (toward zero, not floor).
  EXPECT_EQ(sample_1d_typed<int32_t>({-1, -2}, {0}, IM::kLinear, GP::kZeros, 1),
            (std::vector<int32_t>{-1}));
  EXPECT_EQ(sample_1d_typed<int64_t>({-1, -2}, {0}, IM::kLinear, GP::kZeros, 1),
            (std::vector<int64_t>{-1}));
}

TEST(GridSampleTypes, IntegersSaturate) {
  // Cubic, align_corners=1, L=4, g = 0 -> x = 1.5, w = (-0.09375, 0.59375, 0.59375, -0.09375).
  // [0, 255, 255, 0]: 255 * 1.1875 = 302.8 -> 255; [255, 0, 0, 255]: 255 * -0.1875 = -47.8 -> 0;
  // [0, 0, 255, 255]: 255 * 0.5 = 127.5 -> 127.
  EXPECT_EQ(sample_1d_typed<uint8_t>({0, 255, 255, 0}, {0}, IM::kCubic, GP::kZeros, 1)[0], 255);
  EXPECT_EQ(sample_1d_typed<uint8_t>({255, 0, 0, 255}, {0}, IM::kCubic, GP::kZeros, 1)[0], 0);
  EXPECT_EQ(sample_1d_typed<uint8_t>({0, 0, 255, 255}, {0}, IM::kCubic, GP::kZeros, 1)[0], 127);
  // int8 [-100, 100, 100, -100]: 118.75 + 18.75 = 137.5 -> 127; negated: -137.5 -> -128.
  EXPECT_EQ(sample_1d_typed<int8_t>({-100, 100, 100, -100}, {0}, IM::kCubic, GP::kZeros, 1)[0], 127);
  EXPECT_EQ(sample_1d_typed<int8_t>({100, -100, -100, 100}, {0}, IM::kCubic, GP::kZeros, 1)[0], -128);
  // int16 [-30000, 30000, 30000, -30000]: 30000 * 1.375 = 41250 -> 32767.
  EXPECT_EQ(sample_1d_typed<int16_t>({-30000, 30000, 30000, -30000}, {0}, IM::kCubic, GP::kZeros, 1)[0],
            32767);
  // uint16 [65535, 0, 0, 65535] -> negative -> 0.
  EXPECT_EQ(sample_1d_typed<uint16_t>({65535, 0, 0, 65535}, {0}, IM::kCubic, GP::kZeros, 1)[0], 0);
}

TEST(GridSampleTypes, NearestCopies64BitIntegersExactly) {
  // 2^62 + 1 is not a double; nearest is a selection and copies it bit for bit.
  const int64_t big = (int64_t{1} << 62) + 1;
  const uint64_t ubig = ~uint64_t{0};
  EXPECT_EQ(sample_1d_typed<int64_t>({0, big}, {1}, IM::kNearest, GP::kZeros, 1)[0], big);
  EXPECT_EQ(sample_1d_typed<uint64_t>({0, ubig}, {1}, IM::kNearest, GP::kZeros, 1)[0], ubig);
}

TEST(GridSampleTypes, Strings) {
  const std::vector<std::string> data = {"a", "b", "c"};
  // align_corners=1, L=3: x = g + 1. g = -2 -> x = -1: outside -> "" under zeros.
  EXPECT_EQ(sample_1d_typed<std::string>(data, {-2, 0, 1, 5}, IM::kNearest, GP::kZeros, 1),
            (std::vector<std::string>{"", "b", "c", ""}));
  EXPECT_EQ(sample_1d_typed<std::string>(data, {-2, 5}, IM::kNearest, GP::kBorder, 1),
            (std::vector<std::string>{"a", "c"}));
  // reflection: x = 3 (g = 2) -> 4 - 3 = 1 -> "b"; x = -2 (g = -3) -> 2 -> "c".
  EXPECT_EQ(sample_1d_typed<std::string>(data, {2, -3}, IM::kNearest, GP::kReflection, 1),
            (std::vector<std::string>{"b", "c"}));
  // NaN under zeros -> "".
  EXPECT_EQ(sample_1d_typed<std::string>(data, {kNaN}, IM::kNearest, GP::kZeros, 1)[0], "");
}

TEST(GridSampleTypes, Complex) {
  using C64 = std::complex<float>;
  using C128 = std::complex<double>;
  // Linear, align_corners=1, L=2, g = 0 -> x = 0.5: ((1+2i) + (3-4i)) / 2 = 2 - i.
  // g = -2 -> x = -0.5: zeros: 0.5 * (1+2i) = 0.5 + i.
  auto a = sample_1d_typed<C64>({{1, 2}, {3, -4}}, {0, -2}, IM::kLinear, GP::kZeros, 1);
  EXPECT_EQ(a[0], C64(2, -1));
  EXPECT_EQ(a[1], C64(0.5f, 1));
  auto b = sample_1d_typed<C128>({{1, 2}, {3, -4}}, {0, -2}, IM::kLinear, GP::kZeros, 1);
  EXPECT_EQ(b[0], C128(2, -1));
  EXPECT_EQ(b[1], C128(0.5, 1));
  auto n = sample_1d_typed<C128>({{1, 2}, {3, -4}}, {0.5f, 3}, IM::kNearest, GP::kZeros, 1);
  EXPECT_EQ(n[0], C128(3, -4));  // x = 0.75 -> 1
  EXPECT_EQ(n[1], C128(0, 0));   // x = 2 -> outside
}

TEST(GridSampleTypes, Bool) {
  // Linear, align_corners=1, L=2: [false, true] at x = 0.25 -> 0.25 != 0 -> true; at x = 0
  // -> 0 -> false. [true, true] at x = -0.5 (zeros): 0.5 -> true; at x = -3: 0 -> false.
  auto a = sample_1d_typed<bool>({false, true}, {-0.5f, -1}, IM::kLinear, GP::kZeros, 1);
  EXPECT_EQ(a, (std::vector<bool>{true, false}));
  auto b = sample_1d_typed<bool>({true, true}, {-2, -7}, IM::kLinear, GP::kZeros, 1);
  EXPECT_EQ(b, (std::vector<bool>{true, false}));
  // Cubic, L=4, x = 1.5: [true, false, false, false] -> -0.09375 != 0 -> true.
  auto c = sample_1d_typed<bool>({true, false, false, false}, {0}, IM::kCubic, GP::kZeros, 1);
  EXPECT_TRUE(c[0]);
}

TEST(GridSampleTypes, HalfPrecisionStoreRoundsToNearestEven) {
  // Linear halfway between two neighbours averages them exactly in float.
  // float16: (1 + (1 + 2^-10)) / 2 = 1 + 2^-11: a tie between 0x3C00 and 0x3C01 -> 0x3C00.
  // (1 + 2^-10 + 1 + 2^-9) / 2 = 1 + 3 * 2^-11: tie between 0x3C01 and 0x3C02 -> 0x3C02.
  auto h = sample_1d_typed<float16>({float16{0x3C00}, float16{0x3C01}, float16{0x3C02}},
                                    {-0.5f, 0.5f}, IM::kLinear, GP::kZeros, 1);
  // L = 3 here: x = g + 1, so g = -0.5 -> x = 0.5 and g = 0.5 -> x = 1.5.
  EXPECT_EQ(h[0].bits, 0x3C00);
  EXPECT_EQ(h[1].bits, 0x3C02);
  // bfloat16: 0x3F80 = 1, 0x3F81 = 1 + 2^-7, 0x3F82 = 1 + 2^-6; same ties.
  auto b = sample_1d_typed<bfloat16>({bfloat16{0x3F80}, bfloat16{0x3F81}, bfloat16{0x3F82}},
                                     {-0.5f, 0.5f}, IM::kLinear, GP::kZeros, 1);
  EXPECT_EQ(b[0].bits, 0x3F80);
  EXPECT_EQ(b[1].bits, 0x3F82);
}

TEST(GridSampleTypes, HalfAndBFloatGridsMatchFloatGrid) {
  // Grid values exact in every grid type: the result must be identical (ERRATA 2: all three
  // unnormalize in float).
  Tensor src = make_tensor<float>({1, 1, 3, 5}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14});
  const std::vector<float> g = {-1, -0.5f, 0, 0.25f, 0.75f, 1.5f, -1.25f, 0.375f};
  Tensor gf = make_tensor<float>({1, 2, 2, 2}, g);
  Tensor gh(DType::kFloat16, {1, 2, 2, 2});
  Tensor gb(DType::kBFloat16, {1, 2, 2, 2});
  for (size_t i = 0; i < g.size(); ++i) {
    gh.data_as<float16>()[i] = f32_to_f16(g[i]);
    gb.data_as<bfloat16>()[i] = f32_to_bf16(g[i]);
  }
  for (IM mode : {IM::kNearest, IM::kLinear, IM::kCubic}) {
    for (GP pad : {GP::kZeros, GP::kBorder, GP::kReflection}) {
      for (int64_t ac : {0, 1}) {
        const auto d = make_desc(mode, pad, ac);
        Tensor want = run_ok(d, src, gf);
        EXPECT_TRUE(testing::bitwise_equal(run_ok(d, src, gh), want));
        EXPECT_TRUE(testing::bitwise_equal(run_ok(d, src, gb), want));
      }
    }
  }
}

TEST(GridSampleTypes, DoubleGridComputesInDouble) {
  // float data [0, 1], double g = 1/3, align_corners=1, L=2: x = (g + 1) / 2 in double, and
  // the linear result is t = x - floor(x) rounded once to float.
  Tensor src = make_tensor<float>({1, 1, 2}, {0, 1});
  const double g = 1.0 / 3.0;
  Tensor grid = make_tensor<double>({1, 1, 1}, {g});
  Tensor out = run_ok(make_desc(IM::kLinear, GP::kZeros, 1), src, grid);
  const double x = (g + 1.0) / 2.0;
  EXPECT_EQ(out.data_as<float>()[0], static_cast<float>(x - std::floor(x)));
}

// Linear at x = 0.5 between 2 and 4 is 3 in every numeric type; nearest copies.
TEST(GridSampleTypes, EveryDType) {
  for (int code = 0; code < kNumDTypes; ++code) {
    const DType dt = static_cast<DType>(code);
    SCOPED_TRACE(to_string(dt));
    Tensor src(dt, {1, 1, 2});
    Tensor grid = make_tensor<float>({1, 2, 1}, {0, 1});  // x = 0.5 and x = 1
    visit_dtype(dt, [&](auto tag) {
      using T = typename decltype(tag)::type;
      T* p = src.data_as<T>();
      if constexpr (std::is_same_v<T, std::string>) {
        p[0] = "two";
        p[1] = "four";
      } else if constexpr (std::is_same_v<T, bool>) {
        p[0] = false;
        p[1] = true;
      } else if constexpr (convert::is_complex_t<T>::value) {
        p[0] = T(2, 0);
        p[1] = T(4, 0);
      } else {
        p[0] = convert::store_real<T>(2.0);
        p[1] = convert::store_real<T>(4.0);
      }
      Tensor n = run_ok(make_desc(IM::kNearest, GP::kZeros, 1), src, grid);
      // x = 0.5 ties to 0; x = 1 -> 1.
      if constexpr (std::is_same_v<T, std::string>) {
        EXPECT_EQ(n.data_as<T>()[0], "two");
        EXPECT_EQ(n.data_as<T>()[1], "four");
      } else {
        EXPECT_EQ(std::memcmp(&n.data_as<T>()[0], &p[0], sizeof(T)), 0);
        EXPECT_EQ(std::memcmp(&n.data_as<T>()[1], &p[1], sizeof(T)), 0);
        Tensor l = run_ok(make_desc(IM::kLinear, GP::kZeros, 1), src, grid);
        EXPECT_EQ(l.dtype(), dt);
        const double want0 = std::is_same_v<T, bool> ? 1.0 : 3.0;  // 0.5 != 0 -> true
        const double want1 = std::is_same_v<T, bool> ? 1.0 : 4.0;
        EXPECT_EQ(testing::element_as_double(l, 0), want0);
        EXPECT_EQ(testing::element_as_double(l, 1), want1);
      }
    });
  }
}

// --- ERRATA GridSample 9: empty tensors --------------------------------------------------------

TEST(GridSampleEmpty, EmptyBatchOrOutputIsNotAnError) {
  Tensor src(DType::kFloat32, {0, 2, 3, 3});
  Tensor grid(DType::kFloat32, {0, 4, 5, 2});
  for (GP pad : {GP::kZeros, GP::kBorder, GP::kReflection}) {
    auto r = grid_sample(make_desc(IM::kLinear, pad, 0), src.view(), grid.view());
    ASSERT_TRUE(r.ok()) << r.status().to_string();
    EXPECT_EQ(r->shape(), (Dims{0, 2, 4, 5}));
  }
  Tensor src1(DType::kFloat32, {1, 2, 3, 3});
  Tensor grid0(DType::kFloat32, {1, 0, 5, 2});
  auto r = grid_sample(make_desc(IM::kCubic, GP::kBorder, 1), src1.view(), grid0.view());
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  EXPECT_EQ(r->shape(), (Dims{1, 2, 0, 5}));
  // C = 0, even with an empty input axis and border padding: the output is empty.
  Tensor src_c0(DType::kFloat32, {1, 0, 0, 3});
  Tensor grid1(DType::kFloat32, {1, 2, 2, 2});
  auto c0 = grid_sample(make_desc(IM::kLinear, GP::kBorder, 0), src_c0.view(), grid1.view());
  ASSERT_TRUE(c0.ok()) << c0.status().to_string();
  EXPECT_EQ(c0->shape(), (Dims{1, 0, 2, 2}));
}

TEST(GridSampleEmpty, EmptyInputAxisWithZerosGivesZeros) {
  // src (1, 2, 0, 3) has no elements; its data pointer may be null.
  TensorView src(DType::kFloat32, nullptr, {1, 2, 0, 3});
  Tensor grid = make_tensor<float>({1, 1, 2, 2}, {0, 0, -1, 1});
  for (IM mode : {IM::kNearest, IM::kLinear, IM::kCubic}) {
    for (int64_t ac : {0, 1}) {
      Tensor dst(DType::kFloat32, {1, 2, 1, 2});
      for (int i = 0; i < 4; ++i) dst.data_as<float>()[i] = 99.0f;
      Status s = grid_sample(make_desc(mode, GP::kZeros, ac), src, grid.view(), dst.mutable_view());
      ASSERT_TRUE(s.ok()) << s.to_string();
      for (int i = 0; i < 4; ++i) EXPECT_EQ(dst.data_as<float>()[i], 0.0f);
    }
  }
}

// --- implementation list ------------------------------------------------------------------------

TEST(GridSamplePlan, ForcedRefAndPlanReuse) {
  GridSampleDesc d = make_desc(IM::kLinear, GP::kZeros, 1);
  d.impl = "ref";
  const Dims ss = {1, 1, 2, 2}, gs = {1, 1, 1, 2};
  auto plan = make_grid_sample_plan(d, DType::kFloat32, ss, DType::kFloat32, gs);
  ASSERT_TRUE(plan.ok()) << plan.status().to_string();
  EXPECT_STREQ(plan->impl_name(), "ref");
  EXPECT_EQ(plan->dst_shape(), (Dims{1, 1, 1, 1}));
  Tensor src = make_tensor<float>(ss, {1, 2, 3, 4});
  Tensor dst(DType::kFloat32, {1, 1, 1, 1});
  for (float g : {0.0f, -1.0f}) {
    Tensor grid = make_tensor<float>(gs, {g, g});
    ASSERT_TRUE(plan->run(src.view(), grid.view(), dst.mutable_view()).ok());
    EXPECT_FLOAT_EQ(dst.data_as<float>()[0], g == 0.0f ? 2.5f : 1.0f);
  }
  // The default choice on a plain float32 problem is the fast kernel when Highway is
  // built in, else the reference.
  d.impl.clear();
  auto p2 = make_grid_sample_plan(d, DType::kFloat32, ss, DType::kFloat32, gs);
  ASSERT_TRUE(p2.ok());
#ifdef GRIDOPS_HAVE_HWY
  const char* forced = std::getenv("GRIDOPS_IMPL");
  if (forced != nullptr && *forced != '\0' && std::string(forced) != "fast") {
    EXPECT_STREQ(p2->impl_name(), forced);
  } else {
    // A fast entry of the implementation list (they come before "ref"); "fast" forces the
    // first fast entry that takes the problem, the automatic choice too.
    EXPECT_STRNE(p2->impl_name(), "ref");
    bool listed = false;
    for (const detail::GridSampleEntry& impl : detail::grid_sample_impls()) {
      listed = listed || std::string(impl.name) == p2->impl_name();
    }
    EXPECT_TRUE(listed) << p2->impl_name();
  }
#else
  EXPECT_STREQ(p2->impl_name(), "ref");
#endif
}

#ifdef GRIDOPS_HAVE_HWY
// Every path of the fast kernel is an entry: forced by name (desc.impl and GRIDOPS_IMPL),
// declining at plan time with the reason, "fast" as the first fast entry that takes the
// problem, and the run-time fallback for views a path cannot take logged under
// GRIDOPS_VERBOSE=dispatch (and giving the same bits).
TEST(GridSamplePlan, EveryPathIsAnEntry) {
  if (!kernels::grid_sample_target_has_pairs()) GTEST_SKIP() << "no pair gathers on this CPU";
  const Dims ss = {1, 3, 9, 11}, gs = {1, 6, 7, 2};
  GridSampleDesc d = make_desc(IM::kLinear, GP::kBorder, 0);
  d.impl = "grid_sample.fused_small_c";
  auto fused = make_grid_sample_plan(d, DType::kFloat32, ss, DType::kFloat32, gs);
  ASSERT_TRUE(fused.ok()) << fused.status().to_string();
  EXPECT_STREQ(fused->impl_name(), "grid_sample.fused_small_c");
  d.impl = "grid_sample.blocked";  // 3 channels: declines
  auto blocked = make_grid_sample_plan(d, DType::kFloat32, ss, DType::kFloat32, gs);
  ASSERT_FALSE(blocked.ok());
  EXPECT_EQ(blocked.status().code(), StatusCode::kUnimplemented);
  EXPECT_THAT(blocked.status().message(),
              HasSubstr("implementation 'grid_sample.blocked' declines this problem: fewer "
                        "than 8 channels"));
  d.impl = "grid_sample.channels";  // float16 src: declines
  auto half = make_grid_sample_plan(d, DType::kFloat16, ss, DType::kFloat32, gs);
  ASSERT_FALSE(half.ok());
  EXPECT_THAT(half.status().message(), HasSubstr("float32 src only"));
  d.impl = "fast";
  auto fast = make_grid_sample_plan(d, DType::kFloat16, ss, DType::kFloat32, gs);
  ASSERT_TRUE(fast.ok());
  EXPECT_STREQ(fast->impl_name(), "grid_sample.generic");
  d.impl.clear();
  const char* saved = std::getenv("GRIDOPS_IMPL");
  const std::string saved_value = saved ? saved : "";
  ASSERT_EQ(setenv("GRIDOPS_IMPL", "grid_sample.generic", 1), 0);
  auto env = make_grid_sample_plan(d, DType::kFloat32, ss, DType::kFloat32, gs);
  ASSERT_TRUE(env.ok());
  EXPECT_STREQ(env->impl_name(), "grid_sample.generic");
  if (saved) setenv("GRIDOPS_IMPL", saved_value.c_str(), 1); else unsetenv("GRIDOPS_IMPL");

  // The fused path needs a dense grid: with a strided one it runs the next path, logged.
  Tensor src(DType::kFloat32, ss), grid(DType::kFloat32, gs);
  for (int64_t i = 0; i < src.num_elements(); ++i) src.data_as<float>()[i] = static_cast<float>(i % 13) * 0.25f;
  for (int64_t i = 0; i < grid.num_elements(); ++i) {
    grid.data_as<float>()[i] = static_cast<float>(i % 17) / 8.0f - 1.0f;
  }
  std::vector<float> wide(static_cast<size_t>(2 * grid.num_elements()));
  for (int64_t i = 0; i < grid.num_elements(); ++i) wide[static_cast<size_t>(2 * i)] = grid.data_as<float>()[i];
  const TensorView strided_grid(DType::kFloat32, wide.data(), gs, {2 * 6 * 7 * 2, 2 * 7 * 2, 2 * 2, 2});
  Tensor dense_out(DType::kFloat32, fused->dst_shape()), strided_out(DType::kFloat32, fused->dst_shape());
  ASSERT_TRUE(fused->run(src.view(), grid.view(), dense_out.mutable_view()).ok());
  const char* verbose = std::getenv("GRIDOPS_VERBOSE");
  const std::string verbose_value = verbose ? verbose : "";
  ASSERT_EQ(setenv("GRIDOPS_VERBOSE", "dispatch", 1), 0);
  ::testing::internal::CaptureStderr();
  const Status st = fused->run(src.view(), strided_grid, strided_out.mutable_view());
  const std::string log = ::testing::internal::GetCapturedStderr();
  if (verbose) setenv("GRIDOPS_VERBOSE", verbose_value.c_str(), 1); else unsetenv("GRIDOPS_VERBOSE");
  ASSERT_TRUE(st.ok()) << st.to_string();
  EXPECT_THAT(log, HasSubstr("'grid_sample.fused_small_c' declines these views at run time (grid "
                             "is not dense)"));
  EXPECT_EQ(0, std::memcmp(dense_out.data(), strided_out.data(), dense_out.nbytes()));
}

// A src whose offsets do not fit in the fast paths' int32 gathers (rows 4 GiB apart, in a
// reserved mapping of which only the 4 elements read are ever touched): every fast entry
// declines these views at run time for that reason, so the reference runs, logged, with
// the reference's bits.
TEST(GridSamplePlan, SrcOffsetsBeyondInt32RunTheReference) {
  const int64_t row = int64_t{1} << 30;  // floats between the two rows
  const size_t bytes = static_cast<size_t>(row + 2) * sizeof(float);
  void* map = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                   -1, 0);
  if (map == MAP_FAILED) GTEST_SKIP() << "cannot reserve 4 GiB of address space";
  auto* f = static_cast<float*>(map);
  f[0] = 1.0f;
  f[1] = 2.0f;
  f[row] = 3.0f;
  f[row + 1] = 4.0f;
  const Dims ss = {1, 1, 2, 2}, gs = {1, 3, 3, 2};
  const TensorView src(DType::kFloat32, map, ss, {2 * row, 2 * row, row, 1});
  Tensor grid(DType::kFloat32, gs);
  for (int64_t i = 0; i < grid.num_elements(); ++i) {
    grid.data_as<float>()[i] = static_cast<float>(i % 5) * 0.4f - 0.9f;
  }
  GridSampleDesc d = make_desc(IM::kLinear, GP::kBorder, 0);
  auto fast = make_grid_sample_plan(d, DType::kFloat32, ss, DType::kFloat32, gs);
  d.impl = "ref";
  auto ref = make_grid_sample_plan(d, DType::kFloat32, ss, DType::kFloat32, gs);
  ASSERT_TRUE(fast.ok() && ref.ok());
  Tensor fast_out(DType::kFloat32, fast->dst_shape()), ref_out(DType::kFloat32, ref->dst_shape());
  const char* verbose = std::getenv("GRIDOPS_VERBOSE");
  const std::string verbose_value = verbose ? verbose : "";
  ASSERT_EQ(setenv("GRIDOPS_VERBOSE", "dispatch", 1), 0);
  ::testing::internal::CaptureStderr();
  const Status st = fast->run(src, grid.view(), fast_out.mutable_view());
  const std::string log = ::testing::internal::GetCapturedStderr();
  if (verbose) setenv("GRIDOPS_VERBOSE", verbose_value.c_str(), 1); else unsetenv("GRIDOPS_VERBOSE");
  ASSERT_TRUE(st.ok()) << st.to_string();
  ASSERT_TRUE(ref->run(src, grid.view(), ref_out.mutable_view()).ok());
  munmap(map, bytes);
  EXPECT_EQ(0, std::memcmp(fast_out.data(), ref_out.data(), ref_out.nbytes()));
  if (std::string(fast->impl_name()) != "ref") {
    // Each planned fast entry declines them in turn (run_entries), the last hands them to
    // "ref".
    EXPECT_THAT(log, HasSubstr(std::string("'") + fast->impl_name() +
                               "' declines these views at run time (src offsets do not fit in "
                               "int32)"));
    EXPECT_THAT(log, HasSubstr("(src offsets do not fit in int32): running 'ref'"));
  }
}
#endif

// --- errors ---------------------------------------------------------------------------------------

void expect_error(const Status& s, const std::string& text) {
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << s.to_string();
  EXPECT_THAT(s.message(), HasSubstr(text));
}

template <class T>
void expect_error(const StatusOr<T>& r, const std::string& text) {
  expect_error(r.status(), text);
}

StatusOr<GridSamplePlan> plan_for(const GridSampleDesc& d, Dims src, Dims grid,
                                  DType src_dt = DType::kFloat32, DType grid_dt = DType::kFloat32) {
  return make_grid_sample_plan(d, src_dt, src, grid_dt, grid);
}

TEST(GridSampleErrors, SrcRankTooSmallOrTooLarge) {
  GridSampleDesc d;
  expect_error(plan_for(d, {2, 3}, {2, 3}),
               "grid_sample: src must have rank >= 3 (N, C, D1, ...), got rank 2 with shape (2, 3)");
  Dims big(17, 1), gbig(17, 1);
  gbig.back() = 15;
  expect_error(plan_for(d, big, gbig), "grid_sample: src rank must be <= 16, got 17");
  // kMaxRank itself is fine: 14 spatial axes.
  Dims s16(16, 1), g16(16, 1);
  g16.back() = 14;
  EXPECT_TRUE(plan_for(d, s16, g16).ok());
}

TEST(GridSampleErrors, GridRankAndLastDim) {
  GridSampleDesc d;
  expect_error(plan_for(d, {1, 3, 8, 8}, {1, 8, 8, 3}),
               "grid_sample: grid must have shape (N, H_out, W_out, 2) for a 4-D input, got (1, 8, 8, 3)");
  expect_error(plan_for(d, {1, 3, 8, 8}, {1, 8, 2}),
               "grid_sample: grid must have shape (N, H_out, W_out, 2) for a 4-D input, got (1, 8, 2)");
  expect_error(plan_for(d, {1, 3, 8}, {1, 8, 2}),
               "grid_sample: grid must have shape (N, W_out, 1) for a 3-D input, got (1, 8, 2)");
  expect_error(plan_for(d, {1, 3, 4, 4, 4}, {1, 2, 2, 2, 2}),
               "grid_sample: grid must have shape (N, D_out, H_out, W_out, 3) for a 5-D input, got (1, 2, 2, 2, 2)");
  expect_error(plan_for(d, {1, 3, 4, 4, 4, 4}, {1, 2, 2, 2, 2, 3}),
               "grid_sample: grid must have shape (N, D1_out, D2_out, D3_out, D4_out, 4) for a 6-D input");
}

TEST(GridSampleErrors, BatchMismatch) {
  expect_error(plan_for(GridSampleDesc{}, {2, 3, 4, 4}, {3, 5, 5, 2}),
               "grid_sample: grid batch must equal src batch 2, got 3");
}

TEST(GridSampleErrors, AlignCornersAndEnums) {
  GridSampleDesc d;
  d.align_corners = 2;
  expect_error(plan_for(d, {1, 1, 2, 2}, {1, 1, 1, 2}), "grid_sample: align_corners must be 0 or 1, got 2");
  d.align_corners = -1;
  expect_error(plan_for(d, {1, 1, 2, 2}, {1, 1, 1, 2}), "grid_sample: align_corners must be 0 or 1, got -1");
  GridSampleDesc m;
  m.mode = static_cast<InterpolationMode>(7);
  expect_error(plan_for(m, {1, 1, 2, 2}, {1, 1, 1, 2}),
               "grid_sample: mode must be linear, nearest or cubic, got enum value 7");
  GridSampleDesc p;
  p.padding = static_cast<GridPadding>(5);
  expect_error(plan_for(p, {1, 1, 2, 2}, {1, 1, 1, 2}),
               "grid_sample: padding_mode must be zeros, border or reflection, got enum value 5");
  GridSampleDesc l;
  l.layout = static_cast<ChannelLayout>(3);
  expect_error(plan_for(l, {1, 1, 2, 2}, {1, 1, 1, 2}),
               "grid_sample: layout must be channels_first or channels_last, got enum value 3");
  // grid_sample_output_shape checks the descriptor too.
  expect_error(grid_sample_output_shape(d, Dims{1, 1, 2, 2}, Dims{1, 1, 1, 2}),
               "grid_sample: align_corners must be 0 or 1, got -1");
}

TEST(GridSampleErrors, StringWithLinearOrCubic) {
  for (IM mode : {IM::kLinear, IM::kCubic}) {
    GridSampleDesc d = make_desc(mode, GP::kZeros, 0);
    expect_error(plan_for(d, {1, 1, 2, 2}, {1, 1, 1, 2}, DType::kString),
                 std::string("grid_sample: mode ") + to_string(mode) +
                     " is not supported for string src (strings support nearest only)");
  }
}

TEST(GridSampleErrors, GridDType) {
  for (DType dt : {DType::kInt32, DType::kBool, DType::kComplex64, DType::kString, DType::kUInt8}) {
    expect_error(plan_for(GridSampleDesc{}, {1, 1, 2, 2}, {1, 1, 1, 2}, DType::kFloat32, dt),
                 std::string("grid_sample: grid dtype must be float16, bfloat16, float32 or "
                             "float64, got ") + to_string(dt));
  }
  expect_error(plan_for(GridSampleDesc{}, {1, 1, 2, 2}, {1, 1, 1, 2}, DType::kFloat32,
                        static_cast<DType>(40)),
               "grid_sample: grid dtype must be float16, bfloat16, float32 or float64, got unknown dtype code 40");
  expect_error(plan_for(GridSampleDesc{}, {1, 1, 2, 2}, {1, 1, 1, 2}, static_cast<DType>(41)),
               "grid_sample: src dtype code 41 is not a known dtype");
}

TEST(GridSampleErrors, NegativeDimensions) {
  expect_error(plan_for(GridSampleDesc{}, {1, -1, 2, 2}, {1, 1, 1, 2}),
               "grid_sample: src: dimension 1 must be >= 0, got -1 in shape (1, -1, 2, 2)");
  expect_error(plan_for(GridSampleDesc{}, {1, 1, 2, 2}, {1, -3, 1, 2}),
               "grid_sample: grid: dimension 1 must be >= 0, got -3 in shape (1, -3, 1, 2)");
}

TEST(GridSampleErrors, ElementCountOverflow) {
  const int64_t big = int64_t{1} << 32;
  expect_error(plan_for(GridSampleDesc{}, {big, big, 1, 1}, {big, 1, 1, 2}),
               "grid_sample: src: element count of shape (4294967296, 4294967296, 1, 1) overflows 64 bits");
  expect_error(plan_for(GridSampleDesc{}, {1, 1, 1, 1}, {1, big, big, 2}),
               "grid_sample: grid: element count of shape (1, 4294967296, 4294967296, 2) overflows 64 bits");
  // src and grid fit; dst (1, 2^32, 2^31, 2) has 2^64 elements.
  expect_error(plan_for(GridSampleDesc{}, {1, big, 1, 1}, {1, int64_t{1} << 31, 2, 2}),
               "grid_sample: dst: element count of shape (1, 4294967296, 2147483648, 2) overflows 64 bits");
}

TEST(GridSampleErrors, EmptyInputAxisWithBorderOrReflection) {
  for (GP pad : {GP::kBorder, GP::kReflection}) {
    expect_error(plan_for(make_desc(IM::kLinear, pad, 0), {1, 1, 0, 3}, {1, 2, 2, 2}),
                 std::string("grid_sample: src spatial axis 2 has length 0 in shape (1, 1, 0, 3); "
                             "padding_mode ") + to_string(pad) + " needs at least 1 element");
  }
}

TEST(GridSampleErrors, UnknownForcedImpl) {
  GridSampleDesc d;
  d.impl = "avx9000";
  auto r = plan_for(d, {1, 1, 2, 2}, {1, 1, 1, 2});
  expect_error(r, "grid_sample: impl must be one of {");
  expect_error(r, "ref} or an alias {fast}, got 'avx9000'");
}

TEST(GridSampleErrors, NullDataPointers) {
  Tensor src(DType::kFloat32, {1, 1, 2, 2}), grid(DType::kFloat32, {1, 1, 1, 2}),
      dst(DType::kFloat32, {1, 1, 1, 1});
  const GridSampleDesc d;
  expect_error(grid_sample(d, TensorView(DType::kFloat32, nullptr, {1, 1, 2, 2}), grid.view(),
                           dst.mutable_view()),
               "grid_sample: src: data pointer is null for non-empty shape (1, 1, 2, 2)");
  expect_error(grid_sample(d, src.view(), TensorView(DType::kFloat32, nullptr, {1, 1, 1, 2}),
                           dst.mutable_view()),
               "grid_sample: grid: data pointer is null for non-empty shape (1, 1, 1, 2)");
  expect_error(grid_sample(d, src.view(), grid.view(),
                           MutableTensorView(DType::kFloat32, nullptr, {1, 1, 1, 1})),
               "grid_sample: dst: data pointer is null for non-empty shape (1, 1, 1, 1)");
  expect_error(grid_sample(d, TensorView(DType::kFloat32, nullptr, {1, 1, 2, 2}), grid.view()),
               "grid_sample: src: data pointer is null");
}

TEST(GridSampleErrors, DstWrongShapeOrDType) {
  Tensor src(DType::kFloat32, {1, 1, 2, 2}), grid(DType::kFloat32, {1, 3, 4, 2});
  Tensor bad_shape(DType::kFloat32, {1, 1, 4, 3});
  expect_error(grid_sample(GridSampleDesc{}, src.view(), grid.view(), bad_shape.mutable_view()),
               "grid_sample: dst: expected shape (1, 1, 3, 4), got (1, 1, 4, 3)");
  Tensor bad_dtype(DType::kFloat64, {1, 1, 3, 4});
  expect_error(grid_sample(GridSampleDesc{}, src.view(), grid.view(), bad_dtype.mutable_view()),
               "grid_sample: dst: expected dtype float32, got float64");
}

TEST(GridSampleErrors, PlanRunWithOtherViews) {
  auto plan = plan_for(GridSampleDesc{}, {1, 1, 2, 2}, {1, 3, 4, 2});
  ASSERT_TRUE(plan.ok());
  Tensor src(DType::kFloat32, {1, 1, 2, 3}), grid(DType::kFloat32, {1, 3, 4, 2}),
      dst(DType::kFloat32, {1, 1, 3, 4});
  expect_error(plan->run(src.view(), grid.view(), dst.mutable_view()),
               "grid_sample: src: expected shape (1, 1, 2, 2), got (1, 1, 2, 3)");
  Tensor src_ok(DType::kFloat32, {1, 1, 2, 2}), grid_f64(DType::kFloat64, {1, 3, 4, 2});
  expect_error(plan->run(src_ok.view(), grid_f64.view(), dst.mutable_view()),
               "grid_sample: grid: expected dtype float32, got float64");
  // Strides must be given for every axis.
  TensorView odd = src_ok.view();
  odd.strides.pop_back();
  expect_error(plan->run(odd, grid.view(), dst.mutable_view()),
               "grid_sample: src: expected 4 strides for shape (1, 1, 2, 2), got 3");
  // Strides whose byte extent overflows int64.
  TensorView far(DType::kFloat32, src_ok.data(), {1, 1, 2, 2}, {4, 4, int64_t{1} << 62, 1});
  expect_error(plan->run(far, grid.view(), dst.mutable_view()),
               "grid_sample: src: byte extent of shape (1, 1, 2, 2)");
  expect_error(GridSamplePlan().run(src_ok.view(), grid.view(), dst.mutable_view()),
               "grid_sample: plan is empty");
}

TEST(GridSampleErrors, DstOverlappingInputs) {
  Tensor buf(DType::kFloat32, {16});
  float* p = buf.data_as<float>();
  TensorView src(DType::kFloat32, p, {1, 1, 2, 2});
  Tensor grid(DType::kFloat32, {1, 1, 2, 2});
  expect_error(grid_sample(GridSampleDesc{}, src, grid.view(),
                           MutableTensorView(DType::kFloat32, p + 3, {1, 1, 1, 2})),
               "grid_sample: dst must not overlap src");
  TensorView g(DType::kFloat32, p + 8, {1, 1, 2, 2});
  expect_error(grid_sample(GridSampleDesc{}, src, g,
                           MutableTensorView(DType::kFloat32, p + 10, {1, 1, 1, 2})),
               "grid_sample: dst must not overlap grid");
  // Adjacent but disjoint is fine.
  EXPECT_TRUE(grid_sample(GridSampleDesc{}, src, g,
                          MutableTensorView(DType::kFloat32, p + 4, {1, 1, 1, 2})).ok());
}

TEST(GridSampleErrors, NothingWrittenOnError) {
  Tensor src = make_tensor<float>({1, 1, 2, 2}, {1, 2, 3, 4});
  Tensor grid = make_tensor<float>({1, 1, 2, 2}, {0, 0, 0.5f, 0.5f});
  Tensor dst(DType::kFloat32, {1, 1, 1, 2});
  auto fill = [&] { for (int i = 0; i < 2; ++i) dst.data_as<float>()[i] = -7.0f; };
  auto untouched = [&] {
    for (int i = 0; i < 2; ++i) EXPECT_EQ(dst.data_as<float>()[i], -7.0f);
  };
  // Bad attribute.
  fill();
  GridSampleDesc bad;
  bad.align_corners = 3;
  EXPECT_FALSE(grid_sample(bad, src.view(), grid.view(), dst.mutable_view()).ok());
  untouched();
  // Bad grid dtype (grid data reinterpreted as int32).
  fill();
  TensorView gi(DType::kInt32, grid.data(), {1, 1, 2, 2});
  EXPECT_FALSE(grid_sample(GridSampleDesc{}, src.view(), gi, dst.mutable_view()).ok());
  untouched();
  // A plan run with a src of the wrong shape.
  fill();
  auto plan = plan_for(GridSampleDesc{}, {1, 1, 2, 2}, {1, 1, 2, 2});
  ASSERT_TRUE(plan.ok());
  TensorView wrong(DType::kFloat32, src.data(), {1, 1, 1, 4});
  EXPECT_FALSE(plan->run(wrong, grid.view(), dst.mutable_view()).ok());
  untouched();
  // String src with linear: dst of strings stays as it was.
  Tensor ss = make_tensor<std::string>({1, 1, 2, 2}, {"a", "b", "c", "d"});
  Tensor sd = make_tensor<std::string>({1, 1, 1, 2}, {"keep", "me"});
  EXPECT_FALSE(grid_sample(GridSampleDesc{}, ss.view(), grid.view(), sd.mutable_view()).ok());
  EXPECT_EQ(sd.data_as<std::string>()[0], "keep");
  EXPECT_EQ(sd.data_as<std::string>()[1], "me");
  // And the same call with nearest writes.
  EXPECT_TRUE(grid_sample(make_desc(IM::kNearest, GP::kZeros, 0), ss.view(), grid.view(),
                          sd.mutable_view()).ok());
  // align_corners=0, L=2: x = g + 0.5. (0, 0) -> x = y = 0.5 -> 0 (even): "a";
  // (0.5, 0.5) -> x = y = 1: "d".
  EXPECT_EQ(sd.data_as<std::string>()[0], "a");
  EXPECT_EQ(sd.data_as<std::string>()[1], "d");
}

}  // namespace
}  // namespace gridops
