// Kernel contract for multi-scale deformable attention. The operator layer
// (src/ops/ms_deform_attn.cc) validates shapes, views and dtypes; kernels assert.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>

#include "gridops/ops/ms_deform_attn.h"
#include "gridops/tensor.h"

namespace gridops::kernels {

/// A validated problem: the shape and the dtype (float32 or float64).
struct MsDeformAttnProblem {
  MsDeformAttnShape shape;
  DType dtype = DType::kFloat32;
};

/// The views of a forward or backward run (shapes checked; any strides). The backward's
/// outputs may be null; none overlaps another view.
struct MsDeformAttnViews {
  const TensorView* value = nullptr;
  const TensorView* locations = nullptr;
  const TensorView* weights = nullptr;
  const MutableTensorView* output = nullptr;       ///< forward
  const TensorView* grad_output = nullptr;         ///< backward
  const MutableTensorView* grad_value = nullptr;   ///< backward, optional
  const MutableTensorView* grad_locations = nullptr;
  const MutableTensorView* grad_weights = nullptr;
};

/// The bilinear taps of one point in one level: pixel coordinate c = loc * n - 0.5 on an
/// axis of n >= 1 cells; taps i0 = floor(c) with weight 1 - f and i0 + 1 with weight f
/// (f = c - i0), each used only where inside [0, n). A point with c outside (-1, n) (NaN
/// included) has no tap: it samples 0 and has no gradient.
template <class F>
struct AxisTaps {
  int64_t i0 = 0;
  F w0 = 0, w1 = 0;
  bool in0 = false, in1 = false;
  bool any = false;
};

template <class F>
inline AxisTaps<F> axis_taps(F loc, int64_t n) {
  AxisTaps<F> t;
  const F c = loc * static_cast<F>(n) - F(0.5);
  if (!(c > F(-1) && c < static_cast<F>(n))) return t;  // outside or NaN
  const F fl = std::floor(c);
  t.i0 = static_cast<int64_t>(fl);
  const F f = c - fl;
  t.w0 = F(1) - f;
  t.w1 = f;
  t.in0 = t.i0 >= 0;
  t.in1 = t.i0 + 1 < n;
  t.any = true;
  return t;
}

/// The reference: loops over (n, q, m, l, p) and the four taps in the order
/// (y0, x0), (y0, x1), (y1, x0), (y1, x1), in double; single-threaded.
void ms_deform_attn_ref_forward(const MsDeformAttnProblem& p, const void* tables,
                                const MsDeformAttnViews& v);
void ms_deform_attn_ref_backward(const MsDeformAttnProblem& p, const void* tables,
                                 const MsDeformAttnViews& v);

/// ms_deform_attn.heads: the same sums in the dtype's precision (float32 for float32),
/// each (n, q, m) of the forward and each (n, m) of the backward (whose queries write
/// their own locations' and weights' gradients and add into the head's value gradient in
/// query order) on one thread: the bits do not depend on the thread count.
std::string ms_deform_attn_heads_declines(const MsDeformAttnProblem& p);
void ms_deform_attn_heads_forward(const MsDeformAttnProblem& p, const void* tables,
                                  const MsDeformAttnViews& v);
void ms_deform_attn_heads_backward(const MsDeformAttnProblem& p, const void* tables,
                                   const MsDeformAttnViews& v);

}  // namespace gridops::kernels
