// Pad differential tests: the fixture, the cache-size override and the helpers that
// pad_diff_test.cc and pad_dispatch_test.cc share.
#pragma once

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
#include "support/problem_string.h"
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
inline bool is_entry(const std::string& name) {
  return testing::find_entry(detail::pad_entries(), name) != nullptr;
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
inline bool takes(PadDesc desc, const std::string& impl, DType dt, const Dims& shape,
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
/// has no line writer (pad.lines: AVX-512 BW; pad.lines_vec: a line vector); any other
/// reason for taking none fails.
inline void skip_or_fail_when_none_taken(const std::string& impl, int taken, bool* skip) {
  *skip = false;
  if (taken > 0) return;
  PadDesc big;  // long rows of a constant pad: pad.lines' problem wherever it exists
  big.mode = PadMode::kConstant;
  big.pads_begin = std::vector<int64_t>{0, 4};
  big.pads_end = std::vector<int64_t>{0, 4};
  std::string why;
  if (!takes(big, impl, DType::kFloat32, Dims{4, 100}, &why) &&
      (why.find("no AVX-512 BW") != std::string::npos ||
       why.find("has no line vector") != std::string::npos)) {
    *skip = true;
    return;
  }
  ADD_FAILURE() << impl << " took none of the problems";
}

constexpr PadMode kModes[] = {PadMode::kConstant, PadMode::kEdge, PadMode::kReflect,
                              PadMode::kSymmetric, PadMode::kWrap};
/// Runs `desc` with implementation `impl` into a fresh zeroed dst.
inline Tensor run_impl(PadDesc desc, const char* impl, const TensorView& src,
                       const TensorView* value) {
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
inline RandomProblem random_problem(std::mt19937_64& rng) {
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

/// One Pad problem as a fluent tester: `test(entry)` checks the entry against ref, bitwise,
/// on data (and, with `explicit_value`, a constant pad value) drawn from `seed`, and with
/// `strided` again through a scrambled src view (the fast entries' run-time fallback, in
/// the end to the reference). Its canonical line (tests/support/problem_string.h) is
/// printed by a failing check and rerun alone by PadDiff.Rerun.
class PadTester {
 public:
  PadTester() = default;
  explicit PadTester(const RandomProblem& p) : desc_(p.desc), shape_(p.shape), dtype_(p.dtype) {}
  PadTester& mode(PadMode m) { desc_.mode = m; return *this; }
  PadTester& src(DType t, Dims shape) {
    dtype_ = t;
    shape_ = std::move(shape);
    return *this;
  }
  PadTester& pads(std::vector<int64_t> begin, std::vector<int64_t> end) {
    desc_.pads_begin = std::move(begin);
    desc_.pads_end = std::move(end);
    return *this;
  }
  PadTester& explicit_value(bool v) { value_ = v; return *this; }
  PadTester& strided(bool s, bool negative) {
    strided_ = s;
    negative_ = negative;
    return *this;
  }
  PadTester& seed(uint64_t s) { seed_ = s; return *this; }
  PadTester& target(int64_t t) { target_ = t; return *this; }

  testing::ProblemString line(const std::string& impl) const {
    testing::ProblemString s("pad");
    s.add("impl", impl)
        .add("mode", to_string(desc_.mode))
        .add("src", dtype_)
        .add("src_shape", shape_)
        .add("begin", Dims(desc_.pads_begin.begin(), desc_.pads_begin.end()))
        .add("end", Dims(desc_.pads_end.begin(), desc_.pads_end.end()))
        .add("value", value_ ? "explicit" : "default")
        .add_flags("views", {{'s', strided_}, {'n', negative_}})
        .add("target", testing::hwy_target_label(target_))
        .add("seed", seed_);
    return s;
  }

  static PadTester from(const testing::ProblemString& s, std::string* impl) {
    PadTester t;
    *impl = s.get("impl");
    t.mode(s.get_enum("mode", parse_pad_mode, PadMode::kConstant));
    t.src(s.get_dtype("src"), s.get_dims("src_shape"));
    const Dims b = s.get_dims("begin"), e = s.get_dims("end");
    t.pads({b.begin(), b.end()}, {e.begin(), e.end()});
    t.explicit_value(s.get("value") == "explicit");
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
    if (!takes(desc_, impl, dtype_, shape_)) return false;
    std::mt19937_64 rng(seed_);
    Tensor src(dtype_, shape_);
    testing::fill_random_bytes(src, rng);
    Tensor value(dtype_, Dims{});
    testing::fill_random_bytes(value, rng);
    const TensorView value_view = value.view();
    const TensorView* pv = desc_.mode == PadMode::kConstant && value_ ? &value_view : nullptr;
    const Tensor want = run_impl(desc_, "ref", src.view(), pv);
    const Tensor got = run_impl(desc_, impl.c_str(), src.view(), pv);
    int64_t where = 0;
    if (!testing::bitwise_equal(got, want, &where)) {
      ADD_FAILURE() << "first difference at " << where;
      return true;
    }
    if (strided_ && src.num_elements() > 0) {
      Tensor storage;
      const TensorView view = testing::scrambled_copy(src, storage, negative_);
      const Tensor got2 = run_impl(desc_, impl.c_str(), view, pv);
      EXPECT_TRUE(testing::bitwise_equal(got2, want, &where))
          << "strided: first difference at " << where;
    }
    return true;
  }

 private:
  PadDesc desc_;
  Dims shape_{5};
  DType dtype_ = DType::kFloat32;
  bool value_ = false, strided_ = false, negative_ = false;
  uint64_t seed_ = 1;
  int64_t target_ = 0;
};

// `count` random problems from `seed` (on Highway target `target`, 0: the best), those
// `impl` takes against ref, bitwise; returns how many it took, -1 after a failure.
inline int random_problems_against_ref(const char* impl, uint64_t seed, int count,
                                       int64_t target = 0) {
  SCOPED_TRACE("seed " + std::to_string(seed) + " (set GRIDOPS_SEED to reproduce)");
  std::mt19937_64 rng(seed);
  int taken = 0;
  for (int it = 0; it < count; ++it) {
    PadTester t(random_problem(rng));
    // Constant mode: sometimes an explicit (random, possibly non-zero) pad value; now and
    // then the same problem through strided views.
    t.explicit_value(rng() % 2 == 0).strided(it % 16 == 0, it % 32 == 0).target(target).seed(rng());
    if (t.test(impl)) ++taken;
    if (::testing::Test::HasFailure()) return -1;
  }
  std::printf("[ %s ] took %d of %d problems\n", impl, taken, count);
  return taken;
}

}  // namespace
}  // namespace gridops
