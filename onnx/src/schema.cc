#include "schema.h"

#include <algorithm>
#include <initializer_list>
#include <optional>
#include <vector>

#include "gridops/onnx/tensor_proto.h"

namespace gridops::onnx::detail {
namespace {

using AttributeProto = ::onnx::AttributeProto;
using TypeSet = std::vector<DType>;

// The type lists of the ONNX schemas, restricted to the element types gridops has (float8,
// int4 and the like cannot reach a node: reading them is already an error).
const TypeSet& all_types_with_bfloat16() {
  static const TypeSet s = {DType::kBool,     DType::kInt8,      DType::kInt16,     DType::kInt32,
                            DType::kInt64,    DType::kUInt8,     DType::kUInt16,    DType::kUInt32,
                            DType::kUInt64,   DType::kFloat16,   DType::kBFloat16,  DType::kFloat32,
                            DType::kFloat64,  DType::kComplex64, DType::kComplex128, DType::kString};
  return s;
}
const TypeSet& all_types() {  // ONNX's all_tensor_types(): everything but bfloat16
  static const TypeSet s = [] {
    TypeSet t = all_types_with_bfloat16();
    t.erase(std::find(t.begin(), t.end(), DType::kBFloat16));
    return t;
  }();
  return s;
}
const TypeSet kFloats = {DType::kFloat16, DType::kFloat32, DType::kFloat64};
const TypeSet kFloatsWithBfloat16 = {DType::kBFloat16, DType::kFloat16, DType::kFloat32, DType::kFloat64};
const TypeSet kNumeric = {DType::kUInt8, DType::kUInt16, DType::kUInt32, DType::kUInt64, DType::kInt8, DType::kInt16,
                          DType::kInt32, DType::kInt64, DType::kFloat16, DType::kFloat32, DType::kFloat64};
const TypeSet kInt64 = {DType::kInt64};
const TypeSet kFloat32 = {DType::kFloat32};
const TypeSet kIndex = {DType::kInt32, DType::kInt64};

struct Slot {
  const char* name;
  const char* var;  // the type variable ("T1"); slots with the same variable share one type
  TypeSet types;
};
struct Attr {
  const char* name;
  AttributeProto::AttributeType type;
};
struct Schema {
  const char* op;
  int64_t since;
  std::vector<Slot> inputs, outputs;
  std::vector<Attr> attrs;
};

const std::vector<Schema>& schemas() {
  using A = AttributeProto;
  static const std::vector<Schema> s = [] {
    std::vector<Schema> v;
    const std::vector<Attr> gs_attrs = {{"align_corners", A::INT}, {"mode", A::STRING}, {"padding_mode", A::STRING}};
    for (int64_t since : {16, 20}) {
      v.push_back({"GridSample", since, {{"X", "T1", all_types()}, {"grid", "T2", kFloats}}, {{"Y", "T1", all_types()}}, gs_attrs});
    }
    v.push_back({"GridSample", 22, {{"X", "T1", all_types_with_bfloat16()}, {"grid", "T2", kFloatsWithBfloat16}},
                 {{"Y", "T1", all_types_with_bfloat16()}}, gs_attrs});
    v.push_back({"AffineGrid", 20, {{"theta", "T1", kFloatsWithBfloat16}, {"size", "T2", kInt64}},
                 {{"grid", "T1", kFloatsWithBfloat16}}, {{"align_corners", A::INT}}});
    for (int64_t since : {1, 11, 13}) {
      const TypeSet& t = since >= 13 ? all_types_with_bfloat16() : all_types();
      v.push_back({"Gather", since, {{"data", "T", t}, {"indices", "Tind", kIndex}}, {{"output", "T", t}}, {{"axis", A::INT}}});
    }
    v.push_back({"Pad", 1, {{"data", "T", kFloats}}, {{"output", "T", kFloats}},
                 {{"mode", A::STRING}, {"paddings", A::INTS}, {"value", A::FLOAT}}});
    v.push_back({"Pad", 2, {{"data", "T", kFloats}}, {{"output", "T", kFloats}},
                 {{"mode", A::STRING}, {"pads", A::INTS}, {"value", A::FLOAT}}});
    v.push_back({"Pad", 11, {{"data", "T", kNumeric}, {"pads", "tensor(int64)", kInt64}, {"constant_value", "T", kNumeric}},
                 {{"output", "T", kNumeric}}, {{"mode", A::STRING}}});
    v.push_back({"Pad", 13,
                 {{"data", "T", all_types_with_bfloat16()}, {"pads", "tensor(int64)", kInt64},
                  {"constant_value", "T", all_types_with_bfloat16()}},
                 {{"output", "T", all_types_with_bfloat16()}}, {{"mode", A::STRING}}});
    // 18 adds axes; 19 adds wrap (a value, not a type); 21, 23-25 add only types gridops lacks.
    v.push_back({"Pad", 18,
                 {{"data", "T", all_types_with_bfloat16()}, {"pads", "tensor(int64)", kInt64},
                  {"constant_value", "T", all_types_with_bfloat16()}, {"axes", "Tind", kIndex}},
                 {{"output", "T", all_types_with_bfloat16()}}, {{"mode", A::STRING}}});
    v.push_back({"Resize", 10, {{"X", "T", all_types()}, {"scales", "tensor(float)", kFloat32}}, {{"Y", "T", all_types()}},
                 {{"mode", A::STRING}}});
    const std::vector<Attr> resize11 = {{"coordinate_transformation_mode", A::STRING}, {"cubic_coeff_a", A::FLOAT},
                                        {"exclude_outside", A::INT},  {"extrapolation_value", A::FLOAT},
                                        {"mode", A::STRING},          {"nearest_mode", A::STRING}};
    std::vector<Attr> resize18 = resize11;
    resize18.push_back({"antialias", A::INT});
    resize18.push_back({"axes", A::INTS});
    resize18.push_back({"keep_aspect_ratio_policy", A::STRING});
    for (int64_t since : {11, 13, 18, 19}) {
      const TypeSet& t = since >= 13 ? all_types_with_bfloat16() : all_types();
      v.push_back({"Resize", since,
                   {{"X", "T1", t}, {"roi", "T2", kFloats}, {"scales", "tensor(float)", kFloat32}, {"sizes", "tensor(int64)", kInt64}},
                   {{"Y", "T1", t}}, since >= 18 ? resize18 : resize11});
    }
    for (int64_t since : {1, 9, 11, 12, 13}) {
      const TypeSet& t = since >= 13 ? all_types_with_bfloat16() : since >= 9 ? all_types() : kFloats;
      std::vector<Attr> attrs = {{"value", A::TENSOR}};
      if (since >= 11) attrs.push_back({"sparse_value", A::SPARSE_TENSOR});
      if (since >= 12) {
        for (Attr a : std::initializer_list<Attr>{{"value_float", A::FLOAT}, {"value_floats", A::FLOATS},
                                                 {"value_int", A::INT}, {"value_ints", A::INTS},
                                                 {"value_string", A::STRING}, {"value_strings", A::STRINGS}}) {
          attrs.push_back(a);
        }
      }
      v.push_back({"Constant", since, {}, {{"output", "T", t}}, attrs});
    }
    v.push_back({"Identity", 1, {{"input", "T", all_types()}}, {{"output", "T", all_types()}}, {}});
    v.push_back({"Identity", 13, {{"input", "T", all_types_with_bfloat16()}}, {{"output", "T", all_types_with_bfloat16()}}, {}});
    return v;
  }();
  return s;
}

// The schema in effect at `version` (the largest since-version <= it), or null.
const Schema* find_schema(const std::string& op, int64_t version) {
  const Schema* best = nullptr;
  for (const Schema& s : schemas())
    if (s.op == op && s.since <= version && (!best || s.since > best->since)) best = &s;
  return best;
}

std::string type_list(const TypeSet& t) {
  std::string s;
  for (DType d : t) s += (s.empty() ? "" : ", ") + std::string(to_string(d));
  return s;
}

const char* attr_type_name(int t) {
  switch (t) {
    case AttributeProto::FLOAT: return "FLOAT";
    case AttributeProto::INT: return "INT";
    case AttributeProto::STRING: return "STRING";
    case AttributeProto::TENSOR: return "TENSOR";
    case AttributeProto::GRAPH: return "GRAPH";
    case AttributeProto::SPARSE_TENSOR: return "SPARSE_TENSOR";
    case AttributeProto::TYPE_PROTO: return "TYPE_PROTO";
    case AttributeProto::FLOATS: return "FLOATS";
    case AttributeProto::INTS: return "INTS";
    case AttributeProto::STRINGS: return "STRINGS";
    case AttributeProto::TENSORS: return "TENSORS";
    case AttributeProto::GRAPHS: return "GRAPHS";
    case AttributeProto::SPARSE_TENSORS: return "SPARSE_TENSORS";
    case AttributeProto::TYPE_PROTOS: return "TYPE_PROTOS";
    default: return "UNDEFINED";
  }
}

// The element type a Constant produces, when its attribute says.
std::optional<DType> constant_type(const ::onnx::NodeProto& n) {
  if (n.attribute_size() != 1) return std::nullopt;
  const auto& a = n.attribute(0);
  if (a.name() == "value" && a.type() == AttributeProto::TENSOR) {
    auto d = dtype_from_onnx(a.t().data_type(), "constant");
    if (d.ok()) return *d;
    return std::nullopt;  // reported when the value is read
  }
  if (a.name() == "value_float" || a.name() == "value_floats") return DType::kFloat32;
  if (a.name() == "value_int" || a.name() == "value_ints") return DType::kInt64;
  if (a.name() == "value_string" || a.name() == "value_strings") return DType::kString;
  return std::nullopt;
}

}  // namespace

Status check_schema_attributes(const ::onnx::NodeProto& n, int64_t version, const std::string& label) {
  const Schema* s = find_schema(n.op_type(), version);
  if (!s) return Status();
  for (const auto& a : n.attribute()) {
    auto it = std::find_if(s->attrs.begin(), s->attrs.end(), [&](const Attr& x) { return a.name() == x.name; });
    if (it == s->attrs.end()) {
      std::string names;
      for (const Attr& x : s->attrs) names += (names.empty() ? "" : ", ") + std::string(x.name);
      return invalid_argument(label, ": attribute '", a.name(), "' does not exist in ", s->op, "-", s->since,
                              " (its attributes: ", names.empty() ? "none" : names, ")");
    }
    if (a.type() != it->type) {
      return invalid_argument(label, ": attribute '", a.name(), "' must be of type ", attr_type_name(it->type), " in ",
                              s->op, "-", s->since, ", got ", attr_type_name(a.type()));
    }
  }
  return Status();
}

Status check_schema_types(const ::onnx::NodeProto& n, int64_t version, const std::string& label,
                          std::map<std::string, DType>* types) {
  const Schema* s = find_schema(n.op_type(), version);
  if (!s) return Status();
  std::map<std::string, std::pair<DType, std::string>> bound;  // variable -> (type, who bound it)
  auto check = [&](const Slot& slot, const char* kind, int index, const std::string& value, DType d) -> Status {
    const std::string who = std::string(kind) + " " + std::to_string(index) + " '" + slot.name + "' ('" + value + "')";
    if (std::find(slot.types.begin(), slot.types.end(), d) == slot.types.end()) {
      return invalid_argument(label, ": ", who, " has type ", to_string(d), "; ", s->op, "-", s->since, " allows ",
                              slot.var, " in {", type_list(slot.types), "}");
    }
    auto [it, fresh] = bound.emplace(slot.var, std::make_pair(d, who));
    if (!fresh && it->second.first != d) {
      return invalid_argument(label, ": ", who, " has type ", to_string(d), " but ", it->second.second, " has type ",
                              to_string(it->second.first), "; ", s->op, "-", s->since, " requires one type ", slot.var,
                              " for both");
    }
    return Status();
  };
  for (int i = 0; i < n.input_size() && i < static_cast<int>(s->inputs.size()); ++i) {
    if (n.input(i).empty()) continue;
    auto it = types->find(n.input(i));
    if (it == types->end()) continue;
    GRIDOPS_RETURN_IF_ERROR(check(s->inputs[static_cast<size_t>(i)], "input", i, n.input(i), it->second));
  }
  for (int k = 0; k < n.output_size() && k < static_cast<int>(s->outputs.size()); ++k) {
    if (n.output(k).empty()) continue;
    const Slot& slot = s->outputs[static_cast<size_t>(k)];
    std::optional<DType> d;
    if (n.op_type() == "Constant") d = constant_type(n);
    else if (auto b = bound.find(slot.var); b != bound.end()) d = b->second.first;
    if (!d) continue;
    GRIDOPS_RETURN_IF_ERROR(check(slot, "output", k, n.output(k), *d));
    (*types)[n.output(k)] = *d;
  }
  return Status();
}

}  // namespace gridops::onnx::detail
