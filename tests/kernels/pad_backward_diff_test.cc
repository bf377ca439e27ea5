// Pad backward: the fast entries against the reference (bit-exact on random problems of
// every mode, rank 0-5, negative and far pads, the floating and complex dtypes, strided views, 1
// and 3 threads), the reference against the definition (the adjoint identity, exact on
// small integers, and hand-computed sums in the contract's order), and the plan's choice
// of the two lists.
#include "kernels/pad_diff_util.h"

namespace gridops {
namespace {

constexpr DType kFloatTypes[] = {DType::kFloat32,  DType::kFloat64,   DType::kFloat16,
                                 DType::kBFloat16, DType::kComplex64, DType::kComplex128};

/// grad_src = backward(grad_dst) by `impl` (forced by name), into a fresh tensor, or into a
/// strided view of `storage` when `strided` (then copied out contiguously).
Tensor backward_impl(PadDesc desc, const char* impl, const TensorView& grad_dst,
                     const Dims& src_shape, bool strided) {
  desc.impl = impl;
  auto plan = make_pad_plan(desc, grad_dst.dtype, src_shape);
  EXPECT_TRUE(plan.ok()) << plan.status().to_string();
  Tensor out(grad_dst.dtype, src_shape);
  if (!plan.ok()) return out;
  if (!strided) {
    const Status s = plan->backward(grad_dst, out.mutable_view());
    EXPECT_TRUE(s.ok()) << s.to_string();
    return out;
  }
  Tensor storage;
  const TensorView view = testing::scrambled_copy(out, storage, true);
  const MutableTensorView mview(view.dtype, const_cast<void*>(view.data), view.shape, view.strides);
  const Status s = plan->backward(grad_dst, mview);
  EXPECT_TRUE(s.ok()) << s.to_string();
  // Read the strided result back in row-major order.
  const int64_t es = static_cast<int64_t>(dtype_size(out.dtype()));
  for (int64_t f = 0; f < out.num_elements(); ++f) {
    const Dims idx = testing::unravel(f, src_shape);
    std::memcpy(static_cast<char*>(out.mutable_view().mutable_data()) + f * es,
                view.element_ptr(idx), static_cast<size_t>(es));
  }
  return out;
}

/// Whether `impl`, forced by name, plans the backward of the problem (a backward entry that
/// declines it leaves the plan without one, backward_impl_name() empty).
bool backward_takes(PadDesc desc, const std::string& impl, DType dt, const Dims& shape) {
  desc.impl = impl;
  auto plan = make_pad_plan(desc, dt, shape);
  EXPECT_TRUE(plan.ok()) << plan.status().to_string();
  return plan.ok() && plan->backward_impl_name()[0] != '\0';
}

class PadBackwardDiff : public ::testing::TestWithParam<std::string> {};

/// One Pad backward problem as a fluent tester: `test(entry)` checks the entry's grad_src
/// against ref, bitwise, for a grad_dst drawn from `seed` (read through a scrambled view
/// with `strided_in`, written through one with `strided_out`) at `threads` threads. Its
/// canonical line (tests/support/problem_string.h) is printed by a failing check and rerun
/// alone by PadBackwardDiff.Rerun.
class PadBackwardTester {
 public:
  PadBackwardTester() { p_.shape = {5}; p_.dtype = DType::kFloat32; }
  explicit PadBackwardTester(RandomProblem p) : p_(std::move(p)) {}
  PadBackwardTester& views(bool strided_in, bool negative_in, bool strided_out) {
    strided_in_ = strided_in;
    negative_in_ = negative_in;
    strided_out_ = strided_out;
    return *this;
  }
  PadBackwardTester& threads(int n) { threads_ = n; return *this; }
  PadBackwardTester& seed(uint64_t s) { seed_ = s; return *this; }
  const RandomProblem& problem() const { return p_; }

  testing::ProblemString line(const std::string& impl) const {
    testing::ProblemString s("pad_backward");
    s.add("impl", impl)
        .add("mode", to_string(p_.desc.mode))
        .add("dtype", p_.dtype)
        .add("src_shape", p_.shape)
        .add("begin", Dims(p_.desc.pads_begin.begin(), p_.desc.pads_begin.end()))
        .add("end", Dims(p_.desc.pads_end.begin(), p_.desc.pads_end.end()))
        .add_flags("views", {{'s', strided_in_}, {'n', negative_in_}, {'o', strided_out_}})
        .add("threads", threads_)
        .add("seed", seed_);
    return s;
  }

  static PadBackwardTester from(const testing::ProblemString& s, std::string* impl) {
    RandomProblem p;
    *impl = s.get("impl");
    p.desc.mode = s.get_enum("mode", parse_pad_mode, PadMode::kConstant);
    p.dtype = s.get_dtype("dtype");
    p.shape = s.get_dims("src_shape");
    const Dims b = s.get_dims("begin"), e = s.get_dims("end");
    p.desc.pads_begin.assign(b.begin(), b.end());
    p.desc.pads_end.assign(e.begin(), e.end());
    PadBackwardTester t(p);
    t.views(s.has_flag("views", 's'), s.has_flag("views", 'n'), s.has_flag("views", 'o'))
        .threads(static_cast<int>(s.get_int("threads")))
        .seed(s.get_uint("seed"));
    return t;
  }

  /// False (nothing checked) when `impl` plans no backward for the problem.
  bool test(const std::string& impl) const {
    SCOPED_TRACE(testing::rerun_hint(line(impl)));
    if (!backward_takes(p_.desc, impl, p_.dtype, p_.shape)) return false;
    const Dims dst_shape = *pad_output_shape(p_.desc, p_.shape);
    std::mt19937_64 rng(seed_);
    Tensor grad(p_.dtype, dst_shape);
    testing::fill_random(grad, rng, -4.0, 4.0);
    Tensor storage;
    const TensorView g = strided_in_ ? testing::scrambled_copy(grad, storage, negative_in_)
                                     : grad.view();
    const int saved = get_num_threads();
    if (threads_ > 0) set_num_threads(threads_);
    const Tensor want = backward_impl(p_.desc, "ref", grad.view(), p_.shape, false);
    const Tensor got = backward_impl(p_.desc, impl.c_str(), g, p_.shape, strided_out_);
    set_num_threads(saved);
    int64_t where = -1;
    EXPECT_TRUE(testing::bitwise_equal(got, want, &where)) << "first difference at " << where;
    return true;
  }

 private:
  RandomProblem p_;
  bool strided_in_ = false, negative_in_ = false, strided_out_ = false;
  int threads_ = 0;
  uint64_t seed_ = 1;
};

TEST_P(PadBackwardDiff, MatchesReferenceOnRandomProblems) {
  const uint64_t seed = testing::test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed) + " (set GRIDOPS_SEED to reproduce)");
  std::mt19937_64 rng(seed);
  int taken = 0, ranked = 0;
  for (int it = 0; it < 1500; ++it) {
    RandomProblem p = random_problem(rng);
    p.dtype = kFloatTypes[rng() % std::size(kFloatTypes)];
    if (!p.shape.empty()) ++ranked;
    PadBackwardTester t(p);
    t.views(rng() % 3 == 0, rng() % 2 == 0, rng() % 3 == 0).threads(it % 2 == 0 ? 1 : 3).seed(rng());
    if (t.test(GetParam())) ++taken;
    if (HasFailure()) return;
  }
  EXPECT_EQ(taken, ranked);  // every problem but those of rank 0
}

// The problem of GRIDOPS_RERUN (the line a failing check prints), alone, when it names
// this entry. Without it: a fixed line, which must read back to the same line and run.
TEST_P(PadBackwardDiff, Rerun) {
  const auto r = testing::rerun_problem<PadBackwardTester>(
      "pad_backward", "pad_backward impl=" + GetParam() +
                          " mode=symmetric dtype=bfloat16 src_shape=4x6x9 begin=1x-2x4 "
                          "end=3x5x-1 views=sno threads=3 seed=77");
  ASSERT_TRUE(r.has_value());
  if (r->impl != GetParam()) GTEST_SKIP() << "GRIDOPS_RERUN names entry " << r->impl;
  EXPECT_TRUE(r->tester.test(r->impl)) << "'" << r->impl << "' plans no backward for this problem";
}

TEST_P(PadBackwardDiff, ThreadCountsAreBitIdentical) {
  std::mt19937_64 rng(testing::test_seed());
  const int saved = get_num_threads();
  for (PadMode mode : kModes) {
    SCOPED_TRACE(to_string(mode));
    PadDesc desc;
    desc.mode = mode;
    desc.pads_begin = {2, 3, 5};
    desc.pads_end = {1, 0, 6};
    const Dims shape{9, 70, 131};
    Tensor grad(DType::kFloat32, *pad_output_shape(desc, shape));
    testing::fill_random(grad, rng, -1.0, 1.0);
    set_num_threads(1);
    const Tensor one = backward_impl(desc, GetParam().c_str(), grad.view(), shape, false);
    set_num_threads(2);
    const Tensor two = backward_impl(desc, GetParam().c_str(), grad.view(), shape, false);
    set_num_threads(5);
    const Tensor five = backward_impl(desc, GetParam().c_str(), grad.view(), shape, false);
    EXPECT_TRUE(testing::bitwise_equal(one, two));
    EXPECT_TRUE(testing::bitwise_equal(one, five));
    EXPECT_TRUE(testing::bitwise_equal(one, backward_impl(desc, "ref", grad.view(), shape, false)));
  }
  set_num_threads(saved);
}

std::vector<std::string> backward_names() {
  return testing::fast_entries(detail::pad_backward_entries());
}

INSTANTIATE_TEST_SUITE_P(Entries, PadBackwardDiff, ::testing::ValuesIn(backward_names()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string n = info.param;
                           for (char& c : n) {
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return n;
                         });

// The adjoint identity <pad(x), g> = <x, pad_backward(g)>, exact in float64 on small
// integers (every product and partial sum is an integer below 2^53), for every mode.
TEST(PadBackwardRef, IsTheAdjointOfTheForward) {
  std::mt19937_64 rng(testing::test_seed());
  for (int it = 0; it < 400; ++it) {
    RandomProblem p = random_problem(rng);
    p.dtype = DType::kFloat64;
    SCOPED_TRACE("problem " + std::to_string(it) + ": mode " + to_string(p.desc.mode) +
                 " shape " + dims_to_string(p.shape) + " begin " +
                 dims_to_string(p.desc.pads_begin) + " end " + dims_to_string(p.desc.pads_end));
    Tensor x(DType::kFloat64, p.shape);
    const Dims dst_shape = *pad_output_shape(p.desc, p.shape);
    Tensor g(DType::kFloat64, dst_shape);
    auto small_ints = [&](Tensor& t) {
      double* v = static_cast<double*>(t.mutable_view().mutable_data());
      for (int64_t i = 0; i < t.num_elements(); ++i) v[i] = static_cast<double>(rng() % 17) - 8;
    };
    small_ints(x);
    small_ints(g);
    const Tensor px = run_impl(p.desc, "ref", x.view(), nullptr);  // zero pad value
    const Tensor bg = backward_impl(p.desc, "ref", g.view(), p.shape, false);
    double lhs = 0, rhs = 0;
    for (int64_t i = 0; i < g.num_elements(); ++i) {
      lhs += testing::element_as_double(px, i) * testing::element_as_double(g, i);
    }
    for (int64_t i = 0; i < x.num_elements(); ++i) {
      rhs += testing::element_as_double(x, i) * testing::element_as_double(bg, i);
    }
    ASSERT_EQ(lhs, rhs);
  }
}

Tensor vector_of(DType dt, const std::vector<double>& v) {
  Tensor t(dt, Dims{static_cast<int64_t>(v.size())});
  for (size_t i = 0; i < v.size(); ++i) {
    if (dt == DType::kFloat32) {
      static_cast<float*>(t.mutable_view().mutable_data())[i] = static_cast<float>(v[i]);
    } else {
      static_cast<double*>(t.mutable_view().mutable_data())[i] = v[i];
    }
  }
  return t;
}

// 1-D reflect of [a b c d] by (2, 2) reads [c b a b c d c b]: grad a = g2, b = g1 + g3 + g7,
// c = g0 + g4 + g6, d = g5.
TEST(PadBackwardRef, HandComputedReflect) {
  PadDesc desc;
  desc.mode = PadMode::kReflect;
  desc.pads_begin = {2};
  desc.pads_end = {2};
  const Tensor g = vector_of(DType::kFloat64, {1, 2, 4, 8, 16, 32, 64, 128});
  for (const char* impl : {"ref", "fast"}) {
    SCOPED_TRACE(impl);
    const Tensor got = backward_impl(desc, impl, g.view(), Dims{4}, false);
    EXPECT_TRUE(testing::bitwise_equal(got, vector_of(DType::kFloat64, {4, 138, 81, 32})));
  }
}

// The sum runs in increasing output position in float32: edge padding of one element by
// (0, 2) reads it three times; grad (1, 1e8, -1e8) sums to (1 + 1e8) - 1e8 = 0 in float32
// (the 1 is lost), where the opposite order would give 1.
TEST(PadBackwardRef, SumsInRowMajorOrderInFloat32) {
  PadDesc desc;
  desc.mode = PadMode::kEdge;
  desc.pads_begin = {0};
  desc.pads_end = {2};
  const Tensor g = vector_of(DType::kFloat32, {1, 1e8, -1e8});
  for (const char* impl : {"ref", "fast"}) {
    SCOPED_TRACE(impl);
    const Tensor got = backward_impl(desc, impl, g.view(), Dims{1}, false);
    EXPECT_EQ(static_cast<const float*>(got.view().data)[0], 0.0f);
  }
}

// Cropped elements and every element of an empty output get +0.
TEST(PadBackwardRef, UnreadElementsGetPositiveZero) {
  PadDesc desc;
  desc.mode = PadMode::kConstant;
  desc.pads_begin = {-2, 0};
  desc.pads_end = {1, -3};  // rows 0, 1 cropped; all 3 columns cropped: an empty output
  Tensor g(DType::kFloat32, *pad_output_shape(desc, Dims{4, 3}));
  ASSERT_EQ(g.num_elements(), 0);
  for (const char* impl : {"ref", "fast"}) {
    const Tensor got = backward_impl(desc, impl, g.view(), Dims{4, 3}, false);
    Tensor zeros(DType::kFloat32, Dims{4, 3});
    EXPECT_TRUE(testing::bitwise_equal(got, zeros)) << impl;
  }
}

// PadDesc::impl forces the list that has the name; the other list chooses by itself.
TEST(PadBackwardPlan, ImplNamesEitherList) {
  PadDesc desc;
  desc.mode = PadMode::kWrap;
  desc.pads_begin = {1, 1};
  desc.pads_end = {1, 1};
  desc.impl = "pad_backward.rows";
  auto a = make_pad_plan(desc, DType::kFloat32, Dims{8, 200});
  ASSERT_TRUE(a.ok()) << a.status().to_string();
  EXPECT_STREQ(a->backward_impl_name(), "pad_backward.rows");
  EXPECT_STRNE(a->impl_name(), "ref");
  desc.impl = "ref";
  auto b = make_pad_plan(desc, DType::kFloat32, Dims{8, 200});
  ASSERT_TRUE(b.ok());
  EXPECT_STREQ(b->backward_impl_name(), "ref");
  EXPECT_STREQ(b->impl_name(), "ref");
  desc.impl = "pad.rows";
  auto c = make_pad_plan(desc, DType::kFloat32, Dims{8, 200});
  ASSERT_TRUE(c.ok());
  EXPECT_STREQ(c->impl_name(), "pad.rows");
  EXPECT_STREQ(c->backward_impl_name(), "pad_backward.rows");
  desc.impl = "pad_backward.nothing";
  auto d = make_pad_plan(desc, DType::kFloat32, Dims{8, 200});
  ASSERT_FALSE(d.ok());
  EXPECT_NE(d.status().message().find("pad_backward.nothing"), std::string::npos);
  // A forced backward entry that declines: the forward runs, backward() says why.
  desc.impl = "pad_backward.rows";
  PadDesc scalar;
  scalar.mode = PadMode::kEdge;
  scalar.impl = "pad_backward.rows";
  auto r0 = make_pad_plan(scalar, DType::kFloat32, Dims{});
  ASSERT_TRUE(r0.ok()) << r0.status().to_string();
  EXPECT_STREQ(r0->backward_impl_name(), "");
  Tensor one(DType::kFloat32, Dims{}), grad_one(DType::kFloat32, Dims{});
  EXPECT_TRUE(r0->run(one.view(), grad_one.mutable_view()).ok());
  const Status declined = r0->backward(one.view(), grad_one.mutable_view());
  EXPECT_EQ(declined.code(), StatusCode::kUnimplemented);
  EXPECT_NE(declined.message().find("rank 0"), std::string::npos) << declined.message();
  desc.impl.clear();
  auto e = make_pad_plan(desc, DType::kInt32, Dims{8, 200});  // forward only
  ASSERT_TRUE(e.ok());
  EXPECT_STREQ(e->backward_impl_name(), "");
}

}  // namespace
}  // namespace gridops
