// Multi-scale deformable attention: the fast entries against the reference on random
// problems (levels of every size, empty ones included; points inside, on the borders,
// outside and NaN; strided views; float32, float64, float16 and bfloat16), forward and the three gradients;
// the backward bit-identical for 1, 2 and 3 threads; errors.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "core/convert.h"
#include "gridops/ops/ms_deform_attn.h"
#include "gridops/parallel.h"
#include "support/problem_string.h"
#include "support/test_util.h"

namespace gridops {
namespace {

struct Problem {
  MsDeformAttnShape shape;
  DType dtype;
};

Problem random_problem(std::mt19937_64& rng) {
  auto uni = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  Problem p;
  const DType types[] = {DType::kFloat64, DType::kFloat32, DType::kFloat32, DType::kFloat16,
                         DType::kBFloat16};
  p.dtype = types[uni(0, 4)];
  MsDeformAttnShape& s = p.shape;
  s.batch = uni(1, 2);
  s.heads = uni(1, 3);
  s.channels = uni(1, 9);
  s.queries = uni(0, 6);
  s.points = uni(1, 4);
  const int L = uni(1, 4);
  int64_t rows = 0;
  for (int l = 0; l < L; ++l) {
    const int64_t H = uni(0, 4) == 0 ? 0 : uni(1, 7), W = uni(1, 7);
    s.spatial_shapes.push_back(H);
    s.spatial_shapes.push_back(W);
    s.level_start_index.push_back(rows);
    rows += H * W;
  }
  s.value_rows = rows + uni(0, 2);  // trailing rows no level reads are allowed
  return p;
}

/// Locations: mostly in [0, 1], some past the borders, exactly on pixel centres and edges,
/// NaN and infinite.
void fill_locations(Tensor& t, std::mt19937_64& rng) {
  const int64_t n = t.num_elements();
  for (int64_t i = 0; i < n; ++i) {
    double v;
    const int k = static_cast<int>(rng() % 20);
    if (k == 0) v = std::numeric_limits<double>::quiet_NaN();
    else if (k == 1) v = (rng() % 2 ? 1 : -1) * std::numeric_limits<double>::infinity();
    else if (k == 2) v = static_cast<double>(rng() % 9) / 8.0;  // edges and centres of small levels
    else v = std::uniform_real_distribution<double>(-0.2, 1.2)(rng);
    void* data = t.mutable_view().mutable_data();
    switch (t.dtype()) {
      case DType::kFloat64: static_cast<double*>(data)[i] = v; break;
      case DType::kFloat16: static_cast<float16*>(data)[i] = convert::store_real<float16>(v); break;
      case DType::kBFloat16: static_cast<bfloat16*>(data)[i] = convert::store_real<bfloat16>(v); break;
      default: static_cast<float*>(data)[i] = static_cast<float>(v); break;
    }
  }
}

struct Tensors {
  Tensor value, loc, att, grad;
};

Tensors make_tensors(const Problem& p, std::mt19937_64& rng) {
  const MsDeformAttnShape& s = p.shape;
  const int64_t L = static_cast<int64_t>(s.level_start_index.size());
  Tensors t{Tensor(p.dtype, {s.batch, s.value_rows, s.heads, s.channels}),
            Tensor(p.dtype, {s.batch, s.queries, s.heads, L, s.points, 2}),
            Tensor(p.dtype, {s.batch, s.queries, s.heads, L, s.points}),
            Tensor(p.dtype, {s.batch, s.queries, s.heads * s.channels})};
  testing::fill_random(t.value, rng, -2, 2);
  fill_locations(t.loc, rng);
  testing::fill_random(t.att, rng, -1, 1);
  testing::fill_random(t.grad, rng, -1, 1);
  return t;
}

struct Results {
  Tensor out, gv, gl, ga;
};

Results run(const Problem& p, const Tensors& t, const std::string& impl, bool strided) {
  MsDeformAttnDesc desc;
  desc.impl = impl;
  auto plan = make_ms_deform_attn_plan(desc, p.dtype, p.shape);
  EXPECT_TRUE(plan.ok()) << plan.status().to_string();
  Results r{Tensor(p.dtype, t.grad.shape()), Tensor(p.dtype, t.value.shape()),
            Tensor(p.dtype, t.loc.shape()), Tensor(p.dtype, t.att.shape())};
  if (!plan.ok()) return r;
  Tensor sv, sl, sa, sg;
  const TensorView value = strided ? testing::scrambled_copy(t.value, sv, true) : t.value.view();
  const TensorView loc = strided ? testing::scrambled_copy(t.loc, sl, false) : t.loc.view();
  const TensorView att = strided ? testing::scrambled_copy(t.att, sa, true) : t.att.view();
  const TensorView grad = strided ? testing::scrambled_copy(t.grad, sg, false) : t.grad.view();
  const MutableTensorView out = r.out.mutable_view(), gv = r.gv.mutable_view(),
                          gl = r.gl.mutable_view(), ga = r.ga.mutable_view();
  Status s = plan->forward(value, loc, att, out);
  EXPECT_TRUE(s.ok()) << s.to_string();
  s = plan->backward(grad, value, loc, att, &gv, &gl, &ga);
  EXPECT_TRUE(s.ok()) << s.to_string();
  return r;
}

void expect_close(const Tensor& got, const Tensor& want, double tol, const char* what) {
  double scale = 1;
  for (int64_t i = 0; i < want.num_elements(); ++i) {
    scale = std::max(scale, std::fabs(testing::element_as_double(want, i)));
  }
  for (int64_t i = 0; i < want.num_elements(); ++i) {
    const double a = testing::element_as_double(got, i), b = testing::element_as_double(want, i);
    ASSERT_FALSE(std::isnan(a)) << what << " element " << i;
    ASSERT_LE(std::fabs(a - b), tol * scale) << what << " element " << i;
  }
}

/// One MsDeformAttn problem as a fluent tester: `test(entry)` runs the entry's forward and
/// backward at 1 thread (through scrambled views with `strided`) and 3 threads (the same
/// bits) and checks them against ref, on tensors drawn from `seed`. Its canonical line
/// (tests/support/problem_string.h) is printed by a failing check and rerun alone by
/// MsDeformAttnDiff.Rerun.
class MsDeformAttnTester {
 public:
  MsDeformAttnTester() = default;
  explicit MsDeformAttnTester(Problem p) : p_(std::move(p)) {}
  MsDeformAttnTester& strided(bool v) { strided_ = v; return *this; }
  MsDeformAttnTester& seed(uint64_t s) { seed_ = s; return *this; }

  testing::ProblemString line(const std::string& impl) const {
    const MsDeformAttnShape& s = p_.shape;
    testing::ProblemString l("ms_deform_attn");
    l.add("impl", impl)
        .add("dtype", p_.dtype)
        .add("batch", s.batch)
        .add("heads", s.heads)
        .add("channels", s.channels)
        .add("queries", s.queries)
        .add("points", s.points)
        .add("spatial_shapes", s.spatial_shapes)
        .add("level_start_index", s.level_start_index)
        .add("value_rows", s.value_rows)
        .add("strided", strided_)
        .add("seed", seed_);
    return l;
  }

  static MsDeformAttnTester from(const testing::ProblemString& l, std::string* impl) {
    Problem p;
    *impl = l.get("impl");
    p.dtype = l.get_dtype("dtype");
    MsDeformAttnShape& s = p.shape;
    s.batch = l.get_int("batch");
    s.heads = l.get_int("heads");
    s.channels = l.get_int("channels");
    s.queries = l.get_int("queries");
    s.points = l.get_int("points");
    const Dims shapes = l.get_dims("spatial_shapes"), starts = l.get_dims("level_start_index");
    s.spatial_shapes.assign(shapes.begin(), shapes.end());
    s.level_start_index.assign(starts.begin(), starts.end());
    s.value_rows = l.get_int("value_rows");
    MsDeformAttnTester t(p);
    t.strided(l.get_int("strided") != 0).seed(l.get_uint("seed"));
    return t;
  }

  void test(const std::string& impl) const {
    SCOPED_TRACE(testing::rerun_hint(line(impl)));
    std::mt19937_64 rng(seed_);
    const Tensors t = make_tensors(p_, rng);
    const int saved = get_num_threads();
    set_num_threads(1);
    const Results want = run(p_, t, "ref", false);
    const Results one = run(p_, t, impl, strided_);
    set_num_threads(3);
    const Results three = run(p_, t, impl, false);
    set_num_threads(saved);
    // Every output of the fast entry is the same bits for any thread count.
    ASSERT_TRUE(testing::bitwise_equal(one.out, three.out));
    ASSERT_TRUE(testing::bitwise_equal(one.gv, three.gv));
    ASSERT_TRUE(testing::bitwise_equal(one.gl, three.gl));
    ASSERT_TRUE(testing::bitwise_equal(one.ga, three.ga));
    // Both round once to the storage type: float16 and bfloat16 may differ by one unit in
    // the last place (the fast path sums in float, the reference in double).
    const double tol = p_.dtype == DType::kFloat64    ? 1e-12
                       : p_.dtype == DType::kFloat16  ? std::ldexp(1.0, -10) + 2e-5
                       : p_.dtype == DType::kBFloat16 ? std::ldexp(1.0, -7) + 2e-5
                                                      : 2e-5;
    expect_close(one.out, want.out, tol, "output");
    expect_close(one.gv, want.gv, tol, "grad_value");
    expect_close(one.gl, want.gl, tol * 8, "grad_locations");  // times W, H <= 7
    expect_close(one.ga, want.ga, tol, "grad_weights");
  }

 private:
  Problem p_{MsDeformAttnShape{}, DType::kFloat32};
  bool strided_ = false;
  uint64_t seed_ = 1;
};

TEST(MsDeformAttnDiff, FastMatchesReferenceOnRandomProblems) {
  const uint64_t seed = testing::test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed) + " (set GRIDOPS_SEED to reproduce)");
  std::mt19937_64 rng(seed);
  for (int it = 0; it < 400; ++it) {
    MsDeformAttnTester t(random_problem(rng));
    t.strided(rng() % 2 == 0).seed(rng());
    t.test("fast");
    if (::testing::Test::HasFailure()) break;
  }
}

// The problem of GRIDOPS_RERUN (the line a failing check prints), alone. Without it: a
// fixed line, which must read back to the same line and run.
TEST(MsDeformAttnDiff, Rerun) {
  const auto r = testing::rerun_problem<MsDeformAttnTester>(
      "ms_deform_attn",
      "ms_deform_attn impl=fast dtype=float32 batch=2 heads=3 channels=5 queries=4 points=2 "
      "spatial_shapes=4x6x0x3x2x2 level_start_index=0x24x24 value_rows=29 strided=1 seed=6");
  ASSERT_TRUE(r.has_value());
  r->tester.test(r->impl);
}

// A point outside its level (or NaN) samples 0 and has no gradient; an empty level too.
TEST(MsDeformAttnRef, OutsideNaNAndEmptyLevels) {
  MsDeformAttnShape s;
  s.batch = 1, s.heads = 1, s.channels = 2, s.queries = 1, s.points = 3, s.value_rows = 4;
  s.spatial_shapes = {2, 2, 0, 3};
  s.level_start_index = {0, 4};
  for (const char* impl : {"ref", "fast"}) {
    MsDeformAttnDesc d;
    d.impl = impl;
    auto plan = make_ms_deform_attn_plan(d, DType::kFloat64, s);
    ASSERT_TRUE(plan.ok()) << plan.status().to_string();
    Tensor value(DType::kFloat64, {1, 4, 1, 2});
    for (int i = 0; i < 8; ++i) static_cast<double*>(value.mutable_view().mutable_data())[i] = i + 1;
    Tensor loc(DType::kFloat64, {1, 1, 1, 2, 3, 2}), att(DType::kFloat64, {1, 1, 1, 2, 3});
    double* l = static_cast<double*>(loc.mutable_view().mutable_data());
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const double pts[12] = {0.25, 0.25, 1.5, 0.5, nan, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5};
    for (int i = 0; i < 12; ++i) l[i] = pts[i];
    for (int i = 0; i < 6; ++i) static_cast<double*>(att.mutable_view().mutable_data())[i] = 1;
    Tensor out(DType::kFloat64, {1, 1, 2});
    ASSERT_TRUE(plan->forward(value.view(), loc.view(), att.view(), out.mutable_view()).ok());
    // Only the first point counts: (0.25, 0.25) of a 2 x 2 level is pixel (0, 0): row 0.
    EXPECT_EQ(static_cast<const double*>(out.view().data)[0], 1.0) << impl;
    EXPECT_EQ(static_cast<const double*>(out.view().data)[1], 2.0) << impl;
    Tensor g(DType::kFloat64, {1, 1, 2}), gl(DType::kFloat64, loc.shape()), ga(DType::kFloat64, att.shape());
    static_cast<double*>(g.mutable_view().mutable_data())[0] = 1;
    static_cast<double*>(g.mutable_view().mutable_data())[1] = 1;
    const MutableTensorView glv = gl.mutable_view(), gav = ga.mutable_view();
    ASSERT_TRUE(plan->backward(g.view(), value.view(), loc.view(), att.view(), nullptr, &glv, &gav).ok());
    const double* a = static_cast<const double*>(ga.view().data);
    EXPECT_EQ(a[0], 3.0) << impl;  // 1 + 2
    for (int i = 1; i < 6; ++i) EXPECT_EQ(a[i], 0.0) << impl << " point " << i;
    const double* lg = static_cast<const double*>(gl.view().data);
    for (int i = 2; i < 12; ++i) EXPECT_EQ(lg[i], 0.0) << impl << " coordinate " << i;
  }
}

TEST(MsDeformAttnErrors, ShapesLevelsDtypesViews) {
  MsDeformAttnShape s;
  s.batch = 1, s.heads = 2, s.channels = 4, s.queries = 3, s.points = 2, s.value_rows = 20;
  s.spatial_shapes = {4, 4, 2, 2};
  s.level_start_index = {0, 16};
  auto msg = [&](DType dt, const MsDeformAttnShape& sh) {
    auto p = make_ms_deform_attn_plan({}, dt, sh);
    return p.ok() ? std::string("ok") : p.status().message();
  };
  EXPECT_EQ(msg(DType::kFloat32, s), "ok");
  EXPECT_NE(msg(DType::kInt32, s).find("dtype must be float32, float64, float16 or bfloat16, got int32"),
            std::string::npos);
  MsDeformAttnShape bad = s;
  bad.level_start_index = {0, 17};
  EXPECT_NE(msg(DType::kFloat32, bad).find("level 1 (2 x 2 rows from level_start_index 17) must lie "
                                           "inside value's 20 rows"), std::string::npos)
      << msg(DType::kFloat32, bad);
  bad = s;
  bad.spatial_shapes = {4, 4};
  EXPECT_NE(msg(DType::kFloat32, bad).find("spatial_shapes must have 2 entries (H, W) per level, 4"),
            std::string::npos);
  bad = s;
  bad.spatial_shapes = {4, -4, 2, 2};
  EXPECT_NE(msg(DType::kFloat32, bad).find("spatial_shapes of level 0 must be >= 0"), std::string::npos);
  bad = s;
  bad.heads = -1;
  EXPECT_NE(msg(DType::kFloat32, bad).find("heads must be >= 0, got -1"), std::string::npos);

  auto plan = make_ms_deform_attn_plan({}, DType::kFloat32, s);
  ASSERT_TRUE(plan.ok());
  Tensor value(DType::kFloat32, {1, 20, 2, 4}), loc(DType::kFloat32, {1, 3, 2, 2, 2, 2}),
      att(DType::kFloat32, {1, 3, 2, 2, 2}), out(DType::kFloat32, {1, 3, 8});
  Tensor wrong(DType::kFloat32, {1, 3, 2, 2, 3});
  Status st = plan->forward(value.view(), loc.view(), wrong.view(), out.mutable_view());
  EXPECT_NE(st.message().find("ms_deform_attn: attention_weights"), std::string::npos) << st.message();
  const MutableTensorView inside(DType::kFloat32, value.mutable_view().mutable_data(), {1, 3, 8});
  st = plan->forward(value.view(), loc.view(), att.view(), inside);
  EXPECT_NE(st.message().find("output must not overlap value"), std::string::npos) << st.message();
  Tensor gv(DType::kFloat32, {1, 20, 2, 4});
  const MutableTensorView gvz(DType::kFloat32, gv.mutable_view().mutable_data(), {1, 20, 2, 4}, {0, 0, 0, 0});
  st = plan->backward(out.view(), value.view(), loc.view(), att.view(), &gvz, nullptr, nullptr);
  EXPECT_NE(st.message().find("grad_value: elements must not share memory"), std::string::npos)
      << st.message();
  Tensor gl(DType::kFloat32, loc.shape());
  const MutableTensorView glv = gl.mutable_view();
  const MutableTensorView gl_in_gv(DType::kFloat32, gv.mutable_view().mutable_data(), loc.shape());
  const MutableTensorView gvv = gv.mutable_view();
  st = plan->backward(out.view(), value.view(), loc.view(), att.view(), &gvv, &gl_in_gv, nullptr);
  EXPECT_NE(st.message().find("grad_locations must not overlap grad_value"), std::string::npos)
      << st.message();
  st = plan->backward(value.view(), value.view(), loc.view(), att.view(), nullptr, &glv, nullptr);
  EXPECT_NE(st.message().find("ms_deform_attn backward: grad_output"), std::string::npos)
      << st.message();
  st = MsDeformAttnPlan().forward(value.view(), loc.view(), att.view(), out.mutable_view());
  EXPECT_NE(st.message().find("plan must come from make_ms_deform_attn_plan"), std::string::npos);
  st = MsDeformAttnPlan().backward(out.view(), value.view(), loc.view(), att.view(), nullptr,
                                   nullptr, nullptr);
  EXPECT_NE(st.message().find("ms_deform_attn backward: plan must come from"), std::string::npos);
  EXPECT_TRUE(plan->forward(value.view(), loc.view(), att.view(), out.mutable_view()).ok());
}

}  // namespace
}  // namespace gridops
