// The ONNX graph runner: opset handling, ONNX Pad semantics, the Resize mapping, graph checks.
#include "gridops/onnx/model.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <tuple>

#include "gridops/onnx/tensor_proto.h"
#include "model_util.h"
#include "proto_convert.h"

namespace gridops::onnx {
namespace {

using ::testing::HasSubstr;
using P = ::onnx::TensorProto;

Model load(const ::onnx::ModelProto& m) {
  auto r = Model::parse(m.SerializeAsString(), "m.onnx");
  EXPECT_TRUE(r.ok()) << r.status().to_string();
  return std::move(r).value();
}

Tensor f32(Dims shape, std::vector<float> v) {
  Tensor t(DType::kFloat32, shape);
  std::copy(v.begin(), v.end(), t.data_as<float>());
  return t;
}
Tensor i64(Dims shape, std::vector<int64_t> v) {
  Tensor t(DType::kInt64, shape);
  std::copy(v.begin(), v.end(), t.data_as<int64_t>());
  return t;
}
std::map<std::string, Tensor> feed(std::string a, Tensor ta) {
  std::map<std::string, Tensor> m;
  m[a] = std::move(ta);
  return m;
}
std::map<std::string, Tensor> feed(std::string a, Tensor ta, std::string b, Tensor tb) {
  std::map<std::string, Tensor> m = feed(a, std::move(ta));
  m[b] = std::move(tb);
  return m;
}

std::vector<float> values(const Tensor& t) {
  return std::vector<float>(t.data_as<float>(), t.data_as<float>() + t.num_elements());
}

::onnx::ModelProto pad_model(int64_t opset, const std::string& mode, bool with_axes) {
  std::vector<::onnx::ValueInfoProto> ins = {test::value("x", P::FLOAT, {-1}), test::value("pads", P::INT64, {-1})};
  auto m = test::one_node("Pad", opset, ins, {test::value("y", P::FLOAT, {-1})});
  auto* n = m.mutable_graph()->mutable_node(0);
  if (with_axes) {
    n->add_input("");  // no constant_value
    n->add_input("axes");
    *m.mutable_graph()->add_input() = test::value("axes", P::INT64, {-1});
  }
  test::add_attr_string(n, "mode", mode);
  return m;
}

TEST(OnnxPad, NegativePadsCropFirstThenPad) {
  // x = [1 2 3 4 5], pads = [-2, 2]: crop to [3 4 5], then reflect 2 at the end from the
  // cropped data: [3 4 5 4 3]. (Pad-12 semantics on the uncropped data would give 4 3.)
  Model m = load(pad_model(18, "reflect", false));
  std::map<std::string, Tensor> in;
  in["x"] = f32({5}, {1, 2, 3, 4, 5});
  in["pads"] = i64({2}, {-2, 2});
  auto out = m.run(in);
  ASSERT_TRUE(out.ok()) << out.status().to_string();
  EXPECT_EQ(values(out->at("y")), (std::vector<float>{3, 4, 5, 4, 3}));
  // Reflect is bounded by the cropped length: 3 left after cropping 2, so at most 2.
  in["pads"] = i64({2}, {-2, 3});
  auto bad = m.run(in);
  EXPECT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("pad"));
}

TEST(OnnxPad, AxesAndWrapAndSymmetricRejected) {
  auto mm = pad_model(19, "wrap", true);
  Model m = load(mm);
  std::map<std::string, Tensor> in;
  in["x"] = f32({3}, {1, 2, 3});
  in["pads"] = i64({2}, {4, 1});
  in["axes"] = i64({1}, {-1});
  auto out = m.run(in);
  ASSERT_TRUE(out.ok()) << out.status().to_string();
  // wrap is a torus: positions -4..3 -> 3 1 2 3 | 1 2 3 | 1
  EXPECT_EQ(values(out->at("y")), (std::vector<float>{3, 1, 2, 3, 1, 2, 3, 1}));
  in["axes"] = i64({2}, {0, -1});
  in["pads"] = i64({4}, {1, 1, 1, 1});
  EXPECT_THAT(m.run(in).status().message(), HasSubstr("appears more than once in axes"));
  Model w18 = load(pad_model(18, "wrap", true));
  EXPECT_THAT(w18.check_supported().message(), HasSubstr("mode must be one of constant, reflect, edge at opset 18, got 'wrap'"));
  Model sym = load(pad_model(19, "symmetric", false));
  EXPECT_THAT(sym.check_supported().message(), HasSubstr("got 'symmetric'"));
}

TEST(OnnxPad, Opset2AttributesAndValue) {
  auto make = [](int elem) {
    auto m = test::one_node("Pad", 2, {test::value("x", elem, {2})}, {test::value("y", elem, {5})});
    auto* n = m.mutable_graph()->mutable_node(0);
    auto* pads = n->add_attribute();
    pads->set_name("pads");
    pads->set_type(::onnx::AttributeProto::INTS);
    pads->add_ints(1);
    pads->add_ints(2);
    auto* value = n->add_attribute();
    value->set_name("value");
    value->set_type(::onnx::AttributeProto::FLOAT);
    value->set_f(-7.9f);
    return m;
  };
  Model model = load(make(P::FLOAT));
  auto out = model.run(feed("x", f32({2}, {10, 20})));
  ASSERT_TRUE(out.ok()) << out.status().to_string();
  EXPECT_EQ(values(out->at("y")), (std::vector<float>{-7.9f, 10, 20, -7.9f, -7.9f}));
  // Pad-1 and Pad-2 take float types only (schema T): int32 data is an invalid model
  // (issue 11, defect 8: it once ran, truncating the value).
  Status st = load(make(P::INT32)).check_supported();
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(st.message(), HasSubstr("node 0 'Pad_node' (Pad): input 0 'data' ('x') has type int32; Pad-2 allows T in {float16, float32, float64}"));
  // Also when the type is only known at run time (undeclared input type).
  auto undeclared = make(P::FLOAT);
  undeclared.mutable_graph()->mutable_input(0)->mutable_type()->mutable_tensor_type()->set_elem_type(0);
  undeclared.mutable_graph()->mutable_output(0)->mutable_type()->mutable_tensor_type()->set_elem_type(0);
  Model u = load(undeclared);
  ASSERT_TRUE(u.check_supported().ok());
  Tensor x(DType::kInt32, {2});
  auto bad = u.run(feed("x", std::move(x)));
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("has type int32; Pad-2 allows T"));
}

TEST(OnnxGridSample, BothModeSpellingsAtEveryOpset) {
  for (int64_t opset : {16, 20, 22}) {
    for (const char* mode : {"bilinear", "linear", "bicubic", "cubic", "nearest"}) {
      auto m = test::one_node("GridSample", opset,
                              {test::value("X", P::FLOAT, {1, 1, 2, 2}), test::value("grid", P::FLOAT, {1, 1, 1, 2})},
                              {test::value("Y", P::FLOAT, {1, 1, 1, 1})});
      test::add_attr_string(m.mutable_graph()->mutable_node(0), "mode", mode);
      Model model = load(m);
      ASSERT_TRUE(model.check_supported().ok()) << opset << " " << mode;
      std::map<std::string, Tensor> in;
      in["X"] = f32({1, 1, 2, 2}, {1, 2, 3, 4});
      in["grid"] = f32({1, 1, 1, 2}, {0, 0});
      auto out = model.run(in);
      ASSERT_TRUE(out.ok()) << out.status().to_string();
      // The centre of a 2x2 image (align_corners=0): bilinear 2.5; nearest ties to even
      // (x = y = 0.5 -> index 0): 1; bicubic at t = 0.5 is symmetric: 2.5 with border-free
      // zeros padding weights -0.09375, 0.59375, 0.59375, -0.09375 per axis.
      const float y = out->at("Y").data_as<float>()[0];
      if (std::string(mode) == "nearest") {
        EXPECT_EQ(y, 1.0f);
      } else if (std::string(mode).find("cubic") != std::string::npos) {
        // Taps -1 and 2 read zeros: each axis sums 0.59375 * (a + b); 2-D: 0.59375^2 * 10.
        EXPECT_NEAR(y, 0.59375f * 0.59375f * 10.0f, 1e-5f);
      } else {
        EXPECT_FLOAT_EQ(y, 2.5f);
      }
    }
  }
  auto m = test::one_node("GridSample", 15, {test::value("X", P::FLOAT, {1, 1, 2, 2}), test::value("grid", P::FLOAT, {1, 1, 1, 2})},
                          {test::value("Y", P::FLOAT, {1, 1, 1, 1})});
  EXPECT_THAT(load(m).check_supported().message(), HasSubstr("GridSample does not exist at opset 15 (it needs opset >= 16)"));
}

::onnx::ModelProto resize_model(const std::string& mode, const std::string& ctm, const std::string& nearest_mode) {
  auto m = test::one_node("Resize", 19,
                          {test::value("X", P::FLOAT, {1, 1, 2, 2}), test::value("roi", P::FLOAT, {0}),
                           test::value("scales", P::FLOAT, {4})},
                          {test::value("Y", P::FLOAT, {-1, -1, -1, -1})});
  auto* n = m.mutable_graph()->mutable_node(0);
  test::add_attr_string(n, "mode", mode);
  test::add_attr_string(n, "coordinate_transformation_mode", ctm);
  if (!nearest_mode.empty()) test::add_attr_string(n, "nearest_mode", nearest_mode);
  return m;
}

TEST(OnnxResize, EveryModeRunsOnTheLibraryResize) {
  Model lin = load(resize_model("linear", "half_pixel", ""));
  std::map<std::string, Tensor> in;
  in["X"] = f32({1, 1, 2, 2}, {1, 2, 3, 4});
  in["roi"] = Tensor(DType::kFloat32, {0});
  in["scales"] = f32({4}, {1, 1, 2, 2});
  auto out = lin.run(in);
  ASSERT_TRUE(out.ok()) << out.status().to_string();
  ASSERT_EQ(out->at("Y").shape(), (Dims{1, 1, 4, 4}));
  // Row 0 of a 2x -> 4x half-pixel linear resize of [1 2; 3 4]: s = -0.25, 0.25, 0.75, 1.25
  // along W (edge replicated), and the same along H (s = -0.25 -> row 0 only).
  EXPECT_EQ(values(out->at("Y"))[0], 1.0f);
  EXPECT_FLOAT_EQ(values(out->at("Y"))[1], 1.25f);
  EXPECT_FLOAT_EQ(values(out->at("Y"))[2], 1.75f);
  EXPECT_EQ(values(out->at("Y"))[3], 2.0f);
  // A non-integer output length (2 * 0.6 = 1.2 -> 1) and resizing N or C run too.
  in["scales"] = f32({4}, {1, 1, 0.6f, 0.6f});
  out = lin.run(in);
  ASSERT_TRUE(out.ok()) << out.status().to_string();
  EXPECT_EQ(out->at("Y").shape(), (Dims{1, 1, 1, 1}));
  in["scales"] = f32({4}, {2, 1, 1, 1});
  out = lin.run(in);
  ASSERT_TRUE(out.ok()) << out.status().to_string();
  EXPECT_EQ(out->at("Y").shape(), (Dims{2, 1, 2, 2}));
  // Type and count checks on the node's inputs (graph inputs of unknown type and shape).
  auto loose = resize_model("linear", "half_pixel", "");
  for (auto& gi : *loose.mutable_graph()->mutable_input()) {
    if (gi.name() != "X") gi = test::value(gi.name(), 0, {-1});
  }
  Model any = load(loose);
  in["scales"] = f32({2}, {2, 2});
  EXPECT_THAT(any.run(in).status().message(), HasSubstr("scales must have one value per input axis (4), got 2"));
  in["scales"] = Tensor(DType::kFloat64, {4});
  EXPECT_THAT(any.run(in).status().message(), HasSubstr("input 2 'scales' ('scales') has type float64; Resize-19 allows tensor(float) in {float32}"));
  in["scales"] = f32({4}, {1, 1, 2, 2});
  in["roi"] = Tensor(DType::kInt32, {0});
  EXPECT_THAT(any.run(in).status().message(), HasSubstr("input 1 'roi' ('roi') has type int32; Resize-19 allows T2 in {float16, float32, float64}"));

  for (const char* mode : {"nearest", "linear", "cubic"}) {
    for (const char* ctm : {"half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric", "tf_half_pixel_for_nn",
                            "half_pixel_symmetric", "tf_crop_and_resize"}) {
      EXPECT_TRUE(load(resize_model(mode, ctm, "")).check_supported().ok()) << mode << " " << ctm;
    }
  }
  for (const char* nm : {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"}) {
    EXPECT_TRUE(load(resize_model("nearest", "half_pixel", nm)).check_supported().ok()) << nm;
  }
  Status s = load(resize_model("nearest", "half_pixel", "simple")).check_supported();
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("node 0 'Resize_node' (Resize): nearest_mode must be one of round_prefer_floor"));
  EXPECT_THAT(load(resize_model("area", "half_pixel", "")).check_supported().message(),
              HasSubstr("mode must be one of nearest, linear, cubic at Resize-19, got 'area'"));
  auto m18 = resize_model("linear", "half_pixel_symmetric", "");
  m18.mutable_opset_import(0)->set_version(18);
  EXPECT_THAT(load(m18).check_supported().message(), HasSubstr("'half_pixel_symmetric' needs Resize-19, got Resize-18"));
  auto aa = resize_model("nearest", "half_pixel", "");
  test::add_attr_int(aa.mutable_graph()->mutable_node(0), "antialias", 1);
  EXPECT_THAT(load(aa).check_supported().message(), HasSubstr("antialias applies to linear and cubic"));
  auto m13 = resize_model("linear", "half_pixel", "");
  m13.mutable_opset_import(0)->set_version(13);
  test::add_attr_int(m13.mutable_graph()->mutable_node(0), "antialias", 1);
  // Not a Resize-13 attribute: the schema check rejects the model as invalid.
  Status s13 = load(m13).check_supported();
  EXPECT_EQ(s13.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(s13.message(), HasSubstr("antialias"));
}

TEST(OnnxResize, Resize10IsAsymmetricWithItsNearestRule) {
  auto m = test::one_node("Resize", 10, {test::value("X", P::FLOAT, {1, 1, 1, 4}), test::value("scales", P::FLOAT, {4})},
                          {test::value("Y", P::FLOAT, {-1, -1, -1, -1})});
  test::add_attr_string(m.mutable_graph()->mutable_node(0), "mode", "nearest");
  Model r10 = load(m);
  std::map<std::string, Tensor> in;
  in["X"] = f32({1, 1, 1, 4}, {1, 2, 3, 4});
  in["scales"] = f32({4}, {1, 1, 1, 0.6f});  // out 2: x = 0, 1.667 -> ceil when downsampling
  auto out = r10.run(in);
  ASSERT_TRUE(out.ok()) << out.status().to_string();
  EXPECT_EQ(values(out->at("Y")), (std::vector<float>{1, 3}));
  in["scales"] = f32({4}, {1, 1, 1, 1.5f});  // out 6: x = 0, .67, 1.33, 2, 2.67, 3.33 -> floor
  out = r10.run(in);
  ASSERT_TRUE(out.ok()) << out.status().to_string();
  EXPECT_EQ(values(out->at("Y")), (std::vector<float>{1, 1, 2, 3, 3, 4}));
  test::add_attr_string(m.mutable_graph()->mutable_node(0), "coordinate_transformation_mode", "half_pixel");
  Status s10 = load(m).check_supported();  // not a Resize-10 attribute
  EXPECT_EQ(s10.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(s10.message(), HasSubstr("coordinate_transformation_mode"));
}

// A 1.5x half_pixel linear Resize, value by value against the ONNX formula computed here
// (x_in = (x_out + 0.5) / scale - 0.5, clamped to [0, len - 1], then separable linear).
TEST(OnnxResize, OneAndAHalfTimesMatchesTheOnnxFormula) {
  auto mp = resize_model("linear", "half_pixel", "");
  mp.mutable_graph()->mutable_input(0)->mutable_type()->mutable_tensor_type()->clear_shape();
  Model lin = load(mp);
  const int64_t H = 4, W = 6, C = 2;
  std::vector<float> xv(static_cast<size_t>(C * H * W));
  for (size_t i = 0; i < xv.size(); ++i) xv[i] = static_cast<float>((i * 37) % 23) - 11.0f + 0.25f * static_cast<float>(i % 3);
  std::map<std::string, Tensor> in;
  in["X"] = f32({1, C, H, W}, xv);
  in["roi"] = Tensor(DType::kFloat32, {0});
  in["scales"] = f32({4}, {1, 1, 1.5f, 1.5f});
  auto out = lin.run(in);
  ASSERT_TRUE(out.ok()) << out.status().to_string();
  const int64_t OH = 6, OW = 9;
  ASSERT_EQ(out->at("Y").shape(), (Dims{1, C, OH, OW}));
  auto taps = [](int64_t o, int64_t len) {
    double x = (static_cast<double>(o) + 0.5) / 1.5 - 0.5;
    x = std::min(std::max(x, 0.0), static_cast<double>(len - 1));
    const auto i0 = static_cast<int64_t>(std::floor(x));
    const int64_t i1 = std::min(i0 + 1, len - 1);
    return std::make_tuple(i0, i1, x - static_cast<double>(i0));
  };
  const std::vector<float> y = values(out->at("Y"));
  for (int64_t c = 0; c < C; ++c) {
    for (int64_t oh = 0; oh < OH; ++oh) {
      for (int64_t ow = 0; ow < OW; ++ow) {
        const auto [h0, h1, fh] = taps(oh, H);
        const auto [w0, w1, fw] = taps(ow, W);
        auto at = [&](int64_t h, int64_t w) { return static_cast<double>(xv[static_cast<size_t>((c * H + h) * W + w)]); };
        const double want = (1 - fh) * ((1 - fw) * at(h0, w0) + fw * at(h0, w1)) + fh * ((1 - fw) * at(h1, w0) + fw * at(h1, w1));
        EXPECT_NEAR(y[static_cast<size_t>((c * OH + oh) * OW + ow)], want, 1e-5 * (1 + std::fabs(want)))
            << "c " << c << " h " << oh << " w " << ow;
      }
    }
  }
}

TEST(OnnxGraph, RunsNodesStoredOutOfOrderAndChecksTheGraph) {
  // y = Identity(Gather(c, idx)) with c a Constant; nodes stored in reverse order.
  ::onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(13);
  auto* g = m.mutable_graph();
  *g->add_input() = test::value("idx", P::INT64, {1});
  *g->add_output() = test::value("y", P::FLOAT, {1, 2});
  auto* id = g->add_node();
  id->set_op_type("Identity");
  id->add_input("g");
  id->add_output("y");
  auto* ga = g->add_node();
  ga->set_op_type("Gather");
  ga->add_input("c");
  ga->add_input("idx");
  ga->add_output("g");
  auto* c = g->add_node();
  c->set_op_type("Constant");
  c->add_output("c");
  auto* a = c->add_attribute();
  a->set_name("value");
  a->set_type(::onnx::AttributeProto::TENSOR);
  ASSERT_TRUE(tensor_to_proto(f32({2, 2}, {1, 2, 3, 4}), "c", a->mutable_t()).ok());
  Model model = load(m);
  auto out = model.run(feed("idx", i64({1}, {-1})));
  ASSERT_TRUE(out.ok()) << out.status().to_string();
  EXPECT_EQ(values(out->at("y")), (std::vector<float>{3, 4}));
  // Unknown input name, missing input.
  EXPECT_THAT(model.run(feed("idx", i64({1}, {0}), "bogus", i64({1}, {0}))).status().message(),
              HasSubstr("the model has no input named 'bogus'"));
  EXPECT_THAT(model.run({}).status().message(), HasSubstr("missing input 'idx'"));
  // A cycle.
  ga->set_input(0, "y");
  EXPECT_THAT(load(m).check_supported().message(), HasSubstr("cycle"));
  // An undefined input.
  ga->set_input(0, "nowhere");
  EXPECT_THAT(load(m).check_supported().message(), HasSubstr("input 'nowhere' is not defined"));
}

TEST(OnnxGraph, OtherDomainsAndUnknownAttributesAreRejected) {
  auto m = test::one_node("GridSample", 20, {test::value("X", P::FLOAT, {1, 1, 2, 2}), test::value("grid", P::FLOAT, {1, 1, 1, 2})},
                          {test::value("Y", P::FLOAT, {1, 1, 1, 1})});
  m.mutable_graph()->mutable_node(0)->set_domain("com.microsoft");
  EXPECT_THAT(load(m).check_supported().message(), HasSubstr("domain 'com.microsoft' is not supported"));
  m.mutable_graph()->mutable_node(0)->set_domain("");
  test::add_attr_int(m.mutable_graph()->mutable_node(0), "antialias", 1);
  // Not in GridSample's schema: an invalid model (issue 11, defect 8), not an unsupported one.
  Status st = load(m).check_supported();
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(st.message(), HasSubstr("attribute 'antialias' does not exist in GridSample-20 (its attributes: align_corners, mode, padding_mode)"));
  EXPECT_THAT(Model::parse("\x08\x01\x12", "x.onnx").status().message(), HasSubstr("x.onnx"));
}

// Issue 11, defect 1: a tensor over RunOptions::max_tensor_bytes is kOutOfMemory naming the
// node and the size, before it is allocated.
TEST(OnnxRun, TensorCapIsOutOfMemoryNamingTheNode) {
  Model m = load(pad_model(13, "constant", false));
  RunOptions opt;
  opt.max_tensor_bytes = 1 << 20;
  auto out = m.run(feed("x", f32({2}, {1, 2}), "pads", i64({2}, {0, 1 << 20})), opt);
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), StatusCode::kOutOfMemory);
  EXPECT_THAT(out.status().message(), HasSubstr("node 0 'Pad_node' (Pad)"));
  EXPECT_THAT(out.status().message(), HasSubstr("4194312 bytes"));
  EXPECT_THAT(out.status().message(), HasSubstr("limit of 1048576 bytes"));
  // Under the cap it runs; the cap does not outlive the run.
  auto small = m.run(feed("x", f32({2}, {1, 2}), "pads", i64({2}, {0, 1})), opt);
  ASSERT_TRUE(small.ok()) << small.status().to_string();
  auto big = m.run(feed("x", f32({2}, {1, 2}), "pads", i64({2}, {0, 1 << 20})));
  ASSERT_TRUE(big.ok()) << big.status().to_string();
}

// Identity shares its input; outputs that are one tensor under two names, or a graph input,
// are still separate results with the right values.
TEST(OnnxRun, AliasedOutputsAreSeparateResults) {
  auto mp = test::one_node("Identity", 13, {test::value("x", P::FLOAT, {2})}, {test::value("a", P::FLOAT, {2})});
  auto* g = mp.mutable_graph();
  auto* n2 = g->add_node();
  n2->set_op_type("Identity");
  n2->add_input("a");
  n2->add_output("b");
  *g->add_output() = test::value("b", P::FLOAT, {2});
  *g->add_output() = test::value("x", P::FLOAT, {2});
  Model m = load(mp);
  auto out = m.run(feed("x", f32({2}, {1.5f, -2})));
  ASSERT_TRUE(out.ok()) << out.status().to_string();
  ASSERT_EQ(out->size(), 3u);
  for (const char* name : {"a", "b", "x"}) EXPECT_EQ(values(out->at(name)), (std::vector<float>{1.5f, -2})) << name;
  EXPECT_NE(out->at("a").data(), out->at("b").data());
}

// Issue 11, defect 5: an input with an initializer is optional and may be overridden.
TEST(OnnxRun, InitializersAreDefaultsThatInputsOverride) {
  auto mp = pad_model(13, "constant", false);
  ::onnx::TensorProto p;
  p.set_name("pads");
  p.set_data_type(P::INT64);
  p.add_dims(2);
  p.add_int64_data(1);
  p.add_int64_data(0);
  *mp.mutable_graph()->add_initializer() = p;
  Model m = load(mp);
  ASSERT_EQ(m.inputs().size(), 1u);
  ASSERT_EQ(m.inputs_with_initializers().size(), 1u);
  auto out = m.run(feed("x", f32({2}, {1, 2})));
  ASSERT_TRUE(out.ok()) << out.status().to_string();
  EXPECT_EQ(values(out->at("y")), (std::vector<float>{0, 1, 2}));
  out = m.run(feed("x", f32({2}, {1, 2}), "pads", i64({2}, {0, 2})));
  ASSERT_TRUE(out.ok()) << out.status().to_string();
  EXPECT_EQ(values(out->at("y")), (std::vector<float>{1, 2, 0, 0}));
  // An initializer that is not a graph input is a constant: it cannot be overridden.
  auto hidden = pad_model(13, "constant", false);
  hidden.mutable_graph()->mutable_input()->RemoveLast();
  *hidden.mutable_graph()->add_initializer() = p;
  Model h = load(hidden);
  EXPECT_TRUE(h.inputs_with_initializers().empty());
  auto refused = h.run(feed("x", f32({2}, {1, 2}), "pads", i64({2}, {0, 2})));
  ASSERT_FALSE(refused.ok());
  EXPECT_THAT(refused.status().message(), HasSubstr("the model has no input named 'pads'"));
}

// Issue 11, defect 8: the schema type constraints of every supported op, on inputs, outputs
// and attributes, rejected before running with the node, the input, the type and the types
// allowed.
TEST(OnnxSchema, TypeConstraintsAreEnforced) {
  struct Case {
    const char* what;
    ::onnx::ModelProto model;
    const char* message;  // "" when the model is valid
  };
  auto two = [](const char* op, int64_t opset, int a, Dims da, int b, Dims db, int out, Dims dout) {
    return test::one_node(op, opset, {test::value("a", a, da), test::value("b", b, db)}, {test::value("y", out, dout)});
  };
  std::vector<Case> cases;
  cases.push_back({"AffineGrid size int32", two("AffineGrid", 20, P::FLOAT, {1, 2, 3}, P::INT32, {4}, P::FLOAT, {-1, -1, -1, 2}),
                   "input 1 'size' ('b') has type int32; AffineGrid-20 allows T2 in {int64}"});
  cases.push_back({"AffineGrid theta int64", two("AffineGrid", 20, P::INT64, {1, 2, 3}, P::INT64, {4}, P::INT64, {-1, -1, -1, 2}),
                   "input 0 'theta' ('a') has type int64; AffineGrid-20 allows T1 in {bfloat16, float16, float32, float64}"});
  cases.push_back({"Gather float indices", two("Gather", 13, P::FLOAT, {3}, P::FLOAT, {1}, P::FLOAT, {1}),
                   "input 1 'indices' ('b') has type float32; Gather-13 allows Tind in {int32, int64}"});
  cases.push_back({"Gather-11 bfloat16", two("Gather", 11, P::BFLOAT16, {3}, P::INT64, {1}, P::BFLOAT16, {1}),
                   "has type bfloat16; Gather-11 allows T in"});
  cases.push_back({"Gather-13 bfloat16", two("Gather", 13, P::BFLOAT16, {3}, P::INT64, {1}, P::BFLOAT16, {1}), ""});
  cases.push_back({"GridSample int grid", two("GridSample", 20, P::FLOAT, {1, 1, 2, 2}, P::INT64, {1, 1, 1, 2}, P::FLOAT, {1, 1, 1, 1}),
                   "input 1 'grid' ('b') has type int64; GridSample-20 allows T2 in {float16, float32, float64}"});
  cases.push_back({"GridSample-16 bfloat16", two("GridSample", 16, P::BFLOAT16, {1, 1, 2, 2}, P::FLOAT, {1, 1, 1, 2}, P::BFLOAT16, {1, 1, 1, 1}),
                   "has type bfloat16; GridSample-16 allows T1"});
  cases.push_back({"GridSample-22 bfloat16", two("GridSample", 22, P::BFLOAT16, {1, 1, 2, 2}, P::BFLOAT16, {1, 1, 1, 2}, P::BFLOAT16, {1, 1, 1, 1}), ""});
  cases.push_back({"declared output type", two("GridSample", 20, P::FLOAT, {1, 1, 2, 2}, P::FLOAT, {1, 1, 1, 2}, P::DOUBLE, {1, 1, 1, 1}),
                   "graph output 'y' is declared float64 but computed as float32"});
  cases.push_back({"Pad-11 pads int32", two("Pad", 11, P::FLOAT, {2}, P::INT32, {2}, P::FLOAT, {-1}),
                   "input 1 'pads' ('b') has type int32; Pad-11 allows tensor(int64) in {int64}"});
  cases.push_back({"Pad-11 bool", two("Pad", 11, P::BOOL, {2}, P::INT64, {2}, P::BOOL, {-1}), "has type bool; Pad-11 allows T in"});
  cases.push_back({"Pad-13 bool", two("Pad", 13, P::BOOL, {2}, P::INT64, {2}, P::BOOL, {-1}), ""});
  {
    auto m = two("Pad", 13, P::FLOAT, {2}, P::INT64, {2}, P::FLOAT, {-1});
    m.mutable_graph()->mutable_node(0)->add_input("c");
    *m.mutable_graph()->add_input() = test::value("c", P::DOUBLE, {});
    cases.push_back({"Pad constant_value type", m,
                     "input 2 'constant_value' ('c') has type float64 but input 0 'data' ('a') has type float32; Pad-13 requires one type T for both"});
  }
  {
    auto m = test::one_node("Identity", 1, {test::value("a", P::BFLOAT16, {2})}, {test::value("y", P::BFLOAT16, {2})});
    cases.push_back({"Identity-1 bfloat16", m, "has type bfloat16; Identity-1 allows T"});
    cases.push_back({"Identity-13 bfloat16", test::one_node("Identity", 13, {test::value("a", P::BFLOAT16, {2})}, {test::value("y", P::BFLOAT16, {2})}), ""});
  }
  {
    auto m = test::one_node("Constant", 11, {}, {test::value("y", P::FLOAT, {})});
    auto* a = m.mutable_graph()->mutable_node(0)->add_attribute();
    a->set_name("value_float");
    a->set_type(::onnx::AttributeProto::FLOAT);
    a->set_f(1);
    cases.push_back({"Constant-11 value_float", m, "attribute 'value_float' does not exist in Constant-11"});
    m.mutable_opset_import(0)->set_version(12);
    cases.push_back({"Constant-12 value_float", m, ""});
    auto c1 = test::one_node("Constant", 1, {}, {test::value("y", P::INT64, {1})});
    auto* t = c1.mutable_graph()->mutable_node(0)->add_attribute();
    t->set_name("value");
    t->set_type(::onnx::AttributeProto::TENSOR);
    t->mutable_t()->set_data_type(P::INT64);
    t->mutable_t()->add_dims(1);
    t->mutable_t()->add_int64_data(3);
    cases.push_back({"Constant-1 int64", c1, "output 0 'output' ('y') has type int64; Constant-1 allows T in {float16, float32, float64}"});
  }
  {
    auto m = two("GridSample", 20, P::FLOAT, {1, 1, 2, 2}, P::FLOAT, {1, 1, 1, 2}, P::FLOAT, {1, 1, 1, 1});
    test::add_attr_int(m.mutable_graph()->mutable_node(0), "mode", 1);
    cases.push_back({"GridSample mode INT", m, "attribute 'mode' must be of type STRING in GridSample-20, got INT"});
  }
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    auto parsed = Model::parse(c.model.SerializeAsString(), "m.onnx");
    ASSERT_TRUE(parsed.ok()) << parsed.status().to_string();
    Status st = parsed->check_supported();
    if (std::string(c.message).empty()) {
      EXPECT_TRUE(st.ok()) << st.to_string();
    } else {
      EXPECT_EQ(st.code(), StatusCode::kInvalidArgument) << st.to_string();
      EXPECT_THAT(st.message(), HasSubstr(c.message));
      if (std::string(c.what) != "declared output type") {
        EXPECT_THAT(st.message(), HasSubstr("node 0"));
      }
    }
  }
}

}  // namespace
}  // namespace gridops::onnx
