// gridops.affine_warp, affine_warp_input_box, affine_grid, affine_grid_backward and
// AffineGridPlan.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "bindings.h"
#include "docstrings.h"

namespace gridops::py_binding {
namespace {

AffineWarpDesc affine_warp_desc(const std::string& mode, const std::string& padding_mode,
                                py::handle align_corners, const std::string& layout) {
  AffineWarpDesc d;
  d.mode = value_or_throw(parse_interpolation_mode(mode));
  d.padding = value_or_throw(parse_grid_padding(padding_mode));
  d.align_corners = align_flag(align_corners, "affine_warp");
  d.layout = parse_layout(layout, "affine_warp");
  return d;
}

py::object py_affine_warp(py::object input, py::object theta, py::object size,
                          const std::string& mode, const std::string& padding_mode,
                          py::object align_corners, const std::string& layout, py::object out,
                          py::object window, py::object full_size, py::object origin,
                          py::object threads) {
  const AffineWarpDesc d = affine_warp_desc(mode, padding_mode, align_corners, layout);
  if (full_size.is_none() != origin.is_none()) {
    throw PyError{PyExc_ValueError,
                  "affine_warp: give both full_size and origin (an input window) or neither"};
  }
  InArray src = get_array(input, "affine_warp: input");
  InArray th = get_array(theta, "affine_warp: theta");
  const int rank = static_cast<int>(src.view.shape.size());
  const int r = rank - 2;
  Dims sz = int_list(size, "affine_warp: size");
  if (static_cast<int>(sz.size()) == rank && rank >= 3) {
    sz.erase(sz.begin(), sz.begin() + 2);  // (N, C, *spatial): the N and C are input's
  }
  const bool cf = d.layout == ChannelLayout::kChannelsFirst;
  const size_t fs = cf ? 2 : 1;
  Dims out_origin(sz.size(), 0), out_shape = sz;
  const bool windowed = !window.is_none() || !full_size.is_none();
  AffineWarpWindow w;
  if (!window.is_none()) {
    const py::sequence seq =
        sequence_arg(window, "affine_warp: window", "(origin, shape), spatial", 2);
    out_origin = int_list(seq[0], "affine_warp: window origin");
    out_shape = int_list(seq[1], "affine_warp: window shape");
  }
  w.out_origin = out_origin;
  if (!full_size.is_none()) {
    w.in_full = int_list(full_size, "affine_warp: full_size");
    w.in_origin = int_list(origin, "affine_warp: origin");
  } else if (rank >= 3 && r <= 3) {
    w.in_full.assign(src.view.shape.begin() + static_cast<std::ptrdiff_t>(fs),
                     src.view.shape.begin() + static_cast<std::ptrdiff_t>(fs) + r);
    w.in_origin.assign(static_cast<size_t>(r), 0);
  }
  StatusOr<AffineWarpPlan> plan = Status(StatusCode::kInternal, "unset");
  if (windowed) {
    plan = make_affine_warp_plan(d, src.view.dtype, src.view.shape, th.view.dtype, th.view.shape,
                                 sz, out_shape, w);
  } else {
    plan = make_affine_warp_plan(d, src.view.dtype, src.view.shape, th.view.dtype, th.view.shape,
                                 sz);
  }
  const AffineWarpPlan p = value_or_throw(std::move(plan));
  ScopedThreads scoped(threads);
  if (!out.is_none()) {
    InArray dst = get_array(out, "affine_warp: out", true);
    Status s;
    {
      py::gil_scoped_release nogil;
      s = p.run(src.view, th.view, dst.view);
    }
    check(s);
    return py::reinterpret_borrow<py::object>(out);
  }
  Tensor t = value_or_throw(Tensor::create(src.view.dtype, p.dst_shape()));
  Status s;
  {
    py::gil_scoped_release nogil;
    s = p.run(src.view, th.view, t.mutable_view());
  }
  check(s);
  return wrap_tensor(std::move(t), src.from_torch);
}

py::object py_affine_warp_input_box(py::object theta, py::object full_size, py::object size,
                                    py::object out_origin, py::object out_shape,
                                    const std::string& mode, const std::string& padding_mode,
                                    py::object align_corners) {
  const AffineWarpDesc d = affine_warp_desc(mode, padding_mode, align_corners, "channels_first");
  const Dims full = int_list(full_size, "affine_warp_input_box: full_size");
  const Dims sz = int_list(size, "affine_warp_input_box: size");
  const Dims oo = int_list(out_origin, "affine_warp_input_box: out_origin");
  const Dims os = int_list(out_shape, "affine_warp_input_box: out_shape");
  InArray th = get_array(theta, "affine_warp_input_box: theta");
  StatusOr<std::vector<std::pair<int64_t, int64_t>>> r = Status(StatusCode::kInternal, "unset");
  {
    py::gil_scoped_release nogil;
    r = gridops::affine_warp_input_box(d, th.view, full, sz, oo, os);
  }
  py::list res;
  for (const auto& [lo, hi] : value_or_throw(std::move(r))) res.append(py::make_tuple(lo, hi));
  return res;
}

py::object py_affine_grid(py::object theta, py::object size, py::object align_corners,
                       py::object out, py::object window) {
  AffineGridDesc d;
  d.align_corners = align_flag(align_corners, "affine_grid");
  const Dims sz = int_list(size, "affine_grid: size");
  InArray th = get_array(theta, "affine_grid: theta");
  std::unique_ptr<AffineGridWindow> win;
  if (!window.is_none()) {
    const py::sequence seq =
        sequence_arg(window, "affine_grid: window", "(origin, shape), spatial", 2);
    win = std::make_unique<AffineGridWindow>();
    win->origin = int_list(seq[0], "affine_grid: window origin");
    win->shape = int_list(seq[1], "affine_grid: window shape");
  }
  if (!out.is_none()) {
    InArray dst = get_array(out, "affine_grid: out", true);
    Status s;
    {
      py::gil_scoped_release nogil;
      if (win) {
        StatusOr<AffineGridPlan> plan =
            make_affine_grid_plan(d, th.view.dtype, th.view.shape, sz, *win);
        s = plan.ok() ? plan->run(th.view, dst.view) : plan.status();
      } else {
        s = gridops::affine_grid(d, th.view, sz, dst.view);
      }
    }
    check(s);
    return py::reinterpret_borrow<py::object>(out);
  }
  StatusOr<Tensor> r = Status(StatusCode::kInternal, "unset");
  {
    py::gil_scoped_release nogil;
    r = win ? gridops::affine_grid(d, th.view, sz, *win) : gridops::affine_grid(d, th.view, sz);
  }
  return finish(std::move(r), th.from_torch);
}

struct PyAffineGridPlan {
  AffineGridPlan plan;
  DType dtype;
  py::object run(py::object theta, py::object out) const {
    InArray th = get_array(theta, "AffineGridPlan: theta");
    if (!out.is_none()) {
      InArray dst = get_array(out, "AffineGridPlan: out", true);
      Status s;
      {
        py::gil_scoped_release nogil;
        s = plan.run(th.view, dst.view);
      }
      check(s);
      return py::reinterpret_borrow<py::object>(out);
    }
    Tensor t = value_or_throw(Tensor::create(dtype, plan.grid_shape()));
    Status s;
    {
      py::gil_scoped_release nogil;
      s = plan.run(th.view, t.mutable_view());
    }
    check(s);
    return wrap_tensor(std::move(t), th.from_torch);
  }
};

py::object py_affine_grid_backward(py::object grad_grid, py::object size, py::object align_corners,
                                  py::object out) {
  AffineGridDesc d;
  d.align_corners = align_flag(align_corners, "affine_grid_backward");
  const Dims sz = int_list(size, "affine_grid_backward: size");
  InArray gg = get_array(grad_grid, "affine_grid_backward: grad_grid");
  if (!out.is_none()) {
    InArray dst = get_array(out, "affine_grid_backward: out", true);
    Status s;
    {
      py::gil_scoped_release nogil;
      s = gridops::affine_grid_backward(d, gg.view, sz, dst.view);
    }
    check(s);
    return out;
  }
  StatusOr<Tensor> r = Status(StatusCode::kInternal, "unset");
  {
    py::gil_scoped_release nogil;
    r = gridops::affine_grid_backward(d, gg.view, sz);
  }
  return finish(std::move(r), gg.from_torch);
}

}  // namespace

void init_affine(py::module_& m) {
  using py::arg;
  m.def("affine_grid", &py_affine_grid, arg("theta"), arg("size"), arg("align_corners") = false,
        py::kw_only(), arg("out") = py::none(), arg("window") = py::none(),
        with_arrays(doc::kAffineGrid));

  m.def("affine_warp", &py_affine_warp, arg("input"), arg("theta"), arg("size"),
        arg("mode") = "bilinear", arg("padding_mode") = "zeros", arg("align_corners") = false,
        py::kw_only(), arg("layout") = "channels_first", arg("out") = py::none(),
        arg("window") = py::none(), arg("full_size") = py::none(), arg("origin") = py::none(),
        arg("threads") = py::none(), with_arrays(doc::kAffineWarp));

  m.def("affine_warp_input_box", &py_affine_warp_input_box, arg("theta"), arg("full_size"),
        arg("size"), arg("out_origin"), arg("out_shape"), arg("mode") = "bilinear",
        arg("padding_mode") = "zeros", arg("align_corners") = false, doc::kAffineWarpInputBox);

  m.def("affine_grid_backward", &py_affine_grid_backward, arg("grad_grid"), arg("size"),
        arg("align_corners") = false, py::kw_only(), arg("out") = py::none(),
        with_arrays(doc::kAffineGridBackward));

  py::class_<PyAffineGridPlan>(m, "AffineGridPlan", doc::kAffineGridPlan)
      .def(py::init([](py::object theta_shape, py::object size, py::object dtype, py::object align_corners) {
             AffineGridDesc d;
             d.align_corners = align_flag(align_corners, "AffineGridPlan");
             const DType dt = dtype_from_py(dtype, "AffineGridPlan: dtype");
             const Dims t = int_list(theta_shape, "AffineGridPlan: theta_shape");
             const Dims s = int_list(size, "AffineGridPlan: size");
             return PyAffineGridPlan{value_or_throw(make_affine_grid_plan(d, dt, t, s)), dt};
           }),
           arg("theta_shape"), arg("size"), arg("dtype") = "float32", arg("align_corners") = false)
      .def("__call__", &PyAffineGridPlan::run, arg("theta"), py::kw_only(), arg("out") = py::none(),
           "__call__(theta, *, out=None): runs the plan.")
      .def_property_readonly("output_shape", [](const PyAffineGridPlan& p) {
        return py::tuple(py::cast(dims_of(p.plan.grid_shape())));
      })
      .def_property_readonly("impl_name", [](const PyAffineGridPlan& p) { return std::string(p.plan.impl_name()); });
}

}  // namespace gridops::py_binding
