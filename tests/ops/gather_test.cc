// Gather: the spec's worked examples, ERRATA rules, every dtype, strides, properties.
#include <gtest/gtest.h>

#include <complex>
#include <random>
#include <string>
#include <vector>

#include "gridops/ops/gather.h"
#include "gather_util.h"
#include "support/test_util.h"

namespace gridops {
namespace {

using gather_test::expect_same;
using gather_test::make_tensor;
using gather_test::materialize;

GatherDesc axis_desc(int64_t axis) {
  GatherDesc d;
  d.axis = axis;
  return d;
}

Tensor run_gather(int64_t axis, const TensorView& data, const TensorView& indices) {
  auto r = gather(axis_desc(axis), data, indices);
  EXPECT_TRUE(r.ok()) << r.status().to_string();
  return r.ok() ? std::move(r).value() : Tensor();
}

// --- spec examples (values copied from the spec) -----------------------------------------

TEST(Gather, SpecExampleAxis0) {
  const Tensor data = make_tensor<float>({3, 2}, {1.0f, 1.2f, 2.3f, 3.4f, 4.5f, 5.7f});
  const Tensor indices = make_tensor<int64_t>({2, 2}, {0, 1, 1, 2});
  const Tensor expected = make_tensor<float>(
      {2, 2, 2}, {1.0f, 1.2f, 2.3f, 3.4f, 2.3f, 3.4f, 4.5f, 5.7f});
  expect_same(run_gather(0, data, indices), expected);
}

TEST(Gather, SpecExampleAxis1) {
  const Tensor data =
      make_tensor<float>({3, 3}, {1.0f, 1.2f, 1.9f, 2.3f, 3.4f, 3.9f, 4.5f, 5.7f, 5.9f});
  const Tensor indices = make_tensor<int64_t>({1, 2}, {0, 2});
  const Tensor expected = make_tensor<float>({3, 1, 2}, {1.0f, 1.9f, 2.3f, 3.9f, 4.5f, 5.9f});
  expect_same(run_gather(1, data, indices), expected);
}

// Spec table row 1: data (P, Q), scalar indices, axis 0 -> (Q), output[q] = data[i, q].
TEST(Gather, ScalarIndicesAxis0RemovesTheAxis) {
  const Tensor data = make_tensor<int32_t>({3, 2}, {10, 11, 20, 21, 30, 31});
  const Tensor idx = make_tensor<int64_t>({}, {2});
  expect_same(run_gather(0, data, idx), make_tensor<int32_t>({2}, {30, 31}));
  // ERRATA Gather 1 + 2: a negative scalar counts from the end and still removes the axis.
  const Tensor neg = make_tensor<int32_t>({}, {-3});
  expect_same(run_gather(0, data, neg), make_tensor<int32_t>({2}, {10, 11}));
}

// Spec table row 2: data (P, Q, R), scalar indices, axis 1 -> (P, R),
// output[p, r] = data[p, i, r].
TEST(Gather, ScalarIndicesAxis1RemovesTheAxis) {
  const Dims shape = {2, 3, 4};
  std::vector<int64_t> vals(24);
  for (int64_t p = 0; p < 2; ++p)
    for (int64_t q = 0; q < 3; ++q)
      for (int64_t r = 0; r < 4; ++r)
        vals[static_cast<size_t>((p * 3 + q) * 4 + r)] = 100 * p + 10 * q + r;
  const Tensor data = make_tensor<int64_t>(shape, vals);
  const Tensor idx = make_tensor<int32_t>({}, {1});
  const Tensor out = run_gather(1, data, idx);
  std::vector<int64_t> want;
  for (int64_t p = 0; p < 2; ++p)
    for (int64_t r = 0; r < 4; ++r) want.push_back(100 * p + 10 * 1 + r);
  expect_same(out, make_tensor<int64_t>({2, 4}, want));
}

// The plan reports the shape of the spec table's rows 3 and 4.
TEST(Gather, OutputShapeFollowsTheTable) {
  const Dims pq = {5, 7}, rs = {2, 3}, pqr = {5, 7, 9}, scalar = {};
  auto s0 = gather_output_shape(axis_desc(0), pq, rs);
  ASSERT_TRUE(s0.ok());
  EXPECT_EQ(*s0, (Dims{2, 3, 7}));
  auto s1 = gather_output_shape(axis_desc(1), pq, rs);
  ASSERT_TRUE(s1.ok());
  EXPECT_EQ(*s1, (Dims{5, 2, 3}));
  auto s2 = gather_output_shape(axis_desc(1), pqr, scalar);
  ASSERT_TRUE(s2.ok());
  EXPECT_EQ(*s2, (Dims{5, 9}));
  auto s3 = gather_output_shape(axis_desc(-1), pqr, rs);
  ASSERT_TRUE(s3.ok());
  EXPECT_EQ(*s3, (Dims{5, 7, 2, 3}));
}

TEST(Gather, NegativeAxisCountsFromTheEnd) {
  const Tensor data =
      make_tensor<float>({3, 3}, {1.0f, 1.2f, 1.9f, 2.3f, 3.4f, 3.9f, 4.5f, 5.7f, 5.9f});
  const Tensor indices = make_tensor<int64_t>({1, 2}, {0, 2});
  expect_same(run_gather(-1, data, indices), run_gather(1, data, indices));
  expect_same(run_gather(-2, data, indices), run_gather(0, data, indices));
  // axis -1 by hand: columns 0 and 2.
  expect_same(run_gather(-1, data, indices),
              make_tensor<float>({3, 1, 2}, {1.0f, 1.9f, 2.3f, 3.9f, 4.5f, 5.9f}));
}

// ERRATA Gather 1: negative indices count from the end, for int32 and int64.
TEST(Gather, NegativeIndicesCountFromTheEnd) {
  const Tensor data = make_tensor<float>({3, 2}, {1.0f, 1.2f, 2.3f, 3.4f, 4.5f, 5.7f});
  const Tensor i64 = make_tensor<int64_t>({3}, {-1, -3, -2});
  const Tensor i32 = make_tensor<int32_t>({3}, {-1, -3, -2});
  const Tensor expected =
      make_tensor<float>({3, 2}, {4.5f, 5.7f, 1.0f, 1.2f, 2.3f, 3.4f});
  expect_same(run_gather(0, data, i64), expected);
  expect_same(run_gather(0, data, i32), expected);
  // Along axis 1 (s = 2): -1 is column 1, -2 column 0; the bounds -s and s-1 are valid.
  const Tensor cols = make_tensor<int32_t>({2}, {-2, 1});
  expect_same(run_gather(1, data, cols),
              make_tensor<float>({3, 2}, {1.0f, 1.2f, 2.3f, 3.4f, 4.5f, 5.7f}));
  const Tensor cols2 = make_tensor<int64_t>({2}, {-1, 0});
  expect_same(run_gather(1, data, cols2),
              make_tensor<float>({3, 2}, {1.2f, 1.0f, 3.4f, 2.3f, 5.7f, 4.5f}));
}

TEST(Gather, Int32IndicesMatchTheSpecExample) {
  const Tensor data = make_tensor<float>({3, 2}, {1.0f, 1.2f, 2.3f, 3.4f, 4.5f, 5.7f});
  const Tensor indices = make_tensor<int32_t>({2, 2}, {0, 1, 1, 2});
  const Tensor expected = make_tensor<float>(
      {2, 2, 2}, {1.0f, 1.2f, 2.3f, 3.4f, 2.3f, 3.4f, 4.5f, 5.7f});
  expect_same(run_gather(0, data, indices), expected);
}

// --- every dtype (ERRATA Gather 3) -------------------------------------------------------

// A distinct value per i (bool alternates) for each element type.
template <class T>
T value_for(int i) {
  if constexpr (std::is_same_v<T, bool>) {
    return i % 3 == 1;
  } else if constexpr (std::is_same_v<T, float16>) {
    return float16::from_bits(static_cast<uint16_t>(0x3C00 + 17 * i));
  } else if constexpr (std::is_same_v<T, bfloat16>) {
    return bfloat16::from_bits(static_cast<uint16_t>(0xBF80 + 5 * i));
  } else if constexpr (std::is_same_v<T, std::string>) {
    return "elem-" + std::to_string(i) + std::string(static_cast<size_t>(i), 'x');
  } else if constexpr (std::is_same_v<T, std::complex<float>> ||
                       std::is_same_v<T, std::complex<double>>) {
    using P = typename T::value_type;
    return T(static_cast<P>(i) + P(0.5), -static_cast<P>(i));
  } else {
    return static_cast<T>(3 * i + 1);
  }
}

// data (4, 3), indices (2, 2) = [[2, 0], [-1, 3]] along axis 0 -> (2, 2, 3), and along
// axis 1 with indices [[2], [-3]] -> (4, 2, 1). Expected values from nested loops.
template <class T>
void check_dtype() {
  std::vector<T> vals;
  for (int i = 0; i < 12; ++i) vals.push_back(value_for<T>(i));
  const Tensor data = make_tensor<T>({4, 3}, vals);

  const std::vector<int64_t> rows = {2, 0, -1, 3};
  std::vector<T> want0;
  for (int64_t k : rows)
    for (int c = 0; c < 3; ++c)
      want0.push_back(vals[static_cast<size_t>((k < 0 ? k + 4 : k) * 3 + c)]);
  expect_same(run_gather(0, data, make_tensor<int64_t>({2, 2}, rows)),
              make_tensor<T>({2, 2, 3}, want0));

  const std::vector<int32_t> cols = {2, -3};
  std::vector<T> want1;
  for (int r = 0; r < 4; ++r)
    for (int32_t k : cols) want1.push_back(vals[static_cast<size_t>(r * 3 + (k < 0 ? k + 3 : k))]);
  expect_same(run_gather(1, data, make_tensor<int32_t>({2, 1}, cols)),
              make_tensor<T>({4, 2, 1}, want1));
}

TEST(Gather, EveryDType) {
#define GATHER_CHECK_DTYPE(e, T, n) \
  {                                 \
    SCOPED_TRACE(n);                \
    check_dtype<T>();               \
  }
  GRIDOPS_FOR_EACH_DTYPE(GATHER_CHECK_DTYPE)
#undef GATHER_CHECK_DTYPE
}

TEST(Gather, Strings) {
  const Tensor data = make_tensor<std::string>(
      {2, 3}, {"alpha", "beta", "a string long enough to live on the heap, not in SSO", "d",
               "", "f"});
  const Tensor idx = make_tensor<int64_t>({4}, {2, -1, 0, 2});
  const Tensor out = run_gather(1, data, idx);
  expect_same(out, make_tensor<std::string>(
                       {2, 4}, {"a string long enough to live on the heap, not in SSO",
                                "a string long enough to live on the heap, not in SSO", "alpha",
                                "a string long enough to live on the heap, not in SSO", "f", "f",
                                "d", "f"}));
  // Into a caller-provided dst that already holds strings: they are replaced.
  Tensor dst = make_tensor<std::string>({2, 4}, std::vector<std::string>(8, "old"));
  ASSERT_TRUE(gather(axis_desc(1), data, idx, dst.mutable_view()).ok());
  expect_same(dst, out);
}

// --- empty tensors -----------------------------------------------------------------------

TEST(Gather, EmptyIndices) {
  const Tensor data = make_tensor<float>({3, 2}, {1, 2, 3, 4, 5, 6});
  const Tensor none = make_tensor<int64_t>({0}, {});
  const Tensor out = run_gather(0, data, none);
  EXPECT_EQ(out.shape(), (Dims{0, 2}));
  const Tensor none2 = make_tensor<int32_t>({2, 0}, {});
  EXPECT_EQ(run_gather(1, data, none2).shape(), (Dims{3, 2, 0}));
  // An empty indices tensor is fine even when the gathered axis has length 0.
  const Tensor empty_axis = make_tensor<float>({0, 4}, {});
  EXPECT_EQ(run_gather(0, empty_axis, none).shape(), (Dims{0, 4}));
  // Null data pointers are fine for empty views.
  const TensorView null_idx(DType::kInt64, nullptr, {0});
  EXPECT_EQ(run_gather(0, data, null_idx).shape(), (Dims{0, 2}));
}

TEST(Gather, EmptyDataDims) {
  // A zero-length axis other than the gathered one: the output is empty, indices still
  // checked and accepted.
  const Tensor data = make_tensor<float>({3, 0}, {});
  const Tensor idx = make_tensor<int64_t>({2}, {2, -3});
  EXPECT_EQ(run_gather(0, data, idx).shape(), (Dims{2, 0}));
  const Tensor data2 = make_tensor<double>({0, 3}, {});
  EXPECT_EQ(run_gather(1, data2, make_tensor<int32_t>({}, {1})).shape(), (Dims{0}));
  const TensorView null_data(DType::kFloat32, nullptr, {0, 3});
  EXPECT_EQ(run_gather(1, null_data, make_tensor<int32_t>({1, 1}, {2})).shape(),
            (Dims{0, 1, 1}));
}

// --- strides -----------------------------------------------------------------------------

// data, indices and dst all with reversed axis order and negative strides.
TEST(Gather, StridedAndNegativeStrideViews) {
  const uint64_t seed = testing::test_seed();
  SCOPED_TRACE(seed);
  std::mt19937_64 rng(seed);
  Tensor data(DType::kFloat64, {3, 4, 5});
  testing::fill_random(data, rng, -10, 10);
  std::vector<int32_t> iv = {3, -1, 0, 2, -4, 1};
  const Tensor indices = make_tensor<int32_t>({2, 3}, iv);
  const Tensor expected = run_gather(1, data, indices);  // shape (3, 2, 3, 5)
  ASSERT_EQ(expected.shape(), (Dims{3, 2, 3, 5}));
  // Hand check of the contiguous result against the formula.
  for (int64_t a = 0; a < 3; ++a)
    for (int64_t i = 0; i < 6; ++i)
      for (int64_t b = 0; b < 5; ++b) {
        const int64_t v = iv[static_cast<size_t>(i)];
        const int64_t k = v < 0 ? v + 4 : v;
        ASSERT_EQ(expected.data_as<double>()[(a * 6 + i) * 5 + b],
                  data.view().at<double>({a, k, b}));
      }

  for (bool negative : {false, true}) {
    SCOPED_TRACE(negative ? "negative strides" : "reversed axes");
    Tensor ds, is, os;
    const TensorView sd = testing::scrambled_copy(data, ds, negative);
    const TensorView si = testing::scrambled_copy(indices, is, negative);
    const Tensor init(DType::kFloat64, expected.shape());
    const MutableTensorView dst = gather_test::scrambled_dst(init, os);
    ASSERT_TRUE(gather(axis_desc(1), sd, si, dst).ok());
    expect_same(materialize(dst), expected);
    expect_same(run_gather(1, sd, si), expected);
  }
}

// Zero strides: a broadcast data row and a broadcast index.
TEST(Gather, ZeroStrides) {
  const std::vector<int16_t> row = {7, 8, 9};
  const TensorView data(DType::kInt16, row.data(), {4, 3}, {0, 1});
  const int64_t k = -1;
  const TensorView idx(DType::kInt64, &k, {2, 2}, {0, 0});
  const Tensor out = run_gather(1, data, idx);
  std::vector<int16_t> want(16, 9);
  expect_same(out, make_tensor<int16_t>({4, 2, 2}, want));
}

// --- plans -------------------------------------------------------------------------------

TEST(Gather, PlanIsReusableAndNamesItsImpl) {
  const Dims dshape = {3, 2}, ishape = {2};
  auto plan = make_gather_plan(axis_desc(0), DType::kUInt8, dshape, DType::kInt64, ishape);
  ASSERT_TRUE(plan.ok()) << plan.status().to_string();
  EXPECT_STREQ(plan->impl_name(), "gather.slices");  // the first entry that accepts 2-byte slices
  EXPECT_EQ(plan->dst_shape(), (Dims{2, 2}));
  const Tensor idx = make_tensor<int64_t>({2}, {2, 0});
  for (uint8_t base : {uint8_t{0}, uint8_t{100}}) {
    std::vector<uint8_t> v;
    for (int i = 0; i < 6; ++i) v.push_back(static_cast<uint8_t>(base + i));
    const Tensor data = make_tensor<uint8_t>({3, 2}, v);
    Tensor dst(DType::kUInt8, {2, 2});
    ASSERT_TRUE(plan->run(data, idx, dst.mutable_view()).ok());
    expect_same(dst, make_tensor<uint8_t>({2, 2}, {static_cast<uint8_t>(base + 4),
                                                   static_cast<uint8_t>(base + 5), base,
                                                   static_cast<uint8_t>(base + 1)}));
  }
  GatherDesc forced = axis_desc(0);
  forced.impl = "ref";
  auto p2 = make_gather_plan(forced, DType::kUInt8, dshape, DType::kInt32, ishape);
  ASSERT_TRUE(p2.ok());
  EXPECT_STREQ(p2->impl_name(), "ref");
}

// Output rank exactly kMaxRank is allowed: data rank 8, indices rank 9.
TEST(Gather, HighRank) {
  const Dims dshape = {2, 1, 1, 1, 1, 1, 1, 3};
  const Dims ishape = {1, 1, 1, 1, 1, 1, 1, 1, 2};
  std::vector<int32_t> v = {0, 1, 2, 3, 4, 5};
  const Tensor data = make_tensor<int32_t>(dshape, v);
  const Tensor idx = make_tensor<int64_t>(ishape, {2, -3});
  const Tensor out = run_gather(7, data, idx);
  ASSERT_EQ(out.rank(), kMaxRank);
  EXPECT_EQ(out.num_elements(), 4);
  const int32_t* p = out.data_as<int32_t>();
  EXPECT_EQ(p[0], 2);
  EXPECT_EQ(p[1], 0);
  EXPECT_EQ(p[2], 5);
  EXPECT_EQ(p[3], 3);
}

// --- properties --------------------------------------------------------------------------

constexpr DType kPropertyDTypes[] = {DType::kBool,    DType::kInt8,      DType::kUInt16,
                                     DType::kFloat16, DType::kFloat32,   DType::kInt64,
                                     DType::kComplex128, DType::kString};

Dims random_shape(std::mt19937_64& rng, int rank) {
  Dims s(static_cast<size_t>(rank));
  for (auto& d : s) d = static_cast<int64_t>(rng() % 5) + (rng() % 8 == 0 ? 0 : 1);
  return s;
}

// Gather with indices 0..s-1 along any axis is the identity (through plain and scrambled
// views, int32 and int64 indices).
TEST(GatherProperty, IotaIsIdentity) {
  const uint64_t seed = testing::test_seed();
  SCOPED_TRACE(seed);
  std::mt19937_64 rng(seed);
  for (int trial = 0; trial < 60; ++trial) {
    SCOPED_TRACE(trial);
    const int rank = 1 + static_cast<int>(rng() % 4);
    const Dims shape = random_shape(rng, rank);
    const int axis = static_cast<int>(rng() % static_cast<uint64_t>(rank));
    const DType dt = kPropertyDTypes[rng() % std::size(kPropertyDTypes)];
    Tensor data(dt, shape);
    testing::fill_random(data, rng, -50, 50);
    const int64_t s = shape[static_cast<size_t>(axis)];
    const bool use32 = rng() % 2 == 0;
    Tensor idx(use32 ? DType::kInt32 : DType::kInt64, {s});
    for (int64_t i = 0; i < s; ++i) {
      // Half the time in negative form: i - s names the same slice.
      const int64_t v = rng() % 2 ? i : i - s;
      if (use32) idx.data_as<int32_t>()[i] = static_cast<int32_t>(v);
      else idx.data_as<int64_t>()[i] = v;
    }
    // Negative axis form half the time.
    const int64_t ax = rng() % 2 ? axis : axis - rank;
    SCOPED_TRACE(dims_to_string(shape) + " axis " + std::to_string(ax) + " " + to_string(dt));
    expect_same(run_gather(ax, data, idx), data);
    Tensor ds, is;
    const bool negative = rng() % 2 == 0;
    expect_same(run_gather(ax, testing::scrambled_copy(data, ds, negative),
                           testing::scrambled_copy(idx, is, !negative)),
                data);
  }
}

// Gather with s-1..0 equals a copy of the view that walks the axis backwards.
TEST(GatherProperty, ReversedIndicesAreAReversedView) {
  const uint64_t seed = testing::test_seed() + 1;
  SCOPED_TRACE(seed);
  std::mt19937_64 rng(seed);
  for (int trial = 0; trial < 60; ++trial) {
    SCOPED_TRACE(trial);
    const int rank = 1 + static_cast<int>(rng() % 4);
    const Dims shape = random_shape(rng, rank);
    const int axis = static_cast<int>(rng() % static_cast<uint64_t>(rank));
    const DType dt = kPropertyDTypes[rng() % std::size(kPropertyDTypes)];
    SCOPED_TRACE(dims_to_string(shape) + " axis " + std::to_string(axis) + " " + to_string(dt));
    Tensor data(dt, shape);
    testing::fill_random(data, rng, -50, 50);
    const int64_t s = shape[static_cast<size_t>(axis)];
    Tensor idx(DType::kInt64, {s});
    for (int64_t i = 0; i < s; ++i) idx.data_as<int64_t>()[i] = s - 1 - i;

    TensorView rev = data.view();
    if (s > 0) {
      const size_t a = static_cast<size_t>(axis);
      rev.data = static_cast<const char*>(rev.data) +
                 (s - 1) * rev.strides[a] * static_cast<int64_t>(dtype_size(dt));
      rev.strides[a] = -rev.strides[a];
    }
    expect_same(run_gather(axis, data, idx), materialize(rev));
  }
}

// Random indices of random rank against an independent nested-position formula.
TEST(GatherProperty, RandomIndicesMatchTheFormula) {
  const uint64_t seed = testing::test_seed() + 2;
  SCOPED_TRACE(seed);
  std::mt19937_64 rng(seed);
  for (int trial = 0; trial < 40; ++trial) {
    SCOPED_TRACE(trial);
    const int r = 1 + static_cast<int>(rng() % 3);
    Dims dshape = random_shape(rng, r);
    const int axis = static_cast<int>(rng() % static_cast<uint64_t>(r));
    if (dshape[static_cast<size_t>(axis)] == 0) dshape[static_cast<size_t>(axis)] = 3;
    const int q = static_cast<int>(rng() % 3);
    const Dims ishape = random_shape(rng, q);
    SCOPED_TRACE(dims_to_string(dshape) + " " + dims_to_string(ishape) + " axis " +
                 std::to_string(axis));
    Tensor data(DType::kInt32, dshape);
    testing::fill_random(data, rng, -1000, 1000);
    const int64_t s = dshape[static_cast<size_t>(axis)];
    Tensor idx(DType::kInt64, ishape);
    for (int64_t i = 0; i < idx.num_elements(); ++i)
      idx.data_as<int64_t>()[i] = static_cast<int64_t>(rng() % static_cast<uint64_t>(2 * s)) - s;
    const Tensor out = run_gather(axis, data, idx);

    // Expected: for every data-outer position a, indices position i, data-inner position b.
    Dims outer(dshape.begin(), dshape.begin() + axis);
    Dims inner(dshape.begin() + axis + 1, dshape.end());
    Dims want_shape = outer;
    want_shape.insert(want_shape.end(), ishape.begin(), ishape.end());
    want_shape.insert(want_shape.end(), inner.begin(), inner.end());
    ASSERT_EQ(out.shape(), want_shape);
    std::vector<int32_t> want;
    const int64_t nout = Tensor(DType::kInt32, outer).num_elements();
    const int64_t nin = Tensor(DType::kInt32, inner).num_elements();
    for (int64_t a = 0; a < nout; ++a)
      for (int64_t i = 0; i < idx.num_elements(); ++i)
        for (int64_t b = 0; b < nin; ++b) {
          int64_t k = idx.data_as<int64_t>()[i];
          if (k < 0) k += s;
          want.push_back(data.data_as<int32_t>()[(a * s + k) * nin + b]);
        }
    expect_same(out, make_tensor<int32_t>(want_shape, want));
  }
}

}  // namespace
}  // namespace gridops
