// The channel-vector paths of fast resampling: resample.channels_vector16,
// resample.channels_vector8 and resample.generic (one channel per chunk), their declines
// and forward, float32 and bfloat16, written once with Highway (the backward:
// resample_channels_backward_hwy.cc).
// See NOTE [ Fast resample arithmetic ] in resample_hwy-inl.h and docs/ops/resample.md.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "gridops/parallel.h"
#include "kernels/resample/resample.h"
#include "kernels/resample/resample_fast.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/resample/resample_channels_hwy.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include "kernels/resample/resample_hwy-inl.h"

HWY_BEFORE_NAMESPACE();
namespace gridops::kernels::resample_simd {
namespace HWY_NAMESPACE {

// =====================================================================================
// Channel-vector kernels: both tensors hold runs of contiguous channels (nhwc, blocked,
// any mix of them; kCap == 1 is the generic per-channel path for any other mix).
// =====================================================================================

// Over 150 lines: one parallel region whose loops keep everything they use in locals
// (vector stores may alias anything, so values reached through a helper's references or a
// closure are reloaded after each store); split, its parts would take them that way.
template <class T, int R, size_t kCap>
void FwdLinearC(const ResampleProblem& p, const Tables& tb, const T* src, T* dst) {
  const hn::CappedTag<float, kCap> d;
  using DV = decltype(d);
  const int64_t L = static_cast<int64_t>(hn::Lanes(d));
  const ResampleLayout& S = p.src;
  const ResampleLayout& Dl = p.dst;
  const int64_t nq = (Dl.padded_c + L - 1) / L;
  const int64_t Iw = p.in[R - 1], Ow = p.out[R - 1];
  const int64_t outer = OuterCount<R>(p.out);
  // NOTE [ Resample direct linear forward ]
  // A group of full chunks computes each output directly from the outer interpolation at
  // its two W taps (the loop under `fuse` below) instead of filling the scratch row v with
  // the outer interpolation of every input column first (steps 1 and 2). The same
  // operations on the same values, so the same bits (test
  // ResampleDiff.DirectLinearForwardMatchesScratchRow). It recomputes the outer
  // interpolation once per output instead of once per input column; resample_fast_prepare
  // chooses it (ResampleFastTables::direct_linear) for:
  // - downsampling along W by 2 or more (most input columns feed no output at all);
  // - float32 with 1 or 2 spatial axes, any W ratio: the vector loads of the source rows
  //   then run between the output's streaming stores, where the scratch row's step 1 left
  //   the stores idle while it read. 3-D and bfloat16 keep the scratch row (measurements:
  //   docs/perf/resample.md, "Direct linear forward").
  // Without a scratch row a group need not fit the 256 KiB that bounds G below: with whole
  // chunks only and enough tasks for the threads, one group takes every chunk, so a
  // channels-last pixel is one flat run (1-D nwc with 4096 input columns: G was 1).
  const bool fuse = tb.direct_linear;  // resample_fast_prepare's schedule field
  const bool whole_chunks = nq * L <= p.c;
  const int64_t G = fuse && whole_chunks && p.n * outer >= 4 * int64_t{get_num_threads()}
                        ? nq
                        : std::clamp<int64_t>((64 * 1024) / std::max<int64_t>(Iw * L, 1), 1, nq);
  const int64_t ngroups = (nq + G - 1) / G;
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
  // Chunks a pixel's run holds on both sides (NOTE [ Whole pixel blocks per output ]).
  const int64_t chunk_run = ChunkRun(S, Dl, L, nq);
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
    const int64_t brun = chunk_run;
    // The scratch row, unused when every group is computed directly.
    std::vector<float> v(fuse_l && whole_chunks ? 0 : static_cast<size_t>(iw_n * G * lanes));
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
      // Full chunks (NOTE [ Resample direct linear forward ]): the outer interpolation at
      // both W taps of each output directly (the same operations on the same values as the
      // two steps below, without the round trip through v).
      if (fuse_l && q1 * lanes <= p.c) {
        auto fused = [&](auto st) {
          constexpr bool kStream = decltype(st)::value;
          // Runs of cr contiguous chunks, each output pixel's run written whole (NOTE
          // [ Whole pixel blocks per output ]).
          const int64_t cr = flat ? nql : (q0 % brun == 0 && nql % brun == 0 ? brun : 1);
          const int64_t runs = nql / cr;
          const int64_t run_len = cr * lanes;
          for (int64_t j = 0; j < runs; ++j) {
            const T* sb = s_base + qs[j * cr];
            const T* r0 = sb + so[0];
            const T* r1 = sb + so[1];
            const T* r2 = sb + so[2];
            const T* r3 = sb + so[3];
            T* db = d_base + qd[j * cr];
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
            // Up to four vectors per output: four per step, their loads in flight
            // together (docs/perf/resample.md, "Four outputs per step").
            auto px = [&](int64_t ow, int64_t k) {
              const auto w0 = hn::Set(d, t_w0[ow]), w1 = hn::Set(d, t_w1[ow]);
              return Lerp<DV>(w0, w1, at(t_i0[ow] * s_w + k * lanes),
                              at(t_i1[ow] * s_w + k * lanes));
            };
            int64_t ow0 = 0;
            if (cr == 1) {
              ow0 = StoreFourPerStep<1>(d, px, db, d_w, ow_n, kStream);
            } else if (cr == 2) {
              ow0 = StoreFourPerStep<2>(d, px, db, d_w, ow_n, kStream);
            } else if (cr == 4) {
              ow0 = StoreFourPerStep<4>(d, px, db, d_w, ow_n, kStream);
            }
            for (int64_t ow = ow0; ow < ow_n; ++ow) {
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
      // NOTE [ Resample linear forward prefetch ]
      // 2-D float32, the source channels-last with the group's channels forming whole
      // pixels, or blocked: when the next task (the next output row, same thread and image)
      // reads a source row that this one does not, step 2 prefetches that row's lines,
      // spread over its output pixels, so that its reads overlap this row's (streamed)
      // stores instead of stalling the next step 1. bfloat16 is not prefetched (slower with
      // it; docs/perf/resample.md, "Linear forward prefetch").
      const char* pf_row = nullptr;  // the next task's new row, at channel offset 0
      int64_t pf_lines = 0;          // lines of one chunk's (or the flat group's) row
      if constexpr (R == 2 && sizeof(T) == 4) {
        if (((flat && GL == s_w) || S.block > 1) && task + 1 < end && pos + 1 < outer) {
          int64_t on[2] = {0, 0};
          OuterIndex<R>(pos + 1, p.out, on);
          const OuterTaps nt = MakeOuterTaps<R>(tb, S, Dl, on);
          int64_t fresh = -1;
          for (int k = 1; k >= 0 && fresh < 0; --k) {
            if (nt.so[k] != so[0] && nt.so[k] != so[1]) fresh = nt.so[k];
          }
          if (fresh >= 0) {
            pf_row = reinterpret_cast<const char*>(s_base + fresh);
            pf_lines = (iw_n * s_w * static_cast<int64_t>(sizeof(T)) + 63) / 64;
          }
        }
      }
      auto step2 = [&](auto st) {
        constexpr bool kStream = decltype(st)::value;
        if (flat) {
          T* db = d_base + qd[0];
          // The row's lines, about pf_n per output pixel (NOTE [ Resample linear forward
          // prefetch ]).
          const char* pfp = pf_row ? pf_row + qs[0] * static_cast<int64_t>(sizeof(T)) : nullptr;
          int64_t pf_left = pfp ? pf_lines : 0;
          const int64_t pf_n = (pf_lines + ow_n - 1) / ow_n;
          for (int64_t ow = 0; ow < ow_n; ++ow) {
            if (pf_left > 0) {
              for (int64_t k = 0; k < pf_n && k < pf_left; ++k) hwy::Prefetch(pfp + 64 * k);
              pfp += 64 * pf_n;
              pf_left -= pf_n;
            }
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
        for (int64_t j = 0; j < nql;) {
          const int64_t real = qreal[j];
          const float* vj = vp + j * lanes;
          T* db = d_base + qd[j];
          // A run of cr full chunks, each output pixel's written whole (NOTE [ Whole pixel
          // blocks per output ]).
          const int64_t cr = (q0 + j) % brun == 0 && j + brun <= nql &&
                                     (q0 + j + brun) * lanes <= p.c && (brun == 2 || brun == 4)
                                 ? brun
                                 : 1;
          if (cr > 1 || real >= lanes || Dl.block > 1) {
            // Blocked source: this chunk's row, a line per output pixel from the first.
            const char* pfj =
                pf_row && S.block > 1 ? pf_row + qs[j] * static_cast<int64_t>(sizeof(T)) : nullptr;
            const int64_t pfl = pf_lines;
            auto px = [&](int64_t ow, int64_t k) {
              if (k == 0 && pfj != nullptr && ow < pfl) hwy::Prefetch(pfj + 64 * ow);
              return Lerp<DV>(hn::Set(d, t_w0[ow]), hn::Set(d, t_w1[ow]),
                              hn::LoadU(d, vj + t_i0[ow] * GL + k * lanes),
                              hn::LoadU(d, vj + t_i1[ow] * GL + k * lanes));
            };
            // Four vectors per step, as the fused loop (docs/perf/resample.md).
            int64_t ow = cr == 1   ? StoreFourPerStep<1>(d, px, db, d_w, ow_n, kStream)
                         : cr == 2 ? StoreFourPerStep<2>(d, px, db, d_w, ow_n, kStream)
                                   : StoreFourPerStep<4>(d, px, db, d_w, ow_n, kStream);
            for (; ow < ow_n; ++ow) {
              for (int64_t k = 0; k < cr; ++k) StoreOut(d, px(ow, k), db + ow * d_w + k * lanes, kStream);
            }
            j += cr;
            continue;
          }
          for (int64_t ow = 0; ow < ow_n; ++ow) {
            const auto r = Lerp<DV>(hn::Set(d, t_w0[ow]), hn::Set(d, t_w1[ow]),
                                    hn::LoadU(d, vj + t_i0[ow] * GL), hn::LoadU(d, vj + t_i1[ow] * GL));
            StorePartialF(d, r, db + ow * d_w, real);
          }
          ++j;
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

/// Nearest forward: copies of elements (raw bits).
template <class T, int R, size_t kCap>
void FwdNearestC(const ResampleProblem& p, const Tables& tb, const T* src, T* dst) {
  using U = std::conditional_t<sizeof(T) == 4, uint32_t, uint16_t>;
  const hn::CappedTag<float, kCap> df;
  const hn::Rebind<U, decltype(df)> du;
  const hn::CappedTag<uint8_t, kCap * sizeof(float)> d8;  // the float vector's bytes
  const int64_t L = static_cast<int64_t>(hn::Lanes(df));
  const ResampleLayout& S = p.src;
  const ResampleLayout& Dl = p.dst;
  const int64_t nq = (Dl.padded_c + L - 1) / L;
  const int64_t Ow = p.out[R - 1];
  const int64_t outer = OuterCount<R>(p.out);
  const int64_t tasks = p.n * outer;
  const ResampleAxisTable& aw = tb.axis[R - 1];
  const int64_t ssw = S.spatial_stride[R - 1], dsw = Dl.spatial_stride[R - 1];
  // Both channels-last: a pixel is C contiguous elements in both; ordinary stores (a
  // memcpy per pixel) while input and output fit in the last-level cache together
  // (NOTE [ Nearest forward store policy ]).
  const bool stream = StreamOK(p, Dl, dst, L, kCap, /*working_set=*/S.block == 1 && Dl.block == 1);
  const bool pixel_copy = S.block == 1 && Dl.block == 1 && kCap > 1 && !stream;
  // Chunks a pixel's run holds on both sides (NOTE [ Whole pixel blocks per output ]).
  const int64_t chunk_run = ChunkRun(S, Dl, L, nq);
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
        const int32_t* const i0 = aw.i0.data();  // locals: see the loops below
        const int64_t s_w = ssw, d_w = dsw, ow_n = Ow;
        // NOTE [ Nearest pixel copy in whole vectors ]: a pixel of whole native vectors is
        // copied by vector loads and stores, faster than a memcpy call per pixel
        // (docs/perf/resample.md, "Nearest pixel copy").
        if (bytes % hn::Lanes(d8) == 0) {
          const auto* sb = reinterpret_cast<const uint8_t*>(sp);
          auto* db = reinterpret_cast<uint8_t*>(dp);
          const int64_t sw_b = s_w * static_cast<int64_t>(sizeof(U));
          const int64_t dw_b = d_w * static_cast<int64_t>(sizeof(U));
          const auto n_b = static_cast<int64_t>(bytes);
          for (int64_t ow = 0; ow < ow_n; ++ow) {
            CopyRowOut(d8, sb + i0[ow] * sw_b, db + ow * dw_b, n_b, /*stream=*/false);
          }
          continue;
        }
        for (int64_t ow = 0; ow < ow_n; ++ow) std::memcpy(dp + ow * d_w, sp + i0[ow] * s_w, bytes);
        continue;
      }
      if (stream && S.block == 1 && Dl.block == 1) {  // channels-last, C a multiple of L
        const U* sp = s + n * S.n_stride + so;
        U* dp = o + n * Dl.n_stride + doff;
        const int32_t* const i0 = aw.i0.data();  // locals: see the loops below
        const int64_t s_w = ssw, d_w = dsw, ow_n = Ow, nq_n = nq, lanes = L;
        for (int64_t ow = 0; ow < ow_n; ++ow) {
          const U* a = sp + i0[ow] * s_w;
          U* b = dp + ow * d_w;
          for (int64_t q = 0; q < nq_n; ++q) {
            StreamVec(du, hn::LoadU(du, a + q * lanes), b + q * lanes);
          }
        }
        continue;
      }
      for (int64_t q = 0; q < nq; ++q) {
        const int64_t c0 = q * L;
        const int64_t real = std::min(L, p.c - c0);
        if (chunk_run > 1 && q % chunk_run == 0 && (q + chunk_run) * L <= p.c) {
          // A run of full chunks, each output pixel's copied whole (NOTE [ Whole pixel blocks
          // per output ]); locals, as below.
          const U* sq = s + n * S.n_stride + ChanOff(S, c0) + so;
          U* dq = o + n * Dl.n_stride + ChanOff(Dl, c0) + doff;
          const int32_t* const i0 = aw.i0.data();
          const int64_t s_w = ssw, d_w = dsw, ow_n = Ow, lanes = L, run = chunk_run * L;
          for (int64_t ow = 0; ow < ow_n; ++ow) {
            const U* a = sq + i0[ow] * s_w;
            U* b = dq + ow * d_w;
            if (stream) {
              for (int64_t k = 0; k < run; k += lanes) StreamVec(du, hn::LoadU(du, a + k), b + k);
            } else {
              for (int64_t k = 0; k < run; k += lanes) hn::StoreU(hn::LoadU(du, a + k), du, b + k);
            }
          }
          q += chunk_run - 1;
          continue;
        }
        U* dq = o + n * Dl.n_stride + ChanOff(Dl, c0) + doff;
        if (real <= 0) {
          for (int64_t ow = 0; ow < Ow; ++ow) hn::StoreU(hn::Zero(du), du, dq + ow * dsw);
          continue;
        }
        const U* sq = s + n * S.n_stride + ChanOff(S, c0) + so;
        if (real == L) {
          // Locals, not closure members: a vector store may alias anything, so values read
          // through the closure would be reloaded after each store (docs/perf/resample.md,
          // "Locals, not closure members").
          const int32_t* const i0 = aw.i0.data();
          const int64_t s_w = ssw, d_w = dsw, ow_n = Ow;
          if (stream) {
            for (int64_t ow = 0; ow < ow_n; ++ow) {
              StreamVec(du, hn::LoadU(du, sq + i0[ow] * s_w), dq + ow * d_w);
            }
          } else {
            for (int64_t ow = 0; ow < ow_n; ++ow) {
              hn::StoreU(hn::LoadU(du, sq + i0[ow] * s_w), du, dq + ow * d_w);
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

// --- entry points ---------------------------------------------------------------------------

// resample.channels_vector16, resample.channels_vector8, resample.generic (kCap 1)
template <size_t kCap>
void ChannelsForward(const ResampleProblem& p, const void* t, const void* in, void* out) {
  Run(p, t, in, out, [&]<class T, int R>(const Tables& tb, const T* s, T* d) {
    Linear(p) ? FwdLinearC<T, R, kCap>(p, tb, s, d) : FwdNearestC<T, R, kCap>(p, tb, s, d);
  });
}
// resample.channels_vector16's cap: 16 where a vector holds 16 float32 lanes (AVX-512),
// else 8. On targets with at most 8 lanes (AVX2, SSE4, NEON, scalar) CappedTag<float, 16>
// and CappedTag<float, 8> are the same tag and every other use of kCap (the streaming
// test, cap >= 8; the pixel copy, cap > 1) agrees, so the two entries run the same
// instantiations instead of compiling identical copies (a third of this file's kernels on
// those targets).
constexpr size_t kCap16 = HWY_LANES(float) >= 16 ? 16 : 8;
// HWY_EXPORT takes plain function names.
void Channels16Forward(const ResampleProblem& p, const void* t, const void* in, void* out) {
  ChannelsForward<kCap16>(p, t, in, out);
}
void Channels8Forward(const ResampleProblem& p, const void* t, const void* in, void* out) {
  ChannelsForward<8>(p, t, in, out);
}
void GenericForward(const ResampleProblem& p, const void* t, const void* in, void* out) {
  ChannelsForward<1>(p, t, in, out);
}

}  // namespace HWY_NAMESPACE
}  // namespace gridops::kernels::resample_simd
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace gridops::kernels::resample_simd {
HWY_EXPORT(Channels16Forward);
HWY_EXPORT(Channels8Forward);
HWY_EXPORT(GenericForward);
}  // namespace gridops::kernels::resample_simd

namespace gridops::kernels {
// HWY_DYNAMIC_DISPATCH names the tables of HWY_EXPORT unqualified.
using namespace resample_simd;  // NOLINT(google-build-using-namespace)

namespace {

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

}  // namespace

// --- resample.channels_vector16 / resample.channels_vector8 -------------------------------

std::string resample_channels16_declines(const ResampleProblem& p) {
  return channels_declines(p, 16);
}
void resample_channels16_forward(const ResampleProblem& p, const void* tables, const void* src,
                                 void* dst) {
  HWY_DYNAMIC_DISPATCH(Channels16Forward)(p, tables, src, dst);
}
std::string resample_channels8_declines(const ResampleProblem& p) {
  return channels_declines(p, 8);
}
void resample_channels8_forward(const ResampleProblem& p, const void* tables, const void* src,
                                void* dst) {
  HWY_DYNAMIC_DISPATCH(Channels8Forward)(p, tables, src, dst);
}

// --- resample.generic -----------------------------------------------------------------------

void resample_generic_forward(const ResampleProblem& p, const void* tables, const void* src,
                              void* dst) {
  HWY_DYNAMIC_DISPATCH(GenericForward)(p, tables, src, dst);
}

}  // namespace gridops::kernels
#endif  // HWY_ONCE
