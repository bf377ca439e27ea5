// NumPy .npy files (format versions 1.0, 2.0 and 3.0) to and from gridops tensors.
#pragma once

#include <string>
#include <string_view>

#include "gridops/status.h"
#include "gridops/tensor.h"

namespace gridops::onnx {

/// Parses .npy bytes: versions 1-3, little- and big-endian, C and Fortran order; dtypes
/// bool, int8..64, uint8..64, float16/32/64, complex64/128 and fixed-width unicode ('<U')
/// as strings. Object arrays, structured dtypes and unknown type codes are errors.
/// `what` names the source in messages (a file name).
StatusOr<Tensor> parse_npy(std::string_view bytes, std::string_view what = "npy");

/// Reads a .npy file.
StatusOr<Tensor> read_npy(const std::string& path);

/// Serializes a tensor as .npy (version 1.0, or 2.0 when the header needs it),
/// little-endian, C order. bfloat16 is written as float32 (exact; NumPy has no bfloat16);
/// strings as fixed-width unicode ('<U' with the longest length, UTF-8 decoded).
StatusOr<std::string> serialize_npy(const Tensor& t);

/// Writes a .npy file.
Status write_npy(const Tensor& t, const std::string& path);

/// Writes the .npy bytes of a tensor to the open file descriptor `fd`, which is left open
/// (the caller creates it as it needs, e.g. exclusively, and closes it); errors name `what`.
Status write_npy_to_fd(const Tensor& t, int fd, const std::string& what);

}  // namespace gridops::onnx
