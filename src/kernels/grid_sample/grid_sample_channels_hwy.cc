// grid_sample.channels: float32 src; steps 1-3 of NOTE [ GridSample fast path ]
// (grid_sample_hwy-inl.h), then step 4 by vector gathers over points (channels-first) or
// vector loads over channels (channels-last, unit src channel stride).
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>

#include "kernels/grid_sample/grid_sample.h"
#include "kernels/grid_sample/grid_sample_fast.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/grid_sample/grid_sample_channels_hwy.cc"
#include <hwy/cache_control.h>
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include "kernels/grid_sample/grid_sample_hwy-inl.h"

HWY_BEFORE_NAMESPACE();
namespace gridops::kernels::grid_sample_simd {
namespace HWY_NAMESPACE {

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
  // NOTE [ GridSample channels-last prefetch ]
  // Each point reads its taps' C-element pixels at places the grid decides; on a random or
  // strongly warped grid those are cache misses the loop then waits for, one point at a
  // time. So each point first prefetches the pixels of the point `dist` further on (every
  // line of each tap's pixel): nearest 16 points ahead, linear with at most 4 taps (1-D,
  // 2-D) 8; bicubic (16 taps) and 3-D linear do not prefetch (docs/perf/grid_sample.md,
  // "Channels-last prefetch").
  const int64_t taps = nearest ? 1 : nt;
  const int64_t dist = nearest ? 16 : nt <= 4 ? 8 : 0;
  for (int64_t p = 0; p < cnt; ++p) {
    float* dp = dbase + wk.doff[static_cast<size_t>(p)];
    if (dist > 0 && p + dist < cnt) {
      for (int64_t k = 0; k < taps; ++k) {
        const float* q = sbase + wk.off[static_cast<size_t>(k) * P + static_cast<size_t>(p + dist)];
        for (int64_t b = 0; b < C; b += 16) hwy::Prefetch(q + b);
      }
    }
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

/// Items [begin, end): blocks of P output points.
void RunChannels(const Ctx& c, int64_t begin, int64_t end) {
  Work wk(c);
  for (int64_t item = begin; item < end; ++item) {
    const int64_t n = item / c.blocks_per_batch;
    const int64_t p0 = (item % c.blocks_per_batch) * c.P;
    const int64_t cnt = std::min(c.P, c.out_points - p0);
    BlockTaps(c, wk, n, p0, cnt, CombineTaps);
    switch (c.NT) {
      case 1: ChannelsF32<1>(c, wk, n, p0, cnt); break;
      case 4: ChannelsF32<4>(c, wk, n, p0, cnt); break;
      case 8: ChannelsF32<8>(c, wk, n, p0, cnt); break;
      case 16: ChannelsF32<16>(c, wk, n, p0, cnt); break;
      default: ChannelsF32<0>(c, wk, n, p0, cnt); break;
    }
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace gridops::kernels::grid_sample_simd
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace gridops::kernels {
GRIDOPS_GRID_SAMPLE_FAST_PATH(channels)

namespace grid_sample_simd {
HWY_EXPORT(RunChannels);
}  // namespace grid_sample_simd

namespace {

/// Why the path cannot take the views of c (empty: it can).
std::string ViewDeclines(const grid_sample_simd::Ctx& c) {
  return !c.channels_last || c.s_channel == 1 ? std::string()
                                              : "channels-last src channel stride is not 1";
}

}  // namespace

std::string grid_sample_channels_declines(const GridSampleProblem& p) {
  std::string why = grid_sample_fast_declines(p);
  if (!why.empty()) return why;
  // Channels-last: a unit src channel stride, checked when it runs.
  if (p.src_dtype != DType::kFloat32) return "float32 src only";
  return {};
}

std::string grid_sample_channels_declines_views(const GridSampleProblem& p, const void* tables,
                                                const GridSampleViews& v) {
  return grid_sample_path_declines_views(p, tables, v, ViewDeclines);
}

void grid_sample_channels_run(const GridSampleProblem& p, const void* tables,
                              const GridSampleViews& v) {
  grid_sample_simd::Ctx c;
  if (!grid_sample_path_begin(p, tables, v, &c)) return;
  grid_sample_fast_run_blocks(c, HWY_DYNAMIC_DISPATCH(grid_sample_simd::RunChannels));
  grid_sample_fast_finish(p, tables, v);
}

}  // namespace gridops::kernels
#endif  // HWY_ONCE
