// The helpers of grid_sample.fused_small_c (grid_sample_fused_small_c_hwy.cc): its pair
// gathers and row loads (NOTE [ GridSample pair gather ], [ GridSample cubic row loads ],
// [ GridSample channels-last pair gather ], [ GridSample channels-last pixel loads ]), the
// prefetch tests (NOTE [ GridSample few-channel prefetch ]), the nearest tap reuse and the
// streaming-store test. Included once per Highway target after grid_sample_hwy-inl.h.
#if defined(GRIDOPS_KERNELS_GRID_SAMPLE_FUSED_GATHERS_HWY_INL_H_) == defined(HWY_TARGET_TOGGLE)  // NOLINT
#ifdef GRIDOPS_KERNELS_GRID_SAMPLE_FUSED_GATHERS_HWY_INL_H_
#undef GRIDOPS_KERNELS_GRID_SAMPLE_FUSED_GATHERS_HWY_INL_H_
#else
#define GRIDOPS_KERNELS_GRID_SAMPLE_FUSED_GATHERS_HWY_INL_H_
#endif

#include <cstdint>
#include <cstring>

#include <hwy/cache_control.h>
#include <hwy/highway.h>

#include "kernels/grid_sample/grid_sample_fast.h"
#include "kernels/grid_sample/grid_sample_hwy-inl.h"

HWY_BEFORE_NAMESPACE();
namespace gridops::kernels::grid_sample_simd {
namespace HWY_NAMESPACE {

// NOTE [ GridSample few-channel prefetch ]
// On a smooth warp each vector of 16 points reads a few new source lines per plane along
// a diagonal that no hardware prefetcher follows, and the gathers wait for them. So before
// its own gathers each vector computes the taps of the points one tile (tile_w) further
// along the same row, which the next item reads about 16 vectors later, and prefetches the
// lines of their K tap rows at the first x tap (every fifth lane and the last; per plane
// channels-first, once channels-last, where a pixel's channels share its line). Only where
// the current vector's first tap rows span at most kSmoothRows: on a random grid the
// prefetched lines are of one use. Measurements: docs/perf/grid_sample.md, "Fused
// small-channel path".
constexpr int32_t kSmoothRows = 32;

#if HWY_TARGET != HWY_SCALAR
// NOTE [ GridSample pair gather ]
// Channels-first linear/cubic reads each x-window row as column pairs (NOTE [ GridSample
// x-window gathers ]): one 64-bit element per lane holds columns o and o + 1. Highway 1.0
// gathers 64-bit elements only by 64-bit offsets, so GatherPairsPortable gathers each half
// of a vector by its 32-bit element offsets widened to 64-bit byte offsets
// (WidenPairOffsets, once per vector of offsets for all channel planes); on AVX-512 GatherPairs does the same with the one raw intrinsic of this file,
// _mm512_i32gather_pd (32-bit element offsets, scale 4: no widening). This is the path's
// only helper for an op Highway lacks; the tests run GatherPairsPortable on every Highway
// target (the fused path takes them on AVX2 and up) against it and a scalar read
// (grid_sample_gather_pairs16), and in its place through the whole fused path
// (the test-only entry grid_sample.fused_small_c_portable_pairs): the same bits.
using D64W = hn::Repartition<int64_t, DF>;

/// GatherPairsPortable's offsets: the 32-bit element offsets o of a vector's lanes as
/// 64-bit byte offsets, lanes 0..N/2-1 in lo, N/2..N-1 in hi (widened once per vector of
/// offsets, then used for every channel plane).
#if !GRIDOPS_HWY_SIZELESS
struct PairOffsets {
  hn::Vec<D64W> lo, hi;
};
HWY_INLINE hn::Vec<D64W> PairLo(const PairOffsets& w) { return w.lo; }
HWY_INLINE hn::Vec<D64W> PairHi(const PairOffsets& w) { return w.hi; }

HWY_INLINE PairOffsets WidenPairOffsets(const VI o) {
  const hn::Half<DI> dh;
  const D64W d64;
  return {hn::ShiftLeft<2>(hn::PromoteTo(d64, hn::LowerHalf(dh, o))),
          hn::ShiftLeft<2>(hn::PromoteTo(d64, hn::UpperHalf(dh, o)))};
}
#else
// No vector members on SVE (NOTE [ Sizeless vectors ]): lo and hi as lanes in memory.
struct PairOffsets {
  VecArray<D64W, 2> lohi;
};
HWY_INLINE hn::Vec<D64W> PairLo(const PairOffsets& w) { return w.lohi[0]; }
HWY_INLINE hn::Vec<D64W> PairHi(const PairOffsets& w) { return w.lohi[1]; }

HWY_INLINE PairOffsets WidenPairOffsets(const VI o) {
  const hn::Half<DI> dh;
  const D64W d64;
  PairOffsets w;
  w.lohi[0] = hn::ShiftLeft<2>(hn::PromoteTo(d64, hn::LowerHalf(dh, o)));
  w.lohi[1] = hn::ShiftLeft<2>(hn::PromoteTo(d64, hn::UpperHalf(dh, o)));
  return w;
}
#endif

/// Whether GatherPairs is the raw AVX-512 form (it then reads o, else the widened w).
constexpr bool kRawPairs = HWY_TARGET <= HWY_AVX3;

/// The column pairs (plane[o_i], plane[o_i + 1]) of the N lanes' element offsets o (w:
/// WidenPairOffsets(o)), as float lanes: pairs of lanes 0..N/2-1 in *glo, of lanes
/// N/2..N-1 in *ghi (each pair's first column in the even lane).
HWY_INLINE void GatherPairsPortable(const double* plane, const PairOffsets& w, VF* glo,
                                    VF* ghi) {
  const DF df;
  const hn::Repartition<double, DF> dd;
  *glo = hn::BitCast(df, hn::GatherOffset(dd, plane, PairLo(w)));
  *ghi = hn::BitCast(df, hn::GatherOffset(dd, plane, PairHi(w)));
}

/// As GatherPairsPortable; on AVX-512 (kRawPairs) by the 32-bit element offsets o, w
/// unused (NOTE [ GridSample pair gather ]).
HWY_INLINE void GatherPairs(const double* plane, const VI o, const PairOffsets& w, VF* glo,
                            VF* ghi) {
#if HWY_TARGET <= HWY_AVX3
  (void)w;
  *glo = VF{_mm512_castpd_ps(_mm512_i32gather_pd(_mm512_castsi512_si256(o.raw), plane, 4))};
  *ghi = VF{_mm512_castpd_ps(_mm512_i32gather_pd(_mm512_extracti64x4_epi64(o.raw, 1), plane, 4))};
#else
  (void)o;
  GatherPairsPortable(plane, w, glo, ghi);
#endif
}
#endif  // HWY_TARGET != HWY_SCALAR (one lane: no pairs)

/// How the fused path reads its taps: the target's gathers, the portable pair gathers (the
/// tests' twin: NOTE [ GridSample pair gather ]) or scalar loads (NOTE [ GridSample tap
/// loads ]; only on targets with kHaveTapLoads, else it gathers).
enum class TapRead { kGather, kPortable, kLoads };

/// Whether the AVX-512 row and pixel loads (NOTE [ GridSample cubic row loads ],
/// [ GridSample channels-last pixel loads ]) read the taps: on AVX-512 unless the tests'
/// portable twin runs, on AVX2 where the plan sets tap_loads.
HWY_INLINE bool UseRowLoads(TapRead read) {
  return HWY_TARGET <= HWY_AVX3 ? read != TapRead::kPortable : read == TapRead::kLoads;
}

#if HWY_TARGET <= HWY_AVX2 && HWY_ARCH_X86  // kHavePairs
// NOTE [ GridSample tap loads ]
// Where the plan sets tap_loads (channels-last or cubic on a CPU whose gathers are slow:
// NOTE [ Slow gathers ] in core/gather_cost.cc; channels-first linear and nearest gained
// nothing, docs/perf/grid_sample.md, "Tap loads"), channels-first cubic and channels-last
// nearest with 3-4 channels take the row and pixel loads (UseRowLoads, below), and the
// other channels-last problems read what they would gather by one scalar load per lane: a
// pixel pair (8 bytes) for each two of a tap row's floats, one float for an odd last one
// (GatherRowFloats). The offsets are stored once per vector and tap row. The pairs
// go two to a 128-bit block in an order that in-block shuffles split into the first and
// the second columns, with no lane-crossing permute (which the gathers' ConcatEven and
// ConcatOdd need). Two raw helpers, LoadPairVectors (fewer shuffles than its Highway form
// LoadPairVectorsPortable) and LoadFloats (Highway 1.0.3 builds no vector from scalars;
// its portable form is the float gather); the tests run both against a scalar read on
// every target (PairGatherPortableMatchesIntrinsic). The loads read exactly the elements
// the gathers read, so the values and the sums over them are the same bits (test
// GridSampleDiff.FusedTapLoads through the whole path). Where the AVX-512 cubic row loads
// or channels-last pixel loads apply (NOTE [ GridSample cubic row loads ], [ GridSample
// channels-last pixel loads ]) they come first: they are loads already.
constexpr bool kHaveTapLoads = true;

/// The pairs (plane[o[i]], plane[o[i] + 1]) of the N lanes i by scalar loads, as
/// GatherPairVectors gives them: each pair's first float in *first, its second in *second.
/// In Highway ops; LoadPairVectors is the same with fewer shuffles.
HWY_INLINE void LoadPairVectorsPortable(const float* plane, const int32_t* o, VF* first,
                                        VF* second) {
  const DF df;
  const hn::CappedTag<float, 2> d2;  // one pair (a 64-bit load: float alignment suffices)
  const hn::Full128<float> d4;
  // Lanes a and b in one 128-bit block.
  auto block = [&](int a, int b) HWY_ATTR {
    return hn::Combine(d4, hn::LoadU(d2, plane + o[b]), hn::LoadU(d2, plane + o[a]));
  };
  // Block k of y0 holds lanes 4k, 4k + 2, of y1 lanes 4k + 1, 4k + 3; two rounds of
  // in-block interleaves then give the lanes in order.
#if HWY_TARGET <= HWY_AVX3
  const hn::Half<DF> dh;
  const VF y0 = hn::Combine(df, hn::Combine(dh, block(12, 14), block(8, 10)),
                            hn::Combine(dh, block(4, 6), block(0, 2)));
  const VF y1 = hn::Combine(df, hn::Combine(dh, block(13, 15), block(9, 11)),
                            hn::Combine(dh, block(5, 7), block(1, 3)));
#else
  const VF y0 = hn::Combine(df, block(4, 6), block(0, 2));
  const VF y1 = hn::Combine(df, block(5, 7), block(1, 3));
#endif
  // Per block: a = (4k.a, 4k+1.a, 4k.b, 4k+1.b), b = the same of 4k + 2, 4k + 3.
  const VF a = hn::InterleaveLower(df, y0, y1), b = hn::InterleaveUpper(df, y0, y1);
  const hn::Repartition<double, DF> dd;
  *first = hn::BitCast(df, hn::InterleaveLower(dd, hn::BitCast(dd, a), hn::BitCast(dd, b)));
  *second = hn::BitCast(df, hn::InterleaveUpper(dd, hn::BitCast(dd, a), hn::BitCast(dd, b)));
}

/// As LoadPairVectorsPortable, in raw intrinsics: each block's second pair loaded into its
/// upper half (movhpd from memory) and one shufps per output vector, where the Highway ops
/// take two interleaves and an extra unpack per block (faster on the Zen 4 host under the
/// AVX2 cap: docs/perf/grid_sample.md, "Tap loads").
HWY_INLINE void LoadPairVectors(const float* plane, const int32_t* o, VF* first, VF* second) {
  // Lanes a and b in one 128-bit block. movq and movhpd: no alignment needed (and no
  // double lvalue: plane + o[a] is only float-aligned).
  auto pair2 = [&](int a, int b) HWY_ATTR {
    const __m128d lo = _mm_castsi128_pd(
        _mm_loadl_epi64(reinterpret_cast<const __m128i*>(plane + o[a])));
    return _mm_loadh_pd(lo, reinterpret_cast<const double*>(plane + o[b]));
  };
  // Block k of y0 holds lanes 4k, 4k + 1, of y1 lanes 4k + 2, 4k + 3; shufps takes the
  // even (first) or odd (second) floats of both within each block.
  auto half = [&](int a) HWY_ATTR {
    return _mm256_insertf128_pd(_mm256_castpd128_pd256(pair2(a, a + 1)), pair2(a + 4, a + 5), 1);
  };
#if HWY_TARGET <= HWY_AVX3
  const __m512 y0 =
      _mm512_castpd_ps(_mm512_insertf64x4(_mm512_castpd256_pd512(half(0)), half(8), 1));
  const __m512 y1 =
      _mm512_castpd_ps(_mm512_insertf64x4(_mm512_castpd256_pd512(half(2)), half(10), 1));
  *first = VF{_mm512_shuffle_ps(y0, y1, 0x88)};
  *second = VF{_mm512_shuffle_ps(y0, y1, 0xdd)};
#else
  const __m256 y0 = _mm256_castpd_ps(half(0)), y1 = _mm256_castpd_ps(half(2));
  *first = VF{_mm256_shuffle_ps(y0, y1, 0x88)};
  *second = VF{_mm256_shuffle_ps(y0, y1, 0xdd)};
#endif
}

/// The floats plane[o[i]] of the N lanes i by scalar loads (raw intrinsics: Highway 1.0.3
/// builds no vector from scalars; its portable form is a float gather).
HWY_INLINE VF LoadFloats(const float* plane, const int32_t* o) {
  const float* p = plane;
#if HWY_TARGET <= HWY_AVX3
  return VF{_mm512_setr_ps(p[o[0]], p[o[1]], p[o[2]], p[o[3]], p[o[4]], p[o[5]], p[o[6]],
                           p[o[7]], p[o[8]], p[o[9]], p[o[10]], p[o[11]], p[o[12]], p[o[13]],
                           p[o[14]], p[o[15]])};
#else
  return VF{_mm256_setr_ps(p[o[0]], p[o[1]], p[o[2]], p[o[3]], p[o[4]], p[o[5]], p[o[6]],
                           p[o[7]])};
#endif
}
#else
constexpr bool kHaveTapLoads = false;
#endif

#if HWY_TARGET != HWY_SCALAR
/// The pairs at the N lanes' element offsets o as two vectors, lanes in order: each pair's
/// first float in *first, its second in *second (w: WidenPairOffsets(o) where the portable
/// form or a target without the raw one reads it).
HWY_INLINE void GatherPairVectors(const double* plane, const VI o, const PairOffsets& w,
                                  bool portable, VF* first, VF* second) {
  const DF df;
  VF glo, ghi;
  if (portable) {
    GatherPairsPortable(plane, w, &glo, &ghi);
  } else {
    GatherPairs(plane, o, w, &glo, &ghi);
  }
  *first = hn::ConcatEven(df, ghi, glo);
  *second = hn::ConcatOdd(df, ghi, glo);
}
#endif

#if HWY_TARGET <= HWY_AVX2 && HWY_ARCH_X86
// NOTE [ GridSample cubic row loads ]
// Channels-first cubic reads, per point and tap row, the 4 consecutive floats of its x
// window. On this AMD host a gather instruction costs about the same whatever its lane
// count (a loop of 16-lane float gathers from L1: about 4 ns each, 8-lane pair gathers
// 3.5 ns, fully masked ones 3.5 ns too), so the 4 pair gathers per row and channel (16
// points x 2 pairs, 8 pairs each) cost more than loading each point's 16 bytes: 16
// 128-bit loads, put 4 to a vector (block j of vector g: point 4j + g), then a 4 x 4
// transpose within blocks (two float and two double interleaves each way) gives the 4
// column vectors, the same values the pair gathers give, summed in the same order with
// the same weights: the same bits. The loads read exactly the elements the pair gathers
// read. On AVX2 (two points to a vector, block j of vector g: point 4j + g) only where the
// plan sets tap_loads (NOTE [ GridSample tap loads ]: on the Intel host, whose AVX2 gathers
// are fast, they gained nothing); other targets, and the tests' portable pair gathers,
// keep the gathers (UseRowLoads).
/// The 4 floats at plane + o[i], for each of the N lanes i (16 or 8), as column vectors:
/// col[k] lane i = plane[o[i] + k].
HWY_INLINE void LoadRowWindows4(const float* plane, const int32_t* o, VF* col) {
  const DF df;
  const hn::Full128<float> dq;
  const hn::Repartition<double, DF> dd;
  VF a[4];
  for (int g = 0; g < 4; ++g) {
#if HWY_TARGET <= HWY_AVX3
    const hn::Half<DF> dh;
    a[g] = hn::Combine(
        df, hn::Combine(dh, hn::LoadU(dq, plane + o[12 + g]), hn::LoadU(dq, plane + o[8 + g])),
        hn::Combine(dh, hn::LoadU(dq, plane + o[4 + g]), hn::LoadU(dq, plane + o[g])));
#else
    a[g] = hn::Combine(df, hn::LoadU(dq, plane + o[4 + g]), hn::LoadU(dq, plane + o[g]));
#endif
  }
  const VF t0 = hn::InterleaveLower(df, a[0], a[1]), t1 = hn::InterleaveUpper(df, a[0], a[1]);
  const VF t2 = hn::InterleaveLower(df, a[2], a[3]), t3 = hn::InterleaveUpper(df, a[2], a[3]);
  col[0] = hn::BitCast(df, hn::InterleaveLower(dd, hn::BitCast(dd, t0), hn::BitCast(dd, t2)));
  col[1] = hn::BitCast(df, hn::InterleaveUpper(dd, hn::BitCast(dd, t0), hn::BitCast(dd, t2)));
  col[2] = hn::BitCast(df, hn::InterleaveLower(dd, hn::BitCast(dd, t1), hn::BitCast(dd, t3)));
  col[3] = hn::BitCast(df, hn::InterleaveUpper(dd, hn::BitCast(dd, t1), hn::BitCast(dd, t3)));
}
#endif

#if HWY_TARGET <= HWY_AVX2 && HWY_ARCH_X86  // kHavePairs
// NOTE [ GridSample channels-last pair gather ]
// Channels-last with a pixel stride of C (a dense pixel row) holds a tap row's K pixels as
// K * C consecutive floats. Gathering them as floats costs K * C gathers of N lanes; here
// consecutive floats are gathered two at a time as one 64-bit element (GatherPairs), which
// reads the same K * C values with half as many gathered elements (C = 3: cubic 6 pair
// gathers per row instead of 12 float gathers; nearest one pair and one float instead of
// 3 floats). ConcatEven/ConcatOdd of a pair gather give two of the row's (tap, channel)
// vectors directly, and each channel accumulates its taps in the same order with the same
// weights as the float gathers (ChannelsLastF32 after CombineWindow), so the bits are the
// same. Only floats inside one tap row are paired, so no read goes past the row's last
// pixel. Other pixel strides, and targets without the pair gathers (below AVX2), take the
// float gathers.

// NOTE [ GridSample channels-last pixel loads ]
// Channels-last nearest with kC = 3 or 4 channels, on AVX-512 (on AVX2 where the plan sets
// tap_loads, as the cubic row loads): each point's pixel is read
// by one 16-byte load (its kC floats, and for kC = 3 the next pixel's first, unused), four
// loads to a vector and a 4 x 4 transpose within blocks (LoadRowWindows4), in place of a
// pair gather and a float gather (kC = 3) or two pair gathers (kC = 4), each of which
// costs about 3.5-4 ns on the AMD host (NOTE [ GridSample cubic row loads ]). A vector
// holding an offset past the image's last 16-byte window (kC = 3: its last pixel; an
// image of fewer than 4 floats: every offset) gathers as before, so no load leaves the
// image. The same values, so the same bits; the tests' portable pair gathers (and AVX2
// without tap_loads) keep the gathers.

/// The E floats at element offsets o + f (f < E) of src, as E vectors: pairs by GatherPairs
/// (GatherPairsPortable: kPortable), an odd last one by a float gather; or all by scalar
/// loads (kLoads: NOTE [ GridSample tap loads ]).
template <int E>
HWY_INLINE void GatherRowFloats(const float* src, const VI o, TapRead read, VF* v) {
  const DI di;
  const DF df;
  if (read == TapRead::kLoads) {
    HWY_ALIGN int32_t stored[hn::MaxLanes(di)];
    hn::Store(o, di, stored);
    for (int f = 0; f + 1 < E; f += 2) LoadPairVectors(src + f, stored, &v[f], &v[f + 1]);
    if constexpr (E % 2 == 1) v[E - 1] = LoadFloats(src + E - 1, stored);
    return;
  }
  const auto* pairs = reinterpret_cast<const double*>(src);
  const bool portable = read == TapRead::kPortable;
  for (int f = 0; f + 1 < E; f += 2) {
    const VI of = f == 0 ? o : hn::Add(o, hn::Set(di, f));
    const PairOffsets w = portable || !kRawPairs ? WidenPairOffsets(of) : PairOffsets{};
    GatherPairVectors(pairs, of, w, portable, &v[f], &v[f + 1]);
  }
  if constexpr (E % 2 == 1) v[E - 1] = hn::GatherIndex(df, src, hn::Add(o, hn::Set(di, E - 1)));
}
#endif

/// Nearest (as Combine): the element offsets iy * sy + col of the taps (col: ix times the
/// x stride), 0 in the lanes whose weight wy * wx is not positive (*keep false there).
HWY_INLINE VI NearestOffsets(VI iy, VF wy, VI col, VF wx, VI sy, hn::Mask<DF>* keep) {
  *keep = hn::Gt(hn::Mul(wy, wx), hn::Zero(DF()));
  return hn::IfThenElseZero(hn::RebindMask(DI(), *keep), hn::Add(hn::Mul(iy, sy), col));
}

/// NOTE [ GridSample few-channel prefetch ]: whether a vector's tap rows span at most
/// kSmoothRows (a smooth stretch of the warp, worth prefetching ahead).
HWY_INLINE bool SmoothRows(VI rows) {
  const DI di;
  return hn::GetLane(hn::Sub(hn::MaxOfLanes(di, rows), hn::MinOfLanes(di, rows))) <= kSmoothRows;
}

/// Nearest's cheaper form of SmoothRows: the rows of the first and last lanes at most
/// kSmoothRows apart (on a smooth warp the rows along a vector are monotonic but near the
/// border, where zeros padding's index 0 sits among them, so almost always the same
/// answer; on a random grid about 2 * kSmoothRows / H of the vectors pass). Nearest
/// computes the taps ahead in any case (NOTE [ GridSample nearest tap reuse ]), so a
/// wrong pass costs only the prefetches, and the two lane reductions it saves were
/// measurable: W2b 2-12 % in the A/B (docs/ops/grid_sample.md).
HWY_INLINE bool SmoothEnds(VI rows) {
  const DI di;
  const int32_t d = hn::ExtractLane(rows, hn::Lanes(di) - 1) - hn::GetLane(rows);
  return d <= kSmoothRows && d >= -kSmoothRows;
}

/// NOTE [ GridSample few-channel prefetch ]: for each of `planes` planes (plane_stride
/// apart from sbase), the lines at every fifth and the last of the first m offsets of each
/// of the `rows` rows of po (rows of MaxLanes entries). Each offset is read once for all
/// planes.
HWY_INLINE void PrefetchTapRows(const float* sbase, int64_t plane_stride, int64_t planes,
                                const int32_t* po, int rows, int64_t m) {
  constexpr auto kL = static_cast<int64_t>(hn::MaxLanes(DF()));
  auto fetch = [&](int64_t o) {
    for (int64_t ch = 0; ch < planes; ++ch) hwy::Prefetch(sbase + ch * plane_stride + o);
  };
  for (int r = 0; r < rows; ++r) {
    const int32_t* row = po + r * kL;
    for (int64_t l = 0; l < m - 1; l += 5) fetch(row[l]);  // the last lane once (m = 16: 15)
    fetch(row[m - 1]);
  }
}

// NOTE [ GridSample nearest tap reuse ]
// The prefetch (NOTE [ GridSample few-channel prefetch ]) computes, for every vector of
// points, the taps of the points one tile further along the row: exactly the points the
// next item (the tile to the right, when this thread runs it next) computes again. For
// nearest a point's taps reduce to one offset and one keep mask, so they are kept (two
// int32 per point, a tile's worth) and the next item loads them in place of its own steps
// 1-2; the same integer and float operations made them, so the results are the same bits.
// Linear and cubic would keep 4-8 index and weight vectors per point and do not.
/// Nearest (K == 1) only, NOTE [ GridSample nearest tap reuse ]: `reuse` holds the offsets
/// and keep masks (int32 all-ones / zero) of this row's points computed by the previous
/// item, valid for the vectors whose `ok` byte is set (`reuse.off` null: none); `next`
/// receives those of the points `ahead` further along this row (null: not kept).
struct NearestTaps {
  const int32_t* off = nullptr;
  const int32_t* keep = nullptr;
  const uint8_t* ok = nullptr;
};
struct NearestTapsOut {
  int32_t* off = nullptr;
  int32_t* keep = nullptr;
  uint8_t* ok = nullptr;
};
// FusedSmallC takes both by reference. Passed by value (24 bytes, on the stack), GCC
// copied each from RunFused's pointer stores with one 16-byte load: a load that two
// 8-byte stores cannot forward to waits until they reach the cache, behind the previous
// row's dst stores, which wait for their lines (docs/perf/grid_sample.md).

// NOTE [ GridSample fused streaming stores ]
// A channels-first dst of 8 MiB or more (c.stream, the channel-blocked path's threshold) is
// written with non-temporal stores where a whole 64-byte vector lands on a 64-byte aligned
// address (AVX-512), so its lines are not read for ownership nor kept in the caches.
// Channels-last keeps ordinary stores (streamed it was no faster: docs/perf/grid_sample.md).
// Same bits (test GridSampleDiff.FusedLargeChannelsFirstDst).
/// Whether the fused path writes c's dst with non-temporal stores (NOTE [ GridSample fused
/// streaming stores ]); RunFused's tile bounds follow it (NOTE [ GridSample fused aligned
/// tiles ]).
HWY_INLINE bool StreamsDst(const Ctx& c) {
  return c.stream && !c.channels_last && hn::MaxLanes(DF()) * sizeof(float) == 64;
}

/// Tests only (grid_sample_gather_pairs16): out[2i], out[2i + 1] = the pair at
/// element offset o[i] of plane, i < 16, by GatherPairsPortable (portable) or GatherPairs;
/// false (nothing written) when the target has no such form (no raw form below AVX-512,
/// neither with one lane).
inline bool GatherPairs16(bool portable, const float* plane, const int32_t* o, float* out) {
#if HWY_TARGET == HWY_SCALAR
  (void)portable, (void)plane, (void)o, (void)out;
  return false;
#else
  if (!portable && HWY_TARGET > HWY_AVX3) return false;
  const DF df;
  const DI di;
  const size_t N = hn::Lanes(df);
  for (size_t i = 0; i < 16; i += N) {
    VF glo, ghi;
    const VI off = hn::LoadU(di, o + i);
    const auto* p = reinterpret_cast<const double*>(plane);
    const PairOffsets wide = WidenPairOffsets(off);
    if (portable) {
      GatherPairsPortable(p, wide, &glo, &ghi);
    } else {
      GatherPairs(p, off, wide, &glo, &ghi);
    }
    hn::StoreU(glo, df, out + 2 * i);
    hn::StoreU(ghi, df, out + 2 * i + N);
  }
  return true;
#endif
}

/// Tests only (grid_sample_load_taps16): the pairs at element offsets o[i] of plane into
/// out[2i], out[2i + 1] and the floats into floats[i], i < 16, by the tap loads
/// (LoadPairVectorsPortable and float gathers when portable); false (nothing written)
/// without them.
inline bool LoadTaps16(bool portable, const float* plane, const int32_t* o, float* out,
                       float* floats) {
#if HWY_TARGET <= HWY_AVX2 && HWY_ARCH_X86
  const DF df;
  const DI di;
  const size_t N = hn::Lanes(df);
  for (size_t i = 0; i < 16; i += N) {
    VF first, second;
    if (portable) {
      LoadPairVectorsPortable(plane, o + i, &first, &second);
      hn::StoreU(hn::GatherIndex(df, plane, hn::LoadU(di, o + i)), df, floats + i);
    } else {
      LoadPairVectors(plane, o + i, &first, &second);
      hn::StoreU(LoadFloats(plane, o + i), df, floats + i);
    }
    hn::StoreInterleaved2(first, second, df, out + 2 * i);
  }
  return true;
#else
  (void)portable, (void)plane, (void)o, (void)out, (void)floats;
  return false;
#endif
}

}  // namespace HWY_NAMESPACE
}  // namespace gridops::kernels::grid_sample_simd
HWY_AFTER_NAMESPACE();

#endif  // include guard
