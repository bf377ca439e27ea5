// Highway row kernels of the separable Resize passes (float32), with dynamic dispatch:
// - AxpyF32: acc[j] = w * src[j] (first tap) or acc[j] + w * src[j] (later taps), the
//   multiply-add of whole rows that a pass along an outer axis is made of;
// - GatherRowF32: out[o] = sum_k w[k][o] * row[idx[k][o]] over a fixed number of taps per
//   output (tables padded with weight 0), a pass along the innermost axis; blocks whose
//   taps fall in one or two vectors of the row use loads and lane permutations.
// Each output is one Mul and then MulAdds in tap order, whatever the vector width (fused on
// targets with FMA, ScalarMulAdd).
#include <algorithm>
#include <cmath>
#include <cstdint>

#include "kernels/resize/resize_fast.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/resize/resize_hwy.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/cache_control.h>
#include <hwy/highway.h>

#include "core/table_lookup_hwy-inl.h"

HWY_BEFORE_NAMESPACE();
namespace gridops::kernels::resize_simd {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// The scalar tails' multiply-add rounds as this target's hn::MulAdd does: fused where the
// target has FMA (AVX2, AVX-512, NEON, SVE), a product and then a sum (two roundings)
// where it has none (SSE4, SSSE3, the portable EMU128 / SCALAR code). An output's bits then
// do not depend on whether it falls in a vector or a tail, i.e. on the row's length and
// alignment, which a window or a thread's slab changes.
HWY_INLINE float ScalarMulAdd(float mul, float x, float add) {
#if HWY_NATIVE_FMA
  return std::fma(mul, x, add);
#else
  return mul * x + add;
#endif
}

void AxpyF32(float* HWY_RESTRICT acc, const float* HWY_RESTRICT src, float w, int64_t n, bool first) {
  const hn::ScalableTag<float> d;
  const int64_t N = static_cast<int64_t>(hn::Lanes(d));
  const auto vw = hn::Set(d, w);
  int64_t j = 0;
  if (first) {
    for (; j + N <= n; j += N) hn::StoreU(hn::Mul(vw, hn::LoadU(d, src + j)), d, acc + j);
    for (; j < n; ++j) acc[j] = w * src[j];
  } else {
    for (; j + N <= n; j += N) {
      hn::StoreU(hn::MulAdd(vw, hn::LoadU(d, src + j), hn::LoadU(d, acc + j)), d, acc + j);
    }
    for (; j < n; ++j) acc[j] = ScalarMulAdd(w, src[j], acc[j]);
  }
}

void GatherRowF32(const float* HWY_RESTRICT row, int64_t in_len, float* HWY_RESTRICT out, int64_t out_len,
                  const int32_t* HWY_RESTRICT idx, const float* HWY_RESTRICT w, int64_t taps) {
  const hn::ScalableTag<float> d;
  const hn::RebindToSigned<decltype(d)> di;
  const int64_t N = static_cast<int64_t>(hn::Lanes(d));
  const auto vn = hn::Set(di, static_cast<int32_t>(N));
  const auto vmask = hn::Set(di, static_cast<int32_t>(N - 1));  // N is a power of two
  int64_t o = 0;
  for (; o + N <= out_len; o += N) {
    // The block of N outputs reads input indices [lo, hi]. When that range fits in one or
    // two vectors (upsampling, or few channels per position), loads and lane permutations
    // replace the gathers; all three ways compute the same products in the same order.
    auto vlo = hn::LoadU(di, idx + o), vhi = vlo;
    for (int64_t k = 1; k < taps; ++k) {
      const auto v = hn::LoadU(di, idx + k * out_len + o);
      vlo = hn::Min(vlo, v);
      vhi = hn::Max(vhi, v);
    }
    const int64_t lo = hn::GetLane(hn::MinOfLanes(di, vlo));
    const int64_t span = hn::GetLane(hn::MaxOfLanes(di, vhi)) - lo;
    if (span < 2 * N && lo + 2 * N <= in_len) {
      const auto w0 = hn::LoadU(d, row + lo);
      const auto w1 = hn::LoadU(d, row + lo + N);
      const auto vb = hn::Set(di, static_cast<int32_t>(lo));
      const bool one = span < N;
      auto lane = [&](int64_t off) {
        const auto rel = hn::Sub(hn::LoadU(di, idx + off), vb);
        const auto a = hn::TableLookupLanes(w0, hn::IndicesFromVec(d, hn::And(rel, vmask)));
        if (one) return a;
        const auto b = hn::TableLookupLanes(w1, hn::IndicesFromVec(d, hn::And(rel, vmask)));
        return hn::IfThenElse(hn::RebindMask(d, hn::Lt(rel, vn)), a, b);
      };
      auto acc = hn::Mul(hn::LoadU(d, w + o), lane(o));
      for (int64_t k = 1; k < taps; ++k) acc = hn::MulAdd(hn::LoadU(d, w + k * out_len + o), lane(k * out_len + o), acc);
      hn::StoreU(acc, d, out + o);
      continue;
    }
    auto acc = hn::Mul(hn::LoadU(d, w + o), hn::GatherIndex(d, row, hn::LoadU(di, idx + o)));
    for (int64_t k = 1; k < taps; ++k) {
      const int64_t off = k * out_len + o;
      acc = hn::MulAdd(hn::LoadU(d, w + off), hn::GatherIndex(d, row, hn::LoadU(di, idx + off)), acc);
    }
    hn::StoreU(acc, d, out + o);
  }
  for (; o < out_len; ++o) {
    float acc = w[o] * row[idx[o]];
    for (int64_t k = 1; k < taps; ++k) acc = ScalarMulAdd(w[k * out_len + o], row[idx[k * out_len + o]], acc);
    out[o] = acc;
  }
}

int64_t ResizeLanesF32() { return static_cast<int64_t>(hn::Lanes(hn::ScalableTag<float>())); }

void ResizeBlendRowsF32(float* HWY_RESTRICT out, const float* const* rows, const float* w, int64_t taps, int64_t n) {
  const hn::ScalableTag<float> d;
  const int64_t N = static_cast<int64_t>(hn::Lanes(d));
  if (taps <= 0) {
    std::fill(out, out + n, 0.0f);
    return;
  }
  int64_t j = 0;
  for (; j + N <= n; j += N) {
    auto acc = hn::Mul(hn::Set(d, w[0]), hn::LoadU(d, rows[0] + j));
    for (int64_t k = 1; k < taps; ++k) acc = hn::MulAdd(hn::Set(d, w[k]), hn::LoadU(d, rows[k] + j), acc);
    hn::StoreU(acc, d, out + j);
  }
  for (; j < n; ++j) {
    float acc = w[0] * rows[0][j];
    for (int64_t k = 1; k < taps; ++k) acc = ScalarMulAdd(w[k], rows[k][j], acc);
    out[j] = acc;
  }
}

void ResizeBlendRowsU8(float* HWY_RESTRICT out, const uint8_t* const* rows, const float* w, int64_t taps, int64_t n) {
  const hn::ScalableTag<float> d;
  const hn::Rebind<int32_t, decltype(d)> di;
  const hn::Rebind<uint8_t, decltype(d)> du8;
  const int64_t N = static_cast<int64_t>(hn::Lanes(d));
  if (taps <= 0) {
    std::fill(out, out + n, 0.0f);
    return;
  }
  auto load = [&](const uint8_t* p) { return hn::ConvertTo(d, hn::PromoteTo(di, hn::LoadU(du8, p))); };
  int64_t j = 0;
  for (; j + N <= n; j += N) {
    auto acc = hn::Mul(hn::Set(d, w[0]), load(rows[0] + j));
    for (int64_t k = 1; k < taps; ++k) acc = hn::MulAdd(hn::Set(d, w[k]), load(rows[k] + j), acc);
    hn::StoreU(acc, d, out + j);
  }
  for (; j < n; ++j) {
    float acc = w[0] * static_cast<float>(rows[0][j]);
    for (int64_t k = 1; k < taps; ++k) acc = ScalarMulAdd(w[k], static_cast<float>(rows[k][j]), acc);
    out[j] = acc;
  }
}

void ResizeRowPassF32(const float* HWY_RESTRICT row, float* HWY_RESTRICT out, const ResizeRowTable& t, bool stream) {
  const hn::ScalableTag<float> d;
  const hn::RebindToSigned<decltype(d)> di;
  const int64_t N = static_cast<int64_t>(hn::Lanes(d));
  const int64_t T = t.taps;
  if (t.by_position) {
    const int64_t C = t.C, positions = t.out_len / C;
    stream = stream && C % N == 0 &&
             reinterpret_cast<uintptr_t>(out) % (static_cast<uintptr_t>(N) * sizeof(float)) == 0;
    for (int64_t o = 0; o < positions; ++o) {
      const int64_t a = t.begin[static_cast<size_t>(o)], z = t.begin[static_cast<size_t>(o) + 1];
      float* HWY_RESTRICT dp = out + o * C;
      if (a == z) {
        std::fill(dp, dp + C, 0.0f);
        continue;
      }
      const float* s0 = row + t.pidx[static_cast<size_t>(a)] * C;
      const float w0 = t.pw[static_cast<size_t>(a)];
      int64_t c = 0;
      for (; c + N <= C; c += N) {
        auto acc = hn::Mul(hn::Set(d, w0), hn::LoadU(d, s0 + c));
        for (int64_t k = a + 1; k < z; ++k) {
          acc = hn::MulAdd(hn::Set(d, t.pw[static_cast<size_t>(k)]),
                           hn::LoadU(d, row + t.pidx[static_cast<size_t>(k)] * C + c), acc);
        }
        if (stream) hn::Stream(acc, d, dp + c);
        else hn::StoreU(acc, d, dp + c);
      }
      for (; c < C; ++c) {
        float acc = w0 * s0[c];
        for (int64_t k = a + 1; k < z; ++k) acc = ScalarMulAdd(t.pw[static_cast<size_t>(k)], row[t.pidx[static_cast<size_t>(k)] * C + c], acc);
        dp[c] = acc;
      }
    }
    if (stream) hwy::FlushStream();
    return;
  }
  if (t.lanes != N) {  // tables built for another vector length: scalar over them
    for (int64_t b = 0; b < t.blocks; ++b) {
      for (int64_t l = 0; l < t.lanes; ++l) {
        const int64_t base = t.pat[static_cast<size_t>(b)] * T * t.lanes + l, off = t.lo[static_cast<size_t>(b)] < 0 ? 0 : t.lo[static_cast<size_t>(b)];
        float acc = t.w[static_cast<size_t>(base)] * row[off + t.idx[static_cast<size_t>(base)]];
        for (int64_t k = 1; k < T; ++k) {
          const size_t e = static_cast<size_t>(base + k * t.lanes);
          acc = ScalarMulAdd(t.w[e], row[off + t.idx[e]], acc);
        }
        out[b * t.lanes + l] = acc;
      }
    }
  } else {
    // One two-table lookup per tap (NOTE [ TwoTableLookup ]: vpermt2ps on AVX-512).
    auto pick = [&](decltype(hn::Zero(d)) v0, decltype(hn::Zero(d)) v1, const int32_t* ix) {
      return gridops::HWY_NAMESPACE::TwoTableLookup(d, v0, v1, hn::LoadU(di, ix));
    };
    stream = stream && reinterpret_cast<uintptr_t>(out) % (static_cast<uintptr_t>(N) * sizeof(float)) == 0;
    for (int64_t b = 0; b < t.blocks; ++b) {
      const int64_t pb = t.pat[static_cast<size_t>(b)] * T * N;
      const int32_t* HWY_RESTRICT ib = t.idx.data() + pb;
      const float* HWY_RESTRICT wb = t.w.data() + pb;
      const int32_t lo = t.lo[static_cast<size_t>(b)];
      auto acc = hn::Zero(d);
      if (lo >= 0) {
        const auto v0 = hn::LoadU(d, row + lo), v1 = hn::LoadU(d, row + lo + N);
        acc = hn::Mul(hn::LoadU(d, wb), pick(v0, v1, ib));
        for (int64_t k = 1; k < T; ++k) acc = hn::MulAdd(hn::LoadU(d, wb + k * N), pick(v0, v1, ib + k * N), acc);
      } else {
        acc = hn::Mul(hn::LoadU(d, wb), hn::GatherIndex(d, row, hn::LoadU(di, ib)));
        for (int64_t k = 1; k < T; ++k) {
          acc = hn::MulAdd(hn::LoadU(d, wb + k * N), hn::GatherIndex(d, row, hn::LoadU(di, ib + k * N)), acc);
        }
      }
      if (stream) hn::Stream(acc, d, out + b * N);
      else hn::StoreU(acc, d, out + b * N);
    }
    if (stream) hwy::FlushStream();
  }
  const int64_t first = t.blocks * t.lanes, tail = t.out_len - first;
  for (int64_t o = 0; o < tail; ++o) {
    float acc = t.tail_w[static_cast<size_t>(o)] * row[t.tail_idx[static_cast<size_t>(o)]];
    for (int64_t k = 1; k < T; ++k) {
      const size_t e = static_cast<size_t>(k * tail + o);
      acc = ScalarMulAdd(t.tail_w[e], row[t.tail_idx[e]], acc);
    }
    out[first + o] = acc;
  }
}

void StoreU8FromF32(const float* HWY_RESTRICT s, uint8_t* HWY_RESTRICT d, int64_t n) {
  // ERRATA GridSample 7: NaN -> 0, truncate toward zero, saturate to [0, 255].
  const hn::ScalableTag<float> df;
  const hn::RebindToSigned<decltype(df)> di;
  const hn::Rebind<uint8_t, decltype(df)> du8;
  const int64_t N = static_cast<int64_t>(hn::Lanes(df));
  const auto zero = hn::Zero(df), hi = hn::Set(df, 255.0f);
  int64_t i = 0;
  for (; i + N <= n; i += N) {
    auto v = hn::LoadU(df, s + i);
    v = hn::IfThenZeroElse(hn::IsNaN(v), v);
    v = hn::Min(hn::Max(v, zero), hi);
    hn::StoreU(hn::DemoteTo(du8, hn::ConvertTo(di, v)), du8, d + i);
  }
  for (; i < n; ++i) {
    const float v = s[i];
    d[i] = std::isnan(v) ? 0 : (v <= 0.0f ? 0 : (v >= 255.0f ? 255 : static_cast<uint8_t>(v)));
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace gridops::kernels::resize_simd
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace gridops::kernels::resize_simd {

HWY_EXPORT(AxpyF32);
HWY_EXPORT(GatherRowF32);
HWY_EXPORT(StoreU8FromF32);
HWY_EXPORT(ResizeLanesF32);
HWY_EXPORT(ResizeBlendRowsF32);
HWY_EXPORT(ResizeRowPassF32);
HWY_EXPORT(ResizeBlendRowsU8);
}  // namespace gridops::kernels::resize_simd

namespace gridops::kernels {
using namespace resize_simd;  // NOLINT(google-build-using-namespace): HWY_DYNAMIC_DISPATCH

void resize_blend_rows_u8(float* out, const uint8_t* const* rows, const float* w, int64_t taps, int64_t n) {
  HWY_DYNAMIC_DISPATCH(ResizeBlendRowsU8)(out, rows, w, taps, n);
}

int64_t resize_lanes_f32() { return HWY_DYNAMIC_DISPATCH(ResizeLanesF32)(); }

void resize_blend_rows_f32(float* out, const float* const* rows, const float* w, int64_t taps, int64_t n) {
  HWY_DYNAMIC_DISPATCH(ResizeBlendRowsF32)(out, rows, w, taps, n);
}

void resize_row_pass_f32(const float* row, float* out, const ResizeRowTable& t, bool stream) {
  HWY_DYNAMIC_DISPATCH(ResizeRowPassF32)(row, out, t, stream);
}

void resize_store_u8_from_f32(const float* src, uint8_t* dst, int64_t n) {
  HWY_DYNAMIC_DISPATCH(StoreU8FromF32)(src, dst, n);
}

void resize_axpy_f32(float* acc, const float* src, float w, int64_t n, bool first) {
  HWY_DYNAMIC_DISPATCH(AxpyF32)(acc, src, w, n, first);
}

void resize_gather_row_f32(const float* row, int64_t in_len, float* out, int64_t out_len, const int32_t* idx,
                           const float* w, int64_t taps) {
  HWY_DYNAMIC_DISPATCH(GatherRowF32)(row, in_len, out, out_len, idx, w, taps);
}

}  // namespace gridops::kernels
#endif  // HWY_ONCE
