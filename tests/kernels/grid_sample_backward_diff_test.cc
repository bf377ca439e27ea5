// Differential tests of the GridSample backward: every fast entry of the implementation
// list (testing::fast_entries: grid_sample_backward.bands, the test-only .bands_portable
// and .bands_four_chunks, and the alias "fast") against "ref" on 2,400 random
// problems per run (rank 1-3, every mode x padding x align_corners x layout, float32/
// float16/bfloat16 src and grid, strided views, coordinates continuous, on a quarter-step
// lattice that hits the kinks exactly, NaN, +-inf and huge), and 1 vs 2 vs 7 threads
// bit-identical on problems large enough to be split into several bands (up to 28 with 7
// threads) or, with 4 batch entries, into whole entries per thread, in one chunk and (the
// entry .bands_four_chunks) in four.
//
// NOTE [ GridSample backward fast path tolerance ]
// Both implementations compute the same per-axis weights and derivative weights bit for bit
// (the same float formulas and the same conventions, grid_sample_taps.h); they differ in
// how the products and sums are rounded: the reference multiplies and adds in double and
// rounds once, the fast path in float. Each output element here is a sum of at most a few
// hundred terms of magnitude <= 2 (weights <= 1.25 per axis, data and grad_dst in [-1, 1],
// dx/dg <= 3.5), so the float error is below terms * 2^-24 * sum|terms|, well below
// 2^-12 * (1 + max|ref|); float16/bfloat16 outputs may also round to the neighbouring value
// (one unit in the last place of the output type).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "gridops/gridops.h"
#include "kernels/grid_sample/grid_sample.h"
#include "ops/grid_sample_impls.h"
#include "support/entries.h"
#include "support/problem_string.h"
#include "support/test_util.h"

namespace gridops {
namespace {

/// The backward list's entries but "ref" (test-only ones included) and the alias "fast".
std::vector<std::string> fast_impls() {
  return testing::fast_entries(detail::grid_sample_backward_entries());
}

/// The entry the list chooses by itself (the first fast one that is not test-only).
const char* fast_impl() {
  for (const auto& e : detail::grid_sample_backward_entries()) {
    if (!e.test_only) return e.name;
  }
  return "ref";
}

using IM = InterpolationMode;
using GP = GridPadding;

struct Case {
  GridSampleDesc desc;
  Tensor src, grid, grad_dst;
};

/// A case's description: what its canonical line holds (the data come from `seed`).
struct Spec {
  GridSampleDesc desc;
  DType src_dtype = DType::kFloat32, grid_dtype = DType::kFloat32;
  Dims src_shape{1, 1, 4, 4}, grid_shape{1, 3, 3, 2};
  uint64_t seed = 1;
};

Spec random_spec(std::mt19937_64& rng, int r, int64_t max_in, int64_t max_out, int64_t max_c) {
  Spec k;
  GridSampleDesc& d = k.desc;
  d.mode = static_cast<IM>(rng() % 3);
  // Every padding the fast backward takes (constant goes to the reference: its own test).
  const GP pads[] = {GP::kZeros, GP::kBorder, GP::kReflection, GP::kWrap, GP::kFill};
  d.padding = pads[rng() % 5];
  if (d.padding == GP::kFill) d.fill_value = 0.5;
  d.align_corners = static_cast<int64_t>(rng() % 2);
  // The grid conventions: a quarter of the cases each.
  if (rng() % 4 == 0) d.units = GridUnits::kPixels;
  if (rng() % 4 == 0) d.kind = GridKind::kDisplacement;
  d.layout = (rng() % 2) ? ChannelLayout::kChannelsLast : ChannelLayout::kChannelsFirst;
  const DType types[] = {DType::kFloat32, DType::kFloat16, DType::kBFloat16};
  k.src_dtype = types[rng() % 3];
  k.grid_dtype = types[rng() % 3];
  const int64_t n = 1 + static_cast<int64_t>(rng() % 2), c = 1 + static_cast<int64_t>(rng() % static_cast<uint64_t>(max_c));
  Dims in, out;
  for (int a = 0; a < r; ++a) in.push_back(1 + static_cast<int64_t>(rng() % static_cast<uint64_t>(max_in)));
  for (int a = 0; a < r; ++a) out.push_back(1 + static_cast<int64_t>(rng() % static_cast<uint64_t>(max_out)));
  const bool cf = d.layout == ChannelLayout::kChannelsFirst;
  Dims ss = {n}, gs = {n};
  if (cf) ss.push_back(c);
  ss.insert(ss.end(), in.begin(), in.end());
  gs.insert(gs.end(), out.begin(), out.end());
  gs.push_back(r);
  if (!cf) ss.push_back(c);
  k.src_shape = ss;
  k.grid_shape = gs;
  k.seed = rng();
  return k;
}

/// The tensors of a spec, drawn from its seed.
Case make_case(const Spec& spec) {
  std::mt19937_64 rng(spec.seed);
  Case k;
  k.desc = spec.desc;
  const GridSampleDesc& d = k.desc;
  const bool cf = d.layout == ChannelLayout::kChannelsFirst;
  const int r = static_cast<int>(spec.grid_shape.back());
  const Dims& ss = spec.src_shape;
  const Dims in(ss.begin() + (cf ? 2 : 1), ss.begin() + (cf ? 2 : 1) + r);
  Dims ds = {ss[0]};
  if (cf) ds.push_back(ss[1]);
  ds.insert(ds.end(), spec.grid_shape.begin() + 1, spec.grid_shape.end() - 1);
  if (!cf) ds.push_back(ss.back());
  const DType sdt = spec.src_dtype, gdt = spec.grid_dtype;
  const Dims& gs = spec.grid_shape;
  k.src = Tensor(sdt, ss);
  k.grad_dst = Tensor(sdt, ds);
  k.grid = Tensor(gdt, gs);
  testing::fill_random(k.src, rng, -1, 1);
  testing::fill_random(k.grad_dst, rng, -1, 1);
  // Grid: continuous, quarter-step lattice (exact kinks), or special values.
  Tensor g64(DType::kFloat64, gs);
  const int style = static_cast<int>(rng() % 4);
  for (int64_t i = 0; i < g64.num_elements(); ++i) {
    double v = std::uniform_real_distribution<double>(-1.4, 1.4)(rng);
    if (style == 1) v = static_cast<double>(static_cast<int>(rng() % 25) - 12) / 4.0;
    if (style == 2) v = static_cast<double>(static_cast<int>(rng() % 13) - 6) / 8.0;
    if (style == 3 && rng() % 8 == 0) {
      const double special[] = {std::nan(""), INFINITY, -INFINITY, 1e30, -1e30, 70000.0};
      v = special[rng() % 6];
    }
    if (std::isfinite(v) && std::fabs(v) < 2.0) {
      // The same spread in pixels (lattices scaled by 4 or 2 keep hitting the kinks at
      // integer coordinates) or as a small normalized displacement.
      const int a = r - 1 - static_cast<int>(i % r);
      const double len = static_cast<double>(in[static_cast<size_t>(a)]);
      const bool lattice = style == 1 || style == 2;
      if (d.units == GridUnits::kPixels && d.kind == GridKind::kAbsolute) {
        v = lattice ? 4.0 * v : (v + 1.0) * 0.5 * len - 0.5;
      } else if (d.units == GridUnits::kPixels) {
        v = 2.0 * v;
      } else if (d.kind == GridKind::kDisplacement) {
        v = 0.3 * v;
      }
    }
    g64.data_as<double>()[i] = v;
  }
  for (int64_t i = 0; i < g64.num_elements(); ++i) {
    const double v = g64.data_as<double>()[i];
    if (gdt == DType::kFloat16) k.grid.data_as<float16>()[i] = f64_to_f16(v);
    else if (gdt == DType::kBFloat16) k.grid.data_as<bfloat16>()[i] = f64_to_bf16(v);
    else k.grid.data_as<float>()[i] = static_cast<float>(v);
  }
  return k;
}

Case random_case(std::mt19937_64& rng, int r, int64_t max_in, int64_t max_out, int64_t max_c) {
  return make_case(random_spec(rng, r, max_in, max_out, max_c));
}

std::string describe(const Case& k) {
  return std::string("mode=") + to_string(k.desc.mode) + " padding=" + to_string(k.desc.padding) +
         " units=" + to_string(k.desc.units) + " kind=" + to_string(k.desc.kind) +
         " align_corners=" + std::to_string(k.desc.align_corners) + " layout=" + to_string(k.desc.layout) +
         " src=" + dims_to_string(k.src.shape()) + " " + to_string(k.src.dtype()) +
         " grid=" + dims_to_string(k.grid.shape()) + " " + to_string(k.grid.dtype());
}

MutableTensorView as_mutable(const TensorView& v) {
  return MutableTensorView(v.dtype, const_cast<void*>(v.data), v.shape, v.strides);
}

// Runs one implementation; strided: every view scrambled (reversed axes, negative strides).
void run_impl(const Case& k, const char* impl, bool strided, Tensor* gsrc, Tensor* ggrid) {
  GridSampleDesc d = k.desc;
  d.impl = impl;
  *gsrc = Tensor(k.src.dtype(), k.src.shape());
  *ggrid = Tensor(k.grid.dtype(), k.grid.shape());
  if (!strided) {
    MutableTensorView a = gsrc->mutable_view(), b = ggrid->mutable_view();
    const Status s = grid_sample_backward(d, k.grad_dst, k.src, k.grid, &a, &b);
    ASSERT_TRUE(s.ok()) << s.to_string();
    return;
  }
  Tensor s1, s2, s3, o1, o2;
  const TensorView src = testing::scrambled_copy(k.src, s1, true);
  const TensorView grid = testing::scrambled_copy(k.grid, s2, false);
  const TensorView gd = testing::scrambled_copy(k.grad_dst, s3, true);
  const MutableTensorView a = as_mutable(testing::scrambled_copy(*gsrc, o1, false));
  const MutableTensorView b = as_mutable(testing::scrambled_copy(*ggrid, o2, true));
  const Status s = grid_sample_backward(d, gd, src, grid, &a, &b);
  ASSERT_TRUE(s.ok()) << s.to_string();
  for (int64_t i = 0; i < gsrc->num_elements(); ++i) {
    std::memcpy(static_cast<char*>(gsrc->data()) + i * static_cast<int64_t>(dtype_size(gsrc->dtype())),
                a.element_ptr(testing::unravel(i, gsrc->shape())), dtype_size(gsrc->dtype()));
  }
  for (int64_t i = 0; i < ggrid->num_elements(); ++i) {
    std::memcpy(static_cast<char*>(ggrid->data()) + i * static_cast<int64_t>(dtype_size(ggrid->dtype())),
                b.element_ptr(testing::unravel(i, ggrid->shape())), dtype_size(ggrid->dtype()));
  }
}

// NOTE [ GridSample backward fast path tolerance ].
void expect_close(const Tensor& got, const Tensor& want, const std::string& what) {
  double max_abs = 0;
  for (int64_t i = 0; i < want.num_elements(); ++i) {
    const double w = testing::element_as_double(want, i);
    if (std::isfinite(w)) max_abs = std::max(max_abs, std::fabs(w));
  }
  const double ulp = got.dtype() == DType::kFloat16 ? std::ldexp(1.0, -10)
                     : got.dtype() == DType::kBFloat16 ? std::ldexp(1.0, -7) : 0.0;
  for (int64_t i = 0; i < want.num_elements(); ++i) {
    const double a = testing::element_as_double(got, i), b = testing::element_as_double(want, i);
    if (std::isnan(b)) {
      ASSERT_TRUE(std::isnan(a)) << what << " element " << i << ": fast " << a << ", ref NaN";
      continue;
    }
    ASSERT_NEAR(a, b, std::ldexp(1.0, -12) * (1.0 + max_abs) + ulp * std::fabs(b) + 6e-8)
        << what << " element " << i;
  }
}

/// One GridSample backward problem as a fluent tester: `test(entry)` checks the entry's
/// grad_src and grad_grid against ref (NOTE [ GridSample backward fast path tolerance ]) on
/// the spec's data, with `strided` every view scrambled. Its canonical line
/// (tests/support/problem_string.h) is printed by a failing check and rerun alone by
/// GridSampleBackwardDiff.Rerun.
class GridSampleBackwardTester {
 public:
  GridSampleBackwardTester() = default;
  explicit GridSampleBackwardTester(Spec s) : s_(std::move(s)) {}
  GridSampleBackwardTester& strided(bool v) { strided_ = v; return *this; }

  testing::ProblemString line(const std::string& impl) const {
    const GridSampleDesc& d = s_.desc;
    testing::ProblemString s("grid_sample_backward");
    s.add("impl", impl)
        .add("mode", to_string(d.mode))
        .add("padding", to_string(d.padding))
        .add("ac", d.align_corners)
        .add("layout", to_string(d.layout))
        .add("units", to_string(d.units))
        .add("kind", to_string(d.kind))
        .add("fill", d.fill_value)
        .add("src", s_.src_dtype)
        .add("src_shape", s_.src_shape)
        .add("grid", s_.grid_dtype)
        .add("grid_shape", s_.grid_shape)
        .add("views", strided_ ? "strided" : "dense")
        .add("seed", s_.seed);
    return s;
  }

  static GridSampleBackwardTester from(const testing::ProblemString& s, std::string* impl) {
    Spec k;
    *impl = s.get("impl");
    GridSampleDesc& d = k.desc;
    d.mode = s.get_enum("mode", parse_interpolation_mode, IM::kLinear);
    d.padding = s.get_enum("padding", parse_grid_padding, GP::kZeros);
    d.align_corners = static_cast<int>(s.get_int("ac"));
    d.layout = s.get("layout") == to_string(ChannelLayout::kChannelsLast)
                   ? ChannelLayout::kChannelsLast
                   : ChannelLayout::kChannelsFirst;
    d.units = s.get_enum("units", parse_grid_units, GridUnits::kNormalized);
    d.kind = s.get_enum("kind", parse_grid_kind, GridKind::kAbsolute);
    d.fill_value = s.get_double("fill");
    k.src_dtype = s.get_dtype("src");
    k.src_shape = s.get_dims("src_shape");
    k.grid_dtype = s.get_dtype("grid");
    k.grid_shape = s.get_dims("grid_shape");
    k.seed = s.get_uint("seed");
    GridSampleBackwardTester t(k);
    t.strided(s.get("views") == "strided");
    return t;
  }

  void test(const std::string& impl) const {
    SCOPED_TRACE(testing::rerun_hint(line(impl)));
    const Case k = make_case(s_);
    Tensor rs, rg, fs, fg;
    ASSERT_NO_FATAL_FAILURE(run_impl(k, "ref", strided_, &rs, &rg));
    ASSERT_NO_FATAL_FAILURE(run_impl(k, impl.c_str(), strided_, &fs, &fg));
    ASSERT_NO_FATAL_FAILURE(expect_close(fs, rs, impl + " grad_src"));
    ASSERT_NO_FATAL_FAILURE(expect_close(fg, rg, impl + " grad_grid"));
  }

 private:
  Spec s_;
  bool strided_ = false;
};

TEST(GridSampleBackwardDiff, FastMatchesReference) {
  const uint64_t seed = testing::test_seed();
  SCOPED_TRACE(::testing::Message() << "seed " << seed);
  std::mt19937_64 rng(seed);
  int checked = 0, fast_ran = 0;
  for (int it = 0; it < 2400; ++it) {
    const int r = 1 + it % 3;
    GridSampleBackwardTester t(random_spec(rng, r, r == 3 ? 4 : 7, r == 3 ? 3 : 5, 10));
    t.strided(it % 5 == 0);
    for (const std::string& impl : fast_impls()) {
      t.test(impl);
      if (HasFatalFailure()) return;
      ++fast_ran;
    }
    ++checked;
  }
  EXPECT_EQ(checked, 2400);
  EXPECT_EQ(fast_ran, 2400 * static_cast<int>(fast_impls().size()));
  auto plan = make_grid_sample_backward_plan(GridSampleDesc{}, DType::kFloat32, Dims{1, 1, 4, 4},
                                             DType::kFloat32, Dims{1, 2, 2, 2});
  ASSERT_TRUE(plan.ok());
  EXPECT_STREQ(plan->impl_name(), fast_impl());
  plan = make_grid_sample_backward_plan(GridSampleDesc{}, DType::kFloat64, Dims{1, 1, 4, 4},
                                        DType::kFloat32, Dims{1, 2, 2, 2});
  ASSERT_TRUE(plan.ok());
  EXPECT_STREQ(plan->impl_name(), "ref");  // float64: the reference
}

// The problem of GRIDOPS_RERUN (the line a failing check prints), alone. Without it: a
// fixed line, which must read back to the same line and run on every fast entry.
TEST(GridSampleBackwardDiff, Rerun) {
  const auto r = testing::rerun_problem<GridSampleBackwardTester>(
      "grid_sample_backward",
      "grid_sample_backward impl=ref mode=linear padding=reflection ac=0 layout=channels_last "
      "units=pixels kind=absolute fill=0 src=bfloat16 src_shape=2x6x5x3 grid=float32 "
      "grid_shape=2x4x3x2 views=strided seed=17");
  ASSERT_TRUE(r.has_value());
  if (r->from_env) return r->tester.test(r->impl);
  for (const std::string& e : fast_impls()) r->tester.test(e);  // the fixed line: every entry
}

TEST(GridSampleBackwardDiff, BitIdenticalForAnyThreadCount) {
  const uint64_t seed = testing::test_seed();
  SCOPED_TRACE(::testing::Message() << "seed " << seed);
  std::mt19937_64 rng(seed + 1);
  const int saved = get_num_threads();
  // Batch 4: 2 threads take whole batch entries each, 7 threads split each entry into bands.
  struct Shape {
    int r;
    int64_t in, out, c, n;
  } shapes[] = {{2, 40, 100, 3, 1}, {2, 24, 60, 20, 1}, {3, 12, 24, 16, 1}, {2, 16, 200, 2, 1},
                {1, 50, 3000, 5, 1}, {2, 20, 50, 9, 4}, {3, 10, 16, 8, 4}};
  for (const Shape& sh : shapes) {
    for (int rep = 0; rep < 2; ++rep) {
      Case k = random_case(rng, sh.r, 2, 2, 1);
      // Fixed sizes: every input axis sh.in, output axis sh.out, sh.c channels.
      Dims ss = {sh.n}, ds = {sh.n}, gs = {sh.n};
      const bool cf = k.desc.layout == ChannelLayout::kChannelsFirst;
      if (cf) { ss.push_back(sh.c); ds.push_back(sh.c); }
      for (int a = 0; a < sh.r; ++a) { ss.push_back(sh.in); ds.push_back(sh.out); gs.push_back(sh.out); }
      if (!cf) { ss.push_back(sh.c); ds.push_back(sh.c); }
      gs.push_back(sh.r);
      k.src = Tensor(k.src.dtype(), ss);
      k.grad_dst = Tensor(k.grad_dst.dtype(), ds);
      k.grid = Tensor(k.grid.dtype(), gs);
      testing::fill_random(k.src, rng, -1, 1);
      testing::fill_random(k.grad_dst, rng, -1, 1);
      testing::fill_random(k.grid, rng, -1.2, 1.2);
      Tensor rs, rg;
      ASSERT_NO_FATAL_FAILURE(run_impl(k, "ref", false, &rs, &rg));
      // Every fast entry: default chunks (one here), and 4 chunks (.bands_four_chunks; the
      // accumulators carry over chunks, the band split differs per chunk).
      for (const std::string& impl : fast_impls()) {
        Tensor s1, g1;
        set_num_threads(1);
        ASSERT_NO_FATAL_FAILURE(run_impl(k, impl.c_str(), false, &s1, &g1));
        for (int threads : {2, 7}) {
          set_num_threads(threads);
          Tensor sn, gn;
          ASSERT_NO_FATAL_FAILURE(run_impl(k, impl.c_str(), false, &sn, &gn));
          int64_t where = -1;
          EXPECT_TRUE(testing::bitwise_equal(s1, sn, &where)) << threads << " threads, " << impl << ", grad_src element " << where << " " << describe(k);
          EXPECT_TRUE(testing::bitwise_equal(g1, gn, &where)) << threads << " threads, " << impl << ", grad_grid element " << where << " " << describe(k);
        }
        set_num_threads(saved);
        ASSERT_NO_FATAL_FAILURE(expect_close(s1, rs, "grad_src " + impl + " " + describe(k)));
        ASSERT_NO_FATAL_FAILURE(expect_close(g1, rg, "grad_grid " + impl + " " + describe(k)));
      }
    }
  }
  set_num_threads(saved);
}

// The portable inner loop (the test-only entry .bands_portable; builds without Highway
// run it as .bands) on 400 random problems against the reference, and 1 vs 2 vs 7 threads
// bit-identical on one larger problem per rank.
TEST(GridSampleBackwardDiff, PortableInnerLoop) {
  const uint64_t seed = testing::test_seed();
  SCOPED_TRACE(::testing::Message() << "seed " << seed);
  std::mt19937_64 rng(seed + 4);
  const int saved = get_num_threads();
  const char* portable = "grid_sample_backward.bands_portable";
  if (testing::find_entry(detail::grid_sample_backward_entries(), portable) == nullptr) {
    GTEST_SKIP() << "no Highway in this build: grid_sample_backward.bands is the portable loop";
  }
  for (int it = 0; it < 400; ++it) {
    const int r = 1 + it % 3;
    const Case k = random_case(rng, r, r == 3 ? 4 : 7, r == 3 ? 3 : 5, 10);
    Tensor fs, fg, rs, rg;
    ASSERT_NO_FATAL_FAILURE(run_impl(k, portable, it % 5 == 0, &fs, &fg)) << describe(k);
    ASSERT_NO_FATAL_FAILURE(run_impl(k, "ref", it % 5 == 0, &rs, &rg)) << describe(k);
    ASSERT_NO_FATAL_FAILURE(expect_close(fs, rs, "grad_src " + describe(k)));
    ASSERT_NO_FATAL_FAILURE(expect_close(fg, rg, "grad_grid " + describe(k)));
  }
  for (int r = 1; r <= 3; ++r) {
    Case k = random_case(rng, r, 2, 2, 1);
    const int64_t in = r == 3 ? 10 : 30, out = r == 3 ? 20 : r == 2 ? 90 : 4000, c = 6;
    Dims ss = {1}, ds = {1}, gs = {1};
    const bool cf = k.desc.layout == ChannelLayout::kChannelsFirst;
    if (cf) { ss.push_back(c); ds.push_back(c); }
    for (int a = 0; a < r; ++a) { ss.push_back(in); ds.push_back(out); gs.push_back(out); }
    if (!cf) { ss.push_back(c); ds.push_back(c); }
    gs.push_back(r);
    k.src = Tensor(k.src.dtype(), ss);
    k.grad_dst = Tensor(k.grad_dst.dtype(), ds);
    k.grid = Tensor(k.grid.dtype(), gs);
    testing::fill_random(k.src, rng, -1, 1);
    testing::fill_random(k.grad_dst, rng, -1, 1);
    testing::fill_random(k.grid, rng, -1.2, 1.2);
    Tensor s1, g1;
    set_num_threads(1);
    ASSERT_NO_FATAL_FAILURE(run_impl(k, portable, false, &s1, &g1));
    for (int threads : {2, 7}) {
      set_num_threads(threads);
      Tensor sn, gn;
      ASSERT_NO_FATAL_FAILURE(run_impl(k, portable, false, &sn, &gn));
      EXPECT_TRUE(testing::bitwise_equal(s1, sn)) << threads << " threads, grad_src " << describe(k);
      EXPECT_TRUE(testing::bitwise_equal(g1, gn)) << threads << " threads, grad_grid " << describe(k);
    }
    set_num_threads(saved);
    Tensor rs, rg;
    ASSERT_NO_FATAL_FAILURE(run_impl(k, "ref", false, &rs, &rg));
    ASSERT_NO_FATAL_FAILURE(expect_close(s1, rs, "grad_src " + describe(k)));
    ASSERT_NO_FATAL_FAILURE(expect_close(g1, rg, "grad_grid " + describe(k)));
  }
  set_num_threads(saved);
}

// float32 rows of many widths, both layouts: the fast path's channel-row copies (4 x 4
// block transposes with remainders, whole-row copies) against the reference.
TEST(GridSampleBackwardDiff, ChannelRowCopies) {
  std::mt19937_64 rng(testing::test_seed() + 3);
  for (int64_t c : {1, 3, 4, 8, 13, 19, 64}) {
    for (ChannelLayout layout : {ChannelLayout::kChannelsFirst, ChannelLayout::kChannelsLast}) {
      Case k = random_case(rng, 2, 2, 2, 1);
      k.desc.layout = layout;
      k.desc.mode = static_cast<IM>(rng() % 3);
      const bool cf = layout == ChannelLayout::kChannelsFirst;
      const Dims ss = cf ? Dims{2, c, 21, 13} : Dims{2, 21, 13, c};
      const Dims ds = cf ? Dims{2, c, 9, 17} : Dims{2, 9, 17, c};
      k.src = Tensor(DType::kFloat32, ss);
      k.grad_dst = Tensor(DType::kFloat32, ds);
      k.grid = Tensor(DType::kFloat32, {2, 9, 17, 2});
      testing::fill_random(k.src, rng, -1, 1);
      testing::fill_random(k.grad_dst, rng, -1, 1);
      testing::fill_random(k.grid, rng, -1.2, 1.2);
      Tensor rs, rg;
      ASSERT_NO_FATAL_FAILURE(run_impl(k, "ref", false, &rs, &rg)) << describe(k);
      for (const std::string& impl : fast_impls()) {
        Tensor fs, fg;
        ASSERT_NO_FATAL_FAILURE(run_impl(k, impl.c_str(), false, &fs, &fg)) << impl << " " << describe(k);
        ASSERT_NO_FATAL_FAILURE(expect_close(fs, rs, impl + " grad_src " + describe(k)));
        ASSERT_NO_FATAL_FAILURE(expect_close(fg, rg, impl + " grad_grid " + describe(k)));
      }
    }
  }
}

// Empty problems the fast path takes (no channels, no output points, no batch entries):
// it runs and gives the reference's result (zeros; outputs start zeroed here, so this does
// not show that they are written).
TEST(GridSampleBackwardDiff, EmptyProblems) {
  struct Shapes {
    Dims src, grid;
  } cases[] = {{{2, 0, 5, 6}, {2, 3, 4, 2}}, {{2, 3, 5, 6}, {2, 0, 4, 2}}, {{0, 3, 5, 6}, {0, 3, 4, 2}},
               {{1, 0, 4, 5, 6}, {1, 2, 3, 4, 3}}};
  for (const Shapes& sh : cases) {
    for (IM mode : {IM::kNearest, IM::kLinear, IM::kCubic}) {
      Case k;
      k.desc.mode = mode;
      k.src = Tensor(DType::kFloat32, sh.src);
      k.grid = Tensor(DType::kFloat32, sh.grid);
      Dims ds = {sh.src[0], sh.src[1]};
      for (size_t a = 1; a + 1 < sh.grid.size(); ++a) ds.push_back(sh.grid[a]);
      k.grad_dst = Tensor(DType::kFloat32, ds);
      std::mt19937_64 rng(5);
      testing::fill_random(k.grid, rng, -1, 1);
      Tensor rs, rg;
      ASSERT_NO_FATAL_FAILURE(run_impl(k, "ref", false, &rs, &rg)) << describe(k);
      for (const std::string& impl : fast_impls()) {
        Tensor fs, fg;
        ASSERT_NO_FATAL_FAILURE(run_impl(k, impl.c_str(), false, &fs, &fg)) << impl << " " << describe(k);
        EXPECT_TRUE(testing::bitwise_equal(fs, rs)) << impl << " " << describe(k);
        EXPECT_TRUE(testing::bitwise_equal(fg, rg)) << impl << " " << describe(k);
        for (int64_t i = 0; i < fg.num_elements(); ++i) ASSERT_EQ(fg.data_as<float>()[i], 0.0f) << impl << " " << describe(k);
      }
    }
  }
}

// An output view with a zero stride (elements aliasing each other): the fast entry declines
// it at run time and the operator runs the reference (logged), so both give the same bits
// (the reference's last write wins).
TEST(GridSampleBackwardDiff, AliasingOutputsRunTheReference) {
  std::mt19937_64 rng(testing::test_seed() + 2);
  for (int rep = 0; rep < 6; ++rep) {
    Case k = random_case(rng, 2, 6, 5, 4);
    k.desc.layout = ChannelLayout::kChannelsFirst;
    Dims ss = {1, 2, 5, 6}, ds = {1, 2, 4, 3}, gs = {1, 4, 3, 2};
    k.src = Tensor(k.src.dtype(), ss);
    k.grad_dst = Tensor(k.src.dtype(), ds);
    k.grid = Tensor(k.grid.dtype(), gs);
    testing::fill_random(k.src, rng, -1, 1);
    testing::fill_random(k.grad_dst, rng, -1, 1);
    testing::fill_random(k.grid, rng, -1.2, 1.2);
    Tensor outs[2][2];
    for (int impl = 0; impl < 2; ++impl) {
      GridSampleDesc d = k.desc;
      d.impl = impl ? "ref" : fast_impl();
      outs[impl][0] = Tensor(k.src.dtype(), {6});
      outs[impl][1] = Tensor(k.grid.dtype(), {2});
      // grad_src: every (n, c, h) row on the same 6 elements; grad_grid: every point on one pair.
      MutableTensorView a(k.src.dtype(), outs[impl][0].data(), ss, {0, 0, 0, 1});
      MutableTensorView b(k.grid.dtype(), outs[impl][1].data(), gs, {0, 0, 0, 1});
      const bool logged = impl == 0 && rep == 0;
      if (logged) {
        ASSERT_EQ(setenv("GRIDOPS_VERBOSE", "dispatch", 1), 0);
        ::testing::internal::CaptureStderr();
      }
      const Status s = grid_sample_backward(d, k.grad_dst, k.src, k.grid, &a, &b);
      if (logged) {
        const std::string log = ::testing::internal::GetCapturedStderr();
        unsetenv("GRIDOPS_VERBOSE");
        EXPECT_NE(log.find(std::string("grid_sample_backward: '") + fast_impl() +
                           "' declines these views at run time (grad_src elements alias each "
                           "other): running 'ref'"),
                  std::string::npos)
            << log;
        // The plan's line names the schedule its tables fix (NOTE [ GridSample backward fast
        // path ]).
        EXPECT_NE(log.find(std::string("grid_sample_backward: plan '") + fast_impl() +
                           "' (schedule: band_kernel="),
                  std::string::npos)
            << log;
      }
      ASSERT_TRUE(s.ok()) << s.to_string();
    }
    EXPECT_TRUE(testing::bitwise_equal(outs[0][0], outs[1][0])) << describe(k);
    EXPECT_TRUE(testing::bitwise_equal(outs[0][1], outs[1][1])) << describe(k);
  }
}

}  // namespace
}  // namespace gridops
