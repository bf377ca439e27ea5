// gridops::onnx::Model: loading a model (parse, load) and the checks before it runs
// (check_supported, check_types); model_run.cc runs it.
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
#include "model_internal.h"
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

namespace {

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

}  // namespace

namespace detail {

std::string node_label(const NodeProto& n, int index) {
  std::ostringstream os;
  os << "node " << index;
  if (!n.name().empty()) os << " '" << n.name() << "'";
  os << " (" << (n.domain().empty() ? "" : n.domain() + ".") << n.op_type() << ")";
  return os.str();
}

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
StatusOr<GridSampleDesc> gridops_grid_sample_desc(const NodeProto& n, const std::string& label) {
  Attrs at{n, label};
  GRIDOPS_RETURN_IF_ERROR(at.only({"align_corners", "mode", "padding_mode", "layout", "grid_units",
                                   "grid_kind", "fill_value"}));
  auto bad = [&](const Status& s) { return invalid_argument(label, ": ", s.message()); };
  GridSampleDesc d;
  GRIDOPS_ASSIGN_OR_RETURN(const std::string mode, at.get_string("mode", "linear"));
  GRIDOPS_ASSIGN_OR_RETURN(const std::string pad, at.get_string("padding_mode", "zeros"));
  GRIDOPS_ASSIGN_OR_RETURN(const std::string layout, at.get_string("layout", "channels_first"));
  GRIDOPS_ASSIGN_OR_RETURN(const std::string units, at.get_string("grid_units", "normalized"));
  GRIDOPS_ASSIGN_OR_RETURN(const std::string kind, at.get_string("grid_kind", "absolute"));
  GRIDOPS_ASSIGN_OR_RETURN(const float fill, at.get_float("fill_value", 0.0f));
  GRIDOPS_ASSIGN_OR_RETURN(d.align_corners, at.get_int("align_corners", 0));
  auto m = parse_interpolation_mode(mode);
  if (!m.ok()) return bad(m.status());
  d.mode = *m;
  auto p = parse_grid_padding(pad);
  if (!p.ok()) return bad(p.status());
  d.padding = *p;
  if (layout == "channels_first") {
    d.layout = ChannelLayout::kChannelsFirst;
  } else if (layout == "channels_last") {
    d.layout = ChannelLayout::kChannelsLast;
  } else {
    return invalid_argument(label, ": layout must be channels_first or channels_last, got '", layout, "'");
  }
  auto u = parse_grid_units(units);
  if (!u.ok()) return bad(u.status());
  d.units = *u;
  auto k = parse_grid_kind(kind);
  if (!k.ok()) return bad(k.status());
  d.kind = *k;
  d.fill_value = static_cast<double>(fill);
  const Status s = grid_sample_output_shape(d, Dims{1, 1, 1}, Dims{1, 1, 1}).status();
  if (!s.ok()) return bad(s);  // the descriptor's own checks (align_corners, fill_value)
  if (n.input_size() != 2) return invalid_argument(label, ": expected 2 inputs, got ", n.input_size());
  return d;
}

StatusOr<GridopsAffineGrid> gridops_affine_grid_desc(const NodeProto& n, const std::string& label) {
  Attrs at{n, label};
  GRIDOPS_RETURN_IF_ERROR(at.only({"align_corners", "size"}));
  GridopsAffineGrid g;
  GRIDOPS_ASSIGN_OR_RETURN(g.desc.align_corners, at.get_int("align_corners", 0));
  if (g.desc.align_corners != 0 && g.desc.align_corners != 1) {
    return invalid_argument(label, ": align_corners must be 0 or 1, got ", g.desc.align_corners);
  }
  if (!at.has("size")) return invalid_argument(label, ": attribute 'size' is required");
  GRIDOPS_ASSIGN_OR_RETURN(g.size, at.get_ints("size"));
  if (n.input_size() != 1) return invalid_argument(label, ": expected 1 input (theta), got ", n.input_size());
  return g;
}

Status check_node(const NodeProto& n, int index, int64_t opset, int64_t* version) {
  const std::string label = node_label(n, index);
  if (n.domain() == kGridopsDomain) {
    // docs/onnx.md, "The custom domain ai.gridops".
    *version = 1;
    if (n.op_type() == "GridSample") return gridops_grid_sample_desc(n, label).status();
    if (n.op_type() == "AffineGrid") return gridops_affine_grid_desc(n, label).status();
    if (n.op_type() == "MsDeformAttn") {
      GRIDOPS_RETURN_IF_ERROR((Attrs{n, label}.only({})));
      if (n.input_size() != 5 || n.output_size() != 1) {
        return invalid_argument(label, ": expected 5 inputs (value, spatial_shapes, "
                                "level_start_index, sampling_locations, attention_weights) and 1 "
                                "output, got ", n.input_size(), " and ", n.output_size());
      }
      return Status();
    }
    return unimplemented(label, ": op '", n.op_type(), "' of domain '", kGridopsDomain,
                         "' is not supported (supported: GridSample, AffineGrid, MsDeformAttn)");
  }
  if (!n.domain().empty() && n.domain() != "ai.onnx") {
    return unimplemented(label, ": domain '", n.domain(), "' is not supported (only the default ONNX domain and ",
                         kGridopsDomain, ")");
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
    if (*p != GridPadding::kZeros && *p != GridPadding::kBorder && *p != GridPadding::kReflection) {
      return invalid_argument(label, ": padding_mode must be zeros, border or reflection in ONNX "
                              "GridSample, got '", pad, "' (a gridops extension)");
    }
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

}  // namespace detail

using detail::Attrs;
using detail::check_node;
using detail::node_label;

namespace {

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

}  // namespace gridops::onnx
