// Implementation lists: an ordered list per operator, reference last; the first entry that
// accepts a problem runs it. GRIDOPS_IMPL=<name> forces an implementation by name (for the
// operators that list one of that name); GRIDOPS_VERBOSE=dispatch logs every decision.
// Entries are named "<operator>.<path>" ("ref" for the reference); every fast entry carries
// the alias "fast" (the same family name for all operators): forcing an alias picks the
// first entry of that family that accepts the problem.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <new>
#include <span>
#include <string>
#include <string_view>

#include "core/isa.h"
#include "gridops/status.h"

namespace gridops::detail {

/// True when GRIDOPS_VERBOSE contains "dispatch".
bool dispatch_verbose() noexcept;
/// The value of GRIDOPS_IMPL, or "" when unset.
std::string_view forced_impl_from_env() noexcept;

/// Runs a kernel; a failed allocation of its scratch (std::bad_alloc, also from inside
/// parallel_for, which passes exceptions on) becomes an out-of-memory status that names
/// the operator. The output may then be partly written.
template <class Fn>
Status run_kernel_guarded(std::string_view op, Fn&& fn) {
  try {
    fn();
  } catch (const std::bad_alloc&) {
    return Status(StatusCode::kOutOfMemory,
                  std::string(op) + ": out of memory for the kernel's scratch (dst partly written)");
  }
  return Status();
}

/// `Impl` has `const char* name` and `std::string (*declines)(const Problem&)` (empty
/// string: accepts). `forced` (from the operator's descriptor, else GRIDOPS_IMPL) names
/// one entry; an unknown name in the descriptor is an error, in the environment ignored.
template <class Impl, class Problem>
StatusOr<const Impl*> select_impl(std::string_view op, std::span<const Impl> list,
                                  const Problem& problem, std::string_view forced) {
  apply_isa_env_once();  // GRIDOPS_MAX_ISA is in force before anything is chosen
  const bool verbose = dispatch_verbose();
  bool from_env = false;
  if (forced.empty()) {
    forced = forced_impl_from_env();
    from_env = true;
  }
  if (!forced.empty()) {
    for (const Impl& impl : list) {
      if (forced != impl.name) continue;
      std::string why = impl.declines(problem);
      if (!why.empty()) {
        return unimplemented(op, ": implementation '", impl.name, "' declines this problem: ",
                             why);
      }
      if (verbose) std::fprintf(stderr, "[gridops] %.*s: forced '%s'\n",
                                static_cast<int>(op.size()), op.data(), impl.name);
      return &impl;
    }
    if constexpr (requires(const Impl& i) { i.alias; }) {
      std::string whys;
      for (const Impl& impl : list) {
        if (impl.alias == nullptr || forced != impl.alias) continue;
        std::string why = impl.declines(problem);
        if (why.empty()) {
          if (verbose) std::fprintf(stderr, "[gridops] %.*s: forced '%s' (alias of '%s')\n",
                                    static_cast<int>(op.size()), op.data(), impl.alias, impl.name);
          return &impl;
        }
        whys += (whys.empty() ? "" : "; ") + std::string(impl.name) + ": " + why;
      }
      if (!whys.empty()) {
        return unimplemented(op, ": implementation '", forced, "' declines this problem (",
                             whys, ")");
      }
    }
    if (!from_env) {
      std::string names;
      for (const Impl& impl : list) names += (names.empty() ? "" : ", ") + std::string(impl.name);
      if constexpr (requires(const Impl& i) { i.alias; }) {
        std::string aliases;  // each family name once, in list order
        for (const Impl& impl : list) {
          if (impl.alias == nullptr) continue;
          const std::string a = impl.alias;
          if (("," + aliases + ",").find("," + a + ",") == std::string::npos) {
            aliases += (aliases.empty() ? "" : ",") + a;
          }
        }
        if (!aliases.empty()) names += "} or an alias {" + aliases;
      }
      return invalid_argument(op, ": impl must be one of {", names, "}, got '", forced, "'");
    }
  }
  for (const Impl& impl : list) {
    std::string why = impl.declines(problem);
    if (why.empty()) {
      if (verbose) std::fprintf(stderr, "[gridops] %.*s: using '%s' (Highway target %s)\n",
                                static_cast<int>(op.size()), op.data(), impl.name,
                                dispatched_target_name());
      return &impl;
    }
    if (verbose) std::fprintf(stderr, "[gridops] %.*s: '%s' declines: %s\n",
                              static_cast<int>(op.size()), op.data(), impl.name, why.c_str());
  }
  return internal_error(op, ": no implementation accepts the problem (the reference should)");
}

/// A run-time hand-off: the implementation chosen at plan time (`impl`) cannot take the
/// views it was given (`why`, known only at run time, e.g. non-contiguous strides), so
/// `fallback` runs instead. Logged under GRIDOPS_VERBOSE=dispatch.
inline void log_run_time_fallback(std::string_view op, const char* impl, const std::string& why,
                                  const char* fallback) {
  if (!dispatch_verbose()) return;
  std::fprintf(stderr, "[gridops] %.*s: '%s' declines these views at run time (%s): running '%s'\n",
               static_cast<int>(op.size()), op.data(), impl, why.c_str(), fallback);
}

}  // namespace gridops::detail
