// Differential tests: every fast GridSample implementation against "ref" over random
// problems (sizes including 1 and odd sizes, both layouts, strided src, grids inside and
// far outside [-1, 1], NaN, +-inf and huge grid values, half-pixel ties, every mode x
// padding x align_corners, float32/float16/bfloat16 src and grid), 1 vs 2 threads, and the
// benchmark workloads' implementation choice.
//
// NOTE [ GridSample fast path tolerance ]
// nearest: bit-exact (a selection; coordinates are computed with the reference's exact
// operation sequence, ties to even by the same rule, and lanes with non-finite or huge
// coordinates go through the reference's scalar formulas).
// linear/cubic: |fast - ref| <= NT * 2^-20 * max|src| (+ one unit in the last place of
// the output type for float16/bfloat16, since a tiny float difference can flip the final
// rounding), NT = 2^r or 4^r taps. Why: the taps and the unnormalized coordinates are the
// same, but the fast path evaluates the weight polynomials and the weighted sum with FMAs
// (one rounding instead of two) and rounds weight products in its own order. Each weight
// is in [-0.75, 1.25] and is computed from t in [0, 1) with a handful of operations on
// values below 8, so it differs from the reference's by a few units of 2^-24; each product
// of r <= 3 weights adds at most r more; each of the NT accumulation steps adds at most
// 2^-24 * sum|w v|. Together this is well below 16 * 2^-24 = 2^-20 per tap times max|src|.
#include "kernels/grid_sample_tester.h"

namespace gridops {
namespace {

TEST(GridSampleDiff, RandomProblemsAgainstRef) {
  GRIDOPS_SKIP_WITHOUT_HWY();
  random_problems_against_ref(testing::test_seed(), 2400);
}

// The other Highway targets this CPU runs (AVX2, SSE4, ... below the best one, which the
// test above covers): fewer problems each, the same generator.
TEST(GridSampleDiff, EveryHighwayTarget) {
  GRIDOPS_SKIP_WITHOUT_HWY();
  const std::vector<int64_t> targets = testing::hwy_targets();
  for (size_t k = 1; k < targets.size(); ++k) {
    random_problems_against_ref(testing::test_seed() + k, 400, targets[k]);
    if (::testing::Test::HasFailure()) return;
  }
}

// The problem of GRIDOPS_RERUN (the line a failing check prints), alone. Without it: a
// fixed line, which must read back to the same line and run.
TEST(GridSampleDiff, Rerun) {
  GRIDOPS_SKIP_WITHOUT_HWY();
  const auto r = testing::rerun_problem<GridSampleTester>(
      "grid_sample",
      "grid_sample impl=auto mode=cubic padding=reflection ac=0 layout=channels_first "
      "units=normalized kind=displacement fill=0 src=float32 src_shape=2x3x7x9 grid=float16 "
      "grid_shape=2x11x5x2 views=sg threads=2 target=best seed=12345");
  ASSERT_TRUE(r.has_value());
  EXPECT_TRUE(r->tester.test(r->impl)) << "'" << r->impl << "' declines this problem";
}

TEST(GridSampleDiff, OneAndTwoThreadsBitIdentical) {
  GRIDOPS_SKIP_WITHOUT_HWY();
  const uint64_t seed = testing::test_seed();
  SCOPED_TRACE("GRIDOPS_SEED=" + std::to_string(seed));
  std::mt19937_64 rng(seed + 1);
  // Big enough that the fast path really splits the work over two threads (it keeps
  // small problems on one thread).
  for (const std::string& impl : fast_impls()) {
    for (int i = 0; i < 36; ++i) {
      Problem p = random_problem(rng, 1);
      const int r = i % 3 == 2 ? 3 : 2;
      p.desc.mode = static_cast<IM>(i % 3);
      p.desc.padding = static_cast<GP>((i / 3) % 3);
      p.desc.fill_value = 0.0;
      p.desc.layout = i % 2 ? ChannelLayout::kChannelsLast : ChannelLayout::kChannelsFirst;
      const int64_t c = 3;
      const Dims in = r == 2 ? Dims{13, 17} : Dims{5, 6, 7};
      const Dims out = r == 2 ? Dims{160, 201} : Dims{20, 30, 41};
      p.src_shape = {2};
      p.grid_shape = {2};
      if (p.desc.layout == ChannelLayout::kChannelsFirst) p.src_shape.push_back(c);
      for (int64_t v : in) p.src_shape.push_back(v);
      if (p.desc.layout == ChannelLayout::kChannelsLast) p.src_shape.push_back(c);
      for (int64_t v : out) p.grid_shape.push_back(v);
      p.grid_shape.push_back(r);
      SCOPED_TRACE("problem " + std::to_string(i) + ": " + describe(p) + " impl " + impl);
      if (declines(p, impl)) continue;
      Tensor src(p.src_dtype, p.src_shape), grid(p.grid_dtype, p.grid_shape);
      testing::fill_random(src, rng, -1.0, 1.0);
      fill_grid(grid, rng, p);
      set_num_threads(1);
      const Tensor one = run_impl(p, impl, src.view(), grid.view());
      set_num_threads(2);
      const Tensor two = run_impl(p, impl, src.view(), grid.view());
      set_num_threads(0);
      int64_t where = -1;
      EXPECT_TRUE(testing::bitwise_equal(one, two, &where)) << "first difference at " << where;
    }
  }
}


// NOTE [ GridSample channel blocks ] (grid_sample_blocked_hwy.cc): channels-first float32 with
// >= 8 channels runs on a channel-blocked copy of src. Every mode, padding and
// align_corners, 2-D and 3-D, channel counts with and without a partial block, strided
// src and dst, against ref (within the tolerance) and against the channels-last fast path
// (the same bits: both accumulate the same taps in the same order), on 1 and 2 threads.
TEST(GridSampleDiff, ChannelBlockedPath) {
  GRIDOPS_SKIP_WITHOUT_HWY();
  const uint64_t seed = testing::test_seed();
  SCOPED_TRACE("GRIDOPS_SEED=" + std::to_string(seed));
  std::mt19937_64 rng(seed + 2);
  const int64_t channels[] = {8, 16, 17, 35};
  for (const std::string& impl : entry_and_automatic("grid_sample.blocked")) {
    for (int i = 0; i < 72; ++i) {
      Problem p = random_problem(rng, 1);
      const int r = i % 4 == 3 ? 3 : 2;
      set_cycled_attributes(p.desc, i);
      p.desc.layout = ChannelLayout::kChannelsFirst;
      p.src_dtype = DType::kFloat32;
      const int64_t c = channels[i % 4];
      const Dims in = r == 2 ? (i % 2 ? Dims{23, 37} : Dims{9, 1}) : Dims{5, 6, 7};
      // Every 6th 2-D problem is big enough that both threads get items (small ones stay
      // on one thread; they still take the split-into-chunks path at 2 threads).
      const Dims out = r == 2 ? (i % 6 == 0 ? Dims{120, 131} : Dims{40, 53}) : Dims{9, 10, 11};
      p.src_shape = {2, c};
      p.grid_shape = {2};
      for (int64_t v : in) p.src_shape.push_back(v);
      for (int64_t v : out) p.grid_shape.push_back(v);
      p.grid_shape.push_back(r);
      p.strided_src = i % 5 == 1;
      p.strided_dst = i % 7 == 2;
      SCOPED_TRACE("problem " + std::to_string(i) + ": " + describe(p) + " impl " + impl);
      if (declines(p, impl)) continue;
      Tensor src(p.src_dtype, p.src_shape), grid(p.grid_dtype, p.grid_shape);
      testing::fill_random(src, rng, -1.0, 1.0);
      fill_grid(grid, rng, p);
      Tensor storage;
      const TensorView src_view =
          p.strided_src ? testing::scrambled_copy(src, storage, p.negative) : src.view();
      const Tensor ref = run_impl(p, "ref", src_view, grid.view());
      set_num_threads(1);
      const Tensor one = run_impl(p, impl, src_view, grid.view());
      set_num_threads(2);
      const Tensor two = run_impl(p, impl, src_view, grid.view());
      set_num_threads(0);
      expect_close(p, ref, one, 1.0);
      int64_t where = -1;
      EXPECT_TRUE(testing::bitwise_equal(one, two, &where)) << "1 vs 2 threads at " << where;
      Problem q = p;
      q.desc.layout = ChannelLayout::kChannelsLast;
      q.src_shape = to_channels_last(src).shape();
      q.strided_src = q.strided_dst = false;
      const Tensor src_cl = to_channels_last(src);
      const Tensor last = run_impl(q, "", src_cl.view(), grid.view());  // channels-last's path
      EXPECT_TRUE(testing::bitwise_equal(to_channels_last(one), last, &where))
          << "channels-first vs channels-last at " << where;
      if (::testing::Test::HasFailure()) return;
    }
  }
}

// NOTE [ GridSample fused small-channel path ] (grid_sample_fused_small_c_hwy.cc): 2-D float32 with at
// most 4 channels, a dense float32 grid and a dense dst computes taps and samples per
// vector of points, channels-first and channels-last. Every mode, padding and
// align_corners, 1-4 channels, widths below and above the tap count, output sizes with
// and without a partial last vector or tile, grids with NaN, +-inf and huge values:
// against ref (within the tolerance), against the same problem with the grid read through
// a strided view (which takes the per-block path: the same bits), on 1 vs 2 threads, and
// channels-first against channels-last (the same bits).
TEST(GridSampleDiff, FusedSmallChannelPath) {
  GRIDOPS_SKIP_WITHOUT_HWY();
  const uint64_t seed = testing::test_seed();
  SCOPED_TRACE("GRIDOPS_SEED=" + std::to_string(seed));
  std::mt19937_64 rng(seed + 4);
  const Dims ins[] = {{1, 1}, {7, 1}, {1, 3}, {9, 13}, {40, 37}};
  const Dims outs[] = {{3, 5}, {1, 70}, {33, 47}, {64, 64}, {150, 170}};
  for (const std::string& impl : entry_and_automatic("grid_sample.fused_small_c")) {
    for (int i = 0; i < 90; ++i) {
      Problem p;
      set_cycled_attributes(p.desc, i);
      p.desc.layout = ChannelLayout::kChannelsFirst;
      const int64_t c = 1 + (i / 2) % 4;
      const Dims& in = ins[i % 5];
      const Dims& out = outs[(i / 5) % 5];
      p.src_shape = {1 + i % 2, c, in[0], in[1]};
      p.grid_shape = {1 + i % 2, out[0], out[1], 2};
      SCOPED_TRACE("problem " + std::to_string(i) + ": " + describe(p) + " impl " + impl);
      if (declines(p, impl)) continue;
      Tensor src(p.src_dtype, p.src_shape), grid(p.grid_dtype, p.grid_shape);
      testing::fill_random(src, rng, -1.0, 1.0);
      fill_grid(grid, rng, p);
      Tensor grid_storage;
      const TensorView strided_grid = testing::scrambled_copy(grid, grid_storage, i % 2 == 1);
      // One layout: against ref, on 1 vs 2 threads, and against the per-block path (the
      // grid read through a strided view) bit for bit; returns the 1-thread result.
      auto check = [&](const Problem& pb, const TensorView& sv, const char* layout) -> Tensor {
        SCOPED_TRACE(layout);
        // An entry of one layout only (grid_sample.pairs) runs the other one automatically.
        const std::string impl_here = declines(pb, impl) ? std::string() : impl;
        const Tensor ref = run_impl(pb, "ref", sv, grid.view());
        set_num_threads(1);
        Tensor one = run_impl(pb, impl_here, sv, grid.view());
        set_num_threads(2);
        const Tensor two = run_impl(pb, impl_here, sv, grid.view());
        set_num_threads(0);
        expect_close(pb, ref, one, 1.0);
        int64_t where = -1;
        EXPECT_TRUE(testing::bitwise_equal(one, two, &where)) << "1 vs 2 threads at " << where;
        const Tensor block = run_impl(pb, impl_here, sv, strided_grid);
        EXPECT_TRUE(testing::bitwise_equal(one, block, &where))
            << "fused vs per-block path at " << where;
        return one;
      };
      const Tensor one = check(p, src.view(), "channels-first");
      // The same problem channels-last: its own fused path, and the same bits as
      // channels-first.
      Problem q = p;
      q.desc.layout = ChannelLayout::kChannelsLast;
      const Tensor src_cl = to_channels_last(src);
      q.src_shape = src_cl.shape();
      const Tensor one_cl = check(q, src_cl.view(), "channels-last");
      int64_t where = -1;
      EXPECT_TRUE(testing::bitwise_equal(to_channels_last(one), one_cl, &where))
          << "channels-first vs channels-last at " << where;
      if (::testing::Test::HasFailure()) return;
    }
  }
}


// A plan holds its tables (grid_sample_fast_prepare) and runs under whatever thread count
// is set when it runs: one plan, run at 1, 2 and 1 threads, gives the same bits each time.
TEST(GridSampleDiff, OnePlanAnyThreadCount) {
  GRIDOPS_SKIP_WITHOUT_HWY();
  std::mt19937_64 rng(testing::test_seed() + 7);
  for (const std::string& impl : fast_impls()) {
    for (int i = 0; i < 6; ++i) {
      Problem p;
      p.desc.mode = static_cast<IM>(i % 3);
      p.desc.padding = static_cast<GP>(i % 3);
      p.desc.fill_value = 0.0;
      p.desc.layout = i % 2 ? ChannelLayout::kChannelsLast : ChannelLayout::kChannelsFirst;
      const int64_t c = i < 3 ? 3 : 17;
      p.src_shape = p.desc.layout == ChannelLayout::kChannelsFirst ? Dims{2, c, 13, 17}
                                                                   : Dims{2, 13, 17, c};
      p.grid_shape = {2, 90, 101, 2};
      SCOPED_TRACE("problem " + std::to_string(i) + ": " + describe(p) + " impl " + impl);
      if (declines(p, impl)) continue;
      Tensor src(p.src_dtype, p.src_shape), grid(p.grid_dtype, p.grid_shape);
      testing::fill_random(src, rng, -1.0, 1.0);
      fill_grid(grid, rng, p);
      GridSampleDesc desc = p.desc;
      desc.impl = impl;
      set_num_threads(1);
      auto plan = make_grid_sample_plan(desc, p.src_dtype, p.src_shape, p.grid_dtype,
                                        p.grid_shape);
      ASSERT_TRUE(plan.ok()) << plan.status().to_string();
      std::vector<Tensor> out;
      for (int threads : {1, 2, 1}) {
        set_num_threads(threads);
        out.emplace_back(p.src_dtype, plan.value().dst_shape());
        ASSERT_TRUE(plan.value().run(src.view(), grid.view(), out.back().mutable_view()).ok());
      }
      set_num_threads(0);
      int64_t where = -1;
      EXPECT_TRUE(testing::bitwise_equal(out[0], out[1], &where)) << "1 vs 2 threads at " << where;
      EXPECT_TRUE(testing::bitwise_equal(out[0], out[2], &where)) << "1 vs 1 threads at " << where;
    }
  }
}

TEST(GridSampleDiff, FastPathTakesTheBenchmarkWorkloads) {
#ifdef GRIDOPS_HAVE_HWY
  struct W {
    Dims src, grid;
    ChannelLayout layout;
  };
  const W workloads[] = {
      {{4, 64, 128, 128}, {4, 128, 128, 2}, ChannelLayout::kChannelsFirst},     // W1
      {{1, 3, 1024, 1024}, {1, 1024, 1024, 2}, ChannelLayout::kChannelsFirst},  // W2
      {{1, 16, 64, 64, 64}, {1, 64, 64, 64, 3}, ChannelLayout::kChannelsFirst},  // W3
      {{4, 128, 128, 64}, {4, 128, 128, 2}, ChannelLayout::kChannelsLast},      // W1 nhwc
  };
  for (const W& w : workloads) {
    for (int m = 0; m < 3; ++m) {
      for (int pad = 0; pad < 3; ++pad) {
        for (int ac = 0; ac < 2; ++ac) {
          for (DType dt : {DType::kFloat32, DType::kFloat16, DType::kBFloat16}) {
            GridSampleDesc desc;
            desc.mode = static_cast<IM>(m);
            desc.padding = static_cast<GP>(pad);
            desc.align_corners = ac;
            desc.layout = w.layout;
            auto plan = make_grid_sample_plan(desc, dt, w.src, DType::kFloat32, w.grid);
            ASSERT_TRUE(plan.ok()) << plan.status().to_string();
            EXPECT_STRNE(plan.value().impl_name(), "ref")
                << dims_to_string(w.src) << " mode " << m << " padding " << pad;
          }
        }
      }
    }
  }
  // And what stays on the reference.
  GridSampleDesc desc;
  auto plan = make_grid_sample_plan(desc, DType::kFloat64, Dims{1, 1, 4, 4}, DType::kFloat32,
                                    Dims{1, 2, 2, 2});
  ASSERT_TRUE(plan.ok());
  EXPECT_STREQ(plan.value().impl_name(), "ref");
#else
  GTEST_SKIP() << "built without Highway: only the reference exists";
#endif
}

}  // namespace
}  // namespace gridops
