// The fast GridSample backward's band kernel with Highway vectors (dynamic dispatch): per
// tap, the point's channel row of grad_dst is added into the accumulator row of the tap and
// dotted with the tap's src row, SIMD over channels. Same contract and visiting order as
// band_portable (grid_sample_backward_band.h); the roundings differ (fused multiply-add,
// lanes of the target's vector width), so the two are each deterministic but not bit-equal
// to each other. See NOTE [ GridSample backward fast path ] in grid_sample_backward_fast.cc.
#include <cstddef>
#include <cstdint>

#include "kernels/grid_sample/grid_sample_backward_band.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/grid_sample/grid_sample_backward_hwy.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/cache_control.h>
#include <hwy/highway.h>

HWY_BEFORE_NAMESPACE();
namespace gridops::kernels::grid_sample_simd {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

/// acc[0..CP) += w * go[0..CP).
template <class D>
HWY_INLINE void Scatter(D d, float* HWY_RESTRICT acc, float w, const float* HWY_RESTRICT go,
                        int64_t CP) {
  const auto vw = hn::Set(d, w);
  const int64_t N = static_cast<int64_t>(hn::Lanes(d));
  for (int64_t j = 0; j < CP; j += N) {
    hn::StoreU(hn::MulAdd(vw, hn::LoadU(d, go + j), hn::LoadU(d, acc + j)), d, acc + j);
  }
}

/// Lane-wise partial sums of go[c] * v[c] over the row (lanes: c mod N, in order of c).
template <class D>
HWY_INLINE hn::Vec<D> Dot(D d, const float* HWY_RESTRICT v, const float* HWY_RESTRICT go,
                          int64_t CP) {
  const int64_t N = static_cast<int64_t>(hn::Lanes(d));
  auto s = hn::Mul(hn::LoadU(d, go), hn::LoadU(d, v));
  for (int64_t j = N; j < CP; j += N) s = hn::MulAdd(hn::LoadU(d, go + j), hn::LoadU(d, v + j), s);
  return s;
}

/// Points ahead whose grad_dst row is prefetched.
constexpr int64_t kAhead = 8;

template <class D, int R, int K>
void BandT(D d, const BandArgs& a) {
  const int64_t CP = a.CP;
  const int64_t d0 = a.dense[0], d1 = a.dense[1], d2 = a.dense[2];
  float* HWY_RESTRICT acc = a.acc;
  const float* HWY_RESTRICT src = a.src;
  for (int64_t pos = a.pb; pos < a.pe; ++pos) {
    const int64_t q = pos;  // arrays in sorted order
    const int32_t* ir = a.irec + q * (R * K + 1);
    const int32_t lo0 = ir[0];
    const int32_t* ix = ir + 1;
    const float* w = a.frec + q * (2 * R * K);
    const float* dw = w + R * K;
    const float* go = a.gd + a.order[pos] * CP;
    if (pos + kAhead < a.pe) {
      const float* next = a.gd + a.order[pos + kAhead] * CP;
      for (int64_t j = 0; j < CP; j += 16) hwy::Prefetch(next + j);
    }
    if (acc != nullptr) {
      for (int k0 = 0; k0 < K; ++k0) {
        const int64_t i0 = ix[k0];
        if (i0 < a.b0 || i0 >= a.b1) continue;  // also -1 (outside under zeros)
        if constexpr (R == 1) {
          Scatter(d, acc + i0 * d0 * CP, w[k0], go, CP);
        } else {
          for (int k1 = 0; k1 < K; ++k1) {
            const int64_t i1 = ix[K + k1];
            if (i1 < 0) continue;
            const float w01 = w[k0] * w[K + k1];
            const int64_t o01 = i0 * d0 + i1 * d1;
            if constexpr (R == 2) {
              Scatter(d, acc + o01 * CP, w01, go, CP);
            } else {
              for (int k2 = 0; k2 < K; ++k2) {
                const int64_t i2 = ix[2 * K + k2];
                if (i2 < 0) continue;
                Scatter(d, acc + (o01 + i2 * d2) * CP, w01 * w[2 * K + k2], go, CP);
              }
            }
          }
        }
      }
    }
    if (src != nullptr && lo0 >= a.b0) {
      auto g0 = hn::Zero(d), g1 = hn::Zero(d), g2 = hn::Zero(d);
      for (int k0 = 0; k0 < K; ++k0) {
        const int64_t i0 = ix[k0];
        if (i0 < 0) continue;
        if constexpr (R == 1) {
          g0 = hn::MulAdd(hn::Set(d, dw[k0]), Dot(d, src + i0 * d0 * CP, go, CP), g0);
        } else {
          for (int k1 = 0; k1 < K; ++k1) {
            const int64_t i1 = ix[K + k1];
            if (i1 < 0) continue;
            const int64_t o01 = i0 * d0 + i1 * d1;
            if constexpr (R == 2) {
              const auto dv = Dot(d, src + o01 * CP, go, CP);
              g0 = hn::MulAdd(hn::Set(d, dw[k0] * w[K + k1]), dv, g0);
              g1 = hn::MulAdd(hn::Set(d, dw[K + k1] * w[k0]), dv, g1);
            } else {
              for (int k2 = 0; k2 < K; ++k2) {
                const int64_t i2 = ix[2 * K + k2];
                if (i2 < 0) continue;
                const auto dv = Dot(d, src + (o01 + i2 * d2) * CP, go, CP);
                const float w0 = w[k0], w1 = w[K + k1], w2 = w[2 * K + k2];
                g0 = hn::MulAdd(hn::Set(d, (dw[k0] * w1) * w2), dv, g0);
                g1 = hn::MulAdd(hn::Set(d, (dw[K + k1] * w0) * w2), dv, g1);
                g2 = hn::MulAdd(hn::Set(d, (dw[2 * K + k2] * w0) * w1), dv, g2);
              }
            }
          }
        }
      }
      float* gq = a.gg + a.order[pos] * R;
      gq[0] = hn::GetLane(hn::SumOfLanes(d, g0));
      if constexpr (R >= 2) gq[1] = hn::GetLane(hn::SumOfLanes(d, g1));
      if constexpr (R >= 3) gq[2] = hn::GetLane(hn::SumOfLanes(d, g2));
    }
  }
}

template <class D>
void BandD(D d, const BandArgs& a) {
  switch (a.r * 8 + a.K) {
    case 9: BandT<D, 1, 1>(d, a); break;
    case 10: BandT<D, 1, 2>(d, a); break;
    case 12: BandT<D, 1, 4>(d, a); break;
    case 17: BandT<D, 2, 1>(d, a); break;
    case 18: BandT<D, 2, 2>(d, a); break;
    case 20: BandT<D, 2, 4>(d, a); break;
    case 25: BandT<D, 3, 1>(d, a); break;
    case 26: BandT<D, 3, 2>(d, a); break;
    case 28: BandT<D, 3, 4>(d, a); break;
    default: break;
  }
}

/// rows[j * CP + c] = s[c * ch + j] for j < n, c < C (4 x 4 blocks of 128-bit vectors).
void PlanesToRows(const float* HWY_RESTRICT s, int64_t ch, int64_t n, int64_t C,
                  float* HWY_RESTRICT rows, int64_t CP) {
  int64_t c = 0;
#if HWY_TARGET != HWY_SCALAR
  const hn::Full128<float> d;
  for (; c + 4 <= C; c += 4) {
    int64_t j = 0;
    for (; j + 4 <= n; j += 4) {
      const auto v0 = hn::LoadU(d, s + c * ch + j), v1 = hn::LoadU(d, s + (c + 1) * ch + j);
      const auto v2 = hn::LoadU(d, s + (c + 2) * ch + j), v3 = hn::LoadU(d, s + (c + 3) * ch + j);
      const auto t0 = hn::InterleaveLower(d, v0, v1), t1 = hn::InterleaveLower(d, v2, v3);
      const auto t2 = hn::InterleaveUpper(d, v0, v1), t3 = hn::InterleaveUpper(d, v2, v3);
      float* o = rows + j * CP + c;
      hn::StoreU(hn::ConcatLowerLower(d, t1, t0), d, o);
      hn::StoreU(hn::ConcatUpperUpper(d, t1, t0), d, o + CP);
      hn::StoreU(hn::ConcatLowerLower(d, t3, t2), d, o + 2 * CP);
      hn::StoreU(hn::ConcatUpperUpper(d, t3, t2), d, o + 3 * CP);
    }
    for (; j < n; ++j) {
      for (int64_t k = 0; k < 4; ++k) rows[j * CP + c + k] = s[(c + k) * ch + j];
    }
  }
#endif
  for (; c < C; ++c) {
    for (int64_t j = 0; j < n; ++j) rows[j * CP + c] = s[c * ch + j];
  }
}

/// s[c * ch + j] = rows[j * CP + c] for j < n, c < C: the inverse of PlanesToRows.
void RowsToPlanes(const float* HWY_RESTRICT rows, int64_t CP, int64_t n, int64_t C,
                  float* HWY_RESTRICT s, int64_t ch) {
  int64_t c = 0;
#if HWY_TARGET != HWY_SCALAR
  const hn::Full128<float> d;
  for (; c + 4 <= C; c += 4) {
    int64_t j = 0;
    for (; j + 4 <= n; j += 4) {
      const float* o = rows + j * CP + c;
      const auto v0 = hn::LoadU(d, o), v1 = hn::LoadU(d, o + CP);
      const auto v2 = hn::LoadU(d, o + 2 * CP), v3 = hn::LoadU(d, o + 3 * CP);
      const auto t0 = hn::InterleaveLower(d, v0, v1), t1 = hn::InterleaveLower(d, v2, v3);
      const auto t2 = hn::InterleaveUpper(d, v0, v1), t3 = hn::InterleaveUpper(d, v2, v3);
      hn::StoreU(hn::ConcatLowerLower(d, t1, t0), d, s + c * ch + j);
      hn::StoreU(hn::ConcatUpperUpper(d, t1, t0), d, s + (c + 1) * ch + j);
      hn::StoreU(hn::ConcatLowerLower(d, t3, t2), d, s + (c + 2) * ch + j);
      hn::StoreU(hn::ConcatUpperUpper(d, t3, t2), d, s + (c + 3) * ch + j);
    }
    for (; j < n; ++j) {
      for (int64_t k = 0; k < 4; ++k) s[(c + k) * ch + j] = rows[j * CP + c + k];
    }
  }
#endif
  for (; c < C; ++c) {
    for (int64_t j = 0; j < n; ++j) s[c * ch + j] = rows[j * CP + c];
  }
}

int64_t Lanes() { return static_cast<int64_t>(hn::Lanes(hn::ScalableTag<float>())); }

void Band(const BandArgs& a) {
  const hn::ScalableTag<float> df;
  if (a.CP % static_cast<int64_t>(hn::Lanes(df)) == 0) {
    BandD(df, a);
  } else {
    // Rows of 4 floats (few channels): 128-bit vectors (every target has them).
    BandD(hn::CappedTag<float, 4>(), a);
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace gridops::kernels::grid_sample_simd
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace gridops::kernels::grid_sample_simd {
HWY_EXPORT(Band);
HWY_EXPORT(Lanes);
HWY_EXPORT(PlanesToRows);
HWY_EXPORT(RowsToPlanes);

void planes_to_rows_hwy(const float* s, int64_t ch, int64_t n, int64_t C, float* rows, int64_t CP) {
  HWY_DYNAMIC_DISPATCH(PlanesToRows)(s, ch, n, C, rows, CP);
}
void rows_to_planes_hwy(const float* rows, int64_t CP, int64_t n, int64_t C, float* s, int64_t ch) {
  HWY_DYNAMIC_DISPATCH(RowsToPlanes)(rows, CP, n, C, s, ch);
}

void band_hwy(const BandArgs& a) { HWY_DYNAMIC_DISPATCH(Band)(a); }
int64_t band_lanes_hwy() { return HWY_DYNAMIC_DISPATCH(Lanes)(); }
}  // namespace gridops::kernels::grid_sample_simd
#endif  // HWY_ONCE
