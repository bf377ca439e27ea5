// gridops.pad and PadPlan: pads in the ONNX or the NumPy form, and the pad value converted
// to the input's dtype.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "bindings.h"
#include "docstrings.h"

namespace gridops::py_binding {
namespace {

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

// plan.backward of grad into out (returned), or into a new array of the plan's input shape.
py::object run_backward(const PadPlan& plan, DType dtype, const InArray& grad, py::object out,
                        const std::string& what) {
  if (!out.is_none()) {
    InArray dst = get_array(out, what + ": out", true);
    Status s;
    {
      py::gil_scoped_release nogil;
      s = plan.backward(grad.view, dst.view);
    }
    check(s);
    return out;
  }
  Tensor t = value_or_throw(Tensor::create(dtype, plan.src_shape()));
  Status s;
  {
    py::gil_scoped_release nogil;
    s = plan.backward(grad.view, t.mutable_view());
  }
  check(s);
  return wrap_tensor(std::move(t), grad.from_torch);
}

// The adjoint of py_pad: grad of the padded output -> grad of an input of input_shape.
py::object py_pad_backward(py::object grad_in, py::object input_shape, py::object pads,
                           const std::string& mode, py::object axes, py::object out) {
  InArray grad = get_array(grad_in, "pad_backward: grad");
  const Dims shape = int_list(input_shape, "pad_backward: input_shape");
  const PadDesc d = pad_desc(pads, mode, axes, static_cast<int>(shape.size()));
  const PadPlan plan = value_or_throw(make_pad_plan(d, grad.view.dtype, shape));
  return run_backward(plan, grad.view.dtype, grad, std::move(out), "pad_backward");
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
  py::object backward(py::object grad_in, py::object out) const {
    InArray grad = get_array(grad_in, "PadPlan.backward: grad");
    return run_backward(plan, dtype, grad, std::move(out), "PadPlan.backward");
  }
};

}  // namespace

void init_pad(py::module_& m) {
  using py::arg;
  m.def("pad", &py_pad, arg("input"), arg("pads"), arg("mode") = "constant", arg("value") = py::none(),
        arg("axes") = py::none(), py::kw_only(), arg("out") = py::none(), with_arrays(doc::kPad));

  m.def("pad_backward", &py_pad_backward, arg("grad"), arg("input_shape"), arg("pads"),
        arg("mode") = "constant", arg("axes") = py::none(), py::kw_only(), arg("out") = py::none(),
        with_arrays(doc::kPadBackward));

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
      .def("backward", &PyPadPlan::backward, arg("grad"), py::kw_only(), arg("out") = py::none(),
           "backward(grad, *, out=None): the gradient with respect to the input (see "
           "gridops.pad_backward).")
      .def_property_readonly("backward_impl_name",
                             [](const PyPadPlan& p) { return std::string(p.plan.backward_impl_name()); })
      .def_property_readonly("output_shape", [](const PyPadPlan& p) {
        return py::tuple(py::cast(dims_of(p.plan.dst_shape())));
      })
      .def_property_readonly("impl_name", [](const PyPadPlan& p) { return std::string(p.plan.impl_name()); });
}

}  // namespace gridops::py_binding
