#include "gridops/dtype.h"

#include <cmath>
#include <limits>

namespace gridops {

size_t dtype_size(DType d) noexcept {
  switch (d) {
#define GRIDOPS_SIZE_CASE_(e, T, n) \
  case DType::e:                    \
    return sizeof(T);
    GRIDOPS_FOR_EACH_DTYPE(GRIDOPS_SIZE_CASE_)
#undef GRIDOPS_SIZE_CASE_
  }
  return 0;
}

const char* to_string(DType d) noexcept {
  switch (d) {
#define GRIDOPS_NAME_CASE_(e, T, n) \
  case DType::e:                    \
    return n;
    GRIDOPS_FOR_EACH_DTYPE(GRIDOPS_NAME_CASE_)
#undef GRIDOPS_NAME_CASE_
  }
  return "unknown";
}

std::optional<DType> parse_dtype(std::string_view name) noexcept {
#define GRIDOPS_PARSE_CASE_(e, T, n) \
  if (name == n) return DType::e;
  GRIDOPS_FOR_EACH_DTYPE(GRIDOPS_PARSE_CASE_)
#undef GRIDOPS_PARSE_CASE_
  if (name == "float" || name == "f32") return DType::kFloat32;
  if (name == "double" || name == "f64") return DType::kFloat64;
  if (name == "half" || name == "f16") return DType::kFloat16;
  if (name == "bf16") return DType::kBFloat16;
  return std::nullopt;
}

namespace {
// Rounds a double to float with round-to-odd: the result's last bit records inexactness,
// so a later round-to-nearest-even to <= 22 bits rounds exactly once.
float round_to_odd_f32(double d) noexcept {
  if (std::isnan(d)) return static_cast<float>(d);
  float t = static_cast<float>(d);
  if (static_cast<double>(t) == d) return t;
  if (std::fabs(static_cast<double>(t)) > std::fabs(d)) {
    t = std::nextafter(t, 0.0f);
  }
  uint32_t bits;
  std::memcpy(&bits, &t, 4);
  bits |= 1u;
  std::memcpy(&t, &bits, 4);
  return t;
}
}  // namespace

float16 f64_to_f16(double d) noexcept { return f32_to_f16(round_to_odd_f32(d)); }
bfloat16 f64_to_bf16(double d) noexcept { return f32_to_bf16(round_to_odd_f32(d)); }

#ifndef GRIDOPS_HAVE_HWY
// Portable loops for builds without Highway; src/core/convert_hwy.cc replaces them.
void convert_f16_to_f32(const float16* src, float* dst, size_t n) noexcept {
  for (size_t i = 0; i < n; ++i) dst[i] = f16_to_f32(src[i]);
}
void convert_f32_to_f16(const float* src, float16* dst, size_t n) noexcept {
  for (size_t i = 0; i < n; ++i) dst[i] = f32_to_f16(src[i]);
}
void convert_bf16_to_f32(const bfloat16* src, float* dst, size_t n) noexcept {
  for (size_t i = 0; i < n; ++i) dst[i] = bf16_to_f32(src[i]);
}
void convert_f32_to_bf16(const float* src, bfloat16* dst, size_t n) noexcept {
  for (size_t i = 0; i < n; ++i) dst[i] = f32_to_bf16(src[i]);
}
#endif  // GRIDOPS_HAVE_HWY

}  // namespace gridops
