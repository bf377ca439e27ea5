// Bounded whole-file reads shared by the ONNX front end and the gridops command.
#pragma once

#include <cstdint>
#include <string>

#include "gridops/status.h"

namespace gridops::onnx {

/// The default bound on one file read by read_npy, read_tensor_proto and read_bytes:
/// 4 GiB. A regular file larger than the bound is refused before anything is read; a FIFO
/// or device is read up to the bound and then refused.
inline constexpr int64_t kDefaultMaxFileBytes = int64_t{1} << 32;

/// Reads a whole file (regular, FIFO or device) of at most `max_bytes` bytes. Errors
/// name the path and the OS reason ("Is a directory", "Permission denied", ...).
StatusOr<std::string> read_bytes(const std::string& path, int64_t max_bytes = kDefaultMaxFileBytes);

}  // namespace gridops::onnx
