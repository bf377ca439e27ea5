// GridSample operator layer: names, validation, output shape, plan, implementation list.
// The formulas live in the kernels; see docs/ops/grid_sample.md.
#include "gridops/ops/grid_sample.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdint>
#include <limits>
#include <memory>
#include <new>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/checked.h"
#include "core/convert.h"
#include "core/coords.h"
#include "core/overlap.h"
#include "kernels/grid_sample/grid_sample.h"
#include "kernels/grid_sample/grid_sample_fast.h"
#include "kernels/grid_sample/grid_sample_u8.h"
#include "ops/dispatch.h"
#include "ops/grid_sample_common.h"
#include "ops/grid_sample_impls.h"
#include "ops/grid_sample_validate.h"

namespace gridops {

namespace {

constexpr const char* kOp = "grid_sample";

/// The reference takes every valid problem.
std::string ref_declines(const kernels::GridSampleProblem&) { return {}; }

/// The reference's entry run (no tables; takes every view).
void ref_run(const kernels::GridSampleProblem& p, const void*, const kernels::GridSampleViews& v) {
  kernels::grid_sample_ref(p, v.src, v.grid, v.dst);
}

#ifdef GRIDOPS_HAVE_HWY
std::string blocked_unavailable() {
  return kernels::grid_sample_target_has_blocked() ? std::string()
                                                   : "the CPU's Highway target is not x86 AVX2 or AVX-512";
}
std::string pairs_unavailable() {
  return kernels::grid_sample_target_has_pairs()
             ? std::string()
             : "the CPU's Highway target has no pair gathers (AVX2 and up)";
}
#endif

}  // namespace

// --- the implementation lists (reference last) ----------------------------------------

#ifdef GRIDOPS_HAVE_HWY
// The fast forward's paths, one translation unit each
// (src/kernels/grid_sample/grid_sample_<name>_hwy.cc): their declines, declines_views and
// run functions. A new path: its file, its line here and its entry below.
namespace kernels {
GRIDOPS_GRID_SAMPLE_FAST_PATH(blocked)
GRIDOPS_GRID_SAMPLE_FAST_PATH(fused_small_c)
GRIDOPS_GRID_SAMPLE_FAST_PATH(pairs)
GRIDOPS_GRID_SAMPLE_FAST_PATH(channels)
GRIDOPS_GRID_SAMPLE_FAST_PATH(generic)
}  // namespace kernels
#endif

namespace detail {

namespace {
/// Fast entries before the reference; the first that takes the problem runs, and views it
/// declines go to the next planned entry (run_entries). The fast kernel's paths (Highway
/// SIMD, threaded; docs/ops/grid_sample.md, "Fast path") go most specialized first and
/// share their plan-time tables (grid_sample_fast_prepare); a test-only twin follows its
/// path.
constexpr GridSampleEntry kImpls[] = {
#ifdef GRIDOPS_HAVE_HWY
    // uint8 images with 1-4 channels, 2-D; docs/ops/grid_sample.md, "uint8 few-channel path".
    {.name = "grid_sample.u8_few_channels",
     .alias = "fast",
     .declines = kernels::grid_sample_u8_declines,
     .prepare = kernels::grid_sample_u8_prepare,
     .declines_views = kernels::grid_sample_u8_declines_views,
     .run = kernels::grid_sample_u8_run,
     .schedule = kernels::grid_sample_u8_schedule},
#define GRIDOPS_GRID_SAMPLE_PATH(path, kernel, sched, ...)             \
  {.name = "grid_sample." #path,                                       \
   .alias = "fast",                                                    \
   .declines = kernels::grid_sample_##kernel##_declines,               \
   .prepare = kernels::grid_sample_fast_prepare,                       \
   .declines_views = kernels::grid_sample_##kernel##_declines_views,   \
   .run = kernels::grid_sample_##path##_run,                           \
   .schedule = kernels::sched __VA_OPT__(, ) __VA_ARGS__}
    GRIDOPS_GRID_SAMPLE_PATH(blocked, blocked, grid_sample_fast_schedule,
                             .unavailable = blocked_unavailable),
    GRIDOPS_GRID_SAMPLE_PATH(blocked_portable_transpose, blocked, grid_sample_fast_schedule,
                             .unavailable = blocked_unavailable, .test_only = true),
    GRIDOPS_GRID_SAMPLE_PATH(fused_small_c, fused_small_c, grid_sample_fused_small_c_schedule),
    GRIDOPS_GRID_SAMPLE_PATH(fused_small_c_portable_pairs, fused_small_c,
                             grid_sample_fused_small_c_portable_pairs_schedule, .test_only = true),
    GRIDOPS_GRID_SAMPLE_PATH(pairs, pairs, grid_sample_fast_schedule,
                             .unavailable = pairs_unavailable),
    GRIDOPS_GRID_SAMPLE_PATH(channels, channels, grid_sample_fast_schedule),
    GRIDOPS_GRID_SAMPLE_PATH(generic, generic, grid_sample_fast_schedule),
#undef GRIDOPS_GRID_SAMPLE_PATH
#endif
    {.name = "ref", .declines = ref_declines, .run = ref_run},
};
}  // namespace

std::span<const GridSampleEntry> grid_sample_entries() noexcept { return kImpls; }

}  // namespace detail

namespace {

using detail::GridSampleEntry;
using grid_sample_common::expected_grid_shape;
using grid_sample_common::make_problem;
using grid_sample_common::output_shape;
using grid_sample_common::validate_desc;

// --- validation helpers -------------------------------------------------------------

using detail::grid_sample_raw_input_box;

/// The spatial sizes (D1..Dr) of a src shape in a layout.
Dims spatial_sizes(std::span<const int64_t> shape, ChannelLayout layout) {
  const size_t first = layout == ChannelLayout::kChannelsFirst ? 2 : 1;
  return Dims(shape.begin() + static_cast<std::ptrdiff_t>(first),
              shape.begin() + static_cast<std::ptrdiff_t>(first + shape.size() - 2));
}

/// src_shape with its spatial sizes replaced by `spatial`.
Dims with_spatial(std::span<const int64_t> shape, ChannelLayout layout,
                  std::span<const int64_t> spatial) {
  Dims out(shape.begin(), shape.end());
  const size_t first = layout == ChannelLayout::kChannelsFirst ? 2 : 1;
  for (size_t d = 0; d < spatial.size(); ++d) out[first + d] = spatial[d];
  return out;
}

}  // namespace

// --- names ------------------------------------------------------------------------------

const char* to_string(InterpolationMode m) noexcept {
  switch (m) {
    case InterpolationMode::kLinear: return "linear";
    case InterpolationMode::kNearest: return "nearest";
    case InterpolationMode::kCubic: return "cubic";
  }
  return "unknown";
}

const char* to_string(GridPadding p) noexcept {
  switch (p) {
    case GridPadding::kZeros: return "zeros";
    case GridPadding::kBorder: return "border";
    case GridPadding::kReflection: return "reflection";
    case GridPadding::kWrap: return "wrap";
    case GridPadding::kConstant: return "constant";
    case GridPadding::kFill: return "fill";
  }
  return "unknown";
}

const char* to_string(GridUnits u) noexcept {
  switch (u) {
    case GridUnits::kNormalized: return "normalized";
    case GridUnits::kPixels: return "pixels";
  }
  return "unknown";
}

const char* to_string(GridKind k) noexcept {
  switch (k) {
    case GridKind::kAbsolute: return "absolute";
    case GridKind::kDisplacement: return "displacement";
  }
  return "unknown";
}

StatusOr<GridUnits> parse_grid_units(std::string_view s) {
  if (s == "normalized") return GridUnits::kNormalized;
  if (s == "pixels") return GridUnits::kPixels;
  return invalid_argument(kOp, ": grid_units must be normalized or pixels, got '", s, "'");
}

StatusOr<GridKind> parse_grid_kind(std::string_view s) {
  if (s == "absolute") return GridKind::kAbsolute;
  if (s == "displacement") return GridKind::kDisplacement;
  return invalid_argument(kOp, ": grid_kind must be absolute or displacement, got '", s, "'");
}

const char* to_string(ChannelLayout l) noexcept {
  switch (l) {
    case ChannelLayout::kChannelsFirst: return "channels_first";
    case ChannelLayout::kChannelsLast: return "channels_last";
  }
  return "unknown";
}

StatusOr<InterpolationMode> parse_interpolation_mode(std::string_view s) {
  // ERRATA GridSample 1: the opset-16 and opset-20 names are both accepted.
  if (s == "linear" || s == "bilinear") return InterpolationMode::kLinear;
  if (s == "nearest") return InterpolationMode::kNearest;
  if (s == "cubic" || s == "bicubic") return InterpolationMode::kCubic;
  return invalid_argument(kOp, ": mode must be one of linear, bilinear, nearest, cubic, bicubic, got '",
                          s, "'");
}

StatusOr<GridPadding> parse_grid_padding(std::string_view s) {
  if (s == "zeros") return GridPadding::kZeros;
  if (s == "border") return GridPadding::kBorder;
  if (s == "reflection") return GridPadding::kReflection;
  if (s == "wrap") return GridPadding::kWrap;
  if (s == "constant") return GridPadding::kConstant;
  if (s == "fill") return GridPadding::kFill;
  return invalid_argument(kOp, ": padding_mode must be one of zeros, border, reflection, wrap, "
                          "constant, fill, got '", s, "'");
}

// --- shapes -------------------------------------------------------------------------------

StatusOr<Dims> grid_sample_output_shape(const GridSampleDesc& desc, std::span<const int64_t> src_shape,
                                        std::span<const int64_t> grid_shape) {
  return output_shape(kOp, desc, src_shape, grid_shape);
}

namespace {

/// Plans the forward entries for a problem ("fast", every fast entry's alias, picks the
/// first fast entry that takes it): the chosen entry and those a run may hand off to, with
/// their tables.
StatusOr<std::shared_ptr<const detail::PlannedEntries<GridSampleEntry>>> plan_forward(
    std::string_view forced, const kernels::GridSampleProblem& problem) {
  return detail::plan_entries<GridSampleEntry>(kOp, detail::grid_sample_entries(), problem,
                                               forced);
}

}  // namespace

// --- plan -----------------------------------------------------------------------------

namespace {

/// Runs the planned entries on the views (the one hand-off rule: run_entries).
Status run_planned(const std::shared_ptr<const void>& planned,
                   const kernels::GridSampleProblem& problem, const TensorView& src,
                   const TensorView& grid, const MutableTensorView& dst) {
  return detail::run_entries(
      kOp, *static_cast<const detail::PlannedEntries<GridSampleEntry>*>(planned.get()), problem,
      kernels::GridSampleViews{src, grid, dst});
}

/// Everything make_grid_sample_plan checks; returns the output shape.
StatusOr<Dims> validate_plan(const GridSampleDesc& desc, DType src_dtype,
                             std::span<const int64_t> src_shape, DType grid_dtype,
                             std::span<const int64_t> grid_shape) {
  GRIDOPS_RETURN_IF_ERROR(validate_desc(desc));
  if (static_cast<int>(src_dtype) >= kNumDTypes) {
    return invalid_argument(kOp, ": src dtype code ", static_cast<int>(src_dtype),
                            " is not a known dtype");
  }
  if (static_cast<int>(grid_dtype) >= kNumDTypes) {
    return invalid_argument(kOp, ": grid dtype must be float16, bfloat16, float32 or float64, "
                            "got unknown dtype code ", static_cast<int>(grid_dtype));
  }
  if (!is_floating(grid_dtype)) {
    return invalid_argument(kOp, ": grid dtype must be float16, bfloat16, float32 or float64, got ",
                            to_string(grid_dtype));
  }
  // ERRATA GridSample 7: strings can be selected but not weighted.
  if (src_dtype == DType::kString && desc.mode != InterpolationMode::kNearest) {
    return invalid_argument(kOp, ": mode ", to_string(desc.mode),
                            " is not supported for string src (strings support nearest only)");
  }
  GRIDOPS_RETURN_IF_ERROR(detail::grid_sample_check_fill_value(desc, src_dtype, kOp));
  return grid_sample_output_shape(desc, src_shape, grid_shape);
}

}  // namespace

StatusOr<GridSamplePlan> make_grid_sample_plan(const GridSampleDesc& desc, DType src_dtype,
                                               std::span<const int64_t> src_shape,
                                               DType grid_dtype,
                                               std::span<const int64_t> grid_shape) {
  GRIDOPS_ASSIGN_OR_RETURN(Dims dst_shape,
                           validate_plan(desc, src_dtype, src_shape, grid_dtype, grid_shape));

  const kernels::GridSampleProblem problem =
      make_problem(desc, src_dtype, src_shape, grid_dtype, dst_shape);
  GRIDOPS_ASSIGN_OR_RETURN(auto planned, plan_forward(desc.impl, problem));

  GridSamplePlan plan;
  plan.desc_ = desc;
  plan.src_dtype_ = src_dtype;
  plan.grid_dtype_ = grid_dtype;
  plan.src_shape_.assign(src_shape.begin(), src_shape.end());
  plan.grid_shape_.assign(grid_shape.begin(), grid_shape.end());
  plan.dst_shape_ = std::move(dst_shape);
  plan.impl_name_ = planned->chosen().name;
  plan.impl_ = &planned->chosen();
  plan.planned_ = std::move(planned);
  return plan;
}

Status GridSamplePlan::run(const TensorView& src, const TensorView& grid,
                           const MutableTensorView& dst) const {
  if (impl_ == nullptr) {
    return invalid_argument(kOp, ": plan is empty (make it with make_grid_sample_plan)");
  }
  // Everything is checked before anything is written.
  GRIDOPS_RETURN_IF_ERROR(expect_view(src, "grid_sample: src", src_dtype_, src_shape_));
  GRIDOPS_RETURN_IF_ERROR(expect_view(grid, "grid_sample: grid", grid_dtype_, grid_shape_));
  GRIDOPS_RETURN_IF_ERROR(expect_view(dst, "grid_sample: dst", src_dtype_, dst_shape_));
  GRIDOPS_RETURN_IF_ERROR(detail::check_no_overlap(kOp, "dst", dst, "src", src));
  GRIDOPS_RETURN_IF_ERROR(detail::check_no_overlap(kOp, "dst", dst, "grid", grid));
  if (dst.num_elements() == 0) return Status();  // ERRATA GridSample 9
  if (!windowed_) {
    const kernels::GridSampleProblem problem =
        make_problem(desc_, src_dtype_, src_shape_, grid_dtype_, dst_shape_);
    return run_planned(planned_, problem, src, grid, dst);
  }
  // Input window: the problem of the full input, reading src's box; first a pass over the
  // grid checks that every tap any implementation reads lies in the box.
  const Dims extent = spatial_sizes(src_shape_, desc_.layout);
  GRIDOPS_ASSIGN_OR_RETURN(const auto box, grid_sample_raw_input_box(desc_, window_.full, grid));
  for (size_t d = 0; d < box.size(); ++d) {
    const int64_t o = window_.origin[d];
    if (box[d].first < 0) {
      // No tap inside the full input on this axis: nothing is read with a nonzero weight;
      // the fast path's zero-weight reads need a box of min(full, K) elements.
      const int64_t need = std::min<int64_t>(window_.full[d], coords::taps_per_axis(desc_.mode));
      if (extent[d] < need) {
        return invalid_argument(kOp, ": the window (src) is ", extent[d],
                                " wide on spatial axis ", d, "; at least ", need,
                                " (min(full size, taps per axis)) is needed");
      }
      continue;
    }
    if (box[d].first < box[d].second && (box[d].first < o || box[d].second > o + extent[d])) {
      return invalid_argument(
          kOp, ": the grid needs input positions [", box[d].first, ", ", box[d].second,
          ") on spatial axis ", d, " of the full input (spatial sizes ",
          dims_to_string(window_.full), ", interpolation margin included: "
          "grid_sample_input_box), but the window (src) covers only [", o, ", ",
          o + extent[d], ")");
    }
  }
  kernels::GridSampleProblem problem = make_problem(
      desc_, src_dtype_, with_spatial(src_shape_, desc_.layout, window_.full), grid_dtype_,
      dst_shape_);
  problem.window_origin = window_.origin;
  problem.window_extent = extent;
  return run_planned(planned_, problem, src, grid, dst);
}

StatusOr<GridSamplePlan> make_grid_sample_plan(const GridSampleDesc& desc, DType src_dtype,
                                               std::span<const int64_t> src_shape,
                                               DType grid_dtype,
                                               std::span<const int64_t> grid_shape,
                                               const GridSampleWindow& window) {
  GRIDOPS_RETURN_IF_ERROR(validate_desc(desc));
  const int src_rank = static_cast<int>(src_shape.size());
  if (src_rank < 3 || src_rank > kMaxRank) {
    // The unwindowed plan names the problem.
    return make_grid_sample_plan(desc, src_dtype, src_shape, grid_dtype, grid_shape);
  }
  const int r = src_rank - 2;
  if (static_cast<int>(window.full.size()) != r || static_cast<int>(window.origin.size()) != r) {
    return invalid_argument(kOp, ": window full sizes and origin must have one entry per spatial "
                            "axis (", r, "), got full ", dims_to_string(window.full),
                            " and origin ", dims_to_string(window.origin));
  }
  const Dims extent = spatial_sizes(src_shape, desc.layout);
  for (int d = 0; d < r; ++d) {
    const auto i = static_cast<size_t>(d);
    int64_t end = 0;
    if (extent[i] < 0 || window.full[i] < 0 || window.origin[i] < 0 ||
        !detail::add_ok(window.origin[i], extent[i], &end) || end > window.full[i]) {
      return invalid_argument(kOp, ": window: src (spatial sizes ", dims_to_string(extent),
                              ") at origin ", dims_to_string(window.origin),
                              " must lie inside the full input of spatial sizes ",
                              dims_to_string(window.full), " (axis ", d, ")");
    }
  }
  // Validated as the full problem; the implementation is chosen for the full problem with
  // the window, so that a path that takes no window (grid_sample.blocked) declines it.
  const Dims full_shape = with_spatial(src_shape, desc.layout, window.full);
  GRIDOPS_ASSIGN_OR_RETURN(Dims dst_shape,
                           validate_plan(desc, src_dtype, full_shape, grid_dtype, grid_shape));
  kernels::GridSampleProblem problem =
      make_problem(desc, src_dtype, full_shape, grid_dtype, dst_shape);
  problem.window_origin = window.origin;
  problem.window_extent = extent;
  GRIDOPS_ASSIGN_OR_RETURN(auto planned, plan_forward(desc.impl, problem));
  GridSamplePlan plan;
  plan.desc_ = desc;
  plan.src_dtype_ = src_dtype;
  plan.grid_dtype_ = grid_dtype;
  plan.grid_shape_.assign(grid_shape.begin(), grid_shape.end());
  plan.dst_shape_ = std::move(dst_shape);
  plan.impl_name_ = planned->chosen().name;
  plan.impl_ = &planned->chosen();
  plan.planned_ = std::move(planned);
  plan.src_shape_.assign(src_shape.begin(), src_shape.end());
  plan.windowed_ = true;
  plan.window_ = window;
  return plan;
}

// --- one-shot wrappers ----------------------------------------------------------------

Status grid_sample(const GridSampleDesc& desc, const TensorView& src, const TensorView& grid,
                   const MutableTensorView& dst) {
  GRIDOPS_RETURN_IF_ERROR(validate_view(src, "grid_sample: src"));
  GRIDOPS_RETURN_IF_ERROR(validate_view(grid, "grid_sample: grid"));
  GRIDOPS_ASSIGN_OR_RETURN(GridSamplePlan plan,
                           make_grid_sample_plan(desc, src.dtype, src.shape, grid.dtype, grid.shape));
  return plan.run(src, grid, dst);
}

StatusOr<Tensor> grid_sample(const GridSampleDesc& desc, const TensorView& src,
                             const TensorView& grid) {
  GRIDOPS_RETURN_IF_ERROR(validate_view(src, "grid_sample: src"));
  GRIDOPS_RETURN_IF_ERROR(validate_view(grid, "grid_sample: grid"));
  GRIDOPS_ASSIGN_OR_RETURN(GridSamplePlan plan,
                           make_grid_sample_plan(desc, src.dtype, src.shape, grid.dtype, grid.shape));
  GRIDOPS_ASSIGN_OR_RETURN(Tensor dst, Tensor::create(src.dtype, plan.dst_shape()));
  GRIDOPS_RETURN_IF_ERROR(plan.run(src, grid, dst.mutable_view()));
  return dst;
}

Status grid_sample(const GridSampleDesc& desc, const GridSampleWindow& window,
                   const TensorView& src, const TensorView& grid, const MutableTensorView& dst) {
  GRIDOPS_RETURN_IF_ERROR(validate_view(src, "grid_sample: src"));
  GRIDOPS_RETURN_IF_ERROR(validate_view(grid, "grid_sample: grid"));
  GRIDOPS_ASSIGN_OR_RETURN(GridSamplePlan plan, make_grid_sample_plan(desc, src.dtype, src.shape,
                                                                      grid.dtype, grid.shape,
                                                                      window));
  return plan.run(src, grid, dst);
}

StatusOr<Tensor> grid_sample(const GridSampleDesc& desc, const GridSampleWindow& window,
                             const TensorView& src, const TensorView& grid) {
  GRIDOPS_RETURN_IF_ERROR(validate_view(src, "grid_sample: src"));
  GRIDOPS_RETURN_IF_ERROR(validate_view(grid, "grid_sample: grid"));
  GRIDOPS_ASSIGN_OR_RETURN(GridSamplePlan plan, make_grid_sample_plan(desc, src.dtype, src.shape,
                                                                      grid.dtype, grid.shape,
                                                                      window));
  GRIDOPS_ASSIGN_OR_RETURN(Tensor dst, Tensor::create(src.dtype, plan.dst_shape()));
  GRIDOPS_RETURN_IF_ERROR(plan.run(src, grid, dst.mutable_view()));
  return dst;
}

}  // namespace gridops
