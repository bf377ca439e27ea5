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
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "core/convert.h"
#include "gridops/ops/grid_sample.h"
#include "gridops/parallel.h"
#include "kernels/grid_sample/grid_sample.h"
#include "ops/grid_sample_impls.h"
#include "support/entries.h"
#include "support/test_util.h"

namespace gridops {
namespace {

using IM = InterpolationMode;
using GP = GridPadding;

/// The fast implementations to test: every entry of the implementation list but "ref",
/// then the alias "fast" (testing::fast_entries).
std::vector<std::string> fast_impls() {
  return testing::fast_entries(detail::grid_sample_impls());
}

/// A path's own test runs its entry and the automatic choice ("": what an unforced plan
/// picks for the same problems); the random and thread tests cover every entry.
std::vector<std::string> entry_and_automatic(const std::string& name) {
  std::vector<std::string> v;
  for (const std::string& impl : fast_impls()) {
    if (impl == name) v.push_back(impl);
  }
  if (!v.empty()) v.emplace_back();
  return v;
}

void put_float(Tensor& t, int64_t i, float v) {
  switch (t.dtype()) {
    case DType::kFloat32: t.data_as<float>()[i] = v; break;
    case DType::kFloat16: t.data_as<float16>()[i] = convert::store_real<float16>(v); break;
    case DType::kBFloat16: t.data_as<bfloat16>()[i] = convert::store_real<bfloat16>(v); break;
    default: FAIL() << "unexpected dtype";
  }
}

struct Problem {
  GridSampleDesc desc;
  DType src_dtype = DType::kFloat32, grid_dtype = DType::kFloat32;
  Dims src_shape, grid_shape;
  bool strided_src = false, negative = false;
  bool strided_grid = false;  // grid read through a scrambled (non-contiguous) view
  bool strided_dst = false;   // dst written through a column-major view
};

std::string describe(const Problem& p) {
  std::string s = std::string(to_string(p.desc.mode)) + " " + to_string(p.desc.padding) +
                  " ac=" + std::to_string(p.desc.align_corners) + " " +
                  to_string(p.desc.layout) + " src " + to_string(p.src_dtype) + " " +
                  dims_to_string(p.src_shape) + " grid " + to_string(p.grid_dtype) + " " +
                  dims_to_string(p.grid_shape) + (p.strided_src ? " strided" : "") +
                  (p.negative ? " negative" : "") + (p.strided_grid ? " strided-grid" : "") +
                  (p.strided_dst ? " strided-dst" : "");
  return s;
}

Problem random_problem(std::mt19937_64& rng, int index) {
  auto pick = [&](int lo, int hi) {
    return std::uniform_int_distribution<int>(lo, hi)(rng);
  };
  Problem p;
  p.desc.mode = static_cast<IM>(pick(0, 2));
  p.desc.padding = static_cast<GP>(pick(0, 2));
  p.desc.align_corners = pick(0, 1);
  p.desc.layout = pick(0, 2) == 0 ? ChannelLayout::kChannelsLast : ChannelLayout::kChannelsFirst;
  const DType types[] = {DType::kFloat32, DType::kFloat32, DType::kFloat16, DType::kBFloat16};
  p.src_dtype = types[pick(0, 3)];
  p.grid_dtype = types[pick(0, 3)];
  const int r = pick(0, 9) == 0 ? 1 : (pick(0, 2) == 0 ? 3 : 2);
  const int64_t n = pick(1, 2);
  int64_t c = pick(0, 3) == 0 ? 1 : pick(1, 5);
  if (pick(0, 7) == 0) c = pick(15, 21);  // several SIMD vectors of channels, with a tail
  Dims in(static_cast<size_t>(r)), out(static_cast<size_t>(r));
  const int max_in = r == 3 ? 5 : 9;
  const int max_out = r == 3 ? 6 : 12;
  for (int d = 0; d < r; ++d) {
    in[static_cast<size_t>(d)] = pick(0, 4) == 0 ? 1 : pick(1, max_in);
    out[static_cast<size_t>(d)] = pick(0, 4) == 0 ? 1 : pick(1, max_out);
  }
  // Every 50th problem has more output points than one block (several blocks, a tail).
  // (over 2048 points: several blocks, and blocks of several tap sub-blocks).
  if (index % 50 == 0) out = r == 3 ? Dims{13, 14, 15} : (r == 2 ? Dims{47, 53} : Dims{2600});
  p.src_shape.push_back(n);
  if (p.desc.layout == ChannelLayout::kChannelsFirst) p.src_shape.push_back(c);
  for (int64_t v : in) p.src_shape.push_back(v);
  if (p.desc.layout == ChannelLayout::kChannelsLast) p.src_shape.push_back(c);
  p.grid_shape.push_back(n);
  for (int64_t v : out) p.grid_shape.push_back(v);
  p.grid_shape.push_back(r);
  p.strided_src = pick(0, 4) == 0;
  p.negative = pick(0, 1) == 1;
  p.strided_grid = pick(0, 4) == 0;
  p.strided_dst = pick(0, 4) == 0;
  return p;
}

/// Grid values: mostly inside [-1.1, 1.1], some far outside, exact half-pixel ties, and
/// NaN, +-inf and huge values.
void fill_grid(Tensor& g, std::mt19937_64& rng, const Problem& p) {
  std::uniform_real_distribution<float> u(-1.1f, 1.1f), far(-40.0f, 40.0f), u01(0.0f, 1.0f);
  const int r = static_cast<int>(p.grid_shape.back());
  const size_t first_spatial = p.desc.layout == ChannelLayout::kChannelsFirst ? 2 : 1;
  const float special[] = {std::numeric_limits<float>::quiet_NaN(),
                           std::numeric_limits<float>::infinity(),
                           -std::numeric_limits<float>::infinity(), 1e30f, -3e9f, 1e7f};
  const int style = std::uniform_int_distribution<int>(0, 3)(rng);
  for (int64_t i = 0; i < g.num_elements(); ++i) {
    const float q = u01(rng);
    float v;
    if (q < 0.02f) {
      v = special[std::uniform_int_distribution<int>(0, 5)(rng)];
    } else if (style == 1 && q < 0.4f) {
      v = far(rng);
    } else if (style == 2 && q < 0.5f) {
      // A half-pixel position (x = k + 0.5) on this coordinate's axis: a rounding tie.
      const int d = r - 1 - static_cast<int>(i % r);
      const auto len = static_cast<float>(p.src_shape[first_spatial + static_cast<size_t>(d)]);
      const float k = static_cast<float>(std::uniform_int_distribution<int>(-3, 8)(rng)) + 0.5f;
      v = p.desc.align_corners ? (len > 1 ? 2.0f * k / (len - 1.0f) - 1.0f : 0.0f)
                               : (2.0f * k + 1.0f) / len - 1.0f;
    } else {
      v = u(rng);
    }
    put_float(g, i, v);
  }
}

/// True when the entry `impl` declines the problem at plan time (an unimplemented status);
/// any other plan error fails the test.
bool declines(const Problem& p, const std::string& impl) {
  GridSampleDesc desc = p.desc;
  desc.impl = impl;
  auto plan = make_grid_sample_plan(desc, p.src_dtype, p.src_shape, p.grid_dtype, p.grid_shape);
  if (plan.ok()) return false;
  EXPECT_EQ(plan.status().code(), StatusCode::kUnimplemented) << plan.status().to_string();
  return true;
}

/// Runs `impl` ("": the automatic choice) on the problem into a fresh contiguous dst.
Tensor run_impl(const Problem& p, const std::string& impl, const TensorView& src,
                const TensorView& grid) {
  GridSampleDesc desc = p.desc;
  desc.impl = impl;
  auto plan = make_grid_sample_plan(desc, p.src_dtype, p.src_shape, p.grid_dtype, p.grid_shape);
  EXPECT_TRUE(plan.ok()) << plan.status().to_string();
  if (!plan.ok()) return Tensor(p.src_dtype, {0});
  if (!impl.empty() && impl != "fast") {
    EXPECT_EQ(std::string(plan.value().impl_name()), impl);
  }
  Tensor dst(p.src_dtype, plan.value().dst_shape());
  if (!p.strided_dst) {
    const Status st = plan.value().run(src, grid, dst.mutable_view());
    EXPECT_TRUE(st.ok()) << st.to_string();
    return dst;
  }
  // Column-major dst: axis i has stride prod(shape[0..i)).
  const Dims& shape = dst.shape();
  Dims strides(shape.size());
  int64_t acc = 1;
  for (size_t i = 0; i < shape.size(); ++i) {
    strides[i] = acc;
    acc *= shape[i];
  }
  Tensor storage(p.src_dtype, Dims{dst.num_elements()});
  const MutableTensorView view(p.src_dtype, storage.data(), shape, strides);
  const Status st = plan.value().run(src, grid, view);
  EXPECT_TRUE(st.ok()) << st.to_string();
  // Back to row-major.
  const size_t es = dtype_size(p.src_dtype);
  Dims idx(shape.size(), 0);
  for (int64_t flat = 0; flat < dst.num_elements(); ++flat) {
    int64_t off = 0;
    for (size_t i = 0; i < shape.size(); ++i) off += idx[i] * strides[i];
    std::memcpy(static_cast<char*>(dst.data()) + static_cast<size_t>(flat) * es,
                static_cast<const char*>(storage.data()) + static_cast<size_t>(off) * es, es);
    for (size_t i = shape.size(); i-- > 0;) {
      if (++idx[i] < shape[i]) break;
      idx[i] = 0;
    }
  }
  return dst;
}

/// See NOTE [ GridSample fast path tolerance ].
void expect_close(const Problem& p, const Tensor& ref, const Tensor& fast, double max_src) {
  if (p.desc.mode == IM::kNearest) {
    int64_t where = -1;
    EXPECT_TRUE(testing::bitwise_equal(ref, fast, &where))
        << "nearest must be bit-exact; first difference at flat index " << where << ": ref "
        << testing::element_as_double(ref, where) << " fast "
        << testing::element_as_double(fast, where);
    return;
  }
  const int r = static_cast<int>(p.grid_shape.back());
  const int per_axis = p.desc.mode == IM::kLinear ? 2 : 4;
  double nt = 1;
  for (int d = 0; d < r; ++d) nt *= per_axis;
  const double base = nt * std::ldexp(1.0, -20) * max_src;
  const double ulp_rel = p.src_dtype == DType::kFloat16    ? std::ldexp(1.0, -10)
                         : p.src_dtype == DType::kBFloat16 ? std::ldexp(1.0, -7)
                                                           : 0.0;
  const double ulp_min = p.src_dtype == DType::kFloat16 ? std::ldexp(1.0, -24) : 1e-38;
  int failures = 0;
  for (int64_t i = 0; i < ref.num_elements() && failures < 5; ++i) {
    const double a = testing::element_as_double(ref, i), b = testing::element_as_double(fast, i);
    if (std::isnan(a) || std::isnan(b)) {
      if (!(std::isnan(a) && std::isnan(b))) {
        ADD_FAILURE() << "flat index " << i << ": ref " << a << " fast " << b;
        ++failures;
      }
      continue;
    }
    double tol = base;
    if (ulp_rel > 0) tol += std::max(std::fabs(a), std::fabs(b)) * ulp_rel + ulp_min;
    if (!(std::fabs(a - b) <= tol)) {
      ADD_FAILURE() << "flat index " << i << ": ref " << a << " fast " << b << " |diff| "
                    << std::fabs(a - b) << " > tol " << tol;
      ++failures;
    }
  }
}

// `count` random problems from `seed`, each checked against ref with every fast entry
// that takes it (an entry that declines a problem at plan time skips it).
void random_problems_against_ref(uint64_t seed, int count) {
  SCOPED_TRACE("GRIDOPS_SEED=" + std::to_string(seed));
  std::mt19937_64 rng(seed);
  const std::vector<std::string> impls = fast_impls();
  if (impls.empty()) return;
  std::vector<int> taken(impls.size(), 0);
  for (int i = 0; i < count; ++i) {
    const Problem p = random_problem(rng, i);
    SCOPED_TRACE("problem " + std::to_string(i) + ": " + describe(p));
    Tensor src(p.src_dtype, p.src_shape), grid(p.grid_dtype, p.grid_shape);
    testing::fill_random(src, rng, -1.0, 1.0);
    fill_grid(grid, rng, p);
    Tensor storage, grid_storage;
    const TensorView src_view =
        p.strided_src ? testing::scrambled_copy(src, storage, p.negative) : src.view();
    const TensorView grid_view =
        p.strided_grid ? testing::scrambled_copy(grid, grid_storage, !p.negative) : grid.view();
    const Tensor ref = run_impl(p, "ref", src_view, grid_view);
    for (size_t k = 0; k < impls.size(); ++k) {
      SCOPED_TRACE("impl " + impls[k]);
      if (declines(p, impls[k])) continue;
      const Tensor fast = run_impl(p, impls[k], src_view, grid_view);
      expect_close(p, ref, fast, 1.0);
      ++taken[k];
      if (::testing::Test::HasFailure()) return;  // the first failing problem is enough
    }
  }
  // The catch-all fast entry (last before "ref") takes every problem of the generator.
  const auto list = detail::grid_sample_impls();
  const std::string catch_all = list[list.size() - 2].name;
  const auto at = std::find(impls.begin(), impls.end(), catch_all) - impls.begin();
  EXPECT_EQ(taken[static_cast<size_t>(at)], count) << catch_all;
}

#define GRIDOPS_SKIP_WITHOUT_HWY() \
  if (fast_impls().empty()) GTEST_SKIP() << "built without Highway: only the reference exists, nothing to compare"

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
    SCOPED_TRACE("Highway target " + testing::hwy_target_name(targets[k]));
    testing::ScopedHwyTarget only(targets[k]);
    random_problems_against_ref(testing::test_seed() + k, 400);
    if (::testing::Test::HasFailure()) return;
  }
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

/// Channels-last copy of a channels-first tensor (N, C, spatial...) -> (N, spatial..., C).
Tensor to_channels_last(const Tensor& t) {
  const Dims& s = t.shape();
  Dims out{s[0]};
  int64_t plane = 1;
  for (size_t i = 2; i < s.size(); ++i) {
    out.push_back(s[i]);
    plane *= s[i];
  }
  out.push_back(s[1]);
  Tensor r(t.dtype(), out);
  const size_t es = dtype_size(t.dtype());
  const auto* src = static_cast<const char*>(t.data());
  auto* dst = static_cast<char*>(r.data());
  for (int64_t n = 0; n < s[0]; ++n) {
    for (int64_t c = 0; c < s[1]; ++c) {
      for (int64_t q = 0; q < plane; ++q) {
        std::memcpy(dst + static_cast<size_t>((n * plane + q) * s[1] + c) * es,
                    src + static_cast<size_t>((n * s[1] + c) * plane + q) * es, es);
      }
    }
  }
  return r;
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
      p.desc.mode = static_cast<IM>(i % 3);
      p.desc.padding = static_cast<GP>((i / 3) % 3);
      p.desc.align_corners = (i / 9) % 2 == 1;
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
      p.desc.mode = static_cast<IM>(i % 3);
      p.desc.padding = static_cast<GP>((i / 3) % 3);
      p.desc.align_corners = (i / 9) % 2;
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

#ifdef GRIDOPS_HAVE_HWY
// The fused path's result with GatherPairsPortable in place of the AVX-512 pair gather
// (NOTE [ GridSample pair gather ]): its test-only twin, forced by name.
Tensor run_portable_pairs(const Problem& p, const std::string& impl, const TensorView& src,
                          const TensorView& grid) {
  return run_impl(p, impl + "_portable_pairs", src, grid);
}
#endif

// NOTE [ GridSample pair gather ] (grid_sample_fused_small_c_hwy.cc): the portable pair
// gather against a scalar read on every Highway target this CPU runs, and against the
// AVX-512 form where the target has it; bits are copied unchanged (NaN payloads, signed
// zeros, subnormals); offsets anywhere in the plane, repeated, and at its last pair.
TEST(GridSampleDiff, PairGatherPortableMatchesIntrinsic) {
#ifdef GRIDOPS_HAVE_HWY
  std::mt19937_64 rng(testing::test_seed() + 9);
  float plane[67];
  int32_t o[16];
  float want[32], portable[32], intrinsic[32];
  const uint32_t specials[] = {0x7fc00001u, 0x7f800001u, 0xffbfffffu, 0x80000000u, 0x00000001u,
                               0x7f800000u};
  int portable_targets = 0, intrinsic_targets = 0;
  for (const int64_t target : testing::hwy_targets()) {
    SCOPED_TRACE("Highway target " + testing::hwy_target_name(target));
    testing::ScopedHwyTarget only(target);
    for (int round = 0; round < 6; ++round) {
      for (int i = 0; i < 67; ++i) {
        uint32_t bits = static_cast<uint32_t>(rng());
        if (i % 11 == round) bits = specials[static_cast<size_t>(i + round) % 6];
        std::memcpy(&plane[i], &bits, 4);
      }
      for (int i = 0; i < 16; ++i) {
        o[i] = i == round ? 65 : static_cast<int32_t>(rng() % 66);  // 65: the last pair
        if (i == 7) o[i] = o[3];
        want[2 * i] = plane[o[i]];
        want[2 * i + 1] = plane[o[i] + 1];
      }
      std::memset(portable, 0, sizeof(portable));
      if (kernels::grid_sample_gather_pairs16(true, plane, o, portable)) {
        ++portable_targets;
        EXPECT_EQ(0, std::memcmp(portable, want, sizeof(want))) << "portable, round " << round;
      }
      std::memset(intrinsic, 0, sizeof(intrinsic));
      if (kernels::grid_sample_gather_pairs16(false, plane, o, intrinsic)) {
        ++intrinsic_targets;
        EXPECT_EQ(0, std::memcmp(intrinsic, want, sizeof(want))) << "intrinsic, round " << round;
      }
    }
  }
  // The raw form exists exactly on AVX-512 targets (where the blocked path does).
  EXPECT_EQ(intrinsic_targets > 0, kernels::grid_sample_target_has_blocked());
  if (portable_targets == 0) {
    const std::vector<int64_t> targets = testing::hwy_targets();
    ASSERT_TRUE(targets.size() == 1 && testing::hwy_target_name(targets[0]) == "SCALAR")
        << "a vector target ran no portable pair gather";
    GTEST_SKIP() << "the only Highway target here is SCALAR (one lane, no pairs): the CPU or "
                    "GRIDOPS_MAX_ISA=scalar";
  }
#else
  GTEST_SKIP() << "built without Highway: only the reference exists";
#endif
}

// The fused path's channels-first linear/cubic with the portable pair gather in place of
// the AVX-512 one (NOTE [ GridSample pair gather ]): the same bits, and within the
// tolerance of ref; 1-4 channels, widths below and above a vector, every padding.
TEST(GridSampleDiff, FusedSmallChannelPathPortablePairGather) {
#ifdef GRIDOPS_HAVE_HWY
  if (!kernels::grid_sample_target_has_pairs()) {
    GTEST_SKIP() << "the CPU's Highway target has no pair gathers: no channels-first "
                    "linear/cubic on the fused path";
  }
  std::mt19937_64 rng(testing::test_seed() + 10);
  for (int i = 0; i < 12; ++i) {
    Problem p;
    p.desc.mode = i % 2 ? IM::kCubic : IM::kLinear;
    p.desc.padding = static_cast<GP>((i / 2) % 3);
    p.desc.align_corners = (i / 6) % 2 == 1;
    const int64_t c = 1 + i % 4;
    p.src_shape = i % 3 ? Dims{1, c, 19, 37} : Dims{2, c, 5, 4};
    p.grid_shape = i % 3 ? Dims{1, 21, 35, 2} : Dims{2, 7, 9, 2};
    SCOPED_TRACE("problem " + std::to_string(i) + ": " + describe(p));
    Tensor src(DType::kFloat32, p.src_shape), grid(DType::kFloat32, p.grid_shape);
    testing::fill_random(src, rng, -1.0, 1.0);
    fill_grid(grid, rng, p);
    const std::string impl = "grid_sample.fused_small_c";
    if (declines(p, impl)) continue;
    const Tensor fast = run_impl(p, impl, src.view(), grid.view());
    const Tensor portable = run_portable_pairs(p, impl, src.view(), grid.view());
    int64_t where = -1;
    EXPECT_TRUE(testing::bitwise_equal(fast, portable, &where)) << "first difference at " << where;
    const Tensor ref = run_impl(p, "ref", src.view(), grid.view());
    expect_close(p, ref, portable, 1.0);
    if (::testing::Test::HasFailure()) return;
  }
#else
  GTEST_SKIP() << "built without Highway: only the reference exists";
#endif
}

// NOTE [ GridSample channels-last pair gather ] (grid_sample_fused_small_c_hwy.cc): the
// fused path reads a dense channels-last pixel row by pair gathers, AVX-512's and the
// portable one, and a pixel stride other than the channel count by float gathers. Every
// mode, 1-4 channels, widths at and above the tap count, every padding: the three reads
// give the same bits, the channels-first problem's bits, and stay within the tolerance of
// ref. The padded-pixel view (stride C + 1) has a poisoned extra channel (NaN), which a
// read past a pixel's channels would carry into dst. On every Highway target this CPU runs
// (AVX2: the portable pair gather only; SSE4: no pair gathers, the float gathers, and
// nearest only: the fused path declines channels-first linear/cubic there).
TEST(GridSampleDiff, FusedChannelsLastPairGather) {
#ifdef GRIDOPS_HAVE_HWY
  std::mt19937_64 rng(testing::test_seed() + 11);
  for (const int64_t target : testing::hwy_targets()) {
    SCOPED_TRACE("Highway target " + testing::hwy_target_name(target));
    testing::ScopedHwyTarget only(target);
    for (int i = 0; i < 36; ++i) {
      Problem p;
      p.desc.mode = static_cast<IM>(i % 3);
      p.desc.padding = static_cast<GP>((i / 3) % 3);
      p.desc.align_corners = (i / 9) % 2 == 1;
      const int64_t c = 1 + (i / 2) % 4;
      const Dims in = i % 4 == 3 ? Dims{5, 4} : Dims{19, 37};
      p.src_shape = {1 + i % 2, c, in[0], in[1]};
      p.grid_shape = i % 4 == 3 ? Dims{1 + i % 2, 7, 9, 2} : Dims{1 + i % 2, 21, 35, 2};
      SCOPED_TRACE("problem " + std::to_string(i) + ": " + describe(p));
      Tensor src(DType::kFloat32, p.src_shape), grid(DType::kFloat32, p.grid_shape);
      testing::fill_random(src, rng, -1.0, 1.0);
      fill_grid(grid, rng, p);
      const std::string impl = "grid_sample.fused_small_c";
      if (declines(p, impl)) continue;
      const Tensor first = run_impl(p, impl, src.view(), grid.view());
      Problem q = p;
      q.desc.layout = ChannelLayout::kChannelsLast;
      const Tensor src_cl = to_channels_last(src);
      q.src_shape = src_cl.shape();
      // The same pixels with one more (NaN) channel after each: pixel stride c + 1.
      const Dims& sh = q.src_shape;
      Tensor padded(DType::kFloat32, {sh[0], sh[1], sh[2], c + 1});
      for (int64_t e = 0; e < padded.num_elements(); ++e) {
        const int64_t ch = e % (c + 1), px = e / (c + 1);
        static_cast<float*>(padded.data())[e] =
            ch < c ? static_cast<const float*>(src_cl.data())[px * c + ch]
                   : std::numeric_limits<float>::quiet_NaN();
      }
      const TensorView padded_view(DType::kFloat32, padded.data(), sh,
                                   {sh[1] * sh[2] * (c + 1), sh[2] * (c + 1), c + 1, 1});
      const Tensor pairs = run_impl(q, impl, src_cl.view(), grid.view());
      const Tensor portable = run_portable_pairs(q, impl, src_cl.view(), grid.view());
      const Tensor floats = run_impl(q, impl, padded_view, grid.view());
      int64_t where = -1;
      EXPECT_TRUE(testing::bitwise_equal(to_channels_last(first), pairs, &where))
          << "pair gathers vs channels-first at " << where;
      EXPECT_TRUE(testing::bitwise_equal(pairs, portable, &where))
          << "pair gathers vs portable pair gathers at " << where;
      EXPECT_TRUE(testing::bitwise_equal(pairs, floats, &where))
          << "pair gathers vs float gathers (pixel stride c + 1) at " << where;
      const Tensor ref = run_impl(q, "ref", src_cl.view(), grid.view());
      expect_close(q, ref, pairs, 1.0);
      if (::testing::Test::HasFailure()) return;
    }
  }
#else
  GTEST_SKIP() << "built without Highway: only the reference exists";
#endif
}

// NOTE [ GridSample channels-last pixel loads ]: channels-last nearest with 3 and 4
// channels reads each pixel by a 16-byte load on AVX-512, and a vector holding the image's
// last pixel (3 channels) or an image of fewer than 4 floats gathers instead. Here half of
// the points sit on the last pixel, the source is a std::vector of exactly the image's
// floats (so AddressSanitizer sees a load past its end), and every Highway target must
// give the reference's bits; widths from a vector's lanes down to one point.
TEST(GridSampleDiff, FusedChannelsLastPixelLoadsAtTheImageEnd) {
#ifdef GRIDOPS_HAVE_HWY
  std::mt19937_64 rng(testing::test_seed() + 14);
  std::uniform_real_distribution<float> uni(-1.0f, 1.0f);
  for (const int64_t target : testing::hwy_targets()) {
    SCOPED_TRACE("Highway target " + testing::hwy_target_name(target));
    testing::ScopedHwyTarget only(target);
    for (int i = 0; i < 12; ++i) {
      Problem p;
      p.desc.mode = IM::kNearest;
      p.desc.padding = static_cast<GP>(i % 3);
      p.desc.align_corners = (i / 3) % 2 == 1;
      p.desc.layout = ChannelLayout::kChannelsLast;
      const int64_t c = 3 + (i / 6) % 2;
      const Dims hw = i % 3 == 0 ? Dims{1, 1} : i % 3 == 1 ? Dims{2, 3} : Dims{5, 7};
      const int64_t ow = i % 2 == 0 ? 37 : 1;
      p.src_shape = {1, hw[0], hw[1], c};
      p.grid_shape = {1, 3, ow, 2};
      SCOPED_TRACE("problem " + std::to_string(i) + ": " + describe(p));
      std::vector<float> src(static_cast<size_t>(hw[0] * hw[1] * c));
      for (float& v : src) v = uni(rng);
      const TensorView src_view(DType::kFloat32, src.data(), p.src_shape,
                                {hw[0] * hw[1] * c, hw[1] * c, c, 1});
      // The last pixel's centre: x = 1 - 1 / W (align_corners: 1), the same for y.
      const float lx = p.desc.align_corners ? 1.0f : 1.0f - 1.0f / static_cast<float>(hw[1]);
      const float ly = p.desc.align_corners ? 1.0f : 1.0f - 1.0f / static_cast<float>(hw[0]);
      Tensor grid(DType::kFloat32, p.grid_shape);
      auto* g = static_cast<float*>(grid.data());
      for (int64_t k = 0; k < grid.num_elements() / 2; ++k) {
        const bool last = rng() % 2 == 0;
        g[2 * k] = last ? lx : uni(rng);
        g[2 * k + 1] = last ? ly : uni(rng);
      }
      const std::string impl = "grid_sample.fused_small_c";
      if (declines(p, impl)) continue;
      const Tensor fast = run_impl(p, impl, src_view, grid.view());
      const Tensor ref = run_impl(p, "ref", src_view, grid.view());
      int64_t where = -1;
      EXPECT_TRUE(testing::bitwise_equal(fast, ref, &where)) << "first difference at " << where;
      if (::testing::Test::HasFailure()) return;
    }
  }
#else
  GTEST_SKIP() << "built without Highway: only the reference exists";
#endif
}

// NOTE [ GridSample nearest tap reuse ]: rows of many whole tiles (333 and 1000 points:
// chains of 4 and 14 tiles that each take the previous tile's offsets), on smooth warps
// (points leaving the source, some NaN) and random grids, every padding, 1-4 channels,
// both layouts, every Highway target: the same bits as the reference, as the per-block
// path (the grid through a strided view) and on 1 vs 2 threads (a thread's last tile keeps
// nothing, the next thread's first computes its own).
TEST(GridSampleDiff, FusedNearestTapReuse) {
#ifdef GRIDOPS_HAVE_HWY
  std::mt19937_64 rng(testing::test_seed() + 12);
  for (const int64_t target : testing::hwy_targets()) {
    SCOPED_TRACE("Highway target " + testing::hwy_target_name(target));
    testing::ScopedHwyTarget only(target);
    for (int i = 0; i < 16; ++i) {
      Problem p;
      p.desc.mode = IM::kNearest;
      p.desc.padding = static_cast<GP>(i % 3);
      p.desc.align_corners = (i / 3) % 2 == 1;
      p.desc.layout = i % 2 == 0 ? ChannelLayout::kChannelsFirst : ChannelLayout::kChannelsLast;
      const int64_t c = 1 + (i / 2) % 4;
      const int64_t oh = i % 4 == 0 ? 3 : 17, ow = i % 4 == 0 ? 1000 : 333;
      const int64_t ih = 40, iw = 52;
      p.src_shape = p.desc.layout == ChannelLayout::kChannelsFirst ? Dims{1 + i % 2, c, ih, iw}
                                                                   : Dims{1 + i % 2, ih, iw, c};
      p.grid_shape = {1 + i % 2, oh, ow, 2};
      SCOPED_TRACE("problem " + std::to_string(i) + ": " + describe(p));
      Tensor src(DType::kFloat32, p.src_shape), grid(DType::kFloat32, p.grid_shape);
      testing::fill_random(src, rng, -1.0, 1.0);
      if (i % 4 == 3) {
        fill_grid(grid, rng, p);
      } else {
        // A rotated, slightly enlarged warp reaching past the source on every side.
        std::uniform_real_distribution<float> u01(0.0f, 1.0f);
        auto* g = static_cast<float*>(grid.data());
        for (int64_t e = 0; e < grid.num_elements() / 2; ++e) {
          const float x = static_cast<float>(e % ow) / static_cast<float>(ow - 1) * 2.2f - 1.1f;
          const float y = static_cast<float>((e / ow) % oh) / static_cast<float>(oh) * 2.2f - 1.1f;
          g[2 * e] = 0.98f * x - 0.17f * y;
          g[2 * e + 1] = 0.17f * x + 0.98f * y;
          if (u01(rng) < 0.01f) {
            g[2 * e + (u01(rng) < 0.5f ? 1 : 0)] = std::numeric_limits<float>::quiet_NaN();
          }
        }
      }
      const std::string impl = "grid_sample.fused_small_c";
      ASSERT_FALSE(declines(p, impl));
      set_num_threads(1);
      const Tensor one = run_impl(p, impl, src.view(), grid.view());
      set_num_threads(2);
      const Tensor two = run_impl(p, impl, src.view(), grid.view());
      set_num_threads(0);
      Tensor grid_storage;
      const TensorView strided_grid = testing::scrambled_copy(grid, grid_storage, i % 3 == 1);
      const Tensor block = run_impl(p, impl, src.view(), strided_grid);
      const Tensor ref = run_impl(p, "ref", src.view(), grid.view());
      int64_t where = -1;
      EXPECT_TRUE(testing::bitwise_equal(ref, one, &where)) << "fused vs ref at " << where;
      EXPECT_TRUE(testing::bitwise_equal(one, two, &where)) << "1 vs 2 threads at " << where;
      EXPECT_TRUE(testing::bitwise_equal(one, block, &where))
          << "fused vs per-block path at " << where;
      if (::testing::Test::HasFailure()) return;
    }
  }
#else
  GTEST_SKIP() << "built without Highway: only the reference exists";
#endif
}

// The reference on the first two rows of output points of a 2-D channels-first float32
// problem with one batch (p's shapes, its grid `grid`), against those rows of `full`,
// the whole output of a fast path.
void expect_first_rows_match_ref(const Problem& p, const Tensor& src, const Tensor& grid,
                                 const Tensor& full) {
  const int64_t channels = p.src_shape[1], h = p.grid_shape[1], w = p.grid_shape[2];
  constexpr int64_t kRows = 2;
  Problem r = p;
  r.grid_shape = {1, kRows, w, 2};
  Tensor g2(DType::kFloat32, r.grid_shape);
  std::memcpy(g2.data(), grid.data(), static_cast<size_t>(kRows * w * 2) * 4);
  const Tensor ref = run_impl(r, "ref", src.view(), g2.view());
  Tensor part(DType::kFloat32, ref.shape());
  for (int64_t ch = 0; ch < channels; ++ch) {
    std::memcpy(part.data_as<float>() + ch * kRows * w, full.data_as<float>() + ch * h * w,
                static_cast<size_t>(kRows * w) * 4);
  }
  expect_close(r, ref, part, 1.0);
}

// The channel-blocked path with a dst large enough for non-temporal stores (>= 8 MiB),
// at an offset that is not a multiple of 64 bytes: against the channels-last fast path
// (the same bits), with the reference on the first two rows of points.
TEST(GridSampleDiff, ChannelBlockedLargeUnalignedDst) {
#ifdef GRIDOPS_HAVE_HWY
  std::mt19937_64 rng(testing::test_seed() + 3);
  for (int m = 0; m < 3; ++m) {
    GridSampleDesc desc;
    desc.mode = static_cast<IM>(m);
    desc.padding = static_cast<GP>(m);
    const Dims src_shape{1, 20, 96, 80}, grid_shape{1, 300, 360, 2};
    Tensor src(DType::kFloat32, src_shape), grid(DType::kFloat32, grid_shape);
    testing::fill_random(src, rng, -1.0, 1.0);
    testing::fill_random(grid, rng, -1.1, 1.1);
    auto plan = make_grid_sample_plan(desc, DType::kFloat32, src_shape, DType::kFloat32,
                                      grid_shape);
    ASSERT_TRUE(plan.ok());
    const Dims dst_shape = plan.value().dst_shape();
    int64_t count = 1;
    for (int64_t v : dst_shape) count *= v;
    for (int64_t shift : {0, 1, 7}) {
      std::vector<float> buf(static_cast<size_t>(count + 16), -7.0f);
      const MutableTensorView dst(DType::kFloat32, buf.data() + shift, dst_shape);
      ASSERT_TRUE(plan.value().run(src.view(), grid.view(), dst).ok());
      for (int64_t k = 0; k < shift; ++k) EXPECT_EQ(buf[static_cast<size_t>(k)], -7.0f);
      for (int64_t k = shift + count; k < count + 16; ++k) {
        EXPECT_EQ(buf[static_cast<size_t>(k)], -7.0f);
      }
      GridSampleDesc cl = desc;
      cl.layout = ChannelLayout::kChannelsLast;
      const Tensor src_cl = to_channels_last(src);
      auto plan_cl = make_grid_sample_plan(cl, DType::kFloat32, src_cl.shape(), DType::kFloat32,
                                           grid_shape);
      ASSERT_TRUE(plan_cl.ok());
      Tensor last(DType::kFloat32, plan_cl.value().dst_shape());
      ASSERT_TRUE(plan_cl.value().run(src_cl.view(), grid.view(), last.mutable_view()).ok());
      Tensor first(DType::kFloat32, dst_shape);
      std::memcpy(first.data(), buf.data() + shift, static_cast<size_t>(count) * 4);
      int64_t where = -1;
      EXPECT_TRUE(testing::bitwise_equal(to_channels_last(first), last, &where))
          << "mode " << m << " shift " << shift << ": first difference at " << where;
    }
    Tensor full(DType::kFloat32, dst_shape);
    ASSERT_TRUE(plan.value().run(src.view(), grid.view(), full.mutable_view()).ok());
    Problem p;
    p.desc = desc;
    p.src_shape = src_shape;
    p.grid_shape = grid_shape;
    expect_first_rows_match_ref(p, src, grid, full);
  }
#else
  GTEST_SKIP() << "built without Highway: only the reference exists";
#endif
}

// NOTE [ GridSample fused streaming stores ] (grid_sample_fused_small_c_hwy.cc): a
// channels-first dst of 8 MiB or more is written with non-temporal stores where a vector's
// destination is 64-byte aligned, and each row's tiles are shifted so that their vectors
// are (NOTE [ GridSample fused aligned tiles ]). The fused path on such a dst at offsets 0,
// 1 and 7 floats from a 64-byte line, with rows of 1024 points (every row at the same
// shift), 1000 and 200 (shifts alternating by 8 floats; the last tile up to 15 points
// longer) and 70 (two tiles, the second shorter than the first: no taps kept ahead): the
// bytes around it untouched, the same bits at every offset and as channels-last (never
// shifted nor streamed), on 1 and 2 threads, and the reference on the first two rows.
TEST(GridSampleDiff, FusedLargeChannelsFirstDst) {
#ifdef GRIDOPS_HAVE_HWY
  std::mt19937_64 rng(testing::test_seed() + 5);
  for (int m = 0; m < 3; ++m) {
    for (int64_t w : {1024, 1000, 200, 70}) {
      Problem p;
      p.desc.mode = static_cast<IM>(m);
      p.desc.padding = static_cast<GP>(m);
      p.desc.impl = "grid_sample.fused_small_c";
      p.src_shape = {1, 3, 40, 52};
      const int64_t h = (int64_t{8} << 20) / (12 * w) + 1;  // dst: 3 x h x w floats, >= 8 MiB
      p.grid_shape = {1, h, w, 2};
      SCOPED_TRACE(describe(p));
      if (declines(p, p.desc.impl)) continue;
      Tensor src(DType::kFloat32, p.src_shape), grid(DType::kFloat32, p.grid_shape);
      testing::fill_random(src, rng, -1.0, 1.0);
      testing::fill_random(grid, rng, -1.1, 1.1);
      auto plan = make_grid_sample_plan(p.desc, DType::kFloat32, p.src_shape, DType::kFloat32,
                                        p.grid_shape);
      ASSERT_TRUE(plan.ok()) << plan.status().to_string();
      ASSERT_EQ(std::string(plan.value().impl_name()), p.desc.impl);
      const Dims dst_shape = plan.value().dst_shape();
      int64_t count = 1;
      for (int64_t v : dst_shape) count *= v;
      ASSERT_GE(count * 4, int64_t{8} << 20);
      Problem q = p;
      q.desc.layout = ChannelLayout::kChannelsLast;
      const Tensor src_cl = to_channels_last(src);
      q.src_shape = src_cl.shape();
      const Tensor last = run_impl(q, p.desc.impl, src_cl.view(), grid.view());
      Tensor first(DType::kFloat32, dst_shape);
      for (int threads : {1, 2}) {
        set_num_threads(threads);
        for (int64_t shift : {0, 1, 7}) {
          SCOPED_TRACE("threads " + std::to_string(threads) + " shift " + std::to_string(shift));
          // 64-byte aligned storage, so that shift 0 is the streamed case.
          Tensor storage(DType::kFloat32, Dims{count + 32});
          float* buf = storage.data_as<float>();
          ASSERT_EQ(reinterpret_cast<uintptr_t>(buf) % 64, 0u);
          std::fill(buf, buf + count + 32, -7.0f);
          const MutableTensorView dst(DType::kFloat32, buf + shift, dst_shape);
          ASSERT_TRUE(plan.value().run(src.view(), grid.view(), dst).ok());
          for (int64_t k = 0; k < shift; ++k) EXPECT_EQ(buf[k], -7.0f);
          for (int64_t k = shift + count; k < count + 32; ++k) EXPECT_EQ(buf[k], -7.0f);
          Tensor got(DType::kFloat32, dst_shape);
          std::memcpy(got.data(), buf + shift, static_cast<size_t>(count) * 4);
          int64_t where = -1;
          EXPECT_TRUE(testing::bitwise_equal(to_channels_last(got), last, &where))
              << "channels-first vs channels-last at " << where;
          if (threads == 1 && shift == 0) {
            std::memcpy(first.data(), got.data(), static_cast<size_t>(count) * 4);
          }
        }
      }
      set_num_threads(0);
      expect_first_rows_match_ref(p, src, grid, first);
    }
  }
#else
  GTEST_SKIP() << "built without Highway: only the reference exists";
#endif
}

// NOTE [ GridSample Transpose16 ] (grid_sample_blocked_hwy.cc): the portable 16 x 16
// transpose against a scalar transpose on every Highway target this CPU runs, and against
// the AVX-512 Transpose16 where the target has it; bits are copied unchanged (NaN payloads,
// signed zeros, subnormals).
TEST(GridSampleDiff, Transpose16PortableMatchesIntrinsic) {
#ifdef GRIDOPS_HAVE_HWY
  std::mt19937_64 rng(testing::test_seed() + 5);
  alignas(64) float in[256], want[256], portable[256], intrinsic[256];
  const uint32_t specials[] = {0x7fc00001u, 0x7f800001u, 0xffbfffffu, 0x80000000u, 0x00000001u,
                               0x7f800000u};
  int intrinsic_targets = 0;
  for (const int64_t target : testing::hwy_targets()) {
    SCOPED_TRACE("Highway target " + testing::hwy_target_name(target));
    testing::ScopedHwyTarget only(target);
    for (int round = 0; round < 4; ++round) {
      for (int i = 0; i < 256; ++i) {
        uint32_t bits = static_cast<uint32_t>(rng());
        if (i % 17 == round) bits = specials[static_cast<size_t>(i + round) % 6];
        std::memcpy(&in[i], &bits, 4);
      }
      for (int i = 0; i < 16; ++i) {
        for (int k = 0; k < 16; ++k) want[k * 16 + i] = in[i * 16 + k];
      }
      std::memset(portable, 0, sizeof(portable));
      ASSERT_TRUE(kernels::grid_sample_transpose16(true, in, portable));
      EXPECT_EQ(0, std::memcmp(portable, want, sizeof(want))) << "portable, round " << round;
      std::memset(intrinsic, 0, sizeof(intrinsic));
      if (kernels::grid_sample_transpose16(false, in, intrinsic)) {
        ++intrinsic_targets;
        EXPECT_EQ(0, std::memcmp(intrinsic, want, sizeof(want))) << "intrinsic, round " << round;
      }
    }
  }
  // The intrinsic form exists exactly where the blocked path does.
  EXPECT_EQ(intrinsic_targets > 0, kernels::grid_sample_target_has_blocked());
#else
  GTEST_SKIP() << "built without Highway: only the reference exists";
#endif
}

// The channel-blocked path copies one 16-channel block of at most 32 MiB (past it the
// per-point reads leave the L3 cache; NOTE [ GridSample channel blocks ]), whatever the mode:
// W3's 16 MiB blocks take it, nearest included; a (1, 16, 1024, 1024) input (64 MiB) goes to
// a gather path. Plans only: nothing is allocated.
TEST(GridSampleDiff, ChannelBlockedPathCopyCap) {
#ifdef GRIDOPS_HAVE_HWY
  if (!kernels::grid_sample_target_has_blocked()) {
    GTEST_SKIP() << "the CPU's Highway target has no AVX-512: no grid_sample.blocked";
  }
  auto impl_of = [](IM mode, const Dims& src, const Dims& grid) {
    GridSampleDesc desc;
    desc.mode = mode;
    auto plan = make_grid_sample_plan(desc, DType::kFloat32, src, DType::kFloat32, grid);
    EXPECT_TRUE(plan.ok()) << plan.status().to_string();
    return plan.ok() ? std::string(plan.value().impl_name()) : std::string();
  };
  for (IM mode : {IM::kNearest, IM::kLinear, IM::kCubic}) {
    SCOPED_TRACE("mode " + std::to_string(static_cast<int>(mode)));
    EXPECT_EQ(impl_of(mode, {1, 16, 64, 64, 64}, {1, 64, 64, 64, 3}), "grid_sample.blocked");
    // 724 x 724 x 64 bytes: just under 32 MiB.
    EXPECT_EQ(impl_of(mode, {1, 16, 724, 724}, {1, 724, 724, 2}), "grid_sample.blocked");
    const Dims big_src{1, 16, 1024, 1024}, big_grid{1, 1024, 1024, 2};
    const std::string big = impl_of(mode, big_src, big_grid);
    EXPECT_NE(big, "grid_sample.blocked");
    EXPECT_NE(big, "ref");
    GridSampleDesc forced;
    forced.mode = mode;
    forced.impl = "grid_sample.blocked";
    auto declined =
        make_grid_sample_plan(forced, DType::kFloat32, big_src, DType::kFloat32, big_grid);
    ASSERT_FALSE(declined.ok());
    EXPECT_EQ(declined.status().code(), StatusCode::kUnimplemented);
    EXPECT_THAT(declined.status().to_string(),
                ::testing::HasSubstr("a 16-channel block over 32 MiB"));
  }
#else
  GTEST_SKIP() << "built without Highway";
#endif
}

// The channel-blocked path with the portable transpose in place of the AVX-512 one (its
// test-only twin grid_sample.blocked_portable_transpose; NOTE [ GridSample Transpose16 ]):
// the same bits, every mode, 2-D and 3-D, a partial
// channel block, both the per-thread and the shared copies (1 and 2 threads).
TEST(GridSampleDiff, ChannelBlockedPathPortableTranspose) {
#ifdef GRIDOPS_HAVE_HWY
  if (!kernels::grid_sample_target_has_blocked()) {
    GTEST_SKIP() << "the CPU's Highway target has no AVX-512: no grid_sample.blocked";
  }
  std::mt19937_64 rng(testing::test_seed() + 6);
  for (int i = 0; i < 12; ++i) {
    Problem p;
    p.desc.mode = static_cast<IM>(i % 3);
    p.desc.padding = static_cast<GP>((i / 3) % 3);
    p.desc.align_corners = (i / 2) % 2 == 1;
    const int64_t c = i % 2 ? 17 : 16;
    p.src_shape = i % 4 == 3 ? Dims{1, c, 5, 6, 37} : Dims{2, c, 23, 37};
    p.grid_shape = i % 4 == 3 ? Dims{1, 9, 10, 11, 3} : Dims{2, 60, 53, 2};
    SCOPED_TRACE("problem " + std::to_string(i) + ": " + describe(p));
    Tensor src(DType::kFloat32, p.src_shape), grid(DType::kFloat32, p.grid_shape);
    testing::fill_random(src, rng, -1.0, 1.0);
    fill_grid(grid, rng, p);
    set_num_threads(2 - i % 2);  // 16 channels on 2 threads: shared copies
    const Tensor fast = run_impl(p, "grid_sample.blocked", src.view(), grid.view());
    const Tensor portable =
        run_impl(p, "grid_sample.blocked_portable_transpose", src.view(), grid.view());
    set_num_threads(0);
    int64_t where = -1;
    EXPECT_TRUE(testing::bitwise_equal(fast, portable, &where)) << "first difference at " << where;
    const Tensor ref = run_impl(p, "ref", src.view(), grid.view());
    expect_close(p, ref, portable, 1.0);
    if (::testing::Test::HasFailure()) return;
  }
#else
  GTEST_SKIP() << "built without Highway: only the reference exists";
#endif
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
