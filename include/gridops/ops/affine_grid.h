// AffineGrid (ONNX AffineGrid 20): a sampling grid from a batch of affine matrices.
#pragma once

#include <memory>
#include <span>
#include <string>

#include "gridops/status.h"
#include "gridops/tensor.h"

namespace gridops {

/// What to compute. Shape-independent.
struct AffineGridDesc {
  /// 0 or 1, as the ONNX attribute; any other value is an error.
  int64_t align_corners = 0;
  /// Forces an implementation by name ("ref", ...); empty: the first that accepts.
  std::string impl;
};

/// Output shape (N, H, W, 2) or (N, D, H, W, 3) for theta (N,2,3)/(N,3,4) and size
/// (N, C, H, W)/(N, C, D, H, W), or the reason they do not fit.
StatusOr<Dims> affine_grid_output_shape(std::span<const int64_t> theta_shape,
                                        std::span<const int64_t> size);

/// An output window, for computing a part of a large grid (chunked execution,
/// docs/dask.md): the grid is the box at `origin` with spatial sizes `shape` (outermost
/// first: (H, W) or (D, H, W)) of the grid of `size`; every element is the same bits as
/// that element of the whole grid (its base coordinates are those of the whole grid).
struct AffineGridWindow {
  Dims origin;
  Dims shape;
};

/// A validated AffineGrid problem.
class AffineGridPlan {
 public:
  /// theta must have the planned dtype and shape; grid the output shape, theta's dtype.
  Status run(const TensorView& theta, const MutableTensorView& grid) const;
  const Dims& grid_shape() const noexcept { return grid_shape_; }
  const char* impl_name() const noexcept { return impl_name_; }

 private:
  friend StatusOr<AffineGridPlan> make_affine_grid_plan(const AffineGridDesc&, DType,
                                                        std::span<const int64_t>,
                                                        std::span<const int64_t>);
  friend StatusOr<AffineGridPlan> make_affine_grid_plan(const AffineGridDesc&, DType,
                                                        std::span<const int64_t>,
                                                        std::span<const int64_t>,
                                                        const AffineGridWindow&);
  bool windowed_ = false;
  AffineGridWindow window_;
  AffineGridDesc desc_;
  DType dtype_ = DType::kFloat32;
  Dims theta_shape_, size_, grid_shape_;
  const char* impl_name_ = "";
  const void* impl_ = nullptr;
  /// The planned entries: the chosen one and those a run may hand off to, with their tables
  /// (src/ops/dispatch.h, PlannedEntries; shared by copies of the plan).
  std::shared_ptr<const void> planned_;
};

/// theta dtype float16/bfloat16/float32/float64; size as in ONNX (int64 values).
StatusOr<AffineGridPlan> make_affine_grid_plan(const AffineGridDesc& desc, DType theta_dtype,
                                               std::span<const int64_t> theta_shape,
                                               std::span<const int64_t> size);

/// The same for the window of the grid of `size`; the plan's grid shape is
/// (N, window.shape..., r).
StatusOr<AffineGridPlan> make_affine_grid_plan(const AffineGridDesc& desc, DType theta_dtype,
                                               std::span<const int64_t> theta_shape,
                                               std::span<const int64_t> size,
                                               const AffineGridWindow& window);

/// One-shot into a caller-provided grid.
Status affine_grid(const AffineGridDesc& desc, const TensorView& theta,
                   std::span<const int64_t> size, const MutableTensorView& grid);
/// One-shot, allocating the grid.
StatusOr<Tensor> affine_grid(const AffineGridDesc& desc, const TensorView& theta,
                             std::span<const int64_t> size);
/// One-shot for a window of the grid of `size`, allocating it.
StatusOr<Tensor> affine_grid(const AffineGridDesc& desc, const TensorView& theta,
                             std::span<const int64_t> size, const AffineGridWindow& window);

// --- backward ------------------------------------------------------------------------
//
// grad_theta[n, k, j] = sum over grid points p of grad_grid[n, p, k] * c_j(p), with c_j the
// base coordinates of the forward (x, y[, z]) and c_r = 1; see docs/ops/affine_grid.md,
// "Backward".

/// A validated AffineGrid backward problem.
class AffineGridBackwardPlan {
 public:
  /// grad_grid has the forward's grid shape and theta's dtype; grad_theta theta's shape and
  /// dtype (overwritten). Any strides; grad_theta may not overlap grad_grid. Nothing is
  /// written on error.
  Status run(const TensorView& grad_grid, const MutableTensorView& grad_theta) const;
  const Dims& theta_shape() const noexcept { return theta_shape_; }
  const Dims& grid_shape() const noexcept { return grid_shape_; }
  const char* impl_name() const noexcept { return impl_name_; }

 private:
  friend StatusOr<AffineGridBackwardPlan> make_affine_grid_backward_plan(
      const AffineGridDesc&, DType, std::span<const int64_t>, std::span<const int64_t>);
  AffineGridDesc desc_;
  DType dtype_ = DType::kFloat32;
  Dims theta_shape_, size_, grid_shape_;
  const char* impl_name_ = "";
  const void* impl_ = nullptr;
  /// The planned entries (as AffineGridPlan::planned_).
  std::shared_ptr<const void> planned_;
};

/// Same arguments and checks as make_affine_grid_plan (the forward's theta and size).
StatusOr<AffineGridBackwardPlan> make_affine_grid_backward_plan(const AffineGridDesc& desc,
                                                                DType theta_dtype,
                                                                std::span<const int64_t> theta_shape,
                                                                std::span<const int64_t> size);

/// One-shot into a caller-provided grad_theta (its shape is theta's).
Status affine_grid_backward(const AffineGridDesc& desc, const TensorView& grad_grid,
                            std::span<const int64_t> size, const MutableTensorView& grad_theta);
/// One-shot, allocating grad_theta: (N, 2, 3) for a 4-element size, (N, 3, 4) for 5.
StatusOr<Tensor> affine_grid_backward(const AffineGridDesc& desc, const TensorView& grad_grid,
                                      std::span<const int64_t> size);

}  // namespace gridops
