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

/// One entry of the forward list.
struct GridSampleImpl {
  const char* name;
  /// The family forcing picks the first accepting entry of ("fast"; null for "ref").
  const char* alias;
  /// Plan time: why the entry declines the problem (empty: accepts).
  std::string (*declines)(const kernels::GridSampleProblem&);
  /// Plan time: the entry's tables, built once and held by the plan (null: none; may throw
  /// std::bad_alloc).
  std::shared_ptr<const void> (*prepare)(const kernels::GridSampleProblem&);
  /// Run time: why the entry cannot take these views (empty: takes them; null: takes any),
  /// with the plan's tables. The plan then runs the next entry of the list that takes the
  /// problem and the views ("ref", last, takes all), logged under GRIDOPS_VERBOSE=dispatch.
  std::string (*declines_views)(const kernels::GridSampleProblem&, const void* prepared,
                                const TensorView&, const TensorView&, const MutableTensorView&);
  /// The kernel, with the plan's tables (what `prepare` returned; null without one).
  void (*run)(const kernels::GridSampleProblem&, const void* prepared, const TensorView&,
              const TensorView&, const MutableTensorView&);
};

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
std::span<const GridSampleImpl> grid_sample_impls() noexcept;
/// The backward list, fast entries first (test-only ones after the automatic one), "ref"
/// last.
std::span<const GridSampleBackwardEntry> grid_sample_backward_entries() noexcept;

}  // namespace gridops::detail
