// The Resize implementation list (defined in src/ops/resize.cc), exported to the
// differential tests and the benchmarks, which iterate it. See ops/dispatch.h.
#pragma once

#include <span>

#include "gridops/ops/resize.h"
#include "gridops/status.h"

#include "kernels/resize/resize.h"
#include "kernels/resize/resize_backward.h"
#include "ops/dispatch.h"

namespace gridops::detail {

/// One entry: a plan fixes a kernels::ResizeProblem (with its tap tables), a run adds
/// kernels::ResizeViews (the views and whether each is dense).
using ResizeEntry = Entry<kernels::ResizeProblem, kernels::ResizeViews>;

/// The list in dispatch order, the reference "ref" last.
std::span<const ResizeEntry> resize_entries() noexcept;

/// One entry of the backward's list (ResizePlan::backward), views kernels::ResizeBackwardArgs.
using ResizeBackwardEntry = Entry<kernels::ResizeProblem, kernels::ResizeBackwardArgs>;

/// The backward's list in dispatch order, the reference "ref" last.
std::span<const ResizeBackwardEntry> resize_backward_entries() noexcept;

/// The enum and attribute checks of a desc (resize_geometry.cc), first of every Resize
/// entry point.
Status resize_validate_enums(const ResizeDesc& d);

}  // namespace gridops::detail
