// Differential tests: every fast resampling implementation against "ref", forward and
// backward, over random problems (ranks 1-3, sizes including 1 and odd sizes, up- and
// downsampling, every (src, dst) memory-format pair, float32 and bfloat16, nearest and
// linear), plus thread-count determinism and the choice of the fast path for the
// benchmark workloads.
//
// Bounds (see docs/ops/resample.md, "Fast path"):
// - nearest forward: bit-exact (a copy);
// - nearest backward: a float32 sum of k gradient terms (k = the outputs that read the
//   input element), S = sum of |terms|, u = 2^-24:
//   float32: |fast - ref| <= k u S (1 + 2^-28) + 2^-150;
//   bfloat16: |fast - ref| <= (2^-7 + (k - 1) u (1 + 2^-7)) S + 2^-133
//   (derivation in docs/ops/resample.md). k and S come from "ref" in float32 on ones and on
//   |x| (S rounded once: the test allows S (1 + 2^-22));
// - padded channels of blocked outputs: bit-exact (+0);
// - linear, float32: |fast - ref| <= 2^-20 * S, S = sum over the taps of |w * x| (computed
//   by running ref on |x|, weights are >= 0). Justification: the fast path rounds each
//   per-axis weight to float32 (r roundings, <= r u S, u = 2^-24), each axis' lerp (or
//   adjoint sum step) rounds a Mul and a MulAdd (<= 2 u S per axis, sums of |w x| never
//   exceed S), and ref itself is within u |ref| <= u S of the exact value: at most
//   (3r + 1) u S + O(u^2) <= 10 u S for r <= 3; we test 16 u S = 2^-20 S.
//   Backward: each diff_src element is a nested sum with k_a <= 2 * (O_a / I_a + 2) uses
//   along axis a, each use one rounding (Mul or MulAdd) of a partial sum bounded by S, so
//   |fast - ref| <= (r + sum_a k_a + 2) u S, which the test uses as is (it grows with the
//   upsampling ratio, as any float32 sum of that many terms does).
// - linear, bfloat16: the fast path computes in float32 (error as above) and rounds once to
//   bfloat16, the reference rounds its double result once: the two differ by at most one
//   bfloat16 ulp plus the float32 bound.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
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
#include "support/test_util.h"

namespace gridops {
namespace {

// The streaming-store tests below size their outputs for the thresholds measured at a
// 32 MiB last-level cache (4 MiB of output; 32 MiB of input and output for the
// channels-last nearest copy). On a machine with a larger cache the thresholds grow
// (NOTE [ Stream thresholds by cache size ], core/cache_size.h), so this program fixes
// the size at 32 MiB: the non-temporal paths run on every machine.
const bool kMeasuredLlc = [] {
  kernels::set_last_level_cache_bytes_for_testing(kernels::kMeasuredLlcBytes);
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

/// Checks `count` problems from make(it, uni) on every fast implementation that takes them
/// (each path declines the layouts it cannot handle), with the seed
/// offset `seed_offset` (problems and data drawn from one generator, as check_problem
/// does), and prints the worst linear error relative to its bound.
void check_random_problems(uint64_t seed_offset, int count,
                           const std::function<RandomProblem(int, const Uni&)>& make) {
  const uint64_t seed = testing::test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed + seed_offset);
  std::uniform_int_distribution<int> pick(0, 1 << 30);
  const Uni uni = [&](int lo, int hi) { return lo + pick(rng) % (hi - lo + 1); };
  const std::vector<std::string> impls = fast_impls();
  std::vector<Stats> stats(impls.size());
  for (int it = 0; it < count; ++it) {
    const RandomProblem pr = make(it, uni);
    for (size_t k = 0; k < impls.size(); ++k) {
      if (!accepts(impls[k], pr.a, md(pr.dt, pr.sd, pr.fs), md(pr.dt, pr.dd, pr.fd))) continue;
      check_problem(impls[k], it, pr.dt, pr.a, pr.sd, pr.fs, pr.dd, pr.fd, rng, &stats[k]);
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

RandomProblem mixed_problem(int it, const Uni& uni) {
  RandomProblem pr;
  const int r = 1 + it % 3;
  pr.dt = (it / 3) % 2 == 0 ? DType::kFloat32 : DType::kBFloat16;
  pr.a = (it / 6) % 2 == 0 ? ResampleAlgorithm::kLinear : ResampleAlgorithm::kNearest;
  // Half the problems use one format on both sides, the others a random pair.
  pr.fs = kFormats[uni(0, 3)];
  pr.fd = uni(0, 1) == 0 ? pr.fs : kFormats[uni(0, 3)];
  const int64_t cmax = uni(0, 3) == 0 ? 40 : 20;
  pr.sd = {uni(1, 2), uni(1, static_cast<int>(cmax))};
  const int maxlen = r == 3 ? 6 : (r == 2 ? 11 : 40);
  pr.dd = pr.sd;
  for (int k = 0; k < r; ++k) {
    const int64_t in = uni(1, maxlen);
    int64_t out;
    switch (uni(0, 3)) {
      case 0: out = in * 2; break;                         // 2x up
      case 1: out = std::max<int64_t>(1, in / 2); break;  // 2x down
      case 2: out = in; break;                             // same size
      default: out = uni(1, maxlen * 2); break;            // any ratio
    }
    pr.sd.push_back(in);
    pr.dd.push_back(out);
  }
  return pr;
}

#define GRIDOPS_SKIP_WITHOUT_HWY() \
  if (fast_impls().empty()) GTEST_SKIP() << "built without Highway: only the reference exists, nothing to compare"

TEST(ResampleDiff, RandomProblemsAgainstRef) {
  GRIDOPS_SKIP_WITHOUT_HWY();
  check_random_problems(77, 2400, mixed_problem);
}

// Problems that reach the fast paths the small random problems above rarely do: long rows
// (the plain kernels fetch W taps by permuting one or two loaded vectors, which needs rows
// of 16 / 32 elements and more; wider tap spreads fall back to gathers) and channel counts
// that are whole multiples of the channel vector (the channel-vector linear forward runs
// flat loops over channels-last groups and, when downsampling by 2 or more or for float32
// with 1 or 2 spatial axes, computes both W taps without its scratch row).
RandomProblem long_row_problem(int it, const Uni& uni) {
  static const int64_t kChannels[] = {8, 16, 24, 32, 48, 64, 3, 17};
  RandomProblem pr;
  const int r = it % 5 == 4 ? 3 : (it % 5 == 3 ? 1 : 2);
  pr.dt = (it / 5) % 2 == 0 ? DType::kFloat32 : DType::kBFloat16;
  pr.a = (it / 10) % 3 == 2 ? ResampleAlgorithm::kNearest : ResampleAlgorithm::kLinear;
  pr.fs = kFormats[uni(0, 3)];
  pr.fd = uni(0, 2) == 0 ? kFormats[uni(0, 3)] : pr.fs;
  pr.sd = {uni(1, 2), kChannels[uni(0, 7)]};
  pr.dd = pr.sd;
  for (int k = 0; k < r; ++k) {
    const bool last = k == r - 1;
    const int64_t in = last ? uni(1, r == 3 ? 48 : 100) : uni(1, 4);
    int64_t out;
    switch (uni(0, 5)) {
      case 0: out = in * 2; break;
      case 1: out = std::max<int64_t>(1, in / 2); break;
      case 2: out = std::max<int64_t>(1, in / 3); break;
      case 3: out = std::max<int64_t>(1, in / 4); break;
      case 4: out = in * 3; break;
      default: out = uni(1, last ? 200 : 8); break;
    }
    pr.sd.push_back(in);
    pr.dd.push_back(out);
  }
  return pr;
}

TEST(ResampleDiff, LongRowsAndWholeChannelVectors) {
  GRIDOPS_SKIP_WITHOUT_HWY();
  check_random_problems(80, 400, long_row_problem);
}

// The other Highway targets this CPU runs (AVX2, SSE4, ... below the best one, which the
// tests above cover): fewer problems of both kinds each.
TEST(ResampleDiff, EveryHighwayTarget) {
  GRIDOPS_SKIP_WITHOUT_HWY();
  const std::vector<int64_t> targets = testing::hwy_targets();
  for (size_t k = 1; k < targets.size(); ++k) {
    SCOPED_TRACE("Highway target " + testing::hwy_target_name(targets[k]));
    testing::ScopedHwyTarget only(targets[k]);
    check_random_problems(77 + 1000 * k, 50, mixed_problem);
    check_random_problems(80 + 1000 * k, 10, long_row_problem);
    if (::testing::Test::HasFailure()) return;
  }
}

// Same bits for 1 thread, 2 threads and a runner that splits into one-task chunks in
// reverse order, forward and backward, on problems large enough to be split.
TEST(ResampleDiff, ThreadCountInvariance) {
  GRIDOPS_SKIP_WITHOUT_HWY();
  const uint64_t seed = testing::test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed + 78);
  std::uniform_real_distribution<double> val(-2.0, 2.0);
  struct Case {
    Dims sd, dd;
    MemoryFormat fs, fd;
  };
  const Case cases[] = {
      {{2, 5, 33, 40}, {2, 5, 66, 80}, MemoryFormat::kPlain, MemoryFormat::kPlain},
      {{2, 19, 17, 21}, {2, 19, 9, 43}, MemoryFormat::kChannelsLast, MemoryFormat::kChannelsLast},
      {{1, 20, 14, 15}, {1, 20, 28, 7}, MemoryFormat::kBlocked16, MemoryFormat::kBlocked8},
      {{1, 3, 9, 10, 11}, {1, 3, 18, 5, 22}, MemoryFormat::kPlain, MemoryFormat::kPlain},
      {{1, 16, 5, 6, 7}, {1, 16, 10, 12, 14}, MemoryFormat::kBlocked16, MemoryFormat::kBlocked16},
      {{1, 7, 30, 30}, {1, 7, 61, 29}, MemoryFormat::kPlain, MemoryFormat::kChannelsLast},
      // Downsampling along W by 2 or more: resample.channels_bf16's direct loop for bfloat16
      // (the upsamplings above take its column cache).
      {{2, 48, 17, 40}, {2, 48, 9, 20}, MemoryFormat::kChannelsLast, MemoryFormat::kChannelsLast},
      {{1, 20, 14, 31}, {1, 20, 7, 15}, MemoryFormat::kBlocked16, MemoryFormat::kBlocked16},
      {{1, 32, 5, 6, 20}, {1, 32, 3, 12, 9}, MemoryFormat::kChannelsLast,
       MemoryFormat::kChannelsLast},
  };
  const int before = get_num_threads();
  for (const std::string& impl : fast_impls()) {
    for (const Case& c : cases) {
      for (DType dt : {DType::kFloat32, DType::kBFloat16}) {
        for (ResampleAlgorithm a : {ResampleAlgorithm::kLinear, ResampleAlgorithm::kNearest}) {
          for (bool backward : {false, true}) {
            const auto s = md(dt, c.sd, c.fs), d = md(dt, c.dd, c.fd);
            if (!accepts(impl, a, s, d)) continue;
            SCOPED_TRACE(impl + " " + to_string(dt) + " " + to_string(a) + " " +
                         dims_to_string(c.sd) + " -> " + dims_to_string(c.dd) +
                         (backward ? " backward" : " forward"));
            const auto& in_md = backward ? d : s;
            const size_t n = static_cast<size_t>(*in_md.buffer_elements());
            auto go = [&](auto tag) {
              using T = typename decltype(tag)::type;
              std::vector<T> in(n);
              for (auto& v : in) v = convert::store_real<T>(val(rng));
              set_num_threads(1);
              const auto one = run<T>(impl, a, s, d, in, backward);
              set_num_threads(2);
              const auto two = run<T>(impl, a, s, d, in, backward);
              set_parallel_runner(
                  [](int64_t m, int64_t, const std::function<void(int64_t, int64_t)>& body) {
                    for (int64_t i = m; i-- > 0;) body(i, i + 1);
                  });
              const auto split = run<T>(impl, a, s, d, in, backward);
              set_parallel_runner(nullptr);
              ASSERT_EQ(one.size(), two.size());
              EXPECT_EQ(0, std::memcmp(one.data(), two.data(), one.size() * sizeof(T)));
              EXPECT_EQ(0, std::memcmp(one.data(), split.data(), one.size() * sizeof(T)));
            };
            if (dt == DType::kFloat32) {
              go(TypeTag<float>{});
            } else {
              go(TypeTag<bfloat16>{});
            }
          }
        }
      }
    }
  }
  set_num_threads(before);
}

// The benchmark workloads (W5a-f, docs/BENCHMARKS.md) must run on the fast path,
// so that a silent decline cannot pass as a benchmark of it.
TEST(ResampleDiff, BenchmarkWorkloadsUseTheFastPath) {
#ifndef GRIDOPS_HAVE_HWY
  GTEST_SKIP() << "built without Highway: no fast path";
#else
  struct W {
    Dims src, dst;
    ResampleAlgorithm a;
  };
  const W ws[] = {
      {{8, 64, 64, 64}, {8, 64, 128, 128}, ResampleAlgorithm::kLinear},     // W5a, W5e
      {{8, 64, 64, 64}, {8, 64, 128, 128}, ResampleAlgorithm::kNearest},    // W5b, W5f
      {{8, 64, 128, 128}, {8, 64, 64, 64}, ResampleAlgorithm::kLinear},     // W5c
      {{1, 32, 32, 64, 64}, {1, 32, 64, 128, 128}, ResampleAlgorithm::kLinear},  // W5d
  };
  for (const W& w : ws) {
    for (DType dt : {DType::kFloat32, DType::kBFloat16}) {
      for (MemoryFormat f :
           {MemoryFormat::kPlain, MemoryFormat::kChannelsLast, MemoryFormat::kBlocked16}) {
        ResampleDesc desc;
        desc.algorithm = w.a;
        auto plan = make_resample_plan(desc, md(dt, w.src, f), md(dt, w.dst, f));
        ASSERT_TRUE(plan.ok()) << plan.status().to_string();
        // nchw: vectors along W; nhwc and nChw16c: vectors of 16 channels, and for the
        // bfloat16 linear ones (W5a, W5c, W5d) resample.channels_bf16 where the CPU has
        // AVX512_BF16 (it may decline for that reason only).
        const bool bf16_linear = dt == DType::kBFloat16 && w.a == ResampleAlgorithm::kLinear &&
                                 f != MemoryFormat::kPlain;
        std::string want = f == MemoryFormat::kPlain ? "resample.plain" : "resample.channels_vector16";
        if (bf16_linear) {
          ResampleDesc forced = desc;
          forced.impl = "resample.channels_bf16";
          auto p2 = make_resample_plan(forced, md(dt, w.src, f), md(dt, w.dst, f));
          const std::string lacks = host_lacks("resample.channels_bf16");
          if (lacks.empty()) {
            EXPECT_TRUE(p2.ok()) << p2.status().to_string();
            want = "resample.channels_bf16";
          } else {
            ASSERT_FALSE(p2.ok());
            EXPECT_NE(p2.status().message().find(lacks), std::string::npos)
                << p2.status().to_string();
          }
        }
        EXPECT_EQ(plan->impl_name(), want)
            << dims_to_string(w.src) << " " << format_tag(f, static_cast<int>(w.src.size()) - 2)
            << " " << to_string(dt);
      }
    }
  }
#endif
}

// Outputs of 4 MiB and more from 64-byte aligned buffers take the non-temporal store
// paths; they must give the same bits as ordinary stores (the unaligned run) and the
// reference's values (bit-exact for nearest, within the bound for linear).
TEST(ResampleDiff, LargeAlignedOutputsUseStreamingStores) {
  GRIDOPS_SKIP_WITHOUT_HWY();
  const uint64_t seed = testing::test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed + 79);
  std::uniform_real_distribution<float> val(-2.0f, 2.0f);
  const Dims sd = {2, 32, 64, 64}, dd = {2, 32, 128, 128};  // 4 MiB of float32 output
  for (const std::string& impl : fast_impls()) {
    for (MemoryFormat f : kFormats) {
      for (ResampleAlgorithm a : {ResampleAlgorithm::kLinear, ResampleAlgorithm::kNearest}) {
        SCOPED_TRACE(impl + " " + format_tag(f, 2) + " " + to_string(a));
        const auto s = md(DType::kFloat32, sd, f), d = md(DType::kFloat32, dd, f);
        if (!accepts(impl, a, s, d)) continue;
        const size_t ns = static_cast<size_t>(*s.buffer_elements());
        const size_t nd = static_cast<size_t>(*d.buffer_elements());
        std::vector<float> x(ns);
        for (auto& v : x) v = val(rng);
        // Unaligned run (a std::vector offset by one element), then an aligned one.
        std::vector<float> xu(ns + 1), yu(nd + 1);
        std::memcpy(xu.data() + 1, x.data(), ns * sizeof(float));
        ResampleDesc desc;
        desc.algorithm = a;
        desc.impl = impl;
        auto plan = make_resample_plan(desc, s, d);
        ASSERT_TRUE(plan.ok());
        ASSERT_TRUE(plan->forward(xu.data() + 1, yu.data() + 1).ok());
        float* xa = static_cast<float*>(std::aligned_alloc(64, (ns * 4 + 63) / 64 * 64));
        float* ya = static_cast<float*>(std::aligned_alloc(64, (nd * 4 + 63) / 64 * 64));
        std::memcpy(xa, x.data(), ns * sizeof(float));
        const bool ok = plan->forward(xa, ya).ok();
        const int cmp = std::memcmp(ya, yu.data() + 1, nd * sizeof(float));
        std::vector<float> got(ya, ya + nd);
        std::free(xa);
        std::free(ya);
        ASSERT_TRUE(ok);
        EXPECT_EQ(cmp, 0);
        // And the values against the reference: nearest bit-exact, linear within the
        // forward bound 2^-20 * sum |w x| (see check_one).
        std::vector<float> want(nd), sum_abs(nd), x_abs(ns);
        for (size_t i = 0; i < ns; ++i) x_abs[i] = std::fabs(x[i]);
        ResampleDesc ref_desc = desc;
        ref_desc.impl = "ref";
        auto ref = make_resample_plan(ref_desc, s, d);
        ASSERT_TRUE(ref.ok());
        ASSERT_TRUE(ref->forward(x.data(), want.data()).ok());
        ASSERT_TRUE(ref->forward(x_abs.data(), sum_abs.data()).ok());
        for (size_t i = 0; i < nd; ++i) {
          const double bound = a == ResampleAlgorithm::kNearest ? 0.0 : std::ldexp(1.0, -20) * sum_abs[i] * 1.01 + 1e-37;
          ASSERT_LE(std::fabs(static_cast<double>(got[i]) - want[i]), bound)
              << "buffer element " << i << ": got " << got[i] << ", ref " << want[i];
        }
      }
    }
  }
}

// NaN and infinity propagate as in the reference (a zero-weight linear tap still
// multiplies its value), in every layout.
// bfloat16 linear forward with both tensors channels-last and whole channel vectors runs
// the flat loops (and, downsampling by 2, the fused loop) of resample.channels_vector16:
// they must give the bits of resample.generic (one channel at a time), ranks 1-3, streamed
// (a 64-byte aligned 4 MiB output) or not, NaN payloads, infinities and subnormals included.
TEST(ResampleDiff, BFloat16ChannelVectorsMatchTheGenericPath) {
  GRIDOPS_SKIP_WITHOUT_HWY();
  const uint64_t seed = testing::test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed + 83);
  std::uniform_real_distribution<float> val(-2.0f, 2.0f);
  const uint16_t specials[] = {0x7FC0, 0xFFC1, 0x7F80, 0xFF80, 0x0001, 0x8003, 0x0000, 0x8000};
  struct Case {
    Dims s, d;
  };
  const Case cases[] = {
      {{2, 64, 64, 64}, {2, 64, 128, 128}},  // 2x up, 4 MiB of output: streamed when aligned
      {{2, 64, 32, 64}, {2, 64, 16, 32}},    // 2x down: the fused loop
      {{1, 96, 5, 7}, {1, 96, 9, 13}},
      {{1, 64, 40}, {1, 64, 80}},
      {{1, 64, 80}, {1, 64, 39}},
      {{1, 32, 3, 4, 5}, {1, 32, 5, 7, 9}},
      {{1, 32, 3, 4, 6}, {1, 32, 6, 8, 3}},
  };
  for (const Case& c : cases) {
    const int r = static_cast<int>(c.s.size()) - 2;
    SCOPED_TRACE(format_tag(MemoryFormat::kChannelsLast, r) + " " + std::to_string(c.s[r + 1]) +
                 " -> " + std::to_string(c.d[r + 1]));
    const auto s = md(DType::kBFloat16, c.s, MemoryFormat::kChannelsLast);
    const auto d = md(DType::kBFloat16, c.d, MemoryFormat::kChannelsLast);
    if (!accepts("resample.channels_vector16", ResampleAlgorithm::kLinear, s, d)) continue;
    const size_t ns = static_cast<size_t>(*s.buffer_elements());
    const size_t nd = static_cast<size_t>(*d.buffer_elements());
    auto* x = static_cast<bfloat16*>(std::aligned_alloc(64, (ns * 2 + 63) / 64 * 64));
    for (size_t i = 0; i < ns; ++i) {
      x[i] = f32_to_bf16(val(rng));
      // NaN (quiet and with a payload), infinities, subnormals and signed zeros.
      if (i % 97 == 0) x[i].bits = specials[(i / 97) % 8];
    }
    std::vector<std::vector<uint16_t>> outs;
    for (const char* impl : {"resample.channels_vector16", "resample.generic"}) {
      ResampleDesc desc;
      desc.algorithm = ResampleAlgorithm::kLinear;
      desc.impl = impl;
      auto plan = make_resample_plan(desc, s, d);
      ASSERT_TRUE(plan.ok()) << impl << ": " << plan.status().to_string();
      auto* y = static_cast<bfloat16*>(std::aligned_alloc(64, (nd * 2 + 63) / 64 * 64));
      const bool ok = plan->forward(x, y).ok();
      std::vector<uint16_t> bits(nd);
      for (size_t i = 0; i < nd; ++i) bits[i] = y[i].bits;
      std::free(y);
      ASSERT_TRUE(ok) << impl;
      outs.push_back(std::move(bits));
    }
    std::free(x);
    const size_t first = first_difference(outs[0], outs[1]);
    EXPECT_EQ(first, nd) << "first differing element " << first << ": channels_vector16 0x" << std::hex
                         << (first < nd ? outs[0][first] : 0) << ", generic 0x"
                         << (first < nd ? outs[1][first] : 0);
  }
}

// resample.channels_bf16 (bfloat16 linear forward, both tensors channels-last with C a
// multiple of 16 or both blocked by 16, AVX512_BF16 CPUs): the same bits as
// resample.channels_vector16, whose arithmetic it repeats with other conversion
// instructions and loops, on W downsamplings (exact 2x and others: its direct loop) and on
// W upsamplings, equal sizes and downsamplings by less than 2 (its column cache: exact 2x
// and 3x up, arbitrary ratios, taps repeated at the edges), ranks 1-3, odd sizes, C not a
// multiple of 16 (blocked: padded lanes hold NaN on input and must come out +0), channel
// counts that leave strips of 64, 32 and 16 channels, NaN payloads, infinities, subnormal
// inputs and results (the conversion instruction flushes float32 subnormals, so those pairs
// take the integer rounding); also within the linear bound of "ref" (check_problem) and,
// for 4 and 16 MiB 64-byte aligned outputs, streamed.
TEST(ResampleDiff, BFloat16PathMatchesChannelVectors) {
  GRIDOPS_SKIP_WITHOUT_HWY();
  const uint64_t seed = testing::test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed + 85);
  std::uniform_int_distribution<int> pick(0, 1 << 30);
  auto uni = [&](int lo, int hi) { return lo + pick(rng) % (hi - lo + 1); };
  std::uniform_real_distribution<float> val(-2.0f, 2.0f);
  const uint16_t specials[] = {0x7FC0, 0xFFC1, 0x7F81, 0x7F80, 0xFF80, 0x0001,
                               0x8003, 0x007F, 0x0000, 0x8000};
  const std::string lacks = host_lacks("resample.channels_bf16");
  if (!lacks.empty()) GTEST_SKIP() << "resample.channels_bf16 cannot run here: " << lacks;
  Stats stats;
  int taken = 0;
  auto one = [&](const Dims& sd, const Dims& dd, MemoryFormat f, int data_kind, bool big) {
    const int r = static_cast<int>(sd.size()) - 2;
    const auto s = md(DType::kBFloat16, sd, f), d = md(DType::kBFloat16, dd, f);
    SCOPED_TRACE(dims_to_string(sd) + " -> " + dims_to_string(dd) + " " + format_tag(f, r) +
                 " data " + std::to_string(data_kind));
    if (!accepts("resample.channels_bf16", ResampleAlgorithm::kLinear, s, d)) {
      // Only the host (the CPU, the cap) may keep this path from these problems.
      ResampleDesc desc;
      desc.algorithm = ResampleAlgorithm::kLinear;
      desc.impl = "resample.channels_bf16";
      ADD_FAILURE() << "resample.channels_bf16 declines: "
                    << make_resample_plan(desc, s, d).status().to_string();
      return;
    }
    ++taken;
    const std::vector<char> cov = covered(s);
    const size_t ns = cov.size();
    const size_t nd = static_cast<size_t>(*d.buffer_elements());
    auto* x = static_cast<bfloat16*>(std::aligned_alloc(64, (ns * 2 + 63) / 64 * 64 + 64));
    for (size_t i = 0; i < ns; ++i) {
      float v = val(rng);
      if (data_kind == 1) v = std::ldexp(v, -128);  // many float32 subnormal results
      x[i] = f32_to_bf16(v);
      if (data_kind == 2 && i % 89 == 0) x[i].bits = specials[(i / 89) % 10];
      if (!cov[i]) x[i].bits = 0x7FC1;  // padded channels: must be ignored
    }
    // Aligned (streams when 4 MiB or more) and offset by one element (never streams).
    std::vector<std::vector<uint16_t>> outs;
    for (const char* impl : {"resample.channels_bf16", "resample.channels_vector16"}) {
      for (int offset : {0, 1}) {
        if (!big && offset == 1) continue;
        ResampleDesc desc;
        desc.algorithm = ResampleAlgorithm::kLinear;
        desc.impl = impl;
        auto plan = make_resample_plan(desc, s, d);
        ASSERT_TRUE(plan.ok()) << impl << ": " << plan.status().to_string();
        auto* y = static_cast<bfloat16*>(std::aligned_alloc(64, (nd * 2 + 63) / 64 * 64 + 64));
        for (size_t i = 0; i < nd + 1; ++i) y[i].bits = 0x1234;  // poison
        const bool ok = plan->forward(x, y + offset).ok();
        std::vector<uint16_t> bits(nd);
        for (size_t i = 0; i < nd; ++i) bits[i] = y[offset + i].bits;
        std::free(y);
        ASSERT_TRUE(ok) << impl;
        outs.push_back(std::move(bits));
      }
    }
    std::free(x);
    for (size_t k = 1; k < outs.size(); ++k) {
      const size_t first = first_difference(outs[0], outs[k]);
      EXPECT_EQ(first, nd) << "run " << k << ": first differing element " << first
                           << ": channels_bf16 0x" << std::hex
                           << (first < nd ? outs[0][first] : 0) << ", other 0x"
                           << (first < nd ? outs[k][first] : 0);
    }
    // Against the reference, within the stated bound (random data of its own).
    if (!big && data_kind == 0) {
      check_problem("resample.channels_bf16", taken, DType::kBFloat16, ResampleAlgorithm::kLinear,
                    sd, f, dd, f, rng, &stats);
    }
  };
  static const int64_t kClChannels[] = {16, 32, 48, 64, 80, 96, 128};
  static const int64_t kBlockedChannels[] = {1, 5, 16, 20, 33, 48, 64};
  for (int it = 0; it < 240; ++it) {
    const int r = 1 + it % 3;
    const bool cl = (it / 3) % 2 == 0;
    const bool down = (it / 6) % 2 == 0;  // W: the direct loop; else the column cache
    const MemoryFormat f = cl ? MemoryFormat::kChannelsLast : MemoryFormat::kBlocked16;
    Dims sd = {uni(1, 2), cl ? kClChannels[uni(0, 6)] : kBlockedChannels[uni(0, 6)]};
    Dims dd = sd;
    for (int k = 0; k < r; ++k) {
      const bool last = k == r - 1;
      int64_t in = last ? uni(2, r == 3 ? 24 : 61) : uni(1, r == 3 ? 5 : 9);
      int64_t out;
      if (last && !down) {
        in = uni(1, r == 3 ? 12 : 30);
        switch (uni(0, 4)) {
          case 0: out = 2 * in; break;  // exact 2x (0.25 / 0.75 weights)
          case 1: out = 3 * in; break;
          case 2: out = in; break;
          case 3: out = uni(static_cast<int>(in / 2) + 1, static_cast<int>(in)); break;
          default: out = uni(static_cast<int>(in) + 1, static_cast<int>(4 * in) + 1); break;
        }
      } else if (last) {
        switch (uni(0, 3)) {
          case 0: in += in % 2; out = in / 2; break;        // exact 2x (0.5 / 0.5 weights)
          case 1: out = in / 2; break;                       // odd sizes: floor(I / 2)
          case 2: out = std::max<int64_t>(1, in / 3); break;
          default: out = uni(1, static_cast<int>(in / 2)); break;
        }
      } else {
        switch (uni(0, 3)) {
          case 0: out = std::max<int64_t>(1, in / 2); break;
          case 1: out = in * 2; break;
          case 2: out = in; break;
          default: out = uni(1, 12); break;
        }
      }
      sd.push_back(in);
      dd.push_back(out);
    }
    // The data kind changes every 12 problems, so that every (rank, layout, W loop)
    // combination, which repeats every 12, meets each kind.
    const int kind = (it / 12) % 4;
    one(sd, dd, f, kind == 1 ? 1 : (kind == 2 ? 2 : 0), false);
    if (::testing::Test::HasFatalFailure()) return;
  }
  // Exact 2x both ways with W5c's and W5a's shapes, 4 and 16 MiB of output: streamed when
  // aligned; odd output widths (blocked: a last pixel stored alone).
  for (MemoryFormat f : {MemoryFormat::kChannelsLast, MemoryFormat::kBlocked16}) {
    one({1, 48, 34, 98}, {1, 48, 17, 49}, f, 2, false);
    one({1, 80, 9, 13}, {1, 80, 18, 27}, f, 2, false);
    one({8, 64, 128, 128}, {8, 64, 64, 64}, f, 2, true);
    one({8, 64, 64, 64}, {8, 64, 128, 128}, f, 2, true);
    if (::testing::Test::HasFatalFailure()) return;
  }
  EXPECT_GT(taken, 0);
  std::printf("[ resample.channels_bf16 ] %d problems taken, worst error / bound %.3g\n", taken,
              stats.worst_ratio);
}

#ifdef GRIDOPS_HAVE_HWY
// resample.channels_vector16's float32 linear forward with 1 or 2 spatial axes computes
// each output directly from the outer interpolation at its W taps (NOTE [ Resample direct
// linear forward ]); the test-only entry resample.channels_vector16_scratch_row fills its
// scratch row first (ResampleFastTables::direct_linear). The
// two must give the same bits: W up by 2 and 3, equal widths, arbitrary up and down,
// down by 2 and more; channels-last (C a multiple of 16: one flat group when there are
// enough tasks) and blocked by 16 (C not a multiple of 16 too: the full groups direct, the
// partial one through the row); 1 and 2 threads; NaN payloads, infinities and subnormals;
// 64-byte aligned (streamed from 4 MiB) and offset by one element. Also within the linear
// bound of "ref" (check_problem).
TEST(ResampleDiff, DirectLinearForwardMatchesScratchRow) {
  GRIDOPS_SKIP_WITHOUT_HWY();
  const uint64_t seed = testing::test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed + 87);
  std::uniform_int_distribution<int> pick(0, 1 << 30);
  auto uni = [&](int lo, int hi) { return lo + pick(rng) % (hi - lo + 1); };
  std::uniform_real_distribution<float> val(-2.0f, 2.0f);
  const uint32_t specials[] = {0x7FC00000, 0xFFC00123, 0x7F800000, 0xFF800000,
                               0x00000001, 0x80000003, 0x00000000, 0x80000000};
  const int threads_before = get_num_threads();
  Stats stats;
  int taken = 0;
  auto one = [&](const Dims& sd, const Dims& dd, MemoryFormat f, bool specials_in, bool big) {
    const int r = static_cast<int>(sd.size()) - 2;
    const auto s = md(DType::kFloat32, sd, f), d = md(DType::kFloat32, dd, f);
    SCOPED_TRACE(dims_to_string(sd) + " -> " + dims_to_string(dd) + " " + format_tag(f, r));
    ASSERT_TRUE(accepts("resample.channels_vector16", ResampleAlgorithm::kLinear, s, d));
    ++taken;
    const std::vector<char> cov = covered(s);
    const size_t ns = cov.size();
    const size_t nd = static_cast<size_t>(*d.buffer_elements());
    auto* x = static_cast<float*>(std::aligned_alloc(64, (ns * 4 + 63) / 64 * 64));
    for (size_t i = 0; i < ns; ++i) {
      x[i] = val(rng);
      if (specials_in && i % 89 == 0) x[i] = std::bit_cast<float>(specials[(i / 89) % 8]);
      if (!cov[i]) x[i] = std::bit_cast<float>(uint32_t{0x7FC00001});  // padding: ignored
    }
    ResampleDesc desc;
    desc.algorithm = ResampleAlgorithm::kLinear;
    desc.impl = "resample.channels_vector16";
    auto plan = make_resample_plan(desc, s, d);
    ASSERT_TRUE(plan.ok()) << plan.status().to_string();
    desc.impl = "resample.channels_vector16_scratch_row";
    auto scratch_plan = make_resample_plan(desc, s, d);
    ASSERT_TRUE(scratch_plan.ok()) << scratch_plan.status().to_string();
    std::vector<std::vector<uint32_t>> outs;
    for (bool scratch : {false, true}) {
      for (int threads : {1, 2}) {
        for (int offset : {0, 1}) {
          if (!big && (offset == 1 || threads == 2)) continue;
          auto* y = static_cast<float*>(std::aligned_alloc(64, (nd * 4 + 63) / 64 * 64 + 64));
          for (size_t i = 0; i < nd + 1; ++i) y[i] = 123.0f;  // poison
          set_num_threads(threads);
          const bool ok = (scratch ? *scratch_plan : *plan).forward(x, y + offset).ok();
          set_num_threads(threads_before);
          std::vector<uint32_t> bits(nd);
          std::memcpy(bits.data(), y + offset, nd * 4);
          std::free(y);
          ASSERT_TRUE(ok);
          outs.push_back(std::move(bits));
        }
      }
    }
    std::free(x);
    for (size_t k = 1; k < outs.size(); ++k) {
      const size_t first = first_difference(outs[0], outs[k]);
      EXPECT_EQ(first, nd) << "run " << k << " (scratch row from run " << outs.size() / 2
                           << "): first differing element " << first << ": direct 0x"
                           << std::hex << (first < nd ? outs[0][first] : 0) << ", other 0x"
                           << (first < nd ? outs[k][first] : 0);
    }
    if (!big && !specials_in) {
      check_problem("resample.channels_vector16", taken, DType::kFloat32,
                    ResampleAlgorithm::kLinear, sd, f, dd, f, rng, &stats);
    }
  };
  static const int64_t kClChannels[] = {16, 32, 48, 64, 80, 128};
  static const int64_t kBlockedChannels[] = {5, 16, 20, 33, 48, 64};
  for (int it = 0; it < 120; ++it) {
    const int r = 1 + it % 2;
    const bool cl = (it / 2) % 2 == 0;
    const MemoryFormat f = cl ? MemoryFormat::kChannelsLast : MemoryFormat::kBlocked16;
    Dims sd = {uni(1, 3), cl ? kClChannels[uni(0, 5)] : kBlockedChannels[uni(0, 5)]};
    Dims dd = sd;
    if (r == 2) {
      const int64_t h = uni(1, 9);
      sd.push_back(h);
      dd.push_back(uni(0, 2) == 0 ? h : uni(1, 18));
    }
    const int64_t in = uni(1, 60);
    int64_t out;
    switch (uni(0, 5)) {
      case 0: out = 2 * in; break;
      case 1: out = 3 * in; break;
      case 2: out = in; break;
      case 3: out = uni(1, 4 * static_cast<int>(in) + 1); break;
      case 4: out = std::max<int64_t>(1, in / 2); break;
      default: out = std::max<int64_t>(1, in / uni(2, 5)); break;
    }
    sd.push_back(in);
    dd.push_back(out);
    one(sd, dd, f, (it / 4) % 3 == 2, false);
    if (::testing::Test::HasFatalFailure()) return;
  }
  // W5a's shape (32 MiB of output, streamed when aligned) and a long 1-D row (one flat
  // group where the scratch row would have split the channels).
  for (MemoryFormat f : {MemoryFormat::kChannelsLast, MemoryFormat::kBlocked16}) {
    one({8, 64, 64, 64}, {8, 64, 128, 128}, f, true, true);
    one({8, 64, 2048}, {8, 64, 4095}, f, true, true);
    if (::testing::Test::HasFatalFailure()) return;
  }
  std::printf("[ direct linear forward ] %d problems taken, worst error / bound %.3g\n", taken,
              stats.worst_ratio);
}
#endif

// The channels-last nearest forward streams only when input and output together take
// 32 MiB or more (NOTE [ Nearest forward store policy ]); below that it copies pixels with
// ordinary stores (LargeAlignedOutputsUseStreamingStores covers that case). Here 8 MiB in
// and 32 MiB out, float32, 2x up: the streamed (64-byte aligned) output must hold the same
// bits as the unaligned, unstreamed run, and be the source's pixels.
TEST(ResampleDiff, LargeWorkingSetNearestChannelsLastStreams) {
  GRIDOPS_SKIP_WITHOUT_HWY();
  const Dims sd = {2, 64, 128, 128}, dd = {2, 64, 256, 256};
  const auto s = md(DType::kFloat32, sd, MemoryFormat::kChannelsLast);
  const auto d = md(DType::kFloat32, dd, MemoryFormat::kChannelsLast);
  const size_t ns = static_cast<size_t>(*s.buffer_elements());
  const size_t nd = static_cast<size_t>(*d.buffer_elements());
  ResampleDesc desc;
  desc.algorithm = ResampleAlgorithm::kNearest;
  desc.impl = "resample.channels_vector16";
  auto plan = make_resample_plan(desc, s, d);
  ASSERT_TRUE(plan.ok()) << plan.status().to_string();
  auto* xa = static_cast<float*>(std::aligned_alloc(64, ns * sizeof(float)));
  auto* ya = static_cast<float*>(std::aligned_alloc(64, nd * sizeof(float)));
  for (size_t i = 0; i < ns; ++i) xa[i] = static_cast<float>(i % 1000003) * 0.5f;
  std::vector<float> xu(ns + 1), yu(nd + 1);
  std::memcpy(xu.data() + 1, xa, ns * sizeof(float));
  const bool ok_a = plan->forward(xa, ya).ok();
  const bool ok_u = plan->forward(xu.data() + 1, yu.data() + 1).ok();
  const int cmp = std::memcmp(ya, yu.data() + 1, nd * sizeof(float));
  // Nearest 2x up: output pixel (n, oh, ow) is input pixel (n, oh / 2, ow / 2).
  size_t bad = nd;
  const int64_t C = 64, OH = 256, OW = 256, IH = 128, IW = 128;
  for (int64_t n = 0; n < 2 && bad == nd; ++n) {
    for (int64_t oh = 0; oh < OH && bad == nd; ++oh) {
      for (int64_t ow = 0; ow < OW && bad == nd; ++ow) {
        const float* src = xa + ((n * IH + oh / 2) * IW + ow / 2) * C;
        const size_t o = static_cast<size_t>(((n * OH + oh) * OW + ow) * C);
        if (std::memcmp(ya + o, src, C * sizeof(float)) != 0) bad = o;
      }
    }
  }
  std::free(xa);
  std::free(ya);
  ASSERT_TRUE(ok_a);
  ASSERT_TRUE(ok_u);
  EXPECT_EQ(cmp, 0);
  EXPECT_EQ(bad, nd) << "first wrong pixel at element " << bad;
}

TEST(ResampleDiff, NonFiniteValuesPropagateLikeRef) {
  GRIDOPS_SKIP_WITHOUT_HWY();
  for (const std::string& impl : fast_impls()) {
    for (MemoryFormat f : kFormats) {
      const auto s = md(DType::kFloat32, {1, 3, 4, 5}, f);
      const auto d = md(DType::kFloat32, {1, 3, 8, 10}, f);
      if (!accepts(impl, ResampleAlgorithm::kLinear, s, d)) continue;
      std::vector<float> x(static_cast<size_t>(*s.buffer_elements()), 1.0f);
      x[s.offset(Dims{0, 1, 2, 3})] = INFINITY;
      x[s.offset(Dims{0, 2, 0, 0})] = NAN;
      for (ResampleAlgorithm a : {ResampleAlgorithm::kLinear, ResampleAlgorithm::kNearest}) {
        const auto got = run<float>(impl, a, s, d, x, false);
        const auto want = run<float>("ref", a, s, d, x, false);
        for (size_t i = 0; i < got.size(); ++i) {
          ASSERT_EQ(std::isnan(got[i]), std::isnan(want[i])) << i;
          if (!std::isnan(got[i])) {
            ASSERT_EQ(got[i], want[i]) << i;
          }
        }
      }
      // Nearest backward: sums of ones are exact, so every element matches, infinities and
      // NaN included (+inf and -inf meeting in one sum give NaN).
      std::vector<float> gy(static_cast<size_t>(*d.buffer_elements()), 1.0f);
      gy[d.offset(Dims{0, 1, 4, 6})] = INFINITY;
      gy[d.offset(Dims{0, 1, 4, 7})] = -INFINITY;
      gy[d.offset(Dims{0, 0, 2, 2})] = INFINITY;
      gy[d.offset(Dims{0, 2, 7, 9})] = NAN;
      const auto got = run<float>(impl, ResampleAlgorithm::kNearest, s, d, gy, true);
      const auto want = run<float>("ref", ResampleAlgorithm::kNearest, s, d, gy, true);
      int nonfinite = 0;
      for (size_t i = 0; i < got.size(); ++i) {
        ASSERT_EQ(std::isnan(got[i]), std::isnan(want[i])) << i;
        if (!std::isnan(got[i])) {
          ASSERT_EQ(got[i], want[i]) << i;
        }
        nonfinite += std::isfinite(want[i]) ? 0 : 1;
      }
      EXPECT_EQ(nonfinite, 3);
    }
  }
}

// Nearest backward into a diff_src of 4 MiB and more from 64-byte aligned buffers takes the
// non-temporal stores of the channel-vector path: the same bits as the unaligned run.
TEST(ResampleDiff, LargeAlignedNearestBackwardStreams) {
  GRIDOPS_SKIP_WITHOUT_HWY();
  const uint64_t seed = testing::test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed + 81);
  std::uniform_real_distribution<float> val(-2.0f, 2.0f);
  const Dims sd = {2, 32, 128, 128}, dd = {2, 32, 256, 256};  // 4 MiB of float32 diff_src
  for (const std::string& impl : fast_impls()) {
    for (MemoryFormat f : {MemoryFormat::kChannelsLast, MemoryFormat::kBlocked16}) {
      SCOPED_TRACE(impl + " " + format_tag(f, 2));
      const auto s = md(DType::kFloat32, sd, f), d = md(DType::kFloat32, dd, f);
      if (!accepts(impl, ResampleAlgorithm::kNearest, s, d)) continue;
      const size_t ns = static_cast<size_t>(*s.buffer_elements());
      const size_t nd = static_cast<size_t>(*d.buffer_elements());
      std::vector<float> gy(nd);
      for (auto& v : gy) v = val(rng);
      ResampleDesc desc;
      desc.algorithm = ResampleAlgorithm::kNearest;
      desc.impl = impl;
      auto plan = make_resample_plan(desc, s, d);
      ASSERT_TRUE(plan.ok());
      std::vector<float> gu(nd + 1), xu(ns + 1);
      std::memcpy(gu.data() + 1, gy.data(), nd * sizeof(float));
      ASSERT_TRUE(plan->backward(gu.data() + 1, xu.data() + 1).ok());
      float* ga = static_cast<float*>(std::aligned_alloc(64, (nd * 4 + 63) / 64 * 64));
      float* xa = static_cast<float*>(std::aligned_alloc(64, (ns * 4 + 63) / 64 * 64));
      std::memcpy(ga, gy.data(), nd * sizeof(float));
      const bool ok = plan->backward(ga, xa).ok();
      const int cmp = std::memcmp(xa, xu.data() + 1, ns * sizeof(float));
      std::vector<float> got(xa, xa + ns);
      std::free(ga);
      std::free(xa);
      ASSERT_TRUE(ok);
      EXPECT_EQ(cmp, 0);
      // And within the nearest backward bound of ref (4 terms each, 2x up on both axes).
      const auto want = run<float>("ref", ResampleAlgorithm::kNearest, s, d, gy, true);
      std::vector<float> gabs(nd);
      for (size_t i = 0; i < nd; ++i) gabs[i] = std::fabs(gy[i]);
      const auto sum_abs = run<float>("ref", ResampleAlgorithm::kNearest, s, d, gabs, true);
      for (size_t i = 0; i < ns; ++i) {
        ASSERT_LE(std::fabs(static_cast<double>(got[i]) - want[i]),
                  nearest_bwd_bound(false, 4.0, sum_abs[i]))
            << "buffer element " << i << ": got " << got[i] << ", ref " << want[i];
      }
    }
  }
}

}  // namespace
}  // namespace gridops
