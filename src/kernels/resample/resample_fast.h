// The fast resampling kernels (src/kernels/resample/resample_hwy.cc): their plan-time
// tables and entry points. See docs/ops/resample.md, "Fast path", for the arithmetic.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "kernels/resample/resample.h"

namespace gridops::kernels {

/// Per-axis tables, built once per plan from coords::resample_nearest_index /
/// resample_linear_taps. Forward: taps and float32 weights per output position (arrays
/// padded with index 0 and weight 0 to a multiple of 16 so whole vectors can be loaded).
/// Backward: the adjoint in CSR form, built from the same forward tables: for each input
/// position its (output position, weight) uses in increasing output order (tap 0 before
/// tap 1 where both taps of one output hit the same input).
struct ResampleAxisTable {
  int64_t in = 1, out = 1;
  std::vector<int32_t> i0, i1;
  std::vector<float> w0, w1;
  std::vector<int64_t> begin;  ///< in + 1 entries
  std::vector<int32_t> use_o;
  std::vector<float> use_w;
};

/// The adjoint of the innermost axis in vector-chunk form, for the plain (W-contiguous)
/// backward kernels: chunk k covers inputs [k * lanes, (k + 1) * lanes) and has slots
/// [slot_begin[k], slot_begin[k + 1]); slot s holds, per lane, the output index, weight and
/// a validity flag of that lane's s-th use (lanes with fewer uses are invalid there).
struct ResampleChunkTable {
  int64_t lanes = 0;
  std::vector<int64_t> slot_begin;
  std::vector<int32_t> idx;
  std::vector<float> w;
  std::vector<int32_t> valid;
};

/// Everything the fast kernels precompute for one plan.
struct ResampleFastTables {
  ResampleAxisTable axis[kResampleMaxSpatialRank];
  ResampleChunkTable chunks;  ///< plain kernels only
  bool plain = false;         ///< both tensors contiguous along the innermost spatial axis
};

/// Why the fast kernels decline p (empty: they take it).
std::string resample_fast_declines(const ResampleProblem& p);
/// Builds the tables of an accepted problem (may throw std::bad_alloc).
std::shared_ptr<const void> resample_fast_prepare(const ResampleProblem& p);
/// dst = A src in float32 arithmetic (nearest: a copy). `tables` from resample_fast_prepare.
void resample_forward_fast(const ResampleProblem& p, const void* tables, const void* src,
                           void* dst);
/// diff_src = A^T diff_dst (linear: float32 arithmetic; nearest: double, bit-exact).
void resample_backward_fast(const ResampleProblem& p, const void* tables, const void* diff_dst,
                            void* diff_src);

}  // namespace gridops::kernels
