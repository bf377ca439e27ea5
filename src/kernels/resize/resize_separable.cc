// Fast Resize kernels, three entries of the implementation list (src/ops/resize.cc):
// resize.gather (nearest), resize.fused_rows (float32/uint8 rows of 2 or 3 consecutive
// resized axes, Highway) and resize.passes (one pass per resized axis, linear and cubic with
// or without antialias). The tap tables come from the plan (resize_taps.cc); nothing here
// computes a coordinate. See docs/ops/resize.md, "Fast paths".
#include <algorithm>
#include <climits>
#include <memory>
#include <mutex>
#include <cassert>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <vector>

#include "core/convert.h"
#include "gridops/parallel.h"
#include "kernels/resize/resize_fast.h"

namespace gridops::kernels {
namespace {

/// Work per parallel chunk, in multiply-adds (or element copies).
constexpr int64_t kGrainWork = 1 << 15;

/// Outputs of at least this many floats (64 MiB) are written with non-temporal stores by
/// the fused rows.
constexpr int64_t kStreamFloats = int64_t{1} << 24;

/// Set on a thread that runs whole slab groups inside an outer parallel_for: the passes it
/// runs then stay on that thread (no nested parallel regions).
thread_local bool t_serial = false;

/// Sets t_serial for a scope (also when an exception leaves it).
struct SerialScope {
  SerialScope() { t_serial = true; }
  ~SerialScope() { t_serial = false; }
  SerialScope(const SerialScope&) = delete;
  SerialScope& operator=(const SerialScope&) = delete;
};

/// parallel_for, or the whole range on this thread when t_serial.
void par(int64_t n, int64_t grain, const std::function<void(int64_t, int64_t)>& body) {
  if (t_serial) {
    if (n > 0) body(0, n);
    return;
  }
  parallel_for(n, grain, body);
}

int64_t grain_for(int64_t work_per_item) {
  return std::max<int64_t>(1, kGrainWork / std::max<int64_t>(1, work_per_item));
}

/// Product of dims (validated, so it fits).
int64_t testing_free_product(const Dims& dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
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
  par(outer * out, grain_for(work), [&](int64_t b, int64_t e) {
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
  if (resize_dense(v)) {  // one flat, vectorizable loop
    parallel_for(total, kGrainWork, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) {
        if constexpr (kToDense) dense_buf[i] = convert::load_real<F>(base[i]);
        else base_mut[i] = convert::store_real<T>(dense_buf[i]);
      }
    });
    return;
  }
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

/// Where a float32 pass writes: dense float32 (`f`), or dense elements of another type
/// converted row by row (`t`, `es` bytes each, `store(row, dst, n)`), fused into the pass.
struct F32Out {
  float* f = nullptr;
  char* t = nullptr;
  size_t es = 0;
  void (*store)(const float*, void*, int64_t) = nullptr;
};

template <class T>
void store_row(const float* s, void* d, int64_t n) {
#ifdef GRIDOPS_HAVE_HWY
  if constexpr (std::is_same_v<T, uint8_t>) {
    resize_store_u8_from_f32(s, static_cast<uint8_t*>(d), n);
    return;
  }
#endif
  T* t = static_cast<T*>(d);
  for (int64_t i = 0; i < n; ++i) t[i] = convert::store_real<T>(s[i]);
}

/// A float32 pass (src dense float32), with the Highway row kernels where available. Each
/// output row is computed in place (dense float32 out) or in a per-thread row and stored.
void axis_pass_f32(const float* src, const F32Out& dst, int64_t outer, int64_t inner, const ResizeAxisTable& tb,
                   const ResizeSeparableTables::Axis& ax) {
  const int64_t in = tb.in, out = tb.out;
  // Calls row(r, float* row_out) for rows [b, e) of length n at offsets r * n.
  auto rows = [&](int64_t count, int64_t n, int64_t work, auto&& row) {
    par(count, grain_for(work), [&](int64_t b, int64_t e) {
      std::vector<float> scratch(dst.f ? 0 : static_cast<size_t>(n));
      for (int64_t r = b; r < e; ++r) {
        float* o = dst.f ? dst.f + r * n : scratch.data();
        row(r, o);
        if (!dst.f) dst.store(o, dst.t + static_cast<size_t>(r * n) * dst.es, n);
      }
    });
  };
#ifdef GRIDOPS_HAVE_HWY
  if (inner == 1 && ax.gather_ok) {
    rows(outer, out, out * ax.taps, [&](int64_t r, float* o) {
      resize_gather_row_f32(src + r * in, in, o, out, ax.idx32.data(), ax.w32.data(), ax.taps);
    });
    return;
  }
  if (inner > 1 && inner < 16 && ax.gather_ok && in * inner <= INT32_MAX && out * inner <= INT32_MAX) {
    // Few elements per position (channels-last with few channels): one gather row over
    // (o, c) with indices idx * inner + c, built once for this pass.
    const int64_t n = out * inner;
    std::vector<int32_t> idx(static_cast<size_t>(n * ax.taps));
    std::vector<float> w(static_cast<size_t>(n * ax.taps));
    for (int64_t k = 0; k < ax.taps; ++k) {
      for (int64_t o = 0; o < out; ++o) {
        for (int64_t c = 0; c < inner; ++c) {
          const size_t e = static_cast<size_t>(k * n + o * inner + c);
          idx[e] = static_cast<int32_t>(ax.idx32[static_cast<size_t>(k * out + o)] * inner + c);
          w[e] = ax.w32[static_cast<size_t>(k * out + o)];
        }
      }
    }
    rows(outer, n, n * ax.taps, [&](int64_t r, float* o) {
      resize_gather_row_f32(src + r * in * inner, in * inner, o, n, idx.data(), w.data(), ax.taps);
    });
    return;
  }
#endif
  // Rows of `inner` elements: output (ob, o) = sum over taps of w * src row (ob, idx).
  rows(outer * out, inner, inner * std::max<int64_t>(1, tb.max_taps), [&](int64_t r, float* d) {
    const int64_t ob = r / out, o = r % out;
    const float* s = src + ob * in * inner;
    const int64_t t0 = tb.begin[static_cast<size_t>(o)], t1 = tb.begin[static_cast<size_t>(o) + 1];
    if (t0 == t1) std::fill(d, d + inner, 0.0f);
    for (int64_t t = t0; t < t1; ++t) {
      const float* st = s + tb.idx[static_cast<size_t>(t)] * inner;
      const float wt = ax.w[static_cast<size_t>(t)];
#ifdef GRIDOPS_HAVE_HWY
      resize_axpy_f32(d, st, wt, inner, t == t0);
#else
      if (t == t0) {
        for (int64_t j = 0; j < inner; ++j) d[j] = wt * st[j];
      } else {
        for (int64_t j = 0; j < inner; ++j) d[j] += wt * st[j];
      }
#endif
    }
  });
}

/// The estimated work of running the passes in order `ord` (outputs times taps, a pass
/// along the innermost axis counted 3 times for its gathers).
double pass_cost(const ResizeProblem& p, const std::vector<size_t>& ord) {
  Dims shape = p.src_shape;
  double total = 0;
  for (size_t k : ord) {
    const ResizeAxisTable& tb = p.tables[k];
    double outer = 1, inner = 1;
    for (size_t i = 0; i < static_cast<size_t>(tb.axis); ++i) outer *= static_cast<double>(shape[i]);
    for (size_t i = static_cast<size_t>(tb.axis) + 1; i < shape.size(); ++i) inner *= static_cast<double>(shape[i]);
    const double taps = static_cast<double>(tb.idx.size()) / static_cast<double>(std::max<int64_t>(1, tb.out));
    total += outer * static_cast<double>(tb.out) * inner * (taps * (inner == 1 ? 3.0 : 1.0) + 1.0);
    shape[static_cast<size_t>(tb.axis)] = tb.out;
  }
  return total;
}

/// The order of the passes: the permutation of the resized axes with the least estimated
/// work (outputs times taps, a pass along the innermost axis counted 3 times for its
/// gathers); more than 4 axes: the axis that shrinks most first.
std::vector<size_t> pass_order(const ResizeProblem& p) {
  if (!p.pass_order.empty()) return p.pass_order;  // a window: the full problem's order
  const size_t m = p.tables.size();
  std::vector<size_t> order(m);
  for (size_t k = 0; k < m; ++k) order[k] = k;
  auto ratio = [&](size_t k) { return static_cast<double>(p.tables[k].out) / static_cast<double>(p.tables[k].in); };
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return ratio(a) < ratio(b); });
  if (m > 4) return order;
  auto cost = [&](const std::vector<size_t>& ord) { return pass_cost(p, ord); };
  std::vector<size_t> best = order, perm = order;
  std::sort(perm.begin(), perm.end());
  double best_cost = cost(best);
  do {
    const double c = cost(perm);
    if (c < best_cost) {
      best_cost = c;
      best = perm;
    }
  } while (std::next_permutation(perm.begin(), perm.end()));
  return best;
}

/// An uninitialized buffer (every element is written before it is read).
template <class F>
struct Buffer {
  ResizeScratch s;
  void reset(int64_t count) {
    const size_t bytes = static_cast<size_t>(count) * sizeof(F);
    if (bytes > s.bytes) {
      s.p.reset(new std::byte[bytes]);
      s.bytes = bytes;
    }
  }
  F* data() { return reinterpret_cast<F*>(s.p.get()); }
  void swap(Buffer& o) { std::swap(s, o.s); }
};

/// Extrapolated points get the exact value (the passes left a weighted sum there).
template <class T>
void fill_outside(const ResizeProblem& p, const MutableTensorView& dst) {
  if (!p.any_outside) return;
  const int rank = static_cast<int>(p.dst_shape.size());
  const T fill = convert::store_real<T>(p.extrapolation_value);
  T* d = static_cast<T*>(dst.mutable_data());
  std::vector<int64_t> o(static_cast<size_t>(rank), 0);
  const int64_t total = testing_free_product(p.dst_shape);
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

#ifdef GRIDOPS_HAVE_HWY
// --- fused rows, float32 and uint8 (2 or 3 consecutive resized axes) ---------------------

/// The fused-rows kernel: float32 or uint8 (read as float32, stored as ERRATA GridSample 7
/// says from a float32 row), dense views, m = 2 or 3 resized axes that are consecutive
/// (axes lead .. lead + m - 1, then C elements per position), passes in axis order. Each
/// output row (slab, o_0 [, o_1]) of out_last * C floats is computed on its own: the outer
/// axes blend whole input rows of in_last * C floats (for m = 3 the first axis's blends are
/// memoized per row of the second axis), then the innermost pass (resize_row_pass_f32)
/// writes the output row. The operations and their order are those of the separate passes,
/// so the results are the same bits (but for padding taps, resize_fast.h); only the
/// intermediates (a few rows per thread) differ.
/// Precondition (fused_rows_plan): the second axis's taps of one output lie within
/// max_taps consecutive input indices, so they never share a memo slot.
template <class T>
void fused_rows(const ResizeProblem& p, const ResizeSeparableTables& prep, const T* src, T* dst) {
  const size_t m = p.tables.size();
  const size_t lead = static_cast<size_t>(p.tables[0].axis);
  int64_t slabs = 1;
  for (size_t i = 0; i < lead; ++i) slabs *= p.src_shape[i];
  const ResizeRowTable& rt = prep.row;
  const int64_t in_row = rt.in_len, out_row = rt.out_len;
  const ResizeAxisTable& t0 = p.tables[0];
  const ResizeAxisTable& t1 = p.tables[1];
  // Rows of the input per index of the first resized axis, and of a slab.
  const int64_t in_rows0 = m == 3 ? t1.in : 1;
  const int64_t slab_in = t0.in * in_rows0 * in_row;
  const int64_t out_rows = slabs * t0.out * (m == 3 ? t1.out : 1);
  const std::vector<float>& w0 = prep.axes[0].w;
  const std::vector<float>& w1 = prep.axes[1].w;
  const int64_t taps0 = std::max<int64_t>(1, t0.max_taps), taps1 = std::max<int64_t>(1, t1.max_taps);
  const int64_t work = out_row * rt.taps + in_row * (m == 3 ? taps1 + taps0 : taps0);
  // float32 outputs much larger than the last-level cache go around it (non-temporal
  // stores); uint8 rows are computed in a float32 row and stored converted.
  constexpr bool kF32 = std::is_same_v<T, float>;
  [[maybe_unused]] const bool stream = kF32 && out_rows * out_row >= kStreamFloats;
  parallel_for(out_rows, grain_for(work), [&](int64_t b, int64_t e) {
    // Cache-line aligned rows (CacheLineAllocator): the blends store whole vectors there.
    CacheLineVector<float> blended(static_cast<size_t>(in_row));
    // m = 3: memo of first-axis blends, slot = input row index of the second axis % slots.
    const int64_t slots = m == 3 ? taps1 : 0;
    CacheLineVector<float> memo(static_cast<size_t>(slots * in_row));
    std::vector<int64_t> key(static_cast<size_t>(slots), -1);
    CacheLineVector<float> out_f(kF32 ? 0 : static_cast<size_t>(out_row));
    std::vector<const T*> rows(static_cast<size_t>(taps0));
    std::vector<const float*> hrows(static_cast<size_t>(taps1));
    for (int64_t r = b; r < e; ++r) {
      // The row blended from the outer axes, into `blended`.
      auto blend0 = [&](int64_t o0, const T* base, int64_t stride, float* out) {
        const int64_t a = t0.begin[static_cast<size_t>(o0)], z = t0.begin[static_cast<size_t>(o0) + 1];
        for (int64_t t = a; t < z; ++t) rows[static_cast<size_t>(t - a)] = base + t0.idx[static_cast<size_t>(t)] * stride;
        if constexpr (kF32) resize_blend_rows_f32(out, rows.data(), w0.data() + a, z - a, in_row);
        else resize_blend_rows_u8(out, rows.data(), w0.data() + a, z - a, in_row);
      };
      if (m == 2) {
        const int64_t s = r / t0.out, o0 = r % t0.out;
        blend0(o0, src + s * slab_in, in_row, blended.data());
      } else {
        const int64_t o1 = r % t1.out, q = r / t1.out;
        const int64_t o0 = q % t0.out, s = q / t0.out;
        const T* base = src + s * slab_in;
        const int64_t a = t1.begin[static_cast<size_t>(o1)], z = t1.begin[static_cast<size_t>(o1) + 1];
        for (int64_t t = a; t < z; ++t) {
          const int64_t hi = t1.idx[static_cast<size_t>(t)];
          const size_t slot = static_cast<size_t>(hi % slots);
          float* mrow = memo.data() + static_cast<int64_t>(slot) * in_row;
          const int64_t k = q * t1.in + hi;  // (slab, o0, hi)
          if (key[slot] != k) {
            blend0(o0, base + hi * in_row, in_rows0 * in_row, mrow);
            key[slot] = k;
          }
          hrows[static_cast<size_t>(t - a)] = mrow;  // distinct hi of one output: distinct slots (prepare)
        }
        resize_blend_rows_f32(blended.data(), hrows.data(), w1.data() + a, z - a, in_row);
      }
      if constexpr (kF32) {
        resize_row_pass_f32(blended.data(), dst + r * out_row, rt, stream);
      } else {
        resize_row_pass_f32(blended.data(), out_f.data(), rt, false);
        resize_store_u8_from_f32(out_f.data(), dst + r * out_row, out_row);
      }
    }
  });
}
#endif

/// resize.passes for element type T.
template <class T>
void passes_typed(const ResizeProblem& p, const ResizeSeparableTables& prep, const ResizeViews& v) {
  const TensorView& src = v.src;
  const MutableTensorView& dst = v.dst;
  using F = std::conditional_t<convert::needs_double_v<T> || std::is_same_v<T, int32_t> ||
                                   std::is_same_v<T, uint32_t>,
                               double, float>;
  constexpr bool kF32 = std::is_same_v<F, float>;
  const int rank = static_cast<int>(p.dst_shape.size());
  const std::vector<size_t>& order = prep.order;
  // The single-thread group path reuses the plan's scratch from its previous run (fresh
  // pages for large intermediates cost as much as the passes); the pool is left alone when
  // another run of the same plan holds it.
  Buffer<F> cur, next;
  std::unique_lock<std::mutex> pool_lock(prep.pool_mutex, std::try_to_lock);
  if (pool_lock.owns_lock()) {
    cur.s = std::move(prep.pool[0]);
    next.s = std::move(prep.pool[1]);
  }
  struct GiveBack {
    std::unique_lock<std::mutex>& lock;
    const ResizeSeparableTables& prep;
    Buffer<F>& a;
    Buffer<F>& b;
    ~GiveBack() {
      if (lock.owns_lock()) {
        prep.pool[0] = std::move(a.s);
        prep.pool[1] = std::move(b.s);
      }
    }
  } give_back{pool_lock, prep, cur, next};
  // float32 passes work on float32 rows: other element types (and strided views) are
  // converted to a dense buffer first; other dense element types are stored row by row
  // from the last pass, strided dst views written from a dense buffer last.
  const bool src_dense = v.src_dense, dst_dense = v.dst_dense;
  const bool convert_in = !src_dense || (kF32 && !std::is_same_v<T, float>);
  const bool direct_out = dst_dense;
  // The leading axes no pass touches split the problem into independent slabs. With dense
  // views, groups of slabs of about 2^16 output elements (or one slab) run one after another (each pass
  // threaded inside), so the intermediates stay small: cache-resident, and reused heap
  // memory instead of fresh pages every run.
  size_t lead = static_cast<size_t>(rank);
  for (const ResizeAxisTable& tb : p.tables) lead = std::min(lead, static_cast<size_t>(tb.axis));
  int64_t slabs = 1, slab_in = 1, slab_out = 1;
  for (size_t i = 0; i < lead; ++i) slabs *= p.src_shape[i];
  for (size_t i = lead; i < static_cast<size_t>(rank); ++i) {
    slab_in *= p.src_shape[i];
    slab_out *= p.dst_shape[i];
  }
  const int64_t group = src_dense && dst_dense
                            ? std::max<int64_t>(1, std::min<int64_t>(slabs, (int64_t{1} << 16) / std::max<int64_t>(1, slab_out)))
                            : slabs;
  const T* src_base = static_cast<const T*>(src.data);
  T* dst_base = static_cast<T*>(dst.mutable_data());
  // One slab group: from slab g0, `count` slabs, through the buffers cur and next.
  auto run_group = [&](int64_t g0, int64_t count, Buffer<F>& cur, Buffer<F>& next) {
    // The group's shape: (count, src dims from `lead` on); table axis a is axis a - lead + 1.
    Dims shape{count};
    shape.insert(shape.end(), p.src_shape.begin() + static_cast<std::ptrdiff_t>(lead), p.src_shape.end());
    const T* s_ptr = src_dense ? src_base + g0 * slab_in : nullptr;
    T* d_ptr = dst_dense ? dst_base + g0 * slab_out : nullptr;
    if (convert_in) {
      cur.reset(count * slab_in);
      if (src_dense) {
        F* c = cur.data();
        par(count * slab_in, kGrainWork, [&](int64_t b, int64_t e) {
          for (int64_t i = b; i < e; ++i) c[i] = convert::load_real<F>(s_ptr[i]);
        });
      } else {
        strided_copy<F, T, true>(src, cur.data(), nullptr, src_base);
      }
    }
    for (size_t k = 0; k < order.size(); ++k) {
      const ResizeAxisTable& tb = p.tables[order[k]];
      const size_t a = static_cast<size_t>(tb.axis) - lead + 1;
      int64_t outer = 1, inner = 1;
      for (size_t i = 0; i < a; ++i) outer *= shape[i];
      for (size_t i = a + 1; i < shape.size(); ++i) inner *= shape[i];
      const bool read_src = k == 0 && !convert_in;
      const bool write_dst = k + 1 == order.size() && direct_out;
      if (!write_dst) next.reset(outer * tb.out * inner);
      if constexpr (kF32) {
        // T is float32 wherever src is read directly.
        const float* in_p = read_src ? reinterpret_cast<const float*>(s_ptr) : cur.data();
        F32Out o;
        if (!write_dst) {
          o.f = next.data();
        } else if constexpr (std::is_same_v<T, float>) {
          o.f = d_ptr;
        } else {
          o.t = reinterpret_cast<char*>(d_ptr);
          o.es = sizeof(T);
          o.store = &store_row<T>;
        }
        axis_pass_f32(in_p, o, outer, inner, tb, prep.axes[order[k]]);
      } else {
        if (read_src && write_dst) {
          axis_pass<F>(s_ptr, d_ptr, outer, inner, tb, tb.w);
        } else if (read_src) {
          axis_pass<F>(s_ptr, next.data(), outer, inner, tb, tb.w);
        } else if (write_dst) {
          axis_pass<F>(cur.data(), d_ptr, outer, inner, tb, tb.w);
        } else {
          axis_pass<F>(cur.data(), next.data(), outer, inner, tb, tb.w);
        }
      }
      shape[a] = tb.out;
      if (!write_dst) cur.swap(next);
    }
  };
  const int64_t groups = (slabs + group - 1) / group;
  if (src_dense && dst_dense && groups >= 2 * get_num_threads() && get_num_threads() > 1 && !t_serial) {
    // Enough groups for every thread: each runs whole groups, one parallel region per run.
    parallel_for(groups, 1, [&](int64_t gb, int64_t ge) {
      Buffer<F> c, n;
      SerialScope serial;
      for (int64_t g = gb; g < ge; ++g) run_group(g * group, std::min(group, slabs - g * group), c, n);
    });
  } else {
    for (int64_t g = 0; g < groups; ++g) run_group(g * group, std::min(group, slabs - g * group), cur, next);
  }
  if (!direct_out) strided_copy<F, T, false>(dst, cur.data(), dst_base, nullptr);
  fill_outside<T>(p, dst);
}

/// The padded float32 tables of one resized axis (ResizeSeparableTables::Axis).
ResizeSeparableTables::Axis make_axis(const ResizeAxisTable& tb) {
  ResizeSeparableTables::Axis a;
  a.w.assign(tb.w.begin(), tb.w.end());
  a.taps = std::max<int64_t>(1, tb.max_taps);
  a.gather_ok = tb.in <= INT32_MAX;
  if (a.gather_ok) {
    const size_t out = static_cast<size_t>(tb.out);
    a.idx32.assign(out * static_cast<size_t>(a.taps), 0);
    a.w32.assign(out * static_cast<size_t>(a.taps), 0.0f);
    // Padding repeats the output's first tap (weight 0); an output without taps
    // (extrapolated) reads index 0 before the first output with taps and in - 1 after it,
    // which keeps the index range of a block of outputs small.
    bool seen = false;
    for (size_t o = 0; o < out; ++o) {
      const int64_t t0 = tb.begin[o], n = tb.begin[o + 1] - t0;
      const int32_t pad = n > 0 ? static_cast<int32_t>(tb.idx[static_cast<size_t>(t0)])
                                : static_cast<int32_t>(seen ? tb.in - 1 : 0);
      for (int64_t k = 0; k < a.taps; ++k) {
        const size_t e = static_cast<size_t>(k) * out + o;
        if (k < n) {
          a.idx32[e] = static_cast<int32_t>(tb.idx[static_cast<size_t>(t0 + k)]);
          a.w32[e] = static_cast<float>(tb.w[static_cast<size_t>(t0 + k)]);
        } else {
          a.idx32[e] = pad;
        }
      }
      seen = seen || n > 0;
    }
  }
  return a;
}

#ifdef GRIDOPS_HAVE_HWY
/// Why the fused rows decline p (empty: they take it), from the problem and the padded
/// table of its innermost resized axis (`last`, ResizeSeparableTables::Axis of
/// p.tables.back(); null: built here when needed). When they take it and `row` is not
/// null, builds *row.
std::string fused_rows_plan(const ResizeProblem& p, const ResizeSeparableTables::Axis* last,
                            ResizeRowTable* row) {
  const size_t m = p.tables.size();
  for (size_t k = 0; k < m; ++k) {
    if (p.tables[k].axis != p.tables[0].axis + static_cast<int>(k)) {
      return "the resized axes are not consecutive";
    }
    if (p.tables[k].in > INT32_MAX) return "an input axis is 2^31 or longer";
  }
  const ResizeAxisTable& tl = p.tables[m - 1];
  int64_t C = 1;
  for (size_t i = static_cast<size_t>(tl.axis) + 1; i < p.src_shape.size(); ++i) C *= p.src_shape[i];
  // C = 1 (NCHW-like): the separate passes already run on cache-sized slab groups, and were
  // faster on W8c/nchw (docs/BENCHMARKS.md) than these rows.
  if (C < 2) return "fewer than 2 elements per position after the resized axes (NCHW-like)";
  if (C > INT32_MAX / std::max(tl.in, tl.out)) return "rows of 2^31 elements or more";
  // The fused rows run the passes in axis order: only where that order costs at most a
  // quarter more than the best one (it saves writing and reading the intermediates). A
  // window (p.pass_order set) rounds as its full problem did: fused only in axis order.
  std::vector<size_t> axis_order(m);
  for (size_t k = 0; k < m; ++k) axis_order[k] = k;
  if (!p.pass_order.empty()) {
    if (p.pass_order != axis_order) return "the window's pass order (its full problem's) is not axis order";
  } else if (pass_cost(p, axis_order) > 1.25 * pass_cost(p, pass_order(p))) {
    return "axis order costs more than 1.25 times the cheapest pass order";
  }
  if (m == 3) {  // the memo slots (fused_rows)
    const ResizeAxisTable& t1 = p.tables[1];
    const int64_t slots = std::max<int64_t>(1, t1.max_taps);
    for (int64_t o = 0; o < t1.out; ++o) {
      const int64_t a = t1.begin[static_cast<size_t>(o)], z = t1.begin[static_cast<size_t>(o) + 1];
      if (a == z) continue;
      const auto mm = std::minmax_element(t1.idx.begin() + a, t1.idx.begin() + z);
      if (*mm.second - *mm.first >= slots) return "the second axis's taps of an output span more than its tap count";
    }
  }
  ResizeSeparableTables::Axis built;
  if (last == nullptr) {
    built = make_axis(tl);
    last = &built;
  }
  const ResizeSeparableTables::Axis& ax = *last;
  ResizeRowTable scratch;
  ResizeRowTable& r = row != nullptr ? *row : scratch;
  const int64_t N = resize_lanes_f32(), T = ax.taps;
  r.lanes = N;
  r.taps = T;
  r.in_len = tl.in * C;
  r.out_len = tl.out * C;
  r.C = C;
  if (C >= N) {
    // Whole vectors per position: plain loads of each tap's C floats, no tables per lane.
    if (row != nullptr) {
      r.by_position = true;
      r.begin = tl.begin;
      r.pidx = tl.idx;
      r.pw = ax.w;
    }
    return {};
  }
  r.blocks = r.out_len / N;
  r.lo.assign(static_cast<size_t>(r.blocks), -1);
  r.pat.assign(static_cast<size_t>(r.blocks), 0);
  const int64_t out = tl.out;
  auto tap = [&](int64_t o, int64_t k, int32_t& i, float& w) {  // output element o, tap k
    const int64_t pos = o / C, c = o % C;
    const size_t e = static_cast<size_t>(k * out + pos);
    i = static_cast<int32_t>(ax.idx32[e] * C + c);
    w = ax.w32[e];
  };
  const size_t bn = static_cast<size_t>(T * N);
  std::vector<int32_t> bi(bn);
  std::vector<float> bw(bn);
  std::unordered_map<std::string, int32_t> seen;  // a block's (idx, w) bytes -> its pattern
  std::string bytes;
  for (int64_t b = 0; b < r.blocks; ++b) {
    int32_t lo = INT32_MAX, hi = 0;
    for (int64_t k = 0; k < T; ++k) {
      for (int64_t l = 0; l < N; ++l) {
        const size_t e = static_cast<size_t>(k * N + l);
        tap(b * N + l, k, bi[e], bw[e]);
        lo = std::min(lo, bi[e]);
        hi = std::max(hi, bi[e]);
      }
    }
    // Two vectors from lo (moved left at the row's end) must cover every tap.
    const int64_t base = std::min<int64_t>(lo, r.in_len - 2 * N);
    if (r.in_len >= 2 * N && hi - base < 2 * N) {
      r.lo[static_cast<size_t>(b)] = static_cast<int32_t>(base);
      for (int32_t& i : bi) i -= static_cast<int32_t>(base);
    }
    if (row == nullptr) continue;  // deciding only: the patterns are not needed
    bytes.assign(reinterpret_cast<const char*>(bi.data()), bn * sizeof(int32_t));
    bytes.append(reinterpret_cast<const char*>(bw.data()), bn * sizeof(float));
    // Gathers (absolute indices) are only shared with an identical gather block.
    if (r.lo[static_cast<size_t>(b)] < 0) bytes.push_back('g');
    const auto [it, added] = seen.try_emplace(bytes, static_cast<int32_t>(seen.size()));
    if (added) {
      r.idx.insert(r.idx.end(), bi.begin(), bi.end());
      r.w.insert(r.w.end(), bw.begin(), bw.end());
    }
    r.pat[static_cast<size_t>(b)] = it->second;
  }
  // Mostly gathers (strong downsampling, e.g. W8c/nhwc): the separate passes gather as
  // much and were as fast or faster there; the fused rows pay off with lane permutations.
  int64_t gathers = 0;
  for (int32_t v : r.lo) gathers += v < 0 ? 1 : 0;
  if (2 * gathers > r.blocks) {
    r = ResizeRowTable{};
    return "more than half of the row's blocks would gather (their taps span more than two "
           "vectors: strong downsampling, or wide taps over a few channels)";
  }
  if (row == nullptr) return {};
  const int64_t first = r.blocks * N, tail = r.out_len - first;
  r.tail_idx.assign(static_cast<size_t>(tail * T), 0);
  r.tail_w.assign(static_cast<size_t>(tail * T), 0.0f);
  for (int64_t o = 0; o < tail; ++o) {
    for (int64_t k = 0; k < T; ++k) tap(first + o, k, r.tail_idx[static_cast<size_t>(k * tail + o)], r.tail_w[static_cast<size_t>(k * tail + o)]);
  }
  return {};
}
#endif

}  // namespace

bool resize_dense(const TensorView& v) noexcept {
  int64_t expect = 1;
  for (int a = v.rank() - 1; a >= 0; --a) {
    const size_t au = static_cast<size_t>(a);
    if (v.shape[au] != 1 && v.strides[au] != expect) return false;
    expect *= v.shape[au];
  }
  return true;
}

std::vector<size_t> resize_planned_pass_order(const ResizeProblem& p, const void* tables) {
  if (tables != nullptr) return static_cast<const ResizeSeparableTables*>(tables)->order;
  return pass_order(p);
}

// --- resize.gather ----------------------------------------------------------------------

std::string resize_gather_declines(const ResizeProblem& p) {
  if (p.mode != ResizeMode::kNearest && !p.tables.empty()) {
    return "linear/cubic on a resized axis is not a gather (the passes' problem)";
  }
  return {};
}

void resize_gather(const ResizeProblem& p, const void*, const ResizeViews& v) {
  assert(resize_gather_declines(p).empty());
  visit_dtype(p.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    gather_typed<T>(p, v.src, v.dst);
  });
}

// --- resize.passes ----------------------------------------------------------------------

std::string resize_passes_declines(const ResizeProblem& p) {
  if (p.mode == ResizeMode::kNearest || p.tables.empty()) {
    return "nearest, or every axis the identity: a gather (resize.gather)";
  }
  if (is_complex(p.dtype)) return "linear/cubic on complex elements run in the reference";
  return {};
}

namespace {

/// The per-axis tables, passes in `order`.
std::shared_ptr<ResizeSeparableTables> passes_tables(const ResizeProblem& p,
                                                     std::vector<size_t> order) {
  auto t = std::make_shared<ResizeSeparableTables>();
  for (const ResizeAxisTable& tb : p.tables) t->axes.push_back(make_axis(tb));
  t->order = std::move(order);
  return t;
}

std::string order_field(const ResizeProblem& p, const ResizeSeparableTables& t) {
  std::string s = "order=";
  for (size_t k = 0; k < t.order.size(); ++k) {
    s += (k ? "," : "") + std::to_string(p.tables[t.order[k]].axis);
  }
  return s;
}

}  // namespace

std::shared_ptr<const void> resize_passes_prepare(const ResizeProblem& p) {
  return passes_tables(p, pass_order(p));
}

std::string resize_passes_schedule(const ResizeProblem& p, const void* prepared) {
  return order_field(p, *static_cast<const ResizeSeparableTables*>(prepared));
}

void resize_passes(const ResizeProblem& p, const void* prepared, const ResizeViews& v) {
  assert(resize_passes_declines(p).empty());
  const auto& prep = *static_cast<const ResizeSeparableTables*>(prepared);
  visit_dtype(p.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (convert::is_numeric_v<T> && !convert::is_complex_t<T>::value) {
      passes_typed<T>(p, prep, v);
    } else {
      assert(false && "declined");
    }
  });
}

#ifdef GRIDOPS_HAVE_HWY
// --- resize.fused_rows ------------------------------------------------------------------

std::string resize_fused_rows_declines(const ResizeProblem& p) {
  if (p.dtype != DType::kFloat32 && p.dtype != DType::kUInt8) {
    return std::string("dtype ") + to_string(p.dtype) + ": the fused rows take float32 and uint8";
  }
  if (p.mode == ResizeMode::kNearest) return "nearest is a gather (resize.gather)";
  const size_t m = p.tables.size();
  if (m != 2 && m != 3) return std::to_string(m) + " resized axes (the fused rows take 2 or 3)";
  return fused_rows_plan(p, nullptr, nullptr);
}

std::string resize_fused_rows_declines_views(const ResizeProblem&, const void*,
                                             const ResizeViews& v) {
  if (!v.src_dense) return "src is not dense";
  if (!v.dst_dense) return "dst is not dense";
  return {};
}

std::shared_ptr<const void> resize_fused_rows_prepare(const ResizeProblem& p) {
  std::vector<size_t> axis_order(p.tables.size());
  for (size_t k = 0; k < axis_order.size(); ++k) axis_order[k] = k;
  std::shared_ptr<ResizeSeparableTables> t = passes_tables(p, std::move(axis_order));
  [[maybe_unused]] const std::string why = fused_rows_plan(p, &t->axes.back(), &t->row);
  assert(why.empty() && "declined");
  return t;
}

std::string resize_fused_rows_schedule(const ResizeProblem& p, const void* prepared) {
  const auto& t = *static_cast<const ResizeSeparableTables*>(prepared);
  const ResizeRowTable& r = t.row;
  if (r.by_position) return order_field(p, t) + ", row=by_position";
  int64_t gathers = 0;
  for (int32_t lo : r.lo) gathers += lo < 0 ? 1 : 0;
  const int64_t patterns = r.taps * r.lanes > 0
                               ? static_cast<int64_t>(r.idx.size()) / (r.taps * r.lanes)
                               : 0;
  return order_field(p, t) + ", row=blocks (blocks=" + std::to_string(r.blocks) +
         ", patterns=" + std::to_string(patterns) + ", gathers=" + std::to_string(gathers) + ")";
}

void resize_fused_rows(const ResizeProblem& p, const void* prepared, const ResizeViews& v) {
  assert(resize_fused_rows_declines_views(p, prepared, v).empty());
  const TensorView& src = v.src;
  const MutableTensorView& dst = v.dst;
  const auto& prep = *static_cast<const ResizeSeparableTables*>(prepared);
  if (p.dtype == DType::kFloat32) {
    fused_rows<float>(p, prep, static_cast<const float*>(src.data), static_cast<float*>(dst.mutable_data()));
    fill_outside<float>(p, dst);
  } else {
    fused_rows<uint8_t>(p, prep, static_cast<const uint8_t*>(src.data), static_cast<uint8_t*>(dst.mutable_data()));
    fill_outside<uint8_t>(p, dst);
  }
}
#endif

}  // namespace gridops::kernels
