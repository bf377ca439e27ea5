// The Resize implementation list (defined in src/ops/resize.cc), exported to the
// differential tests and the benchmarks, which iterate it. See ops/dispatch.h.
#pragma once

#include <memory>
#include <span>
#include <string>

#include "gridops/tensor.h"
#include "kernels/resize/resize.h"

namespace gridops::detail {

/// One implementation: a name, a family alias (null: none; "fast" for the fast
/// entries), a reason to decline (empty: accepts), an optional plan-time preparation of its
/// tables (held by the plan), an optional run-time test of the views (empty: takes them;
/// null: takes any; when it declines, the next entry in list order that takes the problem
/// and the views runs with the plan's tables, logged under GRIDOPS_VERBOSE=dispatch) and the
/// kernel.
struct ResizeImpl {
  const char* name;
  const char* alias;
  std::string (*declines)(const kernels::ResizeProblem&);
  std::shared_ptr<const void> (*prepare)(const kernels::ResizeProblem&);
  std::string (*declines_views)(const kernels::ResizeProblem&, const TensorView& src,
                                const MutableTensorView& dst);
  void (*run)(const kernels::ResizeProblem&, const void* prepared, const TensorView&,
              const MutableTensorView&);
};

/// The list in dispatch order, the reference "ref" last.
std::span<const ResizeImpl> resize_impls() noexcept;

}  // namespace gridops::detail
