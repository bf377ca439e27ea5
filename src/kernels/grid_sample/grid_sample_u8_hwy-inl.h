// The uint8 few-channel path's vector helpers (grid_sample_u8_hwy.cc): steps 1-2 of NOTE
// [ GridSample uint8 few-channel path ] (unnormalization, per-axis taps, word and pixel
// reads) and the stores of step 3. Included once per Highway target.
#if defined(GRIDOPS_KERNELS_GRID_SAMPLE_U8_HWY_INL_H_) == defined(HWY_TARGET_TOGGLE)  // NOLINT
#ifdef GRIDOPS_KERNELS_GRID_SAMPLE_U8_HWY_INL_H_
#undef GRIDOPS_KERNELS_GRID_SAMPLE_U8_HWY_INL_H_
#else
#define GRIDOPS_KERNELS_GRID_SAMPLE_U8_HWY_INL_H_
#endif

#include <algorithm>
#include <cstdint>
#include <cstring>

#include <hwy/highway.h>

#include "core/coords_hwy-inl.h"
#include "core/vec_array_hwy-inl.h"
#include "kernels/grid_sample/grid_sample_u8_ctx.h"

HWY_BEFORE_NAMESPACE();
namespace gridops::kernels::grid_sample_simd {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

using DF = hn::ScalableTag<float>;
using DI = hn::RebindToSigned<DF>;
using D8 = hn::Rebind<uint8_t, DF>;
using VF = hn::Vec<DF>;
using VI = hn::Vec<DI>;
// Arrays of vectors: NOTE [ Sizeless vectors ].
using VI4 = gridops::simd::HWY_NAMESPACE::VecArray<DI, 4>;
using VF4 = gridops::simd::HWY_NAMESPACE::VecArray<DF, 4>;
using MF = hn::Mask<DF>;

constexpr size_t kMaxLanes = HWY_MAX_BYTES / sizeof(float);

/// coords::unnormalize in the vector (coords::UnnormalizeV: the same operations in the
/// same order).
HWY_INLINE VF Unnormalize(VF g, int64_t len, bool align_corners) {
  const DF df;
  const float L = static_cast<float>(len);
  return gridops::coords::HWY_NAMESPACE::UnnormalizeV(df, g, hn::Set(df, L),
                                                      hn::Set(df, L - 1.0f), align_corners);
}

/// Float to int32 toward zero, for values known to be in int32 range (|v| < 2^22 here):
/// the conversion instruction alone, without ConvertTo's fix-up of overflowing lanes.
HWY_INLINE VI TruncI(VF v) {
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3
  return VI{_mm512_cvttps_epi32(v.raw)};
#elif HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX2
  return VI{_mm256_cvttps_epi32(v.raw)};
#elif HWY_ARCH_X86 && HWY_TARGET <= HWY_SSSE3
  return VI{_mm_cvttps_epi32(v.raw)};
#else
  return hn::ConvertTo(DI(), v);
#endif
}

/// Whether every lane's coordinate on `axis` lies in [origin, origin + ext - 1] (in
/// [origin, origin + ext - 1) with strict_end); false for NaN, infinities, huge values.
HWY_INLINE bool AllIn(const U8Ctx& c, int axis, VF x, bool strict_end) {
  const DF df;
  const VF org = hn::Set(df, static_cast<float>(c.origin[axis]));  // exact: below 2^22
  const VF end = hn::Set(df, static_cast<float>(c.origin[axis] + c.ext[axis] - 1));
  const MF below_end = strict_end ? hn::Lt(x, end) : hn::Le(x, end);
  return hn::AllTrue(df, hn::And(hn::Ge(x, org), below_end));
}

/// Lanes the vector formulas do not take: non-finite or |x| >= 2^22.
HWY_INLINE MF Exotic(VF x) {
  const DF df;
  return hn::Not(hn::Lt(hn::Abs(x), hn::Set(df, 4194304.0f)));
}

/// Linear taps of one axis (step 1-2): base (window-relative) and the weights of base and
/// base + 1.
HWY_INLINE void LinearAxis(const U8Ctx& c, int axis, VF x, VI& base, VF& w0, VF& w1) {
  const DF df;
  const DI di;
  // Every lane's taps floor(x), floor(x) + 1 inside src (x in [origin, origin + ext - 1)):
  // no padding, clamping or merged weights apply, so base = floor(x) - origin and the
  // weights are 1 - t, t, the same values as the general path below.
  if (AllIn(c, axis, x, /*strict_end=*/true)) {
    const VF f = hn::Floor(x);
    const VF t = hn::Sub(x, f);
    base = hn::Sub(TruncI(f), hn::Set(di, static_cast<int32_t>(c.origin[axis])));
    w0 = hn::Sub(hn::Set(df, 1.0f), t);
    w1 = t;
    return;
  }
  const MF exotic = Exotic(x);
  const VF xs = hn::IfThenZeroElse(exotic, x);
  const VF f = hn::Floor(xs);
  const VF t = hn::Sub(xs, f);
  const VI i0 = TruncI(f);
  const VI i1 = hn::Add(i0, hn::Set(di, 1));
  const VI zero = hn::Zero(di), last = hn::Set(di, static_cast<int32_t>(c.len[axis] - 1));
  VF a0 = hn::Sub(hn::Set(df, 1.0f), t), a1 = t;
  MF redo = exotic;
  if (c.padding == GridPadding::kZeros) {
    const auto in0 = hn::And(hn::Gt(i0, hn::Set(di, -1)), hn::Lt(i0, hn::Add(last, hn::Set(di, 1))));
    const auto in1 = hn::And(hn::Gt(i1, hn::Set(di, -1)), hn::Lt(i1, hn::Add(last, hn::Set(di, 1))));
    a0 = hn::IfThenElseZero(hn::RebindMask(df, in0), a0);
    a1 = hn::IfThenElseZero(hn::RebindMask(df, in1), a1);
  } else if (c.padding == GridPadding::kReflection) {
    const auto inside = hn::And(hn::Gt(i0, hn::Set(di, -1)), hn::Lt(i1, hn::Add(last, hn::Set(di, 1))));
    redo = hn::Or(redo, hn::RebindMask(df, hn::Not(inside)));
  }
  // Zeros: a tap outside has weight 0 and is clamped like border, to stay readable.
  const VI org = hn::Set(di, static_cast<int32_t>(c.origin[axis]));
  const VI elast = hn::Set(di, static_cast<int32_t>(c.ext[axis] - 1));
  VI p0 = hn::Min(hn::Max(i0, zero), last), p1 = hn::Min(hn::Max(i1, zero), last);
  if (c.windowed) {
    p0 = hn::Min(hn::Max(hn::Sub(p0, org), zero), elast);
    p1 = hn::Min(hn::Max(hn::Sub(p1, org), zero), elast);
  }
  base = hn::Max(hn::Min(hn::Min(p0, p1), hn::Sub(elast, hn::Set(di, 1))), zero);
  const VI b1 = hn::Add(base, hn::Set(di, 1));
  w0 = hn::Add(hn::IfThenElseZero(hn::RebindMask(df, hn::Eq(p0, base)), a0),
               hn::IfThenElseZero(hn::RebindMask(df, hn::Eq(p1, base)), a1));
  w1 = hn::Add(hn::IfThenElseZero(hn::RebindMask(df, hn::Eq(p0, b1)), a0),
               hn::IfThenElseZero(hn::RebindMask(df, hn::Eq(p1, b1)), a1));
  if (HWY_UNLIKELY(!hn::AllFalse(df, redo))) {
    HWY_ALIGN float xv[kMaxLanes], wa[kMaxLanes], wb[kMaxLanes];
    HWY_ALIGN int32_t bv[kMaxLanes], rv[kMaxLanes];
    hn::Store(x, df, xv);
    hn::Store(w0, df, wa);
    hn::Store(w1, df, wb);
    hn::Store(base, di, bv);
    hn::Store(hn::VecFromMask(di, hn::RebindMask(di, redo)), di, rv);
    for (size_t i = 0; i < hn::Lanes(df); ++i) {
      if (rv[i] != 0) pair_from_exact_taps(c, axis, xv[i], &bv[i], &wa[i], &wb[i]);
    }
    base = hn::Load(di, bv);
    w0 = hn::Load(df, wa);
    w1 = hn::Load(df, wb);
  }
}

/// Nearest tap of one axis: window-relative index and the inside mask (as all-ones
/// lanes; all lanes inside for border and reflection).
HWY_INLINE void NearestAxis(const U8Ctx& c, int axis, VF x, VI& idx, VI& inside) {
  const DF df;
  const DI di;
  // Every lane in [origin, origin + ext - 1]: its rounded index is inside src, no padding
  // or clamping applies (the general path below gives the same values).
  if (AllIn(c, axis, x, /*strict_end=*/false)) {
    idx = hn::Sub(TruncI(hn::Round(x)), hn::Set(di, static_cast<int32_t>(c.origin[axis])));
    inside = hn::Set(di, -1);
    return;
  }
  const MF exotic = Exotic(x);
  const VI i = TruncI(hn::Round(hn::IfThenZeroElse(exotic, x)));
  const VI zero = hn::Zero(di), last = hn::Set(di, static_cast<int32_t>(c.len[axis] - 1));
  const auto in = hn::And(hn::Gt(i, hn::Set(di, -1)), hn::Lt(i, hn::Add(last, hn::Set(di, 1))));
  MF redo = exotic;
  inside = hn::Set(di, -1);
  if (c.padding == GridPadding::kZeros) {
    inside = hn::VecFromMask(di, in);
  } else if (c.padding == GridPadding::kReflection) {
    redo = hn::Or(redo, hn::RebindMask(df, hn::Not(in)));
  }
  const VI org = hn::Set(di, static_cast<int32_t>(c.origin[axis]));
  const VI elast = hn::Set(di, static_cast<int32_t>(c.ext[axis] - 1));
  idx = hn::Min(hn::Max(i, zero), last);
  if (c.windowed) idx = hn::Min(hn::Max(hn::Sub(idx, org), zero), elast);
  if (HWY_UNLIKELY(!hn::AllFalse(df, redo))) {
    HWY_ALIGN float xv[kMaxLanes];
    HWY_ALIGN int32_t iv[kMaxLanes], sv[kMaxLanes], rv[kMaxLanes];
    hn::Store(x, df, xv);
    hn::Store(idx, di, iv);
    hn::Store(inside, di, sv);
    hn::Store(hn::VecFromMask(di, hn::RebindMask(di, redo)), di, rv);
    for (size_t k = 0; k < hn::Lanes(df); ++k) {
      if (rv[k] != 0) nearest_from_exact_taps(c, axis, xv[k], &iv[k], &sv[k]);
    }
    idx = hn::Load(di, iv);
    inside = hn::Load(di, sv);
  }
}

/// The 4 bytes at src + off (off <= lim + 3): read at min(off, lim) and shifted, so that
/// the byte at off is the lowest and nothing past src is read.
HWY_INLINE VI Word(const U8Ctx& c, VI off) {
  const DI di;
  const VI at = hn::Min(off, hn::Set(di, c.lim));
  const VI sh = hn::ShiftLeft<3>(hn::Sub(off, at));
  const VI w = hn::GatherOffset(di, reinterpret_cast<const int32_t*>(c.src), at);
  return hn::BitCast(di, hn::Shr(hn::BitCast(hn::RebindToUnsigned<DI>(), w),
                                 hn::BitCast(hn::RebindToUnsigned<DI>(), sh)));
}

#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX2
#define GRIDOPS_U8_PAIR64 1
/// Channels-last pixel pairs: one 64-bit read at pixel `off` brings the pixel (bytes
/// 0..C-1, into w0) and the next one (bytes C..2C-1, into w1), half as many gathered
/// elements as two 32-bit reads. Read at min(off, lim8) and shifted, like Word.
HWY_INLINE void PixelPair(const U8Ctx& c, int C, VI off, VI& w0, VI& w1) {
  const DI di;
  const hn::Half<DI> dh;
  const hn::Repartition<int64_t, DI> d64;
  const hn::RebindToUnsigned<decltype(d64)> du64;
  const VI at = hn::Min(off, hn::Set(di, c.lim8));
  const VI sh = hn::ShiftLeft<3>(hn::Sub(off, at));
  const auto* base = reinterpret_cast<const int64_t*>(c.src);
  auto lo = hn::GatherOffset(d64, base, hn::PromoteTo(d64, hn::LowerHalf(dh, at)));
  auto hi = hn::GatherOffset(d64, base, hn::PromoteTo(d64, hn::UpperHalf(dh, at)));
  lo = hn::BitCast(d64, hn::Shr(hn::BitCast(du64, lo),
                                hn::BitCast(du64, hn::PromoteTo(d64, hn::LowerHalf(dh, sh)))));
  hi = hn::BitCast(d64, hn::Shr(hn::BitCast(du64, hi),
                                hn::BitCast(du64, hn::PromoteTo(d64, hn::UpperHalf(dh, sh)))));
  w0 = hn::ConcatEven(di, hn::BitCast(di, hi), hn::BitCast(di, lo));
  const int bits = 8 * C;
  w1 = hn::ConcatEven(di, hn::BitCast(di, hn::ShiftRightSame(hi, bits)),
                      hn::BitCast(di, hn::ShiftRightSame(lo, bits)));
}
#endif

/// Byte k (0..3) of each word, as float.
template <int k>
HWY_INLINE VF Byte(VI w) {
  const DF df;
  const DI di;
  return hn::ConvertTo(df, hn::And(hn::ShiftRight<8 * k>(w), hn::Set(di, 0xFF)));
}

HWY_INLINE VF ByteN(VI w, int k) {
  switch (k) {
    case 0: return Byte<0>(w);
    case 1: return Byte<1>(w);
    case 2: return Byte<2>(w);
    default: return Byte<3>(w);
  }
}

HWY_INLINE VI ByteIN(VI w, int k) {
  const DI di;
  return hn::And(hn::ShiftRightSame(w, 8 * k), hn::Set(di, 0xFF));
}

/// Stores the C channel vectors (int32 lanes holding 0..255) of `count` points at output
/// (n, oy, ox).
HWY_INLINE void StoreOut(const U8Ctx& c, int C, uint8_t* drow, int64_t ox, size_t count, const VI4& v) {
  const DI di;
  const D8 d8;
  const size_t L = hn::Lanes(di);
  if (c.dst_dense && count == L) {
    if (!c.channels_last) {
      for (int ch = 0; ch < C; ++ch) {
        hn::StoreU(hn::DemoteTo(d8, v[ch]), d8, drow + ch * c.dc + ox);
      }
      return;
    }
    uint8_t* o = drow + ox * C;
    switch (C) {
      case 1: hn::StoreU(hn::DemoteTo(d8, v[0]), d8, o); return;
      case 2:
        hn::StoreInterleaved2(hn::DemoteTo(d8, v[0]), hn::DemoteTo(d8, v[1]), d8, o);
        return;
      case 3:
        hn::StoreInterleaved3(hn::DemoteTo(d8, v[0]), hn::DemoteTo(d8, v[1]),
                              hn::DemoteTo(d8, v[2]), d8, o);
        return;
      default:
        hn::StoreInterleaved4(hn::DemoteTo(d8, v[0]), hn::DemoteTo(d8, v[1]),
                              hn::DemoteTo(d8, v[2]), hn::DemoteTo(d8, v[3]), d8, o);
        return;
    }
  }
  HWY_ALIGN int32_t t[kMaxLanes];
  for (int ch = 0; ch < C; ++ch) {
    hn::Store(v[ch], di, t);
    for (size_t i = 0; i < count; ++i) {
      drow[ch * c.dc + (ox + static_cast<int64_t>(i)) * c.dx] = static_cast<uint8_t>(t[i]);
    }
  }
}

/// Channels-last dense dst, a full vector: each lane's word holds a pixel's C channels in
/// its low C bytes; they are packed within each 128-bit block by one byte shuffle
/// (`pack`), leaving C whole 32-bit lanes per block. With `room` (at least 4 * lanes bytes
/// of this row from o on, which this thread writes next), the lanes of all blocks are
/// brought together by one lane permutation (`perm`) and stored as one vector, the bytes
/// past the C * lanes valid ones being overwritten by the next vector; else each block's
/// 4 * C bytes are copied.
HWY_INLINE void StoreWords(int C, uint8_t* o, VI w, const uint8_t* pack,
                           const int32_t* perm, bool room) {
  const DI di;
#if HWY_TARGET == HWY_SCALAR
  (void)pack;
  (void)perm;
  (void)room;
  HWY_ALIGN int32_t t[1];
  hn::Store(w, di, t);
  std::memcpy(o, t, static_cast<size_t>(C));  // little-endian: the low C bytes
#else
  const hn::Repartition<uint8_t, DI> d8;
  if (room) {
    const VI packed =
        C == 4 ? w
                 : hn::BitCast(di, hn::TableLookupBytes(hn::BitCast(d8, w), hn::Load(d8, pack)));
    const VI lanes = hn::TableLookupLanes(packed, hn::SetTableIndices(di, perm));
    hn::StoreU(hn::BitCast(d8, lanes), d8, o);
    return;
  }
  HWY_ALIGN uint8_t t[HWY_MAX_BYTES];
  hn::Store(hn::TableLookupBytes(hn::BitCast(d8, w), hn::Load(d8, pack)), d8, t);
  const size_t run = 4 * static_cast<size_t>(C), blocks = hn::Lanes(di) / 4;
  for (size_t b = 0; b < blocks; ++b) std::memcpy(o + b * run, t + 16 * b, run);
#endif
}

// NOTE [ GridSample uint8 planar word store ]
// A channels-first dense dst, a full vector of points whose words hold their C channels
// in the low C bytes (nearest: the word read from the channels-last copy, NOTE [ GridSample
// uint8 interleaved copy ]; linear: its C results ORed into one). One byte shuffle per
// 128-bit block (`planar_pack`: its 4 words' channel-0 bytes, then channel 1's, ...) and
// one lane permutation (`planar_perm`: dword ch * blocks + b takes dword ch of block b)
// leave channel ch's lanes-many bytes contiguous at byte ch * lanes, stored to its plane
// at drow + ch * dc + ox (AVX-512: block ch, from the register; a copy through a stack
// buffer waited for the 64-byte store at every 16-byte reload). The per-channel
// extraction, narrowing and store it replaces cost more (docs/perf/grid_sample.md,
// "uint8 few-channel path").
/// Channels-first dense dst, a full vector: NOTE [ GridSample uint8 planar word store ].
HWY_INLINE void StorePlanarWords(const U8Ctx& c, int C, uint8_t* drow, int64_t ox, VI w,
                                 const uint8_t* planar_pack, const int32_t* planar_perm) {
  const DI di;
#if HWY_TARGET == HWY_SCALAR
  (void)planar_pack;
  (void)planar_perm;
  HWY_ALIGN int32_t t[1];
  hn::Store(w, di, t);
  for (int ch = 0; ch < C; ++ch) drow[ch * c.dc + ox] = static_cast<uint8_t>(t[0] >> (8 * ch));
#else
  const hn::Repartition<uint8_t, DI> d8;
  const VI packed = hn::BitCast(di, hn::TableLookupBytes(hn::BitCast(d8, w), hn::Load(d8, planar_pack)));
  const auto v8 = hn::BitCast(d8, hn::TableLookupLanes(packed, hn::SetTableIndices(di, planar_perm)));
#if HWY_TARGET <= HWY_AVX3
  // 16 lanes: channel ch's bytes are 128-bit block ch, stored from the register.
  const hn::Half<decltype(d8)> dh;
  const hn::Half<decltype(dh)> dq;
  const auto lo = hn::LowerHalf(dh, v8), hi = hn::UpperHalf(dh, v8);
  hn::StoreU(hn::LowerHalf(dq, lo), dq, drow + ox);
  if (C > 1) hn::StoreU(hn::UpperHalf(dq, lo), dq, drow + c.dc + ox);
  if (C > 2) hn::StoreU(hn::LowerHalf(dq, hi), dq, drow + 2 * c.dc + ox);
  if (C > 3) hn::StoreU(hn::UpperHalf(dq, hi), dq, drow + 3 * c.dc + ox);
#else
  const size_t L = hn::Lanes(di);
  HWY_ALIGN uint8_t t[HWY_MAX_BYTES];
  hn::Store(v8, d8, t);
  for (int ch = 0; ch < C; ++ch) std::memcpy(drow + ch * c.dc + ox, t + ch * L, L);
#endif
#endif
}

}  // namespace HWY_NAMESPACE
}  // namespace gridops::kernels::grid_sample_simd
HWY_AFTER_NAMESPACE();

#endif  // include guard
