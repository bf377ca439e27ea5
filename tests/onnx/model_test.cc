// The ONNX graph runner: opset handling, ONNX Pad semantics, the Resize subset, graph checks.
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

TEST(OnnxResize, ExactSubsetRunsAndTheRestIsUnsupported) {
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
  in["scales"] = f32({4}, {1, 1, 1.5f, 1.5f});  // 2 * 1.5 = 3: exact
  EXPECT_TRUE(lin.run(in).ok());
  in["scales"] = f32({4}, {1, 1, 0.6f, 0.6f});  // 1.2: not exact
  auto skip = lin.run(in);
  EXPECT_EQ(skip.status().code(), StatusCode::kUnimplemented);
  EXPECT_THAT(skip.status().message(), HasSubstr("non-integer output length"));
  in["scales"] = f32({4}, {2, 1, 1, 1});
  EXPECT_THAT(lin.run(in).status().message(), HasSubstr("resizing the N or C axis is not supported"));

  EXPECT_TRUE(load(resize_model("nearest", "half_pixel", "round_prefer_ceil")).check_supported().ok());
  Status s = load(resize_model("nearest", "half_pixel", "round_prefer_floor")).check_supported();
  EXPECT_EQ(s.code(), StatusCode::kUnimplemented);
  EXPECT_THAT(s.message(), HasSubstr("node 0 'Resize_node' (Resize): nearest_mode 'round_prefer_floor' is not supported"));
  EXPECT_THAT(load(resize_model("cubic", "half_pixel", "")).check_supported().message(), HasSubstr("mode 'cubic' is not supported"));
  EXPECT_THAT(load(resize_model("linear", "align_corners", "")).check_supported().message(),
              HasSubstr("coordinate_transformation_mode 'align_corners' is not supported"));
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
