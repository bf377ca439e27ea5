// Tests for resampling (forward and backward). Expected values come from hand calculations
// (in comments) or from the independent formulas below (expected_taps, phys_offset), never
// from the library's own output.
#include "ops/resample_test_util.h"

namespace gridops {
namespace {

// ===== names and formats ====================================================================

TEST(ResampleNames, Algorithms) {
  EXPECT_STREQ(to_string(ResampleAlgorithm::kNearest), "nearest");
  EXPECT_STREQ(to_string(ResampleAlgorithm::kLinear), "linear");
  for (const char* s : {"linear", "bilinear", "trilinear"}) {
    auto a = parse_resample_algorithm(s);
    ASSERT_TRUE(a.ok()) << s;
    EXPECT_EQ(*a, ResampleAlgorithm::kLinear);
  }
  ASSERT_TRUE(parse_resample_algorithm("nearest").ok());
  EXPECT_EQ(*parse_resample_algorithm("nearest"), ResampleAlgorithm::kNearest);
  auto bad = parse_resample_algorithm("cubic");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(bad.status().message(), HasSubstr("resample: algorithm must be one of"));
  EXPECT_THAT(bad.status().message(), HasSubstr("got 'cubic'"));
}

TEST(ResampleNames, FormatTagsRoundTrip) {
  const char* want[4][3] = {{"ncw", "nchw", "ncdhw"},
                            {"nwc", "nhwc", "ndhwc"},
                            {"nCw8c", "nChw8c", "nCdhw8c"},
                            {"nCw16c", "nChw16c", "nCdhw16c"}};
  for (int f = 0; f < 4; ++f) {
    for (int r = 1; r <= 3; ++r) {
      EXPECT_EQ(format_tag(kAllFormats[f], r), want[f][r - 1]);
      int rank = -1;
      auto p = parse_memory_format(want[f][r - 1], &rank);
      ASSERT_TRUE(p.ok()) << want[f][r - 1];
      EXPECT_EQ(*p, kAllFormats[f]);
      EXPECT_EQ(rank, r);
    }
    EXPECT_EQ(format_tag(kAllFormats[f], 0), "");
    EXPECT_EQ(format_tag(kAllFormats[f], 4), "");
  }
  const char* words[] = {"plain", "channels_last", "blocked8", "blocked16"};
  for (int f = 0; f < 4; ++f) {
    int rank = -1;
    auto p = parse_memory_format(words[f], &rank);
    ASSERT_TRUE(p.ok());
    EXPECT_EQ(*p, kAllFormats[f]);
    EXPECT_EQ(rank, 0);
  }
  EXPECT_TRUE(parse_memory_format("nhwc").ok());  // rank pointer is optional
  for (const char* s : {"nchw8c", "NCHW", "nChw4c", ""}) {
    auto p = parse_memory_format(s);
    ASSERT_FALSE(p.ok()) << s;
    EXPECT_EQ(p.status().code(), StatusCode::kInvalidArgument);
    EXPECT_THAT(p.status().message(), HasSubstr("resample: memory format must be"));
    EXPECT_THAT(p.status().message(), HasSubstr("got '" + std::string(s) + "'"));
  }
}

TEST(ResampleMemoryDesc, BufferElements) {
  EXPECT_EQ(*md(DType::kFloat32, {2, 3, 4, 5}).buffer_elements(), 120);
  EXPECT_EQ(*md(DType::kFloat32, {2, 3, 4, 5}, MemoryFormat::kChannelsLast).buffer_elements(),
            120);
  // C = 3 pads to 8 or 16 channels.
  EXPECT_EQ(*md(DType::kFloat32, {2, 3, 4, 5}, MemoryFormat::kBlocked8).buffer_elements(), 320);
  EXPECT_EQ(*md(DType::kFloat32, {2, 3, 4, 5}, MemoryFormat::kBlocked16).buffer_elements(), 640);
  // C = 17 pads to 24 / 32.
  EXPECT_EQ(*md(DType::kFloat32, {1, 17, 2}, MemoryFormat::kBlocked8).buffer_elements(), 48);
  EXPECT_EQ(*md(DType::kFloat32, {1, 17, 2}, MemoryFormat::kBlocked16).buffer_elements(), 64);
  EXPECT_EQ(*md(DType::kFloat32, {1, 0, 2}, MemoryFormat::kBlocked16).buffer_elements(), 0);
  EXPECT_EQ(*md(DType::kFloat32, {1, 2, 0, 3, 3}).buffer_elements(), 0);
  const int64_t big = int64_t{1} << 40;
  auto ov = md(DType::kFloat32, {big, big, 2}).buffer_elements();
  ASSERT_FALSE(ov.ok());
  EXPECT_THAT(ov.status().message(), HasSubstr("overflows 64 bits"));
  // 2^62 elements fit int64, 2^62 * 4 bytes do not.
  auto bytes = md(DType::kFloat32, {1, 1, int64_t{1} << 62}).buffer_elements();
  ASSERT_FALSE(bytes.ok());
  EXPECT_THAT(bytes.status().message(), HasSubstr("overflows 64 bits"));
  // The padded channel count itself overflows.
  auto pad = md(DType::kFloat32, {1, std::numeric_limits<int64_t>::max(), 1},
                MemoryFormat::kBlocked16)
                 .buffer_elements();
  ASSERT_FALSE(pad.ok());
  EXPECT_THAT(pad.status().message(), HasSubstr("nCw16c overflows 64 bits"));
  auto neg = md(DType::kFloat32, {1, 2, -3}).buffer_elements();
  ASSERT_FALSE(neg.ok());
  EXPECT_THAT(neg.status().message(),
              HasSubstr("resample: memory desc dims must be >= 0, got -3 at axis 2"));
  auto rank = md(DType::kFloat32, {1, 2}).buffer_elements();
  ASSERT_FALSE(rank.ok());
  EXPECT_THAT(rank.status().message(), HasSubstr("rank 3, 4 or 5), got rank 2 (1, 2)"));
}

TEST(ResampleMemoryDesc, OffsetMatchesTags) {
  const Dims shapes[] = {{2, 3, 5}, {2, 19, 3, 4}, {1, 9, 2, 3, 2}, {3, 1, 1, 1}};
  for (const Dims& dims : shapes) {
    for (MemoryFormat f : kAllFormats) {
      const ResampleMemoryDesc m = md(DType::kFloat32, dims, f);
      for (int64_t i = 0; i < product(dims); ++i) {
        const Dims idx = unravel(i, dims);
        ASSERT_EQ(m.offset(idx), phys_offset(f, dims, idx))
            << format_tag(f, static_cast<int>(dims.size()) - 2) << " " << dims_to_string(idx);
      }
    }
  }
  // Spot checks by hand: nChw8c (1, 10, 2, 3): element (0, 9, 1, 2) is in block 1, lane 1:
  // ((0 * 2 + 1) * 6 + 1 * 3 + 2) * 8 + 1 = 89.
  EXPECT_EQ(md(DType::kFloat32, {1, 10, 2, 3}, MemoryFormat::kBlocked8).offset(Dims{0, 9, 1, 2}),
            89);
  // nhwc (2, 3, 4, 5): (1, 2, 3, 4) -> ((1 * 4 + 3) * 5 + 4) * 3 + 2 = 119.
  EXPECT_EQ(
      md(DType::kFloat32, {2, 3, 4, 5}, MemoryFormat::kChannelsLast).offset(Dims{1, 2, 3, 4}),
      119);
}

// ===== output size from factors (ERRATA Resampling 2) =======================================

TEST(ResampleDstDims, FloorOfProduct) {
  const Dims src = {2, 3, 5, 7, 3};
  const double f[] = {1.5, 0.75, 2.0};
  auto d = resample_dst_dims(src, f);
  ASSERT_TRUE(d.ok()) << d.status().to_string();
  // floor(5 * 1.5) = 7, floor(7 * 0.75) = floor(5.25) = 5, floor(3 * 2) = 6.
  EXPECT_EQ(*d, (Dims{2, 3, 7, 5, 6}));
  // floor(I * F), not the spec's floor(I / F): 64 * 0.640625 = 41 (the spec would give 99).
  const Dims s1 = {1, 1, 64};
  const double f1[] = {0.640625};
  EXPECT_EQ(*resample_dst_dims(s1, f1), (Dims{1, 1, 41}));
  // Computed in double: 10 * 0.3 = 3.0000000000000004 -> 3; 3 * (1/3.) = 1 exactly.
  const Dims s2 = {1, 1, 10, 3};
  const double f2[] = {0.3, 1.0 / 3.0};
  EXPECT_EQ(*resample_dst_dims(s2, f2), (Dims{1, 1, 3, 1}));
  // An empty input axis gives an empty output axis.
  const Dims s3 = {1, 1, 0};
  const double f3[] = {2.0};
  EXPECT_EQ(*resample_dst_dims(s3, f3), (Dims{1, 1, 0}));
}

TEST(ResampleDstDims, Errors) {
  auto fails = [](Dims src, std::vector<double> f, const std::string& text) {
    auto d = resample_dst_dims(src, f);
    ASSERT_FALSE(d.ok()) << text;
    EXPECT_EQ(d.status().code(), StatusCode::kInvalidArgument);
    EXPECT_THAT(d.status().message(), HasSubstr(text));
  };
  const double inf = std::numeric_limits<double>::infinity();
  fails({1, 1, 4}, {0.0}, "resample: factor 0 must be finite and > 0, got 0");
  fails({1, 1, 4, 4}, {1.0, -2.0}, "resample: factor 1 must be finite and > 0, got -2");
  fails({1, 1, 4}, {std::nan("")}, "factor 0 must be finite and > 0, got nan");
  fails({1, 1, 4}, {inf}, "factor 0 must be finite and > 0, got inf");
  fails({1, 1, 4, 4}, {2.0}, "resample: factors must have one entry per spatial axis (2 for src "
                             "dims (1, 1, 4, 4)), got 1");
  fails({1, 1, 4}, {2.0, 2.0}, "one entry per spatial axis (1 for src dims (1, 1, 4)), got 2");
  fails({1, 1, 3}, {0.25}, "factor 0 = 0.25 gives output length floor(3 * 0.25) = 0");
  fails({1, 1, int64_t{1} << 62}, {4.0}, "of spatial axis 0 does not fit in 64 bits");
  fails({1, 1}, {}, "resample: src dims must be (N, C, D1..Dr) with r in 1..3");
  fails({1, 1, 1, 1, 1, 1}, {1, 1, 1, 1}, "got rank 6");
  fails({1, -1, 4}, {2.0}, "resample: src dims must be >= 0, got -1 at axis 1 of (1, -1, 4)");
}

// ===== forward, by hand =====================================================================

// I = 2 -> O = 4 linear: s = (o + 0.5) / 2 - 0.5 = -0.25, 0.25, 0.75, 1.25.
//   o = 0: taps -1 -> 0 and 0, t = 0.75: 0.25 * 1 + 0.75 * 1 = 1       (edge replicated)
//   o = 1: taps 0, 1, t = 0.25: 0.75 * 1 + 0.25 * 3 = 1.5
//   o = 2: taps 0, 1, t = 0.75: 0.25 * 1 + 0.75 * 3 = 2.5
//   o = 3: taps 1, 2 -> 1: 3                                             (edge replicated)
// (The DNNL 1.2 printed formula swaps the weights and would give 2.5 at o = 1.)
TEST(ResampleForward, Linear1DUpsampleByHand) {
  EXPECT_EQ(fwd64(ResampleAlgorithm::kLinear, {1, 1, 2}, {1, 1, 4}, {1, 3}),
            (std::vector<double>{1, 1.5, 2.5, 3}));
}

// I = 4 -> O = 2 linear: s = (o + 0.5) * 2 - 0.5 = 0.5, 2.5 -> midpoints.
// I = 3 -> O = 5 linear: s = (o + 0.5) * 0.6 - 0.5 = -0.2, 0.4, 1.0, 1.6, 2.2:
//   0 (edge), 0.6 * 0 + 0.4 * 10 = 4, 10, 0.4 * 10 + 0.6 * 30 = 22, 30 (edge).
TEST(ResampleForward, Linear1DDownsampleAndNonIntegerByHand) {
  EXPECT_EQ(fwd64(ResampleAlgorithm::kLinear, {1, 1, 4}, {1, 1, 2}, {0, 10, 20, 40}),
            (std::vector<double>{5, 30}));
  const auto y = fwd64(ResampleAlgorithm::kLinear, {1, 1, 3}, {1, 1, 5}, {0, 10, 30});
  const double want[] = {0, 4, 10, 22, 30};
  for (int i = 0; i < 5; ++i) EXPECT_NEAR(y[i], want[i], 1e-12) << i;
}

// Nearest i = floor((2o + 1) I / (2O)):
//   3 -> 2: 3/4 -> 0, 9/4 -> 2.         2 -> 3: 2/6 -> 0, 6/6 -> 1, 10/6 -> 1.
//   2 -> 4: 2/8, 6/8, 10/8, 14/8 -> 0, 0, 1, 1.
//   5 -> 7: 5/14, 15/14, 25/14, 35/14, 45/14, 55/14, 65/14 -> 0, 1, 1, 2, 3, 3, 4.
TEST(ResampleForward, Nearest1DByHand) {
  const auto nn = ResampleAlgorithm::kNearest;
  EXPECT_EQ(fwd64(nn, {1, 1, 3}, {1, 1, 2}, {10, 11, 12}), (std::vector<double>{10, 12}));
  EXPECT_EQ(fwd64(nn, {1, 1, 2}, {1, 1, 3}, {10, 11}), (std::vector<double>{10, 11, 11}));
  EXPECT_EQ(fwd64(nn, {1, 1, 2}, {1, 1, 4}, {10, 11}), (std::vector<double>{10, 10, 11, 11}));
  EXPECT_EQ(fwd64(nn, {1, 1, 5}, {1, 1, 7}, {10, 11, 12, 13, 14}),
            (std::vector<double>{10, 11, 11, 12, 13, 13, 14}));
}

// The exact tie of ERRATA 1: I = 2, O = 41, o = 20: (2 * 20 + 1) * 2 / 82 = 1 exactly, so the
// index is 1 (round half up; ERRATA: oneDNN 1.2's float reciprocal gave 0 there).
TEST(ResampleForward, NearestExactTie) {
  std::vector<double> y = fwd64(ResampleAlgorithm::kNearest, {1, 1, 2}, {1, 1, 41}, {7, 9});
  for (int o = 0; o < 41; ++o) EXPECT_EQ(y[o], o < 20 ? 7 : 9) << o;
  // I = 4, O = 2: (2o + 1) * 4 / 4 = 1, 3, ties at every o -> indices 1 and 3.
  EXPECT_EQ(fwd64(ResampleAlgorithm::kNearest, {1, 1, 4}, {1, 1, 2}, {0, 1, 2, 3}),
            (std::vector<double>{1, 3}));
  // I = 6, O = 4 has no ties: (2o + 1) * 6 / 8 = 0.75, 2.25, 3.75, 5.25 -> 0, 2, 3, 5.
  EXPECT_EQ(fwd64(ResampleAlgorithm::kNearest, {1, 1, 6}, {1, 1, 4}, {0, 1, 2, 3, 4, 5}),
            (std::vector<double>{0, 2, 3, 5}));
  // I = 3, O = 1: 3 / 2 = 1.5 -> 1 (the middle).
  EXPECT_EQ(fwd64(ResampleAlgorithm::kNearest, {1, 1, 3}, {1, 1, 1}, {0, 1, 2}),
            (std::vector<double>{1}));
  // I = 4, O = 1: 4 / 2 = 2 exactly, a tie -> index 2 (the upper middle).
  EXPECT_EQ(fwd64(ResampleAlgorithm::kNearest, {1, 1, 4}, {1, 1, 1}, {0, 1, 2, 3}),
            (std::vector<double>{2}));
}

// 2x2 -> 4x4 bilinear of src = [[1, 3], [5, 7]], i.e. 1 + 4y + 2x: the result is the same
// affine function of the clamped source coordinates sy, sx in {0, 0.25, 0.75, 1}.
TEST(ResampleForward, Linear2DByHand) {
  const auto y = fwd64(ResampleAlgorithm::kLinear, {1, 1, 2, 2}, {1, 1, 4, 4}, {1, 3, 5, 7});
  const std::vector<double> want = {1, 1.5, 2.5, 3,  //
                                    2, 2.5, 3.5, 4,  //
                                    4, 4.5, 5.5, 6,  //
                                    5, 5.5, 6.5, 7};
  EXPECT_EQ(y, want);
}

// 3x2 -> 2x3 nearest: rows 3 -> 2 pick 0, 2; columns 2 -> 3 pick 0, 1, 1.
TEST(ResampleForward, Nearest2DByHand) {
  const auto y = fwd64(ResampleAlgorithm::kNearest, {1, 1, 3, 2}, {1, 1, 2, 3},
                       {0, 1, 10, 11, 20, 21});
  EXPECT_EQ(y, (std::vector<double>{0, 1, 1, 20, 21, 21}));
}

// N and C are independent: two images, two channels, each its own 1-D upsample.
TEST(ResampleForward, BatchAndChannelsAreIndependent) {
  const auto y = fwd64(ResampleAlgorithm::kLinear, {2, 2, 2}, {2, 2, 4}, {1, 3, 0, 4, 5, 9, 2, 2});
  EXPECT_EQ(y, (std::vector<double>{1, 1.5, 2.5, 3, 0, 1, 3, 4, 5, 6, 8, 9, 2, 2, 2, 2}));
}

// Edges replicate: a length-1 axis gives a constant; the outermost outputs of an upsample
// read exactly the edge values.
TEST(ResampleForward, EdgeReplication) {
  for (ResampleAlgorithm a : kAlgs) {
    EXPECT_EQ(fwd64(a, {1, 1, 1}, {1, 1, 5}, {2.5}), (std::vector<double>(5, 2.5)));
    const auto y = fwd64(a, {1, 1, 4}, {1, 1, 8}, {-1, 5, 6, 7.25});
    EXPECT_EQ(y.front(), -1);   // s = -0.25: both taps at 0
    EXPECT_EQ(y.back(), 7.25);  // s = 3.25: both taps at 3
  }
  // 3-D: 1x1x1 -> 2x3x2 is constant.
  EXPECT_EQ(fwd64(ResampleAlgorithm::kLinear, {1, 1, 1, 1, 1}, {1, 1, 2, 3, 2}, {4}),
            (std::vector<double>(12, 4)));
}

// Linear interpolation reproduces an affine function of the clamped source coordinates:
// f(s_1, .., s_r) with s_k = clamp((o + 0.5) I / O - 0.5, 0, I - 1). An independent check
// of the weights, for every rank and random sizes.
TEST(ResampleForward, LinearReproducesAffineFunctions) {
  const uint64_t seed = testing::test_seed();
  SCOPED_TRACE(testing::test_seed());
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int64_t> len(1, 9);
  for (int iter = 0; iter < 30; ++iter) {
    const int r = 1 + iter % 3;
    Dims sd = {1, 1}, dd = {1, 1};
    double coef[4] = {0.5, 1.25, -0.75, 2.0};
    for (int k = 0; k < r; ++k) {
      sd.push_back(len(rng));
      dd.push_back(len(rng));
    }
    std::vector<double> x(static_cast<size_t>(product(sd)));
    for (int64_t f = 0; f < product(sd); ++f) {
      const Dims i = unravel(f, sd);
      x[f] = coef[0];
      for (int k = 0; k < r; ++k) x[f] += coef[k + 1] * static_cast<double>(i[2 + k]);
    }
    const auto y = fwd64(ResampleAlgorithm::kLinear, sd, dd, x);
    for (int64_t f = 0; f < product(dd); ++f) {
      const Dims o = unravel(f, dd);
      double want = coef[0];
      for (int k = 0; k < r; ++k) {
        const double in = static_cast<double>(sd[2 + k]), out = static_cast<double>(dd[2 + k]);
        double s = (static_cast<double>(o[2 + k]) + 0.5) * in / out - 0.5;
        s = std::min(std::max(s, 0.0), in - 1.0);
        want += coef[k + 1] * s;
      }
      ASSERT_NEAR(y[f], want, 1e-12) << dims_to_string(sd) << " -> " << dims_to_string(dd);
    }
  }
}

}  // namespace
}  // namespace gridops
