// Resize: hand-checked values for every mode, coordinate transformation, nearest mode,
// cubic coefficient, exclude_outside, antialias, tf_crop_and_resize, keep_aspect_ratio_policy
// and axes; dtype conversions; strided views; validation messages. Each case runs on the
// fast entries ("fast", the family of resize.gather, resize.fused_rows and
// resize.passes: the one that takes it) and "ref". The values are worked out in the comments.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <random>
#include <limits>
#include <string>
#include <vector>

#include "gridops/ops/resize.h"
#include "support/test_util.h"

namespace gridops {
namespace {

using ::testing::HasSubstr;

const char* const kImplNames[] = {"fast", "ref"};

Tensor f64(Dims shape, std::vector<double> v) {
  Tensor t(DType::kFloat64, std::move(shape));
  for (size_t i = 0; i < v.size(); ++i) t.data_as<double>()[i] = v[i];
  return t;
}

std::vector<double> values(const Tensor& t) {
  std::vector<double> v;
  for (int64_t i = 0; i < t.num_elements(); ++i) v.push_back(testing::element_as_double(t, i));
  return v;
}

/// Runs desc on every implementation and checks that they agree with `want` within tol.
void expect_resize(ResizeDesc d, const Tensor& x, const Dims& want_shape, const std::vector<double>& want,
                   double tol = 1e-12) {
  for (const char* impl : kImplNames) {
    SCOPED_TRACE(impl);
    d.impl = impl;
    auto y = resize(d, x);
    ASSERT_TRUE(y.ok()) << y.status().to_string();
    ASSERT_EQ(y->shape(), want_shape);
    const std::vector<double> got = values(*y);
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], tol) << "element " << i;
  }
}

ResizeDesc desc(ResizeMode m, ResizeCoordinateMode c) {
  ResizeDesc d;
  d.mode = m;
  d.coordinate_mode = c;
  return d;
}

TEST(Resize, NearestModesAsymmetric) {
  // x = o / 2: 0, .5, 1, 1.5, 2, 2.5, 3, 3.5.
  const Tensor x = f64({4}, {10, 20, 30, 40});
  ResizeDesc d = desc(ResizeMode::kNearest, ResizeCoordinateMode::kAsymmetric);
  d.scales = {2.0};
  d.nearest_mode = ResizeNearestMode::kRoundPreferFloor;  // ties down
  expect_resize(d, x, {8}, {10, 10, 20, 20, 30, 30, 40, 40});
  d.nearest_mode = ResizeNearestMode::kRoundPreferCeil;  // ties up; 4 clamps to 3
  expect_resize(d, x, {8}, {10, 20, 20, 30, 30, 40, 40, 40});
  d.nearest_mode = ResizeNearestMode::kFloor;
  expect_resize(d, x, {8}, {10, 10, 20, 20, 30, 30, 40, 40});
  d.nearest_mode = ResizeNearestMode::kCeil;
  expect_resize(d, x, {8}, {10, 20, 20, 30, 30, 40, 40, 40});
  // Resize-10's rule: floor when upsampling (x = 0, 1/3, 2/3, 1, ...), ceil when
  // downsampling (scale 0.6: out floor(2.4) = 2, x = 0, 1.667 -> 0, 2).
  d.nearest_mode = ResizeNearestMode::kSimple;
  d.scales = {1.5};  // x = 0, .667, 1.333, 2, 2.667, 3.333 -> floor
  expect_resize(d, x, {6}, {10, 10, 20, 30, 30, 40});
  d.scales = {0.6};
  expect_resize(d, x, {2}, {10, 30});
}

TEST(Resize, LinearCoordinateModes) {
  const Tensor x = f64({2}, {0, 10});
  // half_pixel, 2 -> 4: x = -0.25, 0.25, 0.75, 1.25 (edges replicated).
  ResizeDesc d = desc(ResizeMode::kLinear, ResizeCoordinateMode::kHalfPixel);
  d.sizes = {4};
  expect_resize(d, x, {4}, {0, 2.5, 7.5, 10});
  // align_corners, 3 -> 5: x = o * 2 / 4.
  const Tensor x3 = f64({3}, {0, 10, 20});
  d.coordinate_mode = ResizeCoordinateMode::kAlignCorners;
  d.sizes = {5};
  expect_resize(d, x3, {5}, {0, 5, 10, 15, 20});
  // align_corners with a scale whose product is not an integer: L = 4 * 0.6 = 2.4, out 2,
  // x(1) = 3 / 1.4 (the real length, as the ONNX reference does).
  const Tensor x4 = f64({4}, {0, 10, 20, 30});
  d.sizes.clear();
  d.scales = {0.6};
  expect_resize(d, x4, {2}, {0, 10 * 3 / 1.4});
  // asymmetric, scale 2: x = o / 2.
  d.coordinate_mode = ResizeCoordinateMode::kAsymmetric;
  d.scales = {2.0};
  expect_resize(d, x, {4}, {0, 5, 10, 10});
  // tf_half_pixel_for_nn, scale 2: x = (o + 0.5) / 2 = .25, .75, 1.25, 1.75.
  d.coordinate_mode = ResizeCoordinateMode::kTfHalfPixelForNN;
  expect_resize(d, x, {4}, {2.5, 7.5, 10, 10});
  // half_pixel_symmetric, 4 * 0.6: adjustment 2 / 2.4, offset 2 (1 - 2/2.4) = 1/3,
  // x = 1/3 + (o + .5) / .6 - .5 = 2/3, 7/3.
  d.coordinate_mode = ResizeCoordinateMode::kHalfPixelSymmetric;
  d.scales = {0.6};
  expect_resize(d, x4, {2}, {20.0 / 3, 70.0 / 3}, 1e-9);
  // pytorch_half_pixel: like half_pixel, but a length-1 output samples x = 0 (the ONNX
  // documentation; docs/ops/resize.md). Cubic at x = 0 is exactly x[0].
  d.mode = ResizeMode::kCubic;
  d.coordinate_mode = ResizeCoordinateMode::kPytorchHalfPixel;
  d.scales.clear();
  d.sizes = {1};
  expect_resize(d, x4, {1}, {0});
  d.coordinate_mode = ResizeCoordinateMode::kHalfPixel;  // x = 1.5: the middle
  expect_resize(d, x4, {1}, {15});
}

TEST(Resize, CubicWeightsExcludeOutsideAndCoefficient) {
  // asymmetric 2x: o = 3 samples x = 1.5, weights (A = -0.75) -0.09375, 0.59375, 0.59375,
  // -0.09375 on taps 0..3.
  const Tensor x = f64({4}, {1, 2, 4, 8});
  ResizeDesc d = desc(ResizeMode::kCubic, ResizeCoordinateMode::kAsymmetric);
  d.scales = {2.0};
  auto y = resize(d, x);
  ASSERT_TRUE(y.ok());
  EXPECT_DOUBLE_EQ(values(*y)[3], -0.09375 + 0.59375 * 2 + 0.59375 * 4 - 0.09375 * 8);
  // A = -0.5 at t = 0.5: near = ((1.5 * .5) - 2.5) * .25 + 1 = 0.5625, far(1.5) = -0.0625.
  d.cubic_coeff_a = -0.5;
  y = resize(d, x);
  ASSERT_TRUE(y.ok());
  EXPECT_DOUBLE_EQ(values(*y)[3], -0.0625 + 0.5625 * 2 + 0.5625 * 4 - 0.0625 * 8);

  // half_pixel 2 -> 4 on [1, 3], o = 0: x = -0.25, taps -2..1 with weights
  // k(1.75) = -0.03515625, k(.75) = 0.26171875, k(.25) = 0.87890625, k(1.25) = -0.10546875.
  const Tensor x2 = f64({2}, {1, 3});
  d = desc(ResizeMode::kCubic, ResizeCoordinateMode::kHalfPixel);
  d.sizes = {4};
  // Edge replicated: taps -2, -1, 0 read 1.
  auto z = resize(d, x2);
  ASSERT_TRUE(z.ok());
  EXPECT_DOUBLE_EQ(values(*z)[0], (-0.03515625 + 0.26171875 + 0.87890625) * 1 - 0.10546875 * 3);
  // exclude_outside: only taps 0 and 1, renormalized by 0.7734375: (0.87890625 - 0.31640625)
  // / 0.7734375 = 8/11.
  d.exclude_outside = true;
  // o = 3 mirrors o = 0: x = 1.25, taps 0, 1 weights k(1.25), k(.25): (3 * .87890625
  // - .10546875) / .7734375 = 36/11 = 4 - 8/11.
  for (const char* impl : kImplNames) {
    d.impl = impl;
    auto e = resize(d, x2);
    ASSERT_TRUE(e.ok());
    EXPECT_NEAR(values(*e)[0], 8.0 / 11, 1e-12) << impl;
    EXPECT_NEAR(values(*e)[3], 36.0 / 11, 1e-12) << impl;
  }
}

TEST(Resize, ExcludeOutsideWithEveryTapOutsideIsZero) {
  // keep_aspect_ratio_policy not_larger scales (5, 4) by min(9/5, 2/4) = 0.5: sizes (3, 2),
  // and align_corners divides by the scaled length minus one (5 * 0.5 - 1 = 1.5 on axis 0,
  // 4 * 0.5 - 1 = 1 on axis 1). Axis 0: o = 1 samples x = 4 / 1.5 = 8/3 (taps 2 and 3,
  // weights 1/3 and 2/3); o = 2 samples x = 16/3, whose taps 5 and 6 both lie outside [0, 5):
  // exclude_outside drops both and the empty sum is 0 (the ONNX reference divides 0 by 0
  // there). Axis 1: x = 0 and 3. Once read a tap past the table (ASan, seed 150137335665).
  Tensor x = f64({5, 4}, {});
  for (int i = 0; i < 20; ++i) x.data_as<double>()[i] = i + 1;
  ResizeDesc d = desc(ResizeMode::kLinear, ResizeCoordinateMode::kAlignCorners);
  d.sizes = {9, 2};
  d.aspect_policy = ResizeAspectPolicy::kNotLarger;
  d.exclude_outside = true;
  expect_resize(d, x, {3, 2}, {1, 4, 9.0 / 3 + 2 * 13.0 / 3, 12.0 / 3 + 2 * 16.0 / 3, 0, 0});
}

TEST(Resize, AntialiasLinearAndCubic) {
  // half_pixel, 4 -> 2 (scale 0.5): x = 0.5, 2.5; the tent is stretched to half-width 2:
  // weights tent(0.5 (j - x)) = .25, .75, .75, .25 on 4 taps, normalized by 2.
  const Tensor x = f64({4}, {0, 4, 8, 12});
  ResizeDesc d = desc(ResizeMode::kLinear, ResizeCoordinateMode::kHalfPixel);
  d.antialias = true;
  d.scales = {0.5};
  // o = 0: taps -1 (clamped to 0), 0, 1, 2: (0 + 0 + 3 + 2) / 2; o = 1: taps 1..4: (1 + 6 + 9 + 3) / 2.
  expect_resize(d, x, {2}, {2.5, 9.5});
  // exclude_outside drops tap -1 (and 4): (0 + 3 + 2) / 1.75, (1 + 6 + 9) / 1.75.
  d.exclude_outside = true;
  expect_resize(d, x, {2}, {5 / 1.75, 16 / 1.75});
  // Upsampling with antialias is plain linear.
  d.exclude_outside = false;
  d.scales = {2.0};
  ResizeDesc plain = d;
  plain.antialias = false;
  auto a = resize(d, x);
  auto b = resize(plain, x);
  ASSERT_TRUE(a.ok() && b.ok());
  for (int i = 0; i < 8; ++i) EXPECT_NEAR(values(*a)[static_cast<size_t>(i)], values(*b)[static_cast<size_t>(i)], 1e-12);
  // Cubic antialias, 4 -> 2: x = 0.5, taps with |0.5 (j - 0.5)| < 2: j = -3..4, weights
  // keys(0.5 (j - 0.5)) normalized; by symmetry of a constant input the result is the constant.
  d.mode = ResizeMode::kCubic;
  d.scales = {0.5};
  expect_resize(d, f64({4}, {7, 7, 7, 7}), {2}, {7, 7}, 1e-12);
}

TEST(Resize, TfCropAndResizeAndExtrapolation) {
  // roi [0.5, 1.5] on 4 elements, 3 outputs: x = o * 1 * 3 / 2 + 1.5 = 1.5, 3, 4.5 (> 3: out).
  const Tensor x = f64({4}, {0, 10, 20, 30});
  ResizeDesc d = desc(ResizeMode::kLinear, ResizeCoordinateMode::kTfCropAndResize);
  d.sizes = {3};
  d.roi = {0.5, 1.5};
  d.extrapolation_value = -1;
  expect_resize(d, x, {3}, {15, 30, -1});
  d.mode = ResizeMode::kNearest;  // 1.5 rounds down (round_prefer_floor)
  expect_resize(d, x, {3}, {10, 30, -1});
  // 2-D: an outside coordinate on either axis gives the extrapolation value.
  const Tensor x2 = f64({2, 2}, {1, 2, 3, 4});
  d.mode = ResizeMode::kLinear;
  d.sizes = {2, 2};
  d.roi = {0, -1, 1, 1};  // axis 0: [0, 1], axis 1: [-1, 1] -> x1 = -1 (out), 1
  expect_resize(d, x2, {2, 2}, {-1, 2, -1, 4});
  // Empty roi: the whole input.
  d.roi.clear();
  expect_resize(d, x2, {2, 2}, {1, 2, 3, 4});
  // A reversed roi flips: x = 3 - o on 4 outputs; on a row of 40 (past any vector width).
  d.sizes = {4};
  d.roi = {1, 0};
  expect_resize(d, x, {4}, {30, 20, 10, 0});
  Tensor ramp = f64({40}, {});
  std::vector<double> flipped;
  for (int i = 0; i < 40; ++i) {
    ramp.data_as<double>()[i] = i * i;
    flipped.push_back((39 - i) * (39 - i));
  }
  d.sizes = {40};
  expect_resize(d, ramp, {40}, flipped, 1e-9);
}

TEST(Resize, KeepAspectRatioPolicyAndAxes) {
  const Tensor x(DType::kFloat32, {2, 5});
  ResizeDesc d;
  d.sizes = {3, 3};
  d.aspect_policy = ResizeAspectPolicy::kNotLarger;  // scale min(1.5, 0.6) = .6: (1.2 -> 1, 3)
  auto s = resize_output_shape(d, x.shape());
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(*s, (Dims{1, 3}));
  d.aspect_policy = ResizeAspectPolicy::kNotSmaller;  // scale 1.5: (3, 7.5 -> 8, half up)
  s = resize_output_shape(d, x.shape());
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(*s, (Dims{3, 8}));
  d.aspect_policy = ResizeAspectPolicy::kStretch;
  s = resize_output_shape(d, x.shape());
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(*s, (Dims{3, 3}));

  // NHWC: resize H and W of (1, 2, 2, 3) with axes {1, -2}; channels stay together.
  Tensor nhwc(DType::kFloat64, {1, 2, 2, 3});
  for (int i = 0; i < 12; ++i) nhwc.data_as<double>()[i] = i;
  ResizeDesc n;
  n.axes = {1, -2};
  n.scales = {1.0, 2.0};  // W: 2 -> 4, nearest half_pixel round_prefer_floor: 0, 0, 1, 1
  std::vector<double> want;
  for (int h = 0; h < 2; ++h)
    for (int w : {0, 0, 1, 1})
      for (int c = 0; c < 3; ++c) want.push_back(h * 6 + w * 3 + c);
  expect_resize(n, nhwc, {1, 2, 4, 3}, want);
}

TEST(Resize, ElementTypes) {
  // uint8 linear half_pixel [0, 255] 2 -> 4: 0, 63.75, 191.25, 255 truncated (ERRATA
  // GridSample 7).
  Tensor u(DType::kUInt8, {2});
  u.data_as<uint8_t>()[0] = 0;
  u.data_as<uint8_t>()[1] = 255;
  ResizeDesc d;
  d.mode = ResizeMode::kLinear;
  d.sizes = {4};
  expect_resize(d, u, {4}, {0, 63, 191, 255});
  // int8 cubic overshoot saturates: [-128, 127] upsampled has values beyond the range.
  Tensor i8(DType::kInt8, {4});
  const int8_t iv[4] = {-128, -128, 127, 127};
  for (int i = 0; i < 4; ++i) i8.data_as<int8_t>()[i] = iv[i];
  d.mode = ResizeMode::kCubic;
  d.sizes = {8};
  for (const char* impl : kImplNames) {
    d.impl = impl;
    auto y = resize(d, i8);
    ASSERT_TRUE(y.ok());
    EXPECT_EQ(y->data_as<int8_t>()[2], -128) << impl;  // undershoot below -128 saturates
    EXPECT_EQ(y->data_as<int8_t>()[5], 127) << impl;   // overshoot above 127 saturates
  }
  // uint8 rows long enough for the vector conversion: cubic 2x of 0/255 blocks of 4 over- and
  // undershoots (saturated to 255 and 0); at x = 0.25, 0.75, 1.25 on [0, 255, 0, 255, ...]
  // the hand values are 255 * .26171875 = 66.7 -> 66, 255 * .87890625 = 224.1 -> 224,
  // 255 * (.87890625 - .03515625) = 215.2 -> 215.
  Tensor blocks(DType::kUInt8, {2, 64});
  for (int i = 0; i < 64; ++i) {
    blocks.data_as<uint8_t>()[i] = (i / 4) % 2 ? 255 : 0;
    blocks.data_as<uint8_t>()[64 + i] = i % 2 ? 255 : 0;
  }
  ResizeDesc cu;
  cu.mode = ResizeMode::kCubic;
  cu.axes = {1};
  cu.scales = {2.0};
  std::vector<std::vector<double>> outs;
  for (const char* impl : kImplNames) {
    cu.impl = impl;
    auto y = resize(cu, blocks);
    ASSERT_TRUE(y.ok());
    outs.push_back(values(*y));
    EXPECT_EQ(values(*y)[128 + 1], 66) << impl;
    EXPECT_EQ(values(*y)[128 + 2], 224) << impl;
    EXPECT_EQ(values(*y)[128 + 3], 215) << impl;
  }
  EXPECT_EQ(outs[0], outs[1]);
  EXPECT_EQ(*std::max_element(outs[0].begin(), outs[0].begin() + 128), 255);
  EXPECT_EQ(*std::min_element(outs[0].begin(), outs[0].begin() + 128), 0);
  // float16 round-trips exactly through nearest; strings and complex are gathered.
  Tensor s(DType::kString, {3});
  s.data_as<std::string>()[0] = "a";
  s.data_as<std::string>()[1] = "bb";
  s.data_as<std::string>()[2] = "ccc";
  ResizeDesc n;
  n.sizes = {6};  // half_pixel, round_prefer_floor: x = -.25, .25, .75, 1.25, 1.75, 2.25
  for (const char* impl : kImplNames) {
    n.impl = impl;
    auto y = resize(n, s);
    ASSERT_TRUE(y.ok()) << y.status().to_string();
    const std::string* v = y->data_as<std::string>();
    EXPECT_EQ(std::vector<std::string>(v, v + 6),
              (std::vector<std::string>{"a", "a", "bb", "bb", "ccc", "ccc"}))
        << impl;
  }
  n.mode = ResizeMode::kLinear;
  EXPECT_THAT(resize(n, s).status().message(), HasSubstr("strings support nearest only"));
  Tensor c(DType::kComplex64, {2});
  c.data_as<std::complex<float>>()[0] = {0, 4};
  c.data_as<std::complex<float>>()[1] = {8, 0};
  d.mode = ResizeMode::kLinear;
  d.sizes = {4};
  d.impl.clear();
  auto y = resize(d, c);
  ASSERT_TRUE(y.ok());
  EXPECT_EQ(y->data_as<std::complex<float>>()[1], std::complex<float>(2, 3));  // x = .25
}

TEST(Resize, StridedViewsMatchContiguous) {
  std::mt19937_64 rng(testing::test_seed());
  Tensor x(DType::kFloat32, {2, 3, 5, 4});
  testing::fill_random(x, rng, -1, 1);
  ResizeDesc d;
  d.mode = ResizeMode::kCubic;
  d.axes = {2, 3};
  d.scales = {1.7, 0.6};
  d.antialias = true;
  for (const char* impl : kImplNames) {
    d.impl = impl;
    auto want = resize(d, x);
    ASSERT_TRUE(want.ok());
    for (bool negative : {false, true}) {
      Tensor sstore, dstore;
      TensorView sv = testing::scrambled_copy(x, sstore, negative);
      Tensor dense_out(DType::kFloat32, want->shape());
      TensorView dv0 = testing::scrambled_copy(dense_out, dstore, negative);
      MutableTensorView dv(dv0.dtype, const_cast<void*>(dv0.data), dv0.shape, dv0.strides);
      ASSERT_TRUE(resize(d, sv, dv).ok());
      std::vector<int64_t> idx(4, 0);
      for (int64_t f = 0; f < want->num_elements(); ++f) {
        const Dims ix = testing::unravel(f, want->shape());
        EXPECT_EQ(dv.at<float>({ix[0], ix[1], ix[2], ix[3]}), want->data_as<float>()[f]) << impl << " " << f;
      }
    }
  }
}

TEST(Resize, Errors) {
  const Tensor x(DType::kFloat32, {1, 1, 2, 2});
  auto msg = [&](const ResizeDesc& d) { return resize(d, x).status().message(); };
  ResizeDesc d;
  EXPECT_THAT(msg(d), HasSubstr("exactly one of scales and sizes must be given, got neither"));
  d.scales = {1, 1, 2, 2};
  d.sizes = {1, 1, 4, 4};
  EXPECT_THAT(msg(d), HasSubstr("got both"));
  d.sizes.clear();
  d.scales = {1, 2};
  EXPECT_THAT(msg(d), HasSubstr("scales must have one entry per resized axis (4), got 2"));
  d.scales = {1, 1, 0, 2};
  EXPECT_THAT(msg(d), HasSubstr("scales entry 2 (axis 2) must be finite and > 0, got 0"));
  d.scales = {1, 1, std::numeric_limits<double>::quiet_NaN(), 2};
  EXPECT_THAT(msg(d), HasSubstr("must be finite and > 0"));
  d.scales = {1, 1, 1e300, 1};
  EXPECT_THAT(msg(d), HasSubstr("does not fit in 64 bits"));
  d.scales = {2, 2};
  d.axes = {2, 4};
  EXPECT_THAT(msg(d), HasSubstr("axes entry 4 is out of range [-4, 3]"));
  d.axes = {2, -2};
  EXPECT_THAT(msg(d), HasSubstr("axis 2 appears more than once"));
  d.axes = {2, 3};
  d.scales.clear();
  d.sizes = {2, -1};
  EXPECT_THAT(msg(d), HasSubstr("sizes entry 1 (axis 3) must be >= 0, got -1"));
  d.sizes = {2, 2};
  d.coordinate_mode = ResizeCoordinateMode::kTfCropAndResize;
  d.roi = {0, 0, 1};
  EXPECT_THAT(msg(d), HasSubstr("roi must have 2 entries per resized axis (4"));
  d.roi = {0, 0, 1, std::numeric_limits<double>::infinity()};
  EXPECT_THAT(msg(d), HasSubstr("roi entry 3 must be finite"));
  d.roi.clear();
  d.antialias = true;
  EXPECT_THAT(msg(d), HasSubstr("antialias applies to linear and cubic only"));
  d.antialias = false;
  d.cubic_coeff_a = std::numeric_limits<double>::infinity();
  EXPECT_THAT(msg(d), HasSubstr("cubic_coeff_a must be finite"));
  d.cubic_coeff_a = -0.75;
  d.mode = static_cast<ResizeMode>(7);
  EXPECT_THAT(msg(d), HasSubstr("mode must be nearest, linear or cubic, got enum value 7"));
  d.mode = ResizeMode::kNearest;
  d.impl = "nope";
  EXPECT_THAT(msg(d), HasSubstr("impl must be one of {resize.gather, "));
  EXPECT_THAT(msg(d), HasSubstr("resize.passes, ref} or an alias {fast}, got 'nope'"));
  d.impl.clear();
  // An empty input axis with a non-empty output; an empty output is fine.
  const Tensor e(DType::kFloat32, {1, 0});
  ResizeDesc z;
  z.sizes = {1, 3};
  EXPECT_THAT(resize(z, e).status().message(), HasSubstr("src axis 1 has length 0"));
  z.sizes = {0, 3};
  auto ok = resize(z, e);
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(ok->shape(), (Dims{0, 3}));
  // Views that do not match the plan; overlapping dst.
  ResizeDesc same;
  same.sizes = {2, 2};
  auto plan = make_resize_plan(same, DType::kFloat32, Dims{2, 2});
  ASSERT_TRUE(plan.ok());
  Tensor a(DType::kFloat32, {2, 2}), b(DType::kFloat32, {2, 3});
  EXPECT_THAT(plan->run(a, b.mutable_view()).message(), HasSubstr("resize: dst"));
  EXPECT_THAT(plan->run(a, a.mutable_view()).message(), HasSubstr("must not overlap"));
  ResizePlan empty;
  EXPECT_THAT(empty.run(a, b.mutable_view()).message(), HasSubstr("plan is empty"));
}

TEST(Resize, RankZeroAndIdentityAxes) {
  Tensor s(DType::kFloat32, {});
  s.data_as<float>()[0] = 3.5f;
  ResizeDesc d;
  auto y = resize(d, s);
  ASSERT_TRUE(y.ok()) << y.status().to_string();
  EXPECT_EQ(y->data_as<float>()[0], 3.5f);
  // Scale 1 on every axis of a cubic half_pixel resize is the identity, bit for bit.
  std::mt19937_64 rng(testing::test_seed());
  Tensor x(DType::kFloat32, {2, 3, 4});
  testing::fill_random(x, rng, -5, 5);
  d.mode = ResizeMode::kCubic;
  d.scales = {1, 1, 1};
  auto z = resize(d, x);
  ASSERT_TRUE(z.ok());
  EXPECT_TRUE(testing::bitwise_equal(*z, x));
}

}  // namespace
}  // namespace gridops
