// Helpers shared by the fast Resize kernels (resize_gather.cc, resize_separable.cc,
// resize_fused_rows.cc): work grains, the pass order and its cost, the padded float32
// tables and the extrapolated points. Internal to src/kernels/resize/.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/convert.h"
#include "kernels/resize/resize_fast.h"

namespace gridops::kernels::resize_internal {

/// Work per parallel chunk, in multiply-adds (or element copies).
inline constexpr int64_t kGrainWork = 1 << 15;


inline int64_t grain_for(int64_t work_per_item) {
  return std::max<int64_t>(1, kGrainWork / std::max<int64_t>(1, work_per_item));
}

/// Product of dims (validated, so it fits).
inline int64_t testing_free_product(const Dims& dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

/// The estimated work of running the passes in order `ord` (outputs times taps, a pass
/// along the innermost axis counted 3 times for its gathers).
double pass_cost(const ResizeProblem& p, const std::vector<size_t>& ord);

/// The order of the passes: the permutation of the resized axes with the least estimated
/// work; more than 4 axes: the axis that shrinks most first; a window: p.pass_order.
std::vector<size_t> pass_order(const ResizeProblem& p);

/// The padded float32 tables of one resized axis (ResizeSeparableTables::Axis).
ResizeSeparableTables::Axis make_axis(const ResizeAxisTable& tb);

/// The per-axis tables, passes in `order` (may throw std::bad_alloc).
std::shared_ptr<ResizeSeparableTables> passes_tables(const ResizeProblem& p,
                                                     std::vector<size_t> order);

/// "order=<the tables' axes in pass order>", the schedule field of both separable entries.
std::string order_field(const ResizeProblem& p, const ResizeSeparableTables& t);

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

}  // namespace gridops::kernels::resize_internal
