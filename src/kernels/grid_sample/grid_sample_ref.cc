// The GridSample reference kernel: slow, N-D, every dtype, written to read like the
// formulas in docs/ops/grid_sample.md.
//
// For every output point (n, o_1..o_r):
//   1. read the r grid values; grid[..., r-1-d] is the coordinate of spatial axis d
//      (axis 0 = D1, the outermost; grid[..., 0] belongs to the innermost axis);
//   2. unnormalize each to a pixel coordinate x_d (ERRATA GridSample 2; a displacement
//      first gets the point's own coordinate added, a pixel grid is taken as it is);
//   3. per axis, list the taps (1 for nearest, 2 for linear, 4 for cubic) with their
//      weights, each tap index mapped through the padding mode (ERRATA 3, 4, 8);
//   4. dst[n, c, o] = sum over all tap combinations of prod_d w_d * src[n, c, i_1..i_r]
//      (constant padding: the fill value for a tap outside), computed in float or double
//      and stored once (ERRATA 7); a sample with an axis outside is 0 (zeros) or the fill
//      value (constant, fill).
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
#include "kernels/grid_sample/grid_sample_taps.h"

namespace gridops::kernels {
namespace {

using namespace ref_taps;  // AxisTaps, axis_taps, SplitStrides (grid_sample_taps.h)


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

  // Input window: taps are computed against the full sizes (in_sizes) and read at
  // index - origin; the operator layer checked that every listed tap is inside.
  const bool windowed = !p.window_origin.empty();
  // A sample outside (an axis without taps) is 0 ("" for strings, false), or under
  // constant and fill exactly the fill value; constant's taps outside read `fill`.
  const bool has_fill = p.padding == GridPadding::kConstant || p.padding == GridPadding::kFill;
  T outside_value{};
  convert::acc_t<T, F> fill{};
  if constexpr (kNumeric) {
    if (has_fill) {
      outside_value = convert::store<T>(convert::acc_t<T, double>(p.fill_value));
      fill = convert::acc_t<T, F>(static_cast<F>(p.fill_value));
    }
  }
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
        const G x = grid_coordinate(p, g, d, o[static_cast<size_t>(d)]);
        AxisTaps<F>& a = taps[static_cast<size_t>(d)];
        a = axis_taps<F>(p, x, len);
        if (a.count == 0) any_empty = true;
        if (windowed) {
          // The operator layer checked the grid against the window, but the grid is read
          // again here: a value another thread changed in between (the caller's bug) gives
          // a tap outside the window, clamped to its edge so that no read leaves src (the
          // result is then unspecified, never a read of other memory).
          const int64_t ext = p.window_extent[static_cast<size_t>(d)];
          if (ext <= 0) a.count = 0;
          for (int k = 0; k < a.count; ++k) {
            if (a.index[k] < 0) continue;  // constant padding's tap outside: the fill value
            a.index[k] = std::clamp<int64_t>(a.index[k] - p.window_origin[static_cast<size_t>(d)],
                                             0, ext - 1);
          }
          if (a.count == 0) any_empty = true;
        }
      }

      // Visits every tap combination (k_1..k_r): its src offset (spatial part), the
      // product of its weights, and whether it is outside (constant padding: some tap has
      // index -1, the combination reads the fill value and the offset means nothing).
      // Nothing is stored, so 4^r combinations for a high-rank cubic problem cost time,
      // never memory.
      auto for_each_combination = [&](auto&& visit) {
        if (any_empty) return;  // some axis has no tap inside: every combination is outside
        std::fill(k.begin(), k.end(), 0);
        for (;;) {
          int64_t off = 0;
          F w = F(1);
          bool outside = false;
          for (int d = 0; d < r; ++d) {
            const AxisTaps<F>& a = taps[static_cast<size_t>(d)];
            const int kd = static_cast<int>(k[static_cast<size_t>(d)]);
            outside = outside || a.index[kd] < 0;
            off += a.index[kd] * ss.spatial[static_cast<size_t>(d)];
            w *= a.weight[kd];
          }
          visit(off, w, outside);
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
          out = outside_value;
          for_each_combination([&](int64_t off, F, bool) { out = s[off]; });
        } else if constexpr (kNumeric) {
          if (any_empty) {  // the sample is outside: 0, or the fill value
            out = outside_value;
            continue;
          }
          convert::acc_t<T, F> acc{};
          for_each_combination([&](int64_t off, F w, bool outside) {
            acc += w * (outside ? fill : convert::load<F>(s[off]));
          });
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
