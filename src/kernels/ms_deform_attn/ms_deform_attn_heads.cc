// ms_deform_attn.heads: the reference's sums in the data's precision (float for float16 and
// bfloat16 storage, rounded once when stored), threaded (contract in
// ms_deform_attn.h). The forward's items are (n, q, m); the backward's (n, m): a head's
// value gradient rows receive only that head's queries, added in query order by the one
// thread of the item, so the bits never depend on the thread count.
#include <algorithm>
#include <type_traits>
#include <vector>

#include "core/convert.h"
#include "gridops/parallel.h"
#include "kernels/ms_deform_attn/ms_deform_attn.h"

namespace gridops::kernels {
namespace {

/// Strided views as base pointers and strides.
template <class T>
struct Strided {
  T* p;
  const int64_t* st;
  explicit Strided(const TensorView* v)
      : p(static_cast<T*>(const_cast<void*>(v->data))), st(v->strides.data()) {}
};

/// The inside taps of a point, in the reference's order, with their value rows.
template <class F>
struct PointTaps {
  int count = 0;
  int64_t row[4];
  F w[4];
  F dwx[4], dwy[4];  // d w / d pixel x, d w / d pixel y
};

template <class F>
PointTaps<F> point_taps(const MsDeformAttnShape& s, int64_t l, F x, F y) {
  PointTaps<F> t;
  const int64_t H = s.spatial_shapes[2 * l], W = s.spatial_shapes[2 * l + 1];
  if (H <= 0 || W <= 0) return t;
  const AxisTaps<F> tx = axis_taps(x, W), ty = axis_taps(y, H);
  if (!tx.any || !ty.any) return t;
  const bool iny[2] = {ty.in0, ty.in1}, inx[2] = {tx.in0, tx.in1};
  const F wy[2] = {ty.w0, ty.w1}, wx[2] = {tx.w0, tx.w1};
  for (int a = 0; a < 2; ++a) {
    for (int b = 0; b < 2; ++b) {
      if (!(iny[a] && inx[b])) continue;
      t.row[t.count] = s.level_start_index[l] + (ty.i0 + a) * W + tx.i0 + b;
      t.w[t.count] = wy[a] * wx[b];
      t.dwx[t.count] = (b == 0 ? F(-1) : F(1)) * wy[a];
      t.dwy[t.count] = (a == 0 ? F(-1) : F(1)) * wx[b];
      ++t.count;
    }
  }
  return t;
}

/// sum_d a[d] * b[d * stride_b] in F (b stored as S): eight partial sums added in a fixed
/// order (vectorizable; the same bits on every call).
template <class F, class S>
F dot(const F* a, const S* b, int64_t stride_b, int64_t n) {
  F acc[8] = {};
  int64_t d = 0;
  if (stride_b == 1) {
    for (; d + 8 <= n; d += 8) {
      for (int k = 0; k < 8; ++k) acc[k] += a[d + k] * convert::load_real<F>(b[d + k]);
    }
  }
  F sum = 0;
  for (int k = 0; k < 8; ++k) sum += acc[k];
  for (; d < n; ++d) sum += a[d] * convert::load_real<F>(b[d * stride_b]);
  return sum;
}

/// The compute type of storage type S: double for float64, float otherwise (float16 and
/// bfloat16 are loaded into float and rounded once when stored).
template <class S>
using compute_t = std::conditional_t<std::is_same_v<S, double>, double, float>;

template <class S>
void forward(const MsDeformAttnProblem& p, const MsDeformAttnViews& v) {
  using F = compute_t<S>;
  const MsDeformAttnShape& s = p.shape;
  const int64_t L = static_cast<int64_t>(s.level_start_index.size());
  const int64_t D = s.channels, M = s.heads, Q = s.queries;
  const Strided<const S> value(v.value), loc(v.locations), att(v.weights);
  const Strided<S> out(v.output);
  const int64_t items = s.batch * Q * M;
  const int64_t work = std::max<int64_t>(1, L * s.points * 4 * D);
  const size_t points = static_cast<size_t>(L * s.points);
  // Item it's taps and weights, with its value rows prefetched.
  auto gather = [&](int64_t it, PointTaps<F>* taps, F* weight) {
    // Heads fastest: a query's heads sample near the same positions, whose rows of all
    // heads are adjacent in value (docs/perf/ms_deform_attn.md).
    const int64_t m = it % M, q = (it / M) % Q, n = it / (M * Q);
    const S* vbase = value.p + n * value.st[0] + m * value.st[2];
    for (int64_t l = 0; l < L; ++l) {
      for (int64_t k = 0; k < s.points; ++k) {
        const int64_t lo = n * loc.st[0] + q * loc.st[1] + m * loc.st[2] + l * loc.st[3] + k * loc.st[4];
        const size_t pk = static_cast<size_t>(l * s.points + k);
        weight[pk] = convert::load_real<F>(
            att.p[n * att.st[0] + q * att.st[1] + m * att.st[2] + l * att.st[3] + k * att.st[4]]);
        taps[pk] = point_taps<F>(s, l, convert::load_real<F>(loc.p[lo]),
                                 convert::load_real<F>(loc.p[lo + loc.st[5]]));
        for (int j = 0; j < taps[pk].count; ++j) {
          const S* vr = vbase + taps[pk].row[j] * value.st[1];
          __builtin_prefetch(vr);
          __builtin_prefetch(vr + (D - 1) * value.st[3]);
        }
      }
    }
  };
  parallel_for(items, std::max<int64_t>(1, 16384 / work), [&](int64_t i0, int64_t i1) {
    std::vector<F> acc(static_cast<size_t>(D));
    // Two items' taps: the next item's are computed (and its rows prefetched) before this
    // item's sums, so that its loads overlap them. The sums are the reference's order.
    std::vector<PointTaps<F>> taps(2 * points);
    std::vector<F> weight(2 * points);
    if (i0 < i1) gather(i0, taps.data(), weight.data());
    for (int64_t it = i0; it < i1; ++it) {
      const size_t cur = static_cast<size_t>(it - i0) % 2 * points;
      if (it + 1 < i1) gather(it + 1, taps.data() + (points - cur), weight.data() + (points - cur));
      const int64_t m = it % M, q = (it / M) % Q, n = it / (M * Q);
      const S* vbase = value.p + n * value.st[0] + m * value.st[2];
      std::fill(acc.begin(), acc.end(), F(0));
      for (size_t pk = 0; pk < points; ++pk) {
        const PointTaps<F>& t = taps[cur + pk];
        const F a = weight[cur + pk];
        for (int j = 0; j < t.count; ++j) {
          const F aw = a * t.w[j];
          const S* vr = vbase + t.row[j] * value.st[1];
          F* __restrict ac = acc.data();
          if (value.st[3] == 1) {
            for (int64_t d = 0; d < D; ++d) ac[d] += aw * convert::load_real<F>(vr[d]);
          } else {
            for (int64_t d = 0; d < D; ++d) ac[d] += aw * convert::load_real<F>(vr[d * value.st[3]]);
          }
        }
      }
      S* o = out.p + n * out.st[0] + q * out.st[1] + m * D * out.st[2];
      for (int64_t d = 0; d < D; ++d) o[d * out.st[2]] = convert::store_real<S>(acc[static_cast<size_t>(d)]);
    }
  });
}

template <class S>
void backward(const MsDeformAttnProblem& p, const MsDeformAttnViews& v) {
  using F = compute_t<S>;
  // float32 and float64 add into the value gradient itself; float16 and bfloat16 into a
  // float copy of the head's rows, rounded once at the end.
  constexpr bool kDirect = std::is_same_v<S, F>;
  const MsDeformAttnShape& s = p.shape;
  const int64_t L = static_cast<int64_t>(s.level_start_index.size());
  const int64_t D = s.channels, M = s.heads, Q = s.queries;
  const Strided<const S> value(v.value), loc(v.locations), att(v.weights), g(v.grad_output);
  const int64_t items = s.batch * M;
  parallel_for(items, 1, [&](int64_t i0, int64_t i1) {
    std::vector<F> gq(static_cast<size_t>(D));
    std::vector<F> rows;  // !kDirect: this head's value-gradient rows, (row, d) dense
    for (int64_t it = i0; it < i1; ++it) {
      const int64_t m = it % M, n = it / M;
      if (v.grad_value) {  // this head's rows: zero, then add in query order
        if constexpr (kDirect) {
          const Strided<S> gv(v.grad_value);
          for (int64_t r = 0; r < s.value_rows; ++r) {
            S* row = gv.p + n * gv.st[0] + r * gv.st[1] + m * gv.st[2];
            for (int64_t d = 0; d < D; ++d) row[d * gv.st[3]] = S(0);
          }
        } else {
          rows.assign(static_cast<size_t>(s.value_rows * D), F(0));
        }
      }
      for (int64_t q = 0; q < Q; ++q) {
        const S* gr = g.p + n * g.st[0] + q * g.st[1] + m * D * g.st[2];
        for (int64_t d = 0; d < D; ++d) gq[static_cast<size_t>(d)] = convert::load_real<F>(gr[d * g.st[2]]);
        for (int64_t l = 0; l < L; ++l) {
          const F H = static_cast<F>(s.spatial_shapes[2 * l]);
          const F W = static_cast<F>(s.spatial_shapes[2 * l + 1]);
          for (int64_t k = 0; k < s.points; ++k) {
            const int64_t lo = n * loc.st[0] + q * loc.st[1] + m * loc.st[2] + l * loc.st[3] + k * loc.st[4];
            const int64_t ao = n * att.st[0] + q * att.st[1] + m * att.st[2] + l * att.st[3] + k * att.st[4];
            const F a = convert::load_real<F>(att.p[ao]);
            const PointTaps<F> t = point_taps<F>(s, l, convert::load_real<F>(loc.p[lo]),
                                                 convert::load_real<F>(loc.p[lo + loc.st[5]]));
            F g_a = 0, g_px = 0, g_py = 0;
            for (int j = 0; j < t.count; ++j) {
              const S* vr = value.p + n * value.st[0] + t.row[j] * value.st[1] + m * value.st[2];
              // <grad_output, tap row> once per tap; the three gradients are its multiples.
              const F gdotv = dot(gq.data(), vr, value.st[3], D);
              g_a += t.w[j] * gdotv;
              g_px += a * t.dwx[j] * gdotv;
              g_py += a * t.dwy[j] * gdotv;
              if (v.grad_value) {
                const F aw = a * t.w[j];
                if constexpr (kDirect) {
                  const Strided<S> gv(v.grad_value);
                  S* row = gv.p + n * gv.st[0] + t.row[j] * gv.st[1] + m * gv.st[2];
                  if (gv.st[3] == 1) {
                    S* __restrict r = row;
                    for (int64_t d = 0; d < D; ++d) r[d] += aw * gq[static_cast<size_t>(d)];
                  } else {
                    for (int64_t d = 0; d < D; ++d) row[d * gv.st[3]] += aw * gq[static_cast<size_t>(d)];
                  }
                } else {
                  F* __restrict r = rows.data() + t.row[j] * D;
                  for (int64_t d = 0; d < D; ++d) r[d] += aw * gq[static_cast<size_t>(d)];
                }
              }
            }
            if (v.grad_weights) {
              const Strided<S> gw(v.grad_weights);
              gw.p[n * gw.st[0] + q * gw.st[1] + m * gw.st[2] + l * gw.st[3] + k * gw.st[4]] =
                  convert::store_real<S>(g_a);
            }
            if (v.grad_locations) {
              const Strided<S> gl(v.grad_locations);
              const int64_t o = n * gl.st[0] + q * gl.st[1] + m * gl.st[2] + l * gl.st[3] + k * gl.st[4];
              gl.p[o] = convert::store_real<S>(g_px * W);
              gl.p[o + gl.st[5]] = convert::store_real<S>(g_py * H);
            }
          }
        }
      }
      if constexpr (!kDirect) {
        if (v.grad_value) {
          const Strided<S> gv(v.grad_value);
          for (int64_t r = 0; r < s.value_rows; ++r) {
            S* row = gv.p + n * gv.st[0] + r * gv.st[1] + m * gv.st[2];
            const F* src = rows.data() + r * D;
            for (int64_t d = 0; d < D; ++d) row[d * gv.st[3]] = convert::store_real<S>(src[d]);
          }
        }
      }
    }
  });
}

}  // namespace

std::string ms_deform_attn_heads_declines(const MsDeformAttnProblem&) { return {}; }

void ms_deform_attn_heads_forward(const MsDeformAttnProblem& p, const void*, const MsDeformAttnViews& v) {
  switch (p.dtype) {
    case DType::kFloat64: return forward<double>(p, v);
    case DType::kFloat16: return forward<float16>(p, v);
    case DType::kBFloat16: return forward<bfloat16>(p, v);
    default: return forward<float>(p, v);
  }
}

void ms_deform_attn_heads_backward(const MsDeformAttnProblem& p, const void*, const MsDeformAttnViews& v) {
  switch (p.dtype) {
    case DType::kFloat64: return backward<double>(p, v);
    case DType::kFloat16: return backward<float16>(p, v);
    case DType::kBFloat16: return backward<bfloat16>(p, v);
    default: return backward<float>(p, v);
  }
}

}  // namespace gridops::kernels
