// The fast Resize kernels (src/kernels/resize/resize_separable.cc). See docs/ops/resize.md,
// "Fast path".
#pragma once

#include <string>

#include "kernels/resize/resize.h"

namespace gridops::kernels {

/// Why the separable kernels decline p (empty: they take it). They take every problem
/// except linear/cubic on complex elements.
std::string resize_separable_declines(const ResizeProblem& p);

/// Nearest (and problems whose every axis is the identity): a gather of whole elements,
/// bit-exact, any dtype. Linear/cubic: one pass per resized axis over contiguous
/// intermediates in float (double for float64 and 32/64-bit integers), the axis that
/// shrinks most first; extrapolated points are written last with the exact value.
/// Threaded with parallel_for.
void resize_separable(const ResizeProblem& p, const void* prepared, const TensorView& src,
                      const MutableTensorView& dst);

}  // namespace gridops::kernels
