// The backward of resample.plain (both tensors contiguous along the innermost spatial
// axis): diff_src = A^T diff_dst from the W adjoint in vector-chunk form
// (ResampleChunkTable), float32 and bfloat16, written once with Highway; its declines,
// tables and forward are in resample_plain_hwy.cc. See NOTE [ Fast resample arithmetic ]
// in resample_hwy-inl.h and docs/ops/resample.md.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "gridops/parallel.h"
#include "kernels/resample/resample.h"
#include "kernels/resample/resample_fast.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/resample/resample_plain_backward_hwy.cc"
#include <hwy/cache_control.h>
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include "kernels/resample/resample_hwy-inl.h"

HWY_BEFORE_NAMESPACE();
namespace gridops::kernels::resample_simd {
namespace HWY_NAMESPACE {

/// NOTE [ Resample plain backward windows ]: the plain backward kernels fetch, for each
/// slot of a diff_src chunk (one W use per lane, ResampleChunkTable), the lanes' values
/// from a row of Ow floats. The uses of a slot usually lie within one or two vectors of
/// the row (an upsampling by up to 2 along W: all of them), so they are fetched with a
/// lane permutation of one or two loaded vectors (as the forward's w_taps) instead of a
/// gather (docs/perf/resample.md, "Plain backward windows"). Mode 0 slots (uses spread
/// wider, or rows shorter than the window) keep the gather. Windows stay inside [0, Ow).
/// Only where a value comes from changes: the sums are the same operations in the same
/// order (same bits).
/// The values row[idx] of slot sl's lanes (at = sl * N): by its window (w_slots) or a
/// gather.
template <class D>
HWY_INLINE hn::Vec<D> FetchSlot(D d, const float* row, const ResampleChunkTable& ct,
                                const int32_t* ws, const int32_t* wm, const int32_t* wr,
                                int64_t sl, size_t at) {
  const hn::RebindToSigned<D> di;
  const int64_t N = static_cast<int64_t>(hn::Lanes(d));
  const int32_t mode = wm[sl];
  if (mode == 2) {
    const float* rp = row + ws[sl];
    return Lookup2(d, hn::LoadU(d, rp), hn::LoadU(d, rp + N), hn::LoadU(di, wr + at));
  }
  if (mode == 1) return Lookup1(d, hn::LoadU(d, row + ws[sl]), hn::LoadU(di, wr + at));
  return hn::GatherIndex(d, row, hn::LoadU(di, ct.idx.data() + at));
}

/// NOTE [ Resample plain backward prefetch ]: a 2-D plain backward task (one diff_src row)
/// reads the diff_dst rows that use it; the next tasks read the rows after them, about
/// ceil(Oh / Ih) new rows each: a forward walk through diff_dst in runs too short for the
/// hardware prefetcher. Each task therefore prefetches that many rows' bytes starting about
/// kPrefetchBytes after the end of its last row (a hint computed on integers, never
/// dereferenced), as the forward does (NOTE [ Resample plain prefetch ]). Used by the
/// float32 linear backward only: bfloat16 and the nearest backward were slower with it
/// (docs/perf/resample.md, "Plain backward prefetch").
struct BwdRowHint {
  bool on = false;
  int64_t row_bytes = 0, len = 0, ahead = 0;
};
template <class T, int R>
BwdRowHint MakeBwdRowHint(const ResampleProblem& p) {
  BwdRowHint h;
  if constexpr (R == 2) {
    const int64_t ih = p.in[0], oh = p.out[0];
    if (ih <= 0 || oh <= 0) return h;
    h.row_bytes = p.out[1] * static_cast<int64_t>(sizeof(T));
    h.len = (oh + ih - 1) / ih * h.row_bytes;
    h.ahead = h.len > 0 ? std::max<int64_t>(0, (kPrefetchBytes / h.len - 1) * h.len) : 0;
    h.on = h.len > 0 && p.dst.spatial_stride[0] == p.out[1];  // rows of diff_dst adjacent
  }
  (void)p;
  return h;
}
/// The hint for a task whose last diff_dst row starts at `last_row`.
template <class T>
HWY_INLINE void PrefetchAfterRow(const BwdRowHint& h, const T* last_row) {
  const uintptr_t from = reinterpret_cast<uintptr_t>(last_row) +
                         static_cast<uintptr_t>(h.row_bytes + h.ahead);
  for (int64_t b = 0; b < h.len; b += 64) {
    hwy::Prefetch(reinterpret_cast<const char*>(from + static_cast<uintptr_t>(b)));
  }
}

template <class T, int R>
void BwdLinearP(const ResampleProblem& p, const Tables& tb, const T* g, T* out) {
  const hn::ScalableTag<float> d;
  const hn::RebindToSigned<decltype(d)> di;
  const hn::CappedTag<float, 1> d1;
  const int64_t N = static_cast<int64_t>(hn::Lanes(d));
  const ResampleLayout& Gl = p.dst;
  const ResampleLayout& Ol = p.src;
  const int64_t Iw = p.in[R - 1], Ow = p.out[R - 1];
  const int64_t outer = OuterCount<R>(p.in);
  const int64_t tasks = p.n * p.c * outer;
  const ResampleChunkTable& ct = tb.chunks;
  const bool stream =
      tasks * Iw * static_cast<int64_t>(sizeof(T)) >= resample_stream_min_bytes();
  const ResampleSlotWindows& sw = tb.w_slots;  // resample_plain_prepare
  // NOTE [ Resample plain backward prefetch ]: float32 only.
  const BwdRowHint hint = sizeof(T) == 4 ? MakeBwdRowHint<T, R>(p) : BwdRowHint{};
  const int32_t* const ws_p = sw.start.data();
  const int32_t* const wm_p = sw.mode.data();
  const int32_t* const wr_p = sw.rel.data();
  parallel_for(tasks, GrainFor(Ow), [&](int64_t begin, int64_t end) {
    std::vector<float> t(static_cast<size_t>(Ow + N));
    for (int64_t task = begin; task < end; ++task) {
      const int64_t pos = task % outer;
      const int64_t nc = task / outer;
      const int64_t n = nc / p.c, c = nc % p.c;
      int64_t ii[2] = {0, 0};
      OuterIndex<R>(pos, p.in, ii);
      const T* gs = g + n * Gl.n_stride + c * Gl.c_block_stride;
      T* o = out + n * Ol.n_stride + c * Ol.c_block_stride;
      bool empty = false;
      const float* row = t.data();
      if constexpr (R == 1) {
        if constexpr (sizeof(T) == 4) {
          row = reinterpret_cast<const float*>(gs);
        } else {
          int64_t i = 0;
          for (; i + N <= Ow; i += N) hn::StoreU(LoadF(d, gs + i), d, t.data() + i);
          for (; i < Ow; ++i) t[i] = ToF32(gs[i]);
        }
      } else {
        const ResampleAxisTable& ah = tb.axis[R - 2];
        const int64_t hb = ah.begin[ii[R - 2]], he = ah.begin[ii[R - 2] + 1];
        int64_t db = 0, de = 1;
        if constexpr (R == 3) {
          db = tb.axis[0].begin[ii[0]];
          de = tb.axis[0].begin[ii[0] + 1];
          o += ii[0] * Ol.spatial_stride[0] + ii[1] * Ol.spatial_stride[1];
        } else {
          o += ii[0] * Ol.spatial_stride[0];
        }
        empty = hb == he || db == de;
        if (hint.on && !empty && end - task > 1) {
          PrefetchAfterRow(hint, gs + ah.use_o[he - 1] * Gl.spatial_stride[0]);
        }
        if (!empty) {
          auto one = [&](auto dt, int64_t i) {
            using DT = decltype(dt);
            hn::Vec<DT> r = hn::Zero(dt);
            for (int64_t uh = hb; uh < he; ++uh) {
              const T* ph = gs + ah.use_o[uh] * Gl.spatial_stride[R - 2] + i;
              hn::Vec<DT> in;
              if constexpr (R == 3) {
                const ResampleAxisTable& ad = tb.axis[0];
                in = hn::Mul(hn::Set(dt, ad.use_w[db]),
                             LoadF(dt, ph + ad.use_o[db] * Gl.spatial_stride[0]));
                for (int64_t ud = db + 1; ud < de; ++ud) {
                  in = hn::MulAdd(hn::Set(dt, ad.use_w[ud]),
                                  LoadF(dt, ph + ad.use_o[ud] * Gl.spatial_stride[0]), in);
                }
              } else {
                in = LoadF(dt, ph);
              }
              const auto wh = hn::Set(dt, ah.use_w[uh]);
              r = uh == hb ? hn::Mul(wh, in) : hn::MulAdd(wh, in, r);
            }
            hn::StoreU(r, dt, t.data() + i);
          };
          int64_t i = 0;
          for (; i + N <= Ow; i += N) one(d, i);
          for (; i < Ow; ++i) one(d1, i);
        }
      }
      for (int64_t k = 0, iw = 0; iw < Iw; ++k, iw += N) {
        auto r = hn::Zero(d);
        if (!empty) {
          for (int64_t sl = ct.slot_begin[k]; sl < ct.slot_begin[k + 1]; ++sl) {
            const size_t at = static_cast<size_t>(sl * N);
            const auto w = hn::LoadU(d, ct.w.data() + at);
            const auto valid =
                hn::RebindMask(d, hn::Gt(hn::LoadU(di, ct.valid.data() + at), hn::Zero(di)));
            const auto x = FetchSlot(d, row, ct, ws_p, wm_p, wr_p, sl, at);
            r = sl == ct.slot_begin[k] ? hn::IfThenElseZero(valid, hn::Mul(w, x))
                                       : hn::IfThenElse(valid, hn::MulAdd(w, x, r), r);
          }
        }
        if (iw + N <= Iw) {
          StoreOut(d, r, o + iw, stream && reinterpret_cast<uintptr_t>(o) % (N * sizeof(T)) == 0);
        } else {
          StorePartialF(d, r, o + iw, Iw - iw);
        }
      }
    }
    if (stream) hwy::FlushStream();
  });
}

/// Nearest backward in float32: per input element the gradients of the outputs that read
/// it, in the lexicographic order of the output index (rows in order, then the W uses of
/// each row in order), first term assigned, then Add; rounded once to bfloat16. The same
/// operations in the same order as the channel-vector kernels (same bits).
template <class T, int R>
void BwdNearestP(const ResampleProblem& p, const Tables& tb, const T* g, T* out) {
  const hn::ScalableTag<float> d;
  const int64_t N = static_cast<int64_t>(hn::Lanes(d));
  const ResampleLayout& Gl = p.dst;
  const ResampleLayout& Ol = p.src;
  const int64_t Iw = p.in[R - 1], Ow = p.out[R - 1];
  const int64_t outer = OuterCount<R>(p.in);
  const int64_t tasks = p.n * p.c * outer;
  const ResampleChunkTable& ct = tb.chunks;
  const int64_t nchunks = (Iw + N - 1) / N;
  const ResampleSlotWindows& sw = tb.w_slots;  // resample_plain_prepare
  const int32_t* const ws_p = sw.start.data();
  const int32_t* const wm_p = sw.mode.data();
  const int32_t* const wr_p = sw.rel.data();
  parallel_for(tasks, GrainFor(Ow * 2), [&](int64_t begin, int64_t end) {
    std::vector<float> acc(static_cast<size_t>(nchunks * N));
    std::vector<float> conv(sizeof(T) == 4 ? 0 : static_cast<size_t>(Ow + 16));
    for (int64_t task = begin; task < end; ++task) {
      const int64_t pos = task % outer;
      const int64_t nc = task / outer;
      const int64_t n = nc / p.c, c = nc % p.c;
      int64_t ii[2] = {0, 0};
      OuterIndex<R>(pos, p.in, ii);
      const T* gs = g + n * Gl.n_stride + c * Gl.c_block_stride;
      // Outer uses: ranges of axis 0 and axis 1 (one element when absent).
      const OuterUses ou = MakeOuterUses<R>(tb, Ol, ii);
      const int64_t b0 = ou.b0, e0 = ou.e0, b1 = ou.b1, e1 = ou.e1;
      T* o = out + n * Ol.n_stride + c * Ol.c_block_stride + ou.off;
      std::fill(acc.begin(), acc.end(), 0.0f);
      bool first = true;
      for (int64_t u0 = b0; u0 < e0; ++u0) {
        const int64_t off0 = R >= 2 ? tb.axis[0].use_o[u0] * Gl.spatial_stride[0] : 0;
        for (int64_t u1 = b1; u1 < e1; ++u1) {
          const int64_t off1 = R == 3 ? tb.axis[1].use_o[u1] * Gl.spatial_stride[1] : 0;
          const T* grow = gs + off0 + off1;
          const float* row;
          if constexpr (sizeof(T) == 4) {
            row = reinterpret_cast<const float*>(grow);
          } else {
            int64_t i = 0;
            for (; i + N <= Ow; i += N) hn::StoreU(LoadF(d, grow + i), d, conv.data() + i);
            for (; i < Ow; ++i) conv[i] = ToF32(grow[i]);
            row = conv.data();
          }
          for (int64_t k = 0; k < nchunks; ++k) {
            float* ak = acc.data() + k * N;
            auto a = hn::LoadU(d, ak);
            for (int64_t sl = ct.slot_begin[k]; sl < ct.slot_begin[k + 1]; ++sl) {
              const size_t at = static_cast<size_t>(sl * N);
              const auto valid = hn::Gt(hn::LoadU(d, ct.w.data() + at), hn::Zero(d));
              const auto x = FetchSlot(d, row, ct, ws_p, wm_p, wr_p, sl, at);
              a = first && sl == ct.slot_begin[k] ? hn::IfThenElseZero(valid, x)
                                                  : hn::IfThenElse(valid, hn::Add(a, x), a);
            }
            hn::StoreU(a, d, ak);
          }
          first = false;
        }
      }
      int64_t iw = 0;
      for (int64_t k = 0; iw + N <= Iw; ++k, iw += N) StoreF(d, hn::LoadU(d, acc.data() + k * N), o + iw);
      if (iw < Iw) StorePartialF(d, hn::LoadU(d, acc.data() + iw), o + iw, Iw - iw);
    }
  });
}

// --- entry points ---------------------------------------------------------------------------

// resample.plain
void PlainBackward(const ResampleProblem& p, const void* t, const void* in, void* out) {
  Run(p, t, in, out, [&]<class T, int R>(const Tables& tb, const T* g, T* d) {
    Linear(p) ? BwdLinearP<T, R>(p, tb, g, d) : BwdNearestP<T, R>(p, tb, g, d);
  });
}

}  // namespace HWY_NAMESPACE
}  // namespace gridops::kernels::resample_simd
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace gridops::kernels::resample_simd {
HWY_EXPORT(PlainBackward);
}  // namespace gridops::kernels::resample_simd

namespace gridops::kernels {
// HWY_DYNAMIC_DISPATCH names the tables of HWY_EXPORT unqualified.
using namespace resample_simd;  // NOLINT(google-build-using-namespace)

void resample_plain_backward(const ResampleProblem& p, const void* tables, const void* diff_dst,
                             void* diff_src) {
  HWY_DYNAMIC_DISPATCH(PlainBackward)(p, tables, diff_dst, diff_src);
}

}  // namespace gridops::kernels
#endif  // HWY_ONCE
