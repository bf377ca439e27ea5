// Differential tests: every fast AffineGrid implementation against the reference "ref".
//
// Bound: BIT-EXACT (any NaN matches any NaN: see same_bits_up_to_nan for why NaN sign and
// payload cannot be pinned down, not even for the reference). NOTE [ AffineGrid arithmetic ] fixes the order of operations (base
// coordinate as quotient then -1; each product rounded on its own; sum left to right; one
// final rounding to float16/bfloat16), and the fast kernel keeps that order with IEEE
// vector Mul/Add (which round exactly like the scalar operations), without FMA
// contraction (see NOTE [ AffineGrid fast path ]), so every output bit must match for
// every dtype, layout, Highway target and thread count.
//
// Covered: 2-D and 3-D; float16, bfloat16, float32, float64; both align_corners; batch
// and spatial sizes 0, 1, odd, even, and rows longer than one work segment (512 points);
// thetas with NaN, +-inf, +-0, huge and subnormal values; strided, negative-stride and
// broadcast (zero batch stride) thetas; contiguous, padded, negative-stride,
// component-major (non-contiguous rows) and aliasing (zero stride) grids; plan tables and
// the kernel's own tables; every Highway target the CPU supports; 1 vs 2 threads.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "core/convert.h"
#include "gridops/ops/affine_grid.h"
#include "gridops/parallel.h"
#include "kernels/affine_grid/affine_grid.h"
#include "ops/affine_grid_impls.h"
#include "support/entries.h"
#include "support/problem_string.h"
#include "support/test_util.h"

#ifdef GRIDOPS_HAVE_HWY
#include <hwy/targets.h>
#endif

namespace gridops {
namespace {

constexpr DType kDTypes[] = {DType::kFloat16, DType::kBFloat16, DType::kFloat32,
                             DType::kFloat64};

// The fast implementations: every entry of the operator's list but "ref", then "fast".
std::vector<std::string> fast_impls() { return testing::fast_entries(detail::affine_grid_entries()); }

// A buffer with a strided grid view into it; `bytes` starts as a fixed sentinel so that
// writes outside the view's elements show up as differences.
struct GridBuffer {
  std::vector<unsigned char> bytes;
  MutableTensorView view;
};

enum class GridLayout { kContiguous, kPadded, kNegative, kComponentMajor, kAliasing };

GridBuffer make_grid(DType dt, const Dims& shape, GridLayout layout, std::mt19937_64& rng) {
  const size_t es = dtype_size(dt);
  const int rank = static_cast<int>(shape.size());
  Dims alloc = shape;  // allocated extents, row-major in `order`
  std::vector<int> order(static_cast<size_t>(rank));
  for (int i = 0; i < rank; ++i) order[static_cast<size_t>(i)] = i;
  if (layout == GridLayout::kPadded || layout == GridLayout::kNegative) {
    for (auto& a : alloc) a += static_cast<int64_t>(rng() % 3);
  }
  if (layout == GridLayout::kComponentMajor) {
    // k outermost: rows are not contiguous.
    std::rotate(order.begin(), order.end() - 1, order.end());
  }
  Dims strides(static_cast<size_t>(rank));
  int64_t s = 1;
  for (int i = rank - 1; i >= 0; --i) {
    const int ax = order[static_cast<size_t>(i)];
    strides[static_cast<size_t>(ax)] = s;
    s *= std::max<int64_t>(alloc[static_cast<size_t>(ax)], 1);
  }
  int64_t count = s;
  int64_t offset = 0;
  if (layout == GridLayout::kNegative) {
    for (int i = 0; i < rank; ++i) {
      if (rng() % 2) {
        offset += (shape[static_cast<size_t>(i)] > 0 ? shape[static_cast<size_t>(i)] - 1 : 0) *
                  strides[static_cast<size_t>(i)];
        strides[static_cast<size_t>(i)] = -strides[static_cast<size_t>(i)];
      }
    }
  }
  if (layout == GridLayout::kAliasing) {
    // A zero stride on a random spatial axis.
    const int ax = 1 + static_cast<int>(rng() % static_cast<uint64_t>(rank - 2));
    strides[static_cast<size_t>(ax)] = 0;
  }
  GridBuffer g;
  g.bytes.resize(static_cast<size_t>(count) * es + 1);
  for (size_t i = 0; i < g.bytes.size(); ++i) g.bytes[i] = static_cast<unsigned char>(0xA5 ^ i);
  g.view = MutableTensorView(dt, g.bytes.data() + offset * static_cast<int64_t>(es), shape,
                             strides);
  return g;
}

// theta values: mostly moderate, sometimes special.
double theta_value(std::mt19937_64& rng, DType dt) {
  std::uniform_real_distribution<double> u(-3.0, 3.0);
  switch (rng() % 24) {
    case 0: return std::numeric_limits<double>::quiet_NaN();
    case 1: return std::numeric_limits<double>::infinity();
    case 2: return -std::numeric_limits<double>::infinity();
    case 3: return 0.0;
    case 4: return -0.0;
    case 5: return dt == DType::kFloat64 ? 1e300 : 3e38;
    case 6: return dt == DType::kFloat64 ? 1e-310 : 1e-40;  // subnormal in the compute type
    case 7: return std::ldexp(u(rng), 60);
    default: return u(rng);
  }
}

struct Problem {
  DType dt;
  int r;
  bool align;
  Dims theta_shape, size, grid_shape;
};

Problem random_problem(std::mt19937_64& rng, int64_t max_elements) {
  static constexpr int64_t kSizes[] = {1, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 33};
  Problem p;
  p.dt = kDTypes[rng() % 4];
  p.r = 2 + static_cast<int>(rng() % 2);
  p.align = rng() % 2;
  for (;;) {
    const int64_t n = rng() % 16 == 0 ? 0 : 1 + static_cast<int64_t>(rng() % 3);
    p.size = {n, 1 + static_cast<int64_t>(rng() % 3)};
    for (int a = 0; a < p.r; ++a) {
      int64_t len = kSizes[rng() % std::size(kSizes)];
      if (rng() % 40 == 0) len = 0;
      if (a == p.r - 1 && rng() % 8 == 0) len = 500 + static_cast<int64_t>(rng() % 700);
      p.size.push_back(len);
    }
    int64_t count = p.r;
    for (size_t i = 2; i < p.size.size(); ++i) count *= p.size[i];
    count *= n;
    if (count <= max_elements) break;
  }
  p.theta_shape = {p.size[0], p.r, p.r + 1};
  p.grid_shape = {p.size[0]};
  for (size_t i = 2; i < p.size.size(); ++i) p.grid_shape.push_back(p.size[i]);
  p.grid_shape.push_back(p.r);
  return p;
}

std::string describe(const Problem& p, GridLayout layout, int theta_kind) {
  return std::string(to_string(p.dt)) + " r=" + std::to_string(p.r) +
         " align=" + std::to_string(p.align) + " size=" + dims_to_string(p.size) +
         " grid_layout=" + std::to_string(static_cast<int>(layout)) +
         " theta_kind=" + std::to_string(theta_kind);
}

// Runs `impl` (through a plan) or, with impl "kernel-no-tables", the Highway kernel
// directly, outside a plan, with the tables its entry's prepare builds.
void run(const std::string& impl, const Problem& p, const TensorView& theta,
         const MutableTensorView& grid) {
#ifdef GRIDOPS_HAVE_HWY
  if (impl == "kernel-no-tables") {
    kernels::AffineGridProblem kp;
    kp.dtype = p.dt;
    kp.spatial_rank = p.r;
    kp.align_corners = p.align;
    kp.batch = p.size[0];
    for (int a = 0; a < p.r; ++a) kp.spatial[a] = p.size[static_cast<size_t>(2 + a)];
    // As the plan does: a grid whose elements may alias goes to the reference.
    const kernels::AffineGridViews views{theta, grid};
    if (!kernels::affine_grid_hwy_declines_views(kp, nullptr, views).empty()) {
      kernels::affine_grid_ref(kp, theta, grid);
    } else {
      const std::shared_ptr<const void> tables = kernels::affine_grid_make_tables(kp);
      kernels::affine_grid_hwy(kp, tables.get(), views);
    }
    return;
  }
#endif
  AffineGridDesc desc;
  desc.align_corners = p.align ? 1 : 0;
  desc.impl = impl;
  StatusOr<AffineGridPlan> plan = make_affine_grid_plan(desc, p.dt, p.theta_shape, p.size);
  ASSERT_TRUE(plan.ok()) << plan.status().to_string();
  if (testing::find_entry(detail::affine_grid_entries(), impl) != nullptr) {
    ASSERT_STREQ(plan->impl_name(), impl.c_str());
  }
  const Status st = plan->run(theta, grid);
  ASSERT_TRUE(st.ok()) << st.to_string();
}

// True when `x` (one element of type dt) is a NaN.
bool is_nan_bits(DType dt, const unsigned char* x) {
  switch (dt) {
    case DType::kFloat16: {
      uint16_t b;
      std::memcpy(&b, x, 2);
      return (b & 0x7FFF) > 0x7C00;
    }
    case DType::kBFloat16: {
      uint16_t b;
      std::memcpy(&b, x, 2);
      return (b & 0x7FFF) > 0x7F80;
    }
    case DType::kFloat32: {
      float f;
      std::memcpy(&f, x, 4);
      return std::isnan(f);
    }
    default: {
      double f;
      std::memcpy(&f, x, 8);
      return std::isnan(f);
    }
  }
}

// Buffers equal element by element (units of the element size from the buffer start,
// where every view element lies): bit for bit, except that any NaN equals any NaN. The
// sign and payload of a NaN result are not fixed by IEEE 754: when two NaNs meet in an
// addition (say NaN from theta plus the default -NaN of -inf * 0), x86 returns the first
// operand, and compilers order the operands of a commutative + freely (the reference's
// own NaN bits change between -O3 and -O2 -fsanitize builds).
bool same_bits_up_to_nan(DType dt, const std::vector<unsigned char>& a,
                         const std::vector<unsigned char>& b, int64_t* where) {
  if (a.size() != b.size()) return false;
  const size_t es = dtype_size(dt);
  for (size_t i = 0; i < a.size(); i += es) {
    const size_t len = std::min(es, a.size() - i);
    if (std::memcmp(&a[i], &b[i], len) == 0) continue;
    if (len == es && is_nan_bits(dt, &a[i]) && is_nan_bits(dt, &b[i])) continue;
    *where = static_cast<int64_t>(i);
    return false;
  }
  return true;
}

/// One AffineGrid problem as a fluent tester: `test(entry)` runs the entry and ref on the
/// same theta and grid layout (drawn from `seed`) and compares whole buffers byte for
/// byte. Its canonical line (tests/support/problem_string.h) is printed by a failing check
/// and rerun alone by AffineGridDiff.Rerun.
class AffineGridTester {
 public:
  AffineGridTester() = default;
  explicit AffineGridTester(Problem p) : p_(std::move(p)) {}
  /// 0 contiguous, 1 scrambled, 2 scrambled negative, 3 broadcast (batch stride 0).
  AffineGridTester& theta_kind(int k) { theta_kind_ = k; return *this; }
  AffineGridTester& layout(GridLayout l) { layout_ = l; return *this; }
  AffineGridTester& threads(int n) { threads_ = n; return *this; }
  AffineGridTester& target(int64_t t) { target_ = t; return *this; }
  AffineGridTester& seed(uint64_t s) { seed_ = s; return *this; }

  testing::ProblemString line(const std::string& impl) const {
    testing::ProblemString s("affine_grid");
    s.add("impl", impl)
        .add("dtype", p_.dt)
        .add("align_corners", p_.align)
        .add("size", p_.size)
        .add("theta_kind", theta_kind_)
        .add("grid_layout", static_cast<int>(layout_))
        .add("threads", threads_)
        .add("target", testing::hwy_target_label(target_))
        .add("seed", seed_);
    return s;
  }

  static AffineGridTester from(const testing::ProblemString& s, std::string* impl) {
    Problem p;
    *impl = s.get("impl");
    p.dt = s.get_dtype("dtype");
    p.align = s.get_int("align_corners") != 0;
    p.size = s.get_dims("size");
    p.r = static_cast<int>(p.size.size()) - 2;
    p.theta_shape = {p.size.empty() ? 0 : p.size[0], p.r, p.r + 1};
    p.grid_shape = {p.size.empty() ? 0 : p.size[0]};
    for (size_t i = 2; i < p.size.size(); ++i) p.grid_shape.push_back(p.size[i]);
    p.grid_shape.push_back(p.r);
    AffineGridTester t(p);
    t.theta_kind(static_cast<int>(s.get_int("theta_kind")))
        .layout(static_cast<GridLayout>(s.get_int("grid_layout")))
        .threads(static_cast<int>(s.get_int("threads")))
        .target(testing::hwy_target_from_label(s.get("target")))
        .seed(s.get_uint("seed"));
    return t;
  }

  void test(const std::string& impl) const {
    SCOPED_TRACE(testing::rerun_hint(line(impl)));
    std::optional<testing::ScopedHwyTarget> on;
    if (target_ != 0) on.emplace(target_);
    if (threads_ > 0) set_num_threads(threads_);
    std::mt19937_64 rng(seed_);
    Tensor theta(p_.dt, p_.theta_shape);
    Tensor theta_one(p_.dt, {1, p_.r, p_.r + 1});
    visit_dtype(p_.dt, [&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (std::is_floating_point_v<T> || std::is_same_v<T, float16> ||
                    std::is_same_v<T, bfloat16>) {
        for (int64_t i = 0; i < theta.num_elements(); ++i) {
          theta.data_as<T>()[i] = convert::store_real<T>(theta_value(rng, p_.dt));
        }
        for (int64_t i = 0; i < theta_one.num_elements(); ++i) {
          theta_one.data_as<T>()[i] = convert::store_real<T>(theta_value(rng, p_.dt));
        }
      }
    });
    Tensor storage;
    TensorView tv = theta.view();
    if (theta_kind_ == 1 || theta_kind_ == 2) {
      tv = testing::scrambled_copy(theta, storage, theta_kind_ == 2);
    } else if (theta_kind_ == 3) {
      tv = TensorView(p_.dt, theta_one.data(), p_.theta_shape, Dims{0, p_.r + 1, 1});
    }
    const uint64_t grid_seed = rng();
    std::mt19937_64 g1(grid_seed);
    GridBuffer want = make_grid(p_.dt, p_.grid_shape, layout_, g1);
    run("ref", p_, tv, want.view);
    std::mt19937_64 g2(grid_seed);
    GridBuffer got = make_grid(p_.dt, p_.grid_shape, layout_, g2);
    run(impl, p_, tv, got.view);
    if (threads_ > 0) set_num_threads(0);
    int64_t where = -1;
    EXPECT_TRUE(same_bits_up_to_nan(p_.dt, got.bytes, want.bytes, &where))
        << "first differing element at byte " << where << " of " << got.bytes.size();
  }

 private:
  Problem p_{DType::kFloat32, 2, false, {1, 2, 3}, {1, 1, 3, 4}, {1, 3, 4, 2}};
  int theta_kind_ = 0;
  GridLayout layout_ = GridLayout::kContiguous;
  int threads_ = 0;
  int64_t target_ = 0;
  uint64_t seed_ = 1;
};

// One random problem: every fast implementation against "ref" (whole buffers compared
// byte for byte), at `threads` threads (0: the default) on Highway target `target` (0: the
// best).
void check_one(std::mt19937_64& rng, int64_t max_elements, int index, int threads,
               int64_t target = 0) {
  AffineGridTester t(random_problem(rng, max_elements));
  t.theta_kind(static_cast<int>(rng() % 4))
      .layout(static_cast<GridLayout>(rng() % 5))
      .threads(threads)
      .target(target)
      .seed(rng());
  std::vector<std::string> impls = fast_impls();
#ifdef GRIDOPS_HAVE_HWY
  if (index % 4 == 0) impls.push_back("kernel-no-tables");
#endif
  for (const std::string& impl : impls) {
    t.test(impl);
    if (::testing::Test::HasFailure()) return;
  }
}

// The problem of GRIDOPS_RERUN (the line a failing check prints), alone. Without it: a
// fixed line, which must read back to the same line and run.
TEST(AffineGridDiff, Rerun) {
  const auto r = testing::rerun_problem<AffineGridTester>(
      "affine_grid",
      "affine_grid impl=ref dtype=float16 align_corners=0 size=2x1x5x600 theta_kind=3 "
      "grid_layout=2 threads=2 target=best seed=8");
  ASSERT_TRUE(r.has_value());
  if (r->from_env) return r->tester.test(r->impl);
  for (const std::string& e : fast_impls()) r->tester.test(e);  // the fixed line: every entry
}

#ifdef GRIDOPS_HAVE_HWY
// Restores the CPU's own Highway targets when a test ends.
struct TargetReset {
  ~TargetReset() { hwy::SetSupportedTargetsForTest(0); }
};
#endif

TEST(AffineGridDiff, RandomProblemsMatchReferenceBitwise) {
  const uint64_t seed = testing::test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed) + " (GRIDOPS_SEED)");
  std::mt19937_64 rng(seed);
  for (int i = 0; i < 2000; ++i) {
    check_one(rng, 40000, i, 2);
    if (::testing::Test::HasFailure()) return;
  }
}

#ifdef GRIDOPS_HAVE_HWY
// Every Highway target this CPU runs (AVX-512, AVX2, SSE4, ... as compiled): FMA
// contraction, lane patterns and tails differ per target.
TEST(AffineGridDiff, EveryHighwayTarget) {
  const uint64_t seed = testing::test_seed() + 1;
  SCOPED_TRACE("seed " + std::to_string(seed) + " (GRIDOPS_SEED + 1)");
  TargetReset reset;
  for (int64_t target : testing::hwy_targets()) {
    std::mt19937_64 rng(seed);
    for (int i = 0; i < 250; ++i) {
      check_one(rng, 20000, i, 0, target);
      if (::testing::Test::HasFatalFailure()) return;
    }
  }
}
#endif

// 1 thread and 2 threads give identical bits, on problems big enough to be split (also
// rows longer than one segment, and a single long row split by segments).
TEST(AffineGridDiff, OneAndTwoThreadsBitIdentical) {
  const uint64_t seed = testing::test_seed() + 2;
  SCOPED_TRACE("seed " + std::to_string(seed) + " (GRIDOPS_SEED + 2)");
  std::mt19937_64 rng(seed);
  const Dims sizes2[] = {{2, 1, 67, 701}, {1, 3, 1, 70001}, {3, 1, 129, 128}};
  const Dims sizes3[] = {{1, 1, 9, 33, 130}, {2, 2, 5, 7, 1100}};
  for (const std::string& impl : fast_impls()) {
    for (DType dt : kDTypes) {
      for (int r : {2, 3}) {
        for (const Dims& size : (r == 2 ? std::vector<Dims>(std::begin(sizes2), std::end(sizes2))
                                        : std::vector<Dims>(std::begin(sizes3), std::end(sizes3)))) {
          Problem p;
          p.dt = dt;
          p.r = r;
          p.align = rng() % 2;
          p.size = size;
          p.theta_shape = {size[0], r, r + 1};
          p.grid_shape = {size[0]};
          for (size_t i = 2; i < size.size(); ++i) p.grid_shape.push_back(size[i]);
          p.grid_shape.push_back(r);
          SCOPED_TRACE(impl + " " + describe(p, GridLayout::kContiguous, 0));
          Tensor theta(dt, p.theta_shape);
          testing::fill_random(theta, rng, -2.0, 2.0);
          Tensor one(dt, p.grid_shape), two(dt, p.grid_shape);
          set_num_threads(1);
          run(impl, p, theta.view(), one.mutable_view());
          set_num_threads(2);
          run(impl, p, theta.view(), two.mutable_view());
          set_num_threads(0);
          int64_t where = -1;
          EXPECT_TRUE(testing::bitwise_equal(one, two, &where)) << "at " << where;
        }
      }
    }
  }
}

// Grids of 4 MiB and more are written with streaming stores (where a segment is aligned):
// rows of aligned and odd lengths, float32 and float64, 2-D and 3-D, 1 and 2 threads.
TEST(AffineGridDiff, LargeGridsMatchReference) {
  const uint64_t seed = testing::test_seed() + 3;
  SCOPED_TRACE("seed " + std::to_string(seed) + " (GRIDOPS_SEED + 3)");
  std::mt19937_64 rng(seed);
  struct Case {
    DType dt;
    Dims size;
  };
  const Case cases[] = {{DType::kFloat32, {1, 1, 1024, 1024}},
                        {DType::kFloat32, {1, 1, 17, 33, 1111}},
                        {DType::kFloat64, {1, 1, 701, 513}},
                        {DType::kFloat64, {1, 1, 16, 128, 176}}};
  for (const std::string& impl : fast_impls()) {
    for (const Case& c : cases) {
      for (int threads : {1, 2}) {
        Problem p;
        p.dt = c.dt;
        p.r = static_cast<int>(c.size.size()) - 2;
        p.align = rng() % 2;
        p.size = c.size;
        p.theta_shape = {c.size[0], p.r, p.r + 1};
        p.grid_shape = {c.size[0]};
        for (size_t i = 2; i < c.size.size(); ++i) p.grid_shape.push_back(c.size[i]);
        p.grid_shape.push_back(p.r);
        SCOPED_TRACE(impl + " threads " + std::to_string(threads) + " " +
                     describe(p, GridLayout::kContiguous, 0));
        Tensor theta(p.dt, p.theta_shape);
        testing::fill_random(theta, rng, -2.0, 2.0);
        Tensor want(p.dt, p.grid_shape), got(p.dt, p.grid_shape);
        run("ref", p, theta.view(), want.mutable_view());
        set_num_threads(threads);
        run(impl, p, theta.view(), got.mutable_view());
        set_num_threads(0);
        int64_t where = -1;
        EXPECT_TRUE(testing::bitwise_equal(want, got, &where)) << "at " << where;
      }
    }
  }
}

// The benchmark workloads (W4a, W4b in ../shared/bench/WORKLOADS.md) run on the fast
// path, in every dtype: a silent decline would otherwise go unnoticed.
TEST(AffineGridDiff, BenchmarkWorkloadsUseFastPath) {
#ifdef GRIDOPS_HAVE_HWY
  for (DType dt : kDTypes) {
    for (int64_t align : {0, 1}) {
      AffineGridDesc desc;
      desc.align_corners = align;
      StatusOr<AffineGridPlan> w4a =
          make_affine_grid_plan(desc, dt, Dims{8, 2, 3}, Dims{8, 3, 512, 512});
      ASSERT_TRUE(w4a.ok());
      EXPECT_STREQ(w4a->impl_name(), fast_impls().at(0).c_str());
      StatusOr<AffineGridPlan> w4b =
          make_affine_grid_plan(desc, dt, Dims{2, 3, 4}, Dims{2, 1, 64, 128, 128});
      ASSERT_TRUE(w4b.ok());
      EXPECT_STREQ(w4b->impl_name(), fast_impls().at(0).c_str());
    }
  }
#else
  GTEST_SKIP() << "built without Highway: only the reference exists";
#endif
}

// A grid view whose elements alias each other (a zero stride) runs the reference, which
// defines aliasing writes; the hand-off is logged under GRIDOPS_VERBOSE=dispatch.
TEST(AffineGridDiff, AliasingGridFallsBackVisibly) {
  for (const std::string& impl : fast_impls()) {
    AffineGridDesc desc;
    desc.impl = impl;
    StatusOr<AffineGridPlan> plan = make_affine_grid_plan(desc, DType::kFloat32, Dims{1, 2, 3},
                                                          Dims{1, 1, 4, 5});
    ASSERT_TRUE(plan.ok()) << plan.status().to_string();
    Tensor theta(DType::kFloat32, {1, 2, 3});
    for (int64_t i = 0; i < 6; ++i) static_cast<float*>(theta.data())[i] = 0.25f * (i + 1);
    std::vector<float> a(5 * 2, -1.0f), b(5 * 2, -1.0f);
    const Dims shape{1, 4, 5, 2};
    const Dims strides{0, 0, 2, 1};  // H stride 0: every row lands on the same elements
    desc.impl = "ref";
    StatusOr<AffineGridPlan> ref = make_affine_grid_plan(desc, DType::kFloat32, Dims{1, 2, 3},
                                                         Dims{1, 1, 4, 5});
    ASSERT_TRUE(ref.ok());
    ASSERT_TRUE(ref->run(theta.view(), MutableTensorView(DType::kFloat32, a.data(), shape, strides)).ok());
    ASSERT_EQ(setenv("GRIDOPS_VERBOSE", "dispatch", 1), 0);
    ::testing::internal::CaptureStderr();
    const Status st = plan->run(theta.view(), MutableTensorView(DType::kFloat32, b.data(), shape, strides));
    const std::string log = ::testing::internal::GetCapturedStderr();
    unsetenv("GRIDOPS_VERBOSE");
    ASSERT_TRUE(st.ok()) << st.to_string();
    EXPECT_EQ(0, std::memcmp(a.data(), b.data(), a.size() * sizeof(float)));
    EXPECT_NE(log.find("affine_grid: '" + std::string(plan->impl_name()) +
                       "' declines these views at run time (grid "
                       "elements may alias each other"),
              std::string::npos)
        << log;
  }
}

}  // namespace
}  // namespace gridops
