// Fast Resize kernels: a gather for nearest, separable passes for linear and cubic (with or
// without antialias). The tap tables come from the plan (src/ops/resize.cc); nothing here
// computes a coordinate. See docs/ops/resize.md, "Fast path".
#include <algorithm>
#include <cassert>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "core/convert.h"
#include "gridops/parallel.h"
#include "kernels/resize/resize_fast.h"

namespace gridops::kernels {
namespace {

/// Work per parallel chunk, in multiply-adds (or element copies).
constexpr int64_t kGrainWork = 1 << 15;

int64_t grain_for(int64_t work_per_item) {
  return std::max<int64_t>(1, kGrainWork / std::max<int64_t>(1, work_per_item));
}

/// True when the view's strides are row-major contiguous (size-1 axes ignored).
bool dense(const TensorView& v) {
  int64_t expect = 1;
  for (int a = v.rank() - 1; a >= 0; --a) {
    const size_t au = static_cast<size_t>(a);
    if (v.shape[au] != 1 && v.strides[au] != expect) return false;
    expect *= v.shape[au];
  }
  return true;
}

// --- nearest: a gather -------------------------------------------------------------------

template <class T>
void gather_typed(const ResizeProblem& p, const TensorView& src, const MutableTensorView& dst) {
  const int rank = static_cast<int>(p.dst_shape.size());
  // Per axis: the source element offset of every output index (strides may be negative)
  // and whether that index is outside (tf_crop_and_resize).
  std::vector<std::vector<int64_t>> off(static_cast<size_t>(rank));
  std::vector<std::vector<uint8_t>> out_flag(static_cast<size_t>(rank));
  std::vector<int> table_of(static_cast<size_t>(rank), -1);
  for (size_t k = 0; k < p.tables.size(); ++k) table_of[static_cast<size_t>(p.tables[k].axis)] = static_cast<int>(k);
  for (int a = 0; a < rank; ++a) {
    const size_t au = static_cast<size_t>(a);
    auto& v = off[au];
    v.resize(static_cast<size_t>(p.dst_shape[au]));
    out_flag[au].assign(static_cast<size_t>(p.dst_shape[au]), 0);
    const int k = table_of[au];
    for (int64_t o = 0; o < p.dst_shape[au]; ++o) {
      int64_t i = o;
      bool outside = false;
      if (k >= 0) {
        const ResizeAxisTable& tb = p.tables[static_cast<size_t>(k)];
        if (!tb.outside.empty() && tb.outside[static_cast<size_t>(o)]) outside = true;
        else i = tb.idx[static_cast<size_t>(tb.begin[static_cast<size_t>(o)])];
      }
      v[static_cast<size_t>(o)] = outside ? 0 : i * src.strides[au];
      out_flag[au][static_cast<size_t>(o)] = outside ? 1 : 0;
    }
  }
  T fill{};
  if constexpr (convert::is_numeric_v<T>) {
    fill = convert::store<T>(convert::acc_t<T, double>(p.extrapolation_value));
  }
  const T* s = static_cast<const T*>(src.data);
  T* d = static_cast<T*>(dst.mutable_data());
  const int64_t inner = rank > 0 ? p.dst_shape.back() : 1;
  int64_t rows = 1;
  for (int a = 0; a + 1 < rank; ++a) rows *= p.dst_shape[static_cast<size_t>(a)];
  const int64_t dst_inner_stride = rank > 0 ? dst.strides.back() : 0;
  const std::vector<int64_t> empty_last{0};
  const std::vector<uint8_t> empty_flag{0};
  const std::vector<int64_t>& last = rank > 0 ? off.back() : empty_last;
  const std::vector<uint8_t>& last_out = rank > 0 ? out_flag.back() : empty_flag;
  parallel_for(rows, grain_for(inner), [&](int64_t b, int64_t e) {
    std::vector<int64_t> o(static_cast<size_t>(std::max(rank - 1, 0)), 0);
    // Decompose b into the row index (all axes but the last).
    int64_t rem = b;
    for (int a = rank - 2; a >= 0; --a) {
      const size_t au = static_cast<size_t>(a);
      o[au] = rem % p.dst_shape[au];
      rem /= p.dst_shape[au];
    }
    for (int64_t r = b; r < e; ++r) {
      int64_t base = 0, dbase = 0;
      bool outside = false;
      for (int a = 0; a + 1 < rank; ++a) {
        const size_t au = static_cast<size_t>(a);
        if (out_flag[au][static_cast<size_t>(o[au])]) outside = true;
        base += off[au][static_cast<size_t>(o[au])];
        dbase += o[au] * dst.strides[au];
      }
      T* drow = d + dbase;
      if (outside) {
        for (int64_t j = 0; j < inner; ++j) drow[j * dst_inner_stride] = fill;
      } else {
        const T* srow = s + base;
        for (int64_t j = 0; j < inner; ++j) {
          const size_t ju = static_cast<size_t>(j);
          drow[j * dst_inner_stride] = last_out[ju] ? fill : srow[last[ju]];
        }
      }
      for (int a = rank - 2; a >= 0; --a) {
        const size_t au = static_cast<size_t>(a);
        if (++o[au] < p.dst_shape[au]) break;
        o[au] = 0;
      }
    }
  });
}

// --- linear / cubic: separable passes ---------------------------------------------------

/// One pass along one axis: src viewed as (outer, in, inner) -> dst (outer, out, inner),
/// both dense. In and Out are the element type or the compute type F.
template <class F, class In, class Out>
void axis_pass(const In* src, Out* dst, int64_t outer, int64_t inner, const ResizeAxisTable& tb,
               const std::vector<F>& w) {
  const int64_t in = tb.in, out = tb.out;
  const int64_t* idx = tb.idx.data();
  const int64_t work = std::max<int64_t>(1, inner * std::max<int64_t>(1, tb.max_taps));
  parallel_for(outer * out, grain_for(work), [&](int64_t b, int64_t e) {
    std::vector<F> row;
    if (inner > 1 && !std::is_same_v<Out, F>) row.resize(static_cast<size_t>(inner));
    for (int64_t r = b; r < e; ++r) {
      const int64_t ob = r / out, o = r % out;
      const In* s = src + ob * in * inner;
      Out* d = dst + (ob * out + o) * inner;
      const int64_t t0 = tb.begin[static_cast<size_t>(o)], t1 = tb.begin[static_cast<size_t>(o) + 1];
      if (inner == 1) {
        F acc = F(0);
        for (int64_t t = t0; t < t1; ++t) acc += w[static_cast<size_t>(t)] * convert::load_real<F>(s[idx[t]]);
        d[0] = convert::store_real<Out>(acc);
        continue;
      }
      F* acc;
      if constexpr (std::is_same_v<Out, F>) acc = d;
      else acc = row.data();
      if (t0 == t1) {
        std::fill(acc, acc + inner, F(0));
      } else {
        const F w0 = w[static_cast<size_t>(t0)];
        const In* s0 = s + idx[t0] * inner;
        for (int64_t j = 0; j < inner; ++j) acc[j] = w0 * convert::load_real<F>(s0[j]);
        for (int64_t t = t0 + 1; t < t1; ++t) {
          const F wt = w[static_cast<size_t>(t)];
          const In* st = s + idx[t] * inner;
          for (int64_t j = 0; j < inner; ++j) acc[j] += wt * convert::load_real<F>(st[j]);
        }
      }
      if constexpr (!std::is_same_v<Out, F>) {
        for (int64_t j = 0; j < inner; ++j) d[j] = convert::store_real<Out>(acc[j]);
      }
    }
  });
}

/// Strided src -> dense F (or dense F -> strided dst), one element at a time.
template <class F, class T, bool kToDense>
void strided_copy(const TensorView& v, F* dense_buf, T* base_mut, const T* base) {
  const int rank = v.rank();
  int64_t total = 1;
  for (int64_t n : v.shape) total *= n;
  const int64_t inner = rank > 0 ? v.shape.back() : 1;
  const int64_t rows = inner > 0 ? total / inner : 0;
  const int64_t is = rank > 0 ? v.strides.back() : 0;
  parallel_for(rows, grain_for(inner), [&](int64_t b, int64_t e) {
    std::vector<int64_t> o(static_cast<size_t>(std::max(rank - 1, 0)), 0);
    int64_t rem = b;
    for (int a = rank - 2; a >= 0; --a) {
      const size_t au = static_cast<size_t>(a);
      o[au] = rem % v.shape[au];
      rem /= v.shape[au];
    }
    for (int64_t r = b; r < e; ++r) {
      int64_t off = 0;
      for (int a = 0; a + 1 < rank; ++a) off += o[static_cast<size_t>(a)] * v.strides[static_cast<size_t>(a)];
      for (int64_t j = 0; j < inner; ++j) {
        if constexpr (kToDense) dense_buf[r * inner + j] = convert::load_real<F>(base[off + j * is]);
        else base_mut[off + j * is] = convert::store_real<T>(dense_buf[r * inner + j]);
      }
      for (int a = rank - 2; a >= 0; --a) {
        const size_t au = static_cast<size_t>(a);
        if (++o[au] < v.shape[au]) break;
        o[au] = 0;
      }
    }
  });
}

template <class T>
void separable_typed(const ResizeProblem& p, const TensorView& src, const MutableTensorView& dst) {
  using F = std::conditional_t<convert::needs_double_v<T> || std::is_same_v<T, int32_t> ||
                                   std::is_same_v<T, uint32_t>,
                               double, float>;
  const int rank = static_cast<int>(p.dst_shape.size());
  // The axis that shrinks most goes first (smallest intermediates).
  std::vector<const ResizeAxisTable*> order;
  for (const ResizeAxisTable& tb : p.tables) order.push_back(&tb);
  std::stable_sort(order.begin(), order.end(), [](const ResizeAxisTable* a, const ResizeAxisTable* b) {
    return static_cast<double>(a->out) / static_cast<double>(a->in) <
           static_cast<double>(b->out) / static_cast<double>(b->in);
  });
  Dims shape = p.src_shape;
  std::vector<F> cur, next;
  const bool src_dense = dense(src), dst_dense = dense(dst);
  if (!src_dense) {
    int64_t total = 1;
    for (int64_t n : shape) total *= n;
    cur.resize(static_cast<size_t>(total));
    strided_copy<F, T, true>(src, cur.data(), nullptr, static_cast<const T*>(src.data));
  }
  for (size_t k = 0; k < order.size(); ++k) {
    const ResizeAxisTable& tb = *order[k];
    const size_t a = static_cast<size_t>(tb.axis);
    int64_t outer = 1, inner = 1;
    for (size_t i = 0; i < a; ++i) outer *= shape[i];
    for (size_t i = a + 1; i < static_cast<size_t>(rank); ++i) inner *= shape[i];
    std::vector<F> w(tb.w.size());
    for (size_t i = 0; i < w.size(); ++i) w[i] = static_cast<F>(tb.w[i]);
    const bool first = k == 0, last = k + 1 == order.size();
    const bool read_src = first && src_dense;
    const bool write_dst = last && dst_dense;
    if (!write_dst) next.resize(static_cast<size_t>(outer * tb.out * inner));
    if (read_src && write_dst) {
      axis_pass<F>(static_cast<const T*>(src.data), static_cast<T*>(dst.mutable_data()), outer, inner, tb, w);
    } else if (read_src) {
      axis_pass<F>(static_cast<const T*>(src.data), next.data(), outer, inner, tb, w);
    } else if (write_dst) {
      axis_pass<F>(cur.data(), static_cast<T*>(dst.mutable_data()), outer, inner, tb, w);
    } else {
      axis_pass<F>(cur.data(), next.data(), outer, inner, tb, w);
    }
    shape[a] = tb.out;
    if (!write_dst) cur.swap(next);
  }
  if (!dst_dense) strided_copy<F, T, false>(dst, cur.data(), static_cast<T*>(dst.mutable_data()), nullptr);
  if (p.any_outside) {
    // Extrapolated points get the exact value (the passes left a weighted sum there).
    const T fill = convert::store_real<T>(p.extrapolation_value);
    T* d = static_cast<T*>(dst.mutable_data());
    std::vector<int64_t> o(static_cast<size_t>(rank), 0);
    int64_t total = 1;
    for (int64_t n : p.dst_shape) total *= n;
    for (int64_t flat = 0; flat < total; ++flat) {
      bool outside = false;
      for (const ResizeAxisTable& tb : p.tables) {
        if (!tb.outside.empty() && tb.outside[static_cast<size_t>(o[static_cast<size_t>(tb.axis)])]) outside = true;
      }
      if (outside) {
        int64_t off = 0;
        for (int a = 0; a < rank; ++a) off += o[static_cast<size_t>(a)] * dst.strides[static_cast<size_t>(a)];
        d[off] = fill;
      }
      for (int a = rank - 1; a >= 0; --a) {
        const size_t au = static_cast<size_t>(a);
        if (++o[au] < p.dst_shape[au]) break;
        o[au] = 0;
      }
    }
  }
}

}  // namespace

std::string resize_separable_declines(const ResizeProblem& p) {
  if (p.mode != ResizeMode::kNearest && !p.tables.empty() && is_complex(p.dtype)) {
    return "linear/cubic on complex elements run in the reference";
  }
  return {};
}

void resize_separable(const ResizeProblem& p, const void*, const TensorView& src,
                      const MutableTensorView& dst) {
  visit_dtype(p.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if (p.mode == ResizeMode::kNearest || p.tables.empty()) {
      gather_typed<T>(p, src, dst);
    } else if constexpr (convert::is_numeric_v<T> && !convert::is_complex_t<T>::value) {
      separable_typed<T>(p, src, dst);
    } else {
      assert(false && "declined");
    }
  });
}

}  // namespace gridops::kernels
