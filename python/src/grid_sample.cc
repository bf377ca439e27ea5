// gridops.grid_sample, grid_sample_input_box, grid_sample_backward and GridSamplePlan.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <string>
#include <utility>
#include <vector>

#include "bindings.h"
#include "docstrings.h"

namespace gridops::py_binding {
namespace {

/// The grid conventions and fill value (gridops extensions), as the keyword arguments.
struct Extensions {
  std::string grid_units = "normalized";
  std::string grid_kind = "absolute";
  double fill_value = 0.0;
};

GridSampleDesc grid_sample_desc(const std::string& mode, const std::string& padding_mode,
                                py::handle align_corners, const std::string& layout,
                                const Extensions& x = {}) {
  GridSampleDesc d;
  d.mode = value_or_throw(parse_interpolation_mode(mode));
  d.padding = value_or_throw(parse_grid_padding(padding_mode));
  d.align_corners = align_flag(align_corners, "grid_sample");
  d.layout = parse_layout(layout, "grid_sample");
  d.units = value_or_throw(parse_grid_units(x.grid_units));
  d.kind = value_or_throw(parse_grid_kind(x.grid_kind));
  d.fill_value = x.fill_value;
  return d;
}

py::object py_grid_sample(py::object input, py::object grid, const std::string& mode,
                       const std::string& padding_mode, py::object align_corners,
                       const std::string& layout, py::object out, py::object full_size,
                       py::object origin, const std::string& grid_units,
                       const std::string& grid_kind, double fill_value) {
  const GridSampleDesc d = grid_sample_desc(mode, padding_mode, align_corners, layout,
                                            {grid_units, grid_kind, fill_value});
  if (full_size.is_none() != origin.is_none()) {
    throw PyError{PyExc_ValueError,
                  "grid_sample: give both full_size and origin (an input window) or neither"};
  }
  const bool windowed = !full_size.is_none();
  GridSampleWindow w;
  if (windowed) {
    w.full = int_list(full_size, "grid_sample: full_size");
    w.origin = int_list(origin, "grid_sample: origin");
  }
  InArray src = get_array(input, "grid_sample: input");
  InArray g = get_array(grid, "grid_sample: grid");
  if (!out.is_none()) {
    InArray dst = get_array(out, "grid_sample: out", true);
    Status s;
    {
      py::gil_scoped_release nogil;
      s = windowed ? gridops::grid_sample(d, w, src.view, g.view, dst.view)
                   : gridops::grid_sample(d, src.view, g.view, dst.view);
    }
    check(s);
    return py::reinterpret_borrow<py::object>(out);
  }
  StatusOr<Tensor> r = Status(StatusCode::kInternal, "unset");
  {
    py::gil_scoped_release nogil;
    r = windowed ? gridops::grid_sample(d, w, src.view, g.view)
                 : gridops::grid_sample(d, src.view, g.view);
  }
  return finish(std::move(r), src.from_torch);
}

py::object py_grid_sample_input_box(py::object grid, py::object full_size, const std::string& mode,
                                    const std::string& padding_mode, py::object align_corners,
                                    const std::string& grid_units, const std::string& grid_kind,
                                    double fill_value) {
  const GridSampleDesc d = grid_sample_desc(mode, padding_mode, align_corners, "channels_first",
                                            {grid_units, grid_kind, fill_value});
  const Dims full = int_list(full_size, "grid_sample_input_box: full_size");
  InArray g = get_array(grid, "grid_sample_input_box: grid");
  StatusOr<std::vector<std::pair<int64_t, int64_t>>> r =
      Status(StatusCode::kInternal, "unset");
  {
    py::gil_scoped_release nogil;
    r = gridops::grid_sample_input_box(d, full, g.view);
  }
  py::list out;
  for (const auto& [lo, hi] : value_or_throw(std::move(r))) out.append(py::make_tuple(lo, hi));
  return out;
}

struct PyGridSamplePlan {
  GridSamplePlan plan;
  DType dtype;
  py::object run(py::object input, py::object grid, py::object out) const {
    InArray src = get_array(input, "GridSamplePlan: input");
    InArray g = get_array(grid, "GridSamplePlan: grid");
    if (!out.is_none()) {
      InArray dst = get_array(out, "GridSamplePlan: out", true);
      Status s;
      {
        py::gil_scoped_release nogil;
        s = plan.run(src.view, g.view, dst.view);
      }
      check(s);
      return py::reinterpret_borrow<py::object>(out);
    }
    Tensor t = value_or_throw(Tensor::create(dtype, plan.dst_shape()));
    Status s;
    {
      py::gil_scoped_release nogil;
      s = plan.run(src.view, g.view, t.mutable_view());
    }
    check(s);
    return wrap_tensor(std::move(t), src.from_torch);
  }
};

// GridSample backward: the gradients with respect to input and grid (either skippable).
py::object py_grid_sample_backward(py::object grad_output, py::object input, py::object grid,
                                   const std::string& mode, const std::string& padding_mode,
                                   py::object align_corners, const std::string& layout,
                                   bool input_grad, bool grid_grad, py::object grad_input_out,
                                   py::object grad_grid_out, const std::string& grid_units,
                                   const std::string& grid_kind, double fill_value) {
  const GridSampleDesc d = grid_sample_desc(mode, padding_mode, align_corners, layout,
                                            {grid_units, grid_kind, fill_value});
  InArray gd = get_array(grad_output, "grid_sample_backward: grad_output");
  InArray src = get_array(input, "grid_sample_backward: input");
  InArray g = get_array(grid, "grid_sample_backward: grid");
  const bool as_torch = gd.from_torch || src.from_torch;
  if (!grad_input_out.is_none() && !input_grad) {
    throw PyError{PyExc_ValueError, "grid_sample_backward: grad_input_out given with input_grad=False"};
  }
  if (!grad_grid_out.is_none() && !grid_grad) {
    throw PyError{PyExc_ValueError, "grid_sample_backward: grad_grid_out given with grid_grad=False"};
  }
  auto plan = value_or_throw(make_grid_sample_backward_plan(d, src.view.dtype, src.view.shape,
                                                            g.view.dtype, g.view.shape));
  InArray gi_out, gg_out;
  Tensor gi, gg;
  MutableTensorView gi_view, gg_view;
  if (input_grad) {
    if (!grad_input_out.is_none()) {
      gi_out = get_array(grad_input_out, "grid_sample_backward: grad_input_out", true);
      gi_view = gi_out.view;
    } else {
      gi = value_or_throw(Tensor::create(src.view.dtype, src.view.shape));
      gi_view = gi.mutable_view();
    }
  }
  if (grid_grad) {
    if (!grad_grid_out.is_none()) {
      gg_out = get_array(grad_grid_out, "grid_sample_backward: grad_grid_out", true);
      gg_view = gg_out.view;
    } else {
      gg = value_or_throw(Tensor::create(g.view.dtype, g.view.shape));
      gg_view = gg.mutable_view();
    }
  }
  Status s;
  {
    py::gil_scoped_release nogil;
    s = plan.run(gd.view, src.view, g.view, input_grad ? &gi_view : nullptr,
                 grid_grad ? &gg_view : nullptr);
  }
  check(s);
  py::object r_in = py::none(), r_grid = py::none();
  if (input_grad) {
    r_in = grad_input_out.is_none() ? wrap_tensor(std::move(gi), as_torch) : grad_input_out;
  }
  if (grid_grad) {
    r_grid = grad_grid_out.is_none() ? wrap_tensor(std::move(gg), as_torch) : grad_grid_out;
  }
  return py::make_tuple(r_in, r_grid);
}

}  // namespace

void init_grid_sample(py::module_& m) {
  using py::arg;
  m.def("grid_sample", &py_grid_sample, arg("input"), arg("grid"), arg("mode") = "bilinear",
        arg("padding_mode") = "zeros", arg("align_corners") = false, py::kw_only(),
        arg("layout") = "channels_first", arg("out") = py::none(), arg("full_size") = py::none(),
        arg("origin") = py::none(), arg("grid_units") = "normalized",
        arg("grid_kind") = "absolute", arg("fill_value") = 0.0, with_arrays(doc::kGridSample));

  m.def("grid_sample_input_box", &py_grid_sample_input_box, arg("grid"), arg("full_size"),
        arg("mode") = "bilinear", arg("padding_mode") = "zeros", arg("align_corners") = false,
        py::kw_only(), arg("grid_units") = "normalized", arg("grid_kind") = "absolute",
        arg("fill_value") = 0.0, doc::kGridSampleInputBox);

  m.def("grid_sample_backward", &py_grid_sample_backward, arg("grad_output"), arg("input"),
        arg("grid"), arg("mode") = "bilinear", arg("padding_mode") = "zeros",
        arg("align_corners") = false, py::kw_only(), arg("layout") = "channels_first",
        arg("input_grad") = true, arg("grid_grad") = true, arg("grad_input_out") = py::none(),
        arg("grad_grid_out") = py::none(), arg("grid_units") = "normalized",
        arg("grid_kind") = "absolute", arg("fill_value") = 0.0,
        with_arrays(doc::kGridSampleBackward));

  py::class_<PyGridSamplePlan>(m, "GridSamplePlan", doc::kGridSamplePlan)
      .def(py::init([](py::object input_shape, py::object grid_shape, py::object dtype,
                       py::object grid_dtype, const std::string& mode, const std::string& padding_mode,
                       py::object align_corners, const std::string& layout,
                       const std::string& grid_units, const std::string& grid_kind,
                       double fill_value) {
             const GridSampleDesc d = grid_sample_desc(mode, padding_mode, align_corners, layout,
                                                       {grid_units, grid_kind, fill_value});
             const DType dt = dtype_from_py(dtype, "GridSamplePlan: dtype");
             const DType gdt = grid_dtype.is_none() ? dt : dtype_from_py(grid_dtype, "GridSamplePlan: grid_dtype");
             const Dims s = int_list(input_shape, "GridSamplePlan: input_shape");
             const Dims g = int_list(grid_shape, "GridSamplePlan: grid_shape");
             return PyGridSamplePlan{value_or_throw(make_grid_sample_plan(d, dt, s, gdt, g)), dt};
           }),
           arg("input_shape"), arg("grid_shape"), arg("dtype") = "float32",
           arg("grid_dtype") = py::none(), arg("mode") = "bilinear", arg("padding_mode") = "zeros",
           arg("align_corners") = false, arg("layout") = "channels_first", py::kw_only(),
           arg("grid_units") = "normalized", arg("grid_kind") = "absolute",
           arg("fill_value") = 0.0)
      .def("__call__", &PyGridSamplePlan::run, arg("input"), arg("grid"), py::kw_only(),
           arg("out") = py::none(), "__call__(input, grid, *, out=None): runs the plan.")
      .def_property_readonly("output_shape", [](const PyGridSamplePlan& p) {
        return py::tuple(py::cast(dims_of(p.plan.dst_shape())));
      })
      .def_property_readonly("impl_name", [](const PyGridSamplePlan& p) { return std::string(p.plan.impl_name()); });
}

}  // namespace gridops::py_binding
