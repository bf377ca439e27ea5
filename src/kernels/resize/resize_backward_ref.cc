// The Resize backward reference: the transpose of resize_ref's sum, written the same way
// (docs/ops/resize.md, "Backward"):
//
//   grad_src[i] = sum over the output points o with no resized axis outside, and over
//                 their tap combinations (t_1..t_m) that read i, of
//                 prod_k w_k[t_k] * grad_dst[o],
//
// accumulated in double (complex<double>) in row-major order of o, then stored once.
#include <cassert>
#include <complex>
#include <type_traits>
#include <vector>

#include "core/convert.h"
#include "kernels/resize/resize_backward.h"

namespace gridops::kernels {
namespace {

template <class T>
void run_typed(const ResizeProblem& p, const ResizeBackwardArgs& a) {
  using A = convert::acc_t<T, double>;
  const int rank = static_cast<int>(p.src_shape.size());
  const size_t m = p.tables.size();
  std::vector<int> table_of(static_cast<size_t>(rank), -1);
  for (size_t k = 0; k < m; ++k) table_of[static_cast<size_t>(p.tables[k].axis)] = static_cast<int>(k);
  // Row-major strides of the accumulator (src_shape).
  std::vector<int64_t> acc_stride(static_cast<size_t>(rank), 1);
  int64_t src_total = 1;
  for (int d = rank - 1; d >= 0; --d) {
    acc_stride[static_cast<size_t>(d)] = src_total;
    src_total *= p.src_shape[static_cast<size_t>(d)];
  }
  std::vector<A> acc(static_cast<size_t>(src_total), A(0));
  int64_t dst_total = 1;
  for (int64_t n : p.dst_shape) dst_total *= n;
  const T* g = static_cast<const T*>(a.grad_dst.data);
  std::vector<int64_t> o(static_cast<size_t>(rank), 0);
  std::vector<int64_t> t(m, 0);
  for (int64_t flat = 0; flat < dst_total; ++flat) {
    int64_t g_off = 0, base = 0;
    bool outside = false;
    for (int d = 0; d < rank; ++d) {
      const size_t du = static_cast<size_t>(d);
      g_off += o[du] * a.grad_dst.strides[du];
      const int k = table_of[du];
      if (k < 0) {
        base += o[du] * acc_stride[du];
      } else if (!p.tables[static_cast<size_t>(k)].outside.empty() &&
                 p.tables[static_cast<size_t>(k)].outside[static_cast<size_t>(o[du])]) {
        outside = true;
      }
    }
    bool no_taps = outside;
    for (size_t k = 0; k < m && !no_taps; ++k) {
      const size_t ok = static_cast<size_t>(o[static_cast<size_t>(p.tables[k].axis)]);
      t[k] = p.tables[k].begin[ok];
      no_taps = p.tables[k].begin[ok] == p.tables[k].begin[ok + 1];
    }
    const A gv = convert::load<double>(g[g_off]);
    while (!no_taps) {
      double w = 1.0;
      int64_t off = base;
      for (size_t k = 0; k < m; ++k) {
        const ResizeAxisTable& tb = p.tables[k];
        w *= tb.w[static_cast<size_t>(t[k])];
        off += tb.idx[static_cast<size_t>(t[k])] * acc_stride[static_cast<size_t>(tb.axis)];
      }
      acc[static_cast<size_t>(off)] += A(w) * gv;
      // Next tap combination (last table fastest).
      size_t k = m;
      bool done = true;
      while (k > 0) {
        --k;
        const ResizeAxisTable& tb = p.tables[k];
        const size_t ok = static_cast<size_t>(o[static_cast<size_t>(tb.axis)]);
        if (++t[k] < tb.begin[ok + 1]) {
          done = false;
          break;
        }
        t[k] = tb.begin[ok];
      }
      if (done) break;
    }
    for (int d = rank - 1; d >= 0; --d) {  // next output point (last axis fastest)
      const size_t du = static_cast<size_t>(d);
      if (++o[du] < p.dst_shape[du]) break;
      o[du] = 0;
    }
  }
  // Store, in row-major order of the input.
  T* out = static_cast<T*>(a.grad_src.mutable_data());
  std::vector<int64_t> i(static_cast<size_t>(rank), 0);
  for (int64_t flat = 0; flat < src_total; ++flat) {
    int64_t off = 0;
    for (int d = 0; d < rank; ++d) off += i[static_cast<size_t>(d)] * a.grad_src.strides[static_cast<size_t>(d)];
    out[off] = convert::store<T>(acc[static_cast<size_t>(flat)]);
    for (int d = rank - 1; d >= 0; --d) {
      const size_t du = static_cast<size_t>(d);
      if (++i[du] < p.src_shape[du]) break;
      i[du] = 0;
    }
  }
}

}  // namespace

void resize_backward_ref(const ResizeProblem& p, const void*, const ResizeBackwardArgs& a) {
  detail::visit_float_or_complex(p.dtype, [&](auto tag) { run_typed<decltype(tag)>(p, a); });
}

}  // namespace gridops::kernels
