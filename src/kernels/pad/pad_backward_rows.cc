// pad_backward.rows: Pad's backward by input rows (contract in pad_backward.h). Each input
// row's gradient is the sum of the output rows that read it: the output rows of the outer
// axes' preimages (row-major order), each contributing its left border, its middle run and
// its right border in that order, which is the row-major order of the output positions, so
// the bits are the reference's.
#include <algorithm>
#include <array>
#include <cassert>
#include <complex>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "core/convert.h"
#include "gridops/parallel.h"
#include "gridops/tensor.h"
#include "kernels/pad/pad_backward.h"

namespace gridops::kernels {
namespace {

/// What the prepare derives from the problem: the preimages of the outer axes and the
/// innermost axis' map split into left border, middle run and right border.
struct RowsTables {
  int rank = 0;
  int64_t rows = 0;   // product of src_shape[0 .. rank-2]
  int64_t n_in = 0;   // src_shape[rank-1]
  int64_t n_out = 0;  // dst_shape[rank-1]
  int64_t pad_begin = 0;
  // Output positions [mid_begin, mid_end) of the innermost axis read input j - pad_begin
  // (the data itself); the others read inner_map[j] (kPadBorder: the constant).
  int64_t mid_begin = 0, mid_end = 0;
  std::vector<int64_t> inner_map;
  // Outer axis d: the output positions reading input i are list[d][start[d][i] ..
  // start[d][i+1]), increasing.
  std::array<std::vector<int64_t>, kMaxRank> start, list;
  std::array<int64_t, kMaxRank> n_outer{};  // src_shape[d] of the outer axes
  int64_t grain = 1;  // input rows per parallel_for chunk at least
};

template <class T>
void run(const RowsTables& t, const PadBackwardArgs& a) {
  using F = std::conditional_t<convert::needs_double_v<T>, double, float>;
  using A = convert::acc_t<T, F>;  // the element type, or std::complex<F>
  const int r = t.rank;
  const int64_t gs = a.grad_dst_strides[r - 1];
  const int64_t os = a.grad_src_strides[r - 1];
  const T* g = static_cast<const T*>(a.grad_dst);
  T* out = static_cast<T*>(a.grad_src);
  const int64_t mid = t.mid_end - t.mid_begin;

  // Adds output row `row` (its innermost axis) into acc, in increasing output position.
  auto add_row = [&](A* __restrict acc, const T* __restrict row) {
    for (int64_t j = 0; j < t.mid_begin; ++j) {
      const int64_t s = t.inner_map[static_cast<size_t>(j)];
      if (s != kPadBorder) acc[s] += convert::load<F>(row[j * gs]);
    }
    if (mid > 0) {
      A* __restrict am = acc + (t.mid_begin - t.pad_begin);
      if (gs == 1) {
        const T* __restrict rm = row + t.mid_begin;
        for (int64_t x = 0; x < mid; ++x) am[x] += convert::load<F>(rm[x]);
      } else {
        const T* rm = row + t.mid_begin * gs;
        for (int64_t x = 0; x < mid; ++x) am[x] += convert::load<F>(rm[x * gs]);
      }
    }
    for (int64_t j = t.mid_end; j < t.n_out; ++j) {
      const int64_t s = t.inner_map[static_cast<size_t>(j)];
      if (s != kPadBorder) acc[s] += convert::load<F>(row[j * gs]);
    }
  };

  // A dense row of an element type that is its own accumulator (float32, float64, complex)
  // accumulates in place: the same operations, without the row buffer and its copy.
  constexpr bool kSelfAccumulating = std::is_same_v<A, T>;
  const bool in_place = kSelfAccumulating && os == 1;
  parallel_for(t.rows, t.grain, [&](int64_t begin, int64_t end) {
    std::vector<A> acc_buf(in_place ? 0 : static_cast<size_t>(t.n_in));
    std::array<int64_t, kMaxRank> i{}, lo{}, hi{}, k{};
    for (int64_t row = begin; row < end; ++row) {
      int64_t rest = row;
      for (int d = r - 2; d >= 0; --d) {
        i[d] = rest % t.n_outer[d];
        rest /= t.n_outer[d];
      }
      int64_t out_off = 0;
      for (int d = 0; d < r - 1; ++d) out_off += i[d] * a.grad_src_strides[d];
      T* o = out + out_off;
      A* acc = acc_buf.data();
      if constexpr (kSelfAccumulating) {
        if (in_place) acc = o;
      }
      std::fill(acc, acc + t.n_in, A(0));
      bool any = true;
      for (int d = 0; d < r - 1; ++d) {
        lo[d] = t.start[d][static_cast<size_t>(i[d])];
        hi[d] = t.start[d][static_cast<size_t>(i[d]) + 1];
        k[d] = lo[d];
        any = any && lo[d] < hi[d];
      }
      while (any) {
        int64_t off = 0;
        for (int d = 0; d < r - 1; ++d) {
          off += t.list[d][static_cast<size_t>(k[d])] * a.grad_dst_strides[d];
        }
        add_row(acc, g + off);
        int d = r - 1;
        any = false;
        while (d > 0) {
          --d;
          if (++k[d] < hi[d]) {
            any = true;
            break;
          }
          k[d] = lo[d];
        }
      }
      if (in_place) continue;
      if (os == 1) {
        for (int64_t x = 0; x < t.n_in; ++x) o[x] = convert::store<T>(acc[x]);
      } else {
        for (int64_t x = 0; x < t.n_in; ++x) o[x * os] = convert::store<T>(acc[x]);
      }
    }
  });
}

}  // namespace

/// The most index-table entries (output positions of every axis, input positions of the
/// outer ones) the prepare builds: 32 MiB of tables; larger problems exist only with
/// zero-stride views, and go to the reference.
constexpr int64_t kMaxTableEntries = int64_t{1} << 22;

std::string pad_backward_rows_declines(const PadProblem& p) {
  if (p.src_shape.empty()) return "rank 0 (one element: the reference)";
  int64_t entries = 0;
  for (size_t d = 0; d < p.src_shape.size(); ++d) {
    entries += std::min(p.dst_shape[d], kMaxTableEntries + 1);
    if (d + 1 < p.src_shape.size()) entries += std::min(p.src_shape[d], kMaxTableEntries + 1);
    if (entries > kMaxTableEntries) {
      return "the index tables would have more than " + std::to_string(kMaxTableEntries) +
             " entries";
    }
  }
  return {};
}

std::shared_ptr<const void> pad_backward_rows_prepare(const PadProblem& p) {
  auto t = std::make_shared<RowsTables>();
  const int r = static_cast<int>(p.src_shape.size());
  t->rank = r;
  t->n_in = p.src_shape[r - 1];
  t->n_out = p.dst_shape[r - 1];
  t->pad_begin = p.pads_begin[r - 1];
  t->rows = 1;
  for (int d = 0; d < r - 1; ++d) t->rows *= p.src_shape[d];
  // The middle run: 0 <= j - pad_begin < n_in, clipped to the output.
  const int64_t b = t->pad_begin;
  t->mid_begin = std::clamp<int64_t>(b, 0, t->n_out);
  // (b + n_in fits in int64: make_pad_plan checked pads_begin + src_shape)
  t->mid_end = std::clamp<int64_t>(b + t->n_in, t->mid_begin, t->n_out);
  t->inner_map.resize(static_cast<size_t>(t->n_out));
  for (int64_t j = 0; j < t->n_out; ++j) {
    t->inner_map[static_cast<size_t>(j)] = pad_source_index(p.mode, j, b, t->n_in);
  }
  for (int d = 0; d < r - 1; ++d) {
    const int64_t n = p.src_shape[d];
    t->n_outer[d] = n;
    std::vector<int64_t> count(static_cast<size_t>(n) + 1, 0);
    std::vector<int64_t> src_of(static_cast<size_t>(p.dst_shape[d]));
    for (int64_t j = 0; j < p.dst_shape[d]; ++j) {
      const int64_t s = pad_source_index(p.mode, j, p.pads_begin[d], n);
      src_of[static_cast<size_t>(j)] = s;
      if (s != kPadBorder) ++count[static_cast<size_t>(s) + 1];
    }
    for (int64_t s = 0; s < n; ++s) count[static_cast<size_t>(s) + 1] += count[static_cast<size_t>(s)];
    t->start[d] = count;
    t->list[d].resize(static_cast<size_t>(count[static_cast<size_t>(n)]));
    for (int64_t j = 0; j < p.dst_shape[d]; ++j) {  // increasing j: each list stays sorted
      const int64_t s = src_of[static_cast<size_t>(j)];
      if (s != kPadBorder) t->list[d][static_cast<size_t>(count[static_cast<size_t>(s)]++)] = j;
    }
  }
  // About 32 K elements read or written per chunk.
  const int64_t per_row = std::max<int64_t>(1, t->n_in + t->n_out);
  t->grain = std::max<int64_t>(1, (int64_t{32} << 10) / per_row);
  return t;
}

void pad_backward_rows(const PadProblem& p, const void* tables, const PadBackwardArgs& a) {
  const auto& t = *static_cast<const RowsTables*>(tables);
  if (t.rows == 0 || t.n_in == 0) return;
  detail::visit_float_or_complex(p.dtype, [&](auto tag) { run<decltype(tag)>(t, a); });
}

std::string pad_backward_rows_schedule(const PadProblem&, const void* tables) {
  const auto& t = *static_cast<const RowsTables*>(tables);
  return "rows=" + std::to_string(t.rows) + ", grain=" + std::to_string(t.grain) +
         ", middle=" + std::to_string(t.mid_end - t.mid_begin) + "/" + std::to_string(t.n_out);
}

}  // namespace gridops::kernels
