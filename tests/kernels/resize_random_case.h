// Random Resize problems for the differential tests (resize_diff_test.cc and
// resize_backward_diff_test.cc): ranks 1-4, random axes subsets and orders, every mode and
// coordinate transformation, antialias, exclude_outside, scales or sizes with every aspect
// policy, tf_crop_and_resize with random (also reversed) roi.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "gridops/ops/resize.h"
#include "support/problem_string.h"

namespace gridops {

struct Case {
  ResizeDesc desc;
  DType dtype = DType::kFloat32;
  Dims shape;
  int view = 0;  ///< 0 dense, 1 reversed axes, 2 reversed with negative strides
};

constexpr DType kInterpTypes[] = {DType::kFloat32, DType::kFloat32, DType::kFloat16, DType::kBFloat16,
                                  DType::kUInt8,   DType::kFloat64, DType::kInt32,   DType::kInt8,
                                  DType::kInt16,   DType::kUInt16,  DType::kInt64};
constexpr DType kNearestOnlyTypes[] = {DType::kString, DType::kComplex64, DType::kBool, DType::kUInt64};

inline Case random_case(std::mt19937_64& rng, bool long_rows = false) {
  auto uni = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  auto real = [&](double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(rng); };
  Case c;
  const int rank = long_rows ? uni(2, 3) : uni(1, 4);
  const int max_len = long_rows ? 24 : (rank <= 2 ? 7 : (rank == 3 ? 5 : 3));
  for (int a = 0; a < rank; ++a) c.shape.push_back(uni(long_rows && a + 1 == rank ? 16 : 1, max_len));
  ResizeDesc& d = c.desc;
  const int m = uni(0, 9);
  d.mode = m < 3 ? ResizeMode::kNearest : (m < 6 ? ResizeMode::kLinear : ResizeMode::kCubic);
  d.coordinate_mode = static_cast<ResizeCoordinateMode>(uni(0, 6));
  d.nearest_mode = static_cast<ResizeNearestMode>(uni(0, 4));
  d.antialias = d.mode != ResizeMode::kNearest && uni(0, 2) == 0;
  d.exclude_outside = uni(0, 2) == 0;
  const double as[] = {-0.75, -0.5, -0.6};
  d.cubic_coeff_a = as[uni(0, 2)];
  // Axes: all (empty), or a random subset in random order, sometimes negative.
  std::vector<int64_t> axes;
  if (uni(0, 2) != 0) {
    for (int a = 0; a < rank; ++a)
      if (uni(0, 1) == 0) axes.push_back(a);
    if (axes.empty()) axes.push_back(uni(0, rank - 1));
    std::shuffle(axes.begin(), axes.end(), rng);
    for (int64_t& a : axes)
      if (uni(0, 3) == 0) a -= rank;
    d.axes = axes;
  } else {
    for (int a = 0; a < rank; ++a) axes.push_back(a);
  }
  const size_t n = axes.size();
  if (uni(0, 1) == 0) {
    for (size_t k = 0; k < n; ++k) {
      double s = real(0.3, 3.0);
      if (uni(0, 3) == 0) s = std::round(s * 2) / 2 + (s < 0.75 ? 0.5 : 0);  // halves
      d.scales.push_back(static_cast<float>(s));
    }
  } else {
    for (size_t k = 0; k < n; ++k) d.sizes.push_back(uni(1, max_len + 2));
    d.aspect_policy = static_cast<ResizeAspectPolicy>(uni(0, 2));
  }
  if (d.coordinate_mode == ResizeCoordinateMode::kTfCropAndResize && uni(0, 3) != 0) {
    std::vector<double> starts, ends;
    for (size_t k = 0; k < n; ++k) {
      const double s = real(-0.3, 0.7);
      const double e = s + real(0.1, 1.2);
      const bool flip = uni(0, 3) == 0;  // a reversed roi mirrors the crop
      starts.push_back(flip ? e : s);
      ends.push_back(flip ? s : e);
    }
    d.roi = starts;
    d.roi.insert(d.roi.end(), ends.begin(), ends.end());
  }
  d.extrapolation_value = std::round(real(-50, 50));
  if (d.mode == ResizeMode::kNearest && uni(0, 3) == 0) {
    c.dtype = kNearestOnlyTypes[uni(0, 3)];
  } else {
    c.dtype = kInterpTypes[uni(0, static_cast<int>(std::size(kInterpTypes)) - 1)];
  }
  c.view = uni(0, 2);
  return c;
}

/// Writes every field of a case to a problem line (tests/support/problem_string.h).
inline void add_case(testing::ProblemString& s, const Case& c) {
  const ResizeDesc& d = c.desc;
  s.add("mode", to_string(d.mode))
      .add("coordinate_mode", to_string(d.coordinate_mode))
      .add("nearest_mode", to_string(d.nearest_mode))
      .add("cubic_coeff_a", d.cubic_coeff_a)
      .add("exclude_outside", d.exclude_outside)
      .add("antialias", d.antialias)
      .add("aspect_policy", to_string(d.aspect_policy))
      .add("extrapolation_value", d.extrapolation_value)
      .add("axes", d.axes)
      .add("scales", d.scales)
      .add("sizes", d.sizes)
      .add("roi", d.roi)
      .add("src", c.dtype)
      .add("src_shape", c.shape)
      .add("view", c.view);
}

/// The case add_case wrote.
inline Case case_from(const testing::ProblemString& s) {
  Case c;
  ResizeDesc& d = c.desc;
  d.mode = s.get_enum("mode", parse_resize_mode, ResizeMode::kNearest);
  d.coordinate_mode = s.get_enum("coordinate_mode", parse_resize_coordinate_mode,
                                 ResizeCoordinateMode::kHalfPixel);
  d.nearest_mode = s.get_enum("nearest_mode", parse_resize_nearest_mode,
                              ResizeNearestMode::kRoundPreferFloor);
  d.cubic_coeff_a = s.get_double("cubic_coeff_a");
  d.exclude_outside = s.get_int("exclude_outside") != 0;
  d.antialias = s.get_int("antialias") != 0;
  d.aspect_policy = s.get_enum("aspect_policy", parse_resize_aspect_policy,
                               ResizeAspectPolicy::kStretch);
  d.extrapolation_value = s.get_double("extrapolation_value");
  d.axes = s.get_dims("axes");
  d.scales = s.get_doubles("scales");
  d.sizes = s.get_dims("sizes");
  d.roi = s.get_doubles("roi");
  c.dtype = s.get_dtype("src");
  c.shape = s.get_dims("src_shape");
  c.view = static_cast<int>(s.get_int("view"));
  return c;
}

}  // namespace gridops
