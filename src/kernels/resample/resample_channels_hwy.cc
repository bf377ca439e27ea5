// The channel-vector paths of fast resampling: resample.channels_vector16,
// resample.channels_vector8 and resample.generic (one channel per chunk), forward and
// backward, float32 and bfloat16, written once with Highway.
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
  //   (in L1 or L2) then run between the output's streaming stores, where the scratch row's
  //   step 1 left the stores idle while it read; the store stream is the limit (W5a: a
  //   32 MiB output). Measured in one process, the two forms alternated in blocks of 10
  //   calls, medians (2026-11-29, one thread unless stated), direct / scratch: W5a nhwc
  //   0.85-0.98x, nChw16c 0.70-0.86x, both 0.70-0.75x at 2 threads; 4x and 2x up, equal
  //   widths and 1.5x down (C 16-64) 0.60-0.89x; outputs of 256 KiB-1 MiB, not streamed,
  //   0.75-0.77x (docs/ops/resample.md). 3-D (W5d) 0.89-1.01x in the same harness but
  //   slower across processes, and bfloat16 (a conversion per load: W5a 1.06-1.37x) keep
  //   the scratch row.
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
          const int64_t runs = flat ? 1 : nql;  // runs of contiguous chunks
          const int64_t run_len = flat ? GL : lanes;
          for (int64_t j = 0; j < runs; ++j) {
            const T* sb = s_base + qs[j];
            const T* r0 = sb + so[0];
            const T* r1 = sb + so[1];
            const T* r2 = sb + so[2];
            const T* r3 = sb + so[3];
            T* db = d_base + qd[j];
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
            int64_t ow0 = 0;
            if (run_len == lanes) {
              // One vector per output (blocked chunks): four outputs per step, their loads
              // in flight together (one output per step: W5c nChw16c f32 1.74-1.81 -> 0.86-0.89
              // ms, bf16 0.39-0.50 -> 0.32 ms, one thread, harness calling plan.forward).
              auto px = [&](int64_t ow) {
                const auto w0 = hn::Set(d, t_w0[ow]), w1 = hn::Set(d, t_w1[ow]);
                return Lerp<DV>(w0, w1, at(t_i0[ow] * s_w), at(t_i1[ow] * s_w));
              };
              ow0 = StoreFourPerStep(d, px, db, d_w, ow_n, kStream);
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
      // stores instead of stalling the next step 1. W5a float32, a probe calling
      // plan.forward (medians of 200 calls, 1 thread, alternating processes, 2026-11-28):
      // nhwc 1.01-1.07 -> 0.89-0.98 ms, nChw16c 0.98-1.14 -> 0.91-0.93; at 2 threads
      // unchanged (the host's bandwidth is the limit there). bfloat16 is not prefetched:
      // nhwc 0.61 -> 0.66 ms with it, nChw16c unchanged.
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
        for (int64_t j = 0; j < nql; ++j) {
          const int64_t real = qreal[j];
          const float* vj = vp + j * lanes;
          T* db = d_base + qd[j];
          if (real >= lanes || Dl.block > 1) {
            // Blocked source: this chunk's row, a line per output pixel from the first.
            const char* pfj =
                pf_row && S.block > 1 ? pf_row + qs[j] * static_cast<int64_t>(sizeof(T)) : nullptr;
            const int64_t pfl = pf_lines;
            auto px = [&](int64_t ow) {
              if (pfj != nullptr && ow < pfl) hwy::Prefetch(pfj + 64 * ow);
              return Lerp<DV>(hn::Set(d, t_w0[ow]), hn::Set(d, t_w1[ow]),
                              hn::LoadU(d, vj + t_i0[ow] * GL), hn::LoadU(d, vj + t_i1[ow] * GL));
            };
            // Four outputs per step, as the fused loop (W5a nChw16c bf16 0.805 -> 0.77 ms, f32
            // unchanged at 1.0 ms: its 32 MiB output is the limit).
            for (int64_t ow = StoreFourPerStep(d, px, db, d_w, ow_n, kStream); ow < ow_n; ++ow) {
              StoreOut(d, px(ow), db + ow * d_w, kStream);
            }
          } else {
            for (int64_t ow = 0; ow < ow_n; ++ow) {
              const auto r = Lerp<DV>(hn::Set(d, t_w0[ow]), hn::Set(d, t_w1[ow]),
                                      hn::LoadU(d, vj + t_i0[ow] * GL), hn::LoadU(d, vj + t_i1[ow] * GL));
              StorePartialF(d, r, db + ow * d_w, real);
            }
          }
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

template <class T, int R, size_t kCap>
void BwdLinearC(const ResampleProblem& p, const Tables& tb, const T* gsrc, T* out) {
  const hn::CappedTag<float, kCap> d;
  const int64_t L = static_cast<int64_t>(hn::Lanes(d));
  const ResampleLayout& Gl = p.dst;  // diff_dst
  const ResampleLayout& Ol = p.src;  // diff_src
  const int64_t nq = (Ol.padded_c + L - 1) / L;
  const int64_t Iw = p.in[R - 1], Ow = p.out[R - 1];
  const int64_t G = std::clamp<int64_t>((64 * 1024) / std::max<int64_t>(Ow * L, 1), 1, nq);
  const int64_t ngroups = (nq + G - 1) / G;
  const int64_t outer = OuterCount<R>(p.in);
  const int64_t tasks = p.n * ngroups * outer;
  const ResampleAxisTable& aw = tb.axis[R - 1];
  const int64_t gsw = Gl.spatial_stride[R - 1], osw = Ol.spatial_stride[R - 1];
  const int64_t* bp = aw.begin.data();
  const int32_t* uop = aw.use_o.data();
  const float* uwp = aw.use_w.data();
  const bool stream = StreamOK(p, Ol, out, L, kCap);
  parallel_for(tasks, GrainFor(Ow * G * L), [&](int64_t begin, int64_t end) {
    std::vector<float> t(static_cast<size_t>(Ow * G * L));
    std::vector<int64_t> qreal(static_cast<size_t>(G)), qs(qreal.size()), qd(qreal.size());
    std::vector<int64_t> hoff, doffs, pfoff;
    std::vector<float> hw, dw;
    for (int64_t task = begin; task < end; ++task) {
      const int64_t pos = task % outer;
      const int64_t rest = task / outer;
      const int64_t g = rest % ngroups, n = rest / ngroups;
      const int64_t q0 = g * G, q1 = std::min(nq, q0 + G);
      int64_t ii[2] = {0, 0};
      OuterIndex<R>(pos, p.in, ii);
      int64_t ooff = 0;
      bool empty = false;
      const ResampleAxisTable* ad = nullptr;
      const ResampleAxisTable* ah = nullptr;
      int64_t hb = 0, he = 0, db = 0, de = 0;
      if constexpr (R == 2) {
        ah = &tb.axis[0];
        hb = ah->begin[ii[0]];
        he = ah->begin[ii[0] + 1];
        empty = hb == he;
        ooff = ii[0] * Ol.spatial_stride[0];
      } else if constexpr (R == 3) {
        ad = &tb.axis[0];
        ah = &tb.axis[1];
        db = ad->begin[ii[0]];
        de = ad->begin[ii[0] + 1];
        hb = ah->begin[ii[1]];
        he = ah->begin[ii[1] + 1];
        empty = db == de || hb == he;
        ooff = ii[0] * Ol.spatial_stride[0] + ii[1] * Ol.spatial_stride[1];
      }
      const int64_t nql = q1 - q0;
      for (int64_t j = 0; j < nql; ++j) {
        const int64_t c0 = (q0 + j) * L;
        qreal[j] = empty ? 0 : std::min(L, p.c - c0);
        qs[j] = qreal[j] > 0 ? n * Gl.n_stride + ChanOff(Gl, c0) : 0;
        qd[j] = n * Ol.n_stride + ChanOff(Ol, c0) + ooff;
      }
      // Offsets and weights of the outer uses.
      hoff.clear();
      hw.clear();
      doffs.clear();
      dw.clear();
      for (int64_t u = hb; u < he; ++u) {
        hoff.push_back(ah->use_o[u] * Gl.spatial_stride[R - 2]);
        hw.push_back(ah->use_w[u]);
      }
      for (int64_t u = db; u < de; ++u) {
        doffs.push_back(ad->use_o[u] * Gl.spatial_stride[0]);
        dw.push_back(ad->use_w[u]);
      }
      // NOTE [ Resample linear backward prefetch ]
      // 2-D float32 channels-last: the diff_dst rows that the next task (the next diff_src
      // row) adds and these do not are prefetched, a line per vector of the first pass
      // below. Without it the first pass waited on those rows' lines (W5e nhwc f32, 1
      // thread: 63 % of the kernel's perf samples on its loads of diff_dst). A/B (the same
      // binary with and without, alternating processes, medians): W5e nhwc f32 0.63x /
      // 0.67x the time at 1 / 2 threads; from Python, 1 thread, (N, C, H, W) inputs
      // 8x64x64x64, 8x64x60x60, 8x48x64x64, 2x64x128x128, 8x128x64x64: 0.55-0.67x,
      // 8x32x64x64: 0.93x. Not for bfloat16 channels-last (1.03-1.07x the time: two vectors
      // share a line) nor nChw16c (1.10-1.17x), so those keep the hardware's prefetch alone.
      pfoff.clear();
      if constexpr (R == 2 && sizeof(T) == 4) {
        if (Gl.block == 1 && !empty && ii[0] + 1 < p.in[0] && pos + 1 < outer && task + 1 < end) {
          const int64_t last = he > hb ? ah->use_o[he - 1] : -1;
          for (int64_t u = ah->begin[ii[0] + 1]; u < ah->begin[ii[0] + 2]; ++u) {
            if (ah->use_o[u] > last) pfoff.push_back(ah->use_o[u] * Gl.spatial_stride[0]);
          }
        }
      }
      const int64_t npf = static_cast<int64_t>(pfoff.size());
      const int64_t nh = static_cast<int64_t>(hoff.size());
      const int64_t ndd = static_cast<int64_t>(doffs.size());
      auto sum = [&](auto ld, const T* px) {
        if constexpr (R == 1) {
          return ld(px);
        } else if constexpr (R == 2) {
          auto r = hn::Mul(hn::Set(d, hw[0]), ld(px + hoff[0]));
          for (int64_t u = 1; u < nh; ++u) r = hn::MulAdd(hn::Set(d, hw[u]), ld(px + hoff[u]), r);
          return r;
        } else {
          hn::Vec<decltype(d)> r = hn::Zero(d);
          for (int64_t uh = 0; uh < nh; ++uh) {
            const T* ph = px + hoff[uh];
            auto in = hn::Mul(hn::Set(d, dw[0]), ld(ph + doffs[0]));
            for (int64_t ud = 1; ud < ndd; ++ud) {
              in = hn::MulAdd(hn::Set(d, dw[ud]), ld(ph + doffs[ud]), in);
            }
            const auto wh = hn::Set(d, hw[uh]);
            r = uh == 0 ? hn::Mul(wh, in) : hn::MulAdd(wh, in, r);
          }
          return r;
        }
      };
      float* tp = t.data();
      for (int64_t ow = 0; ow < Ow; ++ow) {
        for (int64_t j = 0; j < nql; ++j) {
          const T* px = gsrc + qs[j] + ow * gsw;
          const int64_t real = qreal[j];
          for (int64_t k = 0; k < npf; ++k) hwy::Prefetch(px + pfoff[k]);
          hn::Vec<decltype(d)> r;
          if (real == L) {
            r = sum([&](const T* ptr) { return LoadF(d, ptr); }, px);
          } else if (real <= 0) {
            r = hn::Zero(d);
          } else {
            r = sum([&](const T* ptr) { return LoadPartialF(d, ptr, real); }, px);
          }
          hn::StoreU(r, d, tp + (ow * G + j) * L);
        }
      }
      for (int64_t iw = 0; iw < Iw; ++iw) {
        const int64_t ub = bp[iw], ue = bp[iw + 1];
        for (int64_t j = 0; j < nql; ++j) {
          auto r = hn::Zero(d);
          if (ub < ue) {
            r = hn::Mul(hn::Set(d, uwp[ub]), hn::LoadU(d, tp + (uop[ub] * G + j) * L));
            for (int64_t u = ub + 1; u < ue; ++u) {
              r = hn::MulAdd(hn::Set(d, uwp[u]), hn::LoadU(d, tp + (uop[u] * G + j) * L), r);
            }
          }
          T* op = out + qd[j] + iw * osw;
          const int64_t real = std::min(L, p.c - (q0 + j) * L);
          if (real >= L || Ol.block > 1) {
            StoreOut(d, r, op, stream);
          } else {
            StorePartialF(d, r, op, real);
          }
        }
      }
    }
    if (stream) hwy::FlushStream();
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
        // copied by vector loads and stores; a memcpy call per pixel cost 10-20 % more
        // (W5b nhwc: 128- and 256-byte pixels).
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
        U* dq = o + n * Dl.n_stride + ChanOff(Dl, c0) + doff;
        if (real <= 0) {
          for (int64_t ow = 0; ow < Ow; ++ow) hn::StoreU(hn::Zero(du), du, dq + ow * dsw);
          continue;
        }
        const U* sq = s + n * S.n_stride + ChanOff(S, c0) + so;
        if (real == L) {
          // Locals, not closure members: a vector store may alias anything, so values read
          // through the closure would be reloaded after each store (read through the
          // closure: W5b nChw16c bf16 0.62 ms at 1 thread; with these locals 0.39 ms).
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

/// Nearest backward in float32: each diff_src element is the sum of the gradients of the
/// outputs that read it, in the lexicographic order of the output index (the reference's
/// order), first term assigned, then Add; bfloat16 rounds the float32 sum once (to nearest
/// even). Within the stated bound of the reference (docs/ops/resample.md "Fast path").
template <class T, int R, size_t kCap>
void BwdNearestC(const ResampleProblem& p, const Tables& tb, const T* g, T* out) {
  const hn::CappedTag<float, kCap> d;
  const int64_t L = static_cast<int64_t>(hn::Lanes(d));
  const ResampleLayout& Gl = p.dst;
  const ResampleLayout& Ol = p.src;
  const int64_t nq = (Ol.padded_c + L - 1) / L;
  const int64_t Iw = p.in[R - 1];
  const int64_t outer = OuterCount<R>(p.in);
  const int64_t tasks = p.n * outer;
  const ResampleAxisTable& aw = tb.axis[R - 1];
  const int64_t gsw = Gl.spatial_stride[R - 1], osw = Ol.spatial_stride[R - 1];
  // Channels-last on both sides with whole chunks: one run of C channels per pixel.
  const bool flat = Gl.block == 1 && Ol.block == 1 && Gl.c_block_stride == 1 &&
                    Ol.c_block_stride == 1 && p.c % L == 0;
  const bool stream = StreamOK(p, Ol, out, L, kCap);
  parallel_for(tasks, GrainFor(Iw * Ol.padded_c * 2), [&](int64_t begin, int64_t end) {
    std::vector<int64_t> offs, obeg(static_cast<size_t>(Iw + 1));
    for (int64_t task = begin; task < end; ++task) {
      const int64_t pos = task % outer, n = task / outer;
      int64_t ii[2] = {0, 0};
      OuterIndex<R>(pos, p.in, ii);
      // Outer uses: ranges of axis 0 and axis 1 (one element when absent).
      const OuterUses ou = MakeOuterUses<R>(tb, Ol, ii);
      const int64_t b0 = ou.b0, e0 = ou.e0, b1 = ou.b1, e1 = ou.e1, ooff = ou.off;
      // offs[obeg[iw], obeg[iw + 1]): the offsets of every output that reads input column
      // iw, in the reference's order; `count` their number when it is the same for all.
      offs.clear();
      int64_t count = -1;
      for (int64_t iw = 0; iw < Iw; ++iw) {
        obeg[iw] = static_cast<int64_t>(offs.size());
        const int64_t ub = aw.begin[iw], ue = aw.begin[iw + 1];
        for (int64_t u0 = b0; u0 < e0; ++u0) {
          const int64_t off0 = R >= 2 ? tb.axis[0].use_o[u0] * Gl.spatial_stride[0] : 0;
          for (int64_t u1 = b1; u1 < e1; ++u1) {
            const int64_t off1 = R == 3 ? tb.axis[1].use_o[u1] * Gl.spatial_stride[1] : 0;
            for (int64_t u = ub; u < ue; ++u) offs.push_back(off0 + off1 + aw.use_o[u] * gsw);
          }
        }
        const int64_t no = static_cast<int64_t>(offs.size()) - obeg[iw];
        count = iw == 0 ? no : (count == no ? count : -1);
      }
      obeg[Iw] = static_cast<int64_t>(offs.size());
      // Everything the loops use is a local: vector stores may alias anything.
      const int64_t* const of = offs.data();
      const int64_t* const ob = obeg.data();
      const int64_t lanes = L, iw_n = Iw, o_w = osw;
      const bool strm = stream;
      // The sum at one input column of one chunk (loads through ld), kN terms at o[0..kN)
      // (kN == 0: any number, no).
      auto sum = [&](auto nterms, auto ld, const T* gk, const int64_t* o, int64_t no) {
        constexpr int kN = decltype(nterms)::value;
        if constexpr (kN == 0) {
          if (no == 0) return hn::Zero(d);
          auto acc = ld(gk + o[0]);
          for (int64_t k = 1; k < no; ++k) acc = hn::Add(acc, ld(gk + o[k]));
          return acc;
        } else {
          auto acc = ld(gk + o[0]);
          if constexpr (kN >= 2) acc = hn::Add(acc, ld(gk + o[1]));
          if constexpr (kN >= 3) acc = hn::Add(acc, ld(gk + o[2]));
          if constexpr (kN >= 4) acc = hn::Add(acc, ld(gk + o[3]));
          return acc;
        }
      };
      const auto full = [d](const T* ptr) { return LoadF(d, ptr); };
      // The common use counts (1, 2, 4: nearest up by 1 or 2 per axis; 0: any) unrolled.
      auto by_count = [&](auto body) {
        switch (count) {
          case 1: body(std::integral_constant<int, 1>{}); break;
          case 2: body(std::integral_constant<int, 2>{}); break;
          case 4: body(std::integral_constant<int, 4>{}); break;
          default: body(std::integral_constant<int, 0>{}); break;
        }
      };
      if (flat) {
        const T* gq = g + n * Gl.n_stride;
        T* oq = out + n * Ol.n_stride + ooff;
        const int64_t cl = p.c;
        // NOTE [ Resample nearest backward prefetch ]
        // 2-D float32 channels-last with four uses per diff_src pixel (nearest upsampling by
        // 2 on both axes): when the next task (the next diff_src row, same thread and
        // image) reads the same columns of diff_dst rows that are all `pf` elements further
        // on, each vector's four lines of those rows are prefetched. At the start of a task
        // the hardware's prefetcher has no stream on the new rows yet. W5f nhwc float32,
        // 1 thread: the benchmark binary 1.17-1.23 -> 1.10-1.12 ms; a probe with both
        // buffers page-aligned (rows aliasing modulo 4 KiB) 1.41 -> 1.19 ms, with diff_dst
        // off a page boundary 1.08-1.09 -> 1.05 (docs/ops/resample.md). bfloat16 (two
        // vectors per line) was slower with it (0.55-0.56 -> 0.56 ms, 2 threads 0.265 ->
        // 0.28), so it keeps the hardware's prefetch alone, as the linear backward does.
        int64_t pf = 0;
        if constexpr (R == 2 && sizeof(T) == 4) {
          const ResampleAxisTable& ah = tb.axis[0];
          if (count == 4 && task + 1 < end && ii[0] + 1 < p.in[0]) {
            const int64_t nb = ah.begin[ii[0] + 1], ne = ah.begin[ii[0] + 2];
            if (ne - nb == e0 - b0 && ne > nb) {
              const int64_t step = ah.use_o[nb] - ah.use_o[b0];
              bool shifted = step > 0;
              for (int64_t u = 0; shifted && u < ne - nb; ++u) {
                shifted = ah.use_o[nb + u] - ah.use_o[b0 + u] == step;
              }
              if (shifted) pf = step * Gl.spatial_stride[0];
            }
          }
        }
        const int64_t pf_l = pf;
        by_count([&](auto nterms) {
          constexpr int kN = decltype(nterms)::value;
          for (int64_t iw = 0; iw < iw_n; ++iw) {
            const int64_t* o = of + ob[iw];
            const int64_t no = ob[iw + 1] - ob[iw];
            T* op = oq + iw * o_w;
            for (int64_t k = 0; k < cl; k += lanes) {
              if constexpr (kN == 4 && sizeof(T) == 4) {
                if (pf_l != 0) {
                  const T* next = gq + k + pf_l;
                  for (int j = 0; j < 4; ++j) hwy::Prefetch(next + o[j]);
                }
              }
              StoreOut(d, sum(nterms, full, gq + k, o, no), op + k, strm);
            }
          }
        });
      } else {
        // Chunk by chunk, along the row inside each (blocked layouts keep a chunk's row
        // contiguous).
        for (int64_t q = 0; q < nq; ++q) {
          const int64_t c0 = q * lanes;
          const int64_t real = std::min(lanes, p.c - c0);
          T* oq = out + n * Ol.n_stride + ChanOff(Ol, c0) + ooff;
          const bool whole = real >= lanes || Ol.block > 1;
          if (real <= 0) {  // padding channels only: +0
            for (int64_t iw = 0; iw < iw_n; ++iw) {
              if (whole) {
                StoreOut(d, hn::Zero(d), oq + iw * o_w, strm);
              } else {
                StorePartialF(d, hn::Zero(d), oq + iw * o_w, 0);
              }
            }
            continue;
          }
          const T* gq = g + n * Gl.n_stride + ChanOff(Gl, c0);
          auto part = [d, real](const T* ptr) { return LoadPartialF(d, ptr, real); };
          by_count([&](auto nterms) {
            for (int64_t iw = 0; iw < iw_n; ++iw) {
              const int64_t* o = of + ob[iw];
              const int64_t no = ob[iw + 1] - ob[iw];
              T* op = oq + iw * o_w;
              if (real == lanes) {
                StoreOut(d, sum(nterms, full, gq, o, no), op, strm);
              } else if (whole) {
                StoreOut(d, sum(nterms, part, gq, o, no), op, strm);
              } else {
                StorePartialF(d, sum(nterms, part, gq, o, no), op, real);
              }
            }
          });
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
template <size_t kCap>
void ChannelsBackward(const ResampleProblem& p, const void* t, const void* in, void* out) {
  Run(p, t, in, out, [&]<class T, int R>(const Tables& tb, const T* g, T* d) {
    Linear(p) ? BwdLinearC<T, R, kCap>(p, tb, g, d) : BwdNearestC<T, R, kCap>(p, tb, g, d);
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
void Channels16Backward(const ResampleProblem& p, const void* t, const void* in, void* out) {
  ChannelsBackward<kCap16>(p, t, in, out);
}
void Channels8Forward(const ResampleProblem& p, const void* t, const void* in, void* out) {
  ChannelsForward<8>(p, t, in, out);
}
void Channels8Backward(const ResampleProblem& p, const void* t, const void* in, void* out) {
  ChannelsBackward<8>(p, t, in, out);
}
void GenericForward(const ResampleProblem& p, const void* t, const void* in, void* out) {
  ChannelsForward<1>(p, t, in, out);
}
void GenericBackward(const ResampleProblem& p, const void* t, const void* in, void* out) {
  ChannelsBackward<1>(p, t, in, out);
}

}  // namespace HWY_NAMESPACE
}  // namespace gridops::kernels::resample_simd
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace gridops::kernels::resample_simd {
HWY_EXPORT(Channels16Forward);
HWY_EXPORT(Channels16Backward);
HWY_EXPORT(Channels8Forward);
HWY_EXPORT(Channels8Backward);
HWY_EXPORT(GenericForward);
HWY_EXPORT(GenericBackward);
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
void resample_channels16_backward(const ResampleProblem& p, const void* tables,
                                  const void* diff_dst, void* diff_src) {
  HWY_DYNAMIC_DISPATCH(Channels16Backward)(p, tables, diff_dst, diff_src);
}
std::string resample_channels8_declines(const ResampleProblem& p) {
  return channels_declines(p, 8);
}
void resample_channels8_forward(const ResampleProblem& p, const void* tables, const void* src,
                                void* dst) {
  HWY_DYNAMIC_DISPATCH(Channels8Forward)(p, tables, src, dst);
}
void resample_channels8_backward(const ResampleProblem& p, const void* tables,
                                 const void* diff_dst, void* diff_src) {
  HWY_DYNAMIC_DISPATCH(Channels8Backward)(p, tables, diff_dst, diff_src);
}

// --- resample.generic -----------------------------------------------------------------------

void resample_generic_forward(const ResampleProblem& p, const void* tables, const void* src,
                              void* dst) {
  HWY_DYNAMIC_DISPATCH(GenericForward)(p, tables, src, dst);
}
void resample_generic_backward(const ResampleProblem& p, const void* tables,
                               const void* diff_dst, void* diff_src) {
  HWY_DYNAMIC_DISPATCH(GenericBackward)(p, tables, diff_dst, diff_src);
}

}  // namespace gridops::kernels
#endif  // HWY_ONCE
