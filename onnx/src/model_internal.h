// Internal to the ONNX model (model.cc loads and checks a graph, model_run.cc runs it):
// the model's state, node labels, typed attribute access, and the per-node static checks
// both halves use (a node runs only after check_node accepts it).
#pragma once

#include <algorithm>
#include <initializer_list>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <onnx/onnx_pb.h>

#include "gridops/gridops.h"
#include "gridops/onnx/model.h"

namespace gridops::onnx {

struct Model::Impl {
  ::onnx::ModelProto proto;
  std::string what;
  std::vector<ValueInfo> inputs, outputs;
  std::vector<ValueInfo> initializer_inputs;  // graph inputs with an initializer (defaults)
  std::vector<NodeInfo> nodes;
  std::map<std::string, int64_t> opsets;
  std::map<std::string, Tensor> initializers;
  std::map<int, Tensor> constants;  // node index -> the value of a Constant 'value' attribute
  std::vector<int> order;  // topological order of graph nodes
  Status graph_status;     // why the graph cannot run (set at load; reported by check)
};

namespace detail {

using NodeProto = ::onnx::NodeProto;
using AttributeProto = ::onnx::AttributeProto;

/// "node 3 'name' (domain.Op)": how errors name a node.
std::string node_label(const NodeProto& n, int index);

inline const AttributeProto* find_attr(const NodeProto& n, std::string_view name) {
  for (const auto& a : n.attribute())
    if (a.name() == name) return &a;
  return nullptr;
}

// Attribute access with type checks; errors name the node and attribute.
struct Attrs {
  const NodeProto& n;
  std::string label;

  Status type_error(const AttributeProto& a, const char* want) const {
    return invalid_argument(label, ": attribute '", a.name(), "' must be ", want);
  }
  StatusOr<int64_t> get_int(std::string_view name, int64_t def) const {
    const AttributeProto* a = find_attr(n, name);
    if (!a) return def;
    if (a->type() != AttributeProto::INT) return type_error(*a, "an int");
    return static_cast<int64_t>(a->i());
  }
  StatusOr<float> get_float(std::string_view name, float def) const {
    const AttributeProto* a = find_attr(n, name);
    if (!a) return def;
    if (a->type() != AttributeProto::FLOAT) return type_error(*a, "a float");
    return a->f();
  }
  StatusOr<std::string> get_string(std::string_view name, std::string def) const {
    const AttributeProto* a = find_attr(n, name);
    if (!a) return def;
    if (a->type() != AttributeProto::STRING) return type_error(*a, "a string");
    return a->s();
  }
  StatusOr<Dims> get_ints(std::string_view name) const {
    const AttributeProto* a = find_attr(n, name);
    if (!a) return Dims{};
    if (a->type() != AttributeProto::INTS) return type_error(*a, "a list of ints");
    return Dims(a->ints().begin(), a->ints().end());
  }
  bool has(std::string_view name) const { return find_attr(n, name) != nullptr; }
  Status only(std::initializer_list<std::string_view> allowed) const {
    for (const auto& a : n.attribute()) {
      if (std::find(allowed.begin(), allowed.end(), a.name()) == allowed.end()) {
        return unimplemented(label, ": unsupported attribute '", a.name(), "'");
      }
    }
    return Status();
  }
};

/// The ResizeDesc of a Resize node's attributes at the op's `version` (docs/onnx.md, "Resize").
StatusOr<ResizeDesc> resize_desc(const NodeProto& n, int64_t version, const std::string& label);

/// Static (value-independent) checks of one node: op, domain, opset, attributes; sets
/// *version to the op's since-version in effect at `opset`.
/// The custom domain of gridops' own nodes (docs/onnx.md, "The custom domain ai.gridops").
inline constexpr const char* kGridopsDomain = "ai.gridops";

/// The GridSampleDesc of an ai.gridops::GridSample node (every gridops attribute: layout,
/// the extension paddings with fill_value, grid_units, grid_kind), checked.
StatusOr<GridSampleDesc> gridops_grid_sample_desc(const NodeProto& n, const std::string& label);

/// An ai.gridops::AffineGrid node: AffineGrid-20 with `size` as an attribute.
struct GridopsAffineGrid {
  AffineGridDesc desc;
  Dims size;
};
StatusOr<GridopsAffineGrid> gridops_affine_grid_desc(const NodeProto& n, const std::string& label);

Status check_node(const NodeProto& n, int index, int64_t opset, int64_t* version);

}  // namespace detail
}  // namespace gridops::onnx
