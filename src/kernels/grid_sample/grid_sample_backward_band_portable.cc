// The fast GridSample backward's portable band kernel (the one of builds without Highway,
// and the test-only entry grid_sample_backward.bands_portable): plain loops over the
// channel row. Same contract and visiting order as band_hwy (grid_sample_backward_band.h);
// NOTE [ GridSample backward fast path ] in grid_sample_backward_fast.cc.
#include <algorithm>
#include <cassert>
#include <cstdint>
#include <vector>

#include "kernels/grid_sample/grid_sample_backward_band.h"

namespace gridops::kernels {

namespace grid_sample_simd {
namespace {

/// band_portable for R axes and K taps per axis: plain loops over the channel row.
template <int R, int K>
void band_t(const BandArgs& a) {
  const int64_t CP = a.CP;
  const int64_t d0 = a.dense[0], d1 = a.dense[1], d2 = a.dense[2];
  auto scatter = [&](int64_t off, float w, const float* go) {
    float* ac = a.acc + off * CP;
    for (int64_t c = 0; c < CP; ++c) ac[c] += w * go[c];
  };
  auto dot = [&](int64_t off, const float* go, float* dv) {
    const float* v = a.src + off * CP;
    for (int64_t c = 0; c < CP; ++c) dv[c] = go[c] * v[c];
  };
  std::vector<float> dv(static_cast<size_t>(CP)), g(static_cast<size_t>(3 * CP));
  for (int64_t pos = a.pb; pos < a.pe; ++pos) {
    const int64_t q = pos;  // arrays in sorted order
    const int32_t* ir = a.irec + q * (R * K + 1);
    const int32_t lo0 = ir[0];
    const int32_t* ix = ir + 1;
    const float* w = a.frec + q * (2 * R * K);
    const float* dw = w + R * K;
    const float* go = a.gd + a.order[pos] * CP;
    if (a.acc != nullptr) {
      for (int k0 = 0; k0 < K; ++k0) {
        const int64_t i0 = ix[k0];
        if (i0 < a.b0 || i0 >= a.b1) continue;  // also -1 (outside under zeros)
        if constexpr (R == 1) {
          scatter(i0 * d0, w[k0], go);
        } else {
          for (int k1 = 0; k1 < K; ++k1) {
            const int64_t i1 = ix[K + k1];
            if (i1 < 0) continue;
            const float w01 = w[k0] * w[K + k1];
            const int64_t o01 = i0 * d0 + i1 * d1;
            if constexpr (R == 2) {
              scatter(o01, w01, go);
            } else {
              for (int k2 = 0; k2 < K; ++k2) {
                const int64_t i2 = ix[2 * K + k2];
                if (i2 >= 0) scatter(o01 + i2 * d2, w01 * w[2 * K + k2], go);
              }
            }
          }
        }
      }
    }
    if (a.src != nullptr && lo0 >= a.b0) {
      std::fill(g.begin(), g.end(), 0.0f);
      auto add = [&](int d, float f) {
        for (int64_t c = 0; c < CP; ++c) g[static_cast<size_t>(d * CP + c)] += f * dv[static_cast<size_t>(c)];
      };
      for (int k0 = 0; k0 < K; ++k0) {
        const int64_t i0 = ix[k0];
        if (i0 < 0) continue;
        if constexpr (R == 1) {
          dot(i0 * d0, go, dv.data());
          add(0, dw[k0]);
        } else {
          for (int k1 = 0; k1 < K; ++k1) {
            const int64_t i1 = ix[K + k1];
            if (i1 < 0) continue;
            const int64_t o01 = i0 * d0 + i1 * d1;
            if constexpr (R == 2) {
              dot(o01, go, dv.data());
              add(0, dw[k0] * w[K + k1]);
              add(1, dw[K + k1] * w[k0]);
            } else {
              for (int k2 = 0; k2 < K; ++k2) {
                const int64_t i2 = ix[2 * K + k2];
                if (i2 < 0) continue;
                dot(o01 + i2 * d2, go, dv.data());
                const float w0 = w[k0], w1 = w[K + k1], w2 = w[2 * K + k2];
                add(0, (dw[k0] * w1) * w2);
                add(1, (dw[K + k1] * w0) * w2);
                add(2, (dw[2 * K + k2] * w0) * w1);
              }
            }
          }
        }
      }
      for (int d = 0; d < R; ++d) {
        float s = 0.0f;
        for (int64_t c = 0; c < CP; ++c) s += g[static_cast<size_t>(d * CP + c)];
        a.gg[a.order[pos] * R + d] = s;
      }
    }
  }
}

}  // namespace

void band_portable(const BandArgs& a) {
  switch (a.r * 8 + a.K) {
    case 9: band_t<1, 1>(a); break;
    case 10: band_t<1, 2>(a); break;
    case 12: band_t<1, 4>(a); break;
    case 17: band_t<2, 1>(a); break;
    case 18: band_t<2, 2>(a); break;
    case 20: band_t<2, 4>(a); break;
    case 25: band_t<3, 1>(a); break;
    case 26: band_t<3, 2>(a); break;
    case 28: band_t<3, 4>(a); break;
    default: assert(false && "fast backward band: rank 1-3, K 1, 2 or 4"); break;
  }
}

}  // namespace grid_sample_simd

}  // namespace gridops::kernels
