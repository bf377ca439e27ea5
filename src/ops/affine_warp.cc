// AffineWarp operator layer: validation, output shape, input box, plan, implementation
// list. The formulas are AffineGrid's and GridSample's; see docs/ops/affine_warp.md.
#include "gridops/ops/affine_warp.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "core/checked.h"
#include "core/convert.h"
#include "core/overlap.h"
#include "kernels/affine_grid/affine_grid.h"
#include "kernels/affine_warp/affine_warp.h"
#include "ops/affine_warp_impls.h"
#include "ops/dispatch.h"

namespace gridops {

namespace {

constexpr const char* kOp = "affine_warp";

using detail::AffineWarpEntry;
using PlannedWarp = detail::PlannedEntries<AffineWarpEntry>;

std::string ref_declines(const kernels::AffineWarpProblem&) { return {}; }
void ref_run(const kernels::AffineWarpProblem& p, const void*, const kernels::AffineWarpViews& v) {
  kernels::affine_warp_ref(p, v.src, v.theta, v.dst);
}

constexpr AffineWarpEntry kImpls[] = {
#ifdef GRIDOPS_HAVE_HWY
    // The fused Highway kernel; NOTE [ AffineWarp fast path ].
    {.name = "affine_warp.fused",
     .alias = "fast",
     .declines = &kernels::affine_warp_fast_declines,
     .prepare = &kernels::affine_warp_fast_prepare,
     .declines_views = &kernels::affine_warp_fast_declines_views,
     .run = &kernels::affine_warp_fast},
#endif
    {.name = "ref", .declines = &ref_declines, .run = &ref_run},
};

Status validate_desc(const AffineWarpDesc& desc, const char* op = kOp) {
  const int mode = static_cast<int>(desc.mode);
  if (mode < 0 || mode > static_cast<int>(InterpolationMode::kCubic)) {
    return invalid_argument(op, ": mode must be linear, nearest or cubic, got enum value ", mode);
  }
  const int padding = static_cast<int>(desc.padding);
  if (padding < 0 || padding > static_cast<int>(GridPadding::kReflection)) {
    return invalid_argument(op, ": padding_mode must be zeros, border or reflection, got enum "
                            "value ", padding);
  }
  const int layout = static_cast<int>(desc.layout);
  if (layout < 0 || layout > static_cast<int>(ChannelLayout::kChannelsLast)) {
    return invalid_argument(op, ": layout must be channels_first or channels_last, got enum "
                            "value ", layout);
  }
  if (desc.align_corners != 0 && desc.align_corners != 1) {
    return invalid_argument(op, ": align_corners must be 0 or 1, got ", desc.align_corners);
  }
  return Status();
}

size_t first_spatial(ChannelLayout layout) {
  return layout == ChannelLayout::kChannelsFirst ? 2 : 1;
}

std::string expected_theta(int r) {
  return "(N, " + std::to_string(r) + ", " + std::to_string(r + 1) + ")";
}

/// theta's dtype and shape for r spatial axes and batch n.
Status check_theta(DType theta_dtype, std::span<const int64_t> theta_shape, int r, int64_t n,
                   const char* op = kOp) {
  if (static_cast<int>(theta_dtype) >= kNumDTypes || !is_floating(theta_dtype)) {
    return invalid_argument(op, ": theta dtype must be float16, bfloat16, float32 or float64, "
                            "got ", static_cast<int>(theta_dtype) >= kNumDTypes
                                        ? std::string("unknown dtype code ") +
                                              std::to_string(static_cast<int>(theta_dtype))
                                        : std::string(to_string(theta_dtype)));
  }
  if (theta_shape.size() != 3 || theta_shape[1] != r || theta_shape[2] != r + 1 ||
      (n >= 0 && theta_shape[0] != n) || theta_shape[0] < 0) {
    return invalid_argument(op, ": theta must have shape ", expected_theta(r), " for ", r,
                            " spatial axes", n >= 0 ? " and src batch " + std::to_string(n) : "",
                            ", got ", dims_to_string(theta_shape));
  }
  return Status();
}

/// The problem of a validated plan (window fields from the window, else the whole).
kernels::AffineWarpProblem make_problem(const AffineWarpDesc& desc, DType src_dtype,
                                        std::span<const int64_t> src_shape, DType theta_dtype,
                                        std::span<const int64_t> size,
                                        std::span<const int64_t> out_shape,
                                        const AffineWarpWindow* window) {
  kernels::AffineWarpProblem p;
  p.mode = desc.mode;
  p.padding = desc.padding;
  p.align_corners = desc.align_corners == 1;
  p.layout = desc.layout;
  p.src_dtype = src_dtype;
  p.theta_dtype = theta_dtype;
  const int r = static_cast<int>(src_shape.size()) - 2;
  p.spatial_rank = r;
  p.batch = src_shape[0];
  p.channels = desc.layout == ChannelLayout::kChannelsFirst ? src_shape[1] : src_shape.back();
  const size_t fs = first_spatial(desc.layout);
  for (int a = 0; a < r; ++a) {
    const auto i = static_cast<size_t>(a);
    p.in_ext[a] = src_shape[fs + i];
    p.in_full[a] = window ? window->in_full[i] : src_shape[fs + i];
    p.in_origin[a] = window ? window->in_origin[i] : 0;
    p.out_full[a] = size[i];
    p.out_ext[a] = out_shape[i];
    p.out_origin[a] = window ? window->out_origin[i] : 0;
  }
  return p;
}

/// The grid points at the 2^r corners of the output box, shape (N, 2, .., 2, r), theta's
/// dtype, written by AffineGrid's reference (1-point output windows).
StatusOr<Tensor> corner_grid(const TensorView& theta, bool align_corners,
                             std::span<const int64_t> size, std::span<const int64_t> out_origin,
                             std::span<const int64_t> out_shape) {
  const int r = static_cast<int>(size.size());
  Dims shape{theta.shape[0]};
  for (int a = 0; a < r; ++a) shape.push_back(2);
  shape.push_back(r);
  GRIDOPS_ASSIGN_OR_RETURN(Tensor g, Tensor::create(theta.dtype, shape));
  if (theta.shape[0] == 0) return g;
  const MutableTensorView gv = g.mutable_view();
  for (int corner = 0; corner < (1 << r); ++corner) {
    kernels::AffineGridProblem ap;
    ap.dtype = theta.dtype;
    ap.spatial_rank = r;
    ap.align_corners = align_corners;
    ap.batch = theta.shape[0];
    ap.windowed = true;
    Dims idx(static_cast<size_t>(r + 2), 0);
    Dims sub{theta.shape[0]};
    for (int a = 0; a < r; ++a) {
      const bool hi = (corner >> (r - 1 - a)) & 1;
      ap.spatial[a] = 1;
      ap.full[a] = size[static_cast<size_t>(a)];
      ap.origin[a] = out_origin[static_cast<size_t>(a)] +
                     (hi ? out_shape[static_cast<size_t>(a)] - 1 : 0);
      idx[static_cast<size_t>(1 + a)] = hi ? 1 : 0;
      sub.push_back(1);
    }
    sub.push_back(r);
    const MutableTensorView part(theta.dtype, gv.mutable_element_ptr(idx), sub, gv.strides);
    kernels::affine_grid_ref(ap, theta, part);
  }
  return g;
}

bool all_finite(const TensorView& v) {
  const int64_t n = v.num_elements();
  Dims idx(v.shape.size(), 0);
  bool ok = true;
  for (int64_t f = 0; f < n && ok; ++f) {
    int64_t rem = f;
    for (size_t a = v.shape.size(); a-- > 0;) {
      idx[a] = rem % v.shape[a];
      rem /= v.shape[a];
    }
    const void* e = v.element_ptr(idx);
    switch (v.dtype) {
      case DType::kFloat16: ok = std::isfinite(convert::load_real<float>(*static_cast<const float16*>(e))); break;
      case DType::kBFloat16: ok = std::isfinite(convert::load_real<float>(*static_cast<const bfloat16*>(e))); break;
      case DType::kFloat32: ok = std::isfinite(*static_cast<const float*>(e)); break;
      case DType::kFloat64: ok = std::isfinite(*static_cast<const double*>(e)); break;
      default: break;
    }
  }
  return ok;
}

/// affine_warp_input_box for validated arguments.
StatusOr<std::vector<std::pair<int64_t, int64_t>>> input_box(
    const AffineWarpDesc& desc, const TensorView& theta, std::span<const int64_t> in_full,
    std::span<const int64_t> size, std::span<const int64_t> out_origin,
    std::span<const int64_t> out_shape) {
  const int r = static_cast<int>(size.size());
  std::vector<std::pair<int64_t, int64_t>> box(static_cast<size_t>(r), {0, 0});
  for (int a = 0; a < r; ++a) {
    if (out_shape[static_cast<size_t>(a)] == 0) return box;  // nothing is read
  }
  GRIDOPS_ASSIGN_OR_RETURN(const Tensor g, corner_grid(theta, desc.align_corners == 1, size,
                                                       out_origin, out_shape));
  if (!all_finite(theta) || !all_finite(g.view())) {
    for (int a = 0; a < r; ++a) box[static_cast<size_t>(a)] = {0, in_full[static_cast<size_t>(a)]};
    return box;
  }
  GridSampleDesc gd;
  gd.mode = desc.mode;
  gd.padding = desc.padding;
  gd.align_corners = desc.align_corners;
  gd.layout = desc.layout;
  return grid_sample_input_box(gd, in_full, g.view());
}

Status check_sizes(std::span<const int64_t> v, int r, const char* what, const char* op = kOp) {
  if (static_cast<int>(v.size()) != r) {
    return invalid_argument(op, ": ", what, " must have one entry per spatial axis (", r,
                            "), got ", dims_to_string(v));
  }
  for (int64_t x : v) {
    if (x < 0) return invalid_argument(op, ": ", what, " must be >= 0, got ", dims_to_string(v));
  }
  return Status();
}

}  // namespace

namespace detail {
std::span<const AffineWarpEntry> affine_warp_entries() noexcept { return kImpls; }
}  // namespace detail

StatusOr<std::vector<std::pair<int64_t, int64_t>>> affine_warp_input_box(
    const AffineWarpDesc& desc, const TensorView& theta, std::span<const int64_t> in_full,
    std::span<const int64_t> size, std::span<const int64_t> out_origin,
    std::span<const int64_t> out_shape) {
  constexpr const char* op = "affine_warp_input_box";
  GRIDOPS_RETURN_IF_ERROR(validate_desc(desc, op));
  GRIDOPS_RETURN_IF_ERROR(validate_view(theta, "affine_warp_input_box: theta"));
  const int r = static_cast<int>(size.size());
  if (r < 1 || r > 3) {
    return invalid_argument(op, ": size must have 1, 2 or 3 spatial sizes, got ",
                            dims_to_string(size));
  }
  GRIDOPS_RETURN_IF_ERROR(check_theta(theta.dtype, theta.shape, r, -1, op));
  GRIDOPS_RETURN_IF_ERROR(check_sizes(size, r, "size", op));
  GRIDOPS_RETURN_IF_ERROR(check_sizes(in_full, r, "in_full", op));
  GRIDOPS_RETURN_IF_ERROR(check_sizes(out_origin, r, "out_origin", op));
  GRIDOPS_RETURN_IF_ERROR(check_sizes(out_shape, r, "out_shape", op));
  for (int a = 0; a < r; ++a) {
    const auto i = static_cast<size_t>(a);
    int64_t end = 0;
    if (!detail::add_ok(out_origin[i], out_shape[i], &end) || end > size[i]) {
      return invalid_argument(op, ": the output box at ", dims_to_string(out_origin),
                              " with shape ", dims_to_string(out_shape),
                              " must lie inside the output of spatial sizes ",
                              dims_to_string(size), " (axis ", a, ")");
    }
  }
  return input_box(desc, theta, in_full, size, out_origin, out_shape);
}

// --- plan -----------------------------------------------------------------------------

StatusOr<AffineWarpPlan> make_affine_warp_plan(const AffineWarpDesc& desc, DType src_dtype,
                                               std::span<const int64_t> src_shape,
                                               DType theta_dtype,
                                               std::span<const int64_t> theta_shape,
                                               std::span<const int64_t> size) {
  GRIDOPS_RETURN_IF_ERROR(validate_desc(desc));
  if (static_cast<int>(src_dtype) >= kNumDTypes) {
    return invalid_argument(kOp, ": src dtype code ", static_cast<int>(src_dtype),
                            " is not a known dtype");
  }
  if (src_dtype == DType::kString && desc.mode != InterpolationMode::kNearest) {
    return invalid_argument(kOp, ": mode ", to_string(desc.mode),
                            " is not supported for string src (strings support nearest only)");
  }
  const int rank = static_cast<int>(src_shape.size());
  const bool cf = desc.layout == ChannelLayout::kChannelsFirst;
  if (rank < 3 || rank > 5) {
    return invalid_argument(kOp, ": src must have rank 3, 4 or 5 ",
                            cf ? "((N, C, W), (N, C, H, W) or (N, C, D, H, W))"
                               : "((N, W, C), (N, H, W, C) or (N, D, H, W, C))",
                            ", got rank ", rank, " with shape ", dims_to_string(src_shape));
  }
  GRIDOPS_RETURN_IF_ERROR(checked_num_elements(src_shape, "affine_warp: src").status());
  const int r = rank - 2;
  GRIDOPS_RETURN_IF_ERROR(check_theta(theta_dtype, theta_shape, r, src_shape[0]));
  GRIDOPS_RETURN_IF_ERROR(check_sizes(size, r, "size"));
  Dims dst(src_shape.begin(), src_shape.end());
  const size_t fs = first_spatial(desc.layout);
  for (int a = 0; a < r; ++a) dst[fs + static_cast<size_t>(a)] = size[static_cast<size_t>(a)];
  GRIDOPS_ASSIGN_OR_RETURN(const int64_t dst_count, checked_num_elements(dst, "affine_warp: dst"));
  // The reference's grid buffer: N * prod(size) * r elements of theta's dtype.
  Dims grid_shape{src_shape[0]};
  for (int a = 0; a < r; ++a) grid_shape.push_back(size[static_cast<size_t>(a)]);
  grid_shape.push_back(r * static_cast<int64_t>(dtype_size(theta_dtype)));
  GRIDOPS_RETURN_IF_ERROR(checked_num_elements(grid_shape, "affine_warp: grid (bytes)").status());
  // ERRATA GridSample 9: an empty input axis has nothing to clamp or reflect to.
  if (dst_count > 0 && desc.padding != GridPadding::kZeros) {
    for (int a = 0; a < r; ++a) {
      if (src_shape[fs + static_cast<size_t>(a)] == 0) {
        return invalid_argument(kOp, ": src spatial axis ", fs + static_cast<size_t>(a),
                                " has length 0 in shape ", dims_to_string(src_shape),
                                "; padding_mode ", to_string(desc.padding),
                                " needs at least 1 element to sample (only zeros allows an "
                                "empty input axis with a non-empty output)");
      }
    }
  }
  const kernels::AffineWarpProblem problem =
      make_problem(desc, src_dtype, src_shape, theta_dtype, size, size, nullptr);
  GRIDOPS_ASSIGN_OR_RETURN(
      std::shared_ptr<const PlannedWarp> planned,
      detail::plan_entries(kOp, std::span<const AffineWarpEntry>(kImpls), problem, desc.impl));
  AffineWarpPlan plan;
  plan.desc_ = desc;
  plan.src_dtype_ = src_dtype;
  plan.theta_dtype_ = theta_dtype;
  plan.src_shape_.assign(src_shape.begin(), src_shape.end());
  plan.theta_shape_.assign(theta_shape.begin(), theta_shape.end());
  plan.size_.assign(size.begin(), size.end());
  plan.dst_shape_ = std::move(dst);
  plan.impl_name_ = planned->chosen().name;
  plan.impl_ = &planned->chosen();
  plan.planned_ = std::move(planned);
  return plan;
}

StatusOr<AffineWarpPlan> make_affine_warp_plan(const AffineWarpDesc& desc, DType src_dtype,
                                               std::span<const int64_t> src_shape,
                                               DType theta_dtype,
                                               std::span<const int64_t> theta_shape,
                                               std::span<const int64_t> size,
                                               std::span<const int64_t> out_shape,
                                               const AffineWarpWindow& window) {
  GRIDOPS_RETURN_IF_ERROR(validate_desc(desc));
  const int rank = static_cast<int>(src_shape.size());
  if (rank < 3 || rank > 5) {
    return make_affine_warp_plan(desc, src_dtype, src_shape, theta_dtype, theta_shape, size);
  }
  const int r = rank - 2;
  GRIDOPS_RETURN_IF_ERROR(check_sizes(size, r, "size"));
  GRIDOPS_RETURN_IF_ERROR(check_sizes(out_shape, r, "window out_shape"));
  GRIDOPS_RETURN_IF_ERROR(check_sizes(window.out_origin, r, "window out_origin"));
  GRIDOPS_RETURN_IF_ERROR(check_sizes(window.in_full, r, "window in_full"));
  GRIDOPS_RETURN_IF_ERROR(check_sizes(window.in_origin, r, "window in_origin"));
  const size_t fs = first_spatial(desc.layout);
  Dims full_src(src_shape.begin(), src_shape.end());
  for (int a = 0; a < r; ++a) {
    const auto i = static_cast<size_t>(a);
    int64_t end = 0;
    const int64_t ext = src_shape[fs + i];
    if (ext < 0 || !detail::add_ok(window.in_origin[i], ext, &end) || end > window.in_full[i]) {
      return invalid_argument(kOp, ": window: src (spatial sizes ",
                              dims_to_string(std::span<const int64_t>(
                                  src_shape.begin() + static_cast<std::ptrdiff_t>(fs),
                                  static_cast<size_t>(r))),
                              ") at in_origin ", dims_to_string(window.in_origin),
                              " must lie inside the full input of spatial sizes ",
                              dims_to_string(window.in_full), " (axis ", a, ")");
    }
    if (!detail::add_ok(window.out_origin[i], out_shape[i], &end) || end > size[i]) {
      return invalid_argument(kOp, ": window: the output box at out_origin ",
                              dims_to_string(window.out_origin), " with shape ",
                              dims_to_string(out_shape), " must lie inside the output of "
                              "spatial sizes ", dims_to_string(size), " (axis ", a, ")");
    }
    full_src[fs + i] = window.in_full[i];
  }
  // Validated and planned as the whole problem: the implementation is the one the
  // unwindowed operator picks.
  GRIDOPS_ASSIGN_OR_RETURN(AffineWarpPlan plan, make_affine_warp_plan(desc, src_dtype, full_src,
                                                                      theta_dtype, theta_shape,
                                                                      size));
  plan.src_shape_.assign(src_shape.begin(), src_shape.end());
  for (int a = 0; a < r; ++a) plan.dst_shape_[fs + static_cast<size_t>(a)] = out_shape[static_cast<size_t>(a)];
  plan.windowed_ = true;
  plan.window_ = window;
  // The tables of the output box, for the entry the whole problem chose.
  const kernels::AffineWarpProblem problem =
      make_problem(desc, src_dtype, plan.src_shape_, theta_dtype, size, out_shape, &window);
  GRIDOPS_ASSIGN_OR_RETURN(
      std::shared_ptr<const PlannedWarp> planned,
      detail::plan_entries(kOp, std::span<const AffineWarpEntry>(kImpls), problem,
                           plan.impl_name_));
  plan.impl_ = &planned->chosen();
  plan.planned_ = std::move(planned);
  return plan;
}

Status AffineWarpPlan::run(const TensorView& src, const TensorView& theta,
                           const MutableTensorView& dst) const {
  if (impl_ == nullptr) {
    return invalid_argument(kOp, ": plan is empty (make it with make_affine_warp_plan)");
  }
  GRIDOPS_RETURN_IF_ERROR(expect_view(src, "affine_warp: src", src_dtype_, src_shape_));
  GRIDOPS_RETURN_IF_ERROR(expect_view(theta, "affine_warp: theta", theta_dtype_, theta_shape_));
  GRIDOPS_RETURN_IF_ERROR(expect_view(dst, "affine_warp: dst", src_dtype_, dst_shape_));
  GRIDOPS_RETURN_IF_ERROR(detail::check_no_overlap(kOp, "dst", dst, "src", src));
  GRIDOPS_RETURN_IF_ERROR(detail::check_no_overlap(kOp, "dst", dst, "theta", theta));
  if (dst.num_elements() == 0) return Status();
  const int r = static_cast<int>(size_.size());
  const size_t fs = first_spatial(desc_.layout);
  const Dims out_shape(dst_shape_.begin() + static_cast<std::ptrdiff_t>(fs),
                       dst_shape_.begin() + static_cast<std::ptrdiff_t>(fs) + r);
  if (windowed_) {
    // Every tap must lie in src's box: the box of affine_warp_input_box.
    const Dims ext(src_shape_.begin() + static_cast<std::ptrdiff_t>(fs),
                   src_shape_.begin() + static_cast<std::ptrdiff_t>(fs) + r);
    GRIDOPS_ASSIGN_OR_RETURN(const auto box, input_box(desc_, theta, window_.in_full, size_,
                                                       window_.out_origin, out_shape));
    for (int a = 0; a < r; ++a) {
      const auto i = static_cast<size_t>(a);
      const int64_t o = window_.in_origin[i];
      if (box[i].first < box[i].second &&
          (box[i].first < o || box[i].second > o + ext[i])) {
        return invalid_argument(
            kOp, ": the output box needs input positions [", box[i].first, ", ", box[i].second,
            ") on spatial axis ", a, " of the full input (spatial sizes ",
            dims_to_string(window_.in_full), ", interpolation margin included: "
            "affine_warp_input_box), but the window (src) covers only [", o, ", ", o + ext[i],
            ")");
      }
    }
  }
  const kernels::AffineWarpProblem problem =
      make_problem(desc_, src_dtype_, src_shape_, theta_dtype_, size_, out_shape,
                   windowed_ ? &window_ : nullptr);
  return detail::run_entries(kOp, *static_cast<const PlannedWarp*>(planned_.get()), problem,
                             kernels::AffineWarpViews{src, theta, dst});
}

// --- one-shot wrappers ----------------------------------------------------------------

Status affine_warp(const AffineWarpDesc& desc, const TensorView& src, const TensorView& theta,
                   std::span<const int64_t> size, const MutableTensorView& dst) {
  GRIDOPS_RETURN_IF_ERROR(validate_view(src, "affine_warp: src"));
  GRIDOPS_RETURN_IF_ERROR(validate_view(theta, "affine_warp: theta"));
  GRIDOPS_ASSIGN_OR_RETURN(AffineWarpPlan plan, make_affine_warp_plan(desc, src.dtype, src.shape,
                                                                      theta.dtype, theta.shape,
                                                                      size));
  return plan.run(src, theta, dst);
}

StatusOr<Tensor> affine_warp(const AffineWarpDesc& desc, const TensorView& src,
                             const TensorView& theta, std::span<const int64_t> size) {
  GRIDOPS_RETURN_IF_ERROR(validate_view(src, "affine_warp: src"));
  GRIDOPS_RETURN_IF_ERROR(validate_view(theta, "affine_warp: theta"));
  GRIDOPS_ASSIGN_OR_RETURN(AffineWarpPlan plan, make_affine_warp_plan(desc, src.dtype, src.shape,
                                                                      theta.dtype, theta.shape,
                                                                      size));
  GRIDOPS_ASSIGN_OR_RETURN(Tensor dst, Tensor::create(src.dtype, plan.dst_shape()));
  GRIDOPS_RETURN_IF_ERROR(plan.run(src, theta, dst.mutable_view()));
  return dst;
}

}  // namespace gridops
