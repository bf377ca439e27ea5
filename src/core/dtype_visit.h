// Visiting the dtypes that carry gradients (the backward kernels of data movement and of
// Resize): floating and complex.
#pragma once

#include <cassert>
#include <complex>

#include "gridops/dtype.h"

namespace gridops::detail {

/// Calls `f(T{})` with the element type of a floating or complex dtype (float32, float64,
/// float16, bfloat16, complex64, complex128); any other dtype is a broken precondition and
/// calls nothing.
template <class Fn>
void visit_float_or_complex(DType dtype, Fn&& f) {
  switch (dtype) {
    case DType::kFloat32:
      return f(float{});
    case DType::kFloat64:
      return f(double{});
    case DType::kFloat16:
      return f(float16{});
    case DType::kBFloat16:
      return f(bfloat16{});
    case DType::kComplex64:
      return f(std::complex<float>{});
    case DType::kComplex128:
      return f(std::complex<double>{});
    default:
      assert(false && "not a floating or complex dtype");
  }
}

}  // namespace gridops::detail
