// The fast Resize kernels (resize_gather.cc, resize_fused_rows.cc, resize_separable.cc):
// three entries of the implementation list (src/ops/resize.cc), each with its plan-time
// `declines`:
// resize.gather (nearest), resize.fused_rows (float32/uint8 channels-last rows, Highway
// only) and resize.passes (one pass per resized axis). See docs/ops/resize.md, "Fast paths".
#pragma once

#include <cstdint>
#include <cstddef>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <vector>

#include "kernels/resize/resize.h"

namespace gridops::kernels {

/// The order in which a planned entry runs the passes of p over p.tables (indices into
/// p.tables), as their results round: `tables` (the chosen entry's, from
/// resize_passes_prepare or resize_fused_rows_prepare) fixes it; null (an entry without
/// passes): the order resize.passes would choose.
std::vector<size_t> resize_planned_pass_order(const ResizeProblem& p, const void* tables);

/// An allocator of 64-byte (cache-line) aligned arrays, for the tables and rows the fused
/// rows read a whole vector at a time: where they start then no longer depends on what the
/// heap held before (with malloc's 16-byte alignment the weights straddled cache lines in
/// one build and not in another: docs/perf/resize.md, "Cache-line aligned tables").
template <class T>
struct CacheLineAllocator {
  using value_type = T;
  static constexpr std::align_val_t kAlign{64};
  CacheLineAllocator() = default;
  template <class U>
  CacheLineAllocator(const CacheLineAllocator<U>&) noexcept {}  // NOLINT(google-explicit-constructor)
  T* allocate(size_t n) { return static_cast<T*>(::operator new(n * sizeof(T), kAlign)); }
  void deallocate(T* q, size_t) noexcept { ::operator delete(q, kAlign); }
  template <class U>
  bool operator==(const CacheLineAllocator<U>&) const noexcept { return true; }
};
/// A std::vector whose data starts on a cache line.
template <class T>
using CacheLineVector = std::vector<T, CacheLineAllocator<T>>;

/// A scratch buffer of `bytes` bytes (16-byte aligned).
struct ResizeScratch {
  std::unique_ptr<std::byte[]> p;
  size_t bytes = 0;
};

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
  CacheLineVector<int32_t> idx;
  CacheLineVector<float> w;
  CacheLineVector<int32_t> tail_idx;
  CacheLineVector<float> tail_w;
};

/// The plan's tables of resize.passes and resize.fused_rows (the fused rows blend with the
/// passes' per-axis weights).
struct ResizeSeparableTables {
  /// Per resized axis, the taps in float32 and, for a pass along the innermost axis, padded
  /// to max_taps per output in tap-major order (idx32[k * out + o], w32[k * out + o];
  /// padding has weight 0 and a valid index). `gather_ok` is false when in >= 2^31.
  struct Axis {
    std::vector<float> w;  ///< the table's weights, rounded to float32
    int64_t taps = 0;
    bool gather_ok = false;
    std::vector<int32_t> idx32;
    std::vector<float> w32;
  };
  std::vector<Axis> axes;  ///< one per ResizeProblem::tables entry
  /// The passes' order over ResizeProblem::tables: a window's (its full problem's), else
  /// the cheapest (resize.passes); axis order (resize.fused_rows). A schedule field.
  std::vector<size_t> order;
  /// resize.fused_rows only: the innermost resized axis's table over (position, element)
  /// pairs.
  ResizeRowTable row;
  /// The intermediates of the last single-thread-group run of the passes, kept for the next
  /// run of the plan (freed with it); taken under pool_mutex by one run at a time.
  mutable std::mutex pool_mutex;
  mutable ResizeScratch pool[2];
};

// --- resize.gather: nearest (and problems whose every axis is the identity) ------------

/// Why the gather declines p (empty: it takes it): linear/cubic with a resized axis.
std::string resize_gather_declines(const ResizeProblem& p);
/// A gather of whole elements through per-axis offset tables, bit-exact, any dtype, any
/// views; extrapolated points get the exact value. Threaded with parallel_for. No tables
/// (`prepared` is unused).
void resize_gather(const ResizeProblem& p, const void* prepared, const ResizeViews& v);

// --- resize.passes: linear / cubic, one pass per resized axis ---------------------------

/// Why the passes decline p (empty: they take it): nearest (or every axis the identity:
/// the gather's), complex elements (the reference's).
std::string resize_passes_declines(const ResizeProblem& p);
/// Builds the passes' tables (ResizeSeparableTables without `row`; may throw
/// std::bad_alloc).
std::shared_ptr<const void> resize_passes_prepare(const ResizeProblem& p);
/// One pass per resized axis over contiguous intermediates in float (double for float64
/// and 32/64-bit integers), in the tables' order; extrapolated points are written last
/// with the exact value. Any views. Threaded with parallel_for. `prepared`: from
/// resize_passes_prepare.
void resize_passes(const ResizeProblem& p, const void* prepared, const ResizeViews& v);
/// "order=<axes in pass order>".
std::string resize_passes_schedule(const ResizeProblem& p, const void* prepared);

#ifdef GRIDOPS_HAVE_HWY
// --- resize.fused_rows: float32 / uint8, 2 or 3 consecutive axes then C >= 2 elements ----

/// Why the fused rows decline p at plan time (empty: they take it): dtype, mode, the
/// resized axes, the pass order, the channels and the share of gathered blocks.
std::string resize_fused_rows_declines(const ResizeProblem& p);
/// Why they cannot take these views (run time: non-dense src or dst); the run then hands
/// them to the next planned entry (resize.passes).
std::string resize_fused_rows_declines_views(const ResizeProblem& p, const void* prepared,
                                             const ResizeViews& v);
/// Builds the passes' tables and the row table (may throw std::bad_alloc).
std::shared_ptr<const void> resize_fused_rows_prepare(const ResizeProblem& p);
/// Each output row computed on its own from blended input rows (docs/ops/resize.md); the
/// same bits as the passes in axis order. Dense views only.
void resize_fused_rows(const ResizeProblem& p, const void* prepared, const ResizeViews& v);
/// "order=<axes>, row=by_position|blocks (blocks=, patterns=, gathers=)".
std::string resize_fused_rows_schedule(const ResizeProblem& p, const void* prepared);
#endif

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

}  // namespace gridops::kernels
