// The Resample implementation list (defined in src/ops/resample.cc), exported to the
// differential tests and the benchmarks, which iterate it. See ops/dispatch.h.
#pragma once

#include <memory>
#include <span>
#include <string>

#include "kernels/resample/resample.h"

namespace gridops::detail {

/// One implementation: a name, a family alias (null: none; "fast" for the fast paths),
/// a reason to decline (empty: accepts), the plan-time preparation of its tables (null:
/// none), its kernels, which receive those tables, and what the host lacks for it.
struct ResampleImpl {
  const char* name;
  const char* alias;
  std::string (*declines)(const kernels::ResampleProblem&);
  std::shared_ptr<const void> (*prepare)(const kernels::ResampleProblem&);
  void (*forward)(const kernels::ResampleProblem&, const void* tables, const void* src,
                  void* dst);
  void (*backward)(const kernels::ResampleProblem&, const void* tables, const void* diff_dst,
                   void* diff_src);
  /// Why this host cannot run the entry whatever the problem (a CPU feature it lacks, the
  /// ISA cap); null or empty: it can. Its declines give the same reason.
  std::string (*unavailable)() = nullptr;
};

/// The list in dispatch order (forward and backward share it), the reference "ref" last.
std::span<const ResampleImpl> resample_impls() noexcept;

}  // namespace gridops::detail
