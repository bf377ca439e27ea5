// The Pad implementation list (defined in src/ops/pad.cc), exported to the differential
// tests and the benchmarks, which iterate it. See ops/dispatch.h.
#pragma once

#include <span>

#include "kernels/pad/pad.h"
#include "kernels/pad/pad_backward.h"
#include "ops/dispatch.h"

namespace gridops::detail {

/// One entry of the Pad list. The views of a run are kernels::PadArgs (the data pointers,
/// strides and the pad value); the tables are those of the entry's prepare.
using PadEntry = Entry<kernels::PadProblem, kernels::PadArgs>;

/// The list in dispatch order, the reference "ref" last.
std::span<const PadEntry> pad_entries() noexcept;

/// One entry of the Pad backward's list (PadPlan::backward), views kernels::PadBackwardArgs.
using PadBackwardEntry = Entry<kernels::PadProblem, kernels::PadBackwardArgs>;

/// The backward's list in dispatch order, the reference "ref" last.
std::span<const PadBackwardEntry> pad_backward_entries() noexcept;

}  // namespace gridops::detail
