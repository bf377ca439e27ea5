// AffineGrid strided views, plans and non-finite values (helpers in affine_grid_test_util.h).
#include "ops/affine_grid_test_util.h"

namespace gridops {
namespace {


// Strided, reversed and negative-stride theta views give the same bits as a contiguous one.
TEST(AffineGridStrides, StridedAndNegativeTheta) {
  const uint64_t seed = testing::test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed + 1);
  for (DType dt : kThetaDTypes) {
    for (int r : {2, 3}) {
      SCOPED_TRACE(std::string(to_string(dt)) + " r " + std::to_string(r));
      Tensor theta(dt, {3, r, r + 1});
      testing::fill_random(theta, rng, -2.0, 2.0);
      const Dims size = r == 2 ? Dims{3, 2, 4, 5} : Dims{3, 2, 2, 3, 4};
      const Tensor want = run_affine_grid(theta, size, 0);
      for (bool negative : {false, true}) {
        Tensor storage;
        const TensorView strided = testing::scrambled_copy(theta, storage, negative);
        AffineGridDesc desc;
        StatusOr<Tensor> got = affine_grid(desc, strided, size);
        ASSERT_TRUE(got.ok()) << got.status().to_string();
        int64_t where = 0;
        EXPECT_TRUE(testing::bitwise_equal(*got, want, &where))
            << "negative " << negative << " first difference at " << where;
      }
    }
  }
}

// A zero batch stride broadcasts one theta over every batch entry.
TEST(AffineGridStrides, ZeroStrideThetaBroadcasts) {
  const Tensor one = make_theta(DType::kFloat32, {1, 2, 3}, {0.5, -1, 0.25, 2, 1.5, -3});
  const TensorView bcast(DType::kFloat32, one.data(), {4, 2, 3}, {0, 3, 1});
  AffineGridDesc desc;
  desc.align_corners = 1;
  StatusOr<Tensor> got = affine_grid(desc, bcast, Dims{4, 1, 3, 2});
  ASSERT_TRUE(got.ok()) << got.status().to_string();
  const Tensor single = run_affine_grid(one, {1, 1, 3, 2}, 1);
  for (int64_t n = 0; n < 4; ++n) {
    for (int64_t i = 0; i < 12; ++i) EXPECT_EQ(g(*got, n * 12 + i), g(single, i)) << n << " " << i;
  }
}

// The grid may be any strided view too: reversed axis order with negative strides.
TEST(AffineGridStrides, StridedAndNegativeGrid) {
  const uint64_t seed = testing::test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed + 2);
  for (DType dt : kThetaDTypes) {
    for (int r : {2, 3}) {
      SCOPED_TRACE(std::string(to_string(dt)) + " r " + std::to_string(r));
      Tensor theta(dt, {2, r, r + 1});
      testing::fill_random(theta, rng, -2.0, 2.0);
      const Dims size = r == 2 ? Dims{2, 1, 3, 4} : Dims{2, 1, 2, 3, 4};
      const Tensor want = run_affine_grid(theta, size, 1);
      // Lay the grid out in reverse axis order, every stride negated.
      Dims phys(want.shape().rbegin(), want.shape().rend());
      Tensor storage(dt, phys);
      const Dims ps = contiguous_strides(phys);
      const int rank = want.rank();
      Dims strides(rank);
      int64_t start = 0;
      for (int a = 0; a < rank; ++a) {
        strides[a] = -ps[rank - 1 - a];
        start += (want.shape()[a] - 1) * ps[rank - 1 - a];
      }
      const MutableTensorView out(
          dt, static_cast<char*>(storage.data()) + start * static_cast<int64_t>(dtype_size(dt)),
          want.shape(), strides);
      AffineGridDesc desc;
      desc.align_corners = 1;
      ASSERT_TRUE(affine_grid(desc, theta.view(), size, out).ok());
      int64_t where = 0;
      EXPECT_TRUE(testing::bitwise_equal(contiguous_copy(out), want, &where)) << where;
    }
  }
}

// ---------------------------------------------------------------------------------------
// Plans: built once, run many times with different data; the implementation is named.
TEST(AffineGridPlans, ReusableAndNamed) {
  AffineGridDesc desc;
  desc.align_corners = 1;
  const Dims theta_shape{2, 2, 3};
  const Dims size{2, 1, 2, 2};
  StatusOr<AffineGridPlan> plan = make_affine_grid_plan(desc, DType::kFloat64, theta_shape, size);
  ASSERT_TRUE(plan.ok()) << plan.status().to_string();
  EXPECT_STREQ(plan->impl_name(), kDefaultImpl);
  EXPECT_EQ(plan->grid_shape(), (Dims{2, 2, 2, 2}));
  for (double scale : {1.0, -2.0}) {
    const Tensor theta =
        make_theta(DType::kFloat64, theta_shape, {scale, 0, 0, 0, scale, 0, 0, 0, 1, 0, 0, 2});
    Tensor grid(DType::kFloat64, plan->grid_shape());
    ASSERT_TRUE(plan->run(theta.view(), grid.mutable_view()).ok());
    // Batch 0: (scale x, scale y) on the corners x, y in {-1, 1}; batch 1: (1, 2).
    const double want[] = {-scale, -scale, scale, -scale, -scale, scale, scale, scale,
                           1,      2,      1,     2,      1,      2,     1,     2};
    for (int i = 0; i < 16; ++i) EXPECT_EQ(g(grid, i), want[i]) << scale << " " << i;
  }
  // Forcing the reference by name works too.
  desc.impl = "ref";
  StatusOr<AffineGridPlan> forced = make_affine_grid_plan(desc, DType::kFloat16, theta_shape, size);
  ASSERT_TRUE(forced.ok()) << forced.status().to_string();
  EXPECT_STREQ(forced->impl_name(), "ref");
}

// GRIDOPS_IMPL from the environment forces a listed implementation; an unknown name
// there is ignored (unlike an unknown AffineGridDesc::impl, which is an error).
TEST(AffineGridPlans, ImplFromEnvironment) {
  const Dims theta_shape{1, 2, 3}, size{1, 1, 2, 2};
  ASSERT_EQ(setenv("GRIDOPS_IMPL", "no_such_impl", 1), 0);
  StatusOr<AffineGridPlan> a = make_affine_grid_plan(AffineGridDesc{}, DType::kFloat32,
                                                     theta_shape, size);
  ASSERT_EQ(setenv("GRIDOPS_IMPL", "ref", 1), 0);
  StatusOr<AffineGridPlan> b = make_affine_grid_plan(AffineGridDesc{}, DType::kFloat32,
                                                     theta_shape, size);
  unsetenv("GRIDOPS_IMPL");
  ASSERT_TRUE(a.ok()) << a.status().to_string();
  ASSERT_TRUE(b.ok()) << b.status().to_string();
  EXPECT_STREQ(a->impl_name(), kDefaultImpl);
  EXPECT_STREQ(b->impl_name(), "ref");
}

// affine_grid_output_shape agrees with the plan's shape for both kinds.
TEST(AffineGridPlans, OutputShape) {
  StatusOr<Dims> s2 = affine_grid_output_shape(Dims{3, 2, 3}, Dims{3, 7, 5, 6});
  ASSERT_TRUE(s2.ok());
  EXPECT_EQ(*s2, (Dims{3, 5, 6, 2}));
  StatusOr<Dims> s3 = affine_grid_output_shape(Dims{2, 3, 4}, Dims{2, 1, 4, 5, 6});
  ASSERT_TRUE(s3.ok());
  EXPECT_EQ(*s3, (Dims{2, 4, 5, 6, 3}));
}

// Non-finite theta values propagate (no special casing, no crash).
TEST(AffineGridValues, NonFiniteThetaPropagates) {
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (DType dt : kThetaDTypes) {
    SCOPED_TRACE(to_string(dt));
    const Tensor theta = make_theta(dt, {1, 2, 3}, {nan, 0, 0, 0, 0, inf});
    const Tensor grid = run_affine_grid(theta, {1, 1, 1, 2}, 1);
    EXPECT_TRUE(std::isnan(g(grid, 0)));
    EXPECT_EQ(g(grid, 1), inf);
  }
}

}  // namespace
}  // namespace gridops
