// gridops.gather and GatherPlan.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <utility>

#include "bindings.h"
#include "docstrings.h"

namespace gridops::py_binding {
namespace {

py::object py_gather(py::object data, py::object indices, int64_t axis, py::object out) {
  GatherDesc d;
  d.axis = axis;
  InArray src = get_array(data, "gather: data");
  InArray idx = get_array(indices, "gather: indices");
  if (!out.is_none()) {
    InArray dst = get_array(out, "gather: out", true);
    Status s;
    {
      py::gil_scoped_release nogil;
      s = gridops::gather(d, src.view, idx.view, dst.view);
    }
    check(s);
    return py::reinterpret_borrow<py::object>(out);
  }
  StatusOr<Tensor> r = Status(StatusCode::kInternal, "unset");
  {
    py::gil_scoped_release nogil;
    r = gridops::gather(d, src.view, idx.view);
  }
  return finish(std::move(r), src.from_torch);
}

struct PyGatherPlan {
  GatherPlan plan;
  DType dtype;
  py::object run(py::object data, py::object indices, py::object out) const {
    InArray src = get_array(data, "GatherPlan: data");
    InArray idx = get_array(indices, "GatherPlan: indices");
    if (!out.is_none()) {
      InArray dst = get_array(out, "GatherPlan: out", true);
      Status s;
      {
        py::gil_scoped_release nogil;
        s = plan.run(src.view, idx.view, dst.view);
      }
      check(s);
      return py::reinterpret_borrow<py::object>(out);
    }
    Tensor t = value_or_throw(Tensor::create(dtype, plan.dst_shape()));
    Status s;
    {
      py::gil_scoped_release nogil;
      s = plan.run(src.view, idx.view, t.mutable_view());
    }
    check(s);
    return wrap_tensor(std::move(t), src.from_torch);
  }
};

}  // namespace

void init_gather(py::module_& m) {
  using py::arg;
  m.def("gather", &py_gather, arg("data"), arg("indices"), arg("axis") = 0, py::kw_only(),
        arg("out") = py::none(), with_arrays(doc::kGather));

  py::class_<PyGatherPlan>(m, "GatherPlan", doc::kGatherPlan)
      .def(py::init([](py::object data_shape, py::object indices_shape, py::object dtype,
                       py::object indices_dtype, int64_t axis) {
             GatherDesc d;
             d.axis = axis;
             const DType dt = dtype_from_py(dtype, "GatherPlan: dtype");
             const DType it = dtype_from_py(indices_dtype, "GatherPlan: indices_dtype");
             const Dims ds = int_list(data_shape, "GatherPlan: data_shape");
             const Dims is = int_list(indices_shape, "GatherPlan: indices_shape");
             return PyGatherPlan{value_or_throw(make_gather_plan(d, dt, ds, it, is)), dt};
           }),
           arg("data_shape"), arg("indices_shape"), arg("dtype") = "float32",
           arg("indices_dtype") = "int64", arg("axis") = 0)
      .def("__call__", &PyGatherPlan::run, arg("data"), arg("indices"), py::kw_only(),
           arg("out") = py::none(), "__call__(data, indices, *, out=None): runs the plan.")
      .def_property_readonly("output_shape", [](const PyGatherPlan& p) {
        return py::tuple(py::cast(dims_of(p.plan.dst_shape())));
      })
      .def_property_readonly("impl_name", [](const PyGatherPlan& p) { return std::string(p.plan.impl_name()); });
}

}  // namespace gridops::py_binding
