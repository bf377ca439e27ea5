// The AffineGrid reference kernel: one grid point at a time, exactly the formulas of
// NOTE [ AffineGrid arithmetic ] in affine_grid.h. Slow and obviously correct.
#include <cassert>
#include <cstdint>
#include <type_traits>

#include "core/convert.h"
#include "core/coords.h"
#include "kernels/affine_grid/affine_grid.h"

namespace gridops::kernels {
namespace {

template <class T, class F>
void run_typed(const AffineGridProblem& p, const TensorView& theta,
               const MutableTensorView& grid) noexcept {
  const int r = p.spatial_rank;
  // An empty grid may pair a zero axis with huge ones (their product would overflow), so
  // look for a zero before multiplying.
  if (p.batch == 0) return;
  for (int a = 0; a < r; ++a) {
    if (p.spatial[a] == 0) return;
  }
  int64_t points = 1;  // grid points per batch entry; fits: the grid count fits int64
  for (int a = 0; a < r; ++a) points *= p.spatial[a];

  int64_t tidx[3];
  int64_t gidx[kAffineGridMaxSpatial + 2];
  for (int64_t n = 0; n < p.batch; ++n) {
    // theta[n] as F; read completely before any write (the grid never overlaps theta,
    // but reading first keeps the kernel simple to reason about).
    F th[kAffineGridMaxSpatial][kAffineGridMaxSpatial + 1];
    tidx[0] = n;
    for (int k = 0; k < r; ++k) {
      for (int j = 0; j <= r; ++j) {
        tidx[1] = k;
        tidx[2] = j;
        th[k][j] = convert::load_real<F>(*static_cast<const T*>(theta.element_ptr(tidx)));
      }
    }
    int64_t s[kAffineGridMaxSpatial] = {0, 0, 0};  // spatial index, outermost first
    for (int64_t q = 0; q < points; ++q) {
      // c[j] is the coordinate paired with theta column j: c[0] = x along the innermost
      // axis, c[1] = y, c[2] = z.
      F c[kAffineGridMaxSpatial];
      for (int j = 0; j < r; ++j) {
        c[j] = coords::affine_grid_base<F>(affine_grid_index(p, r - 1 - j, s[r - 1 - j]),
                                  affine_grid_length(p, r - 1 - j), p.align_corners);
      }
      gidx[0] = n;
      for (int a = 0; a < r; ++a) gidx[1 + a] = s[a];
      for (int k = 0; k < r; ++k) {
        // Separate statements: each product is rounded on its own, summed left to right.
        F acc = th[k][0] * c[0];
        for (int j = 1; j < r; ++j) {
          const F prod = th[k][j] * c[j];
          acc = acc + prod;
        }
        acc = acc + th[k][r];
        gidx[r + 1] = k;
        *static_cast<T*>(grid.mutable_element_ptr({gidx, static_cast<size_t>(r + 2)})) =
            convert::store_real<T>(acc);
      }
      for (int a = r - 1; a >= 0; --a) {  // odometer, innermost axis fastest
        if (++s[a] < p.spatial[a]) break;
        s[a] = 0;
      }
    }
  }
}

}  // namespace

void affine_grid_ref(const AffineGridProblem& p, const TensorView& theta,
                     const MutableTensorView& grid) noexcept {
  assert(p.spatial_rank >= 1 && p.spatial_rank <= kAffineGridMaxSpatial);
  assert(theta.dtype == p.dtype && grid.dtype == p.dtype);
  assert(theta.rank() == 3 && grid.rank() == p.spatial_rank + 2);
  switch (p.dtype) {
    case DType::kFloat16:
      run_typed<float16, float>(p, theta, grid);
      break;
    case DType::kBFloat16:
      run_typed<bfloat16, float>(p, theta, grid);
      break;
    case DType::kFloat32:
      run_typed<float, float>(p, theta, grid);
      break;
    case DType::kFloat64:
      run_typed<double, double>(p, theta, grid);
      break;
    default:
      assert(false && "affine_grid_ref: theta dtype must be floating");
      break;
  }
}

namespace {

template <class T, class F>
void backward_typed(const AffineGridProblem& p, const TensorView& grad_grid,
                    const MutableTensorView& grad_theta) {
  const int r = p.spatial_rank;
  bool empty = false;
  for (int a = 0; a < r; ++a) empty = empty || p.spatial[a] == 0;
  int64_t points = 1;
  if (!empty) {
    for (int a = 0; a < r; ++a) points *= p.spatial[a];
  }
  int64_t idx[kAffineGridMaxSpatial + 2];
  for (int64_t n = 0; n < p.batch; ++n) {
    double acc[kAffineGridMaxSpatial][kAffineGridMaxSpatial + 1] = {};
    int64_t s[kAffineGridMaxSpatial] = {0, 0, 0};
    for (int64_t q = 0; !empty && q < points; ++q) {
      double c[kAffineGridMaxSpatial + 1];
      for (int j = 0; j < r; ++j) {
        c[j] = static_cast<double>(
            coords::affine_grid_base<F>(s[r - 1 - j], p.spatial[r - 1 - j], p.align_corners));
      }
      c[r] = 1.0;
      idx[0] = n;
      for (int a = 0; a < r; ++a) idx[1 + a] = s[a];
      for (int k = 0; k < r; ++k) {
        idx[r + 1] = k;
        const double g = convert::load_real<double>(
            *static_cast<const T*>(grad_grid.element_ptr({idx, static_cast<size_t>(r + 2)})));
        for (int j = 0; j <= r; ++j) acc[k][j] += g * c[j];
      }
      for (int a = r - 1; a >= 0; --a) {
        if (++s[a] < p.spatial[a]) break;
        s[a] = 0;
      }
    }
    int64_t tidx[3] = {n, 0, 0};
    for (int k = 0; k < r; ++k) {
      for (int j = 0; j <= r; ++j) {
        tidx[1] = k;
        tidx[2] = j;
        *static_cast<T*>(grad_theta.mutable_element_ptr(tidx)) = convert::store_real<T>(acc[k][j]);
      }
    }
  }
}

}  // namespace

void affine_grid_backward_ref(const AffineGridProblem& p, const TensorView& grad_grid,
                              const MutableTensorView& grad_theta) {
  assert(p.spatial_rank >= 1 && p.spatial_rank <= kAffineGridMaxSpatial);
  switch (p.dtype) {
    case DType::kFloat16: backward_typed<float16, float>(p, grad_grid, grad_theta); break;
    case DType::kBFloat16: backward_typed<bfloat16, float>(p, grad_grid, grad_theta); break;
    case DType::kFloat32: backward_typed<float, float>(p, grad_grid, grad_theta); break;
    case DType::kFloat64: backward_typed<double, double>(p, grad_grid, grad_theta); break;
    default: assert(false && "affine_grid_backward_ref: dtype must be floating"); break;
  }
}

}  // namespace gridops::kernels
