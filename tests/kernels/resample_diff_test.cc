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

#include "kernels/resample_diff_util.h"

namespace gridops {
namespace {

using namespace resample_diff;  // NOLINT(google-build-using-namespace)


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
    check_random_problems(77 + 1000 * k, 50, mixed_problem, targets[k]);
    check_random_problems(80 + 1000 * k, 10, long_row_problem, targets[k]);
    if (::testing::Test::HasFailure()) return;
  }
}

// The problem of GRIDOPS_RERUN (the line a failing check prints), alone. Without it: a
// fixed line, which must read back to the same line and run on the automatic choice.
TEST(ResampleDiff, Rerun) {
  GRIDOPS_SKIP_WITHOUT_HWY();
  const auto r = testing::rerun_problem<ResampleTester>(
      "resample",
      "resample impl=fast dtype=bfloat16 algorithm=linear src=2x19x5x7 src_format=nChw16c "
      "dst=2x19x11x3 dst_format=nChw16c target=best seed=3");
  ASSERT_TRUE(r.has_value());
  Stats stats;
  EXPECT_TRUE(r->tester.test(r->impl, &stats)) << "'" << r->impl << "' declines this problem";
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


}  // namespace
}  // namespace gridops
