// Python objects <-> gridops views, without copies: the buffer protocol (NumPy and anything
// exporting one, strided views included), __dlpack__ / DLPack capsules (PyTorch CPU tensors,
// bfloat16 included) and __array_interface__; outputs as NumPy arrays owning a
// gridops::Tensor, or PyTorch tensors through DLPack when the input was one.
#pragma once

#include <pybind11/pybind11.h>

#include <atomic>
#include <memory>
#include <string>

#include "gridops/status.h"
#include "gridops/tensor.h"

namespace gridops::py_binding {

namespace py = pybind11;

/// A Python exception of a given class (TypeError, ValueError, ...) carrying a message;
/// translated by the module's exception translator.
struct PyError {
  PyObject* type;
  std::string message;
};

/// gridops.DTypeError: a subclass of TypeError and ValueError raised for unsupported dtypes.
PyObject* dtype_error_type();
void init_dtype_error(py::module_& m);

/// Raises the Python exception for a failed Status: invalid argument -> ValueError (or
/// gridops.DTypeError when the message is about a dtype), out of memory -> MemoryError,
/// unimplemented -> NotImplementedError, internal -> RuntimeError.
[[noreturn]] void throw_status(const Status& s);
inline void check(const Status& s) {
  if (!s.ok()) throw_status(s);
}
template <class T>
T value_or_throw(StatusOr<T> r) {
  if (!r.ok()) throw_status(r.status());
  return std::move(r).value();
}

/// A view of a Python object's memory, valid while this object lives. Holds the buffer or
/// the consumed DLPack tensor and releases it (with the GIL held) on destruction.
class InArray {
 public:
  InArray() = default;
  InArray(InArray&&) noexcept;
  InArray& operator=(InArray&&) noexcept;
  InArray(const InArray&) = delete;
  InArray& operator=(const InArray&) = delete;
  ~InArray();

  MutableTensorView view;
  /// The input was a torch.Tensor: outputs made for it are torch tensors too.
  bool from_torch = false;
  /// "buffer" or "dlpack".
  const char* source = "";

 private:
  friend InArray get_array_unchecked(py::handle obj, const std::string& what, bool writable);
  friend void take_capsule(InArray& a, py::handle cap, const std::string& what);
  Py_buffer* buffer_ = nullptr;
  void* dl_ = nullptr;  // DLManagedTensor*
  py::object keep_;     // an intermediate object the view points into (NumPy array)
};

/// The memory of `obj` as a view. `what` names the argument in errors ("grid_sample: input").
/// writable: the view is written (out=); read-only memory is an error.
InArray get_array(py::handle obj, const std::string& what, bool writable = false);

/// A NumPy array (or, with as_torch, a torch.Tensor through DLPack) owning `t`.
py::object wrap_tensor(Tensor t, bool as_torch);

/// The dtype named by a string ("float32"), a NumPy dtype or scalar type, or a torch dtype.
DType dtype_from_py(py::handle obj, const std::string& what);
/// The Python name of a dtype ("float32").
std::string dtype_name(DType d);

/// Number of input arrays the bindings copied (resample's non-dense inputs, ONNX inputs).
std::atomic<int64_t>& input_copies();

}  // namespace gridops::py_binding
