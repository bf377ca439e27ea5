// The fused AffineWarp kernel: Highway SIMD with dynamic dispatch, threaded over output
// rows through parallel_for. No grid is materialized.
//
// NOTE [ AffineWarp fast path ]
// Work items are output rows (n, o_0..o_{r-2}); each row is computed by one thread, and
// every output point's value depends only on that point (never on its neighbours in a
// vector or on the item split), so windows and thread counts give the same bits.
// Per vector of points along a row:
//   1. the grid value of component k, exactly as AffineGrid computes it (NOTE [ AffineGrid
//      arithmetic ]): ((theta[k][0] * x_w + py[k]) + pz[k]) + theta[k][r], with the
//      per-row products py = theta[k][1] * y, pz = theta[k][2] * z rounded on their own
//      and no fused multiply-add (the pragma below); the base coordinates x_w, y, z come
//      from tables the plan builds with AffineGrid's own base() (coords::affine_grid_base,
//      affine_warp_fast_prepare), so the grid values are AffineGrid's bits;
//   2. x = coords::unnormalize(g) mirrored in vector form (same operations, same order);
//   3. taps: nearest: round half to even, linear: floor and t = x - floor(x), as the
//      reference; zeros padding masks a tap outside the input (its value reads as +0),
//      border clamps the index; the index minus the window origin is clamped into the
//      window (a no-op for every tap with an effect: the operator checked the box);
//   4. per channel: gather the K^r taps (int32 offsets within the channel plane) and
//      combine: nearest selects (bit-exact), linear interpolates axis by axis from the
//      innermost, v = (1 - t) * v0 + t * v1 with a fused multiply-add where the target
//      has one (the stated tolerance, docs/ops/affine_warp.md).
// Lanes whose coordinate is non-finite or has |x| >= 2^22, and every lane under
// reflection padding, are computed alone by the reference's formulas
// (ref_taps::axis_taps, the reference's order of products and sums).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("fp-contract=off")
#endif

#include <algorithm>
#include <cassert>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "core/coords.h"

#include "gridops/parallel.h"
#include "kernels/affine_warp/affine_warp.h"
#include "kernels/grid_sample/grid_sample.h"
#include "kernels/grid_sample/grid_sample_taps.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/affine_warp/affine_warp_hwy.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include "core/coords_hwy-inl.h"
#include "core/vec_array_hwy-inl.h"

#if defined(__clang__)
#pragma clang fp contract(off)
#endif

#ifndef GRIDOPS_AFFINE_WARP_HWY_ONCE
#define GRIDOPS_AFFINE_WARP_HWY_ONCE
namespace gridops::kernels::aw_fast {

/// Padding of the x table: at least the widest vector (float lanes).
constexpr int64_t kPad = 64;

struct Ctx {
  int r;
  bool nearest;
  GridPadding padding;
  bool align_corners;
  const float* tab[3];  // base coordinates per output axis over the output box
  int64_t out_ext[3];
  int64_t rows_per_batch;
  int64_t in_full[3];
  int64_t origin[3];
  int64_t ext[3];
  int32_t sstride[3];
  const float* src;
  int64_t s_batch, s_channel;
  float* dst;
  int64_t d_batch, d_channel, d_spatial[3];
  int64_t channels;
  const float* theta;  // batch * r * (r + 1), row-major
  GridSampleProblem taps_problem;  // mode, padding, align_corners for ref_taps::axis_taps
};

/// One point computed by the reference's formulas (hard lanes); x[d] per spatial axis.
inline void scalar_point(const Ctx& c, const float* x, const float* s, int64_t cstride,
                         float* out, int64_t ostride) {
  const int r = c.r;
  ref_taps::AxisTaps<float> t[3];
  bool any_empty = false;
  for (int d = 0; d < r; ++d) {
    t[d] = ref_taps::axis_taps<float, float>(c.taps_problem, x[d], c.in_full[d]);
    if (t[d].count == 0) any_empty = true;
    for (int k = 0; k < t[d].count; ++k) {
      t[d].index[k] = std::clamp<int64_t>(t[d].index[k] - c.origin[d], 0, c.ext[d] - 1);
    }
  }
  for (int64_t ch = 0; ch < c.channels; ++ch) {
    const float* sc = s + ch * cstride;
    float acc = 0.0f;
    if (!any_empty) {
      int k[3] = {0, 0, 0};
      for (;;) {
        int64_t off = 0;
        float w = 1.0f;
        for (int d = 0; d < r; ++d) {
          off += t[d].index[k[d]] * c.sstride[d];
          w *= t[d].weight[k[d]];
        }
        if (c.nearest) {
          acc = sc[off];
        } else {
          const float prod = w * sc[off];
          acc += prod;
        }
        int d = r - 1;
        for (; d >= 0; --d) {
          if (++k[d] < t[d].count) break;
          k[d] = 0;
        }
        if (d < 0) break;
      }
    }
    out[ch * ostride] = acc;
  }
}

}  // namespace gridops::kernels::aw_fast
#endif

HWY_BEFORE_NAMESPACE();
namespace gridops::kernels::aw_fast {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

using DF = hn::ScalableTag<float>;
using DI = hn::RebindToSigned<DF>;
using VF = hn::Vec<DF>;
using VI = hn::Vec<DI>;
using MI = hn::Mask<DI>;
// Arrays of vectors and masks: NOTE [ Sizeless vectors ].
template <class D, size_t N>
using VecArray = gridops::simd::HWY_NAMESPACE::VecArray<D, N>;
template <class D, size_t N>
using MaskArray = gridops::simd::HWY_NAMESPACE::MaskArray<D, N>;

namespace gc = gridops::coords::HWY_NAMESPACE;  // coords_hwy-inl.h: UnnormalizeV

/// Tap index vector -> window-relative, clamped into the window.
HWY_INLINE VI ToWindow(VI i, int64_t origin, int64_t ext) {
  const DI di;
  const VI j = hn::Sub(i, hn::Set(di, static_cast<int32_t>(origin)));
  return hn::Min(hn::Max(j, hn::Zero(di)), hn::Set(di, static_cast<int32_t>(ext - 1)));
}

/// One row range of the fused warp: coordinates, taps and the gather-and-blend of every
/// channel. Kept in one piece (about 150 lines): each output vector's coordinates, taps,
/// offsets, masks and weights are computed once and reused by the channel loop; split up,
/// those arrays would have to be passed between the parts.
template <int R, bool kNearest, bool kZeros>
void RunRowsT(const Ctx& c, int64_t begin, int64_t end) {
  const DF df;
  const DI di;
  constexpr int K = kNearest ? 1 : 2;
  constexpr int NT = R == 1 ? K : R == 2 ? K * K : K * K * K;
  const size_t N = hn::Lanes(df);
  const int64_t W = c.out_ext[R - 1];
  HWY_ALIGN float xbuf[3][hn::MaxLanes(df)];
  HWY_ALIGN float obuf[hn::MaxLanes(df)];
  HWY_ALIGN int32_t hbuf[hn::MaxLanes(di)] = {};
  std::vector<float> hard_out(static_cast<size_t>(c.channels));
  const bool all_hard = c.padding == GridPadding::kReflection;

  for (int64_t q = begin; q < end; ++q) {
    const int64_t n = q / c.rows_per_batch;
    int64_t rem = q % c.rows_per_batch;
    int64_t o[3] = {0, 0, 0};
    for (int a = R - 2; a >= 0; --a) {
      o[a] = rem % c.out_ext[a];
      rem /= c.out_ext[a];
    }
    const float* th = c.theta + n * R * (R + 1);
    // Per-row constants of NOTE [ AffineGrid arithmetic ]: c_1 = base along axis R-2,
    // c_2 along axis R-3; each product rounded on its own.
    float ak[3], p1[3], p2[3], bk[3];
    for (int k = 0; k < R; ++k) {
      ak[k] = th[k * (R + 1) + 0];
      bk[k] = th[k * (R + 1) + R];
      p1[k] = 0.0f;
      p2[k] = 0.0f;
      if constexpr (R >= 2) p1[k] = th[k * (R + 1) + 1] * c.tab[R - 2][o[R - 2]];
      if constexpr (R == 3) p2[k] = th[k * (R + 1) + 2] * c.tab[0][o[0]];
    }
    const float* sb = c.src + n * c.s_batch;
    float* db = c.dst + n * c.d_batch;
    for (int a = 0; a < R - 1; ++a) db += o[a] * c.d_spatial[a];
    const int64_t dw = c.d_spatial[R - 1];

    for (int64_t w = 0; w < W; w += static_cast<int64_t>(N)) {
      const size_t count = static_cast<size_t>(std::min<int64_t>(static_cast<int64_t>(N), W - w));
      const VF c0 = hn::LoadU(df, c.tab[R - 1] + w);
      VecArray<DF, 3> x;
      for (int k = 0; k < R; ++k) {
        VF g = hn::Mul(hn::Set(df, ak[k]), c0);
        if constexpr (R >= 2) g = hn::Add(g, hn::Set(df, p1[k]));
        if constexpr (R == 3) g = hn::Add(g, hn::Set(df, p2[k]));
        g = hn::Add(g, hn::Set(df, bk[k]));
        const int d = R - 1 - k;  // grid component k is the coordinate of axis R-1-k
        const float L = static_cast<float>(c.in_full[d]);
        x[d] = gc::UnnormalizeV(df, g, hn::Set(df, L), hn::Set(df, L - 1.0f), c.align_corners);
      }
      // Hard lanes: non-finite or |x| >= 2^22 on some axis (or reflection padding).
      auto hard = hn::Not(hn::Lt(hn::Abs(x[0]), hn::Set(df, 4194304.0f)));
      for (int d = 1; d < R; ++d) {
        hard = hn::Or(hard, hn::Not(hn::Lt(hn::Abs(x[d]), hn::Set(df, 4194304.0f))));
      }
      const bool any_hard = all_hard || !hn::AllFalse(df, hard);
      float* dpt = db + w * dw;
      if (any_hard) {
        for (int d = 0; d < R; ++d) hn::Store(x[d], df, xbuf[d]);
        hn::Store(hn::VecFromMask(di, hn::RebindMask(di, hard)), di, hbuf);
      }
      if (!all_hard) {
        // Taps per axis (window-relative, clamped) and their masks / weights.
        VecArray<DI, K> j[3];
        MaskArray<DI, K> m[3];
        VecArray<DF, K> wt[3];
        for (int d = 0; d < R; ++d) {
          const VF xs = hn::IfThenZeroElse(hard, VF(x[d]));
          const VI L = hn::Set(di, static_cast<int32_t>(c.in_full[d]));
          if constexpr (kNearest) {
            VI i = hn::ConvertTo(di, hn::Round(xs));
            if constexpr (kZeros) {
              m[d][0] = hn::And(hn::Gt(i, hn::Set(di, -1)), hn::Lt(i, L));
            } else {
              i = hn::Min(hn::Max(i, hn::Zero(di)), hn::Sub(L, hn::Set(di, 1)));
            }
            j[d][0] = ToWindow(i, c.origin[d], c.ext[d]);
          } else {
            const VF f = hn::Floor(xs);
            const VF t = hn::Sub(xs, f);
            VI i0 = hn::ConvertTo(di, f);
            VI i1 = hn::Add(i0, hn::Set(di, 1));
            if constexpr (kZeros) {
              m[d][0] = hn::And(hn::Gt(i0, hn::Set(di, -1)), hn::Lt(i0, L));
              m[d][1] = hn::And(hn::Gt(i1, hn::Set(di, -1)), hn::Lt(i1, L));
            } else {
              const VI last = hn::Sub(L, hn::Set(di, 1));
              i0 = hn::Min(hn::Max(i0, hn::Zero(di)), last);
              i1 = hn::Min(hn::Max(i1, hn::Zero(di)), last);
            }
            j[d][0] = ToWindow(i0, c.origin[d], c.ext[d]);
            j[d][1] = ToWindow(i1, c.origin[d], c.ext[d]);
            wt[d][0] = hn::Sub(hn::Set(df, 1.0f), t);
            wt[d][1] = t;
          }
          for (int k = 0; k < K; ++k) {
            j[d][k] = hn::Mul(j[d][k], hn::Set(di, c.sstride[d]));
          }
        }
        // Offsets (and masks) of the NT combinations, axis 0 outermost.
        VecArray<DI, NT> off;
        MaskArray<DI, NT> msk;
        for (int e = 0; e < NT; ++e) {
          int rest = e;
          int kk[3] = {0, 0, 0};
          for (int d = R - 1; d >= 0; --d) {
            kk[d] = rest % K;
            rest /= K;
          }
          off[e] = j[0][kk[0]];
          if constexpr (kZeros) msk[e] = m[0][kk[0]];
          for (int d = 1; d < R; ++d) {
            off[e] = hn::Add(off[e], j[d][kk[d]]);
            if constexpr (kZeros) msk[e] = hn::And(msk[e], m[d][kk[d]]);
          }
        }
        for (int64_t ch = 0; ch < c.channels; ++ch) {
          const float* sc = sb + ch * c.s_channel;
          VecArray<DF, NT> v;
          for (int e = 0; e < NT; ++e) {
            v[e] = hn::GatherIndex(df, sc, off[e]);
            if constexpr (kZeros) v[e] = hn::IfThenElseZero(hn::RebindMask(df, msk[e]), VF(v[e]));
          }
          if constexpr (!kNearest) {
            // Innermost axis first: pairs (v[2i], v[2i+1]) differ in the last axis's tap.
            int len = NT;
            for (int d = R - 1; d >= 0; --d) {
              for (int i = 0; i < len / 2; ++i) {
                v[i] = hn::MulAdd(wt[d][1], v[2 * i + 1], hn::Mul(wt[d][0], v[2 * i]));
              }
              len /= 2;
            }
          }
          float* out = dpt + ch * c.d_channel;
          if (!any_hard && dw == 1 && count == N) {
            hn::StoreU(v[0], df, out);
          } else {
            hn::Store(v[0], df, obuf);
            for (size_t l = 0; l < count; ++l) {
              if (!any_hard || hbuf[l] == 0) out[static_cast<int64_t>(l) * dw] = obuf[l];
            }
          }
        }
      }
      if (any_hard) {
        for (size_t l = 0; l < count; ++l) {
          if (!all_hard && hbuf[l] == 0) continue;
          float xl[3];
          for (int d = 0; d < R; ++d) xl[d] = xbuf[d][l];
          scalar_point(c, xl, sb, c.s_channel, dpt + static_cast<int64_t>(l) * dw, c.d_channel);
        }
      }
    }
  }
}

void RunRows(const Ctx& c, int64_t begin, int64_t end) {
  const bool zeros = c.padding == GridPadding::kZeros;
  switch (c.r) {
    case 1:
      if (c.nearest) zeros ? RunRowsT<1, true, true>(c, begin, end) : RunRowsT<1, true, false>(c, begin, end);
      else zeros ? RunRowsT<1, false, true>(c, begin, end) : RunRowsT<1, false, false>(c, begin, end);
      break;
    case 2:
      if (c.nearest) zeros ? RunRowsT<2, true, true>(c, begin, end) : RunRowsT<2, true, false>(c, begin, end);
      else zeros ? RunRowsT<2, false, true>(c, begin, end) : RunRowsT<2, false, false>(c, begin, end);
      break;
    default:
      if (c.nearest) zeros ? RunRowsT<3, true, true>(c, begin, end) : RunRowsT<3, true, false>(c, begin, end);
      else zeros ? RunRowsT<3, false, true>(c, begin, end) : RunRowsT<3, false, false>(c, begin, end);
      break;
  }
}

// NOLINTNEXTLINE(google-readability-namespace-comments)
}  // namespace HWY_NAMESPACE
}  // namespace gridops::kernels::aw_fast
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace gridops::kernels {
namespace aw_fast {
HWY_EXPORT(RunRows);
}  // namespace aw_fast

namespace {

/// The fused kernel's tables: the base coordinates of each output axis over the output box
/// (NOTE [ AffineWarp fast path ], step 1), padded by kPad copies of the last one.
struct AffineWarpTables {
  std::vector<float> tab[3];
};

int64_t output_points(const AffineWarpProblem& p) {
  int64_t points = p.batch * p.channels;
  for (int a = 0; a < p.spatial_rank; ++a) points *= p.out_ext[a];
  return points;
}

}  // namespace

std::shared_ptr<const void> affine_warp_fast_prepare(const AffineWarpProblem& p) {
  const int r = p.spatial_rank;
  for (int a = 0; a < r; ++a) {
    if (p.out_ext[a] == 0) return nullptr;  // nothing is written
  }
  auto t = std::make_shared<AffineWarpTables>();
  // AffineGrid's base coordinates (NOTE [ AffineGrid arithmetic ]) in float: the grid
  // AffineGrid writes for an identity theta is exactly these (1 * c_k plus zero products
  // and a zero offset, each exact), so the grid values below are AffineGrid's bits.
  for (int a = 0; a < r; ++a) {
    const int64_t len = p.out_ext[a];
    std::vector<float>& tab = t->tab[a];
    tab.assign(static_cast<size_t>(len + aw_fast::kPad), 0.0f);
    for (int64_t i = 0; i < len; ++i) {
      tab[static_cast<size_t>(i)] =
          coords::affine_grid_base<float>(i + p.out_origin[a], p.out_full[a], p.align_corners);
    }
    for (int64_t i = len; i < len + aw_fast::kPad; ++i) {
      tab[static_cast<size_t>(i)] = tab[static_cast<size_t>(len - 1)];
    }
  }
  return t;
}

std::string affine_warp_fast_declines_views(const AffineWarpProblem& p, const void*,
                                            const AffineWarpViews& v) {
  // src offsets within a channel plane must fit int32 (the gathers' offsets).
  int64_t reach = 0;
  for (int a = 0; a < p.spatial_rank; ++a) {
    const int64_t s = v.src.strides[static_cast<size_t>(2 + a)];
    const int64_t e = p.in_ext[a];
    if (e > 0) reach += (e - 1) * (s < 0 ? -s : s);
    if ((s < 0 ? -s : s) > INT32_MAX || reach > INT32_MAX) {
      return "src offsets within a channel plane do not fit int32";
    }
    if (p.in_full[a] >= (int64_t{1} << 30)) {
      return "a full input axis of 2^30 or more positions";
    }
  }
  return {};
}

void affine_warp_fast(const AffineWarpProblem& p, const void* tables, const AffineWarpViews& v) {
  const TensorView& src = v.src;
  const TensorView& theta = v.theta;
  const MutableTensorView& dst = v.dst;
  const int r = p.spatial_rank;
  assert(r >= 1 && r <= 3);
  assert(p.src_dtype == DType::kFloat32 && p.theta_dtype == DType::kFloat32);
  if (output_points(p) == 0) return;
  assert(tables != nullptr && affine_warp_fast_declines_views(p, tables, v).empty());
  const auto& t = *static_cast<const AffineWarpTables*>(tables);
  // An empty input box (possible only with zeros padding and an empty full input axis):
  // every tap is outside, every output element is +0.
  bool empty_in = false;
  for (int a = 0; a < r; ++a) empty_in = empty_in || p.in_ext[a] == 0;
  if (empty_in) {
    std::vector<int64_t> idx(static_cast<size_t>(r + 2), 0);
    Dims shape = dst.shape;
    int64_t total = 1;
    for (int64_t s : shape) total *= s;
    for (int64_t f = 0; f < total; ++f) {
      int64_t rem = f;
      for (int a = r + 1; a >= 0; --a) {
        idx[static_cast<size_t>(a)] = rem % shape[static_cast<size_t>(a)];
        rem /= shape[static_cast<size_t>(a)];
      }
      *static_cast<float*>(dst.mutable_element_ptr(idx)) = 0.0f;
    }
    return;
  }

  aw_fast::Ctx c{};
  c.r = r;
  c.nearest = p.mode == InterpolationMode::kNearest;
  c.padding = p.padding;
  c.align_corners = p.align_corners;
  c.taps_problem.mode = p.mode;
  c.taps_problem.padding = p.padding;
  c.taps_problem.align_corners = p.align_corners;
  for (int a = 0; a < r; ++a) c.tab[a] = t.tab[a].data();
  // theta as float, row-major.
  std::vector<float> th(static_cast<size_t>(p.batch * r * (r + 1)));
  for (int64_t n = 0; n < p.batch; ++n) {
    for (int k = 0; k < r; ++k) {
      for (int j = 0; j <= r; ++j) {
        const int64_t idx[3] = {n, k, j};
        th[static_cast<size_t>((n * r + k) * (r + 1) + j)] =
            *static_cast<const float*>(theta.element_ptr(idx));
      }
    }
  }
  c.theta = th.data();
  c.rows_per_batch = 1;
  for (int a = 0; a < r; ++a) {
    c.out_ext[a] = p.out_ext[a];
    if (a < r - 1) c.rows_per_batch *= p.out_ext[a];
    c.in_full[a] = p.in_full[a];
    c.origin[a] = p.in_origin[a];
    c.ext[a] = p.in_ext[a];
    c.sstride[a] = static_cast<int32_t>(src.strides[static_cast<size_t>(2 + a)]);
    c.d_spatial[a] = dst.strides[static_cast<size_t>(2 + a)];
  }
  c.src = static_cast<const float*>(src.data);
  c.s_batch = src.strides[0];
  c.s_channel = src.strides[1];
  c.dst = static_cast<float*>(dst.mutable_data());
  c.d_batch = dst.strides[0];
  c.d_channel = dst.strides[1];
  c.channels = p.channels;

  const int64_t items = p.batch * c.rows_per_batch;
  const int64_t per_item = std::max<int64_t>(1, p.out_ext[r - 1] * p.channels);
  const int64_t grain = std::max<int64_t>(1, (int64_t{1} << 14) / per_item);
  const auto run = HWY_DYNAMIC_DISPATCH(aw_fast::RunRows);
  parallel_for(items, grain, [&](int64_t b, int64_t e) { run(c, b, e); });
}

}  // namespace gridops::kernels
#endif  // HWY_ONCE
