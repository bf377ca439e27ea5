// The AffineGrid implementation lists (forward and backward, defined in
// src/ops/affine_grid.cc), exported to the differential tests and the benchmarks, which
// iterate them. See ops/dispatch.h.
#pragma once

#include <span>

#include "kernels/affine_grid/affine_grid.h"
#include "ops/dispatch.h"

namespace gridops::detail {

/// One entry of the forward list: the views are theta and the grid; the tables (the fast
/// entry's base coordinates) are built when the plan is made.
using AffineGridEntry = Entry<kernels::AffineGridProblem, kernels::AffineGridViews>;
/// One entry of the backward list: the views are grad_grid and grad_theta.
using AffineGridBackwardEntry =
    Entry<kernels::AffineGridProblem, kernels::AffineGridBackwardViews>;

/// The lists in dispatch order, the reference "ref" last.
std::span<const AffineGridEntry> affine_grid_entries() noexcept;
std::span<const AffineGridBackwardEntry> affine_grid_backward_entries() noexcept;

}  // namespace gridops::detail
