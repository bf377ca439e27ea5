// resize.passes, an entry of the implementation list (src/ops/resize.cc): one pass per
// resized axis, linear and cubic with or without antialias; and the helpers it shares with
// resize.gather (resize_gather.cc) and resize.fused_rows (resize_fused_rows.cc). The tap
// tables come from the plan (resize_taps.cc); nothing here computes a coordinate. See
// docs/ops/resize.md, "Fast paths".
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
#include <vector>

#include "core/convert.h"
#include "gridops/parallel.h"
#include "kernels/resize/resize_fast.h"
#include "kernels/resize/resize_separable.h"

namespace gridops::kernels {

// --- shared helpers (resize_separable.h) ------------------------------------------------

namespace resize_internal {

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

}  // namespace resize_internal

namespace {

using namespace resize_internal;  // NOLINT(google-build-using-namespace)

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

// --- resize.passes ----------------------------------------------------------------------

std::string resize_passes_declines(const ResizeProblem& p) {
  if (p.mode == ResizeMode::kNearest || p.tables.empty()) {
    return "nearest, or every axis the identity: a gather (resize.gather)";
  }
  if (is_complex(p.dtype)) return "linear/cubic on complex elements run in the reference";
  return {};
}


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

}  // namespace gridops::kernels
