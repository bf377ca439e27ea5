// GridSample property tests' oracle and helpers (grid_sample_property_test.cc): the
// independent separable formula (its own padding map, Keys' weights and unnormalization,
// written from docs/ops/grid_sample.md, "Formulas"), random shapes, layout permutations and
// view materialization.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "core/convert.h"
#include "gridops/ops/grid_sample.h"
#include "support/test_util.h"

namespace gridops {
namespace {

using IM = InterpolationMode;
using GP = GridPadding;

// --- an independent formulation ---------------------------------------------------------
//
// Written from the spec and ERRATA text, not from the kernel: reflection by repeated
// mirroring, nearest with std::nearbyint (the default rounding mode is to nearest, ties to
// even), cubic weights as Keys' kernel W(x - i) of the distance, and evaluation by
// recursion over axes (one axis at a time) instead of a flat sum over tap combinations.

struct RefTap {
  int64_t index;  // -1: outside under zeros, contributes 0; -2: outside under constant
  double weight;
};

int64_t ref_pad(int64_t i, int64_t len, GP pad, bool ac) {
  switch (pad) {
    case GP::kZeros: return (i >= 0 && i < len) ? i : -1;
    case GP::kBorder: return std::clamp<int64_t>(i, 0, len - 1);
    case GP::kReflection:
      if (ac) {
        if (len == 1) return 0;
        while (i < 0 || i > len - 1) i = i < 0 ? -i : 2 * (len - 1) - i;  // mirror at 0, L-1
      } else {
        while (i < 0 || i > len - 1) i = i < 0 ? -1 - i : 2 * len - 1 - i;  // at -0.5, L-0.5
      }
      return i;
    case GP::kWrap:
      while (i < 0) i += len;
      return i % len;
    case GP::kConstant: return (i >= 0 && i < len) ? i : -2;
    case GP::kFill: return std::clamp<int64_t>(i, 0, len - 1);  // samples inside only
  }
  return -1;
}

double keys(double s) {
  const double a = -0.75, d = std::fabs(s);
  if (d <= 1) return (a + 2) * d * d * d - (a + 3) * d * d + 1;
  if (d < 2) return a * d * d * d - 5 * a * d * d + 8 * a * d - 4 * a;
  return 0;
}

// ERRATA GridSample 2, in the grid's precision G.
template <class G>
G ref_unnormalize(G g, int64_t len, bool ac) {
  const G l = static_cast<G>(len);
  return ac ? (g + G(1)) / G(2) * (l - G(1)) : ((g + G(1)) * l - G(1)) / G(2);
}

std::vector<RefTap> ref_taps(double x, int64_t len, IM mode, GP pad, bool ac) {
  std::vector<RefTap> taps;
  if (mode == IM::kNearest) {
    taps.push_back({ref_pad(static_cast<int64_t>(std::nearbyint(x)), len, pad, ac), 1.0});
    return taps;
  }
  const int64_t i0 = static_cast<int64_t>(std::floor(x));
  const int64_t lo = mode == IM::kLinear ? i0 : i0 - 1, hi = mode == IM::kLinear ? i0 + 1 : i0 + 2;
  for (int64_t i = lo; i <= hi; ++i) {
    const double w = mode == IM::kLinear ? 1.0 - std::fabs(x - static_cast<double>(i))
                                         : keys(x - static_cast<double>(i));
    taps.push_back({ref_pad(i, len, pad, ac), w});
  }
  return taps;
}

/// The grid conventions of the extensions (units, kind) and the fill value.
struct Conv {
  bool pixels = false;
  bool displacement = false;
  double fill = 0.0;
};

/// Expected dst (channels-first, double) for a channels-first double src and a grid of
/// type G, by separable recursion.
template <class G>
std::vector<double> ref_grid_sample(const Tensor& src, const Tensor& grid, IM mode, GP pad,
                                    bool ac, Conv cv = {}) {
  const int r = src.rank() - 2;
  const Dims& ss = src.shape();
  const Dims& gs = grid.shape();
  const Dims sstr = contiguous_strides(ss);
  int64_t out_points = 1;
  for (int d = 0; d < r; ++d) out_points *= gs[static_cast<size_t>(d) + 1];
  std::vector<double> out;
  const double* sp = src.data_as<double>();
  const G* gp = grid.data_as<G>();
  for (int64_t n = 0; n < ss[0]; ++n) {
    for (int64_t c = 0; c < ss[1]; ++c) {
      for (int64_t pt = 0; pt < out_points; ++pt) {
        std::vector<std::vector<RefTap>> taps(static_cast<size_t>(r));
        bool sample_outside = false;  // fill: some coordinate beyond the bounds, or NaN/inf
        for (int d = 0; d < r; ++d) {
          G g = gp[(n * out_points + pt) * r + (r - 1 - d)];  // grid[..., 0] is innermost
          const int64_t len = ss[static_cast<size_t>(d) + 2];
          if (cv.displacement) {  // the output point's own coordinate o_d, in the grid's units
            int64_t o = pt;
            for (int e = r - 1; e > d; --e) o /= gs[static_cast<size_t>(e) + 1];
            const int64_t lo = gs[static_cast<size_t>(d) + 1];
            o %= lo;
            const G base = cv.pixels ? static_cast<G>(o)
                           : lo == 1 ? G(0)
                           : ac      ? static_cast<G>(2 * o) / static_cast<G>(lo - 1) - G(1)
                                     : static_cast<G>(2 * o + 1) / static_cast<G>(lo) - G(1);
            g = g + base;
          }
          const double x = cv.pixels ? static_cast<double>(g)
                                     : static_cast<double>(ref_unnormalize<G>(g, len, ac));
          const double blo = ac ? 0.0 : -0.5, bhi = ac ? double(len - 1) : double(len) - 0.5;
          if (!(x >= blo && x <= bhi)) sample_outside = true;
          taps[static_cast<size_t>(d)] = ref_taps(x, len, mode, pad, ac);
        }
        if (pad == GP::kFill && sample_outside) {
          out.push_back(cv.fill);
          continue;
        }
        std::function<double(int, int64_t)> eval = [&](int d, int64_t off) -> double {
          if (d == r) return sp[off];
          double acc = 0;
          for (const RefTap& t : taps[static_cast<size_t>(d)]) {
            if (t.index == -2) acc += t.weight * cv.fill;  // the rest of the axes sum to 1
            if (t.index < 0) continue;
            acc += t.weight * eval(d + 1, off + t.index * sstr[static_cast<size_t>(d) + 2]);
          }
          return acc;
        };
        out.push_back(eval(0, n * sstr[0] + c * sstr[1]));
      }
    }
  }
  return out;
}

// --- helpers ---------------------------------------------------------------------------

GridSampleDesc make_desc(IM mode, GP padding, bool ac,
                         ChannelLayout layout = ChannelLayout::kChannelsFirst) {
  GridSampleDesc d;
  d.mode = mode;
  d.padding = padding;
  d.align_corners = ac ? 1 : 0;
  d.layout = layout;
  return d;
}

Tensor run_ok(const GridSampleDesc& desc, const TensorView& src, const TensorView& grid) {
  auto r = grid_sample(desc, src, grid);
  EXPECT_TRUE(r.ok()) << r.status().to_string();
  if (!r.ok()) return Tensor(src.dtype, {0});
  return std::move(r).value();
}

/// A random problem shape: src (N, C, D1..Dr) and grid (N, D1_out..Dr_out, r).
void random_shapes(std::mt19937_64& rng, int r, Dims* src, Dims* grid) {
  auto pick = [&](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  };
  const int64_t n = pick(1, 2), c = pick(1, 3);
  *src = {n, c};
  *grid = {n};
  const int64_t max_in = r >= 4 ? 3 : 5, max_out = r >= 3 ? 2 : 4;
  for (int d = 0; d < r; ++d) src->push_back(pick(1, max_in));
  for (int d = 0; d < r; ++d) grid->push_back(pick(1, max_out));
  grid->push_back(r);
}

/// Copies a tensor with its axes permuted: out.shape[i] = t.shape[perm[i]].
Tensor permute(const Tensor& t, const std::vector<int>& perm) {
  const int r = t.rank();
  Dims shape(static_cast<size_t>(r));
  for (int i = 0; i < r; ++i) shape[static_cast<size_t>(i)] = t.shape()[static_cast<size_t>(perm[static_cast<size_t>(i)])];
  Tensor out(t.dtype(), shape);
  const Dims in_str = contiguous_strides(t.shape());
  Dims str(static_cast<size_t>(r));
  for (int i = 0; i < r; ++i) str[static_cast<size_t>(i)] = in_str[static_cast<size_t>(perm[static_cast<size_t>(i)])];
  TensorView v(t.dtype(), t.data(), shape, str);  // t read in the permuted order
  Dims idx(static_cast<size_t>(r), 0);
  const size_t es = dtype_size(t.dtype());
  for (int64_t f = 0; f < out.num_elements(); ++f) {
    const void* from = v.element_ptr(idx);
    char* to = static_cast<char*>(out.data()) + f * static_cast<int64_t>(es);
    if (t.dtype() == DType::kString) {
      *reinterpret_cast<std::string*>(to) = *static_cast<const std::string*>(from);
    } else {
      std::memcpy(to, from, es);
    }
    for (int i = r - 1; i >= 0; --i) {
      if (++idx[static_cast<size_t>(i)] < shape[static_cast<size_t>(i)]) break;
      idx[static_cast<size_t>(i)] = 0;
    }
  }
  return out;
}

/// A contiguous copy of any view.
Tensor materialize(const TensorView& v) {
  Tensor out(v.dtype, v.shape);
  const int r = v.rank();
  Dims idx(static_cast<size_t>(r), 0);
  const size_t es = dtype_size(v.dtype);
  for (int64_t f = 0; f < out.num_elements(); ++f) {
    const void* from = v.element_ptr(idx);
    char* to = static_cast<char*>(out.data()) + f * static_cast<int64_t>(es);
    if (v.dtype == DType::kString) {
      *reinterpret_cast<std::string*>(to) = *static_cast<const std::string*>(from);
    } else {
      std::memcpy(to, from, es);
    }
    for (int i = r - 1; i >= 0; --i) {
      if (++idx[static_cast<size_t>(i)] < v.shape[static_cast<size_t>(i)]) break;
      idx[static_cast<size_t>(i)] = 0;
    }
  }
  return out;
}

constexpr IM kModes[] = {IM::kNearest, IM::kLinear, IM::kCubic};
constexpr GP kPads[] = {GP::kZeros, GP::kBorder, GP::kReflection};

std::string trace(int r, IM mode, GP pad, bool ac) {
  return "r=" + std::to_string(r) + " mode=" + to_string(mode) + " padding=" + to_string(pad) +
         " align_corners=" + std::to_string(ac);
}

}  // namespace
}  // namespace gridops
