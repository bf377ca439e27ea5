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
  if (p.kind == GridKind::kDisplacement) g = g + base_coordinate<G>(p, d, o);
  if (p.units == GridUnits::kPixels) return g;
  return coords::unnormalize(g, p.in_sizes[static_cast<size_t>(d)], p.align_corners);
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

/// PyTorch's reflect-then-clip of a continuous coordinate (reflect about lo and hi, then
/// clip to [0, len-1]), returning the mapped coordinate and in *mult its derivative: +1,
/// -1, or 0 where it was clipped or lands exactly on 0 or len-1. Used only by the
/// backward, to take PyTorch's convention at the non-differentiable points of linear +
/// reflection (linear_derivative_floor; docs/ops/grid_sample.md, "Backward"). The mirrors are 0 and len-1 with
/// align_corners, -0.5 and len-0.5 without. The parity of the number of reflections comes
/// from fmod by twice the span (exact), so no huge coordinate is converted to an integer.
template <class G>
G reflect_clip_coordinate(G x, int64_t len, bool align_corners, int* mult) {
  const G lo = align_corners ? G(0) : G(-0.5);
  const G hi = align_corners ? static_cast<G>(len - 1) : static_cast<G>(len) - G(0.5);
  const G last = static_cast<G>(len - 1);
  *mult = 0;
  if (!(hi > lo)) return G(0);  // len == 1 with align_corners: a single point
  const G span = hi - lo;
  G in = x - lo;
  int m = 1;
  if (in < G(0)) {
    m = -1;
    in = -in;
  }
  const G e = std::fmod(in, G(2) * span);
  G xr;
  if (e < span) {
    xr = e + lo;
  } else {
    xr = G(2) * span - e + lo;
    m = -m;
  }
  if (xr <= G(0)) return G(0);
  if (xr >= last) return last;
  *mult = m;
  return xr;
}

/// PyTorch's convention for the derivative of linear interpolation along one axis at the
/// unnormalized coordinate x (finite), in terms of the per-tap forward: returns false where
/// the derivative is 0, else the floor f of the interval [f, f+1] whose slope is taken
/// (the derivative is then v(f+1) - v(f), padded taps). PyTorch maps x to a coordinate x'
/// first (border: clip to [0, L-1]; reflection: reflect, then clip) with derivative
/// m = dx'/dx in {1, -1, 0} (0 where clipped or at the clip limits 0 and L-1, and, for
/// len 1 with align_corners, everywhere), and takes the right derivative at x'. In x:
///   zeros, constant, wrap: f = floor(x): the right derivative;
///   border, fill (inside samples): 0 where x <= 0 or x >= L-1, else f = floor(x);
///   reflection: 0 where m == 0; the right derivative where m == 1; where m == -1 (a
///               mirrored stretch) the right derivative at x' is the left derivative at x:
///               f = x - 1 at integer x, floor(x) elsewhere.
template <class G>
bool linear_derivative_floor(const GridSampleProblem& p, G x, int64_t len, G* f) {
  const G fl = std::floor(x);
  *f = fl;
  switch (p.padding) {
    case GridPadding::kZeros:
    case GridPadding::kConstant:
    case GridPadding::kWrap:
      return true;
    case GridPadding::kBorder:
    case GridPadding::kFill:  // inside samples clamp their taps like border
      return x > G(0) && x < static_cast<G>(len - 1);
    case GridPadding::kReflection: {
      int m = 0;
      reflect_clip_coordinate(x, len, p.align_corners, &m);
      if (m == 0) return false;
      if (m < 0 && x == fl) *f = fl - G(1);
      return true;
    }
  }
  return false;
}

/// The derivatives with respect to the unnormalized coordinate x of the forward's taps
/// of one axis (same AxisTaps layout: `weight` holds dw/dx; padded indices; taps outside
/// under zeros are not listed; under constant listed with index -1: they read the fill
/// value). Nearest, non-finite x and fill's samples outside: no taps (zero derivative).
/// Linear: -1 and +1 on the taps f and f+1 of linear_derivative_floor (PyTorch's
/// conventions at the kinks). Cubic is C1: the derivative of Keys' weights at
/// t = x - floor(x).
template <class F, class G>
AxisTaps<F> axis_deriv_taps(const GridSampleProblem& p, G x, int64_t len) {
  AxisTaps<F> a;
  if (p.mode == InterpolationMode::kNearest || !std::isfinite(x)) return a;
  if (p.padding == GridPadding::kFill && !coords::grid_fill_inside(x, len, p.align_corners)) {
    return a;
  }
  const int64_t period = reflection_period(p, len);
  auto add = [&](int64_t i, F w) {
    int64_t j;
    if (!pad_index(i, len, p.padding, p.align_corners, &j)) {
      if (p.padding != GridPadding::kConstant) return;
      j = -1;
    }
    a.index[a.count] = j;
    a.weight[a.count] = w;
    ++a.count;
  };
  if (p.mode == InterpolationMode::kLinear) {
    G f;
    if (!linear_derivative_floor(p, x, len, &f)) return a;
    const int64_t i0 = coords::to_index(f, period);
    add(i0, F(-1));
    add(i0 + 1, F(1));
    return a;
  }
  const G f = std::floor(x);  // cubic
  const F t = static_cast<F>(x - f);
  const int64_t i0 = coords::to_index(f, period);
  F dw[4];
  coords::cubic_weight_derivatives(t, dw);
  for (int k = 0; k < 4; ++k) add(i0 - 1 + k, dw[k]);
  return a;
}

/// d x / d g of the unnormalization (ERRATA GridSample 2): (len-1)/2 with align_corners,
/// len/2 without.
template <class F>
F unnormalize_slope(int64_t len, bool align_corners) {
  return align_corners ? static_cast<F>(len - 1) / F(2) : static_cast<F>(len) / F(2);
}

/// d x / d g of grid_coordinate on axis d: unnormalize_slope for normalized grids, 1 for
/// pixel grids (a displacement's base does not depend on g).
template <class F>
F coordinate_slope(const GridSampleProblem& p, int d) {
  if (p.units == GridUnits::kPixels) return F(1);
  return unnormalize_slope<F>(p.in_sizes[static_cast<size_t>(d)], p.align_corners);
}

}  // namespace gridops::kernels::ref_taps
