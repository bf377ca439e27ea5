// GridSample's descriptor checks and grid_sample_input_box (the box of the full input a
// grid reads: one pass over the grid; docs/ops/grid_sample.md, "Input window"), shared by
// the forward plan, its windowed run and the backward plan (grid_sample_validate.h).
#include "ops/grid_sample_validate.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/convert.h"
#include "core/coords.h"
#include "gridops/ops/grid_sample.h"
#include "kernels/grid_sample/grid_sample_taps.h"

namespace gridops {

namespace detail {

/// The grid shape the spec prescribes for r spatial axes, spelled with the usual names:
/// (N, W_out, 1), (N, H_out, W_out, 2), (N, D_out, H_out, W_out, 3), (N, D1_out, ..., Dr_out, r).
std::string grid_sample_expected_grid_shape(int r) {
  switch (r) {
    case 1: return "(N, W_out, 1)";
    case 2: return "(N, H_out, W_out, 2)";
    case 3: return "(N, D_out, H_out, W_out, 3)";
    default: break;
  }
  std::string s = "(N";
  for (int d = 1; d <= r; ++d) s += ", D" + std::to_string(d) + "_out";
  return s + ", " + std::to_string(r) + ")";
}

/// The descriptor fields that do not depend on shapes or dtypes.
Status grid_sample_validate_desc(const GridSampleDesc& desc, const char* op) {
  const int mode = static_cast<int>(desc.mode);
  if (mode < 0 || mode > static_cast<int>(InterpolationMode::kCubic)) {
    return invalid_argument(op, ": mode must be linear, nearest or cubic, got enum value ",
                            mode);
  }
  const int padding = static_cast<int>(desc.padding);
  if (padding < 0 || padding > static_cast<int>(GridPadding::kFill)) {
    return invalid_argument(op, ": padding_mode must be zeros, border, reflection, wrap, constant "
                            "or fill, got enum value ", padding);
  }
  const int units = static_cast<int>(desc.units);
  if (units < 0 || units > static_cast<int>(GridUnits::kPixels)) {
    return invalid_argument(op, ": grid_units must be normalized or pixels, got enum value ",
                            units);
  }
  const int kind = static_cast<int>(desc.kind);
  if (kind < 0 || kind > static_cast<int>(GridKind::kDisplacement)) {
    return invalid_argument(op, ": grid_kind must be absolute or displacement, got enum value ",
                            kind);
  }
  if (desc.padding == GridPadding::kConstant && !std::isfinite(desc.fill_value)) {
    return invalid_argument(op, ": fill_value must be finite with padding_mode constant (it is "
                            "weighted like a tap; fill takes any value), got ", desc.fill_value);
  }
  if (desc.padding != GridPadding::kConstant && desc.padding != GridPadding::kFill &&
      desc.fill_value != 0.0) {
    return invalid_argument(op, ": fill_value is used only by padding_mode constant and fill, got ",
                            desc.fill_value, " with padding_mode ", to_string(desc.padding));
  }
  const int layout = static_cast<int>(desc.layout);
  if (layout < 0 || layout > static_cast<int>(ChannelLayout::kChannelsLast)) {
    return invalid_argument(op, ": layout must be channels_first or channels_last, got enum value ",
                            layout);
  }
  if (desc.align_corners != 0 && desc.align_corners != 1) {
    return invalid_argument(op, ": align_corners must be 0 or 1, got ", desc.align_corners);
  }
  return Status();
}

Status grid_sample_check_fill_value(const GridSampleDesc& desc, DType src_dtype, const char* op) {
  if (desc.padding != GridPadding::kConstant && desc.padding != GridPadding::kFill) {
    return Status();
  }
  if (src_dtype == DType::kString) {
    return invalid_argument(op, ": padding_mode ", to_string(desc.padding),
                            " is not supported for string src (it has no fill value)");
  }
  const double v = desc.fill_value;
  if (src_dtype == DType::kBool) {
    if (v != 0.0 && v != 1.0) {
      return invalid_argument(op, ": fill_value must be 0 or 1 for bool src, got ", v);
    }
    return Status();
  }
  if (!is_integer(src_dtype)) return Status();
  // [lo, hi) of the dtype, both powers of two or zero: exact in double.
  double lo = 0.0, hi = 0.0;
  visit_dtype(src_dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_integral_v<T>) {
      lo = static_cast<double>(std::numeric_limits<T>::min());
      hi = std::ldexp(1.0, std::numeric_limits<T>::digits);
    }
  });
  if (!(v >= lo && v < hi) || std::trunc(v) != v) {
    return invalid_argument(op, ": fill_value must be an integer in [", lo, ", ", hi, ") for ",
                            to_string(src_dtype), " src, got ", v);
  }
  return Status();
}

namespace {

/// The input box of grid_sample_input_box for a validated desc, full sizes and grid view
/// (rank r + 2, last axis r, floating dtype), with (-1, -1) for an axis without taps.
///
/// One pass over the grid keeps, per axis, the smallest and largest finite coordinate and
/// whether NaN, +inf or -inf occur; only those are turned into taps (coords::grid_tap_hull:
/// exact for the hull, as the unnormalization, each rounded operation of it, is monotone).
template <class GridT>
std::vector<std::pair<int64_t, int64_t>> input_box_typed(const GridSampleDesc& desc,
                                                         std::span<const int64_t> full,
                                                         const TensorView& grid) {
  // The reference's coordinate precision (ERRATA GridSample 2); the fast path takes only
  // float, half and bfloat16 grids, whose coordinates are float there too.
  using G = std::conditional_t<std::is_same_v<GridT, double>, double, float>;
  const int r = static_cast<int>(full.size());
  const int K = coords::taps_per_axis(desc.mode);
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
  // A displacement grid: the extremes are those of g + the point's own coordinate (the
  // kernels' sum, kernels::ref_taps::base_coordinate), taken in the strided pass.
  const bool displacement = desc.kind == GridKind::kDisplacement;
  kernels::GridSampleProblem bp;
  bp.units = desc.units;
  bp.align_corners = ac;
  bp.out_sizes.assign(shape.begin() + 1, shape.begin() + 1 + r);
  // A dense grid: one flat, branch-free pass (each point's r coordinates are adjacent).
  bool dense = !displacement;
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
      G g = convert::load_real<G>(base[off + static_cast<int64_t>(r - 1 - d) * cstride]);
      const auto i = static_cast<size_t>(d);
      if (displacement) g = g + kernels::ref_taps::base_coordinate<G>(bp, d, idx[i + 1]);
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
    const bool pixels = desc.units == GridUnits::kPixels;
    if (gmin[i] <= gmax[i]) {
      // The displacement's base is already in gmin and gmax.
      xs.push_back(coords::grid_pixel_coordinate(gmin[i], false, G(0), pixels, len, ac));
      xs.push_back(coords::grid_pixel_coordinate(gmax[i], false, G(0), pixels, len, ac));
    }
    // Zeros, constant and fill read nothing for a non-finite coordinate.
    if (desc.padding == GridPadding::kBorder || desc.padding == GridPadding::kReflection ||
        desc.padding == GridPadding::kWrap) {
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
    int64_t lo = 0, hi = 0;
    if (!coords::grid_tap_hull(desc.mode, desc.padding, ac, xlo, xhi, nonfinite, len, &lo, &hi)) {
      continue;
    }
    // Widened by K - 1 (the fast path's x windows) and clipped.
    box[i] = {std::max<int64_t>(0, lo - (K - 1)), std::min<int64_t>(len, hi + K)};
  }
  return box;
}

}  // namespace

/// input_box_typed for a validated desc, full sizes and any grid view of the right rank.
StatusOr<std::vector<std::pair<int64_t, int64_t>>> grid_sample_raw_input_box(
    const GridSampleDesc& desc, std::span<const int64_t> full, const TensorView& grid) {
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

}  // namespace detail

StatusOr<std::vector<std::pair<int64_t, int64_t>>> grid_sample_input_box(
    const GridSampleDesc& desc, std::span<const int64_t> full, const TensorView& grid) {
  constexpr const char* op = "grid_sample_input_box";
  GRIDOPS_RETURN_IF_ERROR(detail::grid_sample_validate_desc(desc, op));
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
    return invalid_argument(op, ": grid must have shape ",
                            detail::grid_sample_expected_grid_shape(r), " for ", r,
                            " spatial axes, got ", dims_to_string(grid.shape));
  }
  GRIDOPS_ASSIGN_OR_RETURN(auto box, detail::grid_sample_raw_input_box(desc, full, grid));
  for (size_t d = 0; d < box.size(); ++d) {
    if (box[d].first < 0) {
      box[d] = {0, std::min<int64_t>(full[d], coords::taps_per_axis(desc.mode))};
    }
  }
  return box;
}

}  // namespace gridops
