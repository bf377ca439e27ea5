// Kernel contract for resampling (forward and its exact adjoint). The operator layer
// (src/ops/resample.cc) validates everything and fills a ResampleProblem; kernels only
// assert their preconditions.
#pragma once

#include <cstdint>

#include "gridops/dtype.h"
#include "gridops/ops/resample.h"

namespace gridops::kernels {

/// The largest spatial rank a resampling problem has.
inline constexpr int kResampleMaxSpatialRank = 3;

/// Where logical element (n, c, d1..dr) of one tensor lives, in elements from the base
/// pointer:
///   n * n_stride + (c / block) * c_block_stride + (c % block) * c_inner_stride
///     + sum_k d_k * spatial_stride[k].
/// Plain and channels-last formats have block == 1 (c_inner_stride is then unused);
/// blocked formats (nCdhw8c, ...) have block 8 or 16. Strides may be negative or zero:
/// the kernels only ever form addresses through this formula.
struct ResampleLayout {
  int64_t n_stride = 0;
  int64_t c_block_stride = 0;
  int64_t c_inner_stride = 0;
  int64_t block = 1;
  int64_t spatial_stride[kResampleMaxSpatialRank] = {0, 0, 0};
  /// Channels in the buffer: C rounded up to a multiple of block. The channels in
  /// [C, padded_c) exist in memory and are written as zeros by kernels that write this
  /// tensor (ERRATA-free choice documented in docs/ops/resample.md).
  int64_t padded_c = 0;
};

/// One resampling problem. Preconditions (asserted, guaranteed by make_resample_plan):
/// - dtype is float32, bfloat16, float16 or float64;
/// - 1 <= spatial_rank <= 3; n, c >= 0; in[k], out[k] >= 0;
/// - for forward with a non-empty output: every in[k] >= 1;
/// - every address the layouts produce for a logical index within (n, padded_c, in/out)
///   lies inside the caller's buffer, and the src and dst buffers do not overlap.
/// Axes k >= spatial_rank are ignored.
struct ResampleProblem {
  DType dtype = DType::kFloat32;
  ResampleAlgorithm algorithm = ResampleAlgorithm::kNearest;
  int spatial_rank = 1;
  int64_t n = 0;
  int64_t c = 0;
  int64_t in[kResampleMaxSpatialRank] = {1, 1, 1};   ///< src spatial lengths I_k
  int64_t out[kResampleMaxSpatialRank] = {1, 1, 1};  ///< dst spatial lengths O_k
  /// Window of the forward (ResampleWindow): in/out are the boxes' lengths; output
  /// position o's taps are those of o + out_origin for full_in -> full_out, read at
  /// index - in_origin (the operator layer checked they lie in [0, in)).
  bool windowed = false;
  int64_t full_in[kResampleMaxSpatialRank] = {1, 1, 1};
  int64_t full_out[kResampleMaxSpatialRank] = {1, 1, 1};
  int64_t in_origin[kResampleMaxSpatialRank] = {0, 0, 0};
  int64_t out_origin[kResampleMaxSpatialRank] = {0, 0, 0};
  ResampleLayout src;  ///< layout of src (forward) and diff_src (backward)
  ResampleLayout dst;  ///< layout of dst (forward) and diff_dst (backward)
};

/// dst = A src, with A the separable nearest/linear interpolation of ERRATA Resampling 1.
/// Writes every dst element, padded channels as zeros. Computes in double, rounds once.
void resample_forward_ref(const ResampleProblem& p, const void* src, void* dst);

/// diff_src = A^T diff_dst (ERRATA Resampling 3): every diff_src element, padded channels
/// as zeros, is written; elements no output touches get zero. Computes in double.
void resample_backward_ref(const ResampleProblem& p, const void* diff_dst, void* diff_src);

}  // namespace gridops::kernels
