#include "ops/dispatch.h"

#include <cstring>

namespace gridops::detail {

bool dispatch_verbose() noexcept {
  const char* v = std::getenv("GRIDOPS_VERBOSE");
  return v != nullptr && std::strstr(v, "dispatch") != nullptr;
}

std::string_view forced_impl_from_env() noexcept {
  const char* v = std::getenv("GRIDOPS_IMPL");
  return v ? std::string_view(v) : std::string_view();
}

}  // namespace gridops::detail
