// Element conversions for the interpolating operators (ERRATA GridSample 7, Resampling 5):
// load any numeric element as the compute type, store once with the documented rules.
// Public so that front ends (the ONNX runner's attribute values, conformance comparison)
// convert exactly as the kernels do.
#pragma once

#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

#include "gridops/dtype.h"

namespace gridops::convert {

template <class T>
struct is_complex_t : std::false_type {};
template <class F>
struct is_complex_t<std::complex<F>> : std::true_type {};

/// True for element types interpolation can compute with (all but string).
template <class T>
inline constexpr bool is_numeric_v = !std::is_same_v<T, std::string>;

/// Whether an element type forces double computation (ERRATA GridSample 7): 64-bit
/// integers, float64 and complex128.
template <class T>
inline constexpr bool needs_double_v =
    std::is_same_v<T, int64_t> || std::is_same_v<T, uint64_t> || std::is_same_v<T, double> ||
    std::is_same_v<T, std::complex<double>>;

/// Loads a real element as F (float or double). Exact for every type whose values F holds.
template <class F, class T>
F load_real(const T& v) noexcept {
  if constexpr (std::is_same_v<T, float16>) {
    return static_cast<F>(f16_to_f32(v));
  } else if constexpr (std::is_same_v<T, bfloat16>) {
    return static_cast<F>(bf16_to_f32(v));
  } else if constexpr (std::is_same_v<T, bool>) {
    return v ? F(1) : F(0);
  } else {
    static_assert(std::is_arithmetic_v<T>);
    return static_cast<F>(v);
  }
}

/// Converts a real F to an integer type: truncate toward zero, saturate, NaN -> 0.
template <class I, class F>
I saturate_to_int(F v) noexcept {
  static_assert(std::is_integral_v<I> && !std::is_same_v<I, bool>);
  if (std::isnan(v)) return I(0);
  const F t = std::trunc(v);
  // 2^digits is exactly representable in float and double; compare against it so that
  // the bound itself (not representable in I when I is 64-bit) saturates.
  constexpr F hi = static_cast<F>(std::numeric_limits<I>::max() / 2 + 1) * F(2);  // 2^digits
  if (t >= hi) return std::numeric_limits<I>::max();
  if constexpr (std::is_signed_v<I>) {
    if (t < -hi) return std::numeric_limits<I>::min();
  } else {
    if (t < F(0)) return I(0);
  }
  return static_cast<I>(t);
}

/// Stores a real F into element type T with the ERRATA rules.
template <class T, class F>
T store_real(F v) noexcept {
  if constexpr (std::is_same_v<T, float16>) {
    if constexpr (std::is_same_v<F, double>) return f64_to_f16(v);
    else return f32_to_f16(v);
  } else if constexpr (std::is_same_v<T, bfloat16>) {
    if constexpr (std::is_same_v<F, double>) return f64_to_bf16(v);
    else return f32_to_bf16(v);
  } else if constexpr (std::is_same_v<T, bool>) {
    return v != F(0);  // NaN != 0 is true
  } else if constexpr (std::is_floating_point_v<T>) {
    return static_cast<T>(v);
  } else {
    return saturate_to_int<T>(v);
  }
}

/// The accumulator type for element type T computed in real precision F: F itself, or
/// std::complex<F> for complex elements (real and imaginary parts interpolate apart).
template <class T, class F>
using acc_t = std::conditional_t<is_complex_t<T>::value, std::complex<F>, F>;

/// Loads any numeric element as its accumulator type.
template <class F, class T>
acc_t<T, F> load(const T& v) noexcept {
  if constexpr (is_complex_t<T>::value) {
    return std::complex<F>(static_cast<F>(v.real()), static_cast<F>(v.imag()));
  } else {
    return load_real<F>(v);
  }
}

/// Stores an accumulator into element type T.
template <class T, class A>
T store(const A& a) noexcept {
  if constexpr (is_complex_t<T>::value) {
    using P = typename T::value_type;
    return T(static_cast<P>(a.real()), static_cast<P>(a.imag()));
  } else {
    return store_real<T>(a);
  }
}

}  // namespace gridops::convert
