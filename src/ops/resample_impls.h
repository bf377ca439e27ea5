// The Resample implementation lists (defined in src/ops/resample.cc), exported to the
// differential tests and the benchmarks, which iterate them. See ops/dispatch.h.
#pragma once

#include <span>

#include "kernels/resample/resample.h"
#include "ops/dispatch.h"

namespace gridops::detail {

/// What a run adds to the plan's problem: forward reads `in` = src and writes `out` = dst;
/// backward reads `in` = diff_dst and writes `out` = diff_src.
struct ResampleViews {
  const void* in = nullptr;
  void* out = nullptr;
};

using ResampleEntry = Entry<kernels::ResampleProblem, ResampleViews>;

/// The forward list in dispatch order, the reference "ref" last.
std::span<const ResampleEntry> resample_forward_entries() noexcept;
/// The backward list: the same names in the same order, entry k with the same declines,
/// prepare (a plan builds one set of tables for both directions) and availability as
/// forward entry k.
std::span<const ResampleEntry> resample_backward_entries() noexcept;

}  // namespace gridops::detail
