// Shared by the resampling differential tests (resample_diff_test.cc,
// resample_diff_paths_test.cc): the entries under test, memory descs, the reference runs
// and the bounds of the fast paths against "ref" (stated in resample_diff_test.cc).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "core/cache_size.h"
#include "core/convert.h"
#include "gridops/ops/resample.h"
#include "gridops/parallel.h"
#include "kernels/resample/resample_fast.h"
#include "ops/resample_impls.h"
#include "support/entries.h"
#include "support/problem_string.h"
#include "support/test_util.h"


namespace gridops::resample_diff {

// The streaming-store tests below size their outputs for the thresholds measured at a
// 32 MiB last-level cache (4 MiB of output; 32 MiB of input and output for the
// channels-last nearest copy). On a machine with a larger cache the thresholds grow
// (NOTE [ Stream thresholds by cache size ], core/cache_size.h), so this program fixes
// the size at 32 MiB: the non-temporal paths run on every machine.
const bool kMeasuredLlc = [] {
  kernels::set_last_level_cache_bytes_override(kernels::kMeasuredLlcBytes);
  return true;
}();

constexpr MemoryFormat kFormats[] = {MemoryFormat::kPlain, MemoryFormat::kChannelsLast,
                                     MemoryFormat::kBlocked8, MemoryFormat::kBlocked16};

/// The fast implementations: every entry of the operator's list but "ref", then "fast".
std::vector<std::string> fast_impls() {
  return testing::fast_entries(detail::resample_forward_entries());
}

/// What this host lacks to run entry `name` at all (empty: nothing).
std::string host_lacks(const std::string& name) {
  const detail::ResampleEntry* e =
      testing::find_entry(detail::resample_forward_entries(), name);
  return e != nullptr && e->unavailable != nullptr ? e->unavailable() : std::string();
}

ResampleMemoryDesc md(DType dt, Dims dims, MemoryFormat f) {
  ResampleMemoryDesc m;
  m.dtype = dt;
  m.dims = std::move(dims);
  m.format = f;
  return m;
}

/// Whether `impl` takes the problem (a path declines the layouts it cannot handle at plan
/// time; make_resample_plan then fails with kUnimplemented).
bool accepts(const std::string& impl, ResampleAlgorithm a, const ResampleMemoryDesc& s,
             const ResampleMemoryDesc& d) {
  ResampleDesc desc;
  desc.algorithm = a;
  desc.impl = impl;
  auto plan = make_resample_plan(desc, s, d);
  if (!plan.ok()) {
    EXPECT_EQ(plan.status().code(), StatusCode::kUnimplemented) << plan.status().to_string();
  }
  return plan.ok();
}

int64_t product(const Dims& d) {
  int64_t p = 1;
  for (int64_t v : d) p *= v;
  return p;
}

/// covered[i]: buffer element i holds a logical element (else it is channel padding).
std::vector<char> covered(const ResampleMemoryDesc& m) {
  std::vector<char> cov(static_cast<size_t>(*m.buffer_elements()), 0);
  Dims idx(m.dims.size(), 0);
  const int64_t total = product(m.dims);
  for (int64_t f = 0; f < total; ++f) {
    int64_t r = f;
    for (size_t k = m.dims.size(); k-- > 0;) {
      idx[k] = r % m.dims[k];
      r /= m.dims[k];
    }
    cov[static_cast<size_t>(m.offset(idx))] = 1;
  }
  return cov;
}

template <class T>
double as_double(T v) {
  return convert::load_real<double>(v);
}

/// The first index where a and b (the bits of two outputs of one size) differ; a.size()
/// when they are equal.
template <class T>
size_t first_difference(const std::vector<T>& a, const std::vector<T>& b) {
  const auto mismatch = std::mismatch(a.begin(), a.end(), b.begin());
  return static_cast<size_t>(mismatch.first - a.begin());
}

/// Runs forward (or backward) with an implementation; returns the output buffer.
template <class T>
std::vector<T> run(const std::string& impl, ResampleAlgorithm a, const ResampleMemoryDesc& s,
                   const ResampleMemoryDesc& d, const std::vector<T>& in, bool backward) {
  ResampleDesc desc;
  desc.algorithm = a;
  desc.impl = impl;
  auto plan = make_resample_plan(desc, s, d);
  EXPECT_TRUE(plan.ok()) << plan.status().to_string();
  if (!plan.ok()) return {};
  if (testing::find_entry(detail::resample_forward_entries(), impl) != nullptr) {
    EXPECT_STREQ(plan->impl_name(), impl.c_str());  // an entry, not the alias "fast"
  }
  std::vector<T> out(static_cast<size_t>(*(backward ? s : d).buffer_elements()),
                     convert::store_real<T>(123.0));
  const Status st = backward ? plan->backward(in.data(), out.data())
                             : plan->forward(in.data(), out.data());
  EXPECT_TRUE(st.ok()) << st.to_string();
  return out;
}

struct Stats {
  int problems = 0;
  double worst_ratio = 0;          // max |fast - ref| / bound over linear elements
  double worst_nearest_bwd = 0;    // the same over nearest backward elements
};

/// The bound of a nearest backward element of k terms with sum of |terms| S (S as computed
/// in float32 by ref: one rounding, covered by the factor 1 + 2^-22); see the file comment.
double nearest_bwd_bound(bool bf16, double k, double S) {
  const double u = std::ldexp(1.0, -24);
  const double s = S * (1.0 + std::ldexp(1.0, -22));
  if (!bf16) return k * u * s + std::ldexp(1.0, -150);
  return (std::ldexp(1.0, -7) + std::max(k - 1.0, 0.0) * u * (1.0 + std::ldexp(1.0, -7))) * s +
         std::ldexp(1.0, -133);
}

/// Runs "ref" in float32 on `in` (the same dims and formats as s, d).
std::vector<float> run_ref_f32(ResampleAlgorithm a, ResampleMemoryDesc s, ResampleMemoryDesc d,
                               const std::vector<float>& in, bool backward) {
  s.dtype = DType::kFloat32;
  d.dtype = DType::kFloat32;
  return run<float>("ref", a, s, d, in, backward);
}

template <class T>
void check_one(const std::string& impl, ResampleAlgorithm a, const ResampleMemoryDesc& s,
               const ResampleMemoryDesc& d, std::mt19937_64& rng, bool backward, Stats* stats) {
  const int r = static_cast<int>(s.dims.size()) - 2;
  double uses = 0;
  for (int k = 0; k < r; ++k) {
    uses += 2.0 * (static_cast<double>(d.dims[2 + k] / s.dims[2 + k]) + 2.0);
  }
  const ResampleMemoryDesc& in_md = backward ? d : s;
  const ResampleMemoryDesc& out_md = backward ? s : d;
  const std::vector<char> in_cov = covered(in_md), out_cov = covered(out_md);
  std::uniform_real_distribution<double> val(-2.0, 2.0);
  std::vector<T> in(in_cov.size()), in_abs(in_cov.size());
  for (size_t i = 0; i < in.size(); ++i) {
    // Padding of the input holds NaN: it must be ignored.
    in[i] = convert::store_real<T>(in_cov[i] ? val(rng) : std::nan(""));
    in_abs[i] = convert::store_real<T>(in_cov[i] ? std::fabs(as_double(in[i])) : std::nan(""));
  }
  const auto got = run<T>(impl, a, s, d, in, backward);
  const auto want = run<T>("ref", a, s, d, in, backward);
  ASSERT_EQ(got.size(), want.size());
  const bool nearest_bwd = a == ResampleAlgorithm::kNearest && backward;
  const bool exact = a == ResampleAlgorithm::kNearest && !backward;
  std::vector<T> sum_abs;
  if (!exact && !nearest_bwd) sum_abs = run<T>("ref", a, s, d, in_abs, backward);
  // Nearest backward: the term count k and S = sum |terms| of every element, in float32.
  std::vector<float> terms, sum_abs_f;
  if (nearest_bwd) {
    std::vector<float> ones(in.size()), absf(in.size());
    for (size_t i = 0; i < in.size(); ++i) {
      ones[i] = in_cov[i] ? 1.0f : NAN;
      absf[i] = static_cast<float>(as_double(in_abs[i]));
    }
    terms = run_ref_f32(a, s, d, ones, true);
    sum_abs_f = run_ref_f32(a, s, d, absf, true);
  }
  const bool bf16 = sizeof(T) == 2;
  const double rel = backward ? (r + uses + 2) * std::ldexp(1.0, -24) : std::ldexp(1.0, -20);
  for (size_t i = 0; i < got.size(); ++i) {
    uint64_t gb = 0, wb = 0;
    std::memcpy(&gb, &got[i], sizeof(T));
    std::memcpy(&wb, &want[i], sizeof(T));
    if (exact || !out_cov[i]) {
      ASSERT_EQ(gb, wb) << "buffer element " << i << (out_cov[i] ? "" : " (padding)") << ": got "
                        << as_double(got[i]) << ", ref " << as_double(want[i]);
      continue;
    }
    const double g = as_double(got[i]), w = as_double(want[i]);
    if (nearest_bwd) {
      const double k = terms[i], S = sum_abs_f[i];
      const double bound = nearest_bwd_bound(bf16, k, S);
      const double err = std::fabs(g - w);
      if (bound > 0) stats->worst_nearest_bwd = std::max(stats->worst_nearest_bwd, err / bound);
      ASSERT_LE(err, bound) << "buffer element " << i << ": got " << g << ", ref " << w
                            << ", terms " << k << ", sum |terms| " << S;
      continue;
    }
    const double S = as_double(sum_abs[i]);
    double bound = rel * S * 1.01 + 1e-37;
    if (bf16) {
      const double m = std::max(std::fabs(g), std::fabs(w));
      bound += m > 0 ? std::ldexp(1.0, std::ilogb(m) - 7) : 0.0;  // one bf16 ulp
    }
    const double err = std::fabs(g - w);
    stats->worst_ratio = std::max(stats->worst_ratio, err / bound);
    ASSERT_LE(err, bound) << "buffer element " << i << ": got " << g << ", ref " << w
                          << ", sum |w x| " << S;
  }
}


/// Forward and backward of one random problem against the reference (see check_one).
void check_problem(const std::string& impl, int it, DType dt, ResampleAlgorithm a, const Dims& sd,
                   MemoryFormat fs, const Dims& dd, MemoryFormat fd, std::mt19937_64& rng,
                   Stats* stats) {
  const int r = static_cast<int>(sd.size()) - 2;
  const auto s = md(dt, sd, fs);
  const auto d = md(dt, dd, fd);
  SCOPED_TRACE(impl + " problem " + std::to_string(it) + ": " + to_string(dt) + " " +
               to_string(a) + " " + dims_to_string(sd) + " " + format_tag(fs, r) + " -> " +
               dims_to_string(dd) + " " + format_tag(fd, r));
  for (bool backward : {false, true}) {
    if (dt == DType::kFloat32) {
      check_one<float>(impl, a, s, d, rng, backward, stats);
    } else {
      check_one<bfloat16>(impl, a, s, d, rng, backward, stats);
    }
    if (::testing::Test::HasFatalFailure()) return;
  }
}

/// One random problem of the tests below.
struct RandomProblem {
  DType dt = DType::kFloat32;
  ResampleAlgorithm a = ResampleAlgorithm::kLinear;
  Dims sd, dd;
  MemoryFormat fs = MemoryFormat::kPlain, fd = MemoryFormat::kPlain;
};
using Uni = std::function<int(int, int)>;

/// One Resample problem (forward and backward) as a fluent tester: `test(entry)` checks the
/// entry against ref (check_problem's bounds) on data drawn from `seed`. Its canonical line
/// (tests/support/problem_string.h) is printed by a failing check and rerun alone by
/// ResampleDiff.Rerun.
class ResampleTester {
 public:
  ResampleTester() = default;
  explicit ResampleTester(RandomProblem p) : p_(std::move(p)) {}
  ResampleTester& dtype(DType t) { p_.dt = t; return *this; }
  ResampleTester& algorithm(ResampleAlgorithm a) { p_.a = a; return *this; }
  ResampleTester& src(Dims dims, MemoryFormat f) {
    p_.sd = std::move(dims);
    p_.fs = f;
    return *this;
  }
  ResampleTester& dst(Dims dims, MemoryFormat f) {
    p_.dd = std::move(dims);
    p_.fd = f;
    return *this;
  }
  ResampleTester& seed(uint64_t s) { seed_ = s; return *this; }
  ResampleTester& target(int64_t t) { target_ = t; return *this; }
  const RandomProblem& problem() const { return p_; }

  testing::ProblemString line(const std::string& impl) const {
    const int r = static_cast<int>(p_.sd.size()) - 2;
    testing::ProblemString s("resample");
    s.add("impl", impl)
        .add("dtype", p_.dt)
        .add("algorithm", to_string(p_.a))
        .add("src", p_.sd)
        .add("src_format", format_tag(p_.fs, r))
        .add("dst", p_.dd)
        .add("dst_format", format_tag(p_.fd, r))
        .add("target", testing::hwy_target_label(target_))
        .add("seed", seed_);
    return s;
  }

  static ResampleTester from(const testing::ProblemString& s, std::string* impl) {
    ResampleTester t;
    *impl = s.get("impl");
    auto format = [](std::string_view v) { return parse_memory_format(v); };
    t.dtype(s.get_dtype("dtype"))
        .algorithm(s.get_enum("algorithm", parse_resample_algorithm, ResampleAlgorithm::kLinear))
        .src(s.get_dims("src"), s.get_enum("src_format", format, MemoryFormat::kPlain))
        .dst(s.get_dims("dst"), s.get_enum("dst_format", format, MemoryFormat::kPlain))
        .target(testing::hwy_target_from_label(s.get("target")))
        .seed(s.get_uint("seed"));
    return t;
  }

  /// False (nothing checked) when `impl` declines the problem at plan time.
  bool test(const std::string& impl, Stats* stats) const {
    SCOPED_TRACE(testing::rerun_hint(line(impl)));
    std::optional<testing::ScopedHwyTarget> on;
    if (target_ != 0) on.emplace(target_);
    if (!accepts(impl, p_.a, md(p_.dt, p_.sd, p_.fs), md(p_.dt, p_.dd, p_.fd))) return false;
    std::mt19937_64 rng(seed_);
    check_problem(impl, 0, p_.dt, p_.a, p_.sd, p_.fs, p_.dd, p_.fd, rng, stats);
    return true;
  }

 private:
  RandomProblem p_;
  uint64_t seed_ = 1;
  int64_t target_ = 0;
};

/// Checks `count` problems from make(it, uni) on every fast implementation that takes them
/// (each path declines the layouts it cannot handle), with the seed offset `seed_offset`
/// (each problem's data from its own seed), on Highway target `target` (0: the best), and
/// prints the worst linear error relative to its bound.
void check_random_problems(uint64_t seed_offset, int count,
                           const std::function<RandomProblem(int, const Uni&)>& make,
                           int64_t target = 0) {
  const uint64_t seed = testing::test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed + seed_offset);
  std::uniform_int_distribution<int> pick(0, 1 << 30);
  const Uni uni = [&](int lo, int hi) { return lo + pick(rng) % (hi - lo + 1); };
  const std::vector<std::string> impls = fast_impls();
  std::vector<Stats> stats(impls.size());
  for (int it = 0; it < count; ++it) {
    ResampleTester t(make(it, uni));
    t.seed(rng()).target(target);
    for (size_t k = 0; k < impls.size(); ++k) {
      if (!t.test(impls[k], &stats[k])) continue;
      if (::testing::Test::HasFatalFailure()) return;
      ++stats[k].problems;
    }
  }
  for (size_t k = 0; k < impls.size(); ++k) {
    const std::string lacks = host_lacks(impls[k]);
    if (!lacks.empty()) {
      // An entry this host cannot run (the CPU or the ISA cap) must take nothing.
      EXPECT_EQ(stats[k].problems, 0) << impls[k] << " took problems on a host that lacks it: "
                                      << lacks;
      std::printf("[ n/a  ] %s: not run here: %s\n", impls[k].c_str(), lacks.c_str());
      continue;
    }
    // Each path takes a good share of a large random set (the small per-target sets may
    // miss a path by chance).
    if (count >= 400) {
      EXPECT_GT(stats[k].problems, 0) << impls[k] << " took none of the problems";
    }
    std::printf(
        "[ %s ] %d of %d problems, worst error / bound: linear %.3g, nearest backward %.3g\n",
        impls[k].c_str(), stats[k].problems, count, stats[k].worst_ratio,
        stats[k].worst_nearest_bwd);
  }
}

}  // namespace gridops::resample_diff

/// Skips a test in a build without Highway (only "ref" exists).
#define GRIDOPS_SKIP_WITHOUT_HWY() \
  if (fast_impls().empty()) GTEST_SKIP() << "built without Highway: only the reference exists, nothing to compare"
