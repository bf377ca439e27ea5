// Resample: plans, dispatch, threads, the kernel contract, empty problems and errors
// (helpers in resample_test_util.h).
#include "ops/resample_test_util.h"

namespace gridops {
namespace {

// ===== plans, dispatch, threads, the kernel contract =======================================

TEST(ResamplePlan, ReusableAndNamesImpl) {
  const auto s = md(DType::kFloat32, {1, 1, 2}), d = md(DType::kFloat32, {1, 1, 4});
  auto plan = make_resample_plan(rdesc(ResampleAlgorithm::kLinear), s, d);
  ASSERT_TRUE(plan.ok()) << plan.status().to_string();
#ifdef GRIDOPS_HAVE_HWY
  // The fast path for contiguous-W (plain) float32 problems.
  EXPECT_STREQ(plan->impl_name(), "resample.plain");
#else
  EXPECT_STREQ(plan->impl_name(), "ref");
#endif
  EXPECT_EQ(plan->src_desc().dims, s.dims);
  EXPECT_EQ(plan->dst_desc().dims, d.dims);
  const float x[2] = {1, 3};
  float y[4];
  ASSERT_TRUE(plan->forward(x, y).ok());
  EXPECT_EQ(std::vector<float>(y, y + 4), (std::vector<float>{1, 1.5f, 2.5f, 3}));
  const float g[4] = {1, 2, 4, 8};
  float gx[2];
  ASSERT_TRUE(plan->backward(g, gx).ok());
  EXPECT_EQ(std::vector<float>(gx, gx + 2), (std::vector<float>{3.5f, 11.5f}));
  auto forced = make_resample_plan(rdesc(ResampleAlgorithm::kLinear, "ref"), s, d);
  ASSERT_TRUE(forced.ok());
  EXPECT_STREQ(forced->impl_name(), "ref");
}

TEST(ResamplePlan, SameBitsForAnyThreadCount) {
  std::mt19937_64 rng(testing::test_seed() + 4);
  SCOPED_TRACE(testing::test_seed());
  const auto s = md(DType::kFloat32, {2, 5, 6, 7}, MemoryFormat::kBlocked8);
  const auto d = md(DType::kFloat32, {2, 5, 9, 4}, MemoryFormat::kChannelsLast);
  const auto x = random_values(rng, product(s.dims), -1, 1);
  const int before = get_num_threads();
  set_num_threads(1);
  const auto y1 = forward_t<float>(ResampleAlgorithm::kLinear, s, d, x);
  const auto g1 = backward_t<float>(ResampleAlgorithm::kLinear, s, d, y1);
  // Small problems run on one thread whatever the setting; a host runner that ignores the
  // grain and runs one-row chunks in reverse order exercises a different split.
  set_parallel_runner([](int64_t n, int64_t, const std::function<void(int64_t, int64_t)>& body) {
    for (int64_t i = n; i-- > 0;) body(i, i + 1);
  });
  const auto y3 = forward_t<float>(ResampleAlgorithm::kLinear, s, d, x);
  const auto g3 = backward_t<float>(ResampleAlgorithm::kLinear, s, d, y1);
  set_parallel_runner(nullptr);
  set_num_threads(before);
  EXPECT_EQ(0, std::memcmp(y1.data(), y3.data(), y1.size() * sizeof(double)));
  EXPECT_EQ(0, std::memcmp(g1.data(), g3.data(), g1.size() * sizeof(double)));
}

// The reference kernel takes any strides, negative ones included: src walks every axis
// backwards, dst is transposed and walks h backwards; the values must be those of the
// independent reference.
TEST(ResampleKernel, NegativeStridesMatchPlain) {
  std::mt19937_64 rng(testing::test_seed() + 5);
  SCOPED_TRACE(testing::test_seed());
  const Dims sd = {2, 3, 4, 5}, dd = {2, 3, 7, 3};
  const auto x = random_values(rng, product(sd), -1, 1);
  for (ResampleAlgorithm a : kAlgs) {
    const auto want = expected_forward(a, sd, dd, x);
    // src as a reversed plain array: element (n, c, h, w) at base - plain_offset.
    std::vector<double> src(x.rbegin(), x.rend());
    std::vector<double> dst(static_cast<size_t>(product(dd)), -1.0);
    kernels::ResampleProblem p;
    p.dtype = DType::kFloat64;
    p.algorithm = a;
    p.spatial_rank = 2;
    p.n = 2;
    p.c = 3;
    p.in[0] = 4, p.in[1] = 5, p.out[0] = 7, p.out[1] = 3;
    p.src = {-60, -20, 0, 1, {-5, -1, 0}, 3};
    // dst: offset 36 + 3n + c - 6h + 42w, a bijection onto [0, 126).
    p.dst = {3, 1, 0, 1, {-6, 42, 0}, 3};
    kernels::resample_forward_ref(p, src.data() + src.size() - 1, dst.data() + 6 * 6);
    for (int64_t f = 0; f < product(dd); ++f) {
      const Dims i = unravel(f, dd);
      const int64_t off = 6 * 6 + i[0] * 3 + i[1] - 6 * i[2] + 42 * i[3];
      ASSERT_NEAR(dst[off], want[f], 1e-12) << dims_to_string(i);
    }
    // Backward through the same layouts against the independent adjoint.
    const auto gy = random_values(rng, product(dd), -1, 1);
    std::vector<double> gdst(dst.size());
    for (int64_t f = 0; f < product(dd); ++f) {
      const Dims i = unravel(f, dd);
      gdst[6 * 6 + i[0] * 3 + i[1] - 6 * i[2] + 42 * i[3]] = gy[f];
    }
    std::vector<double> gsrc(src.size(), 5.0);
    kernels::resample_backward_ref(p, gdst.data() + 6 * 6, gsrc.data() + gsrc.size() - 1);
    const auto gwant = expected_backward(a, sd, dd, gy);
    for (int64_t f = 0; f < product(sd); ++f) {
      ASSERT_NEAR(gsrc[gsrc.size() - 1 - f], gwant[f], 1e-12) << f;
    }
  }
}

// ===== empty problems =======================================================================

TEST(ResampleEmpty, EmptyOutputsSucceedAndWriteNothing) {
  const auto lin = rdesc(ResampleAlgorithm::kLinear);
  const Dims cases[][2] = {{{0, 2, 3}, {0, 2, 5}},      // N = 0
                           {{2, 0, 3}, {2, 0, 5}},      // C = 0
                           {{1, 2, 3}, {1, 2, 0}},      // O = 0
                           {{1, 2, 0, 3}, {1, 2, 0, 4}},  // I = 0 with O = 0
                           {{0, 2, 0}, {0, 2, 6}},      // I = 0 but N = 0: nothing to sample
                           // Empty, so no overflow even though the other dims multiply past
                           // int64 (their strides are never used).
                           {{0, 3, int64_t{1} << 40, int64_t{1} << 40, int64_t{1} << 40},
                            {0, 3, 1, 1, 1}}};
  for (const auto& c : cases) {
    for (MemoryFormat f : kAllFormats) {
      SCOPED_TRACE(dims_to_string(c[0]) + " -> " + dims_to_string(c[1]));
      const auto s = md(DType::kFloat32, c[0], f), d = md(DType::kFloat32, c[1], f);
      float sentinel = 42.0f;
      const float x = 1.0f;
      EXPECT_TRUE(resample_forward(lin, s, *s.buffer_elements() ? &x : nullptr, d, nullptr).ok());
      EXPECT_TRUE(resample_forward(lin, s, &x, d, &sentinel).ok());
      EXPECT_EQ(sentinel, 42.0f);
    }
  }
}

// ===== errors ===============================================================================

/// Expects make_resample_plan (and the one-shot calls) to fail with `text`, writing nothing.
void expect_plan_error(const ResampleDesc& desc, const ResampleMemoryDesc& s,
                       const ResampleMemoryDesc& d, const std::string& text,
                       StatusCode code = StatusCode::kInvalidArgument) {
  auto plan = make_resample_plan(desc, s, d);
  ASSERT_FALSE(plan.ok()) << text;
  EXPECT_EQ(plan.status().code(), code);
  EXPECT_THAT(plan.status().message(), HasSubstr(text));
  std::vector<float> src(64, 1.0f), dst(64, 7.0f);
  Status f = resample_forward(desc, s, src.data(), d, dst.data());
  EXPECT_THAT(f.message(), HasSubstr(text));
  Status b = resample_backward(desc, s, src.data(), d, dst.data());
  EXPECT_THAT(b.message(), HasSubstr(text));
  EXPECT_EQ(src, std::vector<float>(64, 1.0f));  // nothing written on error
  EXPECT_EQ(dst, std::vector<float>(64, 7.0f));
}

TEST(ResampleErrors, Ranks) {
  const auto nn = rdesc(ResampleAlgorithm::kNearest);
  const auto f32 = DType::kFloat32;
  expect_plan_error(nn, md(f32, {1, 2}), md(f32, {1, 2}),
                    "resample: src dims must be (N, C, D1..Dr) with r in 1..3 (rank 3, 4 or 5), "
                    "got rank 2 (1, 2)");
  expect_plan_error(nn, md(f32, {1, 1, 2, 2}), md(f32, {1, 1, 1, 1, 1, 1}),
                    "resample: dst dims must be (N, C, D1..Dr) with r in 1..3 (rank 3, 4 or 5), "
                    "got rank 6 (1, 1, 1, 1, 1, 1)");
  expect_plan_error(nn, md(f32, {1, 1, 2, 2}), md(f32, {1, 1, 4}),
                    "resample: src and dst must have the same spatial rank, got 2 (src dims "
                    "(1, 1, 2, 2)) and 1 (dst dims (1, 1, 4))");
}

TEST(ResampleErrors, BatchAndChannels) {
  const auto nn = rdesc(ResampleAlgorithm::kNearest);
  const auto f32 = DType::kFloat32;
  expect_plan_error(nn, md(f32, {2, 3, 4}), md(f32, {1, 3, 8}),
                    "resample: dst N must equal src N (2), got 1");
  expect_plan_error(nn, md(f32, {2, 3, 4}), md(f32, {2, 4, 8}),
                    "resample: dst C must equal src C (3), got 4");
}

TEST(ResampleErrors, DTypes) {
  const auto nn = rdesc(ResampleAlgorithm::kNearest);
  expect_plan_error(nn, md(DType::kInt32, {1, 1, 4}), md(DType::kInt32, {1, 1, 4}),
                    "resample: src dtype must be one of {float32, bfloat16, float16, float64}, "
                    "got int32");
  expect_plan_error(nn, md(DType::kFloat32, {1, 1, 4}), md(DType::kComplex64, {1, 1, 4}),
                    "resample: dst dtype must be one of {float32, bfloat16, float16, float64}, "
                    "got complex64");
  expect_plan_error(nn, md(DType::kFloat32, {1, 1, 4}), md(DType::kBFloat16, {1, 1, 8}),
                    "resample: src and dst dtypes must match, got float32 and bfloat16");
  expect_plan_error(nn, md(static_cast<DType>(200), {1, 1, 4}), md(DType::kFloat32, {1, 1, 4}),
                    "got an unknown dtype code");
}

TEST(ResampleErrors, NegativeDimsAndBadEnums) {
  const auto f32 = DType::kFloat32;
  const auto nn = rdesc(ResampleAlgorithm::kNearest);
  expect_plan_error(nn, md(f32, {1, 1, -4}), md(f32, {1, 1, 4}),
                    "resample: src dims must be >= 0, got -4 at axis 2 of (1, 1, -4)");
  expect_plan_error(nn, md(f32, {1, 1, 4}), md(f32, {-1, 1, 4}),
                    "resample: dst dims must be >= 0, got -1 at axis 0 of (-1, 1, 4)");
  expect_plan_error(nn, md(f32, {1, 1, 4}, static_cast<MemoryFormat>(9)), md(f32, {1, 1, 4}),
                    "resample: src format must be plain, channels_last, blocked8 or blocked16, "
                    "got format code 9");
  expect_plan_error(rdesc(static_cast<ResampleAlgorithm>(7)), md(f32, {1, 1, 4}),
                    md(f32, {1, 1, 4}),
                    "resample: algorithm must be nearest or linear, got algorithm code 7");
}

TEST(ResampleErrors, NothingToSample) {
  const auto f32 = DType::kFloat32;
  expect_plan_error(rdesc(ResampleAlgorithm::kLinear), md(f32, {1, 1, 3, 0}),
                    md(f32, {1, 1, 3, 2}),
                    "resample: src spatial axis 1 has length 0 but dst has length 2 there (dst "
                    "dims (1, 1, 3, 2) is not empty): nothing to sample");
}

TEST(ResampleErrors, BufferSizeOverflow) {
  const auto f32 = DType::kFloat32;
  const auto nn = rdesc(ResampleAlgorithm::kNearest);
  const int64_t big = int64_t{1} << 32;
  expect_plan_error(nn, md(f32, {1, 1, 4}), md(f32, {1, 1, big, big}),
                    "resample: dst buffer size of dims (1, 1, 4294967296, 4294967296) in format "
                    "nchw overflows 64 bits");
  // Elements fit, bytes do not (2^61 float64 elements).
  expect_plan_error(nn, md(DType::kFloat64, {1, 1, int64_t{1} << 61}, MemoryFormat::kPlain),
                    md(DType::kFloat64, {1, 1, 2}),
                    "resample: src buffer size of dims (1, 1, 2305843009213693952) in format ncw "
                    "overflows 64 bits");
  // Only the blocked padding overflows: bf16 with C = 2^62 - 15 takes 2^63 - 30 bytes in
  // ncw, but nCw16c pads C to 2^62 channels, 2^63 bytes.
  const int64_t c = (int64_t{1} << 62) - 15;
  const auto bf = DType::kBFloat16;
  EXPECT_TRUE(md(bf, {1, c, 1}).buffer_elements().ok());
  expect_plan_error(nn, md(bf, {1, c, 1}, MemoryFormat::kBlocked16),
                    md(bf, {1, c, 1}, MemoryFormat::kBlocked16),
                    "resample: src buffer size of dims (1, 4611686018427387889, 1) in format nCw16c "
                    "overflows 64 bits");
}

TEST(ResampleErrors, UnknownImpl) {
  const auto f32 = DType::kFloat32;
#ifdef GRIDOPS_HAVE_HWY
  const char* want =
      "resample: impl must be one of {resample.plain, resample.channels_bf16, "
      "resample.channels_vector16, resample.channels_vector16_scratch_row, "
      "resample.channels_vector8, resample.generic, ref} or an "
      "alias {fast}, got 'avx9000'";
#else
  const char* want = "resample: impl must be one of {ref}, got 'avx9000'";
#endif
  expect_plan_error(rdesc(ResampleAlgorithm::kLinear, "avx9000"), md(f32, {1, 1, 4}),
                    md(f32, {1, 1, 8}), want);
}

// Each Highway path declines at plan time what its layout facts rule out, with the reason;
// the family alias "fast" picks the first path that accepts, or lists every reason.
TEST(ResampleErrors, ForcedPathsDeclineWithTheirReason) {
#ifdef GRIDOPS_HAVE_HWY
  const auto f32 = DType::kFloat32;
  const auto nhwc = MemoryFormat::kChannelsLast;
  expect_plan_error(rdesc(ResampleAlgorithm::kLinear, "resample.plain"), md(f32, {1, 3, 4}, nhwc),
                    md(f32, {1, 3, 8}, nhwc),
                    "resample: implementation 'resample.plain' declines this problem: src and dst "
                    "are not both unblocked and contiguous along the last spatial axis",
                    StatusCode::kUnimplemented);
  expect_plan_error(rdesc(ResampleAlgorithm::kLinear, "resample.channels_vector8"),
                    md(f32, {1, 3, 4}), md(f32, {1, 3, 8}),
                    "resample: implementation 'resample.channels_vector8' declines this problem: "
                    "src and dst do not both hold runs of 8 contiguous channels",
                    StatusCode::kUnimplemented);
  expect_plan_error(rdesc(ResampleAlgorithm::kLinear, "fast"), md(DType::kFloat64, {1, 3, 4}),
                    md(DType::kFloat64, {1, 3, 8}),
                    "resample: implementation 'fast' declines this problem (resample.plain: dtype "
                    "float64 is not float32 or bfloat16",
                    StatusCode::kUnimplemented);
  auto plan = make_resample_plan(rdesc(ResampleAlgorithm::kLinear, "fast"),
                                 md(f32, {1, 3, 4}, nhwc), md(f32, {1, 3, 8}, nhwc));
  ASSERT_TRUE(plan.ok()) << plan.status().to_string();
  EXPECT_STREQ(plan->impl_name(), "resample.channels_vector16");
  plan = make_resample_plan(rdesc(ResampleAlgorithm::kLinear, "resample.generic"),
                            md(f32, {1, 3, 4}, nhwc), md(f32, {1, 3, 8}));
  ASSERT_TRUE(plan.ok()) << plan.status().to_string();
  EXPECT_STREQ(plan->impl_name(), "resample.generic");
#else
  GTEST_SKIP() << "built without Highway: only the reference exists";
#endif
}

TEST(ResampleErrors, NullPointers) {
  const auto lin = rdesc(ResampleAlgorithm::kLinear);
  const auto s = md(DType::kFloat32, {1, 2, 3}), d = md(DType::kFloat32, {1, 2, 5});
  std::vector<float> x(6, 1.0f), y(10, 7.0f);
  Status st = resample_forward(lin, s, nullptr, d, y.data());
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(st.message(), HasSubstr("resample: src pointer is null for a non-empty buffer of 6 "
                                      "elements (dims (1, 2, 3))"));
  EXPECT_EQ(y, std::vector<float>(10, 7.0f));
  st = resample_forward(lin, s, x.data(), d, nullptr);
  EXPECT_THAT(st.message(), HasSubstr("resample: dst pointer is null for a non-empty buffer of 10"));
  st = resample_backward(lin, s, x.data(), d, nullptr);
  EXPECT_THAT(st.message(), HasSubstr("resample: diff_dst pointer is null for a non-empty buffer"));
  EXPECT_EQ(x, std::vector<float>(6, 1.0f));
  st = resample_backward(lin, s, nullptr, d, y.data());
  EXPECT_THAT(st.message(), HasSubstr("resample: diff_src pointer is null for a non-empty buffer "
                                      "of 6 elements"));
}

TEST(ResampleErrors, OverlapAndEmptyPlan) {
  const auto lin = rdesc(ResampleAlgorithm::kLinear);
  const auto s = md(DType::kFloat32, {1, 1, 4}), d = md(DType::kFloat32, {1, 1, 4});
  std::vector<float> buf = {1, 2, 3, 4, 5, 6};
  Status st = resample_forward(lin, s, buf.data(), d, buf.data() + 2);
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(st.message(), HasSubstr("resample: dst must not overlap src in memory"));
  st = resample_backward(lin, s, buf.data(), d, buf.data() + 1);
  EXPECT_THAT(st.message(), HasSubstr("resample: diff_src must not overlap diff_dst in memory"));
  EXPECT_EQ(buf, (std::vector<float>{1, 2, 3, 4, 5, 6}));
  // Adjacent, non-overlapping buffers are fine.
  std::vector<float> two(8, 1.0f);
  EXPECT_TRUE(resample_forward(lin, s, two.data(), d, two.data() + 4).ok());
  ResamplePlan empty;
  st = empty.forward(two.data(), two.data() + 4);
  EXPECT_THAT(st.message(), HasSubstr("resample: plan is empty; create it with make_resample_plan"));
  st = empty.backward(two.data(), two.data() + 4);
  EXPECT_THAT(st.message(), HasSubstr("resample: plan is empty"));
}

}  // namespace
}  // namespace gridops

namespace gridops {
namespace {

// NOTE [ Resample table bound ] (src/ops/resample.cc): a plan whose per-axis tables would
// exceed 1 GiB is refused at once, before anything is allocated, naming the bytes and the
// axes; the same axis resampled in windows plans.
TEST(ResamplePlan, TablesOverTheBoundAreRefusedBeforeAllocating) {
  ResampleDesc desc;
  desc.algorithm = ResampleAlgorithm::kLinear;
  ResampleMemoryDesc s, d;
  s.dtype = d.dtype = DType::kFloat32;
  s.dims = {1, 1, int64_t{1} << 26};
  d.dims = {1, 1, int64_t{1} << 26};
  auto plan = make_resample_plan(desc, s, d);
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(plan.status().message().find("resample: the plan's per-axis index and weight tables "
                                         "would take 3584 MiB"),
            std::string::npos)
      << plan.status().message();
  EXPECT_NE(plan.status().message().find("67108864 -> 67108864"), std::string::npos);
  s.dims = {1, 1, int64_t{1} << 30, int64_t{1} << 30};
  d.dims = s.dims;
  EXPECT_FALSE(make_resample_plan(desc, s, d).ok());
  // A window of that axis: tables for its box only.
  ResampleWindow w;
  w.full_in = {int64_t{1} << 26};
  w.full_out = {int64_t{1} << 26};
  w.in_origin = {900};
  w.out_origin = {1000};
  s.dims = {1, 1, 4400};
  d.dims = {1, 1, 4096};
  auto windowed = make_resample_plan(desc, s, d, w);
  ASSERT_TRUE(windowed.ok()) << windowed.status().to_string();
  // Just under the bound plans.
  s.dims = d.dims = {1, 1, int64_t{1} << 24};
  EXPECT_TRUE(make_resample_plan(desc, s, d).ok());
}

}  // namespace
}  // namespace gridops
