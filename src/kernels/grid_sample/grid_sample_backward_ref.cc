// The GridSample backward reference: slow, N-D, written to read like docs/ops/grid_sample.md,
// "Backward". It differentiates exactly the taps and weights the forward reference uses
// (grid_sample_taps.h): for every output point (n, o) with per-axis forward taps
// (i_d[k], w_d[k]) and derivative taps (j_d[k], dw_d[k]) (dw/dx, PyTorch's conventions at
// the kinks),
//
//   grad_src[n, c, i_1[k_1], ..., i_r[k_r]] += prod_d w_d[k_d] * grad_dst[n, c, o]
//   grad_grid[n, o, r-1-d] = slope_d * sum_c grad_dst[n, c, o] *
//                            sum_k dw_d[k_d] prod_{e != d} w_e[k_e] * src[n, c, ...]
//
// with slope_d = dx/dg of the unnormalization (1 for pixel grids). Under constant padding
// a tap outside reads the fill value (grad_grid) and takes no gradient (grad_src). Products
// and sums in double; each output element is stored once, converted to its dtype.
#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "core/convert.h"
#include "core/coords.h"
#include "kernels/grid_sample/grid_sample.h"
#include "kernels/grid_sample/grid_sample_taps.h"

namespace gridops::kernels {
namespace {

using namespace ref_taps;

/// Visits every combination of one tap per axis: visit(spatial src offset, dense spatial
/// offset, product of weights in double, outside). `axes[d]` lists axis d's taps;
/// `outside`: some tap has index -1 (constant padding: the combination reads the fill
/// value, and the offsets mean nothing).
template <class F, class Visit>
void for_each_combination(int r, const AxisTaps<F>* const* axes, const Dims& src_spatial_strides,
                          const Dims& dense_strides, Visit&& visit) {
  int k[kMaxRank] = {};
  for (int d = 0; d < r; ++d) {
    if (axes[d]->count == 0) return;  // some axis has no tap: no combination
  }
  for (;;) {
    int64_t off = 0, dense = 0;
    double w = 1.0;
    bool outside = false;
    for (int d = 0; d < r; ++d) {
      const AxisTaps<F>& a = *axes[d];
      outside = outside || a.index[k[d]] < 0;
      off += a.index[k[d]] * src_spatial_strides[static_cast<size_t>(d)];
      dense += a.index[k[d]] * dense_strides[static_cast<size_t>(d)];
      w *= static_cast<double>(a.weight[k[d]]);
    }
    visit(off, dense, w, outside);
    int d = r - 1;
    for (; d >= 0; --d) {
      if (++k[d] < axes[d]->count) break;
      k[d] = 0;
    }
    if (d < 0) return;
  }
}

template <class T, class GridT>
void run_typed(const GridSampleProblem& p, const TensorView& grad_dst, const TensorView& src,
               const TensorView& grid, const MutableTensorView* grad_src,
               const MutableTensorView* grad_grid) {
  // The forward's precisions (ERRATA GridSample 2, 7): coordinates in G, weights in F.
  using G = std::conditional_t<std::is_same_v<GridT, double>, double, float>;
  using F = std::conditional_t<std::is_same_v<T, double> || std::is_same_v<GridT, double>,
                               double, float>;
  const int r = p.spatial_rank;
  assert(r >= 1 && r + 2 <= kMaxRank);

  const SplitStrides ss = split_strides(src, r, p.layout);
  const SplitStrides ds = split_strides(grad_dst, r, p.layout);
  const Dims& gs = grid.strides;
  const T* src_base = static_cast<const T*>(src.data);
  const T* gd_base = static_cast<const T*>(grad_dst.data);
  const GridT* grid_base = static_cast<const GridT*>(grid.data);

  int64_t out_points = 1, in_points = 1;
  for (int64_t d : p.out_sizes) out_points *= d;
  bool in_empty = false;
  for (int64_t d : p.in_sizes) in_empty = in_empty || d == 0;
  // Dense row-major strides over the input's spatial axes, for the double accumulator.
  Dims dense(static_cast<size_t>(r), 1);
  if (!in_empty) {
    for (int d = r - 1; d >= 0; --d) {
      dense[static_cast<size_t>(d)] = in_points;
      in_points *= p.in_sizes[static_cast<size_t>(d)];
    }
  } else {
    in_points = 0;
  }
  std::vector<double> acc;
  if (grad_src != nullptr) acc.assign(static_cast<size_t>(p.batch * p.channels * in_points), 0.0);

  const bool work = p.batch > 0 && out_points > 0 && p.channels > 0;
  const double fill = p.fill_value;  // constant padding's taps outside
  std::vector<AxisTaps<F>> fwd(static_cast<size_t>(r)), der(static_cast<size_t>(r));
  std::vector<F> slope(static_cast<size_t>(r));
  std::vector<const AxisTaps<F>*> axes(static_cast<size_t>(r));
  Dims o(static_cast<size_t>(r), 0);
  for (int64_t n = 0; n < p.batch; ++n) {
    std::fill(o.begin(), o.end(), 0);
    for (int64_t point = 0; point < out_points; ++point) {
      int64_t goff = n * gs[0];
      for (int d = 0; d < r; ++d) goff += o[static_cast<size_t>(d)] * gs[static_cast<size_t>(d) + 1];
      int64_t doff = n * ds.batch;
      for (int d = 0; d < r; ++d) doff += o[static_cast<size_t>(d)] * ds.spatial[static_cast<size_t>(d)];

      double ggrad[kMaxRank] = {};  // per spatial axis d
      if (work) {
        for (int d = 0; d < r; ++d) {
          const GridT gv = grid_base[goff + static_cast<int64_t>(r - 1 - d) * gs[static_cast<size_t>(r) + 1]];
          const int64_t len = p.in_sizes[static_cast<size_t>(d)];
          const G x = grid_coordinate(p, convert::load_real<G>(gv), d, o[static_cast<size_t>(d)]);
          fwd[static_cast<size_t>(d)] = axis_taps<F>(p, x, len);
          der[static_cast<size_t>(d)] = axis_deriv_taps<F>(p, x, len);
          slope[static_cast<size_t>(d)] = coordinate_slope<F>(p, d);
          axes[static_cast<size_t>(d)] = &fwd[static_cast<size_t>(d)];
        }
        for (int64_t c = 0; c < p.channels; ++c) {
          const double go = convert::load_real<double>(gd_base[doff + c * ds.channel]);
          if (grad_src != nullptr) {
            double* a = acc.data() + (n * p.channels + c) * in_points;
            for_each_combination<F>(r, axes.data(), ss.spatial, dense,
                                    [&](int64_t, int64_t dense_off, double w, bool outside) {
                                      if (!outside) a[dense_off] += w * go;
                                    });
          }
          if (grad_grid != nullptr) {
            const T* s = src_base + n * ss.batch + c * ss.channel;
            for (int d = 0; d < r; ++d) {
              axes[static_cast<size_t>(d)] = &der[static_cast<size_t>(d)];
              double sum = 0.0;
              for_each_combination<F>(r, axes.data(), ss.spatial, dense,
                                      [&](int64_t off, int64_t, double w, bool outside) {
                                        sum += w * (outside ? fill : convert::load_real<double>(s[off]));
                                      });
              ggrad[d] += go * sum;
              axes[static_cast<size_t>(d)] = &fwd[static_cast<size_t>(d)];
            }
          }
        }
      }
      if (grad_grid != nullptr) {
        GridT* gg = static_cast<GridT*>(grad_grid->mutable_data());
        const Dims& ggs = grad_grid->strides;
        int64_t ggoff = n * ggs[0];
        for (int d = 0; d < r; ++d) ggoff += o[static_cast<size_t>(d)] * ggs[static_cast<size_t>(d) + 1];
        for (int d = 0; d < r; ++d) {
          const double v = work ? ggrad[d] * static_cast<double>(slope[static_cast<size_t>(d)]) : 0.0;
          gg[ggoff + static_cast<int64_t>(r - 1 - d) * ggs[static_cast<size_t>(r) + 1]] =
              convert::store_real<GridT>(v);
        }
      }
      for (int d = r - 1; d >= 0; --d) {
        if (++o[static_cast<size_t>(d)] < p.out_sizes[static_cast<size_t>(d)]) break;
        o[static_cast<size_t>(d)] = 0;
      }
    }
  }

  if (grad_src != nullptr && in_points > 0) {
    const SplitStrides gss = split_strides(*grad_src, r, p.layout);
    T* out = static_cast<T*>(grad_src->mutable_data());
    Dims i(static_cast<size_t>(r), 0);
    for (int64_t n = 0; n < p.batch; ++n) {
      for (int64_t c = 0; c < p.channels; ++c) {
        const double* a = acc.data() + (n * p.channels + c) * in_points;
        std::fill(i.begin(), i.end(), 0);
        for (int64_t q = 0; q < in_points; ++q) {
          int64_t off = n * gss.batch + c * gss.channel;
          for (int d = 0; d < r; ++d) off += i[static_cast<size_t>(d)] * gss.spatial[static_cast<size_t>(d)];
          out[off] = convert::store_real<T>(a[q]);
          for (int d = r - 1; d >= 0; --d) {
            if (++i[static_cast<size_t>(d)] < p.in_sizes[static_cast<size_t>(d)]) break;
            i[static_cast<size_t>(d)] = 0;
          }
        }
      }
    }
  }
}

template <class T>
void dispatch_grid(const GridSampleProblem& p, const TensorView& grad_dst, const TensorView& src,
                   const TensorView& grid, const MutableTensorView* grad_src,
                   const MutableTensorView* grad_grid) {
  switch (p.grid_dtype) {
    case DType::kFloat16: run_typed<T, float16>(p, grad_dst, src, grid, grad_src, grad_grid); break;
    case DType::kBFloat16: run_typed<T, bfloat16>(p, grad_dst, src, grid, grad_src, grad_grid); break;
    case DType::kFloat32: run_typed<T, float>(p, grad_dst, src, grid, grad_src, grad_grid); break;
    case DType::kFloat64: run_typed<T, double>(p, grad_dst, src, grid, grad_src, grad_grid); break;
    default: assert(false && "grid dtype must be floating"); break;
  }
}

}  // namespace

void grid_sample_backward_ref(const GridSampleProblem& p, const TensorView& grad_dst,
                              const TensorView& src, const TensorView& grid,
                              const MutableTensorView* grad_src,
                              const MutableTensorView* grad_grid) {
  switch (p.src_dtype) {
    case DType::kFloat16: dispatch_grid<float16>(p, grad_dst, src, grid, grad_src, grad_grid); break;
    case DType::kBFloat16: dispatch_grid<bfloat16>(p, grad_dst, src, grid, grad_src, grad_grid); break;
    case DType::kFloat32: dispatch_grid<float>(p, grad_dst, src, grid, grad_src, grad_grid); break;
    case DType::kFloat64: dispatch_grid<double>(p, grad_dst, src, grid, grad_src, grad_grid); break;
    default: assert(false && "backward src dtype must be floating"); break;
  }
}

}  // namespace gridops::kernels
