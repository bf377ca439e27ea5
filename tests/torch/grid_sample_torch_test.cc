// GridSample and AffineGrid against PyTorch (Debian's libtorch) on random problems: an
// oracle independent of the gridops reference, forward and backward. Built with
// -DGRIDOPS_TEST_TORCH=ON (scripts/test.sh turns it on; scripts/setup.sh test installs
// libtorch-dev).
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

// --- backward -------------------------------------------------------------------------

// grid_sample_backward against at::grid_sampler_{2,3}d_backward in float64 on random
// problems with continuous coordinates (inside, near and beyond the edges; kinks are hit
// with probability 0): both gradients, every mode x padding x align_corners PyTorch has.
TEST(TorchOracle, GridSampleBackwardMatchesPyTorch) {
  const uint64_t seed = testing::test_seed();
  SCOPED_TRACE(::testing::Message() << "seed " << seed);
  std::mt19937_64 rng(seed);
  at::manual_seed(seed);
  int checked = 0;
  for (int it = 0; it < 360; ++it) {
    const int r = 2 + (it % 2);
    const int mode = (it / 2) % 3, pad = (it / 6) % 3, ac = (it / 18) % 2;
    if (r == 3 && mode == 2) continue;  // PyTorch has no tricubic
    std::vector<int64_t> xs = {1 + static_cast<int64_t>(rng() % 2), 1 + static_cast<int64_t>(rng() % 3)};
    std::vector<int64_t> gs = {xs[0]};
    for (int d = 0; d < r; ++d) xs.push_back(1 + static_cast<int64_t>(rng() % 6));
    for (int d = 0; d < r; ++d) gs.push_back(1 + static_cast<int64_t>(rng() % 5));
    gs.push_back(r);
    const auto f64 = at::TensorOptions().dtype(at::kDouble);
    at::Tensor x = at::randn(xs, f64), g = at::rand(gs, f64) * 3.2 - 1.6;
    std::vector<int64_t> ys = {xs[0], xs[1]};
    for (int d = 0; d < r; ++d) ys.push_back(gs[1 + static_cast<size_t>(d)]);
    at::Tensor go = at::randn(ys, f64);
    auto want = r == 2 ? at::grid_sampler_2d_backward(go, x, g, mode, pad, ac, {true, true})
                       : at::grid_sampler_3d_backward(go, x, g, mode, pad, ac, {true, true});
    GridSampleDesc d;
    d.mode = mode == 0 ? InterpolationMode::kLinear : mode == 1 ? InterpolationMode::kNearest : InterpolationMode::kCubic;
    d.padding = pad == 0 ? GridPadding::kZeros : pad == 1 ? GridPadding::kBorder : GridPadding::kReflection;
    d.align_corners = ac;
    auto got = grid_sample_backward(d, TensorView(DType::kFloat64, go.data_ptr<double>(), ys),
                                    TensorView(DType::kFloat64, x.data_ptr<double>(), xs),
                                    TensorView(DType::kFloat64, g.data_ptr<double>(), gs));
    ASSERT_TRUE(got.ok()) << got.status().to_string();
    const at::Tensor wi = std::get<0>(want).contiguous(), wg = std::get<1>(want).contiguous();
    for (int64_t i = 0; i < got->grad_src.num_elements(); ++i) {
      const double a = got->grad_src.data_as<double>()[i], b = wi.data_ptr<double>()[i];
      ASSERT_NEAR(a, b, 1e-10 * (1.0 + std::fabs(b))) << "grad_src r=" << r << " mode=" << mode
                                                      << " pad=" << pad << " ac=" << ac << " element " << i;
    }
    for (int64_t i = 0; i < got->grad_grid.num_elements(); ++i) {
      const double a = got->grad_grid.data_as<double>()[i], b = wg.data_ptr<double>()[i];
      ASSERT_NEAR(a, b, 1e-9 * (1.0 + std::fabs(b))) << "grad_grid r=" << r << " mode=" << mode
                                                     << " pad=" << pad << " ac=" << ac << " element " << i
                                                     << " grid value " << g.data_ptr<double>()[i];
    }
    ++checked;
  }
  EXPECT_GT(checked, 250);
}

// The conventions at the non-differentiable points (docs/ops/grid_sample.md, "Backward"):
// coordinates on a lattice of quarter steps, so that x lands exactly on integers, edges and
// mirrors, against PyTorch's 2-D and 3-D CPU kernels: linear (and bicubic in 2-D), every
// padding and align_corners, both gradients.
TEST(TorchOracle, GridSampleBackwardKinkConventions) {
  std::mt19937_64 rng(testing::test_seed() + 7);
  const auto f64 = at::TensorOptions().dtype(at::kDouble);
  int kinks = 0;
  for (int it = 0; it < 240; ++it) {
    const int pad = it % 3, ac = (it / 3) % 2, r = 2 + (it / 6) % 2;
    const int mode = (r == 2 && (it / 12) % 2) ? 2 : 0;
    std::vector<int64_t> xs = {1, 2}, gs = {1}, ys = {1, 2};
    for (int d = 0; d < r; ++d) xs.push_back(1 + static_cast<int64_t>(rng() % 5));
    for (int d = 0; d < r; ++d) gs.push_back(2 + d);
    for (int d = 0; d < r; ++d) ys.push_back(2 + d);
    gs.push_back(r);
    at::Tensor x = at::randn(xs, f64), go = at::randn(ys, f64);
    // g = k / 4 for k in -12..12 (|g| <= 3): x = (g+1)/2*(L-1) or ((g+1)*L-1)/2 is exact.
    at::Tensor g = (at::randint(-12, 13, gs, f64)) / 4.0;
    auto want = r == 2 ? at::grid_sampler_2d_backward(go, x, g, mode, pad, ac, {true, true})
                       : at::grid_sampler_3d_backward(go, x, g, mode, pad, ac, {true, true});
    GridSampleDesc d;
    d.mode = mode == 0 ? InterpolationMode::kLinear : InterpolationMode::kCubic;
    d.padding = pad == 0 ? GridPadding::kZeros : pad == 1 ? GridPadding::kBorder : GridPadding::kReflection;
    d.align_corners = ac;
    auto got = grid_sample_backward(d, TensorView(DType::kFloat64, go.data_ptr<double>(), ys),
                                    TensorView(DType::kFloat64, x.data_ptr<double>(), xs),
                                    TensorView(DType::kFloat64, g.data_ptr<double>(), gs));
    ASSERT_TRUE(got.ok());
    const at::Tensor wi = std::get<0>(want).contiguous(), wg = std::get<1>(want).contiguous();
    for (int64_t i = 0; i < got->grad_grid.num_elements(); ++i) {
      const double a = got->grad_grid.data_as<double>()[i], b = wg.data_ptr<double>()[i];
      ASSERT_NEAR(a, b, 1e-12 * (1.0 + std::fabs(b))) << "r=" << r << " mode=" << mode << " pad=" << pad
                                                      << " ac=" << ac << " element " << i
                                                      << " grid value " << g.data_ptr<double>()[i];
      ++kinks;
    }
    for (int64_t i = 0; i < got->grad_src.num_elements(); ++i) {
      const double a = got->grad_src.data_as<double>()[i], b = wi.data_ptr<double>()[i];
      ASSERT_NEAR(a, b, 1e-12 * (1.0 + std::fabs(b))) << "grad_src r=" << r << " pad=" << pad << " ac=" << ac;
    }
  }
  EXPECT_GT(kinks, 2000);
}

TEST(TorchOracle, AffineGridBackwardMatchesPyTorch) {
  std::mt19937_64 rng(testing::test_seed() + 9);
  const auto f64 = at::TensorOptions().dtype(at::kDouble);
  for (int it = 0; it < 100; ++it) {
    const int r = 2 + it % 2, ac = (it / 2) % 2;
    std::vector<int64_t> size = {2, 3};
    for (int d = 0; d < r; ++d) size.push_back(1 + static_cast<int64_t>(rng() % 9));
    std::vector<int64_t> gshape = {2};
    for (int d = 0; d < r; ++d) gshape.push_back(size[2 + static_cast<size_t>(d)]);
    gshape.push_back(r);
    at::Tensor gg = at::randn(gshape, f64);
    at::Tensor want = at::affine_grid_generator_backward(gg, size, ac).contiguous();
    AffineGridDesc d;
    d.align_corners = ac;
    auto got = affine_grid_backward(d, TensorView(DType::kFloat64, gg.data_ptr<double>(), gshape), size);
    ASSERT_TRUE(got.ok()) << got.status().to_string();
    ASSERT_EQ(got->num_elements(), want.numel());
    for (int64_t i = 0; i < got->num_elements(); ++i) {
      const double b = want.data_ptr<double>()[i];
      ASSERT_NEAR(got->data_as<double>()[i], b, 1e-11 * (1.0 + std::fabs(b))) << "r=" << r << " ac=" << ac;
    }
  }
}

}  // namespace
}  // namespace gridops
