// GridSample differential tests: the random problems, the runs, the tolerance check and the
// layout copy that the grid_sample_*diff_test.cc files share (NOTE [ GridSample fast path
// tolerance ] in grid_sample_diff_test.cc).
#pragma once

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "core/convert.h"
#include "core/gather_cost.h"
#include "gridops/ops/grid_sample.h"
#include "gridops/parallel.h"
#include "kernels/grid_sample/grid_sample.h"
#include "ops/grid_sample_impls.h"
#include "support/entries.h"
#include "support/test_util.h"

namespace gridops {
namespace {

using IM = InterpolationMode;
using GP = GridPadding;

/// The fast implementations to test: every entry of the implementation list but "ref",
/// then the alias "fast" (testing::fast_entries).
inline std::vector<std::string> fast_impls() {
  return testing::fast_entries(detail::grid_sample_entries());
}

/// A path's own test runs its entry and the automatic choice ("": what an unforced plan
/// picks for the same problems); the random and thread tests cover every entry.
inline std::vector<std::string> entry_and_automatic(const std::string& name) {
  std::vector<std::string> v;
  for (const std::string& impl : fast_impls()) {
    if (impl == name) v.push_back(impl);
  }
  if (!v.empty()) v.emplace_back();
  return v;
}

inline void put_float(Tensor& t, int64_t i, float v) {
  switch (t.dtype()) {
    case DType::kFloat32: t.data_as<float>()[i] = v; break;
    case DType::kFloat16: t.data_as<float16>()[i] = convert::store_real<float16>(v); break;
    case DType::kBFloat16: t.data_as<bfloat16>()[i] = convert::store_real<bfloat16>(v); break;
    default: FAIL() << "unexpected dtype";
  }
}

/// The attributes the differential loops cycle through with their index i: mode i % 3,
/// padding (i / 3) % 3 (zeros, border, reflection), align_corners (i / 9) % 2.
inline void set_cycled_attributes(GridSampleDesc& d, int i) {
  d.mode = static_cast<IM>(i % 3);
  d.padding = static_cast<GP>((i / 3) % 3);
  d.fill_value = 0.0;
  d.align_corners = (i / 9) % 2 == 1;
}

/// Restores the detected slow-gathers fact (NOTE [ Slow gathers ]) when it goes out of
/// scope, so that a test that forces it leaves the next test the host's.
struct RestoreSlowGathers {
  ~RestoreSlowGathers() { kernels::set_slow_gathers_override(-1); }
};

struct Problem {
  GridSampleDesc desc;
  DType src_dtype = DType::kFloat32, grid_dtype = DType::kFloat32;
  Dims src_shape, grid_shape;
  bool strided_src = false, negative = false;
  bool strided_grid = false;  // grid read through a scrambled (non-contiguous) view
  bool strided_dst = false;   // dst written through a column-major view
};

inline std::string describe(const Problem& p) {
  std::string s = std::string(to_string(p.desc.mode)) + " " + to_string(p.desc.padding) +
                  " ac=" + std::to_string(p.desc.align_corners) + " " +
                  to_string(p.desc.layout) + " src " + to_string(p.src_dtype) + " " +
                  dims_to_string(p.src_shape) + " grid " + to_string(p.grid_dtype) + " " +
                  dims_to_string(p.grid_shape) + (p.strided_src ? " strided" : "") +
                  (p.negative ? " negative" : "") + (p.strided_grid ? " strided-grid" : "") +
                  (p.strided_dst ? " strided-dst" : "");
  if (p.desc.fill_value != 0.0) s += " fill_value=" + std::to_string(p.desc.fill_value);
  if (p.desc.units != GridUnits::kNormalized) s += std::string(" units=") + to_string(p.desc.units);
  if (p.desc.kind != GridKind::kAbsolute) s += std::string(" kind=") + to_string(p.desc.kind);
  return s;
}

inline Problem random_problem(std::mt19937_64& rng, int index) {
  auto pick = [&](int lo, int hi) {
    return std::uniform_int_distribution<int>(lo, hi)(rng);
  };
  Problem p;
  p.desc.mode = static_cast<IM>(pick(0, 2));
  // Every padding, the gridops extensions (wrap, constant, fill) a quarter of the time.
  p.desc.padding = static_cast<GP>(pick(0, 3) == 0 ? pick(3, 5) : pick(0, 2));
  if (p.desc.padding == GP::kConstant || p.desc.padding == GP::kFill) {
    p.desc.fill_value = static_cast<double>(static_cast<float>(pick(-8, 8)) / 8.0f);
  }
  p.desc.align_corners = pick(0, 1);
  p.desc.layout = pick(0, 2) == 0 ? ChannelLayout::kChannelsLast : ChannelLayout::kChannelsFirst;
  const DType types[] = {DType::kFloat32, DType::kFloat32, DType::kFloat16, DType::kBFloat16};
  p.src_dtype = types[pick(0, 3)];
  p.grid_dtype = types[pick(0, 3)];
  // The fast paths take constant padding for float32 src only (grid_sample_fast_declines).
  if (p.desc.padding == GP::kConstant) p.src_dtype = DType::kFloat32;
  const int r = pick(0, 9) == 0 ? 1 : (pick(0, 2) == 0 ? 3 : 2);
  const int64_t n = pick(1, 2);
  int64_t c = pick(0, 3) == 0 ? 1 : pick(1, 5);
  if (pick(0, 7) == 0) c = pick(15, 21);  // several SIMD vectors of channels, with a tail
  Dims in(static_cast<size_t>(r)), out(static_cast<size_t>(r));
  const int max_in = r == 3 ? 5 : 9;
  const int max_out = r == 3 ? 6 : 12;
  for (int d = 0; d < r; ++d) {
    in[static_cast<size_t>(d)] = pick(0, 4) == 0 ? 1 : pick(1, max_in);
    out[static_cast<size_t>(d)] = pick(0, 4) == 0 ? 1 : pick(1, max_out);
  }
  // Every 50th problem has more output points than one block (several blocks, a tail).
  // (over 2048 points: several blocks, and blocks of several tap sub-blocks).
  if (index % 50 == 0) out = r == 3 ? Dims{13, 14, 15} : (r == 2 ? Dims{47, 53} : Dims{2600});
  p.src_shape.push_back(n);
  if (p.desc.layout == ChannelLayout::kChannelsFirst) p.src_shape.push_back(c);
  for (int64_t v : in) p.src_shape.push_back(v);
  if (p.desc.layout == ChannelLayout::kChannelsLast) p.src_shape.push_back(c);
  p.grid_shape.push_back(n);
  for (int64_t v : out) p.grid_shape.push_back(v);
  p.grid_shape.push_back(r);
  p.strided_src = pick(0, 4) == 0;
  p.negative = pick(0, 1) == 1;
  p.strided_grid = pick(0, 4) == 0;
  p.strided_dst = pick(0, 4) == 0;
  // The grid conventions (gridops extensions), a quarter of the problems each.
  if (pick(0, 3) == 0) p.desc.units = GridUnits::kPixels;
  if (pick(0, 3) == 0) p.desc.kind = GridKind::kDisplacement;
  return p;
}

/// Grid values: mostly inside [-1.1, 1.1], some far outside, exact half-pixel ties, and
/// NaN, +-inf and huge values.
inline void fill_grid(Tensor& g, std::mt19937_64& rng, const Problem& p) {
  std::uniform_real_distribution<float> u(-1.1f, 1.1f), far(-40.0f, 40.0f), u01(0.0f, 1.0f);
  const int r = static_cast<int>(p.grid_shape.back());
  const size_t first_spatial = p.desc.layout == ChannelLayout::kChannelsFirst ? 2 : 1;
  const float special[] = {std::numeric_limits<float>::quiet_NaN(),
                           std::numeric_limits<float>::infinity(),
                           -std::numeric_limits<float>::infinity(), 1e30f, -3e9f, 1e7f};
  const int style = std::uniform_int_distribution<int>(0, 3)(rng);
  for (int64_t i = 0; i < g.num_elements(); ++i) {
    const float q = u01(rng);
    float v;
    if (q < 0.02f) {
      v = special[std::uniform_int_distribution<int>(0, 5)(rng)];
    } else if (style == 1 && q < 0.4f) {
      v = far(rng);
    } else if (style == 2 && q < 0.5f) {
      // A half-pixel position (x = k + 0.5) on this coordinate's axis: a rounding tie.
      const int d = r - 1 - static_cast<int>(i % r);
      const auto len = static_cast<float>(p.src_shape[first_spatial + static_cast<size_t>(d)]);
      const float k = static_cast<float>(std::uniform_int_distribution<int>(-3, 8)(rng)) + 0.5f;
      v = p.desc.align_corners ? (len > 1 ? 2.0f * k / (len - 1.0f) - 1.0f : 0.0f)
                               : (2.0f * k + 1.0f) / len - 1.0f;
    } else {
      v = u(rng);
    }
    const bool pixels = p.desc.units == GridUnits::kPixels;
    const bool displacement = p.desc.kind == GridKind::kDisplacement;
    if (std::isfinite(v) && std::fabs(v) <= 1.1f && (pixels || displacement)) {
      // The same spread in the grid's conventions: pixels of this axis (ties stay ties:
      // style 2 above is k + 0.5 in pixels), or a displacement of a few pixels.
      const int d = r - 1 - static_cast<int>(i % r);
      const auto len = static_cast<float>(p.src_shape[first_spatial + static_cast<size_t>(d)]);
      if (style == 2 && pixels) {
        v = static_cast<float>(std::uniform_int_distribution<int>(-3, 8)(rng)) + 0.5f;
      } else if (pixels) {
        v = displacement ? 2.5f * v : (v + 1.0f) * 0.5f * len - 0.5f;
      } else {
        v = 0.3f * v;  // normalized displacement
      }
    }
    put_float(g, i, v);
  }
}

/// True when the entry `impl` declines the problem at plan time (an unimplemented status);
/// any other plan error fails the test.
inline bool declines(const Problem& p, const std::string& impl) {
  GridSampleDesc desc = p.desc;
  desc.impl = impl;
  auto plan = make_grid_sample_plan(desc, p.src_dtype, p.src_shape, p.grid_dtype, p.grid_shape);
  if (plan.ok()) return false;
  EXPECT_EQ(plan.status().code(), StatusCode::kUnimplemented) << plan.status().to_string();
  return true;
}

/// Runs `impl` ("": the automatic choice) on the problem into a fresh contiguous dst.
inline Tensor run_impl(const Problem& p, const std::string& impl, const TensorView& src,
                       const TensorView& grid) {
  GridSampleDesc desc = p.desc;
  desc.impl = impl;
  auto plan = make_grid_sample_plan(desc, p.src_dtype, p.src_shape, p.grid_dtype, p.grid_shape);
  EXPECT_TRUE(plan.ok()) << plan.status().to_string();
  if (!plan.ok()) return Tensor(p.src_dtype, {0});
  if (!impl.empty() && impl != "fast") {
    EXPECT_EQ(std::string(plan.value().impl_name()), impl);
  }
  Tensor dst(p.src_dtype, plan.value().dst_shape());
  if (!p.strided_dst) {
    const Status st = plan.value().run(src, grid, dst.mutable_view());
    EXPECT_TRUE(st.ok()) << st.to_string();
    return dst;
  }
  // Column-major dst: axis i has stride prod(shape[0..i)).
  const Dims& shape = dst.shape();
  Dims strides(shape.size());
  int64_t acc = 1;
  for (size_t i = 0; i < shape.size(); ++i) {
    strides[i] = acc;
    acc *= shape[i];
  }
  Tensor storage(p.src_dtype, Dims{dst.num_elements()});
  const MutableTensorView view(p.src_dtype, storage.data(), shape, strides);
  const Status st = plan.value().run(src, grid, view);
  EXPECT_TRUE(st.ok()) << st.to_string();
  // Back to row-major.
  const size_t es = dtype_size(p.src_dtype);
  Dims idx(shape.size(), 0);
  for (int64_t flat = 0; flat < dst.num_elements(); ++flat) {
    int64_t off = 0;
    for (size_t i = 0; i < shape.size(); ++i) off += idx[i] * strides[i];
    std::memcpy(static_cast<char*>(dst.data()) + static_cast<size_t>(flat) * es,
                static_cast<const char*>(storage.data()) + static_cast<size_t>(off) * es, es);
    for (size_t i = shape.size(); i-- > 0;) {
      if (++idx[i] < shape[i]) break;
      idx[i] = 0;
    }
  }
  return dst;
}

/// See NOTE [ GridSample fast path tolerance ].
inline void expect_close(const Problem& p, const Tensor& ref, const Tensor& fast, double max_src) {
  if (p.desc.mode == IM::kNearest) {
    int64_t where = -1;
    EXPECT_TRUE(testing::bitwise_equal(ref, fast, &where))
        << "nearest must be bit-exact; first difference at flat index " << where << ": ref "
        << testing::element_as_double(ref, where) << " fast "
        << testing::element_as_double(fast, where);
    return;
  }
  const int r = static_cast<int>(p.grid_shape.back());
  const int per_axis = p.desc.mode == IM::kLinear ? 2 : 4;
  double nt = 1;
  for (int d = 0; d < r; ++d) nt *= per_axis;
  const double base = nt * std::ldexp(1.0, -20) * max_src;
  const double ulp_rel = p.src_dtype == DType::kFloat16    ? std::ldexp(1.0, -10)
                         : p.src_dtype == DType::kBFloat16 ? std::ldexp(1.0, -7)
                                                           : 0.0;
  const double ulp_min = p.src_dtype == DType::kFloat16 ? std::ldexp(1.0, -24) : 1e-38;
  int failures = 0;
  for (int64_t i = 0; i < ref.num_elements() && failures < 5; ++i) {
    const double a = testing::element_as_double(ref, i), b = testing::element_as_double(fast, i);
    if (std::isnan(a) || std::isnan(b)) {
      if (!(std::isnan(a) && std::isnan(b))) {
        ADD_FAILURE() << "flat index " << i << ": ref " << a << " fast " << b;
        ++failures;
      }
      continue;
    }
    double tol = base;
    if (ulp_rel > 0) tol += std::max(std::fabs(a), std::fabs(b)) * ulp_rel + ulp_min;
    if (!(std::fabs(a - b) <= tol)) {
      ADD_FAILURE() << "flat index " << i << ": ref " << a << " fast " << b << " |diff| "
                    << std::fabs(a - b) << " > tol " << tol;
      ++failures;
    }
  }
}

#define GRIDOPS_SKIP_WITHOUT_HWY() \
  if (fast_impls().empty()) GTEST_SKIP() << "built without Highway: only the reference exists, nothing to compare"


/// Channels-last copy of a channels-first tensor (N, C, spatial...) -> (N, spatial..., C).
inline Tensor to_channels_last(const Tensor& t) {
  const Dims& s = t.shape();
  Dims out{s[0]};
  int64_t plane = 1;
  for (size_t i = 2; i < s.size(); ++i) {
    out.push_back(s[i]);
    plane *= s[i];
  }
  out.push_back(s[1]);
  Tensor r(t.dtype(), out);
  const size_t es = dtype_size(t.dtype());
  const auto* src = static_cast<const char*>(t.data());
  auto* dst = static_cast<char*>(r.data());
  for (int64_t n = 0; n < s[0]; ++n) {
    for (int64_t c = 0; c < s[1]; ++c) {
      for (int64_t q = 0; q < plane; ++q) {
        std::memcpy(dst + static_cast<size_t>((n * plane + q) * s[1] + c) * es,
                    src + static_cast<size_t>((n * s[1] + c) * plane + q) * es, es);
      }
    }
  }
  return r;
}

}  // namespace
}  // namespace gridops
