// The line writer of the fast Pad kernel: the one place of raw AVX-512 BW intrinsics
// (Highway has no byte-masked 64-byte load/store and mask-move ops of this shape), the
// kernel of the entry pad.lines. On the AVX-512 targets pad_rows_lines writes the rows and
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

#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3

/// Lanes [lo, hi) of a 64-lane byte mask (0 <= lo <= hi <= 64).
HWY_INLINE __mmask64 ByteRange(size_t lo, size_t hi) {
  const uint64_t upto = hi >= 64 ? ~uint64_t{0} : (uint64_t{1} << hi) - 1;
  const uint64_t below = (uint64_t{1} << lo) - 1;  // lo < 64 wherever this is called
  return static_cast<__mmask64>(upto & ~below);
}

/// The 64-byte line writer. `p_` is the next output byte; `acc_` holds the bytes of the
/// line containing p_ below p_ (from lo_ on in the range's first line).
template <bool kStream>
class Lines {
 public:
  explicit Lines(char* p)
      : p_(reinterpret_cast<uintptr_t>(p)), lo_(p_ & 63), acc_(_mm512_setzero_si512()) {}

  /// Appends n bytes from s.
  HWY_INLINE void Copy(const char* s, int64_t n) {
    uintptr_t src = reinterpret_cast<uintptr_t>(s);
    const size_t off = p_ & 63;
    if (off != 0) {
      const size_t k = static_cast<size_t>(std::min<int64_t>(static_cast<int64_t>(64 - off), n));
      const __mmask64 m = ByteRange(off, off + k);
      // Lanes [off, off + k) from s[0, k); the other lanes are masked (never accessed).
      acc_ = _mm512_mask_loadu_epi8(acc_, m, reinterpret_cast<const void*>(src - off));
      p_ += k;
      src += k;
      n -= static_cast<int64_t>(k);
      if ((p_ & 63) != 0) return;
      Flush();
    }
    for (; n >= 64; n -= 64) {
      Put(_mm512_loadu_si512(reinterpret_cast<const void*>(src)));
      src += 64;
    }
    if (n > 0) {
      acc_ = _mm512_maskz_loadu_epi8(ByteRange(0, static_cast<size_t>(n)),
                                     reinterpret_cast<const void*>(src));
      p_ += static_cast<uintptr_t>(n);
    }
  }

  /// Appends n bytes of a pattern whose lane i is the byte for output addresses = i mod 64.
  HWY_INLINE void Fill(__m512i pat, int64_t n) {
    const size_t off = p_ & 63;
    if (off != 0) {
      const size_t k = static_cast<size_t>(std::min<int64_t>(static_cast<int64_t>(64 - off), n));
      acc_ = _mm512_mask_mov_epi8(acc_, ByteRange(off, off + k), pat);
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
  HWY_INLINE void Vec(__m512i v, int64_t n) {
    const size_t off = p_ & 63;
    const size_t k = static_cast<size_t>(std::min<int64_t>(static_cast<int64_t>(64 - off), n));
    acc_ = _mm512_mask_mov_epi8(acc_, ByteRange(off, off + k), v);
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
    const size_t off = p_ & 63;
    if constexpr (sizeof(T) == 1) {
      acc_ = _mm512_mask_set1_epi8(acc_, __mmask64{1} << off, static_cast<char>(v));
    } else if constexpr (sizeof(T) == 2) {
      acc_ = _mm512_mask_set1_epi16(acc_, static_cast<__mmask32>(1u << (off / 2)), static_cast<short>(v));
    } else if constexpr (sizeof(T) == 4) {
      acc_ = _mm512_mask_set1_epi32(acc_, static_cast<__mmask16>(1u << (off / 4)), static_cast<int>(v));
    } else {
      acc_ = _mm512_mask_set1_epi64(acc_, static_cast<__mmask8>(1u << (off / 8)), static_cast<long long>(v));
    }
    p_ += sizeof(T);
    if ((p_ & 63) == 0) Flush();
  }

  /// Lane offset of the next byte within its line.
  HWY_INLINE size_t Offset() const { return p_ & 63; }

  /// Writes the partial line at the end of the range.
  HWY_INLINE void Finish() {
    const size_t off = p_ & 63;
    if (off != 0) {
      _mm512_mask_storeu_epi8(reinterpret_cast<void*>(p_ - off), ByteRange(lo_, off), acc_);
    }
  }

 private:
  /// Stores the completed line that ends at p_.
  HWY_INLINE void Flush() {
    void* line = reinterpret_cast<void*>(p_ - 64);
    if (HWY_UNLIKELY(lo_ != 0)) {  // the range's first line, owned from lo_ on
      _mm512_mask_storeu_epi8(line, ByteRange(lo_, 64), acc_);
      lo_ = 0;
      return;
    }
    Store(line, acc_);
  }
  /// Writes a whole line at p_ (aligned, owned: lo_ is 0 once p_ is on a line start).
  HWY_INLINE void Put(__m512i v) {
    Store(reinterpret_cast<void*>(p_), v);
    p_ += 64;
  }
  static HWY_INLINE void Store(void* line, __m512i v) {
    if constexpr (kStream) {
      _mm512_stream_si512(static_cast<__m512i*>(line), v);
    } else {
      _mm512_store_si512(line, v);
    }
  }

  uintptr_t p_;
  size_t lo_;
  __m512i acc_;
};

/// Lane permutation of v by idx, lanes of `lane` bytes (2, 4 or 8).
HWY_INLINE __m512i Permute(int64_t lane, __m512i idx, __m512i v) {
  if (lane == 4) return _mm512_permutexvar_epi32(idx, v);
  if (lane == 8) return _mm512_permutexvar_epi64(idx, v);
  return _mm512_permutexvar_epi16(idx, v);
}

/// Lane q of the result: (q - shift) mod lanes, lanes of `lane` bytes.
HWY_INLINE __m512i Rotation(int64_t lane, size_t shift) {
  if (lane == 4) {
    return _mm512_and_si512(
        _mm512_sub_epi32(_mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0),
                         _mm512_set1_epi32(static_cast<int>(shift))),
        _mm512_set1_epi32(15));
  }
  if (lane == 8) {
    return _mm512_and_si512(_mm512_sub_epi64(_mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0),
                                             _mm512_set1_epi64(static_cast<int64_t>(shift))),
                            _mm512_set1_epi64(7));
  }
  alignas(64) static constexpr uint16_t kIota16[32] = {0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  10,
                                                       11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21,
                                                       22, 23, 24, 25, 26, 27, 28, 29, 30, 31};
  return _mm512_and_si512(_mm512_sub_epi16(_mm512_load_si512(kIota16),
                                           _mm512_set1_epi16(static_cast<int16_t>(shift))),
                          _mm512_set1_epi16(31));
}

template <bool kStream>
HWY_INLINE void Pieces(Lines<kStream>& w, const PadTables& t, const std::vector<PadPiece>& pieces,
                       const int64_t* map, const char* in, bool perm_ok) {
  const int64_t cell = t.cell;
  for (const PadPiece& pc : pieces) {
    const int64_t bytes = pc.count * cell;
    if (pc.kind == PadPiece::kCopy) {
      w.Copy(in + pc.src * cell, bytes);
    } else if (pc.kind == PadPiece::kPerm && perm_ok) {
      const int64_t lane = t.perm_lane;
      const __mmask64 wm = ByteRange(0, static_cast<size_t>(pc.wlanes * lane));
      const __m512i window = _mm512_maskz_loadu_epi8(wm, in + pc.src * cell);
      // Index of output lane q: the piece's table at (q - offset) mod lanes, so that the
      // piece's first byte lands at the line position of the next output byte.
      const __m512i base = _mm512_loadu_si512(t.perm_idx[static_cast<size_t>(pc.perm)].data());
      const __m512i idx = Permute(lane, Rotation(lane, w.Offset() / static_cast<size_t>(lane)), base);
      w.Vec(Permute(lane, idx, window), bytes);
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

template <bool kStream>
void RowsT(const PadTables& t, const char* src, char* dst, const unsigned char* value, int64_t r0,
           int64_t r1) {
  std::array<int64_t, kMaxRank> idx{};
  int64_t r = r0;
  for (int d = t.nouter - 1; d >= 0; --d) {
    idx[static_cast<size_t>(d)] = r % t.outer_m[static_cast<size_t>(d)];
    r /= t.outer_m[static_cast<size_t>(d)];
  }
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
  const __m512i pat = _mm512_load_si512(pat_bytes);
  // kPerm rotates by whole lanes: the output must be aligned to the lane size.
  const bool perm_ok =
      t.perm_lane != 0 && reinterpret_cast<uintptr_t>(dst) % static_cast<uintptr_t>(t.perm_lane) == 0;
  Lines<kStream> w(dst + r0 * row_bytes);
  for (int64_t row = r0; row < r1; ++row) {
    int64_t off = 0;
    bool border = false;
    for (int d = 0; d < t.nouter; ++d) {
      const int64_t v =
          t.outer_off[static_cast<size_t>(d)][static_cast<size_t>(idx[static_cast<size_t>(d)])];
      if (v < 0) border = true;  // constant mode only
      off += v;
    }
    const char* in = src + off;
    if (constant) {
      if (border) {
        w.Fill(pat, row_bytes);
      } else {
        w.Fill(pat, left_bytes);
        w.Copy(in + t.c0 * cell, mid_bytes);
        w.Fill(pat, right_bytes);
      }
    } else {
      Pieces(w, t, t.left_pieces, t.left.data(), in, perm_ok);
      w.Copy(in + t.c0 * cell, mid_bytes);
      Pieces(w, t, t.right_pieces, t.right.data(), in, perm_ok);
    }
    for (int d = t.nouter - 1; d >= 0; --d) {
      if (++idx[static_cast<size_t>(d)] < t.outer_m[static_cast<size_t>(d)]) break;
      idx[static_cast<size_t>(d)] = 0;
    }
  }
  w.Finish();
}

bool Rows(const PadTables& t, const char* src, char* dst, const unsigned char* value, bool stream,
          int64_t r0, int64_t r1) {
  if (stream) {
    RowsT<true>(t, src, dst, value, r0, r1);
  } else {
    RowsT<false>(t, src, dst, value, r0, r1);
  }
  return true;
}

bool HasLines() { return true; }

#else  // no AVX-512 BW on this target: pad.lines declines (pad.rows writes the rows)

bool Rows(const PadTables&, const char*, char*, const unsigned char*, bool, int64_t, int64_t) {
  return false;
}

bool HasLines() { return false; }

#endif

}  // namespace HWY_NAMESPACE
}  // namespace gridops::kernels::pad_simd
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace gridops::kernels::pad_simd {
HWY_EXPORT(Rows);
HWY_EXPORT(HasLines);
}  // namespace gridops::kernels::pad_simd

namespace gridops::kernels {
bool pad_rows_lines(const PadTables& t, const char* src, char* dst, const unsigned char* value,
                    bool stream, int64_t r0, int64_t r1) {
  using namespace pad_simd;  // NOLINT(google-build-using-namespace): the dispatch table
  return HWY_DYNAMIC_DISPATCH(Rows)(t, src, dst, value, stream, r0, r1);
}

bool pad_lines_available() {
  using namespace pad_simd;  // NOLINT(google-build-using-namespace): the dispatch table
  return HWY_DYNAMIC_DISPATCH(HasLines)();
}
}  // namespace gridops::kernels
#endif  // HWY_ONCE
