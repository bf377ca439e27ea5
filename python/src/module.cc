// gridops._gridops: the Python bindings. Argument conversion and dispatch to the public C++
// API only; every operator's semantics and validation live in the library.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>
#include <cstring>
#include <optional>
#include <memory>
#include <string>
#include <vector>

#include "arrays.h"
#include "docstrings.h"
#include "gridops/gridops.h"

namespace gridops::py_binding {

void init_onnx(py::module_& m);  // onnx_module.cc (only when built with gridops::onnx)

namespace {


// --- argument helpers --------------------------------------------------------------------

// Every conversion of a user's argument goes through these (or int_list / float_list), so
// that a wrong type or value is a TypeError / ValueError naming the argument, never
// pybind11's "Unable to cast Python instance to C++ type".

std::string type_and_repr(py::handle obj) {
  std::string r = py::repr(obj).cast<std::string>();
  if (r.size() > 80) r = r.substr(0, 77) + "...";
  return py::str(obj.get_type().attr("__name__")).cast<std::string>() + " " + r;
}

/// The value of an int (anything with __index__, not a bool), or nullopt for anything else;
/// a ValueError naming `what` when it does not fit in 64 bits. int_arg and int_list's
/// elements both convert through it, each with its own TypeError.
std::optional<int64_t> index_value(py::handle obj, const std::string& what) {
  PyObject* index = py::isinstance<py::bool_>(obj) ? nullptr : PyNumber_Index(obj.ptr());
  if (!index) {
    PyErr_Clear();
    return std::nullopt;
  }
  int overflow = 0;
  const long long v = PyLong_AsLongLongAndOverflow(index, &overflow);
  Py_DECREF(index);
  if (overflow != 0) {
    throw PyError{PyExc_ValueError, what + ": " + py::repr(obj).cast<std::string>() +
                                        " does not fit in 64 bits"};
  }
  return v;
}

/// An int (or anything with __index__: NumPy and torch integers), not a bool.
int64_t int_arg(py::handle obj_in, const std::string& what) {
  py::object obj = py::reinterpret_borrow<py::object>(obj_in);
  if (!py::isinstance<py::str>(obj) && py::hasattr(obj, "ndim") && py::hasattr(obj, "item") &&
      py::int_(obj.attr("ndim")).cast<int>() == 0) {
    obj = obj.attr("item")();  // a 0-d array or tensor
  }
  const std::optional<int64_t> v = index_value(obj, what);
  if (!v) throw PyError{PyExc_TypeError, what + ": expected an int, got " + type_and_repr(obj)};
  return *v;
}

/// A real number: an int or a float (or a NumPy / torch real scalar), not a str or a bool.
double number_arg(py::handle obj_in, const std::string& what) {
  py::object obj = py::reinterpret_borrow<py::object>(obj_in);
  if (!py::isinstance<py::str>(obj) && py::hasattr(obj, "ndim") && py::hasattr(obj, "item") &&
      py::int_(obj.attr("ndim")).cast<int>() == 0) {
    obj = obj.attr("item")();
  }
  if (py::isinstance<py::bool_>(obj) || PyComplex_Check(obj.ptr()) ||
      !(py::isinstance<py::int_>(obj) || py::isinstance<py::float_>(obj) ||
        PyObject_HasAttrString(obj.ptr(), "__float__") == 1) ||
      py::isinstance<py::str>(obj) || PyBytes_Check(obj.ptr())) {
    throw PyError{PyExc_TypeError, what + ": expected a number, got " + type_and_repr(obj)};
  }
  const double v = PyFloat_AsDouble(obj.ptr());
  if (v == -1.0 && PyErr_Occurred()) {
    PyErr_Clear();
    throw PyError{PyExc_ValueError, what + ": " + py::repr(obj).cast<std::string>() +
                                        " is not representable as a float64"};
  }
  return v;
}

/// A sequence (list, tuple, ...) that is not a str, of `n` entries where n >= 0.
py::sequence sequence_arg(py::handle obj, const std::string& what, const std::string& form,
                          ssize_t n = -1) {
  if (py::isinstance<py::str>(obj) || !py::isinstance<py::sequence>(obj)) {
    throw PyError{PyExc_TypeError, what + " must be " + form + ", got " + type_and_repr(obj)};
  }
  py::sequence seq = py::reinterpret_borrow<py::sequence>(obj);
  if (n >= 0 && static_cast<ssize_t>(seq.size()) != n) {
    throw PyError{PyExc_ValueError, what + " must be " + form + ", got " +
                                        std::to_string(seq.size()) + " entries"};
  }
  return seq;
}

Dims int_list(py::handle obj_in, const std::string& what) {
  py::object obj = py::reinterpret_borrow<py::object>(obj_in);
  // NumPy arrays and torch tensors (and their scalars) as Python ints first
  if (!py::isinstance<py::str>(obj) && py::hasattr(obj, "tolist")) obj = obj.attr("tolist")();
  if (py::isinstance<py::int_>(obj) && !py::isinstance<py::bool_>(obj)) {
    return Dims{int_arg(obj, what)};
  }
  if (py::isinstance<py::str>(obj) || !py::isinstance<py::sequence>(obj)) {
    throw PyError{PyExc_TypeError, what + ": expected a sequence of ints, got " +
                                       py::repr(obj).cast<std::string>()};
  }
  Dims out;
  for (py::handle item : py::reinterpret_borrow<py::sequence>(obj)) {
    const std::optional<int64_t> v = index_value(item, what);
    if (!v) {
      throw PyError{PyExc_TypeError, what + ": expected a sequence of ints, got an element " +
                                         py::repr(item).cast<std::string>()};
    }
    out.push_back(*v);
  }
  return out;
}

int64_t align_flag(py::handle obj, const std::string& what) {
  if (py::isinstance<py::bool_>(obj)) return obj.cast<bool>() ? 1 : 0;
  if (py::isinstance<py::int_>(obj)) {
    int overflow = 0;
    const long long v = PyLong_AsLongLongAndOverflow(obj.ptr(), &overflow);
    if (overflow == 0 && (v == 0 || v == 1)) return v;
  }
  throw PyError{PyExc_ValueError, what + ": align_corners must be True/False (or 0/1), got " +
                                      py::repr(obj).cast<std::string>()};
}

ChannelLayout parse_layout(const std::string& s, const char* op) {
  if (s == "channels_first" || s == "NCHW" || s == "nchw") return ChannelLayout::kChannelsFirst;
  if (s == "channels_last" || s == "NHWC" || s == "nhwc") return ChannelLayout::kChannelsLast;
  throw PyError{PyExc_ValueError, std::string(op) +
                                      ": layout must be 'channels_first' or 'channels_last', got '" +
                                      s + "'"};
}

// The caller's out= array, or a fresh Tensor of `shape` wrapped after the run.
py::object finish(StatusOr<Tensor> r, bool as_torch) {
  return wrap_tensor(value_or_throw(std::move(r)), as_torch);
}

// --- GridSample --------------------------------------------------------------------------

GridSampleDesc grid_sample_desc(const std::string& mode, const std::string& padding_mode,
                                py::handle align_corners, const std::string& layout) {
  GridSampleDesc d;
  d.mode = value_or_throw(parse_interpolation_mode(mode));
  d.padding = value_or_throw(parse_grid_padding(padding_mode));
  d.align_corners = align_flag(align_corners, "grid_sample");
  d.layout = parse_layout(layout, "grid_sample");
  return d;
}

py::object py_grid_sample(py::object input, py::object grid, const std::string& mode,
                       const std::string& padding_mode, py::object align_corners,
                       const std::string& layout, py::object out, py::object full_size,
                       py::object origin) {
  const GridSampleDesc d = grid_sample_desc(mode, padding_mode, align_corners, layout);
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
                                    const std::string& padding_mode, py::object align_corners) {
  const GridSampleDesc d = grid_sample_desc(mode, padding_mode, align_corners, "channels_first");
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
                                   py::object grad_grid_out) {
  const GridSampleDesc d = grid_sample_desc(mode, padding_mode, align_corners, layout);
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

// --- AffineWarp --------------------------------------------------------------------------

// A thread count given as `what` (threads=, set_num_threads): an int in 0..kMaxThreads
// (0: the default); a bool, float, str or anything else is a TypeError, an int outside the
// range a ValueError, both naming the argument.
int thread_count(py::handle obj, const std::string& what) {
  if (!py::isinstance<py::int_>(obj) || py::isinstance<py::bool_>(obj)) {
    throw PyError{PyExc_TypeError, what + " must be an int (0.." + std::to_string(kMaxThreads) +
                                       ", 0: the default), got " + py::str(obj.get_type().attr("__name__")).cast<std::string>() + " " +
                                       py::repr(obj).cast<std::string>()};
  }
  const py::int_ big = py::reinterpret_borrow<py::int_>(obj);
  const bool in_range = py::bool_(big >= py::int_(0)) && py::bool_(big <= py::int_(kMaxThreads));
  if (!in_range) {
    throw PyError{PyExc_ValueError, what + " must be in 0.." + std::to_string(kMaxThreads) +
                                        " (0: the default), got " + py::repr(obj).cast<std::string>()};
  }
  return obj.cast<int>();
}

// gridops' thread count for one call, on the calling thread only (ScopedNumThreads): the
// process-wide count and other threads' calls are untouched.
struct ScopedThreads {
  std::optional<ScopedNumThreads> scope;
  explicit ScopedThreads(py::handle threads) {
    if (threads.is_none()) return;
    scope.emplace(thread_count(threads, "threads"));
  }
};

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

// --- AffineGrid --------------------------------------------------------------------------

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

// --- Resize (ONNX) -----------------------------------------------------------------------

std::vector<double> float_list(py::handle obj, const std::string& what) {
  py::object o = py::reinterpret_borrow<py::object>(obj);
  if (!py::isinstance<py::str>(o) && py::hasattr(o, "tolist")) o = o.attr("tolist")();
  std::vector<double> v;
  if (py::isinstance<py::float_>(o) || py::isinstance<py::int_>(o)) {
    v.push_back(number_arg(o, what));
    return v;
  }
  if (py::isinstance<py::str>(o) || !py::isinstance<py::sequence>(o)) {
    throw PyError{PyExc_TypeError, what + ": expected a sequence of numbers, got " +
                                       py::repr(o).cast<std::string>()};
  }
  for (py::handle x : py::reinterpret_borrow<py::sequence>(o)) v.push_back(number_arg(x, what));
  return v;
}

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
};

// --- Gather ------------------------------------------------------------------------------

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

// --- Pad ---------------------------------------------------------------------------------

// pads in the ONNX form (flat: begins of every padded axis, then ends) or NumPy's pad_width
// (an int, one (before, after) pair for every axis, or one pair per axis), on `axes`
// (default: every axis).
PadDesc pad_desc(py::handle pads, const std::string& mode, py::handle axes_obj, int rank) {
  PadDesc d;
  d.mode = value_or_throw(parse_pad_mode(mode));
  std::vector<int64_t> axes;
  if (axes_obj.is_none()) {
    for (int i = 0; i < rank; ++i) axes.push_back(i);
  } else {
    for (int64_t a : int_list(axes_obj, "pad: axes")) {
      if (a < -rank || a >= rank) {
        throw PyError{PyExc_ValueError, "pad: axes entry " + std::to_string(a) +
                                            " is out of range for rank " + std::to_string(rank)};
      }
      const int64_t n = a < 0 ? a + rank : a;
      if (std::find(axes.begin(), axes.end(), n) != axes.end()) {
        throw PyError{PyExc_ValueError, "pad: axes has axis " + std::to_string(n) + " twice"};
      }
      axes.push_back(n);
    }
  }
  const size_t k = axes.size();
  std::vector<int64_t> begin(k), end(k);
  py::object p = py::reinterpret_borrow<py::object>(pads);
  if (py::hasattr(p, "tolist") && !py::isinstance<py::str>(p)) p = p.attr("tolist")();
  if (py::isinstance<py::int_>(p) && !py::isinstance<py::bool_>(p)) {
    const int64_t all = int_arg(p, "pad: pads");
    std::fill(begin.begin(), begin.end(), all);
    std::fill(end.begin(), end.end(), all);
  } else if (py::isinstance<py::sequence>(p) && !py::isinstance<py::str>(p)) {
    auto seq = py::reinterpret_borrow<py::sequence>(p);
    bool nested = seq.size() > 0;
    for (py::handle item : seq) {
      if (!py::isinstance<py::sequence>(item) || py::isinstance<py::str>(item)) nested = false;
    }
    if (nested) {  // NumPy pad_width: ((before, after), ...)
      std::vector<Dims> pairs;
      for (py::handle item : seq) {
        Dims pr = int_list(item, "pad: pad_width entry");
        if (pr.size() != 2) {
          throw PyError{PyExc_ValueError, "pad: each pad_width entry must be (before, after), got " +
                                              py::repr(item).cast<std::string>()};
        }
        pairs.push_back(pr);
      }
      if (pairs.size() != 1 && pairs.size() != k) {
        throw PyError{PyExc_ValueError, "pad: pad_width must have 1 or " + std::to_string(k) +
                                            " (before, after) pairs, got " +
                                            std::to_string(pairs.size())};
      }
      for (size_t i = 0; i < k; ++i) {
        const Dims& pr = pairs.size() == 1 ? pairs[0] : pairs[i];
        begin[i] = pr[0];
        end[i] = pr[1];
      }
    } else {  // ONNX pads: [b_1, ..., b_k, e_1, ..., e_k]
      const Dims flat = int_list(p, "pad: pads");
      if (flat.size() != 2 * k) {
        throw PyError{PyExc_ValueError, "pad: pads must have 2 * " + std::to_string(k) + " = " +
                                            std::to_string(2 * k) +
                                            " entries (ONNX form: all begins, then all ends), got " +
                                            std::to_string(flat.size())};
      }
      for (size_t i = 0; i < k; ++i) {
        begin[i] = flat[i];
        end[i] = flat[k + i];
      }
    }
  } else {
    throw PyError{PyExc_TypeError, "pad: pads must be an int, a sequence of ints (ONNX) or of "
                                   "(before, after) pairs (NumPy), got " +
                                       py::repr(p).cast<std::string>()};
  }
  d.pads_begin.assign(rank, 0);
  d.pads_end.assign(rank, 0);
  for (size_t i = 0; i < k; ++i) {
    d.pads_begin[axes[i]] = begin[i];
    d.pads_end[axes[i]] = end[i];
  }
  return d;
}

// A one-element pad value of dtype `dt` from a Python number or a one-element array.
struct PadValue {
  InArray array;
  Tensor scalar;
  TensorView view;
  bool present = false;
};

void make_pad_value(PadValue& pv, py::handle value_in, DType dt) {
  if (value_in.is_none()) return;
  pv.present = true;
  py::object value = py::reinterpret_borrow<py::object>(value_in);
  // A NumPy or torch scalar (0-d) is a number, converted to the input's dtype like one.
  if (py::hasattr(value, "item") && py::hasattr(value, "ndim") &&
      py::int_(value.attr("ndim")).cast<int>() == 0) {
    value = value.attr("item")();
  }
  if (!(py::isinstance<py::bool_>(value) || py::isinstance<py::int_>(value) ||
        py::isinstance<py::float_>(value) || PyComplex_Check(value.ptr()))) {
    pv.array = get_array(value, "pad: value");
    pv.view = pv.array.view;
    return;
  }
  pv.scalar = value_or_throw(Tensor::create(dt, Dims{}));
  void* p = pv.scalar.data();
  auto bad = [&](const char* why) {
    throw PyError{PyExc_ValueError, std::string("pad: value ") + py::repr(value).cast<std::string>() +
                                        " " + why + " " + to_string(dt)};
  };
  const bool is_cplx = PyComplex_Check(value.ptr());
  if (is_cplx && !is_complex(dt)) bad("is complex; the input's dtype is");
  if (is_integer(dt) || dt == DType::kBool) {
    if (py::isinstance<py::float_>(value)) {
      const double v = number_arg(value, "pad: value");
      if (!(std::trunc(v) == v && std::fabs(v) < 9.3e18)) bad("is not an integer; the input's dtype is");
    }
    py::object as_int = py::reinterpret_steal<py::object>(PyNumber_Long(value.ptr()));
    if (!as_int) throw py::error_already_set();
    int overflow = 0;
    const long long sv = PyLong_AsLongLongAndOverflow(as_int.ptr(), &overflow);
    const bool neg = overflow < 0 || (overflow == 0 && sv < 0);
    unsigned long long uv = 0;
    if (overflow > 0) {
      uv = PyLong_AsUnsignedLongLong(as_int.ptr());
      if (PyErr_Occurred()) {
        PyErr_Clear();
        bad("does not fit");
      }
    } else if (overflow < 0) {
      bad("does not fit");
    } else {
      uv = static_cast<unsigned long long>(sv);
    }
    auto store = [&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (std::is_integral_v<T>) {
        if constexpr (std::is_same_v<T, bool>) {
          if (neg || uv > 1) bad("does not fit");
          *static_cast<bool*>(p) = uv != 0;
        } else if constexpr (std::is_signed_v<T>) {
          if (overflow != 0 || sv < static_cast<long long>(std::numeric_limits<T>::min()) ||
              sv > static_cast<long long>(std::numeric_limits<T>::max())) {
            bad("does not fit");
          }
          *static_cast<T*>(p) = static_cast<T>(sv);
        } else {
          if (neg || uv > static_cast<unsigned long long>(std::numeric_limits<T>::max())) {
            bad("does not fit");
          }
          *static_cast<T*>(p) = static_cast<T>(uv);
        }
      }
    };
    visit_dtype(dt, store);
  } else if (is_floating(dt)) {
    const double v = number_arg(value, "pad: value");
    switch (dt) {
      case DType::kFloat16: *static_cast<float16*>(p) = f64_to_f16(v); break;
      case DType::kBFloat16: *static_cast<bfloat16*>(p) = f64_to_bf16(v); break;
      case DType::kFloat32: *static_cast<float*>(p) = static_cast<float>(v); break;
      default: *static_cast<double*>(p) = v; break;
    }
  } else if (is_complex(dt)) {
    // (pybind11 casts std::complex only with pybind11/complex.h: the C API instead)
    const Py_complex c = PyComplex_AsCComplex(value.ptr());
    if (c.real == -1.0 && PyErr_Occurred()) {
      PyErr_Clear();
      bad("is not a number; the input's dtype is");
    }
    const std::complex<double> v(c.real, c.imag);
    if (dt == DType::kComplex64) {
      *static_cast<std::complex<float>*>(p) = std::complex<float>(v);
    } else {
      *static_cast<std::complex<double>*>(p) = v;
    }
  } else {
    throw PyError{dtype_error_type(), std::string("pad: no value of dtype ") + to_string(dt)};
  }
  pv.view = pv.scalar.view();
}

py::object py_pad(py::object input, py::object pads, const std::string& mode, py::object value,
               py::object axes, py::object out) {
  InArray src = get_array(input, "pad: input");
  const PadDesc d = pad_desc(pads, mode, axes, src.view.rank());
  PadValue pv;
  make_pad_value(pv, value, src.view.dtype);
  const TensorView* vp = pv.present ? &pv.view : nullptr;
  if (!out.is_none()) {
    InArray dst = get_array(out, "pad: out", true);
    Status s;
    {
      py::gil_scoped_release nogil;
      s = gridops::pad(d, src.view, dst.view, vp);
    }
    check(s);
    return py::reinterpret_borrow<py::object>(out);
  }
  StatusOr<Tensor> r = Status(StatusCode::kInternal, "unset");
  {
    py::gil_scoped_release nogil;
    r = gridops::pad(d, src.view, vp);
  }
  return finish(std::move(r), src.from_torch);
}

struct PyPadPlan {
  PadPlan plan;
  DType dtype;
  py::object run(py::object input, py::object value, py::object out) const {
    InArray src = get_array(input, "PadPlan: input");
    PadValue pv;
    make_pad_value(pv, value, dtype);
    const TensorView* vp = pv.present ? &pv.view : nullptr;
    if (!out.is_none()) {
      InArray dst = get_array(out, "PadPlan: out", true);
      Status s;
      {
        py::gil_scoped_release nogil;
        s = plan.run(src.view, dst.view, vp);
      }
      check(s);
      return py::reinterpret_borrow<py::object>(out);
    }
    Tensor t = value_or_throw(Tensor::create(dtype, plan.dst_shape()));
    Status s;
    {
      py::gil_scoped_release nogil;
      s = plan.run(src.view, t.mutable_view(), vp);
    }
    check(s);
    return wrap_tensor(std::move(t), src.from_torch);
  }
};

// --- Resample ----------------------------------------------------------------------------

MemoryFormat parse_format(const std::string& s, int* rank_hint) {
  if (s == "channels_first") {
    *rank_hint = 0;
    return MemoryFormat::kPlain;
  }
  return value_or_throw(parse_memory_format(s, rank_hint));
}

int64_t block_of(MemoryFormat f) {
  return f == MemoryFormat::kBlocked8 ? 8 : f == MemoryFormat::kBlocked16 ? 16 : 0;
}

// The array shape a memory desc is stored as: plain (N, C, D...), channels-last
// (N, D..., C), blocked (N, ceil(C / b), D..., b).
Dims array_shape(const ResampleMemoryDesc& md) {
  const Dims& d = md.dims;
  const size_t r = d.size() - 2;
  Dims s;
  switch (md.format) {
    case MemoryFormat::kPlain: return d;
    case MemoryFormat::kChannelsLast:
      s.push_back(d[0]);
      for (size_t i = 0; i < r; ++i) s.push_back(d[2 + i]);
      s.push_back(d[1]);
      return s;
    case MemoryFormat::kBlocked8: case MemoryFormat::kBlocked16: {
      const int64_t b = block_of(md.format);
      s.push_back(d[0]);
      s.push_back((d[1] + b - 1) / b);
      for (size_t i = 0; i < r; ++i) s.push_back(d[2 + i]);
      s.push_back(b);
      return s;
    }
  }
  return d;
}

const char* to_string_layout(MemoryFormat f) {
  switch (f) {
    case MemoryFormat::kPlain: return "channels_first (N, C, D...)";
    case MemoryFormat::kChannelsLast: return "channels_last (N, D..., C)";
    case MemoryFormat::kBlocked8: return "blocked8 (N, ceil(C/8), D..., 8)";
    case MemoryFormat::kBlocked16: return "blocked16 (N, ceil(C/16), D..., 16)";
  }
  return "?";
}

// The logical (N, C, D...) dims of an array stored in `f`.
Dims logical_dims(const Dims& shape, MemoryFormat f, py::handle channels, int rank_hint,
                  const std::string& what) {
  const int64_t b = block_of(f);
  const size_t extra = b ? 3 : 2;
  if (shape.size() < extra + 1 || shape.size() > extra + 3) {
    throw PyError{PyExc_ValueError, what + ": expected rank " + std::to_string(extra + 1) + " to " +
                                        std::to_string(extra + 3) + " for layout " +
                                        to_string_layout(f) + " (1 to 3 spatial axes), got shape " +
                                        dims_to_string(shape)};
  }
  const int r = static_cast<int>(shape.size() - extra);
  if (rank_hint && rank_hint != r) {
    throw PyError{PyExc_ValueError, what + ": layout '" + format_tag(f, rank_hint) + "' has " +
                                        std::to_string(rank_hint) + " spatial axes, the array has " +
                                        std::to_string(r) + " (shape " + dims_to_string(shape) + ")"};
  }
  Dims d{shape[0], 0};
  if (f == MemoryFormat::kPlain) {
    d[1] = shape[1];
    for (int i = 0; i < r; ++i) d.push_back(shape[2 + i]);
  } else if (f == MemoryFormat::kChannelsLast) {
    d[1] = shape.back();
    for (int i = 0; i < r; ++i) d.push_back(shape[1 + i]);
  } else {
    if (shape.back() != b) {
      throw PyError{PyExc_ValueError, what + ": a blocked" + std::to_string(b) +
                                          " array's last axis must be " + std::to_string(b) +
                                          ", got shape " + dims_to_string(shape)};
    }
    const int64_t c = channels.is_none() ? shape[1] * b : int_arg(channels, what + ": channels");
    if (c < 0 || (c + b - 1) / b != shape[1]) {
      throw PyError{PyExc_ValueError, what + ": channels=" + std::to_string(c) + " needs " +
                                          std::to_string((c + b - 1) / b) + " blocks of " +
                                          std::to_string(b) + ", the array has " +
                                          std::to_string(shape[1])};
    }
    d[1] = c;
    for (int i = 0; i < r; ++i) d.push_back(shape[2 + i]);
  }
  const int64_t given = channels.is_none() ? 0 : int_arg(channels, what + ": channels");
  if (!channels.is_none() && !b && given != d[1]) {
    throw PyError{PyExc_ValueError, what + ": channels=" + std::to_string(given) +
                                        " does not match the array's " + std::to_string(d[1])};
  }
  return d;
}

bool dense(const TensorView& v) {
  const Dims c = contiguous_strides(v.shape);
  for (size_t i = 0; i < v.shape.size(); ++i) {
    if (v.shape[i] > 1 && v.strides[i] != c[i]) return false;
  }
  return true;
}

// Resample reads and writes dense buffers (ResamplePlan takes pointers): check that an
// array is exactly the buffer of `md`, or make a dense copy of an input (counted).
struct DenseIn {
  InArray array;
  Tensor copy;
  const void* data = nullptr;
};

void require_buffer(const TensorView& v, const ResampleMemoryDesc& md, const std::string& what,
                    bool is_output) {
  const Dims want = array_shape(md);
  if (v.dtype != md.dtype) {
    throw PyError{dtype_error_type(), what + ": expected dtype " + std::string(to_string(md.dtype)) +
                                          ", got " + to_string(v.dtype)};
  }
  if (v.shape != want) {
    throw PyError{PyExc_ValueError, what + ": expected shape " + dims_to_string(want) + " (layout " +
                                        format_tag(md.format, static_cast<int>(md.dims.size()) - 2) +
                                        "), got " + dims_to_string(v.shape)};
  }
  if (is_output && !dense(v)) {
    throw PyError{PyExc_ValueError, what + ": resample writes dense (C-contiguous) arrays only, got "
                                           "strides " + dims_to_string(v.strides) + " for shape " +
                                           dims_to_string(v.shape)};
  }
}

void densify(DenseIn& in, const std::string& what) {
  if (dense(in.array.view)) {
    in.data = in.array.view.data;
    return;
  }
  // A zero pad is a strided copy into a new dense tensor (through the library).
  PadDesc d;
  d.pads_begin.assign(in.array.view.rank(), 0);
  d.pads_end.assign(in.array.view.rank(), 0);
  {
    StatusOr<Tensor> r = Status(StatusCode::kInternal, "unset");
    {
      py::gil_scoped_release nogil;
      r = gridops::pad(d, in.array.view);
    }
    in.copy = value_or_throw(std::move(r));
  }
  (void)what;
  ++input_copies();
  in.data = in.copy.data();
}

struct PyResamplePlan {
  ResamplePlan plan;

  py::object forward(py::object input, py::object out, bool as_torch_default) const {
    DenseIn in;
    in.array = get_array(input, "resample: input");
    require_buffer(in.array.view, plan.src_desc(), "resample: input", false);
    densify(in, "resample: input");
    return run_dense(in, out, in.array.from_torch || as_torch_default, plan.dst_desc(), true);
  }
  py::object backward(py::object grad_output, py::object out) const {
    DenseIn in;
    in.array = get_array(grad_output, "resample_backward: grad_output");
    require_buffer(in.array.view, plan.dst_desc(), "resample_backward: grad_output", false);
    densify(in, "resample_backward: grad_output");
    return run_dense(in, out, in.array.from_torch, plan.src_desc(), false);
  }

  py::object run_dense(const DenseIn& in, py::handle out, bool as_torch, const ResampleMemoryDesc& omd,
                 bool fwd) const {
    const char* what = fwd ? "resample: out" : "resample_backward: out";
    if (!out.is_none()) {
      InArray dst = get_array(out, what, true);
      require_buffer(dst.view, omd, what, true);
      // The pointers carry no extents: reject an out= that overlaps the input here.
      const int64_t ib = static_cast<int64_t>(value_or_throw(
                             fwd ? plan.src_desc().buffer_elements() : plan.dst_desc().buffer_elements())) *
                         static_cast<int64_t>(dtype_size(omd.dtype));
      const int64_t ob = value_or_throw(omd.buffer_elements()) * static_cast<int64_t>(dtype_size(omd.dtype));
      const auto* i0 = static_cast<const char*>(in.data);
      const auto* o0 = static_cast<const char*>(dst.view.data);
      if (ib > 0 && ob > 0 && i0 < o0 + ob && o0 < i0 + ib) {
        throw PyError{PyExc_ValueError, std::string(what) + ": must not overlap the input in memory"};
      }
      Status s;
      {
        py::gil_scoped_release nogil;
        s = fwd ? plan.forward(in.data, dst.view.mutable_data())
                : plan.backward(in.data, dst.view.mutable_data());
      }
      check(s);
      return py::reinterpret_borrow<py::object>(out);
    }
    Tensor t = value_or_throw(Tensor::create(omd.dtype, array_shape(omd)));
    Status s;
    {
      py::gil_scoped_release nogil;
      s = fwd ? plan.forward(in.data, t.data()) : plan.backward(in.data, t.data());
    }
    check(s);
    return wrap_tensor(std::move(t), as_torch);
  }
};

PyResamplePlan make_py_resample_plan(const Dims& src_dims, const Dims& dst_dims, DType dt,
                                     const std::string& mode, MemoryFormat in_fmt,
                                     MemoryFormat out_fmt, const ResampleWindow* window = nullptr) {
  ResampleDesc d;
  d.algorithm = value_or_throw(parse_resample_algorithm(mode));
  ResampleMemoryDesc s{dt, src_dims, in_fmt}, o{dt, dst_dims, out_fmt};
  if (window != nullptr) return PyResamplePlan{value_or_throw(make_resample_plan(d, s, o, *window))};
  return PyResamplePlan{value_or_throw(make_resample_plan(d, s, o))};
}

// Spatial output dims from size= or scale_factor= (exactly one).
Dims resample_out_dims(const Dims& src_dims, py::handle size, py::handle scale_factor) {
  const size_t r = src_dims.size() - 2;
  if (size.is_none() == scale_factor.is_none()) {
    throw PyError{PyExc_ValueError, "resample: give exactly one of size and scale_factor"};
  }
  if (!size.is_none()) {
    Dims s = int_list(size, "resample: size");
    if (s.size() == 1 && r > 1) s.assign(r, s[0]);
    if (s.size() != r) {
      throw PyError{PyExc_ValueError, "resample: size must have " + std::to_string(r) +
                                          " entries (one per spatial axis), got " + std::to_string(s.size())};
    }
    Dims out{src_dims[0], src_dims[1]};
    out.insert(out.end(), s.begin(), s.end());
    return out;
  }
  std::vector<double> f;
  if (py::isinstance<py::sequence>(scale_factor) && !py::isinstance<py::str>(scale_factor)) {
    for (py::handle x : py::reinterpret_borrow<py::sequence>(scale_factor)) {
      f.push_back(number_arg(x, "resample: scale_factor"));
    }
  } else {
    f.push_back(number_arg(scale_factor, "resample: scale_factor"));
  }
  if (f.size() == 1 && r > 1) f.assign(r, f[0]);
  if (f.size() != r) {
    throw PyError{PyExc_ValueError, "resample: scale_factor must have " + std::to_string(r) +
                                        " entries (one per spatial axis), got " + std::to_string(f.size())};
  }
  return value_or_throw(resample_dst_dims(src_dims, f));
}

// A channels-first request on a torch channels_last tensor (strides of NHWC) is read as
// the channels-last format without a copy.
MemoryFormat adopt_strided_format(const InArray& a, MemoryFormat f, const Dims& logical) {
  if (f != MemoryFormat::kPlain || dense(a.view)) return f;
  ResampleMemoryDesc cl{a.view.dtype, logical, MemoryFormat::kChannelsLast};
  const Dims cl_shape = array_shape(cl);
  const Dims cl_strides = contiguous_strides(cl_shape);
  // logical axis i of the plain view sits at position perm[i] of the channels-last shape
  const size_t r = logical.size() - 2;
  for (size_t i = 0; i < logical.size(); ++i) {
    const size_t pos = i == 0 ? 0 : i == 1 ? r + 1 : i - 1;
    if (a.view.shape[i] > 1 && a.view.strides[i] != cl_strides[pos]) return f;
  }
  return MemoryFormat::kChannelsLast;
}

py::object py_resample(py::object input, py::object size, py::object scale_factor,
                    const std::string& mode, const std::string& layout, py::object channels,
                    py::object out_layout, py::object out, py::object window) {
  std::unique_ptr<ResampleWindow> win;
  if (!window.is_none()) {
    // (full_input_size, full_output_size, input_origin, output_origin), spatial entries.
    const py::sequence seq = sequence_arg(
        window, "resample: window",
        "(full_input_size, full_output_size, input_origin, output_origin)", 4);
    win = std::make_unique<ResampleWindow>();
    win->full_in = int_list(seq[0], "resample: window full_input_size");
    win->full_out = int_list(seq[1], "resample: window full_output_size");
    win->in_origin = int_list(seq[2], "resample: window input_origin");
    win->out_origin = int_list(seq[3], "resample: window output_origin");
    if (size.is_none() || !scale_factor.is_none()) {
      throw PyError{PyExc_ValueError, "resample: with a window, give size (the output box's "
                                      "spatial sizes), not scale_factor"};
    }
  }
  int rank_hint = 0;
  MemoryFormat in_fmt = parse_format(layout, &rank_hint);
  int out_rank_hint = 0;
  const MemoryFormat out_fmt =
      out_layout.is_none() ? in_fmt : parse_format(out_layout.cast<std::string>(), &out_rank_hint);
  DenseIn in;
  in.array = get_array(input, "resample: input");
  const Dims src_dims = logical_dims(in.array.view.shape, in_fmt, channels, rank_hint, "resample: input");
  const Dims dst_dims = resample_out_dims(src_dims, size, scale_factor);
  const MemoryFormat read_fmt = adopt_strided_format(in.array, in_fmt, src_dims);
  PyResamplePlan p = make_py_resample_plan(src_dims, dst_dims, in.array.view.dtype, mode, read_fmt,
                                           out_fmt, win.get());
  if (read_fmt != in_fmt) {
    // The same memory, addressed as channels-last (dense in that order).
    in.data = in.array.view.data;
  } else {
    require_buffer(in.array.view, p.plan.src_desc(), "resample: input", false);
    densify(in, "resample: input");
  }
  return p.run_dense(in, out, in.array.from_torch, p.plan.dst_desc(), true);
}

}  // namespace
}  // namespace gridops::py_binding

namespace gridops::py_binding {
namespace {

py::object py_resample_backward(py::object grad_output, py::object input_size, const std::string& mode,
                             const std::string& layout, py::object out_layout, py::object out) {
  int rank_hint = 0;
  const MemoryFormat g_fmt = parse_format(layout, &rank_hint);
  int out_rank_hint = 0;
  const MemoryFormat in_fmt =
      out_layout.is_none() ? g_fmt : parse_format(out_layout.cast<std::string>(), &out_rank_hint);
  const Dims src_dims = int_list(input_size, "resample_backward: input_size");
  DenseIn g;
  g.array = get_array(grad_output, "resample_backward: grad_output");
  const Dims dst_dims = logical_dims(g.array.view.shape, g_fmt,
                                     src_dims.size() > 1 ? py::cast(src_dims[1]) : py::none(),
                                     rank_hint, "resample_backward: grad_output");
  PyResamplePlan p = make_py_resample_plan(src_dims, dst_dims, g.array.view.dtype, mode, in_fmt, g_fmt);
  require_buffer(g.array.view, p.plan.dst_desc(), "resample_backward: grad_output", false);
  densify(g, "resample_backward: grad_output");
  return p.run_dense(g, out, g.array.from_torch, p.plan.src_desc(), false);
}

// A function's docstring followed by the common text on arrays and errors (kept alive for
// the module's lifetime).
const char* with_arrays(const char* text) {
  static std::vector<std::unique_ptr<std::string>> keep;
  keep.push_back(std::make_unique<std::string>(std::string(text) + doc::kArrays));
  return keep.back()->c_str();
}

template <class T>
std::vector<int64_t> dims_of(const T& d) {
  return std::vector<int64_t>(d.begin(), d.end());
}

}  // namespace
}  // namespace gridops::py_binding

using namespace gridops;              // NOLINT(google-build-using-namespace)
using namespace gridops::py_binding;  // NOLINT(google-build-using-namespace)

PYBIND11_MODULE(_gridops, m) {
  using py::arg;
  // The docstrings start with the Python signature (pybind11's would show C++ types).
  py::options options;
  options.disable_function_signatures();
  m.doc() = "gridops: spatial sampling and data-movement operators (C++ bindings).";
  // The library's version (include/gridops/version.h, from CMake's project(VERSION));
  // gridops.__version__ is this string.
  m.attr("__version__") = GRIDOPS_VERSION_STRING;
  init_dtype_error(m);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const PyError& e) {
      PyErr_SetString(e.type, e.message.c_str());
    } catch (const py::cast_error& e) {
      // an argument of the wrong Python type (a str where a number belongs, ...)
      PyErr_SetString(PyExc_TypeError, (std::string("gridops: ") + e.what()).c_str());
    } catch (const std::bad_alloc&) {
      PyErr_SetString(PyExc_MemoryError, "gridops: out of memory");
    }
  });

  m.def("grid_sample", &py_grid_sample, arg("input"), arg("grid"), arg("mode") = "bilinear",
        arg("padding_mode") = "zeros", arg("align_corners") = false, py::kw_only(),
        arg("layout") = "channels_first", arg("out") = py::none(), arg("full_size") = py::none(),
        arg("origin") = py::none(), with_arrays(doc::kGridSample));
  m.def("grid_sample_input_box", &py_grid_sample_input_box, arg("grid"), arg("full_size"),
        arg("mode") = "bilinear", arg("padding_mode") = "zeros", arg("align_corners") = false,
        doc::kGridSampleInputBox);
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
  m.def("grid_sample_backward", &py_grid_sample_backward, arg("grad_output"), arg("input"),
        arg("grid"), arg("mode") = "bilinear", arg("padding_mode") = "zeros",
        arg("align_corners") = false, py::kw_only(), arg("layout") = "channels_first",
        arg("input_grad") = true, arg("grid_grad") = true, arg("grad_input_out") = py::none(),
        arg("grad_grid_out") = py::none(), with_arrays(doc::kGridSampleBackward));
  m.def("affine_grid_backward", &py_affine_grid_backward, arg("grad_grid"), arg("size"),
        arg("align_corners") = false, py::kw_only(), arg("out") = py::none(),
        with_arrays(doc::kAffineGridBackward));
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
  m.def("gather", &py_gather, arg("data"), arg("indices"), arg("axis") = 0, py::kw_only(),
        arg("out") = py::none(), with_arrays(doc::kGather));
  m.def("pad", &py_pad, arg("input"), arg("pads"), arg("mode") = "constant", arg("value") = py::none(),
        arg("axes") = py::none(), py::kw_only(), arg("out") = py::none(), with_arrays(doc::kPad));
  m.def("resample", &py_resample, arg("input"), arg("size") = py::none(),
        arg("scale_factor") = py::none(), arg("mode") = "linear", py::kw_only(),
        arg("layout") = "channels_first", arg("channels") = py::none(),
        arg("out_layout") = py::none(), arg("out") = py::none(), arg("window") = py::none(),
        with_arrays(doc::kResample));
  m.def("resample_input_box", [](py::object full_input_size, py::object full_output_size,
                                 py::object out_begin, py::object out_end, const std::string& mode) {
          const auto alg = value_or_throw(parse_resample_algorithm(mode));
          const Dims fi = int_list(full_input_size, "resample_input_box: full_input_size");
          const Dims fo = int_list(full_output_size, "resample_input_box: full_output_size");
          const Dims b = int_list(out_begin, "resample_input_box: out_begin");
          const Dims e = int_list(out_end, "resample_input_box: out_end");
          py::list out;
          for (const auto& [lo, hi] : value_or_throw(resample_input_box(alg, fi, fo, b, e))) {
            out.append(py::make_tuple(lo, hi));
          }
          return out;
        },
        arg("full_input_size"), arg("full_output_size"), arg("out_begin"), arg("out_end"),
        arg("mode") = "linear", doc::kResampleInputBox);
  m.def("resample_backward", &py_resample_backward, arg("grad_output"), arg("input_size"),
        arg("mode") = "linear", py::kw_only(), arg("layout") = "channels_first",
        arg("out_layout") = py::none(), arg("out") = py::none(), with_arrays(doc::kResampleBackward));
  m.def(
      "set_num_threads", [](py::handle n) { set_num_threads(thread_count(n, "set_num_threads: n")); },
      arg("n"), doc::kSetNumThreads);
  m.def("get_num_threads", &get_num_threads, doc::kGetNumThreads);
  // gridops.num_threads(n): a context manager over ScopedNumThreads (the calling thread's
  // gridops calls use n threads inside the with block; nests; other threads unaffected).
  struct ThreadScope {
    int n;
    std::vector<std::unique_ptr<ScopedNumThreads>> active;  // one per nested __enter__
  };
  py::class_<ThreadScope>(m, "_ThreadScope")
      .def(py::init([](py::handle n) { return ThreadScope{thread_count(n, "num_threads: n"), {}}; }),
           arg("n"))
      .def("__enter__",
           [](ThreadScope& t) {
             t.active.push_back(std::make_unique<ScopedNumThreads>(t.n));
             return get_num_threads();
           })
      .def("__exit__", [](ThreadScope& t, py::args) {
        if (!t.active.empty()) t.active.pop_back();
        return false;
      });
  m.def(
      "set_max_isa", [](const std::string& level) { check(set_max_isa(level)); }, arg("level"),
      doc::kSetMaxIsa);
  m.def("max_isa", &max_isa, doc::kMaxIsa);
  m.def("effective_isa", &effective_isa, doc::kEffectiveIsa);
  m.def("isa_report", &isa_report, doc::kIsaReport);

  py::class_<PyGridSamplePlan>(m, "GridSamplePlan", doc::kGridSamplePlan)
      .def(py::init([](py::object input_shape, py::object grid_shape, py::object dtype,
                       py::object grid_dtype, const std::string& mode, const std::string& padding_mode,
                       py::object align_corners, const std::string& layout) {
             const GridSampleDesc d = grid_sample_desc(mode, padding_mode, align_corners, layout);
             const DType dt = dtype_from_py(dtype, "GridSamplePlan: dtype");
             const DType gdt = grid_dtype.is_none() ? dt : dtype_from_py(grid_dtype, "GridSamplePlan: grid_dtype");
             const Dims s = int_list(input_shape, "GridSamplePlan: input_shape");
             const Dims g = int_list(grid_shape, "GridSamplePlan: grid_shape");
             return PyGridSamplePlan{value_or_throw(make_grid_sample_plan(d, dt, s, gdt, g)), dt};
           }),
           arg("input_shape"), arg("grid_shape"), arg("dtype") = "float32",
           arg("grid_dtype") = py::none(), arg("mode") = "bilinear", arg("padding_mode") = "zeros",
           arg("align_corners") = false, arg("layout") = "channels_first")
      .def("__call__", &PyGridSamplePlan::run, arg("input"), arg("grid"), py::kw_only(),
           arg("out") = py::none(), "__call__(input, grid, *, out=None): runs the plan.")
      .def_property_readonly("output_shape", [](const PyGridSamplePlan& p) {
        return py::tuple(py::cast(dims_of(p.plan.dst_shape())));
      })
      .def_property_readonly("impl_name", [](const PyGridSamplePlan& p) { return std::string(p.plan.impl_name()); });

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

  py::class_<PyPadPlan>(m, "PadPlan", doc::kPadPlan)
      .def(py::init([](py::object input_shape, py::object pads, py::object dtype, const std::string& mode,
                       py::object axes) {
             const Dims s = int_list(input_shape, "PadPlan: input_shape");
             const PadDesc d = pad_desc(pads, mode, axes, static_cast<int>(s.size()));
             const DType dt = dtype_from_py(dtype, "PadPlan: dtype");
             return PyPadPlan{value_or_throw(make_pad_plan(d, dt, s)), dt};
           }),
           arg("input_shape"), arg("pads"), arg("dtype") = "float32", arg("mode") = "constant",
           arg("axes") = py::none())
      .def("__call__", &PyPadPlan::run, arg("input"), arg("value") = py::none(), py::kw_only(),
           arg("out") = py::none(), "__call__(input, value=None, *, out=None): runs the plan.")
      .def_property_readonly("output_shape", [](const PyPadPlan& p) {
        return py::tuple(py::cast(dims_of(p.plan.dst_shape())));
      })
      .def_property_readonly("impl_name", [](const PyPadPlan& p) { return std::string(p.plan.impl_name()); });

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
      .def_property_readonly("impl_name", [](const PyResizePlan& p) { return std::string(p.plan.impl_name()); });

  py::class_<PyResamplePlan>(m, "ResamplePlan", doc::kResamplePlan)
      .def(py::init([](py::object input_size, py::object output_size, const std::string& mode,
                       py::object dtype, const std::string& layout, py::object out_layout) {
             int h1 = 0, h2 = 0;
             const MemoryFormat f = parse_format(layout, &h1);
             const MemoryFormat of =
                 out_layout.is_none() ? f : parse_format(out_layout.cast<std::string>(), &h2);
             Dims src = int_list(input_size, "ResamplePlan: input_size");
             Dims dst = int_list(output_size, "ResamplePlan: output_size");
             if (dst.size() + 2 == src.size() && src.size() >= 2) {  // spatial sizes only
               dst.insert(dst.begin(), {src[0], src[1]});
             }
             const DType dt = dtype_from_py(dtype, "ResamplePlan: dtype");
             return make_py_resample_plan(src, dst, dt, mode, f, of);
           }),
           arg("input_size"), arg("output_size"), arg("mode") = "linear", arg("dtype") = "float32",
           arg("layout") = "channels_first", arg("out_layout") = py::none())
      .def("__call__", [](const PyResamplePlan& p, py::object x, py::object out) {
             return p.forward(x, out, false);
           }, arg("input"), py::kw_only(), arg("out") = py::none(),
           "__call__(input, *, out=None): resamples (the same as forward).")
      .def("forward", [](const PyResamplePlan& p, py::object x, py::object out) {
             return p.forward(x, out, false);
           }, arg("input"), py::kw_only(), arg("out") = py::none(),
           "forward(input, *, out=None): resamples input (the plan's input_shape) to output_shape.")
      .def("backward", &PyResamplePlan::backward, arg("grad_output"), py::kw_only(),
           arg("out") = py::none(),
           "backward(grad_output, *, out=None): the adjoint, output_shape -> input_shape.")
      .def_property_readonly("input_shape", [](const PyResamplePlan& p) {
        return py::tuple(py::cast(dims_of(array_shape(p.plan.src_desc()))));
      })
      .def_property_readonly("output_shape", [](const PyResamplePlan& p) {
        return py::tuple(py::cast(dims_of(array_shape(p.plan.dst_desc()))));
      })
      .def_property_readonly("impl_name", [](const PyResamplePlan& p) { return std::string(p.plan.impl_name()); });

  // Test hooks: what the bindings see of an object, and how many inputs they copied.
  m.def("_view_info", [](py::object obj) {
    InArray a = get_array(obj, "_view_info");
    py::dict d;
    d["data"] = reinterpret_cast<uintptr_t>(a.view.data);
    d["shape"] = py::tuple(py::cast(dims_of(a.view.shape)));
    d["strides"] = py::tuple(py::cast(dims_of(a.view.strides)));
    d["dtype"] = dtype_name(a.view.dtype);
    d["source"] = a.source;
    d["torch"] = a.from_torch;
    return d;
  });
  m.def("_input_copies", [] { return input_copies().load(); });

#ifdef GRIDOPS_PY_HAVE_ONNX
  init_onnx(m);
#endif
}
