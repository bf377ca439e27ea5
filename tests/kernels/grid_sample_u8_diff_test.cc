// Differential tests of GridSample's uint8 few-channel path ("grid_sample.u8_few_channels") against
// "ref" over random problems: 2-D, uint8 src with 1 to 4 channels, float32 grid, both
// layouts, every padding, align_corners 0 and 1, linear and nearest, odd and tiny sizes
// (1 included), output rows longer than a vector with a tail, grids inside, slightly and
// far outside [-1, 1], half-pixel ties, smooth warps (the source prefetch of smooth rows),
// NaN, +-inf and huge values, strided src, grid and dst views, input windows, every
// Highway target, 1 vs 2 threads bit-identical.
//
// NOTE [ GridSample uint8 bound ]
// nearest: bit-exact (a selection with the reference's coordinates and ties-to-even).
// linear: |fast - ref| <= 1. Both compute S = sum_k w_k v_k over the same 4 taps and
// weights (w in [0, 1], v in [0, 255]) in float: the reference without FMA and each tap
// separately, the fast path with FMAs and with the weights of taps on the same column
// summed first; each result is within a few 2^-24 * 255 of the exact sum, far below 1, so
// their truncations toward zero (ERRATA GridSample 7) differ by at most 1, and only where
// the exact sum is within that distance of an integer. Saturation to [0, 255] keeps the
// bound. Padding constant (the kernel runs zeros, then the finishing pass adds
// fill * (1 - inside weight) to the truncated result and truncates again): |fast - ref| <= 2.
// Exact sums on an integer are common (t = 0 or 1/2 at ties, all-255 images), so
// differences of 1 are not rare (about 1% of linear elements here); the test asserts the
// bound on every element and prints how many differ.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "gridops/ops/grid_sample.h"
#include "gridops/parallel.h"
#include "ops/grid_sample_impls.h"
#include "support/entries.h"
#include "support/problem_string.h"
#include "support/test_util.h"

namespace gridops {
namespace {

using IM = InterpolationMode;
using GP = GridPadding;

/// The entry under test (an entry of the implementation list: EntryIsListed).
constexpr const char* kImpl = "grid_sample.u8_few_channels";

TEST(GridSampleU8Diff, EntryIsListed) {
#ifdef GRIDOPS_HAVE_HWY
  const auto names = testing::fast_entries(detail::grid_sample_entries());
  EXPECT_NE(std::find(names.begin(), names.end(), kImpl), names.end());
#else
  EXPECT_EQ(testing::find_entry(detail::grid_sample_entries(), kImpl), nullptr);
#endif
}

struct Problem {
  GridSampleDesc desc;
  Dims src_shape, grid_shape;
  bool strided_src = false, negative = false, strided_grid = false, strided_dst = false;
  bool saturated = false;  // src all 255
};

std::string describe(const Problem& p) {
  return std::string(to_string(p.desc.mode)) + " " + to_string(p.desc.padding) +
         " ac=" + std::to_string(p.desc.align_corners) + " " + to_string(p.desc.layout) +
         " src " + dims_to_string(p.src_shape) + " grid " + dims_to_string(p.grid_shape) +
         (p.strided_src ? (p.negative ? " strided-negative" : " strided") : "") +
         (p.strided_grid ? " strided-grid" : "") + (p.strided_dst ? " strided-dst" : "") +
         (p.saturated ? " src=255" : "") + " units=" + to_string(p.desc.units) +
         " kind=" + to_string(p.desc.kind);
}

Problem random_problem(std::mt19937_64& rng, int index) {
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  Problem p;
  p.desc.mode = pick(0, 1) == 0 ? IM::kLinear : IM::kNearest;
  // ONNX's paddings, and a fifth of the time constant or fill (a finishing pass).
  p.desc.padding = pick(0, 4) == 0 ? (pick(0, 1) == 0 ? GP::kConstant : GP::kFill)
                                   : static_cast<GP>(pick(0, 2));
  p.desc.fill_value = p.desc.padding == GP::kConstant || p.desc.padding == GP::kFill
                          ? static_cast<double>(pick(0, 255))
                          : 0.0;
  p.desc.align_corners = pick(0, 1);
  p.desc.layout = pick(0, 1) == 0 ? ChannelLayout::kChannelsLast : ChannelLayout::kChannelsFirst;
  const int64_t n = pick(1, 2), c = pick(1, 4);
  const int64_t h = pick(0, 4) == 0 ? 1 : pick(1, 13), w = pick(0, 4) == 0 ? 1 : pick(1, 13);
  int64_t ho = pick(0, 5) == 0 ? 1 : pick(1, 9), wo = pick(0, 5) == 0 ? 1 : pick(1, 23);
  if (index % 25 == 0) {  // rows of several vectors with a tail
    ho = 7;
    wo = 53;
  }
  p.src_shape = p.desc.layout == ChannelLayout::kChannelsFirst ? Dims{n, c, h, w} : Dims{n, h, w, c};
  p.grid_shape = {n, ho, wo, 2};
  p.strided_src = pick(0, 4) == 0;
  p.negative = pick(0, 1) == 1;
  p.strided_grid = pick(0, 4) == 0;
  p.strided_dst = pick(0, 4) == 0;
  p.saturated = pick(0, 9) == 0;
  // The grid conventions (fill_grid converts the positions), a quarter each.
  if (pick(0, 3) == 0) p.desc.units = GridUnits::kPixels;
  if (pick(0, 3) == 0) p.desc.kind = GridKind::kDisplacement;
  return p;
}

/// Grid values: mostly in [-1.1, 1.1]; by style also far outside, half-pixel ties, a
/// smooth warp (rotation, scale up to 1.5 and a shift, the path's source prefetch of
/// smooth rows), or NaN, +-inf and huge values.
void fill_grid(Tensor& g, std::mt19937_64& rng, const Problem& p) {
  std::uniform_real_distribution<float> u(-1.1f, 1.1f), far(-40.0f, 40.0f), u01(0.0f, 1.0f);
  const bool first = p.desc.layout == ChannelLayout::kChannelsFirst;
  const int64_t len[2] = {p.src_shape[first ? 2 : 1], p.src_shape[first ? 3 : 2]};  // y, x
  const float special[] = {std::numeric_limits<float>::quiet_NaN(),
                           std::numeric_limits<float>::infinity(),
                           -std::numeric_limits<float>::infinity(), 1e30f, -3e9f, 1e7f};
  const int style = std::uniform_int_distribution<int>(0, 4)(rng);
  const double angle = u(rng), scale = 0.5 + u01(rng), tx = 0.3 * u(rng), ty = 0.3 * u(rng);
  const int64_t ho = p.grid_shape[1], wo = p.grid_shape[2];
  float* v = g.data_as<float>();
  for (int64_t i = 0; i < g.num_elements(); ++i) {
    const float q = u01(rng);
    if (style == 4 && q >= 0.002f) {
      const int64_t x = i / 2 % wo, y = i / 2 / wo % ho;
      const double a = (2.0 * static_cast<double>(x) + 1.0) / static_cast<double>(wo) - 1.0;
      const double b = (2.0 * static_cast<double>(y) + 1.0) / static_cast<double>(ho) - 1.0;
      v[i] = static_cast<float>(i % 2 == 0 ? scale * (std::cos(angle) * a - std::sin(angle) * b) + tx
                                           : scale * (std::sin(angle) * a + std::cos(angle) * b) + ty);
    } else if (q < 0.03f) {
      v[i] = special[std::uniform_int_distribution<int>(0, 5)(rng)];
    } else if (style == 1 && q < 0.4f) {
      v[i] = far(rng);
    } else if (style == 2 && q < 0.5f) {
      // x = k + 0.5 on this coordinate's axis (grid[..., 0] is x): a rounding tie.
      const auto L = static_cast<float>(len[i % 2 == 0 ? 1 : 0]);
      const float k = static_cast<float>(std::uniform_int_distribution<int>(-3, 14)(rng)) + 0.5f;
      v[i] = p.desc.align_corners ? (L > 1 ? 2.0f * k / (L - 1.0f) - 1.0f : 0.0f)
                                  : (2.0f * k + 1.0f) / L - 1.0f;
    } else {
      v[i] = u(rng);
    }
    if (std::isfinite(v[i]) && std::fabs(v[i]) < 2.0f) {
      // The same position in the grid's conventions: pixels of this axis, minus the
      // point's own coordinate for a displacement.
      const int axis = i % 2 == 0 ? 1 : 0;
      const auto L = static_cast<float>(len[axis]);
      const bool ac = p.desc.align_corners == 1;
      const int64_t o = axis == 1 ? i / 2 % wo : i / 2 / wo % ho;
      const auto olen = static_cast<float>(axis == 1 ? wo : ho);
      if (p.desc.units == GridUnits::kPixels) {
        v[i] = ac ? (v[i] + 1.0f) / 2.0f * (L - 1.0f) : ((v[i] + 1.0f) * L - 1.0f) / 2.0f;
        if (p.desc.kind == GridKind::kDisplacement) v[i] -= static_cast<float>(o);
      } else if (p.desc.kind == GridKind::kDisplacement) {
        v[i] -= olen == 1.0f ? 0.0f
                : ac         ? 2.0f * static_cast<float>(o) / (olen - 1.0f) - 1.0f
                             : (2.0f * static_cast<float>(o) + 1.0f) / olen - 1.0f;
      }
    }
  }
}

/// Runs `impl` into a fresh contiguous dst (through a column-major view when strided_dst).
Tensor run_impl(const Problem& p, const std::string& impl, const TensorView& src,
                const TensorView& grid) {
  GridSampleDesc desc = p.desc;
  desc.impl = impl;
  auto plan = make_grid_sample_plan(desc, DType::kUInt8, p.src_shape, DType::kFloat32,
                                    p.grid_shape);
  EXPECT_TRUE(plan.ok()) << plan.status().to_string();
  if (!plan.ok()) return Tensor(DType::kUInt8, {0});
  EXPECT_EQ(std::string(plan.value().impl_name()), impl);
  Tensor dst(DType::kUInt8, plan.value().dst_shape());
  if (!p.strided_dst) {
    const Status st = plan.value().run(src, grid, dst.mutable_view());
    EXPECT_TRUE(st.ok()) << st.to_string();
    return dst;
  }
  const Dims& shape = dst.shape();
  Dims strides(shape.size());
  int64_t acc = 1;
  for (size_t i = 0; i < shape.size(); ++i) {
    strides[i] = acc;
    acc *= shape[i];
  }
  Tensor storage(DType::kUInt8, Dims{dst.num_elements()});
  const MutableTensorView view(DType::kUInt8, storage.data(), shape, strides);
  const Status st = plan.value().run(src, grid, view);
  EXPECT_TRUE(st.ok()) << st.to_string();
  const auto* s = storage.data_as<uint8_t>();
  auto* d = dst.data_as<uint8_t>();
  for (int64_t f = 0; f < dst.num_elements(); ++f) {
    const Dims idx = testing::unravel(f, shape);
    int64_t off = 0;
    for (size_t i = 0; i < shape.size(); ++i) off += idx[i] * strides[i];
    d[f] = s[off];
  }
  return dst;
}

/// NOTE [ GridSample uint8 bound ]. Adds the number of differing elements to *differ.
void expect_within_bound(const Problem& p, const Tensor& ref, const Tensor& fast,
                         int64_t* differ) {
  ASSERT_EQ(ref.num_elements(), fast.num_elements());
  if (p.desc.mode == IM::kNearest) {
    int64_t where = -1;
    EXPECT_TRUE(testing::bitwise_equal(ref, fast, &where))
        << "nearest must be bit-exact; first difference at flat index " << where << ": ref "
        << int{ref.data_as<uint8_t>()[where]} << " fast " << int{fast.data_as<uint8_t>()[where]};
    return;
  }
  const auto* a = ref.data_as<uint8_t>();
  const auto* b = fast.data_as<uint8_t>();
  int failures = 0;
  for (int64_t i = 0; i < ref.num_elements() && failures < 5; ++i) {
    const int d = std::abs(int{a[i]} - int{b[i]});
    if (d != 0) ++*differ;
    // Constant: the finishing pass adds the fill value's share to the truncated result,
    // a second truncation (NOTE [ GridSample uint8 bound ]).
    const int bound = p.desc.padding == GP::kConstant ? 2 : 1;
    if (d > bound) {
      ADD_FAILURE() << "flat index " << i << ": ref " << int{a[i]} << " fast " << int{b[i]}
                    << " (bound: |diff| <= " << bound << ")";
      ++failures;
    }
  }
}

void fill_src(Tensor& src, std::mt19937_64& rng, const Problem& p) {
  if (p.saturated) {
    std::memset(src.data(), 255, static_cast<size_t>(src.num_elements()));
  } else {
    testing::fill_random_bytes(src, rng);
  }
}

/// One uint8 GridSample problem as a fluent tester: `test()` checks the path against ref
/// (NOTE [ GridSample uint8 bound ]) on data drawn from `seed`. Its canonical line
/// (tests/support/problem_string.h) is printed by a failing check and rerun alone by
/// GridSampleU8Diff.Rerun.
class GridSampleU8Tester {
 public:
  GridSampleU8Tester() {
    p_.src_shape = {1, 3, 4, 4};
    p_.grid_shape = {1, 3, 3, 2};
  }
  explicit GridSampleU8Tester(Problem p) : p_(std::move(p)) {}
  GridSampleU8Tester& seed(uint64_t s) { seed_ = s; return *this; }
  GridSampleU8Tester& target(int64_t t) { target_ = t; return *this; }
  const Problem& problem() const { return p_; }

  testing::ProblemString line() const {
    testing::ProblemString s("grid_sample_u8");
    s.add("impl", kImpl)
        .add("mode", to_string(p_.desc.mode))
        .add("padding", to_string(p_.desc.padding))
        .add("ac", p_.desc.align_corners)
        .add("layout", to_string(p_.desc.layout))
        .add("units", to_string(p_.desc.units))
        .add("kind", to_string(p_.desc.kind))
        .add("fill", p_.desc.fill_value)
        .add("src_shape", p_.src_shape)
        .add("grid_shape", p_.grid_shape)
        .add_flags("views", {{'s', p_.strided_src}, {'n', p_.negative}, {'g', p_.strided_grid},
                             {'d', p_.strided_dst}})
        .add("saturated", p_.saturated)
        .add("target", testing::hwy_target_label(target_))
        .add("seed", seed_);
    return s;
  }

  static GridSampleU8Tester from(const testing::ProblemString& s) {
    Problem p;
    p.desc.mode = s.get_enum("mode", parse_interpolation_mode, IM::kLinear);
    p.desc.padding = s.get_enum("padding", parse_grid_padding, GP::kZeros);
    p.desc.align_corners = static_cast<int>(s.get_int("ac"));
    p.desc.layout = s.get("layout") == to_string(ChannelLayout::kChannelsLast)
                        ? ChannelLayout::kChannelsLast
                        : ChannelLayout::kChannelsFirst;
    p.desc.units = s.get_enum("units", parse_grid_units, GridUnits::kNormalized);
    p.desc.kind = s.get_enum("kind", parse_grid_kind, GridKind::kAbsolute);
    p.desc.fill_value = s.get_double("fill");
    p.src_shape = s.get_dims("src_shape");
    p.grid_shape = s.get_dims("grid_shape");
    p.strided_src = s.has_flag("views", 's');
    p.negative = s.has_flag("views", 'n');
    p.strided_grid = s.has_flag("views", 'g');
    p.strided_dst = s.has_flag("views", 'd');
    p.saturated = s.get_int("saturated") != 0;
    GridSampleU8Tester t(p);
    t.target(testing::hwy_target_from_label(s.get("target"))).seed(s.get_uint("seed"));
    return t;
  }

  /// Adds the number of elements that differ from ref to *differ (linear: by 1 at most).
  void test(int64_t* differ) const {
    SCOPED_TRACE(testing::rerun_hint(line()));
    std::optional<testing::ScopedHwyTarget> on;
    if (target_ != 0) on.emplace(target_);
    std::mt19937_64 rng(seed_);
    Tensor src(DType::kUInt8, p_.src_shape), grid(DType::kFloat32, p_.grid_shape);
    fill_src(src, rng, p_);
    fill_grid(grid, rng, p_);
    Tensor storage, grid_storage;
    const TensorView sv = p_.strided_src ? testing::scrambled_copy(src, storage, p_.negative)
                                         : src.view();
    const TensorView gv =
        p_.strided_grid ? testing::scrambled_copy(grid, grid_storage, false) : grid.view();
    const Tensor ref = run_impl(p_, "ref", sv, gv);
    const Tensor fast = run_impl(p_, kImpl, sv, gv);
    expect_within_bound(p_, ref, fast, differ);
  }

 private:
  Problem p_;
  uint64_t seed_ = 1;
  int64_t target_ = 0;
};

void random_problems_against_ref(uint64_t seed, int count, int64_t target = 0) {
  SCOPED_TRACE("GRIDOPS_SEED=" + std::to_string(seed));
  std::mt19937_64 rng(seed);
  int64_t linear_elements = 0, differ = 0;
  for (int i = 0; i < count; ++i) {
    GridSampleU8Tester t(random_problem(rng, i));
    t.target(target).seed(rng());
    t.test(&differ);
    if (t.problem().desc.mode == IM::kLinear) {
      int64_t points = 1;
      for (int64_t v : t.problem().grid_shape) points *= v;
      const bool first = t.problem().desc.layout == ChannelLayout::kChannelsFirst;
      linear_elements += points / 2 * t.problem().src_shape[first ? 1 : 3];
    }
    if (::testing::Test::HasFailure()) return;  // the first failing problem is enough
  }
  std::printf("[u8 bound] %lld of %lld linear elements differ from ref by 1\n",
              static_cast<long long>(differ), static_cast<long long>(linear_elements));
}

#define GRIDOPS_SKIP_WITHOUT_HWY() \
  GTEST_SKIP() << "built without Highway: the uint8 path does not exist, nothing to compare"

TEST(GridSampleU8Diff, RandomProblemsAgainstRef) {
#ifdef GRIDOPS_HAVE_HWY
  random_problems_against_ref(testing::test_seed(), 1500);
#else
  GRIDOPS_SKIP_WITHOUT_HWY();
#endif
}

// The other Highway targets this CPU runs (below the best one, which the test above covers).
TEST(GridSampleU8Diff, EveryHighwayTarget) {
#ifdef GRIDOPS_HAVE_HWY
  const std::vector<int64_t> targets = testing::hwy_targets();
  for (size_t k = 1; k < targets.size(); ++k) {
    random_problems_against_ref(testing::test_seed() + k, 300, targets[k]);
    if (::testing::Test::HasFailure()) return;
  }
#else
  GRIDOPS_SKIP_WITHOUT_HWY();
#endif
}

// The problem of GRIDOPS_RERUN (the line a failing check prints), alone. Without it: a
// fixed line, which must read back to the same line and run.
TEST(GridSampleU8Diff, Rerun) {
#ifdef GRIDOPS_HAVE_HWY
  std::optional<testing::ProblemString> line = testing::rerun_request("grid_sample_u8");
  if (!line) {
    const std::string fixed = std::string("grid_sample_u8 impl=") + kImpl +
                              " mode=linear padding=fill ac=1 layout=channels_last "
                              "units=pixels kind=displacement fill=200 src_shape=2x9x13x3 "
                              "grid_shape=2x7x53x2 views=gd saturated=0 target=best seed=31";
    std::string error;
    line = testing::ProblemString::parse(fixed, &error);
    ASSERT_TRUE(line.has_value()) << error;
    EXPECT_EQ(GridSampleU8Tester::from(*line).line().str(), fixed);
  }
  int64_t differ = 0;
  GridSampleU8Tester::from(*line).test(&differ);
#else
  GRIDOPS_SKIP_WITHOUT_HWY();
#endif
}

// Every mode x padding x layout x align_corners on problems big enough to be split over two
// threads: the results are the same bits.
TEST(GridSampleU8Diff, OneAndTwoThreadsBitIdentical) {
#ifdef GRIDOPS_HAVE_HWY
  const uint64_t seed = testing::test_seed();
  SCOPED_TRACE("GRIDOPS_SEED=" + std::to_string(seed));
  std::mt19937_64 rng(seed + 1);
  for (int i = 0; i < 24; ++i) {
    Problem p;
    p.desc.mode = i % 2 ? IM::kNearest : IM::kLinear;
    p.desc.padding = static_cast<GP>((i / 2) % 3);
    p.desc.fill_value = 0.0;
    p.desc.layout = (i / 6) % 2 ? ChannelLayout::kChannelsLast : ChannelLayout::kChannelsFirst;
    p.desc.align_corners = (i / 12) % 2;
    const int64_t c = 1 + i % 4;
    p.src_shape = p.desc.layout == ChannelLayout::kChannelsFirst ? Dims{2, c, 31, 45}
                                                                  : Dims{2, 31, 45, c};
    p.grid_shape = {2, 200, 203, 2};  // 400 rows: split over 2 threads for every C
    SCOPED_TRACE(describe(p));
    Tensor src(DType::kUInt8, p.src_shape), grid(DType::kFloat32, p.grid_shape);
    fill_src(src, rng, p);
    fill_grid(grid, rng, p);
    set_num_threads(1);
    const Tensor one = run_impl(p, kImpl, src.view(), grid.view());
    set_num_threads(2);
    const Tensor two = run_impl(p, kImpl, src.view(), grid.view());
    set_num_threads(0);
    int64_t where = -1;
    EXPECT_TRUE(testing::bitwise_equal(one, two, &where)) << "first difference at " << where;
    const Tensor ref = run_impl(p, "ref", src.view(), grid.view());
    int64_t differ = 0;
    expect_within_bound(p, ref, one, &differ);
    if (::testing::Test::HasFailure()) return;
  }
#else
  GRIDOPS_SKIP_WITHOUT_HWY();
#endif
}

// Channels-first src with 2 to 4 channels and rows wider than a vector: large outputs read
// a channels-last copy of src (NOTE [ GridSample uint8 interleaved copy ]), small ones the
// planes themselves (fewer output points than half the input pixels). Both are within the
// bound of ref, and give the same bits as the channels-last problem on the same image.
TEST(GridSampleU8Diff, ChannelsFirstCopyAndPlanes) {
#ifdef GRIDOPS_HAVE_HWY
  const uint64_t seed = testing::test_seed();
  SCOPED_TRACE("GRIDOPS_SEED=" + std::to_string(seed));
  std::mt19937_64 rng(seed + 7);
  const int64_t n = 2, h = 23, w = 150;
  const Dims grids[] = {{n, 30, 131, 2}, {n, 9, 11, 2}};  // copied; planes
  for (int i = 0; i < 36; ++i) {
    Problem p;
    p.desc.mode = i % 2 ? IM::kNearest : IM::kLinear;
    p.desc.padding = static_cast<GP>((i / 2) % 3);
    p.desc.fill_value = 0.0;
    p.desc.align_corners = (i / 6) % 2;
    const int64_t c = 2 + (i / 12) % 3;
    p.desc.layout = ChannelLayout::kChannelsFirst;
    p.src_shape = {n, c, h, w};
    p.negative = i % 3 == 0;
    p.strided_src = p.negative;
    Tensor src(DType::kUInt8, p.src_shape), src_last(DType::kUInt8, {n, h, w, c});
    fill_src(src, rng, p);
    const auto* sf = src.data_as<uint8_t>();
    auto* sl = src_last.data_as<uint8_t>();
    for (int64_t b = 0; b < n; ++b)
      for (int64_t ch = 0; ch < c; ++ch)
        for (int64_t k = 0; k < h * w; ++k) {
          sl[(b * h * w + k) * c + ch] = sf[(b * c + ch) * h * w + k];
        }
    for (const Dims& gs : grids) {
      p.grid_shape = gs;
      SCOPED_TRACE(describe(p));
      Tensor grid(DType::kFloat32, gs);
      fill_grid(grid, rng, p);
      Tensor storage;
      const TensorView sv =
          p.strided_src ? testing::scrambled_copy(src, storage, true) : src.view();
      const Tensor ref = run_impl(p, "ref", sv, grid.view());
      const Tensor first = run_impl(p, kImpl, sv, grid.view());
      int64_t differ = 0;
      expect_within_bound(p, ref, first, &differ);
      Problem q = p;
      q.desc.layout = ChannelLayout::kChannelsLast;
      q.src_shape = src_last.shape();
      q.strided_src = q.negative = false;
      const Tensor last = run_impl(q, kImpl, src_last.view(), grid.view());
      const int64_t ho = gs[1], wo = gs[2];
      const auto* a = first.data_as<uint8_t>();
      const auto* l = last.data_as<uint8_t>();
      int64_t mismatches = 0;
      for (int64_t b = 0; b < n; ++b)
        for (int64_t ch = 0; ch < c; ++ch)
          for (int64_t k = 0; k < ho * wo; ++k)
            mismatches += a[(b * c + ch) * ho * wo + k] != l[(b * ho * wo + k) * c + ch];
      EXPECT_EQ(mismatches, 0) << "channels-first and channels-last results differ";
      if (::testing::Test::HasFailure()) return;
    }
  }
#else
  GRIDOPS_SKIP_WITHOUT_HWY();
#endif
}

// Input windows (GridSampleWindow): src is the box grid_sample_input_box names, cut out of
// the full input; the result is the full problem's reference result within the bound.
TEST(GridSampleU8Diff, InputWindow) {
#ifdef GRIDOPS_HAVE_HWY
  const uint64_t seed = testing::test_seed();
  SCOPED_TRACE("GRIDOPS_SEED=" + std::to_string(seed));
  std::mt19937_64 rng(seed + 2);
  int64_t differ = 0, compared = 0;
  for (int i = 0; i < 120; ++i) {
    Problem p = random_problem(rng, i);
    p.strided_src = p.strided_grid = p.strided_dst = false;
    SCOPED_TRACE("problem " + std::to_string(i) + ": " + describe(p));
    Tensor src(DType::kUInt8, p.src_shape), grid(DType::kFloat32, p.grid_shape);
    fill_src(src, rng, p);
    // Mostly a small region of the input, so that the window is smaller than the input.
    std::uniform_real_distribution<float> u(-0.3f, 0.5f);
    for (int64_t k = 0; k < grid.num_elements(); ++k) grid.data_as<float>()[k] = u(rng);
    const bool first = p.desc.layout == ChannelLayout::kChannelsFirst;
    const Dims full = first ? Dims{p.src_shape[2], p.src_shape[3]}
                            : Dims{p.src_shape[1], p.src_shape[2]};
    auto box = grid_sample_input_box(p.desc, full, grid.view());
    ASSERT_TRUE(box.ok()) << box.status().to_string();
    Dims start(4, 0), shape = p.src_shape;
    GridSampleWindow window;
    window.full = full;
    for (size_t d = 0; d < 2; ++d) {
      const size_t axis = first ? 2 + d : 1 + d;
      start[axis] = box.value()[d].first;
      shape[axis] = box.value()[d].second - box.value()[d].first;
      window.origin.push_back(box.value()[d].first);
    }
    const Tensor part = testing::copy_box(src, start, shape);
    GridSampleDesc desc = p.desc;
    desc.impl = kImpl;
    auto plan = make_grid_sample_plan(desc, DType::kUInt8, shape, DType::kFloat32,
                                      p.grid_shape, window);
    ASSERT_TRUE(plan.ok()) << plan.status().to_string();
    EXPECT_EQ(std::string(plan.value().impl_name()), kImpl);
    Tensor fast(DType::kUInt8, plan.value().dst_shape());
    const Status st = plan.value().run(part.view(), grid.view(), fast.mutable_view());
    ASSERT_TRUE(st.ok()) << st.to_string();
    const Tensor ref = run_impl(p, "ref", src.view(), grid.view());
    expect_within_bound(p, ref, fast, &differ);
    compared += ref.num_elements();
    if (::testing::Test::HasFailure()) return;
  }
  EXPECT_GT(compared, 0);
#else
  GRIDOPS_SKIP_WITHOUT_HWY();
#endif
}

// The implementation list picks the uint8 path for the W2 uint8 benchmark shapes (both
// layouts, linear and nearest) and not for what it declines.
TEST(GridSampleU8Diff, ImplementationChoice) {
#ifdef GRIDOPS_HAVE_HWY
  for (const bool last : {false, true}) {
    for (const IM m : {IM::kLinear, IM::kNearest, IM::kCubic}) {
      GridSampleDesc desc;
      desc.mode = m;
      desc.layout = last ? ChannelLayout::kChannelsLast : ChannelLayout::kChannelsFirst;
      const Dims s = last ? Dims{1, 1024, 1024, 3} : Dims{1, 3, 1024, 1024};
      auto plan = make_grid_sample_plan(desc, DType::kUInt8, s, DType::kFloat32,
                                        Dims{1, 1024, 1024, 2});
      ASSERT_TRUE(plan.ok()) << plan.status().to_string();
      EXPECT_EQ(std::string(plan.value().impl_name()), m == IM::kCubic ? "ref" : kImpl)
          << to_string(m) << (last ? " nhwc" : " nchw");
    }
  }
  GridSampleDesc desc;
  auto five = make_grid_sample_plan(desc, DType::kUInt8, Dims{1, 5, 8, 8}, DType::kFloat32,
                                    Dims{1, 4, 4, 2});
  ASSERT_TRUE(five.ok());
  EXPECT_STRNE(five.value().impl_name(), kImpl);  // 5 channels
  auto f16 = make_grid_sample_plan(desc, DType::kUInt8, Dims{1, 3, 8, 8}, DType::kFloat16,
                                   Dims{1, 4, 4, 2});
  ASSERT_TRUE(f16.ok());
  EXPECT_STRNE(f16.value().impl_name(), kImpl);  // float16 grid
#else
  GRIDOPS_SKIP_WITHOUT_HWY();
#endif
}

}  // namespace
}  // namespace gridops
