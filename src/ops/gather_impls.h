// The Gather implementation list (defined in src/ops/gather.cc), exported to the
// differential tests and the benchmarks, which iterate it. See ops/dispatch.h.
#pragma once

#include <span>

#include "kernels/gather/gather.h"
#include "ops/dispatch.h"

namespace gridops::detail {

/// One entry of the Gather list; a run's views are kernels::GatherViews (data, indices,
/// dst), checked by the plan before any entry sees them.
using GatherEntry = Entry<kernels::GatherProblem, kernels::GatherViews>;

/// The list in dispatch order, the reference "ref" last.
std::span<const GatherEntry> gather_entries() noexcept;

}  // namespace gridops::detail
