// The fast GridSample backward: threaded, deterministic for any thread count.
//
// NOTE [ GridSample backward fast path ]
// Scope: spatial rank 1-3, src and grid float32/float16/bfloat16 (computed in float, as the
// forward), input axes of length 1..2^30. Channels are stored as rows of CP floats per
// point (C padded with zeros to 4 or to whole vectors), so that every tap is a few vector
// operations over all channels. Per batch entry, per chunk of output points (natural order):
//   1. taps (parallel over points): per point and axis, K slots (index, weight, dw/dx) from
//      axis_slots below, with the reference's formulas and conventions (grid_sample_taps.h),
//      the point's grad_dst row, and a sort key: its lowest valid tap on axis 0 (lo0, the
//      outermost input axis) and on the other axes. In the same parallel region (first
//      chunk, grid gradient wanted) src is copied into rows;
//   2. a stable counting sort of the points by key (serial; depends only on the data), so
//      that consecutive points touch nearby input rows; the taps are copied into that order;
//   3. bands (parallel): the axis-0 indices are split into bands [b0, b1). A band visits,
//      in sorted order, every point with lo0 in [b0 - span, b1) (span: the most axis-0
//      indices a point's taps cover, at most 3) and adds w * grad_dst row into the
//      accumulator row of each of its taps whose axis-0 index lies in [b0, b1); for the
//      points it owns (lo0 in [b0, b1)) it also computes the grid gradient: per tap, the
//      lane-wise products grad_dst * src row, times the per-axis derivative weights,
//      summed over taps and then over lanes, times dx/dg, stored. The band zeroes its
//      accumulator rows in the first chunk and stores them into grad_src (converted) after
//      the last.
// When the batch entries divide evenly among the threads (or there are many), each thread
// instead runs whole entries, each as one band, with no parallel region inside.
// The plan's tables (BandsTables, built by prepare) fix the row width CP, per run kind
// (with or without the grid gradient) the chunk size, the sort-key buckets and the split
// (split=batch_entries: whole entries per thread; split=bands: that many bands per chunk;
// split=one_band: below kMinParallelWork or one thread), for the thread count at plan time;
// and the band kernel (band_kernel=hwy or portable). The dispatch log prints them.
// Determinism: every accumulator element receives its terms in the same order for any
// split into bands (the sorted point order, then the tap order), the grid gradient of a
// point is computed by one band with fixed operations, and chunks, padding and sort keys are
// fixed by the problem (and the SIMD target), so the result does not depend on the number
// of threads, on the band split or the batch split (both chosen from the thread count), or
// on how parallel_for splits the work.
#include <algorithm>
#include <cassert>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <new>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/convert.h"
#include "core/checked.h"
#include "core/coords.h"
#include "gridops/parallel.h"
#include "kernels/grid_sample/grid_sample.h"
#include "kernels/grid_sample/grid_sample_backward_band.h"
#include "kernels/grid_sample/grid_sample_backward_rows.h"
#include "kernels/grid_sample/grid_sample_backward_tables.h"
#include "kernels/grid_sample/grid_sample_backward_workspace.h"
#include "kernels/grid_sample/grid_sample_taps.h"

namespace gridops::kernels {
namespace {

using namespace ref_taps;
using namespace grid_sample_backward_rows;
using grid_sample_backward_tables::BandsSchedule;
using grid_sample_backward_tables::BandsTables;
using grid_sample_backward_workspace::Arena;

/// One axis of one point: K slots (K = 1, 2, 4), idx -1 for a tap outside under zeros.
struct AxisSlots {
  int32_t idx[4];
  float w[4];
  float dw[4];
};

/// The forward's taps of one axis at the unnormalized coordinate x (float, as the forward
/// computes it for a non-double grid) with their derivatives. Linear uses the interval of
/// linear_derivative_floor, which differs from the forward's [floor(x), floor(x)+1] only at
/// integer x on mirrored stretches under reflection: there f = x - 1 and t = 1 put weight 1
/// on the same tap pad(x) as the forward (and weight 0 on pad(x-1) instead of pad(x+1)).
void axis_slots(const GridSampleProblem& p, float x, int64_t len, int K, AxisSlots* s) {
  for (int k = 0; k < K; ++k) {
    s->idx[k] = -1;
    s->w[k] = 0.0f;
    s->dw[k] = 0.0f;
  }
  if (p.padding == GridPadding::kZeros && p.mode != InterpolationMode::kNearest &&
      std::fabs(x) < 4194304.0f /* 2^22; false for NaN */) {
    // The common case, the same results as the general code below: finite x, zeros padding
    // (linear_derivative_floor is floor(x) with derivative 1), no padding map.
    const float f = std::floor(x);
    const float t = x - f;
    const int64_t i0 = static_cast<int64_t>(f);
    auto put = [&](int k, int64_t i, float w, float dw) {
      if (i < 0 || i >= len) return;
      s->idx[k] = static_cast<int32_t>(i);
      s->w[k] = w;
      s->dw[k] = dw;
    };
    if (p.mode == InterpolationMode::kLinear) {
      put(0, i0, 1.0f - t, -1.0f);
      put(1, i0 + 1, t, 1.0f);
    } else {
      float w[4], dw[4];
      coords::cubic_weights(t, w);
      coords::cubic_weight_derivatives(t, dw);
      for (int k = 0; k < 4; ++k) put(k, i0 - 1 + k, w[k], dw[k]);
    }
    return;
  }
  const bool deriv = std::isfinite(x) && p.mode != InterpolationMode::kNearest;
  // ERRATA GridSample 8, as in the reference (coords::grid_axis_taps).
  if (!coords::grid_finite_coordinate(&x, len, p.padding)) return;
  if (p.padding == GridPadding::kFill && !coords::grid_fill_inside(x, len, p.align_corners)) {
    return;  // the sample takes the fill value: no taps, no derivative
  }
  const int64_t period = reflection_period(p, len);
  auto put = [&](int k, int64_t i, float w, float dw) {
    int64_t j;
    if (!pad_index(i, len, p.padding, p.align_corners, &j)) return;
    s->idx[k] = static_cast<int32_t>(j);
    s->w[k] = w;
    s->dw[k] = dw;
  };
  switch (p.mode) {
    case InterpolationMode::kNearest:
      put(0, coords::to_index(coords::round_half_even(x), period), 1.0f, 0.0f);
      break;
    case InterpolationMode::kLinear: {
      float f = std::floor(x);
      float d = 0.0f;
      if (deriv) {
        float fd;
        if (linear_derivative_floor(p, x, len, &fd)) {
          f = fd;
          d = 1.0f;
        }
      }
      const float t = x - f;
      const int64_t i0 = coords::to_index(f, period);
      put(0, i0, 1.0f - t, -d);
      put(1, i0 + 1, t, d);
      break;
    }
    case InterpolationMode::kCubic: {
      const float f = std::floor(x);
      const float t = x - f;
      const int64_t i0 = coords::to_index(f, period);
      float w[4], dw[4] = {0.0f, 0.0f, 0.0f, 0.0f};
      coords::cubic_weights(t, w);
      if (deriv) coords::cubic_weight_derivatives(t, dw);
      for (int k = 0; k < 4; ++k) put(k, i0 - 1 + k, w[k], dw[k]);
      break;
    }
  }
}

constexpr int64_t kGrain = 1024;                      // points per parallel chunk, at least

/// Positions [b, e): the records of point order[pos] (RK + 1 int32, 2 RK float) copied to
/// position pos (fixed-size copies).
template <int RK>
void permute_points_t(const int64_t* order, int64_t b, int64_t e, const int32_t* irec, const float* frec,
                      int32_t* irec_s, float* frec_s) {
  for (int64_t pos = b; pos < e; ++pos) {
    const int64_t q = order[pos];
    std::memcpy(irec_s + pos * (RK + 1), irec + q * (RK + 1), (RK + 1) * sizeof(int32_t));
    std::memcpy(frec_s + pos * 2 * RK, frec + q * 2 * RK, 2 * RK * sizeof(float));
  }
}

void permute_points(int64_t RK, const int64_t* order, int64_t b, int64_t e, const int32_t* irec,
                    const float* frec, int32_t* irec_s, float* frec_s) {
  switch (RK) {
#define GRIDOPS_PERMUTE_CASE(N) \
  case N: permute_points_t<N>(order, b, e, irec, frec, irec_s, frec_s); break;
    GRIDOPS_PERMUTE_CASE(1)
    GRIDOPS_PERMUTE_CASE(2)
    GRIDOPS_PERMUTE_CASE(3)
    GRIDOPS_PERMUTE_CASE(4)
    GRIDOPS_PERMUTE_CASE(6)
    GRIDOPS_PERMUTE_CASE(8)
    GRIDOPS_PERMUTE_CASE(12)
#undef GRIDOPS_PERMUTE_CASE
    default: assert(false && "fast backward: r * K in {1, 2, 3, 4, 6, 8, 12}"); break;
  }
}

/// Outputs nothing is accumulated into (no work, or nearest's grid gradient): zeros.
template <class T, class GT>
void write_zeros(const GridSampleProblem& p, const MutableTensorView* grad_src,
                 const MutableTensorView* grad_grid, bool want_gs, bool want_gg, int64_t in_points,
                 int64_t out_points) {
  const int r = p.spatial_rank;
  const int64_t C = p.channels;
  if (grad_src != nullptr && !want_gs) {
    const SplitStrides gss = split_strides(*grad_src, r, p.layout);
    T* out = static_cast<T*>(grad_src->mutable_data());
    for (int64_t n = 0; n < p.batch; ++n) {
      for (int64_t c = 0; c < C; ++c) {
        Odometer od(r, p.in_sizes, 0);
        for (int64_t i = 0; i < in_points; ++i, od.next()) {
          out[n * gss.batch + c * gss.channel + od.offset(gss.spatial)] = convert::store_real<T>(0.0f);
        }
      }
    }
  }
  if (grad_grid != nullptr && !want_gg) {
    GT* gg = static_cast<GT*>(grad_grid->mutable_data());
    const Dims& ggs = grad_grid->strides;
    const Dims gsp(ggs.begin() + 1, ggs.begin() + 1 + r);
    for (int64_t n = 0; n < p.batch && out_points > 0; ++n) {
      Odometer od(r, p.out_sizes, 0);
      for (int64_t q = 0; q < out_points; ++q, od.next()) {
        const int64_t off = n * ggs[0] + od.offset(gsp);
        for (int d = 0; d < r; ++d) gg[off + d * ggs[static_cast<size_t>(r) + 1]] = convert::store_real<GT>(0.0f);
      }
    }
  }
}

/// The run (NOTE above). Over 150 lines: the three steps of a chunk share the scratch
/// arrays and some thirty locals of the problem and views, and one loop nest keeps them in
/// the NOTE's order; split into functions they would pass all of them.
template <class T, class GT>
void run_typed(const GridSampleProblem& p, const BandsTables& t, const TensorView& grad_dst,
               const TensorView& src, const TensorView& grid, const MutableTensorView* grad_src,
               const MutableTensorView* grad_grid) {
  const int r = p.spatial_rank;
  const int K = coords::taps_per_axis(p.mode);
  const bool cf = p.layout == ChannelLayout::kChannelsFirst;
  const SplitStrides ss = split_strides(src, r, p.layout);
  const SplitStrides ds = split_strides(grad_dst, r, p.layout);
  const Dims& gs = grid.strides;
  const T* src_base = static_cast<const T*>(src.data);
  const T* gd_base = static_cast<const T*>(grad_dst.data);
  const GT* grid_base = static_cast<const GT*>(grid.data);
  const int64_t C = p.channels;

  int64_t out_points = 1, in_points = 1;
  for (int64_t d : p.out_sizes) out_points *= d;
  int64_t dense[3] = {0, 0, 0};
  for (int d = r - 1; d >= 0; --d) {
    dense[d] = in_points;
    in_points *= p.in_sizes[static_cast<size_t>(d)];  // every input axis >= 1 (scope)
  }
  const bool work = p.batch > 0 && out_points > 0 && C > 0;
  const bool want_gs = grad_src != nullptr && work;
  const bool want_gg = grad_grid != nullptr && work && p.mode != InterpolationMode::kNearest;

  write_zeros<T, GT>(p, grad_src, grad_grid, want_gs, want_gg, in_points, out_points);
  if (!want_gs && !want_gg) return;

  const BandsSchedule& sc = t.sched[want_gg ? 1 : 0];
  const int64_t CP = t.CP;
  const int64_t RK = static_cast<int64_t>(r) * K;
  const int64_t chunk = sc.chunk;
  const int64_t L0 = p.in_sizes[0];
  const int s0 = sc.s0, s1 = sc.s1;
  const int64_t G0 = sc.G0, M = sc.M;

  float slope[3] = {0.0f, 0.0f, 0.0f};
  for (int d = 0; d < r; ++d) slope[d] = coordinate_slope<float>(p, d);
  const bool by_batch = sc.by_batch;
  const Dims gsp(gs.begin() + 1, gs.begin() + 1 + r);
  const int64_t coord_stride = gs[static_cast<size_t>(r) + 1];
  void (*const band)(const grid_sample_simd::BandArgs&) = t.band;

  GT* const gg = want_gg ? static_cast<GT*>(grad_grid->mutable_data()) : nullptr;
  const Dims ggs = want_gg ? grad_grid->strides : Dims(static_cast<size_t>(r) + 2, 0);
  const Dims ggsp(ggs.begin() + 1, ggs.begin() + 1 + r);
  const int64_t gg_coord = ggs[static_cast<size_t>(r) + 1];
  int64_t rows_floats = 0;  // CP floats per input point
  if (!detail::mul_ok(in_points, CP, &rows_floats)) throw std::bad_alloc();
  const int64_t nbuckets = G0 * M;
  // Batch entries [n_begin, n_end); inner: the steps run through parallel_for.
  auto run_batches = [&](int64_t n_begin, int64_t n_end, bool inner) {
    auto pfor = [&](int64_t count, int64_t grain, const std::function<void(int64_t, int64_t)>& f) {
      if (inner) {
        parallel_for(count, grain, f);
      } else if (count > 0) {
        f(0, count);
      }
    };
    Arena arena(&t.workspace);
    const size_t at_acc = arena.add<float>(want_gs ? rows_floats : 0);
    const size_t at_srct = arena.add<float>(want_gg ? rows_floats : 0);
    const size_t at_gdt = arena.add<float>(chunk * CP);
    const size_t at_irec = arena.add<int32_t>(chunk * (RK + 1));
    const size_t at_frec = arena.add<float>(chunk * 2 * RK);
    const size_t at_span = arena.add<int32_t>(chunk);
    const size_t at_key = arena.add<int32_t>(chunk);
    const size_t at_order = arena.add<int64_t>(chunk);
    const size_t at_ggb = arena.add<float>(want_gg ? chunk * r : 0);
    const size_t at_ggoff = arena.add<int64_t>(want_gg ? chunk : 0);  // grad_grid offsets
    // The same per point, in sorted order (what the bands read).
    const size_t at_irec_s = arena.add<int32_t>(chunk * (RK + 1));
    const size_t at_frec_s = arena.add<float>(chunk * 2 * RK);
    // Counting sort: bucket starts, and the next free position per bucket.
    const size_t at_start = arena.add<int64_t>(nbuckets + 1);
    const size_t at_next = arena.add<int64_t>(nbuckets);
    arena.allocate();
    float* const acc = arena.get<float>(at_acc);
    float* const srct = arena.get<float>(at_srct);
    float* const gdt = arena.get<float>(at_gdt);
    int32_t* const irec = arena.get<int32_t>(at_irec);
    float* const frec = arena.get<float>(at_frec);
    int32_t* const span = arena.get<int32_t>(at_span);
    int32_t* const key = arena.get<int32_t>(at_key);
    int64_t* const order = arena.get<int64_t>(at_order);
    float* const ggb = arena.get<float>(at_ggb);
    int64_t* const ggoff = arena.get<int64_t>(at_ggoff);
    int32_t* const irec_s = arena.get<int32_t>(at_irec_s);
    float* const frec_s = arena.get<float>(at_frec_s);
    int64_t* const start = arena.get<int64_t>(at_start);
    int64_t* const next = arena.get<int64_t>(at_next);

    const int64_t nb_max = sc.bands;
    std::vector<int64_t> gb(static_cast<size_t>(nb_max + 1));
    for (int64_t n = n_begin; n < n_end; ++n) {
      const int64_t nchunks = (out_points + chunk - 1) / chunk;
      for (int64_t ci = 0; ci < nchunks; ++ci) {
        const int64_t q0 = ci * chunk, np = std::min(chunk, out_points - q0);
        // 1. Per point: taps per axis, sort key, grad_dst row.
        auto step1 = [&](int64_t b, int64_t e) {
          AxisSlots sl;
          Odometer od(r, p.out_sizes, q0 + b);
          for (int64_t q = b; q < e; ++q, od.next()) {
            const int64_t goff = n * gs[0] + od.offset(gsp);
            int32_t lo[3] = {0, 0, 0};
            int32_t hi0 = 0;
            for (int d = 0; d < r; ++d) {
              const int64_t len = p.in_sizes[static_cast<size_t>(d)];
              const GT gv = grid_base[goff + static_cast<int64_t>(r - 1 - d) * coord_stride];
              axis_slots(p, grid_coordinate(p, convert::load_real<float>(gv), d, od.o[d]), len, K,
                         &sl);
              int32_t mn = INT32_MAX, mx = -1;
              for (int k = 0; k < K; ++k) {
                const int64_t at = d * K + k;
                irec[q * (RK + 1) + 1 + at] = sl.idx[k];
                frec[q * 2 * RK + at] = sl.w[k];
                frec[q * 2 * RK + RK + at] = sl.dw[k];
                if (sl.idx[k] >= 0) {
                  mn = std::min(mn, sl.idx[k]);
                  mx = std::max(mx, sl.idx[k]);
                }
              }
              if (mx >= 0) lo[d] = mn;
              if (d == 0) hi0 = mx >= 0 ? mx : 0;
            }
            int64_t inner = 0;
            for (int d = 1; d < r; ++d) inner += lo[d] * dense[d];
            irec[q * (RK + 1)] = lo[0];
            if (want_gg) ggoff[q] = n * ggs[0] + od.offset(ggsp);
            span[q] = hi0 - lo[0];
            key[q] = static_cast<int32_t>((lo[0] >> s0) * M + (inner >> s1));
          }
          gather_rows(gd_base + n * ds.batch, p.out_sizes, ds.spatial, ds.channel, r, C, CP, cf, q0 + b,
                      q0 + e, gdt + b * CP);
        };
        // In parallel, with (first chunk, grid gradient) src as rows of CP floats: input
        // points [0, ns) of the range, then the chunk's points.
        const int64_t ns = ci == 0 && want_gg ? in_points : 0;
        pfor(ns + np, kGrain, [&](int64_t b, int64_t e) {
          if (b < ns) {
            gather_rows(src_base + n * ss.batch, p.in_sizes, ss.spatial, ss.channel, r, C, CP, cf, b,
                        std::min(e, ns), srct + b * CP);
          }
          if (e > ns) step1(std::max(b, ns) - ns, e - ns);
        });
        // 2. Stable counting sort by key (serial; depends only on the data).
        std::fill(start, start + nbuckets + 1, int64_t{0});
        int64_t max_span = 0;
        for (int64_t q = 0; q < np; ++q) {
          ++start[key[q] + 1];
          max_span = std::max<int64_t>(max_span, span[q]);
        }
        for (int64_t b = 1; b <= nbuckets; ++b) start[b] += start[b - 1];
        std::copy(start, start + nbuckets, next);
        for (int64_t q = 0; q < np; ++q) order[next[key[q]]++] = q;
        // The points' taps and lo0 in sorted order (parallel; the random reads are independent
        // here, the band kernel then reads sequentially).
        pfor(np, kGrain, [&](int64_t b, int64_t e) {
          permute_points(RK, order, b, e, irec, frec, irec_s, frec_s);
        });
        // 3. Bands of axis-0 groups with about equal point counts (any split gives the same
        // result: NOTE above).
        gb[0] = 0;
        for (int64_t j = 1; j < nb_max; ++j) {
          const int64_t want = j * np / nb_max;
          int64_t g = gb[static_cast<size_t>(j - 1)];
          while (g < G0 && start[g * M] < want) ++g;
          gb[static_cast<size_t>(j)] = g;
        }
        gb[static_cast<size_t>(nb_max)] = G0;
        const bool first = ci == 0, last = ci + 1 == nchunks;
        const int64_t reach = want_gs ? max_span : 0;  // axis-0 indices a point's taps span
        pfor(nb_max, 1, [&](int64_t jb, int64_t je) {
          for (int64_t j = jb; j < je; ++j) {
            const int64_t g0 = gb[static_cast<size_t>(j)], g1 = gb[static_cast<size_t>(j + 1)];
            if (g0 == g1) continue;
            grid_sample_simd::BandArgs a;
            a.r = r;
            a.K = K;
            a.CP = CP;
            a.b0 = g0 << s0;
            a.b1 = std::min(L0, g1 << s0);
            const int64_t from = std::max<int64_t>(0, a.b0 - reach) >> s0;
            a.pb = start[from * M];
            a.pe = start[g1 * M];
            a.irec = irec_s;
            a.frec = frec_s;
            for (int d = 0; d < 3; ++d) a.dense[d] = dense[d];
            a.gd = gdt;
            a.order = order;
            a.src = want_gg ? srct : nullptr;
            a.acc = want_gs ? acc : nullptr;
            a.gg = ggb;
            const int64_t rows0 = a.b0 * dense[0], rows1 = a.b1 * dense[0];
            if (want_gs && first) std::fill(acc + rows0 * CP, acc + rows1 * CP, 0.0f);
            band(a);
            if (want_gg) {
              // The grid gradient of the points this band owns: times dx/dg, stored.
              for (int64_t pos = start[g0 * M]; pos < a.pe; ++pos) {
                const int64_t q = order[pos];
                for (int d = 0; d < r; ++d) {
                  gg[ggoff[q] + static_cast<int64_t>(r - 1 - d) * gg_coord] =
                      convert::store_real<GT>(ggb[q * r + d] * slope[d]);
                }
              }
            }
            if (want_gs && last) {
              const SplitStrides gss = split_strides(*grad_src, r, p.layout);
              scatter_rows(static_cast<T*>(grad_src->mutable_data()) + n * gss.batch, p.in_sizes, gss.spatial,
                           gss.channel, r, C, CP, cf, rows0, rows1, acc + rows0 * CP);
            }
          }
        });
      }
    }
  };
  if (by_batch) {
    parallel_for(p.batch, 1, [&](int64_t b, int64_t e) { run_batches(b, e, false); });
  } else {
    run_batches(0, p.batch, true);
  }
}

template <class T>
void dispatch_grid(const GridSampleProblem& p, const BandsTables& t, const TensorView& grad_dst,
                   const TensorView& src, const TensorView& grid, const MutableTensorView* grad_src,
                   const MutableTensorView* grad_grid) {
  switch (p.grid_dtype) {
    case DType::kFloat16: run_typed<T, float16>(p, t, grad_dst, src, grid, grad_src, grad_grid); break;
    case DType::kBFloat16: run_typed<T, bfloat16>(p, t, grad_dst, src, grid, grad_src, grad_grid); break;
    case DType::kFloat32: run_typed<T, float>(p, t, grad_dst, src, grid, grad_src, grad_grid); break;
    default: assert(false && "fast backward: grid float16, bfloat16 or float32"); break;
  }
}

/// True when no two elements of v share an address (sufficient test: sorted by |stride|,
/// every stride is at least the extent of the axes before it). Conservative: some
/// interleaved but disjoint layouts count as aliasing.
bool elements_disjoint(const TensorView& v) {
  std::vector<std::pair<int64_t, int64_t>> axes;  // (|stride|, size)
  for (size_t i = 0; i < v.shape.size(); ++i) {
    if (v.shape[i] == 0) return true;  // no elements
    if (v.shape[i] > 1) axes.emplace_back(v.strides[i] < 0 ? -v.strides[i] : v.strides[i], v.shape[i]);
  }
  std::sort(axes.begin(), axes.end());
  int64_t extent = 1;  // elements spanned by the axes so far
  for (const auto& [stride, size] : axes) {
    if (stride < extent) return false;
    extent = stride * (size - 1) + extent;  // fits: validate_view bounds the byte extent
  }
  return true;
}

}  // namespace

std::string grid_sample_backward_fast_declines_views(const MutableTensorView* grad_src,
                                                     const MutableTensorView* grad_grid) {
  // Outputs whose elements alias each other (a zero stride, interleaved strides) would be
  // written by several threads at once: the reference defines their result (the last
  // write in its order wins).
  if (grad_src != nullptr && !elements_disjoint(*grad_src)) return "grad_src elements alias each other";
  if (grad_grid != nullptr && !elements_disjoint(*grad_grid)) return "grad_grid elements alias each other";
  return {};
}

void grid_sample_backward_fast(const GridSampleProblem& p, const void* tables,
                               const TensorView& grad_dst, const TensorView& src,
                               const TensorView& grid, const MutableTensorView* grad_src,
                               const MutableTensorView* grad_grid) {
  assert(grid_sample_backward_fast_declines_views(grad_src, grad_grid).empty());
  const BandsTables& t = *static_cast<const BandsTables*>(tables);
  switch (p.src_dtype) {
    case DType::kFloat16: dispatch_grid<float16>(p, t, grad_dst, src, grid, grad_src, grad_grid); break;
    case DType::kBFloat16: dispatch_grid<bfloat16>(p, t, grad_dst, src, grid, grad_src, grad_grid); break;
    case DType::kFloat32: dispatch_grid<float>(p, t, grad_dst, src, grid, grad_src, grad_grid); break;
    default: assert(false && "fast backward: src float16, bfloat16 or float32"); break;
  }
}

}  // namespace gridops::kernels
