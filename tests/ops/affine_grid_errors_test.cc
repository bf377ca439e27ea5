// AffineGrid errors: every rejected argument gives kInvalidArgument (or kUnimplemented
// where stated) with a message naming the operator, the argument, what was expected and
// what came, and nothing is written to the grid.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "gridops/ops/affine_grid.h"
#include "support/test_util.h"

namespace gridops {
namespace {

using ::testing::HasSubstr;

// A float32 identity theta of shape (n, 2, 3) or (n, 3, 4).
Tensor identity_theta(int64_t n, int r, DType dt = DType::kFloat32) {
  Tensor t(dt, {n, r, r + 1});
  for (int64_t b = 0; b < n; ++b) {
    for (int k = 0; k < r; ++k) {
      const int64_t i = (b * r + k) * (r + 1) + k;
      if (dt == DType::kFloat32) t.data_as<float>()[i] = 1.0f;
      if (dt == DType::kFloat64) t.data_as<double>()[i] = 1.0;
    }
  }
  return t;
}

void expect_invalid(const Status& s, const std::vector<std::string>& parts) {
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << s.to_string();
  EXPECT_THAT(s.message(), HasSubstr("affine_grid: "));
  for (const std::string& p : parts) EXPECT_THAT(s.message(), HasSubstr(p));
}

// Plan-time check through make_affine_grid_plan.
Status plan_status(int64_t align_corners, DType dt, const Dims& theta_shape, const Dims& size) {
  AffineGridDesc desc;
  desc.align_corners = align_corners;
  return make_affine_grid_plan(desc, dt, theta_shape, size).status();
}

// A sentinel-filled float32 grid of `shape`.
Tensor sentinel_grid(const Dims& shape, DType dt = DType::kFloat32) {
  Tensor t(dt, shape);
  std::memset(t.data(), 0x5A, t.nbytes());
  return t;
}

bool all_sentinel(const Tensor& t) {
  const auto* p = static_cast<const unsigned char*>(t.data());
  for (size_t i = 0; i < t.nbytes(); ++i) {
    if (p[i] != 0x5A) return false;
  }
  return true;
}

TEST(AffineGridErrors, AlignCornersNotZeroOrOne) {
  for (int64_t ac : {int64_t{2}, int64_t{-1}, int64_t{1} << 40}) {
    expect_invalid(plan_status(ac, DType::kFloat32, {1, 2, 3}, {1, 1, 2, 2}),
                   {"align_corners must be 0 or 1, got " + std::to_string(ac)});
  }
}

TEST(AffineGridErrors, ThetaDTypeNotFloating) {
  for (DType dt : {DType::kInt32, DType::kInt64, DType::kBool, DType::kComplex64,
                   DType::kString, DType::kUInt8}) {
    expect_invalid(plan_status(0, dt, {1, 2, 3}, {1, 1, 2, 2}),
                   {"theta must have dtype float16, bfloat16, float32 or float64, got ",
                    to_string(dt)});
  }
  // Through the one-shot, with real data.
  Tensor theta(DType::kInt32, {1, 2, 3});
  StatusOr<Tensor> r = affine_grid(AffineGridDesc{}, theta.view(), Dims{1, 1, 2, 2});
  expect_invalid(r.status(), {"theta must have dtype", "got int32"});
}

TEST(AffineGridErrors, ThetaRankNotThree) {
  expect_invalid(plan_status(0, DType::kFloat32, {2, 3}, {1, 1, 2, 2}),
                 {"theta must have rank 3", "(N, 2, 3) or (N, 3, 4)", "got rank 2",
                  "shape (2, 3)"});
  expect_invalid(plan_status(0, DType::kFloat32, {1, 1, 2, 3}, {1, 1, 2, 2}),
                 {"theta must have rank 3", "got rank 4", "(1, 1, 2, 3)"});
  expect_invalid(affine_grid_output_shape(Dims{}, Dims{1, 1, 2, 2}).status(),
                 {"theta must have rank 3", "got rank 0"});
}

TEST(AffineGridErrors, ThetaShapeNotAffine) {
  for (const Dims& shape : {Dims{1, 2, 4}, Dims{1, 3, 3}, Dims{1, 2, 2}, Dims{1, 4, 5},
                            Dims{2, 0, 3}}) {
    expect_invalid(plan_status(0, DType::kFloat32, shape, {1, 1, 2, 2}),
                   {"theta must have shape (N, 2, 3) or (N, 3, 4), got " +
                    dims_to_string(shape)});
  }
}

TEST(AffineGridErrors, ThetaNegativeDimension) {
  expect_invalid(plan_status(0, DType::kFloat32, {-1, 2, 3}, {1, 1, 2, 2}),
                 {"theta", "dimension 0 must be >= 0, got -1"});
  expect_invalid(plan_status(0, DType::kFloat32, {1, -2, 3}, {1, 1, 2, 2}),
                 {"theta", "dimension 1 must be >= 0, got -2"});
}

TEST(AffineGridErrors, SizeLengthNotFourOrFive) {
  for (const Dims& size : {Dims{}, Dims{1, 1, 2}, Dims{1, 1, 2, 2, 2, 2}}) {
    expect_invalid(plan_status(0, DType::kFloat32, {1, 2, 3}, size),
                   {"size must have 4 elements (N, C, H, W) or 5 (N, C, D, H, W), got " +
                    std::to_string(size.size())});
  }
}

// ERRATA AffineGrid 3: the kind of theta and the length of size must agree.
TEST(AffineGridErrors, SizeKindDisagreesWithTheta) {
  expect_invalid(plan_status(0, DType::kFloat32, {1, 2, 3}, {1, 1, 2, 2, 2}),
                 {"size must have 4 elements (N, C, H, W) for a 2-D theta of shape (1, 2, 3)",
                  "got 5 elements (1, 1, 2, 2, 2)"});
  expect_invalid(plan_status(0, DType::kFloat32, {1, 3, 4}, {1, 1, 2, 2}),
                 {"size must have 5 elements (N, C, D, H, W) for a 3-D theta of shape (1, 3, 4)",
                  "got 4 elements (1, 1, 2, 2)"});
}

TEST(AffineGridErrors, SizeNegativeEntry) {
  const char* names2[] = {"N", "C", "H", "W"};
  for (size_t i = 0; i < 4; ++i) {
    Dims size{1, 1, 2, 2};
    size[i] = -3;
    expect_invalid(plan_status(0, DType::kFloat32, {1, 2, 3}, size),
                   {"size[" + std::to_string(i) + "] (" + names2[i] + ") must be >= 0, got -3"});
  }
  const char* names3[] = {"N", "C", "D", "H", "W"};
  for (size_t i = 0; i < 5; ++i) {
    Dims size{1, 1, 2, 2, 2};
    size[i] = std::numeric_limits<int64_t>::min();
    expect_invalid(plan_status(1, DType::kFloat64, {1, 3, 4}, size),
                   {"size[" + std::to_string(i) + "] (" + names3[i] + ") must be >= 0, got " +
                    std::to_string(std::numeric_limits<int64_t>::min())});
  }
}

// ERRATA AffineGrid 3: size[0] must be theta's batch (never an out-of-bounds read).
TEST(AffineGridErrors, BatchMismatch) {
  expect_invalid(plan_status(0, DType::kFloat32, {2, 2, 3}, {3, 1, 2, 2}),
                 {"size[0] (N) must equal theta's batch 2, got 3"});
  expect_invalid(plan_status(0, DType::kFloat32, {2, 3, 4}, {1, 1, 2, 2, 2}),
                 {"size[0] (N) must equal theta's batch 2, got 1"});
  expect_invalid(plan_status(0, DType::kFloat32, {0, 2, 3}, {1, 1, 2, 2}),
                 {"size[0] (N) must equal theta's batch 0, got 1"});
}

TEST(AffineGridErrors, GridElementCountOverflows) {
  const int64_t big = int64_t{1} << 32;
  // 2^32 * 2^32 * 2 elements.
  expect_invalid(plan_status(0, DType::kFloat32, {1, 2, 3}, {1, 1, big, big}),
                 {"grid", "element count of shape (1, 4294967296, 4294967296, 2) overflows 64 bits"});
  // 3-D: 2^21 cubed * 3 > 2^63.
  const int64_t m = int64_t{1} << 21;
  expect_invalid(plan_status(1, DType::kFloat64, {1, 3, 4}, {1, 1, m, m, m}),
                 {"grid", "element count", "overflows 64 bits"});
  // The element count fits (2^61) but the bytes do not (2^63 for float32).
  const int64_t h = int64_t{1} << 30;
  expect_invalid(plan_status(0, DType::kFloat32, {1, 2, 3}, {1, 1, h, h}),
                 {"grid: byte size of shape (1, 1073741824, 1073741824, 2) with dtype float32 "
                  "overflows 64 bits"});
  // theta's own element count overflows.
  expect_invalid(plan_status(0, DType::kFloat32, {int64_t{1} << 62, 2, 3},
                             {int64_t{1} << 62, 1, 1, 1}),
                 {"theta", "element count", "overflows 64 bits"});
}

TEST(AffineGridErrors, UnknownImplementation) {
  AffineGridDesc desc;
  desc.impl = "hwy";  // the fast entry's old name
  const Status s = make_affine_grid_plan(desc, DType::kFloat32, Dims{1, 2, 3},
                                         Dims{1, 1, 2, 2}).status();
#ifdef GRIDOPS_HAVE_HWY
  expect_invalid(s, {"impl must be one of {affine_grid.rows, ref} or an alias {fast}, got 'hwy'"});
#else
  expect_invalid(s, {"impl must be one of {ref}, got 'hwy'"});
#endif
}

TEST(AffineGridErrors, NullData) {
  // theta: null pointer with a non-empty shape.
  const TensorView null_theta(DType::kFloat32, nullptr, {1, 2, 3});
  StatusOr<Tensor> r = affine_grid(AffineGridDesc{}, null_theta, Dims{1, 1, 2, 2});
  expect_invalid(r.status(), {"theta", "data pointer is null for non-empty shape (1, 2, 3)"});
  // grid: null pointer with a non-empty shape.
  const Tensor theta = identity_theta(1, 2);
  const MutableTensorView null_grid(DType::kFloat32, nullptr, {1, 2, 2, 2});
  expect_invalid(affine_grid(AffineGridDesc{}, theta.view(), Dims{1, 1, 2, 2}, null_grid),
                 {"grid", "data pointer is null for non-empty shape (1, 2, 2, 2)"});
}

TEST(AffineGridErrors, GridWrongShapeOrDType) {
  const Tensor theta = identity_theta(1, 2);
  const Dims size{1, 1, 8, 8};
  // Wrong last axis (3 instead of 2), as in the README's example.
  Tensor g1 = sentinel_grid({1, 8, 8, 3});
  expect_invalid(affine_grid(AffineGridDesc{}, theta.view(), size, g1.mutable_view()),
                 {"grid", "expected shape (1, 8, 8, 2), got (1, 8, 8, 3)"});
  EXPECT_TRUE(all_sentinel(g1));
  // Wrong rank.
  Tensor g2 = sentinel_grid({1, 8, 16});
  expect_invalid(affine_grid(AffineGridDesc{}, theta.view(), size, g2.mutable_view()),
                 {"grid", "expected shape (1, 8, 8, 2), got (1, 8, 16)"});
  EXPECT_TRUE(all_sentinel(g2));
  // Wrong dtype (theta float32, grid float64).
  Tensor g3 = sentinel_grid({1, 8, 8, 2}, DType::kFloat64);
  expect_invalid(affine_grid(AffineGridDesc{}, theta.view(), size, g3.mutable_view()),
                 {"grid", "expected dtype float32, got float64"});
  EXPECT_TRUE(all_sentinel(g3));
  // A grid view with a negative dimension.
  Tensor g4 = sentinel_grid({1, 8, 8, 2});
  const MutableTensorView bad(DType::kFloat32, g4.data(), {1, -8, 8, 2}, {128, 16, 2, 1});
  expect_invalid(affine_grid(AffineGridDesc{}, theta.view(), size, bad),
                 {"grid", "dimension 1 must be >= 0, got -8"});
  EXPECT_TRUE(all_sentinel(g4));
  // A grid view whose strides do not match its rank.
  const MutableTensorView bad_strides(DType::kFloat32, g4.data(), {1, 8, 8, 2}, {128, 16, 2});
  expect_invalid(affine_grid(AffineGridDesc{}, theta.view(), size, bad_strides),
                 {"grid", "expected 4 strides", "got 3"});
  EXPECT_TRUE(all_sentinel(g4));
}

// Plan::run re-checks that the views have the planned dtype and shape.
TEST(AffineGridErrors, RunWithViewsOtherThanPlanned) {
  AffineGridDesc desc;
  StatusOr<AffineGridPlan> plan =
      make_affine_grid_plan(desc, DType::kFloat32, Dims{1, 2, 3}, Dims{1, 1, 4, 4});
  ASSERT_TRUE(plan.ok());
  Tensor grid = sentinel_grid({1, 4, 4, 2});
  const Tensor theta64 = identity_theta(1, 2, DType::kFloat64);
  expect_invalid(plan->run(theta64.view(), grid.mutable_view()),
                 {"theta", "expected dtype float32, got float64"});
  const Tensor theta2 = identity_theta(2, 2);
  expect_invalid(plan->run(theta2.view(), grid.mutable_view()),
                 {"theta", "expected shape (1, 2, 3), got (2, 2, 3)"});
  const Tensor theta3d = identity_theta(1, 3);
  expect_invalid(plan->run(theta3d.view(), grid.mutable_view()),
                 {"theta", "expected shape (1, 2, 3), got (1, 3, 4)"});
  EXPECT_TRUE(all_sentinel(grid));
  // A default-constructed plan refuses to run.
  const AffineGridPlan empty;
  const Tensor theta = identity_theta(1, 2);
  expect_invalid(empty.run(theta.view(), grid.mutable_view()),
                 {"plan is empty", "make_affine_grid_plan"});
  EXPECT_TRUE(all_sentinel(grid));
}

// A grid that overlaps theta in memory is rejected (the kernels read theta while writing).
TEST(AffineGridErrors, GridOverlapsTheta) {
  Tensor buf(DType::kFloat32, {64});
  float* p = buf.data_as<float>();
  p[0] = 1;
  p[4] = 1;  // identity theta in the first 6 floats
  const TensorView theta(DType::kFloat32, p, {1, 2, 3});
  const MutableTensorView grid(DType::kFloat32, p + 4, {1, 2, 2, 2});
  expect_invalid(affine_grid(AffineGridDesc{}, theta, Dims{1, 1, 2, 2}, grid),
                 {"grid must not overlap theta"});
  EXPECT_EQ(p[6], 0.0f);  // nothing written
  // Adjacent but disjoint is fine.
  const MutableTensorView next(DType::kFloat32, p + 6, {1, 2, 2, 2});
  EXPECT_TRUE(affine_grid(AffineGridDesc{}, theta, Dims{1, 1, 2, 2}, next).ok());
  EXPECT_EQ(p[6], -0.5f);
}

// Overlap is found for negative-stride views too: a reversed grid whose lowest address
// lies inside theta.
TEST(AffineGridErrors, GridOverlapsThetaNegativeStrides) {
  Tensor buf(DType::kFloat64, {64});
  double* p = buf.data_as<double>();
  const TensorView theta(DType::kFloat64, p + 8, {1, 2, 3});  // elements 8 .. 13
  // Element [0,0,0,0] at 20, walking down to 20 - 7 = 13: touches theta's last element.
  const MutableTensorView grid(DType::kFloat64, p + 20, {1, 2, 2, 2}, {8, -4, -2, -1});
  expect_invalid(affine_grid(AffineGridDesc{}, theta, Dims{1, 1, 2, 2}, grid),
                 {"grid must not overlap theta"});
  // One element further up it no longer overlaps.
  const MutableTensorView clear(DType::kFloat64, p + 21, {1, 2, 2, 2}, {8, -4, -2, -1});
  EXPECT_TRUE(affine_grid(AffineGridDesc{}, theta, Dims{1, 1, 2, 2}, clear).ok());
}

TEST(AffineGridErrors, UnknownDTypeCode) {
  const auto bogus = static_cast<DType>(200);
  expect_invalid(plan_status(0, bogus, {1, 2, 3}, {1, 1, 2, 2}),
                 {"theta must have dtype float16, bfloat16, float32 or float64, got unknown"});
  float storage[6] = {};
  const TensorView theta(bogus, storage, {1, 2, 3});
  expect_invalid(affine_grid(AffineGridDesc{}, theta, Dims{1, 1, 2, 2}).status(),
                 {"theta: unknown dtype code 200"});
}

TEST(AffineGridErrors, Grid3DWrongShape) {
  const Tensor theta = identity_theta(1, 3);
  Tensor grid = sentinel_grid({1, 2, 2, 2, 2});
  expect_invalid(affine_grid(AffineGridDesc{}, theta.view(), Dims{1, 1, 2, 2, 2},
                             grid.mutable_view()),
                 {"grid", "expected shape (1, 2, 2, 2, 3), got (1, 2, 2, 2, 2)"});
  EXPECT_TRUE(all_sentinel(grid));
}

// Nothing is written when any argument is bad: one case per kind of check.
TEST(AffineGridErrors, NothingWrittenOnError) {
  const Tensor theta = identity_theta(2, 2);
  const Dims good{2, 1, 3, 3};
  Tensor grid = sentinel_grid({2, 3, 3, 2});
  AffineGridDesc bad_ac;
  bad_ac.align_corners = 2;
  EXPECT_FALSE(affine_grid(bad_ac, theta.view(), good, grid.mutable_view()).ok());
  EXPECT_FALSE(affine_grid(AffineGridDesc{}, theta.view(), Dims{3, 1, 3, 3},
                           grid.mutable_view()).ok());
  EXPECT_FALSE(affine_grid(AffineGridDesc{}, theta.view(), Dims{2, -1, 3, 3},
                           grid.mutable_view()).ok());
  EXPECT_FALSE(affine_grid(AffineGridDesc{}, theta.view(), Dims{2, 1, 1, 3, 3},
                           grid.mutable_view()).ok());
  AffineGridDesc bad_impl;
  bad_impl.impl = "nope";
  EXPECT_FALSE(affine_grid(bad_impl, theta.view(), good, grid.mutable_view()).ok());
  const TensorView null_theta(DType::kFloat32, nullptr, {2, 2, 3});
  EXPECT_FALSE(affine_grid(AffineGridDesc{}, null_theta, good, grid.mutable_view()).ok());
  EXPECT_TRUE(all_sentinel(grid));
  // And the same grid is filled by a good call (the sentinel check can fail).
  EXPECT_TRUE(affine_grid(AffineGridDesc{}, theta.view(), good, grid.mutable_view()).ok());
  EXPECT_FALSE(all_sentinel(grid));
}

// The one-shot wrappers report the same errors as the plan (the allocating one too).
TEST(AffineGridErrors, AllocatingWrapperReportsErrors) {
  const Tensor theta = identity_theta(1, 3);
  StatusOr<Tensor> r = affine_grid(AffineGridDesc{}, theta.view(), Dims{1, 1, 2, 2});
  expect_invalid(r.status(), {"size must have 5 elements (N, C, D, H, W) for a 3-D theta"});
  const TensorView bad_rank(DType::kFloat32, theta.data(), {12});
  StatusOr<Tensor> r2 = affine_grid(AffineGridDesc{}, bad_rank, Dims{1, 1, 2, 2});
  expect_invalid(r2.status(), {"theta must have rank 3", "got rank 1"});
}

}  // namespace
}  // namespace gridops
