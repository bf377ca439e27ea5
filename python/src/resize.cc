// gridops.resize (ONNX Resize), resize_input_box and ResizePlan.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <string>
#include <utility>
#include <vector>

#include "bindings.h"
#include "docstrings.h"

namespace gridops::py_binding {
namespace {

ResizeDesc resize_desc(py::object scales, py::object sizes, const std::string& mode,
                       const std::string& coordinate_transformation_mode,
                       const std::string& nearest_mode, double cubic_coeff_a, bool exclude_outside,
                       bool antialias, const std::string& keep_aspect_ratio_policy,
                       double extrapolation_value, py::object axes, py::object roi) {
  ResizeDesc d;
  d.mode = value_or_throw(parse_resize_mode(mode));
  d.coordinate_mode = value_or_throw(parse_resize_coordinate_mode(coordinate_transformation_mode));
  d.nearest_mode = value_or_throw(parse_resize_nearest_mode(nearest_mode));
  d.cubic_coeff_a = cubic_coeff_a;
  d.exclude_outside = exclude_outside;
  d.antialias = antialias;
  d.aspect_policy = value_or_throw(parse_resize_aspect_policy(keep_aspect_ratio_policy));
  d.extrapolation_value = extrapolation_value;
  if (!axes.is_none()) d.axes = int_list(axes, "resize: axes");
  if (!scales.is_none()) d.scales = float_list(scales, "resize: scales");
  if (!sizes.is_none()) d.sizes = int_list(sizes, "resize: sizes");
  if (!roi.is_none()) d.roi = float_list(roi, "resize: roi");
  return d;
}

/// Runs a Resize plan on src into `out` (returned) or into a new array; `out_name` names
/// `out` in errors.
py::object run_resize_plan(const ResizePlan& plan, const InArray& src, py::object out,
                           const char* out_name) {
  if (!out.is_none()) {
    InArray dst = get_array(out, out_name, true);
    Status s;
    {
      py::gil_scoped_release nogil;
      s = plan.run(src.view, dst.view);
    }
    check(s);
    return out;
  }
  Tensor t = value_or_throw(Tensor::create(plan.dtype(), plan.dst_shape()));
  Status s;
  {
    py::gil_scoped_release nogil;
    s = plan.run(src.view, t.mutable_view());
  }
  check(s);
  return wrap_tensor(std::move(t), src.from_torch);
}

py::object py_resize(py::object input, py::object scales, py::object sizes, const std::string& mode,
                     const std::string& coordinate_transformation_mode,
                     const std::string& nearest_mode, double cubic_coeff_a, bool exclude_outside,
                     bool antialias, const std::string& keep_aspect_ratio_policy,
                     double extrapolation_value, py::object axes, py::object roi, py::object out,
                     py::object window) {
  const ResizeDesc d = resize_desc(scales, sizes, mode, coordinate_transformation_mode, nearest_mode,
                                   cubic_coeff_a, exclude_outside, antialias,
                                   keep_aspect_ratio_policy, extrapolation_value, axes, roi);
  InArray src = get_array(input, "resize: input");
  if (!window.is_none()) {
    // (full_input_shape, input_origin, output_origin, output_shape); input is the src box.
    const py::sequence seq = sequence_arg(
        window, "resize: window",
        "(full_input_shape, input_origin, output_origin, output_shape)", 4);
    ResizeWindow w;
    w.full_in = int_list(seq[0], "resize: window full_input_shape");
    w.in_origin = int_list(seq[1], "resize: window input_origin");
    w.in_shape = src.view.shape;
    w.out_origin = int_list(seq[2], "resize: window output_origin");
    w.out_shape = int_list(seq[3], "resize: window output_shape");
    const ResizePlan plan = value_or_throw(make_resize_plan(d, src.view.dtype, w));
    return run_resize_plan(plan, src, out, "resize: out");
  }
  if (!out.is_none()) {
    InArray dst = get_array(out, "resize: out", true);
    Status s;
    {
      py::gil_scoped_release nogil;
      s = gridops::resize(d, src.view, dst.view);
    }
    check(s);
    return out;
  }
  StatusOr<Tensor> r = Status(StatusCode::kInternal, "unset");
  {
    py::gil_scoped_release nogil;
    r = gridops::resize(d, src.view);
  }
  return finish(std::move(r), src.from_torch);
}

struct PyResizePlan {
  ResizePlan plan;
  py::object run(py::object input, py::object out) const {
    const InArray src = get_array(input, "ResizePlan: input");
    return run_resize_plan(plan, src, out, "ResizePlan: out");
  }
  // plan.backward of grad into out (returned) or into a new array of the input's shape.
  py::object backward(py::object grad_in, py::object out) const {
    const InArray grad = get_array(grad_in, "ResizePlan.backward: grad");
    if (!out.is_none()) {
      InArray dst = get_array(out, "ResizePlan.backward: out", true);
      Status s;
      {
        py::gil_scoped_release nogil;
        s = plan.backward(grad.view, dst.view);
      }
      check(s);
      return out;
    }
    Tensor t = value_or_throw(Tensor::create(plan.dtype(), plan.src_shape()));
    Status s;
    {
      py::gil_scoped_release nogil;
      s = plan.backward(grad.view, t.mutable_view());
    }
    check(s);
    return wrap_tensor(std::move(t), grad.from_torch);
  }
};

}  // namespace

void init_resize(py::module_& m) {
  using py::arg;
  m.def("resize", &py_resize, arg("input"), arg("scales") = py::none(), arg("sizes") = py::none(),
        arg("mode") = "nearest", py::kw_only(),
        arg("coordinate_transformation_mode") = "half_pixel",
        arg("nearest_mode") = "round_prefer_floor", arg("cubic_coeff_a") = -0.75,
        arg("exclude_outside") = false, arg("antialias") = false,
        arg("keep_aspect_ratio_policy") = "stretch", arg("extrapolation_value") = 0.0,
        arg("axes") = py::none(), arg("roi") = py::none(), arg("out") = py::none(),
        arg("window") = py::none(), with_arrays(doc::kResize));

  m.def("resize_input_box",
        [](py::object full_input_shape, py::object out_begin, py::object out_end, py::object scales,
           py::object sizes, const std::string& mode, const std::string& coordinate_transformation_mode,
           const std::string& nearest_mode, double cubic_coeff_a, bool exclude_outside, bool antialias,
           const std::string& keep_aspect_ratio_policy, py::object axes, py::object roi) {
          const ResizeDesc d = resize_desc(scales, sizes, mode, coordinate_transformation_mode,
                                           nearest_mode, cubic_coeff_a, exclude_outside, antialias,
                                           keep_aspect_ratio_policy, 0.0, axes, roi);
          const Dims full = int_list(full_input_shape, "resize_input_box: full_input_shape");
          const Dims b = int_list(out_begin, "resize_input_box: out_begin");
          const Dims e = int_list(out_end, "resize_input_box: out_end");
          py::list res;
          for (const auto& [lo, hi] : value_or_throw(resize_input_box(d, full, b, e))) {
            res.append(py::make_tuple(lo, hi));
          }
          return res;
        },
        arg("full_input_shape"), arg("out_begin"), arg("out_end"), arg("scales") = py::none(),
        arg("sizes") = py::none(), arg("mode") = "nearest", py::kw_only(),
        arg("coordinate_transformation_mode") = "half_pixel",
        arg("nearest_mode") = "round_prefer_floor", arg("cubic_coeff_a") = -0.75,
        arg("exclude_outside") = false, arg("antialias") = false,
        arg("keep_aspect_ratio_policy") = "stretch", arg("axes") = py::none(),
        arg("roi") = py::none(), doc::kResizeInputBox);

  py::class_<PyResizePlan>(m, "ResizePlan", doc::kResizePlan)
      .def(py::init([](py::object input_shape, py::object dtype, py::object scales, py::object sizes,
                       const std::string& mode, const std::string& coordinate_transformation_mode,
                       const std::string& nearest_mode, double cubic_coeff_a, bool exclude_outside,
                       bool antialias, const std::string& keep_aspect_ratio_policy,
                       double extrapolation_value, py::object axes, py::object roi) {
             const ResizeDesc d = resize_desc(scales, sizes, mode, coordinate_transformation_mode,
                                              nearest_mode, cubic_coeff_a, exclude_outside, antialias,
                                              keep_aspect_ratio_policy, extrapolation_value, axes, roi);
             const DType dt = dtype_from_py(dtype, "ResizePlan: dtype");
             const Dims s = int_list(input_shape, "ResizePlan: input_shape");
             return PyResizePlan{value_or_throw(make_resize_plan(d, dt, s))};
           }),
           arg("input_shape"), arg("dtype") = "float32", arg("scales") = py::none(),
           arg("sizes") = py::none(), arg("mode") = "nearest", py::kw_only(),
           arg("coordinate_transformation_mode") = "half_pixel",
           arg("nearest_mode") = "round_prefer_floor", arg("cubic_coeff_a") = -0.75,
           arg("exclude_outside") = false, arg("antialias") = false,
           arg("keep_aspect_ratio_policy") = "stretch", arg("extrapolation_value") = 0.0,
           arg("axes") = py::none(), arg("roi") = py::none())
      .def("__call__", &PyResizePlan::run, arg("input"), py::kw_only(), arg("out") = py::none(),
           "__call__(input, *, out=None): runs the plan.")
      .def_property_readonly("output_shape", [](const PyResizePlan& p) {
        return py::tuple(py::cast(dims_of(p.plan.dst_shape())));
      })
      .def("backward", &PyResizePlan::backward, arg("grad"), py::kw_only(), arg("out") = py::none(),
           "backward(grad, *, out=None): the gradient with respect to the input (see "
           "gridops.resize_backward).")
      .def_property_readonly("backward_impl_name",
                             [](const PyResizePlan& p) { return std::string(p.plan.backward_impl_name()); })
      .def_property_readonly("impl_name", [](const PyResizePlan& p) { return std::string(p.plan.impl_name()); });
}

}  // namespace gridops::py_binding
