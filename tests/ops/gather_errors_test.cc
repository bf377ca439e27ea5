// Gather: every error path, with its code and message, and "nothing written on error".
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "gather_util.h"
#include "gridops/ops/gather.h"

namespace gridops {
namespace {

using gather_test::expect_same;
using gather_test::make_tensor;
using ::testing::AllOf;
using ::testing::HasSubstr;

GatherDesc axis_desc(int64_t axis) {
  GatherDesc d;
  d.axis = axis;
  return d;
}

void expect_invalid(const Status& s, const std::string& a, const std::string& b = "",
                    const std::string& c = "") {
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << s.to_string();
  EXPECT_THAT(s.message(), AllOf(HasSubstr("gather: "), HasSubstr(a), HasSubstr(b), HasSubstr(c)));
}

// A 3x2 float data tensor, a 2x2 int64 index tensor and a sentinel-filled dst.
struct Fixture {
  Tensor data = make_tensor<float>({3, 2}, {1, 2, 3, 4, 5, 6});
  Tensor idx = make_tensor<int64_t>({2, 2}, {0, 1, 2, 0});
  Tensor dst = make_tensor<float>({2, 2, 2}, std::vector<float>(8, -777.0f));
  Tensor sentinel = make_tensor<float>({2, 2, 2}, std::vector<float>(8, -777.0f));
};

TEST(GatherErrors, DataRankZero) {
  const Tensor data = make_tensor<float>({}, {1.0f});
  const Tensor idx = make_tensor<int64_t>({}, {0});
  expect_invalid(gather(axis_desc(0), data, idx).status(), "data must have rank >= 1",
                 "got rank 0");
  const Dims empty = {};
  expect_invalid(make_gather_plan(axis_desc(0), DType::kFloat32, empty, DType::kInt64, empty)
                     .status(),
                 "data must have rank >= 1, got rank 0");
}

TEST(GatherErrors, AxisOutOfRange) {
  Fixture f;
  expect_invalid(gather(axis_desc(2), f.data, f.idx).status(),
                 "axis must be in [-2, 1] for data of rank 2, got 2");
  expect_invalid(gather(axis_desc(-3), f.data, f.idx).status(),
                 "axis must be in [-2, 1] for data of rank 2, got -3");
  const Dims d = {4}, i = {1};
  expect_invalid(gather_output_shape(axis_desc(std::numeric_limits<int64_t>::min()), d, i)
                     .status(),
                 "axis must be in [-1, 0] for data of rank 1, got -9223372036854775808");
}

TEST(GatherErrors, IndicesDTypeNotInteger) {
  Fixture f;
  for (DType bad : {DType::kFloat32, DType::kInt16, DType::kUInt64, DType::kString}) {
    const Tensor idx(bad, {2});
    expect_invalid(gather(axis_desc(0), f.data, idx).status(),
                   "indices must have dtype int32 or int64, got ", to_string(bad));
  }
}

// ERRATA Gather 1: the message names the value and its position in indices.
TEST(GatherErrors, IndexOutOfRangeInt64) {
  Fixture f;
  const Tensor too_big = make_tensor<int64_t>({2, 2}, {0, 1, 3, 0});
  expect_invalid(gather(axis_desc(0), f.data, too_big).status(),
                 "indices value 3 at position (1, 0) is out of range [-3, 2] for axis 0");
  const Tensor too_small = make_tensor<int64_t>({2, 2}, {0, -4, 0, 0});
  expect_invalid(gather(axis_desc(0), f.data, too_small).status(),
                 "indices value -4 at position (0, 1) is out of range [-3, 2]");
  const Tensor extreme = make_tensor<int64_t>({3}, {0, 0, std::numeric_limits<int64_t>::min()});
  expect_invalid(gather(axis_desc(1), f.data, extreme).status(),
                 "indices value -9223372036854775808 at position (2,) is out of range [-2, 1]",
                 "axis 1 of length 2");
  // The first bad index in row-major order is the one reported.
  const Tensor two_bad = make_tensor<int64_t>({2, 2}, {0, 9, -9, 0});
  expect_invalid(gather(axis_desc(0), f.data, two_bad).status(), "value 9 at position (0, 1)");
}

TEST(GatherErrors, IndexOutOfRangeInt32) {
  Fixture f;
  const Tensor pos = make_tensor<int32_t>({3}, {1, 2, 0});
  expect_invalid(gather(axis_desc(-1), f.data, pos).status(),
                 "indices value 2 at position (1,) is out of range [-2, 1] for axis 1");
  const Tensor neg = make_tensor<int32_t>({1, 1, 1}, {std::numeric_limits<int32_t>::min()});
  expect_invalid(gather(axis_desc(0), f.data, neg).status(),
                 "indices value -2147483648 at position (0, 0, 0)", "[-3, 2]");
  const Tensor scalar = make_tensor<int32_t>({}, {-3});
  expect_invalid(gather(axis_desc(1), f.data, scalar).status(),
                 "indices value -3 at position () is out of range [-2, 1]");
}

// A gathered axis of length 0 has no valid index.
TEST(GatherErrors, IndexIntoEmptyAxis) {
  const Tensor data = make_tensor<float>({3, 0}, {});
  const Tensor idx = make_tensor<int64_t>({1}, {0});
  expect_invalid(gather(axis_desc(1), data, idx).status(),
                 "indices value 0 at position (0,) is out of range",
                 "axis 1 of data has length 0");
}

TEST(GatherErrors, DstWrongShapeOrDType) {
  Fixture f;
  Tensor small(DType::kFloat32, {2, 2});
  expect_invalid(gather(axis_desc(0), f.data, f.idx, small.mutable_view()),
                 "dst: expected shape (2, 2, 2), got (2, 2)");
  Tensor wrong(DType::kFloat64, {2, 2, 2});
  expect_invalid(gather(axis_desc(0), f.data, f.idx, wrong.mutable_view()),
                 "dst: expected dtype float32, got float64");
}

TEST(GatherErrors, NullPointers) {
  Fixture f;
  const TensorView null_data(DType::kFloat32, nullptr, {3, 2});
  expect_invalid(gather(axis_desc(0), null_data, f.idx).status(),
                 "data: data pointer is null for non-empty shape (3, 2)");
  const TensorView null_idx(DType::kInt64, nullptr, {2, 2});
  expect_invalid(gather(axis_desc(0), f.data, null_idx, f.dst.mutable_view()),
                 "indices: data pointer is null for non-empty shape (2, 2)");
  const MutableTensorView null_dst(DType::kFloat32, nullptr, {2, 2, 2});
  expect_invalid(gather(axis_desc(0), f.data, f.idx, null_dst),
                 "dst: data pointer is null for non-empty shape (2, 2, 2)");
}

TEST(GatherErrors, NegativeDimensions) {
  const Dims bad_data = {3, -1}, ok_data = {3, 2}, ok_idx = {2}, bad_idx = {-5};
  expect_invalid(make_gather_plan(axis_desc(0), DType::kFloat32, bad_data, DType::kInt64, ok_idx)
                     .status(),
                 "data: dimension 1 must be >= 0, got -1 in shape (3, -1)");
  expect_invalid(make_gather_plan(axis_desc(0), DType::kFloat32, ok_data, DType::kInt64, bad_idx)
                     .status(),
                 "indices: dimension 0 must be >= 0, got -5 in shape (-5,)");
  // Through the one-shot API with a view.
  const float x = 0;
  const TensorView neg(DType::kFloat32, &x, {-2}, {1});
  const int64_t k = 0;
  const TensorView idx(DType::kInt64, &k, {});
  expect_invalid(gather(axis_desc(0), neg, idx).status(), "data: dimension 0 must be >= 0");
}

TEST(GatherErrors, ElementCountOverflow) {
  // Each input fits in int64, the output (2^32 * 2^32) does not.
  const int64_t big = int64_t{1} << 32;
  const Dims data = {big, 1}, idx = {big};
  expect_invalid(make_gather_plan(axis_desc(1), DType::kUInt8, data, DType::kInt64, idx).status(),
                 "output: element count of shape (4294967296, 4294967296) overflows 64 bits");
  // An input whose own element count overflows.
  const Dims huge = {big, big, 2};
  expect_invalid(make_gather_plan(axis_desc(0), DType::kUInt8, huge, DType::kInt64, idx).status(),
                 "data: element count of shape (4294967296, 4294967296, 2) overflows 64 bits");
  expect_invalid(gather_output_shape(axis_desc(0), idx, huge).status(),
                 "indices: element count of shape", "overflows 64 bits");
}

TEST(GatherErrors, RankLimits) {
  const Dims r17(17, 1), r16(16, 1), r2 = {1, 1};
  expect_invalid(gather_output_shape(axis_desc(0), r17, r2).status(),
                 "data must have rank <= 16, got rank 17");
  expect_invalid(gather_output_shape(axis_desc(0), r2, r17).status(),
                 "indices must have rank <= 16, got rank 17");
  expect_invalid(gather_output_shape(axis_desc(0), r16, r2).status(),
                 "output rank rank(data) - 1 + rank(indices) = 15 + 2 = 17 exceeds the maximum "
                 "rank 16");
}

TEST(GatherErrors, UnknownDTypeCodes) {
  const Dims ds = {3, 2}, is = {2};
  expect_invalid(make_gather_plan(axis_desc(0), static_cast<DType>(99), ds, DType::kInt64, is)
                     .status(),
                 "data has an unknown dtype code 99");
  expect_invalid(make_gather_plan(axis_desc(0), DType::kFloat32, ds, static_cast<DType>(42), is)
                     .status(),
                 "indices must have dtype int32 or int64, got dtype code 42");
}

TEST(GatherErrors, UnknownForcedImpl) {
  GatherDesc d = axis_desc(0);
  d.impl = "simd";
  const Dims ds = {3, 2}, is = {2};
#ifdef GRIDOPS_HAVE_HWY
  const char* names = "{gather.vector, gather.vector_any_cpu, gather.slices, ref}";
#else
  const char* names = "{gather.slices, ref}";
#endif
  expect_invalid(make_gather_plan(d, DType::kFloat32, ds, DType::kInt64, is).status(),
                 std::string("impl must be one of ") + names + " or an alias {fast}, got 'simd'");
}

TEST(GatherErrors, PlanRunChecksViewsAgainstThePlan) {
  Fixture f;
  const Dims ds = {3, 2}, is = {2, 2};
  auto plan = make_gather_plan(axis_desc(0), DType::kFloat32, ds, DType::kInt64, is);
  ASSERT_TRUE(plan.ok());
  const Tensor other_data = make_tensor<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  expect_invalid(plan->run(other_data, f.idx, f.dst.mutable_view()),
                 "data: expected shape (3, 2), got (2, 3)");
  const Tensor data64(DType::kFloat64, {3, 2});
  expect_invalid(plan->run(data64, f.idx, f.dst.mutable_view()),
                 "data: expected dtype float32, got float64");
  const Tensor idx32 = make_tensor<int32_t>({2, 2}, {0, 1, 2, 0});
  expect_invalid(plan->run(f.data, idx32, f.dst.mutable_view()),
                 "indices: expected dtype int64, got int32");
  const TensorView bad_strides(DType::kFloat32, f.data.data(), {3, 2}, {2});
  expect_invalid(plan->run(bad_strides, f.idx, f.dst.mutable_view()),
                 "data: expected 2 strides for shape (3, 2), got 1");
  expect_same(f.dst, f.sentinel);

  const GatherPlan empty;
  expect_invalid(empty.run(f.data, f.idx, f.dst.mutable_view()), "plan is empty");
}

// ERRATA Gather 1: all indices are checked before anything is written. The bad index is
// the last one, so a kernel that validated while copying would already have written.
TEST(GatherErrors, NothingWrittenOnError) {
  Fixture f;
  const Tensor last_bad = make_tensor<int64_t>({2, 2}, {0, 1, 2, 7});
  expect_invalid(gather(axis_desc(0), f.data, last_bad, f.dst.mutable_view()),
                 "indices value 7 at position (1, 1)");
  expect_same(f.dst, f.sentinel);

  const Tensor last_bad32 = make_tensor<int32_t>({2, 2}, {-1, -2, -3, -4});
  expect_invalid(gather(axis_desc(0), f.data, last_bad32, f.dst.mutable_view()),
                 "indices value -4 at position (1, 1)");
  expect_same(f.dst, f.sentinel);

  const TensorView null_data(DType::kFloat32, nullptr, {3, 2});
  expect_invalid(gather(axis_desc(0), null_data, f.idx, f.dst.mutable_view()), "data pointer");
  expect_same(f.dst, f.sentinel);

  // Strings: the sentinel strings survive.
  const Tensor sdata = make_tensor<std::string>({3}, {"a", "b", "c"});
  Tensor sdst = make_tensor<std::string>({3}, {"keep", "keep", "keep"});
  const Tensor bad = make_tensor<int32_t>({3}, {0, 1, 3});
  expect_invalid(gather(axis_desc(0), sdata, bad, sdst.mutable_view()), "value 3 at position (2,)");
  expect_same(sdst, make_tensor<std::string>({3}, {"keep", "keep", "keep"}));
}

}  // namespace
// dst may not share memory with data or indices (the kernels read both while writing):
// rejected before anything is written, naming both byte ranges; adjacent buffers are fine.
TEST(GatherErrors, DstOverlappingInputs) {
  Tensor buf(DType::kFloat32, {32});
  float* p = buf.data_as<float>();
  for (int i = 0; i < 32; ++i) p[i] = static_cast<float>(i);
  const TensorView data(DType::kFloat32, p, {3, 2});
  Tensor idx = make_tensor<int64_t>({2}, {2, 0});
  // dst (2, 2) starting at data's last element.
  expect_invalid(gather(axis_desc(0), data, idx.view(),
                        MutableTensorView(DType::kFloat32, p + 5, {2, 2})),
                 "dst must not overlap data in memory", "dst bytes [", "data bytes [");
  EXPECT_EQ(p[5], 5.0f);  // nothing written
  // indices stored in the same buffer as dst.
  Tensor ibuf(DType::kInt32, {8});
  int32_t* q = ibuf.data_as<int32_t>();
  q[0] = 1;
  q[1] = 0;
  const TensorView ind(DType::kInt32, q, {2});
  Tensor data_i = make_tensor<int32_t>({3, 2}, {1, 2, 3, 4, 5, 6});
  expect_invalid(gather(axis_desc(0), data_i.view(), ind,
                        MutableTensorView(DType::kInt32, q + 1, {2, 2})),
                 "dst must not overlap indices in memory");
  EXPECT_EQ(q[1], 0);
  // Right after data: allowed, and computed.
  ASSERT_TRUE(gather(axis_desc(0), data, idx.view(),
                     MutableTensorView(DType::kFloat32, p + 6, {2, 2})).ok());
  EXPECT_EQ(p[6], 4.0f);
  EXPECT_EQ(p[9], 1.0f);
}

}  // namespace gridops
