// Element types, their C++ representations and the float16/bfloat16 conversions.
#pragma once

#include <complex>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>

namespace gridops {

/// IEEE 754 binary16, stored as its bit pattern.
struct float16 {
  uint16_t bits = 0;
  static constexpr float16 from_bits(uint16_t b) noexcept { return float16{b}; }
  friend bool operator==(float16 a, float16 b) noexcept { return a.bits == b.bits; }
};

/// bfloat16 (the upper half of a binary32), stored as its bit pattern.
struct bfloat16 {
  uint16_t bits = 0;
  static constexpr bfloat16 from_bits(uint16_t b) noexcept { return bfloat16{b}; }
  friend bool operator==(bfloat16 a, bfloat16 b) noexcept { return a.bits == b.bits; }
};

/// Every element type gridops knows. The numbering is stable (it matches no external enum).
enum class DType : uint8_t {
  kBool,
  kInt8,
  kInt16,
  kInt32,
  kInt64,
  kUInt8,
  kUInt16,
  kUInt32,
  kUInt64,
  kFloat16,
  kBFloat16,
  kFloat32,
  kFloat64,
  kComplex64,
  kComplex128,
  kString,
};

/// X(enumerator, C++ type, name) for every dtype, in enum order. One list for switches,
/// tests and benchmarks.
#define GRIDOPS_FOR_EACH_DTYPE(X)                       \
  X(kBool, bool, "bool")                                \
  X(kInt8, int8_t, "int8")                              \
  X(kInt16, int16_t, "int16")                           \
  X(kInt32, int32_t, "int32")                           \
  X(kInt64, int64_t, "int64")                           \
  X(kUInt8, uint8_t, "uint8")                           \
  X(kUInt16, uint16_t, "uint16")                        \
  X(kUInt32, uint32_t, "uint32")                        \
  X(kUInt64, uint64_t, "uint64")                        \
  X(kFloat16, ::gridops::float16, "float16")            \
  X(kBFloat16, ::gridops::bfloat16, "bfloat16")         \
  X(kFloat32, float, "float32")                         \
  X(kFloat64, double, "float64")                        \
  X(kComplex64, std::complex<float>, "complex64")       \
  X(kComplex128, std::complex<double>, "complex128")    \
  X(kString, std::string, "string")

/// Number of dtypes.
inline constexpr int kNumDTypes = 16;

/// The C++ type of a dtype: `DTypeTraits<DType::kFloat32>::type` is float.
template <DType D>
struct DTypeTraits;
#define GRIDOPS_DTYPE_TRAITS_(e, T, n)        \
  template <>                                 \
  struct DTypeTraits<DType::e> {              \
    using type = T;                           \
    static constexpr const char* name = n;    \
  };
GRIDOPS_FOR_EACH_DTYPE(GRIDOPS_DTYPE_TRAITS_)
#undef GRIDOPS_DTYPE_TRAITS_

/// The dtype of a C++ type: `dtype_of<float>()` is DType::kFloat32.
template <class T>
constexpr DType dtype_of() noexcept;
#define GRIDOPS_DTYPE_OF_(e, T, n) \
  template <>                      \
  constexpr DType dtype_of<T>() noexcept { return DType::e; }
GRIDOPS_FOR_EACH_DTYPE(GRIDOPS_DTYPE_OF_)
#undef GRIDOPS_DTYPE_OF_

/// Size in bytes of one element (sizeof(std::string) for kString).
size_t dtype_size(DType d) noexcept;
/// "float32", "bfloat16", ...
const char* to_string(DType d) noexcept;
/// Parses the names printed by to_string (also "float"/"double"/"half" aliases).
std::optional<DType> parse_dtype(std::string_view name) noexcept;

/// True for float16, bfloat16, float32, float64.
constexpr bool is_floating(DType d) noexcept {
  return d == DType::kFloat16 || d == DType::kBFloat16 || d == DType::kFloat32 ||
         d == DType::kFloat64;
}
/// True for the signed and unsigned integer types (not bool).
constexpr bool is_integer(DType d) noexcept {
  return d >= DType::kInt8 && d <= DType::kUInt64;
}
/// True for complex64 and complex128.
constexpr bool is_complex(DType d) noexcept {
  return d == DType::kComplex64 || d == DType::kComplex128;
}

/// Calls `f(T{})`-style with a type tag: `visit_dtype(d, [&](auto tag) { using T =
/// typename decltype(tag)::type; ... })`.
template <class T>
struct TypeTag {
  using type = T;
};
template <class F>
decltype(auto) visit_dtype(DType d, F&& f) {
  switch (d) {
#define GRIDOPS_VISIT_CASE_(e, T, n) \
  case DType::e:                     \
    return f(TypeTag<T>{});
    GRIDOPS_FOR_EACH_DTYPE(GRIDOPS_VISIT_CASE_)
#undef GRIDOPS_VISIT_CASE_
  }
  return f(TypeTag<float>{});  // unreachable for valid enumerators
}

// --- float16 / bfloat16 conversions (round to nearest, ties to even) -------------------

/// Exact widening of a binary16 to binary32 (signaling NaNs become quiet).
inline float f16_to_f32(float16 h) noexcept {
  const uint32_t sign = static_cast<uint32_t>(h.bits & 0x8000u) << 16;
  uint32_t exp = (h.bits >> 10) & 0x1Fu;
  uint32_t man = h.bits & 0x3FFu;
  uint32_t out;
  if (exp == 0x1F) {
    // inf, or NaN with its payload kept and made quiet (as F16C and AVX-512 do).
    out = sign | 0x7F800000u | (man << 13) | (man != 0 ? 0x400000u : 0u);
  } else if (exp != 0) {
    out = sign | ((exp + 112u) << 23) | (man << 13);
  } else if (man == 0) {
    out = sign;
  } else {
    // Subnormal: normalize.
    int e = -1;
    do {
      ++e;
      man <<= 1;
    } while ((man & 0x400u) == 0);
    out = sign | ((112u - static_cast<uint32_t>(e)) << 23) | ((man & 0x3FFu) << 13);
  }
  float f;
  std::memcpy(&f, &out, 4);
  return f;
}

/// binary32 to binary16, round to nearest even; overflow gives inf; NaN stays NaN (quiet).
inline float16 f32_to_f16(float f) noexcept {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  const uint16_t sign = static_cast<uint16_t>((x >> 16) & 0x8000u);
  const uint32_t abs = x & 0x7FFFFFFFu;
  if (abs > 0x7F800000u) {  // NaN: keep the top payload bits, force quiet
    return float16{static_cast<uint16_t>(sign | 0x7E00u | ((abs >> 13) & 0x3FFu))};
  }
  if (abs >= 0x477FF000u) {  // rounds to >= 65520 -> inf
    return float16{static_cast<uint16_t>(sign | 0x7C00u)};
  }
  if (abs < 0x38800000u) {  // below the smallest normal half (2^-14): subnormal or zero
    if (abs < 0x33000000u) return float16{sign};  // < 2^-25 rounds to 0 (2^-25 ties to even 0)
    const uint32_t e = abs >> 23;                 // 102..112
    const uint32_t man = (abs & 0x7FFFFFu) | 0x800000u;
    const uint32_t shift = 126u - e;              // 14..24
    uint32_t q = man >> shift;
    const uint32_t rem = man & ((1u << shift) - 1u);
    const uint32_t half = 1u << (shift - 1u);
    if (rem > half || (rem == half && (q & 1u))) ++q;
    return float16{static_cast<uint16_t>(sign | q)};
  }
  // Normal: rebias the exponent and round the mantissa to 10 bits.
  uint32_t v = abs - 0x38000000u;  // exponent rebiased by (127 - 15) << 23
  const uint32_t rem = v & 0x1FFFu;
  v >>= 13;
  if (rem > 0x1000u || (rem == 0x1000u && (v & 1u))) ++v;  // may carry into the exponent
  return float16{static_cast<uint16_t>(sign | v)};
}

/// Exact widening of a bfloat16 to binary32.
inline float bf16_to_f32(bfloat16 b) noexcept {
  const uint32_t x = static_cast<uint32_t>(b.bits) << 16;
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}

/// binary32 to bfloat16, round to nearest even; NaN stays NaN (quiet).
inline bfloat16 f32_to_bf16(float f) noexcept {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  if ((x & 0x7FFFFFFFu) > 0x7F800000u) {
    return bfloat16{static_cast<uint16_t>((x >> 16) | 0x0040u)};
  }
  const uint32_t lsb = (x >> 16) & 1u;
  x += 0x7FFFu + lsb;
  return bfloat16{static_cast<uint16_t>(x >> 16)};
}

/// binary64 to binary16 with a single rounding (no double rounding through float).
float16 f64_to_f16(double d) noexcept;
/// binary64 to bfloat16 with a single rounding.
bfloat16 f64_to_bf16(double d) noexcept;

/// Bulk conversions, vectorized where the CPU allows (F16C / AVX-512 BF16 through
/// Highway when built with it); identical results to the scalar functions above.
void convert_f16_to_f32(const float16* src, float* dst, size_t n) noexcept;
void convert_f32_to_f16(const float* src, float16* dst, size_t n) noexcept;
void convert_bf16_to_f32(const bfloat16* src, float* dst, size_t n) noexcept;
void convert_f32_to_bf16(const float* src, bfloat16* dst, size_t n) noexcept;

}  // namespace gridops
