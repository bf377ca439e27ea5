// Cross-operator properties: an identity AffineGrid fed to GridSample returns the input.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "gridops/gridops.h"
#include "support/test_util.h"

namespace gridops {
namespace {

// Runs AffineGrid(identity) + GridSample over random shapes; returns the max abs error.
void check_identity(int spatial_rank, InterpolationMode mode, int64_t align_corners,
                    DType dtype, double tol, int iterations) {
  const uint64_t seed = testing::test_seed();
  SCOPED_TRACE(::testing::Message() << "seed " << seed << " (set GRIDOPS_SEED to reproduce)");
  std::mt19937_64 rng(seed + static_cast<uint64_t>(spatial_rank * 100 + static_cast<int>(mode) * 10 + align_corners));
  std::uniform_int_distribution<int64_t> len(1, 9);
  for (int it = 0; it < iterations; ++it) {
    const int64_t n = len(rng) % 3 + 1, c = len(rng) % 4 + 1;
    Dims shape{n, c};
    Dims size{n, c};
    for (int d = 0; d < spatial_rank; ++d) {
      shape.push_back(len(rng));
      size.push_back(shape.back());
    }
    SCOPED_TRACE(::testing::Message() << "shape " << dims_to_string(shape));
    Tensor x(dtype, shape);
    testing::fill_random(x, rng, -10, 10);
    // Identity theta: (N, r, r+1) with ones on the diagonal.
    Tensor theta(dtype, {n, spatial_rank, spatial_rank + 1});
    {
      Tensor t64(DType::kFloat64, theta.shape());
      for (int64_t b = 0; b < n; ++b)
        for (int i = 0; i < spatial_rank; ++i)
          t64.data_as<double>()[(b * spatial_rank + i) * (spatial_rank + 1) + i] = 1.0;
      for (int64_t i = 0; i < t64.num_elements(); ++i) {
        visit_dtype(dtype, [&](auto tag) {
          using T = typename decltype(tag)::type;
          if constexpr (std::is_same_v<T, float>) theta.data_as<float>()[i] = static_cast<float>(t64.data_as<double>()[i]);
          else if constexpr (std::is_same_v<T, double>) theta.data_as<double>()[i] = t64.data_as<double>()[i];
          else if constexpr (std::is_same_v<T, float16>) theta.data_as<float16>()[i] = f64_to_f16(t64.data_as<double>()[i]);
          else if constexpr (std::is_same_v<T, bfloat16>) theta.data_as<bfloat16>()[i] = f64_to_bf16(t64.data_as<double>()[i]);
        });
      }
    }
    AffineGridDesc ag;
    ag.align_corners = align_corners;
    auto grid = affine_grid(ag, theta, size);
    ASSERT_TRUE(grid.ok()) << grid.status().to_string();
    GridSampleDesc gs;
    gs.mode = mode;
    gs.padding = GridPadding::kZeros;
    gs.align_corners = align_corners;
    auto y = grid_sample(gs, x, *grid);
    ASSERT_TRUE(y.ok()) << y.status().to_string();
    ASSERT_EQ(y->shape(), x.shape());
    for (int64_t i = 0; i < x.num_elements(); ++i) {
      const double a = testing::element_as_double(*y, i), b = testing::element_as_double(x, i);
      if (tol == 0) {
        ASSERT_EQ(a, b) << "element " << i;
      } else {
        ASSERT_NEAR(a, b, tol * (1 + std::fabs(b))) << "element " << i;
      }
    }
  }
}

TEST(IdentityAffineGridSample, Linear2dAlignCorners) {
  check_identity(2, InterpolationMode::kLinear, 1, DType::kFloat32, 1e-5, 30);
  check_identity(2, InterpolationMode::kLinear, 1, DType::kFloat64, 1e-12, 30);
}
TEST(IdentityAffineGridSample, Linear3dAlignCorners) {
  check_identity(3, InterpolationMode::kLinear, 1, DType::kFloat32, 1e-5, 20);
}
TEST(IdentityAffineGridSample, NearestExactBothSettings) {
  for (int64_t ac : {0, 1}) {
    check_identity(2, InterpolationMode::kNearest, ac, DType::kFloat32, 0, 30);
    check_identity(3, InterpolationMode::kNearest, ac, DType::kFloat32, 0, 20);
    check_identity(2, InterpolationMode::kNearest, ac, DType::kFloat64, 0, 20);
  }
}
TEST(IdentityAffineGridSample, CubicAlignCorners) {
  // At integer coordinates the Keys kernel puts weight 1 on the centre tap.
  check_identity(2, InterpolationMode::kCubic, 1, DType::kFloat64, 1e-12, 20);
}

}  // namespace
}  // namespace gridops
