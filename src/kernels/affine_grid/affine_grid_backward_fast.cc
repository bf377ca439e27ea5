// The fast AffineGrid backward: separable sums, threaded over fixed blocks of grid rows,
// deterministic for any thread count.
//
// grad_theta[n, k, j] = sum_p grad_grid[n, p, k] * c_j(p) with c_0 = x (along W), c_1 = y
// (along H), c_2 = z (along D, 3-D), c_r = 1. A grid row (fixed d, h) shares y and z, so
// per row and k two sums over w suffice: R = sum_w G and X = sum_w G * x_w; then
// [k][0] += X, [k][1] += y_h R, [k][2] += z_d R (3-D), [k][r] += R. Sums in double.
// Rows are cut into blocks of kRowsPerBlock (fixed, independent of the thread count); each
// block's partial sums are added in block order, so the result does not depend on threads.
#include <algorithm>
#include <cassert>
#include <cstdint>
#include <string>
#include <vector>

#include "core/convert.h"
#include "gridops/parallel.h"
#include "core/coords.h"
#include "kernels/affine_grid/affine_grid.h"

namespace gridops::kernels {
namespace {

constexpr int64_t kRowsPerBlock = 64;

template <class T, class F>
void run_typed(const AffineGridProblem& p, const TensorView& grad_grid,
               const MutableTensorView& grad_theta) {
  const int r = p.spatial_rank;
  const int64_t W = p.spatial[r - 1];
  const int64_t H = p.spatial[r - 2];
  const int64_t D = r == 3 ? p.spatial[0] : 1;
  const bool empty = W == 0 || H == 0 || D == 0;
  const int64_t rows = empty ? 0 : D * H;
  const int64_t nb = (rows + kRowsPerBlock - 1) / kRowsPerBlock;
  const int64_t J = r + 1;
  std::vector<double> xs(static_cast<size_t>(W));
  for (int64_t w = 0; w < W; ++w) xs[static_cast<size_t>(w)] = static_cast<double>(coords::affine_grid_base<F>(w, W, p.align_corners));
  // Partial sums: [n][block][k][j].
  std::vector<double> part(static_cast<size_t>(p.batch * nb * r * J), 0.0);
  const Dims& gs = grad_grid.strides;
  const T* g = static_cast<const T*>(grad_grid.data);
  const int64_t work = p.batch * nb;
  parallel_for(work, std::max<int64_t>(1, 8192 / std::max<int64_t>(1, W * kRowsPerBlock)), [&](int64_t b, int64_t e) {
    for (int64_t item = b; item < e; ++item) {
      const int64_t n = item / nb, blk = item % nb;
      double* acc = &part[static_cast<size_t>(item * r * J)];
      const int64_t row0 = blk * kRowsPerBlock, row1 = std::min(rows, row0 + kRowsPerBlock);
      for (int64_t row = row0; row < row1; ++row) {
        const int64_t d = row / H, h = row % H;
        const double y = static_cast<double>(coords::affine_grid_base<F>(h, H, p.align_corners));
        const double z = r == 3 ? static_cast<double>(coords::affine_grid_base<F>(d, D, p.align_corners)) : 0.0;
        int64_t off = n * gs[0] + h * gs[static_cast<size_t>(r) - 1];
        if (r == 3) off += d * gs[1];
        const int64_t ws = gs[static_cast<size_t>(r)], ks = gs[static_cast<size_t>(r) + 1];
        for (int k = 0; k < r; ++k) {
          double R = 0.0, X = 0.0;
          const T* gk = g + off + k * ks;
          for (int64_t w = 0; w < W; ++w) {
            const double v = convert::load_real<double>(gk[w * ws]);
            R += v;
            X += v * xs[static_cast<size_t>(w)];
          }
          double* a = acc + k * J;
          a[0] += X;
          a[1] += y * R;
          if (r == 3) a[2] += z * R;
          a[r] += R;
        }
      }
    }
  });
  for (int64_t n = 0; n < p.batch; ++n) {
    int64_t tidx[3] = {n, 0, 0};
    for (int k = 0; k < r; ++k) {
      for (int j = 0; j < J; ++j) {
        double v = 0.0;
        for (int64_t blk = 0; blk < nb; ++blk) v += part[static_cast<size_t>(((n * nb + blk) * r + k) * J + j)];
        tidx[1] = k;
        tidx[2] = j;
        *static_cast<T*>(grad_theta.mutable_element_ptr(tidx)) = convert::store_real<T>(v);
      }
    }
  }
}

}  // namespace

std::string affine_grid_backward_fast_declines(const AffineGridProblem& p) {
  if (p.spatial_rank != 2 && p.spatial_rank != 3) {
    return "spatial rank " + std::to_string(p.spatial_rank) + " (fast backward: 2 or 3)";
  }
  return {};
}

void affine_grid_backward_fast(const AffineGridProblem& p, const TensorView& grad_grid,
                               const MutableTensorView& grad_theta) {
  switch (p.dtype) {
    case DType::kFloat16: run_typed<float16, float>(p, grad_grid, grad_theta); break;
    case DType::kBFloat16: run_typed<bfloat16, float>(p, grad_grid, grad_theta); break;
    case DType::kFloat32: run_typed<float, float>(p, grad_grid, grad_theta); break;
    case DType::kFloat64: run_typed<double, double>(p, grad_grid, grad_theta); break;
    default: assert(false && "affine_grid_backward_fast: dtype must be floating"); break;
  }
}

}  // namespace gridops::kernels
