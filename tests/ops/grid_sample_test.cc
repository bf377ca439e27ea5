// GridSample: hand-computed cases, one per ERRATA rule, every dtype, and every error path.
// Expected values are worked out by hand in the comments (Keys A = -0.75 weights at t = 0.5
// are w = (-0.09375, 0.59375, 0.59375, -0.09375); at t = 0 they are (0, 1, 0, 0)).
#include "ops/grid_sample_test_util.h"

namespace gridops {
namespace {

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
  auto p = parse_grid_padding("circular");
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(p.status().message(),
              HasSubstr("grid_sample: padding_mode must be one of zeros, border, reflection, wrap, "
                        "constant, fill, got 'circular'"));
  for (const char* name : {"wrap", "constant", "fill"}) {
    auto q = parse_grid_padding(name);
    ASSERT_TRUE(q.ok()) << name;
    EXPECT_STREQ(to_string(*q), name);
  }
  EXPECT_FALSE(parse_grid_units("pixel").ok());
  EXPECT_FALSE(parse_grid_kind("relative").ok());
  EXPECT_EQ(*parse_grid_units("pixels"), GridUnits::kPixels);
  EXPECT_EQ(*parse_grid_kind("displacement"), GridKind::kDisplacement);
  EXPECT_STREQ(to_string(GridUnits::kNormalized), "normalized");
  EXPECT_STREQ(to_string(GridKind::kAbsolute), "absolute");
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

}  // namespace
}  // namespace gridops
