// Gather, the operator layer: validation, output shape, the implementation list, plans.
// See docs/ops/gather.md for the formula and every decision taken here.

#include "gridops/ops/gather.h"

#include <algorithm>
#include <array>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "core/checked.h"
#include "core/overlap.h"
#include "kernels/gather/gather.h"
#include "ops/dispatch.h"
#include "ops/gather_impls.h"

namespace gridops {

namespace {

constexpr const char* kOp = "gather";

using detail::GatherEntry;
using PlannedGather = detail::PlannedEntries<GatherEntry>;

std::string ref_declines(const kernels::GatherProblem&) { return {}; }
void ref_run(const kernels::GatherProblem& p, const void*, const kernels::GatherViews& v) {
  kernels::gather_ref(p, v.data, v.indices, v.dst);
}

// Fast kernels go before the reference, which accepts everything and stays last.
// gather.vector_any_cpu is gather.vector without its CPU check (NOTE [ Gather vector
// gathers by CPU ]), for the tests only.
constexpr GatherEntry kGatherImpls[] = {
#ifdef GRIDOPS_HAVE_HWY
    {.name = "gather.vector",
     .alias = "fast",
     .declines = &kernels::gather_vector_declines,
     .declines_views = &kernels::gather_vector_declines_views,
     .run = &kernels::gather_vector,
     .unavailable = &kernels::gather_vector_unavailable},
    {.name = "gather.vector_any_cpu",
     .declines = &kernels::gather_vector_any_cpu_declines,
     .declines_views = &kernels::gather_vector_declines_views,
     .run = &kernels::gather_vector,
     .test_only = true},
#endif
    {.name = "gather.slices",
     .alias = "fast",
     .declines = &kernels::gather_slices_declines,
     .prepare = &kernels::gather_slices_prepare,
     .declines_views = &kernels::gather_slices_declines_views,
     .run = &kernels::gather_slices,
     .schedule = &kernels::gather_slices_schedule},
    {.name = "ref", .declines = &ref_declines, .run = &ref_run},
};

// Checks a shape given to the plan: rank limit, non-negative dimensions, element count
// within int64. `what` is "data" or "indices".
Status check_shape(std::span<const int64_t> shape, const char* what) {
  if (shape.size() > static_cast<size_t>(kMaxRank)) {
    return invalid_argument(kOp, ": ", what, " must have rank <= ", kMaxRank, ", got rank ",
                            shape.size());
  }
  return checked_num_elements(shape, detail::cat(kOp, ": ", what)).status();
}

// The index of the first value outside [-s, s-1] among n contiguous indices, or n. Scans
// blocks with a branch-free test that the compiler vectorizes; only a block holding a bad
// value is scanned again element by element.
template <class I>
int64_t first_bad_index(const I* v, int64_t n, int64_t s) {
  constexpr int64_t kBlock = 1024;
  for (int64_t b = 0; b < n; b += kBlock) {
    const int64_t e = std::min(n, b + kBlock);
    bool bad = false;
    for (int64_t i = b; i < e; ++i) {
      const int64_t x = v[i];
      bad |= (x < -s) | (x >= s);
    }
    if (bad) {
      for (int64_t i = b; i < e; ++i) {
        if (v[i] < -s || v[i] >= s) return i;
      }
    }
  }
  return n;
}

// Scans every index (row-major over the indices tensor) and reports the first one outside
// [-s, s-1] by value and position. Runs before anything is written (ERRATA Gather 1).
Status check_indices(const TensorView& indices, int64_t s, int axis) {
  const int q = indices.rank();
  int64_t count = 1;
  for (int64_t d : indices.shape) count *= d;  // validated: no overflow
  const int64_t ies = static_cast<int64_t>(dtype_size(indices.dtype));
  const char* base = static_cast<const char*>(indices.data);
  Dims pos(static_cast<size_t>(q), 0);
  int64_t start = 0;
  if (count > 0 && indices.is_contiguous()) {
    // One fast pass; the position of a bad value is then found by the loop below, started
    // at that value (row-major unravelling of its flat index).
    start = indices.dtype == DType::kInt32
                ? first_bad_index(static_cast<const int32_t*>(indices.data), count, s)
                : first_bad_index(static_cast<const int64_t*>(indices.data), count, s);
    if (start == count) return Status();
    int64_t rest = start;
    for (int d = q - 1; d >= 0; --d) {
      pos[static_cast<size_t>(d)] = rest % indices.shape[static_cast<size_t>(d)];
      rest /= indices.shape[static_cast<size_t>(d)];
    }
  }
  for (int64_t n = start; n < count; ++n) {
    int64_t off = 0;  // validated extent: fits in int64
    for (size_t d = 0; d < pos.size(); ++d) off += pos[d] * indices.strides[d];
    const int64_t v = kernels::load_index(base + off * ies, indices.dtype);
    if (v < -s || v >= s) {
      if (s == 0) {
        return invalid_argument(kOp, ": indices value ", v, " at position ",
                                dims_to_string(pos), " is out of range: axis ", axis,
                                " of data has length 0, so no index is valid");
      }
      return invalid_argument(kOp, ": indices value ", v, " at position ", dims_to_string(pos),
                              " is out of range [", -s, ", ", s - 1, "] for axis ", axis,
                              " of length ", s);
    }
    for (int d = q - 1; d >= 0; --d) {
      if (++pos[static_cast<size_t>(d)] < indices.shape[static_cast<size_t>(d)]) break;
      pos[static_cast<size_t>(d)] = 0;
    }
  }
  return Status();
}

}  // namespace

namespace detail {
std::span<const GatherEntry> gather_entries() noexcept { return kGatherImpls; }
}  // namespace detail

StatusOr<Dims> gather_output_shape(const GatherDesc& desc, std::span<const int64_t> data_shape,
                                   std::span<const int64_t> indices_shape) {
  const int64_t r = static_cast<int64_t>(data_shape.size());
  if (r == 0) {
    return invalid_argument(kOp, ": data must have rank >= 1, got rank 0 (a scalar)");
  }
  GRIDOPS_RETURN_IF_ERROR(check_shape(data_shape, "data"));
  GRIDOPS_RETURN_IF_ERROR(check_shape(indices_shape, "indices"));
  if (desc.axis < -r || desc.axis > r - 1) {
    return invalid_argument(kOp, ": axis must be in [", -r, ", ", r - 1, "] for data of rank ",
                            r, ", got ", desc.axis);
  }
  const size_t axis = static_cast<size_t>(desc.axis < 0 ? desc.axis + r : desc.axis);
  const size_t out_rank = data_shape.size() - 1 + indices_shape.size();
  if (out_rank > static_cast<size_t>(kMaxRank)) {
    return invalid_argument(kOp, ": output rank rank(data) - 1 + rank(indices) = ", r - 1,
                            " + ", indices_shape.size(), " = ", out_rank,
                            " exceeds the maximum rank ", kMaxRank);
  }
  Dims out;
  out.reserve(out_rank);
  out.insert(out.end(), data_shape.begin(), data_shape.begin() + static_cast<std::ptrdiff_t>(axis));
  out.insert(out.end(), indices_shape.begin(), indices_shape.end());
  out.insert(out.end(), data_shape.begin() + static_cast<std::ptrdiff_t>(axis) + 1,
             data_shape.end());
  GRIDOPS_RETURN_IF_ERROR(checked_num_elements(out, "gather: output").status());
  return out;
}

StatusOr<GatherPlan> make_gather_plan(const GatherDesc& desc, DType data_dtype,
                                      std::span<const int64_t> data_shape, DType indices_dtype,
                                      std::span<const int64_t> indices_shape) {
  if (static_cast<int>(data_dtype) >= kNumDTypes) {
    return invalid_argument(kOp, ": data has an unknown dtype code ",
                            static_cast<int>(data_dtype));
  }
  if (indices_dtype != DType::kInt32 && indices_dtype != DType::kInt64) {
    if (static_cast<int>(indices_dtype) >= kNumDTypes) {
      return invalid_argument(kOp, ": indices must have dtype int32 or int64, got dtype code ",
                              static_cast<int>(indices_dtype));
    }
    return invalid_argument(kOp, ": indices must have dtype int32 or int64, got ",
                            to_string(indices_dtype));
  }
  GRIDOPS_ASSIGN_OR_RETURN(Dims dst_shape, gather_output_shape(desc, data_shape, indices_shape));

  const int64_t r = static_cast<int64_t>(data_shape.size());
  kernels::GatherProblem problem;
  problem.dtype = data_dtype;
  problem.indices_dtype = indices_dtype;
  problem.axis = static_cast<int>(desc.axis < 0 ? desc.axis + r : desc.axis);
  problem.data_shape.assign(data_shape.begin(), data_shape.end());
  problem.indices_shape.assign(indices_shape.begin(), indices_shape.end());
  problem.dst_shape = dst_shape;

  GRIDOPS_ASSIGN_OR_RETURN(
      std::shared_ptr<const PlannedGather> planned,
      detail::plan_entries(kOp, std::span<const GatherEntry>(kGatherImpls), problem, desc.impl));
  GatherPlan plan;
  plan.desc_ = desc;
  plan.axis_ = problem.axis;
  plan.data_dtype_ = data_dtype;
  plan.indices_dtype_ = indices_dtype;
  plan.data_shape_ = std::move(problem.data_shape);
  plan.indices_shape_ = std::move(problem.indices_shape);
  plan.dst_shape_ = std::move(dst_shape);
  plan.impl_name_ = planned->chosen().name;
  plan.impl_ = &planned->chosen();
  plan.planned_ = std::move(planned);
  return plan;
}

Status GatherPlan::run(const TensorView& data, const TensorView& indices,
                       const MutableTensorView& dst) const {
  if (impl_ == nullptr) {
    return invalid_argument(kOp, ": plan is empty (build it with make_gather_plan)");
  }
  // Every check before the first write: views, dtypes and shapes as planned, then indices.
  GRIDOPS_RETURN_IF_ERROR(expect_view(data, "gather: data", data_dtype_, data_shape_));
  GRIDOPS_RETURN_IF_ERROR(expect_view(indices, "gather: indices", indices_dtype_, indices_shape_));
  GRIDOPS_RETURN_IF_ERROR(expect_view(dst, "gather: dst", data_dtype_, dst_shape_));
  GRIDOPS_RETURN_IF_ERROR(detail::check_no_overlap(kOp, "dst", dst, "data", data));
  GRIDOPS_RETURN_IF_ERROR(detail::check_no_overlap(kOp, "dst", dst, "indices", indices));
  GRIDOPS_RETURN_IF_ERROR(check_indices(indices, data_shape_[static_cast<size_t>(axis_)],
                                        static_cast<int>(axis_)));

  kernels::GatherProblem problem;
  problem.dtype = data_dtype_;
  problem.indices_dtype = indices_dtype_;
  problem.axis = static_cast<int>(axis_);
  problem.data_shape = data_shape_;
  problem.indices_shape = indices_shape_;
  problem.dst_shape = dst_shape_;
  const Status st = detail::run_entries(kOp, *static_cast<const PlannedGather*>(planned_.get()),
                                        problem, kernels::GatherViews{data, indices, dst});
  if (st.code() == StatusCode::kOutOfMemory && data_dtype_ == DType::kString) {
    // Copying a std::string may allocate (docs/ops/gather.md names this case).
    return Status(StatusCode::kOutOfMemory,
                  "gather: out of memory while copying strings (dst partly written)");
  }
  return st;
}

Status gather(const GatherDesc& desc, const TensorView& data, const TensorView& indices,
              const MutableTensorView& dst) {
  GRIDOPS_ASSIGN_OR_RETURN(const GatherPlan plan, make_gather_plan(desc, data.dtype, data.shape,
                                                                   indices.dtype, indices.shape));
  return plan.run(data, indices, dst);
}

StatusOr<Tensor> gather(const GatherDesc& desc, const TensorView& data,
                        const TensorView& indices) {
  GRIDOPS_ASSIGN_OR_RETURN(const GatherPlan plan, make_gather_plan(desc, data.dtype, data.shape,
                                                                   indices.dtype, indices.shape));
  // Report bad input views before a possibly large allocation could fail instead.
  GRIDOPS_RETURN_IF_ERROR(validate_view(data, "gather: data"));
  GRIDOPS_RETURN_IF_ERROR(validate_view(indices, "gather: indices"));
  GRIDOPS_ASSIGN_OR_RETURN(Tensor out, Tensor::create(data.dtype, plan.dst_shape()));
  GRIDOPS_RETURN_IF_ERROR(plan.run(data, indices, out.mutable_view()));
  return out;
}

}  // namespace gridops
