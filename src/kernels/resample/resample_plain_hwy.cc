// The plain path of fast resampling, resample.plain (both tensors unblocked and contiguous
// along W; vectors along W), forward and backward, float32 and bfloat16, written once with
// Highway.
// See NOTE [ Fast resample arithmetic ] in resample_hwy-inl.h and docs/ops/resample.md.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "gridops/parallel.h"
#include "kernels/resample/resample.h"
#include "kernels/resample/resample_fast.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/resample/resample_plain_hwy.cc"
#include <hwy/cache_control.h>
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include "kernels/resample/resample_hwy-inl.h"

HWY_BEFORE_NAMESPACE();
namespace gridops::kernels::resample_simd {
namespace HWY_NAMESPACE {

// =====================================================================================
// Plain kernels: both tensors contiguous along the innermost spatial axis (nchw, ...);
// vectors run along that axis, taps come from gathers out of a row in cache.
// =====================================================================================

// --- in-register taps for the plain kernels -----------------------------------------------

/// v[0, Iw) = the outer axes' interpolation of the src rows at so[] (float32).
template <class T, int R, class D>
HWY_INLINE void OuterRowsF(D d, const T* s, const int64_t* so, float wa0, float wa1, float wb0,
                           float wb1, int64_t Iw, float* v) {
  const int64_t N = static_cast<int64_t>(hn::Lanes(d));
  const hn::CappedTag<float, 1> d1;
  auto one = [&](auto dt, int64_t i) {
    using DT = decltype(dt);
    const auto a0 = hn::Set(dt, wa0), a1 = hn::Set(dt, wa1);
    hn::Vec<DT> r;
    if constexpr (R == 1) {
      r = LoadF(dt, s + i);
    } else if constexpr (R == 2) {
      r = Lerp<DT>(a0, a1, LoadF(dt, s + so[0] + i), LoadF(dt, s + so[1] + i));
    } else {
      const auto lo = Lerp<DT>(a0, a1, LoadF(dt, s + so[0] + i), LoadF(dt, s + so[1] + i));
      const auto hi = Lerp<DT>(a0, a1, LoadF(dt, s + so[2] + i), LoadF(dt, s + so[3] + i));
      r = Lerp<DT>(hn::Set(dt, wb0), hn::Set(dt, wb1), lo, hi);
    }
    hn::StoreU(r, dt, v + i);
  };
  int64_t i = 0;
  for (; i + N <= Iw; i += N) one(d, i);
  for (; i < Iw; ++i) one(d1, i);
}

// NOTE [ Resample plain prefetch ]
// A plain forward task reads its source rows (2 per task in 2-D, 4 in 3-D) and, when the
// outer axes do not grow (as many source rows as output rows or more, so tasks seldom
// share one), the next task the rows after them: a forward walk through src that the
// hardware prefetcher of this host did not keep up with. So there each task first
// prefetches as many bytes as it reads, starting about kPrefetchBytes after the end of its
// last row: the rows of a task that many bytes on for a 2x reduction, nearby ones
// otherwise (a hint; computed on integers, never dereferenced; in 3-D it follows the
// second depth slice's rows only). Exact rows of task + k
// (its tap tables, with the divisions that locate a task) were slower, and upsampling
// (tasks reuse rows) was slower with the hint, so it is off there (docs/perf/resample.md,
// "Plain forward prefetch"). kPrefetchBytes: resample_hwy-inl.h.

template <class T, int R>
void FwdLinearP(const ResampleProblem& p, const Tables& tb, const T* src, T* dst) {
  const hn::ScalableTag<float> d;
  const hn::RebindToSigned<decltype(d)> di;
  const int64_t N = static_cast<int64_t>(hn::Lanes(d));
  const ResampleLayout& S = p.src;
  const ResampleLayout& Dl = p.dst;
  const int64_t Iw = p.in[R - 1], Ow = p.out[R - 1];
  const int64_t outer = OuterCount<R>(p.out);
  const int64_t tasks = p.n * p.c * outer;
  const ResampleAxisTable& aw = tb.axis[R - 1];
  const bool stream =
      tasks * Ow * static_cast<int64_t>(sizeof(T)) >= resample_stream_min_bytes();
  // W taps by lane permutations of one or two loaded vectors (gathers where they spread).
  const ResampleTapChunks& tc = tb.w_taps;  // two taps (resample_plain_prepare)
  const int32_t* tc_start = tc.start.data();
  const int32_t* tc_mode = tc.mode.data();
  const int32_t* tc_rel0 = tc.rel0.data();
  const int32_t* tc_rel1 = tc.rel1.data();
  const int32_t* i0p = aw.i0.data();
  const int32_t* i1p = aw.i1.data();
  const float* w0p = aw.w0.data();
  const float* w1p = aw.w1.data();
  // NOTE [ Resample plain prefetch ]: the outer axes do not grow; the hint's distance in
  // bytes past the task's last row, and its length.
  constexpr int64_t kRowsPerTask = R == 2 ? 2 : 4;
  const int64_t row_bytes = Iw * static_cast<int64_t>(sizeof(T));
  const bool prefetch = R >= 2 && outer <= OuterCount<R>(p.in);
  const int64_t pf_len = kRowsPerTask * row_bytes;
  const int64_t pf_ahead =
      pf_len > 0 ? std::max<int64_t>(0, (kPrefetchBytes / pf_len - 1) * pf_len) : 0;
  parallel_for(tasks, GrainFor(Ow), [&](int64_t begin, int64_t end) {
    std::vector<float> v(static_cast<size_t>(Iw + N));
    for (int64_t task = begin; task < end; ++task) {
      const int64_t pos = task % outer;
      const int64_t nc = task / outer;
      const int64_t n = nc / p.c, c = nc % p.c;
      int64_t oi[2] = {0, 0};
      OuterIndex<R>(pos, p.out, oi);
      const OuterTaps ot = MakeOuterTaps<R>(tb, S, Dl, oi);
      const int64_t* so = ot.so;
      const float wa0 = ot.wa0, wa1 = ot.wa1, wb0 = ot.wb0, wb1 = ot.wb1;
      const int64_t doff = ot.doff;
      const T* s = src + n * S.n_stride + c * S.c_block_stride;
      T* o = dst + n * Dl.n_stride + c * Dl.c_block_stride + doff;
      const float* row = v.data();
      if (prefetch && end - task > 1) {
        // NOTE [ Resample plain prefetch ]
        const uintptr_t from = reinterpret_cast<uintptr_t>(s + so[kRowsPerTask - 1]) +
                               static_cast<uintptr_t>(row_bytes + pf_ahead);
        for (int64_t b = 0; b < pf_len; b += 64) {
          hwy::Prefetch(reinterpret_cast<const char*>(from + static_cast<uintptr_t>(b)));
        }
      }
      if constexpr (R == 1 && sizeof(T) == 4) {
        row = reinterpret_cast<const float*>(s);
      } else {
        OuterRowsF<T, R>(d, s, so, wa0, wa1, wb0, wb1, Iw, v.data());
      }
      const bool st = stream && reinterpret_cast<uintptr_t>(o) % (N * sizeof(T)) == 0;
      for (int64_t k = 0, ow = 0; ow < Ow; ++k, ow += N) {
        hn::Vec<decltype(d)> a, b;
        const int32_t mode = tc_mode[k];
        if (mode == 2) {
          const float* rp = row + tc_start[k];
          const auto lo = hn::LoadU(d, rp), hi = hn::LoadU(d, rp + N);
          a = Lookup2(d, lo, hi, hn::LoadU(di, tc_rel0 + ow));
          b = Lookup2(d, lo, hi, hn::LoadU(di, tc_rel1 + ow));
        } else if (mode == 1) {
          const auto x = hn::LoadU(d, row + tc_start[k]);
          a = Lookup1(d, x, hn::LoadU(di, tc_rel0 + ow));
          b = Lookup1(d, x, hn::LoadU(di, tc_rel1 + ow));
        } else {
          a = hn::GatherIndex(d, row, hn::LoadU(di, i0p + ow));
          b = hn::GatherIndex(d, row, hn::LoadU(di, i1p + ow));
        }
        const auto r = Lerp<decltype(d)>(hn::LoadU(d, w0p + ow), hn::LoadU(d, w1p + ow), a, b);
        if (ow + N <= Ow) {
          StoreOut(d, r, o + ow, st);
        } else {
          StorePartialF(d, r, o + ow, Ow - ow);
        }
      }
    }
    if (stream) hwy::FlushStream();
  });
}

template <class T, int R>
void FwdNearestP(const ResampleProblem& p, const Tables& tb, const T* src, T* dst) {
  const ResampleLayout& S = p.src;
  const ResampleLayout& Dl = p.dst;
  const int64_t Ow = p.out[R - 1];
  const int64_t outer = OuterCount<R>(p.out);
  const int64_t tasks = p.n * p.c * outer;
  const ResampleAxisTable& aw = tb.axis[R - 1];
  const bool stream =
      tasks * Ow * static_cast<int64_t>(sizeof(T)) >= resample_stream_min_bytes();
  const int64_t padded_ow = (Ow + 15) / 16 * 16;  // the index table's padded length
  // f32: source rows are fetched by lane permutations (gathers where the taps spread).
  const ResampleTapChunks& tc = tb.w_taps;  // one tap (resample_plain_prepare)
  const int32_t* tc_start = tc.start.data();
  const int32_t* tc_mode = tc.mode.data();
  const int32_t* tc_rel0 = tc.rel0.data();
  const int32_t* i0p = aw.i0.data();
  const int64_t Iw = p.in[R - 1];
  // The 32-bit elements of output chunk j (outputs [k, k + N)) from the source row `r`.
  const auto fetch = [&](auto du, const uint32_t* r, int64_t j, int64_t k) {
    const hn::RebindToSigned<decltype(du)> di;
    const int64_t N = static_cast<int64_t>(hn::Lanes(du));
    const int32_t mode = tc_mode[j];
    if (mode == 2) {
      const uint32_t* rp = r + tc_start[j];
      return Lookup2(du, hn::LoadU(du, rp), hn::LoadU(du, rp + N), hn::LoadU(di, tc_rel0 + k));
    }
    if (mode == 1) return Lookup1(du, hn::LoadU(du, r + tc_start[j]), hn::LoadU(di, tc_rel0 + k));
    return hn::GatherIndex(du, r, hn::LoadU(di, i0p + k));
  };
  parallel_for(tasks, GrainFor(Ow), [&](int64_t begin, int64_t end) {
    std::vector<uint32_t> row(sizeof(T) == 4 ? static_cast<size_t>(padded_ow) : 0);
    const uint32_t* last = nullptr;
    // 2-byte elements: the source row widened to 32-bit lanes (then fetched exactly as the
    // f32 rows are) and the output row narrowed back; bits are copied, never converted.
    std::vector<uint32_t> wide(sizeof(T) == 2 ? static_cast<size_t>(Iw) : 0);
    std::vector<uint16_t> row16(sizeof(T) == 2 ? static_cast<size_t>(padded_ow) : 0);
    const uint16_t* last16 = nullptr;
    for (int64_t task = begin; task < end; ++task) {
      const int64_t pos = task % outer;
      const int64_t nc = task / outer;
      const int64_t n = nc / p.c, c = nc % p.c;
      int64_t oi[2] = {0, 0};
      OuterIndex<R>(pos, p.out, oi);
      int64_t so = 0, doff = 0;
      for (int k = 0; k < R - 1; ++k) {
        so += tb.axis[k].i0[oi[k]] * S.spatial_stride[k];
        doff += oi[k] * Dl.spatial_stride[k];
      }
      const T* s = src + n * S.n_stride + c * S.c_block_stride + so;
      T* o = dst + n * Dl.n_stride + c * Dl.c_block_stride + doff;
      if constexpr (sizeof(T) == 4) {
        const hn::ScalableTag<uint32_t> du;
        const int64_t N = static_cast<int64_t>(hn::Lanes(du));
        const auto* s32 = reinterpret_cast<const uint32_t*>(s);
        // Gather a source row once into the scratch row; output rows that repeat it (an
        // upsampled outer axis) are plain copies of the scratch row.
        if (s32 != last) {
          for (int64_t k = 0, j = 0; k < Ow; k += N, ++j) hn::StoreU(fetch(du, s32, j, k), du, row.data() + k);
          last = s32;
        }
        CopyRowOut(du, row.data(), reinterpret_cast<uint32_t*>(o), Ow, stream);
      } else if constexpr (sizeof(T) == 2) {
        const hn::ScalableTag<uint32_t> du;
        const hn::RebindToSigned<decltype(du)> di;
        const hn::Rebind<uint16_t, decltype(du)> dh;  // N uint16 lanes
        const hn::ScalableTag<uint16_t> d16;          // a full vector of uint16
        const int64_t N = static_cast<int64_t>(hn::Lanes(du));
        const auto* s16 = reinterpret_cast<const uint16_t*>(s);
        auto* o16 = reinterpret_cast<uint16_t*>(o);
        if (s16 != last16) {
          int64_t k = 0;
          for (; k + N <= Iw; k += N) hn::StoreU(hn::PromoteTo(du, hn::LoadU(dh, s16 + k)), du, wide.data() + k);
          for (; k < Iw; ++k) wide[static_cast<size_t>(k)] = s16[k];
          const uint32_t* w32 = wide.data();
          // Every lane holds a value below 2^16: the saturating narrowing is exact.
          for (int64_t kk = 0, j = 0; kk < Ow; kk += N, ++j) {
            hn::StoreU(hn::DemoteTo(dh, hn::BitCast(di, fetch(du, w32, j, kk))), dh, row16.data() + kk);
          }
          last16 = s16;
        }
        CopyRowOut(d16, row16.data(), o16, Ow, stream);
      } else {
        for (int64_t ow = 0; ow < Ow; ++ow) o[ow] = s[aw.i0[ow]];
      }
    }
    if (stream) hwy::FlushStream();
  });
}

// --- entry points ---------------------------------------------------------------------------

// resample.plain
void PlainForward(const ResampleProblem& p, const void* t, const void* in, void* out) {
  Run(p, t, in, out, [&]<class T, int R>(const Tables& tb, const T* s, T* d) {
    Linear(p) ? FwdLinearP<T, R>(p, tb, s, d) : FwdNearestP<T, R>(p, tb, s, d);
  });
}

int64_t LanesF32() { return static_cast<int64_t>(hn::Lanes(hn::ScalableTag<float>())); }

}  // namespace HWY_NAMESPACE
}  // namespace gridops::kernels::resample_simd
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace gridops::kernels::resample_simd {
HWY_EXPORT(PlainForward);
HWY_EXPORT(LanesF32);
}  // namespace gridops::kernels::resample_simd

namespace gridops::kernels {
// HWY_DYNAMIC_DISPATCH names the tables of HWY_EXPORT unqualified.
using namespace resample_simd;  // NOLINT(google-build-using-namespace)

namespace {

ResampleChunkTable make_chunks(const ResampleAxisTable& a, int64_t lanes) {
  ResampleChunkTable t;
  t.lanes = lanes;
  const int64_t nchunks = (a.in + lanes - 1) / lanes;
  t.slot_begin.assign(static_cast<size_t>(nchunks) + 1, 0);
  for (int64_t k = 0; k < nchunks; ++k) {
    int64_t m = 0;
    for (int64_t l = 0; l < lanes; ++l) {
      const int64_t i = k * lanes + l;
      if (i < a.in) m = std::max(m, a.begin[i + 1] - a.begin[i]);
    }
    t.slot_begin[k + 1] = t.slot_begin[k] + m;
  }
  const size_t total = static_cast<size_t>(t.slot_begin[nchunks] * lanes);
  t.idx.assign(total, 0);
  t.w.assign(total, 0.0f);
  t.valid.assign(total, 0);
  for (int64_t k = 0; k < nchunks; ++k) {
    for (int64_t l = 0; l < lanes; ++l) {
      const int64_t i = k * lanes + l;
      if (i >= a.in) continue;
      for (int64_t j = 0; j < a.begin[i + 1] - a.begin[i]; ++j) {
        const size_t at = static_cast<size_t>((t.slot_begin[k] + j) * lanes + l);
        t.idx[at] = a.use_o[a.begin[i] + j];
        t.w[at] = a.use_w[a.begin[i] + j];
        t.valid[at] = 1;
      }
    }
  }
  return t;
}

ResampleTapChunks make_tap_chunks(const ResampleAxisTable& a, int64_t N, bool two_taps) {
  const int64_t Iw = a.in, Ow = a.out;
  const int64_t nch = (Ow + N - 1) / N;
  ResampleTapChunks t;
  t.start.assign(static_cast<size_t>(nch), 0);
  t.mode.assign(t.start.size(), 0);
  t.rel0.assign(static_cast<size_t>(nch * N), 0);
  t.rel1.assign(t.rel0.size(), 0);
  for (int64_t k = 0; k < nch; ++k) {
    const int64_t o0 = k * N, o1 = std::min(Ow, o0 + N);
    int64_t lo = a.i0[o0], hi = a.i0[o0];
    for (int64_t o = o0; o < o1; ++o) {
      lo = std::min<int64_t>({lo, a.i0[o], two_taps ? a.i1[o] : a.i0[o]});
      hi = std::max<int64_t>({hi, a.i0[o], two_taps ? a.i1[o] : a.i0[o]});
    }
    for (int64_t width = N; width <= 2 * N; width += N) {
      if (Iw < width) break;
      const int64_t start = std::min(lo, Iw - width);
      if (hi - start >= width) continue;
      t.start[k] = static_cast<int32_t>(start);
      t.mode[k] = static_cast<int32_t>(width / N);
      for (int64_t o = o0; o < o1; ++o) {
        t.rel0[o] = static_cast<int32_t>(a.i0[o] - start);
        t.rel1[o] = static_cast<int32_t>((two_taps ? a.i1[o] : a.i0[o]) - start);
      }
      break;
    }
  }
  return t;
}

ResampleSlotWindows make_slot_windows(const ResampleChunkTable& ct, int64_t N, int64_t nchunks,
                                      int64_t Ow) {
  const int64_t nslots = ct.slot_begin[static_cast<size_t>(nchunks)];
  ResampleSlotWindows t;
  t.start.assign(static_cast<size_t>(nslots), 0);
  t.mode.assign(t.start.size(), 0);
  t.rel.assign(static_cast<size_t>(nslots * N), 0);
  // A lane's value is used where it is valid (linear) or has a positive weight (nearest).
  auto used = [&](size_t at) { return ct.valid[at] > 0 || ct.w[at] > 0.0f; };
  for (int64_t sl = 0; sl < nslots; ++sl) {
    int64_t lo = Ow, hi = -1;
    for (int64_t l = 0; l < N; ++l) {
      const size_t at = static_cast<size_t>(sl * N + l);
      if (!used(at)) continue;
      lo = std::min<int64_t>(lo, ct.idx[at]);
      hi = std::max<int64_t>(hi, ct.idx[at]);
    }
    if (hi < 0) lo = hi = 0;  // no used lane: any window inside the row
    for (int64_t width = N; width <= 2 * N; width += N) {
      if (Ow < width) break;
      const int64_t start = std::min(lo, Ow - width);
      if (hi - start >= width) continue;
      t.start[static_cast<size_t>(sl)] = static_cast<int32_t>(start);
      t.mode[static_cast<size_t>(sl)] = static_cast<int32_t>(width / N);
      for (int64_t l = 0; l < N; ++l) {
        const size_t at = static_cast<size_t>(sl * N + l);
        if (used(at)) t.rel[at] = static_cast<int32_t>(ct.idx[at] - start);
      }
      break;
    }
  }
  return t;
}

bool w_contiguous(const ResampleProblem& p) {
  const int r = p.spatial_rank;
  return p.src.spatial_stride[r - 1] == 1 && p.dst.spatial_stride[r - 1] == 1 &&
         p.src.block == 1 && p.dst.block == 1;
}

}  // namespace

// --- resample.plain -----------------------------------------------------------------------

std::string resample_plain_declines(const ResampleProblem& p) {
  std::string why = resample_fast_declines(p);
  if (!why.empty()) return why;
  if (!w_contiguous(p)) {
    return "src and dst are not both unblocked and contiguous along the last spatial axis";
  }
  return std::string();
}
std::shared_ptr<const void> resample_plain_prepare(const ResampleProblem& p) {
  auto t = resample_make_tables(p);
  const int64_t N = HWY_DYNAMIC_DISPATCH(LanesF32)();
  const ResampleAxisTable& aw = t->axis[p.spatial_rank - 1];
  t->chunks = make_chunks(aw, N);
  t->w_taps = make_tap_chunks(aw, N, /*two_taps=*/p.algorithm == ResampleAlgorithm::kLinear);
  t->w_slots = make_slot_windows(t->chunks, N, (aw.in + N - 1) / N, aw.out);
  return t;
}
void resample_plain_forward(const ResampleProblem& p, const void* tables, const void* src,
                            void* dst) {
  HWY_DYNAMIC_DISPATCH(PlainForward)(p, tables, src, dst);
}

}  // namespace gridops::kernels
#endif  // HWY_ONCE
