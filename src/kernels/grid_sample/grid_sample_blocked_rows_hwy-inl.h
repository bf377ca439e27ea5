// The blocked path's 16-channel rows (grid_sample_blocked_hwy.cc, NOTE [ GridSample channel
// blocks ]): the Row type of a 16-channel pixel, its loads and stores, and the 16 x 16
// tile transposes, with their portable form. Highway's per-target include guard: included
// once per target by grid_sample_blocked_hwy.cc, after grid_sample_hwy-inl.h.
#if defined(GRIDOPS_KERNELS_GRID_SAMPLE_BLOCKED_ROWS_HWY_INL_H_) == defined(HWY_TARGET_TOGGLE)  // NOLINT
#ifdef GRIDOPS_KERNELS_GRID_SAMPLE_BLOCKED_ROWS_HWY_INL_H_
#undef GRIDOPS_KERNELS_GRID_SAMPLE_BLOCKED_ROWS_HWY_INL_H_
#else
#define GRIDOPS_KERNELS_GRID_SAMPLE_BLOCKED_ROWS_HWY_INL_H_
#endif

#include <cstddef>
#include <cstdint>

#include <hwy/highway.h>

#include "kernels/grid_sample/grid_sample_fast.h"

HWY_BEFORE_NAMESPACE();
namespace gridops::kernels::grid_sample_simd {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// NOTE [ GridSample Transpose16 ]
// The blocked path transposes 16 x 16 float tiles (16 channels x 16 points and back).
// Highway has no 16 x 16 transpose, so on AVX-512 it is Transpose16 below: raw unpack and
// 128-bit lane shuffles in registers, the only raw intrinsics of the path (the rest is
// Highway ops on FixedTag<float, 16>: Load/LoadU/MaskedLoad, MulAdd, IfThenElseZero,
// Store/StoreU/BlendedStore/Stream, which compile to the same AVX-512 instructions). On
// AVX2 the tile is four 8 x 8 tiles, each transposed by Transpose8 in Highway ops
// (InterleaveLower/Upper as floats and as doubles, ConcatLowerLower/UpperUpper). The
// portable form, Transpose16Portable, uses Highway ops only (gathers of a column per
// output row), on every target; the tests run it against the target's transpose and a
// scalar transpose on every Highway target (grid_sample_transpose16), and the whole
// blocked path with it in place of the target's (the test-only entry
// grid_sample.blocked_portable_transpose): the same bits. The blocked path runs on the
// x86 targets from AVX2 up (NOTE [ GridSample channel-block vectors ]); elsewhere the
// gather paths take its problems.

/// Portable 16 x 16 float transpose of a tile in memory: out[k * 16 + i] = in[i * 16 + k];
/// in and out 64-byte aligned and distinct. Bits are copied unchanged (NaN payloads too).
HWY_INLINE void Transpose16Portable(const float* HWY_RESTRICT in, float* HWY_RESTRICT out) {
  const hn::CappedTag<float, 16> d;
  const hn::RebindToSigned<decltype(d)> di;
  const auto N = static_cast<int64_t>(hn::Lanes(d));
  const auto rows = hn::ShiftLeft<4>(hn::Iota(di, 0));  // lane i: element (i, 0)
  for (int64_t k = 0; k < 16; ++k) {
    for (int64_t i0 = 0; i0 < 16; i0 += N) {
      hn::Store(hn::GatherIndex(d, in + i0 * 16 + k, rows), d, out + k * 16 + i0);
    }
  }
}

#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX2
// NOTE [ GridSample channel-block vectors ]
// A 16-channel pixel of the copy (one 64-byte line) and a row of a 16 x 16 tile are one
// Row: kV vectors of kN float lanes, one 16-lane vector on AVX-512 and two 8-lane vectors
// on AVX2. Step 4 then reads a tap's 16 channels with kV aligned loads of the same line
// (no gathers: AVX2 CPUs that run vgatherdps in microcode, AMD Zen 2 among them, read
// the taps as fast as AVX-512 ones do) and accumulates each lane with the same MulAdd
// sequence, so the bits are those of the other paths whatever kN.
#if HWY_TARGET <= HWY_AVX3
constexpr size_t kN = 16;
#else
constexpr size_t kN = 8;
#endif
constexpr int kV = static_cast<int>(kCB) / static_cast<int>(kN);
using DB = hn::FixedTag<float, kN>;
using VB = hn::Vec<DB>;
struct Row {
  VB v[kV];
};

HWY_INLINE Row LoadRowU(const float* p) {
  const DB d;
  Row r;
  for (int h = 0; h < kV; ++h) r.v[h] = hn::LoadU(d, p + h * kN);
  return r;
}

/// Lanes [0, m) of the row at p (0 <= m <= 16), zeros past them; lanes past m are neither
/// read nor faulted on (AVX2 and AVX-512 masked loads).
HWY_INLINE Row LoadRowFirst(const float* p, int64_t m) {
  const DB d;
  Row r;
  for (int h = 0; h < kV; ++h) {
    const int64_t n = std::clamp<int64_t>(m - h * static_cast<int64_t>(kN), 0, kN);
    r.v[h] = hn::MaskedLoad(hn::FirstN(d, static_cast<size_t>(n)), d, p + h * kN);
  }
  return r;
}

/// Keeps GCC from turning a loop of vector stores into a memcpy call (an empty asm that
/// claims to change v in its register).
HWY_INLINE void KeepInRegister(VB& v) { asm("" : "+v"(v.raw)); }

/// Stores the row at p (64-byte aligned), each vector kept in its register.
HWY_INLINE void StoreRow(Row r, float* p) {
  const DB d;
  for (int h = 0; h < kV; ++h) {
    KeepInRegister(r.v[h]);
    hn::Store(r.v[h], d, p + h * kN);
  }
}

#if HWY_TARGET <= HWY_AVX3
/// In-register transpose of a 16 x 16 float tile: out[k] lane i = in[i] lane k.
/// NOTE [ GridSample Transpose16 ]: the only raw intrinsics of this file.
HWY_INLINE void Transpose16(const VB* in, VB* out) {
  __m512 t[16], u[16];
  for (int i = 0; i < 8; ++i) {
    t[2 * i] = _mm512_unpacklo_ps(in[2 * i].raw, in[2 * i + 1].raw);
    t[2 * i + 1] = _mm512_unpackhi_ps(in[2 * i].raw, in[2 * i + 1].raw);
  }
  // u[4i + k], 128-bit block L: rows 4i..4i+3 at column 4L + k.
  for (int i = 0; i < 4; ++i) {
    const __m512d a = _mm512_castps_pd(t[4 * i]), b = _mm512_castps_pd(t[4 * i + 1]);
    const __m512d c = _mm512_castps_pd(t[4 * i + 2]), d = _mm512_castps_pd(t[4 * i + 3]);
    u[4 * i + 0] = _mm512_castpd_ps(_mm512_unpacklo_pd(a, c));
    u[4 * i + 1] = _mm512_castpd_ps(_mm512_unpackhi_pd(a, c));
    u[4 * i + 2] = _mm512_castpd_ps(_mm512_unpacklo_pd(b, d));
    u[4 * i + 3] = _mm512_castpd_ps(_mm512_unpackhi_pd(b, d));
  }
  // t[k]: rows 0-3 col k, rows 0-3 col 8+k, rows 4-7 col k, rows 4-7 col 8+k (t[4+k]:
  // columns 4+k and 12+k; t[8+k], t[12+k]: the same for rows 8-15).
  for (int k = 0; k < 4; ++k) {
    t[k] = _mm512_shuffle_f32x4(u[k], u[4 + k], 0x88);
    t[4 + k] = _mm512_shuffle_f32x4(u[k], u[4 + k], 0xdd);
    t[8 + k] = _mm512_shuffle_f32x4(u[8 + k], u[12 + k], 0x88);
    t[12 + k] = _mm512_shuffle_f32x4(u[8 + k], u[12 + k], 0xdd);
  }
  for (int k = 0; k < 4; ++k) {
    out[k] = VB{_mm512_shuffle_f32x4(t[k], t[8 + k], 0x88)};
    out[8 + k] = VB{_mm512_shuffle_f32x4(t[k], t[8 + k], 0xdd)};
    out[4 + k] = VB{_mm512_shuffle_f32x4(t[4 + k], t[12 + k], 0x88)};
    out[12 + k] = VB{_mm512_shuffle_f32x4(t[4 + k], t[12 + k], 0xdd)};
  }
}

/// The 16 x 16 tile transposed in registers: out[k] lane i = in[i] lane k.
HWY_INLINE void TransposeRows(const Row* in, Row* out) {
  VB a[16], b[16];
  for (int i = 0; i < 16; ++i) a[i] = in[i].v[0];
  Transpose16(a, b);
  for (int i = 0; i < 16; ++i) out[i].v[0] = b[i];
}
#else
/// In-register transpose of an 8 x 8 float tile in Highway ops (unpack within 128-bit
/// blocks as floats, then as doubles, then swap 128-bit halves): out[k] lane i = in[i]
/// lane k.
HWY_INLINE void Transpose8(const VB* in, VB* out) {
  const DB d;
  const hn::Repartition<double, DB> dd;
  VB u[8];
  for (int g = 0; g < 2; ++g) {  // rows 4g..4g+3
    const VB* r = in + 4 * g;
    const auto t0 = hn::BitCast(dd, hn::InterleaveLower(d, r[0], r[1]));
    const auto t1 = hn::BitCast(dd, hn::InterleaveUpper(d, r[0], r[1]));
    const auto t2 = hn::BitCast(dd, hn::InterleaveLower(d, r[2], r[3]));
    const auto t3 = hn::BitCast(dd, hn::InterleaveUpper(d, r[2], r[3]));
    // u[4g + k]: rows 4g..4g+3 at column k (lower half) and column 4 + k (upper half).
    u[4 * g + 0] = hn::BitCast(d, hn::InterleaveLower(dd, t0, t2));
    u[4 * g + 1] = hn::BitCast(d, hn::InterleaveUpper(dd, t0, t2));
    u[4 * g + 2] = hn::BitCast(d, hn::InterleaveLower(dd, t1, t3));
    u[4 * g + 3] = hn::BitCast(d, hn::InterleaveUpper(dd, t1, t3));
  }
  for (int k = 0; k < 4; ++k) {
    out[k] = hn::ConcatLowerLower(d, u[4 + k], u[k]);
    out[4 + k] = hn::ConcatUpperUpper(d, u[4 + k], u[k]);
  }
}

/// The 16 x 16 tile transposed as four 8 x 8 tiles: out[k] lane i = in[i] lane k.
HWY_INLINE void TransposeRows(const Row* in, Row* out) {
  for (int bi = 0; bi < 2; ++bi) {
    for (int bj = 0; bj < 2; ++bj) {
      VB a[8], b[8];
      for (int i = 0; i < 8; ++i) a[i] = in[8 * bi + i].v[bj];
      Transpose8(a, b);
      for (int k = 0; k < 8; ++k) out[8 * bj + k].v[bi] = b[k];
    }
  }
}
#endif

/// TransposeRows, or (kPortable: the tests' switch) Transpose16Portable through memory.
template <bool kPortable>
HWY_INLINE void TransposeTile(const Row* in, Row* out) {
  if constexpr (kPortable) {
    const DB d;
    HWY_ALIGN float a[256], b[256];
    for (int i = 0; i < 16; ++i) StoreRow(in[i], a + 16 * i);
    Transpose16Portable(a, b);
    for (int i = 0; i < 16; ++i) {
      for (int h = 0; h < kV; ++h) out[i].v[h] = hn::Load(d, b + 16 * i + h * kN);
    }
  } else {
    TransposeRows(in, out);
  }
}

#endif  // HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX2

}  // namespace HWY_NAMESPACE
}  // namespace gridops::kernels::grid_sample_simd
HWY_AFTER_NAMESPACE();

#endif  // per-target include guard
