// Resample: every dtype and format against the independent reference, rounding of narrow
// types, backward (helpers in resample_test_util.h).
#include "ops/resample_test_util.h"

namespace gridops {
namespace {

// ===== every dtype and format against the independent reference ============================

TEST(ResampleForward, RandomShapesEveryDTypeAndFormat) {
  const uint64_t seed = testing::test_seed();
  SCOPED_TRACE(testing::test_seed());
  std::mt19937_64 rng(seed + 1);
  std::uniform_int_distribution<int64_t> len(1, 7), small(1, 3), fmt(0, 3);
  int iter = 0;
  for (DType dt : kDTypes) {
    for (ResampleAlgorithm a : kAlgs) {
      for (int r = 1; r <= 3; ++r, ++iter) {
        Dims sd = {small(rng), 1 + small(rng) * 3}, dd;
        for (int k = 0; k < r; ++k) sd.push_back(len(rng));
        dd = sd;
        for (int k = 0; k < r; ++k) dd[2 + k] = len(rng);
        const auto s = md(dt, sd, kAllFormats[fmt(rng)]);
        const auto d = md(dt, dd, kAllFormats[fmt(rng)]);
        SCOPED_TRACE(std::string(to_string(dt)) + " " + to_string(a) + " " +
                     dims_to_string(sd) + " " + format_tag(s.format, r) + " -> " +
                     dims_to_string(dd) + " " + format_tag(d.format, r));
        for_each_type(dt, [&](auto tag) {
          using T = typename decltype(tag)::type;
          const auto x = as_type<T>(random_values(rng, product(sd), -2, 2));
          // Linear float32/bfloat16 run on the fast path in float32 arithmetic: its bound is
          // relative to the sum of |w x| (2^-20 forward, 2^-17 backward for these sizes).
          const bool f32_arith = a == ResampleAlgorithm::kLinear &&
                                 (dt == DType::kFloat32 || dt == DType::kBFloat16);
          auto abs_of = [](std::vector<double> v) {
            for (double& e : v) e = std::fabs(e);
            return v;
          };
          const auto sx = expected_forward(a, sd, dd, abs_of(x));
          expect_close(forward_t<T>(a, s, d, x), expected_forward(a, sd, dd, x), dt, 2.0,
                       f32_arith ? &sx : nullptr, std::ldexp(1.0, -20));
          const auto gy = as_type<T>(random_values(rng, product(dd), -2, 2));
          const auto sg = expected_backward(a, sd, dd, abs_of(gy));
          // Nearest backward sums its k terms in float32 on the fast path: within
          // (k - 1) 2^-24 of their absolute sum of the exact value (docs/ops/resample.md);
          // k <= prod (O / I + 1).
          double kmax = 1;
          for (int k = 0; k < r; ++k) {
            kmax *= static_cast<double>(dd[2 + k] / sd[2 + k] + 1);
          }
          const bool f32_sum = dt == DType::kFloat32 || dt == DType::kBFloat16;
          const double bwd_rel =
              a == ResampleAlgorithm::kLinear ? std::ldexp(1.0, -17) : kmax * std::ldexp(1.0, -24);
          expect_close(backward_t<T>(a, s, d, gy), expected_backward(a, sd, dd, gy), dt, 2.0,
                       f32_sum ? &sg : nullptr, bwd_rel);
        });
      }
    }
  }
}

// Every (src format, dst format) pair gives bit-identical logical results, forward and
// backward, for a 2-D and a 3-D problem with C not a multiple of the block.
TEST(ResampleFormats, EveryPairBitExact) {
  std::mt19937_64 rng(testing::test_seed() + 2);
  SCOPED_TRACE(testing::test_seed());
  const std::pair<Dims, Dims> problems[] = {{{2, 11, 3, 5}, {2, 11, 7, 4}},
                                            {{1, 17, 2, 3, 4}, {1, 17, 3, 2, 5}}};
  for (DType dt : {DType::kFloat32, DType::kBFloat16}) {
    for (ResampleAlgorithm a : kAlgs) {
      for (const auto& [sd, dd] : problems) {
        for_each_type(dt, [&](auto tag) {
          using T = typename decltype(tag)::type;
          const auto x = as_type<T>(random_values(rng, product(sd), -3, 3));
          const auto gy = as_type<T>(random_values(rng, product(dd), -3, 3));
          const auto y0 = forward_t<T>(a, md(dt, sd), md(dt, dd), x);
          const auto g0 = backward_t<T>(a, md(dt, sd), md(dt, dd), gy);
          const int r = static_cast<int>(sd.size()) - 2;
          for (MemoryFormat fs : kAllFormats) {
            for (MemoryFormat fd : kAllFormats) {
              SCOPED_TRACE(format_tag(fs, r) + " -> " + format_tag(fd, r));
              const auto y = forward_t<T>(a, md(dt, sd, fs), md(dt, dd, fd), x);
              const auto g = backward_t<T>(a, md(dt, sd, fs), md(dt, dd, fd), gy);
              ASSERT_EQ(0, std::memcmp(y.data(), y0.data(), y.size() * sizeof(double)));
              ASSERT_EQ(0, std::memcmp(g.data(), g0.data(), g.size() * sizeof(double)));
            }
          }
        });
      }
    }
  }
}

// Blocked formats: the padded channels of dst (forward) and diff_src (backward) are written
// as +0, whatever the buffer held; NaN in the padded channels of the input is ignored.
TEST(ResampleFormats, BlockedPaddingZeroed) {
  for (MemoryFormat f : {MemoryFormat::kBlocked8, MemoryFormat::kBlocked16}) {
    for (ResampleAlgorithm a : kAlgs) {
      const auto s = md(DType::kFloat32, {2, 3, 2, 3}, f);
      const auto d = md(DType::kFloat32, {2, 3, 4, 5}, f);
      const std::vector<double> x(12 * 3, 1.5), gy(40 * 3, 0.5);
      std::vector<float> src = pack<float>(x, s, std::nan(""));
      std::vector<float> dst(static_cast<size_t>(phys_size(f, d.dims)), 77.0f);
      ASSERT_TRUE(resample_forward(rdesc(a), s, src.data(), d, dst.data()).ok());
      for (float v : padding_of(dst, d)) ASSERT_EQ(std::bit_cast<uint32_t>(v), 0u);
      for (double v : unpack(dst, d)) ASSERT_EQ(v, 1.5);
      std::vector<float> ddst = pack<float>(gy, d, std::nan(""));
      std::vector<float> dsrc(static_cast<size_t>(phys_size(f, s.dims)), -5.0f);
      ASSERT_TRUE(resample_backward(rdesc(a), s, dsrc.data(), d, ddst.data()).ok());
      for (float v : padding_of(dsrc, s)) ASSERT_EQ(std::bit_cast<uint32_t>(v), 0u);
      // Total gradient is conserved: each of the 120 outputs spreads weight 1 over inputs.
      double total = 0;
      for (double v : unpack(dsrc, s)) total += v;
      EXPECT_NEAR(total, 0.5 * 120, 1e-4);
    }
  }
}

// ===== rounding of narrow types =============================================================

// I = 4 -> O = 2 linear takes exact midpoints (t = 0.5). With bf16 (8 significant bits) the
// midpoint of 1 and 1 + 2^-7 is 1 + 2^-8, a tie that rounds to even (1.0); the midpoint of
// 1 + 2^-7 and 1 + 2^-6 is 1 + 3 * 2^-8, a tie that rounds to even (1 + 2^-6). Same for f16
// with 2^-10 in place of 2^-7.
TEST(ResampleRounding, NarrowTypesRoundToNearestEvenOnce) {
  const auto lin = ResampleAlgorithm::kLinear;
  {
    const double u = std::ldexp(1.0, -7);
    const std::vector<double> x = {1, 1 + u, 1 + u, 1 + 2 * u};
    const auto y = forward_t<bfloat16>(lin, md(DType::kBFloat16, {1, 1, 4}),
                                       md(DType::kBFloat16, {1, 1, 2}), x);
    EXPECT_EQ(y, (std::vector<double>{1.0, 1 + 2 * u}));
  }
  {
    const double u = std::ldexp(1.0, -10);
    const std::vector<double> x = {1, 1 + u, 1 + u, 1 + 2 * u};
    const auto y = forward_t<float16>(lin, md(DType::kFloat16, {1, 1, 4}),
                                      md(DType::kFloat16, {1, 1, 2}), x);
    EXPECT_EQ(y, (std::vector<double>{1.0, 1 + 2 * u}));
  }
  // 2 -> 4 linear of bf16 {1, 1 + 2^-7}: o = 1 is 1 + 2^-9 (below half an ulp: 1), o = 2 is
  // 1 + 3 * 2^-9 (above half an ulp: 1 + 2^-7).
  {
    const double u = std::ldexp(1.0, -7);
    const auto y = forward_t<bfloat16>(lin, md(DType::kBFloat16, {1, 1, 2}),
                                       md(DType::kBFloat16, {1, 1, 4}), {1, 1 + u});
    EXPECT_EQ(y, (std::vector<double>{1, 1, 1 + u, 1 + u}));
  }
  // One rounding from double: f32 inputs 1 and 1 + 2^-23 at t = 0.25 give 1 + 2^-25 exactly
  // in double, which rounds to 1; 0.75 gives 1 + 3 * 2^-25 -> 1 + 2^-23.
  {
    const double u = std::ldexp(1.0, -23);
    const auto y = forward_t<float>(lin, md(DType::kFloat32, {1, 1, 2}),
                                    md(DType::kFloat32, {1, 1, 4}), {1, 1 + u});
    EXPECT_EQ(y, (std::vector<double>{1, 1, 1 + u, 1 + u}));
  }
  // Nearest copies bits, including -0 and values that are not representable in f32.
  {
    const auto y = forward_t<double>(ResampleAlgorithm::kNearest, md(DType::kFloat64, {1, 1, 2}),
                                     md(DType::kFloat64, {1, 1, 3}), {-0.0, 0.1});
    EXPECT_TRUE(std::signbit(y[0]));
    EXPECT_EQ(y[1], 0.1);
  }
}

// ===== backward =============================================================================

// Backward nearest of an upsample 3 -> 7: o -> floor((2o + 1) * 3 / 14) = 0 0 1 1 1 2 2, so
// with diff_dst = 1 each src receives its count {2, 3, 2}; with distinct values the sums.
TEST(ResampleBackward, NearestUpsampleCounts) {
  const auto nn = ResampleAlgorithm::kNearest;
  EXPECT_EQ(bwd64(nn, {1, 1, 3}, {1, 1, 7}, std::vector<double>(7, 1.0)),
            (std::vector<double>{2, 3, 2}));
  EXPECT_EQ(bwd64(nn, {1, 1, 3}, {1, 1, 7}, {1, 2, 4, 8, 16, 32, 64}),
            (std::vector<double>{3, 28, 96}));
  // 2-D: 2x3 -> 4x7 is separable: rows 2 -> 4 map 0 0 1 1 (count 2 each), columns as above.
  EXPECT_EQ(bwd64(nn, {1, 1, 2, 3}, {1, 1, 4, 7}, std::vector<double>(28, 1.0)),
            (std::vector<double>{4, 6, 4, 4, 6, 4}));
  // Downsample 5 -> 2: o -> floor(5/4) = 1, floor(15/4) = 3; inputs 0, 2, 4 get nothing.
  EXPECT_EQ(bwd64(nn, {1, 1, 5}, {1, 1, 2}, {3, 4}), (std::vector<double>{0, 3, 0, 4, 0}));
  // The exact tie I = 2, O = 41: outputs 0..19 go to 0, 20..40 to 1.
  EXPECT_EQ(bwd64(nn, {1, 1, 2}, {1, 1, 41}, std::vector<double>(41, 1.0)),
            (std::vector<double>{20, 21}));
}

// Backward linear 2 -> 4 (weights from Linear1DUpsampleByHand):
//   diff_src[0] = 1 * g0 + 0.75 * g1 + 0.25 * g2,  diff_src[1] = 0.25 * g1 + 0.75 * g2 + g3.
TEST(ResampleBackward, Linear1DByHand) {
  const auto lin = ResampleAlgorithm::kLinear;
  EXPECT_EQ(bwd64(lin, {1, 1, 2}, {1, 1, 4}, {1, 1, 1, 1}), (std::vector<double>{2, 2}));
  EXPECT_EQ(bwd64(lin, {1, 1, 2}, {1, 1, 4}, {1, 2, 4, 8}), (std::vector<double>{3.5, 11.5}));
  // 4 -> 2 takes midpoints: each output gives 0.5 to two inputs.
  EXPECT_EQ(bwd64(lin, {1, 1, 4}, {1, 1, 2}, {2, 6}), (std::vector<double>{1, 1, 3, 3}));
}

// <A x, y> = <x, A^T y> in double over random shapes, ranks, directions, algorithms and
// formats (positive data, so the relative error is meaningful).
TEST(ResampleBackward, AdjointProperty) {
  const uint64_t seed = testing::test_seed();
  SCOPED_TRACE(testing::test_seed());
  std::mt19937_64 rng(seed + 3);
  std::uniform_int_distribution<int64_t> len(1, 12), small(1, 3), fmt(0, 3);
  for (int iter = 0; iter < 48; ++iter) {
    const int r = 1 + iter % 3;
    const ResampleAlgorithm a = kAlgs[(iter / 3) % 2];
    Dims sd = {small(rng), small(rng) * 3 - 1};
    for (int k = 0; k < r; ++k) sd.push_back(len(rng));
    Dims dd = sd;
    for (int k = 0; k < r; ++k) {
      // Alternate up- and downsampling, and equal lengths.
      dd[2 + k] = (iter / 6) % 3 == 0 ? sd[2 + k] * 2 + 1
                  : (iter / 6) % 3 == 1 ? std::max<int64_t>(1, sd[2 + k] / 2)
                                        : len(rng);
    }
    const auto s = md(DType::kFloat64, sd, kAllFormats[fmt(rng)]);
    const auto d = md(DType::kFloat64, dd, kAllFormats[fmt(rng)]);
    SCOPED_TRACE(std::string(to_string(a)) + " " + dims_to_string(sd) + " -> " +
                 dims_to_string(dd));
    const auto x = random_values(rng, product(sd), 0.5, 1.5);
    const auto y = random_values(rng, product(dd), 0.5, 1.5);
    const auto ax = forward_t<double>(a, s, d, x);
    const auto aty = backward_t<double>(a, s, d, y);
    double lhs = 0, rhs = 0;
    for (size_t i = 0; i < y.size(); ++i) lhs += ax[i] * y[i];
    for (size_t i = 0; i < x.size(); ++i) rhs += x[i] * aty[i];
    ASSERT_NEAR(lhs, rhs, 1e-12 * std::fabs(lhs));
  }
}

// Backward into an empty diff_dst (an O = 0 axis): no output reads src, so diff_src is zero.
TEST(ResampleBackward, EmptyDiffDstGivesZeros) {
  const auto s = md(DType::kFloat32, {1, 2, 3}), d = md(DType::kFloat32, {1, 2, 0});
  std::vector<float> dsrc(6, 9.0f);
  ASSERT_TRUE(resample_backward(rdesc(ResampleAlgorithm::kLinear), s, dsrc.data(), d, nullptr)
                  .ok());
  EXPECT_EQ(dsrc, std::vector<float>(6, 0.0f));
}

}  // namespace
}  // namespace gridops
