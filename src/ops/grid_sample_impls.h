// GridSample's implementation lists (forward and backward), exported so that tests and
// benchmarks iterate them instead of keeping their own copies of the names. Each list is
// ordered, reference last; the first entry whose `declines` is empty runs a problem
// (src/ops/dispatch.h). A new path is a kernel function plus one entry here: see
// docs/design.md, "Implementation lists".
#pragma once

#include <span>
#include <string>

#include "gridops/tensor.h"
#include "kernels/grid_sample/grid_sample.h"

namespace gridops::detail {

/// One entry of the forward list: a name, the reason it declines a problem (empty:
/// accepts) and the kernel.
struct GridSampleImpl {
  const char* name;
  std::string (*declines)(const kernels::GridSampleProblem&);
  void (*run)(const kernels::GridSampleProblem&, const TensorView&, const TensorView&,
              const MutableTensorView&);
};

/// One entry of the backward list.
struct GridSampleBackwardImpl {
  const char* name;
  std::string (*declines)(const kernels::GridSampleProblem&);
  kernels::GridSampleBackwardFn run;
};

/// The forward list, fast entries first, "ref" last.
std::span<const GridSampleImpl> grid_sample_impls() noexcept;
/// The backward list, fast entries first, "ref" last.
std::span<const GridSampleBackwardImpl> grid_sample_backward_impls() noexcept;

}  // namespace gridops::detail
