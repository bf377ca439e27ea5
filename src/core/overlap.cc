#include "core/overlap.h"

#include <algorithm>
#include <array>
#include <utility>

namespace gridops::detail {

ByteRange byte_range(const TensorView& v) noexcept {
  for (const int64_t d : v.shape)
    if (d == 0) return {};
  int64_t lo = 0, hi = 0;  // element offsets of the lowest and highest element
  for (size_t i = 0; i < v.shape.size(); ++i) {
    const int64_t reach = (v.shape[i] - 1) * v.strides[i];
    if (reach < 0) lo += reach;
    else hi += reach;
  }
  const auto es = static_cast<int64_t>(dtype_size(v.dtype));
  const auto base = reinterpret_cast<uintptr_t>(v.data);
  // Two's-complement wrap of uintptr_t is well defined and gives the right address.
  return {base + static_cast<uintptr_t>(lo * es), base + static_cast<uintptr_t>((hi + 1) * es)};
}

ByteRange byte_range(const void* data, int64_t elements, DType dt) noexcept {
  if (elements <= 0) return {};
  const auto base = reinterpret_cast<uintptr_t>(data);
  return {base, base + static_cast<uintptr_t>(elements) * static_cast<uintptr_t>(dtype_size(dt))};
}

bool ranges_overlap(ByteRange a, ByteRange b) noexcept {
  return !a.empty() && !b.empty() && a.lo < b.hi && b.lo < a.hi;
}

Status check_no_overlap(std::string_view op, std::string_view out_name, ByteRange out,
                        std::string_view in_name, ByteRange in) {
  if (!ranges_overlap(out, in)) return Status();
  return invalid_argument(op, ": ", out_name, " must not overlap ", in_name, " in memory, got ",
                          out_name, " bytes [", out.lo, ", ", out.hi, ") and ", in_name,
                          " bytes [", in.lo, ", ", in.hi, ")");
}

// NOTE [ Exact overlap ]
// A view's elements start at base + sum_k i_k * s_k (bytes, 0 <= i_k < n_k) and are `es`
// bytes long. Dimensions of length 1 or stride 0 add no address and are dropped; a negative
// stride is flipped (the base moves to the last element), which keeps the set of addresses.
// With the dimensions sorted by decreasing stride, a view from dimension k on covers the
// hull [base, base + extent_k), extent_k = sum_{j >= k} (n_j - 1) s_j + es. Two views share
// a byte only if their hulls meet; where they do, the side with the larger outer stride is
// split into its sub-views along that dimension, and only the indices whose sub-hull meets
// the other hull (a contiguous range, computed) are visited. Two one-dimensional
// progressions with one stride s are decided at once: a + i s and b + j s overlap iff some
// k = i - j in [-(m - 1), n - 1] has d - es_a < k s < d + es_b, d = b - a. So interleaved
// rows cost one step per row, not per element. Every visited node counts against
// kOverlapWork; past it the pair is reported as sharing memory (the safe answer for a
// caller that refuses overlap), with a work bound of about a millisecond.
namespace {

constexpr int64_t kOverlapWork = int64_t{1} << 17;
constexpr size_t kOverlapRank = 32;

struct Lattice {
  int64_t base = 0;  // bytes from the common origin
  int64_t es = 0;    // element bytes
  size_t rank = 0;
  int64_t stride[kOverlapRank] = {};  // bytes, > 0, decreasing
  int64_t count[kOverlapRank] = {};   // > 1
  int64_t extent[kOverlapRank + 1] = {};  // hull length from dimension k on
};

int64_t floor_div(int64_t a, int64_t b) {  // b > 0
  const int64_t q = a / b;
  return (a % b != 0 && a < 0) ? q - 1 : q;
}
int64_t ceil_div(int64_t a, int64_t b) { return -floor_div(-a, b); }  // b > 0

/// False when the view has more dimensions of length > 1 than kOverlapRank.
bool make_lattice(const TensorView& v, uintptr_t origin, Lattice& l) {
  const auto es = static_cast<int64_t>(dtype_size(v.dtype));
  int64_t base = static_cast<int64_t>(reinterpret_cast<uintptr_t>(v.data) - origin);
  l.es = es;
  l.rank = 0;
  for (size_t i = 0; i < v.shape.size(); ++i) {
    if (v.shape[i] <= 1 || v.strides[i] == 0) continue;
    if (l.rank == kOverlapRank) return false;
    int64_t s = v.strides[i] * es;
    if (s < 0) {
      base += (v.shape[i] - 1) * s;
      s = -s;
    }
    size_t k = l.rank++;
    for (; k > 0 && l.stride[k - 1] < s; --k) {  // insertion: decreasing strides
      l.stride[k] = l.stride[k - 1];
      l.count[k] = l.count[k - 1];
    }
    l.stride[k] = s;
    l.count[k] = v.shape[i];
  }
  l.base = base;
  l.extent[l.rank] = es;
  for (size_t k = l.rank; k-- > 0;) l.extent[k] = l.extent[k + 1] + (l.count[k] - 1) * l.stride[k];
  return true;
}

struct OverlapSearch {
  const Lattice& a;
  const Lattice& b;
  int64_t work = kOverlapWork;

  // Whether a's sub-view from dimension ka at base0 and b's from kb at base1 share a byte.
  bool share(size_t ka, int64_t base0, size_t kb, int64_t base1) {
    if (--work < 0) return true;
    const int64_t hi0 = base0 + a.extent[ka], hi1 = base1 + b.extent[kb];
    if (base0 >= hi1 || base1 >= hi0) return false;
    const bool a_done = ka == a.rank, b_done = kb == b.rank;
    if (a_done && b_done) return true;
    if (ka + 1 == a.rank && kb + 1 == b.rank && a.stride[ka] == b.stride[kb]) {
      const int64_t s = a.stride[ka], d = base1 - base0;
      const int64_t k_lo = std::max(floor_div(d - a.es, s) + 1, 1 - b.count[kb]);
      const int64_t k_hi = std::min(ceil_div(d + b.es, s) - 1, a.count[ka] - 1);
      return k_lo <= k_hi;
    }
    // Split the side with the coarser outer dimension (the only side left, if one is done).
    const bool split_a = b_done || (!a_done && a.stride[ka] >= b.stride[kb]);
    const Lattice& x = split_a ? a : b;
    const size_t kx = split_a ? ka : kb;
    const int64_t bx = split_a ? base0 : base1;
    const int64_t lo_y = split_a ? base1 : base0, hi_y = split_a ? hi1 : hi0;
    const int64_t s = x.stride[kx], inner = x.extent[kx + 1];
    const int64_t i_lo = std::max<int64_t>(0, ceil_div(lo_y - bx - inner + 1, s));
    const int64_t i_hi = std::min(x.count[kx] - 1, floor_div(hi_y - 1 - bx, s));
    for (int64_t i = i_lo; i <= i_hi; ++i) {
      const bool hit = split_a ? share(ka + 1, bx + i * s, kb, base1)
                               : share(ka, base0, kb + 1, bx + i * s);
      if (hit) return true;
      if (work < 0) return true;
    }
    return false;
  }
};

}  // namespace

bool views_share_memory(const TensorView& a, const TensorView& b) noexcept {
  const ByteRange ra = byte_range(a), rb = byte_range(b);
  if (!ranges_overlap(ra, rb)) return false;
  const uintptr_t origin = std::min(ra.lo, rb.lo);
  // Both hulls lie within [origin, origin + their int64 extents), so every offset below fits.
  Lattice la, lb;
  if (!make_lattice(a, origin, la) || !make_lattice(b, origin, lb)) return true;
  OverlapSearch search{la, lb};
  return search.share(0, la.base, 0, lb.base);
}

Status check_no_overlap(std::string_view op, std::string_view out_name, const TensorView& out,
                        std::string_view in_name, const TensorView& in) {
  if (!views_share_memory(out, in)) return Status();
  return check_no_overlap(op, out_name, byte_range(out), in_name, byte_range(in));
}

// Sufficient, not necessary: the axes sorted by |stride| must each step over the whole
// extent of the axes of smaller strides (interleaved but disjoint layouts are refused).
Status check_distinct_elements(std::string_view what, const TensorView& v) {
  std::array<std::pair<int64_t, int64_t>, kMaxRank> axes{};  // (|stride|, size)
  size_t k = 0;
  for (size_t d = 0; d < v.shape.size(); ++d) {
    if (v.shape[d] == 0) return Status();
    if (v.shape[d] > 1) axes[k++] = {v.strides[d] < 0 ? -v.strides[d] : v.strides[d], v.shape[d]};
  }
  std::sort(axes.begin(), axes.begin() + static_cast<std::ptrdiff_t>(k));
  int64_t extent = 1;  // elements spanned by the axes of smaller strides
  for (size_t i = 0; i < k; ++i) {
    if (axes[i].first < extent) {
      return invalid_argument(what, ": elements must not share memory (a written view), got shape ",
                              dims_to_string(v.shape), " with strides ", dims_to_string(v.strides));
    }
    extent = axes[i].first * (axes[i].second - 1) + extent;  // fits: validate_view bounds it
  }
  return Status();
}

}  // namespace gridops::detail
