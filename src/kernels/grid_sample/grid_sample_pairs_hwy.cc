// grid_sample.pairs: channels-first float32 linear/cubic, rank 2-3, x axis of at least K
// columns, unit src x stride, AVX2 and up: steps 1-2 of NOTE [ GridSample fast path ]
// (grid_sample_hwy-inl.h), step 3 on the x window as rows of column pairs, step 4 by
// 64-bit gathers of those pairs.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>

#include "kernels/grid_sample/grid_sample.h"
#include "kernels/grid_sample/grid_sample_fast.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/grid_sample/grid_sample_pairs_hwy.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include "kernels/grid_sample/grid_sample_hwy-inl.h"

HWY_BEFORE_NAMESPACE();
namespace gridops::kernels::grid_sample_simd {
namespace HWY_NAMESPACE {

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
/// Step 3 in x-window mode: rows (ky, pair q) of int64 byte offsets and two weights.
HWY_NOINLINE void CombinePairs(const Ctx& c, Work& wk, int64_t Pv, int64_t s0) {
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
    VF4 wcol;
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

/// Items [begin, end): blocks of P output points.
void RunPairs(const Ctx& c, int64_t begin, int64_t end) {
  Work wk(c, /*pair_offsets=*/true);
  for (int64_t item = begin; item < end; ++item) {
    const int64_t n = item / c.blocks_per_batch;
    const int64_t p0 = (item % c.blocks_per_batch) * c.P;
    const int64_t cnt = std::min(c.P, c.out_points - p0);
    BlockTaps(c, wk, n, p0, cnt, CombinePairs);
    switch (c.NT / 2) {
      case 2: ChannelsPairs<2>(c, wk, n, p0, cnt); break;
      case 4: ChannelsPairs<4>(c, wk, n, p0, cnt); break;
      case 8: ChannelsPairs<8>(c, wk, n, p0, cnt); break;
      default: ChannelsPairs<32>(c, wk, n, p0, cnt); break;
    }
  }
}
#else
void RunPairs(const Ctx&, int64_t, int64_t) {
  HWY_ABORT("grid_sample.pairs on a Highway target without pair gathers (its declines and "
            "declines_views decline it)");
}
#endif

bool HavePairs() { return kHavePairs; }

}  // namespace HWY_NAMESPACE
}  // namespace gridops::kernels::grid_sample_simd
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace gridops::kernels {
GRIDOPS_GRID_SAMPLE_FAST_PATH(pairs)

namespace grid_sample_simd {
HWY_EXPORT(RunPairs);
HWY_EXPORT(HavePairs);
}  // namespace grid_sample_simd

bool grid_sample_target_has_pairs() {
  return HWY_DYNAMIC_DISPATCH(grid_sample_simd::HavePairs)();
}

namespace {

/// Why the path cannot take the views of c (empty: it can), and (should the target have
/// changed since the plan) the CPU's Highway target.
std::string ViewDeclines(const grid_sample_simd::Ctx& c) {
  if (c.sstride[c.r - 1] != 1) return "src x stride is not 1";
  if (!grid_sample_target_has_pairs()) return "the CPU's Highway target has no pair gathers";
  return {};
}

}  // namespace

std::string grid_sample_pairs_declines(const GridSampleProblem& p) {
  std::string why = grid_sample_fast_declines(p);
  if (!why.empty()) return why;
  // NOTE [ GridSample x-window gathers ]; unit src x stride checked when it runs.
  const int K = p.mode == InterpolationMode::kNearest  ? 1
                : p.mode == InterpolationMode::kLinear ? 2
                                                       : 4;
  const int r = p.spatial_rank;
  // Linear/cubic 2-D/3-D whose x axis holds the K columns of an x window.
  const bool x_window = r >= 2 && K > 1 && p.in_sizes[static_cast<size_t>(r - 1)] >= K;
  if (p.layout == ChannelLayout::kChannelsLast || p.src_dtype != DType::kFloat32) {
    return "channels-first float32 only";
  }
  if (!x_window) return "linear/cubic 2-D/3-D with an x axis of at least the taps per axis only";
  if (p.padding == GridPadding::kWrap) return "wrap (its taps at an edge are no x window)";
  if (!grid_sample_target_has_pairs()) {
    return "the CPU's Highway target has no pair gathers (AVX2 and up)";
  }
  return {};
}

std::string grid_sample_pairs_declines_views(const GridSampleProblem& p, const void* tables,
                                             const GridSampleViews& v) {
  return grid_sample_path_declines_views(p, tables, v, ViewDeclines);
}

void grid_sample_pairs_run(const GridSampleProblem& p, const void* tables,
                           const GridSampleViews& v) {
  grid_sample_simd::Ctx c;
  if (!grid_sample_path_begin(p, tables, v, &c)) return;
  grid_sample_fast_run_blocks(c, HWY_DYNAMIC_DISPATCH(grid_sample_simd::RunPairs));
  grid_sample_fast_finish(p, tables, v);
}

}  // namespace gridops::kernels
#endif  // HWY_ONCE
