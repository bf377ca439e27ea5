// The multi-scale deformable attention reference: the definition (docs/ops/ms_deform_attn.md)
// as nested loops, in double, single-threaded (each output rounded once to the storage type).
#include <cassert>
#include <vector>

#include "core/convert.h"
#include "kernels/ms_deform_attn/ms_deform_attn.h"

namespace gridops::kernels {
namespace {

/// Element access by index through a view's strides: reads as double, writes a double
/// rounded once to the storage type T.
template <class T>
struct At {
  const TensorView* v;
  T* at(std::initializer_list<int64_t> idx) const {
    int64_t off = 0;
    size_t d = 0;
    for (int64_t i : idx) off += i * v->strides[d++];
    return static_cast<T*>(const_cast<void*>(v->data)) + off;
  }
  double operator()(std::initializer_list<int64_t> idx) const {
    return convert::load_real<double>(*at(idx));
  }
  void put(std::initializer_list<int64_t> idx, double x) const { *at(idx) = convert::store_real<T>(x); }
};

/// Calls tap(row, weight) for each inside tap of point (x, y) of level l, in the order
/// (y0, x0), (y0, x1), (y1, x0), (y1, x1); row is the value row (start_l + y * W + x).
template <class Tap>
void for_each_tap(const MsDeformAttnShape& s, int64_t l, double x, double y, Tap&& tap) {
  const int64_t H = s.spatial_shapes[2 * l], W = s.spatial_shapes[2 * l + 1];
  if (H <= 0 || W <= 0) return;
  const AxisTaps<double> tx = axis_taps(x, W), ty = axis_taps(y, H);
  if (!tx.any || !ty.any) return;
  const int64_t start = s.level_start_index[l];
  const bool iny[2] = {ty.in0, ty.in1}, inx[2] = {tx.in0, tx.in1};
  const double wy[2] = {ty.w0, ty.w1}, wx[2] = {tx.w0, tx.w1};
  for (int a = 0; a < 2; ++a) {
    for (int b = 0; b < 2; ++b) {
      if (iny[a] && inx[b]) tap(start + (ty.i0 + a) * W + tx.i0 + b, wy[a] * wx[b], a, b);
    }
  }
}

template <class T>
void forward(const MsDeformAttnProblem& p, const MsDeformAttnViews& v) {
  const MsDeformAttnShape& s = p.shape;
  const int64_t L = static_cast<int64_t>(s.level_start_index.size());
  const At<T> value{v.value}, loc{v.locations}, att{v.weights}, out{v.output};
  std::vector<double> acc(static_cast<size_t>(s.channels));
  for (int64_t n = 0; n < s.batch; ++n)
    for (int64_t q = 0; q < s.queries; ++q)
      for (int64_t m = 0; m < s.heads; ++m) {
        std::fill(acc.begin(), acc.end(), 0.0);
        for (int64_t l = 0; l < L; ++l)
          for (int64_t k = 0; k < s.points; ++k) {
            const double a = att({n, q, m, l, k});
            for_each_tap(s, l, loc({n, q, m, l, k, 0}), loc({n, q, m, l, k, 1}),
                         [&](int64_t row, double w, int, int) {
                           for (int64_t d = 0; d < s.channels; ++d) {
                             acc[static_cast<size_t>(d)] += a * w * value({n, row, m, d});
                           }
                         });
          }
        for (int64_t d = 0; d < s.channels; ++d) {
          out.put({n, q, m * s.channels + d}, acc[static_cast<size_t>(d)]);
        }
      }
}

template <class T>
void backward(const MsDeformAttnProblem& p, const MsDeformAttnViews& v) {
  const MsDeformAttnShape& s = p.shape;
  const int64_t L = static_cast<int64_t>(s.level_start_index.size());
  const int64_t D = s.channels;
  const At<T> value{v.value}, loc{v.locations}, att{v.weights}, g{v.grad_output};
  // The value gradient in double, (n, row, m, d) row-major.
  std::vector<double> gv(v.grad_value ? static_cast<size_t>(s.batch * s.value_rows * s.heads * D) : 0);
  for (int64_t n = 0; n < s.batch; ++n)
    for (int64_t q = 0; q < s.queries; ++q)
      for (int64_t m = 0; m < s.heads; ++m)
        for (int64_t l = 0; l < L; ++l) {
          const double H = static_cast<double>(s.spatial_shapes[2 * l]);
          const double W = static_cast<double>(s.spatial_shapes[2 * l + 1]);
          for (int64_t k = 0; k < s.points; ++k) {
            const double a = att({n, q, m, l, k});
            const double x = loc({n, q, m, l, k, 0}), y = loc({n, q, m, l, k, 1});
            // d sample / d (pixel x, pixel y) per tap: the bilinear weights' derivatives.
            const AxisTaps<double> tx = axis_taps(x, s.spatial_shapes[2 * l + 1]);
            const AxisTaps<double> ty = axis_taps(y, s.spatial_shapes[2 * l]);
            double g_a = 0, g_px = 0, g_py = 0;
            for_each_tap(s, l, x, y, [&](int64_t row, double w, int a_, int b_) {
              const double dwx = (b_ == 0 ? -1.0 : 1.0) * (a_ == 0 ? ty.w0 : ty.w1);
              const double dwy = (a_ == 0 ? -1.0 : 1.0) * (b_ == 0 ? tx.w0 : tx.w1);
              for (int64_t d = 0; d < D; ++d) {
                const double gd = g({n, q, m * D + d});
                const double vd = value({n, row, m, d});
                g_a += gd * w * vd;
                g_px += gd * a * dwx * vd;
                g_py += gd * a * dwy * vd;
                if (v.grad_value) {
                  gv[static_cast<size_t>(((n * s.value_rows + row) * s.heads + m) * D + d)] += a * w * gd;
                }
              }
            });
            if (v.grad_weights) At<T>{v.grad_weights}.put({n, q, m, l, k}, g_a);
            if (v.grad_locations) {
              At<T>{v.grad_locations}.put({n, q, m, l, k, 0}, g_px * W);
              At<T>{v.grad_locations}.put({n, q, m, l, k, 1}, g_py * H);
            }
          }
        }
  if (v.grad_value) {
    const At<T> out{v.grad_value};
    for (int64_t n = 0; n < s.batch; ++n)
      for (int64_t r = 0; r < s.value_rows; ++r)
        for (int64_t m = 0; m < s.heads; ++m)
          for (int64_t d = 0; d < D; ++d) {
            out.put({n, r, m, d}, gv[static_cast<size_t>(((n * s.value_rows + r) * s.heads + m) * D + d)]);
          }
  }
}

}  // namespace

void ms_deform_attn_ref_forward(const MsDeformAttnProblem& p, const void*, const MsDeformAttnViews& v) {
  switch (p.dtype) {
    case DType::kFloat64: return forward<double>(p, v);
    case DType::kFloat16: return forward<float16>(p, v);
    case DType::kBFloat16: return forward<bfloat16>(p, v);
    default: assert(p.dtype == DType::kFloat32); return forward<float>(p, v);
  }
}

void ms_deform_attn_ref_backward(const MsDeformAttnProblem& p, const void*, const MsDeformAttnViews& v) {
  switch (p.dtype) {
    case DType::kFloat64: return backward<double>(p, v);
    case DType::kFloat16: return backward<float16>(p, v);
    case DType::kBFloat16: return backward<bfloat16>(p, v);
    default: assert(p.dtype == DType::kFloat32); return backward<float>(p, v);
  }
}

}  // namespace gridops::kernels
