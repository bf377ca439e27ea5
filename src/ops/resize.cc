// Resize operator layer: plans, windows and the implementation list (names, enum checks
// and per-axis geometry: resize_geometry.cc). See docs/ops/resize.md.
#include "gridops/ops/resize.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <new>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/checked.h"
#include "core/coords.h"
#include "core/overlap.h"
#include "kernels/resize/resize.h"
#include "kernels/resize/resize_backward.h"
#include "kernels/resize/resize_fast.h"
#include "kernels/resize/resize_taps.h"
#include "ops/dispatch.h"
#include "ops/resize_impls.h"

namespace gridops {
namespace {

using kernels::ResizeAxisTable;
using kernels::ResizeProblem;

constexpr const char* kOp = "resize";

// --- implementation list ----------------------------------------------------------------

using detail::PlannedEntries;
using detail::ResizeEntry;
using kernels::ResizeViews;

std::string ref_declines(const ResizeProblem&) { return {}; }
void ref_run(const ResizeProblem& p, const void*, const ResizeViews& v) {
  kernels::resize_ref(p, v.src, v.dst);
}

/// Fast kernels before the reference, which accepts everything and stays last
/// (docs/ops/resize.md, "Fast paths"). The fast entries take disjoint problems, except
/// that resize.passes takes every problem of resize.fused_rows and so runs the views the
/// fused rows decline (non-dense), with its own tables. Every prepare here returns
/// kernels::ResizeSeparableTables (resize_planned_pass_order reads the chosen entry's).
constexpr ResizeEntry kEntries[] = {
    {.name = "resize.gather", .alias = "fast", .declines = &kernels::resize_gather_declines,
     .run = &kernels::resize_gather},
#ifdef GRIDOPS_HAVE_HWY
    {.name = "resize.fused_rows", .alias = "fast",
     .declines = &kernels::resize_fused_rows_declines,
     .prepare = &kernels::resize_fused_rows_prepare,
     .declines_views = &kernels::resize_fused_rows_declines_views,
     .run = &kernels::resize_fused_rows, .schedule = &kernels::resize_fused_rows_schedule},
#endif
    {.name = "resize.passes", .alias = "fast", .declines = &kernels::resize_passes_declines,
     .prepare = &kernels::resize_passes_prepare, .run = &kernels::resize_passes,
     .schedule = &kernels::resize_passes_schedule},
    {.name = "ref", .declines = &ref_declines, .run = &ref_run},
};

using detail::ResizeBackwardEntry;
using kernels::ResizeBackwardArgs;
constexpr const char* kOpBackward = "resize backward";

/// The backward's list: the passes (within docs/ops/resize.md's tolerance of the
/// reference), then the reference.
constexpr ResizeBackwardEntry kBackwardEntries[] = {
    {.name = "resize_backward.passes", .alias = "fast",
     .declines = &kernels::resize_backward_passes_declines,
     .prepare = &kernels::resize_backward_passes_prepare,
     .run = &kernels::resize_backward_passes},
    {.name = "ref", .declines = &ref_declines, .run = &kernels::resize_backward_ref},
};

/// The backward's plan, made beside the forward's for floating and complex dtypes; a
/// failure (a forced entry that declines, out of memory) is kept for backward() to report.
struct PlannedBackward {
  std::shared_ptr<const void> planned;
  Status error;
  const char* name = "";
};

PlannedBackward plan_backward(const ResizeDesc& desc, const ResizeProblem& problem) {
  PlannedBackward b;
  if (!is_floating(problem.dtype) && !is_complex(problem.dtype)) return b;
  const std::span<const ResizeBackwardEntry> list(kBackwardEntries);
  const bool named = detail::names_entry(list, desc.impl);
  auto planned = detail::plan_entries(kOpBackward, list, problem,
                                      named ? std::string_view(desc.impl) : std::string_view());
  if (!planned.ok()) {
    b.error = planned.status();
    return b;
  }
  b.name = (*planned)->chosen().name;
  b.planned = *std::move(planned);
  return b;
}

/// Whether `impl` names a backward entry only (the forward's list then chooses by itself).
bool names_backward_only(const std::string& impl) {
  return detail::names_entry(std::span<const ResizeBackwardEntry>(kBackwardEntries), impl) &&
         !detail::names_entry(std::span<const ResizeEntry>(kEntries), impl);
}

}  // namespace

namespace detail {
std::span<const ResizeEntry> resize_entries() noexcept { return kEntries; }
std::span<const ResizeBackwardEntry> resize_backward_entries() noexcept { return kBackwardEntries; }
}  // namespace detail

/// Checks that the boxes fit the full shapes; "what" names the caller.
Status check_boxes(const char* what, std::span<const int64_t> full, std::span<const int64_t> b,
                   std::span<const int64_t> e_or_shape, bool is_shape, const char* name) {
  for (size_t a = 0; a < full.size(); ++a) {
    int64_t end = e_or_shape[a];
    if (is_shape && !detail::add_ok(b[a], e_or_shape[a], &end)) end = -1;
    if (b[a] < 0 || end < b[a] || end > full[a]) {
      return invalid_argument(what, ": ", name, " box at ", dims_to_string(b),
                              is_shape ? " with shape " : " to ", dims_to_string(e_or_shape),
                              " must lie inside ", dims_to_string(full), " (axis ", a, ")");
    }
  }
  return Status();
}

// --- plan -------------------------------------------------------------------------------


StatusOr<ResizePlan> detail::make_resize_plan(const ResizeDesc& desc, DType dtype,
                                              std::span<const int64_t> src_shape,
                                              bool with_backward) {
  if (static_cast<int>(dtype) >= kNumDTypes) {
    return invalid_argument(kOp, ": src dtype code ", static_cast<int>(dtype),
                            " is not a known dtype");
  }
  GRIDOPS_RETURN_IF_ERROR(detail::resize_validate_enums(desc));
  if (dtype == DType::kString && desc.mode != ResizeMode::kNearest) {
    return invalid_argument(kOp, ": mode ", to_string(desc.mode),
                            " is not supported for string src (strings support nearest only)");
  }
  GRIDOPS_ASSIGN_OR_RETURN(const std::vector<ResizeAxis> axes, resize_axes(desc, src_shape));
  auto problem = std::make_shared<ResizeProblem>();
  problem->dtype = dtype;
  problem->mode = desc.mode;
  problem->antialias = desc.antialias;
  problem->extrapolation_value = desc.extrapolation_value;
  problem->src_shape.assign(src_shape.begin(), src_shape.end());
  int64_t dst_count = 1;
  for (const ResizeAxis& ax : axes) {
    problem->dst_shape.push_back(ax.out);
    dst_count *= ax.out;
  }
  if (dst_count > 0) {
    try {
      for (size_t a = 0; a < axes.size(); ++a) {
        if (!axes[a].resized) continue;
        ResizeAxisTable tb;
        if (kernels::resize_axis_table(desc, axes[a], static_cast<int>(a), &tb)) {
          problem->any_outside = problem->any_outside || tb.any_outside;
          problem->tables.push_back(std::move(tb));
        }
      }
    } catch (const std::bad_alloc&) {
      return Status(StatusCode::kOutOfMemory, "resize: out of memory for the plan's tap tables");
    }
  }
  // The chosen entry and those a run may hand the views to, with their tables.
  GRIDOPS_ASSIGN_OR_RETURN(
      auto planned,
      detail::plan_entries(kOp, std::span<const ResizeEntry>(kEntries), *problem,
                           names_backward_only(desc.impl) ? std::string_view() : desc.impl));
  ResizePlan plan;
  if (with_backward) {
    PlannedBackward b = plan_backward(desc, *problem);
    plan.prepared_backward_ = std::move(b.planned);
    plan.backward_error_ = std::move(b.error);
    plan.backward_impl_name_ = b.name;
  }
  plan.dtype_ = dtype;
  plan.src_shape_ = problem->src_shape;
  plan.dst_shape_ = problem->dst_shape;
  plan.impl_name_ = planned->chosen().name;
  plan.impl_ = &planned->chosen();
  plan.problem_ = std::move(problem);
  plan.prepared_ = std::move(planned);
  return plan;
}

StatusOr<ResizePlan> make_resize_plan(const ResizeDesc& desc, DType dtype,
                                      std::span<const int64_t> src_shape) {
  return detail::make_resize_plan(desc, dtype, src_shape, true);
}

StatusOr<std::vector<std::pair<int64_t, int64_t>>> resize_input_box(
    const ResizeDesc& desc, std::span<const int64_t> full_in, std::span<const int64_t> out_begin,
    std::span<const int64_t> out_end) {
  constexpr const char* op = "resize_input_box";
  GRIDOPS_ASSIGN_OR_RETURN(const std::vector<ResizeAxis> axes, resize_axes(desc, full_in));
  const size_t rank = full_in.size();
  if (out_begin.size() != rank || out_end.size() != rank) {
    return invalid_argument(op, ": out_begin and out_end must have one entry per axis (", rank,
                            "), got ", dims_to_string(out_begin), " and ", dims_to_string(out_end));
  }
  Dims full_out;
  for (const ResizeAxis& ax : axes) full_out.push_back(ax.out);
  GRIDOPS_RETURN_IF_ERROR(check_boxes(op, full_out, out_begin, out_end, false, "output"));
  std::vector<std::pair<int64_t, int64_t>> box(rank);
  try {
    for (size_t a = 0; a < rank; ++a) {
      ResizeAxisTable tb;
      bool identity = false;
      kernels::resize_full_axis_table(desc, axes[a], static_cast<int>(a), &tb, &identity);
      box[a] = kernels::resize_tap_range(tb, out_begin[a], out_end[a]);
    }
  } catch (const std::bad_alloc&) {
    return Status(StatusCode::kOutOfMemory, "resize_input_box: out of memory for the tap tables");
  }
  return box;
}

StatusOr<ResizePlan> make_resize_plan(const ResizeDesc& desc, DType dtype,
                                      const ResizeWindow& window) {
  // The full problem validates desc, dtype and the full shape.
  GRIDOPS_ASSIGN_OR_RETURN(ResizePlan full_plan,
                           detail::make_resize_plan(desc, dtype, window.full_in, false));
  GRIDOPS_ASSIGN_OR_RETURN(const std::vector<ResizeAxis> axes, resize_axes(desc, window.full_in));
  const size_t rank = window.full_in.size();
  if (window.in_origin.size() != rank || window.in_shape.size() != rank ||
      window.out_origin.size() != rank || window.out_shape.size() != rank) {
    return invalid_argument(kOp, ": window in_origin, in_shape, out_origin and out_shape must have "
                            "one entry per axis (", rank, ")");
  }
  Dims full_out;
  for (const ResizeAxis& ax : axes) full_out.push_back(ax.out);
  GRIDOPS_RETURN_IF_ERROR(check_boxes(kOp, window.full_in, window.in_origin, window.in_shape, true,
                                      "window src"));
  GRIDOPS_RETURN_IF_ERROR(check_boxes(kOp, full_out, window.out_origin, window.out_shape, true,
                                      "window dst"));
  auto problem = std::make_shared<ResizeProblem>();
  problem->dtype = dtype;
  problem->mode = desc.mode;
  problem->antialias = desc.antialias;
  problem->extrapolation_value = desc.extrapolation_value;
  problem->src_shape = window.in_shape;
  problem->dst_shape = window.out_shape;
  int64_t dst_count = 1;
  for (int64_t v : window.out_shape) dst_count *= v;
  if (dst_count > 0) {
    try {
      for (size_t a = 0; a < rank; ++a) {
        const int64_t io = window.in_origin[a], is = window.in_shape[a];
        const int64_t ob = window.out_origin[a], os = window.out_shape[a];
        ResizeAxisTable full;
        bool identity = false;
        kernels::resize_full_axis_table(desc, axes[a], static_cast<int>(a), &full, &identity);
        const auto need = kernels::resize_tap_range(full, ob, ob + os);
        if (need.first < need.second && (need.first < io || need.second > io + is)) {
          return invalid_argument(kOp, ": window: outputs [", ob, ", ", ob + os, ") of axis ", a,
                                  " read inputs [", need.first, ", ", need.second,
                                  ") (full input ", dims_to_string(window.full_in),
                                  "), but src covers only [", io, ", ", io + is, ")");
        }
        // An identity axis whose boxes coincide needs no table (as in the full problem).
        if (identity && io == ob && is == os) continue;
        // The full problem's rows [ob, ob + os), input indices shifted into the src box.
        ResizeAxisTable tb =
            kernels::resize_window_axis_table(full, static_cast<int>(a), io, is, ob, os);
        problem->any_outside = problem->any_outside || tb.any_outside;
        problem->tables.push_back(std::move(tb));
      }
    } catch (const std::bad_alloc&) {
      return Status(StatusCode::kOutOfMemory, "resize: out of memory for the plan's tap tables");
    }
  }
  // The full problem's pass order, mapped to this problem's tables (by axis); tables the
  // full problem does not have (identity axes whose boxes differ) are exact copies and go
  // last. Set before choosing: the fused rows take a window only in axis order.
  if (dst_count > 0) {
    const auto* fp = static_cast<const ResizeProblem*>(full_plan.problem_.get());
    std::vector<bool> used(problem->tables.size(), false);
    // The order the full plan's chosen entry runs its passes in (fused rows: axis order).
    const auto& full_entries = *static_cast<const PlannedEntries<ResizeEntry>*>(full_plan.prepared_.get());
    for (size_t k : kernels::resize_planned_pass_order(*fp, full_entries.tables())) {
      for (size_t j = 0; j < problem->tables.size(); ++j) {
        if (problem->tables[j].axis == fp->tables[k].axis) {
          problem->pass_order.push_back(j);
          used[j] = true;
        }
      }
    }
    for (size_t j = 0; j < used.size(); ++j) {
      if (!used[j]) problem->pass_order.push_back(j);
    }
  }
  // The chosen entry and those a run may hand the views to, with their tables.
  GRIDOPS_ASSIGN_OR_RETURN(
      auto planned,
      detail::plan_entries(kOp, std::span<const ResizeEntry>(kEntries), *problem,
                           names_backward_only(desc.impl) ? std::string_view() : desc.impl));
  ResizePlan plan;
  {
    PlannedBackward b = plan_backward(desc, *problem);
    plan.prepared_backward_ = std::move(b.planned);
    plan.backward_error_ = std::move(b.error);
    plan.backward_impl_name_ = b.name;
  }
  plan.dtype_ = dtype;
  plan.src_shape_ = problem->src_shape;
  plan.dst_shape_ = problem->dst_shape;
  plan.impl_name_ = planned->chosen().name;
  plan.impl_ = &planned->chosen();
  plan.problem_ = std::move(problem);
  plan.prepared_ = std::move(planned);
  return plan;
}

Status ResizePlan::run(const TensorView& src, const MutableTensorView& dst) const {
  if (impl_ == nullptr) {
    return invalid_argument(kOp, ": plan is empty (make it with make_resize_plan)");
  }
  GRIDOPS_RETURN_IF_ERROR(expect_view(src, "resize: src", dtype_, src_shape_));
  GRIDOPS_RETURN_IF_ERROR(expect_view(dst, "resize: dst", dtype_, dst_shape_));
  GRIDOPS_RETURN_IF_ERROR(detail::check_no_overlap(kOp, "dst", dst, "src", src));
  if (dst.num_elements() == 0) return Status();
  const auto& p = *static_cast<const ResizeProblem*>(problem_.get());
  const auto& planned = *static_cast<const PlannedEntries<ResizeEntry>*>(prepared_.get());
  const ResizeViews views{src, dst, kernels::resize_dense(src), kernels::resize_dense(dst)};
  return detail::run_entries(kOp, planned, p, views);
}

Status ResizePlan::backward(const TensorView& grad_dst, const MutableTensorView& grad_src) const {
  if (impl_ == nullptr) {
    return invalid_argument(kOpBackward, ": plan is empty (make it with make_resize_plan)");
  }
  if (prepared_backward_ == nullptr) {
    if (!backward_error_.ok()) return backward_error_;
    return invalid_argument(kOpBackward, ": needs a floating or complex dtype (float16, ",
                            "bfloat16, float32, float64, complex64, complex128), the plan's is ",
                            to_string(dtype_));
  }
  GRIDOPS_RETURN_IF_ERROR(expect_view(grad_dst, "resize backward: grad_dst", dtype_, dst_shape_));
  GRIDOPS_RETURN_IF_ERROR(expect_view(grad_src, "resize backward: grad_src", dtype_, src_shape_));
  GRIDOPS_RETURN_IF_ERROR(detail::check_distinct_elements("resize backward: grad_src", grad_src));
  GRIDOPS_RETURN_IF_ERROR(
      detail::check_no_overlap(kOpBackward, "grad_src", grad_src, "grad_dst", grad_dst));
  if (grad_src.num_elements() == 0) return Status();
  const auto& p = *static_cast<const ResizeProblem*>(problem_.get());
  const auto& planned =
      *static_cast<const PlannedEntries<ResizeBackwardEntry>*>(prepared_backward_.get());
  return detail::run_entries(kOpBackward, planned, p, ResizeBackwardArgs{grad_dst, grad_src});
}

// --- one-shot wrappers ------------------------------------------------------------------

StatusOr<Tensor> resize_backward(const ResizeDesc& desc, const TensorView& grad_dst,
                                 std::span<const int64_t> src_shape) {
  GRIDOPS_RETURN_IF_ERROR(validate_view(grad_dst, "resize backward: grad_dst"));
  GRIDOPS_ASSIGN_OR_RETURN(const ResizePlan plan, make_resize_plan(desc, grad_dst.dtype, src_shape));
  GRIDOPS_ASSIGN_OR_RETURN(Tensor grad_src, Tensor::create(grad_dst.dtype, plan.src_shape()));
  GRIDOPS_RETURN_IF_ERROR(plan.backward(grad_dst, grad_src.mutable_view()));
  return grad_src;
}

Status resize(const ResizeDesc& desc, const TensorView& src, const MutableTensorView& dst) {
  GRIDOPS_RETURN_IF_ERROR(validate_view(src, "resize: src"));
  GRIDOPS_ASSIGN_OR_RETURN(const ResizePlan plan,
                           detail::make_resize_plan(desc, src.dtype, src.shape, false));
  return plan.run(src, dst);
}

StatusOr<Tensor> resize(const ResizeDesc& desc, const TensorView& src) {
  GRIDOPS_RETURN_IF_ERROR(validate_view(src, "resize: src"));
  GRIDOPS_ASSIGN_OR_RETURN(const ResizePlan plan,
                           detail::make_resize_plan(desc, src.dtype, src.shape, false));
  GRIDOPS_ASSIGN_OR_RETURN(Tensor dst, Tensor::create(src.dtype, plan.dst_shape()));
  GRIDOPS_RETURN_IF_ERROR(plan.run(src, dst.mutable_view()));
  return dst;
}

}  // namespace gridops
