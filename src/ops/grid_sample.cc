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

namespace gridops {

namespace {

constexpr const char* kOp = "grid_sample";

/// The reference takes every valid problem.
std::string ref_declines(const kernels::GridSampleProblem&) { return {}; }

/// Entries without plan-time tables.
void ref_run(const kernels::GridSampleProblem& p, const void*, const TensorView& src,
             const TensorView& grid, const MutableTensorView& dst) {
  kernels::grid_sample_ref(p, src, grid, dst);
}
#ifdef GRIDOPS_HAVE_HWY
void u8_run(const kernels::GridSampleProblem& p, const void*, const TensorView& src,
            const TensorView& grid, const MutableTensorView& dst) {
  kernels::grid_sample_u8(p, src, grid, dst);
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
/// Fast kernels go before the reference; the first that accepts runs.
constexpr GridSampleImpl kImpls[] = {
#ifdef GRIDOPS_HAVE_HWY
// One entry per path of the fast kernel (Highway SIMD, threaded; docs/ops/grid_sample.md,
// "Fast path"), most specialized first; they share their plan-time tables
// (grid_sample_fast_prepare).
#define GRIDOPS_GRID_SAMPLE_PATH(name)                                               \
  {"grid_sample." #name, "fast", kernels::grid_sample_##name##_declines,             \
   kernels::grid_sample_fast_prepare, kernels::grid_sample_##name##_declines_views, \
   kernels::grid_sample_##name##_run}
    // uint8 images with 1-4 channels, 2-D; docs/ops/grid_sample.md, "uint8 few-channel path".
    {"grid_sample.u8_few_channels", "fast", kernels::grid_sample_u8_declines, nullptr, nullptr,
     u8_run},
    GRIDOPS_GRID_SAMPLE_PATH(blocked),
    GRIDOPS_GRID_SAMPLE_PATH(fused_small_c),
    GRIDOPS_GRID_SAMPLE_PATH(pairs),
    GRIDOPS_GRID_SAMPLE_PATH(channels),
    GRIDOPS_GRID_SAMPLE_PATH(generic),
#undef GRIDOPS_GRID_SAMPLE_PATH
#endif
    {"ref", nullptr, ref_declines, nullptr, nullptr, ref_run},
};
}  // namespace

std::span<const GridSampleImpl> grid_sample_impls() noexcept { return kImpls; }

}  // namespace detail

namespace {

using detail::GridSampleImpl;
using grid_sample_common::expected_grid_shape;
using grid_sample_common::make_problem;
using grid_sample_common::output_shape;
using grid_sample_common::validate_desc;

// --- validation helpers -------------------------------------------------------------

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

/// The input box of grid_sample_input_box for a validated desc, full sizes and grid view
/// (rank r + 2, last axis r, floating dtype), with (-1, -1) for an axis without taps.
///
/// One pass over the grid keeps, per axis, the smallest and largest finite coordinate and
/// whether NaN, +inf or -inf occur; only those are turned into taps. That is exact for the
/// hull of the taps because every step is monotone (non-decreasing) in the coordinate: the
/// unnormalization (each rounded operation is), floor and round-half-even, the conversion
/// to an index (saturating), and clamping; zeros padding drops taps outside, which stay
/// outside the clipped hull. Reflection folds the raw hull's overhangs back once (the
/// whole axis when the raw taps reach beyond one fold).
template <class GridT>
std::vector<std::pair<int64_t, int64_t>> input_box_typed(const GridSampleDesc& desc,
                                                         std::span<const int64_t> full,
                                                         const TensorView& grid) {
  // The reference's coordinate precision (ERRATA GridSample 2); the fast path takes only
  // float, half and bfloat16 grids, whose coordinates are float there too.
  using G = std::conditional_t<std::is_same_v<GridT, double>, double, float>;
  const int r = static_cast<int>(full.size());
  const int K = desc.mode == InterpolationMode::kNearest  ? 1
                : desc.mode == InterpolationMode::kLinear ? 2
                                                          : 4;
  const bool ac = desc.align_corners == 1;
  const auto ur = static_cast<size_t>(r);
  std::vector<G> gmin(ur, std::numeric_limits<G>::infinity());
  std::vector<G> gmax(ur, -std::numeric_limits<G>::infinity());
  std::vector<char> has_nan(ur, 0), has_pinf(ur, 0), has_ninf(ur, 0);
  const Dims& shape = grid.shape;
  const Dims& st = grid.strides;
  int64_t points = 1;
  for (int d = 0; d <= r; ++d) points *= shape[static_cast<size_t>(d)];
  const GridT* base = static_cast<const GridT*>(grid.data);
  const int64_t cstride = st[ur + 1];
  // A dense grid: one flat, branch-free pass (each point's r coordinates are adjacent).
  bool dense = true;
  {
    int64_t expect = 1;
    for (size_t d = ur + 2; d-- > 0;) {
      if (shape[d] > 1 && st[d] != expect) dense = false;
      expect *= shape[d];
    }
  }
  if (dense && r <= 3) {
    const G inf = std::numeric_limits<G>::infinity();
    G lo3[3] = {inf, inf, inf}, hi3[3] = {-inf, -inf, -inf};
    bool nan3[3] = {false, false, false}, pinf3[3] = {false, false, false},
         ninf3[3] = {false, false, false};
    for (int64_t q = 0; q < points; ++q) {
      const GridT* pt = base + q * r;
      for (int c = 0; c < r; ++c) {  // component c belongs to axis r - 1 - c
        const G g = convert::load_real<G>(pt[c]);
        const bool finite = g - g == G(0);  // false for NaN and inf
        lo3[c] = finite && g < lo3[c] ? g : lo3[c];
        hi3[c] = finite && g > hi3[c] ? g : hi3[c];
        nan3[c] = nan3[c] || g != g;
        pinf3[c] = pinf3[c] || g == inf;
        ninf3[c] = ninf3[c] || g == -inf;
      }
    }
    for (int c = 0; c < r; ++c) {
      const auto i = static_cast<size_t>(r - 1 - c);
      gmin[i] = lo3[c];
      gmax[i] = hi3[c];
      has_nan[i] = nan3[c];
      has_pinf[i] = pinf3[c];
      has_ninf[i] = ninf3[c];
    }
    points = 0;  // the strided pass below has nothing left to do
  }
  Dims idx(ur + 1, 0);  // (n, o_1..o_r)
  int64_t off = 0;
  for (int64_t q = 0; q < points; ++q) {
    for (int d = 0; d < r; ++d) {
      const G g = convert::load_real<G>(base[off + static_cast<int64_t>(r - 1 - d) * cstride]);
      const auto i = static_cast<size_t>(d);
      if (std::isnan(g)) {
        has_nan[i] = 1;
      } else if (std::isinf(g)) {
        (g > G(0) ? has_pinf : has_ninf)[i] = 1;
      } else {
        gmin[i] = std::min(gmin[i], g);
        gmax[i] = std::max(gmax[i], g);
      }
    }
    for (int d = r; d >= 0; --d) {
      const auto i = static_cast<size_t>(d);
      off += st[i];
      if (++idx[i] < shape[i]) break;
      off -= st[i] * shape[i];
      idx[i] = 0;
    }
  }
  std::vector<std::pair<int64_t, int64_t>> box(ur);
  for (size_t i = 0; i < ur; ++i) {
    const int64_t len = full[i];
    box[i] = {-1, -1};
    if (len == 0) continue;  // only zeros padding allows it: nothing is read
    // The coordinates whose taps bound every point's taps (ERRATA GridSample 8 for the
    // non-finite ones: zeros reads nothing; border takes the nearest edge for inf and 0
    // for NaN; reflection takes 0).
    std::vector<G> xs;
    if (gmin[i] <= gmax[i]) {
      xs.push_back(coords::unnormalize(gmin[i], len, ac));
      xs.push_back(coords::unnormalize(gmax[i], len, ac));
    }
    if (desc.padding != GridPadding::kZeros) {
      if (has_nan[i] || has_ninf[i]) xs.push_back(G(0));
      if (has_pinf[i]) {
        xs.push_back(desc.padding == GridPadding::kBorder ? static_cast<G>(len - 1) : G(0));
      }
    }
    if (xs.empty()) continue;
    G xlo = xs[0], xhi = xs[0];
    bool nonfinite = false;
    for (G x : xs) {
      if (!std::isfinite(x)) nonfinite = true;  // a finite g unnormalized to inf
      xlo = std::min(xlo, x);
      xhi = std::max(xhi, x);
    }
    auto raw = [&](G x, bool low) -> int64_t {
      if (desc.mode == InterpolationMode::kNearest) return coords::to_index(coords::round_half_even(x));
      const int64_t f = coords::to_index(std::floor(x));
      if (desc.mode == InterpolationMode::kLinear) return low ? f : f + 1;
      return low ? f - 1 : f + 2;
    };
    int64_t lo = raw(xlo, true), hi = raw(xhi, false);
    switch (desc.padding) {
      case GridPadding::kZeros:
        lo = std::max<int64_t>(lo, 0);
        hi = std::min<int64_t>(hi, len - 1);
        if (lo > hi) continue;
        break;
      case GridPadding::kBorder:
        lo = std::clamp<int64_t>(lo, 0, len - 1);
        hi = std::clamp<int64_t>(hi, 0, len - 1);
        break;
      case GridPadding::kReflection: {
        // One fold at most (raw taps within one period around the input): the raw hull's
        // inside part plus its mirrored overhangs (i < 0 -> -i - 1, i >= len -> 2 len - 1 - i;
        // with align_corners -i and 2 (len - 1) - i). Otherwise the whole axis.
        const int64_t first = ac ? -(len - 1) : -len, last = ac ? 2 * (len - 1) : 2 * len - 1;
        if (nonfinite || len == 1 || lo < first || hi > last) {
          lo = 0;
          hi = len - 1;
          break;
        }
        int64_t a = std::max<int64_t>(lo, 0), b = std::min<int64_t>(hi, len - 1);
        if (lo < 0) {
          a = 0;
          b = std::max(b, ac ? -lo : -lo - 1);
        }
        if (hi > len - 1) {
          b = len - 1;
          a = std::min(a, ac ? 2 * (len - 1) - hi : 2 * len - 1 - hi);
        }
        lo = a;
        hi = b;
        break;
      }
    }
    // Widened by K - 1 (the fast path's x windows) and clipped.
    box[i] = {std::max<int64_t>(0, lo - (K - 1)), std::min<int64_t>(len, hi + K)};
  }
  return box;
}

int taps_per_axis(InterpolationMode m) {
  return m == InterpolationMode::kNearest ? 1 : m == InterpolationMode::kLinear ? 2 : 4;
}

/// input_box_typed for a validated desc, full sizes and any grid view of the right rank.
StatusOr<std::vector<std::pair<int64_t, int64_t>>> raw_input_box(const GridSampleDesc& desc,
                                                                 std::span<const int64_t> full,
                                                                 const TensorView& grid) {
  switch (grid.dtype) {
    case DType::kFloat16: return input_box_typed<float16>(desc, full, grid);
    case DType::kBFloat16: return input_box_typed<bfloat16>(desc, full, grid);
    case DType::kFloat32: return input_box_typed<float>(desc, full, grid);
    case DType::kFloat64: return input_box_typed<double>(desc, full, grid);
    default: break;
  }
  return invalid_argument("grid_sample_input_box: grid dtype must be float16, bfloat16, "
                          "float32 or float64, got ", to_string(grid.dtype));
}

}  // namespace

StatusOr<std::vector<std::pair<int64_t, int64_t>>> grid_sample_input_box(
    const GridSampleDesc& desc, std::span<const int64_t> full, const TensorView& grid) {
  constexpr const char* op = "grid_sample_input_box";
  GRIDOPS_RETURN_IF_ERROR(validate_desc(desc, op));
  GRIDOPS_RETURN_IF_ERROR(validate_view(grid, "grid_sample_input_box: grid"));
  const int r = static_cast<int>(full.size());
  if (r < 1 || r + 2 > kMaxRank) {
    return invalid_argument(op, ": full must have 1 to ", kMaxRank - 2,
                            " spatial sizes, got ", r);
  }
  for (int d = 0; d < r; ++d) {
    if (full[static_cast<size_t>(d)] < 0) {
      return invalid_argument(op, ": full sizes must be >= 0, got ", dims_to_string(full));
    }
  }
  if (static_cast<int>(grid.shape.size()) != r + 1 + 1 || grid.shape.back() != r) {
    return invalid_argument(op, ": grid must have shape ", expected_grid_shape(r), " for ", r,
                            " spatial axes, got ", dims_to_string(grid.shape));
  }
  GRIDOPS_ASSIGN_OR_RETURN(auto box, raw_input_box(desc, full, grid));
  for (size_t d = 0; d < box.size(); ++d) {
    if (box[d].first < 0) box[d] = {0, std::min<int64_t>(full[d], taps_per_axis(desc.mode))};
  }
  return box;
}

namespace {

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
  }
  return "unknown";
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
  return invalid_argument(kOp, ": padding_mode must be one of zeros, border, reflection, got '", s,
                          "'");
}

// --- shapes -------------------------------------------------------------------------------

StatusOr<Dims> grid_sample_output_shape(const GridSampleDesc& desc, std::span<const int64_t> src_shape,
                                        std::span<const int64_t> grid_shape) {
  return output_shape(kOp, desc, src_shape, grid_shape);
}

namespace {

/// Picks the forward entry for a problem; "fast" (every fast entry's alias) picks the first
/// fast entry that takes it.
StatusOr<const GridSampleImpl*> select_forward(std::string_view forced,
                                               const kernels::GridSampleProblem& problem) {
  return detail::select_impl<GridSampleImpl>(kOp, detail::grid_sample_impls(), problem, forced);
}

}  // namespace

// --- plan -----------------------------------------------------------------------------

namespace {

/// The plan-time tables of `impl` for the problem, if it has any.
Status prepare_impl(const GridSampleImpl& impl, const kernels::GridSampleProblem& problem,
                    std::shared_ptr<const void>* prepared) {
  prepared->reset();
  if (impl.prepare == nullptr) return Status();
  try {
    *prepared = impl.prepare(problem);
  } catch (const std::bad_alloc&) {
    return Status(StatusCode::kOutOfMemory,
                  std::string(kOp) + ": out of memory for the plan's tables");
  }
  return Status();
}

/// Runs the plan's entry, or, where it cannot take these views (its declines_views; only a
/// run sees the strides), the next entry of the list that takes the problem and the views
/// ("ref", last, takes every view), each step logged under GRIDOPS_VERBOSE=dispatch. An
/// entry with other plan-time tables than the plan's gets its own for this run.
Status run_impl(const GridSampleImpl* impl, const void* prepared,
                const kernels::GridSampleProblem& problem, const TensorView& src,
                const TensorView& grid, const MutableTensorView& dst) {
  return detail::run_kernel_guarded(kOp, [&] {
    std::shared_ptr<const void> own;
    auto* tables_of = impl->prepare;  // the prepare function whose tables `prepared` are
    for (;;) {
      if (impl->declines_views == nullptr) break;
      const std::string why = impl->declines_views(problem, prepared, src, grid, dst);
      if (why.empty()) break;
      // The next entry that takes the problem ("ref", last, declines nothing); entries with
      // the same tables that decline these views for the same reason (src offsets beyond
      // int32 for every fast path) are passed over in the same step.
      const GridSampleImpl* next = impl + 1;
      for (;; ++next) {
        if (!next->declines(problem).empty()) continue;
        if (next->declines_views != nullptr && next->prepare == tables_of &&
            next->declines_views(problem, prepared, src, grid, dst) == why) {
          continue;
        }
        break;
      }
      if (detail::dispatch_verbose()) {
        std::fprintf(stderr,
                     "[gridops] %s: '%s' cannot take these views (%s): running '%s'\n", kOp,
                     impl->name, why.c_str(), next->name);
      }
      if (next->prepare != tables_of) {
        own = next->prepare != nullptr ? next->prepare(problem) : nullptr;
        prepared = own.get();
        tables_of = next->prepare;
      }
      impl = next;
    }
    impl->run(problem, prepared, src, grid, dst);
  });
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
  GRIDOPS_ASSIGN_OR_RETURN(const GridSampleImpl* impl, select_forward(desc.impl, problem));

  GridSamplePlan plan;
  plan.desc_ = desc;
  plan.src_dtype_ = src_dtype;
  plan.grid_dtype_ = grid_dtype;
  plan.src_shape_.assign(src_shape.begin(), src_shape.end());
  plan.grid_shape_.assign(grid_shape.begin(), grid_shape.end());
  plan.dst_shape_ = std::move(dst_shape);
  plan.impl_name_ = impl->name;
  plan.impl_ = impl;
  GRIDOPS_RETURN_IF_ERROR(prepare_impl(*impl, problem, &plan.prepared_));
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
    return run_impl(static_cast<const GridSampleImpl*>(impl_), prepared_.get(), problem, src,
                    grid, dst);
  }
  // Input window: the problem of the full input, reading src's box; first a pass over the
  // grid checks that every tap any implementation reads lies in the box.
  const Dims extent = spatial_sizes(src_shape_, desc_.layout);
  GRIDOPS_ASSIGN_OR_RETURN(const auto box, raw_input_box(desc_, window_.full, grid));
  for (size_t d = 0; d < box.size(); ++d) {
    const int64_t o = window_.origin[d];
    if (box[d].first < 0) {
      // No tap inside the full input on this axis: nothing is read with a nonzero weight;
      // the fast path's zero-weight reads need a box of min(full, K) elements.
      const int64_t need = std::min<int64_t>(window_.full[d], taps_per_axis(desc_.mode));
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
  return run_impl(static_cast<const GridSampleImpl*>(impl_), prepared_.get(), problem, src, grid,
                  dst);
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
  GRIDOPS_ASSIGN_OR_RETURN(const GridSampleImpl* impl, select_forward(desc.impl, problem));
  GridSamplePlan plan;
  plan.desc_ = desc;
  plan.src_dtype_ = src_dtype;
  plan.grid_dtype_ = grid_dtype;
  plan.grid_shape_.assign(grid_shape.begin(), grid_shape.end());
  plan.dst_shape_ = std::move(dst_shape);
  plan.impl_name_ = impl->name;
  plan.impl_ = impl;
  GRIDOPS_RETURN_IF_ERROR(prepare_impl(*impl, problem, &plan.prepared_));
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
