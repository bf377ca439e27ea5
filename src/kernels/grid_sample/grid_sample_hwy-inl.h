// Shared by the Highway translation units of the fast GridSample paths
// (grid_sample_<path>_hwy.cc, one per entry of the implementation list): the per-block
// scratch, steps 1-3 (grid values, per-axis taps, tap combinations) and the x window.
// Included once per Highway target (Highway's per-target include guard), after
// <hwy/highway.h> in a file that foreach_target.h re-includes. See docs/ops/grid_sample.md,
// "Fast path"; the plan-time tables and the per-run context are in grid_sample_fast.h.
//
// NOTE [ GridSample fast path ]
// Work is split into items (batch n, block of P consecutive output points). Each item is
// computed by one thread in a fixed order, so results never depend on the thread count.
// Per item:
//   1. grid values of the block, per spatial axis d, into g[d][0..P) as float;
//   2. per axis and SIMD vector of points: x = unnormalize(g), the K = 1/2/4 tap indices
//      (padded: zeros -> index 0 and weight 0 when outside, border -> clamp, reflection ->
//      period reduction in float, exact below 2^24) and weights. Lanes whose coordinate
//      is non-finite or has |x| >= 2^22 are recomputed alone with
//      grid_sample_axis_taps_exact (the reference's formulas in plain scalar code), so a
//      point's taps never depend on the other points of its vector (AxisStep);
//   3. the K^r tap combinations: int32 src offset (sum of index * spatial stride) and
//      weight (product over axes in the reference's order), NT = K^r rows of P;
//   4. for every channel: dst = sum_k w_k * src[off_k] (GatherIndex + MulAdd over points for
//      channels-first float32; vector loads over channels for channels-last), or for
//      nearest a selection (w != 0 ? src[off] : 0, copied bit for bit).
// Taps and weights are computed once per point and reused for every channel.
// Channels-first float32 with >= 8 channels takes another step 4 on AVX-512: NOTE
// [ GridSample channel blocks ].
#if defined(GRIDOPS_KERNELS_GRID_SAMPLE_GRID_SAMPLE_HWY_INL_H_) == defined(HWY_TARGET_TOGGLE)  // NOLINT
#ifdef GRIDOPS_KERNELS_GRID_SAMPLE_GRID_SAMPLE_HWY_INL_H_
#undef GRIDOPS_KERNELS_GRID_SAMPLE_GRID_SAMPLE_HWY_INL_H_
#else
#define GRIDOPS_KERNELS_GRID_SAMPLE_GRID_SAMPLE_HWY_INL_H_
#endif

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <new>
#include <type_traits>
#include <vector>

#include <hwy/aligned_allocator.h>
#include <hwy/highway.h>

#include "core/convert.h"
#include "core/coords_hwy-inl.h"
#include "core/vec_array_hwy-inl.h"
#include "kernels/grid_sample/grid_sample.h"
#include "kernels/grid_sample/grid_sample_fast.h"

// AxisTaps, Combine and CombineWindow (and grid_sample_pairs_hwy.cc's CombinePairs) are
// HWY_NOINLINE: out-of-line calls from the sub-block loop, as they were compiled when all
// paths shared one translation unit (`inline` alone lets GCC inline them into each path's
// loop, a code layout nobody has measured).

HWY_BEFORE_NAMESPACE();
namespace gridops::kernels::grid_sample_simd {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

using DF = hn::ScalableTag<float>;
using DI = hn::RebindToSigned<DF>;
using VF = hn::Vec<DF>;
using VI = hn::Vec<DI>;
// Arrays of vectors, members holding vectors: NOTE [ Sizeless vectors ].
template <class D, size_t N>
using VecArray = gridops::simd::HWY_NAMESPACE::VecArray<D, N>;
template <class D, size_t N>
using MaskArray = gridops::simd::HWY_NAMESPACE::MaskArray<D, N>;
template <class D>
using VecConst = gridops::simd::HWY_NAMESPACE::VecConst<D>;
using VI4 = VecArray<DI, 4>;  // the K <= 4 taps of an axis
using VF4 = VecArray<DF, 4>;

namespace gc = gridops::coords::HWY_NAMESPACE;  // coords_hwy-inl.h

/// One array of Work's scratch: a view into Work's single aligned buffer.
template <class T>
class ScratchArray {
 public:
  T* data() { return p_; }
  const T* data() const { return p_; }
  T& operator[](size_t i) { return p_[i]; }
  const T& operator[](size_t i) const { return p_[i]; }

 private:
  friend struct Work;
  T* p_ = nullptr;
};

/// Per-block scratch of one thread. Steps 1-3 run on sub-blocks of kSub points (their
/// arrays stay in L1); step 4 runs over the whole block of P points, one channel at a
/// time, so that one channel's plane stays in cache while P points gather from it.
///
/// NOTE [ GridSample scratch layout ]
/// All arrays live in one 64-byte aligned buffer at fixed offsets: each starts on a
/// 4 KiB boundary plus its own multiple of kStagger bytes, so that the arrays read and
/// written together (ax_i/ax_w by Combine*, off/w by step 4) never share their address
/// bits 0-11 (4 KiB aliasing between a store and a later load, and the same L1 sets for
/// rows a multiple of 2 KiB apart). As separate std::vectors their addresses were
/// wherever malloc put them: W1c (blocked, bicubic) at 1 thread took 3.8 to 5.9 ms by
/// where the heap happened to place the two 32 KiB tap arrays, with the same code.
struct Work {
  ScratchArray<float> g;        // [r][kSub] grid values
  ScratchArray<int32_t> ax_i;   // [r][K][kSub]
  ScratchArray<float> ax_w;     // [r][K][kSub]
  ScratchArray<int32_t> off;    // [NT][P]
  ScratchArray<float> w;        // [NT][P]
  ScratchArray<int64_t> doff;   // [P] dst point offsets (elements), without the batch part
  ScratchArray<int64_t> off64;  // [NT/2][P] byte offsets of tap pairs (x-window mode)
  explicit Work(const Ctx& c) {
    const auto P = static_cast<size_t>(c.P);
    const auto S = static_cast<size_t>(kSub);
    const size_t sizes[7] = {
        static_cast<size_t>(c.r) * S * sizeof(float),
        static_cast<size_t>(c.r * c.K) * S * sizeof(int32_t),
        static_cast<size_t>(c.r * c.K) * S * sizeof(float),
        static_cast<size_t>(c.NT) * P * sizeof(int32_t),
        static_cast<size_t>(c.NT) * P * sizeof(float),
        P * sizeof(int64_t),
        c.pairs ? static_cast<size_t>(c.NT / 2) * P * sizeof(int64_t) : 0};
    constexpr size_t kPage = 4096, kStagger = 576;  // 9 cache lines
    size_t at[7], total = 0;
    for (int i = 0; i < 7; ++i) {
      total = (total + kPage - 1) / kPage * kPage;
      at[i] = total + static_cast<size_t>(i) * kStagger;
      total = at[i] + sizes[i];
    }
    buf_ = hwy::AllocateAligned<uint8_t>(total);
    if (!buf_) throw std::bad_alloc();  // as the std::vector scratch did
    // Zeroed, as std::vector's resize left them (nothing reads an element before
    // writing it, but a value-initialized scratch keeps any such slip deterministic).
    std::memset(buf_.get(), 0, total);
    uint8_t* b = buf_.get();
    g.p_ = reinterpret_cast<float*>(b + at[0]);
    ax_i.p_ = reinterpret_cast<int32_t*>(b + at[1]);
    ax_w.p_ = reinterpret_cast<float*>(b + at[2]);
    off.p_ = reinterpret_cast<int32_t*>(b + at[3]);
    w.p_ = reinterpret_cast<float*>(b + at[4]);
    doff.p_ = reinterpret_cast<int64_t*>(b + at[5]);
    off64.p_ = c.pairs ? reinterpret_cast<int64_t*>(b + at[6]) : nullptr;
  }

 private:
  hwy::AlignedFreeUniquePtr<uint8_t[]> buf_;
};

template <class T>
HWY_INLINE float LoadF(const T* p, int64_t i) {
  return convert::load_real<float>(p[i]);
}

/// Step 1: grid values and dst point offsets of points [p0, p0 + cnt) of batch n; the
/// rest of the block (up to Pv) gets coordinate 0, which is harmless and never stored.
/// Walks the points row by row (runs along the innermost output axis), with everything
/// in locals so the stores cannot be taken to alias the context.
template <class GT, int R>
void FillGrid(const Ctx& c, Work& wk, int64_t n, int64_t p0, int64_t cnt, int64_t Pv,
              int64_t* doff) {
  const GT* gbase = reinterpret_cast<const GT*>(c.grid) + n * c.g_batch;
  int64_t o[3] = {0, 0, 0}, osz[3], gsp[3], dsp[3];
  for (int d = 0; d < R; ++d) {
    osz[d] = c.out_sizes[d];
    gsp[d] = c.g_spatial[d];
    dsp[d] = c.d_spatial[d];
  }
  const int64_t gc = c.g_coord;
  int64_t rem = p0;
  for (int d = R - 1; d >= 0; --d) {
    o[d] = rem % osz[d];
    rem /= osz[d];
  }
  float* gd[3];
  for (int d = 0; d < R; ++d) gd[d] = wk.g.data() + static_cast<size_t>(d * kSub);
  int64_t p = 0;
  while (p < cnt) {
    int64_t goff = 0, dof = 0;
    for (int d = 0; d < R; ++d) {
      goff += o[d] * gsp[d];
      dof += o[d] * dsp[d];
    }
    const int64_t run = std::min(cnt - p, osz[R - 1] - o[R - 1]);
    const GT* gp = gbase + goff;
    const int64_t gi = gsp[R - 1], di = dsp[R - 1];
    if constexpr (std::is_same_v<GT, float>) {
      if (gi == R && gc == 1) {  // contiguous float32 grid: plain deinterleave
        for (int64_t q = 0; q < run; ++q) {
          for (int d = 0; d < R; ++d) gd[d][p + q] = gp[q * R + (R - 1 - d)];
          doff[p + q] = dof + q * di;
        }
        p += run;
        o[R - 1] += run;
        for (int d = R - 1; d > 0 && o[d] >= osz[d]; --d) {
          o[d] = 0;
          ++o[d - 1];
        }
        continue;
      }
    }
    for (int64_t q = 0; q < run; ++q) {
      for (int d = 0; d < R; ++d) gd[d][p + q] = LoadF(gp, q * gi + (R - 1 - d) * gc);
      doff[p + q] = dof + q * di;
    }
    p += run;
    o[R - 1] += run;
    for (int d = R - 1; d > 0 && o[d] >= osz[d]; --d) {
      o[d] = 0;
      ++o[d - 1];
    }
  }
  for (int64_t q = cnt; q < Pv; ++q) {
    for (int d = 0; d < R; ++d) gd[d][q] = 0.0f;
  }
}

template <class GT>
void FillGridR(const Ctx& c, Work& wk, int64_t n, int64_t p0, int64_t cnt, int64_t Pv,
               int64_t* doff) {
  switch (c.r) {
    case 1: FillGrid<GT, 1>(c, wk, n, p0, cnt, Pv, doff); break;
    case 2: FillGrid<GT, 2>(c, wk, n, p0, cnt, Pv, doff); break;
    default: FillGrid<GT, 3>(c, wk, n, p0, cnt, Pv, doff); break;
  }
}

/// Step 2 for one axis and one vector of points: the K padded tap indices and weights of
/// grid values g (padded: zeros -> index 0 and weight 0 when outside, border -> clamp,
/// reflection -> period reduction in float, exact below 2^24). Lanes whose coordinate is
/// non-finite or has |x| >= 2^22 are recomputed alone with grid_sample_axis_taps_exact;
/// every lane's result depends on its own coordinate only, so any grouping of points
/// into vectors gives the same bits.
class AxisStep {
 public:
  AxisStep(const Ctx& c, int d)
      : mode_(c.mode),
        padding_(c.padding),
        align_(c.align_corners),
        K_(c.K),
        len_(c.len[d]),
        L_(static_cast<float>(len_)),
        Lm1_(static_cast<float>(len_ - 1)),
        len_i_(static_cast<int32_t>(len_)),
        lenm1_i_(static_cast<int32_t>(len_ - 1)),
        windowed_(c.windowed),
        org_i_(static_cast<int32_t>(c.origin[d])),
        extm1_i_(static_cast<int32_t>(c.ext[d] - 1)) {
    // The interior test: every tap of x inside src's box [origin, origin + ext - 1] for
    // x in [in_lo_, in_hi_] (nearest) or [in_lo_, in_hi_) (linear, cubic). Exact floats:
    // the sizes are below 2^22.
    const int64_t first = c.origin[d], last = c.origin[d] + c.ext[d] - 1;
    const int64_t below = K_ == 4 ? 1 : 0, above = K_ == 4 ? 2 : K_ == 2 ? 1 : 0;
    in_lo_ = VecConst<DF>(static_cast<float>(first + below));
    in_hi_ = VecConst<DF>(static_cast<float>(last - above + (K_ == 1 ? 0 : 1)));
    // Reflection: period and whether the axis degenerates to index 0 (reflect with len 1).
    refl_single_ = padding_ == GridPadding::kReflection && align_ && len_ == 1;
    const int64_t period = align_ ? 2 * (len_ - 1) : 2 * len_;
    per_f_ = VecConst<DF>(static_cast<float>(period > 0 ? period : 1));
    inv_per_ = VecConst<DF>(1.0f / static_cast<float>(period > 0 ? period : 1));
    per_i_ = VecConst<DI>(static_cast<int32_t>(period > 0 ? period : 1));
    per_m1_i_ = VecConst<DI>(static_cast<int32_t>(period - 1));
  }

  HWY_INLINE void operator()(VF gv, VI4& iv_out, VF4& wv_out) const { Taps<0>(gv, iv_out, wv_out); }

  /// As operator(), with kK taps per axis known at compile time (1 nearest, 2 linear, 4
  /// cubic; 0: the plan's, K_): the loops over taps unroll and the tap arrays can stay in
  /// registers (with K_ they live in memory). Same operations, same bits.
  template <int kK>
  HWY_INLINE void Taps(VF gv, VI4& iv_out, VF4& wv_out) const {
    const DF df;
    const DI di;
    const VF x = gc::UnnormalizeV(df, gv, L_.Get(), Lm1_.Get(), align_);
    if (Interior<kK>(x, iv_out, wv_out)) return;
    Vector<kK>(x, iv_out, wv_out);
    const auto nice = hn::Lt(hn::Abs(x), hn::Set(df, 4194304.0f));  // 2^22; false for NaN, inf
    if (HWY_UNLIKELY(!hn::AllTrue(df, nice))) {
      // Those lanes again, each alone, with the reference's scalar formulas (the other
      // lanes keep the vector results, so a lane never depends on its neighbours).
      constexpr size_t kMax = hn::MaxLanes(df);
      HWY_ALIGN float xs[kMax];
      HWY_ALIGN int32_t ii[4][kMax];
      HWY_ALIGN float ww[4][kMax];
      hn::Store(x, df, xs);
      for (int k = 0; k < K(kK); ++k) {
        hn::Store(iv_out[k], di, ii[k]);
        hn::Store(wv_out[k], df, ww[k]);
      }
      for (size_t l = 0; l < hn::Lanes(df); ++l) {
        if (std::fabs(xs[l]) < 4194304.0f) continue;
        int32_t i4[4];
        float w4[4];
        grid_sample_axis_taps_exact(mode_, padding_, align_, xs[l], len_, i4, w4);
        for (int k = 0; k < K(kK); ++k) {
          ii[k][l] = i4[k];
          ww[k][l] = w4[k];
        }
      }
      for (int k = 0; k < K(kK); ++k) {
        iv_out[k] = hn::Load(di, ii[k]);
        wv_out[k] = hn::Load(df, ww[k]);
      }
    }
    if (windowed_) {
      // Full indices to src's box. Taps with a nonzero weight (and the zero-weight ones
      // inside the full input) are inside it (checked by the operator layer), so the clamp
      // moves only zeros-padding taps outside the full input (index 0, weight 0).
      for (int k = 0; k < K(kK); ++k) {
        iv_out[k] = hn::Min(hn::Max(hn::Sub(iv_out[k], org_i_.Get()), hn::Zero(di)), extm1_i_.Get());
      }
    }
  }

 private:
  /// The taps per axis: kK where known at compile time, else the plan's.
  HWY_INLINE int K(int kK) const { return kK > 0 ? kK : K_; }
  /// The mode, from kK where known at compile time.
  HWY_INLINE bool Nearest(int kK) const {
    return kK > 0 ? kK == 1 : mode_ == InterpolationMode::kNearest;
  }
  HWY_INLINE bool Linear(int kK) const {
    return kK > 0 ? kK == 2 : mode_ == InterpolationMode::kLinear;
  }

  /// NOTE [ GridSample interior vectors ]: when every lane's taps lie inside src's box
  /// (false for NaN, infinities and huge values), no padding, redo or clamp changes
  /// anything: the taps are the vector formulas' indices minus the box origin, with the
  /// weights unmasked. Same values as the general path (which would find every tap
  /// inside); returns false, computing nothing, otherwise.
  template <int kK>
  HWY_INLINE bool Interior(VF x, VI4& iv_out, VF4& wv_out) const {
    const DF df;
    const DI di;
    const auto below_hi = K(kK) == 1 ? hn::Le(x, in_hi_.Get()) : hn::Lt(x, in_hi_.Get());
    if (!hn::AllTrue(df, hn::And(hn::Ge(x, in_lo_.Get()), below_hi))) return false;
    if (Nearest(kK)) {
      iv_out[0] = hn::Sub(hn::ConvertTo(di, hn::Round(x)), org_i_.Get());
      wv_out[0] = hn::Set(df, 1.0f);
      return true;
    }
    const VF f = hn::Floor(x);
    const VF t = hn::Sub(x, f);
    const VI i0 = hn::Sub(hn::ConvertTo(di, f), org_i_.Get());
    if (Linear(kK)) {
      wv_out[0] = hn::Sub(hn::Set(df, 1.0f), t);
      wv_out[1] = t;
      iv_out[0] = i0;
      iv_out[1] = hn::Add(i0, hn::Set(di, 1));
      return true;
    }
    gc::CubicWeightsV(df, t, wv_out);
    for (int k = 0; k < 4; ++k) iv_out[k] = hn::Add(i0, hn::Set(di, k - 1));
    return true;
  }

  /// The taps of unnormalized coordinates x by the vector formulas (meaningless in lanes
  /// where x is not finite or |x| >= 2^22; operator() redoes those).
  template <int kK>
  HWY_INLINE void Vector(VF x, VI4& iv_out, VF4& wv_out) const {
    const DF df;
    const DI di;
    const VF one = hn::Set(df, 1.0f);
    if (Nearest(kK)) {
      const VI i = hn::ConvertTo(di, hn::Round(x));  // ties to even, like round_half_even
      auto inside = hn::FirstN(di, hn::Lanes(di));
      iv_out[0] = Pad(i, &inside);
      wv_out[0] = hn::IfThenElseZero(hn::RebindMask(df, inside), one);
      return;
    }
    const VF f = hn::Floor(x);
    const VF t = hn::Sub(x, f);
    const VI i0 = hn::ConvertTo(di, f);
    VF4 wv;
    VI4 iv;
    if (Linear(kK)) {
      wv[0] = hn::Sub(one, t);
      wv[1] = t;
      iv[0] = i0;
      iv[1] = hn::Add(i0, hn::Set(di, 1));
    } else {
      gc::CubicWeightsV(df, t, wv);  // coords::cubic_weights
      for (int k = 0; k < 4; ++k) iv[k] = hn::Add(i0, hn::Set(di, k - 1));
    }
    for (int k = 0; k < K(kK); ++k) {
      auto inside = hn::FirstN(di, hn::Lanes(di));
      iv_out[k] = Pad(iv[k], &inside);
      const VF wk = wv[k];
      wv_out[k] = padding_ == GridPadding::kZeros
                      ? hn::IfThenElseZero(hn::RebindMask(df, inside), wk)
                      : wk;
    }
  }

  // Pads integer tap indices, the vector form of coords::grid_pad_index (int32, |i| < 2^24:
  // zeros -> index 0 when outside, border -> clamp, reflection -> the period reduction in
  // float, exact below 2^24); returns the index and sets *inside for zeros padding.
  HWY_INLINE VI Pad(VI i, hn::Mask<DI>* inside) const {
    const DF df;
    const DI di;
    const VI zero_i = hn::Zero(di);
    switch (padding_) {
      case GridPadding::kZeros: {
        *inside = hn::And(hn::Gt(i, hn::Set(di, -1)), hn::Lt(i, len_i_.Get()));  // 1.0.3: no Ge
        return hn::IfThenElseZero(*inside, i);
      }
      case GridPadding::kBorder: return hn::Min(hn::Max(i, zero_i), lenm1_i_.Get());
      case GridPadding::kReflection: {
        if (refl_single_) return zero_i;
        const VF fi = hn::ConvertTo(df, i);
        const VF q = hn::Floor(hn::Mul(fi, inv_per_.Get()));
        VI m = hn::ConvertTo(di, hn::Sub(fi, hn::Mul(q, per_f_.Get())));  // exact: |values| < 2^24
        const VI per_i = per_i_.Get(), per_m1_i = per_m1_i_.Get();
        m = hn::IfThenElse(hn::Lt(m, zero_i), hn::Add(m, per_i), m);
        m = hn::IfThenElse(hn::Gt(m, per_m1_i), hn::Sub(m, per_i), m);
        const VI mirrored = align_ ? hn::Sub(per_i, m) : hn::Sub(per_m1_i, m);
        return hn::IfThenElse(hn::Lt(m, len_i_.Get()), m, mirrored);
      }
    }
    return zero_i;
  }

  InterpolationMode mode_;
  GridPadding padding_;
  bool align_;
  int K_;
  int64_t len_;
  VecConst<DF> L_, Lm1_;
  VecConst<DI> len_i_, lenm1_i_;
  bool windowed_;
  VecConst<DI> org_i_, extm1_i_;
  VecConst<DF> in_lo_, in_hi_;
  bool refl_single_ = false;
  VecConst<DF> per_f_, inv_per_;
  VecConst<DI> per_i_, per_m1_i_;
};

/// Step 2 for axis d over Pv points.
inline HWY_NOINLINE void AxisTaps(const Ctx& c, Work& wk, int d, int64_t Pv) {
  const DF df;
  const DI di;
  const auto N = static_cast<int64_t>(hn::Lanes(df));
  const auto S = static_cast<size_t>(kSub);
  const int K = c.K;
  const float* g = wk.g.data() + static_cast<size_t>(d) * S;
  int32_t* ai = wk.ax_i.data() + static_cast<size_t>(d * K) * S;
  float* aw = wk.ax_w.data() + static_cast<size_t>(d * K) * S;
  const AxisStep step(c, d);
  for (int64_t j = 0; j < Pv; j += N) {
    VI4 iv;
    VF4 wv;
    step(hn::LoadU(df, g + j), iv, wv);
    for (int k = 0; k < K; ++k) {
      hn::StoreU(iv[k], di, ai + static_cast<size_t>(k) * S + static_cast<size_t>(j));
      hn::StoreU(wv[k], df, aw + static_cast<size_t>(k) * S + static_cast<size_t>(j));
    }
  }
}

/// The x window of NOTE [ GridSample x-window gathers ] of a vector of points with x taps
/// ix/wx (len_x columns): its first column *b and the K column weights.
HWY_INLINE void XWindowV(int K, int64_t len_x, const VI4& ix, const VF4& wx, VI* b_out,
                         VF4& wcol) {
  const DF df;
  const DI di;
  const VI wmax = hn::Set(di, static_cast<int32_t>(len_x - K));
  const VF zero_f = hn::Zero(df);
  VI b = wmax;
  for (int k = 0; k < K; ++k) {
    const auto nonzero = hn::RebindMask(di, hn::Not(hn::Eq(wx[k], zero_f)));
    b = hn::Min(b, hn::IfThenElse(nonzero, ix[k], wmax));
  }
  b = hn::Max(b, hn::Zero(di));
  for (int m = 0; m < K; ++m) {
    const VI col = hn::Add(b, hn::Set(di, m));
    VF sum = hn::IfThenElseZero(hn::RebindMask(df, hn::Eq(ix[0], col)), wx[0]);
    for (int k = 1; k < K; ++k) {
      sum = hn::Add(sum, hn::IfThenElseZero(hn::RebindMask(df, hn::Eq(ix[k], col)), wx[k]));
    }
    wcol[m] = sum;
  }
  *b_out = b;
}

/// XWindowV for the vector of points at j of the sub-block.
HWY_INLINE void XWindow(const Ctx& c, const Work& wk, int64_t j, VI* b_out, VF4& wcol) {
  const DF df;
  const DI di;
  const auto S = static_cast<size_t>(kSub);
  const int K = c.K;
  const int xa = c.r - 1;  // the innermost axis
  VI4 ix;
  VF4 wx;
  for (int k = 0; k < K; ++k) {
    ix[k] = hn::LoadU(di, wk.ax_i.data() + static_cast<size_t>(xa * K + k) * S + j);
    wx[k] = hn::LoadU(df, wk.ax_w.data() + static_cast<size_t>(xa * K + k) * S + j);
  }
  XWindowV(K, c.xwin_len, ix, wx, b_out, wcol);
}

/// Offset and weight of outer combination `oc` (axes 0..r-2, last fastest; weights
/// multiplied from axis 0 on, as in the reference) for the vector of points at j.
HWY_INLINE void OuterTap(const Ctx& c, const Work& wk, int oc, int64_t j, VI* off, VF* w) {
  const DF df;
  const DI di;
  const auto S = static_cast<size_t>(kSub);
  const int K = c.K;
  int kk[2] = {0, 0};
  int rest = oc;
  for (int d = c.r - 2; d >= 0; --d) {
    kk[d] = rest % K;
    rest /= K;
  }
  VI o = hn::Zero(di);
  VF wv = hn::Set(df, 1.0f);
  for (int d = 0; d <= c.r - 2; ++d) {
    const size_t row = static_cast<size_t>(d * K + kk[d]) * S;
    o = hn::Add(o, hn::Mul(hn::LoadU(di, wk.ax_i.data() + row + j), hn::Set(di, c.sstride[d])));
    const VF wa = hn::LoadU(df, wk.ax_w.data() + row + j);
    wv = d == 0 ? wa : hn::Mul(wv, wa);
  }
  *off = o;
  *w = wv;
}

/// Step 3 for 2-D/3-D linear/cubic with W >= K (c.window): the outer tap combinations and
/// the x window columns, in the same order and with the same products as the x-window
/// gathers, so every layout and path gives the same bits.
inline HWY_NOINLINE void CombineWindow(const Ctx& c, Work& wk, int64_t Pv, int64_t s0) {
  const DF df;
  const DI di;
  const auto N = static_cast<int64_t>(hn::Lanes(df));
  const auto P = static_cast<size_t>(c.P);
  const int K = c.K;
  const VI sx = hn::Set(di, c.sstride[c.r - 1]);
  const int outer = c.NT / K;
  for (int64_t j = 0; j < Pv; j += N) {
    VI b;
    VF4 wcol;
    XWindow(c, wk, j, &b, wcol);
    for (int ky = 0; ky < outer; ++ky) {
      VI row;
      VF wy;
      OuterTap(c, wk, ky, j, &row, &wy);
      for (int m = 0; m < K; ++m) {
        const size_t k = static_cast<size_t>(ky * K + m);
        const VI o = hn::Add(row, hn::Mul(hn::Add(b, hn::Set(di, m)), sx));
        hn::StoreU(o, di, wk.off.data() + k * P + static_cast<size_t>(s0 + j));
        hn::StoreU(hn::Mul(wy, wcol[m]), df, wk.w.data() + k * P + static_cast<size_t>(s0 + j));
      }
    }
  }
}

/// Step 3: combinations in the reference's order (last axis fastest), weights multiplied
/// from the first axis on, offsets summed.
inline HWY_NOINLINE void Combine(const Ctx& c, Work& wk, int64_t Pv, int64_t s0) {
  const DF df;
  const DI di;
  const auto N = static_cast<int64_t>(hn::Lanes(df));
  const auto P = static_cast<size_t>(c.P);
  const auto S = static_cast<size_t>(kSub);
  const int K = c.K, r = c.r;
  const bool nearest = c.mode == InterpolationMode::kNearest;
  for (int64_t j = 0; j < Pv; j += N) {
    for (int combo = 0; combo < c.NT; ++combo) {
      int kk[3] = {0, 0, 0};
      int rest = combo;
      for (int d = r - 1; d >= 0; --d) {
        kk[d] = rest % K;
        rest /= K;
      }
      VI off = hn::Zero(di);
      VF w = hn::Set(df, 1.0f);
      for (int d = 0; d < r; ++d) {
        const size_t row = static_cast<size_t>(d * K + kk[d]) * S;
        const VI idx = hn::LoadU(di, wk.ax_i.data() + row + j);
        off = hn::Add(off, hn::Mul(idx, hn::Set(di, c.sstride[d])));
        const VF wa = hn::LoadU(df, wk.ax_w.data() + row + j);
        w = d == 0 ? wa : hn::Mul(w, wa);
      }
      if (nearest) off = hn::IfThenElseZero(hn::RebindMask(di, hn::Gt(w, hn::Zero(df))), off);
      hn::StoreU(off, di, wk.off.data() + static_cast<size_t>(combo) * P + s0 + j);
      hn::StoreU(w, df, wk.w.data() + static_cast<size_t>(combo) * P + s0 + j);
    }
  }
}

/// Step 3 as the per-block paths other than pairs take it: on the x window where the
/// problem has one (c.window), else every combination.
inline void CombineTaps(const Ctx& c, Work& wk, int64_t Pv, int64_t s0) {
  if (c.window) {
    CombineWindow(c, wk, Pv, s0);
  } else {
    Combine(c, wk, Pv, s0);
  }
}

/// Steps 1-3 for the block of points [p0, p0 + cnt) of batch n, by sub-blocks of kSub
/// points, into the tap arrays at [0, cnt); `combine` is the path's step 3
/// (CombineTaps, or the pairs path's CombinePairs).
template <class Combine3>
HWY_INLINE void BlockTaps(const Ctx& c, Work& wk, int64_t n, int64_t p0, int64_t cnt,
                          const Combine3& combine) {
  const DF df;
  const auto N = static_cast<int64_t>(hn::Lanes(df));
  for (int64_t s0 = 0; s0 < cnt; s0 += kSub) {
    const int64_t sc = std::min(kSub, cnt - s0);
    const int64_t Pv = (sc + N - 1) / N * N;
    int64_t* doff = wk.doff.data() + s0;
    switch (c.grid_dtype) {
      case DType::kFloat16: FillGridR<float16>(c, wk, n, p0 + s0, sc, Pv, doff); break;
      case DType::kBFloat16: FillGridR<bfloat16>(c, wk, n, p0 + s0, sc, Pv, doff); break;
      default: FillGridR<float>(c, wk, n, p0 + s0, sc, Pv, doff); break;
    }
    for (int d = 0; d < c.r; ++d) AxisTaps(c, wk, d, Pv);
    combine(c, wk, Pv, s0);
  }
}

// The pair gathers of NOTE [ GridSample x-window gathers ] (grid_sample_pairs_hwy.cc; the
// fused path's channels-first linear/cubic too) need AVX2 and up.
#if HWY_TARGET <= HWY_AVX2 && HWY_ARCH_X86
constexpr bool kHavePairs = true;
using D64 = hn::Repartition<int64_t, DF>;
using DD = hn::Repartition<double, DF>;
#else
constexpr bool kHavePairs = false;
#endif

}  // namespace HWY_NAMESPACE
}  // namespace gridops::kernels::grid_sample_simd
HWY_AFTER_NAMESPACE();

#endif  // include guard
