// AffineGrid backward: the adjoint identity <affine_grid(theta), G> = <theta, grad_theta(G)>
// in float64 (AffineGrid is linear in theta, so this is its whole derivative), a hand
// example, strided views, narrow types and the errors.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>

#include "gridops/gridops.h"
#include "ops/affine_grid_impls.h"
#include "support/test_util.h"

namespace gridops {
namespace {

TEST(AffineGridBackward, IsTheAdjointOfTheForward) {
  const uint64_t seed = testing::test_seed();
  SCOPED_TRACE(::testing::Message() << "seed " << seed);
  std::mt19937_64 rng(seed);
  for (int it = 0; it < 200; ++it) {
    const int r = 2 + it % 2;
    AffineGridDesc d;
    d.align_corners = (it / 2) % 2;
    Dims size = {1 + static_cast<int64_t>(rng() % 3), 2};
    for (int a = 0; a < r; ++a) size.push_back(1 + static_cast<int64_t>(rng() % 7));
    Tensor theta(DType::kFloat64, {size[0], r, r + 1});
    testing::fill_random(theta, rng, -2, 2);
    auto grid = affine_grid(d, theta, size);
    ASSERT_TRUE(grid.ok());
    Tensor g(DType::kFloat64, grid->shape());
    testing::fill_random(g, rng, -1, 1);
    auto gt = affine_grid_backward(d, g, size);
    ASSERT_TRUE(gt.ok()) << gt.status().to_string();
    ASSERT_EQ(gt->shape(), theta.shape());
    double lhs = 0, rhs = 0, scale = 0;
    for (int64_t i = 0; i < g.num_elements(); ++i) {
      lhs += grid->data_as<double>()[i] * g.data_as<double>()[i];
      scale += std::fabs(grid->data_as<double>()[i] * g.data_as<double>()[i]);
    }
    for (int64_t i = 0; i < theta.num_elements(); ++i) {
      rhs += theta.data_as<double>()[i] * gt->data_as<double>()[i];
    }
    ASSERT_NEAR(lhs, rhs, 1e-12 * (1 + scale)) << "r=" << r << " align_corners=" << d.align_corners;
  }
}

TEST(AffineGridBackward, HandExample) {
  // 2-D, H = 1, W = 2, align_corners = 1: x = -1, 1; y = 0 (a single row is the centre).
  Tensor g(DType::kFloat32, {1, 1, 2, 2});
  const float gv[] = {1, 2, 3, 4};  // (w=0: k=0 1, k=1 2), (w=1: k=0 3, k=1 4)
  std::copy(gv, gv + 4, g.data_as<float>());
  AffineGridDesc d;
  d.align_corners = 1;
  const Dims size = {1, 1, 1, 2};
  auto gt = affine_grid_backward(d, g, size);
  ASSERT_TRUE(gt.ok());
  const float want[] = {-1 + 3, 0, 1 + 3, -2 + 4, 0, 2 + 4};
  for (int i = 0; i < 6; ++i) EXPECT_EQ(gt->data_as<float>()[i], want[i]) << i;
}

TEST(AffineGridBackward, StridedAndNarrowTypes) {
  std::mt19937_64 rng(testing::test_seed() + 1);
  for (DType dt : {DType::kFloat16, DType::kBFloat16, DType::kFloat32}) {
    for (int r = 2; r <= 3; ++r) {
      Dims size = {2, 1};
      for (int a = 0; a < r; ++a) size.push_back(2 + static_cast<int64_t>(rng() % 5));
      Dims gshape = {2};
      for (int a = 0; a < r; ++a) gshape.push_back(size[2 + static_cast<size_t>(a)]);
      gshape.push_back(r);
      Tensor g(dt, gshape);
      testing::fill_random(g, rng, -1, 1);
      Tensor g64(DType::kFloat64, gshape);
      for (int64_t i = 0; i < g.num_elements(); ++i) g64.data_as<double>()[i] = testing::element_as_double(g, i);
      AffineGridDesc d;
      auto want = affine_grid_backward(d, g64, size);
      Tensor storage;
      const TensorView gv = testing::scrambled_copy(g, storage, true);
      Tensor out(dt, {2, r, r + 1});
      ASSERT_TRUE(affine_grid_backward(d, gv, size, out.mutable_view()).ok());
      ASSERT_TRUE(want.ok());
      const double rel = dt == DType::kFloat16 ? 1.0 / 1024 : dt == DType::kBFloat16 ? 1.0 / 128 : 1e-6;
      for (int64_t i = 0; i < out.num_elements(); ++i) {
        const double w = want->data_as<double>()[i];
        EXPECT_NEAR(testing::element_as_double(out, i), w, rel * std::fabs(w) + 1e-5) << to_string(dt);
      }
    }
  }
}

TEST(AffineGridBackward, Errors) {
  AffineGridDesc d;
  auto p = make_affine_grid_backward_plan(d, DType::kInt32, Dims{1, 2, 3}, Dims{1, 1, 4, 4});
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().message().rfind("affine_grid_backward: theta must have dtype", 0), 0u)
      << p.status().message();
  p = make_affine_grid_backward_plan(d, DType::kFloat32, Dims{1, 2, 3}, Dims{1, 1, 4, 4, 4});
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().message().rfind("affine_grid_backward: size must have 4 elements", 0), 0u)
      << p.status().message();
  p = make_affine_grid_backward_plan(d, DType::kFloat32, Dims{1, 2, 3}, Dims{1, 1, 4, 4});
  ASSERT_TRUE(p.ok());
  Tensor g(DType::kFloat32, {1, 4, 4, 2}), t(DType::kFloat32, {1, 2, 3});
  EXPECT_TRUE(p->run(g, t.mutable_view()).ok());
  Tensor wrong(DType::kFloat32, {1, 4, 3, 2});
  Status s = p->run(wrong, t.mutable_view());
  EXPECT_NE(s.message().find("affine_grid_backward: grad_grid: expected shape (1, 4, 4, 2)"), std::string::npos)
      << s.message();
  MutableTensorView over(DType::kFloat32, g.data(), {1, 2, 3});
  s = p->run(g, over);
  EXPECT_NE(s.message().find("grad_theta must not overlap grad_grid"), std::string::npos) << s.message();
  AffineGridBackwardPlan empty;
  EXPECT_FALSE(empty.run(g, t.mutable_view()).ok());
  // An empty grid gives zeros.
  auto z = affine_grid_backward(d, Tensor(DType::kFloat32, {1, 0, 3, 2}), Dims{1, 1, 0, 3});
  ASSERT_TRUE(z.ok()) << z.status().to_string();
  for (int i = 0; i < 6; ++i) EXPECT_EQ(z->data_as<float>()[i], 0.0f);
}

// "fast" (separable sums over fixed row blocks) against "ref" (point by point), and 1 vs 2
// vs 7 threads bit-identical. Both sum in double; only the order differs, so the results
// agree to a few units of 2^-52 relative to the sum of |terms| before the final rounding,
// i.e. within one unit in the last place of the output type.
TEST(AffineGridBackward, FastMatchesReferenceAndIsDeterministic) {
  for (const detail::AffineGridBackwardEntry& entry : detail::affine_grid_backward_entries()) {
    const std::string impl = entry.name;
    if (impl == "ref") continue;
    SCOPED_TRACE(impl);
    std::mt19937_64 rng(testing::test_seed() + 2);
    const int saved = get_num_threads();
    for (int it = 0; it < 300; ++it) {
      const int r = 2 + it % 2;
      const DType types[] = {DType::kFloat64, DType::kFloat32, DType::kFloat16, DType::kBFloat16};
      const DType dt = types[(it / 2) % 4];
      AffineGridDesc d;
      d.align_corners = (it / 8) % 2;
      const bool big = it % 25 == 0;
      Dims size = {1 + static_cast<int64_t>(rng() % 3), 1};
      for (int a = 0; a < r; ++a) size.push_back(1 + static_cast<int64_t>(rng() % (big ? (r == 3 ? 40 : 300) : 9)));
      Dims gshape = {size[0]};
      for (int a = 0; a < r; ++a) gshape.push_back(size[2 + static_cast<size_t>(a)]);
      gshape.push_back(r);
      Tensor g(dt, gshape);
      testing::fill_random(g, rng, -1, 1);
      Tensor storage;
      const TensorView gv = (it % 3 == 0) ? testing::scrambled_copy(g, storage, true) : g.view();
      Tensor want(dt, {size[0], r, r + 1}), got(dt, {size[0], r, r + 1});
      AffineGridDesc dr = d, df = d;
      dr.impl = "ref";
      df.impl = impl;
      ASSERT_TRUE(affine_grid_backward(dr, gv, size, want.mutable_view()).ok());
      set_num_threads(1);
      ASSERT_TRUE(affine_grid_backward(df, gv, size, got.mutable_view()).ok());
      const double ulp = dt == DType::kFloat16 ? 1.0 / 1024 : dt == DType::kBFloat16 ? 1.0 / 128
                         : dt == DType::kFloat32 ? 1.0 / (1 << 23) : 1e-12;
      for (int64_t i = 0; i < got.num_elements(); ++i) {
        const double w = testing::element_as_double(want, i);
        ASSERT_NEAR(testing::element_as_double(got, i), w, ulp * std::fabs(w) + 1e-9 * static_cast<double>(g.num_elements()))
            << "r=" << r << " " << to_string(dt) << " grid " << dims_to_string(gshape);
      }
      for (int threads : {2, 7}) {
        set_num_threads(threads);
        Tensor again(dt, {size[0], r, r + 1});
        ASSERT_TRUE(affine_grid_backward(df, gv, size, again.mutable_view()).ok());
        ASSERT_TRUE(testing::bitwise_equal(got, again)) << threads << " threads, grid " << dims_to_string(gshape);
      }
      set_num_threads(saved);
    }
  }
  auto plan = make_affine_grid_backward_plan(AffineGridDesc{}, DType::kFloat32, Dims{1, 2, 3}, Dims{1, 1, 4, 4});
  ASSERT_TRUE(plan.ok());
  EXPECT_STREQ(plan->impl_name(), detail::affine_grid_backward_entries()[0].name);
}

}  // namespace
}  // namespace gridops
