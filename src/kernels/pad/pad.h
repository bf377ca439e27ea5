// Kernel contract for Pad. The operator layer (src/ops/pad.cc) validates everything and
// hands kernels a problem that already satisfies the preconditions below; kernels only
// assert them.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "core/coords.h"
#include "gridops/dtype.h"
#include "gridops/ops/pad.h"

namespace gridops::kernels {

/// The shape-level Pad problem, fixed when the plan is made. Implementations decide
/// whether they accept a problem from this alone, so every implementation must accept
/// any strides at run time.
///
/// Preconditions (checked by make_pad_plan):
/// - src_shape, pads_begin, pads_end and dst_shape all have the same length (the rank,
///   0 <= rank <= kMaxRank); every src_shape[d] >= 0.
/// - dst_shape[d] = pads_begin[d] + src_shape[d] + pads_end[d] >= 0, and the number of
///   dst elements fits in int64.
/// - For every output position j on axis d the source index c = j - pads_begin[d] fits in
///   int64 (no overflow in the formula).
/// - mode != kConstant: an axis with a positive pad has src_shape[d] >= 1; kReflect has
///   positive pads <= src_shape[d] - 1, kSymmetric <= src_shape[d]; for both the axis
///   length is small enough that the period (2(n-1) or 2n) fits in int64.
struct PadProblem {
  PadMode mode = PadMode::kConstant;
  DType dtype = DType::kFloat32;
  std::span<const int64_t> src_shape;
  std::span<const int64_t> pads_begin;
  std::span<const int64_t> pads_end;
  std::span<const int64_t> dst_shape;
};

/// The memory of one run. Strides are in elements and may be zero or negative.
///
/// Preconditions (checked by PadPlan::run):
/// - src and dst are valid views (validate_view) of the problem's dtype with src_shape
///   and dst_shape respectively; src_strides and dst_strides have one entry per axis.
/// - dst does not overlap src or *pad_value. For kString, every dst element is a
///   constructed std::string (it is assigned to, not constructed).
/// - pad_value is nullptr (zero bytes; "" for strings) or points to one element of the
///   problem's dtype; it is non-null only for kConstant.
struct PadArgs {
  const void* src = nullptr;
  std::span<const int64_t> src_strides;
  void* dst = nullptr;
  std::span<const int64_t> dst_strides;
  const void* pad_value = nullptr;
};

/// Marks an output position that lies in the constant border (pad_source_index).
inline constexpr int64_t kPadBorder = -1;

/// The source index on one axis of length n for output position j, or kPadBorder when the
/// position takes pad_value (constant mode only). ERRATA Pad 1, 4, 5: c = j - pads_begin,
/// taken relative to the original (uncropped) data, mapped into [0, n) by the mode. The
/// one definition of Pad's index map: the reference forward and the backward's tables
/// (pad_backward.h) use it.
inline int64_t pad_source_index(PadMode mode, int64_t j, int64_t pad_begin, int64_t n) {
  const int64_t c = j - pad_begin;  // fits in int64 (precondition)
  if (c >= 0 && c < n) return c;
  switch (mode) {
    case PadMode::kConstant:
      return kPadBorder;
    case PadMode::kEdge:
      return coords::clamp_index(c, n);
    case PadMode::kReflect:
      return coords::reflect_index(c, n);
    case PadMode::kSymmetric:
      return coords::symmetric_index(c, n);
    case PadMode::kWrap:
      return coords::wrap_index(c, n);
  }
  return kPadBorder;  // unknown PadMode (rejected by make_pad_plan)
}

/// The reference kernel: for each output position, the per-axis source index
/// c = j - pads_begin[d] mapped through the mode (see docs/ops/pad.md), then one element
/// copied bit-exactly (strings by assignment). Single-threaded, any rank, any dtype.
void pad_ref(const PadProblem& problem, const PadArgs& args);

/// The fast entries (pad_fast.cc, pad_hwy.cc; NOTE [ Fast Pad ]): dimensions merged, per-axis
/// source maps built once by their prepare, threaded over output rows with parallel_for,
/// bit-exact with pad_ref. Both decline strings and problems whose index tables would be
/// unreasonably large at plan time, and non-contiguous views at run time (the operator
/// layer then runs the next planned entry, in the end pad_ref, and logs it). Their tables
/// also fix the store kind (streaming or not: NOTE [ Pad stores by thread count ]), shown
/// by their schedule. See docs/ops/pad.md, "Fast path".
///
/// pad.rows, the portable row kernel (any CPU): each innermost row written as left pad +
/// middle run + right pad.
std::string pad_rows_declines(const PadProblem& problem);
/// Builds pad.rows' tables for an accepted problem (stored in the plan).
std::shared_ptr<const void> pad_rows_prepare(const PadProblem& problem);
/// Why pad.rows (and pad.lines) cannot take these views (empty: they take them).
std::string pad_rows_declines_views(const PadProblem& problem, const void* tables,
                                    const PadArgs& args);
/// Runs pad.rows on views it takes; `tables` from pad_rows_prepare (problem).
void pad_rows(const PadProblem& problem, const void* tables, const PadArgs& args);
/// The schedule the tables of pad.rows or pad.lines fix, for the dispatch log.
std::string pad_rows_schedule(const PadProblem& problem, const void* tables);

#ifdef GRIDOPS_HAVE_HWY
/// pad.lines, the AVX-512 BW line writer (rows assembled 64-byte line by line in registers):
/// declines at plan time what pad.rows declines, a dispatched Highway target without
/// AVX-512 BW, empty outputs, rows shorter than 128 bytes and rows with more than one
/// single-cell insertion per 64 output bytes (where the portable kernel is faster).
std::string pad_lines_declines(const PadProblem& problem);
/// pad.rows' tables plus the line writer's pad pieces.
std::shared_ptr<const void> pad_lines_prepare(const PadProblem& problem);
/// Run time: pad_rows_declines_views, and a dispatched target that lost AVX-512 BW since
/// the plan was made (tests switch targets; pad.rows then writes the same bytes).
std::string pad_lines_declines_views(const PadProblem& problem, const void* tables,
                                     const PadArgs& args);
/// Runs pad.lines on views and a target it takes; `tables` from pad_lines_prepare.
void pad_lines(const PadProblem& problem, const void* tables, const PadArgs& args);
/// The test-only entry pad.lines_portable_permute: pad.lines with Permute16Portable in
/// place of the AVX-512 Permute16 (NOTE [ Pad Permute16 ] in pad_hwy.cc), the same bytes.
void pad_lines_portable_permute(const PadProblem& problem, const void* tables,
                                const PadArgs& args);

/// pad.lines_vec, the portable line writer (pad_vec_hwy.cc; Highway ops only): pad.lines'
/// design on lines of the dispatched target's vector (32 bytes on AVX2 and AVX-512, 16 on
/// SSE4 and NEON, up to 32 on SVE), for CPUs without AVX-512 BW. Declines at plan time
/// what pad.lines declines for its row shape and insertions (the same rules, pieces cut for
/// the shorter lines) and the scalar and emulated targets.
std::string pad_lines_vec_declines(const PadProblem& problem);
/// pad.rows' tables plus the pad pieces cut for the dispatched target's line bytes.
std::shared_ptr<const void> pad_lines_vec_prepare(const PadProblem& problem);
/// Run time: pad_rows_declines_views, and a dispatched target whose vector is no longer
/// the plan's line (tests switch targets; pad.rows then writes the same bytes).
std::string pad_lines_vec_declines_views(const PadProblem& problem, const void* tables,
                                         const PadArgs& args);
/// Runs pad.lines_vec on views and a target it takes; `tables` from pad_lines_vec_prepare.
void pad_lines_vec(const PadProblem& problem, const void* tables, const PadArgs& args);
/// pad.rows' schedule plus the line bytes and the lane permutation of the window pieces
/// (`stores=streaming, line=32B, permute=lanes32`; `permute=none` where every pad cell is
/// inserted or copied).
std::string pad_lines_vec_schedule(const PadProblem& problem, const void* tables);
#endif

}  // namespace gridops::kernels
