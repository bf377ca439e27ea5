// GridSample and AffineGrid against PyTorch (Debian's libtorch) on random problems: an
// oracle independent of the gridops reference. Built with -DGRIDOPS_TEST_TORCH=ON only
// (libtorch is a large dependency, so CI does not install it).
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "gridops/gridops.h"
#include "support/test_util.h"

namespace gridops {
namespace {

// PyTorch's enums: interpolation 0 bilinear, 1 nearest, 2 bicubic; padding 0 zeros,
// 1 border, 2 reflection. Differences are expected only at exact nearest ties under
// reflection (PyTorch reflects before rounding; ERRATA GridSample 3), which random
// coordinates do not hit.
TEST(TorchOracle, GridSampleMatchesPyTorch) {
  const uint64_t seed = testing::test_seed();
  SCOPED_TRACE(::testing::Message() << "seed " << seed);
  std::mt19937_64 rng(seed);
  at::manual_seed(static_cast<uint64_t>(seed));
  int checked = 0;
  for (int it = 0; it < 600; ++it) {
    const int r = 2 + (it % 2);
    const int mode = (it / 2) % 3, pad = (it / 6) % 3, ac = (it / 18) % 2;
    if (r == 3 && mode == 2) continue;  // PyTorch has no tricubic
    std::vector<int64_t> xs = {1 + static_cast<int64_t>(rng() % 2), 1 + static_cast<int64_t>(rng() % 3)};
    std::vector<int64_t> gs = {xs[0]};
    for (int d = 0; d < r; ++d) xs.push_back(1 + static_cast<int64_t>(rng() % 7));
    for (int d = 0; d < r; ++d) gs.push_back(1 + static_cast<int64_t>(rng() % 6));
    gs.push_back(r);
    at::Tensor x = at::randn(xs), g = at::rand(gs) * 3.0 - 1.5;
    at::Tensor want = r == 2 ? at::grid_sampler_2d(x, g, mode, pad, ac) : at::grid_sampler_3d(x, g, mode, pad, ac);
    GridSampleDesc d;
    d.mode = mode == 0 ? InterpolationMode::kLinear : mode == 1 ? InterpolationMode::kNearest : InterpolationMode::kCubic;
    d.padding = pad == 0 ? GridPadding::kZeros : pad == 1 ? GridPadding::kBorder : GridPadding::kReflection;
    d.align_corners = ac;
    auto y = grid_sample(d, TensorView(DType::kFloat32, x.data_ptr<float>(), xs),
                         TensorView(DType::kFloat32, g.data_ptr<float>(), gs));
    ASSERT_TRUE(y.ok()) << y.status().to_string();
    ASSERT_EQ(y->num_elements(), want.numel());
    for (int64_t i = 0; i < y->num_elements(); ++i) {
      const float a = y->data_as<float>()[i], b = want.data_ptr<float>()[i];
      ASSERT_NEAR(a, b, 1e-4f * (1.0f + std::fabs(b))) << "r=" << r << " mode=" << mode << " pad=" << pad
                                                       << " align_corners=" << ac << " element " << i;
    }
    ++checked;
  }
  EXPECT_GT(checked, 400);
}

TEST(TorchOracle, AffineGridMatchesPyTorch) {
  std::mt19937_64 rng(testing::test_seed());
  for (int it = 0; it < 200; ++it) {
    const int r = 2 + it % 2, ac = (it / 2) % 2;
    std::vector<int64_t> size = {2, 3};
    for (int d = 0; d < r; ++d) size.push_back(1 + static_cast<int64_t>(rng() % 9));
    at::Tensor th = at::randn({2, r, r + 1});
    at::Tensor want = at::affine_grid_generator(th, size, ac);
    AffineGridDesc d;
    d.align_corners = ac;
    auto g = affine_grid(d, TensorView(DType::kFloat32, th.data_ptr<float>(), {2, r, r + 1}), size);
    ASSERT_TRUE(g.ok()) << g.status().to_string();
    for (int64_t i = 0; i < g->num_elements(); ++i) {
      ASSERT_NEAR(g->data_as<float>()[i], want.data_ptr<float>()[i], 1e-5f) << "r=" << r << " ac=" << ac;
    }
  }
}

}  // namespace
}  // namespace gridops
