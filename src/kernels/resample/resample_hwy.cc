// Fast resampling, forward and backward, float32 and bfloat16, written once with Highway.
//
// NOTE [ Fast resample arithmetic ]
// Every output element is computed by exactly one thread with the same operations in the
// same order whatever the layout, the vector width used for it, or the thread split, so
// results are identical across memory formats and thread counts. Per element:
// - linear forward, f32 arithmetic, axes reduced from the first spatial axis (D) to the
//   last (W): lerp(a, b) = MulAdd(w1, b, Mul(w0, a)), with the float32 weights of the plan;
//   2-D: lerp_w(lerp_h(x00, x10), lerp_h(x01, x11)); 3-D: lerp_w(lerp_h(lerp_d(..))).
//   Computed as: one "row" v[iw] = lerp_h(lerp_d(..)) over the input width, then the W lerp.
// - linear backward (the adjoint, from the same tables): sums over the CSR uses in
//   increasing output order, first term a Mul, then MulAdd; axis D innermost, W outermost:
//   diff_src[i] = sum_w ww * (sum_h wh * (sum_d wd * g)). Empty sums give +0.
// - nearest forward: a copy of the element (bit-exact).
// - nearest backward: the sum of the gradients in double, in the lexicographic order of
//   the output index, first term assigned, then rounded once (bf16: round-to-odd to f32,
//   then to nearest even), which is exactly what the reference does: bit-exact.
// Accuracy of linear: see docs/ops/resample.md "Fast path".
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "core/coords.h"
#include "gridops/dtype.h"
#include "gridops/parallel.h"
#include "kernels/resample/resample.h"
#include "kernels/resample/resample_fast.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/resample/resample_hwy.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/cache_control.h>
#include <hwy/highway.h>

#include "core/convert_hwy-inl.h"

HWY_BEFORE_NAMESPACE();
namespace gridops::kernels::resample_simd {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

using Tables = ResampleFastTables;

constexpr size_t kMaxF32Lanes = HWY_MAX_BYTES / 4;

inline float ToF32(float x) { return x; }
inline float ToF32(bfloat16 x) { return bf16_to_f32(x); }
template <class T>
inline T FromF32(float x);
template <>
inline float FromF32<float>(float x) {
  return x;
}
template <>
inline bfloat16 FromF32<bfloat16>(float x) {
  return f32_to_bf16(x);
}

// --- loads and stores as float32 ---------------------------------------------------------

template <class D>
HWY_INLINE hn::Vec<D> LoadF(D d, const float* p) {
  return hn::LoadU(d, p);
}
template <class D>
HWY_INLINE hn::Vec<D> LoadF(D d, const bfloat16* p) {
  return gridops::HWY_NAMESPACE::LoadBF16(d, p);
}

/// The first `real` elements (0 <= real <= lanes), zeros in the other lanes.
template <class D, class T>
HWY_INLINE hn::Vec<D> LoadPartialF(D d, const T* p, int64_t real) {
  HWY_ALIGN float buf[kMaxF32Lanes] = {};
  for (int64_t i = 0; i < real; ++i) buf[i] = ToF32(p[i]);
  return hn::LoadU(d, buf);
}

template <class D>
HWY_INLINE void StoreF(D d, hn::Vec<D> v, float* p) {
  hn::StoreU(v, d, p);
}
/// float32 -> bfloat16 round to nearest even, NaN quieted: bit-identical to f32_to_bf16.
template <class D>
HWY_INLINE void StoreF(D d, hn::Vec<D> v, bfloat16* p) {
  gridops::HWY_NAMESPACE::StoreBF16(d, v, p);
}

template <class D, class T>
HWY_INLINE void StorePartialF(D d, hn::Vec<D> v, T* p, int64_t count) {
  HWY_ALIGN float buf[kMaxF32Lanes] = {};
  hn::StoreU(v, d, buf);
  for (int64_t i = 0; i < count; ++i) p[i] = FromF32<T>(buf[i]);
}

/// A full-vector store, non-temporal when `stream` (the caller guarantees alignment to the
/// vector size and a full native vector: kCap >= 8).
template <class D>
HWY_INLINE void StoreOut(D d, hn::Vec<D> v, float* p, bool stream) {
  if (stream) {
    hn::Stream(v, d, p);
  } else {
    hn::StoreU(v, d, p);
  }
}
template <class D>
HWY_INLINE void StoreOut(D d, hn::Vec<D> v, bfloat16* p, bool stream) {
  if (!stream) {
    StoreF(d, v, p);
    return;
  }
  HWY_ALIGN bfloat16 buf[kMaxF32Lanes];
  StoreF(d, v, buf);
  const hn::Rebind<uint16_t, D> du16;
  hn::Stream(hn::Load(du16, reinterpret_cast<const uint16_t*>(buf)), du16,
             reinterpret_cast<uint16_t*>(p));
}

/// Copies n elements of a scratch row to p: whole vectors streamed when `stream` and p is
/// aligned to the vector size, the rest (everything otherwise) with ordinary stores.
template <class D, class T>
HWY_INLINE void CopyRowOut(D d, const T* HWY_RESTRICT row, T* p, int64_t n, bool stream) {
  const auto N = static_cast<int64_t>(hn::Lanes(d));
  const bool st = stream && reinterpret_cast<uintptr_t>(p) % (N * sizeof(T)) == 0;
  int64_t i = 0;
  for (; i + N <= n; i += N) {
    const auto v = hn::LoadU(d, row + i);
    if (st) {
      hn::Stream(v, d, p + i);
    } else {
      hn::StoreU(v, d, p + i);
    }
  }
  for (; i < n; ++i) p[i] = row[i];
}

/// Non-temporal stores pay off for outputs well beyond the caches.
constexpr int64_t kStreamBytes = int64_t{4} << 20;

template <class D>
HWY_INLINE hn::Vec<D> Lerp(hn::Vec<D> w0, hn::Vec<D> w1, hn::Vec<D> a, hn::Vec<D> b) {
  return hn::MulAdd(w1, b, hn::Mul(w0, a));
}

// --- double results of nearest backward -----------------------------------------------------

template <class DD>
HWY_INLINE void StoreD(DD /* dd */, hn::Vec<DD> acc, float* p) {
  const hn::Rebind<float, DD> df;
  hn::StoreU(hn::DemoteTo(df, acc), df, p);
}
/// double -> bfloat16 with one rounding: round to odd in float32 (the last bit records
/// inexactness), then to nearest even; the same steps as f64_to_bf16.
template <class DD>
HWY_INLINE void StoreD(DD dd, hn::Vec<DD> acc, bfloat16* p) {
  const hn::Rebind<float, DD> df;
  const hn::RebindToUnsigned<decltype(df)> du;
  const auto f = hn::DemoteTo(df, acc);
  const auto back = hn::PromoteTo(dd, f);
  // Masks move from double to float lanes through 0/1 values (same lane count).
  const auto one = hn::Set(dd, 1.0);
  const auto inexact_d = hn::IfThenZeroElse(hn::Eq(back, acc), one);
  const auto away_d = hn::IfThenElseZero(hn::Gt(hn::Abs(back), hn::Abs(acc)), one);
  const auto zero_f = hn::Zero(df);
  const auto inexact = hn::RebindMask(du, hn::Gt(hn::DemoteTo(df, inexact_d), zero_f));
  const auto away = hn::RebindMask(du, hn::Gt(hn::DemoteTo(df, away_d), zero_f));
  auto bits = hn::BitCast(du, f);
  bits = hn::IfThenElse(away, hn::Sub(bits, hn::Set(du, 1u)), bits);
  bits = hn::IfThenElse(inexact, hn::Or(bits, hn::Set(du, 1u)), bits);
  StoreF(df, hn::BitCast(df, bits), p);
}
template <class DD, class T>
HWY_INLINE void StorePartialD(DD dd, hn::Vec<DD> acc, T* p, int64_t count) {
  HWY_ALIGN T buf[kMaxF32Lanes] = {};
  StoreD(dd, acc, buf);
  for (int64_t i = 0; i < count; ++i) p[i] = buf[i];
}
template <class DD, class T>
HWY_INLINE hn::Vec<DD> LoadD(DD dd, const T* p, int64_t real, int64_t lanes) {
  const hn::Rebind<float, DD> df;
  if (real == lanes) return hn::PromoteTo(dd, LoadF(df, p));
  return hn::PromoteTo(dd, LoadPartialF(df, p, real));
}

// --- helpers ----------------------------------------------------------------------------------

inline int64_t ChanOff(const ResampleLayout& l, int64_t c) {
  return (c / l.block) * l.c_block_stride + (c % l.block) * l.c_inner_stride;
}

inline int64_t GrainFor(int64_t work_per_task) {
  const int64_t g = 16384 / std::max<int64_t>(work_per_task, 1);
  return std::max<int64_t>(g, 1);
}

/// Decomposes an outer position (all spatial axes but the last, row-major) into indices.
template <int R>
HWY_INLINE void OuterIndex(int64_t pos, const int64_t* len, int64_t idx[2]) {
  if constexpr (R == 3) {
    idx[0] = pos / len[1];
    idx[1] = pos % len[1];
  } else if constexpr (R == 2) {
    idx[0] = pos;
  }
  (void)pos;
  (void)len;
  (void)idx;
}

/// The taps of the outer axes (all spatial axes but W) of the linear forward kernels at
/// output position oi: source row offsets so[] (axis 0 varies fastest; unused entries 0),
/// the weights (a: axis 0, b: axis 1 of a 3-D problem; 1 and 0 where the rank has no such
/// axis) and the output row offset.
struct OuterTaps {
  int64_t so[4] = {0, 0, 0, 0};
  float wa0 = 1, wa1 = 0, wb0 = 1, wb1 = 0;
  int64_t doff = 0;
};
template <int R>
HWY_INLINE OuterTaps MakeOuterTaps(const Tables& tb, const ResampleLayout& S,
                                   const ResampleLayout& Dl, const int64_t oi[2]) {
  OuterTaps t;
  if constexpr (R == 2) {
    const ResampleAxisTable& ah = tb.axis[0];
    t.so[0] = ah.i0[oi[0]] * S.spatial_stride[0];
    t.so[1] = ah.i1[oi[0]] * S.spatial_stride[0];
    t.wa0 = ah.w0[oi[0]];
    t.wa1 = ah.w1[oi[0]];
    t.doff = oi[0] * Dl.spatial_stride[0];
  } else if constexpr (R == 3) {
    const ResampleAxisTable& ad = tb.axis[0];
    const ResampleAxisTable& ah = tb.axis[1];
    const int64_t d0 = ad.i0[oi[0]] * S.spatial_stride[0];
    const int64_t d1 = ad.i1[oi[0]] * S.spatial_stride[0];
    const int64_t h0 = ah.i0[oi[1]] * S.spatial_stride[1];
    const int64_t h1 = ah.i1[oi[1]] * S.spatial_stride[1];
    t.so[0] = d0 + h0;
    t.so[1] = d1 + h0;
    t.so[2] = d0 + h1;
    t.so[3] = d1 + h1;
    t.wa0 = ad.w0[oi[0]];
    t.wa1 = ad.w1[oi[0]];
    t.wb0 = ah.w0[oi[1]];
    t.wb1 = ah.w1[oi[1]];
    t.doff = oi[0] * Dl.spatial_stride[0] + oi[1] * Dl.spatial_stride[1];
  }
  (void)tb;
  (void)S;
  (void)Dl;
  (void)oi;
  return t;
}

/// Whether the channel-vector kernels may use non-temporal stores into `out` (layout l):
/// a large output, whole native vectors, chunks aligned to the vector size.
template <class T>
bool StreamOK(const ResampleProblem& p, const ResampleLayout& l, const T* out, int64_t L,
              size_t cap) {
  if (cap < 8) return false;
  int64_t elems = p.n * l.padded_c;
  for (int k = 0; k < p.spatial_rank; ++k) elems *= (&l == &p.src ? p.in[k] : p.out[k]);
  if (elems * static_cast<int64_t>(sizeof(T)) < kStreamBytes) return false;
  if (reinterpret_cast<uintptr_t>(out) % 64 != 0) return false;
  // Every chunk start must be a multiple of L elements: blocked (block multiple of L) or
  // channels-last with C a multiple of L.
  return l.block > 1 ? l.block % L == 0 : p.c % L == 0;
}

// =====================================================================================
// Channel-vector kernels: both tensors hold runs of contiguous channels (nhwc, blocked,
// any mix of them; kCap == 1 is the generic per-channel path for any other mix).
// =====================================================================================

template <class T, int R, size_t kCap>
void FwdLinearC(const ResampleProblem& p, const Tables& tb, const T* src, T* dst) {
  const hn::CappedTag<float, kCap> d;
  using DV = decltype(d);
  const int64_t L = static_cast<int64_t>(hn::Lanes(d));
  const ResampleLayout& S = p.src;
  const ResampleLayout& Dl = p.dst;
  const int64_t nq = (Dl.padded_c + L - 1) / L;
  const int64_t Iw = p.in[R - 1], Ow = p.out[R - 1];
  const int64_t G = std::clamp<int64_t>((64 * 1024) / std::max<int64_t>(Iw * L, 1), 1, nq);
  const int64_t ngroups = (nq + G - 1) / G;
  int64_t outer = 1;
  for (int k = 0; k < R - 1; ++k) outer *= p.out[k];
  const int64_t tasks = p.n * ngroups * outer;
  const ResampleAxisTable& aw = tb.axis[R - 1];
  const int64_t ssw = S.spatial_stride[R - 1], dsw = Dl.spatial_stride[R - 1];
  const int32_t* i0p = aw.i0.data();
  const int32_t* i1p = aw.i1.data();
  const float* w0p = aw.w0.data();
  const float* w1p = aw.w1.data();
  const bool stream = StreamOK(p, Dl, dst, L, kCap);
  // Both tensors channels-last: the chunks of a group are adjacent in memory on both sides,
  // so a group's chunks at one pixel form one run of G * L elements.
  const bool flat_layout =
      S.block == 1 && Dl.block == 1 && S.c_block_stride == 1 && Dl.c_block_stride == 1;
  const bool fuse = Iw >= 2 * Ow;
  parallel_for(tasks, GrainFor(Ow * G * L), [&](int64_t begin, int64_t end) {
    // Everything the loops use is a local here, not a closure member: vector stores may
    // alias anything, so values read through the closure would be reloaded after each store.
    const int64_t lanes = L, iw_n = Iw, ow_n = Ow, s_w = ssw, d_w = dsw;
    const int32_t* const t_i0 = i0p;
    const int32_t* const t_i1 = i1p;
    const float* const t_w0 = w0p;
    const float* const t_w1 = w1p;
    const T* const s_base = src;
    T* const d_base = dst;
    const bool strm = stream, fuse_l = fuse, flat_l = flat_layout;
    std::vector<float> v(static_cast<size_t>(iw_n * G * lanes));
    std::vector<int64_t> qreal(static_cast<size_t>(G)), qs(qreal.size()), qd(qreal.size());
    for (int64_t task = begin; task < end; ++task) {
      const int64_t pos = task % outer;
      const int64_t rest = task / outer;
      const int64_t g = rest % ngroups, n = rest / ngroups;
      const int64_t q0 = g * G, q1 = std::min(nq, q0 + G);
      int64_t oi[2] = {0, 0};
      OuterIndex<R>(pos, p.out, oi);
      // Source row offsets (axis 0 varies fastest) and weights of the outer axes.
      const OuterTaps ot = MakeOuterTaps<R>(tb, S, Dl, oi);
      const int64_t* so = ot.so;
      const float wa0 = ot.wa0, wa1 = ot.wa1, wb0 = ot.wb0, wb1 = ot.wb1;
      const int64_t doff = ot.doff;
      const auto va0 = hn::Set(d, wa0), va1 = hn::Set(d, wa1);
      const auto vb0 = hn::Set(d, wb0), vb1 = hn::Set(d, wb1);
      // Per chunk: real channels, s_base and d_base offsets.
      const int64_t nql = q1 - q0;
      for (int64_t j = 0; j < nql; ++j) {
        const int64_t c0 = (q0 + j) * lanes;
        qreal[j] = std::min(lanes, p.c - c0);
        qs[j] = qreal[j] > 0 ? n * S.n_stride + ChanOff(S, c0) : 0;
        qd[j] = n * Dl.n_stride + ChanOff(Dl, c0) + doff;
      }
      // The loops below keep everything they use in locals: vector stores may alias
      // anything, so values read through references would be reloaded after each store.
      const int64_t GL = nql * lanes;  // v's stride per input column
      float* const vp = v.data();
      const bool flat = flat_l && q1 * lanes <= p.c;
      // Downsampling by 2 or more with full chunks: each input column feeds at most about
      // one output, so the outer interpolation is computed at both W taps of each output
      // directly (the same operations on the same values as the two steps below, without
      // the round trip through v).
      if (fuse_l && q1 * lanes <= p.c) {
        auto fused = [&](auto st) {
          constexpr bool kStream = decltype(st)::value;
          const int64_t runs = flat ? 1 : nql;  // runs of contiguous chunks
          const int64_t run_len = flat ? GL : lanes;
          for (int64_t j = 0; j < runs; ++j) {
            const T* sb = s_base + qs[j];
            const T* r0 = sb + so[0];
            const T* r1 = sb + so[1];
            const T* r2 = sb + so[2];
            const T* r3 = sb + so[3];
            T* db = d_base + qd[j];
            auto at = [&](int64_t off) {
              if constexpr (R == 1) {
                return LoadF(d, r0 + off);
              } else if constexpr (R == 2) {
                return Lerp<DV>(va0, va1, LoadF(d, r0 + off), LoadF(d, r1 + off));
              } else {
                const auto lo = Lerp<DV>(va0, va1, LoadF(d, r0 + off), LoadF(d, r1 + off));
                const auto hi = Lerp<DV>(va0, va1, LoadF(d, r2 + off), LoadF(d, r3 + off));
                return Lerp<DV>(vb0, vb1, lo, hi);
              }
            };
            for (int64_t ow = 0; ow < ow_n; ++ow) {
              const int64_t o0 = t_i0[ow] * s_w, o1 = t_i1[ow] * s_w;
              const auto w0 = hn::Set(d, t_w0[ow]), w1 = hn::Set(d, t_w1[ow]);
              T* dp = db + ow * d_w;
              for (int64_t k = 0; k < run_len; k += lanes) {
                const auto a = at(o0 + k);
                const auto b = at(o1 + k);
                StoreOut(d, Lerp<DV>(w0, w1, a, b), dp + k, kStream);
              }
            }
          }
        };
        if (strm) {
          fused(std::true_type{});
        } else {
          fused(std::false_type{});
        }
        continue;
      }
      // Step 1: v[iw][chunk] = the outer axes' interpolation at input column iw.
      // Groups of full channel-last chunks on both sides (the common case) run flat vector
      // loops; other groups (blocked, partial or padding-only chunks) go chunk by chunk.
      if (flat) {
        const T* sb = s_base + qs[0];
        const T* r0 = sb + so[0];
        const T* r1 = sb + so[1];
        const T* r2 = sb + so[2];
        const T* r3 = sb + so[3];
        for (int64_t iw = 0; iw < iw_n; ++iw) {
          float* out = vp + iw * GL;
          const int64_t off = iw * s_w;
          for (int64_t k = 0; k < GL; k += lanes) {
            hn::Vec<DV> r;
            if constexpr (R == 1) {
              r = LoadF(d, r0 + off + k);
            } else if constexpr (R == 2) {
              r = Lerp<DV>(va0, va1, LoadF(d, r0 + off + k), LoadF(d, r1 + off + k));
            } else {
              const auto lo = Lerp<DV>(va0, va1, LoadF(d, r0 + off + k), LoadF(d, r1 + off + k));
              const auto hi = Lerp<DV>(va0, va1, LoadF(d, r2 + off + k), LoadF(d, r3 + off + k));
              r = Lerp<DV>(vb0, vb1, lo, hi);
            }
            hn::StoreU(r, d, out + k);
          }
        }
      } else {
        for (int64_t j = 0; j < nql; ++j) {
          const int64_t real = qreal[j];
          const T* sb = s_base + qs[j];
          const T* r0 = sb + so[0];
          const T* r1 = sb + so[1];
          const T* r2 = sb + so[2];
          const T* r3 = sb + so[3];
          float* out = vp + j * lanes;
          auto col = [&](auto ld) {
            for (int64_t iw = 0; iw < iw_n; ++iw) {
              const int64_t off = iw * s_w;
              hn::Vec<DV> r;
              if constexpr (R == 1) {
                r = ld(r0 + off);
              } else if constexpr (R == 2) {
                r = Lerp<DV>(va0, va1, ld(r0 + off), ld(r1 + off));
              } else {
                const auto lo = Lerp<DV>(va0, va1, ld(r0 + off), ld(r1 + off));
                const auto hi = Lerp<DV>(va0, va1, ld(r2 + off), ld(r3 + off));
                r = Lerp<DV>(vb0, vb1, lo, hi);
              }
              hn::StoreU(r, d, out + iw * GL);
            }
          };
          if (real == lanes) {
            col([d](const T* ptr) { return LoadF(d, ptr); });
          } else if (real <= 0) {
            for (int64_t iw = 0; iw < iw_n; ++iw) hn::StoreU(hn::Zero(d), d, out + iw * GL);
          } else {
            col([d, real](const T* ptr) { return LoadPartialF(d, ptr, real); });
          }
        }
      }
      // Step 2: the W lerp, stored in the d_base layout.
      auto step2 = [&](auto st) {
        constexpr bool kStream = decltype(st)::value;
        if (flat) {
          T* db = d_base + qd[0];
          for (int64_t ow = 0; ow < ow_n; ++ow) {
            const float* va = vp + t_i0[ow] * GL;
            const float* vb = vp + t_i1[ow] * GL;
            const auto w0 = hn::Set(d, t_w0[ow]), w1 = hn::Set(d, t_w1[ow]);
            T* dp = db + ow * d_w;
            for (int64_t k = 0; k < GL; k += lanes) {
              const auto r = Lerp<DV>(w0, w1, hn::LoadU(d, va + k), hn::LoadU(d, vb + k));
              StoreOut(d, r, dp + k, kStream);
            }
          }
          return;
        }
        for (int64_t j = 0; j < nql; ++j) {
          const int64_t real = qreal[j];
          const float* vj = vp + j * lanes;
          T* db = d_base + qd[j];
          if (real >= lanes || Dl.block > 1) {
            for (int64_t ow = 0; ow < ow_n; ++ow) {
              const auto r = Lerp<DV>(hn::Set(d, t_w0[ow]), hn::Set(d, t_w1[ow]),
                                      hn::LoadU(d, vj + t_i0[ow] * GL), hn::LoadU(d, vj + t_i1[ow] * GL));
              StoreOut(d, r, db + ow * d_w, kStream);
            }
          } else {
            for (int64_t ow = 0; ow < ow_n; ++ow) {
              const auto r = Lerp<DV>(hn::Set(d, t_w0[ow]), hn::Set(d, t_w1[ow]),
                                      hn::LoadU(d, vj + t_i0[ow] * GL), hn::LoadU(d, vj + t_i1[ow] * GL));
              StorePartialF(d, r, db + ow * d_w, real);
            }
          }
        }
      };
      if (strm) {
        step2(std::true_type{});
      } else {
        step2(std::false_type{});
      }
    }
    if (strm) hwy::FlushStream();
  });
}

template <class T, int R, size_t kCap>
void BwdLinearC(const ResampleProblem& p, const Tables& tb, const T* gsrc, T* out) {
  const hn::CappedTag<float, kCap> d;
  const int64_t L = static_cast<int64_t>(hn::Lanes(d));
  const ResampleLayout& Gl = p.dst;  // diff_dst
  const ResampleLayout& Ol = p.src;  // diff_src
  const int64_t nq = (Ol.padded_c + L - 1) / L;
  const int64_t Iw = p.in[R - 1], Ow = p.out[R - 1];
  const int64_t G = std::clamp<int64_t>((64 * 1024) / std::max<int64_t>(Ow * L, 1), 1, nq);
  const int64_t ngroups = (nq + G - 1) / G;
  int64_t outer = 1;
  for (int k = 0; k < R - 1; ++k) outer *= p.in[k];
  const int64_t tasks = p.n * ngroups * outer;
  const ResampleAxisTable& aw = tb.axis[R - 1];
  const int64_t gsw = Gl.spatial_stride[R - 1], osw = Ol.spatial_stride[R - 1];
  const int64_t* bp = aw.begin.data();
  const int32_t* uop = aw.use_o.data();
  const float* uwp = aw.use_w.data();
  const bool stream = StreamOK(p, Ol, out, L, kCap);
  parallel_for(tasks, GrainFor(Ow * G * L), [&](int64_t begin, int64_t end) {
    std::vector<float> t(static_cast<size_t>(Ow * G * L));
    std::vector<int64_t> qreal(static_cast<size_t>(G)), qs(qreal.size()), qd(qreal.size());
    std::vector<int64_t> hoff, doffs;
    std::vector<float> hw, dw;
    for (int64_t task = begin; task < end; ++task) {
      const int64_t pos = task % outer;
      const int64_t rest = task / outer;
      const int64_t g = rest % ngroups, n = rest / ngroups;
      const int64_t q0 = g * G, q1 = std::min(nq, q0 + G);
      int64_t ii[2] = {0, 0};
      OuterIndex<R>(pos, p.in, ii);
      int64_t ooff = 0;
      bool empty = false;
      const ResampleAxisTable* ad = nullptr;
      const ResampleAxisTable* ah = nullptr;
      int64_t hb = 0, he = 0, db = 0, de = 0;
      if constexpr (R == 2) {
        ah = &tb.axis[0];
        hb = ah->begin[ii[0]];
        he = ah->begin[ii[0] + 1];
        empty = hb == he;
        ooff = ii[0] * Ol.spatial_stride[0];
      } else if constexpr (R == 3) {
        ad = &tb.axis[0];
        ah = &tb.axis[1];
        db = ad->begin[ii[0]];
        de = ad->begin[ii[0] + 1];
        hb = ah->begin[ii[1]];
        he = ah->begin[ii[1] + 1];
        empty = db == de || hb == he;
        ooff = ii[0] * Ol.spatial_stride[0] + ii[1] * Ol.spatial_stride[1];
      }
      const int64_t nql = q1 - q0;
      for (int64_t j = 0; j < nql; ++j) {
        const int64_t c0 = (q0 + j) * L;
        qreal[j] = empty ? 0 : std::min(L, p.c - c0);
        qs[j] = qreal[j] > 0 ? n * Gl.n_stride + ChanOff(Gl, c0) : 0;
        qd[j] = n * Ol.n_stride + ChanOff(Ol, c0) + ooff;
      }
      // Offsets and weights of the outer uses.
      hoff.clear();
      hw.clear();
      doffs.clear();
      dw.clear();
      for (int64_t u = hb; u < he; ++u) {
        hoff.push_back(ah->use_o[u] * Gl.spatial_stride[R - 2]);
        hw.push_back(ah->use_w[u]);
      }
      for (int64_t u = db; u < de; ++u) {
        doffs.push_back(ad->use_o[u] * Gl.spatial_stride[0]);
        dw.push_back(ad->use_w[u]);
      }
      const int64_t nh = static_cast<int64_t>(hoff.size());
      const int64_t ndd = static_cast<int64_t>(doffs.size());
      auto sum = [&](auto ld, const T* px) {
        if constexpr (R == 1) {
          return ld(px);
        } else if constexpr (R == 2) {
          auto r = hn::Mul(hn::Set(d, hw[0]), ld(px + hoff[0]));
          for (int64_t u = 1; u < nh; ++u) r = hn::MulAdd(hn::Set(d, hw[u]), ld(px + hoff[u]), r);
          return r;
        } else {
          hn::Vec<decltype(d)> r = hn::Zero(d);
          for (int64_t uh = 0; uh < nh; ++uh) {
            const T* ph = px + hoff[uh];
            auto in = hn::Mul(hn::Set(d, dw[0]), ld(ph + doffs[0]));
            for (int64_t ud = 1; ud < ndd; ++ud) {
              in = hn::MulAdd(hn::Set(d, dw[ud]), ld(ph + doffs[ud]), in);
            }
            const auto wh = hn::Set(d, hw[uh]);
            r = uh == 0 ? hn::Mul(wh, in) : hn::MulAdd(wh, in, r);
          }
          return r;
        }
      };
      float* tp = t.data();
      for (int64_t ow = 0; ow < Ow; ++ow) {
        for (int64_t j = 0; j < nql; ++j) {
          const T* px = gsrc + qs[j] + ow * gsw;
          const int64_t real = qreal[j];
          hn::Vec<decltype(d)> r;
          if (real == L) {
            r = sum([&](const T* ptr) { return LoadF(d, ptr); }, px);
          } else if (real <= 0) {
            r = hn::Zero(d);
          } else {
            r = sum([&](const T* ptr) { return LoadPartialF(d, ptr, real); }, px);
          }
          hn::StoreU(r, d, tp + (ow * G + j) * L);
        }
      }
      for (int64_t iw = 0; iw < Iw; ++iw) {
        const int64_t ub = bp[iw], ue = bp[iw + 1];
        for (int64_t j = 0; j < nql; ++j) {
          auto r = hn::Zero(d);
          if (ub < ue) {
            r = hn::Mul(hn::Set(d, uwp[ub]), hn::LoadU(d, tp + (uop[ub] * G + j) * L));
            for (int64_t u = ub + 1; u < ue; ++u) {
              r = hn::MulAdd(hn::Set(d, uwp[u]), hn::LoadU(d, tp + (uop[u] * G + j) * L), r);
            }
          }
          T* op = out + qd[j] + iw * osw;
          const int64_t real = std::min(L, p.c - (q0 + j) * L);
          if (real >= L || Ol.block > 1) {
            StoreOut(d, r, op, stream);
          } else {
            StorePartialF(d, r, op, real);
          }
        }
      }
    }
    if (stream) hwy::FlushStream();
  });
}

/// Nearest forward: copies of elements (raw bits).
template <class T, int R, size_t kCap>
void FwdNearestC(const ResampleProblem& p, const Tables& tb, const T* src, T* dst) {
  using U = std::conditional_t<sizeof(T) == 4, uint32_t, uint16_t>;
  const hn::CappedTag<float, kCap> df;
  const hn::Rebind<U, decltype(df)> du;
  const int64_t L = static_cast<int64_t>(hn::Lanes(df));
  const ResampleLayout& S = p.src;
  const ResampleLayout& Dl = p.dst;
  const int64_t nq = (Dl.padded_c + L - 1) / L;
  const int64_t Ow = p.out[R - 1];
  int64_t outer = 1;
  for (int k = 0; k < R - 1; ++k) outer *= p.out[k];
  const int64_t tasks = p.n * outer;
  const ResampleAxisTable& aw = tb.axis[R - 1];
  const int64_t ssw = S.spatial_stride[R - 1], dsw = Dl.spatial_stride[R - 1];
  // Both channels-last: a pixel is C contiguous elements in both.
  const bool stream = StreamOK(p, Dl, dst, L, kCap);
  const bool pixel_copy = S.block == 1 && Dl.block == 1 && kCap > 1 && !stream;
  const U* s = reinterpret_cast<const U*>(src);
  U* o = reinterpret_cast<U*>(dst);
  parallel_for(tasks, GrainFor(Ow * Dl.padded_c), [&](int64_t begin, int64_t end) {
    for (int64_t task = begin; task < end; ++task) {
      const int64_t pos = task % outer, n = task / outer;
      int64_t oi[2] = {0, 0};
      OuterIndex<R>(pos, p.out, oi);
      int64_t so = 0, doff = 0;
      for (int k = 0; k < R - 1; ++k) {
        so += tb.axis[k].i0[oi[k]] * S.spatial_stride[k];
        doff += oi[k] * Dl.spatial_stride[k];
      }
      if (pixel_copy) {
        const U* sp = s + n * S.n_stride + so;
        U* dp = o + n * Dl.n_stride + doff;
        const size_t bytes = static_cast<size_t>(p.c) * sizeof(U);
        for (int64_t ow = 0; ow < Ow; ++ow) std::memcpy(dp + ow * dsw, sp + aw.i0[ow] * ssw, bytes);
        continue;
      }
      if (stream && S.block == 1 && Dl.block == 1) {  // channels-last, C a multiple of L
        const U* sp = s + n * S.n_stride + so;
        U* dp = o + n * Dl.n_stride + doff;
        for (int64_t ow = 0; ow < Ow; ++ow) {
          const U* a = sp + aw.i0[ow] * ssw;
          U* b = dp + ow * dsw;
          for (int64_t q = 0; q < nq; ++q) hn::Stream(hn::LoadU(du, a + q * L), du, b + q * L);
        }
        continue;
      }
      for (int64_t q = 0; q < nq; ++q) {
        const int64_t c0 = q * L;
        const int64_t real = std::min(L, p.c - c0);
        U* dq = o + n * Dl.n_stride + ChanOff(Dl, c0) + doff;
        if (real <= 0) {
          for (int64_t ow = 0; ow < Ow; ++ow) hn::StoreU(hn::Zero(du), du, dq + ow * dsw);
          continue;
        }
        const U* sq = s + n * S.n_stride + ChanOff(S, c0) + so;
        if (real == L) {
          for (int64_t ow = 0; ow < Ow; ++ow) {
            const auto v = hn::LoadU(du, sq + aw.i0[ow] * ssw);
            if (stream) {
              hn::Stream(v, du, dq + ow * dsw);
            } else {
              hn::StoreU(v, du, dq + ow * dsw);
            }
          }
        } else {
          const int64_t count = Dl.block > 1 ? L : real;
          for (int64_t ow = 0; ow < Ow; ++ow) {
            const U* sp = sq + aw.i0[ow] * ssw;
            U* dp = dq + ow * dsw;
            for (int64_t i = 0; i < count; ++i) dp[i] = i < real ? sp[i] : U{0};
          }
        }
      }
    }
    if (stream) hwy::FlushStream();
  });
}

/// Nearest backward in double, flat lexicographic order over the outputs (bit-exact).
template <class T, int R, size_t kCap>
void BwdNearestC(const ResampleProblem& p, const Tables& tb, const T* g, T* out) {
  const hn::CappedTag<double, (kCap > 8 ? 8 : kCap)> dd;
  const int64_t L = static_cast<int64_t>(hn::Lanes(dd));
  const ResampleLayout& Gl = p.dst;
  const ResampleLayout& Ol = p.src;
  const int64_t nq = (Ol.padded_c + L - 1) / L;
  const int64_t Iw = p.in[R - 1];
  int64_t outer = 1;
  for (int k = 0; k < R - 1; ++k) outer *= p.in[k];
  const int64_t tasks = p.n * outer;
  const ResampleAxisTable& aw = tb.axis[R - 1];
  const int64_t gsw = Gl.spatial_stride[R - 1], osw = Ol.spatial_stride[R - 1];
  const hn::Rebind<float, decltype(dd)> df;
  const bool flat = Gl.block == 1 && Ol.block == 1 && Gl.c_block_stride == 1 &&
                    Ol.c_block_stride == 1 && p.c % L == 0;
  const int64_t C = p.c;
  parallel_for(tasks, GrainFor(Iw * Ol.padded_c * 2), [&](int64_t begin, int64_t end) {
    std::vector<int64_t> qreal(static_cast<size_t>(nq)), qo(qreal.size()), qg(qreal.size());
    std::vector<int64_t> offs;
    for (int64_t task = begin; task < end; ++task) {
      const int64_t pos = task % outer, n = task / outer;
      int64_t ii[2] = {0, 0};
      OuterIndex<R>(pos, p.in, ii);
      int64_t ooff = 0;
      // Outer uses: ranges of axis 0 and axis 1 (one element when absent).
      int64_t b0 = 0, e0 = 1, b1 = 0, e1 = 1;
      if constexpr (R >= 2) {
        b0 = tb.axis[0].begin[ii[0]];
        e0 = tb.axis[0].begin[ii[0] + 1];
        ooff += ii[0] * Ol.spatial_stride[0];
      }
      if constexpr (R == 3) {
        b1 = tb.axis[1].begin[ii[1]];
        e1 = tb.axis[1].begin[ii[1] + 1];
        ooff += ii[1] * Ol.spatial_stride[1];
      }
      for (int64_t q = 0; q < nq; ++q) {
        const int64_t c0 = q * L;
        qreal[q] = std::min(L, p.c - c0);
        qo[q] = n * Ol.n_stride + ChanOff(Ol, c0) + ooff;
        qg[q] = qreal[q] > 0 ? n * Gl.n_stride + ChanOff(Gl, c0) : 0;
      }
      for (int64_t iw = 0; iw < Iw; ++iw) {
        // The offsets of every output that read this input, in the reference's order.
        offs.clear();
        const int64_t ub = aw.begin[iw], ue = aw.begin[iw + 1];
        for (int64_t u0 = b0; u0 < e0; ++u0) {
          const int64_t off0 = R >= 2 ? tb.axis[0].use_o[u0] * Gl.spatial_stride[0] : 0;
          for (int64_t u1 = b1; u1 < e1; ++u1) {
            const int64_t off1 = R == 3 ? tb.axis[1].use_o[u1] * Gl.spatial_stride[1] : 0;
            for (int64_t u = ub; u < ue; ++u) offs.push_back(off0 + off1 + aw.use_o[u] * gsw);
          }
        }
        const size_t no = offs.size();
        // Channels-last on both sides with whole chunks: one run of C channels per pixel;
        // the common use counts (1, 2, 4: nearest up by 1 or 2 per axis) are unrolled.
        if (flat && no >= 1 && no <= 4 && no != 3) {
          const T* gq = g + qg[0];
          T* op = out + qo[0] + iw * osw;
          const int64_t o0 = offs[0], o1 = offs[no > 1 ? 1 : 0];
          const int64_t o2 = offs[no > 2 ? 2 : 0], o3 = offs[no > 2 ? 3 : 0];
          const int64_t cl = C, lanes = L;
          auto run = [&](auto count) {
            constexpr int kN = decltype(count)::value;
            for (int64_t k = 0; k < cl; k += lanes) {
              const T* gk = gq + k;
              auto acc = hn::PromoteTo(dd, LoadF(df, gk + o0));
              if constexpr (kN >= 2) acc = hn::Add(acc, hn::PromoteTo(dd, LoadF(df, gk + o1)));
              if constexpr (kN >= 4) {
                acc = hn::Add(acc, hn::PromoteTo(dd, LoadF(df, gk + o2)));
                acc = hn::Add(acc, hn::PromoteTo(dd, LoadF(df, gk + o3)));
              }
              StoreD(dd, acc, op + k);
            }
          };
          if (no == 1) {
            run(std::integral_constant<int, 1>{});
          } else if (no == 2) {
            run(std::integral_constant<int, 2>{});
          } else {
            run(std::integral_constant<int, 4>{});
          }
          continue;
        }
        for (int64_t q = 0; q < nq; ++q) {
          const int64_t real = qreal[q];
          auto acc = hn::Zero(dd);
          if (real > 0 && no > 0) {
            const T* gq = g + qg[q];
            acc = LoadD(dd, gq + offs[0], real, L);
            for (size_t k = 1; k < no; ++k) acc = hn::Add(acc, LoadD(dd, gq + offs[k], real, L));
          }
          T* op = out + qo[q] + iw * osw;
          if (real >= L || Ol.block > 1) {
            StoreD(dd, acc, op);
          } else {
            StorePartialD(dd, acc, op, std::max<int64_t>(real, 0));
          }
        }
      }
    }
  });
}

// =====================================================================================
// Plain kernels: both tensors contiguous along the innermost spatial axis (nchw, ...);
// vectors run along that axis, taps come from gathers out of a row in cache.
// =====================================================================================

// --- in-register taps for the plain kernels -----------------------------------------------

/// For the plain kernels: how each vector of N outputs along W fetches its taps from a
/// source row of length Iw. Chunk k (outputs [k N, k N + N)) loads one vector (mode 1) or
/// two adjacent vectors (mode 2) at row[start] and picks every lane's taps with a lane
/// permutation (rel0/rel1: tap index - start, in [0, N) or [0, 2 N)); mode 0 chunks (taps
/// spread wider, or rows shorter than the window) use gathers. Loads stay inside
/// [0, Iw), so the row may be the tensor itself. Built per call (O(Ow)).
struct TapChunks {
  std::vector<int32_t> start, mode, rel0, rel1;
};

inline TapChunks MakeTapChunks(const ResampleAxisTable& a, int64_t N, bool two_taps) {
  const int64_t Iw = a.in, Ow = a.out;
  const int64_t nch = (Ow + N - 1) / N;
  TapChunks t;
  t.start.assign(static_cast<size_t>(nch), 0);
  t.mode.assign(t.start.size(), 0);
  t.rel0.assign(static_cast<size_t>(nch * N), 0);
  t.rel1.assign(t.rel0.size(), 0);
  for (int64_t k = 0; k < nch; ++k) {
    const int64_t o0 = k * N, o1 = std::min(Ow, o0 + N);
    int64_t lo = a.i0[o0], hi = a.i0[o0];
    for (int64_t o = o0; o < o1; ++o) {
      lo = std::min<int64_t>({lo, a.i0[o], two_taps ? a.i1[o] : a.i0[o]});
      hi = std::max<int64_t>({hi, a.i0[o], two_taps ? a.i1[o] : a.i0[o]});
    }
    for (int64_t width = N; width <= 2 * N; width += N) {
      if (Iw < width) break;
      const int64_t start = std::min(lo, Iw - width);
      if (hi - start >= width) continue;
      t.start[k] = static_cast<int32_t>(start);
      t.mode[k] = static_cast<int32_t>(width / N);
      for (int64_t o = o0; o < o1; ++o) {
        t.rel0[o] = static_cast<int32_t>(a.i0[o] - start);
        t.rel1[o] = static_cast<int32_t>((two_taps ? a.i1[o] : a.i0[o]) - start);
      }
      break;
    }
  }
  return t;
}

/// Lane i of the result: lane idx[i] of lo (idx < N) or lane idx[i] - N of hi (idx >= N),
/// idx in [0, 2 N).
template <class D>
HWY_INLINE hn::Vec<D> Lookup2(D d, hn::Vec<D> lo, hn::Vec<D> hi,
                              hn::Vec<hn::RebindToSigned<D>> idx) {
#if HWY_TARGET <= HWY_AVX3 && HWY_TARGET != HWY_SCALAR && HWY_ARCH_X86
  if constexpr (sizeof(hn::Vec<D>) == 64 && sizeof(hn::TFromD<D>) == 4) {
    using RawV = decltype(lo.raw);
    if constexpr (std::is_same_v<RawV, __m512>) {
      return hn::Vec<D>{_mm512_permutex2var_ps(lo.raw, idx.raw, hi.raw)};
    } else {
      return hn::Vec<D>{_mm512_permutex2var_epi32(lo.raw, idx.raw, hi.raw)};
    }
  }
#endif
  const hn::RebindToSigned<D> di;
  const int32_t n = static_cast<int32_t>(hn::Lanes(d));
  const auto i = hn::IndicesFromVec(d, hn::And(idx, hn::Set(di, n - 1)));
  const auto in_lo = hn::RebindMask(d, hn::Lt(idx, hn::Set(di, n)));
  return hn::IfThenElse(in_lo, hn::TableLookupLanes(lo, i), hn::TableLookupLanes(hi, i));
}

/// Lane i of the result: lane idx[i] of v, idx in [0, N).
template <class D>
HWY_INLINE hn::Vec<D> Lookup1(D d, hn::Vec<D> v, hn::Vec<hn::RebindToSigned<D>> idx) {
  return hn::TableLookupLanes(v, hn::IndicesFromVec(d, idx));
}

/// v[0, Iw) = the outer axes' interpolation of the src rows at so[] (float32).
template <class T, int R, class D>
HWY_INLINE void OuterRowsF(D d, const T* s, const int64_t* so, float wa0, float wa1, float wb0,
                           float wb1, int64_t Iw, float* v) {
  const int64_t N = static_cast<int64_t>(hn::Lanes(d));
  const hn::CappedTag<float, 1> d1;
  auto one = [&](auto dt, int64_t i) {
    using DT = decltype(dt);
    const auto a0 = hn::Set(dt, wa0), a1 = hn::Set(dt, wa1);
    hn::Vec<DT> r;
    if constexpr (R == 1) {
      r = LoadF(dt, s + i);
    } else if constexpr (R == 2) {
      r = Lerp<DT>(a0, a1, LoadF(dt, s + so[0] + i), LoadF(dt, s + so[1] + i));
    } else {
      const auto lo = Lerp<DT>(a0, a1, LoadF(dt, s + so[0] + i), LoadF(dt, s + so[1] + i));
      const auto hi = Lerp<DT>(a0, a1, LoadF(dt, s + so[2] + i), LoadF(dt, s + so[3] + i));
      r = Lerp<DT>(hn::Set(dt, wb0), hn::Set(dt, wb1), lo, hi);
    }
    hn::StoreU(r, dt, v + i);
  };
  int64_t i = 0;
  for (; i + N <= Iw; i += N) one(d, i);
  for (; i < Iw; ++i) one(d1, i);
}

template <class T, int R>
void FwdLinearP(const ResampleProblem& p, const Tables& tb, const T* src, T* dst) {
  const hn::ScalableTag<float> d;
  const hn::RebindToSigned<decltype(d)> di;
  const int64_t N = static_cast<int64_t>(hn::Lanes(d));
  const ResampleLayout& S = p.src;
  const ResampleLayout& Dl = p.dst;
  const int64_t Iw = p.in[R - 1], Ow = p.out[R - 1];
  int64_t outer = 1;
  for (int k = 0; k < R - 1; ++k) outer *= p.out[k];
  const int64_t tasks = p.n * p.c * outer;
  const ResampleAxisTable& aw = tb.axis[R - 1];
  const bool stream = tasks * Ow * static_cast<int64_t>(sizeof(T)) >= kStreamBytes;
  // W taps by lane permutations of one or two loaded vectors (gathers where they spread).
  const TapChunks tc = MakeTapChunks(aw, N, /*two_taps=*/true);
  const int32_t* tc_start = tc.start.data();
  const int32_t* tc_mode = tc.mode.data();
  const int32_t* tc_rel0 = tc.rel0.data();
  const int32_t* tc_rel1 = tc.rel1.data();
  const int32_t* i0p = aw.i0.data();
  const int32_t* i1p = aw.i1.data();
  const float* w0p = aw.w0.data();
  const float* w1p = aw.w1.data();
  parallel_for(tasks, GrainFor(Ow), [&](int64_t begin, int64_t end) {
    std::vector<float> v(static_cast<size_t>(Iw + N));
    for (int64_t task = begin; task < end; ++task) {
      const int64_t pos = task % outer;
      const int64_t nc = task / outer;
      const int64_t n = nc / p.c, c = nc % p.c;
      int64_t oi[2] = {0, 0};
      OuterIndex<R>(pos, p.out, oi);
      const OuterTaps ot = MakeOuterTaps<R>(tb, S, Dl, oi);
      const int64_t* so = ot.so;
      const float wa0 = ot.wa0, wa1 = ot.wa1, wb0 = ot.wb0, wb1 = ot.wb1;
      const int64_t doff = ot.doff;
      const T* s = src + n * S.n_stride + c * S.c_block_stride;
      T* o = dst + n * Dl.n_stride + c * Dl.c_block_stride + doff;
      const float* row = v.data();
      if constexpr (R == 1 && sizeof(T) == 4) {
        row = reinterpret_cast<const float*>(s);
      } else {
        OuterRowsF<T, R>(d, s, so, wa0, wa1, wb0, wb1, Iw, v.data());
      }
      const bool st = stream && reinterpret_cast<uintptr_t>(o) % (N * sizeof(T)) == 0;
      for (int64_t k = 0, ow = 0; ow < Ow; ++k, ow += N) {
        hn::Vec<decltype(d)> a, b;
        const int32_t mode = tc_mode[k];
        if (mode == 2) {
          const float* rp = row + tc_start[k];
          const auto lo = hn::LoadU(d, rp), hi = hn::LoadU(d, rp + N);
          a = Lookup2(d, lo, hi, hn::LoadU(di, tc_rel0 + ow));
          b = Lookup2(d, lo, hi, hn::LoadU(di, tc_rel1 + ow));
        } else if (mode == 1) {
          const auto x = hn::LoadU(d, row + tc_start[k]);
          a = Lookup1(d, x, hn::LoadU(di, tc_rel0 + ow));
          b = Lookup1(d, x, hn::LoadU(di, tc_rel1 + ow));
        } else {
          a = hn::GatherIndex(d, row, hn::LoadU(di, i0p + ow));
          b = hn::GatherIndex(d, row, hn::LoadU(di, i1p + ow));
        }
        const auto r = Lerp<decltype(d)>(hn::LoadU(d, w0p + ow), hn::LoadU(d, w1p + ow), a, b);
        if (ow + N <= Ow) {
          StoreOut(d, r, o + ow, st);
        } else {
          StorePartialF(d, r, o + ow, Ow - ow);
        }
      }
    }
    if (stream) hwy::FlushStream();
  });
}

template <class T, int R>
void BwdLinearP(const ResampleProblem& p, const Tables& tb, const T* g, T* out) {
  const hn::ScalableTag<float> d;
  const hn::RebindToSigned<decltype(d)> di;
  const hn::CappedTag<float, 1> d1;
  const int64_t N = static_cast<int64_t>(hn::Lanes(d));
  const ResampleLayout& Gl = p.dst;
  const ResampleLayout& Ol = p.src;
  const int64_t Iw = p.in[R - 1], Ow = p.out[R - 1];
  int64_t outer = 1;
  for (int k = 0; k < R - 1; ++k) outer *= p.in[k];
  const int64_t tasks = p.n * p.c * outer;
  const ResampleChunkTable& ct = tb.chunks;
  const bool stream = tasks * Iw * static_cast<int64_t>(sizeof(T)) >= kStreamBytes;
  parallel_for(tasks, GrainFor(Ow), [&](int64_t begin, int64_t end) {
    std::vector<float> t(static_cast<size_t>(Ow + N));
    for (int64_t task = begin; task < end; ++task) {
      const int64_t pos = task % outer;
      const int64_t nc = task / outer;
      const int64_t n = nc / p.c, c = nc % p.c;
      int64_t ii[2] = {0, 0};
      OuterIndex<R>(pos, p.in, ii);
      const T* gs = g + n * Gl.n_stride + c * Gl.c_block_stride;
      T* o = out + n * Ol.n_stride + c * Ol.c_block_stride;
      bool empty = false;
      const float* row = t.data();
      if constexpr (R == 1) {
        if constexpr (sizeof(T) == 4) {
          row = reinterpret_cast<const float*>(gs);
        } else {
          int64_t i = 0;
          for (; i + N <= Ow; i += N) hn::StoreU(LoadF(d, gs + i), d, t.data() + i);
          for (; i < Ow; ++i) t[i] = ToF32(gs[i]);
        }
      } else {
        const ResampleAxisTable& ah = tb.axis[R - 2];
        const int64_t hb = ah.begin[ii[R - 2]], he = ah.begin[ii[R - 2] + 1];
        int64_t db = 0, de = 1;
        if constexpr (R == 3) {
          db = tb.axis[0].begin[ii[0]];
          de = tb.axis[0].begin[ii[0] + 1];
          o += ii[0] * Ol.spatial_stride[0] + ii[1] * Ol.spatial_stride[1];
        } else {
          o += ii[0] * Ol.spatial_stride[0];
        }
        empty = hb == he || db == de;
        if (!empty) {
          auto one = [&](auto dt, int64_t i) {
            using DT = decltype(dt);
            hn::Vec<DT> r = hn::Zero(dt);
            for (int64_t uh = hb; uh < he; ++uh) {
              const T* ph = gs + ah.use_o[uh] * Gl.spatial_stride[R - 2] + i;
              hn::Vec<DT> in;
              if constexpr (R == 3) {
                const ResampleAxisTable& ad = tb.axis[0];
                in = hn::Mul(hn::Set(dt, ad.use_w[db]),
                             LoadF(dt, ph + ad.use_o[db] * Gl.spatial_stride[0]));
                for (int64_t ud = db + 1; ud < de; ++ud) {
                  in = hn::MulAdd(hn::Set(dt, ad.use_w[ud]),
                                  LoadF(dt, ph + ad.use_o[ud] * Gl.spatial_stride[0]), in);
                }
              } else {
                in = LoadF(dt, ph);
              }
              const auto wh = hn::Set(dt, ah.use_w[uh]);
              r = uh == hb ? hn::Mul(wh, in) : hn::MulAdd(wh, in, r);
            }
            hn::StoreU(r, dt, t.data() + i);
          };
          int64_t i = 0;
          for (; i + N <= Ow; i += N) one(d, i);
          for (; i < Ow; ++i) one(d1, i);
        }
      }
      for (int64_t k = 0, iw = 0; iw < Iw; ++k, iw += N) {
        auto r = hn::Zero(d);
        if (!empty) {
          for (int64_t sl = ct.slot_begin[k]; sl < ct.slot_begin[k + 1]; ++sl) {
            const size_t at = static_cast<size_t>(sl * N);
            const auto idx = hn::LoadU(di, ct.idx.data() + at);
            const auto w = hn::LoadU(d, ct.w.data() + at);
            const auto valid =
                hn::RebindMask(d, hn::Gt(hn::LoadU(di, ct.valid.data() + at), hn::Zero(di)));
            const auto x = hn::GatherIndex(d, row, idx);
            r = sl == ct.slot_begin[k] ? hn::IfThenElseZero(valid, hn::Mul(w, x))
                                       : hn::IfThenElse(valid, hn::MulAdd(w, x, r), r);
          }
        }
        if (iw + N <= Iw) {
          StoreOut(d, r, o + iw, stream && reinterpret_cast<uintptr_t>(o) % (N * sizeof(T)) == 0);
        } else {
          StorePartialF(d, r, o + iw, Iw - iw);
        }
      }
    }
    if (stream) hwy::FlushStream();
  });
}

template <class T, int R>
void FwdNearestP(const ResampleProblem& p, const Tables& tb, const T* src, T* dst) {
  const ResampleLayout& S = p.src;
  const ResampleLayout& Dl = p.dst;
  const int64_t Ow = p.out[R - 1];
  int64_t outer = 1;
  for (int k = 0; k < R - 1; ++k) outer *= p.out[k];
  const int64_t tasks = p.n * p.c * outer;
  const ResampleAxisTable& aw = tb.axis[R - 1];
  const bool stream = tasks * Ow * static_cast<int64_t>(sizeof(T)) >= kStreamBytes;
  const int64_t padded_ow = (Ow + 15) / 16 * 16;  // the index table's padded length
  // f32: source rows are fetched by lane permutations (gathers where the taps spread).
  const hn::ScalableTag<uint32_t> du_outer;
  const TapChunks tc = MakeTapChunks(aw, static_cast<int64_t>(hn::Lanes(du_outer)),
                                     /*two_taps=*/false);
  const int32_t* tc_start = tc.start.data();
  const int32_t* tc_mode = tc.mode.data();
  const int32_t* tc_rel0 = tc.rel0.data();
  const int32_t* i0p = aw.i0.data();
  const int64_t Iw = p.in[R - 1];
  // The 32-bit elements of output chunk j (outputs [k, k + N)) from the source row `r`.
  const auto fetch = [&](auto du, const uint32_t* r, int64_t j, int64_t k) {
    const hn::RebindToSigned<decltype(du)> di;
    const int64_t N = static_cast<int64_t>(hn::Lanes(du));
    const int32_t mode = tc_mode[j];
    if (mode == 2) {
      const uint32_t* rp = r + tc_start[j];
      return Lookup2(du, hn::LoadU(du, rp), hn::LoadU(du, rp + N), hn::LoadU(di, tc_rel0 + k));
    }
    if (mode == 1) return Lookup1(du, hn::LoadU(du, r + tc_start[j]), hn::LoadU(di, tc_rel0 + k));
    return hn::GatherIndex(du, r, hn::LoadU(di, i0p + k));
  };
  parallel_for(tasks, GrainFor(Ow), [&](int64_t begin, int64_t end) {
    std::vector<uint32_t> row(sizeof(T) == 4 ? static_cast<size_t>(padded_ow) : 0);
    const uint32_t* last = nullptr;
    // 2-byte elements: the source row widened to 32-bit lanes (then fetched exactly as the
    // f32 rows are) and the output row narrowed back; bits are copied, never converted.
    std::vector<uint32_t> wide(sizeof(T) == 2 ? static_cast<size_t>(Iw) : 0);
    std::vector<uint16_t> row16(sizeof(T) == 2 ? static_cast<size_t>(padded_ow) : 0);
    const uint16_t* last16 = nullptr;
    for (int64_t task = begin; task < end; ++task) {
      const int64_t pos = task % outer;
      const int64_t nc = task / outer;
      const int64_t n = nc / p.c, c = nc % p.c;
      int64_t oi[2] = {0, 0};
      OuterIndex<R>(pos, p.out, oi);
      int64_t so = 0, doff = 0;
      for (int k = 0; k < R - 1; ++k) {
        so += tb.axis[k].i0[oi[k]] * S.spatial_stride[k];
        doff += oi[k] * Dl.spatial_stride[k];
      }
      const T* s = src + n * S.n_stride + c * S.c_block_stride + so;
      T* o = dst + n * Dl.n_stride + c * Dl.c_block_stride + doff;
      if constexpr (sizeof(T) == 4) {
        const hn::ScalableTag<uint32_t> du;
        const int64_t N = static_cast<int64_t>(hn::Lanes(du));
        const auto* s32 = reinterpret_cast<const uint32_t*>(s);
        // Gather a source row once into the scratch row; output rows that repeat it (an
        // upsampled outer axis) are plain copies of the scratch row.
        if (s32 != last) {
          for (int64_t k = 0, j = 0; k < Ow; k += N, ++j) hn::StoreU(fetch(du, s32, j, k), du, row.data() + k);
          last = s32;
        }
        CopyRowOut(du, row.data(), reinterpret_cast<uint32_t*>(o), Ow, stream);
      } else if constexpr (sizeof(T) == 2) {
        const hn::ScalableTag<uint32_t> du;
        const hn::RebindToSigned<decltype(du)> di;
        const hn::Rebind<uint16_t, decltype(du)> dh;  // N uint16 lanes
        const hn::ScalableTag<uint16_t> d16;          // a full vector of uint16
        const int64_t N = static_cast<int64_t>(hn::Lanes(du));
        const auto* s16 = reinterpret_cast<const uint16_t*>(s);
        auto* o16 = reinterpret_cast<uint16_t*>(o);
        if (s16 != last16) {
          int64_t k = 0;
          for (; k + N <= Iw; k += N) hn::StoreU(hn::PromoteTo(du, hn::LoadU(dh, s16 + k)), du, wide.data() + k);
          for (; k < Iw; ++k) wide[static_cast<size_t>(k)] = s16[k];
          const uint32_t* w32 = wide.data();
          // Every lane holds a value below 2^16: the saturating narrowing is exact.
          for (int64_t kk = 0, j = 0; kk < Ow; kk += N, ++j) {
            hn::StoreU(hn::DemoteTo(dh, hn::BitCast(di, fetch(du, w32, j, kk))), dh, row16.data() + kk);
          }
          last16 = s16;
        }
        CopyRowOut(d16, row16.data(), o16, Ow, stream);
      } else {
        for (int64_t ow = 0; ow < Ow; ++ow) o[ow] = s[aw.i0[ow]];
      }
    }
    if (stream) hwy::FlushStream();
  });
}

template <class T, int R>
void BwdNearestP(const ResampleProblem& p, const Tables& tb, const T* g, T* out) {
  const hn::ScalableTag<double> dd;
  const hn::Rebind<float, decltype(dd)> df;
  const hn::Rebind<int32_t, decltype(dd)> di;
  const hn::ScalableTag<float> dfull;
  const int64_t N = static_cast<int64_t>(hn::Lanes(dd));
  const ResampleLayout& Gl = p.dst;
  const ResampleLayout& Ol = p.src;
  const int64_t Iw = p.in[R - 1], Ow = p.out[R - 1];
  int64_t outer = 1;
  for (int k = 0; k < R - 1; ++k) outer *= p.in[k];
  const int64_t tasks = p.n * p.c * outer;
  const ResampleChunkTable& ct = tb.chunks;
  const int64_t nchunks = (Iw + N - 1) / N;
  parallel_for(tasks, GrainFor(Ow * 2), [&](int64_t begin, int64_t end) {
    std::vector<double> acc(static_cast<size_t>(nchunks * N));
    std::vector<float> conv(sizeof(T) == 4 ? 0 : static_cast<size_t>(Ow + 16));
    for (int64_t task = begin; task < end; ++task) {
      const int64_t pos = task % outer;
      const int64_t nc = task / outer;
      const int64_t n = nc / p.c, c = nc % p.c;
      int64_t ii[2] = {0, 0};
      OuterIndex<R>(pos, p.in, ii);
      const T* gs = g + n * Gl.n_stride + c * Gl.c_block_stride;
      T* o = out + n * Ol.n_stride + c * Ol.c_block_stride;
      int64_t b0 = 0, e0 = 1, b1 = 0, e1 = 1;
      if constexpr (R >= 2) {
        b0 = tb.axis[0].begin[ii[0]];
        e0 = tb.axis[0].begin[ii[0] + 1];
        o += ii[0] * Ol.spatial_stride[0];
      }
      if constexpr (R == 3) {
        b1 = tb.axis[1].begin[ii[1]];
        e1 = tb.axis[1].begin[ii[1] + 1];
        o += ii[1] * Ol.spatial_stride[1];
      }
      std::fill(acc.begin(), acc.end(), 0.0);
      bool first = true;
      for (int64_t u0 = b0; u0 < e0; ++u0) {
        const int64_t off0 = R >= 2 ? tb.axis[0].use_o[u0] * Gl.spatial_stride[0] : 0;
        for (int64_t u1 = b1; u1 < e1; ++u1) {
          const int64_t off1 = R == 3 ? tb.axis[1].use_o[u1] * Gl.spatial_stride[1] : 0;
          const T* grow = gs + off0 + off1;
          const float* row;
          if constexpr (sizeof(T) == 4) {
            row = reinterpret_cast<const float*>(grow);
          } else {
            const int64_t NF = static_cast<int64_t>(hn::Lanes(dfull));
            int64_t i = 0;
            for (; i + NF <= Ow; i += NF) hn::StoreU(LoadF(dfull, grow + i), dfull, conv.data() + i);
            for (; i < Ow; ++i) conv[i] = ToF32(grow[i]);
            row = conv.data();
          }
          for (int64_t k = 0; k < nchunks; ++k) {
            double* ak = acc.data() + k * N;
            auto a = hn::LoadU(dd, ak);
            for (int64_t sl = ct.slot_begin[k]; sl < ct.slot_begin[k + 1]; ++sl) {
              const size_t at = static_cast<size_t>(sl * N);
              const auto idx = hn::LoadU(di, ct.idx.data() + at);
              const auto valid = hn::RebindMask(
                  dd, hn::Gt(hn::PromoteTo(dd, hn::LoadU(df, ct.w.data() + at)), hn::Zero(dd)));
              const auto x = hn::PromoteTo(dd, hn::GatherIndex(df, row, idx));
              a = first && sl == ct.slot_begin[k] ? hn::IfThenElseZero(valid, x)
                                                  : hn::IfThenElse(valid, hn::Add(a, x), a);
            }
            hn::StoreU(a, dd, ak);
          }
          first = false;
        }
      }
      int64_t iw = 0;
      for (int64_t k = 0; iw + N <= Iw; ++k, iw += N) StoreD(dd, hn::LoadU(dd, acc.data() + k * N), o + iw);
      if (iw < Iw) StorePartialD(dd, hn::LoadU(dd, acc.data() + iw), o + iw, Iw - iw);
    }
  });
}

// --- entry points: one per (path, direction) ---------------------------------------------

/// The one dtype-and-rank ladder: calls f.template operator()<T, R>() for p's element type
/// (float32 or bfloat16) and spatial rank (1-3).
template <class F>
HWY_INLINE void ByTypeRank(const ResampleProblem& p, F&& f) {
  auto by_rank = [&]<class T>() {
    switch (p.spatial_rank) {
      case 1: f.template operator()<T, 1>(); return;
      case 2: f.template operator()<T, 2>(); return;
      default: f.template operator()<T, 3>(); return;
    }
  };
  if (p.dtype == DType::kFloat32) {
    by_rank.template operator()<float>();
  } else {
    by_rank.template operator()<bfloat16>();
  }
}

/// Runs kernel.template operator()<T, R>(tables, in, out) for p's type and rank.
template <class K>
HWY_INLINE void Run(const ResampleProblem& p, const void* tables, const void* in, void* out,
                    K&& kernel) {
  const Tables& tb = *static_cast<const Tables*>(tables);
  ByTypeRank(p, [&]<class T, int R>() {
    kernel.template operator()<T, R>(tb, static_cast<const T*>(in), static_cast<T*>(out));
  });
}

inline bool Linear(const ResampleProblem& p) {
  return p.algorithm == ResampleAlgorithm::kLinear;
}

// resample.plain
void PlainForward(const ResampleProblem& p, const void* t, const void* in, void* out) {
  Run(p, t, in, out, [&]<class T, int R>(const Tables& tb, const T* s, T* d) {
    Linear(p) ? FwdLinearP<T, R>(p, tb, s, d) : FwdNearestP<T, R>(p, tb, s, d);
  });
}
void PlainBackward(const ResampleProblem& p, const void* t, const void* in, void* out) {
  Run(p, t, in, out, [&]<class T, int R>(const Tables& tb, const T* g, T* d) {
    Linear(p) ? BwdLinearP<T, R>(p, tb, g, d) : BwdNearestP<T, R>(p, tb, g, d);
  });
}

// resample.channels_vector16, resample.channels_vector8, resample.generic (kCap 1)
template <size_t kCap>
void ChannelsForward(const ResampleProblem& p, const void* t, const void* in, void* out) {
  Run(p, t, in, out, [&]<class T, int R>(const Tables& tb, const T* s, T* d) {
    Linear(p) ? FwdLinearC<T, R, kCap>(p, tb, s, d) : FwdNearestC<T, R, kCap>(p, tb, s, d);
  });
}
template <size_t kCap>
void ChannelsBackward(const ResampleProblem& p, const void* t, const void* in, void* out) {
  Run(p, t, in, out, [&]<class T, int R>(const Tables& tb, const T* g, T* d) {
    Linear(p) ? BwdLinearC<T, R, kCap>(p, tb, g, d) : BwdNearestC<T, R, kCap>(p, tb, g, d);
  });
}
// HWY_EXPORT takes plain function names.
void Channels16Forward(const ResampleProblem& p, const void* t, const void* in, void* out) {
  ChannelsForward<16>(p, t, in, out);
}
void Channels16Backward(const ResampleProblem& p, const void* t, const void* in, void* out) {
  ChannelsBackward<16>(p, t, in, out);
}
void Channels8Forward(const ResampleProblem& p, const void* t, const void* in, void* out) {
  ChannelsForward<8>(p, t, in, out);
}
void Channels8Backward(const ResampleProblem& p, const void* t, const void* in, void* out) {
  ChannelsBackward<8>(p, t, in, out);
}
void GenericForward(const ResampleProblem& p, const void* t, const void* in, void* out) {
  ChannelsForward<1>(p, t, in, out);
}
void GenericBackward(const ResampleProblem& p, const void* t, const void* in, void* out) {
  ChannelsBackward<1>(p, t, in, out);
}

int64_t LanesF32() { return static_cast<int64_t>(hn::Lanes(hn::ScalableTag<float>())); }
int64_t LanesF64() { return static_cast<int64_t>(hn::Lanes(hn::ScalableTag<double>())); }

}  // namespace HWY_NAMESPACE
}  // namespace gridops::kernels::resample_simd
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace gridops::kernels::resample_simd {
HWY_EXPORT(PlainForward);
HWY_EXPORT(PlainBackward);
HWY_EXPORT(Channels16Forward);
HWY_EXPORT(Channels16Backward);
HWY_EXPORT(Channels8Forward);
HWY_EXPORT(Channels8Backward);
HWY_EXPORT(GenericForward);
HWY_EXPORT(GenericBackward);
HWY_EXPORT(LanesF32);
HWY_EXPORT(LanesF64);
}  // namespace gridops::kernels::resample_simd

namespace gridops::kernels {
// HWY_DYNAMIC_DISPATCH names the tables of HWY_EXPORT unqualified.
using namespace resample_simd;  // NOLINT(google-build-using-namespace)

namespace {

constexpr int64_t kPad = 16;  // forward tables are padded to a multiple of this

ResampleAxisTable make_axis(const ResampleProblem& p, int k) {
  ResampleAxisTable a;
  a.in = p.in[k];
  a.out = p.out[k];
  const int64_t padded = (a.out + kPad - 1) / kPad * kPad;
  a.i0.assign(static_cast<size_t>(padded), 0);
  a.i1.assign(static_cast<size_t>(padded), 0);
  a.w0.assign(static_cast<size_t>(padded), 0.0f);
  a.w1.assign(static_cast<size_t>(padded), 0.0f);
  const bool lin = p.algorithm == ResampleAlgorithm::kLinear;
  // A window (ResampleProblem::windowed): the full problem's taps, shifted into the src box.
  const int64_t fin = p.windowed ? p.full_in[k] : a.in;
  const int64_t fout = p.windowed ? p.full_out[k] : a.out;
  const int64_t oo = p.windowed ? p.out_origin[k] : 0;
  const int64_t io = p.windowed ? p.in_origin[k] : 0;
  for (int64_t o = 0; o < a.out; ++o) {
    if (lin) {
      const coords::LinearTaps t = coords::resample_linear_taps(o + oo, fin, fout);
      a.i0[o] = static_cast<int32_t>(t.i0 - io);
      a.i1[o] = static_cast<int32_t>(t.i1 - io);
      a.w0[o] = static_cast<float>(t.w0);
      a.w1[o] = static_cast<float>(t.w1);
    } else {
      a.i0[o] = a.i1[o] =
          static_cast<int32_t>(coords::resample_nearest_index(o + oo, fin, fout) - io);
      a.w0[o] = 1.0f;
    }
  }
  // The adjoint, from the same tables: count, then fill in increasing o (tap 0 first).
  const int taps = lin ? 2 : 1;
  a.begin.assign(static_cast<size_t>(a.in) + 1, 0);
  for (int64_t o = 0; o < a.out; ++o) {
    ++a.begin[static_cast<size_t>(a.i0[o]) + 1];
    if (taps == 2) ++a.begin[static_cast<size_t>(a.i1[o]) + 1];
  }
  for (int64_t i = 0; i < a.in; ++i) a.begin[i + 1] += a.begin[i];
  a.use_o.resize(static_cast<size_t>(a.begin[a.in]));
  a.use_w.resize(a.use_o.size());
  std::vector<int64_t> fill(a.begin.begin(), a.begin.end() - 1);
  for (int64_t o = 0; o < a.out; ++o) {
    int64_t at = fill[a.i0[o]]++;
    a.use_o[at] = static_cast<int32_t>(o);
    a.use_w[at] = a.w0[o];
    if (taps == 2) {
      at = fill[a.i1[o]]++;
      a.use_o[at] = static_cast<int32_t>(o);
      a.use_w[at] = a.w1[o];
    }
  }
  return a;
}

ResampleChunkTable make_chunks(const ResampleAxisTable& a, int64_t lanes) {
  ResampleChunkTable t;
  t.lanes = lanes;
  const int64_t nchunks = (a.in + lanes - 1) / lanes;
  t.slot_begin.assign(static_cast<size_t>(nchunks) + 1, 0);
  for (int64_t k = 0; k < nchunks; ++k) {
    int64_t m = 0;
    for (int64_t l = 0; l < lanes; ++l) {
      const int64_t i = k * lanes + l;
      if (i < a.in) m = std::max(m, a.begin[i + 1] - a.begin[i]);
    }
    t.slot_begin[k + 1] = t.slot_begin[k] + m;
  }
  const size_t total = static_cast<size_t>(t.slot_begin[nchunks] * lanes);
  t.idx.assign(total, 0);
  t.w.assign(total, 0.0f);
  t.valid.assign(total, 0);
  for (int64_t k = 0; k < nchunks; ++k) {
    for (int64_t l = 0; l < lanes; ++l) {
      const int64_t i = k * lanes + l;
      if (i >= a.in) continue;
      for (int64_t j = 0; j < a.begin[i + 1] - a.begin[i]; ++j) {
        const size_t at = static_cast<size_t>((t.slot_begin[k] + j) * lanes + l);
        t.idx[at] = a.use_o[a.begin[i] + j];
        t.w[at] = a.use_w[a.begin[i] + j];
        t.valid[at] = 1;
      }
    }
  }
  return t;
}

bool w_contiguous(const ResampleProblem& p) {
  const int r = p.spatial_rank;
  return p.src.spatial_stride[r - 1] == 1 && p.dst.spatial_stride[r - 1] == 1 &&
         p.src.block == 1 && p.dst.block == 1;
}

/// The longest run of contiguous channels both tensors hold at every pixel, capped at 16:
/// channels-last: any (16), blocked: the block (8 or 16) when its channels are contiguous,
/// plain: none (0).
int64_t channel_run(const ResampleProblem& p) {
  auto run = [](const ResampleLayout& l) -> int64_t {
    if (l.block == 1) return l.c_block_stride == 1 ? 16 : 0;
    return l.c_inner_stride == 1 ? std::min<int64_t>(l.block, 16) : 0;
  };
  return std::min(run(p.src), run(p.dst));
}

std::string channels_declines(const ResampleProblem& p, int64_t cap) {
  std::string why = resample_fast_declines(p);
  if (!why.empty()) return why;
  if (channel_run(p) < cap) {
    return "src and dst do not both hold runs of " + std::to_string(cap) +
           " contiguous channels (channels-last or blocked with a block >= " +
           std::to_string(cap) + ")";
  }
  return std::string();
}

std::shared_ptr<ResampleFastTables> make_tables(const ResampleProblem& p) {
  auto t = std::make_shared<ResampleFastTables>();
  for (int k = 0; k < p.spatial_rank; ++k) t->axis[k] = make_axis(p, k);
  return t;
}

}  // namespace

std::string resample_fast_declines(const ResampleProblem& p) {
  if (p.dtype != DType::kFloat32 && p.dtype != DType::kBFloat16) {
    return std::string("dtype ") + to_string(p.dtype) +
           " is not float32 or bfloat16 (the reference handles it)";
  }
  if (p.spatial_rank < 1 || p.spatial_rank > kResampleMaxSpatialRank) return "bad spatial rank";
  if (p.n == 0 || p.c == 0) return "empty problem (N or C is 0)";
  for (int k = 0; k < p.spatial_rank; ++k) {
    if (p.in[k] == 0 || p.out[k] == 0) return "empty spatial axis";
    if (p.in[k] > (int64_t{1} << 30) || p.out[k] > (int64_t{1} << 30)) {
      return "spatial axis longer than 2^30 (32-bit index tables)";
    }
  }
  return std::string();
}

std::shared_ptr<const void> resample_fast_prepare(const ResampleProblem& p) {
  return make_tables(p);
}

// --- resample.plain -----------------------------------------------------------------------

std::string resample_plain_declines(const ResampleProblem& p) {
  std::string why = resample_fast_declines(p);
  if (!why.empty()) return why;
  if (!w_contiguous(p)) {
    return "src and dst are not both unblocked and contiguous along the last spatial axis";
  }
  return std::string();
}
std::shared_ptr<const void> resample_plain_prepare(const ResampleProblem& p) {
  auto t = make_tables(p);
  const bool lin = p.algorithm == ResampleAlgorithm::kLinear;
  const int64_t lanes = lin ? HWY_DYNAMIC_DISPATCH(LanesF32)() : HWY_DYNAMIC_DISPATCH(LanesF64)();
  t->chunks = make_chunks(t->axis[p.spatial_rank - 1], lanes);
  return t;
}
void resample_plain_forward(const ResampleProblem& p, const void* tables, const void* src,
                            void* dst) {
  HWY_DYNAMIC_DISPATCH(PlainForward)(p, tables, src, dst);
}
void resample_plain_backward(const ResampleProblem& p, const void* tables, const void* diff_dst,
                             void* diff_src) {
  HWY_DYNAMIC_DISPATCH(PlainBackward)(p, tables, diff_dst, diff_src);
}

// --- resample.channels_vector16 / resample.channels_vector8 -------------------------------

std::string resample_channels16_declines(const ResampleProblem& p) {
  return channels_declines(p, 16);
}
void resample_channels16_forward(const ResampleProblem& p, const void* tables, const void* src,
                                 void* dst) {
  HWY_DYNAMIC_DISPATCH(Channels16Forward)(p, tables, src, dst);
}
void resample_channels16_backward(const ResampleProblem& p, const void* tables,
                                  const void* diff_dst, void* diff_src) {
  HWY_DYNAMIC_DISPATCH(Channels16Backward)(p, tables, diff_dst, diff_src);
}
std::string resample_channels8_declines(const ResampleProblem& p) {
  return channels_declines(p, 8);
}
void resample_channels8_forward(const ResampleProblem& p, const void* tables, const void* src,
                                void* dst) {
  HWY_DYNAMIC_DISPATCH(Channels8Forward)(p, tables, src, dst);
}
void resample_channels8_backward(const ResampleProblem& p, const void* tables,
                                 const void* diff_dst, void* diff_src) {
  HWY_DYNAMIC_DISPATCH(Channels8Backward)(p, tables, diff_dst, diff_src);
}

// --- resample.generic -----------------------------------------------------------------------

void resample_generic_forward(const ResampleProblem& p, const void* tables, const void* src,
                              void* dst) {
  HWY_DYNAMIC_DISPATCH(GenericForward)(p, tables, src, dst);
}
void resample_generic_backward(const ResampleProblem& p, const void* tables,
                               const void* diff_dst, void* diff_src) {
  HWY_DYNAMIC_DISPATCH(GenericBackward)(p, tables, diff_dst, diff_src);
}

}  // namespace gridops::kernels
#endif  // HWY_ONCE
