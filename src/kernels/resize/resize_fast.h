// The fast Resize kernels (src/kernels/resize/resize_separable.cc). See docs/ops/resize.md,
// "Fast path".
#pragma once

#include <cstdint>
#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "kernels/resize/resize.h"

namespace gridops::kernels {

/// Why the separable kernels decline p (empty: they take it). They take every problem
/// except linear/cubic on complex elements.
std::string resize_separable_declines(const ResizeProblem& p);
/// The order in which resize_separable passes over p.tables (indices into p.tables), as
/// its results round: `prepared` (resize_separable_prepare(p), or null) taking the fused
/// rows means axis order, whose bits the fused rows reproduce.
std::vector<size_t> resize_separable_pass_order(const ResizeProblem& p, const void* prepared);

/// A scratch buffer of `bytes` bytes (16-byte aligned).
struct ResizeScratch {
  std::unique_ptr<std::byte[]> p;
  size_t bytes = 0;
};

/// Per resized axis, the taps in float32 and, for a pass along the innermost axis, padded
/// to max_taps per output in tap-major order (idx32[k * out + o], w32[k * out + o]; padding
/// has weight 0 and a valid index). `gather_ok` is false when in >= 2^31.
/// The innermost pass of the fused-rows kernel (resize_separable.cc, float32 and uint8): a row
/// of in_len floats ((position, element) pairs, C elements per position) to out_len floats.
/// Outputs come in blocks of `lanes` (the Highway vector length at build time). Block b
/// uses the taps of pattern pat[b] (layout (pattern, tap, lane)): when lo[b] >= 0 they read
/// elements [lo[b], lo[b] + 2 lanes) of the row, with indices relative to lo[b] (lane
/// permutations of two loaded vectors); when lo[b] < 0 the indices are absolute (gathers).
/// Blocks with the same relative taps share a pattern (2x upsampling has a few), so the
/// tables stay in L1. The outputs after the last full block use tail_idx and tail_w,
/// (tap, output) with absolute indices. Padding taps have weight 0 and repeat the output's
/// first tap, as in ResizeSeparableTables::Axis.
///
/// With C >= lanes (`by_position`), whole positions are combined instead: output position
/// o (C floats) = sum over its taps t in [begin[o], begin[o + 1]) of pw[t] * the C floats of
/// input position pidx[t] (vector loads, no padding taps); the block tables are empty.
struct ResizeRowTable {
  int64_t lanes = 0, taps = 0, in_len = 0, out_len = 0, blocks = 0;
  bool by_position = false;
  int64_t C = 0;
  std::vector<int64_t> begin, pidx;
  std::vector<float> pw;
  std::vector<int32_t> lo, pat;
  std::vector<int32_t> idx;
  std::vector<float> w;
  std::vector<int32_t> tail_idx;
  std::vector<float> tail_w;
};

struct ResizeSeparableTables {
  struct Axis {
    std::vector<float> w;  ///< the table's weights, rounded to float32
    int64_t taps = 0;
    bool gather_ok = false;
    std::vector<int32_t> idx32;
    std::vector<float> w32;
  };
  std::vector<Axis> axes;  ///< one per ResizeProblem::tables entry
  /// Set when the fused-rows kernel (float32 or uint8) takes the problem: row is the innermost resized
  /// axis's table over (position, element) pairs.
  bool fused = false;
  ResizeRowTable row;
  /// The intermediates of the last single-thread-group run, kept for the next run of the
  /// plan (freed with it); taken under pool_mutex by one run at a time.
  mutable std::mutex pool_mutex;
  mutable ResizeScratch pool[2];
};

/// Builds the tables of an accepted problem (may throw std::bad_alloc).
std::shared_ptr<const void> resize_separable_prepare(const ResizeProblem& p);

#ifdef GRIDOPS_HAVE_HWY
/// Highway row kernels (resize_hwy.cc): acc = w * src (first) or acc + w * src over n floats;
/// out[o] = sum_k w[k * out_len + o] * row[idx[k * out_len + o]] for k < taps.
void resize_axpy_f32(float* acc, const float* src, float w, int64_t n, bool first);
/// (row holds in_len floats.)
void resize_gather_row_f32(const float* row, int64_t in_len, float* out, int64_t out_len, const int32_t* idx,
                           const float* w, int64_t taps);
/// The float32 vector length of the dispatched target.
int64_t resize_lanes_f32();
/// out[j] = sum_k w[k] * rows[k][j] over n floats, one Mul and then MulAdds in tap order
/// (zeros when taps == 0).
void resize_blend_rows_f32(float* out, const float* const* rows, const float* w, int64_t taps, int64_t n);
/// The same with uint8 rows (converted exactly to float32 on load).
void resize_blend_rows_u8(float* out, const uint8_t* const* rows, const float* w, int64_t taps, int64_t n);
/// out[o] = sum_k w * row[idx] over t's taps, for o < t.out_len (row holds t.in_len floats).
/// `stream`: full blocks are written with non-temporal stores where `out` is aligned to a
/// vector (followed by a store fence).
void resize_row_pass_f32(const float* row, float* out, const ResizeRowTable& t, bool stream);
/// dst[i] = src[i] converted with ERRATA GridSample 7 (NaN -> 0, truncate, saturate).
void resize_store_u8_from_f32(const float* src, uint8_t* dst, int64_t n);
#endif

/// Nearest (and problems whose every axis is the identity): a gather of whole elements,
/// bit-exact, any dtype. Linear/cubic: one pass per resized axis over contiguous
/// intermediates in float (double for float64 and 32/64-bit integers), the axis that
/// shrinks most first; extrapolated points are written last with the exact value.
/// Threaded with parallel_for.
void resize_separable(const ResizeProblem& p, const void* prepared /* ResizeSeparableTables */, const TensorView& src,
                      const MutableTensorView& dst);

}  // namespace gridops::kernels
