// gridops.ms_deform_attn and ms_deform_attn_backward: multi-scale deformable attention.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <string>
#include <utility>

#include "bindings.h"
#include "docstrings.h"

namespace gridops::py_binding {
namespace {

// The plan of the arrays' shapes: value (N, S, M, D), sampling_locations (N, Lq, M, L, P, 2);
// spatial_shapes and level_start_index as flat int lists (the Python layer flattens).
MsDeformAttnPlan make_plan(const InArray& value, const InArray& loc, py::handle spatial,
                           py::handle starts, const char* what) {
  const std::string w(what);
  if (value.view.rank() != 4) {
    throw PyError{PyExc_ValueError, w + ": value must be (N, S, M, D), got shape " +
                                        dims_to_string(value.view.shape)};
  }
  if (loc.view.rank() != 6) {
    throw PyError{PyExc_ValueError, w + ": sampling_locations must be (N, Lq, M, L, P, 2), got shape " +
                                        dims_to_string(loc.view.shape)};
  }
  MsDeformAttnShape s;
  s.batch = value.view.shape[0];
  s.value_rows = value.view.shape[1];
  s.heads = value.view.shape[2];
  s.channels = value.view.shape[3];
  s.queries = loc.view.shape[1];
  s.points = loc.view.shape[4];
  s.spatial_shapes = int_list(spatial, w + ": spatial_shapes");
  s.level_start_index = int_list(starts, w + ": level_start_index");
  return value_or_throw(make_ms_deform_attn_plan(MsDeformAttnDesc{}, value.view.dtype, s));
}

py::object py_forward(py::object value_in, py::object spatial, py::object starts,
                      py::object loc_in, py::object att_in, py::object out) {
  const InArray value = get_array(value_in, "ms_deform_attn: value");
  const InArray loc = get_array(loc_in, "ms_deform_attn: sampling_locations");
  const InArray att = get_array(att_in, "ms_deform_attn: attention_weights");
  const MsDeformAttnPlan plan = make_plan(value, loc, spatial, starts, "ms_deform_attn");
  const MsDeformAttnShape& s = plan.shape();
  InArray dst;
  Tensor t;
  MutableTensorView ov;
  if (!out.is_none()) {
    dst = get_array(out, "ms_deform_attn: out", true);
    ov = dst.view;
  } else {
    t = value_or_throw(Tensor::create(plan.dtype(), Dims{s.batch, s.queries, s.heads * s.channels}));
    ov = t.mutable_view();
  }
  Status st;
  {
    py::gil_scoped_release nogil;
    st = plan.forward(value.view, loc.view, att.view, ov);
  }
  check(st);
  return out.is_none() ? wrap_tensor(std::move(t), value.from_torch) : out;
}

py::object py_backward(py::object grad_in, py::object value_in, py::object spatial,
                       py::object starts, py::object loc_in, py::object att_in, bool value_grad,
                       bool locations_grad, bool weights_grad) {
  const InArray grad = get_array(grad_in, "ms_deform_attn_backward: grad_output");
  const InArray value = get_array(value_in, "ms_deform_attn_backward: value");
  const InArray loc = get_array(loc_in, "ms_deform_attn_backward: sampling_locations");
  const InArray att = get_array(att_in, "ms_deform_attn_backward: attention_weights");
  const MsDeformAttnPlan plan = make_plan(value, loc, spatial, starts, "ms_deform_attn_backward");
  Tensor gv, gl, ga;
  MutableTensorView gvv, glv, gav;
  if (value_grad) {
    gv = value_or_throw(Tensor::create(plan.dtype(), value.view.shape));
    gvv = gv.mutable_view();
  }
  if (locations_grad) {
    gl = value_or_throw(Tensor::create(plan.dtype(), loc.view.shape));
    glv = gl.mutable_view();
  }
  if (weights_grad) {
    ga = value_or_throw(Tensor::create(plan.dtype(), att.view.shape));
    gav = ga.mutable_view();
  }
  Status st;
  {
    py::gil_scoped_release nogil;
    st = plan.backward(grad.view, value.view, loc.view, att.view, value_grad ? &gvv : nullptr,
                       locations_grad ? &glv : nullptr, weights_grad ? &gav : nullptr);
  }
  check(st);
  const bool torch = value.from_torch;
  return py::make_tuple(value_grad ? wrap_tensor(std::move(gv), torch) : py::none(),
                        locations_grad ? wrap_tensor(std::move(gl), torch) : py::none(),
                        weights_grad ? wrap_tensor(std::move(ga), torch) : py::none());
}

}  // namespace

void init_ms_deform_attn(py::module_& m) {
  using py::arg;
  m.def("ms_deform_attn", &py_forward, arg("value"), arg("spatial_shapes"),
        arg("level_start_index"), arg("sampling_locations"), arg("attention_weights"),
        py::kw_only(), arg("out") = py::none(), with_arrays(doc::kMsDeformAttn));
  m.def("ms_deform_attn_backward", &py_backward, arg("grad_output"), arg("value"),
        arg("spatial_shapes"), arg("level_start_index"), arg("sampling_locations"),
        arg("attention_weights"), py::kw_only(), arg("value_grad") = true,
        arg("locations_grad") = true, arg("weights_grad") = true,
        with_arrays(doc::kMsDeformAttnBackward));
}

}  // namespace gridops::py_binding
