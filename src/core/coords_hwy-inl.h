// The Highway forms of coords.h's GridSample coordinate math, beside the scalar ones:
// unnormalization and Keys' cubic weights, for float vectors. (The vector padding map of
// tap indices stays in the fast kernel's AxisStep::Pad, which mirrors
// coords::grid_pad_index: as a separate object here it made GCC 12 reload its constants
// in the fused path's inner loop.) Each mirrors its scalar function by name and operation order
// (so that a lane gives the scalar function's result, up to the FMAs the compiler may
// form in the cubic polynomials: NOTE [ GridSample fast path tolerance ]), valid for
// |x| < 2^22; callers redo other lanes (non-finite or huge coordinates) with the scalar
// coords::grid_axis_taps.
//
// Highway's per-target include guard: include this after <hwy/highway.h> in a file that
// foreach_target.h re-includes; it is compiled once per target.
#if defined(GRIDOPS_CORE_COORDS_HWY_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef GRIDOPS_CORE_COORDS_HWY_INL_H_
#undef GRIDOPS_CORE_COORDS_HWY_INL_H_
#else
#define GRIDOPS_CORE_COORDS_HWY_INL_H_
#endif

#include <cstdint>

#include <hwy/highway.h>

#include "core/coords.h"

HWY_BEFORE_NAMESPACE();
namespace gridops::coords {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

/// Keeps the compiler from fusing the product into a following add or subtract (an FMA
/// rounds once, the scalar code twice), where a result must match the scalar one exactly.
template <class V>
HWY_INLINE V Opaque(V v) {
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_SSSE3
  asm("" : "+v"(v.raw));
#endif
  return v;
}

/// coords::unnormalize in float: g in [-1, 1] to a pixel coordinate on an axis of length
/// L (L1 = L - 1), bit for bit.
template <class DF, class VF = hn::Vec<DF>>
HWY_INLINE VF UnnormalizeV(DF df, VF g, VF L, VF L1, bool align_corners) {
  const VF one = hn::Set(df, 1.0f);
  const VF gp1 = hn::Add(g, one);
  if (align_corners) return hn::Mul(hn::Mul(gp1, hn::Set(df, 0.5f)), L1);
  return hn::Mul(hn::Sub(Opaque(hn::Mul(gp1, L)), one), hn::Set(df, 0.5f));
}

/// coords::cubic_weights (A = kCubicA) of t = x - floor(x) in [0, 1): near(d) for
/// |d| <= 1, far(d) for 1 < |d| < 2.
/// w: 4 vectors, written as w[0..3] (an array, or a VecArray where vectors are sizeless).
template <class DF, class W, class VF = hn::Vec<DF>>
HWY_INLINE void CubicWeightsV(DF df, VF t, W& w) {
  constexpr float kA = static_cast<float>(kCubicA);
  const VF one = hn::Set(df, 1.0f);
  const VF A = hn::Set(df, kA);
  const VF Ap2 = hn::Set(df, kA + 2.0f), Ap3 = hn::Set(df, kA + 3.0f);
  const VF A5 = hn::Set(df, 5.0f * kA), A8 = hn::Set(df, 8.0f * kA), A4 = hn::Set(df, 4.0f * kA);
  auto near = [&](VF dd) {
    return hn::Add(hn::Mul(hn::Mul(hn::Sub(hn::Mul(Ap2, dd), Ap3), dd), dd), one);
  };
  auto far = [&](VF dd) {
    return hn::Sub(hn::Mul(hn::Add(hn::Mul(hn::Sub(hn::Mul(A, dd), A5), dd), A8), dd), A4);
  };
  const VF two = hn::Set(df, 2.0f);
  w[0] = far(hn::Add(t, one));
  w[1] = near(t);
  w[2] = near(hn::Sub(one, t));
  w[3] = far(hn::Sub(two, t));
}

}  // namespace HWY_NAMESPACE
}  // namespace gridops::coords
HWY_AFTER_NAMESPACE();

#endif  // per-target include guard
