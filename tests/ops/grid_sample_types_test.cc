// GridSample: ERRATA GridSample 7 element types, empty tensors and the implementation list
// (helpers in grid_sample_test_util.h).
#include "ops/grid_sample_test_util.h"

namespace gridops {
namespace {

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
    for (const detail::GridSampleEntry& impl : detail::grid_sample_entries()) {
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

}  // namespace
}  // namespace gridops
