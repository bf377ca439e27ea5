// The fast GridSample backward's channel rows (NOTE [ GridSample backward fast path ] in
// grid_sample_backward_fast.cc): strided tensors copied to and from rows of CP floats per
// point (channels past C zero), and the row-major point numbering they walk.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "core/convert.h"
#include "gridops/tensor.h"
#include "kernels/grid_sample/grid_sample_backward_band.h"

namespace gridops::kernels::grid_sample_backward_rows {

/// Row-major multi-index of point q over `sizes` (r entries).
inline void unravel(int64_t q, const Dims& sizes, int r, int64_t* o) {
  for (int d = r - 1; d >= 0; --d) {
    const int64_t len = sizes[static_cast<size_t>(d)];
    o[d] = q % len;
    q /= len;
  }
}

/// Offset of input (or output) point i of a row-major point numbering over `sizes`, with
/// the given per-axis strides.
inline int64_t point_offset(int64_t i, const Dims& sizes, const Dims& strides, int r) {
  int64_t o[3];
  unravel(i, sizes, r, o);
  int64_t off = 0;
  for (int d = 0; d < r; ++d) off += o[d] * strides[static_cast<size_t>(d)];
  return off;
}

/// Row-major multi-index over `sizes` (r entries) stepped point by point (no division).
struct Odometer {
  int r;
  const Dims& sizes;
  int64_t o[3] = {0, 0, 0};
  Odometer(int rank, const Dims& s, int64_t q) : r(rank), sizes(s) { unravel(q, sizes, r, o); }
  void next() {
    for (int d = r - 1; d >= 0; --d) {
      if (++o[d] < sizes[static_cast<size_t>(d)]) return;
      o[d] = 0;
    }
  }
  int64_t offset(const Dims& strides) const {
    int64_t off = 0;
    for (int d = 0; d < r; ++d) off += o[d] * strides[static_cast<size_t>(d)];
    return off;
  }
};

/// Copies points [i0, i1) of a strided tensor (element offset base, per-axis strides sp,
/// channel stride ch, C channels) into rows of CP floats, channels past C zero. Runs of
/// the innermost axis are walked with one stride; channels-first goes channel by channel.
template <class T>
inline void gather_rows(const T* base, const Dims& sizes, const Dims& sp, int64_t ch, int r, int64_t C,
                 int64_t CP, bool channels_first, int64_t i0, int64_t i1, float* rows) {
  const int64_t wlen = sizes[static_cast<size_t>(r) - 1], step = sp[static_cast<size_t>(r) - 1];
  for (int64_t i = i0; i < i1;) {
    const int64_t n = std::min(i1 - i, wlen - i % wlen);
    const T* s = base + point_offset(i, sizes, sp, r);
    float* o = rows + (i - i0) * CP;
    if (channels_first) {
#ifdef GRIDOPS_HAVE_HWY
      if constexpr (std::is_same_v<T, float>) {
        if (step == 1) {
          grid_sample_simd::planes_to_rows_hwy(s, ch, n, C, o, CP);
          for (int64_t j = 0; j < n; ++j) {
            for (int64_t c = C; c < CP; ++c) o[j * CP + c] = 0.0f;
          }
          i += n;
          continue;
        }
      }
#endif
      for (int64_t c = 0; c < C; ++c) {
        for (int64_t j = 0; j < n; ++j) o[j * CP + c] = convert::load_real<float>(s[j * step + c * ch]);
      }
    } else {
      bool copied = false;
      if constexpr (std::is_same_v<T, float>) {
        if (ch == 1) {  // contiguous channels: whole rows
          for (int64_t j = 0; j < n; ++j) std::memcpy(o + j * CP, s + j * step, static_cast<size_t>(C) * sizeof(float));
          copied = true;
        }
      }
      for (int64_t j = 0; j < n && !copied; ++j) {
        for (int64_t c = 0; c < C; ++c) o[j * CP + c] = convert::load_real<float>(s[j * step + c * ch]);
      }
    }
    for (int64_t j = 0; j < n; ++j) {
      for (int64_t c = C; c < CP; ++c) o[j * CP + c] = 0.0f;
    }
    i += n;
  }
}

/// The inverse of gather_rows: stores channels [0, C) of rows for points [i0, i1).
template <class T>
inline void scatter_rows(T* base, const Dims& sizes, const Dims& sp, int64_t ch, int r, int64_t C,
                  int64_t CP, bool channels_first, int64_t i0, int64_t i1, const float* rows) {
  const int64_t wlen = sizes[static_cast<size_t>(r) - 1], step = sp[static_cast<size_t>(r) - 1];
  for (int64_t i = i0; i < i1;) {
    const int64_t n = std::min(i1 - i, wlen - i % wlen);
    T* s = base + point_offset(i, sizes, sp, r);
    const float* o = rows + (i - i0) * CP;
    if (channels_first) {
#ifdef GRIDOPS_HAVE_HWY
      if constexpr (std::is_same_v<T, float>) {
        if (step == 1) {
          grid_sample_simd::rows_to_planes_hwy(o, CP, n, C, s, ch);
          i += n;
          continue;
        }
      }
#endif
      for (int64_t c = 0; c < C; ++c) {
        for (int64_t j = 0; j < n; ++j) s[j * step + c * ch] = convert::store_real<T>(o[j * CP + c]);
      }
    } else {
      bool copied = false;
      if constexpr (std::is_same_v<T, float>) {
        if (ch == 1) {  // contiguous channels: whole rows
          for (int64_t j = 0; j < n; ++j) std::memcpy(s + j * step, o + j * CP, static_cast<size_t>(C) * sizeof(float));
          copied = true;
        }
      }
      for (int64_t j = 0; j < n && !copied; ++j) {
        for (int64_t c = 0; c < C; ++c) s[j * step + c * ch] = convert::store_real<T>(o[j * CP + c]);
      }
    }
    i += n;
  }
}

}  // namespace gridops::kernels::grid_sample_backward_rows
