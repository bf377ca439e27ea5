// Internal to the fast Pad entries: the tables pad_rows_prepare, pad_lines_prepare and
// pad_lines_vec_prepare build (shared by pad_fast.cc, pad_pieces.cc and the line writers in
// pad_hwy.cc and pad_vec_hwy.cc). See NOTE [ Fast Pad ] in pad_fast.cc.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "gridops/dtype.h"
#include "gridops/ops/pad.h"
#include "gridops/tensor.h"

namespace gridops::kernels {

/// A piece of one pad side of the innermost axis (output cells [first, first + count) of
/// the side, in the order written), produced in one step by the line writer.
struct PadPiece {
  enum Kind : int32_t {
    kCopy,    // source cells src, src + 1, ...: one contiguous run of the source row
    kPerm,    // at most one line (PadTables::vec bytes), every source cell inside one
              // line-sized window of the row: one load of the window and one lane
              // permutation
    kGather,  // anything else: cells of 1, 2, 4 or 8 bytes inserted one by one into the
              // line register; other cells (or a misaligned output) copied one by one
              // through a small buffer
  };
  Kind kind = kCopy;
  int32_t perm = -1;   // kPerm: index in perm_idx of the first of the piece's lane tables
  int64_t first = 0;   // first cell of the side (index into PadTables::left / right)
  int64_t count = 0;   // cells
  int64_t src = 0;     // kCopy: first source cell; kPerm: first source cell of the window
  int64_t wlanes = 0;  // kPerm: lanes of the window that lie inside the source row
};

/// The tables built once per plan.
struct PadTables {
  PadMode mode = PadMode::kConstant;
  bool empty = false;
  int64_t es = 0;    // bytes per dtype element
  int64_t cell = 0;  // bytes per cell of the innermost axis
  // Innermost axis: n source cells, m output cells; the middle run [j0, j1) reads source
  // cells c0.. .
  int64_t n = 0, m = 0, j0 = 0, j1 = 0, c0 = 0;
  std::vector<int64_t> left, right;  // source cell of output cells [0, j0) and [j1, m)
  // The same two sides cut into pieces for the line writer (the line writers' tables only,
  // non-constant modes: cut_pad_pieces).
  std::vector<PadPiece> left_pieces, right_pieces;
  // Bytes of the line the pieces were cut for: 64 (pad.lines), or the vector of the
  // Highway target the plan was made on (pad.lines_vec: 16 or 32).
  int64_t vec = 64;
  // kPerm lane tables, the first `vec` bytes of each used, vec / perm_lane per piece (from
  // PadPiece::perm on):
  // table perm + s serves the piece when its first byte lands on lane s of the output line
  // (lanes of perm_lane bytes); its lane q names the window lane that output lane q takes
  // (the piece's table rotated by s lanes: the writer permutes once per piece, not twice).
  std::vector<std::array<uint8_t, 64>> perm_idx;
  int64_t perm_lane = 0;  // bytes per permuted lane (2, 4 or 8); 0: no kPerm pieces
  // Non-constant mode, each pad side at most one piece and every piece kPerm (small pads
  // of 2-, 4-, 8- or 16-byte cells): the line writer's straight row loop (pad_hwy.cc).
  bool perm_sides = false;
  // Outer axes.
  int nouter = 0;
  std::array<int64_t, kMaxRank> outer_m{};
  std::vector<std::vector<int64_t>> outer_off;  // src byte offset per output position, -1: border
  int64_t rows = 0;
  int64_t src_bytes = 0;  // bytes of the (contiguous) source: the bounds of every load
  // Streaming stores for the whole output (NOTE [ Pad stores by thread count ]), fixed
  // when the plan is made (the thread count and last-level cache then); the same bytes.
  bool stream = false;
};

/// Walks output rows r0, r0 + 1, ... over the outer axes, for the row loops of pad.rows
/// (pad_fast.cc) and pad.lines (pad_hwy.cc): where the current row reads its source row.
class PadOuterWalk {
 public:
  /// The current row's source row: its byte offset in src, and whether an outer position
  /// of the row lies in a constant-mode border (the row is then all pad value and `offset`
  /// means nothing).
  struct Source {
    int64_t offset = 0;
    bool border = false;
  };

  PadOuterWalk(const PadTables& t, int64_t r0) : t_(t) {
    for (int d = t.nouter - 1; d >= 0; --d) {
      const auto m = t.outer_m[static_cast<size_t>(d)];
      idx_[static_cast<size_t>(d)] = r0 % m;
      r0 /= m;
    }
  }

  Source source() const {
    Source s;
    for (int d = 0; d < t_.nouter; ++d) {
      const size_t a = static_cast<size_t>(d);
      const int64_t v = t_.outer_off[a][static_cast<size_t>(idx_[a])];
      if (v < 0) s.border = true;  // constant mode only
      s.offset += v;
    }
    return s;
  }

  /// On to the next row.
  void next() {
    for (int d = t_.nouter - 1; d >= 0; --d) {
      if (++idx_[static_cast<size_t>(d)] < t_.outer_m[static_cast<size_t>(d)]) return;
      idx_[static_cast<size_t>(d)] = 0;
    }
  }

 private:
  const PadTables& t_;
  std::array<int64_t, kMaxRank> idx_{};
};

/// The line writer (pad_hwy.cc; only in builds with Highway, GRIDOPS_HAVE_HWY): on a CPU
/// whose dispatched Highway target has AVX-512 BW, writes output rows [r0, r1) line by
/// line and returns true: every 64-byte line of dst that lies wholly inside these rows is
/// assembled in a vector register and written with one aligned store (a streaming store
/// when t.stream); the partial lines at both ends of the range with byte-masked stores, so
/// neighbouring ranges never write each other's bytes. `value` is the pad value (es bytes,
/// constant mode). With `portable`, Permute16Portable replaces the AVX-512 Permute16 (the
/// entry pad.lines_portable_permute; NOTE [ Pad Permute16 ]). Issues no fence. On other
/// targets writes nothing and returns false (pad.lines is then not chosen:
/// pad_lines_available()).
bool pad_rows_lines(const PadTables& t, const char* src, char* dst, const unsigned char* value,
                    bool portable, int64_t r0, int64_t r1);
/// Whether the dispatched Highway target has the line writer (AVX-512 BW). Asked when a
/// plan is made (pad.lines declines without it) and again when it runs (the target can
/// change in between, as the tests do: the run then hands over to pad.rows, logged).
bool pad_lines_available();

/// Cuts t.left and t.right into t.left_pieces / t.right_pieces for lines of `vec` bytes
/// (a power of two, 16 to 64) with window pieces permuted in lanes of `lane` bytes (2, 4
/// or 8; 0: no window pieces) and sets t.vec, t.perm_lane, t.perm_idx and t.perm_sides
/// (pad_pieces.cc).
void cut_pad_pieces(PadTables& t, int64_t vec, int64_t lane);

/// The portable line writer of pad.lines_vec (pad_vec_hwy.cc; Highway ops only, every
/// Highway target but the scalar and emulated ones): writes output rows [r0, r1) as
/// pad_rows_lines does, line by line in lines of the dispatched target's vector (16 or 32
/// bytes), and returns true. Loads stay inside [src, src + t.src_bytes) (a load that would
/// cross a bound is assembled byte by byte); the partial lines at both ends of the range
/// are stored byte by byte, so neighbouring ranges never write each other's bytes (even
/// where Highway's BlendedStore would load and store the whole vector). Window pieces
/// permute 32-bit lanes (TableLookupLanes). Issues no fence. Writes nothing and returns
/// false where the dispatched target's vector is not t.vec bytes.
bool pad_rows_lines_vec(const PadTables& t, const char* src, char* dst,
                        const unsigned char* value, int64_t r0, int64_t r1);
/// The line bytes of pad.lines_vec on the dispatched Highway target (16 or 32; 0: none,
/// the scalar and emulated targets).
int64_t pad_lines_vec_bytes();

/// Tests (a pure function, no state): out[i] = v[idx[i]] (32 lanes of 16 bits, idx in [0, 32)) with Permute16Portable
/// (portable) or Permute16 on the CPU's Highway target; false (nothing written) when that
/// target has no line writer.
bool pad_permute16(bool portable, const uint16_t* idx, const uint16_t* v,
                               uint16_t* out);

}  // namespace gridops::kernels
