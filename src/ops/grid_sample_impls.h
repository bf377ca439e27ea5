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

/// One entry of the backward list.
struct GridSampleBackwardImpl {
  const char* name;
  /// As GridSampleImpl::alias.
  const char* alias;
  std::string (*declines)(const kernels::GridSampleProblem&);
  /// Run time: why the entry cannot write these outputs (empty: it can; null: any). The
  /// plan then runs "ref" and logs it (GRIDOPS_VERBOSE=dispatch).
  std::string (*declines_views)(const MutableTensorView* grad_src,
                                const MutableTensorView* grad_grid);
  kernels::GridSampleBackwardFn run;
};

/// The forward list, fast entries first, "ref" last.
std::span<const GridSampleEntry> grid_sample_impls() noexcept;
/// The backward list, fast entries first, "ref" last.
std::span<const GridSampleBackwardImpl> grid_sample_backward_impls() noexcept;

}  // namespace gridops::detail
