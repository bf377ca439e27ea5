// Reference Pad backward: slow, N-D, written to read like the contract in pad_backward.h.
#include <array>
#include <cassert>
#include <complex>
#include <type_traits>
#include <vector>

#include "core/convert.h"
#include "gridops/tensor.h"
#include "kernels/pad/pad_backward.h"

namespace gridops::kernels {
namespace {

template <class T>
void run(const PadProblem& p, const PadBackwardArgs& a) {
  using F = std::conditional_t<convert::needs_double_v<T>, double, float>;
  using A = convert::acc_t<T, F>;  // the element type, or std::complex<F>
  const size_t rank = p.src_shape.size();
  // preimage[d][i]: the output positions j of axis d whose source index is i, increasing.
  std::vector<std::vector<std::vector<int64_t>>> preimage(rank);
  for (size_t d = 0; d < rank; ++d) {
    preimage[d].resize(static_cast<size_t>(p.src_shape[d]));
    for (int64_t j = 0; j < p.dst_shape[d]; ++j) {
      const int64_t s = pad_source_index(p.mode, j, p.pads_begin[d], p.src_shape[d]);
      if (s != kPadBorder) preimage[d][static_cast<size_t>(s)].push_back(j);
    }
  }
  for (size_t d = 0; d < rank; ++d) {
    if (p.src_shape[d] == 0) return;  // no input position
  }
  const T* g = static_cast<const T*>(a.grad_dst);
  T* out = static_cast<T*>(a.grad_src);

  std::array<int64_t, kMaxRank> i{};  // the input position (odometer)
  for (;;) {
    // The output positions that read i: one preimage entry per axis, row-major order.
    A acc = A(0);
    bool any = true;
    for (size_t d = 0; d < rank; ++d) any = any && !preimage[d][static_cast<size_t>(i[d])].empty();
    if (any) {
      std::array<size_t, kMaxRank> k{};
      for (;;) {
        int64_t off = 0;
        for (size_t d = 0; d < rank; ++d) {
          off += preimage[d][static_cast<size_t>(i[d])][k[d]] * a.grad_dst_strides[d];
        }
        acc += convert::load<F>(g[off]);
        size_t d = rank;
        bool done = true;
        while (d > 0) {
          --d;
          if (++k[d] < preimage[d][static_cast<size_t>(i[d])].size()) {
            done = false;
            break;
          }
          k[d] = 0;
        }
        if (done) break;
      }
    }
    int64_t off = 0;
    for (size_t d = 0; d < rank; ++d) off += i[d] * a.grad_src_strides[d];
    out[off] = convert::store<T>(acc);

    size_t d = rank;
    bool done = true;
    while (d > 0) {
      --d;
      if (++i[d] < p.src_shape[d]) {
        done = false;
        break;
      }
      i[d] = 0;
    }
    if (done) return;  // rank 0: the one element is written
  }
}

}  // namespace

void pad_backward_ref(const PadProblem& p, const PadBackwardArgs& a) {
  assert(p.src_shape.size() <= static_cast<size_t>(kMaxRank));
  detail::visit_float_or_complex(p.dtype, [&](auto tag) { run<decltype(tag)>(p, a); });
}

}  // namespace gridops::kernels
