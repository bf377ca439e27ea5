// GridSample backward operator layer: validation, plan, implementation list. The forward
// is grid_sample.cc (their shared checks: grid_sample_common.h); the formulas live in the
// kernels, see docs/ops/grid_sample.md, "Backward".
#include <string>
#include <utility>

#include "core/overlap.h"
#include "gridops/ops/grid_sample.h"
#include "kernels/grid_sample/grid_sample.h"
#include "ops/dispatch.h"
#include "ops/grid_sample_common.h"
#include "ops/grid_sample_impls.h"

namespace gridops {

namespace {

using detail::GridSampleBackwardEntry;
using detail::GridSampleBackwardViews;
using grid_sample_common::make_problem;
using grid_sample_common::output_shape;
using grid_sample_common::validate_desc;

/// The reference takes every valid problem and every view.
std::string ref_declines(const kernels::GridSampleProblem&) { return {}; }
void ref_run(const kernels::GridSampleProblem& p, const void*, const GridSampleBackwardViews& v) {
  kernels::grid_sample_backward_ref(p, v.grad_dst, v.src, v.grid, v.grad_src, v.grad_grid);
}

/// The band entries: outputs whose elements alias each other go to the reference.
std::string bands_declines_views(const kernels::GridSampleProblem&, const void*,
                                 const GridSampleBackwardViews& v) {
  return kernels::grid_sample_backward_fast_declines_views(v.grad_src, v.grad_grid);
}
void bands_run(const kernels::GridSampleProblem& p, const void* tables,
               const GridSampleBackwardViews& v) {
  kernels::grid_sample_backward_fast(p, tables, v.grad_dst, v.src, v.grid, v.grad_src,
                                     v.grad_grid);
}

}  // namespace

namespace detail {

namespace {
/// The fast entries share the kernel and its scope; each prepares its own tables
/// (kernels/grid_sample/grid_sample.h). Threaded, deterministic; docs/ops/grid_sample.md,
/// "Backward". The test-only ones are forced by name only (the diff tests, the benchmark).
#define GRIDOPS_GRID_SAMPLE_BACKWARD_BANDS(path, test)                                   \
  {.name = "grid_sample_backward." #path, .alias = "fast",                              \
   .declines = kernels::grid_sample_backward_fast_declines,                             \
   .prepare = kernels::grid_sample_backward_##path##_prepare,                           \
   .declines_views = bands_declines_views, .run = bands_run,                            \
   .schedule = kernels::grid_sample_backward_bands_schedule, .test_only = test}
constexpr GridSampleBackwardEntry kBackwardImpls[] = {
    GRIDOPS_GRID_SAMPLE_BACKWARD_BANDS(bands, false),
#ifdef GRIDOPS_HAVE_HWY
    GRIDOPS_GRID_SAMPLE_BACKWARD_BANDS(bands_portable, true),
#endif
    GRIDOPS_GRID_SAMPLE_BACKWARD_BANDS(bands_four_chunks, true),
    {.name = "ref", .declines = ref_declines, .run = ref_run},
};
#undef GRIDOPS_GRID_SAMPLE_BACKWARD_BANDS
}  // namespace

std::span<const GridSampleBackwardEntry> grid_sample_backward_entries() noexcept {
  return kBackwardImpls;
}

}  // namespace detail

namespace {

constexpr const char* kBwdOp = "grid_sample_backward";

bool is_backward_dtype(DType dt) {
  return dt == DType::kFloat16 || dt == DType::kBFloat16 || dt == DType::kFloat32 ||
         dt == DType::kFloat64;
}

}  // namespace

StatusOr<GridSampleBackwardPlan> make_grid_sample_backward_plan(const GridSampleDesc& desc,
                                                                DType src_dtype,
                                                                std::span<const int64_t> src_shape,
                                                                DType grid_dtype,
                                                                std::span<const int64_t> grid_shape) {
  GRIDOPS_RETURN_IF_ERROR(validate_desc(desc, kBwdOp));
  if (static_cast<int>(src_dtype) >= kNumDTypes || !is_backward_dtype(src_dtype)) {
    return invalid_argument(kBwdOp, ": src dtype must be float16, bfloat16, float32 or float64, got ",
                            static_cast<int>(src_dtype) >= kNumDTypes
                                ? "unknown dtype code " + std::to_string(static_cast<int>(src_dtype))
                                : std::string(to_string(src_dtype)));
  }
  if (static_cast<int>(grid_dtype) >= kNumDTypes || !is_floating(grid_dtype)) {
    return invalid_argument(kBwdOp, ": grid dtype must be float16, bfloat16, float32 or float64, got ",
                            static_cast<int>(grid_dtype) >= kNumDTypes
                                ? "unknown dtype code " + std::to_string(static_cast<int>(grid_dtype))
                                : std::string(to_string(grid_dtype)));
  }
  GRIDOPS_ASSIGN_OR_RETURN(Dims dst_shape, output_shape(kBwdOp, desc, src_shape, grid_shape));
  const kernels::GridSampleProblem problem =
      make_problem(desc, src_dtype, src_shape, grid_dtype, dst_shape);
  auto planned = detail::plan_entries(kBwdOp, detail::grid_sample_backward_entries(), problem,
                                      desc.impl);
  if (!planned.ok()) return planned.status();
  GridSampleBackwardPlan plan;
  plan.desc_ = desc;
  plan.src_dtype_ = src_dtype;
  plan.grid_dtype_ = grid_dtype;
  plan.src_shape_.assign(src_shape.begin(), src_shape.end());
  plan.grid_shape_.assign(grid_shape.begin(), grid_shape.end());
  plan.dst_shape_ = std::move(dst_shape);
  plan.impl_name_ = (*planned)->chosen().name;
  plan.impl_ = &(*planned)->chosen();
  plan.prepared_ = std::move(planned).value();
  return plan;
}

Status GridSampleBackwardPlan::run(const TensorView& grad_dst, const TensorView& src,
                                   const TensorView& grid, const MutableTensorView* grad_src,
                                   const MutableTensorView* grad_grid) const {
  if (impl_ == nullptr) {
    return invalid_argument(kBwdOp, ": plan is empty (make it with make_grid_sample_backward_plan)");
  }
  // Everything is checked before anything is written.
  GRIDOPS_RETURN_IF_ERROR(expect_view(grad_dst, "grid_sample_backward: grad_dst", src_dtype_, dst_shape_));
  GRIDOPS_RETURN_IF_ERROR(expect_view(src, "grid_sample_backward: src", src_dtype_, src_shape_));
  GRIDOPS_RETURN_IF_ERROR(expect_view(grid, "grid_sample_backward: grid", grid_dtype_, grid_shape_));
  if (grad_src != nullptr) {
    GRIDOPS_RETURN_IF_ERROR(
        expect_view(*grad_src, "grid_sample_backward: grad_src", src_dtype_, src_shape_));
  }
  if (grad_grid != nullptr) {
    GRIDOPS_RETURN_IF_ERROR(
        expect_view(*grad_grid, "grid_sample_backward: grad_grid", grid_dtype_, grid_shape_));
  }
  const struct {
    const char* name;
    const TensorView* view;
  } inputs[] = {{"grad_dst", &grad_dst}, {"src", &src}, {"grid", &grid}};
  const struct {
    const char* name;
    const MutableTensorView* view;
  } outputs[] = {{"grad_src", grad_src}, {"grad_grid", grad_grid}};
  for (const auto& out : outputs) {
    if (out.view == nullptr) continue;
    for (const auto& in : inputs) {
      GRIDOPS_RETURN_IF_ERROR(detail::check_no_overlap(kBwdOp, out.name, *out.view, in.name, *in.view));
    }
  }
  if (grad_src != nullptr && grad_grid != nullptr) {
    GRIDOPS_RETURN_IF_ERROR(detail::check_no_overlap(kBwdOp, "grad_src", *grad_src,
                                                     "grad_grid", *grad_grid));
  }
  if (grad_src == nullptr && grad_grid == nullptr) return Status();
  const kernels::GridSampleProblem problem =
      make_problem(desc_, src_dtype_, src_shape_, grid_dtype_, dst_shape_);
  const auto& planned =
      *static_cast<const detail::PlannedEntries<GridSampleBackwardEntry>*>(prepared_.get());
  return detail::run_entries(kBwdOp, planned, problem,
                             GridSampleBackwardViews{grad_dst, src, grid, grad_src, grad_grid});
}

Status grid_sample_backward(const GridSampleDesc& desc, const TensorView& grad_dst,
                            const TensorView& src, const TensorView& grid,
                            const MutableTensorView* grad_src, const MutableTensorView* grad_grid) {
  GRIDOPS_RETURN_IF_ERROR(validate_view(src, "grid_sample_backward: src"));
  GRIDOPS_RETURN_IF_ERROR(validate_view(grid, "grid_sample_backward: grid"));
  GRIDOPS_ASSIGN_OR_RETURN(
      GridSampleBackwardPlan plan,
      make_grid_sample_backward_plan(desc, src.dtype, src.shape, grid.dtype, grid.shape));
  return plan.run(grad_dst, src, grid, grad_src, grad_grid);
}

StatusOr<GridSampleGradients> grid_sample_backward(const GridSampleDesc& desc,
                                                   const TensorView& grad_dst,
                                                   const TensorView& src, const TensorView& grid,
                                                   bool want_grad_src, bool want_grad_grid) {
  GRIDOPS_RETURN_IF_ERROR(validate_view(src, "grid_sample_backward: src"));
  GRIDOPS_RETURN_IF_ERROR(validate_view(grid, "grid_sample_backward: grid"));
  GRIDOPS_ASSIGN_OR_RETURN(
      GridSampleBackwardPlan plan,
      make_grid_sample_backward_plan(desc, src.dtype, src.shape, grid.dtype, grid.shape));
  GridSampleGradients g;
  MutableTensorView gs, gg;
  if (want_grad_src) {
    GRIDOPS_ASSIGN_OR_RETURN(g.grad_src, Tensor::create(src.dtype, plan.src_shape()));
    gs = g.grad_src.mutable_view();
  }
  if (want_grad_grid) {
    GRIDOPS_ASSIGN_OR_RETURN(g.grad_grid, Tensor::create(grid.dtype, plan.grid_shape()));
    gg = g.grad_grid.mutable_view();
  }
  GRIDOPS_RETURN_IF_ERROR(plan.run(grad_dst, src, grid, want_grad_src ? &gs : nullptr,
                                   want_grad_grid ? &gg : nullptr));
  return g;
}

}  // namespace gridops
