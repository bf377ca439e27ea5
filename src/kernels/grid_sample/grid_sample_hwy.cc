// The fast GridSample kernel: Highway SIMD with dynamic dispatch, threaded over blocks of
// output points through parallel_for. See docs/ops/grid_sample.md, "Fast path".
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
#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <new>
#include <type_traits>
#include <vector>

#include "core/convert.h"
#include "gridops/parallel.h"
#include "kernels/grid_sample/grid_sample.h"
#include "ops/dispatch.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/grid_sample/grid_sample_hwy.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/aligned_allocator.h>
#include <hwy/highway.h>

#include "core/coords_hwy-inl.h"

#ifndef GRIDOPS_GRID_SAMPLE_HWY_ONCE
#define GRIDOPS_GRID_SAMPLE_HWY_ONCE
namespace gridops::kernels::gs_fast {

/// Points per sub-block of the tap computation (a multiple of every vector length).
constexpr int64_t kSub = 512;

/// Everything a block needs, computed once per run.
struct Ctx {
  InterpolationMode mode;
  GridPadding padding;
  bool align_corners;
  bool channels_last;
  int r;        // spatial rank, 1..3
  int K;        // taps per axis
  int NT;       // K^r
  int64_t P;    // points per block (multiple of kSub)
  int64_t channels;
  int64_t len[3];      // full input sizes (with an input window: the virtual full input's)
  int32_t sstride[3];  // src spatial strides (elements)
  // Input window (GridSampleProblem::window_origin): taps are computed against len and
  // then mapped to src's box by AxisStep (index - origin, clamped into the box: only
  // zero-weight taps ever need the clamp); x windows are clamped to the box's width.
  bool windowed;
  int64_t origin[3];
  int64_t ext[3];      // src's spatial sizes (== len without a window)
  int64_t xwin_len;    // columns an x window may span: ext of the innermost axis
  int64_t out_sizes[3];
  int64_t out_points;
  int64_t blocks_per_batch;
  // src
  const char* src;
  DType src_dtype;
  int64_t s_batch, s_channel;
  // grid
  const char* grid;
  DType grid_dtype;
  int64_t g_batch, g_spatial[3], g_coord;
  // dst
  char* dst;
  int64_t d_batch, d_channel, d_spatial[3];
  bool window;     // 2-D linear/cubic with W >= K: taps on the x window (CombineWindow)
  bool pair_ok;    // 2-D channels-first float32 linear/cubic with unit x stride and
                   // W >= K: see NOTE [ GridSample x-window gathers ]
  bool fused;      // path kFusedSmallC: NOTE [ GridSample fused small-channel path ]
  bool pairs;      // path kPairs: NOTE [ GridSample x-window gathers ]
  bool vector_channels;  // path kChannels: vector loads/gathers of float32 channels
  int64_t tile_h, tile_w, tiles_x;  // fused: items are tiles of output points
  bool dst_dense;  // point offset (in elements) == point index (channels-first) or
                   // point index * C (channels-last, with d_channel == 1)
  // Channel-blocked mode (NOTE [ GridSample channel blocks ]); sstride then holds the
  // strides of the blocked copy (dense spatial strides times kCB) and s_spatial the src's.
  bool blocked;
  int64_t in_points;   // product of len
  int64_t cblocks;     // ceil(channels / kCB)
  int64_t chunks;      // point chunks per (batch, channel block) item
  int64_t chunk_pts;   // points per chunk (multiple of kSub)
  int64_t s_spatial[3];
  bool stream;         // non-temporal stores of dst runs (dst much larger than L2)
  float* shared;       // copies of all (n, cb) made before the items run, or null
  int64_t copy_parts;  // row ranges per copy (shared copies)
};

/// Channels per block of the channel-blocked copy (one AVX-512 vector of float32).
constexpr int64_t kCB = 16;

}  // namespace gridops::kernels::gs_fast
#endif

HWY_BEFORE_NAMESPACE();
namespace gridops::kernels::gs_fast {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

using DF = hn::ScalableTag<float>;
using DI = hn::RebindToSigned<DF>;
using VF = hn::Vec<DF>;
using VI = hn::Vec<DI>;

namespace gc = gridops::coords::HWY_NAMESPACE;  // coords_hwy-inl.h

/// Per-block scratch of one thread.
/// Per-block scratch of one thread. Steps 1-3 run on sub-blocks of kSub points (their
/// arrays stay in L1); step 4 runs over the whole block of P points, one channel at a
/// time, so that one channel's plane stays in cache while P points gather from it.
struct Work {
  std::vector<float> g;        // [r][kSub] grid values
  std::vector<int32_t> ax_i;   // [r][K][kSub]
  std::vector<float> ax_w;     // [r][K][kSub]
  std::vector<int32_t> off;    // [NT][P]
  std::vector<float> w;        // [NT][P]
  std::vector<int64_t> doff;   // [P] dst point offsets (elements), without the batch part
  std::vector<int64_t> off64;  // [NT/2][P] byte offsets of tap pairs (x-window mode)
  explicit Work(const Ctx& c) {
    const auto P = static_cast<size_t>(c.P);
    const auto S = static_cast<size_t>(kSub);
    g.resize(static_cast<size_t>(c.r) * S);
    ax_i.resize(static_cast<size_t>(c.r * c.K) * S);
    ax_w.resize(static_cast<size_t>(c.r * c.K) * S);
    off.resize(static_cast<size_t>(c.NT) * P);
    w.resize(static_cast<size_t>(c.NT) * P);
    doff.resize(P);
    if (c.pairs) off64.resize(static_cast<size_t>(c.NT / 2) * P);
  }
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
        L_(hn::Set(DF(), static_cast<float>(len_))),
        Lm1_(hn::Set(DF(), static_cast<float>(len_ - 1))),
        len_i_(hn::Set(DI(), static_cast<int32_t>(len_))),
        lenm1_i_(hn::Set(DI(), static_cast<int32_t>(len_ - 1))),
        windowed_(c.windowed),
        org_i_(hn::Set(DI(), static_cast<int32_t>(c.origin[d]))),
        extm1_i_(hn::Set(DI(), static_cast<int32_t>(c.ext[d] - 1))) {
    // Reflection: period and whether the axis degenerates to index 0 (reflect with len 1).
    refl_single_ = padding_ == GridPadding::kReflection && align_ && len_ == 1;
    const int64_t period = align_ ? 2 * (len_ - 1) : 2 * len_;
    per_f_ = hn::Set(DF(), static_cast<float>(period > 0 ? period : 1));
    inv_per_ = hn::Set(DF(), 1.0f / static_cast<float>(period > 0 ? period : 1));
    per_i_ = hn::Set(DI(), static_cast<int32_t>(period > 0 ? period : 1));
    per_m1_i_ = hn::Set(DI(), static_cast<int32_t>(period - 1));
  }

  HWY_INLINE void operator()(VF gv, VI* iv_out, VF* wv_out) const {
    const DF df;
    const DI di;
    const VF x = gc::UnnormalizeV(df, gv, L_, Lm1_, align_);
    Vector(x, iv_out, wv_out);
    const auto nice = hn::Lt(hn::Abs(x), hn::Set(df, 4194304.0f));  // 2^22; false for NaN, inf
    if (HWY_UNLIKELY(!hn::AllTrue(df, nice))) {
      // Those lanes again, each alone, with the reference's scalar formulas (the other
      // lanes keep the vector results, so a lane never depends on its neighbours).
      constexpr size_t kMax = hn::MaxLanes(df);
      HWY_ALIGN float xs[kMax];
      HWY_ALIGN int32_t ii[4][kMax];
      HWY_ALIGN float ww[4][kMax];
      hn::Store(x, df, xs);
      for (int k = 0; k < K_; ++k) {
        hn::Store(iv_out[k], di, ii[k]);
        hn::Store(wv_out[k], df, ww[k]);
      }
      for (size_t l = 0; l < hn::Lanes(df); ++l) {
        if (std::fabs(xs[l]) < 4194304.0f) continue;
        int32_t i4[4];
        float w4[4];
        grid_sample_axis_taps_exact(mode_, padding_, align_, xs[l], len_, i4, w4);
        for (int k = 0; k < K_; ++k) {
          ii[k][l] = i4[k];
          ww[k][l] = w4[k];
        }
      }
      for (int k = 0; k < K_; ++k) {
        iv_out[k] = hn::Load(di, ii[k]);
        wv_out[k] = hn::Load(df, ww[k]);
      }
    }
    if (windowed_) {
      // Full indices to src's box. Taps with a nonzero weight (and the zero-weight ones
      // inside the full input) are inside it (checked by the operator layer), so the clamp
      // moves only zeros-padding taps outside the full input (index 0, weight 0).
      for (int k = 0; k < K_; ++k) {
        iv_out[k] = hn::Min(hn::Max(hn::Sub(iv_out[k], org_i_), hn::Zero(di)), extm1_i_);
      }
    }
  }

 private:
  /// The taps of unnormalized coordinates x by the vector formulas (meaningless in lanes
  /// where x is not finite or |x| >= 2^22; operator() redoes those).
  HWY_INLINE void Vector(VF x, VI* iv_out, VF* wv_out) const {
    const DF df;
    const DI di;
    const VF one = hn::Set(df, 1.0f);
    if (mode_ == InterpolationMode::kNearest) {
      const VI i = hn::ConvertTo(di, hn::Round(x));  // ties to even, like round_half_even
      auto inside = hn::FirstN(di, hn::Lanes(di));
      iv_out[0] = Pad(i, &inside);
      wv_out[0] = hn::IfThenElseZero(hn::RebindMask(df, inside), one);
      return;
    }
    const VF f = hn::Floor(x);
    const VF t = hn::Sub(x, f);
    const VI i0 = hn::ConvertTo(di, f);
    VF wv[4];
    VI iv[4];
    if (mode_ == InterpolationMode::kLinear) {
      wv[0] = hn::Sub(one, t);
      wv[1] = t;
      iv[0] = i0;
      iv[1] = hn::Add(i0, hn::Set(di, 1));
    } else {
      gc::CubicWeightsV(df, t, wv);  // coords::cubic_weights
      for (int k = 0; k < 4; ++k) iv[k] = hn::Add(i0, hn::Set(di, k - 1));
    }
    for (int k = 0; k < K_; ++k) {
      auto inside = hn::FirstN(di, hn::Lanes(di));
      iv_out[k] = Pad(iv[k], &inside);
      wv_out[k] = padding_ == GridPadding::kZeros
                      ? hn::IfThenElseZero(hn::RebindMask(df, inside), wv[k])
                      : wv[k];
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
        *inside = hn::And(hn::Gt(i, hn::Set(di, -1)), hn::Lt(i, len_i_));  // 1.0.3: no Ge
        return hn::IfThenElseZero(*inside, i);
      }
      case GridPadding::kBorder: return hn::Min(hn::Max(i, zero_i), lenm1_i_);
      case GridPadding::kReflection: {
        if (refl_single_) return zero_i;
        const VF fi = hn::ConvertTo(df, i);
        const VF q = hn::Floor(hn::Mul(fi, inv_per_));
        VI m = hn::ConvertTo(di, hn::Sub(fi, hn::Mul(q, per_f_)));  // exact: |values| < 2^24
        m = hn::IfThenElse(hn::Lt(m, zero_i), hn::Add(m, per_i_), m);
        m = hn::IfThenElse(hn::Gt(m, per_m1_i_), hn::Sub(m, per_i_), m);
        const VI mirrored = align_ ? hn::Sub(per_i_, m) : hn::Sub(per_m1_i_, m);
        return hn::IfThenElse(hn::Lt(m, len_i_), m, mirrored);
      }
    }
    return zero_i;
  }

  InterpolationMode mode_;
  GridPadding padding_;
  bool align_;
  int K_;
  int64_t len_;
  VF L_, Lm1_;
  VI len_i_, lenm1_i_;
  bool windowed_;
  VI org_i_, extm1_i_;
  bool refl_single_ = false;
  VF per_f_, inv_per_;
  VI per_i_, per_m1_i_;
};

/// Step 2 for axis d over Pv points.
void AxisTaps(const Ctx& c, Work& wk, int d, int64_t Pv) {
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
    VI iv[4];
    VF wv[4];
    step(hn::LoadU(df, g + j), iv, wv);
    for (int k = 0; k < K; ++k) {
      hn::StoreU(iv[k], di, ai + static_cast<size_t>(k) * S + static_cast<size_t>(j));
      hn::StoreU(wv[k], df, aw + static_cast<size_t>(k) * S + static_cast<size_t>(j));
    }
  }
}

/// The x window of NOTE [ GridSample x-window gathers ] of a vector of points with x taps
/// ix/wx (len_x columns): its first column *b and the K column weights.
HWY_INLINE void XWindowV(int K, int64_t len_x, const VI* ix, const VF* wx, VI* b_out,
                         VF* wcol) {
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
HWY_INLINE void XWindow(const Ctx& c, const Work& wk, int64_t j, VI* b_out, VF* wcol) {
  const DF df;
  const DI di;
  const auto S = static_cast<size_t>(kSub);
  const int K = c.K;
  const int xa = c.r - 1;  // the innermost axis
  VI ix[4];
  VF wx[4];
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
void CombineWindow(const Ctx& c, Work& wk, int64_t Pv, int64_t s0) {
  const DF df;
  const DI di;
  const auto N = static_cast<int64_t>(hn::Lanes(df));
  const auto P = static_cast<size_t>(c.P);
  const int K = c.K;
  const VI sx = hn::Set(di, c.sstride[c.r - 1]);
  const int outer = c.NT / K;
  for (int64_t j = 0; j < Pv; j += N) {
    VI b;
    VF wcol[4];
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
void Combine(const Ctx& c, Work& wk, int64_t Pv, int64_t s0) {
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

// NOTE [ GridSample x-window gathers ]
// In 2-D and 3-D channels-first float32 with unit x stride, the K taps of the x axis (after any
// padding) always lie in a window of K consecutive columns [b, b + K): zeros padding only
// drops taps, and clamp and reflection map K consecutive integers onto an interval of at
// most K consecutive integers. With b = clamp(min index of the taps with nonzero weight,
// 0, W - K) and per-column weights (the sum of the tap weights landing on that column), a
// row of the window is read as K/2 64-bit gathers of column pairs instead of K 32-bit
// gathers, which halves the gathered elements. Weights that land on the same column are
// summed before multiplying (the reference multiplies each and sums), inside the stated
// tolerance (NOTE [ GridSample fast path tolerance ] in the diff test).
#if HWY_TARGET <= HWY_AVX2 && HWY_ARCH_X86
constexpr bool kHavePairs = true;
using D64 = hn::Repartition<int64_t, DF>;
using DD = hn::Repartition<double, DF>;

/// Step 3 in x-window mode: rows (ky, pair q) of int64 byte offsets and two weights.
void CombinePairs(const Ctx& c, Work& wk, int64_t Pv, int64_t s0) {
  const DF df;
  const DI di;
  const hn::Half<DI> dh;
  const D64 d64;
  const auto N = static_cast<int64_t>(hn::Lanes(df));
  const auto H = static_cast<int64_t>(hn::Lanes(d64));
  const auto P = static_cast<size_t>(c.P);
  const int K = c.K;
  const int outer = c.NT / K;
  for (int64_t j = 0; j < Pv; j += N) {
    VI b;
    VF wcol[4];
    XWindow(c, wk, j, &b, wcol);
    for (int ky = 0; ky < outer; ++ky) {
      VI row;
      VF wy;
      OuterTap(c, wk, ky, j, &row, &wy);
      row = hn::Add(row, b);
      for (int q = 0; q < K / 2; ++q) {
        const size_t r = static_cast<size_t>(ky * (K / 2) + q);
        const VI o = hn::Add(row, hn::Set(di, 2 * q));
        const auto lo = hn::ShiftLeft<2>(hn::PromoteTo(d64, hn::LowerHalf(dh, o)));
        const auto hi = hn::ShiftLeft<2>(hn::PromoteTo(d64, hn::UpperHalf(dh, o)));
        int64_t* dst64 = wk.off64.data() + r * P + static_cast<size_t>(s0 + j);
        hn::StoreU(lo, d64, dst64);
        hn::StoreU(hi, d64, dst64 + H);
        float* wrow = wk.w.data() + 2 * r * P + static_cast<size_t>(s0 + j);
        hn::StoreU(hn::Mul(wy, wcol[2 * q]), df, wrow);
        hn::StoreU(hn::Mul(wy, wcol[2 * q + 1]), df, wrow + P);
      }
    }
  }
}

/// Step 4 in x-window mode.
template <int NR>
void ChannelsPairs(const Ctx& c, Work& wk, int64_t n, int64_t p0, int64_t cnt) {
  const DF df;
  const D64 d64;
  const DD dd;
  const auto N = static_cast<int64_t>(hn::Lanes(df));
  const auto H = static_cast<int64_t>(hn::Lanes(d64));
  const auto P = static_cast<size_t>(c.P);
  const float* sbase = reinterpret_cast<const float*>(c.src) + n * c.s_batch;
  float* dbase = reinterpret_cast<float*>(c.dst) + n * c.d_batch;
  for (int64_t ch = 0; ch < c.channels; ++ch) {
    const auto* plane = reinterpret_cast<const double*>(sbase + ch * c.s_channel);
    float* dplane = dbase + ch * c.d_channel;
    for (int64_t j = 0; j < cnt; j += N) {
      VF acc = hn::Zero(df);
      for (int r = 0; r < NR; ++r) {
        const int64_t* o = wk.off64.data() + static_cast<size_t>(r) * P + static_cast<size_t>(j);
        const VF glo = hn::BitCast(df, hn::GatherOffset(dd, plane, hn::LoadU(d64, o)));
        const VF ghi = hn::BitCast(df, hn::GatherOffset(dd, plane, hn::LoadU(d64, o + H)));
        const float* wrow = wk.w.data() + 2 * static_cast<size_t>(r) * P + static_cast<size_t>(j);
        acc = hn::MulAdd(hn::LoadU(df, wrow), hn::ConcatEven(df, ghi, glo), acc);
        acc = hn::MulAdd(hn::LoadU(df, wrow + P), hn::ConcatOdd(df, ghi, glo), acc);
      }
      if (j + N <= cnt && c.dst_dense) {
        hn::StoreU(acc, df, dplane + p0 + j);
      } else {
        HWY_ALIGN float tmp[hn::MaxLanes(df)];
        hn::Store(acc, df, tmp);
        const int64_t m = std::min(N, cnt - j);
        for (int64_t l = 0; l < m; ++l) dplane[wk.doff[static_cast<size_t>(j + l)]] = tmp[l];
      }
    }
  }
}
#else
constexpr bool kHavePairs = false;
void CombinePairs(const Ctx&, Work&, int64_t, int64_t) {}
template <int NR>
void ChannelsPairs(const Ctx&, Work&, int64_t, int64_t, int64_t) {}
#endif

// NOTE [ GridSample fused small-channel path ]
// 2-D channels-first float32 with at most 4 channels, a dense float32 grid and a dense
// dst (W2: 3 x 1024 x 1024) spends most of its time on steps 1-3 when they go through
// the per-block arrays: with 3 channels each point's taps are used only 3 times. Here
// steps 1-4 run per vector of points in registers: the grid pair deinterleaved from one
// load, AxisStep for both axes, the x window (XWindowV) and the row offsets, then the
// gathers of every channel. The operations and their order are those of the block path
// (the same AxisStep, XWindowV, products and MulAdd order), so the results are the same
// bits. Items are tiles of 4 x 64 output points, walked row by row: on a smooth warp the
// 4 rows of a tile read overlapping source rows while they are still in L1, where whole
// output rows (W2: 1024 points, about 75 KiB of source lines over 3 planes) evict each
// other's lines before the next row reuses them (W2a 1 thread: about 6-7 ms in tiles
// against 8.5-9 ms in rows; W2c 14.4 against 19.7 ms; 4 x 64 measured best among 2-16
// rows x 32-256 columns; docs/benchmarks/experiments.md at commit a6ea629).
/// Steps 1-2 of the fused path for the m (<= N) points whose dense (x, y) grid pairs start
/// at g: the y and x taps.
HWY_INLINE void FusedAxisTaps(const AxisStep& ystep, const AxisStep& xstep, const float* g,
                              int64_t m, VI* iy, VF* wy, VI* ix, VF* wx) {
  const DF df;
  VF gx, gy;
  if (m == static_cast<int64_t>(hn::Lanes(df))) {
    hn::LoadInterleaved2(df, g, gx, gy);
  } else {
    HWY_ALIGN float tmp[2 * hn::MaxLanes(df)] = {};
    std::memcpy(tmp, g, static_cast<size_t>(2 * m) * sizeof(float));
    hn::LoadInterleaved2(df, tmp, gx, gy);
  }
  ystep(gy, iy, wy);
  xstep(gx, ix, wx);
}

/// Steps 1-4 of the fused path for points [p0, p0 + cnt) of batch n. Channels-first
/// (kLast false): as Combine/CombinePairs then ChannelsFirstF32/ChannelsPairs.
/// Channels-last (unit channel stride): the same taps, every tap of every channel by a
/// 32-bit gather (a pixel's channels share its cache line), in the order of
/// ChannelsLastF32 after CombineWindow (nearest: after Combine). So the results are the
/// per-block path's bits in both layouts.
template <int K, bool kLast>
void FusedSmallC(const Ctx& c, const AxisStep& ystep, const AxisStep& xstep, int64_t n,
                 int64_t p0, int64_t cnt) {
  const DF df;
  const DI di;
  const auto N = static_cast<int64_t>(hn::Lanes(df));
  constexpr size_t kL = hn::MaxLanes(df);
  const int64_t C = c.channels;
  const float* gbase = reinterpret_cast<const float*>(c.grid) + n * c.g_batch;
  const float* sbase = reinterpret_cast<const float*>(c.src) + n * c.s_batch;
  float* dbase = reinterpret_cast<float*>(c.dst) + n * c.d_batch;
  const VI sy = hn::Set(di, c.sstride[0]), sx = hn::Set(di, c.sstride[1]);
  for (int64_t j = 0; j < cnt; j += N) {
    const int64_t q = p0 + j;
    const int64_t m = std::min(N, cnt - j);
    VI iy[4], ix[4];
    VF wy[4], wx[4];
    FusedAxisTaps(ystep, xstep, gbase + 2 * q, m, iy, wy, ix, wx);
    VF acc[4];
    if constexpr (K == 1) {
      // As Combine, then ChannelsFirstF32 / ChannelsLastF32 for nearest.
      VI off = hn::Add(hn::Mul(iy[0], sy), hn::Mul(ix[0], sx));
      const auto keep = hn::Gt(hn::Mul(wy[0], wx[0]), hn::Zero(df));
      off = hn::IfThenElseZero(hn::RebindMask(di, keep), off);
      for (int64_t ch = 0; ch < C; ++ch) {
        acc[ch] = hn::IfThenElseZero(keep, hn::GatherIndex(df, sbase + ch * c.s_channel, off));
      }
    } else {
      VI b;
      VF wcol[4];
      XWindowV(K, c.xwin_len, ix, wx, &b, wcol);
      if constexpr (kLast) {
        // As CombineWindow and ChannelsLastF32.
        VI o[K * K];
        VF w[K * K];
        for (int ky = 0; ky < K; ++ky) {
          const VI row = hn::Mul(iy[ky], sy);
          for (int mm = 0; mm < K; ++mm) {
            o[ky * K + mm] = hn::Add(row, hn::Mul(hn::Add(b, hn::Set(di, mm)), sx));
            w[ky * K + mm] = hn::Mul(wy[ky], wcol[mm]);
          }
        }
        for (int64_t ch = 0; ch < C; ++ch) {
          VF a = hn::Zero(df);
          for (int k = 0; k < K * K; ++k) {
            a = hn::MulAdd(w[k], hn::GatherIndex(df, sbase + ch, o[k]), a);
          }
          acc[ch] = a;
        }
      } else {
#if HWY_TARGET <= HWY_AVX2 && HWY_ARCH_X86
        // As CombinePairs and ChannelsPairs (unit x stride).
        constexpr int NR = K * K / 2;
        VI o[NR];  // element offsets of the pairs' first columns
        VF we[NR], wo[NR];
        for (int ky = 0; ky < K; ++ky) {
          const VI row = hn::Add(hn::Mul(iy[ky], sy), b);
          for (int qq = 0; qq < K / 2; ++qq) {
            const int r = ky * (K / 2) + qq;
            o[r] = hn::Add(row, hn::Set(di, 2 * qq));
            we[r] = hn::Mul(wy[ky], wcol[2 * qq]);
            wo[r] = hn::Mul(wy[ky], wcol[2 * qq + 1]);
          }
        }
#if HWY_TARGET > HWY_AVX3
        const hn::Half<DI> dh;
        const D64 d64;
        const DD dd;
        hn::Vec<D64> lo[NR], hi[NR];  // byte offsets
        for (int r = 0; r < NR; ++r) {
          lo[r] = hn::ShiftLeft<2>(hn::PromoteTo(d64, hn::LowerHalf(dh, o[r])));
          hi[r] = hn::ShiftLeft<2>(hn::PromoteTo(d64, hn::UpperHalf(dh, o[r])));
        }
#endif
        for (int64_t ch = 0; ch < C; ++ch) {
          const auto* plane = reinterpret_cast<const double*>(sbase + ch * c.s_channel);
          VF a = hn::Zero(df);
          for (int r = 0; r < NR; ++r) {
#if HWY_TARGET <= HWY_AVX3
            // 8 pairs by 32-bit element offsets (scale 4): no widening of the offsets.
            const VF glo{_mm512_castpd_ps(
                _mm512_i32gather_pd(_mm512_castsi512_si256(o[r].raw), plane, 4))};
            const VF ghi{_mm512_castpd_ps(
                _mm512_i32gather_pd(_mm512_extracti64x4_epi64(o[r].raw, 1), plane, 4))};
#else
            const VF glo = hn::BitCast(df, hn::GatherOffset(dd, plane, lo[r]));
            const VF ghi = hn::BitCast(df, hn::GatherOffset(dd, plane, hi[r]));
#endif
            a = hn::MulAdd(we[r], hn::ConcatEven(df, ghi, glo), a);
            a = hn::MulAdd(wo[r], hn::ConcatOdd(df, ghi, glo), a);
          }
          acc[ch] = a;
        }
#else
        // Not instantiated (RunItems): grid_sample_path_declines gives channels-first
        // linear/cubic to the fused path only on targets with the pair gathers.
        static_assert(K == 1 || kLast, "fused channels-first linear/cubic needs AVX2 and up");
#endif
      }
    }
    if constexpr (kLast) {
      HWY_ALIGN float tmp[4 * kL];
      float* d = m == N ? dbase + q * C : tmp;
      switch (C) {
        case 1: hn::StoreU(acc[0], df, d); break;
        case 2: hn::StoreInterleaved2(acc[0], acc[1], df, d); break;
        case 3: hn::StoreInterleaved3(acc[0], acc[1], acc[2], df, d); break;
        default: hn::StoreInterleaved4(acc[0], acc[1], acc[2], acc[3], df, d); break;
      }
      if (m < N) std::memcpy(dbase + q * C, tmp, static_cast<size_t>(m * C) * sizeof(float));
    } else {
      for (int64_t ch = 0; ch < C; ++ch) {
        float* d = dbase + ch * c.d_channel + q;
        if (m == N) {
          hn::StoreU(acc[ch], df, d);
        } else {
          HWY_ALIGN float tmp[kL];
          hn::Store(acc[ch], df, tmp);
          std::memcpy(d, tmp, static_cast<size_t>(m) * sizeof(float));
        }
      }
    }
  }
}

bool HaveFusedPairs() { return kHavePairs; }

template <class T>
HWY_INLINE void StoreScalar(char* dst, int64_t off, float v) {
  reinterpret_cast<T*>(dst)[off] = convert::store_real<T>(v);
}

/// Step 4, channels-first float32: gathers over points.
template <int NT>
void ChannelsFirstF32(const Ctx& c, Work& wk, int64_t n, int64_t p0, int64_t cnt) {
  const DF df;
  const DI di;
  const auto N = static_cast<int64_t>(hn::Lanes(df));
  const auto P = static_cast<size_t>(c.P);
  const bool nearest = c.mode == InterpolationMode::kNearest;
  const float* sbase = reinterpret_cast<const float*>(c.src) + n * c.s_batch;
  float* dbase = reinterpret_cast<float*>(c.dst) + n * c.d_batch;
  const int64_t nt = NT > 0 ? NT : c.NT;
  for (int64_t ch = 0; ch < c.channels; ++ch) {
    const float* plane = sbase + ch * c.s_channel;
    float* dplane = dbase + ch * c.d_channel;
    for (int64_t j = 0; j < cnt; j += N) {
      const bool full = j + N <= cnt;
      VF acc;
      if (nearest) {
        const VI o = hn::LoadU(di, wk.off.data() + j);
        const VF wv = hn::LoadU(df, wk.w.data() + j);
        acc = hn::IfThenElseZero(hn::Gt(wv, hn::Zero(df)), hn::GatherIndex(df, plane, o));
      } else {
        acc = hn::Zero(df);
        for (int64_t k = 0; k < nt; ++k) {
          const VI o = hn::LoadU(di, wk.off.data() + static_cast<size_t>(k) * P + j);
          const VF wv = hn::LoadU(df, wk.w.data() + static_cast<size_t>(k) * P + j);
          acc = hn::MulAdd(wv, hn::GatherIndex(df, plane, o), acc);
        }
      }
      if (full && c.dst_dense) {
        hn::StoreU(acc, df, dplane + p0 + j);
      } else {
        HWY_ALIGN float tmp[hn::MaxLanes(df)];
        hn::Store(acc, df, tmp);
        const int64_t m = std::min(N, cnt - j);
        for (int64_t l = 0; l < m; ++l) dplane[wk.doff[static_cast<size_t>(j + l)]] = tmp[l];
      }
    }
  }
}

/// The first n (< Lanes) floats at p, the other lanes zero, reading only those n floats.
/// (Not hn::MaskedLoad: Highway 1.0 implements it on SSE4, and for 8/16-bit lanes on AVX2,
/// as an aligned load of the whole vector, which faults on an unaligned p and reads past
/// the end of the row.)
HWY_INLINE VF LoadFirstN(DF df, const float* HWY_RESTRICT p, int64_t n) {
  HWY_ALIGN float tmp[hn::MaxLanes(df)] = {};
  std::memcpy(tmp, p, static_cast<size_t>(n) * sizeof(float));
  return hn::Load(df, tmp);
}

/// Step 4, channels-last float32 with unit channel stride: vectors over channels.
template <int NT>
void ChannelsLastF32(const Ctx& c, Work& wk, int64_t n, int64_t cnt) {
  const DF df;
  const auto N = static_cast<int64_t>(hn::Lanes(df));
  const auto P = static_cast<size_t>(c.P);
  const bool nearest = c.mode == InterpolationMode::kNearest;
  const float* sbase = reinterpret_cast<const float*>(c.src) + n * c.s_batch;
  float* dbase = reinterpret_cast<float*>(c.dst) + n * c.d_batch;
  const int64_t nt = NT > 0 ? NT : c.NT;
  const int64_t C = c.channels;
  const bool dst_unit = c.d_channel == 1;
  for (int64_t p = 0; p < cnt; ++p) {
    float* dp = dbase + wk.doff[static_cast<size_t>(p)];
    for (int64_t ch = 0; ch < C; ch += N) {
      const bool full = ch + N <= C;
      const auto mask = hn::FirstN(df, static_cast<size_t>(std::min(N, C - ch)));
      VF acc;
      if (nearest) {
        const float* sp = sbase + wk.off[static_cast<size_t>(p)] + ch;
        if (wk.w[static_cast<size_t>(p)] > 0.0f) {
          acc = full ? hn::LoadU(df, sp) : LoadFirstN(df, sp, C - ch);
        } else {
          acc = hn::Zero(df);
        }
      } else {
        acc = hn::Zero(df);
        for (int64_t k = 0; k < nt; ++k) {
          const size_t at = static_cast<size_t>(k) * P + static_cast<size_t>(p);
          const float* sp = sbase + wk.off[at] + ch;
          const VF v = full ? hn::LoadU(df, sp) : LoadFirstN(df, sp, C - ch);
          acc = hn::MulAdd(hn::Set(df, wk.w[at]), v, acc);
        }
      }
      if (dst_unit) {
        if (full) hn::StoreU(acc, df, dp + ch);
        else hn::BlendedStore(acc, mask, df, dp + ch);
      } else {
        HWY_ALIGN float tmp[hn::MaxLanes(df)];
        hn::Store(acc, df, tmp);
        const int64_t m = std::min(N, C - ch);
        for (int64_t l = 0; l < m; ++l) dp[(ch + l) * c.d_channel] = tmp[l];
      }
    }
  }
}

/// Step 4, any layout and float16/bfloat16 (or strided channels-last): scalar over taps.
template <class T>
void GenericChannels(const Ctx& c, Work& wk, int64_t n, int64_t cnt) {
  const auto P = static_cast<size_t>(c.P);
  const bool nearest = c.mode == InterpolationMode::kNearest;
  const T* sbase = reinterpret_cast<const T*>(c.src) + n * c.s_batch;
  T* dbase = reinterpret_cast<T*>(c.dst) + n * c.d_batch;
  const int NT = c.NT;
  for (int64_t ch = 0; ch < c.channels; ++ch) {
    const T* plane = sbase + ch * c.s_channel;
    T* dplane = dbase + ch * c.d_channel;
    for (int64_t p = 0; p < cnt; ++p) {
      T& out = dplane[wk.doff[static_cast<size_t>(p)]];
      if (nearest) {
        out = wk.w[static_cast<size_t>(p)] > 0.0f ? plane[wk.off[static_cast<size_t>(p)]] : T{};
        continue;
      }
      float acc = 0.0f;
      for (int k = 0; k < NT; ++k) {
        const size_t at = static_cast<size_t>(k) * P + static_cast<size_t>(p);
        acc += wk.w[at] * convert::load_real<float>(plane[wk.off[at]]);
      }
      out = convert::store_real<T>(acc);
    }
  }
}

template <int NT>
void ChannelsF32(const Ctx& c, Work& wk, int64_t n, int64_t p0, int64_t cnt) {
  if (c.channels_last) {
    ChannelsLastF32<NT>(c, wk, n, cnt);
  } else {
    ChannelsFirstF32<NT>(c, wk, n, p0, cnt);
  }
}

// NOTE [ GridSample channel blocks ]
// Channels-first float32 with many channels (W1: 64 channels of 128 x 128) is bound by
// moving cache lines, not by arithmetic: a gather over points brings one 64-byte line
// from L2 per tap, point and channel and uses 4 or 8 bytes of it. Instead, each item
// (batch n, block cb of kCB = 16 channels, chunk of output points) works on a copy of
// that block in which each input pixel's 16 channels are contiguous (NHWC16c: pixel q,
// channel i at [q * 16 + i], one 64-byte line per pixel; channels past C are zeros).
// - Where the copy lives: with at least 2 blocks per thread (chunks == 1, so every block
//   is exactly one item), the thread that runs an item copies its block into its own
//   scratch (1 MiB for 128 x 128, so it stays in that core's L2). With fewer blocks (W3:
//   one block), blocks are split into several chunks, and all threads first copy every
//   block once, by row ranges, into one shared buffer (c.shared) before the items run,
//   so no block is copied twice however parallel_for splits the items.
// - Steps 1-3 run unchanged on the copy's strides (sstride = dense strides * 16); a
//   chunk's taps are kept (up to 1 MiB) for its next channel block.
// - Step 4 reads, per point and tap, one 16-channel vector and accumulates with the
//   weight broadcast: acc = MulAdd(w_k, v_k, acc) over k in the same order as the other
//   paths, so the results are the same bits as theirs (nearest selects the vector or
//   zero, bit for bit). 16 points x 16 channels are transposed in registers, staged, and
//   stored as runs of points into the 16 channel planes (BlockedChannels).
// The copy and every output element are computed the same way whatever the split, so
// results do not depend on the thread count.
#if HWY_TARGET <= HWY_AVX3 && HWY_ARCH_X86
constexpr bool kHaveBlocked = true;

/// In-register transpose of a 16 x 16 float tile: out[k] lane i = in[i] lane k.
HWY_INLINE void Transpose16(const __m512* in, __m512* out) {
  __m512 t[16], u[16];
  for (int i = 0; i < 8; ++i) {
    t[2 * i] = _mm512_unpacklo_ps(in[2 * i], in[2 * i + 1]);
    t[2 * i + 1] = _mm512_unpackhi_ps(in[2 * i], in[2 * i + 1]);
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
    out[k] = _mm512_shuffle_f32x4(t[k], t[8 + k], 0x88);
    out[8 + k] = _mm512_shuffle_f32x4(t[k], t[8 + k], 0xdd);
    out[4 + k] = _mm512_shuffle_f32x4(t[4 + k], t[12 + k], 0x88);
    out[12 + k] = _mm512_shuffle_f32x4(t[4 + k], t[12 + k], 0xdd);
  }
}

/// The channel-blocked copy of channels [cb * 16, cb * 16 + 16) of batch n (channels
/// past C are zeros): pixel q (dense, innermost axis fastest) at out[q * 16].
/// Rows (runs along the innermost input axis) [row0, row1) only.
void BlockedCopy(const Ctx& c, int64_t n, int64_t cb, float* HWY_RESTRICT out, int64_t row0,
                 int64_t row1) {
  const float* sbase = reinterpret_cast<const float*>(c.src) + n * c.s_batch +
                       cb * kCB * c.s_channel;
  const int64_t nch = std::min(kCB, c.channels - cb * kCB);
  const int r = c.r;
  const int64_t W = c.len[r - 1];
  const int64_t sx = c.s_spatial[r - 1];
  int64_t o[2] = {0, 0};
  if (r == 3) {
    o[0] = row0 / c.len[1];
    o[1] = row0 % c.len[1];
  } else {
    o[0] = row0;
  }
  for (int64_t row = row0; row < row1; ++row) {
    int64_t roff = 0;
    for (int d = 0; d < r - 1; ++d) roff += o[d] * c.s_spatial[d];
    float* orow = out + row * W * kCB;
    const float* srow = sbase + roff;
    if (sx == 1) {
      int64_t x = 0;
      if (nch == kCB) {
        for (; x + kCB <= W; x += kCB) {
          __m512 v[16], tr[16];
          for (int i = 0; i < 16; ++i) v[i] = _mm512_loadu_ps(srow + i * c.s_channel + x);
          Transpose16(v, tr);
          float* o16 = orow + x * kCB;
          for (int q = 0; q < 16; ++q) {
            asm("" : "+v"(tr[q]));  // keeps GCC from turning the stores into a memcpy call
            _mm512_store_ps(o16 + q * kCB, tr[q]);
          }
        }
      }
      for (; x < W; x += kCB) {
        const int64_t m = std::min(kCB, W - x);
        const auto mask = static_cast<__mmask16>((1u << m) - 1u);
        __m512 v[16], tr[16];
        for (int i = 0; i < 16; ++i) {
          v[i] = i < nch ? _mm512_maskz_loadu_ps(mask, srow + i * c.s_channel + x)
                         : _mm512_setzero_ps();
        }
        Transpose16(v, tr);
        for (int64_t q = 0; q < m; ++q) {
          asm("" : "+v"(tr[q]));
          _mm512_store_ps(orow + (x + q) * kCB, tr[q]);
        }
      }
    } else {
      for (int64_t x = 0; x < W; ++x) {
        for (int64_t i = 0; i < kCB; ++i) {
          orow[x * kCB + i] = i < nch ? srow[i * c.s_channel + x * sx] : 0.0f;
        }
      }
    }
    for (int d = r - 2; d >= 0; --d) {
      if (++o[d] < c.len[d]) break;
      o[d] = 0;
    }
  }
}

/// Step 4 in channel-blocked mode for points [p0, p0 + cnt) of block cb, whose taps are
/// at [t0, t0 + cnt) of the tap arrays.
template <int NT>
void BlockedChannels(const Ctx& c, const Work& wk, const float* HWY_RESTRICT plane, int64_t n,
                     int64_t cb, int64_t p0, int64_t t0, int64_t cnt) {
  const auto P = static_cast<size_t>(c.P);
  const bool nearest = c.mode == InterpolationMode::kNearest;
  const int64_t nt = NT > 0 ? NT : c.NT;
  const int64_t nch = std::min(kCB, c.channels - cb * kCB);
  float* dbase = reinterpret_cast<float*>(c.dst) + n * c.d_batch + cb * kCB * c.d_channel;
  const int32_t* off = wk.off.data() + t0;
  const float* w = wk.w.data() + t0;
  const int64_t* doff = wk.doff.data() + t0;
  // Transposed tiles go to a staging area of kStage points per channel, then out in runs
  // of kStage points per channel plane: storing tile rows straight into 16 planes (64 KiB
  // apart on W1, one L1 set) thrashes L1. With c.stream, whole 64-byte lines of dst are
  // written with non-temporal stores: ordinary stores of 16 short interleaved runs wait
  // on reading each line first (W1b: 4.9 ms with them, 2.9 ms without). The runs start
  // `shift` points before p0 so that they cover whole lines of dst; positions outside
  // [p0, p0 + cnt) are computed from a clamped point and not stored.
  bool stream = c.stream && c.dst_dense;
  int64_t shift = 0;
  if (stream) {
    const auto addr = reinterpret_cast<uintptr_t>(dbase + p0);
    stream = (addr & 3) == 0 && (c.d_channel & 15) == 0;
    if (stream) shift = static_cast<int64_t>((addr & 63) / 4);
  }
  constexpr int64_t kStage = 128, kRow = kStage + 16;  // row padding spreads the L1 sets
  HWY_ALIGN float stage[16 * kRow];
  const int64_t vend = shift + cnt;
  for (int64_t v0 = 0; v0 < vend; v0 += kStage) {
    const int64_t vn = std::min(kStage, vend - v0);
    for (int64_t jj = 0; jj < vn; jj += 16) {
      const int64_t q0 = v0 + jj - shift;
      const bool edge = q0 < 0 || q0 + 16 > cnt;
      __m512 acc[16], col[16];
      for (int l = 0; l < 16; ++l) {
        const auto p = static_cast<size_t>(edge ? std::min(std::max<int64_t>(q0 + l, 0), cnt - 1)
                                                : q0 + l);
        if (nearest) {
          const __m512 v = _mm512_load_ps(plane + off[p]);
          const auto keep = static_cast<__mmask16>(w[p] > 0.0f ? 0xFFFF : 0);
          acc[l] = _mm512_maskz_mov_ps(keep, v);
        } else {
          __m512 a = _mm512_setzero_ps();
          for (int64_t k = 0; k < nt; ++k) {
            const size_t at = static_cast<size_t>(k) * P + p;
            a = _mm512_fmadd_ps(_mm512_set1_ps(w[at]), _mm512_load_ps(plane + off[at]), a);
          }
          acc[l] = a;
        }
      }
      Transpose16(acc, col);
      for (int i = 0; i < 16; ++i) _mm512_store_ps(stage + i * kRow + jj, col[i]);
    }
    for (int64_t i = 0; i < nch; ++i) {
      const float* srow = stage + i * kRow;
      if (!c.dst_dense) {
        float* dplane = dbase + i * c.d_channel;
        for (int64_t jj = 0; jj < vn; ++jj) dplane[doff[v0 + jj]] = srow[jj];
        continue;
      }
      float* d = dbase + i * c.d_channel + p0 - shift + v0;  // virtual position v0
      for (int64_t jj = 0; jj < vn; jj += 16) {
        const int64_t lo = std::max(v0 + jj, shift) - v0 - jj;
        const int64_t hi = std::min(v0 + jj + 16, vend) - v0 - jj;
        __m512 x = _mm512_load_ps(srow + jj);
        asm("" : "+v"(x));  // keeps GCC from turning the loop into a memcpy call
        if (lo == 0 && hi == 16) {
          if (stream) {
            _mm512_stream_ps(d + jj, x);
          } else {
            _mm512_storeu_ps(d + jj, x);
          }
        } else if (lo < hi) {
          const auto mask = static_cast<__mmask16>(((1u << hi) - 1u) & ~((1u << lo) - 1u));
          _mm512_mask_storeu_ps(d + jj, mask, x);
        }
      }
    }
  }
}

/// Steps 1-3 for points [p0, p0 + cnt) of batch n (cnt <= kSub), into the tap arrays at
/// [s0, s0 + cnt).
void BlockedTaps(const Ctx& c, Work& wk, int64_t n, int64_t p0, int64_t cnt, int64_t s0) {
  const int64_t Pv = (cnt + 15) / 16 * 16;
  int64_t* doff = wk.doff.data() + s0;
  switch (c.grid_dtype) {
    case DType::kFloat16: FillGridR<float16>(c, wk, n, p0, cnt, Pv, doff); break;
    case DType::kBFloat16: FillGridR<bfloat16>(c, wk, n, p0, cnt, Pv, doff); break;
    default: FillGridR<float>(c, wk, n, p0, cnt, Pv, doff); break;
  }
  for (int d = 0; d < c.r; ++d) AxisTaps(c, wk, d, Pv);
  if (c.window) {
    CombineWindow(c, wk, Pv, s0);
  } else {
    Combine(c, wk, Pv, s0);
  }
}

template <int NT>
void RunBlockedT(const Ctx& c, int64_t begin, int64_t end) {
  Work wk(c);
  hwy::AlignedFreeUniquePtr<float[]> copy;
  if (c.shared == nullptr) {
    copy = hwy::AllocateAligned<float>(static_cast<size_t>(c.in_points * kCB));
    if (!copy) throw std::bad_alloc();  // as the std::vector scratch would
  }
  const float* plane = copy.get();
  // With c.P == c.chunk_pts the tap arrays hold a whole chunk and are reused by the
  // next channel block of the same points; else they hold one sub-block.
  const bool keep_taps = c.P >= c.chunk_pts;
  int64_t have_copy = -1, have_taps = -1;
  for (int64_t item = begin; item < end; ++item) {
    const int64_t plane_id = item / c.chunks, chunk = item % c.chunks;
    const int64_t n = plane_id / c.cblocks, cb = plane_id % c.cblocks;
    if (c.shared != nullptr) {
      plane = c.shared + plane_id * c.in_points * kCB;
    } else if (plane_id != have_copy) {
      BlockedCopy(c, n, cb, copy.get(), 0, c.in_points / c.len[c.r - 1]);
      have_copy = plane_id;
    }
    const int64_t first = chunk * c.chunk_pts;
    const int64_t last = std::min(c.out_points, first + c.chunk_pts);
    if (keep_taps) {
      const int64_t key = n * c.chunks + chunk;
      if (key != have_taps) {
        for (int64_t p0 = first; p0 < last; p0 += kSub) {
          BlockedTaps(c, wk, n, p0, std::min(kSub, last - p0), p0 - first);
        }
        have_taps = key;
      }
      BlockedChannels<NT>(c, wk, plane, n, cb, first, 0, last - first);
    } else {
      for (int64_t p0 = first; p0 < last; p0 += kSub) {
        const int64_t cnt = std::min(kSub, last - p0);
        BlockedTaps(c, wk, n, p0, cnt, 0);
        BlockedChannels<NT>(c, wk, plane, n, cb, p0, 0, cnt);
      }
    }
  }
  if (c.stream) _mm_sfence();  // non-temporal stores visible before the caller reads
}

void RunBlocked(const Ctx& c, int64_t begin, int64_t end) {
  switch (c.NT) {
    case 1: RunBlockedT<1>(c, begin, end); break;
    case 4: RunBlockedT<4>(c, begin, end); break;
    case 8: RunBlockedT<8>(c, begin, end); break;
    case 16: RunBlockedT<16>(c, begin, end); break;
    default: RunBlockedT<0>(c, begin, end); break;
  }
}
/// The shared channel-blocked copies (c.shared), items (plane, part of its rows).
void CopyBlocked(const Ctx& c, int64_t begin, int64_t end) {
  const int64_t rows = c.in_points / c.len[c.r - 1];
  for (int64_t item = begin; item < end; ++item) {
    const int64_t plane_id = item / c.copy_parts, part = item % c.copy_parts;
    BlockedCopy(c, plane_id / c.cblocks, plane_id % c.cblocks,
                c.shared + plane_id * c.in_points * kCB, rows * part / c.copy_parts,
                rows * (part + 1) / c.copy_parts);
  }
}
#else
constexpr bool kHaveBlocked = false;
void RunBlocked(const Ctx&, int64_t, int64_t) {}
void CopyBlocked(const Ctx&, int64_t, int64_t) {}
#endif

bool HaveBlocked() { return kHaveBlocked; }

void RunItems(const Ctx& c, int64_t begin, int64_t end) {
  const DF df;
  const auto N = static_cast<int64_t>(hn::Lanes(df));
  Work wk(c);
  const bool vector_channels = c.vector_channels;
  const bool pairs = kHavePairs && c.pairs;
  const AxisStep ystep(c, 0), xstep(c, c.r > 1 ? 1 : 0);  // for the fused path
  for (int64_t item = begin; item < end; ++item) {
    const int64_t n = item / c.blocks_per_batch;
    if (c.fused) {  // a tile of output points, row by row
      const int64_t t = item % c.blocks_per_batch;
      const int64_t y0 = t / c.tiles_x * c.tile_h, x0 = t % c.tiles_x * c.tile_w;
      const int64_t th = std::min(c.tile_h, c.out_sizes[0] - y0);
      const int64_t run = std::min(c.tile_w, c.out_sizes[1] - x0);
      for (int64_t y = y0; y < y0 + th; ++y) {
        const int64_t q0 = y * c.out_sizes[1] + x0;
        switch (c.K * 2 + (c.channels_last ? 1 : 0)) {
          case 2: FusedSmallC<1, false>(c, ystep, xstep, n, q0, run); break;
          case 3: FusedSmallC<1, true>(c, ystep, xstep, n, q0, run); break;
          case 5: FusedSmallC<2, true>(c, ystep, xstep, n, q0, run); break;
          case 9: FusedSmallC<4, true>(c, ystep, xstep, n, q0, run); break;
          default:  // channels-first linear/cubic: declined at plan time without pairs
            if constexpr (kHavePairs) {
              if (c.K == 2) {
                FusedSmallC<2, false>(c, ystep, xstep, n, q0, run);
              } else {
                FusedSmallC<4, false>(c, ystep, xstep, n, q0, run);
              }
            } else {
              HWY_ABORT("grid_sample.fused_small_c: channels-first linear/cubic on a target "
                        "without pair gathers (grid_sample_path_declines declines it)");
            }
            break;
        }
      }
      continue;
    }
    const int64_t p0 = (item % c.blocks_per_batch) * c.P;
    const int64_t cnt = std::min(c.P, c.out_points - p0);
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
      if (pairs) {
        CombinePairs(c, wk, Pv, s0);
      } else if (c.window) {
        CombineWindow(c, wk, Pv, s0);
      } else {
        Combine(c, wk, Pv, s0);
      }
    }
    if (pairs) {
      switch (c.NT / 2) {
        case 2: ChannelsPairs<2>(c, wk, n, p0, cnt); break;
        case 4: ChannelsPairs<4>(c, wk, n, p0, cnt); break;
        case 8: ChannelsPairs<8>(c, wk, n, p0, cnt); break;
        default: ChannelsPairs<32>(c, wk, n, p0, cnt); break;
      }
      continue;
    }
    if (vector_channels) {
      switch (c.NT) {
        case 1: ChannelsF32<1>(c, wk, n, p0, cnt); break;
        case 4: ChannelsF32<4>(c, wk, n, p0, cnt); break;
        case 8: ChannelsF32<8>(c, wk, n, p0, cnt); break;
        case 16: ChannelsF32<16>(c, wk, n, p0, cnt); break;
        default: ChannelsF32<0>(c, wk, n, p0, cnt); break;
      }
    } else if (c.src_dtype == DType::kFloat32) {
      GenericChannels<float>(c, wk, n, cnt);
    } else if (c.src_dtype == DType::kFloat16) {
      GenericChannels<float16>(c, wk, n, cnt);
    } else {
      GenericChannels<bfloat16>(c, wk, n, cnt);
    }
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace gridops::kernels::gs_fast
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace gridops::kernels {
namespace gs_fast {
HWY_EXPORT(RunItems);
HWY_EXPORT(RunBlocked);
HWY_EXPORT(CopyBlocked);
HWY_EXPORT(HaveBlocked);
HWY_EXPORT(HaveFusedPairs);
}  // namespace gs_fast

bool grid_sample_target_has_blocked() { return HWY_DYNAMIC_DISPATCH(gs_fast::HaveBlocked)(); }
bool grid_sample_target_has_pairs() { return HWY_DYNAMIC_DISPATCH(gs_fast::HaveFusedPairs)(); }

// --- the paths: names and plan-time scope ------------------------------------------------
// A new path: its kernel above (HWY_EXPORTed), a GridSamplePath value (grid_sample.h), its
// name and declines here, its view checks in ViewDeclines, its run in
// grid_sample_path_run, and its entry in the list (src/ops/grid_sample.cc).

const char* grid_sample_path_name(GridSamplePath path) noexcept {
  switch (path) {
    case GridSamplePath::kBlocked: return "grid_sample.blocked";
    case GridSamplePath::kFusedSmallC: return "grid_sample.fused_small_c";
    case GridSamplePath::kPairs: return "grid_sample.pairs";
    case GridSamplePath::kChannels: return "grid_sample.channels";
    case GridSamplePath::kGeneric: return "grid_sample.generic";
  }
  return "grid_sample.unknown";
}

std::string grid_sample_path_declines(GridSamplePath path, const GridSampleProblem& p) {
  std::string why = grid_sample_fast_declines(p);
  if (!why.empty()) return why;
  const bool f32 = p.src_dtype == DType::kFloat32;
  const bool last = p.layout == ChannelLayout::kChannelsLast;
  const bool nearest = p.mode == InterpolationMode::kNearest;
  const int r = p.spatial_rank;
  const int K = nearest ? 1 : p.mode == InterpolationMode::kLinear ? 2 : 4;
  // Linear/cubic 2-D/3-D whose x axis holds the K columns of an x window.
  const bool x_window = r >= 2 && !nearest && p.in_sizes[static_cast<size_t>(r - 1)] >= K;
  const bool have_blocked = grid_sample_target_has_blocked();
  const bool have_pairs = grid_sample_target_has_pairs();
  switch (path) {
    case GridSamplePath::kBlocked: {
      // NOTE [ GridSample channel blocks ]: channels-first float32 2-D/3-D with at least 8
      // channels, when the output has at least an eighth as many points as the input (the
      // copy costs about one pass over the input).
      if (last || !f32) return "channels-first float32 only";
      if (r < 2) return "spatial rank 2 or 3 only";
      if (p.channels < 8) return "fewer than 8 channels";
      if (!have_blocked) return "the CPU's Highway target has no AVX-512";
      // Its copy spans the full input: with an input window the other paths run (the same
      // bits).
      if (!p.window_origin.empty()) return "an input window";
      int64_t in_points = 1, out_points = 1;
      for (int d = 0; d < r; ++d) {
        in_points *= p.in_sizes[static_cast<size_t>(d)];
        out_points *= p.out_sizes[static_cast<size_t>(d)];
      }
      if (in_points * 16 >= (int64_t{1} << 31)) return "input plane of 2^27 points or more";
      if (8 * out_points < in_points) {
        return "fewer than 1/8 as many output points as input points (the copy would not pay)";
      }
      // Nearest reads one line per point and block: the copy pays only while it stays in L2
      // (W1b: 1 MiB per block). W3b's 16 MiB block measured 5.2 vs 5.6 ms at 1 thread but
      // 16.6 vs 8.7 ms at 2 threads (random reads from L3 against per-channel planes in L2).
      if (nearest && in_points * 16 * 4 > (int64_t{2} << 20)) {
        return "nearest with a channel block over 2 MiB (out of L2)";
      }
      return {};
    }
    case GridSamplePath::kFusedSmallC:
      // NOTE [ GridSample fused small-channel path ]; the views (dense grid and dst, unit
      // src x or channel stride) are checked when it runs.
      if (r != 2) return "spatial rank 2 only";
      if (!f32 || p.grid_dtype != DType::kFloat32) return "float32 src and grid only";
      if (p.channels > 4) return "more than 4 channels";
      if (!nearest && !x_window) return "an x axis shorter than the taps per axis";
      if (!nearest && !last && !have_pairs) {
        return "channels-first linear/cubic needs the pair gathers (AVX2 and up)";
      }
      return {};
    case GridSamplePath::kPairs:
      // NOTE [ GridSample x-window gathers ]; unit src x stride checked when it runs.
      if (last || !f32) return "channels-first float32 only";
      if (!x_window) return "linear/cubic 2-D/3-D with an x axis of at least the taps per axis only";
      if (!have_pairs) return "the CPU's Highway target has no pair gathers (AVX2 and up)";
      return {};
    case GridSamplePath::kChannels:
      // Channels-last: a unit src channel stride, checked when it runs.
      if (!f32) return "float32 src only";
      return {};
    case GridSamplePath::kGeneric:
      return {};
  }
  return "unknown path";
}

namespace {

using gs_fast::Ctx;

/// Logs a run-time fallback under GRIDOPS_VERBOSE=dispatch.
void LogFallback(GridSamplePath from, const char* to, const std::string& why) {
  if (!detail::dispatch_verbose()) return;
  std::fprintf(stderr, "[gridops] grid_sample: '%s' cannot take these views (%s): running '%s'\n",
               grid_sample_path_name(from), why.c_str(), to);
}

/// Why `path` cannot take the views of c: the stride facts only run time knows (empty:
/// it can). The plan-time facts are grid_sample_path_declines.
std::string ViewDeclines(GridSamplePath path, const Ctx& c, const GridSampleProblem& p) {
  switch (path) {
    case GridSamplePath::kBlocked:
    case GridSamplePath::kGeneric:
      return {};
    case GridSamplePath::kFusedSmallC: {
      if (!c.dst_dense) return "dst is not dense";
      const bool dense_grid = p.grid_dtype == DType::kFloat32 && c.g_coord == 1 &&
                              c.g_spatial[1] == 2 &&
                              (c.out_sizes[0] == 1 || c.g_spatial[0] == 2 * c.out_sizes[1]);
      if (!dense_grid) return "grid is not dense";
      if (!c.channels_last && c.sstride[1] != 1) return "src x stride is not 1";
      if (c.channels_last && c.s_channel != 1) return "src channel stride is not 1";
      return {};
    }
    case GridSamplePath::kPairs:
      return c.sstride[c.r - 1] == 1 ? std::string() : "src x stride is not 1";
    case GridSamplePath::kChannels:
      return !c.channels_last || c.s_channel == 1 ? std::string()
                                                  : "channels-last src channel stride is not 1";
  }
  return {};
}

/// The channel-blocked path (NOTE [ GridSample channel blocks ]).
void RunBlockedPath(const GridSampleProblem& p, Ctx& c) {
  const int64_t threads = std::max(1, get_num_threads());
  c.cblocks = (c.channels + gs_fast::kCB - 1) / gs_fast::kCB;
  const int64_t planes = p.batch * c.cblocks;
  // Enough items for an even split: each (n, cb) in ceil(2 * threads / planes) chunks.
  c.chunks = std::max<int64_t>(1, (2 * threads + planes - 1) / planes);
  const int64_t subs = (c.out_points + gs_fast::kSub - 1) / gs_fast::kSub;
  c.chunks = std::min(c.chunks, subs);
  c.chunk_pts = (subs + c.chunks - 1) / c.chunks * gs_fast::kSub;
  c.chunks = (c.out_points + c.chunk_pts - 1) / c.chunk_pts;
  // Taps of a whole chunk kept across channel blocks when they take at most 1 MiB.
  c.P = c.chunk_pts * (c.NT + 1) * 8 <= (int64_t{1} << 20) && c.cblocks > 1 ? c.chunk_pts
                                                                            : gs_fast::kSub;
  c.stream = p.batch * c.channels * c.out_points * 4 >= (int64_t{8} << 20);
  int64_t dense = gs_fast::kCB;
  for (int d = c.r - 1; d >= 0; --d) {
    c.sstride[d] = static_cast<int32_t>(dense);
    dense *= c.len[d];
  }
  c.pair_ok = false;
  // Each thread copies the (n, cb) blocks of its own items into its own scratch, which
  // stays in its L2 when small. With several chunks per block (fewer blocks than 2 per
  // thread) the copies are made first by all threads together into one shared buffer
  // instead, so that no block is copied twice.
  hwy::AlignedFreeUniquePtr<float[]> shared;
  c.shared = nullptr;
  if (c.chunks > 1) {
    shared =
        hwy::AllocateAligned<float>(static_cast<size_t>(planes * c.in_points * gs_fast::kCB));
    if (!shared) throw std::bad_alloc();
    c.shared = shared.get();
    const int64_t rows = c.in_points / c.len[c.r - 1];
    c.copy_parts = std::min<int64_t>(rows, 4 * threads);
    const auto copy_blocked = HWY_DYNAMIC_DISPATCH(gs_fast::CopyBlocked);
    const int64_t per_part = c.in_points * gs_fast::kCB / c.copy_parts;
    parallel_for(planes * c.copy_parts, std::max<int64_t>(1, (int64_t{1} << 16) / per_part),
                 [&](int64_t b, int64_t e) { copy_blocked(c, b, e); });
  }
  const auto run_blocked = HWY_DYNAMIC_DISPATCH(gs_fast::RunBlocked);
  // Small problems stay on one thread, as below. With enough batch items and a chunk's
  // taps kept across channel blocks, a range of items covers every channel block of a
  // batch item, so that its taps are reused whatever chunks parallel_for hands out;
  // without that, single items balance the threads better (W1c at 2 threads: 4.90 vs
  // 5.05 ms).
  const int64_t per_item = std::min(c.chunk_pts, c.out_points) * gs_fast::kCB * c.NT;
  int64_t grain = std::max<int64_t>(1, (int64_t{1} << 17) / per_item);
  if (c.chunks == 1 && p.batch >= 2 * threads && c.P == c.chunk_pts) {
    grain = std::max(grain, c.cblocks);
  }
  parallel_for(planes * c.chunks, grain, [&](int64_t b, int64_t e) { run_blocked(c, b, e); });
}

/// The per-item paths (fused small-C, pairs, channels, generic): RunItems over blocks of
/// output points, or tiles for the fused path.
void RunItemsPath(const GridSampleProblem& p, Ctx& c) {
  c.blocks_per_batch = (c.out_points + c.P - 1) / c.P;
  c.tile_h = 0;
  if (c.fused) {
    // NOTE [ GridSample fused small-channel path ]: items are tiles of 4 x 64 points.
    c.tile_h = 4;
    c.tile_w = 64;
    c.tiles_x = (c.out_sizes[1] + c.tile_w - 1) / c.tile_w;
    c.blocks_per_batch = c.tiles_x * ((c.out_sizes[0] + c.tile_h - 1) / c.tile_h);
    c.P = c.tile_h * c.tile_w;  // for the grain below
  }
  const int64_t items = p.batch * c.blocks_per_batch;
  const auto run = HWY_DYNAMIC_DISPATCH(gs_fast::RunItems);
  // Small problems run on one thread: waking a second costs more than it saves.
  const int64_t work_per_item = c.P * std::max<int64_t>(c.channels, 4) * c.NT;
  const int64_t grain = std::max<int64_t>(1, (int64_t{1} << 17) / work_per_item);
  parallel_for(items, grain, [&](int64_t b, int64_t e) { run(c, b, e); });
}

}  // namespace

void grid_sample_path_run(GridSamplePath path, const GridSampleProblem& p, const TensorView& src,
                          const TensorView& grid, const MutableTensorView& dst) {
  Ctx c{};
  c.mode = p.mode;
  c.padding = p.padding;
  c.align_corners = p.align_corners;
  c.channels_last = p.layout == ChannelLayout::kChannelsLast;
  c.r = p.spatial_rank;
  c.K = p.mode == InterpolationMode::kNearest ? 1 : p.mode == InterpolationMode::kLinear ? 2 : 4;
  c.NT = 1;
  for (int d = 0; d < c.r; ++d) c.NT *= c.K;
  // Block size: about 512 KiB of offsets and weights (NT * P * 8 bytes), so that a block
  // sweeps each channel plane once (step 4 is channel-outer); smaller when that leaves
  // fewer than 4 blocks per thread. The split never changes any result.
  c.P = std::max<int64_t>(gs_fast::kSub, (int64_t{1} << 16) / c.NT);
  // With few channels the tap arrays are reread only a few times: keep them small (in L1
  // and L2) instead; the source locality then comes from the grid itself.
  if (p.channels <= 4) c.P = gs_fast::kSub;
  c.channels = p.channels;
  c.out_points = 1;
  c.windowed = !p.window_origin.empty();
  for (int d = 0; d < c.r; ++d) {
    c.len[d] = p.in_sizes[static_cast<size_t>(d)];
    c.origin[d] = c.windowed ? p.window_origin[static_cast<size_t>(d)] : 0;
    c.ext[d] = c.windowed ? p.window_extent[static_cast<size_t>(d)] : c.len[d];
    c.out_sizes[d] = p.out_sizes[static_cast<size_t>(d)];
    c.out_points *= c.out_sizes[d];
  }
  if (p.batch == 0 || p.channels == 0 || c.out_points == 0) return;

  const size_t first_spatial = c.channels_last ? 1 : 2;
  const size_t chan_axis = c.channels_last ? static_cast<size_t>(c.r) + 1 : 1;
  // src offsets must fit in int32 (tap offsets and, channels-last, plus the channel).
  int64_t span = 0;
  for (int d = 0; d < c.r; ++d) {
    const int64_t st = src.strides[first_spatial + static_cast<size_t>(d)];
    span += (c.ext[d] - 1) * (st < 0 ? -st : st);
    if (st > INT32_MAX || st < -INT32_MAX) span = INT64_MAX / 4;
    c.sstride[d] = static_cast<int32_t>(st);
  }
  if (c.channels_last) {
    const int64_t st = src.strides[chan_axis];
    span += (c.channels - 1) * (st < 0 ? -st : st);
    if (st > INT32_MAX || st < -INT32_MAX) span = INT64_MAX / 4;
  }
  if (span >= (int64_t{1} << 30)) {
    // Rare: a huge or strangely strided src, whose offsets do not fit the int32 gathers.
    LogFallback(path, "ref", "src offsets do not fit in int32");
    grid_sample_ref(p, src, grid, dst);
    return;
  }
  c.src = static_cast<const char*>(src.data);
  c.src_dtype = p.src_dtype;
  c.s_batch = src.strides[0];
  c.s_channel = src.strides[chan_axis];
  c.grid = static_cast<const char*>(grid.data);
  c.grid_dtype = p.grid_dtype;
  c.g_batch = grid.strides[0];
  for (int d = 0; d < c.r; ++d) c.g_spatial[d] = grid.strides[1 + static_cast<size_t>(d)];
  c.g_coord = grid.strides[static_cast<size_t>(c.r) + 1];
  c.dst = static_cast<char*>(dst.mutable_data());
  c.d_batch = dst.strides[0];
  c.d_channel = dst.strides[chan_axis];
  int64_t expect = c.channels_last ? c.channels : 1;
  c.dst_dense = !c.channels_last || c.d_channel == 1;
  for (int d = c.r - 1; d >= 0; --d) {
    c.d_spatial[d] = dst.strides[first_spatial + static_cast<size_t>(d)];
    if (c.d_spatial[d] != expect && c.out_sizes[d] > 1) c.dst_dense = false;
    expect *= c.out_sizes[d];
  }
  {
    const int64_t threads = std::max(1, get_num_threads());
    const int64_t want = (p.batch * c.out_points + 4 * threads - 1) / (4 * threads);
    const int64_t want_rounded = (want + gs_fast::kSub - 1) / gs_fast::kSub * gs_fast::kSub;
    c.P = std::min(c.P, std::max(gs_fast::kSub, want_rounded));
  }
  // Decided on the full sizes, so that a window takes the unwindowed run's path (the box
  // is then at least K wide along x: grid_sample_input_box).
  c.window = c.r >= 2 && p.mode != InterpolationMode::kNearest && c.len[c.r - 1] >= c.K;
  c.xwin_len = c.ext[c.r - 1];
  c.pair_ok = c.window && !c.channels_last && p.src_dtype == DType::kFloat32 &&
              c.sstride[c.r - 1] == 1;
  c.in_points = 1;
  for (int d = 0; d < c.r; ++d) {
    c.in_points *= c.len[d];
    c.s_spatial[d] = src.strides[first_spatial + static_cast<size_t>(d)];
  }
  // The planned path, or (views only run time knows) the next one in the list's order that
  // takes both the problem and these views; kGeneric takes every view.
  std::string why = ViewDeclines(path, c, p);
  while (!why.empty()) {
    const GridSamplePath from = path;
    do {
      path = static_cast<GridSamplePath>(static_cast<int>(path) + 1);
    } while (!grid_sample_path_declines(path, p).empty());
    LogFallback(from, grid_sample_path_name(path), why);
    why = ViewDeclines(path, c, p);
  }
  c.blocked = path == GridSamplePath::kBlocked;
  c.fused = path == GridSamplePath::kFusedSmallC;
  c.pairs = path == GridSamplePath::kPairs;
  c.vector_channels = path == GridSamplePath::kChannels;
  if (c.blocked) {
    RunBlockedPath(p, c);
  } else {
    RunItemsPath(p, c);
  }
}

}  // namespace gridops::kernels
#endif  // HWY_ONCE
