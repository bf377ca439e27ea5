// The Resize implementation list (defined in src/ops/resize.cc), exported to the
// differential tests and the benchmarks, which iterate it. See ops/dispatch.h.
#pragma once

#include <memory>
#include <span>
#include <string>

#include "gridops/tensor.h"
#include "kernels/resize/resize.h"

namespace gridops::detail {

/// One implementation: a name, a reason to decline (empty: accepts), an optional plan-time
/// preparation and the kernel.
struct ResizeImpl {
  const char* name;
  std::string (*declines)(const kernels::ResizeProblem&);
  std::shared_ptr<const void> (*prepare)(const kernels::ResizeProblem&);
  void (*run)(const kernels::ResizeProblem&, const void* prepared, const TensorView&,
              const MutableTensorView&);
};

/// The list in dispatch order, the reference "ref" last.
std::span<const ResizeImpl> resize_impls() noexcept;

}  // namespace gridops::detail
