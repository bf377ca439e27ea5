// Overflow-checked integer arithmetic for size computations.
#pragma once

#include <cstdint>

namespace gridops::detail {

/// *out = a * b; false on int64 overflow.
inline bool mul_ok(int64_t a, int64_t b, int64_t* out) noexcept {
  return !__builtin_mul_overflow(a, b, out);
}
/// *out = a + b; false on int64 overflow.
inline bool add_ok(int64_t a, int64_t b, int64_t* out) noexcept {
  return !__builtin_add_overflow(a, b, out);
}

}  // namespace gridops::detail
