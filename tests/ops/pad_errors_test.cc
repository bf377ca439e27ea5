// Pad: every error path, with its status code and message, and "nothing written on error".
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "gridops/ops/pad.h"
#include "ops/pad_test_helpers.h"

namespace gridops {
namespace {

using pad_testing::make_desc;
using pad_testing::make_tensor;
using ::testing::AllOf;
using ::testing::HasSubstr;

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();

/// The status of make_pad_plan for an int32 src of `shape`.
Status plan_status(const PadDesc& desc, const Dims& shape, DType dt = DType::kInt32) {
  return make_pad_plan(desc, dt, shape).status();
}

#define EXPECT_INVALID(status_expr, ...)                                 \
  do {                                                                   \
    const Status st_ = (status_expr);                                    \
    EXPECT_EQ(st_.code(), StatusCode::kInvalidArgument) << st_.to_string(); \
    EXPECT_THAT(st_.message(), AllOf(__VA_ARGS__));                      \
  } while (0)

TEST(PadErrors, UnknownModeName) {
  const StatusOr<PadMode> m = parse_pad_mode("mirror");
  EXPECT_INVALID(m.status(),
                 HasSubstr("pad: mode must be one of {constant, edge, reflect, symmetric, wrap}, "
                           "got 'mirror'"));
  EXPECT_FALSE(parse_pad_mode("Constant").ok());  // names are case-sensitive
  EXPECT_FALSE(parse_pad_mode("").ok());
}

TEST(PadErrors, UnknownModeEnumerator) {
  EXPECT_INVALID(plan_status(make_desc(static_cast<PadMode>(9), {0}, {0}), {2}),
                 HasSubstr("pad: mode must be one of"), HasSubstr("got enumerator 9"));
}

TEST(PadErrors, PadsLengthMismatch) {
  EXPECT_INVALID(plan_status(make_desc(PadMode::kConstant, {1}, {1, 1}), {3, 4}),
                 HasSubstr("pad: pads_begin must have 2 entries (one per axis of src (3, 4)), "
                           "got 1"));
  EXPECT_INVALID(plan_status(make_desc(PadMode::kEdge, {1, 1}, {1, 1, 1}), {3, 4}),
                 HasSubstr("pad: pads_end must have 2 entries (one per axis of src (3, 4)), "
                           "got 3"));
  EXPECT_INVALID(plan_status(make_desc(PadMode::kEdge, {1}, {1}), {}),
                 HasSubstr("pads_begin must have 0 entries"), HasSubstr("got 1"));
}

TEST(PadErrors, ReflectBoundsOnEveryAxisAndSide) {
  const Dims shape{3, 4, 5};
  EXPECT_INVALID(plan_status(make_desc(PadMode::kReflect, {3, 0, 0}, {0, 0, 0}), shape),
                 HasSubstr("pad: reflect mode needs pads_begin[0] <= 2 (axis 0 has length 3), "
                           "got 3"));
  EXPECT_INVALID(plan_status(make_desc(PadMode::kReflect, {0, 0, 0}, {3, 0, 0}), shape),
                 HasSubstr("pad: reflect mode needs pads_end[0] <= 2 (axis 0 has length 3), got 3"));
  EXPECT_INVALID(plan_status(make_desc(PadMode::kReflect, {2, 4, 0}, {2, 0, 0}), shape),
                 HasSubstr("pad: reflect mode needs pads_begin[1] <= 3 (axis 1 has length 4), "
                           "got 4"));
  EXPECT_INVALID(plan_status(make_desc(PadMode::kReflect, {0, 0, 0}, {0, 9, 0}), shape),
                 HasSubstr("pad: reflect mode needs pads_end[1] <= 3 (axis 1 has length 4), got 9"));
  EXPECT_INVALID(plan_status(make_desc(PadMode::kReflect, {0, 0, 0}, {0, 0, 5}), shape),
                 HasSubstr("pad: reflect mode needs pads_end[2] <= 4 (axis 2 has length 5), got 5"));
  // A length-1 axis cannot be reflected at all.
  EXPECT_INVALID(plan_status(make_desc(PadMode::kReflect, {1}, {0}), {1}),
                 HasSubstr("pads_begin[0] <= 0 (axis 0 has length 1), got 1"));
  // The limits themselves are accepted, also with a crop on the other side.
  EXPECT_TRUE(plan_status(make_desc(PadMode::kReflect, {2, 3, 4}, {2, 3, -5}), shape).ok());
}

TEST(PadErrors, SymmetricBoundsOnEveryAxisAndSide) {
  const Dims shape{3, 4};
  EXPECT_INVALID(plan_status(make_desc(PadMode::kSymmetric, {4, 0}, {0, 0}), shape),
                 HasSubstr("pad: symmetric mode needs pads_begin[0] <= 3 (axis 0 has length 3), "
                           "got 4"));
  EXPECT_INVALID(plan_status(make_desc(PadMode::kSymmetric, {0, 0}, {4, 0}), shape),
                 HasSubstr("pad: symmetric mode needs pads_end[0] <= 3 (axis 0 has length 3), "
                           "got 4"));
  EXPECT_INVALID(plan_status(make_desc(PadMode::kSymmetric, {0, 5}, {0, 0}), shape),
                 HasSubstr("pad: symmetric mode needs pads_begin[1] <= 4 (axis 1 has length 4), "
                           "got 5"));
  EXPECT_INVALID(plan_status(make_desc(PadMode::kSymmetric, {0, 0}, {0, 5}), shape),
                 HasSubstr("pad: symmetric mode needs pads_end[1] <= 4 (axis 1 has length 4), "
                           "got 5"));
  EXPECT_TRUE(plan_status(make_desc(PadMode::kSymmetric, {3, 4}, {3, 4}), shape).ok());
  // Edge, wrap and constant have no upper bound.
  for (PadMode m : {PadMode::kEdge, PadMode::kWrap, PadMode::kConstant}) {
    EXPECT_TRUE(plan_status(make_desc(m, {100, 0}, {0, 1000}), shape).ok()) << to_string(m);
  }
}

TEST(PadErrors, PaddingAnEmptyAxis) {
  for (PadMode m : {PadMode::kEdge, PadMode::kReflect, PadMode::kSymmetric, PadMode::kWrap}) {
    SCOPED_TRACE(to_string(m));
    EXPECT_INVALID(plan_status(make_desc(m, {0, 2}, {0, 0}), {3, 0}),
                   HasSubstr(std::string("pad: ") + to_string(m) +
                             " mode cannot pad axis 1 of length 0 (pads_begin[1] = 2); only "
                             "constant mode pads an empty axis"));
    EXPECT_INVALID(plan_status(make_desc(m, {0, 0}, {1, 0}), {0, 3}),
                   HasSubstr("cannot pad axis 0 of length 0 (pads_end[0] = 1)"));
  }
  EXPECT_TRUE(plan_status(make_desc(PadMode::kConstant, {0, 2}, {0, 0}), {3, 0}).ok());
}

TEST(PadErrors, NegativeOutputDimension) {
  EXPECT_INVALID(plan_status(make_desc(PadMode::kConstant, {0, -2}, {0, -4}), {2, 3}),
                 HasSubstr("pad: output dimension 1 = pads_begin[1] + 3 + pads_end[1] = "
                           "-2 + 3 + -4 = -3, must be >= 0"));
  EXPECT_INVALID(plan_status(make_desc(PadMode::kWrap, {-3}, {0}), {2}),
                 HasSubstr("output dimension 0"), HasSubstr("= -1, must be >= 0"));
}

TEST(PadErrors, OverflowingDimensionsAndCounts) {
  // One output dimension overflows int64.
  EXPECT_INVALID(plan_status(make_desc(PadMode::kConstant, {kMax}, {0}), {1}),
                 HasSubstr("pad: output dimension 0 = pads_begin[0] + 1 + pads_end[0] = "),
                 HasSubstr("overflows int64"));
  // Each dimension fits, their product does not.
  const int64_t big = int64_t{1} << 31;
  EXPECT_INVALID(plan_status(make_desc(PadMode::kEdge, {big, 0}, {0, 0}), {big, big}),
                 HasSubstr("pad: dst: element count of shape (4294967296, 2147483648) "
                           "overflows 64 bits"));
  // The source shape itself overflows.
  EXPECT_INVALID(plan_status(make_desc(PadMode::kConstant, {0, 0}, {0, 0}), {big * 4, big * 4}),
                 HasSubstr("pad: src: element count of shape"), HasSubstr("overflows 64 bits"));
  // Pads whose source indices c = j - pads_begin leave the int64 range.
  EXPECT_INVALID(plan_status(make_desc(PadMode::kWrap, {kMin + 1}, {kMax}), {1}),
                 HasSubstr("pad: pads_begin[0] = -9223372036854775807 and pads_end[0] = "
                           "9223372036854775807 put source indices of axis 0 outside the "
                           "int64 range"));
  EXPECT_INVALID(plan_status(make_desc(PadMode::kConstant, {kMin}, {kMax}), {1}),
                 HasSubstr("put source indices of axis 0 outside the int64 range"));
}

TEST(PadErrors, HugeAxisForReflect) {
  // Only reachable with zero-stride views: the period 2n would not fit in int64.
  const int64_t huge = (int64_t{1} << 62) + 8;
  EXPECT_INVALID(plan_status(make_desc(PadMode::kSymmetric, {1}, {0}), {huge}),
                 HasSubstr("pad: symmetric mode supports axes of length <= 4611686018427387903, "
                           "axis 0 has length 4611686018427387912"));
}

TEST(PadErrors, NegativeSrcDimensionAndRank) {
  EXPECT_INVALID(plan_status(make_desc(PadMode::kConstant, {0, 0}, {0, 0}), {-1, 3}),
                 HasSubstr("pad: src: dimension 0 must be >= 0, got -1 in shape (-1, 3)"));
  const Dims too_many(kMaxRank + 1, 1);
  EXPECT_INVALID(plan_status(make_desc(PadMode::kConstant, Dims(kMaxRank + 1, 0),
                                       Dims(kMaxRank + 1, 0)),
                             too_many),
                 HasSubstr("pad: src rank must be <= 16, got 17"));
  EXPECT_INVALID(plan_status(make_desc(PadMode::kConstant, {0}, {0}), {1},
                             static_cast<DType>(200)),
                 HasSubstr("pad: dtype must be a known DType, got code 200"));
  // The one-shot wrappers check the src view first.
  int32_t x[3] = {};
  const TensorView neg(DType::kInt32, x, Dims{-3}, Dims{1});
  EXPECT_INVALID(pad(make_desc(PadMode::kConstant, {0}, {0}), neg).status(),
                 HasSubstr("pad: src: dimension 0 must be >= 0, got -3"));
}

TEST(PadErrors, UnknownForcedImpl) {
  PadDesc d = make_desc(PadMode::kEdge, {1}, {1});
  d.impl = "avx9000";
  EXPECT_INVALID(plan_status(d, {3}), HasSubstr("pad: impl must be one of {"));
  EXPECT_INVALID(plan_status(d, {3}), HasSubstr("pad.rows, ref} or an alias {fast}, got 'avx9000'"));
}

TEST(PadErrors, NullData) {
  const Tensor src = make_tensor<int32_t>({2}, {1, 2});
  Tensor dst(DType::kInt32, {4});
  const PadDesc d = make_desc(PadMode::kConstant, {1}, {1});
  const TensorView null_src(DType::kInt32, nullptr, Dims{2});
  EXPECT_INVALID(pad(d, null_src, dst.mutable_view()),
                 HasSubstr("pad: src: data pointer is null for non-empty shape (2,)"));
  const MutableTensorView null_dst(DType::kInt32, nullptr, Dims{4});
  EXPECT_INVALID(pad(d, src, null_dst),
                 HasSubstr("pad: dst: data pointer is null for non-empty shape (4,)"));
  const TensorView null_value(DType::kInt32, nullptr, Dims{1});
  EXPECT_INVALID(pad(d, src, dst.mutable_view(), &null_value),
                 HasSubstr("pad: pad_value: data pointer is null for non-empty shape (1,)"));
}

TEST(PadErrors, WrongDst) {
  const Tensor src = make_tensor<int32_t>({3, 4}, std::vector<int32_t>(12, 1));
  const PadDesc d = make_desc(PadMode::kConstant, {0, 1}, {2, 3});
  Tensor short_dst(DType::kInt32, {5, 7});
  EXPECT_INVALID(pad(d, src, short_dst.mutable_view()),
                 HasSubstr("pad: dst: expected shape (5, 8), got (5, 7)"));
  Tensor float_dst(DType::kFloat32, {5, 8});
  EXPECT_INVALID(pad(d, src, float_dst.mutable_view()),
                 HasSubstr("pad: dst: expected dtype int32, got float32"));
  Tensor dst(DType::kInt32, {5, 8});
  const MutableTensorView bad_strides(DType::kInt32, dst.data(), Dims{5, 8}, Dims{8});
  EXPECT_INVALID(pad(d, src, bad_strides), HasSubstr("pad: dst: expected 2 strides"));
  int32_t y[1] = {};
  const MutableTensorView neg_dst(DType::kInt32, y, Dims{5, -8}, Dims{1, 1});
  EXPECT_INVALID(pad(d, src, neg_dst), HasSubstr("pad: dst: dimension 1 must be >= 0, got -8"));
}

TEST(PadErrors, PlanRunRechecksSrc) {
  StatusOr<PadPlan> plan =
      make_pad_plan(make_desc(PadMode::kEdge, {1}, {1}), DType::kFloat32, Dims{3});
  ASSERT_TRUE(plan.ok());
  Tensor dst(DType::kFloat32, {5});
  const Tensor wrong_shape(DType::kFloat32, {4});
  EXPECT_INVALID(plan->run(wrong_shape, dst.mutable_view()),
                 HasSubstr("pad: src: expected shape (3,), got (4,)"));
  const Tensor wrong_dtype(DType::kFloat64, {3});
  EXPECT_INVALID(plan->run(wrong_dtype, dst.mutable_view()),
                 HasSubstr("pad: src: expected dtype float32, got float64"));
  const PadPlan empty;
  EXPECT_INVALID(empty.run(wrong_shape, dst.mutable_view()),
                 HasSubstr("pad: plan must come from make_pad_plan, got an empty plan"));
}

TEST(PadErrors, PadValueRules) {
  const Tensor src = make_tensor<int32_t>({2}, {1, 2});
  Tensor dst(DType::kInt32, {4});
  const int32_t v = 5;
  const TensorView pv(DType::kInt32, &v, Dims{});
  for (PadMode m : {PadMode::kEdge, PadMode::kReflect, PadMode::kSymmetric, PadMode::kWrap}) {
    EXPECT_INVALID(pad(make_desc(m, {1}, {1}), src, dst.mutable_view(), &pv),
                   HasSubstr(std::string("pad: pad_value is used by constant mode only, got "
                                         "one with ") + to_string(m) + " mode"));
  }
  const PadDesc d = make_desc(PadMode::kConstant, {1}, {1});
  const int64_t wide = 5;
  const TensorView wrong_dtype(DType::kInt64, &wide, Dims{});
  EXPECT_INVALID(pad(d, src, dst.mutable_view(), &wrong_dtype),
                 HasSubstr("pad: pad_value must have src's dtype int32, got int64"));
  const int32_t two[2] = {5, 6};
  const TensorView two_values(DType::kInt32, two, Dims{2});
  EXPECT_INVALID(pad(d, src, dst.mutable_view(), &two_values),
                 HasSubstr("pad: pad_value must have exactly 1 element, got shape (2,)"));
  const TensorView no_values(DType::kInt32, two, Dims{1, 0});
  EXPECT_INVALID(pad(d, src, dst.mutable_view(), &no_values),
                 HasSubstr("pad: pad_value must have exactly 1 element, got shape (1, 0)"));
  // The allocating wrapper reports the same.
  EXPECT_INVALID(pad(d, src, &two_values).status(), HasSubstr("exactly 1 element"));
  // ... before allocating: a huge (zero-stride) src with a bad pad_value fails cheaply.
  const TensorView huge(DType::kInt32, &v, Dims{int64_t{1} << 40}, Dims{0});
  EXPECT_INVALID(pad(d, huge, &wrong_dtype).status(),
                 HasSubstr("pad: pad_value must have src's dtype int32, got int64"));
}

TEST(PadErrors, NothingWrittenOnError) {
  const Tensor src = make_tensor<int32_t>({3}, {1, 2, 3});
  Tensor dst(DType::kInt32, {5});
  const int32_t kSentinel = -12345;
  for (int i = 0; i < 5; ++i) dst.data_as<int32_t>()[i] = kSentinel;
  const int32_t v = 7;
  const TensorView pv(DType::kInt32, &v, Dims{});
  const int64_t wide = 7;
  const TensorView wide_pv(DType::kInt64, &wide, Dims{});
  // pad_value with a non-constant mode, with the wrong dtype, and a wrong src view.
  EXPECT_FALSE(pad(make_desc(PadMode::kEdge, {1}, {1}), src, dst.mutable_view(), &pv).ok());
  EXPECT_FALSE(
      pad(make_desc(PadMode::kConstant, {1}, {1}), src, dst.mutable_view(), &wide_pv).ok());
  const TensorView null_src(DType::kInt32, nullptr, Dims{3});
  EXPECT_FALSE(pad(make_desc(PadMode::kConstant, {1}, {1}), null_src, dst.mutable_view()).ok());
  // Bounds violated on an axis.
  EXPECT_FALSE(pad(make_desc(PadMode::kReflect, {3}, {-1}), src, dst.mutable_view()).ok());
  for (int i = 0; i < 5; ++i) EXPECT_EQ(dst.data_as<int32_t>()[i], kSentinel) << i;
  // Strings are untouched too.
  const Tensor ssrc = make_tensor<std::string>({1}, {"x"});
  Tensor sdst = make_tensor<std::string>({3}, {"s0", "s1", "s2"});
  const std::string sv = "p";
  const TensorView spv(DType::kString, &sv, Dims{});
  EXPECT_FALSE(pad(make_desc(PadMode::kWrap, {1}, {1}), ssrc, sdst.mutable_view(), &spv).ok());
  EXPECT_THAT(pad_testing::values_of<std::string>(sdst),
              ::testing::ElementsAreArray({"s0", "s1", "s2"}));
}

}  // namespace
// dst may not share memory with src or pad_value (a pad in place would read what it has
// already written): rejected before anything is written; adjacent buffers are fine.
TEST(PadErrors, DstOverlappingInputs) {
  Tensor buf(DType::kInt32, {32});
  int32_t* p = buf.data_as<int32_t>();
  for (int i = 0; i < 32; ++i) p[i] = i;
  PadDesc desc;
  desc.mode = PadMode::kEdge;
  desc.pads_begin = {1};
  desc.pads_end = {1};
  const TensorView src(DType::kInt32, p, {4});
  EXPECT_INVALID(pad(desc, src, MutableTensorView(DType::kInt32, p + 2, {6})),
                 HasSubstr("pad: dst must not overlap src in memory"), HasSubstr("src bytes ["));
  EXPECT_EQ(p[2], 2);
  desc.mode = PadMode::kConstant;
  const TensorView value(DType::kInt32, p + 20, {});
  EXPECT_INVALID(pad(desc, src, MutableTensorView(DType::kInt32, p + 15, {6}), &value),
                 HasSubstr("pad: dst must not overlap pad_value in memory"));
  EXPECT_EQ(p[15], 15);
  // Adjacent: fine (constant 20 from p[20], then src 0..3).
  ASSERT_TRUE(pad(desc, src, MutableTensorView(DType::kInt32, p + 4, {6}), &value).ok());
  EXPECT_EQ(p[4], 20);
  EXPECT_EQ(p[5], 0);
  EXPECT_EQ(p[8], 3);
  EXPECT_EQ(p[9], 20);
}

// Pad backward: a floating dtype, grad_dst of the output's shape, grad_src of src's, a
// grad_src whose elements are distinct and that does not overlap grad_dst; nothing is
// written on error.
TEST(PadErrors, Backward) {
  const PadDesc desc = pad_testing::make_desc(PadMode::kReflect, {1, 2}, {0, 1});
  auto plan = make_pad_plan(desc, DType::kFloat32, Dims{3, 4});
  ASSERT_TRUE(plan.ok());
  Tensor g(DType::kFloat32, {4, 7});
  Tensor out(DType::kFloat32, {3, 4});
  static_cast<float*>(out.mutable_view().mutable_data())[0] = 5.0f;
  auto untouched = [&] { return static_cast<const float*>(out.view().data)[0] == 5.0f; };

  auto ints = make_pad_plan(desc, DType::kInt32, Dims{3, 4});
  ASSERT_TRUE(ints.ok());
  Tensor gi(DType::kInt32, {4, 7}), oi(DType::kInt32, {3, 4});
  EXPECT_INVALID(ints->backward(gi.view(), oi.mutable_view()),
                 HasSubstr("pad backward: needs a floating or complex dtype"), HasSubstr("int32"));
  EXPECT_INVALID(pad_backward(desc, gi.view(), Dims{3, 4}).status(),
                 HasSubstr("needs a floating or complex dtype"), HasSubstr("grad_dst's is int32"));

  Tensor g_bad(DType::kFloat32, {4, 6});
  EXPECT_INVALID(plan->backward(g_bad.view(), out.mutable_view()), HasSubstr("grad_dst"),
                 HasSubstr("(4, 7)"), HasSubstr("(4, 6)"));
  Tensor out_bad(DType::kFloat32, {3, 5});
  EXPECT_INVALID(plan->backward(g.view(), out_bad.mutable_view()), HasSubstr("grad_src"),
                 HasSubstr("(3, 4)"), HasSubstr("(3, 5)"));
  Tensor g64(DType::kFloat64, {4, 7});
  EXPECT_INVALID(plan->backward(g64.view(), out.mutable_view()), HasSubstr("grad_dst"),
                 HasSubstr("float32"), HasSubstr("float64"));

  // Zero strides: every element of grad_src would be one float.
  const MutableTensorView broadcast(DType::kFloat32, out.mutable_view().mutable_data(), {3, 4},
                                    {0, 0});
  EXPECT_INVALID(plan->backward(g.view(), broadcast),
                 HasSubstr("grad_src: elements must not share memory"), HasSubstr("(0, 0)"));
  // grad_src inside grad_dst's memory.
  const MutableTensorView inside(DType::kFloat32, g.mutable_view().mutable_data(), {3, 4});
  EXPECT_INVALID(plan->backward(g.view(), inside),
                 HasSubstr("grad_src must not overlap grad_dst"));
  EXPECT_TRUE(untouched());
  EXPECT_INVALID(PadPlan().backward(g.view(), out.mutable_view()), HasSubstr("empty plan"));
  EXPECT_TRUE(plan->backward(g.view(), out.mutable_view()).ok());
}

}  // namespace gridops
