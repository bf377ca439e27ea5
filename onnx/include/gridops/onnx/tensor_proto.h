// ONNX TensorProto files to and from gridops tensors (protobuf stays inside gridops::onnx).
#pragma once

#include <string>
#include <string_view>

#include "gridops/status.h"
#include "gridops/tensor.h"

namespace gridops::onnx {

/// The dtype for an ONNX TensorProto.DataType code, or an error naming the code (float8,
/// int4 and other types gridops does not know are rejected).
StatusOr<DType> dtype_from_onnx(int onnx_type, std::string_view what);
/// The ONNX TensorProto.DataType code of a dtype.
int onnx_type_of(DType d) noexcept;

/// Parses serialized TensorProto bytes: typed fields or raw_data (little-endian), every
/// element type gridops knows, strings. External data and segments are errors; a
/// payload whose size does not match the dims is an error. *name receives the tensor name.
StatusOr<Tensor> parse_tensor_proto(std::string_view bytes, std::string_view what,
                                    std::string* name = nullptr);
/// Reads a TensorProto file (.pb).
StatusOr<Tensor> read_tensor_proto(const std::string& path, std::string* name = nullptr);
/// Serializes a tensor as a TensorProto (raw_data for numbers, string_data for strings).
StatusOr<std::string> serialize_tensor_proto(const Tensor& t, const std::string& name);
/// Writes a TensorProto file.
Status write_tensor_proto(const Tensor& t, const std::string& name, const std::string& path);
/// Writes the TensorProto bytes to the open file descriptor `fd`, which is left open;
/// errors name `what`.
Status write_tensor_proto_to_fd(const Tensor& t, const std::string& name, int fd, const std::string& what);

}  // namespace gridops::onnx
