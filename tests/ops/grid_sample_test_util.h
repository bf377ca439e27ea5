// GridSample tests: the helpers the grid_sample_*_test.cc files share (tensor and desc
// construction, a checked run, 1-D sampling).
#pragma once

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sys/mman.h>

#include <cmath>
#include <complex>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "core/convert.h"
#include "gridops/ops/grid_sample.h"
#include "kernels/grid_sample/grid_sample.h"
#include "ops/grid_sample_impls.h"
#include "support/test_util.h"

namespace gridops {
namespace {

using ::testing::HasSubstr;
using IM = InterpolationMode;
using GP = GridPadding;

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

template <class T>
Tensor make_tensor(Dims shape, const std::vector<T>& values) {
  Tensor t(dtype_of<T>(), std::move(shape));
  EXPECT_EQ(static_cast<size_t>(t.num_elements()), values.size());
  for (size_t i = 0; i < values.size(); ++i) t.data_as<T>()[i] = values[i];
  return t;
}

inline GridSampleDesc make_desc(IM mode, GP padding, int64_t align_corners) {
  GridSampleDesc d;
  d.mode = mode;
  d.padding = padding;
  d.align_corners = align_corners;
  return d;
}

inline Tensor run_ok(const GridSampleDesc& desc, const Tensor& src, const Tensor& grid) {
  auto r = grid_sample(desc, src.view(), grid.view());
  EXPECT_TRUE(r.ok()) << r.status().to_string();
  if (!r.ok()) return Tensor(src.dtype(), {0});
  return std::move(r).value();
}

/// 1-D sampling of float data at normalized positions gs: src (1, 1, L), grid (1, n, 1).
inline std::vector<float> sample_1d(const std::vector<float>& data, const std::vector<float>& gs,
                                    IM mode, GP padding, int64_t align_corners) {
  Tensor src = make_tensor<float>({1, 1, static_cast<int64_t>(data.size())}, data);
  Tensor grid = make_tensor<float>({1, static_cast<int64_t>(gs.size()), 1}, gs);
  Tensor out = run_ok(make_desc(mode, padding, align_corners), src, grid);
  std::vector<float> v(out.data_as<float>(), out.data_as<float>() + out.num_elements());
  return v;
}

/// 1-D sampling of element type T at normalized float positions.
template <class T>
std::vector<T> sample_1d_typed(const std::vector<T>& data, const std::vector<float>& gs, IM mode,
                               GP padding, int64_t align_corners) {
  Tensor src = make_tensor<T>({1, 1, static_cast<int64_t>(data.size())}, data);
  Tensor grid = make_tensor<float>({1, static_cast<int64_t>(gs.size()), 1}, gs);
  Tensor out = run_ok(make_desc(mode, padding, align_corners), src, grid);
  std::vector<T> v(out.data_as<T>(), out.data_as<T>() + out.num_elements());
  return v;
}

}  // namespace
}  // namespace gridops
