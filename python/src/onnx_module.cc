// gridops._gridops.onnx: the ONNX model runner and the conformance runner (gridops::onnx).
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <map>
#include <string>
#include <vector>

#include "arrays.h"
#include "gridops/onnx/conformance.h"
#include "gridops/onnx/model.h"
#include "gridops/onnx/npy.h"
#include "gridops/onnx/tensor_proto.h"
#include "gridops/ops/pad.h"

namespace gridops::py_binding {

namespace {

// The model runner takes owning tensors: one dense copy per input (through a zero Pad,
// which reads any strides).
Tensor copy_in(const InArray& a) {
  PadDesc d;
  d.pads_begin.assign(a.view.rank(), 0);
  d.pads_end.assign(a.view.rank(), 0);
  ++input_copies();
  return value_or_throw(gridops::pad(d, a.view));
}

py::object to_python(Tensor t, bool as_torch) {
  if (t.dtype() != DType::kString) return wrap_tensor(std::move(t), as_torch);
  py::list items;
  const auto* s = t.data_as<std::string>();
  for (int64_t i = 0; i < t.num_elements(); ++i) items.append(py::str(s[i]));
  py::module_ np = py::module_::import("numpy");
  py::object arr = np.attr("array")(items, py::arg("dtype") = np.attr("object_"));
  return arr.attr("reshape")(py::tuple(py::cast(std::vector<int64_t>(t.shape().begin(), t.shape().end()))));
}

py::tuple shape_of(const onnx::ValueInfo& v) {
  if (!v.rank_known) return py::tuple();
  py::list dims;
  for (int64_t d : v.dims) {
    if (d < 0) {
      dims.append(py::none());
    } else {
      dims.append(d);
    }
  }
  return py::tuple(dims);
}

// A str or os.PathLike as a path string.
std::string fspath(py::handle p) {
  return py::str(py::module_::import("os").attr("fspath")(p)).cast<std::string>();
}

}  // namespace

void init_onnx(py::module_& m) {
  py::module_ o = m.def_submodule("onnx", "ONNX models and the ONNX backend conformance runner.");

  py::class_<onnx::ValueInfo>(o, "ValueInfo", "A graph input or output: name, dtype, shape.")
      .def_readonly("name", &onnx::ValueInfo::name)
      .def_property_readonly("dtype", [](const onnx::ValueInfo& v) -> py::object {
        if (!v.type_known) return py::none();
        return py::str(to_string(v.dtype));
      })
      .def_property_readonly("shape", [](const onnx::ValueInfo& v) -> py::object {
        if (!v.rank_known) return py::none();
        return shape_of(v);
      })
      .def_readonly("dim_names", &onnx::ValueInfo::dim_names)
      .def("__repr__", [](const onnx::ValueInfo& v) { return "ValueInfo(" + v.to_string() + ")"; });

  py::class_<onnx::Model>(o, "Model", R"(Model(path)

A loaded ONNX model (the runner of docs/onnx.md). .inputs and .outputs list ValueInfo
(name, dtype, shape with None for symbolic dims); .check_supported() raises ValueError
naming the first node gridops cannot run; .run({name: array}) returns {name: array}.
Inputs are copied once into the runner's tensors (the C++ runner takes owning tensors);
outputs are NumPy arrays owning gridops memory (torch tensors when an input was one).)")
      .def(py::init([](py::handle path) { return value_or_throw(onnx::Model::load(fspath(path))); }),
           py::arg("path"))
      .def_property_readonly("inputs", [](const onnx::Model& mdl) { return mdl.inputs(); })
      .def_property_readonly("outputs", [](const onnx::Model& mdl) { return mdl.outputs(); })
      .def_property_readonly("opset", [](const onnx::Model& mdl) { return mdl.opset(""); })
      .def("check_supported", [](const onnx::Model& mdl) { check(mdl.check_supported()); })
      .def("run", [](const onnx::Model& mdl, py::dict feeds) {
             std::map<std::string, Tensor> inputs;
             bool as_torch = false;
             for (auto item : feeds) {
               if (!py::isinstance<py::str>(item.first)) {
                 throw PyError{PyExc_TypeError, "Model.run: input names must be str"};
               }
               const std::string name = item.first.cast<std::string>();
               InArray a = get_array(item.second, "Model.run: input '" + name + "'");
               as_torch = as_torch || a.from_torch;
               inputs.emplace(name, copy_in(a));
             }
             StatusOr<std::map<std::string, Tensor>> r = Status(StatusCode::kInternal, "unset");
             {
               py::gil_scoped_release nogil;
               r = mdl.run(inputs);
             }
             auto outs = value_or_throw(std::move(r));
             py::dict result;
             for (auto& [name, t] : outs) result[py::str(name)] = to_python(std::move(t), as_torch);
             return result;
           }, py::arg("inputs"));

  py::class_<onnx::CaseResult>(o, "CaseResult", "The outcome of one ONNX backend test directory.")
      .def_readonly("name", &onnx::CaseResult::name)
      .def_readonly("path", &onnx::CaseResult::path)
      .def_property_readonly("status", [](const onnx::CaseResult& r) { return onnx::to_string(r.kind); })
      .def_readonly("detail", &onnx::CaseResult::detail)
      .def("__repr__", [](const onnx::CaseResult& r) {
        return "CaseResult(" + r.name + ": " + onnx::to_string(r.kind) + (r.detail.empty() ? "" : ", " + r.detail) + ")";
      });

  o.def("read_tensor", [](py::handle path_obj) {
        const std::string path = fspath(path_obj);
        const bool npy = path.size() >= 4 && path.compare(path.size() - 4, 4, ".npy") == 0;
        Tensor t = value_or_throw(npy ? onnx::read_npy(path) : onnx::read_tensor_proto(path));
        return to_python(std::move(t), false);
      }, py::arg("path"),
      "Reads a serialized TensorProto (.pb) or a .npy file into a NumPy array.");
  o.def("find_test_dirs", &onnx::find_test_dirs, py::arg("root"),
        "Every directory under root (root included) that holds a model.onnx, sorted.");
  o.def("conformance", [](py::object dirs) {
        std::vector<std::string> roots;
        if (py::isinstance<py::str>(dirs) || py::hasattr(dirs, "__fspath__")) {
          roots.push_back(fspath(dirs));
        } else {
          for (py::handle d : dirs) {
            roots.push_back(fspath(d));
          }
        }
        std::vector<onnx::CaseResult> results;
        {
          py::gil_scoped_release nogil;
          for (const std::string& root : roots) {
            for (const std::string& dir : onnx::find_test_dirs(root)) {
              results.push_back(onnx::run_conformance_case(dir));
            }
          }
        }
        return results;
      }, py::arg("dirs"), R"(conformance(dirs) -> list[CaseResult]

Runs every ONNX backend node test (model.onnx + test_data_set_*) under dirs (a path or a
list of paths) as `gridops conformance` does: each result has .name, .path, .status
("pass", "fail" or "skip") and .detail.)");
}

}  // namespace gridops::py_binding
