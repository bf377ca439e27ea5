// resample.channels_bf16: the bfloat16 linear forward of the channel-vector path
// (resample_channels_hwy.cc) on x86-64 CPUs with AVX512_BF16, both tensors channels-last
// with C a multiple of 16 or both blocked by 16. The arithmetic is FwdLinearC's (NOTE
// [ Fast resample arithmetic ]: the same float32 operations in the same order), so the
// bits are those of resample.channels_vector16. When W is downsampled by 2 or more the loop
// is FwdLinearC's fused one (the outer axes at both W taps of each output); otherwise the
// outer axes' interpolation of each input column is kept in registers across the outputs
// that read it (NOTE [ Resample bf16 column cache ]) instead of FwdLinearC's scratch row.
// The conversion differs too:
// - two float32 vectors are rounded to 32 bfloat16 with one vcvtne2ps2bf16 and stored as one
//   64-byte store (instead of about nine integer operations and a 32-byte store per vector);
//   the instruction rounds to nearest even and quiets NaN exactly as f32_to_bf16 does, but
//   flushes float32 subnormals to zero, so a pair holding a subnormal is rounded with the
//   integer sequence instead (one vfpclassps per vector decides; bit-identical either way);
// - 32 bfloat16 outputs contiguous in dst are one unit: 32 channels of one pixel
//   (channels-last) or 16 channels of two adjacent pixels along W (blocked by 16).
// Highway 1.0 has no bfloat16 conversion instructions, so this file uses the intrinsics
// directly, compiled for AVX-512 + AVX512_BF16 only and chosen at run time (CPUID); the
// backward is resample.channels_vector16's. See docs/ops/resample.md, "Fast path".
#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include <hwy/base.h>

#include "core/isa.h"
#include "gridops/isa.h"
#include "gridops/parallel.h"
#include "kernels/resample/resample.h"
#include "kernels/resample/resample_fast.h"

#if HWY_ARCH_X86_64 && (HWY_COMPILER_GCC || HWY_COMPILER_CLANG)
#define GRIDOPS_RESAMPLE_BF16_X86 1
// GCC's avx512fintrin.h trips -Wmaybe-uninitialized (its _mm512_undefined_*), as Highway's
// own x86 headers note: included with those warnings off, as Highway does.
HWY_DIAGNOSTICS(push)
#if HWY_COMPILER_GCC_ACTUAL
HWY_DIAGNOSTICS_OFF(disable : 4701, ignored "-Wuninitialized")
HWY_DIAGNOSTICS_OFF(disable : 4703 6001 26494, ignored "-Wmaybe-uninitialized")
#endif
#include <immintrin.h>
HWY_DIAGNOSTICS(pop)
#else
#define GRIDOPS_RESAMPLE_BF16_X86 0
#endif

namespace gridops::kernels {

#if GRIDOPS_RESAMPLE_BF16_X86
namespace {

/// Both tensors blocked by 16 with contiguous channels.
bool blocked16(const ResampleProblem& p) {
  return p.src.block == 16 && p.dst.block == 16 && p.src.c_inner_stride == 1 &&
         p.dst.c_inner_stride == 1 && p.dst.spatial_stride[p.spatial_rank - 1] == 16;
}
/// Both tensors channels-last (contiguous channels, unblocked).
bool channels_last(const ResampleProblem& p) {
  return p.src.block == 1 && p.dst.block == 1 && p.src.c_block_stride == 1 &&
         p.dst.c_block_stride == 1;
}

}  // namespace
#endif

std::string resample_channels_bf16_unavailable() {
#if !GRIDOPS_RESAMPLE_BF16_X86
  return "built without the x86-64 AVX512_BF16 kernel (not an x86-64 GCC/Clang build)";
#else
  if (detail::isa_allows_avx512_bf16()) return std::string();
  if (effective_isa() != max_isa() || max_isa() == "native") {
    return "the CPU lacks AVX512_BF16 (vcvtne2ps2bf16) or the AVX-512 F/BW/DQ/VL, AVX2, FMA, "
           "BMI2 and F16C this kernel is compiled for";
  }
  return "the ISA cap (GRIDOPS_MAX_ISA / set_max_isa) is " + max_isa() +
         ", below avx512_bf16";
#endif
}

std::string resample_channels_bf16_declines(const ResampleProblem& p) {
  std::string why = resample_fast_declines(p);
  if (!why.empty()) return why;
#if !GRIDOPS_RESAMPLE_BF16_X86
  return "built without the x86-64 AVX512_BF16 kernel (not an x86-64 GCC/Clang build)";
#else
  if (p.dtype != DType::kBFloat16) {
    return std::string("dtype ") + to_string(p.dtype) + " (this path is for bfloat16 only)";
  }
  if (p.algorithm != ResampleAlgorithm::kLinear) {
    return "algorithm nearest (this path is for linear only)";
  }
  const bool cl = channels_last(p);
  if (!cl && !blocked16(p)) {
    return "src and dst are not both channels-last or both blocked by 16";
  }
  if (cl && p.c % 16 != 0) {
    return "channels-last with C = " + std::to_string(p.c) + ", not a multiple of 16";
  }
  std::string cpu = resample_channels_bf16_unavailable();
  if (!cpu.empty()) return cpu;
  return std::string();
#endif
}

#if GRIDOPS_RESAMPLE_BF16_X86

HWY_PUSH_ATTRIBUTES("avx,avx2,bmi,bmi2,fma,f16c,avx512f,avx512vl,avx512dq,avx512bw,avx512bf16")

namespace {

HWY_INLINE __m512 Lerp(__m512 w0, __m512 w1, __m512 a, __m512 b) {
  return _mm512_fmadd_ps(w1, b, _mm512_mul_ps(w0, a));
}

/// 16 bfloat16 at p as float32 (exact).
HWY_INLINE __m512 Load16(const uint16_t* p) {
  const __m256i h = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
  return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(h), 16));
}
/// The same with the lanes outside `mask` +0 (and not read).
HWY_INLINE __m512 Load16(const uint16_t* p, __mmask16 mask) {
  const __m256i h = _mm256_maskz_loadu_epi16(mask, p);
  return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(h), 16));
}

/// f32_to_bf16 of every lane with integer operations (round to nearest even, NaN quieted),
/// as 16-bit values in the low halves of the 32-bit lanes.
HWY_INLINE __m512i RoundInt(__m512 v) {
  const __m512i bits = _mm512_castps_si512(v);
  const __m512i top = _mm512_srli_epi32(bits, 16);
  const __m512i lsb = _mm512_and_si512(top, _mm512_set1_epi32(1));
  const __m512i r = _mm512_srli_epi32(
      _mm512_add_epi32(bits, _mm512_add_epi32(lsb, _mm512_set1_epi32(0x7FFF))), 16);
  const __mmask16 nan = _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q);
  return _mm512_mask_or_epi32(r, nan, top, _mm512_set1_epi32(0x40));
}

/// A vector holds a float32 subnormal (vcvtne(2)ps2bf16 would flush it to zero).
HWY_INLINE __mmask16 Subnormal(__m512 v) { return _mm512_fpclass_ps_mask(v, 0x20); }

/// lo and hi rounded to bfloat16 (f32_to_bf16's bits): 32 values, lo's first.
HWY_INLINE __m512i Pack32(__m512 lo, __m512 hi) {
  if (HWY_UNLIKELY(!_kortestz_mask16_u8(Subnormal(lo), Subnormal(hi)))) {
    const __m256i a = _mm512_cvtepi32_epi16(RoundInt(lo));
    const __m256i b = _mm512_cvtepi32_epi16(RoundInt(hi));
    return _mm512_inserti64x4(_mm512_castsi256_si512(a), b, 1);
  }
  return reinterpret_cast<__m512i>(_mm512_cvtne2ps_pbh(hi, lo));
}
HWY_INLINE __m256i Pack16(__m512 v) {
  if (HWY_UNLIKELY(Subnormal(v) != 0)) return _mm512_cvtepi32_epi16(RoundInt(v));
  return reinterpret_cast<__m256i>(_mm512_cvtneps_pbh(v));
}

template <bool kStream>
HWY_INLINE void Store32(uint16_t* p, __m512 lo, __m512 hi) {
  const __m512i r = Pack32(lo, hi);
  if constexpr (kStream) {
    _mm512_stream_si512(reinterpret_cast<__m512i*>(p), r);
  } else {
    _mm512_storeu_si512(p, r);
  }
}
template <bool kStream>
HWY_INLINE void Store16(uint16_t* p, __m512 v) {
  const __m256i r = Pack16(v);
  if constexpr (kStream) {
    _mm256_stream_si256(reinterpret_cast<__m256i*>(p), r);
  } else {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), r);
  }
}

/// The source rows and weights of the outer axes (all spatial axes but W) at one output
/// position, as MakeOuterTaps of resample_hwy-inl.h: rows so[0..3] (axis 0 varies fastest),
/// weights a (axis 0) and b (axis 1 of a 3-D problem).
struct Taps {
  int64_t so[4] = {0, 0, 0, 0};
  float wa0 = 1, wa1 = 0, wb0 = 1, wb1 = 0;
  int64_t doff = 0;
};

template <int R>
Taps MakeTaps(const ResampleFastTables& tb, const ResampleLayout& S, const ResampleLayout& Dl,
              int64_t pos, const int64_t* out) {
  Taps t;
  if constexpr (R == 2) {
    const ResampleAxisTable& ah = tb.axis[0];
    t.so[0] = ah.i0[pos] * S.spatial_stride[0];
    t.so[1] = ah.i1[pos] * S.spatial_stride[0];
    t.wa0 = ah.w0[pos];
    t.wa1 = ah.w1[pos];
    t.doff = pos * Dl.spatial_stride[0];
  } else if constexpr (R == 3) {
    const int64_t od = pos / out[1], oh = pos % out[1];
    const ResampleAxisTable& ad = tb.axis[0];
    const ResampleAxisTable& ah = tb.axis[1];
    const int64_t d0 = ad.i0[od] * S.spatial_stride[0], d1 = ad.i1[od] * S.spatial_stride[0];
    const int64_t h0 = ah.i0[oh] * S.spatial_stride[1], h1 = ah.i1[oh] * S.spatial_stride[1];
    t.so[0] = d0 + h0;
    t.so[1] = d1 + h0;
    t.so[2] = d0 + h1;
    t.so[3] = d1 + h1;
    t.wa0 = ad.w0[od];
    t.wa1 = ad.w1[od];
    t.wb0 = ah.w0[oh];
    t.wb1 = ah.w1[oh];
    t.doff = od * Dl.spatial_stride[0] + oh * Dl.spatial_stride[1];
  }
  (void)tb;
  (void)S;
  (void)Dl;
  (void)pos;
  (void)out;
  return t;
}

/// The outer axes' interpolation of 16 channels at source offset `off` from rows r[0..3]
/// (FwdLinearC's order: axis 0 first, then axis 1).
template <int R, bool kMasked>
HWY_INLINE __m512 Outer(const uint16_t* const* r, int64_t off, __m512 va0, __m512 va1,
                        __m512 vb0, __m512 vb1, __mmask16 m) {
  auto ld = [m](const uint16_t* q) {
    if constexpr (kMasked) {
      return Load16(q, m);
    } else {
      (void)m;
      return Load16(q);
    }
  };
  if constexpr (R == 1) {
    (void)va0;
    (void)va1;
    (void)vb0;
    (void)vb1;
    return ld(r[0] + off);
  } else if constexpr (R == 2) {
    (void)vb0;
    (void)vb1;
    return Lerp(va0, va1, ld(r[0] + off), ld(r[1] + off));
  } else {
    const __m512 lo = Lerp(va0, va1, ld(r[0] + off), ld(r[1] + off));
    const __m512 hi = Lerp(va0, va1, ld(r[2] + off), ld(r[3] + off));
    return Lerp(vb0, vb1, lo, hi);
  }
}

/// NOTE [ Resample bf16 column cache ]
/// When W is not downsampled by 2 or more, neighbouring outputs share W taps (2x up: each
/// input column feeds up to four outputs), and resample.channels_vector16 computes the
/// outer axes' interpolation once per input column into a float32 scratch row, then reads
/// two of its columns per output. Here those columns stay in registers instead: for a
/// strip of K vectors (16 channels each) the loop keeps the columns of the current
/// output's two taps, A (tap 0) and B (tap 1), and computes a column only when an output
/// moves to a tap that is neither (taps never decrease along W, so with 2x up each input
/// column is computed once per strip). The values are those of the scratch row (the same
/// operations on the same inputs), so the bits are those of resample.channels_vector16.
/// What it saves is the scratch row's store and two loads per output vector; with the
/// rounding by vcvtne2ps2bf16 (Pack32) the loop runs on far fewer instructions (the two
/// pay off together: docs/perf/resample.md, "bf16 column cache"). `col(j, x)` computes input
/// column j into x[0, K); `out(ow, o)` stores the K output vectors of pixel ow. Both are
/// taken by value and should capture by value: what they reach through a reference would
/// be loaded again after every store (a store may alias anything).
template <int K, class Col, class Out>
HWY_INLINE void ColumnCacheRow(const int32_t* i0, const int32_t* i1, const float* w0p,
                               const float* w1p, int64_t ow_n, Col col, Out out) {
  __m512 a[K], b[K], o[K];
  int64_t ca = -1, cb = -1;  // the input columns held in a and b (-1: none)
  // Makes x (holding column cx) hold column j, copied from y (holding cy) if it has it.
  auto hold = [&col](int64_t j, __m512* x, int64_t& cx, const __m512* y, int64_t cy) {
    if (j == cx) return;
    if (j == cy) {
      for (int u = 0; u < K; ++u) x[u] = y[u];
    } else {
      col(j, x);
    }
    cx = j;
  };
  for (int64_t ow = 0; ow < ow_n; ++ow) {
    hold(i0[ow], a, ca, b, cb);
    hold(i1[ow], b, cb, a, ca);
    const __m512 w0 = _mm512_set1_ps(w0p[ow]), w1 = _mm512_set1_ps(w1p[ow]);
    for (int u = 0; u < K; ++u) o[u] = Lerp(w0, w1, a[u], b[u]);
    out(ow, o);
  }
}

// Over 150 lines: one parallel region whose loops keep everything they use in locals
// (vector stores may alias anything, so values reached through a helper's references or a
// closure are reloaded after each store); split, its parts would take them that way.
template <int R>
void Forward(const ResampleProblem& p, const ResampleFastTables& tb, const uint16_t* src,
             uint16_t* dst) {
  constexpr int64_t L = 16;
  const ResampleLayout& S = p.src;
  const ResampleLayout& Dl = p.dst;
  const bool cl = S.block == 1;  // else both blocked by 16 (the declines)
  const int64_t nq = Dl.padded_c / L;
  const int64_t Ow = p.out[R - 1];
  // ResampleFastTables::direct_linear (for bfloat16: W downsampled by 2 or more, each input
  // column feeding at most about one output): the loop computes the outer axes at both W
  // taps of each output directly; otherwise the column cache (NOTE [ Resample bf16 column
  // cache ]).
  const bool cached = !tb.direct_linear;
  // Tasks: (n, output row) with every channel (channels-last, and blocked with the column
  // cache), (n, chunk, output row) (blocked, downsampling).
  const int64_t groups = cl || cached ? 1 : nq;
  int64_t outer = 1;
  for (int k = 0; k < R - 1; ++k) outer *= p.out[k];
  const int64_t tasks = p.n * groups * outer;
  const ResampleAxisTable& aw = tb.axis[R - 1];
  // Non-temporal stores for outputs of resample_stream_min_bytes() or more when every
  // store is aligned to its size (64-byte units; blocked with an odd Ow also has 32-byte
  // ones: not streamed).
  int64_t out_elems = p.n * Dl.padded_c;
  for (int k = 0; k < R; ++k) out_elems *= p.out[k];
  bool aligned = reinterpret_cast<uintptr_t>(dst) % 64 == 0 && Dl.n_stride % 32 == 0;
  for (int k = 0; k < R - 1; ++k) aligned = aligned && Dl.spatial_stride[k] % 32 == 0;
  aligned = aligned && (cl ? p.c % 32 == 0 : (Dl.c_block_stride % 32 == 0 && Ow % 2 == 0));
  const bool stream = aligned && out_elems * 2 >= resample_stream_min_bytes();
  const int64_t cmod = p.c % L;  // blocked: the real lanes of the last chunk (0: all 16)
  const auto last_mask = static_cast<__mmask16>(cmod == 0 ? 0xFFFF : (1u << cmod) - 1);
  const int64_t work = Ow * (cl ? p.c : L);
  const int64_t grain = std::max<int64_t>(16384 / std::max<int64_t>(work, 1), 1);

  parallel_for(tasks, grain, [&](int64_t begin, int64_t end) {
    // Locals only in the loops (stores may alias anything reached through references).
    const int32_t* const i0 = aw.i0.data();
    const int32_t* const i1 = aw.i1.data();
    const float* const w0p = aw.w0.data();
    const float* const w1p = aw.w1.data();
    const int64_t ow_n = Ow, sw = S.spatial_stride[R - 1], dw = Dl.spatial_stride[R - 1];
    const int64_t cn = p.c;
    for (int64_t task = begin; task < end; ++task) {
      const int64_t pos = task % outer;
      const int64_t rest = task / outer;
      const int64_t q = rest % groups, n = rest / groups;
      const Taps t = MakeTaps<R>(tb, S, Dl, pos, p.out);
      const __m512 va0 = _mm512_set1_ps(t.wa0), va1 = _mm512_set1_ps(t.wa1);
      const __m512 vb0 = _mm512_set1_ps(t.wb0), vb1 = _mm512_set1_ps(t.wb1);
      const uint16_t* sb = src + n * S.n_stride + q * S.c_block_stride;
      const uint16_t* const r[4] = {sb + t.so[0], sb + t.so[1], sb + t.so[2], sb + t.so[3]};
      uint16_t* const db = dst + n * Dl.n_stride + q * Dl.c_block_stride + t.doff;
      if (cached) {
        // NOTE [ Resample bf16 column cache ]: the row's channels in strips of up to four
        // vectors: channels-last 64 channels of a pixel (then 32, 16); blocked four chunks
        // (then two, one; the chunk with padded lanes alone, its loads masked).
        auto cached_row = [&](auto st) {
          constexpr bool kS = decltype(st)::value;
          // `col` and `out` capture by value (ColumnCacheRow), so they need no local copies.
          const int64_t scb = S.c_block_stride, dcb = Dl.c_block_stride;
          // Vector u of the strip: source offset so + u * ss, output offset dof + u * ds.
          auto strip = [&](auto kv, auto masked, int64_t so, int64_t ss, int64_t dof,
                           int64_t ds) {
            constexpr int kK = decltype(kv)::value;
            constexpr bool kM = decltype(masked)::value;
            auto col = [=](int64_t j, __m512* x) {
              const int64_t off = j * sw + so;
              for (int u = 0; u < kK; ++u) {
                x[u] = Outer<R, kM>(r, off + u * ss, va0, va1, vb0, vb1, last_mask);
              }
            };
            if (cl) {
              // The strip's vectors are adjacent: 32 channels per store.
              auto out = [=](int64_t ow, const __m512* o) {
                uint16_t* const dp = db + ow * dw + dof;
                if constexpr (kK == 1) {
                  Store16<kS>(dp, o[0]);
                } else {
                  for (int u = 0; u < kK; u += 2) Store32<kS>(dp + u * L, o[u], o[u + 1]);
                }
              };
              ColumnCacheRow<kK>(i0, i1, w0p, w1p, ow_n, col, out);
              return;
            }
            // Blocked: two adjacent pixels of a chunk per store; an even output pixel
            // waits in `held` for its odd neighbour.
            __m512 held[kK];
            for (int u = 0; u < kK; ++u) held[u] = _mm512_setzero_ps();
            auto out = [=, &held](int64_t ow, const __m512* o) {
              if (ow % 2 == 0) {
                for (int u = 0; u < kK; ++u) held[u] = o[u];
              } else {
                for (int u = 0; u < kK; ++u) {
                  Store32<kS>(db + dof + u * ds + (ow - 1) * dw, held[u], o[u]);
                }
              }
            };
            ColumnCacheRow<kK>(i0, i1, w0p, w1p, ow_n, col, out);
            if (ow_n % 2 != 0) {
              for (int u = 0; u < kK; ++u) {
                Store16<kS>(db + dof + u * ds + (ow_n - 1) * dw, held[u]);
              }
            }
          };
          using One = std::integral_constant<int, 1>;
          using Two = std::integral_constant<int, 2>;
          using Four = std::integral_constant<int, 4>;
          using Full = std::false_type;
          if (cl) {
            int64_t k = 0;
            for (; k + 4 * L <= cn; k += 4 * L) strip(Four{}, Full{}, k, L, k, L);
            if (k + 2 * L <= cn) {
              strip(Two{}, Full{}, k, L, k, L);
              k += 2 * L;
            }
            if (k < cn) strip(One{}, Full{}, k, L, k, L);
            return;
          }
          const int64_t full = cmod == 0 ? nq : nq - 1;  // chunks without padded lanes
          int64_t c = 0;
          for (; c + 4 <= full; c += 4) strip(Four{}, Full{}, c * scb, scb, c * dcb, dcb);
          if (c + 2 <= full) {
            strip(Two{}, Full{}, c * scb, scb, c * dcb, dcb);
            c += 2;
          }
          if (c < full) {
            strip(One{}, Full{}, c * scb, scb, c * dcb, dcb);
            ++c;
          }
          if (c < nq) strip(One{}, std::true_type{}, c * scb, scb, c * dcb, dcb);
        };
        if (stream) {
          cached_row(std::true_type{});
        } else {
          cached_row(std::false_type{});
        }
        continue;
      }
      // Output ow of 16 channels at offset k of the pixel's run (FwdLinearC's fused loop:
      // the outer axes at both W taps, then the W lerp).
      auto body = [&](auto st, auto masked) {
        constexpr bool kS = decltype(st)::value;
        constexpr bool kM = decltype(masked)::value;
        // Everything the loops use as locals: the stores may alias anything, so values
        // reached through the closure would be loaded again after each store.
        const __mmask16 m = last_mask;
        const __m512 a0 = va0, a1 = va1, b0 = vb0, b1 = vb1;
        const uint16_t* const rows[4] = {r[0], r[1], r[2], r[3]};
        uint16_t* const dbase = db;
        // Output ow at channel offset k, from the source offsets of its W taps.
        auto at = [&](int64_t o0, int64_t o1, __m512 w0, __m512 w1, int64_t k) {
          return Lerp(w0, w1, Outer<R, kM>(rows, o0 + k, a0, a1, b0, b1, m),
                      Outer<R, kM>(rows, o1 + k, a0, a1, b0, b1, m));
        };
        auto tap = [&](int64_t ow, int64_t& o0, int64_t& o1, __m512& w0, __m512& w1) {
          o0 = i0[ow] * sw;
          o1 = i1[ow] * sw;
          w0 = _mm512_set1_ps(w0p[ow]);
          w1 = _mm512_set1_ps(w1p[ow]);
        };
        if (cl) {
          // Units of 32 channels of one pixel, two units per step (the loads of both in
          // flight together; docs/perf/resample.md, "bf16 column cache").
          for (int64_t ow = 0; ow < ow_n; ++ow) {
            int64_t o0, o1;
            __m512 w0, w1;
            tap(ow, o0, o1, w0, w1);
            uint16_t* const dp = dbase + ow * dw;
            int64_t k = 0;
            for (; k + 4 * L <= cn; k += 4 * L) {
              const __m512 x0 = at(o0, o1, w0, w1, k), x1 = at(o0, o1, w0, w1, k + L);
              const __m512 x2 = at(o0, o1, w0, w1, k + 2 * L);
              const __m512 x3 = at(o0, o1, w0, w1, k + 3 * L);
              Store32<kS>(dp + k, x0, x1);
              Store32<kS>(dp + k + 2 * L, x2, x3);
            }
            if (k + 2 * L <= cn) {
              const __m512 x0 = at(o0, o1, w0, w1, k);
              Store32<kS>(dp + k, x0, at(o0, o1, w0, w1, k + L));
              k += 2 * L;
            }
            if (k < cn) Store16<kS>(dp + k, at(o0, o1, w0, w1, k));
          }
          return;
        }
        // Blocked by 16: a chunk's row holds 16 channels per pixel, so two adjacent output
        // pixels are one unit; two units per step.
        auto px = [&](int64_t ow) {
          int64_t o0, o1;
          __m512 w0, w1;
          tap(ow, o0, o1, w0, w1);
          return at(o0, o1, w0, w1, 0);
        };
        int64_t ow = 0;
        for (; ow + 4 <= ow_n; ow += 4) {
          const __m512 x0 = px(ow), x1 = px(ow + 1), x2 = px(ow + 2), x3 = px(ow + 3);
          Store32<kS>(dbase + ow * dw, x0, x1);
          Store32<kS>(dbase + (ow + 2) * dw, x2, x3);
        }
        for (; ow + 2 <= ow_n; ow += 2) {
          const __m512 x0 = px(ow);
          Store32<kS>(dbase + ow * dw, x0, px(ow + 1));
        }
        if (ow < ow_n) Store16<kS>(dbase + ow * dw, px(ow));
      };
      // Padded channels (the last chunk of a blocked tensor with C % 16 != 0) load as +0,
      // so they come out +0, as in FwdLinearC.
      const bool partial = !cl && q == nq - 1 && cmod != 0;
      if (stream) {
        partial ? body(std::true_type{}, std::true_type{})
                : body(std::true_type{}, std::false_type{});
      } else {
        partial ? body(std::false_type{}, std::true_type{})
                : body(std::false_type{}, std::false_type{});
      }
    }
    if (stream) _mm_sfence();
  });
}

void ForwardBf16(const ResampleProblem& p, const ResampleFastTables& tb, const uint16_t* src,
                 uint16_t* dst) {
  switch (p.spatial_rank) {
    case 1: Forward<1>(p, tb, src, dst); return;
    case 2: Forward<2>(p, tb, src, dst); return;
    default: Forward<3>(p, tb, src, dst); return;
  }
}

}  // namespace

HWY_POP_ATTRIBUTES

#endif  // GRIDOPS_RESAMPLE_BF16_X86

void resample_channels_bf16_forward(const ResampleProblem& p, const void* tables,
                                    const void* src, void* dst) {
#if GRIDOPS_RESAMPLE_BF16_X86
  ForwardBf16(p, *static_cast<const ResampleFastTables*>(tables),
              static_cast<const uint16_t*>(src), static_cast<uint16_t*>(dst));
#else
  (void)p;
  (void)tables;
  (void)src;
  (void)dst;
#endif
}

}  // namespace gridops::kernels
