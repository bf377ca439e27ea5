// Differential tests of the fast Pad entries (pad.lines, pad.rows, and the family "fast")
// against the reference: random problems (every mode, every fixed-size dtype, ranks 0-5,
// sizes 0, 1 and odd, negative and zero pads, pad values), bit-exact; strided views (the
// fast entries fall back to the reference); thread-count determinism; the run-time
// hand-offs (views, a Highway target without the line writer); and the benchmark workloads
// really run on a fast entry.
#include <cctype>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "core/cache_size.h"
#include "gridops/ops/pad.h"
#include "gridops/status.h"
#include "gridops/parallel.h"
#include "kernels/pad/pad.h"
#include "kernels/pad/pad_lines.h"
#include "ops/pad_impls.h"
#include "support/entries.h"
#include "support/test_util.h"

namespace gridops {
namespace {

// The streaming thresholds scale with the last-level cache (NOTE [ Stream thresholds by
// cache size ], core/cache_size.h), so this program fixes the size at 32 MiB: the
// large-output tests below take the non-temporal paths on every machine.
const bool kMeasuredLlc = [] {
  kernels::set_last_level_cache_bytes_override(kernels::kMeasuredLlcBytes);
  return true;
}();

/// Whether `name` is an entry of the list (not a family alias).
bool is_entry(const std::string& name) {
  return testing::find_entry(detail::pad_impls(), name) != nullptr;
}

/// The tests below run once per fast entry and family alias (the parameter): an entry on
/// the problems it takes (pad.lines declines short rows, many single-cell insertions and
/// targets without AVX-512 BW at plan time), a family on every problem.
class PadDiff : public ::testing::TestWithParam<std::string> {
 protected:
  const char* impl() const { return GetParam().c_str(); }
  bool family() const { return !is_entry(GetParam()); }
};

/// Whether `impl` takes the problem (an entry that declines it fails the plan with
/// kUnimplemented; any other error fails the test). *why gets the reason.
bool takes(PadDesc desc, const std::string& impl, DType dt, const Dims& shape,
           std::string* why = nullptr) {
  desc.impl = impl;
  auto plan = make_pad_plan(desc, dt, shape);
  if (!plan.ok()) {
    EXPECT_EQ(plan.status().code(), StatusCode::kUnimplemented) << plan.status().to_string();
    if (why != nullptr) *why = plan.status().message();
  }
  return plan.ok();
}

/// Skips the test when `impl` took none of its problems because this CPU's Highway target
/// has no line writer (pad.lines); any other reason for taking none fails.
void skip_or_fail_when_none_taken(const std::string& impl, int taken, bool* skip) {
  *skip = false;
  if (taken > 0) return;
  PadDesc big;  // long rows of a constant pad: pad.lines' problem wherever it exists
  big.mode = PadMode::kConstant;
  big.pads_begin = std::vector<int64_t>{0, 4};
  big.pads_end = std::vector<int64_t>{0, 4};
  std::string why;
  if (!takes(big, impl, DType::kFloat32, Dims{4, 100}, &why) &&
      why.find("no AVX-512 BW") != std::string::npos) {
    *skip = true;
    return;
  }
  ADD_FAILURE() << impl << " took none of the problems";
}

constexpr PadMode kModes[] = {PadMode::kConstant, PadMode::kEdge, PadMode::kReflect,
                              PadMode::kSymmetric, PadMode::kWrap};
/// Runs `desc` with implementation `impl` into a fresh zeroed dst.
Tensor run_impl(PadDesc desc, const char* impl, const TensorView& src, const TensorView* value) {
  desc.impl = impl;
  auto plan = make_pad_plan(desc, src.dtype, src.shape);
  EXPECT_TRUE(plan.ok()) << plan.status().to_string();
  if (!plan.ok()) return Tensor();
  if (is_entry(impl)) {
    EXPECT_STREQ(plan->impl_name(), impl);
  }
  Tensor dst(src.dtype, plan->dst_shape());
  const Status st = plan->run(src, dst.mutable_view(), value);
  EXPECT_TRUE(st.ok()) << st.to_string();
  return dst;
}

struct RandomProblem {
  PadDesc desc;
  Dims shape;
  DType dtype;
};

/// A random valid problem with a small output (<= ~3000 elements), sometimes with long rows.
RandomProblem random_problem(std::mt19937_64& rng) {
  for (;;) {
    RandomProblem p;
    p.dtype = testing::kFixedSizeDTypes[rng() % std::size(testing::kFixedSizeDTypes)];
    p.desc.mode = kModes[rng() % std::size(kModes)];
    const int rank = static_cast<int>(rng() % 6);  // 0..5
    for (int d = 0; d < rank; ++d) {
      // Mostly small odd and even sizes, sometimes 0 or 1, sometimes a longer row.
      const int kind = static_cast<int>(rng() % 10);
      int64_t n = kind == 0 ? 0 : kind <= 2 ? 1 : static_cast<int64_t>(rng() % 7) + 1;
      if (d == rank - 1 && kind == 9) n = static_cast<int64_t>(rng() % 40) + 1;
      // Rows of 128 bytes and more take the line writer (on AVX-512 CPUs).
      if (d == rank - 1 && kind == 8) n = static_cast<int64_t>(rng() % 300) + 64;
      p.shape.push_back(n);
      // Many axes unpadded (they merge), the others with pads in [-3, 5] or larger.
      auto draw = [&]() -> int64_t {
        const int k = static_cast<int>(rng() % 8);
        if (k < 3) return 0;
        if (k == 7) return static_cast<int64_t>(rng() % 12);  // far (wrap, edge, constant)
        return static_cast<int64_t>(rng() % 9) - 3;
      };
      p.desc.pads_begin.push_back(draw());
      p.desc.pads_end.push_back(draw());
    }
    auto shape = pad_output_shape(p.desc, p.shape);
    if (!shape.ok()) continue;  // bounds of the mode not met: draw again
    int64_t count = 1;
    for (int64_t d : *shape) count *= d;
    int64_t src_count = 1;
    for (int64_t d : p.shape) src_count *= d;
    if (count > 3000 || src_count > 3000) continue;
    return p;
  }
}

// `count` random problems from `seed`, those `impl` takes against ref, bitwise; returns
// how many it took.
int random_problems_against_ref(const char* impl, uint64_t seed, int count) {
  SCOPED_TRACE("seed " + std::to_string(seed) + " (set GRIDOPS_SEED to reproduce)");
  std::mt19937_64 rng(seed);
  int taken = 0;
  for (int it = 0; it < count; ++it) {
    const RandomProblem p = random_problem(rng);
    SCOPED_TRACE("problem " + std::to_string(it) + ": mode " + to_string(p.desc.mode) +
                 " dtype " + to_string(p.dtype) + " shape " + dims_to_string(p.shape) +
                 " begin " + dims_to_string(p.desc.pads_begin) + " end " +
                 dims_to_string(p.desc.pads_end));
    if (!takes(p.desc, impl, p.dtype, p.shape)) continue;
    ++taken;
    Tensor src(p.dtype, p.shape);
    testing::fill_random_bytes(src, rng);
    // Constant mode: sometimes an explicit (random, possibly non-zero) pad value.
    Tensor value(p.dtype, Dims{});
    testing::fill_random_bytes(value, rng);
    const TensorView value_view = value.view();
    const TensorView* pv =
        p.desc.mode == PadMode::kConstant && rng() % 2 == 0 ? &value_view : nullptr;
    const Tensor want = run_impl(p.desc, "ref", src.view(), pv);
    const Tensor got = run_impl(p.desc, impl, src.view(), pv);
    int64_t where = 0;
    const bool same = testing::bitwise_equal(got, want, &where);
    EXPECT_TRUE(same) << "first difference at " << where;
    if (!same) return -1;
    // Now and then the same problem through strided views (the fast entries' run-time
    // fallback, in the end to the reference).
    if (it % 16 == 0 && src.num_elements() > 0) {
      Tensor storage;
      const TensorView strided = testing::scrambled_copy(src, storage, /*negative=*/it % 32 == 0);
      const Tensor got2 = run_impl(p.desc, impl, strided, pv);
      const bool same2 = testing::bitwise_equal(got2, want, &where);
      EXPECT_TRUE(same2) << "strided: first difference at " << where;
      if (!same2) return -1;
    }
  }
  std::printf("[ %s ] took %d of %d problems\n", impl, taken, count);
  return taken;
}

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
    SCOPED_TRACE("Highway target " + testing::hwy_target_name(targets[k]));
    testing::ScopedHwyTarget only(targets[k]);
    const int n = random_problems_against_ref(impl(), testing::test_seed() + k, 500);
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

// Plans for shapes no buffer could hold (checked only when run) must not overflow while
// the fast entry merges dimensions: it declines them and the reference takes the plan.
TEST(PadDispatch, HugeShapesAreDeclinedNotOverflowed) {
  PadDesc desc;
  desc.mode = PadMode::kConstant;
  desc.pads_begin = {1, 0};
  desc.pads_end = {0, 0};
  auto p = make_pad_plan(desc, DType::kFloat64, Dims{2, int64_t{1} << 61});
  ASSERT_TRUE(p.ok()) << p.status().to_string();
  EXPECT_STREQ(p->impl_name(), "ref");
  desc.mode = PadMode::kWrap;  // huge pads: tables too large
  desc.pads_begin = {int64_t{1} << 40, 0};
  auto q = make_pad_plan(desc, DType::kUInt8, Dims{3, 5});
  ASSERT_TRUE(q.ok()) << q.status().to_string();
  EXPECT_STREQ(q->impl_name(), "ref");
}

// The benchmark workloads (W7a-W7e) must not silently fall back to the reference.
TEST(PadDispatch, BenchmarkWorkloadsUseTheFastKernel) {
  for (PadMode mode : kModes) {
    PadDesc w7a;
    w7a.mode = mode;
    w7a.pads_begin = {0, 0, 3, 3};
    w7a.pads_end = {0, 0, 3, 3};
    auto p = make_pad_plan(w7a, DType::kFloat32, Dims{8, 64, 128, 128});
    ASSERT_TRUE(p.ok());
    EXPECT_STRNE(p->impl_name(), "ref") << to_string(mode);
    PadDesc w7e;
    w7e.mode = mode;
    w7e.pads_begin = {0, 0};
    w7e.pads_end = {0, 24};
    auto q = make_pad_plan(w7e, DType::kFloat32, Dims{4096, 1000});
    ASSERT_TRUE(q.ok());
    EXPECT_STRNE(q->impl_name(), "ref") << to_string(mode);
  }
}

// Views the fast entries cannot take (non-contiguous) run the reference, with the same
// bits, and each hand-off is logged under GRIDOPS_VERBOSE=dispatch.
TEST(PadDispatch, NonContiguousViewsFallBackVisibly) {
  std::mt19937_64 rng(testing::test_seed());
  Tensor src(DType::kFloat32, {4, 60});  // rows of 252 bytes: pad.lines' where it exists
  testing::fill_random_bytes(src, rng);
  Tensor storage;
  const TensorView strided = testing::scrambled_copy(src, storage, true);
  PadDesc desc;
  desc.mode = PadMode::kReflect;
  desc.pads_begin = std::vector<int64_t>{1, 2};
  desc.pads_end = std::vector<int64_t>{2, 1};
  const Tensor want = run_impl(desc, "ref", src.view(), nullptr);
  int taken = 0;
  for (const auto& e : detail::pad_impls()) {
    if (std::string(e.name) == "ref" || !takes(desc, e.name, src.dtype(), src.shape())) continue;
    ++taken;
    SCOPED_TRACE(e.name);
    ASSERT_EQ(setenv("GRIDOPS_VERBOSE", "dispatch", 1), 0);
    ::testing::internal::CaptureStderr();
    const Tensor got = run_impl(desc, e.name, strided, nullptr);
    const std::string log = ::testing::internal::GetCapturedStderr();
    unsetenv("GRIDOPS_VERBOSE");
    EXPECT_TRUE(testing::bitwise_equal(got, want));
    EXPECT_NE(log.find(std::string("pad: '") + e.name +
                       "' declines these views at run time (src is not contiguous): running '"),
              std::string::npos)
        << log;
    EXPECT_NE(log.find("' declines these views at run time (src is not contiguous): running 'ref'"),
              std::string::npos)
        << log;
  }
  EXPECT_GE(taken, 1);
}

// A plan made for pad.lines and run after Highway's target changed to one without
// AVX-512 BW (the tests switch targets; a cached choice once made the stub write nothing)
// hands the run to pad.rows: logged, the same bytes.
TEST(PadDispatch, TargetWithoutTheLineWriterRunsTheRows) {
  const std::vector<int64_t> targets = testing::hwy_targets();
  PadDesc desc;
  desc.mode = PadMode::kEdge;
  desc.pads_begin = std::vector<int64_t>{1, 3};
  desc.pads_end = std::vector<int64_t>{2, 5};
  const Dims shape{9, 100};
  std::string why;
  if (targets.size() < 2 || !takes(desc, "pad.lines", DType::kFloat32, shape, &why)) {
    GTEST_SKIP() << "no pad.lines on this CPU's best Highway target, or no lower target: " << why;
  }
  desc.impl = "pad.lines";
  auto plan = make_pad_plan(desc, DType::kFloat32, shape);
  ASSERT_TRUE(plan.ok()) << plan.status().to_string();
  std::mt19937_64 rng(testing::test_seed());
  Tensor src(DType::kFloat32, shape);
  testing::fill_random_bytes(src, rng);
  const Tensor want = run_impl(desc, "ref", src.view(), nullptr);
  Tensor got(DType::kFloat32, plan->dst_shape());
  {
    testing::ScopedHwyTarget lowest(targets.back());
    ASSERT_EQ(setenv("GRIDOPS_VERBOSE", "dispatch", 1), 0);
    ::testing::internal::CaptureStderr();
    const Status st = plan->run(src.view(), got.mutable_view());
    const std::string log = ::testing::internal::GetCapturedStderr();
    unsetenv("GRIDOPS_VERBOSE");
    ASSERT_TRUE(st.ok()) << st.to_string();
    EXPECT_NE(log.find("pad: 'pad.lines' declines these views at run time (the dispatched Highway "
                       "target has no AVX-512 BW): running 'pad.rows'"),
              std::string::npos)
        << log;
  }
  EXPECT_TRUE(testing::bitwise_equal(got, want));
}

// NOTE [ Pad Permute16 ] (pad_hwy.cc): the portable 16-bit lane permutation against the
// AVX-512 one and a scalar lookup, on every Highway target that has the line writer; bits
// are copied unchanged.
TEST(PadLines, Permute16PortableMatchesIntrinsic) {
#ifdef GRIDOPS_HAVE_HWY
  std::mt19937_64 rng(testing::test_seed());
  int intrinsic_targets = 0;
  const std::vector<int64_t> targets = testing::hwy_targets();
  for (int64_t target : targets) {
    SCOPED_TRACE("Highway target " + testing::hwy_target_name(target));
    testing::ScopedHwyTarget only(target);
    bool have = false;
    for (int it = 0; it < 200; ++it) {
      uint16_t idx[32], v[32], want[32], portable[32], intrinsic[32];
      for (int i = 0; i < 32; ++i) {
        // Random indices, or a rotation (as the line writer makes), or all one lane.
        idx[i] = static_cast<uint16_t>(it % 3 == 0   ? (i + it) % 32
                                       : it % 3 == 1 ? rng() % 32
                                                     : it % 32);
        v[i] = static_cast<uint16_t>(rng());
      }
      for (int i = 0; i < 32; ++i) want[i] = v[idx[i]];
      have = kernels::pad_permute16(false, idx, v, intrinsic);
      if (!have) break;
      ASSERT_TRUE(kernels::pad_permute16(true, idx, v, portable));
      for (int i = 0; i < 32; ++i) {
        ASSERT_EQ(intrinsic[i], want[i]) << "lane " << i << ", iteration " << it;
        ASSERT_EQ(portable[i], want[i]) << "lane " << i << ", iteration " << it;
      }
    }
    intrinsic_targets += have ? 1 : 0;
  }
  // The permutation exists exactly where the line writer does (the best target first).
  if (!targets.empty()) {
    testing::ScopedHwyTarget best(targets.front());
    EXPECT_EQ(intrinsic_targets > 0, kernels::pad_lines_available());
  }
  if (intrinsic_targets == 0) GTEST_SKIP() << "no Highway target of this CPU has AVX-512 BW";
#else
  GTEST_SKIP() << "built without Highway: no line writer";
#endif
}

#ifdef GRIDOPS_HAVE_HWY
/// `impl` (pad.lines or pad.lines_portable_permute) against the reference on a random `dt`
/// tensor of `shape`, bit for bit.
void expect_lines_match_ref(const PadDesc& desc, DType dt, const Dims& shape,
                            std::mt19937_64& rng, const char* impl = "pad.lines") {
  Tensor src(dt, shape);
  testing::fill_random_bytes(src, rng);
  const Tensor want = run_impl(desc, "ref", src.view(), nullptr);
  const Tensor got = run_impl(desc, impl, src.view(), nullptr);
  int64_t where = 0;
  EXPECT_TRUE(testing::bitwise_equal(got, want, &where)) << "first difference at " << where;
}
#endif

// The whole line writer with Permute16Portable in place of the AVX-512 Permute16 (the
// test-only entry pad.lines_portable_permute): the same bytes as the reference, on random problems and on rows of 16-bit cells with wide
// pads of the non-constant modes (the pieces that take the 16-bit permutation).
TEST(PadLines, LineWriterWithPortablePermute) {
#ifdef GRIDOPS_HAVE_HWY
  if (!kernels::pad_lines_available()) {
    GTEST_SKIP() << "the CPU's Highway target has no AVX-512 BW: no pad.lines";
  }
  constexpr const char* kPortable = "pad.lines_portable_permute";
  std::mt19937_64 rng(testing::test_seed());
  int taken = 0;
  for (DType dt : {DType::kFloat16, DType::kUInt16, DType::kBFloat16}) {
    for (PadMode mode : {PadMode::kEdge, PadMode::kReflect, PadMode::kSymmetric, PadMode::kWrap}) {
      for (int64_t pad : {3, 5, 9, 13, 20}) {
        SCOPED_TRACE(std::string(to_string(dt)) + " " + to_string(mode) + " pad " +
                     std::to_string(pad));
        PadDesc desc;
        desc.mode = mode;
        desc.pads_begin = std::vector<int64_t>{0, pad};
        desc.pads_end = std::vector<int64_t>{1, pad + 2};
        const Dims shape{3, 97};
        if (!takes(desc, kPortable, dt, shape)) continue;
        ++taken;
        expect_lines_match_ref(desc, dt, shape, rng, kPortable);
      }
    }
  }
  EXPECT_GT(taken, 0);
  EXPECT_GT(random_problems_against_ref(kPortable, testing::test_seed() + 1, 600), 0);
#else
  GTEST_SKIP() << "built without Highway: no line writer";
#endif
}

// Pads thousands of cells wide of the non-constant modes: the line writer's window pieces
// repeat a few lane tables, which the plan keeps once (with their rotations) instead of
// once per piece (16-32 tables of 64 bytes each); the bytes are the reference's.
TEST(PadLines, WidePadsShareLaneTables) {
#ifdef GRIDOPS_HAVE_HWY
  if (!kernels::pad_lines_available()) {
    GTEST_SKIP() << "the CPU's Highway target has no AVX-512 BW: no pad.lines";
  }
  std::mt19937_64 rng(testing::test_seed());
  int taken = 0;
  for (DType dt : {DType::kFloat32, DType::kUInt16, DType::kFloat64}) {
    for (PadMode mode : {PadMode::kEdge, PadMode::kReflect, PadMode::kSymmetric}) {
      SCOPED_TRACE(std::string(to_string(dt)) + " " + to_string(mode));
      const std::vector<int64_t> shape{2, 6000}, begin{0, 5000}, end{0, 4001}, out{2, 15001};
      kernels::PadProblem p;
      p.mode = mode;
      p.dtype = dt;
      p.src_shape = shape;
      p.pads_begin = begin;
      p.pads_end = end;
      p.dst_shape = out;
      if (!kernels::pad_lines_declines(p).empty()) continue;
      ++taken;
      const auto tables =
          std::static_pointer_cast<const kernels::PadTables>(kernels::pad_lines_prepare(p));
      ASSERT_GT(tables->perm_lane, 0);
      const auto rotations = static_cast<size_t>(64 / tables->perm_lane);
      const size_t pieces = tables->left_pieces.size() + tables->right_pieces.size();
      ASSERT_EQ(tables->perm_idx.size() % rotations, 0u);
      // Each side is one repeated cell (edge) or one descending run (reflect, symmetric):
      // hundreds of window pieces, one table each but for the partial last piece.
      const size_t distinct = tables->perm_idx.size() / rotations;
      EXPECT_LE(distinct, 4u) << pieces << " pieces";
      EXPECT_GT(pieces, 100u);
      PadDesc desc;
      desc.mode = mode;
      desc.pads_begin = begin;
      desc.pads_end = end;
      expect_lines_match_ref(desc, dt, Dims(shape.begin(), shape.end()), rng);
    }
  }
  EXPECT_GT(taken, 0);
#else
  GTEST_SKIP() << "built without Highway: no line writer";
#endif
}

GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(PadDiff);
INSTANTIATE_TEST_SUITE_P(FastImpls, PadDiff,
                         ::testing::ValuesIn(testing::fast_entries(detail::pad_impls())),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string n = info.param;
                           for (char& c : n) {
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return n;
                         });

}  // namespace
}  // namespace gridops
