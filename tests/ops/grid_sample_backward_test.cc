// GridSample backward: float64 finite differences for grad_grid (every mode x padding x
// rank 1-4 x align_corners x layout, coordinates away from the non-differentiable points),
// the adjoint identity <forward(x), g> = <x, grad_src(g)> (every mode and padding,
// coordinates anywhere, NaN/inf included), PyTorch's conventions at the kinks on hand-made
// cases, skipping either gradient, strided views, half types, and the errors.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "gridops/gridops.h"
#include "support/test_util.h"

namespace gridops {
namespace {

using IM = InterpolationMode;
using GP = GridPadding;

constexpr IM kModes[] = {IM::kLinear, IM::kNearest, IM::kCubic};
// With the gridops extensions (docs/ops/grid_sample.md, "Padding modes").
constexpr GP kAllPads[] = {GP::kZeros, GP::kBorder,   GP::kReflection,
                           GP::kWrap,  GP::kConstant, GP::kFill};

struct Problem {
  GridSampleDesc desc;
  Tensor src, grid, grad_dst;
};

std::string describe(const GridSampleDesc& d, int r) {
  return std::string("mode=") + to_string(d.mode) + " padding=" + to_string(d.padding) +
         " align_corners=" + std::to_string(d.align_corners) + " layout=" + to_string(d.layout) +
         " units=" + to_string(d.units) + " kind=" + to_string(d.kind) + " r=" + std::to_string(r);
}

// x (unnormalized) -> g, in double: the inverse of the unnormalization.
double normalize(double x, int64_t len, bool ac) {
  return ac ? x * 2.0 / static_cast<double>(len - 1) - 1.0
            : (2.0 * x + 1.0) / static_cast<double>(len) - 1.0;
}

// A random float64 problem; every grid coordinate has frac(x) in [margin, 1 - margin]
// (away from integer x: the kinks of linear and the tap boundaries) when margin > 0.
Problem make_problem(std::mt19937_64& rng, const GridSampleDesc& desc, int r, double margin) {
  Problem p;
  p.desc = desc;
  std::uniform_int_distribution<int64_t> in_len(r >= 3 ? 2 : 2, r >= 3 ? 4 : 6);
  std::uniform_int_distribution<int64_t> out_len(1, r >= 3 ? 2 : 3);
  const int64_t n = 1 + static_cast<int64_t>(rng() % 2), c = 1 + static_cast<int64_t>(rng() % 2);
  Dims in(static_cast<size_t>(r)), out(static_cast<size_t>(r));
  for (int d = 0; d < r; ++d) in[static_cast<size_t>(d)] = in_len(rng);
  for (int d = 0; d < r; ++d) out[static_cast<size_t>(d)] = out_len(rng);
  if (desc.align_corners == 1) {
    for (auto& v : in) v = std::max<int64_t>(v, 2);  // slope (L-1)/2 > 0
  }
  Dims src_shape = {n};
  Dims dst_shape = {n};
  if (desc.layout == ChannelLayout::kChannelsFirst) {
    src_shape.push_back(c);
    dst_shape.push_back(c);
  }
  src_shape.insert(src_shape.end(), in.begin(), in.end());
  dst_shape.insert(dst_shape.end(), out.begin(), out.end());
  if (desc.layout == ChannelLayout::kChannelsLast) {
    src_shape.push_back(c);
    dst_shape.push_back(c);
  }
  Dims grid_shape = {n};
  grid_shape.insert(grid_shape.end(), out.begin(), out.end());
  grid_shape.push_back(r);
  p.src = Tensor(DType::kFloat64, src_shape);
  p.grid = Tensor(DType::kFloat64, grid_shape);
  p.grad_dst = Tensor(DType::kFloat64, dst_shape);
  testing::fill_random(p.src, rng, -1.0, 1.0);
  testing::fill_random(p.grad_dst, rng, -1.0, 1.0);
  double* g = p.grid.data_as<double>();
  std::uniform_real_distribution<double> frac(margin, 1.0 - margin);
  for (int64_t i = 0; i < p.grid.num_elements(); ++i) {
    const int k = static_cast<int>(i % r);           // grid component k: spatial axis r-1-k
    const int64_t len = in[static_cast<size_t>(r - 1 - k)];
    // Integer part from -3 to len + 1: inside, near the edges and in the padded regions.
    const int64_t ip = -3 + static_cast<int64_t>(rng() % static_cast<uint64_t>(len + 5));
    const double x = static_cast<double>(ip) + (margin > 0 ? frac(rng) : std::uniform_real_distribution<double>(0, 1)(rng));
    const bool ac = desc.align_corners == 1;
    double v = desc.units == GridUnits::kPixels ? x : normalize(x, len, ac);
    if (desc.kind == GridKind::kDisplacement) {
      // Minus the point's own coordinate on this axis (index o of out_len).
      const size_t a = static_cast<size_t>(r - 1 - k);
      int64_t o = i / r;
      for (size_t e = static_cast<size_t>(r) - 1; e > a; --e) o /= out[e];
      o %= out[a];
      const double ol = static_cast<double>(out[a]), od = static_cast<double>(o);
      const double base = desc.units == GridUnits::kPixels ? od
                          : out[a] == 1 ? 0.0
                          : ac ? 2.0 * od / (ol - 1.0) - 1.0
                               : (2.0 * od + 1.0) / ol - 1.0;
      v -= base;
    }
    g[i] = v;
  }
  return p;
}

double loss(const Problem& p, const Tensor& grid) {
  GridSampleDesc d = p.desc;
  d.impl = "ref";
  auto y = grid_sample(d, p.src, grid);
  EXPECT_TRUE(y.ok()) << y.status().to_string();
  double s = 0.0;
  for (int64_t i = 0; i < y->num_elements(); ++i) {
    s += y->data_as<double>()[i] * p.grad_dst.data_as<double>()[i];
  }
  return s;
}

TEST(GridSampleBackward, GradGridMatchesFiniteDifferences) {
  const uint64_t seed = testing::test_seed();
  SCOPED_TRACE(::testing::Message() << "seed " << seed);
  std::mt19937_64 rng(seed);
  int checked = 0, ties = 0;
  for (int r = 1; r <= 4; ++r) {
    for (IM mode : kModes) {
      for (GP pad : kAllPads) {
        for (int ac = 0; ac <= 1; ++ac) {
          for (int layout = 0; layout <= 1; ++layout) {
            GridSampleDesc d;
            d.mode = mode;
            d.padding = pad;
            d.align_corners = ac;
            d.layout = layout ? ChannelLayout::kChannelsLast : ChannelLayout::kChannelsFirst;
            if (pad == GP::kConstant || pad == GP::kFill) d.fill_value = 0.7;
            for (int rep = 0; rep < (r == 4 ? 1 : 3); ++rep) {
              // The grid conventions at random (pixels, displacement: the same points).
              d.units = rng() % 2 ? GridUnits::kPixels : GridUnits::kNormalized;
              d.kind = rng() % 2 ? GridKind::kDisplacement : GridKind::kAbsolute;
              Problem p = make_problem(rng, d, r, 0.05);
              auto g = grid_sample_backward(d, p.grad_dst, p.src, p.grid, false, true);
              ASSERT_TRUE(g.ok()) << g.status().to_string();
              ASSERT_EQ(g->grad_src.num_elements(), 0);
              const double h = 1e-6;
              for (int64_t i = 0; i < p.grid.num_elements(); ++i) {
                Tensor gp = p.grid.clone().value(), gm = p.grid.clone().value();
                gp.data_as<double>()[i] += h;
                gm.data_as<double>()[i] -= h;
                const double lp = loss(p, gp), lm = loss(p, gm);
                const double fd = (lp - lm) / (2 * h);
                const double an = g->grad_grid.data_as<double>()[i];
                if (mode == IM::kNearest) {
                  ASSERT_EQ(an, 0.0) << describe(d, r);
                  // Piecewise constant: zero away from ties. A random value within h of a
                  // rounding tie (about 1 in 300 runs of this test) steps the loss on one
                  // side only; a real slope would move both.
                  if (fd != 0.0) {
                    const double l0 = loss(p, p.grid);
                    ASSERT_TRUE(lp == l0 || lm == l0)
                        << describe(d, r) << " grid element " << i << ": the loss moves on both "
                        << "sides of " << p.grid.data_as<double>()[i];
                    ++ties;
                  }
                } else {
                  ASSERT_NEAR(an, fd, 1e-6 * (1.0 + std::fabs(fd)))
                      << describe(d, r) << " grid element " << i << " value "
                      << p.grid.data_as<double>()[i];
                }
                ++checked;
              }
            }
          }
        }
      }
    }
  }
  EXPECT_GT(checked, 1000);
  EXPECT_LE(ties, 2);
}

// <forward(x), g> = <x, grad_src(g)>: grad_src is the exact transpose of the forward.
TEST(GridSampleBackward, GradSrcIsTheAdjoint) {
  const uint64_t seed = testing::test_seed();
  SCOPED_TRACE(::testing::Message() << "seed " << seed);
  std::mt19937_64 rng(seed + 1);
  for (int r = 1; r <= 4; ++r) {
    for (IM mode : kModes) {
      for (GP pad : kAllPads) {
        for (int ac = 0; ac <= 1; ++ac) {
          GridSampleDesc d;
          d.mode = mode;
          d.padding = pad;
          d.align_corners = ac;
          d.layout = (rng() & 1) ? ChannelLayout::kChannelsLast : ChannelLayout::kChannelsFirst;
          // Constant and fill are affine in src, not linear: the adjoint identity holds for
          // the linear part, so their fill value is 0 here (the value is tested elsewhere).
          for (int rep = 0; rep < 4; ++rep) {
            d.units = rng() % 2 ? GridUnits::kPixels : GridUnits::kNormalized;
            d.kind = rng() % 2 ? GridKind::kDisplacement : GridKind::kAbsolute;
            Problem p = make_problem(rng, d, r, 0.0);
            double* g = p.grid.data_as<double>();
            if (rep == 3) {  // ties, integers, non-finite and huge coordinates
              const double special[] = {0.0, 1.0, -1.0, 0.5, std::nan(""), INFINITY, -INFINITY, 1e30, -7.25};
              for (int64_t i = 0; i < p.grid.num_elements(); ++i) {
                if (rng() % 2) g[i] = special[rng() % 9];
              }
            }
            auto y = grid_sample(d, p.src, p.grid);
            ASSERT_TRUE(y.ok());
            auto b = grid_sample_backward(d, p.grad_dst, p.src, p.grid, true, false);
            ASSERT_TRUE(b.ok()) << b.status().to_string();
            double lhs = 0, rhs = 0, scale = 0;
            for (int64_t i = 0; i < y->num_elements(); ++i) {
              lhs += y->data_as<double>()[i] * p.grad_dst.data_as<double>()[i];
              scale += std::fabs(y->data_as<double>()[i] * p.grad_dst.data_as<double>()[i]);
            }
            for (int64_t i = 0; i < p.src.num_elements(); ++i) {
              rhs += p.src.data_as<double>()[i] * b->grad_src.data_as<double>()[i];
              scale += std::fabs(p.src.data_as<double>()[i] * b->grad_src.data_as<double>()[i]);
            }
            ASSERT_NEAR(lhs, rhs, 1e-12 * (1.0 + scale)) << describe(d, r);
          }
        }
      }
    }
  }
}

// 1-D hand-computed cases of PyTorch's conventions at the kinks of linear
// (docs/ops/grid_sample.md, "Backward"). align_corners=0 uses L = 4 and align_corners=1
// L = 5, so that x -> g -> x is exact in double and the slope dx/dg is 2 for both; src =
// 1, 2, 4, 8[, 16]. Returns d/dx.
double grad_at(GP pad, int ac, double x, IM mode = IM::kLinear) {
  const int64_t len = ac ? 5 : 4;
  Tensor src(DType::kFloat64, {1, 1, len});
  for (int64_t i = 0; i < len; ++i) src.data_as<double>()[i] = std::ldexp(1.0, static_cast<int>(i));
  Tensor grid(DType::kFloat64, {1, 1, 1});
  grid.data_as<double>()[0] = normalize(x, len, ac == 1);
  Tensor gd(DType::kFloat64, {1, 1, 1});
  gd.data_as<double>()[0] = 1.0;
  GridSampleDesc d;
  d.mode = mode;
  d.padding = pad;
  d.align_corners = ac;
  auto b = grid_sample_backward(d, gd, src, grid, false, true);
  EXPECT_TRUE(b.ok()) << b.status().to_string();
  return b->grad_grid.data_as<double>()[0] / 2.0;
}

TEST(GridSampleBackward, PyTorchConventionsAtKinks) {
  for (int ac = 0; ac <= 1; ++ac) {
    const double last = ac ? 4.0 : 3.0;
    // zeros: the right derivative at integers (taps floor(x), floor(x)+1), zeros outside.
    EXPECT_EQ(grad_at(GP::kZeros, ac, 1.0), 2.0);
    EXPECT_EQ(grad_at(GP::kZeros, ac, 0.0), 1.0);
    EXPECT_EQ(grad_at(GP::kZeros, ac, -1.0), 1.0);  // 0 -> src[0]
    EXPECT_EQ(grad_at(GP::kZeros, ac, last), -std::ldexp(1.0, static_cast<int>(last)));
    // border: 0 at and beyond both edges, the right derivative inside.
    EXPECT_EQ(grad_at(GP::kBorder, ac, 0.0), 0.0);
    EXPECT_EQ(grad_at(GP::kBorder, ac, last), 0.0);
    EXPECT_EQ(grad_at(GP::kBorder, ac, -0.5), 0.0);
    EXPECT_EQ(grad_at(GP::kBorder, ac, 1.0), 2.0);
    EXPECT_EQ(grad_at(GP::kBorder, ac, 0.5), 1.0);
    // reflection: 0 at the edges (mirrors, or where PyTorch clips), right derivative inside.
    EXPECT_EQ(grad_at(GP::kReflection, ac, 0.0), 0.0);
    EXPECT_EQ(grad_at(GP::kReflection, ac, last), 0.0);
    EXPECT_EQ(grad_at(GP::kReflection, ac, 2.0), 4.0);
  }
  // align_corners=1 (L = 5) mirrors about 0 and 4; on mirrored stretches the derivative is
  // minus the right derivative at the reflected coordinate: the left derivative in x.
  EXPECT_EQ(grad_at(GP::kReflection, 1, -1.0), -2.0);  // -> 1 (taps 1, 2)
  EXPECT_EQ(grad_at(GP::kReflection, 1, -1.5), -2.0);  // -> 1.5
  EXPECT_EQ(grad_at(GP::kReflection, 1, 5.0), -8.0);   // -> 3 (taps 3, 4)
  EXPECT_EQ(grad_at(GP::kReflection, 1, 6.0), -4.0);   // -> 2 (taps 2, 3)
  EXPECT_EQ(grad_at(GP::kReflection, 1, 8.0), 0.0);    // -> 0, a mirror
  // align_corners=0 (L = 4) mirrors about -0.5 and 3.5, then clips to [0, 3].
  EXPECT_EQ(grad_at(GP::kReflection, 0, -1.0), 0.0);   // -> 0, clipped
  EXPECT_EQ(grad_at(GP::kReflection, 0, -2.0), -2.0);  // -> 1 (taps 1, 2)
  EXPECT_EQ(grad_at(GP::kReflection, 0, -1.5), -1.0);  // -> 0.5
  EXPECT_EQ(grad_at(GP::kReflection, 0, 3.25), 0.0);   // -> 3.25, clipped at 3
  EXPECT_EQ(grad_at(GP::kReflection, 0, 5.0), -4.0);   // -> 2 (taps 2, 3)
  // nearest: no grid gradient anywhere; non-finite coordinates: none either.
  EXPECT_EQ(grad_at(GP::kZeros, 0, 1.25, IM::kNearest), 0.0);
  EXPECT_EQ(grad_at(GP::kBorder, 0, std::nan(""), IM::kCubic), 0.0);
  EXPECT_EQ(grad_at(GP::kZeros, 1, INFINITY, IM::kLinear), 0.0);
}

TEST(GridSampleBackward, SkippingAGradientChangesNothingElse) {
  std::mt19937_64 rng(testing::test_seed() + 2);
  for (IM mode : kModes) {
    GridSampleDesc d;
    d.mode = mode;
    d.padding = GP::kReflection;
    Problem p = make_problem(rng, d, 2, 0.0);
    auto both = grid_sample_backward(d, p.grad_dst, p.src, p.grid, true, true);
    auto gs = grid_sample_backward(d, p.grad_dst, p.src, p.grid, true, false);
    auto gg = grid_sample_backward(d, p.grad_dst, p.src, p.grid, false, true);
    ASSERT_TRUE(both.ok() && gs.ok() && gg.ok());
    EXPECT_TRUE(testing::bitwise_equal(both->grad_src, gs->grad_src));
    EXPECT_TRUE(testing::bitwise_equal(both->grad_grid, gg->grad_grid));
    EXPECT_EQ(gs->grad_grid.num_elements(), 0);
    // Neither: nothing to do, OK.
    auto plan = make_grid_sample_backward_plan(d, DType::kFloat64, p.src.shape(), DType::kFloat64,
                                               p.grid.shape());
    ASSERT_TRUE(plan.ok());
    EXPECT_TRUE(plan->run(p.grad_dst, p.src, p.grid, nullptr, nullptr).ok());
  }
}

MutableTensorView as_mutable(const TensorView& v) {
  return MutableTensorView(v.dtype, const_cast<void*>(v.data), v.shape, v.strides);
}

TEST(GridSampleBackward, StridedViewsGiveTheSameBits) {
  std::mt19937_64 rng(testing::test_seed() + 3);
  for (IM mode : kModes) {
    for (int layout = 0; layout <= 1; ++layout) {
      GridSampleDesc d;
      d.mode = mode;
      d.padding = GP::kBorder;
      d.layout = layout ? ChannelLayout::kChannelsLast : ChannelLayout::kChannelsFirst;
      Problem p = make_problem(rng, d, 2, 0.0);
      auto want = grid_sample_backward(d, p.grad_dst, p.src, p.grid);
      ASSERT_TRUE(want.ok());
      Tensor s1, s2, s3, o1, o2;
      const TensorView src = testing::scrambled_copy(p.src, s1, true);
      const TensorView grid = testing::scrambled_copy(p.grid, s2, false);
      const TensorView gd = testing::scrambled_copy(p.grad_dst, s3, true);
      Tensor zs(DType::kFloat64, p.src.shape()), zg(DType::kFloat64, p.grid.shape());
      const MutableTensorView gsv = as_mutable(testing::scrambled_copy(zs, o1, true));
      const MutableTensorView ggv = as_mutable(testing::scrambled_copy(zg, o2, false));
      ASSERT_TRUE(grid_sample_backward(d, gd, src, grid, &gsv, &ggv).ok());
      Dims idx;
      for (int64_t i = 0; i < p.src.num_elements(); ++i) {
        idx = testing::unravel(i, p.src.shape());
        ASSERT_EQ(*static_cast<const double*>(gsv.element_ptr(idx)), want->grad_src.data_as<double>()[i]);
      }
      for (int64_t i = 0; i < p.grid.num_elements(); ++i) {
        idx = testing::unravel(i, p.grid.shape());
        ASSERT_EQ(*static_cast<const double*>(ggv.element_ptr(idx)), want->grad_grid.data_as<double>()[i]);
      }
    }
  }
}

// float16/bfloat16/float32 inputs against the float64 computation of the same (rounded)
// values: each output element is one rounding of a float32-or-wider sum.
TEST(GridSampleBackward, NarrowTypesAgreeWithFloat64) {
  std::mt19937_64 rng(testing::test_seed() + 4);
  for (DType dt : {DType::kFloat16, DType::kBFloat16, DType::kFloat32}) {
    for (IM mode : kModes) {
      GridSampleDesc d;
      d.mode = mode;
      d.padding = GP::kZeros;
      Problem p = make_problem(rng, d, 2, 0.05);
      // Round the inputs to dt, then compute both in dt and in float64 from the rounded values.
      auto narrow = [&](const Tensor& t) {
        Tensor n(dt, t.shape());
        for (int64_t i = 0; i < t.num_elements(); ++i) {
          const double v = t.data_as<double>()[i];
          if (dt == DType::kFloat16) n.data_as<float16>()[i] = f64_to_f16(v);
          else if (dt == DType::kBFloat16) n.data_as<bfloat16>()[i] = f64_to_bf16(v);
          else n.data_as<float>()[i] = static_cast<float>(v);
        }
        return n;
      };
      auto widen = [&](const Tensor& t) {
        Tensor w(DType::kFloat64, t.shape());
        for (int64_t i = 0; i < t.num_elements(); ++i) w.data_as<double>()[i] = testing::element_as_double(t, i);
        return w;
      };
      Tensor src = narrow(p.src), grid = narrow(p.grid), gd = narrow(p.grad_dst);
      auto got = grid_sample_backward(d, gd, src, grid);
      auto want = grid_sample_backward(d, widen(gd), widen(src), widen(grid));
      ASSERT_TRUE(got.ok() && want.ok());
      const double ulp = dt == DType::kFloat16 ? 1.0 / 1024 : dt == DType::kBFloat16 ? 1.0 / 128 : 1.0 / (1 << 23);
      for (int64_t i = 0; i < src.num_elements(); ++i) {
        const double w = want->grad_src.data_as<double>()[i];
        ASSERT_NEAR(testing::element_as_double(got->grad_src, i), w, ulp * std::fabs(w) + 1e-6);
      }
      for (int64_t i = 0; i < grid.num_elements(); ++i) {
        // The float computation of the coordinate differs from the double one by an ulp of
        // float, which moves the weights by about L * 2^-24: allow that too.
        const double w = want->grad_grid.data_as<double>()[i];
        ASSERT_NEAR(testing::element_as_double(got->grad_grid, i), w, ulp * std::fabs(w) + 1e-4)
            << to_string(dt) << " " << to_string(mode);
      }
    }
  }
}

TEST(GridSampleBackward, Errors) {
  GridSampleDesc d;
  const Dims ss = {1, 1, 4, 4}, gs = {1, 2, 2, 2};
  auto bad = make_grid_sample_backward_plan(d, DType::kInt32, ss, DType::kFloat32, gs);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(),
            "grid_sample_backward: src dtype must be float16, bfloat16, float32 or float64, got int32");
  bad = make_grid_sample_backward_plan(d, DType::kFloat32, ss, DType::kInt64, gs);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("grid_sample_backward: grid dtype must be"), std::string::npos);
  bad = make_grid_sample_backward_plan(d, DType::kFloat32, ss, DType::kFloat32, Dims{1, 2, 2, 3});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("grid_sample_backward: grid must have shape (N, H_out, W_out, 2)"),
            std::string::npos)
      << bad.status().message();
  GridSampleDesc da = d;
  da.align_corners = 3;
  bad = make_grid_sample_backward_plan(da, DType::kFloat32, ss, DType::kFloat32, gs);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(), "grid_sample_backward: align_corners must be 0 or 1, got 3");
  GridSampleDesc di = d;
  di.impl = "nope";
  bad = make_grid_sample_backward_plan(di, DType::kFloat32, ss, DType::kFloat32, gs);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("impl must be one of {"), std::string::npos);

  GridSampleBackwardPlan empty;
  Tensor src(DType::kFloat32, ss), grid(DType::kFloat32, gs), gd(DType::kFloat32, {1, 1, 2, 2});
  Tensor gsrc(DType::kFloat32, ss), ggrid(DType::kFloat32, gs);
  MutableTensorView gsv = gsrc.mutable_view(), ggv = ggrid.mutable_view();
  EXPECT_FALSE(empty.run(gd, src, grid, &gsv, &ggv).ok());

  auto plan = make_grid_sample_backward_plan(d, DType::kFloat32, ss, DType::kFloat32, gs);
  ASSERT_TRUE(plan.ok());
  EXPECT_TRUE(plan->run(gd, src, grid, &gsv, &ggv).ok());
  // Wrong shapes and dtypes name the argument.
  Tensor wrong(DType::kFloat32, {1, 1, 4, 3});
  MutableTensorView wv = wrong.mutable_view();
  Status s = plan->run(gd, src, grid, &wv, nullptr);
  EXPECT_NE(s.message().find("grid_sample_backward: grad_src: expected shape (1, 1, 4, 4)"), std::string::npos)
      << s.message();
  s = plan->run(src, src, grid, &gsv, nullptr);
  EXPECT_NE(s.message().find("grid_sample_backward: grad_dst: expected shape (1, 1, 2, 2)"), std::string::npos)
      << s.message();
  Tensor gg64(DType::kFloat64, gs);
  MutableTensorView g64 = gg64.mutable_view();
  s = plan->run(gd, src, grid, nullptr, &g64);
  EXPECT_NE(s.message().find("grid_sample_backward: grad_grid: expected dtype float32, got float64"),
            std::string::npos)
      << s.message();
  // Overlaps: an output on an input, and the two outputs on each other.
  MutableTensorView on_src = as_mutable(src.view());
  s = plan->run(gd, src, grid, &on_src, nullptr);
  EXPECT_NE(s.message().find("grid_sample_backward: grad_src must not overlap src"), std::string::npos)
      << s.message();
  MutableTensorView on_gd(DType::kFloat32, gd.data(), gs);
  s = plan->run(gd, src, grid, nullptr, &on_gd);
  EXPECT_NE(s.message().find("grad_grid must not overlap grad_dst"), std::string::npos) << s.message();
  Tensor big(DType::kFloat32, {64});
  MutableTensorView a(DType::kFloat32, big.data(), ss), b(DType::kFloat32, big.data_as<float>() + 8, gs);
  s = plan->run(gd, src, grid, &a, &b);
  EXPECT_NE(s.message().find("grad_src must not overlap grad_grid"), std::string::npos) << s.message();
}

TEST(GridSampleBackward, EmptyShapesWriteZeros) {
  GridSampleDesc d;
  d.padding = GP::kBorder;
  // C = 0 with an empty input axis: a valid (empty) forward; grad_grid is all zeros.
  Tensor src(DType::kFloat32, {1, 0, 0, 3}), grid(DType::kFloat32, {1, 2, 2, 2});
  std::mt19937_64 rng(1);
  testing::fill_random(grid, rng, -1, 1);
  Tensor gd(DType::kFloat32, {1, 0, 2, 2});
  Tensor gg(DType::kFloat32, {1, 2, 2, 2});
  for (int64_t i = 0; i < gg.num_elements(); ++i) gg.data_as<float>()[i] = 7.0f;
  MutableTensorView ggv = gg.mutable_view();
  ASSERT_TRUE(grid_sample_backward(d, gd, src, grid, nullptr, &ggv).ok());
  for (int64_t i = 0; i < gg.num_elements(); ++i) EXPECT_EQ(gg.data_as<float>()[i], 0.0f);
}

}  // namespace
}  // namespace gridops
