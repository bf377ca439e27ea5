// The fast Pad kernel: every mode, every fixed-size dtype, any rank, bit-exact with pad_ref.
//
// NOTE [ Fast Pad ]
// The plan merges dimensions first:
// - trailing axes without padding fold into the element: one "cell" of E bytes is
//   es * (product of those axes), so the innermost padded axis moves whole cells;
// - runs of adjacent unpadded axes before it merge into one axis (they index src and dst
//   alike).
// What is left is a list of outer axes and one innermost padded axis. An output row is one
// position of the outer axes; it reads one source row (each outer axis maps its output
// position through the mode to a source position, precomputed as a byte offset; constant
// mode marks border positions with -1 and such rows are filled whole). Within a row the
// output cells [j0, j1) are a contiguous run of source cells (one memcpy); the cells before
// and after it are pad cells, filled from the precomputed source cell of each (edge,
// reflect, symmetric, wrap) or with the pad value (constant). Each output row is written by
// exactly one thread (parallel_for over rows), so results never depend on the split.
//
// Three row kernels, three entries of the implementation list (src/ops/pad.cc), write the
// same bytes:
// - pad.lines, the line writer (pad_hwy.cc, AVX-512 BW targets, rows of >= kLinesMinRowBytes
//   with few single-cell insertions; declined at plan time otherwise): the rows
//   of a chunk are one contiguous byte stream, assembled 64-byte line by line in a vector
//   register and written with one aligned store per line (streaming for large outputs);
//   the pad cells of each side are cut in the plan into pieces (PadPiece): contiguous
//   source runs, small pieces made by one window load + lane permutation, and single
//   cells inserted into the register. A chunk's first and last partial lines are written
//   with byte-masked stores, so chunks never write each other's bytes.
// - pad.lines_vec, the same line writer in Highway ops only (pad_vec_hwy.cc, every target
//   but the scalar and emulated ones; chosen where pad.lines declines for want of AVX-512
//   BW): lines of the target's vector (16 or 32 bytes), full-vector loads kept inside the
//   source buffer, 32-bit lane permutations, partial lines stored byte by byte; the pieces
//   are cut for its line (cut_pad_pieces, pad_pieces.cc).
// - pad.rows, the portable kernel (rows_kernel below): left pad, one memcpy, right pad per
//   row; for large outputs short rows go through an L1 staging buffer and out with streaming
//   stores.
#include <algorithm>
#include <array>
#include <cassert>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/cache_size.h"
#include "core/coords.h"
#include "core/nt_copy.h"
#include "gridops/parallel.h"
#include "gridops/tensor.h"
#include "kernels/pad/pad.h"
#include "kernels/pad/pad_lines.h"

namespace gridops::kernels {
namespace {

/// Largest number of table entries (outer maps + innermost pad maps) the fast path builds;
/// beyond it (only reachable with absurd pads) the reference takes the problem.
constexpr int64_t kMaxTableEntries = int64_t{1} << 22;

/// One merged axis: source length, pads and output length (in cells of the axis).
struct Axis {
  int64_t n, b, e, m;
};

/// The merged problem: outer axes (outermost first), then the innermost padded axis whose
/// elements are cells of `cell` bytes.
struct Merged {
  std::vector<Axis> axes;
  int64_t cell = 0;
  bool empty = false;
};

Merged merge(const PadProblem& p) {
  Merged g;
  const size_t rank = p.dst_shape.size();
  for (size_t d = 0; d < rank; ++d) {
    if (p.dst_shape[d] == 0) g.empty = true;
  }
  const int64_t es = static_cast<int64_t>(dtype_size(p.dtype));
  g.cell = es;
  if (g.empty) return g;
  // Fold trailing unpadded axes into the cell.
  size_t last = rank;
  while (last > 0 && p.pads_begin[last - 1] == 0 && p.pads_end[last - 1] == 0) {
    g.cell *= p.src_shape[last - 1];
    --last;
  }
  if (last == 0) {
    // Nothing padded (or rank 0): a plain copy, as one axis of single-element cells.
    g.axes.push_back({g.cell / es, 0, 0, g.cell / es});
    g.cell = es;
    return g;
  }
  for (size_t d = 0; d < last; ++d) {
    const Axis a{p.src_shape[d], p.pads_begin[d], p.pads_end[d], p.dst_shape[d]};
    const bool plain = a.b == 0 && a.e == 0;
    if (plain && !g.axes.empty() && g.axes.back().b == 0 && g.axes.back().e == 0) {
      g.axes.back().n *= a.n;  // both unpadded: one axis
      g.axes.back().m *= a.m;
    } else {
      g.axes.push_back(a);
    }
  }
  return g;
}

/// The source position of output position j on an axis (ERRATA Pad 1, 4, 5), -1 for a
/// constant border. The same mapping as the reference, through the same coords.h helpers.
int64_t source_of(PadMode mode, int64_t j, const Axis& a) {
  const int64_t c = j - a.b;
  if (c >= 0 && c < a.n) return c;
  switch (mode) {
    case PadMode::kConstant:
      return -1;
    case PadMode::kEdge:
      return coords::clamp_index(c, a.n);
    case PadMode::kReflect:
      return coords::reflect_index(c, a.n);
    case PadMode::kSymmetric:
      return coords::symmetric_index(c, a.n);
    case PadMode::kWrap:
      return coords::wrap_index(c, a.n);
  }
  return -1;
}

/// Middle run of the innermost axis: output cells [j0, j1) with 0 <= c < n.
void middle_run(const Axis& a, int64_t* j0, int64_t* j1) {
  // c = j - b in [0, n)  <=>  j in [b, b + n), intersected with [0, m).
  const int64_t lo = std::clamp<int64_t>(a.b, 0, a.m);
  const int64_t hi = std::clamp<int64_t>(a.b + a.n, lo, a.m);  // b + n = m - e: no overflow
  *j0 = lo;
  *j1 = hi;
}

int64_t table_entries(const Merged& g) {
  if (g.empty) return 0;
  int64_t total = 0;  // stops growing past the limit, so it cannot overflow
  for (size_t d = 0; d + 1 < g.axes.size() && total <= kMaxTableEntries; ++d) {
    total += std::min(g.axes[d].m, kMaxTableEntries + 1);
  }
  int64_t j0, j1;
  middle_run(g.axes.back(), &j0, &j1);
  return total + std::min(j0 + (g.axes.back().m - j1), kMaxTableEntries + 1);
}

// --- filling and copying cells -------------------------------------------------------

/// A cell of 16 bytes (complex128, or folded cells) copied as one unit.
struct alignas(1) Bytes16 {
  unsigned char b[16];
};

/// Fills `nbytes` (a multiple of es) at `out` with the es-byte `value` repeated.
void fill(char* out, int64_t nbytes, const unsigned char* value, int64_t es, bool zero) {
  if (nbytes <= 0) return;
  if (zero && nbytes > 256) {  // short runs: the inline loop below beats a call
    std::memset(out, 0, static_cast<size_t>(nbytes));
    return;
  }
  auto typed = [&](auto tag) {
    using T = decltype(tag);
    T v;
    std::memcpy(&v, value, sizeof(T));
    const int64_t k = nbytes / static_cast<int64_t>(sizeof(T));
    for (int64_t i = 0; i < k; ++i) std::memcpy(out + i * static_cast<int64_t>(sizeof(T)), &v, sizeof(T));
  };
  switch (es) {
    case 1:
      std::memset(out, value[0], static_cast<size_t>(nbytes));
      return;
    case 2:
      return typed(uint16_t{});
    case 4:
      return typed(uint32_t{});
    case 8:
      return typed(uint64_t{});
    default:
      return typed(Bytes16{});
  }
}

/// Copies the cells `map[0..k)` of the source row `in` to consecutive cells at `out`.
/// Cell is the C++ type of one cell when its size is 1, 2, 4, 8 or 16, else void (memcpy
/// of `cell` bytes).
template <class Cell>
void gather_cells(char* out, const char* in, const int64_t* map, int64_t k, int64_t cell) {
  if constexpr (std::is_void_v<Cell>) {
    for (int64_t i = 0; i < k; ++i) {
      std::memcpy(out + i * cell, in + map[i] * cell, static_cast<size_t>(cell));
    }
  } else {
    (void)cell;
    constexpr int64_t c = static_cast<int64_t>(sizeof(Cell));
    for (int64_t i = 0; i < k; ++i) {
      std::memcpy(out + i * c, in + map[i] * c, sizeof(Cell));
    }
  }
}

/// Bytes of the per-thread staging buffer (L1-sized) for short rows; see rows_kernel.
constexpr int64_t kStageBytes = int64_t{16} << 10;

/// Output rows [r0, r1).
///
/// With `stream` (a large output), short rows are first written to a small staging buffer
/// that stays in L1, and every full buffer goes out with streaming stores as one
/// contiguous run, so that nearly every output cache line is streamed whole (rows rarely
/// start on a cache line; a line written partly by ordinary stores costs a read for
/// ownership, one written partly by streaming stores a slow partial flush). Rows longer
/// than half the buffer stream their middle run directly.
template <class Cell, bool kConstant>
void rows_kernel(const PadTables& t, const char* src, char* dst, const unsigned char* value,
                 bool zero, bool stream, int64_t r0, int64_t r1) {
  PadOuterWalk walk(t, r0);
  const int64_t cell = t.cell;
  const int64_t row_bytes = t.m * cell;
  const int64_t left_bytes = t.j0 * cell;
  const int64_t mid_bytes = (t.j1 - t.j0) * cell;
  const int64_t right_bytes = (t.m - t.j1) * cell;
  const bool staged = stream && row_bytes <= kStageBytes / 2;
  const bool direct_stream = stream && !staged;
  alignas(64) char stage[kStageBytes];
  const int64_t stage_rows = staged ? kStageBytes / row_bytes : 1;
  int64_t stage_first = r0;  // first row held in the staging buffer
  for (int64_t row = r0; row < r1; ++row) {
    char* out = staged ? stage + (row - stage_first) * row_bytes : dst + row * row_bytes;
    const PadOuterWalk::Source from = walk.source();
    if (kConstant && from.border) {
      if (direct_stream && zero) {
        zero_stream(out, row_bytes);
      } else {
        fill(out, row_bytes, value, t.es, zero);
      }
    } else {
      const char* in = src + from.offset;
      if constexpr (kConstant) {
        fill(out, left_bytes, value, t.es, zero);
      } else {
        gather_cells<Cell>(out, in, t.left.data(), t.j0, cell);
      }
      if (direct_stream) {
        copy_stream(out + left_bytes, in + t.c0 * cell, mid_bytes);
      } else if (mid_bytes > 0) {
        std::memcpy(out + left_bytes, in + t.c0 * cell, static_cast<size_t>(mid_bytes));
      }
      if constexpr (kConstant) {
        fill(out + left_bytes + mid_bytes, right_bytes, value, t.es, zero);
      } else {
        gather_cells<Cell>(out + left_bytes + mid_bytes, in, t.right.data(), t.m - t.j1, cell);
      }
    }
    walk.next();
    if (staged && (row + 1 - stage_first == stage_rows || row + 1 == r1)) {
      copy_stream(dst + stage_first * row_bytes, stage, (row + 1 - stage_first) * row_bytes);
      stage_first = row + 1;
    }
  }
}

/// Rows shorter than this go to the portable row kernel (pad.lines declines them).
constexpr int64_t kLinesMinRowBytes = 128;

// NOTE [ Pad stores by thread count ]
// Decision (same bytes either way): at one thread outputs of scale_to_llc(kStreamMinBytes)
// bytes and more are written with streaming stores; at two or more threads outputs of
// kStreamMinBytesThreaded (32 MiB) and more. The plan fixes the choice in its tables
// (PadTables::stream, printed as stores=streaming|cached by the entry's schedule).
// Measurements: docs/perf/pad.md.
/// The row kernel of an entry.
enum class Writer {
  kRows,           // pad.rows: rows_kernel
  kLines,          // pad.lines: pad_rows_lines
  kLinesPortable,  // pad.lines_portable_permute: pad_rows_lines with Permute16Portable
  kLinesVec,       // pad.lines_vec: pad_rows_lines_vec
};

/// Writes every output row with the entry's row kernel.
template <class Cell>
void run_rows(const PadTables& t, const char* src, char* dst, const unsigned char* value, bool zero,
              Writer writer) {
  const int64_t row_bytes = std::max<int64_t>(t.m * t.cell, 1);
  // Chunks of at least ~64 KiB so that thread start-up stays negligible.
  const int64_t grain = std::max<int64_t>(1, (int64_t{1} << 16) / row_bytes);
  const bool stream = t.stream;
  parallel_for(t.rows, grain, [&](int64_t r0, int64_t r1) {
#ifdef GRIDOPS_HAVE_HWY
    if (writer != Writer::kRows) {
      // The plan and the run checked the target (pad_lines*_declines, _declines_views).
      [[maybe_unused]] const bool written =
          writer == Writer::kLinesVec
              ? pad_rows_lines_vec(t, src, dst, value, r0, r1)
              : pad_rows_lines(t, src, dst, value, writer == Writer::kLinesPortable, r0, r1);
      assert(written);
    } else
#endif
    if (t.mode == PadMode::kConstant) {
      rows_kernel<Cell, true>(t, src, dst, value, zero, stream, r0, r1);
    } else {
      rows_kernel<Cell, false>(t, src, dst, value, zero, stream, r0, r1);
    }
    if (stream) stream_fence();
  });
}

/// Whether the plan's output of `out_bytes` is written with streaming stores: large
/// outputs bypass the cache (see nt_copy.h), except where several threads write an output
/// the last-level cache can hold (NOTE [ Pad stores by thread count ]).
bool stream_output(int64_t out_bytes) {
  return get_num_threads() < 2 ? out_bytes >= scale_to_llc(kStreamMinBytes)
                               : out_bytes >= kStreamMinBytesThreaded;
}

/// The tables of the entries (a line writer's with its pieces cut for lines of `vec`
/// bytes, pad.rows' with vec = 0; without `outer` only the innermost axis's, enough to
/// decide); an empty output gets none. Throws std::bad_alloc.
std::shared_ptr<PadTables> build_tables(const PadProblem& p, int64_t vec, bool outer = true) {
  auto t = std::make_shared<PadTables>();
  t->mode = p.mode;
  t->es = static_cast<int64_t>(dtype_size(p.dtype));
  const Merged g = merge(p);
  t->cell = g.cell;
  if (g.empty) {
    t->empty = true;
    return t;
  }
  const Axis& in = g.axes.back();
  t->m = in.m;
  middle_run(in, &t->j0, &t->j1);
  t->c0 = t->j0 - in.b;
  t->n = in.n;
  t->left.resize(static_cast<size_t>(t->j0));
  for (int64_t j = 0; j < t->j0; ++j) t->left[static_cast<size_t>(j)] = source_of(p.mode, j, in);
  t->right.resize(static_cast<size_t>(in.m - t->j1));
  for (int64_t j = t->j1; j < in.m; ++j) {
    t->right[static_cast<size_t>(j - t->j1)] = source_of(p.mode, j, in);
  }
  if (vec != 0) t->vec = vec;  // every mode: the run checks the target's line against it
  if (vec != 0 && p.mode != PadMode::kConstant) {
    // Window pieces permute lanes of min(cell, 8) bytes on 64-byte lines (AVX-512's
    // vpermw/d/q), of 4 bytes on narrower ones (32-bit TableLookupLanes, the one lane
    // permutation across a whole vector on every target; 2-byte cells are inserted one by
    // one there).
    int64_t lane = 0;
    if (vec == 64 && (t->cell == 2 || t->cell == 4 || t->cell == 8 || t->cell == 16)) {
      lane = std::min<int64_t>(t->cell, 8);
    } else if (vec < 64 && (t->cell == 4 || t->cell == 8 || t->cell == 16)) {
      lane = 4;
    }
    cut_pad_pieces(*t, vec, lane);
  }
  if (!outer) return t;
  t->nouter = static_cast<int>(g.axes.size()) - 1;
  t->outer_off.resize(static_cast<size_t>(t->nouter));
  // Source byte strides of the merged (contiguous) src, innermost outer axis last.
  int64_t stride = in.n * g.cell;
  t->rows = 1;
  for (int d = t->nouter - 1; d >= 0; --d) {
    const Axis& a = g.axes[static_cast<size_t>(d)];
    auto& off = t->outer_off[static_cast<size_t>(d)];
    off.resize(static_cast<size_t>(a.m));
    for (int64_t j = 0; j < a.m; ++j) {
      const int64_t s = source_of(p.mode, j, a);
      off[static_cast<size_t>(j)] = s < 0 ? -1 : s * stride;
    }
    t->outer_m[static_cast<size_t>(d)] = a.m;
    t->rows *= a.m;
    stride *= a.n;
  }
  t->src_bytes = stride;
  t->stream = stream_output(t->rows * t->m * t->cell);
  return t;
}

#ifdef GRIDOPS_HAVE_HWY
/// Why the line writer declines rows with these tables (empty: it takes them).
std::string lines_declines(const PadTables& t) {
  if (t.empty) return "the output is empty";
  // The line writer pays per appended piece and per inserted cell (each goes through the
  // line register); the portable kernel is faster for short rows and for rows with many
  // single-cell insertions (1-byte cells of the non-constant modes).
  const int64_t row_bytes = t.m * t.cell;
  if (row_bytes < kLinesMinRowBytes) {
    return "rows of " + std::to_string(row_bytes) + " bytes, shorter than " +
           std::to_string(kLinesMinRowBytes);
  }
  int64_t inserted = 0;
  for (const auto* side : {&t.left_pieces, &t.right_pieces}) {
    for (const PadPiece& pc : *side) {
      if (pc.kind == PadPiece::kGather) inserted += pc.count;
    }
  }
  if (inserted > row_bytes / 64) {
    return std::to_string(inserted) + " single-cell insertions per row of " +
           std::to_string(row_bytes) + " bytes (more than one per 64 bytes)";
  }
  return {};
}
#endif

/// Runs the rows of a problem whose views the entry takes.
void run_entry(const void* tables, const PadArgs& a, Writer writer) {
  assert(tables != nullptr);
  const PadTables& t = *static_cast<const PadTables*>(tables);
  if (t.empty) return;
  static constexpr std::array<unsigned char, 16> kZeroBytes{};
  const auto* value =
      static_cast<const unsigned char*>(a.pad_value != nullptr ? a.pad_value : kZeroBytes.data());
  bool zero = true;
  for (int64_t i = 0; i < t.es; ++i) zero = zero && value[i] == 0;
  const char* src = static_cast<const char*>(a.src);
  char* dst = static_cast<char*>(a.dst);
  switch (t.cell) {
    case 1:
      return run_rows<uint8_t>(t, src, dst, value, zero, writer);
    case 2:
      return run_rows<uint16_t>(t, src, dst, value, zero, writer);
    case 4:
      return run_rows<uint32_t>(t, src, dst, value, zero, writer);
    case 8:
      return run_rows<uint64_t>(t, src, dst, value, zero, writer);
    case 16:
      return run_rows<Bytes16>(t, src, dst, value, zero, writer);
    default:
      return run_rows<void>(t, src, dst, value, zero, writer);
  }
}

}  // namespace

std::string pad_rows_declines(const PadProblem& p) {
  if (p.dtype == DType::kString) return "strings are copied by assignment (reference only)";
  const size_t es = dtype_size(p.dtype);
  if (es != 1 && es != 2 && es != 4 && es != 8 && es != 16) {
    return "element size " + std::to_string(es) + " is not 1, 2, 4, 8 or 16 bytes";
  }
  // Byte sizes must fit in int64 for the merged arithmetic (plans can be made for shapes
  // no buffer could hold; their views would be rejected at run time anyway).
  for (std::span<const int64_t> shape : {p.src_shape, p.dst_shape}) {
    int64_t bytes = static_cast<int64_t>(es);
    for (int64_t d : shape) {
      if (__builtin_mul_overflow(bytes, d, &bytes)) return "the tensors exceed 2^63 bytes";
    }
  }
  const Merged g = merge(p);
  if (table_entries(g) > kMaxTableEntries) {
    return "the index tables would have more than " + std::to_string(kMaxTableEntries) +
           " entries";
  }
  return {};
}

std::shared_ptr<const void> pad_rows_prepare(const PadProblem& p) {
  return build_tables(p, /*vec=*/0);
}

std::string pad_rows_declines_views(const PadProblem& p, const void*, const PadArgs& a) {
  const size_t rank = p.dst_shape.size();
  int64_t want_src = 1, want_dst = 1;
  for (size_t d = rank; d-- > 0;) {
    if (p.src_shape[d] != 1 && a.src_strides[d] != want_src) return "src is not contiguous";
    if (p.dst_shape[d] != 1 && a.dst_strides[d] != want_dst) return "dst is not contiguous";
    want_src *= p.src_shape[d];
    want_dst *= p.dst_shape[d];
  }
  return {};
}

void pad_rows([[maybe_unused]] const PadProblem& p, const void* tables, const PadArgs& a) {
  assert(pad_rows_declines_views(p, tables, a).empty());
  run_entry(tables, a, Writer::kRows);
}

std::string pad_rows_schedule(const PadProblem&, const void* tables) {
  const PadTables& t = *static_cast<const PadTables*>(tables);
  if (t.empty) return "output=empty";
  return std::string("stores=") + (t.stream ? "streaming" : "cached");
}

#ifdef GRIDOPS_HAVE_HWY
std::string pad_lines_declines(const PadProblem& p) {
  std::string why = pad_rows_declines(p);
  if (!why.empty()) return why;
  if (!pad_lines_available()) return "the dispatched Highway target has no AVX-512 BW";
  return lines_declines(*build_tables(p, /*vec=*/64, /*outer=*/false));
}

std::string pad_lines_declines_views(const PadProblem& p, const void* tables, const PadArgs& a) {
  std::string why = pad_rows_declines_views(p, tables, a);
  if (!why.empty()) return why;
  if (!pad_lines_available()) return "the dispatched Highway target has no AVX-512 BW";
  return {};
}

std::shared_ptr<const void> pad_lines_prepare(const PadProblem& p) {
  std::shared_ptr<PadTables> t = build_tables(p, /*vec=*/64);
  assert(lines_declines(*t).empty());
  return t;
}

void pad_lines([[maybe_unused]] const PadProblem& p, const void* tables, const PadArgs& a) {
  assert(pad_lines_declines_views(p, tables, a).empty());
  run_entry(tables, a, Writer::kLines);
}

void pad_lines_portable_permute([[maybe_unused]] const PadProblem& p, const void* tables, const PadArgs& a) {
  assert(pad_lines_declines_views(p, tables, a).empty());
  run_entry(tables, a, Writer::kLinesPortable);
}

std::string pad_lines_vec_declines(const PadProblem& p) {
  std::string why = pad_rows_declines(p);
  if (!why.empty()) return why;
  const int64_t vec = pad_lines_vec_bytes();
  if (vec == 0) return "the dispatched Highway target has no line vector (scalar, emulated or SVE)";
  return lines_declines(*build_tables(p, vec, /*outer=*/false));
}

std::shared_ptr<const void> pad_lines_vec_prepare(const PadProblem& p) {
  std::shared_ptr<PadTables> t = build_tables(p, pad_lines_vec_bytes());
  assert(lines_declines(*t).empty());
  return t;
}

std::string pad_lines_vec_declines_views(const PadProblem& p, const void* tables,
                                         const PadArgs& a) {
  std::string why = pad_rows_declines_views(p, tables, a);
  if (!why.empty()) return why;
  const int64_t vec = pad_lines_vec_bytes();
  const int64_t planned = static_cast<const PadTables*>(tables)->vec;
  if (vec != planned) {
    return "the dispatched Highway target's vector is " + std::to_string(vec) +
           " bytes, the plan's lines " + std::to_string(planned);
  }
  return {};
}

void pad_lines_vec([[maybe_unused]] const PadProblem& p, const void* tables, const PadArgs& a) {
  assert(pad_lines_vec_declines_views(p, tables, a).empty());
  run_entry(tables, a, Writer::kLinesVec);
}

std::string pad_lines_vec_schedule(const PadProblem& p, const void* tables) {
  const PadTables& t = *static_cast<const PadTables*>(tables);
  std::string s = pad_rows_schedule(p, tables);
  if (t.empty) return s;
  s += ", line=" + std::to_string(t.vec) + "B";
  if (t.mode != PadMode::kConstant) {
    s += t.perm_lane != 0 ? ", permute=lanes" + std::to_string(8 * t.perm_lane) : ", permute=none";
  }
  return s;
}
#endif

}  // namespace gridops::kernels
