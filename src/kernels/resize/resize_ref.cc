// The Resize reference kernel: slow, N-D, every dtype, written to read like the formula in
// docs/ops/resize.md:
//
//   dst[o] = extrapolation_value                    if any resized axis k has outside[o_k]
//   dst[o] = sum over tap combinations (t_1..t_m) of
//              prod_k w_k[t_k] * src[o with axis_k replaced by idx_k[t_k]]   otherwise,
//
// computed in double (complex<double>) and stored once (ERRATA GridSample 7).
#include <cassert>
#include <complex>
#include <string>
#include <type_traits>
#include <vector>

#include "core/convert.h"
#include "kernels/resize/resize.h"

namespace gridops::kernels {
namespace {

template <class T>
void run_typed(const ResizeProblem& p, const TensorView& src, const MutableTensorView& dst) {
  const int rank = static_cast<int>(p.dst_shape.size());
  const size_t m = p.tables.size();
  std::vector<int> table_of(static_cast<size_t>(rank), -1);
  for (size_t k = 0; k < m; ++k) table_of[static_cast<size_t>(p.tables[k].axis)] = static_cast<int>(k);

  const T* s = static_cast<const T*>(src.data);
  T* d = static_cast<T*>(dst.mutable_data());
  std::vector<int64_t> o(static_cast<size_t>(rank), 0);  // output index (odometer)
  std::vector<int64_t> t(m, 0);                           // tap counters
  int64_t total = 1;
  for (int64_t n : p.dst_shape) total *= n;

  using A = std::conditional_t<convert::is_numeric_v<T>, convert::acc_t<T, double>, int>;
  for (int64_t flat = 0; flat < total; ++flat) {
    int64_t dst_off = 0, base = 0;
    bool outside = false;
    for (int a = 0; a < rank; ++a) {
      const size_t au = static_cast<size_t>(a);
      dst_off += o[au] * dst.strides[au];
      const int k = table_of[au];
      if (k < 0) {
        base += o[au] * src.strides[au];
      } else if (!p.tables[static_cast<size_t>(k)].outside.empty() &&
                 p.tables[static_cast<size_t>(k)].outside[static_cast<size_t>(o[au])]) {
        outside = true;
      }
    }
    if (outside) {
      if constexpr (std::is_same_v<T, std::string>) {
        d[dst_off] = std::string();
      } else {
        d[dst_off] = convert::store<T>(A(p.extrapolation_value));
      }
    } else {
      // An axis whose taps were all dropped (exclude_outside with every tap outside [0, I))
      // leaves no tap combination: the sum is empty, 0.
      bool no_taps = false;
      for (size_t k = 0; k < m; ++k) {
        const size_t ok = static_cast<size_t>(o[static_cast<size_t>(p.tables[k].axis)]);
        t[k] = p.tables[k].begin[ok];
        no_taps = no_taps || p.tables[k].begin[ok] == p.tables[k].begin[ok + 1];
      }
      if constexpr (std::is_same_v<T, std::string>) {
        // Nearest: one tap per axis.
        int64_t off = base;
        for (size_t k = 0; k < m; ++k) {
          off += p.tables[k].idx[static_cast<size_t>(t[k])] *
                 src.strides[static_cast<size_t>(p.tables[k].axis)];
        }
        d[dst_off] = s[off];
      } else {
        A acc = A(0);
        for (; !no_taps;) {
          double w = 1.0;
          int64_t off = base;
          for (size_t k = 0; k < m; ++k) {
            const ResizeAxisTable& tb = p.tables[k];
            w *= tb.w[static_cast<size_t>(t[k])];
            off += tb.idx[static_cast<size_t>(t[k])] * src.strides[static_cast<size_t>(tb.axis)];
          }
          acc += A(w) * convert::load<double>(s[off]);
          // Next tap combination (last table fastest).
          size_t k = m;
          while (k > 0) {
            --k;
            const ResizeAxisTable& tb = p.tables[k];
            const size_t ok = static_cast<size_t>(o[static_cast<size_t>(tb.axis)]);
            if (++t[k] < tb.begin[ok + 1]) break;
            t[k] = tb.begin[ok];
            if (k == 0) {
              k = m + 1;  // wrapped around: done
              break;
            }
          }
          if (k == m + 1 || m == 0) break;
        }
        d[dst_off] = convert::store<T>(acc);
      }
    }
    // Next output index (last axis fastest).
    for (int a = rank - 1; a >= 0; --a) {
      const size_t au = static_cast<size_t>(a);
      if (++o[au] < p.dst_shape[au]) break;
      o[au] = 0;
    }
  }
}

}  // namespace

void resize_ref(const ResizeProblem& p, const TensorView& src, const MutableTensorView& dst) {
  assert(p.dtype != DType::kString || p.mode == ResizeMode::kNearest);
  visit_dtype(p.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    run_typed<T>(p, src, dst);
  });
}

}  // namespace gridops::kernels
