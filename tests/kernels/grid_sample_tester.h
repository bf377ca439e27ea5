// GridSampleTester: one GridSample forward problem as a fluent tester (XNNPACK's testers):
// set what a test is about, keep the defaults for the rest, then `test(entry)` checks that
// entry against ref within NOTE [ GridSample fast path tolerance ]. The problem, its data
// (drawn from `seed`), the thread count and the Highway target are all in its canonical
// line (tests/support/problem_string.h), which a failing check prints with the command that
// reruns exactly that problem (GridSampleDiff.Rerun).
#pragma once

#include "kernels/grid_sample_diff_util.h"
#include "support/problem_string.h"

namespace gridops {
namespace {

class GridSampleTester {
 public:
  GridSampleTester() {
    p_.src_shape = {1, 1, 4, 4};
    p_.grid_shape = {1, 3, 3, 2};
  }
  explicit GridSampleTester(Problem p) : p_(std::move(p)) {}

  GridSampleTester& mode(IM m) { p_.desc.mode = m; return *this; }
  GridSampleTester& padding(GP m) { p_.desc.padding = m; return *this; }
  GridSampleTester& align_corners(bool a) { p_.desc.align_corners = a ? 1 : 0; return *this; }
  GridSampleTester& layout(ChannelLayout l) { p_.desc.layout = l; return *this; }
  GridSampleTester& units(GridUnits u) { p_.desc.units = u; return *this; }
  GridSampleTester& kind(GridKind k) { p_.desc.kind = k; return *this; }
  GridSampleTester& fill_value(double v) { p_.desc.fill_value = v; return *this; }
  GridSampleTester& src(DType t, Dims shape) {
    p_.src_dtype = t;
    p_.src_shape = std::move(shape);
    return *this;
  }
  GridSampleTester& grid(DType t, Dims shape) {
    p_.grid_dtype = t;
    p_.grid_shape = std::move(shape);
    return *this;
  }
  /// Views: a scrambled src (negative: with negative strides), a scrambled grid (with the
  /// other sign), a column-major dst.
  GridSampleTester& views(bool strided_src, bool negative, bool strided_grid, bool strided_dst) {
    p_.strided_src = strided_src;
    p_.negative = negative;
    p_.strided_grid = strided_grid;
    p_.strided_dst = strided_dst;
    return *this;
  }
  GridSampleTester& seed(uint64_t s) { seed_ = s; return *this; }
  /// 0: the library's default.
  GridSampleTester& threads(int n) { threads_ = n; return *this; }
  /// A Highway target to run on (0: the CPU's best).
  GridSampleTester& target(int64_t t) { target_ = t; return *this; }

  const Problem& problem() const { return p_; }

  /// The canonical line of this problem run by `impl`.
  testing::ProblemString line(const std::string& impl) const {
    testing::ProblemString s("grid_sample");
    s.add("impl", impl.empty() ? std::string("auto") : impl)
        .add("mode", to_string(p_.desc.mode))
        .add("padding", to_string(p_.desc.padding))
        .add("ac", p_.desc.align_corners)
        .add("layout", to_string(p_.desc.layout))
        .add("units", to_string(p_.desc.units))
        .add("kind", to_string(p_.desc.kind))
        .add("fill", p_.desc.fill_value)
        .add("src", p_.src_dtype)
        .add("src_shape", p_.src_shape)
        .add("grid", p_.grid_dtype)
        .add("grid_shape", p_.grid_shape)
        .add_flags("views", {{'s', p_.strided_src}, {'n', p_.negative}, {'g', p_.strided_grid},
                             {'d', p_.strided_dst}})
        .add("threads", threads_)
        .add("target", testing::hwy_target_label(target_))
        .add("seed", seed_);
    return s;
  }

  /// The tester of a canonical line, and in *impl the entry it names ("" for auto).
  static GridSampleTester from(const testing::ProblemString& s, std::string* impl) {
    GridSampleTester t;
    *impl = s.get("impl");
    if (*impl == "auto") impl->clear();
    t.p_.desc.mode = s.get_enum("mode", parse_interpolation_mode, IM::kLinear);
    t.p_.desc.padding = s.get_enum("padding", parse_grid_padding, GP::kZeros);
    t.p_.desc.align_corners = static_cast<int>(s.get_int("ac"));
    t.p_.desc.layout = s.get("layout") == to_string(ChannelLayout::kChannelsLast)
                           ? ChannelLayout::kChannelsLast
                           : ChannelLayout::kChannelsFirst;
    t.p_.desc.units = s.get_enum("units", parse_grid_units, GridUnits::kNormalized);
    t.p_.desc.kind = s.get_enum("kind", parse_grid_kind, GridKind::kAbsolute);
    t.p_.desc.fill_value = s.get_double("fill");
    t.p_.src_dtype = s.get_dtype("src");
    t.p_.src_shape = s.get_dims("src_shape");
    t.p_.grid_dtype = s.get_dtype("grid");
    t.p_.grid_shape = s.get_dims("grid_shape");
    t.views(s.has_flag("views", 's'), s.has_flag("views", 'n'), s.has_flag("views", 'g'),
            s.has_flag("views", 'd'));
    t.threads_ = static_cast<int>(s.get_int("threads"));
    t.target_ = testing::hwy_target_from_label(s.get("target"));
    t.seed_ = s.get_uint("seed");
    return t;
  }

  /// Checks `impl` ("": the automatic choice) against ref on this problem; false (nothing
  /// checked) when the entry declines it at plan time. A failure prints the problem's line
  /// and how to rerun it.
  bool test(const std::string& impl) const {
    SCOPED_TRACE(testing::rerun_hint(line(impl)));
    std::optional<testing::ScopedHwyTarget> on;
    if (target_ != 0) on.emplace(target_);
    if (declines(p_, impl)) return false;
    std::mt19937_64 rng(seed_);
    Tensor src(p_.src_dtype, p_.src_shape), grid(p_.grid_dtype, p_.grid_shape);
    testing::fill_random(src, rng, -1.0, 1.0);
    fill_grid(grid, rng, p_);
    Tensor storage, grid_storage;
    const TensorView src_view =
        p_.strided_src ? testing::scrambled_copy(src, storage, p_.negative) : src.view();
    const TensorView grid_view = p_.strided_grid
                                     ? testing::scrambled_copy(grid, grid_storage, !p_.negative)
                                     : grid.view();
    const Tensor ref = run_impl(p_, "ref", src_view, grid_view);
    if (threads_ > 0) set_num_threads(threads_);
    const Tensor fast = run_impl(p_, impl, src_view, grid_view);
    if (threads_ > 0) set_num_threads(0);
    expect_close(p_, ref, fast, 1.0);
    return true;
  }

 private:
  Problem p_;
  uint64_t seed_ = 1;
  int threads_ = 0;
  int64_t target_ = 0;
};

// `count` random problems from `seed` (on Highway target `target`, 0: the best), each
// checked against ref with every fast entry that takes it (an entry that declines a
// problem at plan time skips it). Each problem's data comes from its own seed, drawn
// here, so its canonical line reruns it alone.
inline void random_problems_against_ref(uint64_t seed, int count, int64_t target = 0) {
  SCOPED_TRACE("GRIDOPS_SEED=" + std::to_string(seed));
  std::mt19937_64 rng(seed);
  const std::vector<std::string> impls = fast_impls();
  if (impls.empty()) return;
  std::vector<int> taken(impls.size(), 0);
  for (int i = 0; i < count; ++i) {
    GridSampleTester t(random_problem(rng, i));
    t.seed(rng()).target(target);
    for (size_t k = 0; k < impls.size(); ++k) {
      if (t.test(impls[k])) ++taken[k];
      if (::testing::Test::HasFailure()) return;  // the first failing problem is enough
    }
  }
  // The catch-all fast entry (last before "ref") takes every problem of the generator.
  const auto list = detail::grid_sample_entries();
  const std::string catch_all = list[list.size() - 2].name;
  const auto at = std::find(impls.begin(), impls.end(), catch_all) - impls.begin();
  EXPECT_EQ(taken[static_cast<size_t>(at)], count) << catch_all;
}

}  // namespace
}  // namespace gridops
