// resize.fused_rows, an entry of the implementation list (src/ops/resize.cc): float32 and
// uint8 rows of 2 or 3 consecutive resized axes followed by C >= 2 elements, each output
// row blended from input rows, with the bits of the passes in axis order (Highway only).
// See docs/ops/resize.md, "Fast paths".
#include <algorithm>
#include <cassert>
#include <climits>
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <vector>

#include "core/convert.h"
#include "gridops/parallel.h"
#include "kernels/resize/resize_fast.h"
#include "kernels/resize/resize_separable.h"

#ifdef GRIDOPS_HAVE_HWY
namespace gridops::kernels {
namespace {

using namespace resize_internal;  // NOLINT(google-build-using-namespace)

/// Outputs of at least this many floats (64 MiB) are written with non-temporal stores by
/// the fused rows.
constexpr int64_t kStreamFloats = int64_t{1} << 24;

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

}  // namespace

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

}  // namespace gridops::kernels
#endif  // GRIDOPS_HAVE_HWY
