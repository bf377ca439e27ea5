// Differential tests of the fast Gather kernel against the reference: random problems
// (every fixed-size dtype, data ranks 1-4, indices ranks 0-3, sizes 0, 1 and odd, int32
// and int64 indices with values at -s and s-1, negative axes), bit-exact; strided views
// (the fast entry falls back to the reference); identical errors for bad indices;
// thread-count determinism; and the benchmark workloads really run on the fast kernel.
#include <cctype>
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "gridops/ops/gather.h"
#include "gridops/parallel.h"
#include "kernels/gather/gather.h"
#include "ops/gather_impls.h"
#include "support/entries.h"
#include "support/problem_string.h"
#include "support/test_util.h"

namespace gridops {
namespace {

/// The tests below run once per fast entry and the family "fast" (the parameter); an entry
/// this CPU can never run (gather.vector on AMD CPUs, NOTE [ Gather vector gathers by
/// CPU ]) is skipped: the test-only gather.vector_any_cpu runs its kernel there.
class GatherDiff : public ::testing::TestWithParam<std::string> {
 protected:
  const char* impl() const { return GetParam().c_str(); }
  void SetUp() override {
    const auto* e = testing::find_entry(detail::gather_entries(), GetParam());
    if (e != nullptr && e->unavailable != nullptr && !e->unavailable().empty()) {
      GTEST_SKIP() << GetParam() << ": " << e->unavailable();
    }
  }
};

/// Runs with implementation `impl` into a dst pre-filled with 0xAB bytes; returns the status.
Status run_impl(GatherDesc desc, const char* impl, const TensorView& data,
                const TensorView& indices, Tensor* out) {
  desc.impl = impl;
  auto plan = make_gather_plan(desc, data.dtype, data.shape, indices.dtype, indices.shape);
  EXPECT_TRUE(plan.ok()) << plan.status().to_string();
  if (!plan.ok()) return plan.status();
  if (testing::find_entry(detail::gather_entries(), impl) != nullptr) {
    EXPECT_STREQ(plan->impl_name(), impl);
  }
  *out = Tensor(data.dtype, plan->dst_shape());
  std::memset(out->data(), 0xAB, out->nbytes());
  if (data.dtype == DType::kBool) std::memset(out->data(), 1, out->nbytes());
  return plan->run(data, indices, out->mutable_view());
}

/// False when entry `impl` declines this problem at plan time (gather.vector takes only
/// slices of 4 or 8 bytes): the test then has nothing to compare for that entry.
bool takes(const char* impl, GatherDesc desc, const TensorView& data, const TensorView& indices) {
  desc.impl = impl;
  auto plan = make_gather_plan(desc, data.dtype, data.shape, indices.dtype, indices.shape);
  if (!plan.ok()) {
    EXPECT_EQ(plan.status().code(), StatusCode::kUnimplemented) << plan.status().to_string();
  }
  return plan.ok();
}

/// Random indices for an axis of length s: in [-s, s-1], often exactly at the bounds.
Tensor random_indices(DType dt, const Dims& shape, int64_t s, std::mt19937_64& rng) {
  Tensor t(dt, shape);
  for (int64_t i = 0; i < t.num_elements(); ++i) {
    int64_t v = 0;
    const int k = static_cast<int>(rng() % 6);
    if (k == 0) {
      v = -s;
    } else if (k == 1) {
      v = s - 1;
    } else {
      v = static_cast<int64_t>(rng() % static_cast<uint64_t>(2 * s)) - s;
    }
    if (dt == DType::kInt32) {
      t.data_as<int32_t>()[i] = static_cast<int32_t>(v);
    } else {
      t.data_as<int64_t>()[i] = v;
    }
  }
  return t;
}

/// One Gather problem as a fluent tester: `test(entry)` checks the entry against ref,
/// bitwise, on data and indices drawn from `seed` (and, with `strided`, again through a
/// scrambled data view). Its canonical line (tests/support/problem_string.h) is printed by
/// a failing check and rerun alone by GatherDiff.Rerun.
class GatherTester {
 public:
  GatherTester& data(DType t, Dims shape) {
    dtype_ = t;
    dshape_ = std::move(shape);
    return *this;
  }
  GatherTester& axis(int a) { axis_ = a; return *this; }
  GatherTester& indices(DType t, Dims shape) {
    itype_ = t;
    ishape_ = std::move(shape);
    return *this;
  }
  GatherTester& strided(bool s, bool negative) {
    strided_ = s;
    negative_ = negative;
    return *this;
  }
  GatherTester& seed(uint64_t s) { seed_ = s; return *this; }
  GatherTester& target(int64_t t) { target_ = t; return *this; }

  testing::ProblemString line(const std::string& impl) const {
    testing::ProblemString s("gather");
    s.add("impl", impl)
        .add("data", dtype_)
        .add("data_shape", dshape_)
        .add("axis", axis_)
        .add("indices", itype_)
        .add("indices_shape", ishape_)
        .add_flags("views", {{'s', strided_}, {'n', negative_}})
        .add("target", testing::hwy_target_label(target_))
        .add("seed", seed_);
    return s;
  }

  static GatherTester from(const testing::ProblemString& s, std::string* impl) {
    GatherTester t;
    *impl = s.get("impl");
    t.data(s.get_dtype("data"), s.get_dims("data_shape"));
    t.axis(static_cast<int>(s.get_int("axis")));
    t.indices(s.get_dtype("indices"), s.get_dims("indices_shape"));
    t.strided(s.has_flag("views", 's'), s.has_flag("views", 'n'));
    t.target(testing::hwy_target_from_label(s.get("target")));
    t.seed(s.get_uint("seed"));
    return t;
  }

  /// False (nothing checked) when `impl` declines the problem at plan time.
  bool test(const std::string& impl) const {
    SCOPED_TRACE(testing::rerun_hint(line(impl)));
    std::optional<testing::ScopedHwyTarget> on;
    if (target_ != 0) on.emplace(target_);
    std::mt19937_64 rng(seed_);
    GatherDesc desc;
    desc.axis = axis_;
    const int r = static_cast<int>(dshape_.size());
    const int64_t s = dshape_[static_cast<size_t>(axis_ < 0 ? axis_ + r : axis_)];
    Tensor data(dtype_, dshape_);
    testing::fill_random_bytes(data, rng);
    const Tensor idx = random_indices(itype_, ishape_, s, rng);
    if (!takes(impl.c_str(), desc, data.view(), idx.view())) return false;
    Tensor want, got;
    EXPECT_TRUE(run_impl(desc, "ref", data.view(), idx.view(), &want).ok());
    EXPECT_TRUE(run_impl(desc, impl.c_str(), data.view(), idx.view(), &got).ok());
    int64_t where = 0;
    if (!testing::bitwise_equal(got, want, &where)) {
      ADD_FAILURE() << "first difference at " << where;
      return true;
    }
    if (strided_ && data.num_elements() > 0) {
      Tensor storage;
      const TensorView view = testing::scrambled_copy(data, storage, negative_);
      Tensor got2;
      EXPECT_TRUE(run_impl(desc, impl.c_str(), view, idx.view(), &got2).ok());
      if (!testing::bitwise_equal(got2, want, &where)) ADD_FAILURE() << "strided: at " << where;
    }
    return true;
  }

 private:
  DType dtype_ = DType::kFloat32, itype_ = DType::kInt64;
  Dims dshape_{4}, ishape_{3};
  int axis_ = 0;
  bool strided_ = false, negative_ = false;
  uint64_t seed_ = 1;
  int64_t target_ = 0;
};

// `count` random problems from `seed` (on Highway target `target`, 0: the best), fast
// against ref, bitwise. Returns how many of them the entry took.
int random_problems_against_ref(const char* impl, uint64_t seed, int count, int64_t target = 0) {
  SCOPED_TRACE("seed " + std::to_string(seed) + " (set GRIDOPS_SEED to reproduce)");
  std::mt19937_64 rng(seed);
  int taken = 0;
  for (int it = 0; it < count; ++it) {
    const DType dt = testing::kFixedSizeDTypes[rng() % std::size(testing::kFixedSizeDTypes)];
    const DType it_dt = rng() % 2 ? DType::kInt32 : DType::kInt64;
    const int r = 1 + static_cast<int>(rng() % 4);
    Dims dshape;
    for (int d = 0; d < r; ++d) {
      const int kind = static_cast<int>(rng() % 10);
      dshape.push_back(kind == 0 ? 0 : kind <= 2 ? 1 : static_cast<int64_t>(rng() % 7) + 1);
    }
    const int axis = static_cast<int>(rng() % static_cast<uint64_t>(r));
    const int64_t s = dshape[static_cast<size_t>(axis)];
    const int q = static_cast<int>(rng() % 4);
    Dims ishape;
    for (int d = 0; d < q; ++d) ishape.push_back(static_cast<int64_t>(rng() % 6));
    if (s == 0) {
      ishape.assign(static_cast<size_t>(std::max(q, 1)), 0);  // only empty indices are valid
    }
    GatherTester t;
    t.data(dt, dshape)
        .axis(rng() % 2 ? axis : axis - r)  // negative axes too
        .indices(it_dt, ishape)
        .strided(it % 16 == 0, it % 32 == 0)
        .target(target)
        .seed(rng());
    if (t.test(impl)) ++taken;
    if (::testing::Test::HasFailure()) return taken;
  }
  return taken;
}

TEST_P(GatherDiff, FastMatchesReferenceOnRandomProblems) {
  // gather.vector takes about a third of them (4- and 8-byte slices), gather.slices all.
  EXPECT_GT(random_problems_against_ref(impl(), testing::test_seed(), 2500), 500);
}

// The other Highway targets this CPU runs (AVX2, SSE4, ... below the best one, which the
// test above covers): fewer problems each.
TEST_P(GatherDiff, EveryHighwayTarget) {
  const std::vector<int64_t> targets = testing::hwy_targets();
  if (targets.empty()) GTEST_SKIP() << "built without Highway: no Highway target to select";
  for (size_t k = 1; k < targets.size(); ++k) {
    EXPECT_GT(random_problems_against_ref(impl(), testing::test_seed() + k, 500, targets[k]), 100);
    if (::testing::Test::HasFatalFailure()) return;
  }
}

// The problem of GRIDOPS_RERUN (the line a failing check prints), alone, when it names
// this entry. Without it: a fixed line, which must read back to the same line and run.
TEST_P(GatherDiff, Rerun) {
  const auto r = testing::rerun_problem<GatherTester>(
      "gather", "gather impl=" + GetParam() +
                    " data=float32 data_shape=3x5x4 axis=-1 indices=int32 indices_shape=2x3 "
                    "views=s target=best seed=99");
  ASSERT_TRUE(r.has_value());
  if (r->impl != GetParam()) GTEST_SKIP() << "GRIDOPS_RERUN names entry " << r->impl;
  EXPECT_TRUE(r->tester.test(r->impl)) << "'" << r->impl << "' declines this problem";
}

// Slice sizes around the typed cases (1, 2, 4, 8, 16 bytes) and large memcpy slices.
TEST_P(GatherDiff, SliceSizes) {
  std::mt19937_64 rng(testing::test_seed());
  for (int64_t inner : {1, 2, 3, 4, 5, 8, 12, 16, 17, 64, 100, 333}) {
    SCOPED_TRACE("inner " + std::to_string(inner));
    Tensor data(DType::kUInt8, {3, 9, inner});
    testing::fill_random_bytes(data, rng);
    const Tensor idx = random_indices(DType::kInt64, {2, 13}, 9, rng);
    GatherDesc desc;
    desc.axis = 1;
    if (!takes(impl(), desc, data.view(), idx.view())) continue;
    Tensor want, got;
    ASSERT_TRUE(run_impl(desc, "ref", data.view(), idx.view(), &want).ok());
    ASSERT_TRUE(run_impl(desc, impl(), data.view(), idx.view(), &got).ok());
    EXPECT_TRUE(testing::bitwise_equal(got, want));
  }
}

// Index counts around the typed copies' blocks of 32 and pairs (NOTE [ Gather index
// pairs ]), on rows split between two threads at odd positions, with the last slice of
// every row read (data sized exactly, so an over-read is an ASan error).
TEST_P(GatherDiff, IndexPairsAndBlocks) {
  std::mt19937_64 rng(testing::test_seed());
  const int saved = get_num_threads();
  for (int64_t inner : {1, 2, 4, 8, 16}) {
    for (int64_t q : {1, 2, 3, 31, 32, 33, 63, 64, 65, 97}) {
      SCOPED_TRACE("inner " + std::to_string(inner) + " q " + std::to_string(q));
      Tensor data(DType::kUInt8, {301, 41, inner});
      testing::fill_random_bytes(data, rng);
      Tensor idx = random_indices(DType::kInt64, {q}, 41, rng);
      idx.data_as<int64_t>()[q - 1] = 40;
      idx.data_as<int64_t>()[0] = -1;
      GatherDesc desc;
      desc.axis = 1;
      if (!takes(impl(), desc, data.view(), idx.view())) continue;
      Tensor want, got;
      ASSERT_TRUE(run_impl(desc, "ref", data.view(), idx.view(), &want).ok());
      for (int threads : {1, 2}) {
        set_num_threads(threads);
        ASSERT_TRUE(run_impl(desc, impl(), data.view(), idx.view(), &got).ok());
        EXPECT_TRUE(testing::bitwise_equal(got, want)) << threads << " threads";
      }
    }
  }
  set_num_threads(saved);
}

// A bad index: both implementations report the same message, and nothing is written.
TEST_P(GatherDiff, SameErrorForBadIndices) {
  std::mt19937_64 rng(testing::test_seed());
  for (DType it_dt : {DType::kInt32, DType::kInt64}) {
    for (int64_t bad : {int64_t{5}, int64_t{-6}, int64_t{1000}}) {
      Tensor data(DType::kFloat32, {5, 2});  // 8-byte slices: every entry takes them
      testing::fill_random_bytes(data, rng);
      Tensor idx = random_indices(it_dt, {3, 700}, 5, rng);  // bad one in the 2nd block
      const int64_t pos = 2 * 700 + 417;
      if (it_dt == DType::kInt32) {
        idx.data_as<int32_t>()[pos] = static_cast<int32_t>(bad);
      } else {
        idx.data_as<int64_t>()[pos] = bad;
      }
      GatherDesc desc;
      Tensor a, b;
      const Status sa = run_impl(desc, "ref", data.view(), idx.view(), &a);
      const Status sb = run_impl(desc, impl(), data.view(), idx.view(), &b);
      ASSERT_FALSE(sa.ok());
      EXPECT_EQ(sa.to_string(), sb.to_string());
      EXPECT_NE(sb.message().find("at position (2, 417)"), std::string::npos) << sb.to_string();
      const std::vector<unsigned char> untouched(b.nbytes(), 0xAB);
      EXPECT_EQ(std::memcmp(b.data(), untouched.data(), b.nbytes()), 0);
    }
  }
}

TEST_P(GatherDiff, OneAndTwoThreadsAreBitIdentical) {
  std::mt19937_64 rng(testing::test_seed());
  const int saved = get_num_threads();
  for (int64_t inner : {1, 4, 16, 40, 512}) {
    SCOPED_TRACE("inner " + std::to_string(inner));
    Tensor data(DType::kUInt8, {7, 301, inner});
    testing::fill_random_bytes(data, rng);
    const Tensor idx = random_indices(DType::kInt32, {997}, 301, rng);
    GatherDesc desc;
    desc.axis = 1;
    if (!takes(impl(), desc, data.view(), idx.view())) continue;
    Tensor one, two, want;
    set_num_threads(1);
    ASSERT_TRUE(run_impl(desc, impl(), data.view(), idx.view(), &one).ok());
    set_num_threads(2);
    ASSERT_TRUE(run_impl(desc, impl(), data.view(), idx.view(), &two).ok());
    ASSERT_TRUE(run_impl(desc, "ref", data.view(), idx.view(), &want).ok());
    EXPECT_TRUE(testing::bitwise_equal(one, two));
    EXPECT_TRUE(testing::bitwise_equal(two, want));
  }
  set_num_threads(saved);
}

// Runs `impl` on (data, idx) along axis 0 with only Highway target `target` enabled (0:
// built without Highway, the one path) at `threads` threads, and expects ref's bytes
// `want`. Restores the thread count.
void expect_as_ref_on_target(const char* impl, int64_t target, int threads, const Tensor& data,
                             const Tensor& idx, const Tensor& want) {
  SCOPED_TRACE(target == 0 ? std::string("no Highway") : "Highway target " + testing::hwy_target_name(target));
  SCOPED_TRACE(std::to_string(threads) + " threads");
  std::optional<testing::ScopedHwyTarget> only;
  if (target != 0) only.emplace(target);
  const int saved = get_num_threads();
  set_num_threads(threads);
  Tensor got;
  const Status st = run_impl(GatherDesc{}, impl, data.view(), idx.view(), &got);
  set_num_threads(saved);
  ASSERT_TRUE(st.ok()) << st.to_string();
  EXPECT_TRUE(testing::bitwise_equal(got, want));
}

// Outputs of 8 MiB and more take the streaming-store path (slices of 64 bytes and more;
// from 128 bytes the Highway loop of NOTE [ Gather streamed slices ]), on every Highway
// target of this CPU: slices of 64 (copy_stream's memcpy), 128, 300 (destination slices
// at every 4-byte offset in a line: ordinary stores at both ends), 1024 and 2100 bytes
// (more than the 2048 prefetched), from a table sized exactly (an over-read is an ASan
// error), at 1 and 2 threads.
TEST_P(GatherDiff, LargeOutputsStream) {
  std::mt19937_64 rng(testing::test_seed());
  std::vector<int64_t> targets = testing::hwy_targets();
  if (targets.empty()) targets.push_back(0);  // built without Highway: the one path
  const int saved = get_num_threads();
  for (int64_t inner : {int64_t{64}, int64_t{128}, int64_t{300}, int64_t{1024}, int64_t{2100}}) {
    SCOPED_TRACE("inner " + std::to_string(inner));
    Tensor data(DType::kUInt8, {1000, inner});
    testing::fill_random_bytes(data, rng);
    const Tensor idx = random_indices(DType::kInt64, {(int64_t{9} << 20) / inner}, 1000, rng);
    if (!takes(impl(), GatherDesc{}, data.view(), idx.view())) {
      GTEST_SKIP() << "'" << impl() << "' takes no slices of " << inner << " bytes";
    }
    Tensor want;
    ASSERT_TRUE(run_impl(GatherDesc{}, "ref", data.view(), idx.view(), &want).ok());
    for (size_t k = 0; k < targets.size(); ++k) {
      const int threads = 1 + static_cast<int>((k + static_cast<size_t>(inner)) % 2);
      expect_as_ref_on_target(impl(), targets[k], threads, data, idx, want);
    }
  }
  set_num_threads(saved);
}

// Streamed slices of 1 KiB and more from a table of 32 MiB and more are copied in source
// address order at one thread (NOTE [ Gather address order ]): each slice must still land
// at its own output place. Tables of 33,000 rows of 1,024 and 1,100 bytes (whole lines, and
// rows whose output slices start at every 4-byte offset of a line, so the ordinary
// stores at a slice's ends meet streamed lines of slices written earlier or later), 9 MiB
// of output, indices with duplicates and negatives, on every Highway target of this CPU at
// one thread and at two (index order), against ref.
TEST_P(GatherDiff, LargeTablesInAddressOrder) {
  std::mt19937_64 rng(testing::test_seed());
  std::vector<int64_t> targets = testing::hwy_targets();
  if (targets.empty()) targets.push_back(0);  // built without Highway: the one path
  const int saved = get_num_threads();
  for (int64_t inner : {int64_t{1024}, int64_t{1100}}) {
    SCOPED_TRACE("inner " + std::to_string(inner));
    const int64_t rows = 33000;  // rows * inner >= 32 MiB
    Tensor data(DType::kUInt8, {rows, inner});
    testing::fill_random_bytes(data, rng);
    const Tensor idx = random_indices(DType::kInt64, {(int64_t{9} << 20) / inner}, rows, rng);
    if (!takes(impl(), GatherDesc{}, data.view(), idx.view())) {
      GTEST_SKIP() << "'" << impl() << "' takes no slices of " << inner << " bytes";
    }
    Tensor want;
    ASSERT_TRUE(run_impl(GatherDesc{}, "ref", data.view(), idx.view(), &want).ok());
    for (int64_t target : targets) {
      for (int threads : {1, 2}) expect_as_ref_on_target(impl(), target, threads, data, idx, want);
    }
  }
  set_num_threads(saved);
}

// The benchmark workloads (W6a-W6c) must not silently fall back to the reference.
TEST(GatherDispatch, BenchmarkWorkloadsUseTheFastKernel) {
  struct W {
    int64_t axis;
    Dims data, idx;
  };
  for (const W& w : {W{0, {100000, 256}, {50000}}, W{1, {64, 4096, 64}, {2048}},
                     W{1, {1024, 1024}, {512}}}) {
    GatherDesc desc;
    desc.axis = w.axis;
    auto p = make_gather_plan(desc, DType::kFloat32, w.data, DType::kInt64, w.idx);
    ASSERT_TRUE(p.ok());
    EXPECT_STRNE(p->impl_name(), "ref") << dims_to_string(w.data);
  }
}

// Views no fast entry can take (non-contiguous) run the reference, with the same bits, and
// every hand-off is logged under GRIDOPS_VERBOSE=dispatch.
TEST(GatherDispatch, NonContiguousViewsFallBackVisibly) {
  std::mt19937_64 rng(testing::test_seed());
  Tensor data(DType::kFloat32, {5, 2});  // 8-byte slices: every available entry takes them
  testing::fill_random_bytes(data, rng);
  const Tensor idx = random_indices(DType::kInt64, {4}, 5, rng);
  Tensor storage;
  const TensorView strided = testing::scrambled_copy(data, storage, true);
  for (const auto& e : detail::gather_entries()) {
    const std::string fast = e.name;
    if (fast == "ref" || (e.unavailable != nullptr && !e.unavailable().empty())) continue;
    SCOPED_TRACE(fast);
    Tensor want, got;
    ASSERT_TRUE(run_impl(GatherDesc{}, "ref", data.view(), idx.view(), &want).ok());
    ASSERT_EQ(setenv("GRIDOPS_VERBOSE", "dispatch", 1), 0);
    ::testing::internal::CaptureStderr();
    const Status st = run_impl(GatherDesc{}, fast.c_str(), strided, idx.view(), &got);
    const std::string log = ::testing::internal::GetCapturedStderr();
    unsetenv("GRIDOPS_VERBOSE");
    ASSERT_TRUE(st.ok()) << st.to_string();
    EXPECT_TRUE(testing::bitwise_equal(got, want));
    EXPECT_NE(log.find("gather: '" + fast + "' declines these views at run time (data is not contiguous): running '"),
              std::string::npos)
        << log;
    EXPECT_NE(log.find("(data is not contiguous): running 'ref'"), std::string::npos) << log;
  }
}

#ifdef GRIDOPS_HAVE_HWY
// gather.vector needs data and dst aligned to the slice size; otherwise gather.slices (the
// next entry that takes the problem) runs, visibly, with the same bits.
TEST(GatherDispatch, MisalignedViewsGoToTheSliceCopies) {
  std::mt19937_64 rng(testing::test_seed());
  for (DType dt : {DType::kFloat32, DType::kInt64}) {
    SCOPED_TRACE(to_string(dt));
    const int64_t es = static_cast<int64_t>(dtype_size(dt));
    std::vector<unsigned char> bytes(static_cast<size_t>(64 * es + 1));
    for (auto& b : bytes) b = static_cast<unsigned char>(rng());
    const TensorView odd(dt, bytes.data() + 1, {64}, {1});  // one byte off alignment
    Tensor aligned(dt, {64});
    std::memcpy(aligned.data(), bytes.data() + 1, aligned.nbytes());
    const Tensor idx = random_indices(DType::kInt32, {100}, 64, rng);
    Tensor want, got;
    ASSERT_TRUE(run_impl(GatherDesc{}, "ref", aligned.view(), idx.view(), &want).ok());
    ASSERT_EQ(setenv("GRIDOPS_VERBOSE", "dispatch", 1), 0);
    ::testing::internal::CaptureStderr();
    const Status st = run_impl(GatherDesc{}, "gather.vector_any_cpu", odd, idx.view(), &got);
    const std::string log = ::testing::internal::GetCapturedStderr();
    unsetenv("GRIDOPS_VERBOSE");
    ASSERT_TRUE(st.ok()) << st.to_string();
    EXPECT_TRUE(testing::bitwise_equal(got, want));
    EXPECT_NE(log.find("gather: 'gather.vector_any_cpu' declines these views at run time (data is not "
                       "aligned to its " + std::to_string(es) + "-byte slices): running 'gather.slices'"),
              std::string::npos)
        << log;
  }
}
#endif

#ifdef GRIDOPS_HAVE_HWY
// 4- and 8-byte slices go to the vector gathers, except on AMD CPUs, where the slice
// copies are faster and gather.vector declines with that reason.
TEST(GatherDispatch, VectorGathersDependOnTheCpu) {
  const Dims ds = {64}, is = {8};
  for (DType dt : {DType::kFloat32, DType::kFloat64}) {
    auto plan = make_gather_plan(GatherDesc{}, dt, ds, DType::kInt64, is);
    ASSERT_TRUE(plan.ok());
    EXPECT_STREQ(plan->impl_name(),
                 kernels::gather_vector_slower_on_this_cpu() ? "gather.slices" : "gather.vector");
  }
  GatherDesc forced;
  forced.impl = "gather.vector";
  auto plan = make_gather_plan(forced, DType::kFloat32, ds, DType::kInt64, is);
  if (kernels::gather_vector_slower_on_this_cpu()) {
    ASSERT_FALSE(plan.ok());
    EXPECT_NE(plan.status().message().find("an AMD CPU"), std::string::npos) << plan.status().to_string();
    GatherDesc any_cpu = forced;
    any_cpu.impl = "gather.vector_any_cpu";
    EXPECT_TRUE(make_gather_plan(any_cpu, DType::kFloat32, ds, DType::kInt64, is).ok());
  } else {
    EXPECT_TRUE(plan.ok()) << plan.status().to_string();
  }
  // Slices of 0 bytes (an empty axis after the gathered one) are declined with their size.
  forced.impl = "gather.vector_any_cpu";
  const Dims zs = {3, 0}, zi = {2};
  auto empty = make_gather_plan(forced, DType::kFloat32, zs, DType::kInt64, zi);
  ASSERT_FALSE(empty.ok());
  EXPECT_NE(empty.status().message().find("slices of 0 bytes (vector gathers: 4 or 8)"),
            std::string::npos)
      << empty.status().to_string();
}
#endif

GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(GatherDiff);
INSTANTIATE_TEST_SUITE_P(FastImpls, GatherDiff,
                         ::testing::ValuesIn(testing::fast_entries(detail::gather_entries())),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string n = info.param;
                           for (char& c : n) {
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return n;
                         });

}  // namespace
}  // namespace gridops
