#include "gridops/onnx/tensor_proto.h"

#include <complex>
#include <cstring>
#include <limits>
#include <sstream>

#include "file_io.h"
#include "proto_convert.h"

namespace gridops::onnx {

StatusOr<DType> dtype_from_onnx(int t, std::string_view what) {
  using P = ::onnx::TensorProto;
  switch (t) {
    case P::FLOAT: return DType::kFloat32;
    case P::UINT8: return DType::kUInt8;
    case P::INT8: return DType::kInt8;
    case P::UINT16: return DType::kUInt16;
    case P::INT16: return DType::kInt16;
    case P::INT32: return DType::kInt32;
    case P::INT64: return DType::kInt64;
    case P::STRING: return DType::kString;
    case P::BOOL: return DType::kBool;
    case P::FLOAT16: return DType::kFloat16;
    case P::DOUBLE: return DType::kFloat64;
    case P::UINT32: return DType::kUInt32;
    case P::UINT64: return DType::kUInt64;
    case P::COMPLEX64: return DType::kComplex64;
    case P::COMPLEX128: return DType::kComplex128;
    case P::BFLOAT16: return DType::kBFloat16;
    default: break;
  }
  return unimplemented(what, ": unsupported ONNX element type ", t,
                       " (supported: bool, int8-64, uint8-64, float16, bfloat16, float, double, "
                       "complex64, complex128, string)");
}

int onnx_type_of(DType d) noexcept {
  using P = ::onnx::TensorProto;
  switch (d) {
    case DType::kBool: return P::BOOL;
    case DType::kInt8: return P::INT8;
    case DType::kInt16: return P::INT16;
    case DType::kInt32: return P::INT32;
    case DType::kInt64: return P::INT64;
    case DType::kUInt8: return P::UINT8;
    case DType::kUInt16: return P::UINT16;
    case DType::kUInt32: return P::UINT32;
    case DType::kUInt64: return P::UINT64;
    case DType::kFloat16: return P::FLOAT16;
    case DType::kBFloat16: return P::BFLOAT16;
    case DType::kFloat32: return P::FLOAT;
    case DType::kFloat64: return P::DOUBLE;
    case DType::kComplex64: return P::COMPLEX64;
    case DType::kComplex128: return P::COMPLEX128;
    case DType::kString: return P::STRING;
  }
  return P::UNDEFINED;
}

namespace {

Status count_mismatch(std::string_view what, const char* field, int64_t got, int64_t want,
                      const Dims& dims) {
  return invalid_argument(what, ": ", field, " holds ", got, " values, expected ", want,
                          " for dims ", dims_to_string(dims));
}

}  // namespace

StatusOr<Tensor> tensor_from_proto(const ::onnx::TensorProto& p, std::string_view what) {
  using P = ::onnx::TensorProto;
  if (p.data_location() == P::EXTERNAL || p.external_data_size() > 0) {
    return unimplemented(what, ": external data is not supported (tensor '", p.name(), "')");
  }
  if (p.has_segment()) {
    return unimplemented(what, ": segmented tensors are not supported (tensor '", p.name(), "')");
  }
  if (!p.has_data_type()) return invalid_argument(what, ": tensor '", p.name(), "' has no data_type");
  GRIDOPS_ASSIGN_OR_RETURN(const DType dt, dtype_from_onnx(p.data_type(), what));
  Dims dims(p.dims().begin(), p.dims().end());
  if (static_cast<int>(dims.size()) > kMaxRank) {
    return invalid_argument(what, ": tensor rank must be <= ", kMaxRank, ", got ", dims.size());
  }
  GRIDOPS_ASSIGN_OR_RETURN(const int64_t n, checked_num_elements(dims, what));
  const size_t es = dtype_size(dt);
  if (p.has_raw_data()) {
    if (dt == DType::kString) return invalid_argument(what, ": string tensors cannot use raw_data");
    int64_t want;
    if (__builtin_mul_overflow(n, static_cast<int64_t>(es), &want) ||
        static_cast<uint64_t>(want) != p.raw_data().size()) {
      return invalid_argument(what, ": raw_data holds ", p.raw_data().size(), " bytes, expected ",
                              n, " elements of ", es, " bytes for dims ", dims_to_string(dims));
    }
    GRIDOPS_ASSIGN_OR_RETURN(Tensor t, Tensor::create(dt, dims));
    if (n > 0) std::memcpy(t.data(), p.raw_data().data(), p.raw_data().size());  // little-endian host
    if (dt == DType::kBool) {
      auto* b = static_cast<unsigned char*>(t.data());
      for (int64_t i = 0; i < n; ++i) b[i] = b[i] != 0;
    }
    return t;
  }
  // Check the payload size before allocating: the dims may claim far more elements than
  // the file holds (found by fuzzing).
  {
    const char* field;
    int64_t got, per = 1;
    switch (dt) {
      case DType::kFloat32: field = "float_data"; got = p.float_data_size(); break;
      case DType::kComplex64: field = "float_data"; got = p.float_data_size(); per = 2; break;
      case DType::kFloat64: field = "double_data"; got = p.double_data_size(); break;
      case DType::kComplex128: field = "double_data"; got = p.double_data_size(); per = 2; break;
      case DType::kInt64: field = "int64_data"; got = p.int64_data_size(); break;
      case DType::kUInt32:
      case DType::kUInt64: field = "uint64_data"; got = p.uint64_data_size(); break;
      case DType::kString: field = "string_data"; got = p.string_data_size(); break;
      default: field = "int32_data"; got = p.int32_data_size(); break;
    }
    if (got % per != 0 || got / per != n) return count_mismatch(what, field, got, n * per, dims);
  }
  GRIDOPS_ASSIGN_OR_RETURN(Tensor t, Tensor::create(dt, dims));
  auto check = [&](const char* field, int64_t got, int64_t want) -> Status {
    if (got != want) return count_mismatch(what, field, got, want, dims);
    return Status();
  };
  switch (dt) {
    case DType::kFloat32:
      GRIDOPS_RETURN_IF_ERROR(check("float_data", p.float_data_size(), n));
      for (int64_t i = 0; i < n; ++i) t.data_as<float>()[i] = p.float_data(static_cast<int>(i));
      break;
    case DType::kComplex64:
      GRIDOPS_RETURN_IF_ERROR(check("float_data", p.float_data_size(), 2 * n));
      for (int64_t i = 0; i < n; ++i)
        t.data_as<std::complex<float>>()[i] = {p.float_data(static_cast<int>(2 * i)),
                                               p.float_data(static_cast<int>(2 * i + 1))};
      break;
    case DType::kFloat64:
      GRIDOPS_RETURN_IF_ERROR(check("double_data", p.double_data_size(), n));
      for (int64_t i = 0; i < n; ++i) t.data_as<double>()[i] = p.double_data(static_cast<int>(i));
      break;
    case DType::kComplex128:
      GRIDOPS_RETURN_IF_ERROR(check("double_data", p.double_data_size(), 2 * n));
      for (int64_t i = 0; i < n; ++i)
        t.data_as<std::complex<double>>()[i] = {p.double_data(static_cast<int>(2 * i)),
                                                p.double_data(static_cast<int>(2 * i + 1))};
      break;
    case DType::kInt64:
      GRIDOPS_RETURN_IF_ERROR(check("int64_data", p.int64_data_size(), n));
      for (int64_t i = 0; i < n; ++i) t.data_as<int64_t>()[i] = p.int64_data(static_cast<int>(i));
      break;
    case DType::kUInt32:
    case DType::kUInt64:
      GRIDOPS_RETURN_IF_ERROR(check("uint64_data", p.uint64_data_size(), n));
      for (int64_t i = 0; i < n; ++i) {
        const uint64_t v = p.uint64_data(static_cast<int>(i));
        if (dt == DType::kUInt32) {
          if (v > std::numeric_limits<uint32_t>::max()) {
            return invalid_argument(what, ": uint64_data[", i, "] = ", v, " does not fit uint32");
          }
          t.data_as<uint32_t>()[i] = static_cast<uint32_t>(v);
        } else {
          t.data_as<uint64_t>()[i] = v;
        }
      }
      break;
    case DType::kString:
      GRIDOPS_RETURN_IF_ERROR(check("string_data", p.string_data_size(), n));
      for (int64_t i = 0; i < n; ++i) t.data_as<std::string>()[i] = p.string_data(static_cast<int>(i));
      break;
    default: {
      // int32_data carries int32, int16, int8, uint16, uint8, bool, float16 and bfloat16
      // (the last two as bit patterns).
      GRIDOPS_RETURN_IF_ERROR(check("int32_data", p.int32_data_size(), n));
      for (int64_t i = 0; i < n; ++i) {
        const int32_t v = p.int32_data(static_cast<int>(i));
        switch (dt) {
          case DType::kInt32: t.data_as<int32_t>()[i] = v; break;
          case DType::kInt16: t.data_as<int16_t>()[i] = static_cast<int16_t>(v); break;
          case DType::kInt8: t.data_as<int8_t>()[i] = static_cast<int8_t>(v); break;
          case DType::kUInt16: t.data_as<uint16_t>()[i] = static_cast<uint16_t>(v); break;
          case DType::kUInt8: t.data_as<uint8_t>()[i] = static_cast<uint8_t>(v); break;
          case DType::kBool: t.data_as<bool>()[i] = v != 0; break;
          case DType::kFloat16: t.data_as<float16>()[i].bits = static_cast<uint16_t>(v); break;
          case DType::kBFloat16: t.data_as<bfloat16>()[i].bits = static_cast<uint16_t>(v); break;
          default: return internal_error(what, ": unhandled dtype ", to_string(dt));
        }
      }
    }
  }
  return t;
}

Status tensor_to_proto(const Tensor& t, const std::string& name, ::onnx::TensorProto* p) {
  p->Clear();
  p->set_name(name);
  p->set_data_type(onnx_type_of(t.dtype()));
  for (int64_t d : t.shape()) p->add_dims(d);
  if (t.dtype() == DType::kString) {
    for (int64_t i = 0; i < t.num_elements(); ++i) p->add_string_data(t.data_as<std::string>()[i]);
  } else {
    p->set_raw_data(std::string(static_cast<const char*>(t.data()), t.nbytes()));
  }
  return Status();
}

StatusOr<Tensor> parse_tensor_proto(std::string_view bytes, std::string_view what, std::string* name) {
  ::onnx::TensorProto p;
  if (bytes.size() > static_cast<size_t>(std::numeric_limits<int>::max()) ||
      !p.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    return invalid_argument(what, ": not a valid TensorProto (protobuf parse failed)");
  }
  if (name) *name = p.name();
  return tensor_from_proto(p, what);
}

StatusOr<std::string> read_bytes(const std::string& path, int64_t max_bytes) {
  return detail::read_file(path, max_bytes);
}

StatusOr<Tensor> read_tensor_proto(const std::string& path, std::string* name) {
  GRIDOPS_ASSIGN_OR_RETURN(const std::string bytes, detail::read_file(path, kDefaultMaxFileBytes));
  return parse_tensor_proto(bytes, path, name);
}

StatusOr<std::string> serialize_tensor_proto(const Tensor& t, const std::string& name) {
  ::onnx::TensorProto p;
  GRIDOPS_RETURN_IF_ERROR(tensor_to_proto(t, name, &p));
  std::string out;
  if (!p.SerializeToString(&out)) return internal_error("TensorProto serialization failed");
  return out;
}

Status write_tensor_proto(const Tensor& t, const std::string& name, const std::string& path) {
  GRIDOPS_ASSIGN_OR_RETURN(const std::string bytes, serialize_tensor_proto(t, name));
  return detail::write_file(path, bytes);
}

Status write_tensor_proto_to_fd(const Tensor& t, const std::string& name, int fd, const std::string& what) {
  GRIDOPS_ASSIGN_OR_RETURN(const std::string bytes, serialize_tensor_proto(t, name));
  return detail::write_fd_parts(fd, what, {bytes});
}

}  // namespace gridops::onnx
