// The ONNX graph runner: opset handling, ONNX Pad semantics, the Resize mapping, graph checks.
#include "gridops/onnx/model.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

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
  auto m = test::one_node("Pad", 2, {test::value("x", P::INT32, {2})}, {test::value("y", P::INT32, {5})});
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
  Model model = load(m);
  Tensor x(DType::kInt32, {2});
  x.data_as<int32_t>()[0] = 10;
  x.data_as<int32_t>()[1] = 20;
  auto out = model.run(feed("x", std::move(x)));
  ASSERT_TRUE(out.ok()) << out.status().to_string();
  const int32_t* y = out->at("y").data_as<int32_t>();
  // -7.9 converted to int32 truncates toward zero: -7.
  EXPECT_EQ(std::vector<int32_t>(y, y + 5), (std::vector<int32_t>{-7, 10, 20, -7, -7}));
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
  EXPECT_THAT(any.run(in).status().message(), HasSubstr("input 'scales' must be float, got float64"));
  in["scales"] = f32({4}, {1, 1, 2, 2});
  in["roi"] = Tensor(DType::kInt32, {0});
  EXPECT_THAT(any.run(in).status().message(), HasSubstr("input 'roi' must be float16, float or double, got int32"));

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
  EXPECT_EQ(load(m13).check_supported().code(), StatusCode::kUnimplemented);  // not a Resize-13 attribute
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
  EXPECT_EQ(load(m).check_supported().code(), StatusCode::kUnimplemented);
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
  EXPECT_THAT(load(m).check_supported().message(), HasSubstr("unsupported attribute 'antialias'"));
  EXPECT_THAT(Model::parse("\x08\x01\x12", "x.onnx").status().message(), HasSubstr("x.onnx"));
}

}  // namespace
}  // namespace gridops::onnx
