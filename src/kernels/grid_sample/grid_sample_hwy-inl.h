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
//   1. grid values of the block, per spatial axis d, into g[d][0..P) as float (a
//      displacement plus the point's own coordinate, from the plan's tables);
//   2. per axis and SIMD vector of points: x = unnormalize(g) (pixel grids: x = g), the
//      K = 1/2/4 tap indices
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
/// rows a multiple of 2 KiB apart), wherever the allocator puts the buffer
/// (docs/perf/grid_sample.md, "Scratch layout").
struct Work {
  ScratchArray<float> g;        // [r][kSub] grid values
  ScratchArray<int32_t> ax_i;   // [r][K][kSub]
  ScratchArray<float> ax_w;     // [r][K][kSub]
  ScratchArray<int32_t> off;    // [NT][P]
  ScratchArray<float> w;        // [NT][P]
  ScratchArray<int64_t> doff;   // [P] dst point offsets (elements), without the batch part
  ScratchArray<int64_t> off64;  // [NT/2][P] byte offsets of tap pairs (x-window mode)
  /// pair_offsets: with off64 (the pairs path), else off64 is null.
  explicit Work(const Ctx& c, bool pair_offsets = false) {
    const auto P = static_cast<size_t>(c.P);
    const auto S = static_cast<size_t>(kSub);
    const size_t sizes[7] = {
        static_cast<size_t>(c.r) * S * sizeof(float),
        static_cast<size_t>(c.r * c.K) * S * sizeof(int32_t),
        static_cast<size_t>(c.r * c.K) * S * sizeof(float),
        static_cast<size_t>(c.NT) * P * sizeof(int32_t),
        static_cast<size_t>(c.NT) * P * sizeof(float),
        P * sizeof(int64_t),
        pair_offsets ? static_cast<size_t>(c.NT / 2) * P * sizeof(int64_t) : 0};
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
    off64.p_ = pair_offsets ? reinterpret_cast<int64_t*>(b + at[6]) : nullptr;
  }

 private:
  hwy::AlignedFreeUniquePtr<uint8_t[]> buf_;
};

template <class T>
HWY_INLINE float LoadF(const T* p, int64_t i) {
  return convert::load_real<float>(p[i]);
}

/// Step 1's displacement: adds the points' own coordinates (the plan's base tables, the
/// reference's base_coordinate in float) to the grid values of a run of `run` points
/// along the innermost output axis starting at output index o, stored at gd[d][p..].
template <int R>
HWY_INLINE void AddBase(const Ctx& c, const int64_t* o, int64_t run, float* const* gd, int64_t p) {
  for (int d = 0; d < R - 1; ++d) {
    const float b = c.base[d][o[d]];
    for (int64_t q = 0; q < run; ++q) gd[d][p + q] += b;
  }
  const float* bx = c.base[R - 1] + o[R - 1];
  for (int64_t q = 0; q < run; ++q) gd[R - 1][p + q] += bx[q];
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
        if (c.displacement) AddBase<R>(c, o, run, gd, p);
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
    if (c.displacement) AddBase<R>(c, o, run, gd, p);
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

}  // namespace HWY_NAMESPACE
}  // namespace gridops::kernels::grid_sample_simd
HWY_AFTER_NAMESPACE();

// Step 2 (AxisStep), on the types above.
#include "kernels/grid_sample/grid_sample_axis_step_hwy-inl.h"

HWY_BEFORE_NAMESPACE();
namespace gridops::kernels::grid_sample_simd {
namespace HWY_NAMESPACE {

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
