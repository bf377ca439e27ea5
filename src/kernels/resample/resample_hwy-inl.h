// Shared by the Highway translation units of the fast resampling paths
// (resample_plain_hwy.cc, resample_channels_hwy.cc): loads and stores as float32, layout
// helpers and the one dtype-and-rank ladder.
// Included once per Highway target (Highway's per-target include guard).
//
// Fast resampling, forward and backward, float32 and bfloat16, written once with Highway.
//
// NOTE [ Fast resample arithmetic ]
// Every output element is computed by exactly one thread with the same operations in the
// same order whatever the layout, the vector width used for it, or the thread split, so
// results are identical across memory formats and thread counts. Per element:
// - linear forward, f32 arithmetic, axes reduced from the first spatial axis (D) to the
//   last (W): lerp(a, b) = MulAdd(w1, b, Mul(w0, a)), with the float32 weights of the plan;
//   2-D: lerp_w(lerp_h(x00, x10), lerp_h(x01, x11)); 3-D: lerp_w(lerp_h(lerp_d(..))).
//   Computed as: one "row" v[iw] = lerp_h(lerp_d(..)) over the input width, then the W lerp.
// - linear backward (the adjoint, from the same tables): sums over the CSR uses in
//   increasing output order, first term a Mul, then MulAdd; axis D innermost, W outermost:
//   diff_src[i] = sum_w ww * (sum_h wh * (sum_d wd * g)). Empty sums give +0.
// - nearest forward: a copy of the element (bit-exact).
// - nearest backward: the sum of the gradients in f32, in the lexicographic order of the
//   output index, first term assigned, then Add (bf16: the f32 sum rounded once to nearest
//   even). The reference sums in double and rounds once; the difference is bounded by
//   k 2^-24 S for k terms of absolute sum S (bf16: plus one bf16 ulp), not bit-exact.
// Accuracy of linear and nearest backward: see docs/ops/resample.md "Fast path".
#if defined(GRIDOPS_KERNELS_RESAMPLE_RESAMPLE_HWY_INL_H_) == defined(HWY_TARGET_TOGGLE)  // NOLINT
#ifdef GRIDOPS_KERNELS_RESAMPLE_RESAMPLE_HWY_INL_H_
#undef GRIDOPS_KERNELS_RESAMPLE_RESAMPLE_HWY_INL_H_
#else
#define GRIDOPS_KERNELS_RESAMPLE_RESAMPLE_HWY_INL_H_
#endif

#include <algorithm>
#include <cstdint>
#include <cstring>

#include <hwy/cache_control.h>
#include <hwy/highway.h>

#include "core/convert_hwy-inl.h"
#include "core/table_lookup_hwy-inl.h"
#include "gridops/dtype.h"
#include "kernels/resample/resample.h"
#include "kernels/resample/resample_fast.h"

HWY_BEFORE_NAMESPACE();
namespace gridops::kernels::resample_simd {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

using Tables = ResampleFastTables;

constexpr size_t kMaxF32Lanes = HWY_MAX_BYTES / 4;

inline float ToF32(float x) { return x; }
inline float ToF32(bfloat16 x) { return bf16_to_f32(x); }
template <class T>
inline T FromF32(float x);
template <>
inline float FromF32<float>(float x) {
  return x;
}
template <>
inline bfloat16 FromF32<bfloat16>(float x) {
  return f32_to_bf16(x);
}

// --- loads and stores as float32 ---------------------------------------------------------

template <class D>
HWY_INLINE hn::Vec<D> LoadF(D d, const float* p) {
  return hn::LoadU(d, p);
}
template <class D>
HWY_INLINE hn::Vec<D> LoadF(D d, const bfloat16* p) {
  return gridops::HWY_NAMESPACE::LoadBF16(d, p);
}

/// The first `real` elements (0 <= real <= lanes), zeros in the other lanes.
template <class D, class T>
HWY_INLINE hn::Vec<D> LoadPartialF(D d, const T* p, int64_t real) {
  HWY_ALIGN float buf[kMaxF32Lanes] = {};
  for (int64_t i = 0; i < real; ++i) buf[i] = ToF32(p[i]);
  return hn::LoadU(d, buf);
}

template <class D>
HWY_INLINE void StoreF(D d, hn::Vec<D> v, float* p) {
  hn::StoreU(v, d, p);
}
/// float32 -> bfloat16 round to nearest even, NaN quieted: bit-identical to f32_to_bf16.
template <class D>
HWY_INLINE void StoreF(D d, hn::Vec<D> v, bfloat16* p) {
  gridops::HWY_NAMESPACE::StoreBF16(d, v, p);
}

template <class D, class T>
HWY_INLINE void StorePartialF(D d, hn::Vec<D> v, T* p, int64_t count) {
  HWY_ALIGN float buf[kMaxF32Lanes] = {};
  hn::StoreU(v, d, buf);
  for (int64_t i = 0; i < count; ++i) p[i] = FromF32<T>(buf[i]);
}

/// A full-vector store, non-temporal when `stream` (the caller guarantees alignment to the
/// vector size and a full native vector: kCap >= 8).
/// hn::Stream where it is safe, else an ordinary store. On x86, Highway 1.0.3 streams a
/// vector narrower than 16 bytes (a float vector of 4 lanes as bfloat16 on SSE4: 8 bytes)
/// with the 16-byte store _mm_stream_si128: it writes past the vector and faults unless
/// the address is 16-byte aligned. Such vectors take StoreU; wider ones stream (the
/// callers' alignment checks are for whole vectors).
template <class D>
HWY_INLINE void StreamVec(D d, hn::Vec<D> v, hn::TFromD<D>* HWY_RESTRICT p) {
#if HWY_ARCH_X86
  if constexpr (hn::MaxLanes(D()) * sizeof(hn::TFromD<D>) < 16) {
    hn::StoreU(v, d, p);
    return;
  }
#endif
  hn::Stream(v, d, p);
}

template <class D>
HWY_INLINE void StoreOut(D d, hn::Vec<D> v, float* p, bool stream) {
  if (stream) {
    StreamVec(d, v, p);
  } else {
    hn::StoreU(v, d, p);
  }
}
template <class D>
HWY_INLINE void StoreOut(D d, hn::Vec<D> v, bfloat16* p, bool stream) {
  if (!stream) {
    StoreF(d, v, p);
    return;
  }
  HWY_ALIGN bfloat16 buf[kMaxF32Lanes];
  StoreF(d, v, buf);
  const hn::Rebind<uint16_t, D> du16;
  StreamVec(du16, hn::Load(du16, reinterpret_cast<const uint16_t*>(buf)),
            reinterpret_cast<uint16_t*>(p));
}

/// NOTE [ Whole pixel blocks per output ]
/// An output pixel's run of kV vectors (a blocked pixel of 16 channels is two float32
/// vectors on AVX2, four on SSE4, one on AVX-512) is written whole, vector after vector,
/// before the next pixel: each output cache line is then written in one go. Chunk by chunk
/// (every pixel's first vector, then every pixel's second), a streamed output left its
/// write-combining buffers with half lines, each flushed as a partial write
/// (docs/perf/resample.md, "Whole pixel blocks"). A fact of the layouts and the vector
/// width, not a schedule: every element's operations are the same either way.
///
/// Outputs ow in [0, P * floor(n / P)), P = 4 / kV, of a row whose output pixels are runs
/// of kV vectors: px(ow, k) (vector k of output ow) stored (StoreOut) at
/// db + ow * d_w + k * L, four vectors per step so that their loads are in flight
/// together. Returns the first ow it did not store; the caller finishes the row.
template <int kV, class D, class Px, class T>
HWY_INLINE int64_t StoreFourPerStep(D d, const Px& px, T* db, int64_t d_w, int64_t n, bool stream) {
  static_assert(kV == 1 || kV == 2 || kV == 4, "four vectors per step");
  constexpr int64_t kP = 4 / kV;
  const auto L = static_cast<int64_t>(hn::Lanes(d));
  int64_t ow = 0;
  for (; ow + kP <= n; ow += kP) {
    const auto x0 = px(ow, 0), x1 = px(ow + 1 / kV, 1 % kV);
    const auto x2 = px(ow + 2 / kV, 2 % kV), x3 = px(ow + 3 / kV, 3 % kV);
    StoreOut(d, x0, db + ow * d_w, stream);
    StoreOut(d, x1, db + (ow + 1 / kV) * d_w + (1 % kV) * L, stream);
    StoreOut(d, x2, db + (ow + 2 / kV) * d_w + (2 % kV) * L, stream);
    StoreOut(d, x3, db + (ow + 3 / kV) * d_w + (3 % kV) * L, stream);
  }
  return ow;
}

/// How many consecutive chunks of L channels, starting at a multiple of the count, lie
/// contiguously at every pixel of both layouts (both channels-last: nq, all of them;
/// blocked by B with contiguous channels: B / L; else 1). NOTE [ Whole pixel blocks per
/// output ].
inline int64_t ChunkRun(const ResampleLayout& a, const ResampleLayout& b, int64_t L,
                        int64_t nq) {
  auto run = [&](const ResampleLayout& l) -> int64_t {
    if (l.block == 1) return l.c_block_stride == 1 ? nq : 1;
    return l.c_inner_stride == 1 && l.block % L == 0 ? l.block / L : 1;
  };
  return std::max<int64_t>(std::min(run(a), run(b)), 1);
}

/// Copies n elements of a scratch row to p: whole vectors streamed when `stream` and p is
/// aligned to the vector size, the rest (everything otherwise) with ordinary stores.
template <class D, class T>
HWY_INLINE void CopyRowOut(D d, const T* HWY_RESTRICT row, T* p, int64_t n, bool stream) {
  const auto N = static_cast<int64_t>(hn::Lanes(d));
  const bool st = stream && reinterpret_cast<uintptr_t>(p) % (N * sizeof(T)) == 0;
  int64_t i = 0;
  for (; i + N <= n; i += N) {
    const auto v = hn::LoadU(d, row + i);
    if (st) {
      StreamVec(d, v, p + i);
    } else {
      hn::StoreU(v, d, p + i);
    }
  }
  for (; i < n; ++i) p[i] = row[i];
}

template <class D>
HWY_INLINE hn::Vec<D> Lerp(hn::Vec<D> w0, hn::Vec<D> w1, hn::Vec<D> a, hn::Vec<D> b) {
  return hn::MulAdd(w1, b, hn::Mul(w0, a));
}

// --- helpers ----------------------------------------------------------------------------------

inline int64_t ChanOff(const ResampleLayout& l, int64_t c) {
  return (c / l.block) * l.c_block_stride + (c % l.block) * l.c_inner_stride;
}

inline int64_t GrainFor(int64_t work_per_task) {
  const int64_t g = 16384 / std::max<int64_t>(work_per_task, 1);
  return std::max<int64_t>(g, 1);
}

/// The number of outer positions (all spatial axes but the last) of lengths len: the
/// kernels' tasks run over (batch, [channel or channel group,] outer position).
template <int R>
HWY_INLINE int64_t OuterCount(const int64_t* len) {
  int64_t outer = 1;
  for (int k = 0; k < R - 1; ++k) outer *= len[k];
  return outer;
}

/// Decomposes an outer position (all spatial axes but the last, row-major) into indices.
template <int R>
HWY_INLINE void OuterIndex(int64_t pos, const int64_t* len, int64_t idx[2]) {
  if constexpr (R == 3) {
    idx[0] = pos / len[1];
    idx[1] = pos % len[1];
  } else if constexpr (R == 2) {
    idx[0] = pos;
  }
  (void)pos;
  (void)len;
  (void)idx;
}

/// The taps of the outer axes (all spatial axes but W) of the linear forward kernels at
/// output position oi: source row offsets so[] (axis 0 varies fastest; unused entries 0),
/// the weights (a: axis 0, b: axis 1 of a 3-D problem; 1 and 0 where the rank has no such
/// axis) and the output row offset.
struct OuterTaps {
  int64_t so[4] = {0, 0, 0, 0};
  float wa0 = 1, wa1 = 0, wb0 = 1, wb1 = 0;
  int64_t doff = 0;
};
template <int R>
HWY_INLINE OuterTaps MakeOuterTaps(const Tables& tb, const ResampleLayout& S,
                                   const ResampleLayout& Dl, const int64_t oi[2]) {
  OuterTaps t;
  if constexpr (R == 2) {
    const ResampleAxisTable& ah = tb.axis[0];
    t.so[0] = ah.i0[oi[0]] * S.spatial_stride[0];
    t.so[1] = ah.i1[oi[0]] * S.spatial_stride[0];
    t.wa0 = ah.w0[oi[0]];
    t.wa1 = ah.w1[oi[0]];
    t.doff = oi[0] * Dl.spatial_stride[0];
  } else if constexpr (R == 3) {
    const ResampleAxisTable& ad = tb.axis[0];
    const ResampleAxisTable& ah = tb.axis[1];
    const int64_t d0 = ad.i0[oi[0]] * S.spatial_stride[0];
    const int64_t d1 = ad.i1[oi[0]] * S.spatial_stride[0];
    const int64_t h0 = ah.i0[oi[1]] * S.spatial_stride[1];
    const int64_t h1 = ah.i1[oi[1]] * S.spatial_stride[1];
    t.so[0] = d0 + h0;
    t.so[1] = d1 + h0;
    t.so[2] = d0 + h1;
    t.so[3] = d1 + h1;
    t.wa0 = ad.w0[oi[0]];
    t.wa1 = ad.w1[oi[0]];
    t.wb0 = ah.w0[oi[1]];
    t.wb1 = ah.w1[oi[1]];
    t.doff = oi[0] * Dl.spatial_stride[0] + oi[1] * Dl.spatial_stride[1];
  }
  (void)tb;
  (void)S;
  (void)Dl;
  (void)oi;
  return t;
}

/// The uses of the outer axes (all spatial axes but W) of the nearest backward kernels at
/// input position ii: the adjoint's (CSR) ranges [b0, e0) of axis 0 and [b1, e1) of axis 1
/// ([0, 1), one use, where the rank has no such axis) and the input row's offset in the
/// diff_src layout Ol.
struct OuterUses {
  int64_t b0 = 0, e0 = 1, b1 = 0, e1 = 1;
  int64_t off = 0;
};
template <int R>
HWY_INLINE OuterUses MakeOuterUses(const Tables& tb, const ResampleLayout& Ol,
                                   const int64_t ii[2]) {
  OuterUses u;
  if constexpr (R >= 2) {
    u.b0 = tb.axis[0].begin[ii[0]];
    u.e0 = tb.axis[0].begin[ii[0] + 1];
    u.off += ii[0] * Ol.spatial_stride[0];
  }
  if constexpr (R == 3) {
    u.b1 = tb.axis[1].begin[ii[1]];
    u.e1 = tb.axis[1].begin[ii[1] + 1];
    u.off += ii[1] * Ol.spatial_stride[1];
  }
  (void)tb;
  (void)Ol;
  (void)ii;
  return u;
}

/// NOTE [ Nearest forward store policy ]: the channel-vector nearest forward (a copy)
/// between two channels-last tensors streams its output only when input and output
/// together take at least resample_stream_working_set_bytes() (resample_fast.h). A
/// streaming store sends the output to memory and evicts it from the caches; an ordinary
/// store reads the line for ownership first but leaves it in the last-level cache, and
/// here the copy is one pixel at a time (NOTE [ Nearest pixel copy in whole vectors ]).
/// When input and output fit in that cache together
/// (32 MiB on the AMD EPYC host of docs/BENCHMARKS.md), a caller that runs the operator
/// again, or reads its output next, finds both there. Where they do not fit, streaming
/// wins. The blocked nearest copies and the linear kernels stream from
/// resample_stream_min_bytes() (docs/perf/resample.md, "Nearest forward store policy").
/// Both thresholds grow with a larger last-level cache (NOTE [ Stream thresholds
/// by cache size ], core/cache_size.h).

/// Whether the channel-vector kernels may use non-temporal stores into `out` (layout l):
/// a large output (resample_stream_min_bytes(); with `working_set`, also input and output
/// together at least resample_stream_working_set_bytes()), whole native vectors, chunks
/// aligned to the vector size.
template <class T>
bool StreamOK(const ResampleProblem& p, const ResampleLayout& l, const T* out, int64_t L,
              size_t cap, bool working_set = false) {
  if (cap < 8) return false;
  const bool out_is_src = &l == &p.src;
  const ResampleLayout& other = out_is_src ? p.dst : p.src;
  int64_t elems = p.n * l.padded_c, other_elems = p.n * other.padded_c;
  for (int k = 0; k < p.spatial_rank; ++k) {
    elems *= out_is_src ? p.in[k] : p.out[k];
    other_elems *= out_is_src ? p.out[k] : p.in[k];
  }
  const auto size = static_cast<int64_t>(sizeof(T));
  if (elems * size < resample_stream_min_bytes()) return false;
  // Both byte counts fit in int64 (checked at plan time); their sum need not.
  const int64_t ws = resample_stream_working_set_bytes();
  if (working_set && elems * size < ws && other_elems * size < ws - elems * size) {
    return false;
  }
  if (reinterpret_cast<uintptr_t>(out) % 64 != 0) return false;
  // Every chunk start must be a multiple of L elements: blocked (block multiple of L) or
  // channels-last with C a multiple of L.
  return l.block > 1 ? l.block % L == 0 : p.c % L == 0;
}

// --- the dtype-and-rank ladder of the entry points ----------------------------------------

/// The one dtype-and-rank ladder: calls f.template operator()<T, R>() for p's element type
/// (float32 or bfloat16) and spatial rank (1-3).
template <class F>
HWY_INLINE void ByTypeRank(const ResampleProblem& p, F&& f) {
  auto by_rank = [&]<class T>() {
    switch (p.spatial_rank) {
      case 1: f.template operator()<T, 1>(); return;
      case 2: f.template operator()<T, 2>(); return;
      default: f.template operator()<T, 3>(); return;
    }
  };
  if (p.dtype == DType::kFloat32) {
    by_rank.template operator()<float>();
  } else {
    by_rank.template operator()<bfloat16>();
  }
}

/// Runs kernel.template operator()<T, R>(tables, in, out) for p's type and rank.
template <class K>
HWY_INLINE void Run(const ResampleProblem& p, const void* tables, const void* in, void* out,
                    K&& kernel) {
  const Tables& tb = *static_cast<const Tables*>(tables);
  ByTypeRank(p, [&]<class T, int R>() {
    kernel.template operator()<T, R>(tb, static_cast<const T*>(in), static_cast<T*>(out));
  });
}

inline bool Linear(const ResampleProblem& p) {
  return p.algorithm == ResampleAlgorithm::kLinear;
}


// --- shared by the plain forward and backward (resample_plain*_hwy.cc) --------------------

/// How far ahead of a task's last row the plain kernels prefetch (NOTE [ Resample plain
/// prefetch ], resample_plain_hwy.cc).
constexpr int64_t kPrefetchBytes = 4096;

/// Lane i of the result: lane idx[i] of lo (idx < N) or lane idx[i] - N of hi (idx >= N),
/// idx in [0, 2 N): NOTE [ TwoTableLookup ] (core/table_lookup_hwy-inl.h).
template <class D>
HWY_INLINE hn::Vec<D> Lookup2(D d, hn::Vec<D> lo, hn::Vec<D> hi,
                              hn::Vec<hn::RebindToSigned<D>> idx) {
  return gridops::HWY_NAMESPACE::TwoTableLookup(d, lo, hi, idx);
}

/// Lane i of the result: lane idx[i] of v, idx in [0, N).
template <class D>
HWY_INLINE hn::Vec<D> Lookup1(D d, hn::Vec<D> v, hn::Vec<hn::RebindToSigned<D>> idx) {
  return hn::TableLookupLanes(v, hn::IndicesFromVec(d, idx));
}

}  // namespace HWY_NAMESPACE
}  // namespace gridops::kernels::resample_simd
HWY_AFTER_NAMESPACE();

#endif  // GRIDOPS_KERNELS_RESAMPLE_RESAMPLE_HWY_INL_H_
