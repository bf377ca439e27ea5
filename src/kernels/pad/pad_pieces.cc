// The line writers' pad pieces (PadPiece, pad_lines.h): each pad side of the innermost axis
// cut, when the plan is made, into source runs, window pieces with their lane tables and
// single cells. Shared by pad.lines (64-byte lines, pad_hwy.cc) and pad.lines_vec (lines of
// the target's vector, at most 32 bytes, pad_vec_hwy.cc). See NOTE [ Fast Pad ] in
// pad_fast.cc.
#include <algorithm>
#include <array>
#include <cstring>
#include <map>
#include <vector>

#include "kernels/pad/pad_lines.h"

namespace gridops::kernels {
namespace {

/// Lane tables already in t.perm_idx, by their unrotated form: the index of the first of
/// their rotations. Pieces with the same table share its rotations.
using PermTables = std::map<std::array<uint8_t, 64>, int32_t>;

/// Cuts one pad side of the innermost axis (output cells mapped to source cells `map`)
/// into the line writer's pieces (see PadPiece).
void build_pieces(PadTables& t, const std::vector<int64_t>& map, std::vector<PadPiece>* out,
                  PermTables* seen) {
  const int64_t cell = t.cell;
  const int64_t lane = t.perm_lane;
  const int64_t k = static_cast<int64_t>(map.size());
  const int64_t vec = t.vec;
  const int64_t per_vec = vec / cell;  // cells per line (kPerm)
  for (int64_t i = 0; i < k;) {
    int64_t run = 1;
    while (i + run < k && map[static_cast<size_t>(i + run)] == map[static_cast<size_t>(i + run - 1)] + 1) ++run;
    PadPiece pc;
    pc.first = i;
    if (lane == 0 ? (run >= 2 || cell >= 32) : run * cell >= vec) {
      pc.kind = PadPiece::kCopy;
      pc.count = run;
      pc.src = map[static_cast<size_t>(i)];
    } else if (lane != 0) {
      int64_t lo = map[static_cast<size_t>(i)], hi = lo, c = 1;
      while (i + c < k && c < per_vec) {
        const int64_t s = map[static_cast<size_t>(i + c)];
        const int64_t nlo = std::min(lo, s), nhi = std::max(hi, s);
        if (nhi - nlo + 1 > per_vec) break;
        lo = nlo;
        hi = nhi;
        ++c;
      }
      if (c <= 2 && cell <= 8) {  // one or two cells: inserted one by one (cheaper)
        pc.kind = PadPiece::kGather;
        pc.count = c;
        i += pc.count;
        out->push_back(pc);
        continue;
      }
      const int64_t lpc = cell / lane;   // lanes per cell
      const int64_t lanes = vec / lane;  // lanes per line
      pc.kind = PadPiece::kPerm;
      pc.count = c;
      pc.src = lo;
      pc.wlanes = std::min(lanes, (t.n - lo) * lpc);
      std::array<uint8_t, 64> table{};
      for (int64_t q = 0; q < c * lpc; ++q) {
        const uint64_t v = static_cast<uint64_t>((map[static_cast<size_t>(i + q / lpc)] - lo) * lpc + q % lpc);
        std::memcpy(table.data() + q * lane, &v, static_cast<size_t>(lane));  // little endian
      }
      // One table per line position of the piece's first byte (s lanes in): lane q takes
      // what lane (q - s) mod lanes of the unrotated table names. Shared by every piece
      // with the same table (a long edge pad is thousands of identical pieces).
      const auto [it, added] = seen->try_emplace(table, static_cast<int32_t>(t.perm_idx.size()));
      pc.perm = it->second;
      for (int64_t s = 0; added && s < lanes; ++s) {
        std::array<uint8_t, 64> rotated{};
        for (int64_t q = 0; q < lanes; ++q) {
          std::memcpy(rotated.data() + q * lane, table.data() + ((q - s) & (lanes - 1)) * lane,
                      static_cast<size_t>(lane));
        }
        t.perm_idx.push_back(rotated);
      }
    } else {
      int64_t c = 1;
      while (i + c < k && (c + 1) * cell <= 1024 &&
             !(i + c + 1 < k && map[static_cast<size_t>(i + c + 1)] == map[static_cast<size_t>(i + c)] + 1)) {
        ++c;
      }
      pc.kind = PadPiece::kGather;
      pc.count = c;
    }
    i += pc.count;
    out->push_back(pc);
  }
}

}  // namespace

void cut_pad_pieces(PadTables& t, int64_t vec, int64_t lane) {
  t.vec = vec;
  t.perm_lane = lane;
  t.left_pieces.clear();
  t.right_pieces.clear();
  t.perm_idx.clear();
  PermTables seen;
  build_pieces(t, t.left, &t.left_pieces, &seen);
  build_pieces(t, t.right, &t.right_pieces, &seen);
  t.perm_sides = t.perm_lane != 0;
  for (const auto* side : {&t.left_pieces, &t.right_pieces}) {
    t.perm_sides = t.perm_sides && side->size() <= 1 &&
                   (side->empty() || side->front().kind == PadPiece::kPerm);
  }
}

}  // namespace gridops::kernels
