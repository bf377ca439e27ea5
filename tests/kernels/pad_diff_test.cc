// Differential tests of the fast Pad entries (pad.lines, pad.rows, and the family "fast")
// against the reference: random problems (every mode, every fixed-size dtype, ranks 0-5,
// sizes 0, 1 and odd, negative and zero pads, pad values), bit-exact; strided views (the
// fast entries fall back to the reference); thread-count determinism; the run-time
// hand-offs (views, a Highway target without the line writer); and the benchmark workloads
// really run on a fast entry.
#include "kernels/pad_diff_util.h"

namespace gridops {
namespace {

TEST_P(PadDiff, FastMatchesReferenceOnRandomProblems) {
  const int taken = random_problems_against_ref(impl(), testing::test_seed(), 2500);
  if (family()) {
    EXPECT_EQ(taken, 2500);  // every fixed-size dtype
  }
  bool skip = false;
  skip_or_fail_when_none_taken(impl(), taken, &skip);
  if (skip) GTEST_SKIP() << impl() << ": this CPU has no AVX-512 BW";
}

// The other Highway targets this CPU runs (AVX2, SSE4, ... below the best one, which the
// test above covers): fewer problems each. pad.lines declines those without AVX-512 BW.
TEST_P(PadDiff, EveryHighwayTarget) {
  const std::vector<int64_t> targets = testing::hwy_targets();
  if (targets.empty()) GTEST_SKIP() << "built without Highway: no Highway target to select";
  int taken = 0;
  for (size_t k = 1; k < targets.size(); ++k) {
    const int n = random_problems_against_ref(impl(), testing::test_seed() + k, 500, targets[k]);
    if (n < 0 || ::testing::Test::HasFatalFailure()) return;
    if (family()) {
      EXPECT_EQ(n, 500);
    }
    taken += n;
  }
  if (taken == 0 && targets.size() > 1) {
    GTEST_SKIP() << impl() << " takes no problem on the lower Highway targets";
  }
}

// The problem of GRIDOPS_RERUN (the line a failing check prints), alone, when it names
// this entry. Without it: a fixed line, which must read back to the same line and run.
TEST_P(PadDiff, Rerun) {
  const auto r = testing::rerun_problem<PadTester>(
      "pad", "pad impl=" + GetParam() +
                 " mode=reflect src=int16 src_shape=3x4x70 begin=1x-1x0 end=2x3x0 "
                 "value=default views=sn target=best seed=5");
  ASSERT_TRUE(r.has_value());
  if (r->impl != GetParam()) GTEST_SKIP() << "GRIDOPS_RERUN names entry " << r->impl;
  if (r->tester.test(r->impl)) return;
  EXPECT_FALSE(r->from_env) << "'" << r->impl << "' declines this problem";
  bool skip = false;  // the fixed problem: declined only where the CPU lacks the line writer
  skip_or_fail_when_none_taken(r->impl, 0, &skip);
  if (skip) GTEST_SKIP() << r->impl << ": this CPU's Highway target has no line writer";
}

// Edge cases named in issue 5: negative pads (crop, crop past the axis and pad back),
// zero pads, size-1 axes, every mode at its bounds.
TEST_P(PadDiff, EdgeCases) {
  struct Case {
    PadMode mode;
    Dims shape, begin, end;
  };
  const std::vector<Case> cases = {
      {PadMode::kEdge, {5}, {-6}, {3}},            // crop past the axis, pad back
      {PadMode::kWrap, {3, 1}, {-1, 7}, {9, 2}},   // wrap far on a size-1 axis
      {PadMode::kReflect, {4, 3}, {3, 2}, {3, 2}},  // reflect at its bound n - 1
      {PadMode::kSymmetric, {4, 3}, {4, 3}, {4, 3}},  // symmetric at its bound n
      {PadMode::kConstant, {2, 0, 3}, {1, 2, 1}, {0, 1, -1}},  // empty src axis, padded
      {PadMode::kConstant, {3, 4}, {-3, 0}, {2, 0}},            // all rows cropped
      {PadMode::kEdge, {1, 1, 1}, {2, 0, 3}, {1, 0, 2}},
      {PadMode::kReflect, {2, 5, 7}, {0, -2, 1}, {0, 4, -3}},
      {PadMode::kConstant, {}, {}, {}},  // rank 0
      {PadMode::kWrap, {6, 5}, {0, 0}, {0, 0}},  // nothing padded: a copy
  };
  std::mt19937_64 rng(testing::test_seed());
  int taken = 0;
  for (const Case& c : cases) {
    for (DType dt : {DType::kUInt8, DType::kFloat32, DType::kComplex128}) {
      PadDesc desc;
      desc.mode = c.mode;
      desc.pads_begin = c.begin;
      desc.pads_end = c.end;
      SCOPED_TRACE(std::string(to_string(c.mode)) + " " + dims_to_string(c.shape) + " " +
                   to_string(dt));
      Tensor src(dt, c.shape);
      testing::fill_random_bytes(src, rng);
      if (!takes(desc, impl(), dt, c.shape)) continue;
      ++taken;
      const Tensor want = run_impl(desc, "ref", src.view(), nullptr);
      const Tensor got = run_impl(desc, impl(), src.view(), nullptr);
      EXPECT_TRUE(testing::bitwise_equal(got, want));
    }
  }
  if (family()) {
    EXPECT_EQ(taken, 30);
  }
  if (taken == 0) GTEST_SKIP() << impl() << " takes none of these (short-row) problems";
}

TEST_P(PadDiff, OneAndTwoThreadsAreBitIdentical) {
  std::mt19937_64 rng(testing::test_seed());
  const int saved = get_num_threads();
  int taken = 0;
  for (PadMode mode : kModes) {
    SCOPED_TRACE(to_string(mode));
    PadDesc desc;
    desc.mode = mode;
    desc.pads_begin = {1, 2, 3};
    desc.pads_end = {2, 1, 0};
    Tensor src(DType::kFloat32, {37, 33, 41});  // ~64 rows per thread chunk minimum
    testing::fill_random_bytes(src, rng);
    if (!takes(desc, impl(), src.dtype(), src.shape())) continue;
    ++taken;
    set_num_threads(1);
    const Tensor one = run_impl(desc, impl(), src.view(), nullptr);
    set_num_threads(2);
    const Tensor two = run_impl(desc, impl(), src.view(), nullptr);
    EXPECT_TRUE(testing::bitwise_equal(one, two));
    const Tensor want = run_impl(desc, "ref", src.view(), nullptr);
    EXPECT_TRUE(testing::bitwise_equal(two, want));
  }
  set_num_threads(saved);
  bool skip = false;
  skip_or_fail_when_none_taken(impl(), taken, &skip);
  if (skip) GTEST_SKIP() << impl() << ": this CPU has no AVX-512 BW";
}

// Outputs of 8 MiB and more take the streaming-store path at one thread (at two, those under
// 32 MiB stay in the cache: NOTE [ Pad stores by thread count ]); rows of odd lengths start
// anywhere in a cache line.
TEST_P(PadDiff, LargeOutputsStream) {
  std::mt19937_64 rng(testing::test_seed());
  int taken = 0;
  const int saved = get_num_threads();
  for (int threads : {1, 2})
  for (PadMode mode : kModes) {
    set_num_threads(threads);
    SCOPED_TRACE(threads);
    SCOPED_TRACE(to_string(mode));
    PadDesc desc;  // ~9.8 MB out, staged rows of 2112 bytes
    desc.mode = mode;
    desc.pads_begin = {1, 2, 1};
    desc.pads_end = {2, 1, 2};
    Tensor src(DType::kComplex128, {31, 133, 129});
    testing::fill_random_bytes(src, rng);
    if (takes(desc, impl(), src.dtype(), src.shape())) {
      ++taken;
      const Tensor got = run_impl(desc, impl(), src.view(), nullptr);
      const Tensor want = run_impl(desc, "ref", src.view(), nullptr);
      EXPECT_TRUE(testing::bitwise_equal(got, want));
    }
    PadDesc wide = desc;  // ~8.5 MB out, rows of 40 KB streamed directly
    wide.pads_begin = {1, 3};
    wide.pads_end = {0, 5};
    Tensor src2(DType::kFloat64, {210, 5003});
    testing::fill_random_bytes(src2, rng);
    if (!takes(wide, impl(), src2.dtype(), src2.shape())) continue;
    ++taken;
    const Tensor got2 = run_impl(wide, impl(), src2.view(), nullptr);
    const Tensor want2 = run_impl(wide, "ref", src2.view(), nullptr);
    EXPECT_TRUE(testing::bitwise_equal(got2, want2));
  }
  set_num_threads(saved);
  if (family()) {
    EXPECT_EQ(taken, 20);
  }
  bool skip = false;
  skip_or_fail_when_none_taken(impl(), taken, &skip);
  if (skip) GTEST_SKIP() << impl() << ": this CPU has no AVX-512 BW";
}

// Views at any byte address (the line writer assembles 64-byte lines from the output
// address, and rotates its pad pieces by whole lanes only when the output is aligned to
// the lane size): results match the reference and no byte outside dst is written.
TEST_P(PadDiff, MisalignedViewsWriteOnlyTheirBytes) {
  struct Case {
    Dims shape, begin, end;
  };
  const std::vector<Case> cases = {
      {{7, 45}, {2, 3}, {1, 5}},        // padded innermost axis, cells of one element
      {{5, 37, 2}, {0, 4, 0}, {0, 3, 0}},  // cells of two elements (folded axis)
      {{4, 9, 3}, {1, 2, 0}, {2, 6, 0}},   // cells of three elements: no lane permutation
      {{3, 70}, {0, 17}, {0, 19}},       // pads longer than one 64-byte window
      {{40, 5}, {3, 0}, {2, 0}},         // only an outer axis padded: rows of 5 elements
  };
  std::mt19937_64 rng(testing::test_seed());
  int taken = 0;
  for (const Case& c : cases) {
    for (PadMode mode : kModes) {
      for (DType dt : {DType::kUInt8, DType::kInt16, DType::kFloat32, DType::kFloat64,
                       DType::kComplex128}) {
        for (int64_t off : {0, 1, 2, 4, 8, 12, 60}) {
          PadDesc desc;
          desc.mode = mode;
          desc.pads_begin = c.begin;
          desc.pads_end = c.end;
          SCOPED_TRACE(std::string(to_string(mode)) + " " + dims_to_string(c.shape) + " " +
                       to_string(dt) + " offset " + std::to_string(off));
          Tensor src(dt, c.shape);
          testing::fill_random_bytes(src, rng);
          if (!takes(desc, impl(), dt, c.shape)) continue;
          ++taken;
          const Tensor want = run_impl(desc, "ref", src.view(), nullptr);
          // src and dst both at `off` bytes past a 64-byte boundary, sentinels around dst.
          const int64_t nb = static_cast<int64_t>(want.nbytes());
          Tensor src_store(DType::kUInt8, {static_cast<int64_t>(src.nbytes()) + 64});
          Tensor dst_store(DType::kUInt8, {nb + 192});
          auto* sbase = static_cast<unsigned char*>(src_store.data());
          auto* dbase = static_cast<unsigned char*>(dst_store.data());
          std::memcpy(sbase + off, src.data(), src.nbytes());
          std::memset(dbase, 0xA5, static_cast<size_t>(nb + 192));
          desc.impl = impl();
          auto plan = make_pad_plan(desc, dt, c.shape);
          ASSERT_TRUE(plan.ok()) << plan.status().to_string();
          const TensorView sv(dt, sbase + off, c.shape);
          const MutableTensorView dv(dt, dbase + 64 + off, plan->dst_shape());
          ASSERT_TRUE(plan->run(sv, dv).ok());
          EXPECT_EQ(std::memcmp(dbase + 64 + off, want.data(), static_cast<size_t>(nb)), 0);
          for (int64_t i = 0; i < nb + 192; ++i) {
            if (i >= 64 + off && i < 64 + off + nb) continue;
            ASSERT_EQ(dbase[i], 0xA5) << "byte " << i - 64 - off << " outside dst written";
          }
        }
      }
    }
  }
  if (family()) {
    EXPECT_EQ(taken, 5 * 5 * 5 * 7);
  }
  bool skip = false;
  skip_or_fail_when_none_taken(impl(), taken, &skip);
  if (skip) GTEST_SKIP() << impl() << ": this CPU has no AVX-512 BW";
}

// Any split of the rows over chunks, including chunks that start and end inside a 64-byte
// line (the line writer stores the partial lines of a chunk with byte masks): the same
// bytes as the reference, for small (cached stores) and large (streaming) outputs.
TEST_P(PadDiff, UnevenChunksMatchTheReference) {
  std::mt19937_64 rng(testing::test_seed());
  std::mt19937_64 split_rng(rng());
  int taken = 0;
  set_parallel_runner([&split_rng](int64_t n, int64_t,
                                   const std::function<void(int64_t, int64_t)>& body) {
    // Serial, chunks of 1 to 7 rows, in a scrambled order.
    std::vector<std::pair<int64_t, int64_t>> chunks;
    for (int64_t b = 0; b < n;) {
      const int64_t e = std::min<int64_t>(n, b + 1 + static_cast<int64_t>(split_rng() % 7));
      chunks.emplace_back(b, e);
      b = e;
    }
    std::shuffle(chunks.begin(), chunks.end(), split_rng);
    for (const auto& [b, e] : chunks) body(b, e);
  });
  for (int it = 0; it < 400; ++it) {
    const RandomProblem p = random_problem(rng);
    SCOPED_TRACE("problem " + std::to_string(it) + ": mode " + to_string(p.desc.mode) +
                 " dtype " + to_string(p.dtype) + " shape " + dims_to_string(p.shape));
    Tensor src(p.dtype, p.shape);
    testing::fill_random_bytes(src, rng);
    if (!takes(p.desc, impl(), p.dtype, p.shape)) continue;
    ++taken;
    const Tensor want = run_impl(p.desc, "ref", src.view(), nullptr);
    const Tensor got = run_impl(p.desc, impl(), src.view(), nullptr);
    ASSERT_TRUE(testing::bitwise_equal(got, want));
  }
  for (PadMode mode : kModes) {  // > 8 MiB out: streaming stores, rows of 2,071 bytes
    SCOPED_TRACE(to_string(mode));
    PadDesc desc;
    desc.mode = mode;
    desc.pads_begin = Dims{1, 9};
    desc.pads_end = Dims{2, 13};
    Tensor src(DType::kUInt8, {4100, 2049});
    testing::fill_random_bytes(src, rng);
    if (!takes(desc, impl(), src.dtype(), src.shape())) continue;
    ++taken;
    const Tensor want = run_impl(desc, "ref", src.view(), nullptr);
    const Tensor got = run_impl(desc, impl(), src.view(), nullptr);
    EXPECT_TRUE(testing::bitwise_equal(got, want));
  }
  set_parallel_runner(nullptr);
  if (family()) {
    EXPECT_EQ(taken, 405);
  }
  bool skip = false;
  skip_or_fail_when_none_taken(impl(), taken, &skip);
  if (skip) GTEST_SKIP() << impl() << ": this CPU has no AVX-512 BW";
}


GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(PadDiff);
INSTANTIATE_TEST_SUITE_P(FastImpls, PadDiff,
                         ::testing::ValuesIn(testing::fast_entries(detail::pad_entries())),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string n = info.param;
                           for (char& c : n) {
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return n;
                         });

}  // namespace
}  // namespace gridops
