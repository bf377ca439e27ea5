// The AffineWarp implementation list (defined in src/ops/affine_warp.cc), exported to the
// differential tests and the benchmarks, which iterate it. See ops/dispatch.h.
#pragma once

#include <span>

#include "kernels/affine_warp/affine_warp.h"
#include "ops/dispatch.h"

namespace gridops::detail {

/// One entry of the AffineWarp list: the views are src, theta and dst; the fused entry's
/// tables (the output box's base coordinates) are built when the plan is made.
using AffineWarpEntry = Entry<kernels::AffineWarpProblem, kernels::AffineWarpViews>;

/// The list in dispatch order, the reference "ref" last.
std::span<const AffineWarpEntry> affine_warp_entries() noexcept;

}  // namespace gridops::detail
