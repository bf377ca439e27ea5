// resize_backward.passes: Resize's adjoint one resized axis at a time (contract in
// resize_backward.h). A pass over axis k of a scratch tensor T of shape (outer, out_k,
// lanes) writes T' of shape (outer, in_k, lanes):
//
//   T'[u, i, l] = sum over o in increasing order (skipping outside positions), and over the
//                 taps of o in table order that read i, of w * T[u, o, l]
//
// computed as a scatter of whole lane rows, so that the inner loop runs over contiguous
// lanes; slices (u, a block of lanes) are independent and threaded.
#include <algorithm>
#include <complex>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "core/convert.h"
#include "gridops/parallel.h"
#include "kernels/resize/resize_backward.h"

namespace gridops::kernels {
namespace {

/// The weights of every table in float32 (the pass arithmetic of float32, float16,
/// bfloat16 and complex64 data), built once per plan.
struct PassTables {
  std::vector<std::vector<float>> w32;
  /// Each table transposed, for a pass over the innermost axis (one lane): input i takes
  /// the terms from[tbegin[i] .. tbegin[i+1]) (output positions, increasing; outside ones
  /// left out) with weights tw64 / tw32 (the same terms, in the scatter's order).
  struct Transposed {
    std::vector<int64_t> tbegin, from;
    std::vector<double> tw64;
    std::vector<float> tw32;
  };
  std::vector<Transposed> transposed;
};

/// Runs `row(r, off)` for every row r of a row-major tensor of `shape` (the innermost axis
/// a row), with `off` the element offset of its first element in a view of `strides`;
/// threaded over rows.
template <class Row>
void for_each_row(const std::vector<int64_t>& shape, std::span<const int64_t> strides,
                  Row&& row) {
  const int rank = static_cast<int>(shape.size());
  const int64_t inner = rank > 0 ? shape.back() : 1;
  int64_t total = 1;
  for (int64_t n : shape) total *= n;
  const int64_t rows = inner > 0 ? total / inner : 0;
  parallel_for(rows, std::max<int64_t>(1, 16384 / std::max<int64_t>(1, inner)),
               [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      int64_t rest = r, off = 0;
      for (int d = rank - 2; d >= 0; --d) {
        const size_t du = static_cast<size_t>(d);
        off += (rest % shape[du]) * strides[du];
        rest /= shape[du];
      }
      row(r, off);
    }
  });
}

template <class T>
void run_typed(const ResizeProblem& p, const PassTables& pt, const ResizeBackwardArgs& a) {
  using F = std::conditional_t<convert::needs_double_v<T>, double, float>;
  using A = convert::acc_t<T, F>;
  const int rank = static_cast<int>(p.src_shape.size());
  std::vector<int64_t> shape(p.dst_shape.begin(), p.dst_shape.end());
  int64_t total = 1;
  for (int64_t n : shape) total *= n;
  int64_t src_total = 1;
  for (int64_t n : p.src_shape) src_total *= n;

  // The scratch tensor, first grad_dst converted to A in row-major order.
  std::vector<A> cur(static_cast<size_t>(total));
  {
    const T* g = static_cast<const T*>(a.grad_dst.data);
    const int64_t inner = rank > 0 ? shape.back() : 1;
    const int64_t gs = rank > 0 ? a.grad_dst.strides.back() : 0;
    for_each_row(shape, a.grad_dst.strides, [&](int64_t r, int64_t off) {
      A* c = cur.data() + r * inner;
      for (int64_t x = 0; x < inner; ++x) c[x] = convert::load<F>(g[off + x * gs]);
    });
  }
  if (total == 0) cur.clear();

  std::vector<A> next;
  for (size_t kk = p.tables.size(); kk-- > 0;) {  // last table first
    const ResizeAxisTable& tb = p.tables[kk];
    const size_t ax = static_cast<size_t>(tb.axis);
    int64_t outer = 1, lanes = 1;
    for (size_t d = 0; d < ax; ++d) outer *= shape[d];
    for (size_t d = ax + 1; d < shape.size(); ++d) lanes *= shape[d];
    const int64_t O = tb.out, I = tb.in;
    if (lanes == 1) {
      // The innermost axis: a gather per input element over its transposed terms, which
      // adds the terms the scatter below would, in its order: the same bits, no
      // read-modify-write.
      next.resize(static_cast<size_t>(outer * I));
      const PassTables::Transposed& tt = pt.transposed[kk];
      parallel_for(outer, std::max<int64_t>(1, 32768 / std::max<int64_t>(1, O + I)),
                   [&](int64_t u0, int64_t u1) {
        for (int64_t u = u0; u < u1; ++u) {
          const A* __restrict src = cur.data() + u * O;
          A* __restrict dst = next.data() + u * I;
          for (int64_t i = 0; i < I; ++i) {
            A acc = A(0);
            for (int64_t t = tt.tbegin[static_cast<size_t>(i)]; t < tt.tbegin[static_cast<size_t>(i) + 1];
                 ++t) {
              F w;
              if constexpr (std::is_same_v<F, double>) {
                w = tt.tw64[static_cast<size_t>(t)];
              } else {
                w = tt.tw32[static_cast<size_t>(t)];
              }
              acc += w * src[tt.from[static_cast<size_t>(t)]];
            }
            dst[i] = acc;
          }
        }
      });
      shape[ax] = I;
      cur.swap(next);
      continue;
    }
    next.assign(static_cast<size_t>(outer * I * lanes), A(0));
    // Slices: (u, a block of lanes); blocks split long lanes when there are few outer rows.
    const int64_t block = outer >= 64 ? lanes : std::max<int64_t>(256, (lanes + 63) / 64);
    const int64_t blocks = (lanes + block - 1) / block;
    const std::vector<float>& w32 = pt.w32[kk];
    const int64_t work = std::max<int64_t>(1, O * std::min(block, lanes));
    parallel_for(outer * blocks, std::max<int64_t>(1, 32768 / work), [&](int64_t s0, int64_t s1) {
      for (int64_t s = s0; s < s1; ++s) {
        const int64_t u = s / blocks;
        const int64_t l0 = (s % blocks) * block, l1 = std::min(lanes, l0 + block);
        const A* src = cur.data() + u * O * lanes;
        A* dst = next.data() + u * I * lanes;
        for (int64_t o = 0; o < O; ++o) {
          if (!tb.outside.empty() && tb.outside[static_cast<size_t>(o)]) continue;
          const A* __restrict row = src + o * lanes;
          for (int64_t t = tb.begin[static_cast<size_t>(o)]; t < tb.begin[static_cast<size_t>(o) + 1];
               ++t) {
            F w;
            if constexpr (std::is_same_v<F, double>) {
              w = tb.w[static_cast<size_t>(t)];
            } else {
              w = w32[static_cast<size_t>(t)];
            }
            A* __restrict acc = dst + tb.idx[static_cast<size_t>(t)] * lanes;
            for (int64_t l = l0; l < l1; ++l) acc[l] += w * row[l];
          }
        }
      }
    });
    shape[ax] = I;
    cur.swap(next);
  }

  // Store into grad_src (shape == src_shape now; an empty grad_dst, which has no tables,
  // gives zeros).
  if (total == 0) cur.assign(static_cast<size_t>(src_total), A(0));
  shape.assign(p.src_shape.begin(), p.src_shape.end());
  T* out = static_cast<T*>(a.grad_src.mutable_data());
  const int64_t inner = rank > 0 ? shape.back() : 1;
  const int64_t os = rank > 0 ? a.grad_src.strides.back() : 0;
  for_each_row(shape, a.grad_src.strides, [&](int64_t r, int64_t off) {
    const A* c = cur.data() + r * inner;
    for (int64_t x = 0; x < inner; ++x) out[off + x * os] = convert::store<T>(c[x]);
  });
}

}  // namespace

std::string resize_backward_passes_declines(const ResizeProblem&) { return {}; }

std::shared_ptr<const void> resize_backward_passes_prepare(const ResizeProblem& p) {
  auto t = std::make_shared<PassTables>();
  for (const ResizeAxisTable& tb : p.tables) {
    t->w32.emplace_back(tb.w.begin(), tb.w.end());
    PassTables::Transposed tt;
    tt.tbegin.assign(static_cast<size_t>(tb.in) + 1, 0);
    auto inside = [&](int64_t o) { return tb.outside.empty() || !tb.outside[static_cast<size_t>(o)]; };
    for (int64_t o = 0; o < tb.out; ++o) {
      if (!inside(o)) continue;
      for (int64_t k = tb.begin[static_cast<size_t>(o)]; k < tb.begin[static_cast<size_t>(o) + 1]; ++k) {
        ++tt.tbegin[static_cast<size_t>(tb.idx[static_cast<size_t>(k)]) + 1];
      }
    }
    for (int64_t i = 0; i < tb.in; ++i) tt.tbegin[static_cast<size_t>(i) + 1] += tt.tbegin[static_cast<size_t>(i)];
    const size_t n = static_cast<size_t>(tt.tbegin.back());
    tt.from.resize(n);
    tt.tw64.resize(n);
    tt.tw32.resize(n);
    std::vector<int64_t> fill(tt.tbegin.begin(), tt.tbegin.end() - 1);
    for (int64_t o = 0; o < tb.out; ++o) {  // o, then taps in table order: the scatter's order
      if (!inside(o)) continue;
      for (int64_t k = tb.begin[static_cast<size_t>(o)]; k < tb.begin[static_cast<size_t>(o) + 1]; ++k) {
        const size_t at = static_cast<size_t>(fill[static_cast<size_t>(tb.idx[static_cast<size_t>(k)])]++);
        tt.from[at] = o;
        tt.tw64[at] = tb.w[static_cast<size_t>(k)];
        tt.tw32[at] = static_cast<float>(tb.w[static_cast<size_t>(k)]);
      }
    }
    t->transposed.push_back(std::move(tt));
  }
  return t;
}

void resize_backward_passes(const ResizeProblem& p, const void* tables,
                            const ResizeBackwardArgs& a) {
  const auto& pt = *static_cast<const PassTables*>(tables);
  detail::visit_float_or_complex(p.dtype, [&](auto tag) { run_typed<decltype(tag)>(p, pt, a); });
}

}  // namespace gridops::kernels
