// Differential tests: the fused AffineWarp kernel "fast" against the reference "ref"
// (AffineGrid's reference + GridSample's reference through a materialized grid).
//
// Bounds (docs/ops/affine_warp.md, "Fast path"): nearest BIT-EXACT; linear
// |fast - ref| <= 2^-19 * max |src| (finite inputs). Windows: tiles of a random chunking
// of the output, each run on the input box affine_warp_input_box names (plus a random
// margin), assemble to the same bits as the whole, for both implementations. 1 vs 2
// threads bit-identical; every Highway target the CPU runs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "gridops/ops/affine_warp.h"
#include "gridops/parallel.h"
#include "ops/affine_warp_impls.h"
#include "support/entries.h"
#include "support/problem_string.h"
#include "support/test_util.h"

namespace gridops {
namespace {

using testing::bitwise_equal;
using testing::copy_box;
using testing::paste_box;

struct Problem {
  AffineWarpDesc desc;
  int r = 2;
  Tensor src, theta;
  Dims size;
};

/// A problem's description: what its canonical line holds (the data come from `seed`).
struct Case {
  AffineWarpDesc desc;
  DType src_dtype = DType::kFloat32, theta_dtype = DType::kFloat32;
  Dims src_shape{1, 1, 4, 4}, size{3, 3};
  uint64_t seed = 1;
};

/// The problem of a case: src values and theta (mostly a mild affine map, sometimes NaN,
/// -inf or a huge value) drawn from its seed.
Problem make_problem(const Case& k) {
  std::mt19937_64 rng(k.seed);
  Problem p;
  p.desc = k.desc;
  p.r = static_cast<int>(k.size.size());
  p.size = k.size;
  const int64_t n = k.src_shape[0];
  p.src = Tensor(k.src_dtype, k.src_shape);
  testing::fill_random(p.src, rng, -1.0, 1.0);
  p.theta = Tensor(k.theta_dtype, Dims{n, p.r, p.r + 1});
  std::vector<double> th(static_cast<size_t>(n * p.r * (p.r + 1)));
  std::uniform_real_distribution<double> u(-0.7, 0.7), tr(-1.3, 1.3), sc(0.6, 1.5);
  for (int64_t b = 0; b < n; ++b) {
    for (int q = 0; q < p.r; ++q) {
      for (int j = 0; j <= p.r; ++j) {
        double v = j == p.r ? tr(rng) : (j == q ? sc(rng) : u(rng));
        const int special = std::uniform_int_distribution<int>(0, 60)(rng);
        if (special == 0) v = std::numeric_limits<double>::quiet_NaN();
        if (special == 1) v = 3e7;  // |x| >= 2^22: the exact per-lane path
        if (special == 2) v = -std::numeric_limits<double>::infinity();
        th[static_cast<size_t>((b * p.r + q) * (p.r + 1) + j)] = v;
      }
    }
  }
  for (size_t i = 0; i < th.size(); ++i) {
    if (k.theta_dtype == DType::kFloat32) p.theta.data_as<float>()[i] = static_cast<float>(th[i]);
    else if (k.theta_dtype == DType::kFloat64) p.theta.data_as<double>()[i] = th[i];
    else p.theta.data_as<float16>()[i] = float16(static_cast<float>(th[i]));
  }
  return p;
}

Case random_case(std::mt19937_64& rng, DType src_dtype = DType::kFloat32,
                 DType theta_dtype = DType::kFloat32, int64_t max_len = 9) {
  Case k;
  std::uniform_int_distribution<int> ri(1, 3);
  const int r = ri(rng);
  const InterpolationMode modes[] = {InterpolationMode::kLinear, InterpolationMode::kNearest,
                                     InterpolationMode::kCubic};
  const GridPadding pads[] = {GridPadding::kZeros, GridPadding::kBorder, GridPadding::kReflection};
  k.desc.mode = modes[std::uniform_int_distribution<int>(0, 2)(rng)];
  k.desc.padding = pads[std::uniform_int_distribution<int>(0, 2)(rng)];
  k.desc.align_corners = std::uniform_int_distribution<int>(0, 1)(rng);
  std::uniform_int_distribution<int64_t> len(1, max_len);
  const int64_t n = std::uniform_int_distribution<int64_t>(1, 2)(rng);
  const int64_t c = std::uniform_int_distribution<int64_t>(1, 3)(rng);
  k.src_shape = {n, c};
  k.size.clear();
  for (int a = 0; a < r; ++a) {
    k.src_shape.push_back(len(rng));
    k.size.push_back(len(rng));
  }
  k.src_dtype = src_dtype;
  k.theta_dtype = theta_dtype;
  k.seed = rng();
  return k;
}

Problem random_problem(std::mt19937_64& rng, DType src_dtype = DType::kFloat32,
                       DType theta_dtype = DType::kFloat32, int64_t max_len = 9) {
  return make_problem(random_case(rng, src_dtype, theta_dtype, max_len));
}

std::string describe(const Problem& p) {
  return std::string("mode ") + to_string(p.desc.mode) + " padding " + to_string(p.desc.padding) +
         " align_corners " + std::to_string(p.desc.align_corners) + " src " +
         dims_to_string(p.src.shape()) + " size " + dims_to_string(p.size);
}

Tensor run_whole(const Problem& p, const std::string& impl) {
  AffineWarpDesc d = p.desc;
  d.impl = impl;
  auto out = affine_warp(d, p.src, p.theta, p.size);
  EXPECT_TRUE(out.ok()) << out.status().message();
  return out.ok() ? std::move(out).value() : Tensor();
}

// True when a and b agree: bitwise for nearest, else within 2^-19 * max|src| (NaN matches
// NaN).
void expect_close(const Problem& p, const Tensor& fast, const Tensor& ref) {
  ASSERT_EQ(fast.shape(), ref.shape());
  if (p.desc.mode == InterpolationMode::kNearest) {
    int64_t where = -1;
    EXPECT_TRUE(bitwise_equal(fast, ref, &where)) << describe(p) << " first difference at " << where;
    return;
  }
  float m = 0.0f;
  for (int64_t i = 0; i < p.src.num_elements(); ++i) {
    m = std::max(m, std::fabs(p.src.data_as<float>()[i]));
  }
  const float tol = std::ldexp(m, -19);
  int bad = 0;
  for (int64_t i = 0; i < ref.num_elements() && bad < 3; ++i) {
    const float a = fast.data_as<float>()[i], b = ref.data_as<float>()[i];
    if (std::isnan(a) && std::isnan(b)) continue;
    if (!(std::fabs(a - b) <= tol)) {
      ++bad;
      ADD_FAILURE() << describe(p) << " element " << i << ": fast " << a << " ref " << b
                    << " tol " << tol;
    }
  }
}

/// One AffineWarp problem as a fluent tester: `test(entry)` checks the entry against ref
/// (expect_close) on the case's data, on Highway target `target` (0: the best). Its
/// canonical line (tests/support/problem_string.h) is printed by a failing check and rerun
/// alone by AffineWarpDiff.Rerun.
class AffineWarpTester {
 public:
  AffineWarpTester() = default;
  explicit AffineWarpTester(Case k) : k_(std::move(k)) {}
  AffineWarpTester& mode(InterpolationMode m) { k_.desc.mode = m; return *this; }
  AffineWarpTester& target(int64_t t) { target_ = t; return *this; }
  const Case& problem() const { return k_; }

  testing::ProblemString line(const std::string& impl) const {
    testing::ProblemString s("affine_warp");
    s.add("impl", impl)
        .add("mode", to_string(k_.desc.mode))
        .add("padding", to_string(k_.desc.padding))
        .add("ac", k_.desc.align_corners)
        .add("src", k_.src_dtype)
        .add("src_shape", k_.src_shape)
        .add("theta", k_.theta_dtype)
        .add("size", k_.size)
        .add("target", testing::hwy_target_label(target_))
        .add("seed", k_.seed);
    return s;
  }

  static AffineWarpTester from(const testing::ProblemString& s, std::string* impl) {
    Case k;
    *impl = s.get("impl");
    k.desc.mode = s.get_enum("mode", parse_interpolation_mode, InterpolationMode::kLinear);
    k.desc.padding = s.get_enum("padding", parse_grid_padding, GridPadding::kZeros);
    k.desc.align_corners = static_cast<int>(s.get_int("ac"));
    k.src_dtype = s.get_dtype("src");
    k.src_shape = s.get_dims("src_shape");
    k.theta_dtype = s.get_dtype("theta");
    k.size = s.get_dims("size");
    k.seed = s.get_uint("seed");
    AffineWarpTester t(k);
    t.target(testing::hwy_target_from_label(s.get("target")));
    return t;
  }

  void test(const std::string& impl) const {
    SCOPED_TRACE(testing::rerun_hint(line(impl)));
    std::optional<testing::ScopedHwyTarget> on;
    if (target_ != 0) on.emplace(target_);
    const Problem p = make_problem(k_);
    const Tensor ref = run_whole(p, "ref");
    const Tensor fast = run_whole(p, impl);
    expect_close(p, fast, ref);
  }

 private:
  Case k_;
  int64_t target_ = 0;
};

TEST(AffineWarpDiff, FastMatchesReference) {
  std::mt19937_64 rng(testing::test_seed());
  SCOPED_TRACE("seed " + std::to_string(testing::test_seed()));
  const std::vector<int64_t> targets = testing::hwy_targets();
  if (targets.empty()) GTEST_SKIP() << "built without Highway: only the reference exists";
  for (int64_t target : targets) {
    for (int iter = 0; iter < 150; ++iter) {
      AffineWarpTester t(random_case(rng));
      // affine_warp.fused takes no cubic (FastDeclinesWhatItDoesNotTake).
      if (t.problem().desc.mode == InterpolationMode::kCubic) t.mode(InterpolationMode::kLinear);
      t.target(target);
      for (const std::string& impl : testing::fast_entries(detail::affine_warp_entries())) {
        t.test(impl);
        if (HasFailure()) return;
      }
    }
  }
}

// The problem of GRIDOPS_RERUN (the line a failing check prints), alone. Without it: a
// fixed line, which must read back to the same line and run on every fast entry.
TEST(AffineWarpDiff, Rerun) {
  if (testing::hwy_targets().empty()) GTEST_SKIP() << "built without Highway: only the reference exists";
  const auto r = testing::rerun_problem<AffineWarpTester>(
      "affine_warp",
      "affine_warp impl=ref mode=linear padding=reflection ac=1 src=float32 src_shape=2x3x8x9 "
      "theta=float32 size=7x11 target=best seed=4");
  ASSERT_TRUE(r.has_value());
  if (r->from_env) return r->tester.test(r->impl);
  for (const std::string& e : testing::fast_entries(detail::affine_warp_entries())) {
    r->tester.test(e);  // the fixed line: every entry
  }
}

TEST(AffineWarpDiff, FastDeclinesWhatItDoesNotTake) {
  std::mt19937_64 rng(testing::test_seed());
  Problem p = random_problem(rng);
  p.desc.mode = InterpolationMode::kCubic;
  p.desc.impl = "fast";
  auto out = affine_warp(p.desc, p.src, p.theta, p.size);
  if (testing::hwy_targets().empty()) {
    EXPECT_NE(testing::error_message(out).find("impl must be one of {ref}"), std::string::npos)
        << testing::error_message(out);
  } else {
    EXPECT_NE(testing::error_message(out).find(
                  "implementation 'fast' declines this problem (affine_warp.fused: cubic mode"),
              std::string::npos) << testing::error_message(out);
    p.desc.impl = "affine_warp.fused";
    out = affine_warp(p.desc, p.src, p.theta, p.size);
    EXPECT_NE(testing::error_message(out).find(
                  "implementation 'affine_warp.fused' declines this problem: cubic mode"),
              std::string::npos) << testing::error_message(out);
  }
  p.desc.impl = "";
  auto plan = make_affine_warp_plan(p.desc, p.src.dtype(), p.src.shape(), p.theta.dtype(),
                                    p.theta.shape(), p.size);
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  EXPECT_STREQ(plan.value().impl_name(), "ref");
}

// Tiles of a random chunking of the output, each computed from its input box, assemble to
// the whole's bits: every implementation, every mode, float32 and other dtypes.
TEST(AffineWarpDiff, WindowsAssembleToTheWhole) {
  std::mt19937_64 rng(testing::test_seed() + 1);
  SCOPED_TRACE("seed " + std::to_string(testing::test_seed()));
  const DType theta_dtypes[] = {DType::kFloat32, DType::kFloat32, DType::kFloat64,
                                DType::kFloat16};
  for (int iter = 0; iter < 40; ++iter) {
    const DType tdt = theta_dtypes[iter % 4];
    const DType sdt = iter % 5 == 4 ? DType::kFloat64 : DType::kFloat32;
    Problem p = random_problem(rng, sdt, tdt, 12);
    const int r = p.r;
    const int64_t n = p.src.shape()[0], c = p.src.shape()[1];
    Dims in_full(p.src.shape().begin() + 2, p.src.shape().end());
    for (const char* impl : {"", "ref"}) {
      AffineWarpDesc d = p.desc;
      d.impl = impl;
      const Tensor whole = run_whole(p, impl);
      Tensor assembled(p.src.dtype(), whole.shape());
      std::memset(assembled.data(), 0x7f, assembled.nbytes());
      std::vector<std::vector<std::pair<int64_t, int64_t>>> chunks;
      for (int a = 0; a < r; ++a) chunks.push_back(testing::random_chunks(rng, p.size[static_cast<size_t>(a)]));
      Dims ci(static_cast<size_t>(r), 0);
      for (;;) {
        Dims oo, os;
        for (int a = 0; a < r; ++a) {
          const auto& ch = chunks[static_cast<size_t>(a)][static_cast<size_t>(ci[static_cast<size_t>(a)])];
          oo.push_back(ch.first);
          os.push_back(ch.second - ch.first);
        }
        auto box = affine_warp_input_box(d, p.theta, in_full, p.size, oo, os);
        ASSERT_TRUE(box.ok()) << box.status().message();
        Dims io, ie, start{0, 0}, shape{n, c};
        for (int a = 0; a < r; ++a) {
          auto [lo, hi] = box.value()[static_cast<size_t>(a)];
          // A random extra margin: more input than needed changes nothing.
          lo = std::max<int64_t>(0, lo - std::uniform_int_distribution<int64_t>(0, 1)(rng));
          hi = std::min<int64_t>(in_full[static_cast<size_t>(a)],
                                 hi + std::uniform_int_distribution<int64_t>(0, 1)(rng));
          io.push_back(lo);
          ie.push_back(hi - lo);
          start.push_back(lo);
          shape.push_back(hi - lo);
        }
        const Tensor part_src = copy_box(p.src, start, shape);
        AffineWarpWindow w{oo, in_full, io};
        auto plan = make_affine_warp_plan(d, p.src.dtype(), part_src.shape(), p.theta.dtype(),
                                          p.theta.shape(), p.size, os, w);
        ASSERT_TRUE(plan.ok()) << plan.status().message();
        Tensor part(p.src.dtype(), plan.value().dst_shape());
        const Status s = plan.value().run(part_src, p.theta, part.mutable_view());
        ASSERT_TRUE(s.ok()) << describe(p) << ": " << s.message();
        Dims dst_start{0, 0};
        for (int64_t v : oo) dst_start.push_back(v);
        paste_box(part, assembled, dst_start);
        int a = r - 1;
        for (; a >= 0; --a) {
          if (++ci[static_cast<size_t>(a)] < static_cast<int64_t>(chunks[static_cast<size_t>(a)].size())) break;
          ci[static_cast<size_t>(a)] = 0;
        }
        if (a < 0) break;
      }
      int64_t where = -1;
      EXPECT_TRUE(bitwise_equal(assembled, whole, &where))
          << describe(p) << " impl '" << impl << "' first difference at " << where;
      if (HasFailure()) return;
    }
  }
}

TEST(AffineWarpDiff, WindowMissingATapIsAnErrorAndWritesNothing) {
  // 2-D, a shift by +2 pixels: the output box [0, 4) x [0, 4) needs input columns beyond 2.
  Tensor src(DType::kFloat32, Dims{1, 1, 8, 8});
  for (int i = 0; i < 64; ++i) src.data_as<float>()[i] = static_cast<float>(i);
  Tensor theta(DType::kFloat32, Dims{1, 2, 3});
  const float th[6] = {1, 0, 0.5f, 0, 1, 0};
  std::memcpy(theta.data(), th, sizeof th);
  const Dims size{8, 8}, in_full{8, 8}, oo{0, 0}, os{4, 4};
  AffineWarpDesc d;
  auto box = affine_warp_input_box(d, theta, in_full, size, oo, os);
  ASSERT_TRUE(box.ok()) << box.status().message();
  const auto [lo, hi] = box.value()[1];
  ASSERT_GT(hi - lo, 1);
  // A window one column short on the right.
  const Tensor part_src = copy_box(src, Dims{0, 0, 0, lo}, Dims{1, 1, 8, hi - lo - 1});
  AffineWarpWindow w{oo, in_full, Dims{0, lo}};
  auto plan = make_affine_warp_plan(d, DType::kFloat32, part_src.shape(), DType::kFloat32,
                                    theta.shape(), size, os, w);
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  Tensor out(DType::kFloat32, Dims{1, 1, 4, 4});
  std::memset(out.data(), 0x5a, out.nbytes());
  const Status s = plan.value().run(part_src, theta, out.mutable_view());
  EXPECT_NE(testing::error_message(s).find("covers only"), std::string::npos)
      << testing::error_message(s);
  for (int i = 0; i < 16 * 4; ++i) {
    EXPECT_EQ(static_cast<unsigned char*>(out.data())[i], 0x5a) << "byte " << i << " written";
  }
  // dst may not overlap an input.
  Tensor sq(DType::kFloat32, Dims{1, 1, 8, 8});
  const Status ov = affine_warp(d, sq, theta, size, sq.mutable_view());
  EXPECT_NE(testing::error_message(ov).find("dst must not overlap src"), std::string::npos)
      << testing::error_message(ov);
  // Bad arguments name what is wrong.
  EXPECT_NE(testing::error_message(affine_warp(d, src, theta, Dims{8})).find("size must have one entry"),
            std::string::npos);
  Tensor theta3(DType::kFloat32, Dims{1, 3, 4});
  EXPECT_NE(testing::error_message(affine_warp(d, src, theta3, size)).find("theta must have shape (N, 2, 3)"),
            std::string::npos);
  EXPECT_NE(testing::error_message(affine_warp_input_box(d, theta, in_full, size, Dims{6, 0}, os))
                .find("must lie inside the output"),
            std::string::npos);
}

// src views whose offsets within a channel plane do not fit int32 (here a stride of 2^31 on
// an axis of length 1) go from the fused entry to the reference at run time, logged under
// GRIDOPS_VERBOSE=dispatch, with the reference's bits.
TEST(AffineWarpDiff, WideSrcStridesGoToTheReferenceVisibly) {
  const std::vector<int64_t> targets = testing::hwy_targets();
  if (targets.empty()) GTEST_SKIP() << "built without Highway: only the reference exists";
  Tensor src(DType::kFloat32, Dims{1, 1, 1, 6});
  for (int i = 0; i < 6; ++i) src.data_as<float>()[i] = static_cast<float>(i) - 2.5f;
  const TensorView wide(DType::kFloat32, src.data(), Dims{1, 1, 1, 6},
                        Dims{6, 6, int64_t{1} << 31, 1});
  Tensor theta(DType::kFloat32, Dims{1, 2, 3});
  const float th[6] = {0.9f, 0.1f, 0.05f, -0.2f, 1.1f, 0.0f};
  std::memcpy(theta.data(), th, sizeof th);
  const Dims size{3, 5};
  AffineWarpDesc d;
  d.impl = "ref";
  auto want = affine_warp(d, src, theta, size);
  ASSERT_TRUE(want.ok()) << want.status().message();
  d.impl = "affine_warp.fused";
  ASSERT_EQ(setenv("GRIDOPS_VERBOSE", "dispatch", 1), 0);
  ::testing::internal::CaptureStderr();
  auto got = affine_warp(d, wide, theta, size);
  const std::string log = ::testing::internal::GetCapturedStderr();
  unsetenv("GRIDOPS_VERBOSE");
  ASSERT_TRUE(got.ok()) << got.status().message();
  int64_t where = -1;
  EXPECT_TRUE(bitwise_equal(got.value(), want.value(), &where)) << "at " << where;
  EXPECT_NE(log.find("affine_warp: 'affine_warp.fused' declines these views at run time (src "
                     "offsets within a channel plane do not fit int32): running 'ref'"),
            std::string::npos)
      << log;
}

TEST(AffineWarpDiff, ThreadCountDoesNotChangeBits) {
  std::mt19937_64 rng(testing::test_seed() + 2);
  for (int iter = 0; iter < 6; ++iter) {
    Problem p = random_problem(rng, DType::kFloat32, DType::kFloat32, 40);
    if (p.desc.mode == InterpolationMode::kCubic) p.desc.mode = InterpolationMode::kNearest;
    set_num_threads(1);
    const Tensor one = run_whole(p, "");
    set_num_threads(2);
    const Tensor two = run_whole(p, "");
    set_num_threads(0);
    int64_t where = -1;
    EXPECT_TRUE(bitwise_equal(one, two, &where)) << describe(p) << " at " << where;
  }
}

}  // namespace
}  // namespace gridops
