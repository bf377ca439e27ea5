// The fast GridSample backward: threaded, deterministic for any thread count.
//
// NOTE [ GridSample backward fast path ]
// Scope: spatial rank 1-3, src and grid float32/float16/bfloat16 (computed in float, as the
// forward), input axes of length 1..2^30. Channels are processed in blocks of kLanes = 8,
// interleaved (8 consecutive floats per point; channels past C are zeros), so that each tap
// is one short vector operation over the block's channels. Per batch entry: src is copied
// interleaved per block (only for the grid gradient), and the output points are ordered by
// the input row their coordinate falls in (a stable counting sort, so that consecutive
// points touch nearby input lines; the order depends only on the data). Then per chunk of
// points in that order:
//   1. taps (parallel over points): per point and axis, K slots (index, weight, dw/dx) from
//      axis_slots below, with the reference's formulas and conventions (grid_sample_taps.h),
//      the point's valid tap combinations (dense input offset, weight, per-axis derivative
//      weight), and its grad_dst interleaved per block;
//   2. scatter and gather (parallel over items = channel block x point slice, run_item):
//      points in order; per combination, acc[offset][0..8) += w * grad_dst[0..8) into the
//      slice's interleaved accumulator, and t_d[0..8) += dw_d * src[offset][0..8); the
//      point's grid gradient for the block is sum_c grad_dst[c] * t_d[c];
//   3. grid gradient (parallel over points): the blocks' partial sums added in block order,
//      times dx/dg, stored once;
//   4. grad_src (parallel over rows): the slices' accumulators added in slice order, stored.
// Determinism: the channel blocks (from C), the point slices (count from the problem's
// sizes) and the chunks are fixed by the problem, every item runs its points in order with
// the same operations, and partial results are combined in a fixed order, so the result does
// not depend on the number of threads or on how parallel_for splits the items.
#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/convert.h"
#include "core/coords.h"
#include "gridops/parallel.h"
#include "kernels/grid_sample/grid_sample.h"
#include "kernels/grid_sample/grid_sample_taps.h"

namespace gridops::kernels {
namespace {

using namespace ref_taps;

constexpr int64_t kPointChunk = 32768;       // output points per chunk (bounds the scratch)
constexpr int64_t kMinSlicePoints = 1024;    // a point slice has at least this many points
constexpr int64_t kTargetItems = 4;          // items per chunk the slicing aims at
constexpr int64_t kMaxAccFloats = int64_t{1} << 26;  // slice accumulators: 256 MiB at most
constexpr int64_t kTapsGrain = 2048;         // points (or elements) per parallel chunk, at least
constexpr int64_t kMinParallelWork = 1 << 16;  // points x channels x taps below which step 2 is serial

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
  const bool deriv = std::isfinite(x) && p.mode != InterpolationMode::kNearest;
  // ERRATA GridSample 8, as in the reference (axis_taps).
  if (std::isnan(x)) {
    if (p.padding == GridPadding::kZeros) return;
    x = 0.0f;
  } else if (std::isinf(x)) {
    if (p.padding == GridPadding::kZeros) return;
    x = (p.padding == GridPadding::kBorder && x > 0.0f) ? static_cast<float>(len - 1) : 0.0f;
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

/// Row-major multi-index of point q over `sizes` (r entries).
inline void unravel(int64_t q, const Dims& sizes, int r, int64_t* o) {
  for (int d = r - 1; d >= 0; --d) {
    const int64_t len = sizes[static_cast<size_t>(d)];
    o[d] = q % len;
    q /= len;
  }
}

/// Channels per block: blocks are processed interleaved (8 consecutive floats per input or
/// output point), so that every tap is one short vector operation over the block.
constexpr int64_t kLanes = 8;

/// What step 2 of one (channel block, point slice) item reads and writes. Every array is
/// for this block: interleaved [point][kLanes] (channels past C are zeros).
struct ItemArgs {
  int64_t qb, qe;
  const int* count;      ///< valid combinations per point
  const int64_t* cd;     ///< per point x combination: dense input offset
  const float* cw;       ///< weight
  const float* cdw;      ///< per point x axis x combination: derivative weight
  const float* gd;       ///< grad_dst of the chunk's points, [point][kLanes]
  const float* src;      ///< src, [input point][kLanes], or null (no grid gradient)
  float* acc;            ///< the slice's accumulator, [input point][kLanes], or null
  float* gp;             ///< the block's grid gradient partial sums (point x axis), or null
};

/// Step 2 for one item: points in order; per tap, kLanes channels at once.
/// R axes, at most NC combinations.
template <int R, int NC>
void run_item(const ItemArgs& a) {
  for (int64_t q = a.qb; q < a.qe; ++q) {
    const int nc = a.count[q];
    const size_t base = static_cast<size_t>(q) * NC;
    float go[kLanes];
    for (int64_t c = 0; c < kLanes; ++c) go[c] = a.gd[q * kLanes + c];
    if (a.acc != nullptr) {
      for (int k = 0; k < nc; ++k) {
        float* ac = a.acc + a.cd[base + static_cast<size_t>(k)] * kLanes;
        const float w = a.cw[base + static_cast<size_t>(k)];
        for (int64_t c = 0; c < kLanes; ++c) ac[c] += w * go[c];
      }
    }
    if (a.gp != nullptr) {
      float t[R][kLanes] = {};
      const float* dwq = a.cdw + static_cast<size_t>(q) * R * NC;
      for (int k = 0; k < nc; ++k) {
        const float* v = a.src + a.cd[base + static_cast<size_t>(k)] * kLanes;
        for (int d = 0; d < R; ++d) {
          const float dw = dwq[d * NC + k];
          for (int64_t c = 0; c < kLanes; ++c) t[d][c] += dw * v[c];
        }
      }
      for (int d = 0; d < R; ++d) {
        float g = 0.0f;
        for (int64_t c = 0; c < kLanes; ++c) g += go[c] * t[d][c];
        a.gp[q * R + d] = g;
      }
    }
  }
}

void run_item_dispatch(int r, InterpolationMode mode, const ItemArgs& a) {
  const int m = mode == InterpolationMode::kNearest ? 0 : mode == InterpolationMode::kLinear ? 1 : 2;
  switch (r * 3 + m) {
    case 3: run_item<1, 1>(a); break;
    case 4: run_item<1, 2>(a); break;
    case 5: run_item<1, 4>(a); break;
    case 6: run_item<2, 1>(a); break;
    case 7: run_item<2, 4>(a); break;
    case 8: run_item<2, 16>(a); break;
    case 9: run_item<3, 1>(a); break;
    case 10: run_item<3, 8>(a); break;
    case 11: run_item<3, 64>(a); break;
    default: assert(false && "fast backward: rank 1-3"); break;
  }
}

template <class T, class GT>
void run_typed(const GridSampleProblem& p, const TensorView& grad_dst, const TensorView& src,
               const TensorView& grid, const MutableTensorView* grad_src,
               const MutableTensorView* grad_grid) {
  const int r = p.spatial_rank;
  const int K = p.mode == InterpolationMode::kNearest ? 1 : p.mode == InterpolationMode::kLinear ? 2 : 4;
  int combos = 1;
  for (int d = 0; d < r; ++d) combos *= K;
  const bool want_gg = grad_grid != nullptr && p.mode != InterpolationMode::kNearest;

  const SplitStrides ss = split_strides(src, r, p.layout);
  const SplitStrides ds = split_strides(grad_dst, r, p.layout);
  const Dims& gs = grid.strides;
  const T* src_base = static_cast<const T*>(src.data);
  const T* gd_base = static_cast<const T*>(grad_dst.data);
  const GT* grid_base = static_cast<const GT*>(grid.data);
  const int64_t C = p.channels;

  int64_t out_points = 1, in_points = 1;
  for (int64_t d : p.out_sizes) out_points *= d;
  Dims dense(static_cast<size_t>(r));
  for (int d = r - 1; d >= 0; --d) {
    dense[static_cast<size_t>(d)] = in_points;
    in_points *= p.in_sizes[static_cast<size_t>(d)];  // every input axis >= 1 (scope)
  }
  const bool work = p.batch > 0 && out_points > 0 && C > 0;

  // Fixed by the problem, never by the thread count (NOTE above).
  const int64_t nblocks = work ? (C + kLanes - 1) / kLanes : 0;
  const int64_t CP = nblocks * kLanes;  // channels padded to whole blocks
  // Chunks of output points; combination buffers of at most about 16 MiB.
  const int64_t chunk = std::min(out_points, std::max<int64_t>(1024, kPointChunk * 8 / combos));
  int64_t S = 1;
  if (grad_src != nullptr && work && nblocks < kTargetItems) {
    S = std::min((kTargetItems + nblocks - 1) / nblocks, std::max<int64_t>(1, chunk / kMinSlicePoints));
    while (S > 1 && S * CP * in_points > kMaxAccFloats) --S;
  }

  // Accumulators [slice][block][input point][kLanes]; src interleaved the same way
  // [block][input point][kLanes] (for the grid gradient only); grad_dst of a chunk
  // [block][point][kLanes].
  std::vector<float> acc;
  if (grad_src != nullptr && work) acc.assign(static_cast<size_t>(S * CP * in_points), 0.0f);
  std::vector<float> srci(want_gg && work ? static_cast<size_t>(CP * in_points) : 0);
  // Per point of a chunk: its valid tap combinations (src offset, dense accumulator offset,
  // weight, per-axis derivative weight), their count and the grad_dst offset.
  const size_t cap = work ? static_cast<size_t>(chunk * combos) : 0;
  std::vector<int64_t> cd(cap);
  std::vector<float> gdi(work ? static_cast<size_t>(CP * chunk) : 0);
  std::vector<float> cw(cap), cdw(want_gg ? cap * static_cast<size_t>(r) : 0);
  std::vector<int> count(work ? static_cast<size_t>(chunk) : 0);
  std::vector<int> digits(static_cast<size_t>(combos * r));  // combination k -> tap per axis
  for (int k = 0; k < combos; ++k) {
    int kk = k;
    for (int d = r - 1; d >= 0; --d) {
      digits[static_cast<size_t>(k * r + d)] = kk % K;
      kk /= K;
    }
  }
  std::vector<float> ggp(want_gg && work ? static_cast<size_t>(nblocks * chunk * r) : 0);
  float slope[3] = {0.0f, 0.0f, 0.0f};
  for (int d = 0; d < r; ++d) slope[d] = unnormalize_slope<float>(p.in_sizes[static_cast<size_t>(d)], p.align_corners);

  // Points are visited in the order of the input row (all axes but the innermost) their
  // coordinate falls in: a stable counting sort per batch entry that depends only on the
  // data, so that consecutive points (and a thread's slice) touch nearby input lines.
  int64_t rows = 1;
  for (int d = 0; d + 1 < r; ++d) rows *= p.in_sizes[static_cast<size_t>(d)];
  int shift = 0;
  while ((rows >> shift) > (int64_t{1} << 20)) ++shift;
  const bool sort = work && rows > 1;
  std::vector<int64_t> order(work ? static_cast<size_t>(out_points) : 0);
  std::vector<int32_t> key(sort ? static_cast<size_t>(out_points) : 0);
  std::vector<int64_t> bucket(sort ? static_cast<size_t>((rows >> shift) + 2) : 0);

  for (int64_t n = 0; n < p.batch; ++n) {
    if (!acc.empty()) std::fill(acc.begin(), acc.end(), 0.0f);
    if (!srci.empty()) {
      // src interleaved per block: rows of the innermost input axis, in parallel.
      const int64_t wlen = p.in_sizes[static_cast<size_t>(r) - 1];
      const int64_t in_rows = in_points / wlen;
      parallel_for(nblocks * in_rows, std::max<int64_t>(1, kTapsGrain / wlen), [&](int64_t b, int64_t e) {
        int64_t o[3];
        for (int64_t item = b; item < e; ++item) {
          const int64_t blk = item / in_rows, row = item % in_rows;
          unravel(row * wlen, p.in_sizes, r, o);
          int64_t off = n * ss.batch;
          for (int d = 0; d < r; ++d) off += o[d] * ss.spatial[static_cast<size_t>(d)];
          const int64_t step = ss.spatial[static_cast<size_t>(r) - 1];
          float* dst = srci.data() + (blk * in_points + row * wlen) * kLanes;
          for (int64_t i = 0; i < wlen; ++i) {
            for (int64_t c = 0; c < kLanes; ++c) {
              const int64_t ch = blk * kLanes + c;
              dst[i * kLanes + c] = ch < C ? convert::load_real<float>(src_base[off + i * step + ch * ss.channel]) : 0.0f;
            }
          }
        }
      });
    }
    if (sort) {
      parallel_for(out_points, kTapsGrain, [&](int64_t b, int64_t e) {
        int64_t o[3];
        for (int64_t q = b; q < e; ++q) {
          unravel(q, p.out_sizes, r, o);
          int64_t goff = n * gs[0];
          for (int d = 0; d < r; ++d) goff += o[d] * gs[static_cast<size_t>(d) + 1];
          int64_t row = 0;
          for (int d = 0; d + 1 < r; ++d) {
            const GT gv = grid_base[goff + static_cast<int64_t>(r - 1 - d) * gs[static_cast<size_t>(r) + 1]];
            const int64_t len = p.in_sizes[static_cast<size_t>(d)];
            float f = std::floor(coords::unnormalize(convert::load_real<float>(gv), len, p.align_corners));
            if (!(f >= 0.0f)) f = 0.0f;  // also NaN
            if (f > static_cast<float>(len - 1)) f = static_cast<float>(len - 1);
            row = row * len + static_cast<int64_t>(f);
          }
          key[static_cast<size_t>(q)] = static_cast<int32_t>(row >> shift);
        }
      });
      std::fill(bucket.begin(), bucket.end(), 0);
      for (int64_t q = 0; q < out_points; ++q) ++bucket[static_cast<size_t>(key[static_cast<size_t>(q)]) + 1];
      for (size_t b = 1; b < bucket.size(); ++b) bucket[b] += bucket[b - 1];
      for (int64_t q = 0; q < out_points; ++q) {
        order[static_cast<size_t>(bucket[static_cast<size_t>(key[static_cast<size_t>(q)])]++)] = q;
      }
    } else {
      for (size_t q = 0; q < order.size(); ++q) order[q] = static_cast<int64_t>(q);
    }
    for (int64_t q0 = 0; q0 < out_points; q0 += chunk) {
      const int64_t np = std::min(chunk, out_points - q0);
      if (work) {
        // 1. taps and their combinations, once per point (parallel over points).
        parallel_for(np, kTapsGrain, [&](int64_t b, int64_t e) {
          int64_t o[3];
          AxisSlots sl[3];
          for (int64_t q = b; q < e; ++q) {
            unravel(order[static_cast<size_t>(q0 + q)], p.out_sizes, r, o);
            int64_t goff = n * gs[0], go_off = n * ds.batch;
            for (int d = 0; d < r; ++d) {
              goff += o[d] * gs[static_cast<size_t>(d) + 1];
              go_off += o[d] * ds.spatial[static_cast<size_t>(d)];
            }
            for (int d = 0; d < r; ++d) {
              const GT gv = grid_base[goff + static_cast<int64_t>(r - 1 - d) * gs[static_cast<size_t>(r) + 1]];
              const int64_t len = p.in_sizes[static_cast<size_t>(d)];
              const float x = coords::unnormalize(convert::load_real<float>(gv), len, p.align_corners);
              axis_slots(p, x, len, K, &sl[d]);
            }
            const size_t base = static_cast<size_t>(q * combos);
            int nc = 0;
            for (int k = 0; k < combos; ++k) {
              const int* kd = &digits[static_cast<size_t>(k * r)];
              bool valid = true;
              for (int d = 0; d < r; ++d) valid = valid && sl[d].idx[kd[d]] >= 0;
              if (!valid) continue;  // a tap outside under zeros: the combination reads nothing
              int64_t dof = 0;
              float w = 1.0f;
              for (int d = 0; d < r; ++d) {
                const int64_t i = sl[d].idx[kd[d]];
                dof += i * dense[static_cast<size_t>(d)];
                w *= sl[d].w[kd[d]];
              }
              cd[base + static_cast<size_t>(nc)] = dof;
              cw[base + static_cast<size_t>(nc)] = w;
              if (want_gg) {
                for (int d = 0; d < r; ++d) {
                  float dw = sl[d].dw[kd[d]];
                  for (int e2 = 0; e2 < r; ++e2) {
                    if (e2 != d) dw *= sl[e2].w[kd[e2]];
                  }
                  cdw[(static_cast<size_t>(q) * static_cast<size_t>(r) + static_cast<size_t>(d)) *
                          static_cast<size_t>(combos) + static_cast<size_t>(nc)] = dw;
                }
              }
              ++nc;
            }
            count[static_cast<size_t>(q)] = nc;
            // The point's grad_dst, interleaved per block (zeros past C).
            for (int64_t c = 0; c < CP; ++c) {
              gdi[static_cast<size_t>(((c / kLanes) * chunk + q) * kLanes + c % kLanes)] =
                  c < C ? convert::load_real<float>(gd_base[go_off + c * ds.channel]) : 0.0f;
            }

          }
        });
        // 2. scatter and gather: items (channel block, point slice); per point, its
        // combinations are used for every channel of the block (run_item).
        // Small chunks run on the calling thread (waking threads costs more than the work).
        const bool small = np * C * combos < kMinParallelWork;
        parallel_for(nblocks * S, small ? nblocks * S : 1, [&](int64_t b, int64_t e) {
          for (int64_t item = b; item < e; ++item) {
            const int64_t blk = item / S, s = item % S;
            ItemArgs a;
            a.qb = s * np / S;
            a.qe = (s + 1) * np / S;
            a.count = count.data();
            a.cd = cd.data();
            a.cw = cw.data();
            a.cdw = cdw.data();
            a.gd = gdi.data() + blk * chunk * kLanes;
            a.src = want_gg ? srci.data() + blk * in_points * kLanes : nullptr;
            a.acc = acc.empty() ? nullptr : acc.data() + (s * nblocks + blk) * in_points * kLanes;
            a.gp = want_gg ? ggp.data() + blk * chunk * r : nullptr;
            run_item_dispatch(r, p.mode, a);
          }
        });
      }
      // 3. grid gradient: blocks in order, times dx/dg, stored once (0 for nearest or C = 0).
      if (grad_grid != nullptr) {
        GT* gg = static_cast<GT*>(grad_grid->mutable_data());
        const Dims& ggs = grad_grid->strides;
        parallel_for(np, kTapsGrain, [&](int64_t b, int64_t e) {
          int64_t o[3];
          for (int64_t q = b; q < e; ++q) {
            unravel(work ? order[static_cast<size_t>(q0 + q)] : q0 + q, p.out_sizes, r, o);
            int64_t off = n * ggs[0];
            for (int d = 0; d < r; ++d) off += o[d] * ggs[static_cast<size_t>(d) + 1];
            for (int d = 0; d < r; ++d) {
              float v = 0.0f;
              if (want_gg && work) {
                for (int64_t blk = 0; blk < nblocks; ++blk) v += ggp[static_cast<size_t>((blk * chunk + q) * r + d)];
                v *= slope[d];
              }
              gg[off + static_cast<int64_t>(r - 1 - d) * ggs[static_cast<size_t>(r) + 1]] = convert::store_real<GT>(v);
            }
          }
        });
      }
    }
    // 4. grad_src: slices in order, stored once (zeros when nothing was scattered).
    if (grad_src != nullptr) {
      const SplitStrides gss = split_strides(*grad_src, r, p.layout);
      T* out = static_cast<T*>(grad_src->mutable_data());
      const int64_t wlen = p.in_sizes[static_cast<size_t>(r) - 1];
      const int64_t rows = in_points / wlen;
      parallel_for(C * rows, std::max<int64_t>(1, kTapsGrain / wlen), [&](int64_t b, int64_t e) {
        int64_t o[3];
        for (int64_t item = b; item < e; ++item) {
          const int64_t c = item / rows, row = item % rows;
          unravel(row * wlen, p.in_sizes, r, o);
          int64_t off = n * gss.batch + c * gss.channel;
          for (int d = 0; d < r; ++d) off += o[d] * gss.spatial[static_cast<size_t>(d)];
          const int64_t step = gss.spatial[static_cast<size_t>(r) - 1];
          const int64_t blk = c / kLanes, lane = c % kLanes;
          for (int64_t i = 0; i < wlen; ++i) {
            float v = 0.0f;
            if (!acc.empty()) {
              const int64_t at = (blk * in_points + row * wlen + i) * kLanes + lane;
              v = acc[static_cast<size_t>(at)];
              for (int64_t s = 1; s < S; ++s) v += acc[static_cast<size_t>(s * CP * in_points + at)];
            }
            out[off + i * step] = convert::store_real<T>(v);
          }
        }
      });
    }
  }
}

template <class T>
void dispatch_grid(const GridSampleProblem& p, const TensorView& grad_dst, const TensorView& src,
                   const TensorView& grid, const MutableTensorView* grad_src,
                   const MutableTensorView* grad_grid) {
  switch (p.grid_dtype) {
    case DType::kFloat16: run_typed<T, float16>(p, grad_dst, src, grid, grad_src, grad_grid); break;
    case DType::kBFloat16: run_typed<T, bfloat16>(p, grad_dst, src, grid, grad_src, grad_grid); break;
    case DType::kFloat32: run_typed<T, float>(p, grad_dst, src, grid, grad_src, grad_grid); break;
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

std::string grid_sample_backward_fast_declines(const GridSampleProblem& p) {
  if (p.spatial_rank < 1 || p.spatial_rank > 3) {
    return "spatial rank " + std::to_string(p.spatial_rank) + " (fast backward: 1 to 3)";
  }
  for (DType dt : {p.src_dtype, p.grid_dtype}) {
    if (dt != DType::kFloat32 && dt != DType::kFloat16 && dt != DType::kBFloat16) {
      return std::string(dt == p.src_dtype ? "src" : "grid") + " dtype " + to_string(dt) +
             " (fast backward: float32, float16, bfloat16)";
    }
  }
  for (int64_t len : p.in_sizes) {
    if (len < 1 || len > (int64_t{1} << 30)) {
      return "input axis of length " + std::to_string(len) + " (fast backward: 1 to 2^30)";
    }
  }
  return {};
}

void grid_sample_backward_fast(const GridSampleProblem& p, const TensorView& grad_dst,
                               const TensorView& src, const TensorView& grid,
                               const MutableTensorView* grad_src,
                               const MutableTensorView* grad_grid) {
  // Outputs whose elements alias each other (a zero stride, interleaved strides) would be
  // written by several threads at once: the reference defines their result (the last
  // write in its order wins).
  if ((grad_src != nullptr && !elements_disjoint(*grad_src)) ||
      (grad_grid != nullptr && !elements_disjoint(*grad_grid))) {
    grid_sample_backward_ref(p, grad_dst, src, grid, grad_src, grad_grid);
    return;
  }
  switch (p.src_dtype) {
    case DType::kFloat16: dispatch_grid<float16>(p, grad_dst, src, grid, grad_src, grad_grid); break;
    case DType::kBFloat16: dispatch_grid<bfloat16>(p, grad_dst, src, grid, grad_src, grad_grid); break;
    case DType::kFloat32: dispatch_grid<float>(p, grad_dst, src, grid, grad_src, grad_grid); break;
    default: assert(false && "fast backward: src float16, bfloat16 or float32"); break;
  }
}

}  // namespace gridops::kernels
