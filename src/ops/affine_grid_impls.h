// The AffineGrid implementation lists (forward and backward, defined in
// src/ops/affine_grid.cc), exported to the differential tests and the benchmarks, which
// iterate them. See ops/dispatch.h.
#pragma once

#include <memory>
#include <span>
#include <string>

#include "gridops/tensor.h"
#include "kernels/affine_grid/affine_grid.h"

namespace gridops::detail {

/// One entry of the forward list.
struct AffineGridImpl {
  const char* name;
  /// The family forcing picks the first accepting entry of ("fast"; null for "ref").
  const char* alias;
  /// Plan time: why the entry declines the problem (empty: accepts).
  std::string (*declines)(const kernels::AffineGridProblem&);
  /// Run time: why the entry cannot take this grid view (empty: takes it; null: takes any).
  /// The plan then runs the reference instead and logs it (GRIDOPS_VERBOSE=dispatch).
  std::string (*declines_views)(const MutableTensorView& grid);
  /// Builds the plan's tables (null: none); the plan skips them for huge grids and the
  /// kernel then builds them per run.
  std::shared_ptr<const kernels::AffineGridTables> (*prepare)(const kernels::AffineGridProblem&);
  void (*run)(const kernels::AffineGridProblem&, const TensorView&, const MutableTensorView&);
};

/// One entry of the backward list.
struct AffineGridBackwardImpl {
  const char* name;
  /// As AffineGridImpl::alias.
  const char* alias;
  std::string (*declines)(const kernels::AffineGridProblem&);
  kernels::AffineGridBackwardFn run;
};

/// The lists in dispatch order, the reference "ref" last.
std::span<const AffineGridImpl> affine_grid_impls() noexcept;
std::span<const AffineGridBackwardImpl> affine_grid_backward_impls() noexcept;

}  // namespace gridops::detail
