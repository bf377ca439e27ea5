#include "gridops/onnx/model.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>

#include "gridops/gridops.h"
#include "gridops/onnx/tensor_proto.h"
#include "file_io.h"
#include "proto_convert.h"
#include "schema.h"

namespace gridops::onnx {

using NodeProto = ::onnx::NodeProto;
using AttributeProto = ::onnx::AttributeProto;

std::string ValueInfo::to_string() const {
  std::ostringstream os;
  os << (type_known ? gridops::to_string(dtype) : "?");
  if (!rank_known) return os.str() + "[?]";
  os << '[';
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i) os << ", ";
    if (!dim_names[i].empty()) os << dim_names[i];
    else if (dims[i] < 0) os << '?';
    else os << dims[i];
  }
  os << ']';
  return os.str();
}

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

namespace {

std::string node_label(const NodeProto& n, int index) {
  std::ostringstream os;
  os << "node " << index;
  if (!n.name().empty()) os << " '" << n.name() << "'";
  os << " (" << (n.domain().empty() ? "" : n.domain() + ".") << n.op_type() << ")";
  return os.str();
}

const AttributeProto* find_attr(const NodeProto& n, std::string_view name) {
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

// The version of `op` in effect for a model importing `opset`: the largest since-version
// <= opset, or -1 when the op does not exist yet at that opset.
int64_t op_version(std::initializer_list<int64_t> versions, int64_t opset) {
  int64_t v = -1;
  for (int64_t s : versions)
    if (s <= opset) v = s;
  return v;
}

struct OpSpec {
  const char* op;
  std::initializer_list<int64_t> versions;
};
const OpSpec kOps[] = {
    {"GridSample", {16, 20, 22}},
    {"AffineGrid", {20}},
    {"Gather", {1, 11, 13}},
    {"Pad", {1, 2, 11, 13, 18, 19, 21, 23, 24, 25}},
    {"Resize", {10, 11, 13, 18, 19}},
    {"Constant", {1, 9, 11, 12, 13, 19, 21, 23, 24, 25}},
    {"Identity", {1, 13, 14, 16, 19, 21, 23, 24, 25}},
};

// The ResizeDesc of a Resize node's attributes (docs/onnx.md, "Resize"): Resize-10 is
// asymmetric with the Resize-10 nearest rule; 11 and 13 add the coordinate modes, cubic and
// crop-and-resize; 18 antialias, axes and keep_aspect_ratio_policy; 19 half_pixel_symmetric.
StatusOr<ResizeDesc> resize_desc(const NodeProto& n, int64_t version, const std::string& label) {
  Attrs at{n, label};
  ResizeDesc d;
  auto bad = [&](const Status& s) { return invalid_argument(label, ": ", s.message()); };
  GRIDOPS_ASSIGN_OR_RETURN(const std::string mode, at.get_string("mode", "nearest"));
  if (mode != "nearest" && mode != "linear" && !(mode == "cubic" && version >= 11)) {
    return invalid_argument(label, ": mode must be one of nearest, linear", version >= 11 ? ", cubic" : "",
                            " at Resize-", version, ", got '", mode, "'");
  }
  auto m = parse_resize_mode(mode);
  if (!m.ok()) return bad(m.status());
  d.mode = *m;
  if (version == 10) {
    GRIDOPS_RETURN_IF_ERROR(at.only({"mode"}));
    d.coordinate_mode = ResizeCoordinateMode::kAsymmetric;
    d.nearest_mode = ResizeNearestMode::kSimple;
    return d;
  }
  if (version < 18) {
    GRIDOPS_RETURN_IF_ERROR(at.only({"mode", "coordinate_transformation_mode", "nearest_mode", "cubic_coeff_a",
                                     "exclude_outside", "extrapolation_value"}));
  } else {
    GRIDOPS_RETURN_IF_ERROR(at.only({"mode", "coordinate_transformation_mode", "nearest_mode", "cubic_coeff_a",
                                     "exclude_outside", "extrapolation_value", "antialias", "axes",
                                     "keep_aspect_ratio_policy"}));
  }
  GRIDOPS_ASSIGN_OR_RETURN(const std::string ctm, at.get_string("coordinate_transformation_mode", "half_pixel"));
  auto c = parse_resize_coordinate_mode(ctm);
  if (!c.ok()) return bad(c.status());
  if (*c == ResizeCoordinateMode::kHalfPixelSymmetric && version < 19) {
    return invalid_argument(label, ": coordinate_transformation_mode 'half_pixel_symmetric' needs Resize-19, got Resize-",
                            version);
  }
  d.coordinate_mode = *c;
  GRIDOPS_ASSIGN_OR_RETURN(const std::string nm, at.get_string("nearest_mode", "round_prefer_floor"));
  auto nmode = parse_resize_nearest_mode(nm);
  if (!nmode.ok() || *nmode == ResizeNearestMode::kSimple) {
    return invalid_argument(label, ": nearest_mode must be one of round_prefer_floor, round_prefer_ceil, floor, ceil, got '",
                            nm, "'");
  }
  d.nearest_mode = *nmode;
  GRIDOPS_ASSIGN_OR_RETURN(const float a, at.get_float("cubic_coeff_a", -0.75f));
  d.cubic_coeff_a = a;
  GRIDOPS_ASSIGN_OR_RETURN(const int64_t ex, at.get_int("exclude_outside", 0));
  if (ex != 0 && ex != 1) return invalid_argument(label, ": exclude_outside must be 0 or 1, got ", ex);
  d.exclude_outside = ex == 1;
  GRIDOPS_ASSIGN_OR_RETURN(const float ev, at.get_float("extrapolation_value", 0.0f));
  d.extrapolation_value = ev;
  GRIDOPS_ASSIGN_OR_RETURN(const int64_t aa, at.get_int("antialias", 0));
  if (aa != 0 && aa != 1) return invalid_argument(label, ": antialias must be 0 or 1, got ", aa);
  d.antialias = aa == 1;
  GRIDOPS_ASSIGN_OR_RETURN(d.axes, at.get_ints("axes"));
  if (at.has("axes") && d.axes.empty()) return invalid_argument(label, ": axes must not be empty when given");
  GRIDOPS_ASSIGN_OR_RETURN(const std::string karp, at.get_string("keep_aspect_ratio_policy", "stretch"));
  auto k = parse_resize_aspect_policy(karp);
  if (!k.ok()) return bad(k.status());
  d.aspect_policy = *k;
  if (d.antialias && d.mode == ResizeMode::kNearest) {
    return invalid_argument(label, ": antialias applies to linear and cubic, got mode nearest");
  }
  return d;
}

// Static (value-independent) checks of one node: op, domain, opset, attributes.
Status check_node(const NodeProto& n, int index, int64_t opset, int64_t* version) {
  const std::string label = node_label(n, index);
  if (!n.domain().empty() && n.domain() != "ai.onnx") {
    return unimplemented(label, ": domain '", n.domain(), "' is not supported (only the default ONNX domain)");
  }
  const OpSpec* spec = nullptr;
  for (const auto& s : kOps)
    if (n.op_type() == s.op) spec = &s;
  if (!spec) {
    return unimplemented(label, ": op '", n.op_type(),
                         "' is not supported (supported: GridSample, AffineGrid, Gather, Pad, "
                         "Resize, Constant, Identity)");
  }
  *version = op_version(spec->versions, opset);
  if (*version < 0) {
    return invalid_argument(label, ": ", n.op_type(), " does not exist at opset ", opset,
                            " (it needs opset >= ", *spec->versions.begin(), ")");
  }
  // The schema first: every attribute exists at this version and has its type.
  GRIDOPS_RETURN_IF_ERROR(detail::check_schema_attributes(n, *version, label));
  Attrs at{n, label};
  const std::string& op = n.op_type();
  if (op == "GridSample") {
    GRIDOPS_RETURN_IF_ERROR(at.only({"align_corners", "mode", "padding_mode"}));
    GRIDOPS_ASSIGN_OR_RETURN(const std::string mode, at.get_string("mode", "linear"));
    GRIDOPS_ASSIGN_OR_RETURN(const std::string pad, at.get_string("padding_mode", "zeros"));
    auto m = parse_interpolation_mode(mode);
    if (!m.ok()) return invalid_argument(label, ": ", m.status().message());
    auto p = parse_grid_padding(pad);
    if (!p.ok()) return invalid_argument(label, ": ", p.status().message());
    GRIDOPS_ASSIGN_OR_RETURN(const int64_t ac, at.get_int("align_corners", 0));
    if (ac != 0 && ac != 1) return invalid_argument(label, ": align_corners must be 0 or 1, got ", ac);
    if (n.input_size() != 2) return invalid_argument(label, ": expected 2 inputs, got ", n.input_size());
  } else if (op == "AffineGrid") {
    GRIDOPS_RETURN_IF_ERROR(at.only({"align_corners"}));
    GRIDOPS_ASSIGN_OR_RETURN(const int64_t ac, at.get_int("align_corners", 0));
    if (ac != 0 && ac != 1) return invalid_argument(label, ": align_corners must be 0 or 1, got ", ac);
    if (n.input_size() != 2) return invalid_argument(label, ": expected 2 inputs, got ", n.input_size());
  } else if (op == "Gather") {
    GRIDOPS_RETURN_IF_ERROR(at.only({"axis"}));
    if (n.input_size() != 2) return invalid_argument(label, ": expected 2 inputs, got ", n.input_size());
  } else if (op == "Pad") {
    if (*version < 11) {
      GRIDOPS_RETURN_IF_ERROR(at.only({"mode", "pads", "paddings", "value"}));
      if (!at.has(*version == 1 ? "paddings" : "pads")) {
        return invalid_argument(label, ": attribute '", *version == 1 ? "paddings" : "pads", "' is required");
      }
      if (n.input_size() != 1) return invalid_argument(label, ": expected 1 input, got ", n.input_size());
    } else {
      GRIDOPS_RETURN_IF_ERROR(at.only({"mode"}));
      const int max_inputs = *version >= 18 ? 4 : 3;
      if (n.input_size() < 2 || n.input_size() > max_inputs) {
        return invalid_argument(label, ": expected 2 to ", max_inputs, " inputs, got ", n.input_size());
      }
    }
    GRIDOPS_ASSIGN_OR_RETURN(const std::string mode, at.get_string("mode", "constant"));
    const bool wrap_ok = *version >= 19;
    if (mode != "constant" && mode != "reflect" && mode != "edge" && !(mode == "wrap" && wrap_ok)) {
      return invalid_argument(label, ": mode must be one of constant, reflect, edge",
                              wrap_ok ? ", wrap" : "", " at opset ", *version, ", got '", mode, "'");
    }
  } else if (op == "Resize") {
    GRIDOPS_ASSIGN_OR_RETURN(const ResizeDesc d, resize_desc(n, *version, label));
    (void)d;
    const int min_inputs = *version == 10 ? 2 : (*version == 11 ? 3 : 1);
    const int max_inputs = *version == 10 ? 2 : 4;
    if (n.input_size() < min_inputs || n.input_size() > max_inputs) {
      return invalid_argument(label, ": expected ", min_inputs, " to ", max_inputs, " inputs at Resize-", *version,
                              ", got ", n.input_size());
    }
  } else if (op == "Constant") {
    if (n.attribute_size() != 1) return invalid_argument(label, ": expected exactly one attribute");
    const auto& a = n.attribute(0);
    static const char* kOk[] = {"value", "value_float", "value_floats", "value_int", "value_ints",
                                "value_string", "value_strings"};
    if (std::find_if(std::begin(kOk), std::end(kOk), [&](const char* k) { return a.name() == k; }) == std::end(kOk)) {
      return unimplemented(label, ": attribute '", a.name(), "' is not supported");
    }
  } else if (op == "Identity") {
    if (n.input_size() != 1) return invalid_argument(label, ": expected 1 input, got ", n.input_size());
  }
  return Status();
}

StatusOr<ValueInfo> value_info(const ::onnx::ValueInfoProto& v, std::string_view what) {
  ValueInfo out;
  out.name = v.name();
  if (v.has_type() && v.type().has_tensor_type()) {
    const auto& tt = v.type().tensor_type();
    if (tt.has_elem_type() && tt.elem_type() != 0) {
      GRIDOPS_ASSIGN_OR_RETURN(out.dtype, dtype_from_onnx(tt.elem_type(), what));
      out.type_known = true;
    }
    if (tt.has_shape()) {
      out.rank_known = true;
      for (const auto& d : tt.shape().dim()) {
        out.dims.push_back(d.has_dim_value() ? d.dim_value() : -1);
        out.dim_names.push_back(d.has_dim_param() ? d.dim_param() : "");
      }
    }
  } else if (v.has_type()) {
    return unimplemented(what, ": value '", v.name(), "' is not a tensor (sequences, maps, sparse and optional values are not supported)");
  }
  return out;
}

std::string describe_attrs(const NodeProto& n) {
  std::ostringstream os;
  bool first = true;
  for (const auto& a : n.attribute()) {
    if (!first) os << ", ";
    first = false;
    os << a.name() << '=';
    switch (a.type()) {
      case AttributeProto::INT: os << a.i(); break;
      case AttributeProto::FLOAT: os << a.f(); break;
      case AttributeProto::STRING: os << a.s(); break;
      case AttributeProto::INTS: {
        os << '[';
        for (int i = 0; i < a.ints_size(); ++i) os << (i ? ", " : "") << a.ints(i);
        os << ']';
        break;
      }
      case AttributeProto::FLOATS: {
        os << '[';
        for (int i = 0; i < a.floats_size(); ++i) os << (i ? ", " : "") << a.floats(i);
        os << ']';
        break;
      }
      case AttributeProto::TENSOR: os << "<tensor " << dims_to_string(Dims(a.t().dims().begin(), a.t().dims().end())) << '>'; break;
      default: os << "<...>"; break;
    }
  }
  return os.str();
}

}  // namespace

StatusOr<Model> Model::parse(std::string_view bytes, std::string_view what) {
  auto impl = std::make_shared<Impl>();
  impl->what = std::string(what);
  if (bytes.size() > static_cast<size_t>(std::numeric_limits<int>::max()) ||
      !impl->proto.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    return invalid_argument(what, ": not a valid ONNX model (protobuf parse failed)");
  }
  const auto& m = impl->proto;
  if (!m.has_graph()) return invalid_argument(what, ": the model has no graph");
  for (const auto& o : m.opset_import()) {
    const std::string d = o.domain() == "ai.onnx" ? "" : o.domain();
    impl->opsets[d] = o.version();
  }
  if (impl->opsets.empty()) impl->opsets[""] = 1;  // IR version <= 2 models import nothing
  const auto& g = m.graph();
  if (g.sparse_initializer_size() > 0) {
    return unimplemented(what, ": sparse initializers are not supported");
  }
  for (const auto& init : g.initializer()) {
    const std::string w = std::string(what) + ": initializer '" + init.name() + "'";
    GRIDOPS_ASSIGN_OR_RETURN(Tensor t, tensor_from_proto(init, w));
    if (!impl->initializers.emplace(init.name(), std::move(t)).second && impl->graph_status.ok()) {
      impl->graph_status = invalid_argument(what, ": initializer '", init.name(), "' is defined more than once");
    }
  }
  std::set<std::string> input_names;
  for (const auto& in : g.input()) {
    if (!input_names.insert(in.name()).second && impl->graph_status.ok()) {
      impl->graph_status = invalid_argument(what, ": graph input '", in.name(), "' is declared more than once");
    }
    GRIDOPS_ASSIGN_OR_RETURN(ValueInfo vi, value_info(in, what));
    if (impl->initializers.count(in.name())) impl->initializer_inputs.push_back(std::move(vi));
    else impl->inputs.push_back(std::move(vi));
  }
  for (const auto& out : g.output()) {
    GRIDOPS_ASSIGN_OR_RETURN(ValueInfo vi, value_info(out, what));
    impl->outputs.push_back(std::move(vi));
  }
  for (const auto& n : g.node()) {
    NodeInfo ni;
    ni.name = n.name();
    ni.op_type = n.op_type();
    ni.domain = n.domain();
    ni.inputs.assign(n.input().begin(), n.input().end());
    ni.outputs.assign(n.output().begin(), n.output().end());
    ni.attributes = describe_attrs(n);
    impl->nodes.push_back(std::move(ni));
  }
  // Constant values are converted once, here, so that a bad one (external data, a payload
  // that does not match its dims) makes check_supported() fail (and `gridops info` say so)
  // instead of only run(); at run time they are used without a copy.
  for (int i = 0; i < g.node_size(); ++i) {
    const NodeProto& n = g.node(i);
    if (n.op_type() != "Constant" || !(n.domain().empty() || n.domain() == "ai.onnx") || n.attribute_size() != 1 ||
        n.attribute(0).name() != "value" || n.attribute(0).type() != AttributeProto::TENSOR) {
      continue;
    }
    auto t = tensor_from_proto(n.attribute(0).t(), std::string(what) + ": " + node_label(n, i) + ": attribute 'value'");
    if (t.ok()) impl->constants.emplace(i, std::move(t).value());
    else if (impl->graph_status.ok()) impl->graph_status = t.status();
  }
  // Topological order (Kahn); also checks that every input is defined exactly once.
  std::map<std::string, int> producer;
  std::set<std::string> available;
  for (const auto& in : impl->inputs) available.insert(in.name);
  for (const auto& [name, t] : impl->initializers) available.insert(name);
  for (int i = 0; i < g.node_size(); ++i) {
    for (const auto& o : g.node(i).output()) {
      if (o.empty()) continue;
      if (producer.count(o) || available.count(o)) {
        impl->graph_status = invalid_argument(what, ": ", node_label(g.node(i), i), ": value '", o, "' is defined more than once");
      }
      producer[o] = i;
    }
  }
  std::vector<int> pending(static_cast<size_t>(g.node_size()), 0);
  std::vector<std::vector<int>> users(static_cast<size_t>(g.node_size()));
  for (int i = 0; i < g.node_size(); ++i) {
    for (const auto& in : g.node(i).input()) {
      if (in.empty() || available.count(in)) continue;
      auto it = producer.find(in);
      if (it == producer.end()) {
        if (impl->graph_status.ok()) {
          impl->graph_status = invalid_argument(what, ": ", node_label(g.node(i), i), ": input '", in, "' is not defined by any graph input, initializer or node");
        }
        continue;
      }
      pending[static_cast<size_t>(i)]++;
      users[static_cast<size_t>(it->second)].push_back(i);
    }
  }
  std::vector<int> ready;
  for (int i = g.node_size() - 1; i >= 0; --i)
    if (pending[static_cast<size_t>(i)] == 0) ready.push_back(i);
  while (!ready.empty()) {
    std::sort(ready.begin(), ready.end(), std::greater<int>());  // stored order among ready nodes
    const int i = ready.back();
    ready.pop_back();
    impl->order.push_back(i);
    for (int u : users[static_cast<size_t>(i)])
      if (--pending[static_cast<size_t>(u)] == 0) ready.push_back(u);
  }
  if (impl->graph_status.ok() && static_cast<int>(impl->order.size()) != g.node_size()) {
    impl->graph_status = invalid_argument(what, ": the graph has a cycle");
  }
  for (const auto& o : impl->outputs) {
    if (impl->graph_status.ok() && !producer.count(o.name) && !available.count(o.name)) {
      impl->graph_status = invalid_argument(what, ": graph output '", o.name, "' is not produced by any node");
    }
  }
  Model model;
  model.impl_ = std::move(impl);
  return model;
}

StatusOr<Model> Model::load(const std::string& path) {
  GRIDOPS_ASSIGN_OR_RETURN(const std::string bytes, detail::read_file(path, std::numeric_limits<int>::max()));
  return parse(bytes, path);
}

const std::vector<ValueInfo>& Model::inputs() const { return impl_->inputs; }
const std::vector<ValueInfo>& Model::outputs() const { return impl_->outputs; }
const std::vector<ValueInfo>& Model::inputs_with_initializers() const { return impl_->initializer_inputs; }
const std::vector<NodeInfo>& Model::nodes() const { return impl_->nodes; }

int64_t Model::opset(std::string_view domain) const {
  const std::string d = domain == "ai.onnx" ? "" : std::string(domain);
  auto it = impl_->opsets.find(d);
  return it == impl_->opsets.end() ? -1 : it->second;
}

std::vector<std::pair<std::string, int64_t>> Model::opsets() const {
  return {impl_->opsets.begin(), impl_->opsets.end()};
}

Status Model::check_supported() const {
  GRIDOPS_RETURN_IF_ERROR(impl_->graph_status);
  const auto& g = impl_->proto.graph();
  const int64_t opset = this->opset("");
  for (int i = 0; i < g.node_size(); ++i) {
    int64_t version;
    Status s = check_node(g.node(i), i, opset, &version);
    if (!s.ok()) return Status(s.code(), impl_->what + ": " + s.message());
  }
  // Element types known before running: initializers and declared graph inputs.
  std::map<std::string, DType> types;
  for (const auto& [name, t] : impl_->initializers) types[name] = t.dtype();
  for (const auto* list : {&impl_->initializer_inputs, &impl_->inputs})
    for (const auto& vi : *list)
      if (vi.type_known) types[vi.name] = vi.dtype;
  return check_types(std::move(types));
}

// The schema type constraints of every node, in topological order, from the element types
// in `types` (graph inputs and initializers; the outputs' types follow from the schemas);
// then each declared graph output type against the type computed for it.
Status Model::check_types(std::map<std::string, DType> types) const {
  const auto& g = impl_->proto.graph();
  const int64_t opset = this->opset("");
  for (int i : impl_->order) {
    const NodeProto& n = g.node(i);
    int64_t version = -1;
    for (const auto& spec : kOps)
      if (n.op_type() == spec.op) version = op_version(spec.versions, opset);
    Status s = detail::check_schema_types(n, version, node_label(n, i), &types);
    if (!s.ok()) return Status(s.code(), impl_->what + ": " + s.message());
  }
  for (const auto& o : impl_->outputs) {
    auto it = types.find(o.name);
    if (o.type_known && it != types.end() && it->second != o.dtype) {
      return invalid_argument(impl_->what, ": graph output '", o.name, "' is declared ", gridops::to_string(o.dtype),
                              " but computed as ", gridops::to_string(it->second));
    }
  }
  return Status();
}

// ---------------------------------------------------------------------------------------
// Running nodes.

namespace {

StatusOr<std::vector<int64_t>> int_values(const Tensor* t, const std::string& label, const char* what) {
  if (!t) return invalid_argument(label, ": input '", what, "' is required");
  if (t->dtype() != DType::kInt64 && t->dtype() != DType::kInt32) {
    return invalid_argument(label, ": input '", what, "' must be int64, got ", to_string(t->dtype()));
  }
  if (t->rank() > 1) return invalid_argument(label, ": input '", what, "' must be 1-D, got shape ", dims_to_string(t->shape()));
  std::vector<int64_t> v(static_cast<size_t>(t->num_elements()));
  for (size_t i = 0; i < v.size(); ++i)
    v[i] = t->dtype() == DType::kInt64 ? t->data_as<int64_t>()[i] : t->data_as<int32_t>()[i];
  return v;
}

Status with_label(const Status& s, const std::string& label) {
  if (s.ok()) return s;
  return Status(s.code(), label + ": " + s.message());
}

template <class T, class Fill>
StatusOr<Tensor> make_filled(DType dt, Dims shape, Fill fill) {
  GRIDOPS_ASSIGN_OR_RETURN(Tensor t, Tensor::create(dt, std::move(shape)));
  fill(t.data_as<T>());
  return t;
}

StatusOr<Tensor> run_constant(const NodeProto& n, const std::string& label) {
  const auto& a = n.attribute(0);
  if (a.name() == "value") return tensor_from_proto(a.t(), label);
  if (a.name() == "value_float") return make_filled<float>(DType::kFloat32, {}, [&](float* p) { p[0] = a.f(); });
  if (a.name() == "value_int") return make_filled<int64_t>(DType::kInt64, {}, [&](int64_t* p) { p[0] = a.i(); });
  if (a.name() == "value_string") {
    return make_filled<std::string>(DType::kString, {}, [&](std::string* p) { p[0] = a.s(); });
  }
  if (a.name() == "value_floats") {
    return make_filled<float>(DType::kFloat32, {a.floats_size()}, [&](float* p) {
      for (int i = 0; i < a.floats_size(); ++i) p[i] = a.floats(i);
    });
  }
  if (a.name() == "value_ints") {
    return make_filled<int64_t>(DType::kInt64, {a.ints_size()}, [&](int64_t* p) {
      for (int i = 0; i < a.ints_size(); ++i) p[i] = a.ints(i);
    });
  }
  if (a.name() == "value_strings") {
    return make_filled<std::string>(DType::kString, {a.strings_size()}, [&](std::string* p) {
      for (int i = 0; i < a.strings_size(); ++i) p[i] = a.strings(i);
    });
  }
  return unimplemented(label, ": attribute '", a.name(), "' is not supported");
}

// ONNX Pad over the Pad kernels (ERRATA Pad 6): pads [begins..., ends...] for `axes`
// (all axes by default), negative pads crop first, then the rest is padded.
StatusOr<Tensor> run_pad(const NodeProto& n, int64_t version, const std::vector<const Tensor*>& in,
                         const std::string& label) {
  Attrs at{n, label};
  const Tensor& data = *in[0];
  const int r = data.rank();
  GRIDOPS_ASSIGN_OR_RETURN(const std::string mode_s, at.get_string("mode", "constant"));
  Dims pads;
  std::optional<Tensor> value;
  std::vector<int64_t> axes;
  if (version < 11) {
    GRIDOPS_ASSIGN_OR_RETURN(pads, at.get_ints(version == 1 ? "paddings" : "pads"));
    GRIDOPS_ASSIGN_OR_RETURN(const float v, at.get_float("value", 0.0f));
    if (mode_s == "constant" && data.dtype() != DType::kString) {
      GRIDOPS_ASSIGN_OR_RETURN(Tensor t, Tensor::create(data.dtype(), {}));
      visit_dtype(data.dtype(), [&](auto tag) {
        using T = typename decltype(tag)::type;
        if constexpr (convert::is_numeric_v<T>) {
          if constexpr (convert::is_complex_t<T>::value) t.data_as<T>()[0] = T(v, 0);
          else t.data_as<T>()[0] = convert::store_real<T>(v);
        }
      });
      value = std::move(t);
    }
  } else {
    GRIDOPS_ASSIGN_OR_RETURN(const std::vector<int64_t> p, int_values(in[1], label, "pads"));
    pads.assign(p.begin(), p.end());
    if (in.size() > 2 && in[2]) {
      if (in[2]->num_elements() != 1) {
        return invalid_argument(label, ": constant_value must have one element, got shape ", dims_to_string(in[2]->shape()));
      }
      if (in[2]->dtype() != data.dtype()) {
        return invalid_argument(label, ": constant_value must have the data's type ", to_string(data.dtype()), ", got ", to_string(in[2]->dtype()));
      }
      if (mode_s == "constant") {
        GRIDOPS_ASSIGN_OR_RETURN(Tensor c, in[2]->clone());
        value = std::move(c);
      }
    }
    if (in.size() > 3 && in[3]) {
      GRIDOPS_ASSIGN_OR_RETURN(axes, int_values(in[3], label, "axes"));
    }
  }
  if (axes.empty() && !(in.size() > 3 && in[3])) {
    for (int i = 0; i < r; ++i) axes.push_back(i);
  }
  std::vector<bool> seen(static_cast<size_t>(r), false);
  for (int64_t& a : axes) {
    if (a < -r || a >= r) return invalid_argument(label, ": axes entry ", a, " is out of range [", -r, ", ", r - 1, "]");
    if (a < 0) a += r;
    if (seen[static_cast<size_t>(a)]) return invalid_argument(label, ": axis ", a, " appears more than once in axes");
    seen[static_cast<size_t>(a)] = true;
  }
  if (pads.size() != 2 * axes.size()) {
    return invalid_argument(label, ": pads must have ", 2 * axes.size(), " values (2 per padded axis), got ", pads.size());
  }
  Dims begin(static_cast<size_t>(r), 0), end(static_cast<size_t>(r), 0);
  for (size_t k = 0; k < axes.size(); ++k) {
    begin[static_cast<size_t>(axes[k])] = pads[k];
    end[static_cast<size_t>(axes[k])] = pads[k + axes.size()];
  }
  // Crop first: a strided view of the kept region.
  TensorView v = data.view();
  const size_t es = dtype_size(data.dtype());
  for (int d = 0; d < r; ++d) {
    const size_t du = static_cast<size_t>(d);
    const int64_t cb = begin[du] < 0 ? -begin[du] : 0, ce = end[du] < 0 ? -end[du] : 0;
    int64_t keep;
    if (__builtin_sub_overflow(v.shape[du], cb, &keep) || __builtin_sub_overflow(keep, ce, &keep) || keep < 0) {
      return invalid_argument(label, ": negative pads on axis ", d, " (", begin[du], ", ", end[du],
                              ") remove more than its length ", v.shape[du]);
    }
    if (keep > 0 && cb > 0) v.data = static_cast<const char*>(v.data) + cb * v.strides[du] * static_cast<int64_t>(es);
    v.shape[du] = keep;
    begin[du] = std::max<int64_t>(begin[du], 0);
    end[du] = std::max<int64_t>(end[du], 0);
  }
  PadDesc pd;
  if (mode_s == "constant") pd.mode = PadMode::kConstant;
  else if (mode_s == "edge") pd.mode = PadMode::kEdge;
  else if (mode_s == "reflect") pd.mode = PadMode::kReflect;
  else pd.mode = PadMode::kWrap;
  pd.pads_begin = begin;
  pd.pads_end = end;
  TensorView value_view;
  if (value) value_view = value->view();
  auto out = pad(pd, v, value ? &value_view : nullptr);
  if (!out.ok()) return with_label(out.status(), label);
  return std::move(out).value();
}

// ONNX Resize over the library's Resize (docs/onnx.md, "Resize"): inputs X, roi, scales,
// sizes (Resize-10: X, scales); an empty tensor counts as absent.
StatusOr<Tensor> run_resize(const NodeProto& n, int64_t version, const std::vector<const Tensor*>& in,
                            const std::string& label) {
  GRIDOPS_ASSIGN_OR_RETURN(ResizeDesc d, resize_desc(n, version, label));
  const Tensor& x = *in[0];
  auto present = [&](size_t i) -> const Tensor* {
    return in.size() > i && in[i] && in[i]->num_elements() > 0 ? in[i] : nullptr;
  };
  // Element types (ONNX T2, tensor(float), tensor(int64)) of every input given, empty or not.
  const size_t scales_at = version == 10 ? 1 : 2;
  if (version > 10 && in.size() > 1 && in[1] && in[1]->dtype() != DType::kFloat32 &&
      in[1]->dtype() != DType::kFloat64 && in[1]->dtype() != DType::kFloat16) {
    return invalid_argument(label, ": input 'roi' must be float16, float or double, got ", to_string(in[1]->dtype()));
  }
  if (in.size() > scales_at && in[scales_at] && in[scales_at]->dtype() != DType::kFloat32) {
    return invalid_argument(label, ": input 'scales' must be float, got ", to_string(in[scales_at]->dtype()));
  }
  if (version > 10 && in.size() > 3 && in[3] && in[3]->dtype() != DType::kInt64) {
    return invalid_argument(label, ": input 'sizes' must be int64, got ", to_string(in[3]->dtype()));
  }
  const Tensor* roi = version == 10 ? nullptr : present(1);
  const Tensor* scales = present(scales_at);
  const Tensor* sizes = version == 10 ? nullptr : present(3);
  if (scales) {
    if (scales->rank() != 1) {
      return invalid_argument(label, ": input 'scales' must be 1-D, got shape ", dims_to_string(scales->shape()));
    }
    for (int64_t i = 0; i < scales->num_elements(); ++i) d.scales.push_back(scales->data_as<float>()[i]);
  }
  if (sizes) {
    GRIDOPS_ASSIGN_OR_RETURN(const std::vector<int64_t> s, int_values(sizes, label, "sizes"));
    d.sizes.assign(s.begin(), s.end());
  }
  if (version == 10 && !scales) return invalid_argument(label, ": input 'scales' must not be empty at Resize-10");
  if (roi && d.coordinate_mode == ResizeCoordinateMode::kTfCropAndResize) {
    if (roi->rank() != 1) {
      return invalid_argument(label, ": input 'roi' must be 1-D, got shape ", dims_to_string(roi->shape()));
    }
    for (int64_t i = 0; i < roi->num_elements(); ++i) {
      if (roi->dtype() == DType::kFloat32) d.roi.push_back(roi->data_as<float>()[i]);
      else if (roi->dtype() == DType::kFloat64) d.roi.push_back(roi->data_as<double>()[i]);
      else d.roi.push_back(f16_to_f32(roi->data_as<float16>()[i]));
    }
  }
  if (d.axes.empty() && x.rank() > 0 && (scales != nullptr) != (sizes != nullptr)) {
    const size_t given = scales ? static_cast<size_t>(scales->num_elements()) : (sizes ? static_cast<size_t>(sizes->num_elements()) : 0);
    if (given != static_cast<size_t>(x.rank())) {
      return invalid_argument(label, ": ", scales ? "scales" : "sizes", " must have one value per input axis (",
                              x.rank(), "), got ", given);
    }
  }
  auto out = resize(d, x.view());
  if (!out.ok()) return with_label(out.status(), label);
  return std::move(out).value();
}

StatusOr<std::vector<Tensor>> run_node(const NodeProto& n, int index, int64_t opset,
                                       const std::vector<const Tensor*>& in) {
  const std::string label = node_label(n, index);
  int64_t version;
  GRIDOPS_RETURN_IF_ERROR(check_node(n, index, opset, &version));
  for (size_t i = 0; i < in.size(); ++i) {
    const bool optional = (n.op_type() == "Pad" && i >= 2) || (n.op_type() == "Resize" && i >= 1);
    if (!in[i] && !optional) return invalid_argument(label, ": input ", i, " is required");
  }
  Attrs at{n, label};
  std::vector<Tensor> out;
  const std::string& op = n.op_type();
  if (op == "Constant") {
    GRIDOPS_ASSIGN_OR_RETURN(Tensor t, run_constant(n, label));
    out.push_back(std::move(t));
  } else if (op == "GridSample") {
    GridSampleDesc d;
    GRIDOPS_ASSIGN_OR_RETURN(const std::string mode, at.get_string("mode", version >= 20 ? "linear" : "bilinear"));
    GRIDOPS_ASSIGN_OR_RETURN(const std::string padm, at.get_string("padding_mode", "zeros"));
    GRIDOPS_ASSIGN_OR_RETURN(d.mode, parse_interpolation_mode(mode));
    GRIDOPS_ASSIGN_OR_RETURN(d.padding, parse_grid_padding(padm));
    GRIDOPS_ASSIGN_OR_RETURN(d.align_corners, at.get_int("align_corners", 0));
    if (version < 20 && in[0]->rank() != 4) {
      return invalid_argument(label, ": GridSample-16 takes 4-D input, got rank ", in[0]->rank());
    }
    auto y = grid_sample(d, *in[0], *in[1]);
    if (!y.ok()) return with_label(y.status(), label);
    out.push_back(std::move(y).value());
  } else if (op == "AffineGrid") {
    AffineGridDesc d;
    GRIDOPS_ASSIGN_OR_RETURN(d.align_corners, at.get_int("align_corners", 0));
    GRIDOPS_ASSIGN_OR_RETURN(const std::vector<int64_t> size, int_values(in[1], label, "size"));
    auto g = affine_grid(d, *in[0], size);
    if (!g.ok()) return with_label(g.status(), label);
    out.push_back(std::move(g).value());
  } else if (op == "Gather") {
    GatherDesc d;
    GRIDOPS_ASSIGN_OR_RETURN(d.axis, at.get_int("axis", 0));
    auto y = gather(d, *in[0], *in[1]);
    if (!y.ok()) return with_label(y.status(), label);
    out.push_back(std::move(y).value());
  } else if (op == "Pad") {
    GRIDOPS_ASSIGN_OR_RETURN(Tensor t, run_pad(n, version, in, label));
    out.push_back(std::move(t));
  } else if (op == "Resize") {
    GRIDOPS_ASSIGN_OR_RETURN(Tensor t, run_resize(n, version, in, label));
    out.push_back(std::move(t));
  } else {
    return unimplemented(label, ": op '", op, "' is not supported");
  }
  return out;
}

}  // namespace

namespace {

// A value of the running graph: borrowed (a graph input or an initializer) or computed
// (owned, shared by the names an Identity gives it).
struct Value {
  const Tensor* tensor = nullptr;
  std::shared_ptr<Tensor> owned;
};

}  // namespace

StatusOr<std::map<std::string, Tensor>> Model::run(const std::map<std::string, Tensor>& inputs,
                                                   const RunOptions& options) const {
  GRIDOPS_RETURN_IF_ERROR(check_supported());
  const std::string& what = impl_->what;
  gridops::ScopedTensorByteLimit cap(options.max_tensor_bytes);
  try {
    std::map<std::string, Value> values;
    for (const auto& [name, t] : impl_->initializers) values[name].tensor = &t;
    std::string expected;
    for (const auto& vi : impl_->inputs) expected += "\n  " + vi.name + ": " + vi.to_string();
    for (const auto& kv : inputs) {
      const std::string& name = kv.first;
      auto it = std::find_if(impl_->inputs.begin(), impl_->inputs.end(), [&](const ValueInfo& v) { return v.name == name; });
      // An initializer can be overridden only when it is also a graph input (IR >= 4);
      // one that is not is a constant of the model.
      const bool overridable = std::any_of(impl_->initializer_inputs.begin(), impl_->initializer_inputs.end(),
                                           [&](const ValueInfo& v) { return v.name == name; });
      if (it == impl_->inputs.end() && !overridable) {
        return invalid_argument(what, ": the model has no input named '", name, "'; it expects:", expected);
      }
    }
    for (const auto& vi : impl_->inputs) {
      auto it = inputs.find(vi.name);
      if (it == inputs.end()) return invalid_argument(what, ": missing input '", vi.name, "'; the model expects:", expected);
    }
    for (const auto& [name, t] : inputs) {
      // A graph input, or an initializer the caller overrides (IR >= 4 lets an
      // initializer double as a graph input's default; then its declaration applies).
      const ValueInfo* vi = nullptr;
      for (const auto& v : impl_->inputs)
        if (v.name == name) vi = &v;
      for (const auto& v : impl_->initializer_inputs)
        if (!vi && v.name == name) vi = &v;
      if (vi && vi->type_known && t.dtype() != vi->dtype) {
        return invalid_argument(what, ": input '", name, "' must be ", vi->to_string(), ", got ",
                                to_string(t.dtype()), dims_to_string(t.shape()));
      }
      if (vi && vi->rank_known) {
        bool ok = static_cast<int>(vi->dims.size()) == t.rank();
        for (size_t d = 0; ok && d < vi->dims.size(); ++d) ok = vi->dims[d] < 0 || vi->dims[d] == t.shape()[d];
        if (!ok) {
          return invalid_argument(what, ": input '", name, "' must be ", vi->to_string(), ", got ",
                                  to_string(t.dtype()), dims_to_string(t.shape()));
        }
      }
      values[name] = Value{&t, nullptr};
    }
    {
      // The schema type constraints again, now that every input's type is known.
      std::map<std::string, DType> types;
      for (const auto& [name, v] : values) types[name] = v.tensor->dtype();
      GRIDOPS_RETURN_IF_ERROR(check_types(std::move(types)));
    }
    const auto& g = impl_->proto.graph();
    const int64_t opset = this->opset("");
    // Remaining uses of each name: one per node input that reads it, one per graph output.
    std::map<std::string, int64_t> uses;
    for (int i : impl_->order)
      for (const auto& name : g.node(i).input())
        if (!name.empty()) ++uses[name];
    for (const auto& o : impl_->outputs) ++uses[o.name];
    auto release = [&](const std::string& name) {
      auto u = uses.find(name);
      if (u == uses.end() || --u->second <= 0) values.erase(name);
    };
    for (int i : impl_->order) {
      const NodeProto& n = g.node(i);
      std::vector<const Tensor*> in;
      for (const auto& name : n.input()) {
        if (name.empty()) {
          in.push_back(nullptr);
          continue;
        }
        auto it = values.find(name);
        if (it == values.end()) return internal_error(what, ": value '", name, "' missing at run time");
        in.push_back(it->second.tensor);
      }
      if (auto c = impl_->constants.find(i); c != impl_->constants.end()) {
        if (n.output_size() > 0 && !n.output(0).empty() && uses.count(n.output(0))) {
          values[n.output(0)] = Value{&c->second, nullptr};
        }
        continue;
      }
      if (n.op_type() == "Identity") {
        // No copy: the output names the same tensor.
        if (in.empty() || !in[0]) return invalid_argument(what, ": ", node_label(n, i), ": input 0 is required");
        const Value shared = values.at(n.input(0));
        for (const auto& name : n.input()) release(name);
        if (n.output_size() > 0 && !n.output(0).empty()) {
          values[n.output(0)] = shared;
          if (!uses.count(n.output(0))) values.erase(n.output(0));
        }
        continue;
      }
      StatusOr<std::vector<Tensor>> res = Status(StatusCode::kInternal, "not run");
      try {
        res = run_node(n, i, opset, in);
      } catch (const std::bad_alloc&) {
        return Status(StatusCode::kOutOfMemory, gridops::detail::cat(what, ": ", node_label(n, i), ": out of memory"));
      }
      if (!res.ok()) return Status(res.status().code(), what + ": " + res.status().message());
      auto outs = std::move(res).value();
      if (static_cast<int>(outs.size()) < n.output_size()) {
        return unimplemented(what, ": ", node_label(n, i), ": only ", outs.size(), " output(s) are produced");
      }
      for (const auto& name : n.input())
        if (!name.empty()) release(name);
      for (int k = 0; k < n.output_size(); ++k) {
        const std::string& name = n.output(k);
        if (name.empty() || !uses.count(name)) continue;  // nothing reads it: freed now
        auto t = std::make_shared<Tensor>(std::move(outs[static_cast<size_t>(k)]));
        values[name] = Value{t.get(), t};
      }
    }
    std::map<std::string, Tensor> result;
    for (const auto& o : impl_->outputs) {
      if (result.count(o.name)) continue;  // the same name listed twice
      auto it = values.find(o.name);
      if (it == values.end()) return internal_error(what, ": output '", o.name, "' was not produced");
      Value v = std::move(it->second);
      values.erase(it);
      if (v.owned && v.owned.use_count() == 1) {
        result.emplace(o.name, std::move(*v.owned));  // moved, not copied
      } else {
        auto c = v.tensor->clone();
        if (!c.ok()) return Status(c.status().code(), gridops::detail::cat(what, ": output '", o.name, "': ", c.status().message()));
        result.emplace(o.name, std::move(c).value());
      }
    }
    return result;
  } catch (const std::bad_alloc&) {
    return Status(StatusCode::kOutOfMemory, gridops::detail::cat(what, ": out of memory while running the graph"));
  }
}

}  // namespace gridops::onnx
