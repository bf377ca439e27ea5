#include "arrays.h"

#include <dlpack/dlpack.h>
#include <pybind11/numpy.h>

#include <cstring>
#include <utility>
#include <vector>

namespace gridops::py_binding {

namespace {

// DLPack 0.8 added kDLBool (6); Debian's header is 0.6. Accepted from newer producers.
constexpr uint8_t kDLBoolCode = 6;

std::string type_name(py::handle obj) {
  return py::str(py::type::handle_of(obj).attr("__name__")).cast<std::string>();
}

bool is_torch_object(py::handle obj) {
  py::handle t = py::type::handle_of(obj);
  if (!py::hasattr(t, "__module__")) return false;
  const std::string mod = py::str(t.attr("__module__")).cast<std::string>();
  return mod == "torch" || mod.rfind("torch.", 0) == 0;
}

[[noreturn]] void raise(PyObject* type, std::string msg) { throw PyError{type, std::move(msg)}; }

// The dtype of a struct-module format string of a buffer ("f", "<d", "Zf", "?", ...), with
// the element size the exporter states.
DType dtype_from_format(const char* fmt, Py_ssize_t itemsize, const std::string& what) {
  std::string f = fmt ? fmt : "B";
  std::string body = f;
  if (!body.empty() && (body[0] == '@' || body[0] == '=' || body[0] == '<' || body[0] == '>' ||
                        body[0] == '!')) {
    const char order = body[0];
    body = body.substr(1);
    if (order == '>' || order == '!') {
      raise(dtype_error_type(), what + ": big-endian data (format '" + f +
                                    "') is not supported; convert with .astype(dtype.newbyteorder('='))");
    }
  }
  auto sized_int = [&](bool is_signed) -> DType {
    switch (itemsize) {
      case 1: return is_signed ? DType::kInt8 : DType::kUInt8;
      case 2: return is_signed ? DType::kInt16 : DType::kUInt16;
      case 4: return is_signed ? DType::kInt32 : DType::kUInt32;
      case 8: return is_signed ? DType::kInt64 : DType::kUInt64;
      default: break;
    }
    raise(dtype_error_type(), what + ": integer format '" + f + "' with element size " +
                                  std::to_string(itemsize) + " is not supported");
  };
  if (body.size() == 1) {
    switch (body[0]) {
      case '?': return DType::kBool;
      case 'b': case 'h': case 'i': case 'l': case 'q': return sized_int(true);
      case 'B': case 'H': case 'I': case 'L': case 'Q': return sized_int(false);
      case 'e': return DType::kFloat16;
      case 'f': return DType::kFloat32;
      case 'd': return DType::kFloat64;
      case 'O':
        raise(dtype_error_type(), what + ": object arrays are not supported (dtype object); "
                                         "use a numeric dtype");
      default: break;
    }
  }
  if (body == "Zf") return DType::kComplex64;
  if (body == "Zd") return DType::kComplex128;
  if (body.find('w') != std::string::npos || body.find('s') != std::string::npos ||
      body.find('U') != std::string::npos) {
    raise(dtype_error_type(), what + ": string arrays are not supported (buffer format '" + f + "')");
  }
  raise(dtype_error_type(), what + ": unsupported element format '" + f + "' (element size " +
                                std::to_string(itemsize) + ")");
}

DType dtype_from_dlpack(DLDataType t, const std::string& what) {
  if (t.lanes != 1) {
    raise(dtype_error_type(), what + ": DLPack vector types (lanes=" + std::to_string(t.lanes) +
                                  ") are not supported");
  }
  switch (t.code) {
    case kDLInt:
      if (t.bits == 8) return DType::kInt8;
      if (t.bits == 16) return DType::kInt16;
      if (t.bits == 32) return DType::kInt32;
      if (t.bits == 64) return DType::kInt64;
      break;
    case kDLUInt:
      if (t.bits == 8) return DType::kUInt8;
      if (t.bits == 16) return DType::kUInt16;
      if (t.bits == 32) return DType::kUInt32;
      if (t.bits == 64) return DType::kUInt64;
      break;
    case kDLFloat:
      if (t.bits == 16) return DType::kFloat16;
      if (t.bits == 32) return DType::kFloat32;
      if (t.bits == 64) return DType::kFloat64;
      break;
    case kDLBfloat:
      if (t.bits == 16) return DType::kBFloat16;
      break;
    case kDLComplex:
      if (t.bits == 64) return DType::kComplex64;
      if (t.bits == 128) return DType::kComplex128;
      break;
    case kDLBoolCode:
      if (t.bits == 8) return DType::kBool;
      break;
    default: break;
  }
  raise(dtype_error_type(), what + ": unsupported DLPack dtype (code " + std::to_string(t.code) +
                                ", " + std::to_string(t.bits) + " bits)");
}

DLDataType dlpack_dtype(DType d) {
  DLDataType t{};
  t.lanes = 1;
  t.bits = static_cast<uint8_t>(dtype_size(d) * 8);
  switch (d) {
    case DType::kInt8: case DType::kInt16: case DType::kInt32: case DType::kInt64:
      t.code = kDLInt; break;
    case DType::kBool:  // exported as uint8 (DLPack 0.6 has no bool); torch views it back as bool
    case DType::kUInt8: case DType::kUInt16: case DType::kUInt32: case DType::kUInt64:
      t.code = kDLUInt; break;
    case DType::kFloat16: case DType::kFloat32: case DType::kFloat64:
      t.code = kDLFloat; break;
    case DType::kBFloat16: t.code = kDLBfloat; break;
    case DType::kComplex64: case DType::kComplex128: t.code = kDLComplex; break;
    case DType::kString:
      raise(dtype_error_type(), "gridops: string tensors cannot be exported through DLPack");
  }
  return t;
}

const char* numpy_format(DType d) {
  switch (d) {
    case DType::kBool: return "?";
    case DType::kInt8: return "b";
    case DType::kInt16: return "h";
    case DType::kInt32: return "i";
    case DType::kInt64: return "q";
    case DType::kUInt8: return "B";
    case DType::kUInt16: return "H";
    case DType::kUInt32: return "I";
    case DType::kUInt64: return "Q";
    case DType::kFloat16: return "e";
    case DType::kFloat32: return "f";
    case DType::kFloat64: return "d";
    case DType::kComplex64: return "F";
    case DType::kComplex128: return "D";
    case DType::kBFloat16: case DType::kString: break;
  }
  return nullptr;
}

void release_dl(void* p) {
  auto* m = static_cast<DLManagedTensor*>(p);
  if (m && m->deleter) m->deleter(m);
}

// What a torch tensor exported through our capsule keeps alive.
struct Export {
  DLManagedTensor managed{};
  Tensor tensor;
  Dims shape, strides;
};

void export_deleter(DLManagedTensor* m) { delete static_cast<Export*>(m->manager_ctx); }

void export_capsule_destructor(PyObject* cap) {
  // Only a capsule nobody consumed still owns its tensor (the DLPack protocol).
  if (PyCapsule_IsValid(cap, "dltensor")) {
    auto* m = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(cap, "dltensor"));
    if (m && m->deleter) m->deleter(m);
  } else {
    PyErr_Clear();
  }
}

void tensor_capsule_destructor(PyObject* cap) {
  delete static_cast<Tensor*>(PyCapsule_GetPointer(cap, "gridops.Tensor"));
}

}  // namespace

InArray get_array_unchecked(py::handle obj, const std::string& what, bool writable);

// ---------------------------------------------------------------------------------------

PyObject* g_dtype_error = nullptr;

PyObject* dtype_error_type() { return g_dtype_error; }

void init_dtype_error(py::module_& m) {
  py::tuple bases = py::make_tuple(py::handle(PyExc_TypeError), py::handle(PyExc_ValueError));
  g_dtype_error = PyErr_NewExceptionWithDoc(
      "gridops.DTypeError",
      "An unsupported or mismatched dtype. A subclass of both TypeError and ValueError.",
      bases.ptr(), nullptr);
  if (!g_dtype_error) throw py::error_already_set();
  m.attr("DTypeError") = py::handle(g_dtype_error);
}

void throw_status(const Status& s) {
  PyObject* type = PyExc_RuntimeError;
  switch (s.code()) {
    case StatusCode::kInvalidArgument:
      type = s.message().find("dtype") != std::string::npos ? dtype_error_type() : PyExc_ValueError;
      break;
    case StatusCode::kOutOfMemory: type = PyExc_MemoryError; break;
    case StatusCode::kUnimplemented: type = PyExc_NotImplementedError; break;
    case StatusCode::kInternal: case StatusCode::kOk: type = PyExc_RuntimeError; break;
  }
  throw PyError{type, s.message()};
}

std::atomic<int64_t>& input_copies() {
  static std::atomic<int64_t> n{0};
  return n;
}

InArray::InArray(InArray&& o) noexcept
    : view(std::move(o.view)), from_torch(o.from_torch), source(o.source),
      buffer_(std::exchange(o.buffer_, nullptr)), dl_(std::exchange(o.dl_, nullptr)),
      keep_(std::move(o.keep_)) {}

InArray& InArray::operator=(InArray&& o) noexcept {
  if (this != &o) {
    this->~InArray();
    new (this) InArray(std::move(o));
  }
  return *this;
}

InArray::~InArray() {
  if (buffer_) {
    PyBuffer_Release(buffer_);
    delete buffer_;
  }
  release_dl(dl_);
}

void take_capsule(InArray& a, py::handle cap, const std::string& what) {
  if (PyCapsule_IsValid(cap.ptr(), "used_dltensor")) {
    raise(PyExc_ValueError, what + ": this DLPack capsule was already consumed (a capsule can be "
                                   "used once; call __dlpack__() again for a new one)");
  }
  if (!PyCapsule_IsValid(cap.ptr(), "dltensor")) {
    PyErr_Clear();
    raise(PyExc_TypeError, what + ": a capsule that is not a DLPack tensor ('dltensor')");
  }
  auto* m = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(cap.ptr(), "dltensor"));
  if (!m) throw py::error_already_set();
  // Consume it: from now on we call the deleter, the capsule does not.
  if (PyCapsule_SetName(cap.ptr(), "used_dltensor") != 0) throw py::error_already_set();
  a.dl_ = m;
  const DLTensor& t = m->dl_tensor;
  if (t.device.device_type != kDLCPU) {
    raise(PyExc_ValueError, what + ": the tensor is on DLPack device type " +
                                std::to_string(static_cast<int>(t.device.device_type)) +
                                ", gridops runs on the CPU (device type 1) only");
  }
  if (t.ndim < 0 || t.ndim > kMaxRank) {
    raise(PyExc_ValueError, what + ": rank must be <= " + std::to_string(kMaxRank) + ", got " +
                                std::to_string(t.ndim));
  }
  const DType dt = dtype_from_dlpack(t.dtype, what);
  Dims shape(t.shape, t.shape + t.ndim);
  Dims strides = t.strides ? Dims(t.strides, t.strides + t.ndim) : contiguous_strides(shape);
  void* data = static_cast<char*>(t.data) + t.byte_offset;
  a.view = MutableTensorView(dt, data, std::move(shape), std::move(strides));
  a.source = "dlpack";
}

// The kernels address elements through typed pointers: a view whose data pointer is not
// aligned to its element type (a NumPy view at an odd byte offset of a buffer) is refused.
void check_alignment(const InArray& a, const std::string& what) {
  const size_t align = visit_dtype(a.view.dtype, [](auto tag) { return alignof(typename decltype(tag)::type); });
  const StatusOr<int64_t> n = checked_num_elements(a.view.shape, what);  // errors: reported later
  if (n.ok() && *n > 0 && reinterpret_cast<uintptr_t>(a.view.data) % align != 0) {
    raise(PyExc_ValueError, what + ": the data is not aligned to its " + std::to_string(align) +
                                "-byte element type (an array at an odd byte offset); pass a copy "
                                "(numpy.array(x) or x.copy())");
  }
}

InArray get_array(py::handle obj, const std::string& what, bool writable) {
  if (writable && PyCapsule_CheckExact(obj.ptr())) {
    // A DLPack capsule carries no writability (DLPack 0.6) and is consumed by reading it:
    // a result written into it would reach nobody who asked for it.
    raise(PyExc_TypeError, what + ": a DLPack capsule cannot be an out= array (it is read-only "
                                  "by protocol and consumed once); pass the tensor itself");
  }
  InArray a = get_array_unchecked(obj, what, writable);
  check_alignment(a, what);
  if (writable) {
    // An out= whose elements share memory (a stride of 0 on an axis longer than 1, e.g.
    // numpy.broadcast_to made writable): every write would land on the same elements.
    const auto& v = a.view;
    for (size_t d = 0; d < v.shape.size(); ++d) {
      if (v.shape[d] > 1 && v.strides[d] == 0) {
        raise(PyExc_ValueError, what + ": out= overlaps itself: axis " + std::to_string(d) +
                                    " of length " + std::to_string(v.shape[d]) +
                                    " has stride 0 (its elements share memory); pass an array "
                                    "whose elements are distinct");
      }
    }
  }
  return a;
}

InArray get_array_unchecked(py::handle obj, const std::string& what, bool writable) {
  InArray a;
  if (obj.is_none()) {
    raise(PyExc_TypeError, what + ": expected an array (buffer protocol, __array_interface__ or "
                                  "__dlpack__), got None");
  }
  if (PyCapsule_CheckExact(obj.ptr())) {
    take_capsule(a, obj, what);
    return a;
  }
  py::handle src = obj;
  if (!PyObject_CheckBuffer(obj.ptr())) {
    if (py::hasattr(obj, "__dlpack__")) {
      const bool torch = is_torch_object(obj);
      py::object exporter = py::reinterpret_borrow<py::object>(obj);
      bool as_bool = false;
      if (torch) {
        const std::string dev = py::str(obj.attr("device").attr("type")).cast<std::string>();
        if (dev != "cpu") {
          raise(PyExc_ValueError, what + ": the tensor is on device '" + dev +
                                      "', gridops runs on the CPU only (use .cpu())");
        }
        if (obj.attr("requires_grad").cast<bool>()) {
          raise(PyExc_ValueError, what + ": the tensor requires grad; gridops records no autograd "
                                         "graph, pass tensor.detach()");
        }
        // A lazy negation or conjugation (t.conj().imag, torch._neg_view, t.conj()) is a
        // bit on the tensor, not in its storage, and DLPack exports the storage: an input
        // is read as its resolved copy; an out= would receive values its reader negates.
        const bool neg = py::hasattr(obj, "is_neg") && obj.attr("is_neg")().cast<bool>();
        const bool conj = py::hasattr(obj, "is_conj") && obj.attr("is_conj")().cast<bool>();
        if (neg || conj) {
          if (writable) {
            raise(PyExc_ValueError,
                  what + ": a torch tensor with the " + (neg ? "negative" : "conjugate") +
                      " bit set (a lazy view such as t.conj().imag) cannot be written: its "
                      "storage holds the " + (neg ? "negated" : "conjugated") +
                      " values; pass a tensor without it (t.resolve_neg() / t.resolve_conj() "
                      "copies)");
          }
          exporter = exporter.attr("resolve_conj")().attr("resolve_neg")();
        }
        py::module_ torch_mod = py::module_::import("torch");
        if (obj.attr("dtype").is(torch_mod.attr("bool"))) {
          // torch's DLPack export has no bool: the same bytes as uint8.
          exporter = exporter.attr("view")(torch_mod.attr("uint8"));
          as_bool = true;
        }
      } else if (py::hasattr(obj, "__dlpack_device__")) {
        py::tuple dev;
        try {
          dev = obj.attr("__dlpack_device__")();
        } catch (py::error_already_set& e) {
          raise(PyExc_ValueError, what + ": __dlpack_device__ failed: " + std::string(e.what()));
        }
        if (dev.size() < 2) {
          raise(PyExc_ValueError, what + ": __dlpack_device__ must return (device_type, "
                                         "device_id), got " + py::repr(dev).cast<std::string>());
        }
        if (dev[0].cast<int>() != kDLCPU) {
          raise(PyExc_ValueError, what + ": the tensor is on DLPack device type " +
                                      py::str(dev[0]).cast<std::string>() +
                                      ", gridops runs on the CPU (device type 1) only");
        }
      }
      py::object cap = exporter.attr("__dlpack__")();
      take_capsule(a, cap, what);
      if (as_bool) a.view.dtype = DType::kBool;
      a.from_torch = torch;
      return a;
    }
    if (py::hasattr(obj, "__array_interface__")) {
      a.keep_ = py::module_::import("numpy").attr("asarray")(obj);
      src = a.keep_;
    } else {
      raise(PyExc_TypeError, what + ": expected an array (buffer protocol, __array_interface__ or "
                                    "__dlpack__), got " + type_name(obj));
    }
  }
  auto buf = std::make_unique<Py_buffer>();
  const int flags = PyBUF_STRIDES | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0);
  if (PyObject_GetBuffer(src.ptr(), buf.get(), flags) != 0) {
    py::error_already_set err;
    if (writable) {
      Py_buffer probe;
      if (PyObject_GetBuffer(src.ptr(), &probe, PyBUF_STRIDES | PyBUF_FORMAT) == 0) {
        PyBuffer_Release(&probe);
        raise(PyExc_ValueError, what + ": the array is read-only; out= must be writable");
      }
      PyErr_Clear();
    }
    raise(PyExc_TypeError, what + ": cannot take a strided buffer of " + type_name(obj) + " (" +
                               std::string(err.what()) + ")");
  }
  a.buffer_ = buf.release();
  const Py_buffer& b = *a.buffer_;
  a.source = "buffer";
  if (b.ndim > kMaxRank) {
    raise(PyExc_ValueError, what + ": rank must be <= " + std::to_string(kMaxRank) + ", got " +
                                std::to_string(b.ndim));
  }
  const DType dt = dtype_from_format(b.format, b.itemsize, what);
  if (static_cast<size_t>(b.itemsize) != dtype_size(dt)) {
    raise(dtype_error_type(), what + ": element size " + std::to_string(b.itemsize) +
                                  " does not match dtype " + to_string(dt));
  }
  Dims shape(b.ndim), strides(b.ndim);
  for (int i = 0; i < b.ndim; ++i) {
    shape[i] = b.shape[i];
    const Py_ssize_t s = b.strides ? b.strides[i] : 0;
    if (s % b.itemsize != 0) {
      raise(PyExc_ValueError, what + ": byte stride " + std::to_string(s) + " of axis " +
                                  std::to_string(i) + " is not a multiple of the element size " +
                                  std::to_string(b.itemsize));
    }
    strides[i] = s / b.itemsize;
  }
  if (!b.strides) strides = contiguous_strides(shape);
  a.view = MutableTensorView(dt, b.buf, std::move(shape), std::move(strides));
  return a;
}

py::object wrap_tensor(Tensor t, bool as_torch) {
  const DType dt = t.dtype();
  if (as_torch) {
    auto e = std::make_unique<Export>();
    e->shape = t.shape();
    e->strides = contiguous_strides(e->shape);
    e->tensor = std::move(t);
    DLTensor& d = e->managed.dl_tensor;
    d.data = e->tensor.data();
    d.device = DLDevice{kDLCPU, 0};
    d.ndim = e->tensor.rank();
    d.dtype = dlpack_dtype(dt);
    d.shape = e->shape.data();
    d.strides = e->strides.data();
    d.byte_offset = 0;
    e->managed.manager_ctx = e.get();
    e->managed.deleter = export_deleter;
    PyObject* cap = PyCapsule_New(&e->managed, "dltensor", export_capsule_destructor);
    if (!cap) throw py::error_already_set();
    e.release();
    py::object capsule = py::reinterpret_steal<py::object>(cap);
    // Looked up once and never released (a static py::object would be destroyed after the
    // interpreter has finalized).
    static PyObject* from_dlpack =
        py::object(py::module_::import("torch.utils.dlpack").attr("from_dlpack")).release().ptr();
    py::object out = py::handle(from_dlpack)(capsule);
    if (dt == DType::kBool) out = out.attr("view")(py::module_::import("torch").attr("bool"));
    return out;
  }
  const char* fmt = numpy_format(dt);
  if (!fmt) {
    raise(dtype_error_type(), std::string("gridops: a ") + to_string(dt) +
                                  " result has no NumPy dtype (bfloat16 results come back as torch "
                                  "tensors when the input is one)");
  }
  const Dims shape = t.shape();
  std::vector<py::ssize_t> pshape(shape.begin(), shape.end());
  std::vector<py::ssize_t> pstrides(shape.size());
  const auto item = static_cast<py::ssize_t>(dtype_size(dt));
  py::ssize_t s = item;
  for (size_t i = shape.size(); i-- > 0;) {
    pstrides[i] = s;
    s *= std::max<py::ssize_t>(pshape[i], 1);
  }
  void* data = t.data();
  auto* heap = new Tensor(std::move(t));
  PyObject* cap = PyCapsule_New(heap, "gridops.Tensor", tensor_capsule_destructor);
  if (!cap) {
    delete heap;
    throw py::error_already_set();
  }
  py::object base = py::reinterpret_steal<py::object>(cap);
  return py::array(py::dtype(fmt), pshape, pstrides, data, base);
}

DType dtype_from_py(py::handle obj, const std::string& what) {
  std::string name;
  if (py::isinstance<py::str>(obj)) {
    name = obj.cast<std::string>();
  } else if (is_torch_object(obj)) {  // a torch.dtype (its type lives in module torch)
    name = py::str(obj).cast<std::string>();
    if (name.rfind("torch.", 0) == 0) name = name.substr(6);
  } else {
    try {
      name = py::str(py::module_::import("numpy").attr("dtype")(obj).attr("name")).cast<std::string>();
    } catch (py::error_already_set&) {
      raise(dtype_error_type(), what + ": not a dtype: " + py::repr(obj).cast<std::string>());
    }
  }
  auto d = parse_dtype(name);
  if (!d || *d == DType::kString) {
    raise(dtype_error_type(), what + ": unsupported dtype '" + name + "'");
  }
  return *d;
}

std::string dtype_name(DType d) { return to_string(d); }

}  // namespace gridops::py_binding
