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
  auto add = [&](int k, int64_t i, F w) {
    int64_t j;
    if (grid_pad_index(i, len, padding, align_corners, &j)) {
      put(k, j, w);
    } else if (padding == GridPadding::kConstant) {
      put(k, int64_t{-1}, w);
    }
  };
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
