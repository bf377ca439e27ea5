// Coordinate math shared by every operator, written once. Reference kernels call these;
// SIMD kernels mirror them by name and are tested against them.
//
// NOTE [ Index padding ]
// Four periodic maps bring any integer index into [0, n):
//   clamp     : edge replication              (GridSample border, Pad edge, Resample taps)
//   reflect   : mirror about 0 and n-1, period 2(n-1), edge not repeated
//               (Pad reflect, GridSample reflection with align_corners=1)
//   symmetric : mirror about -0.5 and n-0.5, period 2n, edge repeated
//               (Pad symmetric, GridSample reflection with align_corners=0)
//   wrap      : period n (Pad wrap)
// They work for any distance (no "one reflection only" limit) and never overflow: the
// reduction uses % on int64, never a sum that could wrap. n == 1 maps everything to 0.
// Callers guarantee n >= 1.
#pragma once

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstdint>
#include <limits>

#include "gridops/ops/grid_sample.h"  // InterpolationMode, GridPadding

namespace gridops::coords {

/// Taps per axis of an interpolation: 1 (nearest), 2 (linear), 4 (cubic).
constexpr int taps_per_axis(InterpolationMode m) noexcept {
  return m == InterpolationMode::kNearest ? 1 : m == InterpolationMode::kLinear ? 2 : 4;
}

__extension__ typedef __int128 int128_t;  // GCC/Clang extension; exact 64x64-bit products

/// Clamps i to [0, n-1].
inline int64_t clamp_index(int64_t i, int64_t n) noexcept {
  assert(n >= 1);
  return i < 0 ? 0 : (i >= n ? n - 1 : i);
}

/// Reflection about 0 and n-1 (edge not repeated). See NOTE [ Index padding ].
inline int64_t reflect_index(int64_t i, int64_t n) noexcept {
  assert(n >= 1);
  if (n == 1) return 0;
  const int64_t period = 2 * (n - 1);
  int64_t m = i % period;
  if (m < 0) m += period;
  return m < n ? m : period - m;
}

/// Reflection about -0.5 and n-0.5 (edge repeated). See NOTE [ Index padding ].
inline int64_t symmetric_index(int64_t i, int64_t n) noexcept {
  assert(n >= 1);
  const int64_t period = 2 * n;
  int64_t m = i % period;
  if (m < 0) m += period;
  return m < n ? m : period - 1 - m;
}

/// Periodic wrap. See NOTE [ Index padding ].
inline int64_t wrap_index(int64_t i, int64_t n) noexcept {
  assert(n >= 1);
  int64_t m = i % n;
  return m < 0 ? m + n : m;
}

/// Rounds half to even, independent of the floating-point environment.
template <class F>
F round_half_even(F x) noexcept {
  const F f = std::floor(x);
  const F d = x - f;  // exact in binary floating point
  if (d > F(0.5)) return f + F(1);
  if (d < F(0.5)) return f;
  return std::fmod(f, F(2)) == F(0) ? f : f + F(1);
}

/// GridSample unnormalization (ERRATA GridSample 2): normalized g in [-1, 1] to a pixel
/// coordinate on an axis of length `len`. Computed in F (float for half/bf16/float grids,
/// double for double grids).
template <class F>
F unnormalize(F g, int64_t len, bool align_corners) noexcept {
  const F L = static_cast<F>(len);
  if (align_corners) return (g + F(1)) / F(2) * (L - F(1));
  return ((g + F(1)) * L - F(1)) / F(2);
}

/// GridSample's unnormalized coordinate of grid value g on an axis of length `len`
/// (docs/ops/grid_sample.md, "Grid conventions"), in the grid's coordinate precision G: a
/// displacement grid's value is added to the point's own coordinate `base` first (one
/// rounding in G), then normalized values are unnormalized and pixel ones taken as they
/// are. The reference, the fast paths' finishing pass and the input box use it; the
/// vector paths do the same operations in their vectors.
template <class G>
G grid_pixel_coordinate(G g, bool displacement, G base, bool pixels, int64_t len,
                        bool align_corners) noexcept {
  if (displacement) g = g + base;
  return pixels ? g : unnormalize(g, len, align_corners);
}

/// A large bound for indices taken from floating-point coordinates: far outside any
/// tensor, yet tap arithmetic (+-2) never overflows.
inline constexpr int64_t kFarIndex = int64_t{1} << 62;

/// Converts an integer-valued, finite floating-point value to int64 for index padding,
/// saturating to +-kFarIndex. Exact for |v| < 2^62. `period` > 0 reduces v modulo the
/// period first (exactly, in double) so that a periodic padding map of a huge coordinate
/// gives the same index as exact arithmetic would (for period < 2^53).
template <class F>
int64_t to_index(F v, int64_t period = 0) noexcept {
  double d = static_cast<double>(v);
  if (period > 0 && std::fabs(d) >= 4503599627370496.0 /* 2^52 */) {
    d = std::fmod(d, static_cast<double>(period));
  }
  if (!(d > -static_cast<double>(kFarIndex))) return -kFarIndex;
  if (!(d < static_cast<double>(kFarIndex))) return kFarIndex;
  return static_cast<int64_t>(d);
}

/// Keys' cubic coefficient A of GridSample's cubic mode (ERRATA GridSample 6). The one
/// place it is written: cubic_weights, cubic_weight_derivatives and the Highway forms in
/// coords_hwy-inl.h use it.
inline constexpr double kCubicA = -0.75;

/// Keys' cubic convolution weights with A = kCubicA for the 4 taps floor(x)-1 .. floor(x)+2,
/// given t = x - floor(x) in [0, 1).
template <class F>
void cubic_weights(F t, F w[4]) noexcept {
  constexpr F A = F(kCubicA);
  auto near = [](F d) { return ((A + F(2)) * d - (A + F(3))) * d * d + F(1); };   // |d| <= 1
  auto far = [](F d) { return ((A * d - F(5) * A) * d + F(8) * A) * d - F(4) * A; };  // 1<|d|<2
  w[0] = far(t + F(1));
  w[1] = near(t);
  w[2] = near(F(1) - t);
  w[3] = far(F(2) - t);
}

/// Derivatives with respect to x of the cubic_weights above (tap i weighted W(x - i)),
/// given t = x - floor(x) in [0, 1): dw[k] = d/dx W(x - (floor(x) - 1 + k)), the right
/// derivative at integer x (Keys' kernel is C1, so left and right agree there).
template <class F>
void cubic_weight_derivatives(F t, F dw[4]) noexcept {
  constexpr F A = F(kCubicA);
  auto near = [](F d) { return (F(3) * (A + F(2)) * d - F(2) * (A + F(3))) * d; };  // W'(d), 0 <= d <= 1
  auto far = [](F d) { return (F(3) * A * d - F(10) * A) * d + F(8) * A; };        // W'(d), 1 < d < 2
  dw[0] = far(t + F(1));    // d = x - i = t + 1
  dw[1] = near(t);          // d = t
  dw[2] = -near(F(1) - t);  // d = i - x = 1 - t; W is even, so d/dx W(x - i) = -W'(1 - t)
  dw[3] = -far(F(2) - t);   // d = 2 - t
}

// --- GridSample's per-axis taps (docs/ops/grid_sample.md, "Formulas") -----------------
// The reference, the fast forward (its lanes with non-finite or huge coordinates) and the
// fast backward all take their taps from these; the Highway form of the finite case is
// coords_hwy-inl.h (GridAxisTapsV and its helpers).

/// Maps tap index i on an axis of length len >= 1 through a GridSample padding mode
/// (NOTE [ Index padding ]): zeros and constant -> false when outside (ERRATA GridSample
/// 4; constant's caller reads the fill value there), border and fill -> clamp (fill's
/// samples outside never get here), reflection -> reflect (align_corners) or symmetric,
/// wrap -> modulo len (whatever align_corners).
inline bool grid_pad_index(int64_t i, int64_t len, GridPadding padding, bool align_corners,
                           int64_t* out) noexcept {
  switch (padding) {
    case GridPadding::kZeros:
    case GridPadding::kConstant:
      if (i < 0 || i >= len) return false;
      *out = i;
      return true;
    case GridPadding::kBorder:
    case GridPadding::kFill:
      *out = clamp_index(i, len);
      return true;
    case GridPadding::kReflection:
      *out = align_corners ? reflect_index(i, len) : symmetric_index(i, len);
      return true;
    case GridPadding::kWrap:
      *out = wrap_index(i, len);
      return true;
  }
  return false;
}

/// The period of GridSample's periodic maps on an axis of length len (reflection: 2 (len -
/// 1) with align_corners, 2 len without; wrap: len), used to reduce huge coordinates
/// exactly before they are converted to int64 (to_index); 0 ("no reduction") for the
/// other paddings.
inline int64_t grid_reflection_period(GridPadding padding, bool align_corners,
                                      int64_t len) noexcept {
  if (padding == GridPadding::kWrap) return len;
  if (padding != GridPadding::kReflection) return 0;
  return align_corners ? 2 * (len - 1) : 2 * len;
}

/// Whether padding fill's sample at coordinate x lies inside the input's bounds, the
/// closed interval [0, len - 1] with align_corners, [-0.5, len - 0.5] without (the
/// mirrors of reflection); false for NaN and for len 0.
template <class G>
bool grid_fill_inside(G x, int64_t len, bool align_corners) noexcept {
  if (len <= 0) return false;
  const G lo = align_corners ? G(0) : G(-0.5);
  const G hi = align_corners ? static_cast<G>(len - 1) : static_cast<G>(len) - G(0.5);
  return x >= lo && x <= hi;
}

/// ERRATA GridSample 8: a non-finite unnormalized coordinate never reaches a float-to-int
/// conversion. Returns false when no tap contributes (zeros, constant and fill padding:
/// the sample is outside); else replaces a NaN by 0, and an infinity by the nearest edge
/// (border) or 0 (reflection or wrap of an infinite distance has no value: like NaN).
/// Finite coordinates are left alone.
template <class G>
bool grid_finite_coordinate(G* x, int64_t len, GridPadding padding) noexcept {
  const bool outside_reads_nothing = padding == GridPadding::kZeros ||
                                     padding == GridPadding::kConstant ||
                                     padding == GridPadding::kFill;
  if (std::isnan(*x)) {
    if (outside_reads_nothing) return false;
    *x = G(0);
  } else if (std::isinf(*x)) {
    if (outside_reads_nothing) return false;
    *x = padding == GridPadding::kBorder && *x > G(0) ? static_cast<G>(len - 1) : G(0);
  }
  return true;
}

/// Puts tap k at raw index i with weight (or derivative) w through the padding: the padded
/// index, or -1 for a tap outside under constant padding (it reads the fill value), or
/// nothing for one outside under zeros.
template <class F, class Put>
void grid_put_tap(GridPadding padding, bool align_corners, int64_t len, int k, int64_t i, F w,
                  Put& put) {
  int64_t j;
  if (grid_pad_index(i, len, padding, align_corners, &j)) {
    put(k, j, w);
  } else if (padding == GridPadding::kConstant) {
    put(k, int64_t{-1}, w);
  }
}

/// The taps of one axis of length len >= 1 for the unnormalized coordinate x (grid
/// precision G), weights in the compute precision F: calls put(k, index, weight) for each
/// tap k (0 .. K-1, K = 1, 2, 4 for nearest, linear, cubic) that contributes, with the
/// index padded; a tap outside under zeros padding, and every tap of a non-finite x under
/// zeros padding, is not put (ERRATA GridSample 3-8). Constant padding puts a tap outside
/// with index -1 (its caller reads the fill value there); fill puts nothing for a sample
/// outside grid_fill_inside, and border taps otherwise. Nothing put (zeros: value 0;
/// constant and fill: the fill value) for a non-finite x under those three.
template <class F, class G, class Put>
void grid_axis_taps(InterpolationMode mode, GridPadding padding, bool align_corners, G x,
                    int64_t len, Put&& put) {
  if (!grid_finite_coordinate(&x, len, padding)) return;
  if (padding == GridPadding::kFill && !grid_fill_inside(x, len, align_corners)) return;
  const int64_t period = grid_reflection_period(padding, align_corners, len);
  auto add = [&](int k, int64_t i, F w) { grid_put_tap(padding, align_corners, len, k, i, w, put); };
  switch (mode) {
    case InterpolationMode::kNearest:
      // ERRATA GridSample 3, 5: round half to even first, then pad the integer index.
      add(0, to_index(round_half_even(x), period), F(1));
      break;
    case InterpolationMode::kLinear: {
      const G f = std::floor(x);
      const F t = static_cast<F>(x - f);  // exact in G, exact widening to F
      const int64_t i0 = to_index(f, period);
      add(0, i0, F(1) - t);
      add(1, i0 + 1, t);
      break;
    }
    case InterpolationMode::kCubic: {
      const G f = std::floor(x);
      const F t = static_cast<F>(x - f);
      const int64_t i0 = to_index(f, period);
      F w[4];
      cubic_weights(t, w);  // ERRATA GridSample 6: Keys, A = kCubicA
      for (int k = 0; k < 4; ++k) add(k, i0 - 1 + k, w[k]);
      break;
    }
  }
}

/// The hull [*lo, *hi] of the padded tap indices that grid_axis_taps reads from src for
/// any unnormalized coordinate in [xlo, xhi] on an axis of length len >= 1 (`nonfinite`:
/// xlo or xhi is an infinity, from a finite grid value unnormalized). Returns false when
/// no such tap reads src (zeros and constant: every tap outside). Exact for the hull
/// because every step of the taps is monotone (non-decreasing) in the coordinate: floor
/// and round-half-even, the conversion to an index (saturating) and clamping; zeros and
/// constant drop (or fill) taps outside, which stay outside the clipped hull. Reflection
/// folds the raw hull's overhangs back once (the whole axis when the raw taps reach beyond
/// one fold); wrap takes the whole axis once a tap leaves it.
template <class G>
bool grid_tap_hull(InterpolationMode mode, GridPadding padding, bool align_corners, G xlo,
                   G xhi, bool nonfinite, int64_t len, int64_t* lo_out, int64_t* hi_out) noexcept {
  auto raw = [&](G x, bool low) -> int64_t {
    if (mode == InterpolationMode::kNearest) return to_index(round_half_even(x));
    const int64_t f = to_index(std::floor(x));
    if (mode == InterpolationMode::kLinear) return low ? f : f + 1;
    return low ? f - 1 : f + 2;
  };
  int64_t lo = raw(xlo, true), hi = raw(xhi, false);
  switch (padding) {
    case GridPadding::kZeros:
    case GridPadding::kConstant:  // taps outside read the fill value, not src
      lo = std::max<int64_t>(lo, 0);
      hi = std::min<int64_t>(hi, len - 1);
      if (lo > hi) return false;
      break;
    case GridPadding::kBorder:
    case GridPadding::kFill:  // inside samples clamp (a superset of what they read)
      lo = std::clamp<int64_t>(lo, 0, len - 1);
      hi = std::clamp<int64_t>(hi, 0, len - 1);
      break;
    case GridPadding::kWrap:  // any tap beyond the input may wrap anywhere: the whole axis
      if (nonfinite || lo < 0 || hi > len - 1) {
        lo = 0;
        hi = len - 1;
      }
      break;
    case GridPadding::kReflection: {
      // One fold at most (raw taps within one period around the input): the raw hull's
      // inside part plus its mirrored overhangs (i < 0 -> -i - 1, i >= len -> 2 len - 1 - i;
      // with align_corners -i and 2 (len - 1) - i). Otherwise the whole axis.
      const int64_t first = align_corners ? -(len - 1) : -len;
      const int64_t last = align_corners ? 2 * (len - 1) : 2 * len - 1;
      if (nonfinite || len == 1 || lo < first || hi > last) {
        lo = 0;
        hi = len - 1;
        break;
      }
      int64_t a = std::max<int64_t>(lo, 0), b = std::min<int64_t>(hi, len - 1);
      if (lo < 0) {
        a = 0;
        b = std::max(b, align_corners ? -lo : -lo - 1);
      }
      if (hi > len - 1) {
        b = len - 1;
        a = std::min(a, align_corners ? 2 * (len - 1) - hi : 2 * len - 1 - hi);
      }
      lo = a;
      hi = b;
      break;
    }
  }
  *lo_out = lo;
  *hi_out = hi;
  return true;
}

// --- GridSample's gradient twins: the derivatives of the taps above --------------------

/// d x / d g of the unnormalization (ERRATA GridSample 2): (len-1)/2 with align_corners,
/// len/2 without.
template <class F>
F unnormalize_slope(int64_t len, bool align_corners) noexcept {
  return align_corners ? static_cast<F>(len - 1) / F(2) : static_cast<F>(len) / F(2);
}

/// PyTorch's reflect-then-clip of a continuous coordinate (reflect about lo and hi, then
/// clip to [0, len-1]), returning the mapped coordinate and in *mult its derivative: +1,
/// -1, or 0 where it was clipped or lands exactly on 0 or len-1. Used only by the
/// backward, to take PyTorch's convention at the non-differentiable points of linear +
/// reflection (grid_linear_derivative_floor; docs/ops/grid_sample.md, "Backward"). The
/// mirrors are 0 and len-1 with align_corners, -0.5 and len-0.5 without. The parity of the
/// number of reflections comes from fmod by twice the span (exact), so no huge coordinate
/// is converted to an integer.
template <class G>
G grid_reflect_clip(G x, int64_t len, bool align_corners, int* mult) noexcept {
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
bool grid_linear_derivative_floor(GridPadding padding, bool align_corners, G x, int64_t len,
                                  G* f) noexcept {
  const G fl = std::floor(x);
  *f = fl;
  switch (padding) {
    case GridPadding::kZeros:
    case GridPadding::kConstant:
    case GridPadding::kWrap:
      return true;
    case GridPadding::kBorder:
    case GridPadding::kFill:  // inside samples clamp their taps like border
      return x > G(0) && x < static_cast<G>(len - 1);
    case GridPadding::kReflection: {
      int m = 0;
      grid_reflect_clip(x, len, align_corners, &m);
      if (m == 0) return false;
      if (m < 0 && x == fl) *f = fl - G(1);
      return true;
    }
  }
  return false;
}

/// The twin of grid_axis_taps for the derivatives with respect to the unnormalized
/// coordinate x: calls put(k, index, dw/dx) for each tap k of the forward's taps that has
/// a derivative (padded index; a tap outside under zeros is not put, under constant put
/// with index -1). Nearest, non-finite x and fill's samples outside: nothing (zero
/// derivative). Linear: -1 and +1 on the taps f and f+1 of grid_linear_derivative_floor
/// (PyTorch's conventions at the kinks). Cubic is C1: the derivative of Keys' weights at
/// t = x - floor(x).
template <class F, class G, class Put>
void grid_axis_derivative_taps(InterpolationMode mode, GridPadding padding, bool align_corners,
                               G x, int64_t len, Put&& put) {
  if (mode == InterpolationMode::kNearest || !std::isfinite(x)) return;
  if (padding == GridPadding::kFill && !grid_fill_inside(x, len, align_corners)) return;
  const int64_t period = grid_reflection_period(padding, align_corners, len);
  auto add = [&](int k, int64_t i, F w) { grid_put_tap(padding, align_corners, len, k, i, w, put); };
  if (mode == InterpolationMode::kLinear) {
    G f;
    if (!grid_linear_derivative_floor(padding, align_corners, x, len, &f)) return;
    const int64_t i0 = to_index(f, period);
    add(0, i0, F(-1));
    add(1, i0 + 1, F(1));
    return;
  }
  const G f = std::floor(x);  // cubic
  const F t = static_cast<F>(x - f);
  const int64_t i0 = to_index(f, period);
  F dw[4];
  cubic_weight_derivatives(t, dw);
  for (int k = 0; k < 4; ++k) add(k, i0 - 1 + k, dw[k]);
}

/// Resample nearest (ERRATA Resampling 1): i = floor((2o + 1) * I / (2O)), exact.
inline int64_t resample_nearest_index(int64_t o, int64_t in, int64_t out) noexcept {
  assert(in >= 1 && out >= 1 && o >= 0 && o < out);
  const int128_t num = static_cast<int128_t>(2 * o + 1) * in;
  const int128_t den = static_cast<int128_t>(2) * out;
  int64_t i = static_cast<int64_t>(num / den);
  return i < in ? i : in - 1;
}

/// Resample linear taps and weights (ERRATA Resampling 1), computed in double:
/// s = (o + 0.5) * I / O - 0.5, taps floor(s) and floor(s)+1 clamped to [0, I-1],
/// weights 1 - t and t with t = s - floor(s).
struct LinearTaps {
  int64_t i0, i1;
  double w0, w1;
};
inline LinearTaps resample_linear_taps(int64_t o, int64_t in, int64_t out) noexcept {
  assert(in >= 1 && out >= 1 && o >= 0 && o < out);
  const double s = (static_cast<double>(o) + 0.5) * static_cast<double>(in) /
                       static_cast<double>(out) - 0.5;
  const double f = std::floor(s);
  const double t = s - f;
  const int64_t i = static_cast<int64_t>(f);
  return LinearTaps{clamp_index(i, in), clamp_index(i + 1, in), 1.0 - t, t};
}


/// Keys' cubic convolution kernel with coefficient A at distance d (any sign):
/// (A+2)|d|^3 - (A+3)|d|^2 + 1 for |d| <= 1, A|d|^3 - 5A|d|^2 + 8A|d| - 4A for 1 < |d| < 2,
/// 0 beyond (ONNX Resize cubic and its antialiased form).
inline double keys_cubic(double d, double A) noexcept {
  d = std::fabs(d);
  if (d <= 1.0) return ((A + 2.0) * d - (A + 3.0)) * d * d + 1.0;
  if (d < 2.0) return ((A * d - 5.0 * A) * d + 8.0 * A) * d - 4.0 * A;
  return 0.0;
}

/// The triangle (tent) kernel max(0, 1 - |d|) (ONNX Resize linear and its antialiased form).
inline double tent(double d) noexcept {
  d = std::fabs(d);
  return d < 1.0 ? 1.0 - d : 0.0;
}

/// ONNX Resize coordinate transformations (docs/ops/resize.md, "Coordinates"): the input
/// coordinate of output index o on an axis of input length `in`, integer output length
/// `out`, scale `scale` and real output length `length` (in * scale, or out for stretched
/// sizes), in double. `roi_start`/`roi_end` are used by tf_crop_and_resize only, which sets
/// *outside when the coordinate falls outside [0, in - 1] (extrapolation).
enum class ResizeCoord { kHalfPixel, kHalfPixelSymmetric, kPytorchHalfPixel, kAlignCorners,
                         kAsymmetric, kTfHalfPixelForNN, kTfCropAndResize };
inline double resize_coordinate(ResizeCoord mode, int64_t o, int64_t in, int64_t out,
                                double scale, double length, double roi_start, double roi_end,
                                bool* outside) noexcept {
  const double x = static_cast<double>(o);
  const double I = static_cast<double>(in);
  *outside = false;
  switch (mode) {
    case ResizeCoord::kHalfPixel:
      return (x + 0.5) / scale - 0.5;
    case ResizeCoord::kHalfPixelSymmetric: {
      const double adjustment = static_cast<double>(out) / length;
      const double offset = I / 2.0 * (1.0 - adjustment);
      return offset + (x + 0.5) / scale - 0.5;
    }
    case ResizeCoord::kPytorchHalfPixel:
      return length > 1.0 ? (x + 0.5) / scale - 0.5 : 0.0;
    case ResizeCoord::kAlignCorners:
      return length == 1.0 ? 0.0 : x * (I - 1.0) / (length - 1.0);
    case ResizeCoord::kAsymmetric:
      return x / scale;
    case ResizeCoord::kTfHalfPixelForNN:
      return (x + 0.5) / scale;
    case ResizeCoord::kTfCropAndResize: {
      double c = length == 1.0 ? (roi_end - roi_start) * (I - 1.0) / 2.0
                               : x * (roi_end - roi_start) * (I - 1.0) / (length - 1.0);
      c += roi_start * (I - 1.0);
      if (!(c >= 0.0 && c <= I - 1.0)) *outside = true;  // also NaN
      return c;
    }
  }
  return 0.0;
}

// --- AffineGrid -------------------------------------------------------------------------

/// The base (normalized) coordinate of index i on an AffineGrid axis of length len, in F
/// (float or double; NOTE [ AffineGrid arithmetic ] in affine_grid_ref.cc): with
/// align_corners 2i / (len - 1) - 1, else (2i + 1) / len - 1, each operation rounded in F;
/// 0 for len == 1 (ERRATA AffineGrid 1: the single pixel is the centre). 0 <= i < len and
/// 2 len fits int64 (the grid holds len * r >= 2 len elements).
template <class F>
F affine_grid_base(int64_t i, int64_t len, bool align_corners) noexcept {
  assert(len >= 1 && i >= 0 && i < len);
  if (len == 1) return F(0);
  if (align_corners) return static_cast<F>(2 * i) / static_cast<F>(len - 1) - F(1);
  return static_cast<F>(2 * i + 1) / static_cast<F>(len) - F(1);
}

}  // namespace gridops::coords
