// Resize's names (to_string, parse_*), enum checks and per-axis geometry (resize_axes,
// resize_output_shape): what make_resize_plan and the shape functions share. See
// docs/ops/resize.md.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/checked.h"
#include "gridops/ops/resize.h"
#include "ops/resize_impls.h"

namespace gridops {
namespace {

constexpr const char* kOp = "resize";

/// 2^63, the first double beyond int64.
constexpr double kTwo63 = 9223372036854775808.0;

}  // namespace

namespace detail {

// --- validation -------------------------------------------------------------------------

Status resize_validate_enums(const ResizeDesc& d) {
  const int mode = static_cast<int>(d.mode);
  if (mode < 0 || mode > static_cast<int>(ResizeMode::kCubic)) {
    return invalid_argument(kOp, ": mode must be nearest, linear or cubic, got enum value ", mode);
  }
  const int cm = static_cast<int>(d.coordinate_mode);
  if (cm < 0 || cm > static_cast<int>(ResizeCoordinateMode::kTfCropAndResize)) {
    return invalid_argument(kOp, ": coordinate_transformation_mode must be one of half_pixel, "
                            "half_pixel_symmetric, pytorch_half_pixel, align_corners, asymmetric, "
                            "tf_half_pixel_for_nn, tf_crop_and_resize, got enum value ", cm);
  }
  const int nm = static_cast<int>(d.nearest_mode);
  if (nm < 0 || nm > static_cast<int>(ResizeNearestMode::kSimple)) {
    return invalid_argument(kOp, ": nearest_mode must be one of round_prefer_floor, "
                            "round_prefer_ceil, floor, ceil, simple, got enum value ", nm);
  }
  const int ap = static_cast<int>(d.aspect_policy);
  if (ap < 0 || ap > static_cast<int>(ResizeAspectPolicy::kNotSmaller)) {
    return invalid_argument(kOp, ": keep_aspect_ratio_policy must be stretch, not_larger or "
                            "not_smaller, got enum value ", ap);
  }
  if (!std::isfinite(d.cubic_coeff_a)) {
    return invalid_argument(kOp, ": cubic_coeff_a must be finite, got ", d.cubic_coeff_a);
  }
  if (d.antialias && d.mode == ResizeMode::kNearest) {
    return invalid_argument(kOp, ": antialias applies to linear and cubic only, got mode nearest "
                            "with antialias");
  }
  return Status();
}

}  // namespace detail

// --- names ------------------------------------------------------------------------------

const char* to_string(ResizeMode m) noexcept {
  switch (m) {
    case ResizeMode::kNearest: return "nearest";
    case ResizeMode::kLinear: return "linear";
    case ResizeMode::kCubic: return "cubic";
  }
  return "unknown";
}

const char* to_string(ResizeCoordinateMode m) noexcept {
  switch (m) {
    case ResizeCoordinateMode::kHalfPixel: return "half_pixel";
    case ResizeCoordinateMode::kHalfPixelSymmetric: return "half_pixel_symmetric";
    case ResizeCoordinateMode::kPytorchHalfPixel: return "pytorch_half_pixel";
    case ResizeCoordinateMode::kAlignCorners: return "align_corners";
    case ResizeCoordinateMode::kAsymmetric: return "asymmetric";
    case ResizeCoordinateMode::kTfHalfPixelForNN: return "tf_half_pixel_for_nn";
    case ResizeCoordinateMode::kTfCropAndResize: return "tf_crop_and_resize";
  }
  return "unknown";
}

const char* to_string(ResizeNearestMode m) noexcept {
  switch (m) {
    case ResizeNearestMode::kRoundPreferFloor: return "round_prefer_floor";
    case ResizeNearestMode::kRoundPreferCeil: return "round_prefer_ceil";
    case ResizeNearestMode::kFloor: return "floor";
    case ResizeNearestMode::kCeil: return "ceil";
    case ResizeNearestMode::kSimple: return "simple";
  }
  return "unknown";
}

const char* to_string(ResizeAspectPolicy p) noexcept {
  switch (p) {
    case ResizeAspectPolicy::kStretch: return "stretch";
    case ResizeAspectPolicy::kNotLarger: return "not_larger";
    case ResizeAspectPolicy::kNotSmaller: return "not_smaller";
  }
  return "unknown";
}

StatusOr<ResizeMode> parse_resize_mode(std::string_view s) {
  if (s == "nearest") return ResizeMode::kNearest;
  if (s == "linear" || s == "bilinear" || s == "trilinear") return ResizeMode::kLinear;
  if (s == "cubic" || s == "bicubic") return ResizeMode::kCubic;
  return invalid_argument(kOp, ": mode must be one of nearest, linear, cubic, got '", s, "'");
}

StatusOr<ResizeCoordinateMode> parse_resize_coordinate_mode(std::string_view s) {
  for (int i = 0; i <= static_cast<int>(ResizeCoordinateMode::kTfCropAndResize); ++i) {
    const auto m = static_cast<ResizeCoordinateMode>(i);
    if (s == to_string(m)) return m;
  }
  return invalid_argument(kOp, ": coordinate_transformation_mode must be one of half_pixel, "
                          "half_pixel_symmetric, pytorch_half_pixel, align_corners, asymmetric, "
                          "tf_half_pixel_for_nn, tf_crop_and_resize, got '", s, "'");
}

StatusOr<ResizeNearestMode> parse_resize_nearest_mode(std::string_view s) {
  for (int i = 0; i <= static_cast<int>(ResizeNearestMode::kSimple); ++i) {
    const auto m = static_cast<ResizeNearestMode>(i);
    if (s == to_string(m)) return m;
  }
  return invalid_argument(kOp, ": nearest_mode must be one of round_prefer_floor, "
                          "round_prefer_ceil, floor, ceil, simple, got '", s, "'");
}

StatusOr<ResizeAspectPolicy> parse_resize_aspect_policy(std::string_view s) {
  if (s == "stretch") return ResizeAspectPolicy::kStretch;
  if (s == "not_larger") return ResizeAspectPolicy::kNotLarger;
  if (s == "not_smaller") return ResizeAspectPolicy::kNotSmaller;
  return invalid_argument(kOp, ": keep_aspect_ratio_policy must be one of stretch, not_larger, "
                          "not_smaller, got '", s, "'");
}

// --- geometry ---------------------------------------------------------------------------

StatusOr<std::vector<ResizeAxis>> resize_axes(const ResizeDesc& d,
                                              std::span<const int64_t> src_shape) {
  GRIDOPS_RETURN_IF_ERROR(detail::resize_validate_enums(d));
  const int rank = static_cast<int>(src_shape.size());
  if (rank > kMaxRank) {
    return invalid_argument(kOp, ": src rank must be <= ", kMaxRank, ", got ", rank);
  }
  GRIDOPS_RETURN_IF_ERROR(checked_num_elements(src_shape, "resize: src").status());
  std::vector<int> axes;
  if (d.axes.empty()) {
    for (int a = 0; a < rank; ++a) axes.push_back(a);
  } else {
    std::vector<bool> seen(static_cast<size_t>(rank), false);
    for (int64_t a : d.axes) {
      if (a < -rank || a >= rank) {
        return invalid_argument(kOp, ": axes entry ", a, " is out of range [", -rank, ", ",
                                rank - 1, "] for src shape ", dims_to_string(src_shape));
      }
      const int64_t n = a < 0 ? a + rank : a;
      if (seen[static_cast<size_t>(n)]) {
        return invalid_argument(kOp, ": axis ", n, " appears more than once in axes ",
                                dims_to_string(d.axes));
      }
      seen[static_cast<size_t>(n)] = true;
      axes.push_back(static_cast<int>(n));
    }
  }
  const size_t n = axes.size();
  const bool has_scales = !d.scales.empty(), has_sizes = !d.sizes.empty();
  if (has_scales && has_sizes) {
    return invalid_argument(kOp, ": exactly one of scales and sizes must be given, got both");
  }
  if (!has_scales && !has_sizes && n > 0) {
    return invalid_argument(kOp, ": exactly one of scales and sizes must be given, got neither");
  }
  if (has_scales && d.scales.size() != n) {
    return invalid_argument(kOp, ": scales must have one entry per resized axis (", n,
                            "), got ", d.scales.size());
  }
  if (has_sizes && d.sizes.size() != n) {
    return invalid_argument(kOp, ": sizes must have one entry per resized axis (", n, "), got ",
                            d.sizes.size());
  }
  const bool crop = d.coordinate_mode == ResizeCoordinateMode::kTfCropAndResize;
  if (crop && !d.roi.empty()) {
    if (d.roi.size() != 2 * n) {
      return invalid_argument(kOp, ": roi must have 2 entries per resized axis (", 2 * n,
                              ": starts then ends), got ", d.roi.size());
    }
    for (size_t k = 0; k < d.roi.size(); ++k) {
      if (!std::isfinite(d.roi[k])) {
        return invalid_argument(kOp, ": roi entry ", k, " must be finite, got ", d.roi[k]);
      }
    }
  }

  std::vector<ResizeAxis> out(static_cast<size_t>(rank));
  for (int a = 0; a < rank; ++a) {
    ResizeAxis& ax = out[static_cast<size_t>(a)];
    ax.in = ax.out = src_shape[static_cast<size_t>(a)];
    ax.length = static_cast<double>(ax.in);
  }
  auto fits = [&](double o, size_t k) -> Status {
    if (!(o < kTwo63)) {
      return invalid_argument(kOp, ": output length ", o, " of axis ", axes[k],
                              " does not fit in 64 bits");
    }
    return Status();
  };
  if (has_scales) {
    for (size_t k = 0; k < n; ++k) {
      const double s = d.scales[k];
      if (!std::isfinite(s) || !(s > 0.0)) {
        return invalid_argument(kOp, ": scales entry ", k, " (axis ", axes[k],
                                ") must be finite and > 0, got ", s);
      }
      ResizeAxis& ax = out[static_cast<size_t>(axes[k])];
      ax.resized = true;
      ax.scale = s;
      ax.length = static_cast<double>(ax.in) * s;
      const double o = std::floor(ax.length);
      GRIDOPS_RETURN_IF_ERROR(fits(o, k));
      ax.out = static_cast<int64_t>(o);
    }
  } else if (has_sizes) {
    for (size_t k = 0; k < n; ++k) {
      if (d.sizes[k] < 0) {
        return invalid_argument(kOp, ": sizes entry ", k, " (axis ", axes[k],
                                ") must be >= 0, got ", d.sizes[k]);
      }
    }
    if (d.aspect_policy == ResizeAspectPolicy::kStretch) {
      for (size_t k = 0; k < n; ++k) {
        ResizeAxis& ax = out[static_cast<size_t>(axes[k])];
        ax.resized = true;
        ax.out = d.sizes[k];
        ax.length = static_cast<double>(ax.out);
        ax.scale = ax.in > 0 ? static_cast<double>(ax.out) / static_cast<double>(ax.in) : 1.0;
      }
    } else {
      double scale = 0.0;
      for (size_t k = 0; k < n; ++k) {
        const int64_t in = out[static_cast<size_t>(axes[k])].in;
        if (in == 0) {
          return invalid_argument(kOp, ": keep_aspect_ratio_policy ", to_string(d.aspect_policy),
                                  " needs every resized input axis non-empty, axis ", axes[k],
                                  " has length 0");
        }
        const double r = static_cast<double>(d.sizes[k]) / static_cast<double>(in);
        if (k == 0) scale = r;
        else scale = d.aspect_policy == ResizeAspectPolicy::kNotLarger ? std::min(scale, r)
                                                                      : std::max(scale, r);
      }
      for (size_t k = 0; k < n; ++k) {
        ResizeAxis& ax = out[static_cast<size_t>(axes[k])];
        ax.resized = true;
        ax.scale = scale;
        ax.length = scale * static_cast<double>(ax.in);
        const double o = std::floor(ax.length + 0.5);  // round half up (ONNX round_int)
        GRIDOPS_RETURN_IF_ERROR(fits(o, k));
        ax.out = static_cast<int64_t>(o);
      }
    }
  }
  for (size_t k = 0; k < n; ++k) {
    ResizeAxis& ax = out[static_cast<size_t>(axes[k])];
    if (crop && !d.roi.empty()) {
      ax.roi_start = d.roi[k];
      ax.roi_end = d.roi[n + k];
    }
  }
  Dims dst(static_cast<size_t>(rank));
  for (int a = 0; a < rank; ++a) dst[static_cast<size_t>(a)] = out[static_cast<size_t>(a)].out;
  GRIDOPS_ASSIGN_OR_RETURN(const int64_t dst_count, checked_num_elements(dst, "resize: dst"));
  if (dst_count > 0) {
    for (int a = 0; a < rank; ++a) {
      const ResizeAxis& ax = out[static_cast<size_t>(a)];
      if (ax.in == 0 && ax.out > 0) {
        return invalid_argument(kOp, ": src axis ", a, " has length 0 in shape ",
                                dims_to_string(src_shape), " but dst has length ", ax.out,
                                " there: nothing to sample");
      }
    }
  }
  return out;
}

StatusOr<Dims> resize_output_shape(const ResizeDesc& desc, std::span<const int64_t> src_shape) {
  GRIDOPS_ASSIGN_OR_RETURN(const std::vector<ResizeAxis> axes, resize_axes(desc, src_shape));
  Dims dst;
  for (const ResizeAxis& ax : axes) dst.push_back(ax.out);
  return dst;
}

}  // namespace gridops
