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

// `count` random problems from `seed`, those `impl` takes against ref, bitwise; returns
// how many it took.
inline int random_problems_against_ref(const char* impl, uint64_t seed, int count) {
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

}  // namespace
}  // namespace gridops
