// Test helpers: build small ONNX models in memory.
#pragma once

#include <onnx/onnx_pb.h>

#include <string>
#include <vector>

namespace gridops::onnx::test {

inline ::onnx::ValueInfoProto value(const std::string& name, int elem_type, std::vector<int64_t> dims) {
  ::onnx::ValueInfoProto v;
  v.set_name(name);
  auto* tt = v.mutable_type()->mutable_tensor_type();
  tt->set_elem_type(elem_type);
  auto* shape = tt->mutable_shape();
  for (int64_t d : dims) {
    if (d < 0) shape->add_dim()->set_dim_param("n");
    else shape->add_dim()->set_dim_value(d);
  }
  return v;
}

/// A one-node model: op with the given inputs/outputs and opset.
inline ::onnx::ModelProto one_node(const std::string& op, int64_t opset,
                                   std::vector<::onnx::ValueInfoProto> inputs,
                                   std::vector<::onnx::ValueInfoProto> outputs) {
  ::onnx::ModelProto m;
  m.set_ir_version(8);
  auto* os = m.add_opset_import();
  os->set_domain("");
  os->set_version(opset);
  auto* g = m.mutable_graph();
  g->set_name("g");
  auto* n = g->add_node();
  n->set_op_type(op);
  n->set_name(op + "_node");
  for (auto& i : inputs) {
    n->add_input(i.name());
    *g->add_input() = i;
  }
  for (auto& o : outputs) {
    n->add_output(o.name());
    *g->add_output() = o;
  }
  return m;
}

inline void add_attr_int(::onnx::NodeProto* n, const std::string& name, int64_t v) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(::onnx::AttributeProto::INT);
  a->set_i(v);
}
inline void add_attr_string(::onnx::NodeProto* n, const std::string& name, const std::string& v) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(::onnx::AttributeProto::STRING);
  a->set_s(v);
}

}  // namespace gridops::onnx::test
