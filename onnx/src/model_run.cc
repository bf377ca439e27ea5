// gridops::onnx::Model::run: the graph's nodes in topological order over the library's
// operators (each node checked by check_node first; model.cc loads and checks the model).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <memory>
#include <set>
#include <sstream>

#include "gridops/gridops.h"
#include "gridops/onnx/model.h"
#include "gridops/onnx/tensor_proto.h"
#include "model_internal.h"
#include "proto_convert.h"

namespace gridops::onnx {

using NodeProto = ::onnx::NodeProto;
using AttributeProto = ::onnx::AttributeProto;
using detail::Attrs;
using detail::check_node;
using detail::node_label;
using detail::resize_desc;

// ---------------------------------------------------------------------------------------
// Running nodes.

namespace {

/// The int64 (or int32) values of a tensor of any rank, row-major.
StatusOr<std::vector<int64_t>> flat_int_values(const Tensor* t, const std::string& label,
                                               const char* what) {
  if (!t) return invalid_argument(label, ": input '", what, "' is required");
  if (t->dtype() != DType::kInt64 && t->dtype() != DType::kInt32) {
    return invalid_argument(label, ": input '", what, "' must be int64, got ", to_string(t->dtype()));
  }
  std::vector<int64_t> v(static_cast<size_t>(t->num_elements()));
  for (size_t i = 0; i < v.size(); ++i)
    v[i] = t->dtype() == DType::kInt64 ? t->data_as<int64_t>()[i] : t->data_as<int32_t>()[i];
  return v;
}

StatusOr<std::vector<int64_t>> int_values(const Tensor* t, const std::string& label, const char* what) {
  GRIDOPS_ASSIGN_OR_RETURN(std::vector<int64_t> v, flat_int_values(t, label, what));
  if (t->rank() > 1) return invalid_argument(label, ": input '", what, "' must be 1-D, got shape ", dims_to_string(t->shape()));
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
  } else if (op == "GridSample" && n.domain() == detail::kGridopsDomain) {
    GRIDOPS_ASSIGN_OR_RETURN(const GridSampleDesc d, detail::gridops_grid_sample_desc(n, label));
    auto y = grid_sample(d, *in[0], *in[1]);
    if (!y.ok()) return with_label(y.status(), label);
    out.push_back(std::move(y).value());
  } else if (op == "AffineGrid" && n.domain() == detail::kGridopsDomain) {
    GRIDOPS_ASSIGN_OR_RETURN(const detail::GridopsAffineGrid a,
                             detail::gridops_affine_grid_desc(n, label));
    auto g = affine_grid(a.desc, *in[0], a.size);
    if (!g.ok()) return with_label(g.status(), label);
    out.push_back(std::move(g).value());
  } else if (op == "MsDeformAttn" && n.domain() == detail::kGridopsDomain) {
    GRIDOPS_ASSIGN_OR_RETURN(const std::vector<int64_t> shapes,
                             flat_int_values(in[1], label, "spatial_shapes"));
    GRIDOPS_ASSIGN_OR_RETURN(const std::vector<int64_t> starts,
                             int_values(in[2], label, "level_start_index"));
    if (in[1]->rank() != 2 || in[1]->shape()[1] != 2) {
      return invalid_argument(label, ": input 'spatial_shapes' must be (L, 2), got shape ",
                              dims_to_string(in[1]->shape()));
    }
    auto y = ms_deform_attn(MsDeformAttnDesc{}, *in[0], shapes, starts, *in[3], *in[4]);
    if (!y.ok()) return with_label(y.status(), label);
    out.push_back(std::move(y).value());
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
