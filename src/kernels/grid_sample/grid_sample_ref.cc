// The GridSample reference kernel: slow, N-D, every dtype, written to read like the
// formulas in docs/ops/grid_sample.md.
//
// For every output point (n, o_1..o_r):
//   1. read the r grid values; grid[..., r-1-d] is the coordinate of spatial axis d
//      (axis 0 = D1, the outermost; grid[..., 0] belongs to the innermost axis);
//   2. unnormalize each to a pixel coordinate x_d (ERRATA GridSample 2);
//   3. per axis, list the taps (1 for nearest, 2 for linear, 4 for cubic) with their
//      weights, each tap index mapped through the padding mode (ERRATA 3, 4, 8);
//   4. dst[n, c, o] = sum over all tap combinations of prod_d w_d * src[n, c, i_1..i_r],
//      computed in float or double and stored once (ERRATA 7).
#include <algorithm>
#include <cassert>
#include <cmath>
#include <complex>
#include <string>
#include <type_traits>
#include <vector>

#include "core/convert.h"
#include "core/coords.h"
#include "kernels/grid_sample/grid_sample.h"

namespace gridops::kernels {
namespace {

/// The taps of one spatial axis: up to 4 source indices (already padded) and weights.
/// A tap that falls outside the input under zeros padding is simply not listed: it would
/// contribute value 0.
template <class F>
struct AxisTaps {
  int count = 0;
  int64_t index[4] = {0, 0, 0, 0};
  F weight[4] = {F(0), F(0), F(0), F(0)};
};

/// Maps tap index i on an axis of length len through the padding mode. Returns false when
/// the tap is outside under zeros padding (ERRATA GridSample 4).
inline bool pad_index(int64_t i, int64_t len, GridPadding padding, bool align_corners,
                      int64_t* out) {
  switch (padding) {
    case GridPadding::kZeros:
      if (i < 0 || i >= len) return false;
      *out = i;
      return true;
    case GridPadding::kBorder:
      *out = coords::clamp_index(i, len);
      return true;
    case GridPadding::kReflection:
      *out = align_corners ? coords::reflect_index(i, len) : coords::symmetric_index(i, len);
      return true;
  }
  return false;
}

/// The period of the reflection map, used to reduce huge coordinates exactly before they
/// are converted to int64 (coords::to_index). 0 means "no reduction".
inline int64_t reflection_period(const GridSampleProblem& p, int64_t len) {
  if (p.padding != GridPadding::kReflection) return 0;
  return p.align_corners ? 2 * (len - 1) : 2 * len;
}

/// Taps and weights of one axis for the unnormalized coordinate x (in the grid's
/// coordinate precision G), weights in the compute precision F.
template <class F, class G>
AxisTaps<F> axis_taps(const GridSampleProblem& p, G x, int64_t len) {
  AxisTaps<F> a;
  // ERRATA GridSample 8: non-finite coordinates never reach a float-to-int conversion.
  if (std::isnan(x)) {
    if (p.padding == GridPadding::kZeros) return a;  // outside: no tap contributes
    x = G(0);                                         // border, reflection: x = 0 exactly
  } else if (std::isinf(x)) {
    if (p.padding == GridPadding::kZeros) return a;
    if (p.padding == GridPadding::kBorder) {
      x = x > G(0) ? static_cast<G>(len - 1) : G(0);  // the nearest edge
    } else {
      x = G(0);  // reflection of an infinite distance has no value: like NaN
    }
  }
  const int64_t period = reflection_period(p, len);
  auto add = [&](int64_t i, F w) {
    int64_t j;
    if (!pad_index(i, len, p.padding, p.align_corners, &j)) return;
    a.index[a.count] = j;
    a.weight[a.count] = w;
    ++a.count;
  };
  switch (p.mode) {
    case InterpolationMode::kNearest: {
      // ERRATA GridSample 3, 5: round half to even first, then pad the integer index.
      add(coords::to_index(coords::round_half_even(x), period), F(1));
      break;
    }
    case InterpolationMode::kLinear: {
      const G f = std::floor(x);
      const F t = static_cast<F>(x - f);  // exact in G, exact widening to F
      const int64_t i0 = coords::to_index(f, period);
      add(i0, F(1) - t);
      add(i0 + 1, t);
      break;
    }
    case InterpolationMode::kCubic: {
      const G f = std::floor(x);
      const F t = static_cast<F>(x - f);
      const int64_t i0 = coords::to_index(f, period);
      F w[4];
      coords::cubic_weights(t, w);  // ERRATA GridSample 6: Keys, A = -0.75
      for (int k = 0; k < 4; ++k) add(i0 - 1 + k, w[k]);
      break;
    }
  }
  return a;
}

/// Strides of a view split into batch, channel and spatial parts, for the layout.
struct SplitStrides {
  int64_t batch = 0;
  int64_t channel = 0;
  Dims spatial;
};

SplitStrides split_strides(const TensorView& v, int r, ChannelLayout layout) {
  SplitStrides s;
  s.batch = v.strides[0];
  if (layout == ChannelLayout::kChannelsFirst) {
    s.channel = v.strides[1];
    s.spatial.assign(v.strides.begin() + 2, v.strides.end());
  } else {
    s.channel = v.strides[static_cast<size_t>(r) + 1];
    s.spatial.assign(v.strides.begin() + 1, v.strides.begin() + 1 + r);
  }
  return s;
}

template <class T, class GridT>
void run_typed(const GridSampleProblem& p, const TensorView& src, const TensorView& grid,
               const MutableTensorView& dst) {
  // ERRATA GridSample 2: coordinates in float, or double for a double grid.
  using G = std::conditional_t<std::is_same_v<GridT, double>, double, float>;
  // ERRATA GridSample 7: values in float, or double when X or grid is double or X is a
  // 64-bit integer.
  using F = std::conditional_t<convert::needs_double_v<T> || std::is_same_v<GridT, double>,
                               double, float>;
  constexpr bool kNumeric = convert::is_numeric_v<T>;

  const int r = p.spatial_rank;
  assert(r >= 1 && r + 2 <= kMaxRank);
  assert(static_cast<int>(p.in_sizes.size()) == r && static_cast<int>(p.out_sizes.size()) == r);
  assert(kNumeric || p.mode == InterpolationMode::kNearest);

  const SplitStrides ss = split_strides(src, r, p.layout);
  const SplitStrides ds = split_strides(dst, r, p.layout);
  const Dims& gs = grid.strides;  // (N, D1_out..Dr_out, r)

  const T* src_base = static_cast<const T*>(src.data);
  T* dst_base = static_cast<T*>(dst.mutable_data());
  const GridT* grid_base = static_cast<const GridT*>(grid.data);

  int64_t out_points = 1;
  for (int64_t d : p.out_sizes) out_points *= d;
  if (p.batch == 0 || out_points == 0 || p.channels == 0) return;

  std::vector<AxisTaps<F>> taps(static_cast<size_t>(r));
  Dims o(static_cast<size_t>(r), 0);     // output spatial index
  Dims k(static_cast<size_t>(r), 0);     // tap combination index

  for (int64_t n = 0; n < p.batch; ++n) {
    std::fill(o.begin(), o.end(), 0);
    for (int64_t point = 0; point < out_points; ++point) {
      // 1-3: grid values, pixel coordinates, per-axis taps.
      int64_t goff = n * gs[0];
      for (int d = 0; d < r; ++d) goff += o[static_cast<size_t>(d)] * gs[static_cast<size_t>(d) + 1];
      bool any_empty = false;
      for (int d = 0; d < r; ++d) {
        const GridT gv = grid_base[goff + static_cast<int64_t>(r - 1 - d) * gs[static_cast<size_t>(r) + 1]];
        const G g = convert::load_real<G>(gv);
        const int64_t len = p.in_sizes[static_cast<size_t>(d)];
        const G x = coords::unnormalize(g, len, p.align_corners);
        taps[static_cast<size_t>(d)] = axis_taps<F>(p, x, len);
        if (taps[static_cast<size_t>(d)].count == 0) any_empty = true;
      }

      // Visits every tap combination (k_1..k_r): its src offset (spatial part) and the
      // product of its weights. Nothing is stored, so 4^r combinations for a high-rank
      // cubic problem cost time, never memory.
      auto for_each_combination = [&](auto&& visit) {
        if (any_empty) return;  // some axis has no tap inside: every combination is outside
        std::fill(k.begin(), k.end(), 0);
        for (;;) {
          int64_t off = 0;
          F w = F(1);
          for (int d = 0; d < r; ++d) {
            const AxisTaps<F>& a = taps[static_cast<size_t>(d)];
            const int kd = static_cast<int>(k[static_cast<size_t>(d)]);
            off += a.index[kd] * ss.spatial[static_cast<size_t>(d)];
            w *= a.weight[kd];
          }
          visit(off, w);
          int d = r - 1;
          for (; d >= 0; --d) {
            if (++k[static_cast<size_t>(d)] < taps[static_cast<size_t>(d)].count) break;
            k[static_cast<size_t>(d)] = 0;
          }
          if (d < 0) return;
        }
      };

      // 4: weighted sums per channel, stored once.
      int64_t doff = n * ds.batch;
      for (int d = 0; d < r; ++d) doff += o[static_cast<size_t>(d)] * ds.spatial[static_cast<size_t>(d)];
      for (int64_t c = 0; c < p.channels; ++c) {
        const T* s = src_base + n * ss.batch + c * ss.channel;
        T& out = dst_base[doff + c * ds.channel];
        if (p.mode == InterpolationMode::kNearest) {
          // A pure selection: the element is copied exactly (no trip through float), and
          // a tap outside under zeros padding gives the zero value ("" for strings). There
          // is exactly one combination unless the point is outside.
          out = T{};
          for_each_combination([&](int64_t off, F) { out = s[off]; });
        } else if constexpr (kNumeric) {
          convert::acc_t<T, F> acc{};
          for_each_combination(
              [&](int64_t off, F w) { acc += w * convert::load<F>(s[off]); });
          out = convert::store<T>(acc);
        }
      }

      // Next output point (row-major over D1_out..Dr_out).
      for (int d = r - 1; d >= 0; --d) {
        if (++o[static_cast<size_t>(d)] < p.out_sizes[static_cast<size_t>(d)]) break;
        o[static_cast<size_t>(d)] = 0;
      }
    }
  }
}

}  // namespace

void grid_sample_ref(const GridSampleProblem& p, const TensorView& src, const TensorView& grid,
                     const MutableTensorView& dst) {
  assert(src.dtype == p.src_dtype && dst.dtype == p.src_dtype && grid.dtype == p.grid_dtype);
  visit_dtype(p.src_dtype, [&](auto src_tag) {
    using T = typename decltype(src_tag)::type;
    switch (p.grid_dtype) {
      case DType::kFloat16: run_typed<T, float16>(p, src, grid, dst); break;
      case DType::kBFloat16: run_typed<T, bfloat16>(p, src, grid, dst); break;
      case DType::kFloat32: run_typed<T, float>(p, src, grid, dst); break;
      case DType::kFloat64: run_typed<T, double>(p, src, grid, dst); break;
      default: assert(false && "grid dtype must be floating"); break;
    }
  });
}

}  // namespace gridops::kernels
