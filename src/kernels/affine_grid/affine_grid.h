// Kernel contract for AffineGrid. The operator layer (src/ops/affine_grid.cc) validates
// everything; kernels only assert their preconditions.
//
// NOTE [ AffineGrid arithmetic ]
// For a problem with r spatial axes (r = 2: H, W; r = 3: D, H, W) the grid point at
// spatial index (i_0, ..., i_{r-1}) (outermost first) of batch n is
//
//   grid[n, i_0, ..., i_{r-1}, k] = theta[n, k, 0] * c_0 + ... + theta[n, k, r-1] * c_{r-1}
//                                   + theta[n, k, r]
//
// where c_j is the base coordinate of the spatial axis r-1-j (c_0 = x runs along the
// innermost axis W, c_1 = y along H, c_2 = z along D), for k = 0 .. r-1:
//
//   base(i, L) = 0                           if L == 1           (ERRATA AffineGrid 1)
//              = F(2 * i) / F(L - 1) - 1     if align_corners = 1
//              = F(2 * i + 1) / F(L) - 1     if align_corners = 0
//
// (the integers 2i, 2i+1, L-1, L are exact in int64 and converted to F once each).
// The compute type F is double for a float64 theta and float for float32, float16 and
// bfloat16 (ERRATA AffineGrid 2); half-precision theta elements widen exactly to float.
// Every product is rounded to F on its own (no fused multiply-add) and the sum runs left
// to right:  acc = theta[k,0]*c_0;  acc = acc + theta[k,j]*c_j for j = 1..r-1;
// acc = acc + theta[k,r].  The result is converted once to theta's type (round to nearest
// even for float16/bfloat16). A fast kernel that keeps this order gives identical bits.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "gridops/dtype.h"
#include "gridops/tensor.h"

namespace gridops::kernels {

/// The largest number of spatial axes the kernel contract describes (the operator allows
/// 2 and 3; the reference handles any 1..kAffineGridMaxSpatial).
inline constexpr int kAffineGridMaxSpatial = 3;

struct AffineGridTables;

/// What an AffineGrid kernel is asked to compute. Shape-only: the data comes with run.
struct AffineGridProblem {
  /// theta's and grid's element type: float16, bfloat16, float32 or float64.
  DType dtype = DType::kFloat32;
  /// Number of spatial axes r (2 or 3 from the operator).
  int spatial_rank = 2;
  /// align_corners attribute (already checked to be 0 or 1).
  bool align_corners = false;
  /// Batch size N (may be 0).
  int64_t batch = 0;
  /// Spatial sizes, outermost first: (H, W) or (D, H, W). Entries may be 0.
  int64_t spatial[kAffineGridMaxSpatial] = {0, 0, 0};
  /// An output window (AffineGridWindow): the grid is the box at `origin` (spatial,
  /// outermost first) of the grid of spatial sizes `full`; base coordinates are those of
  /// index + origin along an axis of length full (`spatial` is the box's shape).
  bool windowed = false;
  int64_t full[kAffineGridMaxSpatial] = {0, 0, 0};
  int64_t origin[kAffineGridMaxSpatial] = {0, 0, 0};
};

/// The views of one forward run (theta read, grid written).
struct AffineGridViews {
  const TensorView& theta;
  const MutableTensorView& grid;
};

/// The views of one backward run (grad_grid read, grad_theta written).
struct AffineGridBackwardViews {
  const TensorView& grad_grid;
  const MutableTensorView& grad_theta;
};

/// Base coordinate index and axis length of grid index i along spatial axis a of p (the
/// full problem's with a window).
inline int64_t affine_grid_index(const AffineGridProblem& p, int a, int64_t i) noexcept {
  return p.windowed ? i + p.origin[a] : i;
}
inline int64_t affine_grid_length(const AffineGridProblem& p, int a) noexcept {
  return p.windowed ? p.full[a] : p.spatial[a];
}

/// Shape-dependent tables of base coordinates (NOTE [ AffineGrid arithmetic ]), in the
/// compute type F of the problem (float for float16/bfloat16/float32, double for float64;
/// only the vectors of that type are filled). Bit-identical to the reference's base().
struct AffineGridTables {
  /// [0]: x along W, repeated r times (entry w * r + k = base(w, W)), W * r entries;
  /// [1]: y along H (H entries); [2]: z along D (D entries, 3-D only).
  std::vector<float> f32[3];
  std::vector<double> f64[3];
  /// Streaming stores for grids whose rows are contiguous (a float32 / float64 grid of
  /// 4 MiB and more; docs/perf/affine_grid.md); the same bits either way.
  bool stream_contiguous_rows = false;
};

/// Preconditions (asserted, not checked):
///  - 1 <= p.spatial_rank <= kAffineGridMaxSpatial, p.dtype floating;
///  - theta is a valid view of dtype p.dtype and shape (N, r, r + 1);
///  - grid is a valid view of dtype p.dtype and shape (N, spatial..., r); strides of either
///    view may be zero or negative; grid does not overlap theta;
///  - the grid's element count fits int64 (so every index and offset does).
/// Writes every grid element (nothing when the grid is empty); reads only theta.
void affine_grid_ref(const AffineGridProblem& p, const TensorView& theta,
                     const MutableTensorView& grid) noexcept;

#ifdef GRIDOPS_HAVE_HWY
/// The entry affine_grid.rows' prepare: the tables of a non-empty problem of spatial rank 2
/// or 3, built when the plan is made (null for an empty one).
std::shared_ptr<const void> affine_grid_make_tables(const AffineGridProblem& p);

/// Why the Highway kernel declines `p` (empty: it accepts): only spatial rank 2 or 3, and
/// for a non-empty grid tables of at most kAffineGridMaxTableEntries entries per axis (a
/// plan for a grid of absurd rows stays cheap; the reference, bit-identical, takes it).
inline constexpr int64_t kAffineGridMaxTableEntries = int64_t{1} << 28;
std::string affine_grid_hwy_declines(const AffineGridProblem& p);
/// The schedule the tables fix, for the dispatch log (stores=...).
std::string affine_grid_hwy_schedule(const AffineGridProblem& p, const void* tables);

/// Why the Highway kernel cannot take this grid view (empty: it takes it): elements that
/// may alias each other (a zero stride, or strides that interleave).
std::string affine_grid_hwy_declines_views(const AffineGridProblem& p, const void* tables,
                                           const AffineGridViews& v);

/// The Highway kernel (src/kernels/affine_grid/affine_grid_hwy.cc): same preconditions
/// and bit-identical results as affine_grid_ref, for spatial rank 2 and 3. Vectorized
/// over the interleaved (point, k) elements of a row, threaded over (row, segment) items
/// through parallel_for. `tables` from affine_grid_make_tables (p) (null only for an empty
/// problem). Takes only grid views whose elements cannot alias each other
/// (affine_grid_hwy_declines_views; the operator layer hands the others to the reference,
/// which defines the result, and logs it).
/// Not noexcept: parallel_for passes on what a host runner or a chunk throws.
void affine_grid_hwy(const AffineGridProblem& p, const void* tables, const AffineGridViews& v);
#endif

/// AffineGrid backward (docs/ops/affine_grid.md, "Backward"): grad_theta[n, k, j] = sum
/// over points of grad_grid[n, point, k] * c_j (c_r = 1), c_j the forward's base
/// coordinates in F. Both kernels take (p, grad_grid, grad_theta). Preconditions as the forward with grad_grid (grid's shape, p.dtype)
/// in place of grid and grad_theta (theta's shape, p.dtype) in place of theta; grad_theta
/// does not overlap grad_grid. Writes every grad_theta element.
/// The reference: points in row-major order, products and sums in double, stored once.
void affine_grid_backward_ref(const AffineGridProblem& p, const TensorView& grad_grid,
                              const MutableTensorView& grad_theta);

/// Why the fast backward declines `p` (empty: it accepts): only spatial rank 2 or 3.
std::string affine_grid_backward_fast_declines(const AffineGridProblem& p);

/// The fast backward (affine_grid_backward_fast.cc): per grid row two sums over W (of G and
/// of G * x), combined with y and z per row, in double; threaded over fixed blocks of rows
/// whose partial sums are added in block order, so the result is bit-identical for any
/// thread count. Differs from the reference only in the order of the double sums.
void affine_grid_backward_fast(const AffineGridProblem& p, const TensorView& grad_grid,
                               const MutableTensorView& grad_theta);

}  // namespace gridops::kernels
