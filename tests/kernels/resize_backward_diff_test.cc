// Resize backward: the fast entries against the reference on random problems (every mode,
// coordinate transformation, antialias, exclude_outside, tf_crop_and_resize, axes subsets;
// float and complex dtypes; strided views) within docs/ops/resize.md's tolerance, bit-
// identical for 1 and 3 threads; the reference against the definition (the transpose of
// the forward's matrix, built column by column from the forward on unit vectors).
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstring>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "gridops/ops/resize.h"
#include "gridops/parallel.h"
#include "kernels/resize_random_case.h"
#include "ops/resize_impls.h"
#include "support/entries.h"
#include "support/problem_string.h"
#include "support/test_util.h"

namespace gridops {
namespace {

constexpr DType kBackwardTypes[] = {DType::kFloat32, DType::kFloat32,  DType::kFloat64,
                                    DType::kFloat16, DType::kBFloat16, DType::kComplex64};

/// grad_src of the plan made with `impl` forced, or an error.
StatusOr<Tensor> backward(ResizeDesc desc, const std::string& impl, DType dt, const Dims& shape,
                          const TensorView& grad, bool strided_out) {
  desc.impl = impl;
  GRIDOPS_ASSIGN_OR_RETURN(const ResizePlan plan, make_resize_plan(desc, dt, shape));
  Tensor out(dt, shape);
  if (!strided_out) {
    GRIDOPS_RETURN_IF_ERROR(plan.backward(grad, out.mutable_view()));
    return out;
  }
  Tensor storage;
  const TensorView v = testing::scrambled_copy(out, storage, true);
  GRIDOPS_RETURN_IF_ERROR(plan.backward(
      grad, MutableTensorView(v.dtype, const_cast<void*>(v.data), v.shape, v.strides)));
  const int64_t es = static_cast<int64_t>(dtype_size(dt));
  for (int64_t f = 0; f < out.num_elements(); ++f) {
    std::memcpy(static_cast<char*>(out.mutable_view().mutable_data()) + f * es,
                v.element_ptr(testing::unravel(f, shape)), static_cast<size_t>(es));
  }
  return out;
}

/// Element f of a tensor as a complex double (real types: imaginary 0).
std::complex<double> value(const Tensor& t, int64_t f) {
  if (t.dtype() == DType::kComplex64) {
    return std::complex<double>(static_cast<const std::complex<float>*>(t.view().data)[f]);
  }
  return testing::element_as_double(t, f);
}

/// The relative tolerance of the fast backward against the reference (docs/ops/resize.md,
/// "Backward"): float32 arithmetic, or one rounding of a half type.
double tolerance(DType dt) {
  switch (dt) {
    case DType::kFloat64:
      return 1e-12;
    case DType::kFloat16:
      return 2e-3;
    case DType::kBFloat16:
      return 1.6e-2;
    default:
      return 2e-5;
  }
}

class ResizeBackwardDiff : public ::testing::TestWithParam<std::string> {};

/// One Resize backward problem as a fluent tester: `test(entry)` checks the entry's
/// grad_src against ref (within tolerance(), bitwise between 1 and 3 threads) for a grad
/// drawn from `seed`, read through the case's view and written through a scrambled view
/// with `strided_out`. Its canonical line (tests/support/problem_string.h) is printed by a
/// failing check and rerun alone by ResizeBackwardDiff.Rerun.
class ResizeBackwardTester {
 public:
  ResizeBackwardTester() { c_.shape = {4, 5}; }
  explicit ResizeBackwardTester(Case c) : c_(std::move(c)) {}
  ResizeBackwardTester& strided_out(bool v) { strided_out_ = v; return *this; }
  ResizeBackwardTester& seed(uint64_t s) { seed_ = s; return *this; }

  testing::ProblemString line(const std::string& impl) const {
    testing::ProblemString s("resize_backward");
    s.add("impl", impl);
    add_case(s, c_);
    s.add("strided_out", strided_out_).add("seed", seed_);
    return s;
  }

  static ResizeBackwardTester from(const testing::ProblemString& s, std::string* impl) {
    *impl = s.get("impl");
    ResizeBackwardTester t(case_from(s));
    t.strided_out(s.get_int("strided_out") != 0).seed(s.get_uint("seed"));
    return t;
  }

  /// False (nothing checked) when the problem is not valid, or `impl` declines it.
  bool test(const std::string& impl) const {
    SCOPED_TRACE(testing::rerun_hint(line(impl)));
    const Case& c = c_;
    auto plan = make_resize_plan(c.desc, c.dtype, c.shape);
    if (!plan.ok() || plan->dst_shape().empty()) return false;
    ResizeDesc forced = c.desc;
    forced.impl = impl;
    auto forced_plan = make_resize_plan(forced, c.dtype, c.shape);
    if (!forced_plan.ok() && forced_plan.status().code() == StatusCode::kUnimplemented) {
      return false;  // "fast" forces the forward too, which may have no fast entry for it
    }
    std::mt19937_64 rng(seed_);
    Tensor grad(c.dtype, plan->dst_shape());
    testing::fill_random(grad, rng, -4, 4);
    Tensor storage;
    const TensorView g = c.view ? testing::scrambled_copy(grad, storage, c.view == 2)
                                : grad.view();
    const int saved = get_num_threads();
    set_num_threads(1);
    auto want = backward(c.desc, "ref", c.dtype, c.shape, grad.view(), false);
    auto one = backward(c.desc, impl, c.dtype, c.shape, g, strided_out_);
    set_num_threads(3);
    auto three = backward(c.desc, impl, c.dtype, c.shape, g, false);
    set_num_threads(saved);
    EXPECT_TRUE(want.ok()) << want.status().to_string();
    EXPECT_TRUE(one.ok()) << one.status().to_string();
    EXPECT_TRUE(three.ok()) << three.status().to_string();
    if (!want.ok() || !one.ok() || !three.ok()) return true;
    EXPECT_TRUE(testing::bitwise_equal(*one, *three)) << "thread count changed the bits";
    double scale = 1;
    for (int64_t f = 0; f < want->num_elements(); ++f) scale = std::max(scale, std::abs(value(*want, f)));
    for (int64_t f = 0; f < want->num_elements(); ++f) {
      if (!(std::abs(value(*one, f) - value(*want, f)) <= tolerance(c.dtype) * scale)) {
        ADD_FAILURE() << "element " << f << ": fast " << value(*one, f) << " ref " << value(*want, f);
        return true;
      }
    }
    return true;
  }

 private:
  Case c_;
  bool strided_out_ = false;
  uint64_t seed_ = 1;
};

TEST_P(ResizeBackwardDiff, MatchesReferenceOnRandomProblems) {
  const uint64_t seed = testing::test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed) + " (set GRIDOPS_SEED to reproduce)");
  std::mt19937_64 rng(seed);
  int checked = 0;
  for (int it = 0; it < 1200; ++it) {
    Case c = random_case(rng);
    c.dtype = kBackwardTypes[rng() % std::size(kBackwardTypes)];
    auto out = resize_output_shape(c.desc, c.shape);
    if (!out.ok() || testing::product(*out) > 4000) continue;  // invalid or large draw
    ResizeBackwardTester t(c);
    t.strided_out(rng() % 3 == 0).seed(rng());
    if (t.test(GetParam())) ++checked;
    if (HasFailure()) return;
  }
  EXPECT_GT(checked, 400);
}

// The problem of GRIDOPS_RERUN (the line a failing check prints), alone, when it names
// this entry. Without it: a fixed line, which must read back to the same line and run.
TEST_P(ResizeBackwardDiff, Rerun) {
  const auto r = testing::rerun_problem<ResizeBackwardTester>(
      "resize_backward",
      "resize_backward impl=" + GetParam() +
          " mode=linear coordinate_mode=align_corners nearest_mode=round_prefer_floor"
          " cubic_coeff_a=-0.75 exclude_outside=0 antialias=0 aspect_policy=stretch"
          " extrapolation_value=0 axes=- scales=- sizes=3x9x4 roi=- src=float32"
          " src_shape=3x5x7 view=2 strided_out=1 seed=12");
  ASSERT_TRUE(r.has_value());
  if (r->impl != GetParam()) GTEST_SKIP() << "GRIDOPS_RERUN names entry " << r->impl;
  EXPECT_TRUE(r->tester.test(r->impl)) << "'" << r->impl << "' declines this problem";
}

INSTANTIATE_TEST_SUITE_P(Entries, ResizeBackwardDiff,
                         ::testing::ValuesIn(testing::fast_entries(detail::resize_backward_entries())),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string n = info.param;
                           for (char& ch : n) {
                             if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           }
                           return n;
                         });

// The reference is A^T: column j of A is the forward of the unit vector e_j (float64), so
// grad_src[j] = <forward(e_j), grad_dst>.
TEST(ResizeBackwardRef, IsTheTransposeOfTheForward) {
  std::mt19937_64 rng(testing::test_seed());
  int checked = 0;
  for (int it = 0; it < 300 && checked < 120; ++it) {
    Case c = random_case(rng);
    c.dtype = DType::kFloat64;
    c.desc.extrapolation_value = 0;  // a constant would make forward(e_j) affine
    c.desc.impl = "ref";
    auto plan = make_resize_plan(c.desc, c.dtype, c.shape);
    if (!plan.ok() || plan->dst_shape().empty()) continue;
    Tensor grad(DType::kFloat64, plan->dst_shape());
    const int64_t n_in = testing::product(c.shape);
    if (grad.num_elements() > 600 || n_in > 200) continue;
    SCOPED_TRACE("problem " + std::to_string(it) + ": shape " + dims_to_string(c.shape));
    testing::fill_random(grad, rng, -1, 1);
    Tensor got(DType::kFloat64, c.shape);
    ASSERT_TRUE(plan->backward(grad.view(), got.mutable_view()).ok());
    for (int64_t j = 0; j < n_in; ++j) {
      Tensor e(DType::kFloat64, c.shape);
      static_cast<double*>(e.mutable_view().mutable_data())[j] = 1.0;
      Tensor col(DType::kFloat64, plan->dst_shape());
      ASSERT_TRUE(plan->run(e.view(), col.mutable_view()).ok());
      double dot = 0, mag = 0;
      for (int64_t f = 0; f < grad.num_elements(); ++f) {
        dot += testing::element_as_double(col, f) * testing::element_as_double(grad, f);
        mag += std::fabs(testing::element_as_double(col, f) * testing::element_as_double(grad, f));
      }
      ASSERT_NEAR(testing::element_as_double(got, j), dot, 1e-13 * (1 + mag)) << "input " << j;
    }
    ++checked;
  }
  EXPECT_GE(checked, 60);
}

// Extrapolation points (tf_crop_and_resize outside the input) give no gradient; an integer
// plan has no backward; a forced backward entry is the backward's alone.
TEST(ResizeBackwardPlan, ExtrapolationDtypesAndNames) {
  ResizeDesc d;
  d.mode = ResizeMode::kLinear;
  d.coordinate_mode = ResizeCoordinateMode::kTfCropAndResize;
  d.roi = {-1.0, 1.0};  // the crop covers [-1, 1] of an input spanning [0, 1]: half outside
  d.sizes = {9};
  d.extrapolation_value = 7;
  auto plan = make_resize_plan(d, DType::kFloat64, Dims{4});
  ASSERT_TRUE(plan.ok()) << plan.status().to_string();
  Tensor ones(DType::kFloat64, {4});
  for (int i = 0; i < 4; ++i) static_cast<double*>(ones.mutable_view().mutable_data())[i] = 1;
  Tensor y(DType::kFloat64, {9});
  ASSERT_TRUE(plan->run(ones.view(), y.mutable_view()).ok());
  Tensor g(DType::kFloat64, {9}), gx(DType::kFloat64, {4});
  int inside = 0;
  for (int i = 0; i < 9; ++i) {
    const bool extrapolated = testing::element_as_double(y, i) == 7.0;
    static_cast<double*>(g.mutable_view().mutable_data())[i] = extrapolated ? 1e6 : 1.0;
    inside += extrapolated ? 0 : 1;
  }
  ASSERT_GT(inside, 0);
  ASSERT_LT(inside, 9);
  ASSERT_TRUE(plan->backward(g.view(), gx.mutable_view()).ok());
  double sum = 0;  // the weights of an inside point sum to 1: the total is their count
  for (int i = 0; i < 4; ++i) sum += testing::element_as_double(gx, i);
  EXPECT_NEAR(sum, inside, 1e-12);

  auto ints = make_resize_plan(d, DType::kInt32, Dims{4});
  ASSERT_TRUE(ints.ok());
  EXPECT_STREQ(ints->backward_impl_name(), "");
  Tensor gi(DType::kInt32, {9}), xi(DType::kInt32, {4});
  const Status s = ints->backward(gi.view(), xi.mutable_view());
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("resize backward: needs a floating or complex dtype"), std::string::npos)
      << s.message();

  d.impl = "resize_backward.passes";
  auto forced = make_resize_plan(d, DType::kFloat32, Dims{4});
  ASSERT_TRUE(forced.ok()) << forced.status().to_string();
  EXPECT_STREQ(forced->backward_impl_name(), "resize_backward.passes");
  EXPECT_STRNE(forced->impl_name(), "");
  d.impl = "ref";
  auto ref = make_resize_plan(d, DType::kFloat32, Dims{4});
  ASSERT_TRUE(ref.ok());
  EXPECT_STREQ(ref->backward_impl_name(), "ref");
  EXPECT_STREQ(ref->impl_name(), "ref");

  // Views: shapes, zero strides, overlap.
  Tensor g32(DType::kFloat32, {9}), x32(DType::kFloat32, {4});
  const MutableTensorView broadcast(DType::kFloat32, x32.mutable_view().mutable_data(), {4}, {0});
  const Status zs = forced->backward(g32.view(), broadcast);
  EXPECT_NE(zs.message().find("grad_src: elements must not share memory"), std::string::npos)
      << zs.message();
  Tensor g_bad(DType::kFloat32, {8});
  const Status bs = forced->backward(g_bad.view(), x32.mutable_view());
  EXPECT_NE(bs.message().find("resize backward: grad_dst"), std::string::npos) << bs.message();
  Tensor both(DType::kFloat32, {9});  // grad_src inside grad_dst
  const MutableTensorView in_grad(DType::kFloat32, both.mutable_view().mutable_data(), {4});
  const Status os = forced->backward(both.view(), in_grad);
  EXPECT_NE(os.message().find("grad_src must not overlap grad_dst"), std::string::npos)
      << os.message();
  const Status es = ResizePlan().backward(g32.view(), x32.mutable_view());
  EXPECT_NE(es.message().find("resize backward: plan is empty"), std::string::npos) << es.message();
}

}  // namespace
}  // namespace gridops
