// Kernel contract for Pad's backward (the adjoint of the forward's data movement). The
// operator layer (src/ops/pad.cc, PadPlan::backward) validates everything; kernels only
// assert the preconditions.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "core/dtype_visit.h"
#include "kernels/pad/pad.h"

namespace gridops::kernels {

/// The memory of one backward run. Strides are in elements; grad_dst's may be zero or
/// negative, grad_src's are those of a valid view that does not overlap grad_dst.
///
/// Preconditions (checked by PadPlan::backward): the problem is a PadProblem of a plan
/// (src_shape is grad_src's shape, dst_shape grad_dst's) whose dtype is floating or complex
/// (float16, bfloat16, float32, float64, complex64, complex128); both views have that dtype.
struct PadBackwardArgs {
  const void* grad_dst = nullptr;
  std::span<const int64_t> grad_dst_strides;
  void* grad_src = nullptr;
  std::span<const int64_t> grad_src_strides;
};

/// The contract every backward entry computes (docs/ops/pad.md, "Backward"): for each
/// input position i, grad_src[i] = the sum of grad_dst[o] over the output positions o whose
/// source (pad_source_index on every axis) is i, added one by one in increasing row-major
/// order of o, starting from +0, in float64 for float64 and complex128 data and float32
/// otherwise (complex: each part), then stored once (float16/bfloat16 round to nearest
/// even). An input position no output reads
/// (cropped by a negative pad, or every input of an empty output) gets +0. Every entry gives
/// these bits for any thread count.
///
/// The reference: per input position, the product of the per-axis preimages walked as an
/// odometer. Single-threaded, any rank.
void pad_backward_ref(const PadProblem& problem, const PadBackwardArgs& args);

/// pad_backward.rows (pad_backward_rows.cc): the per-axis preimages of the outer axes and
/// the innermost axis' index map built once by its prepare; threaded over input rows, each
/// row accumulated in a row of the accumulation type by walking its outer preimages in order
/// and, for each, the output row's left border, its middle (one contiguous run, vectorized
/// by the compiler where grad_dst's row is dense) and its right border. Declines rank 0.
std::string pad_backward_rows_declines(const PadProblem& problem);
std::shared_ptr<const void> pad_backward_rows_prepare(const PadProblem& problem);
void pad_backward_rows(const PadProblem& problem, const void* tables,
                       const PadBackwardArgs& args);
std::string pad_backward_rows_schedule(const PadProblem& problem, const void* tables);

}  // namespace gridops::kernels
