// GridSample's implementation lists (forward and backward), exported so that tests and
// benchmarks iterate them instead of keeping their own copies of the names. Each list is
// ordered, reference last; the first entry whose `declines` is empty runs a problem
// (src/ops/dispatch.h). A new path is a kernel function plus one entry here: see
// docs/design.md, "Implementation lists".
#pragma once

#include <memory>
#include <span>
#include <string>

#include "gridops/tensor.h"
#include "kernels/grid_sample/grid_sample.h"
#include "ops/dispatch.h"

namespace gridops::detail {

/// One entry of the forward list: the run's views are kernels::GridSampleViews.
using GridSampleEntry = Entry<kernels::GridSampleProblem, kernels::GridSampleViews>;

/// What a backward run adds to its problem: the views (an output null: not wanted).
struct GridSampleBackwardViews {
  const TensorView& grad_dst;
  const TensorView& src;
  const TensorView& grid;
  const MutableTensorView* grad_src;
  const MutableTensorView* grad_grid;
};

/// One entry of the backward list (src/ops/dispatch.h).
using GridSampleBackwardEntry = Entry<kernels::GridSampleProblem, GridSampleBackwardViews>;

/// The forward list, fast entries first, "ref" last.
std::span<const GridSampleEntry> grid_sample_entries() noexcept;
/// The backward list, fast entries first (test-only ones after the automatic one), "ref"
/// last.
std::span<const GridSampleBackwardEntry> grid_sample_backward_entries() noexcept;

}  // namespace gridops::detail
