// GridSample: every error path (helpers in grid_sample_test_util.h).
#include "ops/grid_sample_test_util.h"

namespace gridops {
namespace {

// --- errors ---------------------------------------------------------------------------------------

void expect_error(const Status& s, const std::string& text) {
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << s.to_string();
  EXPECT_THAT(s.message(), HasSubstr(text));
}

template <class T>
void expect_error(const StatusOr<T>& r, const std::string& text) {
  expect_error(r.status(), text);
}

StatusOr<GridSamplePlan> plan_for(const GridSampleDesc& d, Dims src, Dims grid,
                                  DType src_dt = DType::kFloat32, DType grid_dt = DType::kFloat32) {
  return make_grid_sample_plan(d, src_dt, src, grid_dt, grid);
}

TEST(GridSampleErrors, SrcRankTooSmallOrTooLarge) {
  GridSampleDesc d;
  expect_error(plan_for(d, {2, 3}, {2, 3}),
               "grid_sample: src must have rank >= 3 (N, C, D1, ...), got rank 2 with shape (2, 3)");
  Dims big(17, 1), gbig(17, 1);
  gbig.back() = 15;
  expect_error(plan_for(d, big, gbig), "grid_sample: src rank must be <= 16, got 17");
  // kMaxRank itself is fine: 14 spatial axes.
  Dims s16(16, 1), g16(16, 1);
  g16.back() = 14;
  EXPECT_TRUE(plan_for(d, s16, g16).ok());
}

TEST(GridSampleErrors, GridRankAndLastDim) {
  GridSampleDesc d;
  expect_error(plan_for(d, {1, 3, 8, 8}, {1, 8, 8, 3}),
               "grid_sample: grid must have shape (N, H_out, W_out, 2) for a 4-D input, got (1, 8, 8, 3)");
  expect_error(plan_for(d, {1, 3, 8, 8}, {1, 8, 2}),
               "grid_sample: grid must have shape (N, H_out, W_out, 2) for a 4-D input, got (1, 8, 2)");
  expect_error(plan_for(d, {1, 3, 8}, {1, 8, 2}),
               "grid_sample: grid must have shape (N, W_out, 1) for a 3-D input, got (1, 8, 2)");
  expect_error(plan_for(d, {1, 3, 4, 4, 4}, {1, 2, 2, 2, 2}),
               "grid_sample: grid must have shape (N, D_out, H_out, W_out, 3) for a 5-D input, got (1, 2, 2, 2, 2)");
  expect_error(plan_for(d, {1, 3, 4, 4, 4, 4}, {1, 2, 2, 2, 2, 3}),
               "grid_sample: grid must have shape (N, D1_out, D2_out, D3_out, D4_out, 4) for a 6-D input");
}

TEST(GridSampleErrors, BatchMismatch) {
  expect_error(plan_for(GridSampleDesc{}, {2, 3, 4, 4}, {3, 5, 5, 2}),
               "grid_sample: grid batch must equal src batch 2, got 3");
}

TEST(GridSampleErrors, AlignCornersAndEnums) {
  GridSampleDesc d;
  d.align_corners = 2;
  expect_error(plan_for(d, {1, 1, 2, 2}, {1, 1, 1, 2}), "grid_sample: align_corners must be 0 or 1, got 2");
  d.align_corners = -1;
  expect_error(plan_for(d, {1, 1, 2, 2}, {1, 1, 1, 2}), "grid_sample: align_corners must be 0 or 1, got -1");
  GridSampleDesc m;
  m.mode = static_cast<InterpolationMode>(7);
  expect_error(plan_for(m, {1, 1, 2, 2}, {1, 1, 1, 2}),
               "grid_sample: mode must be linear, nearest or cubic, got enum value 7");
  GridSampleDesc p;
  p.padding = static_cast<GridPadding>(6);
  expect_error(plan_for(p, {1, 1, 2, 2}, {1, 1, 1, 2}),
               "grid_sample: padding_mode must be zeros, border, reflection, wrap, constant or fill, "
               "got enum value 6");
  GridSampleDesc l;
  l.layout = static_cast<ChannelLayout>(3);
  expect_error(plan_for(l, {1, 1, 2, 2}, {1, 1, 1, 2}),
               "grid_sample: layout must be channels_first or channels_last, got enum value 3");
  // grid_sample_output_shape checks the descriptor too.
  expect_error(grid_sample_output_shape(d, Dims{1, 1, 2, 2}, Dims{1, 1, 1, 2}),
               "grid_sample: align_corners must be 0 or 1, got -1");
}

TEST(GridSampleErrors, StringWithLinearOrCubic) {
  for (IM mode : {IM::kLinear, IM::kCubic}) {
    GridSampleDesc d = make_desc(mode, GP::kZeros, 0);
    expect_error(plan_for(d, {1, 1, 2, 2}, {1, 1, 1, 2}, DType::kString),
                 std::string("grid_sample: mode ") + to_string(mode) +
                     " is not supported for string src (strings support nearest only)");
  }
}

TEST(GridSampleErrors, GridDType) {
  for (DType dt : {DType::kInt32, DType::kBool, DType::kComplex64, DType::kString, DType::kUInt8}) {
    expect_error(plan_for(GridSampleDesc{}, {1, 1, 2, 2}, {1, 1, 1, 2}, DType::kFloat32, dt),
                 std::string("grid_sample: grid dtype must be float16, bfloat16, float32 or "
                             "float64, got ") + to_string(dt));
  }
  expect_error(plan_for(GridSampleDesc{}, {1, 1, 2, 2}, {1, 1, 1, 2}, DType::kFloat32,
                        static_cast<DType>(40)),
               "grid_sample: grid dtype must be float16, bfloat16, float32 or float64, got unknown dtype code 40");
  expect_error(plan_for(GridSampleDesc{}, {1, 1, 2, 2}, {1, 1, 1, 2}, static_cast<DType>(41)),
               "grid_sample: src dtype code 41 is not a known dtype");
}

TEST(GridSampleErrors, NegativeDimensions) {
  expect_error(plan_for(GridSampleDesc{}, {1, -1, 2, 2}, {1, 1, 1, 2}),
               "grid_sample: src: dimension 1 must be >= 0, got -1 in shape (1, -1, 2, 2)");
  expect_error(plan_for(GridSampleDesc{}, {1, 1, 2, 2}, {1, -3, 1, 2}),
               "grid_sample: grid: dimension 1 must be >= 0, got -3 in shape (1, -3, 1, 2)");
}

TEST(GridSampleErrors, ElementCountOverflow) {
  const int64_t big = int64_t{1} << 32;
  expect_error(plan_for(GridSampleDesc{}, {big, big, 1, 1}, {big, 1, 1, 2}),
               "grid_sample: src: element count of shape (4294967296, 4294967296, 1, 1) overflows 64 bits");
  expect_error(plan_for(GridSampleDesc{}, {1, 1, 1, 1}, {1, big, big, 2}),
               "grid_sample: grid: element count of shape (1, 4294967296, 4294967296, 2) overflows 64 bits");
  // src and grid fit; dst (1, 2^32, 2^31, 2) has 2^64 elements.
  expect_error(plan_for(GridSampleDesc{}, {1, big, 1, 1}, {1, int64_t{1} << 31, 2, 2}),
               "grid_sample: dst: element count of shape (1, 4294967296, 2147483648, 2) overflows 64 bits");
}

TEST(GridSampleErrors, EmptyInputAxisWithBorderOrReflection) {
  for (GP pad : {GP::kBorder, GP::kReflection}) {
    expect_error(plan_for(make_desc(IM::kLinear, pad, 0), {1, 1, 0, 3}, {1, 2, 2, 2}),
                 std::string("grid_sample: src spatial axis 2 has length 0 in shape (1, 1, 0, 3); "
                             "padding_mode ") + to_string(pad) + " needs at least 1 element");
  }
}

TEST(GridSampleErrors, UnknownForcedImpl) {
  GridSampleDesc d;
  d.impl = "avx9000";
  auto r = plan_for(d, {1, 1, 2, 2}, {1, 1, 1, 2});
  expect_error(r, "grid_sample: impl must be one of {");
  expect_error(r, "ref} or an alias {fast}, got 'avx9000'");
}

TEST(GridSampleErrors, NullDataPointers) {
  Tensor src(DType::kFloat32, {1, 1, 2, 2}), grid(DType::kFloat32, {1, 1, 1, 2}),
      dst(DType::kFloat32, {1, 1, 1, 1});
  const GridSampleDesc d;
  expect_error(grid_sample(d, TensorView(DType::kFloat32, nullptr, {1, 1, 2, 2}), grid.view(),
                           dst.mutable_view()),
               "grid_sample: src: data pointer is null for non-empty shape (1, 1, 2, 2)");
  expect_error(grid_sample(d, src.view(), TensorView(DType::kFloat32, nullptr, {1, 1, 1, 2}),
                           dst.mutable_view()),
               "grid_sample: grid: data pointer is null for non-empty shape (1, 1, 1, 2)");
  expect_error(grid_sample(d, src.view(), grid.view(),
                           MutableTensorView(DType::kFloat32, nullptr, {1, 1, 1, 1})),
               "grid_sample: dst: data pointer is null for non-empty shape (1, 1, 1, 1)");
  expect_error(grid_sample(d, TensorView(DType::kFloat32, nullptr, {1, 1, 2, 2}), grid.view()),
               "grid_sample: src: data pointer is null");
}

TEST(GridSampleErrors, DstWrongShapeOrDType) {
  Tensor src(DType::kFloat32, {1, 1, 2, 2}), grid(DType::kFloat32, {1, 3, 4, 2});
  Tensor bad_shape(DType::kFloat32, {1, 1, 4, 3});
  expect_error(grid_sample(GridSampleDesc{}, src.view(), grid.view(), bad_shape.mutable_view()),
               "grid_sample: dst: expected shape (1, 1, 3, 4), got (1, 1, 4, 3)");
  Tensor bad_dtype(DType::kFloat64, {1, 1, 3, 4});
  expect_error(grid_sample(GridSampleDesc{}, src.view(), grid.view(), bad_dtype.mutable_view()),
               "grid_sample: dst: expected dtype float32, got float64");
}

TEST(GridSampleErrors, PlanRunWithOtherViews) {
  auto plan = plan_for(GridSampleDesc{}, {1, 1, 2, 2}, {1, 3, 4, 2});
  ASSERT_TRUE(plan.ok());
  Tensor src(DType::kFloat32, {1, 1, 2, 3}), grid(DType::kFloat32, {1, 3, 4, 2}),
      dst(DType::kFloat32, {1, 1, 3, 4});
  expect_error(plan->run(src.view(), grid.view(), dst.mutable_view()),
               "grid_sample: src: expected shape (1, 1, 2, 2), got (1, 1, 2, 3)");
  Tensor src_ok(DType::kFloat32, {1, 1, 2, 2}), grid_f64(DType::kFloat64, {1, 3, 4, 2});
  expect_error(plan->run(src_ok.view(), grid_f64.view(), dst.mutable_view()),
               "grid_sample: grid: expected dtype float32, got float64");
  // Strides must be given for every axis.
  TensorView odd = src_ok.view();
  odd.strides.pop_back();
  expect_error(plan->run(odd, grid.view(), dst.mutable_view()),
               "grid_sample: src: expected 4 strides for shape (1, 1, 2, 2), got 3");
  // Strides whose byte extent overflows int64.
  TensorView far(DType::kFloat32, src_ok.data(), {1, 1, 2, 2}, {4, 4, int64_t{1} << 62, 1});
  expect_error(plan->run(far, grid.view(), dst.mutable_view()),
               "grid_sample: src: byte extent of shape (1, 1, 2, 2)");
  expect_error(GridSamplePlan().run(src_ok.view(), grid.view(), dst.mutable_view()),
               "grid_sample: plan is empty");
}

TEST(GridSampleErrors, DstOverlappingInputs) {
  Tensor buf(DType::kFloat32, {16});
  float* p = buf.data_as<float>();
  TensorView src(DType::kFloat32, p, {1, 1, 2, 2});
  Tensor grid(DType::kFloat32, {1, 1, 2, 2});
  expect_error(grid_sample(GridSampleDesc{}, src, grid.view(),
                           MutableTensorView(DType::kFloat32, p + 3, {1, 1, 1, 2})),
               "grid_sample: dst must not overlap src");
  TensorView g(DType::kFloat32, p + 8, {1, 1, 2, 2});
  expect_error(grid_sample(GridSampleDesc{}, src, g,
                           MutableTensorView(DType::kFloat32, p + 10, {1, 1, 1, 2})),
               "grid_sample: dst must not overlap grid");
  // Adjacent but disjoint is fine.
  EXPECT_TRUE(grid_sample(GridSampleDesc{}, src, g,
                          MutableTensorView(DType::kFloat32, p + 4, {1, 1, 1, 2})).ok());
}

TEST(GridSampleErrors, NothingWrittenOnError) {
  Tensor src = make_tensor<float>({1, 1, 2, 2}, {1, 2, 3, 4});
  Tensor grid = make_tensor<float>({1, 1, 2, 2}, {0, 0, 0.5f, 0.5f});
  Tensor dst(DType::kFloat32, {1, 1, 1, 2});
  auto fill = [&] { for (int i = 0; i < 2; ++i) dst.data_as<float>()[i] = -7.0f; };
  auto untouched = [&] {
    for (int i = 0; i < 2; ++i) EXPECT_EQ(dst.data_as<float>()[i], -7.0f);
  };
  // Bad attribute.
  fill();
  GridSampleDesc bad;
  bad.align_corners = 3;
  EXPECT_FALSE(grid_sample(bad, src.view(), grid.view(), dst.mutable_view()).ok());
  untouched();
  // Bad grid dtype (grid data reinterpreted as int32).
  fill();
  TensorView gi(DType::kInt32, grid.data(), {1, 1, 2, 2});
  EXPECT_FALSE(grid_sample(GridSampleDesc{}, src.view(), gi, dst.mutable_view()).ok());
  untouched();
  // A plan run with a src of the wrong shape.
  fill();
  auto plan = plan_for(GridSampleDesc{}, {1, 1, 2, 2}, {1, 1, 2, 2});
  ASSERT_TRUE(plan.ok());
  TensorView wrong(DType::kFloat32, src.data(), {1, 1, 1, 4});
  EXPECT_FALSE(plan->run(wrong, grid.view(), dst.mutable_view()).ok());
  untouched();
  // String src with linear: dst of strings stays as it was.
  Tensor ss = make_tensor<std::string>({1, 1, 2, 2}, {"a", "b", "c", "d"});
  Tensor sd = make_tensor<std::string>({1, 1, 1, 2}, {"keep", "me"});
  EXPECT_FALSE(grid_sample(GridSampleDesc{}, ss.view(), grid.view(), sd.mutable_view()).ok());
  EXPECT_EQ(sd.data_as<std::string>()[0], "keep");
  EXPECT_EQ(sd.data_as<std::string>()[1], "me");
  // And the same call with nearest writes.
  EXPECT_TRUE(grid_sample(make_desc(IM::kNearest, GP::kZeros, 0), ss.view(), grid.view(),
                          sd.mutable_view()).ok());
  // align_corners=0, L=2: x = g + 0.5. (0, 0) -> x = y = 0.5 -> 0 (even): "a";
  // (0.5, 0.5) -> x = y = 1: "d".
  EXPECT_EQ(sd.data_as<std::string>()[0], "a");
  EXPECT_EQ(sd.data_as<std::string>()[1], "d");
}

}  // namespace
}  // namespace gridops
