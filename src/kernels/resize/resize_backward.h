// Kernel contract for Resize's backward (the adjoint of the forward's linear map). The
// operator layer (src/ops/resize.cc, ResizePlan::backward) validates everything.
#pragma once

#include <memory>
#include <string>

#include "gridops/tensor.h"
#include "core/dtype_visit.h"
#include "kernels/resize/resize.h"

namespace gridops::kernels {

/// The views of one backward run: grad_dst has the problem's dst_shape (any strides),
/// grad_src its src_shape (distinct elements, not overlapping grad_dst); both of the
/// problem's dtype, which is floating or complex.
struct ResizeBackwardArgs {
  const TensorView& grad_dst;
  const MutableTensorView& grad_src;
};

/// The contract (docs/ops/resize.md, "Backward"): grad_src = A^T grad_dst for the linear
/// part A of the forward: every output point o that is not an extrapolation point adds
/// prod_k w_k * grad_dst[o] to each input element its tap combination reads (the
/// extrapolation value is a constant: no gradient). The reference computes exactly that
/// in double (complex<double>), over the output points in row-major order and their tap
/// combinations in the forward's order, and stores once. Single-threaded, any rank.
void resize_backward_ref(const ResizeProblem& p, const void* tables,
                         const ResizeBackwardArgs& a);

/// resize_backward.passes: the adjoint one resized axis at a time (the transposed tap
/// table of each axis applied to a scratch tensor, last table first), in float32 (float64
/// for float64 and complex128; complex: each part), threaded over the slices of each
/// pass; each element a fixed sum (output positions in increasing order, their taps in
/// table order), so the bits do not depend on the thread count. Within the tolerance of
/// docs/ops/resize.md of the reference. Takes every problem.
std::string resize_backward_passes_declines(const ResizeProblem& p);
std::shared_ptr<const void> resize_backward_passes_prepare(const ResizeProblem& p);
void resize_backward_passes(const ResizeProblem& p, const void* tables,
                            const ResizeBackwardArgs& a);

}  // namespace gridops::kernels
