// Implementation lists: an ordered list of entries per operator, reference last. At plan
// time the first entry that takes the problem is chosen (GRIDOPS_IMPL=<name> or the
// descriptor's impl forces one by name; the alias "fast" picks the first fast entry that
// takes it), its tables are built, and so are those of the entries a run may hand off to;
// at run time the first of those that takes the views runs (plan_entries / run_entries
// below). GRIDOPS_VERBOSE=dispatch logs every decision. Entries are named
// "<operator>.<path>" ("ref" for the reference). An entry marked test_only is never chosen
// by itself: tests and benchmarks force it by name. docs/design.md, "Implementation lists".
#pragma once

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <new>
#include <span>
#include <string>
#include <string_view>
#include <vector>

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

/// One entry of an operator's list. `Problem` is what a plan fixes (shapes, dtypes,
/// attributes); `Views` what a run adds (the tensor views, and the facts about them the
/// operator computes once per run). Written with designated initializers; the fields left
/// out are null / false.
template <class Problem, class Views>
struct Entry {
  using ProblemType = Problem;
  using ViewsType = Views;
  /// "<operator>.<path>", or "ref".
  const char* name = nullptr;
  /// The family forcing picks the first accepting entry of: "fast" for every fast entry,
  /// null for "ref".
  const char* alias = nullptr;
  /// Plan time: why the entry declines the problem (empty: it takes it).
  std::string (*declines)(const Problem&) = nullptr;
  /// Plan time: the entry's tables, held by the plan and shared by its copies (null: none).
  /// May throw std::bad_alloc (the plan reports out of memory).
  std::shared_ptr<const void> (*prepare)(const Problem&) = nullptr;
  /// Run time: why the entry cannot take these views with these tables (empty: it takes
  /// them; null: it takes every view). The run then hands them to the next planned entry.
  std::string (*declines_views)(const Problem&, const void* tables, const Views&) = nullptr;
  /// The kernel. `tables` is what `prepare` returned (null without one).
  void (*run)(const Problem&, const void* tables, const Views&) = nullptr;
  /// The schedule the tables fix, as "field=value, ..." for the dispatch log (null or
  /// empty: the entry has no schedule choices).
  std::string (*schedule)(const Problem&, const void* tables) = nullptr;
  /// Why this host can never run the entry (a CPU feature it lacks, the ISA cap), whatever
  /// the problem; null or empty: it can. Its declines then give the same reason. Tests skip
  /// naming it.
  std::string (*unavailable)() = nullptr;
  /// Never chosen by itself nor handed off to: a variant that tests and benchmarks force
  /// by name (a second schedule or a portable twin of an instruction sequence).
  bool test_only = false;
};

/// What a plan holds: the chosen entry first, then each entry a run may hand the views
/// to (the later entries of the list that take the problem, up to the first that takes
/// every view), each with its tables (built once per distinct prepare function).
template <class E>
struct PlannedEntries {
  struct Step {
    const E* entry;
    std::shared_ptr<const void> tables;
  };
  std::vector<Step> steps;
  const E& chosen() const noexcept { return *steps.front().entry; }
  const void* tables() const noexcept { return steps.front().tables.get(); }
};

/// Whether `name` is the name or the alias of an entry of `list` (an operator with a
/// forward and a backward list forces, by a descriptor's impl, the list that has the name).
template <class E>
bool names_entry(std::span<const E> list, std::string_view name) noexcept {
  for (const E& e : list) {
    if (name == e.name || (e.alias != nullptr && name == e.alias)) return true;
  }
  return false;
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
        if constexpr (requires(const Impl& i) { i.test_only; }) {
          if (impl.test_only) continue;
        }
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
    if constexpr (requires(const Impl& i) { i.test_only; }) {
      if (impl.test_only) continue;
    }
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

/// Plan time: chooses the entry (select_impl), builds its tables and those of the entries
/// a run may hand off to (PlannedEntries), and logs the choice, its schedule and the
/// hand-off order under GRIDOPS_VERBOSE=dispatch. A failed table allocation is an
/// out-of-memory status naming the operator.
template <class E>
StatusOr<std::shared_ptr<const PlannedEntries<E>>> plan_entries(
    std::string_view op, std::span<const E> list, const typename E::ProblemType& problem,
    std::string_view forced) {
  auto chosen = select_impl(op, list, problem, forced);
  if (!chosen.ok()) return chosen.status();
  auto planned = std::make_shared<PlannedEntries<E>>();
  try {
    for (const E* e = *chosen; e != list.data() + list.size(); ++e) {
      if (e != *chosen && (e->test_only || !e->declines(problem).empty())) continue;
      std::shared_ptr<const void> tables;
      for (const auto& step : planned->steps) {  // one set of tables per prepare function
        if (step.entry->prepare == e->prepare) tables = step.tables;
      }
      if (!tables && e->prepare != nullptr) tables = e->prepare(problem);
      planned->steps.push_back({e, std::move(tables)});
      if (e->declines_views == nullptr) break;
    }
  } catch (const std::bad_alloc&) {
    return Status(StatusCode::kOutOfMemory,
                  std::string(op) + ": out of memory for the plan's tables");
  }
  if (planned->steps.back().entry->declines_views != nullptr) {
    return internal_error(op, ": no entry after '", planned->chosen().name,
                          "' takes every view (the reference should)");
  }
  if (dispatch_verbose()) {
    const E& e = planned->chosen();
    const std::string schedule =
        e.schedule != nullptr ? e.schedule(problem, planned->tables()) : std::string();
    std::string after;
    for (size_t i = 1; i < planned->steps.size(); ++i) {
      after += std::string(i > 1 ? ", '" : "'") + planned->steps[i].entry->name + "'";
    }
    std::fprintf(stderr, "[gridops] %.*s: plan '%s'%s%s%s%s\n", static_cast<int>(op.size()),
                 op.data(), e.name, schedule.empty() ? "" : " (schedule: ",
                 schedule.c_str(), schedule.empty() ? "" : ")",
                 after.empty() ? "" : ("; views it declines go to " + after).c_str());
  }
  return std::shared_ptr<const PlannedEntries<E>>(std::move(planned));
}

/// Run time: the first planned entry that takes the views runs (every hand-off logged
/// under GRIDOPS_VERBOSE=dispatch with the reason), inside run_kernel_guarded.
template <class E>
Status run_entries(std::string_view op, const PlannedEntries<E>& planned,
                   const typename E::ProblemType& problem, const typename E::ViewsType& views) {
  const auto* step = &planned.steps.front();
  for (;;) {
    const E& e = *step->entry;
    if (e.declines_views == nullptr) break;
    const std::string why = e.declines_views(problem, step->tables.get(), views);
    if (why.empty()) break;
    ++step;  // plan_entries guarantees the last step takes every view
    log_run_time_fallback(op, e.name, why, step->entry->name);
  }
  return run_kernel_guarded(op, [&] { step->entry->run(problem, step->tables.get(), views); });
}

}  // namespace gridops::detail
