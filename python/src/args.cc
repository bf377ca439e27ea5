// The argument conversions of bindings.h: every conversion of a user's argument goes
// through these, so that a wrong type or value is a TypeError / ValueError naming it.
#include <pybind11/pybind11.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bindings.h"
#include "docstrings.h"

namespace gridops::py_binding {

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
                          ssize_t n) {
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

// A function's docstring followed by the common text on arrays and errors (kept alive for
// the module's lifetime).
const char* with_arrays(const char* text) {
  static std::vector<std::unique_ptr<std::string>> keep;
  keep.push_back(std::make_unique<std::string>(std::string(text) + doc::kArrays));
  return keep.back()->c_str();
}

}  // namespace gridops::py_binding
