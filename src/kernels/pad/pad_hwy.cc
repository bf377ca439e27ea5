// The line writer of the fast Pad kernel, the kernel of the entry pad.lines: Highway ops on
// 64-byte vectors (byte-masked loads and stores, IfThenElse, lane lookups), on the AVX-512
// targets only, plus one raw intrinsic where Highway 1.0.3 has no op (Permute16, NOTE
// [ Pad Permute16 ]). On the AVX-512 targets pad_rows_lines writes the rows and
// returns true; on every other target it writes nothing and returns false, and
// pad_lines_available() says so: pad.lines then declines and pad.rows, the portable row
// kernel (which the differential tests run as an entry of its own, on every target), writes
// the rows.
// See NOTE [ Fast Pad ] in pad_fast.cc.
//
// The output rows of a range form one contiguous byte stream. The writer keeps the
// 64-byte line being assembled in a vector register and appends to it: runs of the
// source row (masked unaligned loads, shifted into place by loading from the right
// address), the pad value (a vector of the value repeated, in phase with the output
// addresses), and small pad pieces of the non-constant modes (a masked load of a 64-byte
// window of the source row and one lane permutation that both reorders the cells and
// rotates them to the line position). Each completed line is written with one aligned
// 64-byte store (streaming or ordinary), so no output line is written twice or by split
// stores; the partial lines at both ends of the range are written with byte-masked stores.
#include <algorithm>
#include <cstdint>
#include <cstring>

#include "kernels/pad/pad_lines.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/pad/pad_hwy.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

HWY_BEFORE_NAMESPACE();
namespace gridops::kernels::pad_simd {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3

// The writer's masked loads read only the lanes of their mask (the others may lie outside
// the source buffer): AVX-512's masked loads, which Highway's MaskedLoad is on this target.
static_assert(!HWY_MEM_OPS_MIGHT_FAULT, "the line writer relies on fault-free masked loads");

using D8 = hn::FixedTag<uint8_t, 64>;  // one 64-byte output line
using V8 = hn::Vec<D8>;
using M8 = hn::MFromD<D8>;

/// The mask of the lanes of d whose bits are set in `bits` (bit i: lane i; x86 is
/// little-endian, so byte i / 8 of the local holds bit i). LoadMaskBits of a local: the
/// compiler moves the bits straight into a mask register, as cheap as the shifts of the
/// raw code were; two FirstN and an AndNot per mask cost W7a (short rows, several masks
/// per row) measurably more.
template <class D>
HWY_INLINE hn::MFromD<D> MaskOfBits(D d, uint64_t bits) {
  return hn::LoadMaskBits(d, reinterpret_cast<const uint8_t*>(&bits));
}

/// Lanes [lo, hi) of a 64-lane byte mask (0 <= lo < 64, lo <= hi <= 64). BZHI keeps the
/// bits below hi (all of them for hi = 64) without a branch; BMI2 is part of every
/// AVX-512 target.
HWY_INLINE M8 ByteRange(size_t lo, size_t hi) {
  return MaskOfBits(D8(), _bzhi_u64(~uint64_t{0} << lo, static_cast<unsigned>(hi)));
}

/// The 64-byte line writer. `p_` is the next output byte; `acc_` holds the bytes of the
/// line containing p_ below p_ (from lo_ on in the range's first line).
template <bool kStream>
class Lines {
 public:
  explicit Lines(char* p)
      : p_(reinterpret_cast<uintptr_t>(p)), lo_(p_ & 63), acc_(hn::Zero(D8())) {}

  /// Appends n bytes from s.
  HWY_INLINE void Copy(const char* s, int64_t n) {
    const D8 d;
    uintptr_t src = reinterpret_cast<uintptr_t>(s);
    const size_t off = p_ & 63;
    if (off != 0) {
      const size_t k = static_cast<size_t>(std::min<int64_t>(static_cast<int64_t>(64 - off), n));
      const M8 m = ByteRange(off, off + k);
      // Lanes [off, off + k) from s[0, k); the other lanes are masked (never accessed).
      const V8 v = hn::MaskedLoad(m, d, reinterpret_cast<const uint8_t*>(src - off));
      acc_ = hn::IfThenElse(m, v, acc_);
      p_ += k;
      src += k;
      n -= static_cast<int64_t>(k);
      if ((p_ & 63) != 0) return;
      Flush();
    }
    for (; n >= 64; n -= 64) {
      Put(hn::LoadU(d, reinterpret_cast<const uint8_t*>(src)));
      src += 64;
    }
    if (n > 0) {
      acc_ = hn::MaskedLoad(ByteRange(0, static_cast<size_t>(n)), d,
                            reinterpret_cast<const uint8_t*>(src));
      p_ += static_cast<uintptr_t>(n);
    }
  }

  /// Appends n bytes of a pattern whose lane i is the byte for output addresses = i mod 64.
  HWY_INLINE void Fill(V8 pat, int64_t n) {
    const size_t off = p_ & 63;
    if (off != 0) {
      const size_t k = static_cast<size_t>(std::min<int64_t>(static_cast<int64_t>(64 - off), n));
      acc_ = hn::IfThenElse(ByteRange(off, off + k), pat, acc_);
      p_ += k;
      n -= static_cast<int64_t>(k);
      if ((p_ & 63) != 0) return;
      Flush();
    }
    for (; n >= 64; n -= 64) Put(pat);
    if (n > 0) {
      acc_ = pat;
      p_ += static_cast<uintptr_t>(n);
    }
  }

  /// Appends n <= 64 bytes held in v at the lanes of their output addresses (mod 64).
  HWY_INLINE void Vec(V8 v, int64_t n) {
    const size_t off = p_ & 63;
    const size_t k = static_cast<size_t>(std::min<int64_t>(static_cast<int64_t>(64 - off), n));
    acc_ = hn::IfThenElse(ByteRange(off, off + k), v, acc_);
    p_ += k;
    if ((p_ & 63) != 0) return;
    Flush();
    acc_ = v;  // the rest (lanes [0, n - k)) is in v already
    p_ += static_cast<uintptr_t>(n) - k;
  }

  /// Appends one cell of sizeof(T) (1, 2, 4 or 8) bytes; the output position must be a
  /// multiple of sizeof(T) (the cell never straddles two lines).
  template <class T>
  HWY_INLINE void Cell(T v) {
    const hn::FixedTag<T, 64 / sizeof(T)> dt;
    const auto one = MaskOfBits(dt, uint64_t{1} << ((p_ & 63) / sizeof(T)));
    acc_ = hn::BitCast(D8(), hn::IfThenElse(one, hn::Set(dt, v), hn::BitCast(dt, acc_)));
    p_ += sizeof(T);
    if ((p_ & 63) == 0) Flush();
  }

  /// Lane offset of the next byte within its line.
  HWY_INLINE size_t Offset() const { return p_ & 63; }

  /// Writes the partial line at the end of the range.
  HWY_INLINE void Finish() {
    const size_t off = p_ & 63;
    if (off != 0) {
      hn::BlendedStore(acc_, ByteRange(lo_, off), D8(), reinterpret_cast<uint8_t*>(p_ - off));
    }
  }

 private:
  /// Stores the completed line that ends at p_.
  HWY_INLINE void Flush() {
    uint8_t* line = reinterpret_cast<uint8_t*>(p_ - 64);
    if (HWY_UNLIKELY(lo_ != 0)) {  // the range's first line, owned from lo_ on
      hn::BlendedStore(acc_, ByteRange(lo_, 64), D8(), line);
      lo_ = 0;
      return;
    }
    Store(line, acc_);
  }
  /// Writes a whole line at p_ (aligned, owned: lo_ is 0 once p_ is on a line start).
  HWY_INLINE void Put(V8 v) {
    Store(reinterpret_cast<uint8_t*>(p_), v);
    p_ += 64;
  }
  static HWY_INLINE void Store(uint8_t* line, V8 v) {
    if constexpr (kStream) {
      hn::Stream(v, D8(), line);
    } else {
      hn::Store(v, D8(), line);
    }
  }

  uintptr_t p_;
  size_t lo_;
  V8 acc_;
};

// NOTE [ Pad Permute16 ]
// kPerm pieces reorder the cells of a source window with one lane permutation (lanes of 2,
// 4 or 8 bytes, t.perm_lane). Highway 1.0.3 (Debian 12's, the version gridops builds
// with) has TableLookupLanes for 32- and 64-bit lanes only, so 16-bit lanes are
// Permute16 below: the writer's only raw intrinsic (vpermw). Permute16Portable does the
// same with Highway ops only, through memory; the tests compare the two and a scalar
// lookup (pad_permute16) and run the whole line writer with the portable form
// switched in (the test-only entry pad.lines_portable_permute): the same bytes.

/// Lane i of the result: 16-bit lane idx[i] of v (idx in [0, 32)).
HWY_INLINE V8 Permute16(V8 idx, V8 v) {
  return V8{_mm512_permutexvar_epi16(idx.raw, v.raw)};
}

/// Permute16 in Highway ops only (the tests' switch).
HWY_INLINE V8 Permute16Portable(V8 idx, V8 v) {
  const hn::FixedTag<uint16_t, 32> d;
  HWY_ALIGN uint16_t i16[32], v16[32], r16[32];
  hn::Store(hn::BitCast(d, idx), d, i16);
  hn::Store(hn::BitCast(d, v), d, v16);
  for (size_t i = 0; i < 32; ++i) r16[i] = v16[i16[i] & 31];
  return hn::BitCast(D8(), hn::Load(d, r16));
}

/// Lane permutation of v by idx, lanes of `lane` bytes (2, 4 or 8).
template <bool kPortable>
HWY_INLINE V8 Permute(int64_t lane, V8 idx, V8 v) {
  const D8 d8;
  if (lane == 4) {
    const hn::FixedTag<uint32_t, 16> d;
    return hn::BitCast(d8, hn::TableLookupLanes(hn::BitCast(d, v),
                                                hn::IndicesFromVec(d, hn::BitCast(d, idx))));
  }
  if (lane == 8) {
    const hn::FixedTag<uint64_t, 8> d;
    return hn::BitCast(d8, hn::TableLookupLanes(hn::BitCast(d, v),
                                                hn::IndicesFromVec(d, hn::BitCast(d, idx))));
  }
  if constexpr (kPortable) {
    return Permute16Portable(idx, v);
  } else {
    return Permute16(idx, v);
  }
}

template <bool kStream, bool kPortable>
HWY_INLINE void Pieces(Lines<kStream>& w, const PadTables& t, const std::vector<PadPiece>& pieces,
                       const int64_t* map, const char* in, bool perm_ok) {
  const int64_t cell = t.cell;
  for (const PadPiece& pc : pieces) {
    const int64_t bytes = pc.count * cell;
    if (pc.kind == PadPiece::kCopy) {
      w.Copy(in + pc.src * cell, bytes);
    } else if (pc.kind == PadPiece::kPerm && perm_ok) {
      const int64_t lane = t.perm_lane;
      const D8 d8;
      const M8 wm = ByteRange(0, static_cast<size_t>(pc.wlanes * lane));
      const V8 window =
          hn::MaskedLoad(wm, d8, reinterpret_cast<const uint8_t*>(in + pc.src * cell));
      // The piece's table for the line position of the next output byte.
      const V8 idx = hn::LoadU(
          d8, t.perm_idx[static_cast<size_t>(pc.perm) + w.Offset() / static_cast<size_t>(lane)].data());
      w.Vec(Permute<kPortable>(lane, idx, window), bytes);
    } else if (cell == 1 || (cell <= 8 && cell == t.perm_lane && perm_ok)) {
      // Cells inserted one by one into the line register (a cell of 2, 4 or 8 bytes never
      // straddles a line when the output is aligned to its size).
      auto cells = [&](auto tag) {
        using T = decltype(tag);
        for (int64_t i = 0; i < pc.count; ++i) {
          T v;
          std::memcpy(&v, in + map[pc.first + i] * cell, sizeof(T));
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
      alignas(64) char buf[1024];
      for (int64_t i = 0; i < pc.count;) {
        const int64_t k = std::min<int64_t>(pc.count - i, std::max<int64_t>(1, 1024 / cell));
        if (k * cell <= 1024) {
          for (int64_t q = 0; q < k; ++q) {
            std::memcpy(buf + q * cell, in + map[pc.first + i + q] * cell, static_cast<size_t>(cell));
          }
          w.Copy(buf, k * cell);
        } else {  // one cell larger than the buffer
          w.Copy(in + map[pc.first + i] * cell, cell);
        }
        i += k;
      }
    }
  }
}

/// A pad side of the straight row loop: one kPerm piece, or nothing (idx null).
struct PermSide {
  M8 window;             // lanes of the window inside the source row
  int64_t src = 0;       // byte offset of the window in the source row
  int64_t bytes = 0;     // output bytes of the side
  const uint8_t* idx = nullptr;  // the piece's first table (PadTables::perm_idx)

  PermSide(const PadTables& t, const std::vector<PadPiece>& pieces) : window(ByteRange(0, 0)) {
    if (pieces.empty()) return;
    const PadPiece& pc = pieces.front();
    window = ByteRange(0, static_cast<size_t>(pc.wlanes * t.perm_lane));
    src = pc.src * t.cell;
    bytes = pc.count * t.cell;
    idx = t.perm_idx[static_cast<size_t>(pc.perm)].data();
  }
};

/// The rows of a t.perm_sides problem (non-constant mode, each side one kPerm piece or
/// none): per row one window load and one permutation per side around the middle run,
/// with no loop over pieces. The same bytes as the general loop in RowsT. The output must
/// be aligned to t.perm_lane bytes.
template <bool kStream, bool kPortable>
void RowsPermSides(const PadTables& t, const char* src, char* dst, int64_t r0, int64_t r1) {
  PadOuterWalk walk(t, r0);
  const PermSide left(t, t.left_pieces), right(t, t.right_pieces);
  const int64_t lane = t.perm_lane;
  const int64_t mid_src = t.c0 * t.cell;
  const int64_t mid_bytes = (t.j1 - t.j0) * t.cell;
  const D8 d8;
  Lines<kStream> w(dst + r0 * t.m * t.cell);
  auto side = [&](const PermSide& s, const char* in) {
    const V8 window = hn::MaskedLoad(s.window, d8, reinterpret_cast<const uint8_t*>(in + s.src));
    const V8 ix = hn::LoadU(d8, s.idx + (w.Offset() / static_cast<size_t>(lane)) * 64);
    w.Vec(Permute<kPortable>(lane, ix, window), s.bytes);
  };
  for (int64_t row = r0; row < r1; ++row) {
    const char* in = src + walk.source().offset;
    if (left.idx != nullptr) side(left, in);
    w.Copy(in + mid_src, mid_bytes);
    if (right.idx != nullptr) side(right, in);
    walk.next();
  }
  w.Finish();
}

template <bool kStream, bool kPortable>
void RowsT(const PadTables& t, const char* src, char* dst, const unsigned char* value, int64_t r0,
           int64_t r1) {
  // kPerm rotates by whole lanes: the output must be aligned to the lane size.
  const bool perm_ok =
      t.perm_lane != 0 && reinterpret_cast<uintptr_t>(dst) % static_cast<uintptr_t>(t.perm_lane) == 0;
  if (t.perm_sides && perm_ok) return RowsPermSides<kStream, kPortable>(t, src, dst, r0, r1);
  PadOuterWalk walk(t, r0);
  const int64_t cell = t.cell;
  const int64_t row_bytes = t.m * cell;
  const int64_t left_bytes = t.j0 * cell;
  const int64_t mid_bytes = (t.j1 - t.j0) * cell;
  const int64_t right_bytes = (t.m - t.j1) * cell;
  const bool constant = t.mode == PadMode::kConstant;
  // The pad value repeated, in phase with the output addresses: byte i of a line belongs
  // to the element that starts (i - dst) mod es bytes earlier.
  alignas(64) unsigned char pat_bytes[64];
  const size_t phase = reinterpret_cast<uintptr_t>(dst) & 63;
  for (size_t i = 0; i < 64; ++i) {
    pat_bytes[i] = value[(i + 64 - phase) % static_cast<size_t>(t.es)];
  }
  const V8 pat = hn::Load(D8(), pat_bytes);
  Lines<kStream> w(dst + r0 * row_bytes);
  for (int64_t row = r0; row < r1; ++row) {
    const PadOuterWalk::Source from = walk.source();
    const char* in = src + from.offset;
    if (constant) {
      if (from.border) {
        w.Fill(pat, row_bytes);
      } else {
        w.Fill(pat, left_bytes);
        w.Copy(in + t.c0 * cell, mid_bytes);
        w.Fill(pat, right_bytes);
      }
    } else {
      Pieces<kStream, kPortable>(w, t, t.left_pieces, t.left.data(), in, perm_ok);
      w.Copy(in + t.c0 * cell, mid_bytes);
      Pieces<kStream, kPortable>(w, t, t.right_pieces, t.right.data(), in, perm_ok);
    }
    walk.next();
  }
  w.Finish();
}

bool Rows(const PadTables& t, const char* src, char* dst, const unsigned char* value, bool stream,
          bool portable, int64_t r0, int64_t r1) {
  if (portable) {
    if (stream) {
      RowsT<true, true>(t, src, dst, value, r0, r1);
    } else {
      RowsT<false, true>(t, src, dst, value, r0, r1);
    }
  } else if (stream) {
    RowsT<true, false>(t, src, dst, value, r0, r1);
  } else {
    RowsT<false, false>(t, src, dst, value, r0, r1);
  }
  return true;
}

bool HasLines() { return true; }

bool Permute16ForTesting(bool portable, const uint16_t* idx, const uint16_t* v, uint16_t* out) {
  const D8 d8;
  const hn::FixedTag<uint16_t, 32> d;
  const V8 vi = hn::BitCast(d8, hn::LoadU(d, idx)), vv = hn::BitCast(d8, hn::LoadU(d, v));
  hn::StoreU(hn::BitCast(d, portable ? Permute16Portable(vi, vv) : Permute16(vi, vv)), d, out);
  return true;
}

#else  // no AVX-512 BW on this target: pad.lines declines (pad.rows writes the rows)

bool Rows(const PadTables&, const char*, char*, const unsigned char*, bool, bool, int64_t,
          int64_t) {
  return false;
}

bool HasLines() { return false; }

bool Permute16ForTesting(bool, const uint16_t*, const uint16_t*, uint16_t*) { return false; }

#endif

}  // namespace HWY_NAMESPACE
}  // namespace gridops::kernels::pad_simd
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace gridops::kernels::pad_simd {
HWY_EXPORT(Rows);
HWY_EXPORT(HasLines);
HWY_EXPORT(Permute16ForTesting);

}  // namespace gridops::kernels::pad_simd

namespace gridops::kernels {
bool pad_rows_lines(const PadTables& t, const char* src, char* dst, const unsigned char* value,
                    bool portable, int64_t r0, int64_t r1) {
  using namespace pad_simd;  // NOLINT(google-build-using-namespace): the dispatch table
  return HWY_DYNAMIC_DISPATCH(Rows)(t, src, dst, value, t.stream, portable, r0, r1);
}

bool pad_permute16(bool portable, const uint16_t* idx, const uint16_t* v,
                               uint16_t* out) {
  using namespace pad_simd;  // NOLINT(google-build-using-namespace): the dispatch table
  return HWY_DYNAMIC_DISPATCH(Permute16ForTesting)(portable, idx, v, out);
}

bool pad_lines_available() {
  using namespace pad_simd;  // NOLINT(google-build-using-namespace): the dispatch table
  return HWY_DYNAMIC_DISPATCH(HasLines)();
}
}  // namespace gridops::kernels
#endif  // HWY_ONCE
