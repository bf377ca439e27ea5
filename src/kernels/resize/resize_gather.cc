// resize.gather, an entry of the implementation list (src/ops/resize.cc): nearest, and
// problems whose every axis is the identity, as a gather of whole elements through the
// plan's tap tables (bit-exact, any dtype, any views). See docs/ops/resize.md, "Fast paths".
#include <algorithm>
#include <cassert>
#include <cstdint>
#include <string>
#include <vector>

#include "core/convert.h"
#include "gridops/parallel.h"
#include "kernels/resize/resize_fast.h"
#include "kernels/resize/resize_separable.h"

namespace gridops::kernels {
namespace {

using namespace resize_internal;  // NOLINT(google-build-using-namespace)

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

}  // namespace

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

}  // namespace gridops::kernels
