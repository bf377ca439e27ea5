// The Gather implementation list (defined in src/ops/gather.cc), exported to the
// differential tests and the benchmarks, which iterate it. See ops/dispatch.h.
#pragma once

#include <span>
#include <string>

#include "gridops/tensor.h"
#include "kernels/gather/gather.h"

namespace gridops::detail {

/// One entry of the Gather implementation list.
struct GatherImpl {
  const char* name;
  /// The family forcing picks the first accepting entry of ("fast"; null for "ref").
  const char* alias;
  /// Plan time: why the entry declines the problem (empty: accepts).
  std::string (*declines)(const kernels::GatherProblem&);
  /// Run time: why the entry cannot take these views (empty: takes them; null: takes any).
  /// The plan then runs the next entry of the list that accepts the problem and takes the
  /// views ("ref", last, takes all) and logs it (GRIDOPS_VERBOSE=dispatch).
  std::string (*declines_views)(const kernels::GatherProblem&, const TensorView& data,
                                const TensorView& indices, const MutableTensorView& dst);
  void (*run)(const kernels::GatherProblem&, const TensorView&, const TensorView&,
              const MutableTensorView&);
};

/// The list in dispatch order, the reference "ref" last.
std::span<const GatherImpl> gather_impls() noexcept;

}  // namespace gridops::detail
