// grid_sample.fused_small_c: 2-D float32 src and grid with at most 4 channels, a dense grid
// and dst: steps 1-4 of NOTE [ GridSample fast path ] per vector of points in registers
// (the shared AxisStep and XWindowV of grid_sample_hwy-inl.h), over tiles of output points.
// Its plan-time scope, view checks and schedule: grid_sample_fused_small_c_plan.cc.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "kernels/grid_sample/grid_sample.h"
#include "kernels/grid_sample/grid_sample_fast.h"

#ifndef GRIDOPS_GRID_SAMPLE_FUSED_RUN_DEFINED
#define GRIDOPS_GRID_SAMPLE_FUSED_RUN_DEFINED
namespace gridops::kernels::grid_sample_simd {
/// The path's run: the common context and its tiles (NOTE [ GridSample fused small-channel
/// path ]: items are tiles of tile_h x tile_w output points, tiles_x per tile row).
struct FusedRun : Ctx {
  static constexpr int64_t tile_h = kFusedTileH, tile_w = kFusedTileW;
  int64_t tiles_x, tiles;
  bool portable_pairs;  // tests: GatherPairsPortable in place of GatherPairs, and gathers in
                        // place of the row window and pixel loads and the tap loads
};
}  // namespace gridops::kernels::grid_sample_simd
#endif

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/grid_sample/grid_sample_fused_small_c_hwy.cc"
#include <hwy/cache_control.h>
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include "kernels/grid_sample/grid_sample_hwy-inl.h"
// The fused path's gathers, row loads and prefetch helpers (one file of helpers).
#include "kernels/grid_sample/grid_sample_fused_gathers_hwy-inl.h"

HWY_BEFORE_NAMESPACE();
namespace gridops::kernels::grid_sample_simd {
namespace HWY_NAMESPACE {

// NOTE [ GridSample fused small-channel path ]
// 2-D channels-first float32 with at most 4 channels, a dense float32 grid and a dense
// dst (W2: 3 x 1024 x 1024) spends most of its time on steps 1-3 when they go through
// the per-block arrays: with 3 channels each point's taps are used only 3 times. Here
// steps 1-4 run per vector of points in registers: the grid pair deinterleaved from one
// load, AxisStep for both axes, the x window (XWindowV) and the row offsets, then the
// gathers of every channel. The operations and their order are those of the block path
// (the same AxisStep, XWindowV, products and MulAdd order), so the results are the same
// bits. Items are tiles of 16 x 64 output points, walked row by row: on a smooth warp the
// rows of a tile read overlapping source rows while they are still in L1/L2, where whole
// output rows (W2: 1024 points, about 75 KiB of source lines over 3 planes) evict each
// other's lines before the next row reuses them. The tile shape (16 x 64, with the
// prefetch of NOTE [ GridSample few-channel prefetch ]) is measured: docs/perf/grid_sample.md,
// "Fused small-channel path".

/// Steps 1-2 of the fused path for the m (<= N) points q, q + 1, ... of one output row
/// whose dense (x, y) grid pairs start at g: the y and x taps (K per axis). A displacement
/// gets the points' own coordinates added first, from the plan's base tables (FillGrid's
/// arithmetic; the x table is padded past the row, for the lanes beyond m).
template <int K>
HWY_INLINE void FusedAxisTaps(const FusedRun& c, const AxisStep& ystep, const AxisStep& xstep,
                              const float* g, int64_t q, int64_t m, VI4& iy, VF4& wy, VI4& ix,
                              VF4& wx) {
  const DF df;
  VF gx, gy;
  if (m == static_cast<int64_t>(hn::Lanes(df))) {
    hn::LoadInterleaved2(df, g, gx, gy);
  } else {
    HWY_ALIGN float tmp[2 * hn::MaxLanes(df)] = {};
    std::memcpy(tmp, g, static_cast<size_t>(2 * m) * sizeof(float));
    hn::LoadInterleaved2(df, tmp, gx, gy);
  }
  if (c.displacement) {
    const int64_t W = c.out_sizes[1];
    const int64_t y = q / W, x = q - y * W;
    gx = hn::Add(gx, hn::LoadU(df, c.base[1] + x));
    gy = hn::Add(gy, hn::Set(df, c.base[0][y]));
  }
  ystep.Taps<K>(gy, iy, wy);
  xstep.Taps<K>(gx, ix, wx);
}

/// The run's tap reads: the tests' portable twin gathers, the plan's tap_loads loads where
/// the target has the loads (NOTE [ GridSample tap loads ]).
HWY_INLINE TapRead FusedTapRead(const FusedRun& c) {
  if (c.portable_pairs) return TapRead::kPortable;
  return kHaveTapLoads && c.tap_loads ? TapRead::kLoads : TapRead::kGather;
}

/// Steps 1-4 of the fused path for points [p0, p0 + cnt) of batch n. Channels-first
/// (kLast false): as Combine/CombinePairs then ChannelsFirstF32/ChannelsPairs.
/// Channels-last (unit channel stride): the same taps, every tap of every channel by a
/// 32-bit gather (a pixel's channels share its cache line), in the order of
/// ChannelsLastF32 after CombineWindow (nearest: after Combine); with kC channels (kC > 0:
/// a pixel stride of kC) by pair gathers (NOTE [ GridSample channels-last pair gather ]).
/// Channels-first with kC > 0: kC channels known at compile time (the per-channel
/// loops unroll and the accumulators stay in registers), otherwise the same.
/// So the results are the per-block path's bits in both layouts.
/// Over 150 lines: one loop over the points whose vectors of taps, weights and
/// accumulators stay in registers across the layouts' branches (all compile-time); split
/// into functions, they would be passed through memory in the hot loop.
template <int K, bool kLast, int kC = 0>
void FusedSmallC(const FusedRun& c, const AxisStep& ystep, const AxisStep& xstep, int64_t n,
                 int64_t p0, int64_t cnt, int64_t ahead, const NearestTaps& reuse = {},
                 const NearestTapsOut& next = {}) {
  // NOTE [ GridSample channels-last pair gather ]: channels-last with kC channels.
  constexpr bool kPixelPairs = kLast && kC > 0;
  const DF df;
  const DI di;
  const auto N = static_cast<int64_t>(hn::Lanes(df));
  constexpr size_t kL = hn::MaxLanes(df);
  const int64_t C = kC > 0 ? kC : c.channels;
  const float* gbase = reinterpret_cast<const float*>(c.grid) + n * c.g_batch;
  const float* sbase = reinterpret_cast<const float*>(c.src) + n * c.s_batch;
  float* dbase = reinterpret_cast<float*>(c.dst) + n * c.d_batch;
  const VI sy = hn::Set(di, c.sstride[0]), sx = hn::Set(di, c.sstride[1]);
  // Column offsets ix * sx: channels-first has a unit x stride (ViewDeclines), channels-last
  // with pixel pairs a pixel stride of kC (RunFused's dispatch).
  auto cols = [&](VI ix) HWY_ATTR {
    if constexpr (!kLast) return ix;
    if constexpr (kPixelPairs) return hn::Mul(ix, hn::Set(di, kC));
    return hn::Mul(ix, sx);
  };
  // NOTE [ GridSample channels-last pixel loads ]: the largest pixel offset whose 16-byte
  // load stays inside the image (the last element is at (H - 1) sy + (W - 1) kC + kC - 1;
  // below 0 when the image holds fewer than 4 floats: every vector gathers). -1 where the
  // loads are not used (no pixel pairs).
  const VI pixel_load_last = hn::Set(
      di, kPixelPairs ? static_cast<int32_t>(std::clamp<int64_t>(
                            (c.ext[0] - 1) * c.sstride[0] + (c.ext[1] - 1) * kC + kC - 4, -1,
                            INT32_MAX))
                      : -1);
  (void)pixel_load_last;
  const bool stream = StreamsDst(c);  // NOTE [ GridSample fused streaming stores ]
  [[maybe_unused]] const TapRead read = FusedTapRead(c);  // targets with pairs only
  for (int64_t j = 0; j < cnt; j += N) {
    const int64_t q = p0 + j;
    const int64_t m = std::min(N, cnt - j);
    VI4 iy, ix;
    VF4 wy, wx;
    VI off = hn::Zero(di);  // nearest: the points' offsets (0 where not kept) and keep mask
    auto keep = hn::MaskFromVec(hn::Zero(df));
    if constexpr (K == 1) {
      // NOTE [ GridSample nearest tap reuse ]
      if (reuse.off != nullptr && reuse.ok[j / N]) {
        off = hn::LoadU(di, reuse.off + j);
        keep = hn::RebindMask(df, hn::MaskFromVec(hn::LoadU(di, reuse.keep + j)));
      } else {
        FusedAxisTaps<K>(c, ystep, xstep, gbase + 2 * q, q, m, iy, wy, ix, wx);
        off = NearestOffsets(iy[0], wy[0], cols(ix[0]), wx[0], sy, &keep);
      }
      if (ahead > 0 && m == N) {
        // The taps of the points one tile along: kept for the next item (next.off) and,
        // on a smooth stretch, their lines prefetched (NOTE [ GridSample few-channel
        // prefetch ], here tested on those points' own rows).
        VI4 pyi, pxi;
        VF4 pwy, pwx;
        FusedAxisTaps<K>(c, ystep, xstep, gbase + 2 * (q + ahead), q + ahead, m, pyi, pwy, pxi,
                         pwx);
        hn::Mask<DF> pkeep;
        const VI po = NearestOffsets(pyi[0], pwy[0], cols(pxi[0]), pwx[0], sy, &pkeep);
        if (next.off != nullptr) {
          hn::StoreU(po, di, next.off + j);
          hn::StoreU(hn::BitCast(di, hn::VecFromMask(df, pkeep)), di, next.keep + j);
          next.ok[j / N] = 1;
        }
        if (SmoothEnds(pyi[0])) {
          HWY_ALIGN int32_t pol[kL];
          hn::Store(po, di, pol);
          PrefetchTapRows(sbase, c.s_channel, kLast ? 1 : C, pol, 1, m);
        }
      } else if (next.off != nullptr) {
        next.ok[j / N] = 0;
      }
    } else {
      FusedAxisTaps<K>(c, ystep, xstep, gbase + 2 * q, q, m, iy, wy, ix, wx);
      if (ahead > 0 && m == N && SmoothRows(iy[0])) {
        // NOTE [ GridSample few-channel prefetch ]
        VI4 pyi, pxi;
        VF4 pwy, pwx;
        FusedAxisTaps<K>(c, ystep, xstep, gbase + 2 * (q + ahead), q + ahead, m, pyi, pwy, pxi,
                         pwx);
        // The K tap rows (each a padded, valid row index) at the first x tap; lanes whose
        // first taps are padded read offset 0.
        const auto pkeep = hn::RebindMask(di, hn::Gt(hn::Mul(pwy[0], pwx[0]), hn::Zero(df)));
        const VI pcol = cols(pxi[0]);
        HWY_ALIGN int32_t po[K][kL];
        for (int ky = 0; ky < K; ++ky) {
          hn::Store(hn::IfThenElseZero(pkeep, hn::Add(hn::Mul(pyi[ky], sy), pcol)), di, po[ky]);
        }
        // Channels-last: one pixel's lines for all its channels.
        PrefetchTapRows(sbase, c.s_channel, kLast ? 1 : C, po[0], K, m);
      }
    }
    VF4 acc;
    if constexpr (K == 1) {
      // ChannelsFirstF32 / ChannelsLastF32 for nearest, at the offsets above.
      if constexpr (kPixelPairs) {
#if HWY_TARGET <= HWY_AVX2 && HWY_ARCH_X86  // kHavePairs
        VF v[kC];
        // NOTE [ GridSample channels-last pixel loads ]
        if (kC >= 3 && UseRowLoads(read) && hn::AllFalse(di, hn::Gt(off, pixel_load_last))) {
          HWY_ALIGN int32_t o[kL];
          hn::Store(off, di, o);
          VF col[4];
          LoadRowWindows4(sbase, o, col);
          for (int ch = 0; ch < kC; ++ch) v[ch] = col[ch];
        } else {
          // NOTE [ GridSample channels-last pair gather ]: the pixel's kC floats.
          GatherRowFloats<kC>(sbase, off, read, v);
        }
        for (int ch = 0; ch < kC; ++ch) acc[ch] = hn::IfThenElseZero(keep, v[ch]);
#endif
      } else {
        for (int64_t ch = 0; ch < C; ++ch) {
          acc[ch] = hn::IfThenElseZero(keep, hn::GatherIndex(df, sbase + ch * c.s_channel, off));
        }
      }
    } else {
      VI b;
      VF4 wcol;
      XWindowV(K, c.xwin_len, ix, wx, &b, wcol);
      if constexpr (kPixelPairs) {
#if HWY_TARGET <= HWY_AVX2 && HWY_ARCH_X86  // kHavePairs
        // NOTE [ GridSample channels-last pair gather ]: per tap row its K pixels' K * kC
        // floats, then each channel's taps in ChannelsLastF32's order.
        const VI col = cols(b);
        for (int ch = 0; ch < kC; ++ch) acc[ch] = hn::Zero(df);
        for (int ky = 0; ky < K; ++ky) {
          VF v[K * kC];
          GatherRowFloats<K * kC>(sbase, hn::Add(hn::Mul(iy[ky], sy), col), read, v);
          for (int mm = 0; mm < K; ++mm) {
            const VF w = hn::Mul(wy[ky], wcol[mm]);
            for (int ch = 0; ch < kC; ++ch) acc[ch] = hn::MulAdd(w, v[mm * kC + ch], acc[ch]);
          }
        }
#endif
      } else if constexpr (kLast) {
        // As CombineWindow and ChannelsLastF32.
        VecArray<DI, K * K> o;
        VecArray<DF, K * K> w;
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
        if (K == 4 && UseRowLoads(read)) {
          // NOTE [ GridSample cubic row loads ]: each tap row's window per point, the pairs
          // (columns 2 qq, 2 qq + 1) in CombinePairs' order.
          HWY_ALIGN int32_t ro[K][kL];  // each tap row's window start (its first pair's offset)
          for (int ky = 0; ky < K; ++ky) hn::Store(o[ky * (K / 2)], di, ro[ky]);
          for (int64_t ch = 0; ch < C; ++ch) {
            const float* plane = sbase + ch * c.s_channel;
            VF a = hn::Zero(df);
            for (int ky = 0; ky < K; ++ky) {
              VF col[4];
              LoadRowWindows4(plane, ro[ky], col);
              for (int qq = 0; qq < K / 2; ++qq) {
                const int r = ky * (K / 2) + qq;
                a = hn::MulAdd(we[r], col[2 * qq], a);
                a = hn::MulAdd(wo[r], col[2 * qq + 1], a);
              }
            }
            acc[ch] = a;
          }
        } else {
        // The pair gathers: linear, and cubic where UseRowLoads is false (tap_loads never
        // reaches here: it is set for channels-first cubic only, NOTE [ GridSample tap loads ]).
        const bool portable = read == TapRead::kPortable;
        PairOffsets wide[NR];
        for (int r = 0; r < NR; ++r) {
          if (portable || !kRawPairs) {
            wide[r] = WidenPairOffsets(o[r]);
          } else {
            wide[r] = {hn::Zero(D64W()), hn::Zero(D64W())};
          }
        }
        for (int64_t ch = 0; ch < C; ++ch) {
          const auto* plane = reinterpret_cast<const double*>(sbase + ch * c.s_channel);
          VF a = hn::Zero(df);
          for (int r = 0; r < NR; ++r) {
            VF first, second;
            GatherPairVectors(plane, o[r], wide[r], portable, &first, &second);
            a = hn::MulAdd(we[r], first, a);
            a = hn::MulAdd(wo[r], second, a);
          }
          acc[ch] = a;
        }
        }
#else
        // Not instantiated (RunFused): grid_sample_fused_small_c_declines gives channels-first
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
          if (stream && reinterpret_cast<uintptr_t>(d) % 64 == 0) {
            hn::Stream(acc[ch], df, d);
          } else {
            hn::StoreU(acc[ch], df, d);
          }
        } else {
          HWY_ALIGN float tmp[kL];
          hn::Store(acc[ch], df, tmp);
          std::memcpy(d, tmp, static_cast<size_t>(m) * sizeof(float));
        }
      }
    }
  }
}

// NOTE [ GridSample fused aligned tiles ]
// The streaming stores (NOTE [ GridSample fused streaming stores ]) need a whole vector on
// a 64-byte aligned address. With tiles at multiples of 64 points that holds only when the
// dst row itself starts on one: a buffer from malloc (NumPy's, std::vector's) often starts
// 16, 32 or 48 bytes past one, and then no vector streamed (the benchmark's W2 dsts were at
// 48, 16, 32 and 16 bytes past one). So when the path streams, each row's tile bounds move
// left by that row's offset s (in floats, 0 <= s < 16) from a 64-byte line: tile k of the
// row covers [64 k - s, 64 (k + 1) - s), clipped to the row, so the first is s points
// shorter, the last up to s longer, and every vector of the others starts on a line. The
// same points, each computed once with the same operations: the same bits
// (docs/perf/grid_sample.md, "Fused small-channel path").

/// Items [begin, end): tiles of tile_h x tile_w output points, each walked row by row (the
/// column bounds per row: NOTE [ GridSample fused aligned tiles ]).
void RunFused(const FusedRun& c, int64_t begin, int64_t end) {
  const AxisStep ystep(c, 0), xstep(c, c.r > 1 ? 1 : 0);
  const int64_t N = static_cast<int64_t>(hn::Lanes(DF()));
  const int64_t W = c.out_sizes[1];
  const bool align_rows = StreamsDst(c);  // NOTE [ GridSample fused aligned tiles ]
  // A row's tile bounds, tile k of tiles_x at shift s.
  auto bound = [&](int64_t k, int64_t s) {
    return k <= 0 ? 0 : k >= c.tiles_x ? W : std::clamp<int64_t>(k * c.tile_w - s, 0, W);
  };
  // NOTE [ GridSample nearest tap reuse ]: two slots of a tile's nearest offsets and keep
  // masks, and per row the vectors they are valid for; the slot `cur` holds those the
  // previous item computed for this one (have_cur). A row holds up to tile_w + N - 1
  // points (the last tile of a shifted row).
  const int64_t row_cap = c.tile_w + N;
  const int64_t vecs = (row_cap + N - 1) / N;
  const bool nearest_reuse = c.K == 1;
  std::vector<int32_t> tap_buf(nearest_reuse ? 4 * c.tile_h * row_cap : 0);
  std::vector<uint8_t> tap_ok(nearest_reuse ? 2 * c.tile_h * vecs : 0);
  int cur = 0;
  bool have_cur = false;
  for (int64_t item = begin; item < end; ++item) {
    const int64_t n = item / c.blocks_per_batch;
    const int64_t t = item % c.blocks_per_batch;
    const int64_t kx = t % c.tiles_x;
    const int64_t y0 = t / c.tiles_x * c.tile_h;
    const int64_t th = std::min(c.tile_h, c.out_sizes[0] - y0);
    // The next item is the tile to the right (same batch, same tile row) and this thread's.
    const bool next_here = nearest_reuse && kx + 1 < c.tiles_x && item + 1 < end;
    const int nxt = 1 - cur;
    const float* dbase = reinterpret_cast<const float*>(c.dst) + n * c.d_batch;
    for (int64_t y = y0; y < y0 + th; ++y) {
      // NOTE [ GridSample fused aligned tiles ]: this row's shift and bounds.
      int64_t s = 0;
      if (align_rows) {
        const auto a = reinterpret_cast<uintptr_t>(dbase + y * W);
        if (a % sizeof(float) == 0) s = static_cast<int64_t>(a / sizeof(float) % 16);
      }
      const int64_t x0 = bound(kx, s), x1 = bound(kx + 1, s), x2 = bound(kx + 2, s);
      const int64_t run = x1 - x0;
      // NOTE [ GridSample few-channel prefetch ]: the next tile's points of this row (all
      // inside it; it starts run points along).
      const int64_t ahead = kx + 1 < c.tiles_x && run <= x2 - x1 ? run : 0;
      // NOTE [ GridSample few-channel grid prefetch ]
      // A tile reads its grid as 16 runs of 512 bytes (64 points) a whole grid row (8 KiB
      // in W2) apart, and the taps one tile ahead (above) are the first to touch each run:
      // a pattern the hardware prefetchers did not follow. So each row first prefetches
      // its grid run two tiles ahead, which the tap computation one tile ahead reaches one
      // item later (docs/perf/grid_sample.md, "Fused small-channel path").
      const int64_t gahead = x0 + 3 * c.tile_w <= W ? 2 * c.tile_w : 0;
      const int64_t q0 = y * W + x0;
      if (gahead > 0) {
        const char* g = reinterpret_cast<const char*>(reinterpret_cast<const float*>(c.grid) +
                                                      n * c.g_batch + 2 * (q0 + gahead));
        for (int64_t b = 0; b < 8 * c.tile_w; b += 64) hwy::Prefetch(g + b);
      }
      // Slot s's arrays for this row of the tile.
      auto slot_row = [&](int slot) {
        const int64_t tile = c.tile_h * row_cap, row = (y - y0) * row_cap;
        return NearestTapsOut{tap_buf.data() + 2 * slot * tile + row,
                              tap_buf.data() + (2 * slot + 1) * tile + row,
                              tap_ok.data() + (slot * c.tile_h + (y - y0)) * vecs};
      };
      NearestTaps reuse;
      NearestTapsOut next;
      if (have_cur) {
        const NearestTapsOut r = slot_row(cur);
        reuse = {r.off, r.keep, r.ok};
      }
      if (next_here) {
        // Every vector of the row marked, so the next item never reads a flag of an
        // earlier tile (FusedSmallC sets those of this row's vectors).
        next = slot_row(nxt);
        std::fill(next.ok, next.ok + vecs, uint8_t{0});
      }
#if HWY_TARGET <= HWY_AVX2 && HWY_ARCH_X86  // kHavePairs
      {
        if (c.channels_last && c.sstride[1] == c.channels) {
          // NOTE [ GridSample channels-last pair gather ] (nearest with 1 channel has no pair:
          // the float gather below)
          switch (c.K * 8 + static_cast<int>(c.channels)) {
            case 10:
              FusedSmallC<1, true, 2>(c, ystep, xstep, n, q0, run, ahead, reuse, next);
              continue;
            case 11:
              FusedSmallC<1, true, 3>(c, ystep, xstep, n, q0, run, ahead, reuse, next);
              continue;
            case 12:
              FusedSmallC<1, true, 4>(c, ystep, xstep, n, q0, run, ahead, reuse, next);
              continue;
            case 17: FusedSmallC<2, true, 1>(c, ystep, xstep, n, q0, run, ahead); continue;
            case 18: FusedSmallC<2, true, 2>(c, ystep, xstep, n, q0, run, ahead); continue;
            case 19: FusedSmallC<2, true, 3>(c, ystep, xstep, n, q0, run, ahead); continue;
            case 20: FusedSmallC<2, true, 4>(c, ystep, xstep, n, q0, run, ahead); continue;
            case 33: FusedSmallC<4, true, 1>(c, ystep, xstep, n, q0, run, ahead); continue;
            case 34: FusedSmallC<4, true, 2>(c, ystep, xstep, n, q0, run, ahead); continue;
            case 35: FusedSmallC<4, true, 3>(c, ystep, xstep, n, q0, run, ahead); continue;
            case 36: FusedSmallC<4, true, 4>(c, ystep, xstep, n, q0, run, ahead); continue;
            default: break;
          }
        }
      }
#endif
      switch (c.K * 2 + (c.channels_last ? 1 : 0)) {
        case 2:
          if (c.channels == 3) {  // the image case: three planes
            FusedSmallC<1, false, 3>(c, ystep, xstep, n, q0, run, ahead, reuse, next);
          } else {
            FusedSmallC<1, false>(c, ystep, xstep, n, q0, run, ahead, reuse, next);
          }
          break;
        case 3: FusedSmallC<1, true>(c, ystep, xstep, n, q0, run, ahead, reuse, next); break;
        case 5: FusedSmallC<2, true>(c, ystep, xstep, n, q0, run, ahead); break;
        case 9: FusedSmallC<4, true>(c, ystep, xstep, n, q0, run, ahead); break;
        default:  // channels-first linear/cubic: declined at plan time without pairs
          if constexpr (kHavePairs) {
            if (c.K == 2) {
              FusedSmallC<2, false>(c, ystep, xstep, n, q0, run, ahead);
            } else {
              FusedSmallC<4, false>(c, ystep, xstep, n, q0, run, ahead);
            }
          } else {
            HWY_ABORT("grid_sample.fused_small_c: channels-first linear/cubic on a target "
                      "without pair gathers (its declines and "
                      "declines_views decline it)");
          }
          break;
      }
    }
    have_cur = next_here;
    if (next_here) cur = nxt;
  }
  if (c.stream) hwy::FlushStream();  // non-temporal stores visible before the caller reads
}

}  // namespace HWY_NAMESPACE
}  // namespace gridops::kernels::grid_sample_simd
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace gridops::kernels {
GRIDOPS_GRID_SAMPLE_FAST_PATH(fused_small_c)

namespace grid_sample_simd {
HWY_EXPORT(RunFused);
HWY_EXPORT(GatherPairs16);
HWY_EXPORT(LoadTaps16);
}  // namespace grid_sample_simd

bool grid_sample_gather_pairs16(bool portable, const float* plane, const int32_t* o,
                                float* out) {
  return HWY_DYNAMIC_DISPATCH(grid_sample_simd::GatherPairs16)(portable, plane, o, out);
}

bool grid_sample_load_taps16(bool portable, const float* plane, const int32_t* o, float* out,
                             float* floats) {
  return HWY_DYNAMIC_DISPATCH(grid_sample_simd::LoadTaps16)(portable, plane, o, out, floats);
}

namespace {

void RunFusedPath(const GridSampleProblem& p, const void* tables, const GridSampleViews& v,
                  bool portable_pairs) {
  grid_sample_simd::FusedRun c{};
  if (!grid_sample_path_begin(p, tables, v, &c)) return;
  c.portable_pairs = portable_pairs;
  c.tiles_x = (c.out_sizes[1] + c.tile_w - 1) / c.tile_w;
  c.tiles = c.tiles_x * ((c.out_sizes[0] + c.tile_h - 1) / c.tile_h);
  grid_sample_fast_run_items(c, c.tiles, c.tile_h * c.tile_w,
                             HWY_DYNAMIC_DISPATCH(grid_sample_simd::RunFused));
  grid_sample_fast_finish(p, tables, v);
}

}  // namespace

void grid_sample_fused_small_c_run(const GridSampleProblem& p, const void* tables,
                                   const GridSampleViews& v) {
  RunFusedPath(p, tables, v, false);
}

void grid_sample_fused_small_c_portable_pairs_run(const GridSampleProblem& p,
                                                  const void* tables, const GridSampleViews& v) {
  RunFusedPath(p, tables, v, true);
}

}  // namespace gridops::kernels
#endif  // HWY_ONCE
