// The Resize implementation list (defined in src/ops/resize.cc), exported to the
// differential tests and the benchmarks, which iterate it. See ops/dispatch.h.
#pragma once

#include <span>

#include "kernels/resize/resize.h"
#include "ops/dispatch.h"

namespace gridops::detail {

/// One entry: a plan fixes a kernels::ResizeProblem (with its tap tables), a run adds
/// kernels::ResizeViews (the views and whether each is dense).
using ResizeEntry = Entry<kernels::ResizeProblem, kernels::ResizeViews>;

/// The list in dispatch order, the reference "ref" last.
std::span<const ResizeEntry> resize_entries() noexcept;

}  // namespace gridops::detail
