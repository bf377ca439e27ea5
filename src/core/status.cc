#include "gridops/status.h"

namespace gridops {

const char* to_string(StatusCode code) noexcept {
  switch (code) {
    case StatusCode::kOk: return "ok";
    case StatusCode::kInvalidArgument: return "invalid argument";
    case StatusCode::kUnimplemented: return "unimplemented";
    case StatusCode::kOutOfMemory: return "out of memory";
    case StatusCode::kInternal: return "internal error";
  }
  return "unknown";
}

std::string Status::to_string() const {
  if (ok()) return "ok";
  return std::string(gridops::to_string(code_)) + ": " + message_;
}

}  // namespace gridops
