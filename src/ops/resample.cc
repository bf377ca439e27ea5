// Resampling operator layer: the implementation lists, validation, plans and runs (the
// memory descs are resample_formats.cc's). See docs/ops/resample.md.
#include "gridops/ops/resample.h"

#include <cassert>
#include <cmath>
#include <cstdint>
#include <memory>
#include <new>
#include <string>
#include <algorithm>
#include <utility>
#include <vector>

#include "core/checked.h"
#include "core/coords.h"
#include "core/overlap.h"
#include "kernels/resample/resample.h"
#include "kernels/resample/resample_fast.h"
#include "ops/dispatch.h"
#include "ops/resample_formats.h"
#include "ops/resample_impls.h"

namespace gridops {
namespace {

using namespace resample_internal;  // NOLINT(google-build-using-namespace)

using kernels::ResampleLayout;
using kernels::ResampleProblem;

constexpr const char* kOp = "resample";

// --- implementation list ----------------------------------------------------------------

using detail::PlannedEntries;
using detail::ResampleEntry;
using detail::ResampleViews;
using Kernel = void (*)(const ResampleProblem&, const void*, const void*, void*);

/// An entry's run from a kernel of signature (problem, tables, in, out).
template <Kernel K>
void run(const ResampleProblem& p, const void* tables, const ResampleViews& v) {
  K(p, tables, v.in, v.out);
}

void ref_forward(const ResampleProblem& p, const void*, const void* src, void* dst) {
  kernels::resample_forward_ref(p, src, dst);
}
void ref_backward(const ResampleProblem& p, const void*, const void* diff_dst, void* diff_src) {
  kernels::resample_backward_ref(p, diff_dst, diff_src);
}
std::string ref_declines(const ResampleProblem&) { return std::string(); }

/// Fast paths (src/kernels/resample/resample_fast.h) go before the reference, which accepts
/// everything and stays last; the first that accepts runs (no entry declines views). Two
/// lists, entry k of each with the same name, declines and prepare: a plan chooses in the
/// forward list and runs backward entry k with the same tables. "fast" forces the first
/// fast entry that accepts. resample.channels_vector16_scratch_row (test only) is
/// channels_vector16 with the scratch-row linear forward (ResampleFastTables::direct_linear).
#define GRIDOPS_RESAMPLE_ENTRIES(DIR)                                                        \
  {.name = "resample.plain", .alias = "fast", .declines = &kernels::resample_plain_declines,   \
   .prepare = &kernels::resample_plain_prepare, .run = &run<&kernels::resample_plain_##DIR>},  \
  {.name = "resample.channels_bf16", .alias = "fast",                                        \
   .declines = &kernels::resample_channels_bf16_declines,                                    \
   .prepare = &kernels::resample_fast_prepare, .run = &run<BF16_##DIR>,                      \
   .schedule = &kernels::resample_fast_schedule,                                             \
   .unavailable = &kernels::resample_channels_bf16_unavailable},                            \
  {.name = "resample.channels_vector16", .alias = "fast",                                    \
   .declines = &kernels::resample_channels16_declines,                                       \
   .prepare = &kernels::resample_fast_prepare, .run = &run<&kernels::resample_channels16_##DIR>, \
   .schedule = &kernels::resample_fast_schedule},                                            \
  {.name = "resample.channels_vector16_scratch_row",                                         \
   .declines = &kernels::resample_channels16_declines,                                       \
   .prepare = &kernels::resample_fast_prepare_scratch_row,                                   \
   .run = &run<&kernels::resample_channels16_##DIR>,                                         \
   .schedule = &kernels::resample_fast_schedule, .test_only = true},                         \
  {.name = "resample.channels_vector8", .alias = "fast",                                     \
   .declines = &kernels::resample_channels8_declines,                                        \
   .prepare = &kernels::resample_fast_prepare, .run = &run<&kernels::resample_channels8_##DIR>, \
   .schedule = &kernels::resample_fast_schedule},                                            \
  {.name = "resample.generic", .alias = "fast", .declines = &kernels::resample_fast_declines,  \
   .prepare = &kernels::resample_fast_prepare, .run = &run<&kernels::resample_generic_##DIR>, \
   .schedule = &kernels::resample_fast_schedule},

constexpr Kernel BF16_forward = &kernels::resample_channels_bf16_forward;
/// The bfloat16 entry's backward is resample.channels_vector16's kernel.
constexpr Kernel BF16_backward = &kernels::resample_channels16_backward;

constexpr ResampleEntry kForward[] = {
#ifdef GRIDOPS_HAVE_HWY
    GRIDOPS_RESAMPLE_ENTRIES(forward)
#endif
    {.name = "ref", .declines = &ref_declines, .run = &run<&ref_forward>},
};
constexpr ResampleEntry kBackward[] = {
#ifdef GRIDOPS_HAVE_HWY
    GRIDOPS_RESAMPLE_ENTRIES(backward)
#endif
    {.name = "ref", .declines = &ref_declines, .run = &run<&ref_backward>},
};
#undef GRIDOPS_RESAMPLE_ENTRIES
static_assert(std::size(kForward) == std::size(kBackward));

/// The backward twin of a forward plan: backward entry k for each forward entry k, with
/// its tables.
std::shared_ptr<const PlannedEntries<ResampleEntry>> backward_of(
    const PlannedEntries<ResampleEntry>& forward) {
  auto b = std::make_shared<PlannedEntries<ResampleEntry>>();
  for (const auto& step : forward.steps) {
    b->steps.push_back({&kBackward[step.entry - kForward], step.tables});
  }
  return b;
}

/// What a plan holds: the problem (a window's included) and both directions' entries.
struct PlanState {
  ResampleProblem problem;
  std::shared_ptr<const PlannedEntries<ResampleEntry>> forward, backward;
};

/// The kernel problem of a validated (desc, src, dst).
ResampleProblem make_problem(const ResampleDesc& desc, const ResampleMemoryDesc& src,
                             const ResampleMemoryDesc& dst) {
  ResampleProblem p;
  p.dtype = src.dtype;
  p.algorithm = desc.algorithm;
  p.spatial_rank = static_cast<int>(src.dims.size()) - 2;
  p.n = src.dims[0];
  p.c = src.dims[1];
  for (int k = 0; k < p.spatial_rank; ++k) {
    p.in[k] = src.dims[2 + k];
    p.out[k] = dst.dims[2 + k];
  }
  p.src = layout_of(src);
  p.dst = layout_of(dst);
  return p;
}

/// Rejects a null pointer for a non-empty buffer.
Status check_pointer(const void* p, int64_t elements, const ResampleMemoryDesc& md,
                     std::string_view what) {
  if (p == nullptr && elements > 0) {
    return invalid_argument(kOp, ": ", what, " pointer is null for a non-empty buffer of ",
                            elements, " elements (dims ", dims_to_string(md.dims), ")");
  }
  return Status();
}


}  // namespace

namespace detail {
std::span<const ResampleEntry> resample_forward_entries() noexcept { return kForward; }
std::span<const ResampleEntry> resample_backward_entries() noexcept { return kBackward; }
}  // namespace detail

// --- plan -------------------------------------------------------------------------------

// NOTE [ Resample table bound ]
// The per-axis index and weight tables (the fast paths' at plan time, the reference's at
// run time) take about 48 bytes per output position and 8 per input position of each
// spatial axis, whatever N, C and the other axes (they are separable). A plan whose
// tables would exceed kMaxTableBytes is refused before anything is allocated: a single
// axis of 2^26 positions needs about 3.5 GiB, two of 2^30 about 100 GiB. Longer axes run
// in windows (ResampleWindow, gridops.dask.resample), whose tables cover their boxes.
constexpr int64_t kMaxTableBytes = int64_t{1} << 30;

Status check_table_bytes(const ResampleProblem& p) {
  // An empty src or dst: no kernel runs and no table is built.
  bool empty = p.n == 0 || p.c == 0;
  for (int k = 0; k < p.spatial_rank; ++k) empty = empty || p.in[k] == 0 || p.out[k] == 0;
  if (empty) return Status();
  int64_t bytes = 0;
  std::string axes;
  for (int k = 0; k < p.spatial_rank; ++k) {
    constexpr int64_t kBig = int64_t{1} << 40;  // beyond the bound by itself; no overflow
    const int64_t b = p.out[k] > kBig || p.in[k] > kBig ? kBig
                                                          : 48 * p.out[k] + 8 * (p.in[k] + 1);
    bytes += b;
    axes += (axes.empty() ? "" : ", ") + std::to_string(p.in[k]) + " -> " + std::to_string(p.out[k]);
  }
  if (bytes <= kMaxTableBytes) return Status();
  return invalid_argument(kOp, ": the plan's per-axis index and weight tables would take ",
                          bytes >> 20, " MiB (about 48 bytes per output and 8 per input position "
                          "of each spatial axis: ", axes, "), over the limit of ",
                          kMaxTableBytes >> 20, " MiB; resample such axes in windows "
                          "(ResampleWindow, gridops.dask.resample)");
}

StatusOr<ResamplePlan> make_resample_plan(const ResampleDesc& desc, const ResampleMemoryDesc& src,
                                          const ResampleMemoryDesc& dst) {
  if (desc.algorithm != ResampleAlgorithm::kNearest &&
      desc.algorithm != ResampleAlgorithm::kLinear) {
    return invalid_argument(kOp, ": algorithm must be nearest or linear, got algorithm code ",
                            static_cast<int>(desc.algorithm));
  }
  GRIDOPS_ASSIGN_OR_RETURN(const int64_t src_elems, checked_buffer_elements(src, "src"));
  GRIDOPS_ASSIGN_OR_RETURN(const int64_t dst_elems, checked_buffer_elements(dst, "dst"));
  (void)src_elems;
  if (src.dtype != dst.dtype) {
    return invalid_argument(kOp, ": src and dst dtypes must match, got ", to_string(src.dtype),
                            " and ", to_string(dst.dtype));
  }
  const int r = static_cast<int>(src.dims.size()) - 2;
  const int dst_r = static_cast<int>(dst.dims.size()) - 2;
  if (r != dst_r) {
    return invalid_argument(kOp, ": src and dst must have the same spatial rank, got ", r,
                            " (src dims ", dims_to_string(src.dims), ") and ", dst_r,
                            " (dst dims ", dims_to_string(dst.dims), ")");
  }
  if (dst.dims[0] != src.dims[0]) {
    return invalid_argument(kOp, ": dst N must equal src N (", src.dims[0], "), got ",
                            dst.dims[0]);
  }
  if (dst.dims[1] != src.dims[1]) {
    return invalid_argument(kOp, ": dst C must equal src C (", src.dims[1], "), got ",
                            dst.dims[1]);
  }
  if (dst_elems > 0) {
    for (int k = 0; k < r; ++k) {
      if (src.dims[2 + k] == 0) {
        return invalid_argument(kOp, ": src spatial axis ", k, " has length 0 but dst has length ",
                                dst.dims[2 + k], " there (dst dims ", dims_to_string(dst.dims),
                                " is not empty): nothing to sample");
      }
    }
  }
  const ResampleProblem problem = make_problem(desc, src, dst);
  GRIDOPS_RETURN_IF_ERROR(check_table_bytes(problem));
  GRIDOPS_ASSIGN_OR_RETURN(
      auto forward,
      detail::plan_entries(kOp, std::span<const ResampleEntry>(kForward), problem, desc.impl));
  auto state = std::make_shared<PlanState>();
  state->problem = problem;
  state->backward = backward_of(*forward);
  state->forward = std::move(forward);
  ResamplePlan plan;
  plan.src_ = src;
  plan.dst_ = dst;
  plan.impl_name_ = state->forward->chosen().name;
  plan.impl_ = &state->forward->chosen();
  plan.planned_ = std::move(state);
  return plan;
}

StatusOr<std::vector<std::pair<int64_t, int64_t>>> resample_input_box(
    ResampleAlgorithm algorithm, std::span<const int64_t> full_in,
    std::span<const int64_t> full_out, std::span<const int64_t> out_begin,
    std::span<const int64_t> out_end) {
  constexpr const char* op = "resample_input_box";
  if (algorithm != ResampleAlgorithm::kNearest && algorithm != ResampleAlgorithm::kLinear) {
    return invalid_argument(op, ": algorithm must be nearest or linear, got algorithm code ",
                            static_cast<int>(algorithm));
  }
  const size_t r = full_in.size();
  if (r < 1 || r > static_cast<size_t>(kernels::kResampleMaxSpatialRank) ||
      full_out.size() != r || out_begin.size() != r || out_end.size() != r) {
    return invalid_argument(op, ": full_in, full_out, out_begin and out_end must have the same "
                            "number (1 to 3) of spatial entries, got ", dims_to_string(full_in),
                            ", ", dims_to_string(full_out), ", ", dims_to_string(out_begin),
                            ", ", dims_to_string(out_end));
  }
  std::vector<std::pair<int64_t, int64_t>> box(r);
  for (size_t k = 0; k < r; ++k) {
    if (full_in[k] < 1 || full_out[k] < 0 || out_begin[k] < 0 || out_begin[k] > out_end[k] ||
        out_end[k] > full_out[k] || full_in[k] > (int64_t{1} << 62) ||
        full_out[k] > (int64_t{1} << 62)) {
      return invalid_argument(op, ": axis ", k, ": need 1 <= full_in <= 2^62 and 0 <= "
                              "out_begin <= out_end <= full_out <= 2^62, got full_in ",
                              full_in[k], ", full_out ", full_out[k], ", outputs [",
                              out_begin[k], ", ", out_end[k], ")");
    }
    if (out_begin[k] == out_end[k]) {
      box[k] = {0, 0};
      continue;
    }
    // Taps are monotone in o, but every output is visited (cheap) so that the box is
    // exactly the set the kernels read.
    int64_t lo = INT64_MAX, hi = -1;
    for (int64_t o = out_begin[k]; o < out_end[k]; ++o) {
      if (algorithm == ResampleAlgorithm::kNearest) {
        const int64_t i = coords::resample_nearest_index(o, full_in[k], full_out[k]);
        lo = std::min(lo, i);
        hi = std::max(hi, i);
      } else {
        const coords::LinearTaps t = coords::resample_linear_taps(o, full_in[k], full_out[k]);
        lo = std::min({lo, t.i0, t.i1});
        hi = std::max({hi, t.i0, t.i1});
      }
    }
    box[k] = {lo, hi + 1};
  }
  return box;
}

StatusOr<ResamplePlan> make_resample_plan(const ResampleDesc& desc, const ResampleMemoryDesc& src,
                                          const ResampleMemoryDesc& dst,
                                          const ResampleWindow& window) {
  // The descs as an unwindowed problem first (dtypes, ranks, N, C, formats, sizes).
  GRIDOPS_ASSIGN_OR_RETURN(ResamplePlan plan, make_resample_plan(desc, src, dst));
  const int r = static_cast<int>(src.dims.size()) - 2;
  const auto ur = static_cast<size_t>(r);
  if (window.full_in.size() != ur || window.full_out.size() != ur ||
      window.in_origin.size() != ur || window.out_origin.size() != ur) {
    return invalid_argument(kOp, ": window full_in, full_out, in_origin and out_origin must have "
                            "one entry per spatial axis (", r, "), got ",
                            dims_to_string(window.full_in), ", ", dims_to_string(window.full_out),
                            ", ", dims_to_string(window.in_origin), ", ",
                            dims_to_string(window.out_origin));
  }
  Dims out_end(ur), in_end(ur);
  for (size_t k = 0; k < ur; ++k) {
    if (window.in_origin[k] < 0 || window.out_origin[k] < 0 ||
        !detail::add_ok(window.in_origin[k], src.dims[2 + k], &in_end[k]) ||
        !detail::add_ok(window.out_origin[k], dst.dims[2 + k], &out_end[k]) ||
        in_end[k] > window.full_in[k] || out_end[k] > window.full_out[k] ||
        window.full_in[k] < 1) {
      return invalid_argument(kOp, ": window: src at ", dims_to_string(window.in_origin),
                              " (dims ", dims_to_string(src.dims), ") must lie in the full input ",
                              dims_to_string(window.full_in), " (each >= 1) and dst at ",
                              dims_to_string(window.out_origin), " (dims ",
                              dims_to_string(dst.dims), ") in the full output ",
                              dims_to_string(window.full_out), " (spatial axis ", k, ")");
    }
  }
  GRIDOPS_ASSIGN_OR_RETURN(const auto box,
                           resample_input_box(desc.algorithm, window.full_in, window.full_out,
                                              window.out_origin, out_end));
  for (size_t k = 0; k < ur; ++k) {
    if (box[k].first < box[k].second &&
        (box[k].first < window.in_origin[k] || box[k].second > in_end[k])) {
      return invalid_argument(kOp, ": window: outputs [", window.out_origin[k], ", ", out_end[k],
                              ") of spatial axis ", k, " read inputs [", box[k].first, ", ",
                              box[k].second, ") (full input ", dims_to_string(window.full_in),
                              ", full output ", dims_to_string(window.full_out),
                              "), but src covers only [", window.in_origin[k], ", ", in_end[k],
                              ")");
    }
  }
  ResampleProblem problem = make_problem(desc, src, dst);
  GRIDOPS_RETURN_IF_ERROR(check_table_bytes(problem));
  problem.windowed = true;
  ResampleProblem full = problem;
  full.windowed = false;
  for (int k = 0; k < r; ++k) {
    problem.full_in[k] = window.full_in[static_cast<size_t>(k)];
    problem.full_out[k] = window.full_out[static_cast<size_t>(k)];
    problem.in_origin[k] = window.in_origin[static_cast<size_t>(k)];
    problem.out_origin[k] = window.out_origin[static_cast<size_t>(k)];
    full.in[k] = problem.full_in[k];
    full.out[k] = problem.full_out[k];
  }
  // The full tensors' layouts (the same formats, the full dims): the path is a fact of the
  // full problem, and any path the full tensors take also takes the boxes.
  ResampleMemoryDesc full_src = src, full_dst = dst;
  for (int k = 0; k < r; ++k) {
    full_src.dims[2 + static_cast<size_t>(k)] = full.in[k];
    full_dst.dims[2 + static_cast<size_t>(k)] = full.out[k];
  }
  full.src = layout_of(full_src);
  full.dst = layout_of(full_dst);
  // The entry the full problem picks, planned with this problem's tables.
  GRIDOPS_ASSIGN_OR_RETURN(const ResampleEntry* chosen,
                           detail::select_impl(kOp, std::span<const ResampleEntry>(kForward),
                                               full, desc.impl));
  GRIDOPS_ASSIGN_OR_RETURN(
      auto forward,
      detail::plan_entries(kOp, std::span<const ResampleEntry>(kForward), problem, chosen->name));
  auto state = std::make_shared<PlanState>();
  state->problem = problem;
  state->forward = std::move(forward);  // backward of a window is refused
  plan.impl_name_ = state->forward->chosen().name;
  plan.impl_ = &state->forward->chosen();
  plan.planned_ = std::move(state);
  plan.windowed_ = true;
  return plan;
}

Status ResamplePlan::forward(const void* src, void* dst) const {
  if (impl_ == nullptr) {
    return invalid_argument(kOp, ": plan is empty; create it with make_resample_plan");
  }
  // The descs were validated when the plan was made; these cannot fail.
  GRIDOPS_ASSIGN_OR_RETURN(const int64_t src_elems, checked_buffer_elements(src_, "src"));
  GRIDOPS_ASSIGN_OR_RETURN(const int64_t dst_elems, checked_buffer_elements(dst_, "dst"));
  GRIDOPS_RETURN_IF_ERROR(check_pointer(src, src_elems, src_, "src"));
  GRIDOPS_RETURN_IF_ERROR(check_pointer(dst, dst_elems, dst_, "dst"));
  if (dst_elems == 0) return Status();
  GRIDOPS_RETURN_IF_ERROR(detail::check_no_overlap(
      kOp, "dst", detail::byte_range(dst, dst_elems, src_.dtype), "src",
      detail::byte_range(src, src_elems, src_.dtype)));
  const auto& state = *static_cast<const PlanState*>(planned_.get());
  return detail::run_entries(kOp, *state.forward, state.problem, ResampleViews{src, dst});
}

Status ResamplePlan::backward(const void* diff_dst, void* diff_src) const {
  if (impl_ == nullptr) {
    return invalid_argument(kOp, ": plan is empty; create it with make_resample_plan");
  }
  if (windowed_) {
    return invalid_argument(kOp, ": backward of a windowed plan (ResampleWindow) is not "
                            "supported: windows are forward only");
  }
  GRIDOPS_ASSIGN_OR_RETURN(const int64_t src_elems, checked_buffer_elements(src_, "diff_src"));
  GRIDOPS_ASSIGN_OR_RETURN(const int64_t dst_elems, checked_buffer_elements(dst_, "diff_dst"));
  GRIDOPS_RETURN_IF_ERROR(check_pointer(diff_dst, dst_elems, dst_, "diff_dst"));
  GRIDOPS_RETURN_IF_ERROR(check_pointer(diff_src, src_elems, src_, "diff_src"));
  if (src_elems == 0) return Status();
  GRIDOPS_RETURN_IF_ERROR(detail::check_no_overlap(
      kOp, "diff_src", detail::byte_range(diff_src, src_elems, src_.dtype), "diff_dst",
      detail::byte_range(diff_dst, dst_elems, src_.dtype)));
  const auto& state = *static_cast<const PlanState*>(planned_.get());
  return detail::run_entries(kOp, *state.backward, state.problem,
                             ResampleViews{diff_dst, diff_src});
}

Status resample_forward(const ResampleDesc& desc, const ResampleMemoryDesc& src_md,
                        const void* src, const ResampleMemoryDesc& dst_md, void* dst) {
  GRIDOPS_ASSIGN_OR_RETURN(const ResamplePlan plan, make_resample_plan(desc, src_md, dst_md));
  return plan.forward(src, dst);
}

Status resample_backward(const ResampleDesc& desc, const ResampleMemoryDesc& diff_src_md,
                         void* diff_src, const ResampleMemoryDesc& diff_dst_md,
                         const void* diff_dst) {
  GRIDOPS_ASSIGN_OR_RETURN(const ResamplePlan plan,
                           make_resample_plan(desc, diff_src_md, diff_dst_md));
  return plan.backward(diff_dst, diff_src);
}

}  // namespace gridops
