// GridSample benchmarks: the workload data, the result comparison and the peers' OpenCV
// flags that grid_sample_bench.cc and grid_sample_u8_rows.cc share.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "bench_util.h"
#include "gridops/ops/grid_sample.h"
#include "ops/grid_sample_impls.h"

#ifdef GRIDOPS_BENCH_TORCH
#include <ATen/ATen.h>
#include <c10/core/InferenceMode.h>
#endif
#ifdef GRIDOPS_BENCH_OPENCV
#include <opencv2/imgproc.hpp>
#endif

namespace {

using gridops::ChannelLayout;
using gridops::DType;
using gridops::Dims;
using gridops::GridPadding;
using gridops::InterpolationMode;

/// One workload's data, built once.
struct Data {
  Dims src_shape, grid_shape, dst_shape;  // channels-first
  std::vector<float> src, grid, dst;
  std::vector<float> src_nhwc, dst_nhwc;  // for the interleaved OpenCV peer
};

inline int64_t numel(const Dims& d) {
  int64_t n = 1;
  for (int64_t v : d) n *= v;
  return n;
}

inline std::shared_ptr<Data> make_data(Dims src_shape, Dims grid_shape, std::vector<float> grid) {
  auto d = std::make_shared<Data>();
  d->src_shape = src_shape;
  d->grid_shape = grid_shape;
  d->dst_shape = {src_shape[0], src_shape[1]};
  for (size_t i = 1; i + 1 < grid_shape.size(); ++i) d->dst_shape.push_back(grid_shape[i]);
  d->src = gridops::bench::random_floats(static_cast<size_t>(numel(src_shape)), -1.0f, 1.0f, 7);
  d->grid = std::move(grid);
  d->dst.assign(static_cast<size_t>(numel(d->dst_shape)), 0.0f);
  return d;
}

/// W1/W2d/W3: uniform random grid in [-1.1, 1.1].
inline std::vector<float> random_grid(const Dims& grid_shape) {
  return gridops::bench::random_floats(static_cast<size_t>(numel(grid_shape)), -1.1f, 1.1f, 11);
}

/// W2a-c: a smooth warp: rotation by 10 degrees, scale 1.05, plus a sinusoidal ripple of
/// amplitude 0.02 (normalized units) with 3 periods across the image.
inline std::vector<float> smooth_grid(int64_t h, int64_t w) {
  std::vector<float> g(static_cast<size_t>(h * w * 2));
  const double th = 10.0 * M_PI / 180.0, s = 1.05, pi2 = 2.0 * M_PI;
  for (int64_t i = 0; i < h; ++i) {
    for (int64_t j = 0; j < w; ++j) {
      const double u = (2.0 * static_cast<double>(j) + 1.0) / static_cast<double>(w) - 1.0;
      const double v = (2.0 * static_cast<double>(i) + 1.0) / static_cast<double>(h) - 1.0;
      const double x = s * (std::cos(th) * u - std::sin(th) * v) + 0.02 * std::sin(pi2 * 3.0 * v);
      const double y = s * (std::sin(th) * u + std::cos(th) * v) + 0.02 * std::sin(pi2 * 3.0 * u);
      g[static_cast<size_t>((i * w + j) * 2)] = static_cast<float>(x);
      g[static_cast<size_t>((i * w + j) * 2 + 1)] = static_cast<float>(y);
    }
  }
  return g;
}

struct Compare {
  double max_abs = 0, mean_abs = 0;
};

inline Compare compare(const float* a, const float* b, int64_t n) {
  Compare c;
  for (int64_t i = 0; i < n; ++i) {
    const double d = std::fabs(static_cast<double>(a[i]) - static_cast<double>(b[i]));
    c.max_abs = std::max(c.max_abs, d);
    c.mean_abs += d;
  }
  c.mean_abs /= static_cast<double>(n > 0 ? n : 1);
  return c;
}

inline void report(const std::string& what, const Compare& c, double mean_tol, double max_tol) {
  const bool ok = c.mean_abs <= mean_tol && c.max_abs <= max_tol;
  std::fprintf(stderr, "%s %s: max |diff| %.3g, mean |diff| %.3g vs gridops\n",
               ok ? "[check]" : "[WARNING: results differ]", what.c_str(), c.max_abs, c.mean_abs);
}

inline int64_t bytes_of(const Data& d) {
  return 4 * (numel(d.src_shape) + numel(d.grid_shape) + numel(d.dst_shape));
}

#ifdef GRIDOPS_BENCH_OPENCV
inline int cv_border(GridPadding p) {
  // zeros: constant 0 per tap; border: replicate; reflection with align_corners=0: mirror
  // about -0.5 and L-0.5 (edge repeated) = BORDER_REFLECT.
  return p == GridPadding::kZeros ? cv::BORDER_CONSTANT
         : p == GridPadding::kBorder ? cv::BORDER_REPLICATE
                                     : cv::BORDER_REFLECT;
}
inline int cv_interp(InterpolationMode m) {
  return m == InterpolationMode::kLinear ? cv::INTER_LINEAR
         : m == InterpolationMode::kNearest ? cv::INTER_NEAREST
                                            : cv::INTER_CUBIC;
}
#endif

struct Case {
  const char* id;
  InterpolationMode mode;
  GridPadding padding;
};

}  // namespace

/// W2 uint8 rows (grid_sample_u8_rows.cc).
void register_w2_u8();
