// Differential test: every fast Resize implementation (detail::resize_entries()) against the reference
// ("ref") over random problems: ranks 1-4, random axes subsets and orders, every mode,
// coordinate transformation, nearest mode (with Resize-10's rule), antialias,
// exclude_outside, cubic coefficients, scales or sizes with every aspect policy,
// tf_crop_and_resize with random roi and extrapolation, strided (reversed and negative)
// src and dst views, and many element types.
//
// Bounds (docs/ops/resize.md, "Fast paths"):
// - nearest, and problems whose every axis is the identity: bit-exact (a gather);
// - extrapolated points: bit-exact (written last with the converted value);
// - linear/cubic: the fast path makes one pass per resized axis in F (float, or double for
//   float64 and 32/64-bit integers), rounding each weight once and each multiply-add once,
//   with at most T taps per output on an axis (T <= in + 1 after edge folding). With m
//   resized axes, per-axis absolute weight sums below 2 (Keys' kernel with A in [-0.75,
//   -0.5], renormalized or not) and M = max |src|, the reference (double, exact to ~2^-53)
//   and the fast path differ by at most (T + 2) m u 2^m M with u the unit roundoff of F;
//   the test allows 4 times that, plus one ulp of the output type at |ref| (both round once
//   to it from different values) for float16 / bfloat16, and 1 for integer outputs
//   (truncation of two values that straddle an integer).
#include <cctype>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "core/convert.h"
#include "gridops/ops/resize.h"
#include "gridops/status.h"
#include "gridops/parallel.h"
#include "kernels/resize/resize_fast.h"
#include "ops/resize_impls.h"
#include "support/entries.h"
#include "support/problem_string.h"
#include "support/test_util.h"
#include "kernels/resize_random_case.h"

namespace gridops {
namespace {

/// The tests below run once per fast entry and family alias (the parameter). An entry
/// runs the problems it takes (each path declines at plan time what it does not cover); a
/// family takes every problem its entries cover together.
class ResizeDiff : public ::testing::TestWithParam<std::string> {
 protected:
  const char* impl() const { return GetParam().c_str(); }
  bool family() const {
    for (const detail::ResizeEntry& e : detail::resize_entries()) {
      if (GetParam() == e.name) return false;
    }
    return true;
  }
};


double ulp_of(DType dt, double v) {
  const double a = std::fabs(v);
  if (dt == DType::kFloat16) return std::max(a * 0x1p-10, 0x1p-24);
  if (dt == DType::kBFloat16) return std::max(a * 0x1p-7, 0x1p-133);
  return 0.0;
}

bool uses_double(DType dt) {
  return dt == DType::kFloat64 || dt == DType::kInt32 || dt == DType::kInt64 || dt == DType::kUInt32 ||
         dt == DType::kUInt64;
}

/// Runs impl on c with the view kind of c; returns the dense result.
StatusOr<Tensor> run(const Case& c, const Tensor& x, const std::string& impl) {
  ResizeDesc d = c.desc;
  d.impl = impl;
  GRIDOPS_ASSIGN_OR_RETURN(const ResizePlan plan, make_resize_plan(d, c.dtype, c.shape));
  Tensor out(c.dtype, plan.dst_shape());
  if (c.view == 0) {
    GRIDOPS_RETURN_IF_ERROR(plan.run(x, out.mutable_view()));
    return out;
  }
  Tensor sstore, dstore;
  const TensorView sv = testing::scrambled_copy(x, sstore, c.view == 2);
  const TensorView dv0 = testing::scrambled_copy(out, dstore, c.view == 2);
  const MutableTensorView dv(dv0.dtype, const_cast<void*>(dv0.data), dv0.shape, dv0.strides);
  GRIDOPS_RETURN_IF_ERROR(plan.run(sv, dv));
  // Back to dense.
  Tensor dense(c.dtype, plan.dst_shape());
  const size_t es = dtype_size(c.dtype);
  for (int64_t f = 0; f < dense.num_elements(); ++f) {
    const Dims ix = testing::unravel(f, dense.shape());
    const void* p = dv.element_ptr(ix);
    if (c.dtype == DType::kString) dense.data_as<std::string>()[f] = *static_cast<const std::string*>(p);
    else std::memcpy(static_cast<char*>(dense.data()) + f * static_cast<int64_t>(es), p, es);
  }
  return dense;
}

/// Whether `impl` takes the problem of c: an entry declines at plan time what it does not
/// cover (make_resize_plan then fails with kUnimplemented); any other error fails the test.
bool takes(const Case& c, const std::string& impl) {
  ResizeDesc d = c.desc;
  d.impl = impl;
  auto plan = make_resize_plan(d, c.dtype, c.shape);
  if (!plan.ok()) {
    EXPECT_EQ(plan.status().code(), StatusCode::kUnimplemented) << plan.status().to_string();
  }
  return plan.ok();
}

struct Counts {
  int drawn = 0;   ///< valid random problems
  int taken = 0;   ///< of them, those `impl` takes (and ran against ref)
  int interp = 0;  ///< of those, linear/cubic
};

/// One Resize problem as a fluent tester: `test(entry)` checks the entry against ref
/// (nearest bit-exact, linear/cubic within the bound above) on data drawn from `seed`. Its
/// canonical line (tests/support/problem_string.h) is printed by a failing check and rerun
/// alone by ResizeDiff.Rerun.
class ResizeTester {
 public:
  ResizeTester() { c_.shape = {4, 5}; }
  explicit ResizeTester(Case c) : c_(std::move(c)) {}
  ResizeTester& desc(ResizeDesc d) { c_.desc = std::move(d); return *this; }
  ResizeTester& src(DType t, Dims shape) {
    c_.dtype = t;
    c_.shape = std::move(shape);
    return *this;
  }
  /// 0 dense, 1 reversed axes, 2 reversed with negative strides.
  ResizeTester& view(int v) { c_.view = v; return *this; }
  ResizeTester& seed(uint64_t s) { seed_ = s; return *this; }

  testing::ProblemString line(const std::string& impl) const {
    testing::ProblemString s("resize");
    s.add("impl", impl);
    add_case(s, c_);
    s.add("seed", seed_);
    return s;
  }

  static ResizeTester from(const testing::ProblemString& s, std::string* impl) {
    *impl = s.get("impl");
    ResizeTester t(case_from(s));
    t.seed(s.get_uint("seed"));
    return t;
  }

  /// Checks `impl` against ref; false (nothing checked) when it declines the problem at
  /// plan time. *interp: whether the problem is linear/cubic.
  bool test(const std::string& impl, bool* interp = nullptr) const {
    SCOPED_TRACE(testing::rerun_hint(line(impl)));
    const Case& c = c_;
    if (interp != nullptr) *interp = c.desc.mode != ResizeMode::kNearest;
    if (!takes(c, impl)) return false;
    std::mt19937_64 rng(seed_);
    Tensor x(c.dtype, c.shape);
    testing::fill_random(x, rng, -100, 100);
    auto ref = run(c, x, "ref");
    auto fast = run(c, x, impl);
    EXPECT_TRUE(ref.ok()) << ref.status().to_string();
    EXPECT_TRUE(fast.ok()) << fast.status().to_string();
    if (!ref.ok() || !fast.ok()) return true;
    if (c.desc.mode == ResizeMode::kNearest) {
      int64_t where = -1;
      EXPECT_TRUE(testing::bitwise_equal(*fast, *ref, &where)) << "differs at " << where;
      return true;
    }
    double max_src = 0;
    for (int64_t i = 0; i < x.num_elements(); ++i) max_src = std::max(max_src, std::fabs(testing::element_as_double(x, i)));
    // m and T bounded over every axis (resized or not).
    const int m = static_cast<int>(c.shape.size());
    int64_t tmax = 0;
    for (int64_t len : c.shape) tmax = std::max(tmax, len + 1);
    const double u = uses_double(c.dtype) ? 0x1p-53 : 0x1p-24;
    const double bound = 4.0 * static_cast<double>(tmax + 2) * m * u * std::ldexp(1.0, m) * max_src;
    const bool integer = is_integer(c.dtype);
    for (int64_t i = 0; i < ref->num_elements(); ++i) {
      const double r = testing::element_as_double(*ref, i), f = testing::element_as_double(*fast, i);
      const double tol = integer ? 1.0 : bound + ulp_of(c.dtype, r);
      if (!(std::fabs(r - f) <= tol)) {
        ADD_FAILURE() << "element " << i << ": ref " << r << " fast " << f << " (bound " << tol << ")";
        return true;
      }
    }
    return true;
  }

 private:
  Case c_;
  uint64_t seed_ = 1;
};

/// Draws `count` random problems (output size <= max_out), runs those `impl` takes on ref
/// and on impl and checks the bounds above. taken = -1 after a failure.
Counts check_random_problems(const char* impl, std::mt19937_64& rng, int count, bool long_rows,
                             int64_t max_out) {
  Counts n;
  int tries = 0;
  while (n.drawn < count && tries < 20 * count) {
    ++tries;
    const Case c = random_case(rng, long_rows);
    auto out_shape = resize_output_shape(c.desc, c.shape);
    if (!out_shape.ok() || testing::product(*out_shape) == 0 || testing::product(*out_shape) > max_out) continue;
    ++n.drawn;
    ResizeTester t(c);
    t.seed(rng());
    bool interp = false;
    if (!t.test(impl, &interp)) continue;
    if (::testing::Test::HasFailure()) return {n.drawn, -1, n.interp};
    ++n.taken;
    if (interp) ++n.interp;
  }
  EXPECT_GE(n.drawn, count) << "only " << n.drawn << " valid problems in " << tries << " tries";
  std::printf("[ %s ] took %d of %d problems (%d linear/cubic)\n", impl, n.taken, n.drawn, n.interp);
  return n;
}

// The problem of GRIDOPS_RERUN (the line a failing check prints), alone, when it names
// this entry. Without it: a fixed line, which must read back to the same line and run.
TEST_P(ResizeDiff, Rerun) {
  const auto r = testing::rerun_problem<ResizeTester>(
      "resize", "resize impl=" + GetParam() +
                    " mode=cubic coordinate_mode=half_pixel nearest_mode=round_prefer_floor"
                    " cubic_coeff_a=-0.75 exclude_outside=0 antialias=1 aspect_policy=stretch"
                    " extrapolation_value=0 axes=3x2 scales=0.5,1.75 sizes=- roi=- src=float32"
                    " src_shape=1x2x9x11 view=1 seed=21");
  ASSERT_TRUE(r.has_value());
  if (r->impl != GetParam()) GTEST_SKIP() << "GRIDOPS_RERUN names entry " << r->impl;
  // An entry may decline the fixed problem (each path takes its own); the family takes it.
  if (!r->tester.test(r->impl)) {
    EXPECT_FALSE(r->from_env || family()) << r->impl << " declines this problem";
  }
}

TEST_P(ResizeDiff, SeparableMatchesReferenceOnRandomProblems) {
  const uint64_t seed = testing::test_seed();
  SCOPED_TRACE("GRIDOPS_SEED=" + std::to_string(seed));
  std::mt19937_64 rng(seed);
  const Counts n = check_random_problems(impl(), rng, 2000, false, 600);
  // An entry takes its share (resize.fused_rows few of these small problems: its own
  // problems are FusedRowsMatchTheReference's); the family takes them all.
  if (family()) {
    EXPECT_EQ(n.taken, n.drawn);  // the fast entries together cover all but complex linear/cubic
    EXPECT_GE(n.interp, 1000);
  }
}

TEST_P(ResizeDiff, LongRowsUseTheRowKernels) {
  // Innermost lengths 16..24: the float32 multiply-add row kernel and the gather row kernel
  // on full vectors, not only their tails.
  const uint64_t seed = testing::test_seed();
  SCOPED_TRACE("GRIDOPS_SEED=" + std::to_string(seed));
  std::mt19937_64 rng(seed + 7);
  const Counts n = check_random_problems(impl(), rng, 60, true, 4000);
  if (family()) {
    EXPECT_GE(n.interp, 20);
  }
}

TEST_P(ResizeDiff, SlabsLargerThanAGroupRunOneAfterAnother) {
  // Each (N, C) plane of 130 x 130 -> 260 x 260 is more than one group of output elements
  // (2^16), so the separable path runs the planes one after another through reused buffers.
  std::mt19937_64 rng(testing::test_seed() + 3);
  struct Setup {
    DType dt;
    Dims shape;
    Dims axes;
    ResizeMode mode;
  };
  const Setup setups[] = {{DType::kFloat32, {2, 3, 130, 130}, {2, 3}, ResizeMode::kLinear},
                          {DType::kUInt8, {2, 2, 130, 130}, {2, 3}, ResizeMode::kCubic},
                          {DType::kFloat32, {3, 130, 130, 2}, {1, 2}, ResizeMode::kCubic}};
  int taken = 0;
  for (const Setup& su : setups) {
    Tensor x(su.dt, su.shape);
    testing::fill_random(x, rng, -100, 100);
    Case c;
    c.dtype = su.dt;
    c.shape = su.shape;
    c.desc.mode = su.mode;
    c.desc.axes = su.axes;
    c.desc.scales = {2.0, 2.0};
    if (!takes(c, impl())) continue;
    ++taken;
    auto ref = run(c, x, "ref");
    auto fast = run(c, x, impl());
    ASSERT_TRUE(ref.ok() && fast.ok());
    // Whole groups per thread (6 groups >= 2 per thread) or passes split across threads:
    // the same bits.
    const int saved = get_num_threads();
    for (int threads : {1, 2, 3}) {
      set_num_threads(threads);
      auto again = run(c, x, impl());
      ASSERT_TRUE(again.ok());
      EXPECT_TRUE(testing::bitwise_equal(*again, *fast)) << threads << " threads";
    }
    set_num_threads(saved);
    double max_src = 0;
    for (int64_t i = 0; i < x.num_elements(); ++i) max_src = std::max(max_src, std::fabs(testing::element_as_double(x, i)));
    const double bound = 4.0 * (4 + 2) * 2 * 0x1p-24 * 4.0 * max_src;  // T = 4 taps, m = 2 axes
    for (int64_t i = 0; i < ref->num_elements(); ++i) {
      const double r = testing::element_as_double(*ref, i), f = testing::element_as_double(*fast, i);
      ASSERT_LE(std::fabs(r - f), is_integer(su.dt) ? 1.0 : bound)
          << to_string(su.dt) << " " << dims_to_string(su.shape) << " element " << i;
    }
  }
  if (family()) {
    EXPECT_EQ(taken, 3);
  }
  if (taken == 0) GTEST_SKIP() << impl() << " takes none of these (linear/cubic) problems";
}

TEST_P(ResizeDiff, ThreadCountDoesNotChangeBits) {
  std::mt19937_64 rng(testing::test_seed() + 1);
  Tensor x(DType::kFloat32, {2, 3, 33, 47});
  testing::fill_random(x, rng, -1, 1);
  int taken = 0;
  for (ResizeMode mode : {ResizeMode::kNearest, ResizeMode::kLinear, ResizeMode::kCubic}) {
    ResizeDesc d;
    d.mode = mode;
    d.axes = {2, 3};
    d.scales = {1.9, 0.45};
    d.antialias = mode != ResizeMode::kNearest;
    d.impl = impl();
    Case c;
    c.desc = d;
    c.shape = x.shape();
    if (!takes(c, impl())) continue;
    ++taken;
    const int saved = get_num_threads();
    set_num_threads(1);
    auto one = resize(d, x);
    set_num_threads(3);
    auto three = resize(d, x);
    set_num_threads(saved);
    ASSERT_TRUE(one.ok() && three.ok());
    EXPECT_TRUE(testing::bitwise_equal(*one, *three)) << to_string(mode);
    // A plan run again (reusing its scratch from the first run) gives the same bits.
    auto plan = make_resize_plan(d, x.dtype(), x.shape());
    ASSERT_TRUE(plan.ok());
    Tensor a(x.dtype(), plan->dst_shape()), b(x.dtype(), plan->dst_shape());
    ASSERT_TRUE(plan->run(x, a.mutable_view()).ok());
    Tensor x2(x.dtype(), x.shape());
    testing::fill_random(x2, rng, -1, 1);
    ASSERT_TRUE(plan->run(x2, b.mutable_view()).ok());  // different data in between
    ASSERT_TRUE(plan->run(x, b.mutable_view()).ok());
    EXPECT_TRUE(testing::bitwise_equal(a, b)) << to_string(mode);
    EXPECT_TRUE(testing::bitwise_equal(a, *one)) << to_string(mode);
  }
  if (family()) {
    EXPECT_EQ(taken, 3);
  }
  if (taken == 0) GTEST_SKIP() << impl() << " takes none of these (NCHW-like) problems";
}

TEST_P(ResizeDiff, FusedRowsMatchTheReference) {
  // float32 and uint8 problems on 2 or 3 consecutive axes followed by C >= 2 elements
  // (channels-last) run in the fused-rows kernel: C below the vector length through blocks
  // of lane permutations and, where a minority of blocks span more (downsampling near 0.5
  // on 4- and 8-lane targets), of gathers, with row tails, C at or above
  // it by whole positions (C = 37: vectors and a scalar rest), memoized rows across thread
  // chunks, extrapolation. Against the reference with the bound above, and the same bits
  // for 1, 2 and 3 threads, on every Highway target.
  std::mt19937_64 rng(testing::test_seed() + 11);
  struct Setup {
    Dims shape, axes;
    std::vector<double> scales;
    ResizeMode mode;
    ResizeCoordinateMode coords;
    bool antialias, exclude_outside;
    DType dtype = DType::kFloat32;
  };
  using CM = ResizeCoordinateMode;
  const Setup setups[] = {
      {{2, 21, 37, 3}, {1, 2}, {2.0, 2.0}, ResizeMode::kCubic, CM::kHalfPixel, false, false},
      {{2, 40, 50, 3}, {1, 2}, {0.3, 0.3}, ResizeMode::kLinear, CM::kHalfPixel, true, true},
      {{1, 33, 41, 5}, {1, 2}, {0.45, 1.7}, ResizeMode::kCubic, CM::kPytorchHalfPixel, true, false},
      {{1, 5, 9, 11, 16}, {1, 2, 3}, {2.0, 2.0, 2.0}, ResizeMode::kLinear, CM::kAlignCorners, false, false},
      {{2, 6, 7, 10, 5}, {1, 2, 3}, {1.5, 1.8, 1.6}, ResizeMode::kCubic, CM::kHalfPixel, false, true},
      {{2, 6, 7, 10, 5}, {1, 2, 3}, {1.5, 0.7, 1.8}, ResizeMode::kCubic, CM::kHalfPixel, false, true},
      {{3, 17, 19, 2}, {1, 2}, {1.6, 1.3}, ResizeMode::kLinear, CM::kTfCropAndResize, false, false},
      {{2, 9, 10, 40}, {1, 2, 3}, {1.5, 2.0, 0.8}, ResizeMode::kLinear, CM::kAsymmetric, false, false},
      {{1, 7, 9, 37}, {1, 2}, {1.7, 2.0}, ResizeMode::kCubic, CM::kHalfPixel, false, false},
      {{1, 8, 64, 2}, {1, 2}, {0.45, 0.47}, ResizeMode::kLinear, CM::kHalfPixel, false, false},
      {{1, 8, 64, 3}, {1, 2}, {0.45, 0.5}, ResizeMode::kLinear, CM::kHalfPixel, false, false},
      {{1, 8, 80, 2}, {1, 2}, {0.5, 0.9}, ResizeMode::kCubic, CM::kHalfPixel, false, false},
      {{1, 8, 64, 3}, {1, 2}, {0.5, 0.8}, ResizeMode::kLinear, CM::kHalfPixel, true, false},
      {{2, 6, 8, 20}, {1, 2}, {1.5, 1.4}, ResizeMode::kLinear, CM::kTfCropAndResize, false, false},
      {{2, 13, 23, 3}, {1, 2}, {2.0, 2.0}, ResizeMode::kCubic, CM::kHalfPixel, false, false, DType::kUInt8},
      {{1, 4, 6, 9, 4}, {1, 2, 3}, {2.0, 1.5, 2.0}, ResizeMode::kLinear, CM::kAlignCorners, false, false,
       DType::kUInt8},
  };
  int taken = 0;
  for (const Setup& su : setups) {
    Case c;
    c.shape = su.shape;
    c.desc.mode = su.mode;
    c.desc.coordinate_mode = su.coords;
    c.desc.antialias = su.antialias;
    c.desc.exclude_outside = su.exclude_outside;
    c.desc.axes = su.axes;
    for (double s : su.scales) c.desc.scales.push_back(static_cast<float>(s));
    if (su.coords == CM::kTfCropAndResize) {
      c.desc.roi = {-0.2, 0.1, 0.9, 1.15};
      c.desc.extrapolation_value = 7;
    }
    c.dtype = su.dtype;
    const bool u8 = su.dtype == DType::kUInt8;
    Tensor x(su.dtype, su.shape);
    testing::fill_random(x, rng, u8 ? 0 : -100, u8 ? 255 : 100);
    auto ref = run(c, x, "ref");
    ASSERT_TRUE(ref.ok()) << ref.status().to_string();
    double max_src = 0;
    for (int64_t i = 0; i < x.num_elements(); ++i) max_src = std::max(max_src, std::fabs(testing::element_as_double(x, i)));
    const int m = static_cast<int>(su.axes.size());
    int64_t tmax = 0;
    for (int64_t len : su.shape) tmax = std::max(tmax, len + 1);
    const double bound = 4.0 * static_cast<double>(tmax + 2) * m * 0x1p-24 * std::ldexp(1.0, m) * max_src;
    std::vector<int64_t> targets = testing::hwy_targets();  // every SIMD target's kernels
    if (targets.empty()) targets.push_back(0);
    for (int64_t target : targets) {
      testing::ScopedHwyTarget scope(target);
      const std::string what = std::string(to_string(su.dtype)) + " " + dims_to_string(su.shape) + " " + to_string(su.mode) + " " + to_string(su.coords) +
                               " on " + testing::hwy_target_name(target);
      if (!takes(c, impl())) continue;  // the plan is made for the target it runs on
      ++taken;
      auto fast = run(c, x, impl());
      ASSERT_TRUE(fast.ok()) << fast.status().to_string();
      const int saved = get_num_threads();
      for (int threads : {1, 2, 3}) {
        set_num_threads(threads);
        auto again = run(c, x, impl());
        ASSERT_TRUE(again.ok());
        EXPECT_TRUE(testing::bitwise_equal(*again, *fast)) << what << ", " << threads << " threads";
      }
      set_num_threads(saved);
      for (int64_t i = 0; i < ref->num_elements(); ++i) {
        const double r = testing::element_as_double(*ref, i), f = testing::element_as_double(*fast, i);
        ASSERT_LE(std::fabs(r - f), u8 ? 1.0 : bound) << what << " element " << i << ": ref " << r << " fast " << f;
      }
    }
  }
  std::printf("[ %s ] took %d of these problems (every Highway target)\n", impl(), taken);
  if (taken == 0) GTEST_SKIP() << impl() << " takes none of these (channels-last linear/cubic) problems";
}

// Views the fused rows cannot take (src or dst not dense; only a run sees them) run on the
// next entry that takes them, resize.passes, with the plan's tables: logged under
// GRIDOPS_VERBOSE=dispatch, and the bits of resize.passes run on the same views.
TEST(ResizeDispatch, NonDenseViewsOfTheFusedRowsRunThePasses) {
#ifndef GRIDOPS_HAVE_HWY
  GTEST_SKIP() << "built without Highway: no fused rows";
#else
  std::mt19937_64 rng(testing::test_seed() + 13);
  Case c;
  c.desc.mode = ResizeMode::kCubic;
  c.desc.axes = {1, 2};
  c.desc.scales = {2.0f, 2.0f};
  // C = 3: lane tables (fused on targets of 8 or 16 float lanes; with 4 lanes, SSE4, NEON
  // and the portable targets, most blocks' taps span more than two vectors and the passes
  // run it); C = 16: whole vectors per position, fused on every target up to 16 lanes.
  const int64_t lanes = kernels::resize_lanes_f32();
  c.shape = {2, 21, 37, lanes == 8 || lanes == 16 ? 3 : 16};
  SCOPED_TRACE("float lanes " + std::to_string(lanes) + ", shape " + dims_to_string(c.shape));
  Tensor x(c.dtype, c.shape);
  testing::fill_random(x, rng, -100, 100);
  auto plan = make_resize_plan(c.desc, c.dtype, c.shape);
  ASSERT_TRUE(plan.ok()) << plan.status().to_string();
  ASSERT_STREQ(plan->impl_name(), "resize.fused_rows");
  for (int view : {1, 2}) {
    c.view = view;
    ASSERT_EQ(setenv("GRIDOPS_VERBOSE", "dispatch", 1), 0);
    ::testing::internal::CaptureStderr();
    auto got = run(c, x, "resize.fused_rows");
    const std::string log = ::testing::internal::GetCapturedStderr();
    unsetenv("GRIDOPS_VERBOSE");
    ASSERT_TRUE(got.ok()) << got.status().to_string();
    EXPECT_NE(log.find("resize: 'resize.fused_rows' declines these views at run time (src is not "
                       "dense): running 'resize.passes'"),
              std::string::npos)
        << log;
    auto want = run(c, x, "resize.passes");
    ASSERT_TRUE(want.ok()) << want.status().to_string();
    EXPECT_TRUE(testing::bitwise_equal(*got, *want)) << "view " << view;
  }
#endif
}

// The automatic choice is the first entry that takes a problem: nearest is a gather,
// channels-last float32 linear a fused-rows problem (with Highway), NCHW-like float32
// linear and float16 passes, complex linear the reference. Each entry declines the others'
// problems with a reason, and forcing "fast" picks the family's entry. Per target: uint8
// cubic 2x up with C = 4 is fused wherever a block of the row's lanes keeps its taps within
// two vectors; with 8 float lanes (AVX2, SVE at 256 bits) a block is 2 positions of 4
// channels whose 4 taps span 5 positions, 20 elements: more than two vectors, so most
// blocks would gather and the passes run it. With C = 16 (whole vectors per position up
// to 16 lanes) it is fused on every target.
TEST(ResizeDispatch, EachPathIsAnEntry) {
  struct Want {
    DType dt;
    Dims shape, axes;
    ResizeMode mode;
    const char* entry;
  };
#ifdef GRIDOPS_HAVE_HWY
  const int64_t lanes = kernels::resize_lanes_f32();
  SCOPED_TRACE("float lanes of the dispatched target: " + std::to_string(lanes));
  const char* u8_cubic_c4 = lanes == 8 ? "resize.passes" : "resize.fused_rows";
  const char* u8_cubic_c16 = lanes <= 16 ? "resize.fused_rows" : "resize.passes";
#endif
  const Want wants[] = {
      {DType::kFloat32, {1, 3, 8, 9}, {2, 3}, ResizeMode::kNearest, "resize.gather"},
      {DType::kString, {2, 5}, {1}, ResizeMode::kNearest, "resize.gather"},
#ifdef GRIDOPS_HAVE_HWY
      {DType::kFloat32, {1, 8, 20, 3}, {1, 2}, ResizeMode::kLinear, "resize.fused_rows"},
      {DType::kUInt8, {1, 8, 20, 4}, {1, 2}, ResizeMode::kCubic, u8_cubic_c4},
      {DType::kUInt8, {1, 8, 20, 16}, {1, 2}, ResizeMode::kCubic, u8_cubic_c16},
#endif
      {DType::kFloat32, {1, 3, 8, 9}, {2, 3}, ResizeMode::kLinear, "resize.passes"},
      {DType::kFloat16, {1, 8, 20, 3}, {1, 2}, ResizeMode::kLinear, "resize.passes"},
      {DType::kComplex64, {1, 3, 8, 9}, {2, 3}, ResizeMode::kLinear, "ref"},
  };
  for (const Want& w : wants) {
    ResizeDesc d;
    d.mode = w.mode;
    d.axes = w.axes;
    d.scales.assign(w.axes.size(), 2.0);
    SCOPED_TRACE(std::string(to_string(w.dt)) + " " + dims_to_string(w.shape) + " " + to_string(w.mode));
    auto plan = make_resize_plan(d, w.dt, w.shape);
    ASSERT_TRUE(plan.ok()) << plan.status().to_string();
    EXPECT_STREQ(plan->impl_name(), w.entry);
    d.impl = "fast";
    auto fam = make_resize_plan(d, w.dt, w.shape);
    if (std::string(w.entry) == "ref") {
      ASSERT_FALSE(fam.ok());
      EXPECT_EQ(fam.status().code(), StatusCode::kUnimplemented);
      EXPECT_NE(fam.status().message().find("resize.passes: linear/cubic on complex elements run in "
                                            "the reference"),
                std::string::npos)
          << fam.status().message();
    } else {
      ASSERT_TRUE(fam.ok()) << fam.status().to_string();
      EXPECT_STREQ(fam->impl_name(), w.entry);
    }
    for (const detail::ResizeEntry& e : detail::resize_entries()) {
      if (std::string(e.name) == w.entry || std::string(e.name) == "ref") continue;
      d.impl = e.name;
      auto other = make_resize_plan(d, w.dt, w.shape);
      if (std::string(e.name) == "resize.passes" && std::string(w.entry) == "resize.fused_rows") {
        EXPECT_TRUE(other.ok()) << other.status().to_string();  // the passes take them too
        continue;
      }
      ASSERT_FALSE(other.ok()) << e.name;
      EXPECT_EQ(other.status().code(), StatusCode::kUnimplemented);
      EXPECT_NE(other.status().message().find(std::string("implementation '") + e.name +
                                              "' declines this problem: "),
                std::string::npos)
          << other.status().message();
    }
  }
}

GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(ResizeDiff);
INSTANTIATE_TEST_SUITE_P(FastImpls, ResizeDiff, ::testing::ValuesIn(testing::fast_entries(detail::resize_entries())),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string n = info.param;
                           for (char& c : n) {
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return n;
                         });

}  // namespace
}  // namespace gridops
