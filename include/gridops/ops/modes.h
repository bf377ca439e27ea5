// The mode enums of every operator, with their names (to_string prints the spelling its
// parse function accepts). Layouts stay with their operators. Each operator header
// includes this one.
#pragma once

#include <string_view>

#include "gridops/status.h"

namespace gridops {

// --- GridSample, AffineWarp ------------------------------------------------------------

/// Interpolation mode. ONNX spells these linear/bilinear, nearest, cubic/bicubic.
enum class InterpolationMode { kLinear, kNearest, kCubic };
/// How taps outside the input are read. The first three are ONNX's; kWrap, kConstant and
/// kFill are gridops extensions of GridSample (docs/ops/grid_sample.md, "Padding modes"):
/// wrap = tap index modulo the axis length; constant = every tap outside reads
/// GridSampleDesc::fill_value (zeros with a value); fill = a sample whose coordinate lies
/// outside the input's bounds takes fill_value, inside ones clamp their taps (border).
enum class GridPadding { kZeros, kBorder, kReflection, kWrap, kConstant, kFill };
/// How GridSample reads its grid's values (gridops extensions; docs/ops/grid_sample.md,
/// "Grid conventions"): normalized [-1, 1] coordinates (ONNX) or pixel coordinates
/// (p is the centre of pixel p).
enum class GridUnits { kNormalized, kPixels };
/// Whether the grid holds the sampling positions (ONNX) or displacements added to each
/// output point's own coordinate.
enum class GridKind { kAbsolute, kDisplacement };
/// "normalized", "pixels".
const char* to_string(GridUnits u) noexcept;
/// "absolute", "displacement".
const char* to_string(GridKind k) noexcept;
/// Accept the names to_string prints.
StatusOr<GridUnits> parse_grid_units(std::string_view s);
StatusOr<GridKind> parse_grid_kind(std::string_view s);
/// "linear", "nearest", "cubic".
const char* to_string(InterpolationMode m) noexcept;
/// "zeros", "border", "reflection", "wrap", "constant", "fill".
const char* to_string(GridPadding p) noexcept;
/// Accepts linear/bilinear, nearest, cubic/bicubic (ERRATA GridSample 1).
StatusOr<InterpolationMode> parse_interpolation_mode(std::string_view s);
/// Accepts zeros, border, reflection, wrap, constant, fill (the ONNX runner only the
/// first three).
StatusOr<GridPadding> parse_grid_padding(std::string_view s);

// --- Pad ------------------------------------------------------------------------------------

/// How new elements are generated (ERRATA Pad 1, 5).
enum class PadMode { kConstant, kEdge, kReflect, kSymmetric, kWrap };

/// "constant", "edge", "reflect", "symmetric", "wrap".
const char* to_string(PadMode m) noexcept;
/// Parses the names printed by to_string.
StatusOr<PadMode> parse_pad_mode(std::string_view s);

// --- Resample (oneDNN) ----------------------------------------------------------------------

/// Interpolation for resampling.
enum class ResampleAlgorithm { kNearest, kLinear };

/// "nearest", "linear".
const char* to_string(ResampleAlgorithm a) noexcept;
/// Accepts nearest, linear (and bilinear/trilinear as aliases of linear).
StatusOr<ResampleAlgorithm> parse_resample_algorithm(std::string_view s);

// --- Resize (ONNX) --------------------------------------------------------------------------

/// Interpolation of Resize.
enum class ResizeMode { kNearest, kLinear, kCubic };

/// ONNX `coordinate_transformation_mode`: how an output index maps to an input coordinate.
enum class ResizeCoordinateMode {
  kHalfPixel,
  kHalfPixelSymmetric,
  kPytorchHalfPixel,
  kAlignCorners,
  kAsymmetric,
  kTfHalfPixelForNN,
  kTfCropAndResize,
};

/// ONNX `nearest_mode`, plus kSimple: the rule of Resize-10 (floor on an axis that is
/// upsampled or kept, ceil on one that is downsampled), which the ONNX runner uses there.
enum class ResizeNearestMode { kRoundPreferFloor, kRoundPreferCeil, kFloor, kCeil, kSimple };

/// ONNX `keep_aspect_ratio_policy` (used with sizes only).
enum class ResizeAspectPolicy { kStretch, kNotLarger, kNotSmaller };

/// "nearest", "linear", "cubic".
const char* to_string(ResizeMode m) noexcept;
/// The ONNX spelling ("half_pixel", "tf_crop_and_resize", ...).
const char* to_string(ResizeCoordinateMode m) noexcept;
/// The ONNX spelling ("round_prefer_floor", ...); kSimple is "simple".
const char* to_string(ResizeNearestMode m) noexcept;
/// "stretch", "not_larger", "not_smaller".
const char* to_string(ResizeAspectPolicy p) noexcept;
/// Parse the spellings printed by to_string (linear also as bilinear/trilinear, cubic as
/// bicubic).
StatusOr<ResizeMode> parse_resize_mode(std::string_view s);
StatusOr<ResizeCoordinateMode> parse_resize_coordinate_mode(std::string_view s);
StatusOr<ResizeNearestMode> parse_resize_nearest_mode(std::string_view s);
StatusOr<ResizeAspectPolicy> parse_resize_aspect_policy(std::string_view s);

}  // namespace gridops
