// AffineGrid operator layer: validation, output shape, plan, implementation list.
// The arithmetic lives in the kernels; see NOTE [ AffineGrid arithmetic ] in
// src/kernels/affine_grid/affine_grid.h.
#include "gridops/ops/affine_grid.h"

#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "core/checked.h"
#include "core/overlap.h"
#include "kernels/affine_grid/affine_grid.h"
#include "ops/affine_grid_impls.h"
#include "ops/dispatch.h"

namespace gridops {
namespace {

constexpr const char* kOp = "affine_grid";

using detail::AffineGridEntry;
using PlannedGrid = detail::PlannedEntries<AffineGridEntry>;

// The reference takes every problem the operator layer lets through.
std::string ref_declines(const kernels::AffineGridProblem&) { return {}; }
void ref_run(const kernels::AffineGridProblem& p, const void*, const kernels::AffineGridViews& v) {
  kernels::affine_grid_ref(p, v.theta, v.grid);
}

// Fast kernels go before the reference; the first that accepts runs. affine_grid.rows'
// tables (base coordinates) are built when the plan is made; grids whose elements may alias
// go to the reference at run time.
constexpr AffineGridEntry kImpls[] = {
#ifdef GRIDOPS_HAVE_HWY
    {.name = "affine_grid.rows",
     .alias = "fast",
     .declines = &kernels::affine_grid_hwy_declines,
     .prepare = &kernels::affine_grid_make_tables,
     .declines_views = &kernels::affine_grid_hwy_declines_views,
     .run = &kernels::affine_grid_hwy,
     .schedule = &kernels::affine_grid_hwy_schedule},
#endif
    {.name = "ref", .declines = &ref_declines, .run = &ref_run},
};

// Names of the size entries, for messages.
const char* size_entry_name(size_t len, size_t i) {
  static constexpr const char* k2d[] = {"N", "C", "H", "W"};
  static constexpr const char* k3d[] = {"N", "C", "D", "H", "W"};
  return len == 4 ? k2d[i] : k3d[i];
}

kernels::AffineGridProblem make_problem(const AffineGridDesc& desc, DType dtype,
                                        const Dims& grid_shape) {
  kernels::AffineGridProblem p;
  p.dtype = dtype;
  p.spatial_rank = static_cast<int>(grid_shape.size()) - 2;
  p.align_corners = desc.align_corners == 1;
  p.batch = grid_shape[0];
  for (int a = 0; a < p.spatial_rank; ++a) p.spatial[a] = grid_shape[1 + a];
  return p;
}

}  // namespace

StatusOr<Dims> affine_grid_output_shape(std::span<const int64_t> theta_shape,
                                        std::span<const int64_t> size) {
  if (theta_shape.size() != 3) {
    return invalid_argument(kOp, ": theta must have rank 3, shape (N, 2, 3) or (N, 3, 4), got "
                            "rank ", theta_shape.size(), " with shape ",
                            dims_to_string(theta_shape));
  }
  GRIDOPS_RETURN_IF_ERROR(checked_num_elements(theta_shape, "affine_grid: theta").status());
  const bool theta_2d = theta_shape[1] == 2 && theta_shape[2] == 3;
  const bool theta_3d = theta_shape[1] == 3 && theta_shape[2] == 4;
  if (!theta_2d && !theta_3d) {
    return invalid_argument(kOp, ": theta must have shape (N, 2, 3) or (N, 3, 4), got ",
                            dims_to_string(theta_shape));
  }
  if (size.size() != 4 && size.size() != 5) {
    return invalid_argument(kOp, ": size must have 4 elements (N, C, H, W) or 5 "
                            "(N, C, D, H, W), got ", size.size());
  }
  if (theta_2d && size.size() != 4) {
    return invalid_argument(kOp, ": size must have 4 elements (N, C, H, W) for a 2-D theta of "
                            "shape ", dims_to_string(theta_shape), ", got ", size.size(),
                            " elements ", dims_to_string(size));
  }
  if (theta_3d && size.size() != 5) {
    return invalid_argument(kOp, ": size must have 5 elements (N, C, D, H, W) for a 3-D theta "
                            "of shape ", dims_to_string(theta_shape), ", got ", size.size(),
                            " elements ", dims_to_string(size));
  }
  for (size_t i = 0; i < size.size(); ++i) {
    if (size[i] < 0) {
      return invalid_argument(kOp, ": size[", i, "] (", size_entry_name(size.size(), i),
                              ") must be >= 0, got ", size[i], " in size ",
                              dims_to_string(size));
    }
  }
  if (size[0] != theta_shape[0]) {
    return invalid_argument(kOp, ": size[0] (N) must equal theta's batch ", theta_shape[0],
                            ", got ", size[0]);
  }
  // grid: (N, spatial..., r). C (size[1]) is only checked, never used.
  Dims grid_shape;
  grid_shape.push_back(size[0]);
  for (size_t i = 2; i < size.size(); ++i) grid_shape.push_back(size[i]);
  grid_shape.push_back(theta_2d ? 2 : 3);
  GRIDOPS_RETURN_IF_ERROR(checked_num_elements(grid_shape, "affine_grid: grid").status());
  return grid_shape;
}

StatusOr<AffineGridPlan> make_affine_grid_plan(const AffineGridDesc& desc, DType theta_dtype,
                                               std::span<const int64_t> theta_shape,
                                               std::span<const int64_t> size) {
  if (desc.align_corners != 0 && desc.align_corners != 1) {
    return invalid_argument(kOp, ": align_corners must be 0 or 1, got ", desc.align_corners);
  }
  if (!is_floating(theta_dtype)) {
    return invalid_argument(kOp, ": theta must have dtype float16, bfloat16, float32 or "
                            "float64, got ", to_string(theta_dtype));
  }
  GRIDOPS_ASSIGN_OR_RETURN(Dims grid_shape, affine_grid_output_shape(theta_shape, size));
  // The grid's byte size must fit too, so that it can be allocated and addressed.
  GRIDOPS_ASSIGN_OR_RETURN(const int64_t count,
                           checked_num_elements(grid_shape, "affine_grid: grid"));
  int64_t bytes;
  if (!detail::mul_ok(count, static_cast<int64_t>(dtype_size(theta_dtype)), &bytes)) {
    return invalid_argument(kOp, ": grid: byte size of shape ", dims_to_string(grid_shape),
                            " with dtype ", to_string(theta_dtype), " overflows 64 bits");
  }
  const kernels::AffineGridProblem problem = make_problem(desc, theta_dtype, grid_shape);
  GRIDOPS_ASSIGN_OR_RETURN(
      std::shared_ptr<const PlannedGrid> planned,
      detail::plan_entries(kOp, std::span<const AffineGridEntry>(kImpls), problem, desc.impl));

  AffineGridPlan plan;
  plan.desc_ = desc;
  plan.dtype_ = theta_dtype;
  plan.theta_shape_.assign(theta_shape.begin(), theta_shape.end());
  plan.size_.assign(size.begin(), size.end());
  plan.grid_shape_ = std::move(grid_shape);
  plan.impl_name_ = planned->chosen().name;
  plan.impl_ = &planned->chosen();
  plan.planned_ = std::move(planned);
  return plan;
}

StatusOr<AffineGridPlan> make_affine_grid_plan(const AffineGridDesc& desc, DType theta_dtype,
                                               std::span<const int64_t> theta_shape,
                                               std::span<const int64_t> size,
                                               const AffineGridWindow& window) {
  GRIDOPS_ASSIGN_OR_RETURN(AffineGridPlan full,
                           make_affine_grid_plan(desc, theta_dtype, theta_shape, size));
  const Dims& fs = full.grid_shape_;  // (N, spatial..., r)
  const size_t r = fs.size() - 2;
  if (window.origin.size() != r || window.shape.size() != r) {
    return invalid_argument(kOp, ": window origin and shape must have one entry per spatial axis (",
                            r, "), got ", dims_to_string(window.origin), " and ",
                            dims_to_string(window.shape));
  }
  Dims grid_shape{fs[0]};
  for (size_t a = 0; a < r; ++a) {
    int64_t end = 0;
    if (window.origin[a] < 0 || window.shape[a] < 0 ||
        !detail::add_ok(window.origin[a], window.shape[a], &end) || end > fs[1 + a]) {
      return invalid_argument(kOp, ": window at ", dims_to_string(window.origin), " with shape ",
                              dims_to_string(window.shape),
                              " must lie inside the grid's spatial sizes (axis ", a, " of ",
                              dims_to_string(fs), ")");
    }
    grid_shape.push_back(window.shape[a]);
  }
  grid_shape.push_back(static_cast<int64_t>(r));
  AffineGridPlan plan = full;
  plan.grid_shape_ = grid_shape;
  plan.windowed_ = true;
  plan.window_ = window;
  // The window's own tables, for the entry the unwindowed plan chose (it takes the window,
  // whose sizes are at most the full grid's).
  kernels::AffineGridProblem problem = make_problem(desc, theta_dtype, grid_shape);
  problem.windowed = true;
  for (size_t a = 0; a < r; ++a) {
    problem.full[a] = fs[1 + a];
    problem.origin[a] = window.origin[a];
  }
  GRIDOPS_ASSIGN_OR_RETURN(
      std::shared_ptr<const PlannedGrid> planned,
      detail::plan_entries(kOp, std::span<const AffineGridEntry>(kImpls), problem,
                           full.impl_name_));
  plan.impl_ = &planned->chosen();
  plan.planned_ = std::move(planned);
  return plan;
}

Status AffineGridPlan::run(const TensorView& theta, const MutableTensorView& grid) const {
  if (impl_ == nullptr) {
    return invalid_argument(kOp, ": the plan is empty (build it with make_affine_grid_plan)");
  }
  GRIDOPS_RETURN_IF_ERROR(expect_view(theta, "affine_grid: theta", dtype_, theta_shape_));
  GRIDOPS_RETURN_IF_ERROR(expect_view(grid, "affine_grid: grid", dtype_, grid_shape_));
  // check_no_overlap (byte_range) looks for a zero dimension first (an empty grid such as
  // (1, 2^62, 2^62, 0, 3) has no byte range, and its element count would overflow).
  GRIDOPS_RETURN_IF_ERROR(detail::check_no_overlap(kOp, "grid", grid, "theta", theta));
  kernels::AffineGridProblem problem = make_problem(desc_, dtype_, grid_shape_);
  if (windowed_) {
    problem.windowed = true;
    for (size_t a = 0; a < window_.origin.size(); ++a) {
      problem.full[a] = size_[2 + a];
      problem.origin[a] = window_.origin[a];
    }
  }
  return detail::run_entries(kOp, *static_cast<const PlannedGrid*>(planned_.get()), problem,
                             kernels::AffineGridViews{theta, grid});
}

Status affine_grid(const AffineGridDesc& desc, const TensorView& theta,
                   std::span<const int64_t> size, const MutableTensorView& grid) {
  GRIDOPS_RETURN_IF_ERROR(validate_view(theta, "affine_grid: theta"));
  GRIDOPS_ASSIGN_OR_RETURN(AffineGridPlan plan,
                           make_affine_grid_plan(desc, theta.dtype, theta.shape, size));
  return plan.run(theta, grid);
}

StatusOr<Tensor> affine_grid(const AffineGridDesc& desc, const TensorView& theta,
                             std::span<const int64_t> size) {
  GRIDOPS_RETURN_IF_ERROR(validate_view(theta, "affine_grid: theta"));
  GRIDOPS_ASSIGN_OR_RETURN(AffineGridPlan plan,
                           make_affine_grid_plan(desc, theta.dtype, theta.shape, size));
  GRIDOPS_ASSIGN_OR_RETURN(Tensor grid, Tensor::create(theta.dtype, plan.grid_shape()));
  GRIDOPS_RETURN_IF_ERROR(plan.run(theta, grid.mutable_view()));
  return grid;
}

StatusOr<Tensor> affine_grid(const AffineGridDesc& desc, const TensorView& theta,
                             std::span<const int64_t> size, const AffineGridWindow& window) {
  GRIDOPS_RETURN_IF_ERROR(validate_view(theta, "affine_grid: theta"));
  GRIDOPS_ASSIGN_OR_RETURN(AffineGridPlan plan,
                           make_affine_grid_plan(desc, theta.dtype, theta.shape, size, window));
  GRIDOPS_ASSIGN_OR_RETURN(Tensor grid, Tensor::create(theta.dtype, plan.grid_shape()));
  GRIDOPS_RETURN_IF_ERROR(plan.run(theta, grid.mutable_view()));
  return grid;
}

// --- backward ---------------------------------------------------------------------------

namespace {

constexpr const char* kBwdOp = "affine_grid_backward";

using detail::AffineGridBackwardEntry;
using PlannedBackward = detail::PlannedEntries<AffineGridBackwardEntry>;

void backward_fast_run(const kernels::AffineGridProblem& p, const void*,
                       const kernels::AffineGridBackwardViews& v) {
  kernels::affine_grid_backward_fast(p, v.grad_grid, v.grad_theta);
}
void backward_ref_run(const kernels::AffineGridProblem& p, const void*,
                      const kernels::AffineGridBackwardViews& v) {
  kernels::affine_grid_backward_ref(p, v.grad_grid, v.grad_theta);
}

constexpr AffineGridBackwardEntry kBackwardImpls[] = {
    {.name = "affine_grid_backward.row_sums",
     .alias = "fast",
     .declines = &kernels::affine_grid_backward_fast_declines,
     .run = &backward_fast_run},
    {.name = "ref", .declines = &ref_declines, .run = &backward_ref_run},
};

/// Rewrites an "affine_grid: ..." message of the shared validation as "affine_grid_backward: ...".
Status rename_op(const Status& s) {
  if (s.ok()) return s;
  std::string m = s.message();
  const std::string prefix = std::string(kOp) + ":";
  if (m.rfind(prefix, 0) == 0) m = std::string(kBwdOp) + m.substr(std::string(kOp).size());
  return Status(s.code(), m);
}

}  // namespace

namespace detail {
std::span<const AffineGridEntry> affine_grid_entries() noexcept { return kImpls; }
std::span<const AffineGridBackwardEntry> affine_grid_backward_entries() noexcept {
  return kBackwardImpls;
}
}  // namespace detail

StatusOr<AffineGridBackwardPlan> make_affine_grid_backward_plan(const AffineGridDesc& desc,
                                                                DType theta_dtype,
                                                                std::span<const int64_t> theta_shape,
                                                                std::span<const int64_t> size) {
  // The forward plan's checks (align_corners, dtype, shapes, sizes), with this op's name.
  StatusOr<AffineGridPlan> fwd = make_affine_grid_plan(AffineGridDesc{desc.align_corners, "ref"},
                                                       theta_dtype, theta_shape, size);
  if (!fwd.ok()) return rename_op(fwd.status());
  const kernels::AffineGridProblem problem = make_problem(desc, theta_dtype, fwd->grid_shape());
  GRIDOPS_ASSIGN_OR_RETURN(
      std::shared_ptr<const PlannedBackward> planned,
      detail::plan_entries(kBwdOp, std::span<const AffineGridBackwardEntry>(kBackwardImpls),
                           problem, desc.impl));
  AffineGridBackwardPlan plan;
  plan.desc_ = desc;
  plan.dtype_ = theta_dtype;
  plan.theta_shape_.assign(theta_shape.begin(), theta_shape.end());
  plan.size_.assign(size.begin(), size.end());
  plan.grid_shape_ = fwd->grid_shape();
  plan.impl_name_ = planned->chosen().name;
  plan.impl_ = &planned->chosen();
  plan.planned_ = std::move(planned);
  return plan;
}

Status AffineGridBackwardPlan::run(const TensorView& grad_grid,
                                   const MutableTensorView& grad_theta) const {
  if (impl_ == nullptr) {
    return invalid_argument(kBwdOp, ": the plan is empty (build it with make_affine_grid_backward_plan)");
  }
  GRIDOPS_RETURN_IF_ERROR(expect_view(grad_grid, "affine_grid_backward: grad_grid", dtype_, grid_shape_));
  GRIDOPS_RETURN_IF_ERROR(expect_view(grad_theta, "affine_grid_backward: grad_theta", dtype_, theta_shape_));
  GRIDOPS_RETURN_IF_ERROR(detail::check_no_overlap(kBwdOp, "grad_theta", grad_theta,
                                                    "grad_grid", grad_grid));
  const kernels::AffineGridProblem problem = make_problem(desc_, dtype_, grid_shape_);
  return detail::run_entries(kBwdOp, *static_cast<const PlannedBackward*>(planned_.get()),
                             problem, kernels::AffineGridBackwardViews{grad_grid, grad_theta});
}

Status affine_grid_backward(const AffineGridDesc& desc, const TensorView& grad_grid,
                            std::span<const int64_t> size, const MutableTensorView& grad_theta) {
  GRIDOPS_RETURN_IF_ERROR(validate_view(grad_theta, "affine_grid_backward: grad_theta"));
  GRIDOPS_ASSIGN_OR_RETURN(
      AffineGridBackwardPlan plan,
      make_affine_grid_backward_plan(desc, grad_theta.dtype, grad_theta.shape, size));
  return plan.run(grad_grid, grad_theta);
}

StatusOr<Tensor> affine_grid_backward(const AffineGridDesc& desc, const TensorView& grad_grid,
                                      std::span<const int64_t> size) {
  GRIDOPS_RETURN_IF_ERROR(validate_view(grad_grid, "affine_grid_backward: grad_grid"));
  if (size.size() != 4 && size.size() != 5) {
    return invalid_argument(kBwdOp, ": size must have 4 elements (N, C, H, W) or 5 "
                            "(N, C, D, H, W), got ", size.size());
  }
  const int64_t r = static_cast<int64_t>(size.size()) - 2;
  const Dims theta_shape = {size[0], r, r + 1};
  GRIDOPS_ASSIGN_OR_RETURN(
      AffineGridBackwardPlan plan,
      make_affine_grid_backward_plan(desc, grad_grid.dtype, theta_shape, size));
  GRIDOPS_ASSIGN_OR_RETURN(Tensor grad_theta, Tensor::create(grad_grid.dtype, theta_shape));
  GRIDOPS_RETURN_IF_ERROR(plan.run(grad_grid, grad_theta.mutable_view()));
  return grad_theta;
}

}  // namespace gridops
