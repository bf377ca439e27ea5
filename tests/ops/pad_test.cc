// Pad: the spec's worked examples, ERRATA cases derived by hand, every dtype, strided
// views and randomized properties against an independent model (pad_test_helpers.h).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "gridops/ops/pad.h"
#include "ops/pad_test_helpers.h"
#include "support/test_util.h"

namespace gridops {
namespace {

using pad_testing::expected_pad;
using pad_testing::make_desc;
using pad_testing::make_tensor;
using pad_testing::values_of;
using ::testing::ElementsAreArray;

constexpr PadMode kAllModes[] = {PadMode::kConstant, PadMode::kEdge, PadMode::kReflect,
                                 PadMode::kSymmetric, PadMode::kWrap};

Tensor pad_ok(const PadDesc& desc, const TensorView& src, const TensorView* pad_value = nullptr) {
  StatusOr<Tensor> r = pad(desc, src, pad_value);
  EXPECT_TRUE(r.ok()) << r.status().to_string();
  if (!r.ok()) return Tensor(src.dtype, Dims{0});
  return std::move(r).value();
}

TEST(PadMode, NamesRoundTrip) {
  const char* names[] = {"constant", "edge", "reflect", "symmetric", "wrap"};
  for (int i = 0; i < 5; ++i) {
    EXPECT_STREQ(to_string(kAllModes[i]), names[i]);
    StatusOr<PadMode> m = parse_pad_mode(names[i]);
    ASSERT_TRUE(m.ok());
    EXPECT_EQ(*m, kAllModes[i]);
  }
}

// --- the spec's 3x4 examples (pads_begin [0, 1], pads_end [2, 3]) -----------------------

Tensor spec_input() {
  return make_tensor<int32_t>({3, 4}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12});
}

void check_spec_example(PadMode mode, const std::vector<int32_t>& expected) {
  SCOPED_TRACE(to_string(mode));
  const Tensor out = pad_ok(make_desc(mode, {0, 1}, {2, 3}), spec_input());
  ASSERT_EQ(out.shape(), (Dims{5, 8}));
  EXPECT_THAT(values_of<int32_t>(out), ElementsAreArray(expected));
}

TEST(PadSpec, ConstantExample) {
  check_spec_example(PadMode::kConstant, {0, 1, 2,  3,  4,  0, 0, 0,  //
                                          0, 5, 6,  7,  8,  0, 0, 0,  //
                                          0, 9, 10, 11, 12, 0, 0, 0,  //
                                          0, 0, 0,  0,  0,  0, 0, 0,  //
                                          0, 0, 0,  0,  0,  0, 0, 0});
}

TEST(PadSpec, EdgeExample) {
  check_spec_example(PadMode::kEdge, {1, 1, 2,  3,  4,  4,  4,  4,   //
                                      5, 5, 6,  7,  8,  8,  8,  8,   //
                                      9, 9, 10, 11, 12, 12, 12, 12,  //
                                      9, 9, 10, 11, 12, 12, 12, 12,  //
                                      9, 9, 10, 11, 12, 12, 12, 12});
}

TEST(PadSpec, ReflectExample) {
  check_spec_example(PadMode::kReflect, {2,  1, 2,  3,  4,  3,  2,  1,  //
                                         6,  5, 6,  7,  8,  7,  6,  5,  //
                                         10, 9, 10, 11, 12, 11, 10, 9,  //
                                         6,  5, 6,  7,  8,  7,  6,  5,  //
                                         2,  1, 2,  3,  4,  3,  2,  1});
}

TEST(PadSpec, SymmetricExample) {
  check_spec_example(PadMode::kSymmetric, {1, 1, 2,  3,  4,  4,  3,  2,   //
                                           5, 5, 6,  7,  8,  8,  7,  6,   //
                                           9, 9, 10, 11, 12, 12, 11, 10,  //
                                           9, 9, 10, 11, 12, 12, 11, 10,  //
                                           5, 5, 6,  7,  8,  8,  7,  6});
}

// The spec's (1, 3, 32, 40) examples: pads_begin [0, 5, 2, 1], pads_end [1, 0, 3, 7].
Tensor spec_4d_input() {
  Tensor t(DType::kFloat32, {1, 3, 32, 40});
  for (int64_t i = 0; i < t.num_elements(); ++i) t.data_as<float>()[i] = static_cast<float>(i + 1);
  return t;
}

TEST(PadSpec, ConstantExample4DWith15) {
  const Tensor src = spec_4d_input();
  const float fifteen = 15.0f;
  const TensorView pv(DType::kFloat32, &fifteen, Dims{});
  const Tensor out = pad_ok(make_desc(PadMode::kConstant, {0, 5, 2, 1}, {1, 0, 3, 7}), src, &pv);
  ASSERT_EQ(out.shape(), (Dims{2, 8, 37, 48}));
  int64_t fifteens = 0;
  const TensorView ov = out.view();
  for (int64_t n = 0; n < 2; ++n)
    for (int64_t c = 0; c < 8; ++c)
      for (int64_t h = 0; h < 37; ++h)
        for (int64_t w = 0; w < 48; ++w) {
          const float got = ov.at<float>({n, c, h, w});
          const bool inside = n < 1 && c >= 5 && h >= 2 && h < 34 && w >= 1 && w < 41;
          if (inside) {
            ASSERT_EQ(got, src.view().at<float>({n, c - 5, h - 2, w - 1}));
          } else {
            ASSERT_EQ(got, 15.0f) << n << " " << c << " " << h << " " << w;
            ++fifteens;
          }
        }
  EXPECT_EQ(fifteens, 2 * 8 * 37 * 48 - 3 * 32 * 40);
}

TEST(PadSpec, EdgeExample4D) {
  const Tensor src = spec_4d_input();
  const Tensor out = pad_ok(make_desc(PadMode::kEdge, {0, 5, 2, 1}, {1, 0, 3, 7}), src);
  ASSERT_EQ(out.shape(), (Dims{2, 8, 37, 48}));
  auto clampi = [](int64_t v, int64_t n) { return v < 0 ? 0 : (v >= n ? n - 1 : v); };
  for (int64_t n = 0; n < 2; ++n)
    for (int64_t c = 0; c < 8; ++c)
      for (int64_t h = 0; h < 37; ++h)
        for (int64_t w = 0; w < 48; ++w) {
          ASSERT_EQ(out.view().at<float>({n, c, h, w}),
                    src.view().at<float>({clampi(n, 1), clampi(c - 5, 3), clampi(h - 2, 32),
                                          clampi(w - 1, 40)}));
        }
}

// --- wrap (ERRATA Pad 5): periodic for any pad size ------------------------------------

TEST(PadWrap, PadsLongerThanTheAxisAreATorus) {
  // c = j - 4 for j = 0..11 -> c mod 3 = 2 0 1 2 0 1 2 0 1 2 0 1.
  const Tensor src = make_tensor<int32_t>({3}, {1, 2, 3});
  const Tensor out = pad_ok(make_desc(PadMode::kWrap, {4}, {5}), src);
  EXPECT_THAT(values_of<int32_t>(out), ElementsAreArray({3, 1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2}));
}

TEST(PadWrap, TwoDimensions) {
  // Rows c0 = -1, 0, 1 -> 1, 0, 1; columns c1 = -3..1 -> 1 0 1 0 1.
  const Tensor src = make_tensor<int32_t>({2, 2}, {1, 2, 3, 4});
  const Tensor out = pad_ok(make_desc(PadMode::kWrap, {1, 3}, {0, 0}), src);
  ASSERT_EQ(out.shape(), (Dims{3, 5}));
  EXPECT_THAT(values_of<int32_t>(out),
              ElementsAreArray({4, 3, 4, 3, 4, 2, 1, 2, 1, 2, 4, 3, 4, 3, 4}));
}

TEST(PadWrap, LengthOneAxisRepeatsItsOnlyElement) {
  const Tensor src = make_tensor<int16_t>({1}, {-7});
  const Tensor out = pad_ok(make_desc(PadMode::kWrap, {10}, {13}), src);
  EXPECT_THAT(values_of<int16_t>(out), ::testing::Each(int16_t{-7}));
  EXPECT_EQ(out.num_elements(), 24);
}

// --- negative pads (ERRATA Pad 4): crop, values relative to the original data ----------

TEST(PadNegative, CropsInConstantMode) {
  const Tensor out = pad_ok(make_desc(PadMode::kConstant, {-1, 0}, {0, -2}), spec_input());
  ASSERT_EQ(out.shape(), (Dims{2, 2}));
  EXPECT_THAT(values_of<int32_t>(out), ElementsAreArray({5, 6, 9, 10}));
  // Crop one side and pad the other: [1 2 3] -> [2 3 0 0].
  const Tensor out2 =
      pad_ok(make_desc(PadMode::kConstant, {-1}, {2}), make_tensor<int32_t>({3}, {1, 2, 3}));
  EXPECT_THAT(values_of<int32_t>(out2), ElementsAreArray({2, 3, 0, 0}));
}

TEST(PadNegative, OtherModesUseTheOriginalUncroppedData) {
  const Tensor x = make_tensor<int32_t>({5}, {1, 2, 3, 4, 5});
  // reflect, c = 3..7 -> 3 4 3 2 1 (the cropped [4 5] alone could not reflect 3 deep).
  EXPECT_THAT(values_of<int32_t>(pad_ok(make_desc(PadMode::kReflect, {-3}, {3}), x)),
              ElementsAreArray({4, 5, 4, 3, 2}));
  // wrap, c = 3..6 -> 3 4 0 1 (the cropped data would repeat 4 5).
  EXPECT_THAT(values_of<int32_t>(pad_ok(make_desc(PadMode::kWrap, {-3}, {2}), x)),
              ElementsAreArray({4, 5, 1, 2}));
  // symmetric, c = -2..0 -> 1 0 0; the end is cropped by 4.
  EXPECT_THAT(values_of<int32_t>(pad_ok(make_desc(PadMode::kSymmetric, {2}, {-4}), x)),
              ElementsAreArray({2, 1, 1}));
  // edge, c = -2..0 -> 0 0 0.
  EXPECT_THAT(values_of<int32_t>(pad_ok(make_desc(PadMode::kEdge, {2}, {-4}), x)),
              ElementsAreArray({1, 1, 1}));
  // Cropping past the whole axis and padding back with edge: c = 6, 7 -> clamp 4.
  EXPECT_THAT(values_of<int32_t>(pad_ok(make_desc(PadMode::kEdge, {-6}, {3}), x)),
              ElementsAreArray({5, 5}));
}

TEST(PadNegative, CropToEmpty) {
  const Tensor out = pad_ok(make_desc(PadMode::kReflect, {-1, 0}, {-2, 1}), spec_input());
  EXPECT_EQ(out.shape(), (Dims{0, 5}));
}

// --- pad_value (ERRATA Pad 3) ------------------------------------------------------------

TEST(PadValue, Int64StaysExact) {
  const int64_t big = (int64_t{1} << 62) + 1;  // not representable in double
  const Tensor src = make_tensor<int64_t>({2}, {1, 2});
  const TensorView pv(DType::kInt64, &big, Dims{1});
  EXPECT_THAT(values_of<int64_t>(pad_ok(make_desc(PadMode::kConstant, {1}, {1}), src, &pv)),
              ElementsAreArray({big, int64_t{1}, int64_t{2}, big}));
  const uint64_t umax = std::numeric_limits<uint64_t>::max();
  const Tensor usrc = make_tensor<uint64_t>({1}, {5});
  const TensorView upv(DType::kUInt64, &umax, Dims{1, 1});
  EXPECT_THAT(values_of<uint64_t>(pad_ok(make_desc(PadMode::kConstant, {0}, {2}), usrc, &upv)),
              ElementsAreArray({uint64_t{5}, umax, umax}));
}

TEST(PadValue, FloatBitsAreCopiedExactly) {
  uint32_t snan_bits = 0x7FA00001u;  // a signalling NaN with a payload
  float snan;
  std::memcpy(&snan, &snan_bits, 4);
  const Tensor src = make_tensor<float>({1}, {-0.0f});
  const TensorView pv(DType::kFloat32, &snan, Dims{});
  const Tensor out = pad_ok(make_desc(PadMode::kConstant, {1}, {0}), src, &pv);
  uint32_t bits[2];
  std::memcpy(bits, out.data(), 8);
  EXPECT_EQ(bits[0], snan_bits);
  EXPECT_EQ(bits[1], 0x80000000u);  // -0.0 kept
}

TEST(PadValue, ScalarViewWithStrides) {
  // A one-element view may have any rank and strides.
  const double v[3] = {9.0, 2.5, 9.0};
  const TensorView pv(DType::kFloat64, &v[1], Dims{1, 1, 1}, Dims{-7, 0, 100});
  const Tensor out = pad_ok(make_desc(PadMode::kConstant, {1}, {0}),
                            make_tensor<double>({1}, {1.0}), &pv);
  EXPECT_THAT(values_of<double>(out), ElementsAreArray({2.5, 1.0}));
}

TEST(PadValue, StringsAndBools) {
  const Tensor s = make_tensor<std::string>({2}, {"a", "bb"});
  const std::string p = "pad";
  const TensorView pv(DType::kString, &p, Dims{});
  EXPECT_THAT(values_of<std::string>(pad_ok(make_desc(PadMode::kConstant, {1}, {2}), s, &pv)),
              ElementsAreArray({"pad", "a", "bb", "pad", "pad"}));
  EXPECT_THAT(values_of<std::string>(pad_ok(make_desc(PadMode::kConstant, {0}, {1}), s)),
              ElementsAreArray({"a", "bb", ""}));
  EXPECT_THAT(values_of<std::string>(pad_ok(make_desc(PadMode::kReflect, {1}, {1}), s)),
              ElementsAreArray({"bb", "a", "bb", "a"}));

  const Tensor b = make_tensor<bool>({2}, {true, false});
  const bool t = true;
  const TensorView bpv(DType::kBool, &t, Dims{1});
  EXPECT_THAT(values_of<bool>(pad_ok(make_desc(PadMode::kConstant, {0}, {2}), b, &bpv)),
              ElementsAreArray({true, false, true, true}));
  EXPECT_THAT(values_of<bool>(pad_ok(make_desc(PadMode::kConstant, {1}, {1}), b)),
              ElementsAreArray({false, true, false, false}));
}

TEST(PadValue, ComplexAndHalf) {
  using C = std::complex<double>;
  const C cv(1.5, -2.0);
  const TensorView pv(DType::kComplex128, &cv, Dims{});
  EXPECT_THAT(values_of<C>(pad_ok(make_desc(PadMode::kConstant, {1}, {0}),
                                  make_tensor<C>({1}, {C(3, 4)}), &pv)),
              ElementsAreArray({cv, C(3, 4)}));
  const bfloat16 h = bfloat16::from_bits(0x3FC0);  // 1.5
  const TensorView hpv(DType::kBFloat16, &h, Dims{});
  const Tensor out = pad_ok(make_desc(PadMode::kConstant, {0}, {1}),
                            make_tensor<bfloat16>({1}, {bfloat16::from_bits(0x4000)}), &hpv);
  EXPECT_EQ(out.data_as<bfloat16>()[0].bits, 0x4000);
  EXPECT_EQ(out.data_as<bfloat16>()[1].bits, 0x3FC0);
}

// --- every dtype: edge, and constant's default zero --------------------------------------

TEST(PadDTypes, EveryDTypeEdgeAndDefaultZero) {
  const uint64_t seed = testing::test_seed();
  SCOPED_TRACE(::testing::Message() << "seed " << seed);
  std::mt19937_64 rng(seed);
#define PAD_CHECK_DTYPE(e, T, name)                                                      \
  {                                                                                      \
    SCOPED_TRACE(name);                                                                  \
    Tensor src(DType::e, {2, 3});                                                        \
    testing::fill_random(src, rng, -50, 50);                                             \
    for (PadMode mode : {PadMode::kEdge, PadMode::kConstant}) {                          \
      const Dims b{1, 2}, en{2, 1};                                                      \
      const Tensor out = pad_ok(make_desc(mode, b, en), src);                            \
      const Tensor want = expected_pad(src, mode, b, en);                                \
      int64_t where = -1;                                                                \
      EXPECT_TRUE(testing::bitwise_equal(out, want, &where))                             \
          << to_string(mode) << " differs at " << where;                                 \
    }                                                                                    \
    /* Spot check by hand: edge output (0, 0) is src (0, 0); (4, 5) is src (1, 2). */    \
    const Tensor edge = pad_ok(make_desc(PadMode::kEdge, {1, 2}, {2, 1}), src);          \
    EXPECT_TRUE(edge.view().at<T>({0, 0}) == src.view().at<T>({0, 0}));                  \
    EXPECT_TRUE(edge.view().at<T>({4, 5}) == src.view().at<T>({1, 2}));                  \
  }
  GRIDOPS_FOR_EACH_DTYPE(PAD_CHECK_DTYPE)
#undef PAD_CHECK_DTYPE
}

// --- strided views -----------------------------------------------------------------------

TEST(PadStrides, StridedAndNegativeStrideViews) {
  const uint64_t seed = testing::test_seed();
  SCOPED_TRACE(::testing::Message() << "seed " << seed);
  std::mt19937_64 rng(seed);
  for (DType dt : {DType::kInt32, DType::kFloat64, DType::kString, DType::kUInt8}) {
    Tensor src(dt, {3, 4, 2});
    testing::fill_random(src, rng, -100, 100);
    for (PadMode mode : kAllModes) {
      SCOPED_TRACE(::testing::Message() << to_string(dt) << " " << to_string(mode));
      const Dims b{2, 0, 1}, e{1, 3, -1};
      const Tensor want = expected_pad(src, mode, b, e);
      for (bool negative : {false, true}) {
        Tensor storage;
        const TensorView sv = testing::scrambled_copy(src, storage, negative);
        ASSERT_FALSE(sv.is_contiguous());
        // dst: a reversed (negative-stride) view into a buffer.
        Tensor dst_buf(dt, want.shape());
        Dims ds = contiguous_strides(want.shape());
        int64_t start = 0;
        for (size_t d = 0; d < ds.size(); ++d) {
          start += (want.shape()[d] - 1) * ds[d];
          ds[d] = -ds[d];
        }
        const MutableTensorView dv(
            dt, static_cast<char*>(dst_buf.data()) + start * static_cast<int64_t>(dtype_size(dt)),
            want.shape(), ds);
        ASSERT_TRUE(pad(make_desc(mode, b, e), sv, dv).ok());
        // Read the reversed buffer back into logical order.
        Tensor got(dt, want.shape());
        const int64_t n = got.num_elements();
        const size_t es = dtype_size(dt);
        for (int64_t f = 0; f < n; ++f) {
          const char* from = static_cast<const char*>(dst_buf.data()) + (n - 1 - f) * es;
          char* to = static_cast<char*>(got.data()) + f * es;
          if (dt == DType::kString) {
            *reinterpret_cast<std::string*>(to) = *reinterpret_cast<const std::string*>(from);
          } else {
            std::memcpy(to, from, es);
          }
        }
        int64_t where = -1;
        EXPECT_TRUE(testing::bitwise_equal(got, want, &where)) << "negative=" << negative
                                                               << " at " << where;
      }
    }
  }
}

TEST(PadStrides, ZeroStrideBroadcastSource) {
  // A (3, 2) view of a single value (stride 0 on both axes): every output equals it.
  const float v = 4.25f;
  const TensorView sv(DType::kFloat32, &v, Dims{3, 2}, Dims{0, 0});
  const Tensor out = pad_ok(make_desc(PadMode::kSymmetric, {3, 2}, {3, 2}), sv);
  ASSERT_EQ(out.shape(), (Dims{9, 6}));
  EXPECT_THAT(values_of<float>(out), ::testing::Each(4.25f));
}

// --- shapes at the edges -----------------------------------------------------------------

TEST(PadShapes, RankZeroIsTheIdentity) {
  const Tensor src = make_tensor<float>({}, {3.5f});
  for (PadMode mode : kAllModes) {
    const Tensor out = pad_ok(make_desc(mode, {}, {}), src);
    EXPECT_EQ(out.shape(), Dims{});
    EXPECT_EQ(out.data_as<float>()[0], 3.5f);
  }
  const float pv = 1.0f;
  const TensorView pvv(DType::kFloat32, &pv, Dims{});
  EXPECT_EQ(pad_ok(make_desc(PadMode::kConstant, {}, {}), src, &pvv).data_as<float>()[0], 3.5f);
}

TEST(PadShapes, EmptyInputAndOutput) {
  // Constant mode fills a padded empty axis with the pad value.
  Tensor empty(DType::kInt32, {0, 3});
  const int32_t seven = 7;
  const TensorView pv(DType::kInt32, &seven, Dims{});
  const Tensor out = pad_ok(make_desc(PadMode::kConstant, {2, 0}, {1, 1}), empty, &pv);
  ASSERT_EQ(out.shape(), (Dims{3, 4}));
  EXPECT_THAT(values_of<int32_t>(out), ::testing::Each(7));
  // An empty axis that is not padded is fine in every mode.
  for (PadMode mode : kAllModes) {
    EXPECT_EQ(pad_ok(make_desc(mode, {0, 1}, {0, 1}), empty).shape(), (Dims{0, 5}));
  }
  // Empty output: src with data == nullptr and zero elements is a valid view.
  const TensorView null_empty(DType::kFloat32, nullptr, Dims{4, 0});
  EXPECT_EQ(pad_ok(make_desc(PadMode::kEdge, {1, 0}, {1, 0}), null_empty).shape(), (Dims{6, 0}));
}

TEST(PadShapes, MaxRank) {
  Dims shape(kMaxRank, 1);
  shape[3] = 2;
  Tensor src(DType::kInt8, shape);
  src.data_as<int8_t>()[0] = 1;
  src.data_as<int8_t>()[1] = 2;
  Dims b(kMaxRank, 0), e(kMaxRank, 0);
  b[kMaxRank - 1] = 2;
  e[3] = 1;
  for (PadMode mode : {PadMode::kEdge, PadMode::kWrap}) {
    const Tensor out = pad_ok(make_desc(mode, b, e), src);
    Dims want_shape = shape;
    want_shape[3] = 3;
    want_shape[kMaxRank - 1] = 3;
    ASSERT_EQ(out.shape(), want_shape);
    // Axis 3 becomes [1 2 2] (edge) or [1 2 1] (wrap); axis 15 repeats it.
    const int8_t last = mode == PadMode::kWrap ? 1 : 2;
    EXPECT_THAT(values_of<int8_t>(out), ElementsAreArray(std::vector<int8_t>{1, 1, 1, 2, 2, 2, last, last, last}))
        << to_string(mode);
  }
}

// --- plans -------------------------------------------------------------------------------

TEST(PadPlan, ReusedAcrossRunsAndReportsImpl) {
  PadDesc desc = make_desc(PadMode::kSymmetric, {1}, {1});
  desc.impl = "ref";
  const Dims shape{2};
  StatusOr<PadPlan> plan = make_pad_plan(desc, DType::kInt32, shape);
  ASSERT_TRUE(plan.ok()) << plan.status().to_string();
  EXPECT_STREQ(plan->impl_name(), "ref");
  EXPECT_EQ(plan->dst_shape(), (Dims{4}));
  for (int32_t base : {10, 20}) {
    const Tensor src = make_tensor<int32_t>({2}, {base, base + 1});
    Tensor dst(DType::kInt32, {4});
    ASSERT_TRUE(plan->run(src, dst.mutable_view()).ok());
    EXPECT_THAT(values_of<int32_t>(dst), ElementsAreArray({base, base, base + 1, base + 1}));
  }
  StatusOr<Dims> shp = pad_output_shape(make_desc(PadMode::kWrap, {-1, 9}, {2, -3}), Dims{4, 1});
  ASSERT_TRUE(shp.ok());
  EXPECT_EQ(*shp, (Dims{5, 7}));
}

// --- properties --------------------------------------------------------------------------

/// Random pads within the bounds of `mode` for an axis of length n >= 1.
int64_t random_pad(PadMode mode, int64_t n, std::mt19937_64& rng, bool allow_negative) {
  int64_t hi = 4;
  if (mode == PadMode::kReflect) hi = n - 1;
  if (mode == PadMode::kSymmetric) hi = n;
  if (mode == PadMode::kWrap) hi = 2 * n + 3;
  const int64_t lo = allow_negative ? -n : 0;
  return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
}

TEST(PadProperty, PadThenCropIsTheIdentity) {
  const uint64_t seed = testing::test_seed();
  SCOPED_TRACE(::testing::Message() << "seed " << seed);
  std::mt19937_64 rng(seed);
  const DType dtypes[] = {DType::kInt32, DType::kFloat64, DType::kString, DType::kUInt8,
                          DType::kComplex64, DType::kFloat16};
  for (int iter = 0; iter < 150; ++iter) {
    SCOPED_TRACE(::testing::Message() << "iteration " << iter);
    const int rank = static_cast<int>(rng() % 5);
    const PadMode mode = kAllModes[rng() % 5];
    const DType dt = dtypes[rng() % 6];
    Dims shape(rank), b(rank), e(rank);
    for (int d = 0; d < rank; ++d) {
      shape[d] = 1 + static_cast<int64_t>(rng() % 4);
      b[d] = random_pad(mode, shape[d], rng, false);
      e[d] = random_pad(mode, shape[d], rng, false);
    }
    Tensor src(dt, shape);
    testing::fill_random(src, rng, -9, 9);
    const Tensor padded = pad_ok(make_desc(mode, b, e), src);
    int64_t where = -1;
    EXPECT_TRUE(testing::bitwise_equal(padded, expected_pad(src, mode, b, e), &where))
        << to_string(mode) << " " << dims_to_string(shape) << " at " << where;
    Dims nb(rank), ne(rank);
    for (int d = 0; d < rank; ++d) {
      nb[d] = -b[d];
      ne[d] = -e[d];
    }
    const Tensor back = pad_ok(make_desc(PadMode::kConstant, nb, ne), padded);
    EXPECT_TRUE(testing::bitwise_equal(back, src, &where))
        << to_string(mode) << " " << dims_to_string(shape) << " at " << where;
  }
}

TEST(PadProperty, MixedCropAndPadMatchesTheModel) {
  const uint64_t seed = testing::test_seed() + 1;
  SCOPED_TRACE(::testing::Message() << "seed " << seed);
  std::mt19937_64 rng(seed);
  for (int iter = 0; iter < 150; ++iter) {
    SCOPED_TRACE(::testing::Message() << "iteration " << iter);
    const int rank = 1 + static_cast<int>(rng() % 3);
    const PadMode mode = kAllModes[rng() % 5];
    Dims shape(rank), b(rank), e(rank);
    for (int d = 0; d < rank; ++d) {
      shape[d] = 1 + static_cast<int64_t>(rng() % 5);
      do {
        b[d] = random_pad(mode, shape[d], rng, true);
        e[d] = random_pad(mode, shape[d], rng, true);
      } while (b[d] + shape[d] + e[d] < 0);
    }
    Tensor src(DType::kInt64, shape);
    testing::fill_random(src, rng, -1000, 1000);
    const int64_t pv = -424242;
    const TensorView pvv(DType::kInt64, &pv, Dims{});
    const bool with_value = mode == PadMode::kConstant;
    const Tensor got = pad_ok(make_desc(mode, b, e), src, with_value ? &pvv : nullptr);
    int64_t where = -1;
    EXPECT_TRUE(testing::bitwise_equal(
        got, expected_pad(src, mode, b, e, with_value ? &pv : nullptr), &where))
        << to_string(mode) << " " << dims_to_string(shape) << " b=" << dims_to_string(b)
        << " e=" << dims_to_string(e) << " at " << where;
  }
}

}  // namespace
}  // namespace gridops
