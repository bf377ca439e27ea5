// The backward of the channel-vector paths (resample.channels_vector16,
// resample.channels_vector8, resample.generic): diff_src = A^T diff_dst, float32 and
// bfloat16, written once with Highway; their declines and forward are in
// resample_channels_hwy.cc. See NOTE [ Fast resample arithmetic ] in resample_hwy-inl.h
// and docs/ops/resample.md.
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
#define HWY_TARGET_INCLUDE "kernels/resample/resample_channels_backward_hwy.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include "kernels/resample/resample_hwy-inl.h"

HWY_BEFORE_NAMESPACE();
namespace gridops::kernels::resample_simd {
namespace HWY_NAMESPACE {

// NOTE [ Resample linear backward outer uses in registers ]
// The 2-D linear backward's first pass when every chunk of the group is whole and kU (2-4)
// diff_dst rows use the diff_src row: t[ow][j] = sum_u hw[u] * g[qs[j] + ow * gsw + hoff[u]],
// first term a Mul, then MulAdd in use order (the bits of BwdLinearC's generic `sum`). The
// weights and offsets arrive by value and stay in registers; the generic loop reloads them
// per vector (vector stores may alias what it reaches by reference), which on 8-lane AVX2
// made that loop the kernel's bound (docs/perf/resample.md, "Linear backward outer uses in
// registers"). pfoff: the next task's rows to prefetch (NOTE [ Resample linear backward
// prefetch ]).
template <int kU, class D, class T>
HWY_INLINE void BwdLinearOuterUses(D d, const T* gsrc, const int64_t* qs, int64_t nql,
                                   const int64_t* pfoff, int64_t npf, int64_t Ow, int64_t gsw,
                                   int64_t G, const int64_t* hoff, const float* hw, float* t) {
  static_assert(kU >= 2 && kU <= 4, "two to four outer uses");
  const int64_t L = static_cast<int64_t>(hn::Lanes(d));
  const int64_t o0 = hoff[0], o1 = hoff[1], o2 = kU > 2 ? hoff[2] : 0, o3 = kU > 3 ? hoff[3] : 0;
  const auto w0 = hn::Set(d, hw[0]), w1 = hn::Set(d, hw[1]);
  const auto w2 = hn::Set(d, kU > 2 ? hw[2] : 0.0f), w3 = hn::Set(d, kU > 3 ? hw[3] : 0.0f);
  for (int64_t ow = 0; ow < Ow; ++ow) {
    for (int64_t j = 0; j < nql; ++j) {
      const T* px = gsrc + qs[j] + ow * gsw;
      for (int64_t k = 0; k < npf; ++k) hwy::Prefetch(px + pfoff[k]);
      auto r = hn::Mul(w0, LoadF(d, px + o0));
      r = hn::MulAdd(w1, LoadF(d, px + o1), r);
      if constexpr (kU > 2) r = hn::MulAdd(w2, LoadF(d, px + o2), r);
      if constexpr (kU > 3) r = hn::MulAdd(w3, LoadF(d, px + o3), r);
      hn::StoreU(r, d, t + (ow * G + j) * L);
    }
  }
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
      // below. Without it the first pass waited on those rows' lines. Not for bfloat16
      // channels-last (two vectors share a line) nor nChw16c, slower with it: those keep
      // the hardware's prefetch alone (docs/perf/resample.md, "Linear backward prefetch").
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
      // NOTE [ Resample linear backward outer uses in registers ]
      bool unrolled = false;
      if constexpr (R == 2) {
        bool whole = nh >= 2 && nh <= 4;
        for (int64_t j = 0; whole && j < nql; ++j) whole = qreal[j] == L;
        if (whole) {
          unrolled = true;
          const int64_t* q = qs.data();
          const int64_t* pf = pfoff.data();
          if (nh == 2) {
            BwdLinearOuterUses<2>(d, gsrc, q, nql, pf, npf, Ow, gsw, G, hoff.data(), hw.data(), tp);
          } else if (nh == 3) {
            BwdLinearOuterUses<3>(d, gsrc, q, nql, pf, npf, Ow, gsw, G, hoff.data(), hw.data(), tp);
          } else {
            BwdLinearOuterUses<4>(d, gsrc, q, nql, pf, npf, Ow, gsw, G, hoff.data(), hw.data(), tp);
          }
        }
      }
      for (int64_t ow = 0; !unrolled && ow < Ow; ++ow) {
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

/// Nearest backward in float32: each diff_src element is the sum of the gradients of the
/// outputs that read it, in the lexicographic order of the output index (the reference's
/// order), first term assigned, then Add; bfloat16 rounds the float32 sum once (to nearest
/// even). Within the stated bound of the reference (docs/ops/resample.md "Fast path").
// Over 150 lines: one parallel region whose loops keep everything they use in locals
// (vector stores may alias anything, so values reached through a helper's references or a
// closure are reloaded after each store); split, its parts would take them that way.
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
  // Chunks a pixel's run holds on both sides (NOTE [ Whole pixel blocks per output ]).
  const int64_t chunk_run = ChunkRun(Gl, Ol, L, nq);
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
        // the hardware's prefetcher has no stream on the new rows yet. bfloat16 (two
        // vectors per line) keeps the hardware's prefetch alone, as the linear backward
        // does (docs/perf/resample.md, "Nearest backward prefetch").
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
        // contiguous); a run of full chunks that lie together at every pixel on both sides
        // (a blocked pixel of several vectors) along the row once, each pixel's run
        // written whole (NOTE [ Whole pixel blocks per output ]: a streamed line is not
        // left half written). The same sums in the same order either way.
        const int64_t run = chunk_run;
        for (int64_t q = 0; q < nq; ++q) {
          const int64_t c0 = q * lanes;
          if (run > 1 && q % run == 0 && (q + run) * lanes <= p.c) {
            T* oq = out + n * Ol.n_stride + ChanOff(Ol, c0) + ooff;
            const T* gq = g + n * Gl.n_stride + ChanOff(Gl, c0);
            const int64_t rl = run * lanes;
            by_count([&](auto nterms) {
              for (int64_t iw = 0; iw < iw_n; ++iw) {
                const int64_t* o = of + ob[iw];
                const int64_t no = ob[iw + 1] - ob[iw];
                T* op = oq + iw * o_w;
                for (int64_t k = 0; k < rl; k += lanes) {
                  StoreOut(d, sum(nterms, full, gq + k, o, no), op + k, strm);
                }
              }
            });
            q += run - 1;
            continue;
          }
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
void Channels16Backward(const ResampleProblem& p, const void* t, const void* in, void* out) {
  ChannelsBackward<kCap16>(p, t, in, out);
}
void Channels8Backward(const ResampleProblem& p, const void* t, const void* in, void* out) {
  ChannelsBackward<8>(p, t, in, out);
}
void GenericBackward(const ResampleProblem& p, const void* t, const void* in, void* out) {
  ChannelsBackward<1>(p, t, in, out);
}

}  // namespace HWY_NAMESPACE
}  // namespace gridops::kernels::resample_simd
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace gridops::kernels::resample_simd {
HWY_EXPORT(Channels16Backward);
HWY_EXPORT(Channels8Backward);
HWY_EXPORT(GenericBackward);
}  // namespace gridops::kernels::resample_simd

namespace gridops::kernels {
// HWY_DYNAMIC_DISPATCH names the tables of HWY_EXPORT unqualified.
using namespace resample_simd;  // NOLINT(google-build-using-namespace)

void resample_channels16_backward(const ResampleProblem& p, const void* tables,
                                  const void* diff_dst, void* diff_src) {
  HWY_DYNAMIC_DISPATCH(Channels16Backward)(p, tables, diff_dst, diff_src);
}

void resample_channels8_backward(const ResampleProblem& p, const void* tables,
                                 const void* diff_dst, void* diff_src) {
  HWY_DYNAMIC_DISPATCH(Channels8Backward)(p, tables, diff_dst, diff_src);
}

void resample_generic_backward(const ResampleProblem& p, const void* tables,
                               const void* diff_dst, void* diff_src) {
  HWY_DYNAMIC_DISPATCH(GenericBackward)(p, tables, diff_dst, diff_src);
}

}  // namespace gridops::kernels
#endif  // HWY_ONCE
