// The Pad implementation list (defined in src/ops/pad.cc), exported to the differential
// tests and the benchmarks, which iterate it. See ops/dispatch.h.
#pragma once

#include <memory>
#include <span>
#include <string>

#include "kernels/pad/pad.h"

namespace gridops::detail {

/// One entry of the Pad implementation list.
struct PadImpl {
  const char* name;
  /// A family name (null: none): "fast" for pad.lines and pad.rows (as for every
  /// operator's fast entries); forcing it picks the family's first entry that accepts.
  const char* alias;
  /// Plan time: why the entry declines the problem (empty: accepts).
  std::string (*declines)(const kernels::PadProblem&);
  /// Run time: why the entry cannot take these views (empty: takes them; null: takes any).
  /// The plan then runs the next entry in list order that takes the problem and the views
  /// (in the end the reference), with the plan's tables, and logs it
  /// (GRIDOPS_VERBOSE=dispatch).
  std::string (*declines_views)(const kernels::PadProblem&, const kernels::PadArgs&);
  void (*run)(const kernels::PadProblem&, const kernels::PadArgs&);
  /// Builds shape-dependent tables once per plan (nullptr: none needed).
  std::shared_ptr<const void> (*prepare)(const kernels::PadProblem&);
};

/// The list in dispatch order, the reference "ref" last.
std::span<const PadImpl> pad_impls() noexcept;

}  // namespace gridops::detail
