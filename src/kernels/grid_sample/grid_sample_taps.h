// The reference's per-axis taps and stride split, shared by the GridSample forward
// reference (grid_sample_ref.cc), the backward reference (grid_sample_backward_ref.cc) and
// the fast backward (grid_sample_backward_fast.cc), so that the backward differentiates
// exactly the taps and weights the forward uses.
// Written to read like docs/ops/grid_sample.md, "Formulas".
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

#include "core/coords.h"
#include "kernels/grid_sample/grid_sample.h"

namespace gridops::kernels::ref_taps {

/// The taps of one spatial axis: up to 4 source indices (already padded) and weights.
/// A tap that falls outside the input under zeros padding is simply not listed: it would
/// contribute value 0. Under constant padding it is listed with index -1 (it reads the
/// fill value). count 0: the sample is outside on this axis (zeros: value 0; constant and
/// fill: exactly the fill value).
template <class F>
struct AxisTaps {
  int count = 0;
  int64_t index[4] = {0, 0, 0, 0};
  F weight[4] = {F(0), F(0), F(0), F(0)};
};

/// Maps tap index i on an axis of length len through the padding mode. Returns false when
/// the tap is outside under zeros padding (coords::grid_pad_index).
inline bool pad_index(int64_t i, int64_t len, GridPadding padding, bool align_corners,
                      int64_t* out) {
  return coords::grid_pad_index(i, len, padding, align_corners, out);
}

/// The period of the reflection or wrap map (coords::grid_reflection_period); 0: no
/// reduction.
inline int64_t reflection_period(const GridSampleProblem& p, int64_t len) {
  return coords::grid_reflection_period(p.padding, p.align_corners, len);
}

/// Taps and weights of one axis for the unnormalized coordinate x (in the grid's
/// coordinate precision G), weights in the compute precision F: the taps of
/// coords::grid_axis_taps, listed in order.
template <class F, class G>
AxisTaps<F> axis_taps(const GridSampleProblem& p, G x, int64_t len) {
  AxisTaps<F> a;
  coords::grid_axis_taps<F>(p.mode, p.padding, p.align_corners, x, len,
                            [&](int, int64_t i, F w) {
                              a.index[a.count] = i;
                              a.weight[a.count] = w;
                              ++a.count;
                            });
  // Constant: a sample whose taps are all outside takes exactly the fill value.
  bool any_inside = false;
  for (int k = 0; k < a.count; ++k) any_inside = any_inside || a.index[k] >= 0;
  if (!any_inside) a.count = 0;
  return a;
}

/// The coordinate of output index o on spatial axis d itself, in the grid's units
/// (GridKind::kDisplacement adds the grid value to it): o in pixels, the identity
/// AffineGrid's value (coords::affine_grid_base, with align_corners) normalized.
template <class G>
G base_coordinate(const GridSampleProblem& p, int d, int64_t o) {
  if (p.units == GridUnits::kPixels) return static_cast<G>(o);
  return coords::affine_grid_base<G>(o, p.out_sizes[static_cast<size_t>(d)], p.align_corners);
}

/// base_coordinate<float> of every output index of axis d, padded with zeros by `pad`
/// entries past the axis (for kernels that load a whole vector of bases at a row's end):
/// the displacement tables of the fast forward paths.
inline std::vector<float> base_table(const GridSampleProblem& p, int d, size_t pad) {
  const int64_t n = p.out_sizes[static_cast<size_t>(d)];
  std::vector<float> b(static_cast<size_t>(n) + pad, 0.0f);
  for (int64_t o = 0; o < n; ++o) b[static_cast<size_t>(o)] = base_coordinate<float>(p, d, o);
  return b;
}

/// The unnormalized (pixel) coordinate of grid value g on spatial axis d at output index
/// o, in the grid's coordinate precision G (docs/ops/grid_sample.md, "Grid conventions"):
/// a displacement is added to base_coordinate first (one rounding in G), then normalized
/// values are unnormalized (ERRATA GridSample 2) and pixel ones taken as they are.
template <class G>
G grid_coordinate(const GridSampleProblem& p, G g, int d, int64_t o) {
  const bool displacement = p.kind == GridKind::kDisplacement;
  return coords::grid_pixel_coordinate(g, displacement,
                                       displacement ? base_coordinate<G>(p, d, o) : G(0),
                                       p.units == GridUnits::kPixels,
                                       p.in_sizes[static_cast<size_t>(d)], p.align_corners);
}

/// Strides of a view split into batch, channel and spatial parts, for the layout.
struct SplitStrides {
  int64_t batch = 0;
  int64_t channel = 0;
  Dims spatial;
};

inline SplitStrides split_strides(const TensorView& v, int r, ChannelLayout layout) {
  SplitStrides s;
  s.batch = v.strides[0];
  if (layout == ChannelLayout::kChannelsFirst) {
    s.channel = v.strides[1];
    s.spatial.assign(v.strides.begin() + 2, v.strides.end());
  } else {
    s.channel = v.strides[static_cast<size_t>(r) + 1];
    s.spatial.assign(v.strides.begin() + 1, v.strides.begin() + 1 + r);
  }
  return s;
}

/// coords::grid_linear_derivative_floor for the problem's padding (the fast backward's
/// linear taps at the kinks).
template <class G>
bool linear_derivative_floor(const GridSampleProblem& p, G x, int64_t len, G* f) {
  return coords::grid_linear_derivative_floor(p.padding, p.align_corners, x, len, f);
}

/// The derivatives with respect to the unnormalized coordinate x of the forward's taps
/// of one axis (coords::grid_axis_derivative_taps, listed in order in the AxisTaps layout:
/// `weight` holds dw/dx).
template <class F, class G>
AxisTaps<F> axis_deriv_taps(const GridSampleProblem& p, G x, int64_t len) {
  AxisTaps<F> a;
  coords::grid_axis_derivative_taps<F>(p.mode, p.padding, p.align_corners, x, len,
                                       [&](int, int64_t i, F w) {
                                         a.index[a.count] = i;
                                         a.weight[a.count] = w;
                                         ++a.count;
                                       });
  return a;
}

/// d x / d g of grid_coordinate on axis d: coords::unnormalize_slope for normalized grids, 1 for
/// pixel grids (a displacement's base does not depend on g).
template <class F>
F coordinate_slope(const GridSampleProblem& p, int d) {
  if (p.units == GridUnits::kPixels) return F(1);
  return coords::unnormalize_slope<F>(p.in_sizes[static_cast<size_t>(d)], p.align_corners);
}

}  // namespace gridops::kernels::ref_taps
