// The portable line writer of the fast Pad kernel, the kernel of the entry pad.lines_vec:
// pad.lines' design (pad_hwy.cc) in Highway ops only, on lines of the target's vector
// (CappedTag<uint8_t, 32>: 32 bytes on AVX2 and AVX-512, 16 on SSE4 and NEON, up to 32 on
// SVE), for the CPUs without AVX-512 BW, where pad.lines declines. See NOTE [ Fast Pad ] in
// pad_fast.cc.
//
// What differs from the 64-byte writer, because these targets lack its AVX-512 ops:
// - No fault-free byte-masked loads: every load is a full unaligned vector load, taken
//   only where the whole vector lies inside the source buffer; a load that would cross
//   either end of the buffer is assembled byte by byte (LoadInside). Lanes read past the
//   run being appended are overwritten by the next append before their line is stored.
// - No byte-masked stores that leave the other bytes alone (Highway's BlendedStore loads
//   and stores the whole vector on NEON): the partial lines at both ends of a range are
//   stored byte by byte from a buffer (StoreBytes), so neighbouring ranges, which other
//   threads write, never see their bytes rewritten.
// - No 16-bit lane permutation across a whole vector: window pieces permute 32-bit lanes
//   (TableLookupLanes; cells of 4, 8 and 16 bytes), and 1- and 2-byte pad cells are
//   inserted one by one (the plan cuts the pieces for these lines: cut_pad_pieces).
// Whole lines are written with one aligned store each (streaming when t.stream).
#include <algorithm>
#include <cstdint>
#include <cstring>

#include "kernels/pad/pad_lines.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/pad/pad_vec_hwy.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

HWY_BEFORE_NAMESPACE();
namespace gridops::kernels::pad_vec_simd {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Not on the scalable (SVE) targets: the writer keeps its line vector in a class member,
// which sizeless SVE vector types cannot be; there the NEON target's writer or pad.rows runs.
#if HWY_TARGET != HWY_SCALAR && HWY_TARGET != HWY_EMU128 && !HWY_HAVE_SCALABLE

constexpr size_t kMaxLine = 32;  // the cap of the line tag
using D8 = hn::CappedTag<uint8_t, kMaxLine>;
using V8 = hn::Vec<D8>;
using M8 = hn::Mask<D8>;
using D32 = hn::Repartition<uint32_t, D8>;

/// Lanes [lo, hi) (lo <= hi <= the line's lanes).
HWY_INLINE M8 ByteRange(size_t lo, size_t hi) {
  const D8 d;
  return hn::AndNot(hn::FirstN(d, lo), hn::FirstN(d, hi));
}

/// The source buffer: every load lies inside [lo, hi).
struct Bounds {
  uintptr_t lo = 0, hi = 0;
};

/// The vector at address a, read byte by byte where it lies inside b (the other lanes
/// zero). The slow path of Load, for the loads at the two ends of the buffer.
HWY_NOINLINE V8 LoadInside(const Bounds& b, uintptr_t a) {
  const D8 d;
  HWY_ALIGN uint8_t buf[kMaxLine] = {};
  const size_t n = hn::Lanes(d);
  for (size_t i = 0; i < n; ++i) {
    if (a + i >= b.lo && a + i < b.hi) buf[i] = *reinterpret_cast<const uint8_t*>(a + i);
  }
  return hn::Load(d, buf);
}

/// The line-sized vector at address a (any alignment); lanes outside b are unspecified.
HWY_INLINE V8 Load(const Bounds& b, uintptr_t a) {
  const D8 d;
  if (HWY_LIKELY(a >= b.lo && a + hn::Lanes(d) <= b.hi)) {
    return hn::LoadU(d, reinterpret_cast<const uint8_t*>(a));
  }
  return LoadInside(b, a);
}

/// Stores lanes [lo, hi) of v at line + lo .. line + hi, byte by byte (no other byte of
/// the line is read or written).
HWY_INLINE void StoreBytes(V8 v, size_t lo, size_t hi, uintptr_t line) {
  HWY_ALIGN uint8_t buf[kMaxLine];
  hn::Store(v, D8(), buf);
  std::memcpy(reinterpret_cast<uint8_t*>(line + lo), buf + lo, hi - lo);
}

/// The line writer: `p_` is the next output byte; `acc_` holds the bytes of the line
/// containing p_ below p_ (from lo_ on in the range's first line).
template <bool kStream>
class Lines {
 public:
  explicit Lines(char* p)
      : mask_(hn::Lanes(D8()) - 1),
        p_(reinterpret_cast<uintptr_t>(p)),
        lo_(p_ & mask_),
        acc_(hn::Zero(D8())) {}

  /// Appends n bytes from address s (inside b; the loads stay inside b).
  HWY_INLINE void Copy(const Bounds& b, uintptr_t s, int64_t n) {
    if (n <= 0) return;
    const D8 d;
    const size_t line = mask_ + 1;
    const size_t off = p_ & mask_;
    if (off != 0) {
      const size_t k = static_cast<size_t>(std::min<int64_t>(static_cast<int64_t>(line - off), n));
      // Lanes [off, off + k) from s[0, k): the vector that starts off bytes before s.
      acc_ = hn::IfThenElse(ByteRange(off, off + k), Load(b, s - off), acc_);
      p_ += k;
      s += k;
      n -= static_cast<int64_t>(k);
      if ((p_ & mask_) != 0) return;
      Flush();
    }
    for (; n >= static_cast<int64_t>(line); n -= static_cast<int64_t>(line)) {
      Put(hn::LoadU(d, reinterpret_cast<const uint8_t*>(s)));  // inside the run
      s += line;
    }
    if (n > 0) {
      acc_ = Load(b, s);  // lanes [n, line) are overwritten by the next append
      p_ += static_cast<uintptr_t>(n);
    }
  }

  /// Appends n bytes of a pattern whose lane i is the byte for output addresses = i mod
  /// the line.
  HWY_INLINE void Fill(V8 pat, int64_t n) {
    const size_t line = mask_ + 1;
    const size_t off = p_ & mask_;
    if (off != 0) {
      const size_t k = static_cast<size_t>(std::min<int64_t>(static_cast<int64_t>(line - off), n));
      acc_ = hn::IfThenElse(ByteRange(off, off + k), pat, acc_);
      p_ += k;
      n -= static_cast<int64_t>(k);
      if ((p_ & mask_) != 0) return;
      Flush();
    }
    for (; n >= static_cast<int64_t>(line); n -= static_cast<int64_t>(line)) Put(pat);
    if (n > 0) {
      acc_ = pat;
      p_ += static_cast<uintptr_t>(n);
    }
  }

  /// Appends n <= line bytes held in v at the lanes of their output addresses (mod line).
  HWY_INLINE void Vec(V8 v, int64_t n) {
    const size_t line = mask_ + 1;
    const size_t off = p_ & mask_;
    const size_t k = static_cast<size_t>(std::min<int64_t>(static_cast<int64_t>(line - off), n));
    acc_ = hn::IfThenElse(ByteRange(off, off + k), v, acc_);
    p_ += k;
    if ((p_ & mask_) != 0) return;
    Flush();
    acc_ = v;  // the rest (lanes [0, n - k)) is in v already
    p_ += static_cast<uintptr_t>(n) - k;
  }

  /// Appends one cell of sizeof(T) (1, 2, 4 or 8) bytes; the output position must be a
  /// multiple of sizeof(T) (the cell never straddles two lines).
  template <class T>
  HWY_INLINE void Cell(T v) {
    const hn::Repartition<T, D8> dt;
    const size_t off = p_ & mask_;
    acc_ = hn::IfThenElse(ByteRange(off, off + sizeof(T)), hn::BitCast(D8(), hn::Set(dt, v)), acc_);
    p_ += sizeof(T);
    if ((p_ & mask_) == 0) Flush();
  }

  /// Lane offset of the next byte within its line.
  HWY_INLINE size_t Offset() const { return p_ & mask_; }

  /// Writes the partial line at the end of the range.
  HWY_INLINE void Finish() {
    const size_t off = p_ & mask_;
    if (off != 0) StoreBytes(acc_, lo_, off, p_ - off);
  }

 private:
  /// Stores the completed line that ends at p_.
  HWY_INLINE void Flush() {
    const uintptr_t line = p_ - (mask_ + 1);
    if (HWY_UNLIKELY(lo_ != 0)) {  // the range's first line, owned from lo_ on
      StoreBytes(acc_, lo_, mask_ + 1, line);
      lo_ = 0;
      return;
    }
    Store(line, acc_);
  }
  /// Writes a whole line at p_ (aligned, owned: lo_ is 0 once p_ is on a line start).
  HWY_INLINE void Put(V8 v) {
    Store(p_, v);
    p_ += mask_ + 1;
  }
  static HWY_INLINE void Store(uintptr_t line, V8 v) {
    if constexpr (kStream) {
      hn::Stream(v, D8(), reinterpret_cast<uint8_t*>(line));
    } else {
      hn::Store(v, D8(), reinterpret_cast<uint8_t*>(line));
    }
  }

  size_t mask_;  // line bytes - 1
  uintptr_t p_;
  size_t lo_;
  V8 acc_;
};

/// The window v permuted by the 32-bit lane table at `table` (one of PadTables::perm_idx).
HWY_INLINE V8 Permute32(const uint8_t* table, V8 v) {
  const D8 d8;
  const D32 d;
  const auto idx = hn::BitCast(d, hn::LoadU(d8, table));
  return hn::BitCast(d8, hn::TableLookupLanes(hn::BitCast(d, v), hn::IndicesFromVec(d, idx)));
}

/// The table of window piece `perm` for the writer's next byte (the tables of a piece are
/// rotated by whole 4-byte lanes, one per lane position of the line).
template <class W>
HWY_INLINE const uint8_t* TableFor(const PadTables& t, int32_t perm, const W& w) {
  return t.perm_idx[static_cast<size_t>(perm) + w.Offset() / 4].data();
}

template <bool kStream>
HWY_INLINE void Pieces(Lines<kStream>& w, const PadTables& t, const std::vector<PadPiece>& pieces,
                       const int64_t* map, const Bounds& b, uintptr_t in, bool perm_ok,
                       bool cells_ok) {
  const int64_t cell = t.cell;
  for (const PadPiece& pc : pieces) {
    const int64_t bytes = pc.count * cell;
    if (pc.kind == PadPiece::kCopy) {
      w.Copy(b, in + static_cast<uintptr_t>(pc.src * cell), bytes);
    } else if (pc.kind == PadPiece::kPerm && perm_ok) {
      const V8 window = Load(b, in + static_cast<uintptr_t>(pc.src * cell));
      w.Vec(Permute32(TableFor(t, pc.perm, w), window), bytes);
    } else if (cells_ok) {
      // Cells of 1, 2, 4 or 8 bytes inserted one by one (one never straddles a line: the
      // output is aligned to the cell size).
      auto cells = [&](auto tag) {
        using T = decltype(tag);
        for (int64_t i = 0; i < pc.count; ++i) {
          T v;
          std::memcpy(&v, reinterpret_cast<const char*>(in) + map[pc.first + i] * cell, sizeof(T));
          w.Cell(v);
        }
      };
      switch (cell) {
        case 1:
          cells(uint8_t{});
          break;
        case 2:
          cells(uint16_t{});
          break;
        case 4:
          cells(uint32_t{});
          break;
        default:
          cells(uint64_t{});
          break;
      }
    } else {
      // Cells gathered into a buffer and appended as a run (the buffer is its own bounds).
      constexpr int64_t kBuf = 1024;
      HWY_ALIGN char buf[kBuf];
      const Bounds bb{reinterpret_cast<uintptr_t>(buf), reinterpret_cast<uintptr_t>(buf) + kBuf};
      for (int64_t i = 0; i < pc.count;) {
        const int64_t k = std::min<int64_t>(pc.count - i, std::max<int64_t>(1, kBuf / cell));
        if (k * cell <= kBuf) {
          for (int64_t q = 0; q < k; ++q) {
            std::memcpy(buf + q * cell, reinterpret_cast<const char*>(in) + map[pc.first + i + q] * cell,
                        static_cast<size_t>(cell));
          }
          w.Copy(bb, reinterpret_cast<uintptr_t>(buf), k * cell);
        } else {  // one cell larger than the buffer
          w.Copy(b, in + static_cast<uintptr_t>(map[pc.first + i] * cell), cell);
        }
        i += k;
      }
    }
  }
}

/// The rows of a t.perm_sides problem (each pad side one window piece or none): per row
/// one window load and one permutation per side around the middle run. The output must be
/// aligned to 4 bytes.
template <bool kStream>
void RowsPermSides(const PadTables& t, const Bounds& b, char* dst, int64_t r0, int64_t r1) {
  PadOuterWalk walk(t, r0);
  struct Side {
    uintptr_t src = 0;
    int64_t bytes = 0;
    int32_t perm = -1;
  };
  auto side_of = [&](const std::vector<PadPiece>& pieces) {
    Side s;
    if (pieces.empty()) return s;
    s.src = static_cast<uintptr_t>(pieces.front().src * t.cell);
    s.bytes = pieces.front().count * t.cell;
    s.perm = pieces.front().perm;
    return s;
  };
  const Side left = side_of(t.left_pieces), right = side_of(t.right_pieces);
  const uintptr_t mid_src = static_cast<uintptr_t>(t.c0 * t.cell);
  const int64_t mid_bytes = (t.j1 - t.j0) * t.cell;
  Lines<kStream> w(dst + r0 * t.m * t.cell);
  auto side = [&](const Side& s, uintptr_t in) {
    w.Vec(Permute32(TableFor(t, s.perm, w), Load(b, in + s.src)), s.bytes);
  };
  for (int64_t row = r0; row < r1; ++row) {
    const uintptr_t in = b.lo + static_cast<uintptr_t>(walk.source().offset);
    if (left.perm >= 0) side(left, in);
    w.Copy(b, in + mid_src, mid_bytes);
    if (right.perm >= 0) side(right, in);
    walk.next();
  }
  w.Finish();
}

/// The rows of a constant-mode problem: the pad value (a pattern in phase with the output
/// addresses), the middle run, the pad value; border rows all pad value (a loop of its
/// own, with no walk over pad pieces).
template <bool kStream>
void RowsConstant(const PadTables& t, const Bounds& b, char* dst, const unsigned char* value,
                  int64_t r0, int64_t r1) {
  PadOuterWalk walk(t, r0);
  const int64_t cell = t.cell;
  const int64_t row_bytes = t.m * cell;
  const int64_t left_bytes = t.j0 * cell;
  const int64_t mid_bytes = (t.j1 - t.j0) * cell;
  const int64_t right_bytes = (t.m - t.j1) * cell;
  const uintptr_t mid_src = static_cast<uintptr_t>(t.c0 * cell);
  // Byte i of a line belongs to the element that starts (i - dst) mod es bytes earlier.
  const D8 d;
  const size_t line = hn::Lanes(d);
  HWY_ALIGN unsigned char pat_bytes[kMaxLine];
  const size_t phase = reinterpret_cast<uintptr_t>(dst) & (line - 1);
  for (size_t i = 0; i < line; ++i) {
    pat_bytes[i] = value[(i + line - phase) % static_cast<size_t>(t.es)];
  }
  const V8 pat = hn::Load(d, pat_bytes);
  Lines<kStream> w(dst + r0 * row_bytes);
  for (int64_t row = r0; row < r1; ++row) {
    const PadOuterWalk::Source from = walk.source();
    if (from.border) {
      w.Fill(pat, row_bytes);
    } else {
      w.Fill(pat, left_bytes);
      w.Copy(b, b.lo + static_cast<uintptr_t>(from.offset) + mid_src, mid_bytes);
      w.Fill(pat, right_bytes);
    }
    walk.next();
  }
  w.Finish();
}

/// The rows of the other modes: each pad side's pieces around the middle run.
template <bool kStream>
void RowsT(const PadTables& t, const char* src, char* dst, const unsigned char* value, int64_t r0,
           int64_t r1) {
  const Bounds b{reinterpret_cast<uintptr_t>(src), reinterpret_cast<uintptr_t>(src) +
                                                       static_cast<uintptr_t>(t.src_bytes)};
  if (t.mode == PadMode::kConstant) return RowsConstant<kStream>(t, b, dst, value, r0, r1);
  // Window pieces rotate by whole 4-byte lanes (their cells are multiples of 4 bytes):
  // the output must be aligned to 4 bytes. Cells inserted one by one must not straddle a
  // line: 1, 2, 4 or 8 bytes with the output aligned to their size.
  const uintptr_t at = reinterpret_cast<uintptr_t>(dst);
  const bool perm_ok = at % 4 == 0;
  const bool cells_ok = (t.cell == 1 || t.cell == 2 || t.cell == 4 || t.cell == 8) &&
                        at % static_cast<uintptr_t>(t.cell) == 0;
  if (t.perm_sides && perm_ok) return RowsPermSides<kStream>(t, b, dst, r0, r1);
  PadOuterWalk walk(t, r0);
  const uintptr_t mid_src = static_cast<uintptr_t>(t.c0 * t.cell);
  const int64_t mid_bytes = (t.j1 - t.j0) * t.cell;
  Lines<kStream> w(dst + r0 * t.m * t.cell);
  for (int64_t row = r0; row < r1; ++row) {
    const uintptr_t in = b.lo + static_cast<uintptr_t>(walk.source().offset);
    Pieces<kStream>(w, t, t.left_pieces, t.left.data(), b, in, perm_ok, cells_ok);
    w.Copy(b, in + mid_src, mid_bytes);
    Pieces<kStream>(w, t, t.right_pieces, t.right.data(), b, in, perm_ok, cells_ok);
    walk.next();
  }
  w.Finish();
}

bool Rows(const PadTables& t, const char* src, char* dst, const unsigned char* value, int64_t r0,
          int64_t r1) {
  if (static_cast<int64_t>(hn::Lanes(D8())) != t.vec) return false;
  if (t.stream) {
    RowsT<true>(t, src, dst, value, r0, r1);
  } else {
    RowsT<false>(t, src, dst, value, r0, r1);
  }
  return true;
}

int64_t LineBytes() { return static_cast<int64_t>(hn::Lanes(D8())); }

#else  // scalar, emulated or SVE target: pad.lines_vec declines (pad.rows writes the rows)

bool Rows(const PadTables&, const char*, char*, const unsigned char*, int64_t, int64_t) {
  return false;
}

int64_t LineBytes() { return 0; }

#endif

}  // namespace HWY_NAMESPACE
}  // namespace gridops::kernels::pad_vec_simd
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace gridops::kernels::pad_vec_simd {
HWY_EXPORT(Rows);
HWY_EXPORT(LineBytes);
}  // namespace gridops::kernels::pad_vec_simd

namespace gridops::kernels {
bool pad_rows_lines_vec(const PadTables& t, const char* src, char* dst,
                        const unsigned char* value, int64_t r0, int64_t r1) {
  using namespace pad_vec_simd;  // NOLINT(google-build-using-namespace): the dispatch table
  return HWY_DYNAMIC_DISPATCH(Rows)(t, src, dst, value, r0, r1);
}

int64_t pad_lines_vec_bytes() {
  using namespace pad_vec_simd;  // NOLINT(google-build-using-namespace): the dispatch table
  return HWY_DYNAMIC_DISPATCH(LineBytes)();
}
}  // namespace gridops::kernels
#endif  // HWY_ONCE
