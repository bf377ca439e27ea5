// gridops._gridops: the Python bindings. Argument conversion and dispatch to the public C++
// API only; every operator's semantics and validation live in the library. This file makes
// the module (exception translation, threads, ISA, test hooks); each operator group
// registers itself from its own file (bindings.h lists them).
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <string>
#include <vector>

#include "arrays.h"
#include "bindings.h"
#include "docstrings.h"
#include "gridops/gridops.h"

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

  init_grid_sample(m);
  init_affine(m);
  init_resize(m);
  init_gather(m);
  init_pad(m);
  init_ms_deform_attn(m);
  init_resample(m);

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

