// Internal: whole-file reads and writes with errors that name the path.
#pragma once

#include <fstream>
#include <sstream>
#include <string>

#include "gridops/status.h"

namespace gridops::onnx::detail {

inline StatusOr<std::string> read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return invalid_argument("cannot open '", path, "' for reading");
  std::ostringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

inline Status write_file(const std::string& path, const std::string& bytes) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  if (!f) return invalid_argument("cannot open '", path, "' for writing");
  f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!f) return invalid_argument("cannot write '", path, "'");
  return Status();
}

}  // namespace gridops::onnx::detail
