// Pad operator layer: mode names, output-shape inference with every bound of ERRATA Pad 2,
// plans, run-time view checks, one-shot wrappers and the implementation list.
#include "gridops/ops/pad.h"

#include <algorithm>
#include <array>
#include <limits>
#include <memory>
#include <string>

#include "core/checked.h"
#include "core/overlap.h"
#include "kernels/pad/pad.h"
#include "kernels/pad/pad_lines.h"
#include "ops/dispatch.h"
#include "ops/pad_impls.h"

namespace gridops {
namespace {

constexpr std::string_view kOp = "pad";
constexpr std::string_view kOpBackward = "pad backward";

using detail::PadEntry;
using PlannedPad = detail::PlannedEntries<PadEntry>;

std::string ref_declines(const kernels::PadProblem&) { return {}; }
void ref_run(const kernels::PadProblem& p, const void*, const kernels::PadArgs& a) {
  kernels::pad_ref(p, a);
}

/// Fast kernels go before the reference; the reference accepts everything. pad.lines takes
/// a subset of pad.rows' problems (views or a target pad.lines cannot take go to pad.rows,
/// whose tables the plan builds too); pad.lines_portable_permute is pad.lines with the
/// portable 16-bit permutation, for the tests only; pad.lines_vec is the line writer in
/// Highway ops on the target's vector (AVX2, SSE4, NEON: where pad.lines declines for
/// want of AVX-512 BW), faster there than pad.rows (docs/perf/pad.md). See
/// docs/ops/pad.md, "Fast path".
#ifdef GRIDOPS_HAVE_HWY
/// pad.lines_vec needs a line vector on the dispatched target (none on scalar, emulated
/// and SVE targets).
std::string lines_vec_unavailable() {
  return kernels::pad_lines_vec_bytes() > 0
             ? std::string()
             : "the dispatched Highway target has no line vector (scalar, emulated or SVE)";
}
#endif

constexpr PadEntry kPadImpls[] = {
#ifdef GRIDOPS_HAVE_HWY
    {.name = "pad.lines",
     .alias = "fast",
     .declines = &kernels::pad_lines_declines,
     .prepare = &kernels::pad_lines_prepare,
     .declines_views = &kernels::pad_lines_declines_views,
     .run = &kernels::pad_lines,
     .schedule = &kernels::pad_rows_schedule},
    {.name = "pad.lines_portable_permute",
     .declines = &kernels::pad_lines_declines,
     .prepare = &kernels::pad_lines_prepare,
     .declines_views = &kernels::pad_lines_declines_views,
     .run = &kernels::pad_lines_portable_permute,
     .schedule = &kernels::pad_rows_schedule,
     .test_only = true},
    {.name = "pad.lines_vec",
     .alias = "fast",
     .declines = &kernels::pad_lines_vec_declines,
     .prepare = &kernels::pad_lines_vec_prepare,
     .declines_views = &kernels::pad_lines_vec_declines_views,
     .run = &kernels::pad_lines_vec,
     .schedule = &kernels::pad_lines_vec_schedule,
     .unavailable = &lines_vec_unavailable},
#endif
    {.name = "pad.rows",
     .alias = "fast",
     .declines = &kernels::pad_rows_declines,
     .prepare = &kernels::pad_rows_prepare,
     .declines_views = &kernels::pad_rows_declines_views,
     .run = &kernels::pad_rows,
     .schedule = &kernels::pad_rows_schedule},
    {.name = "ref", .declines = &ref_declines, .run = &ref_run},
};

using detail::PadBackwardEntry;
using PlannedPadBackward = detail::PlannedEntries<PadBackwardEntry>;

void ref_backward_run(const kernels::PadProblem& p, const void*,
                      const kernels::PadBackwardArgs& a) {
  kernels::pad_backward_ref(p, a);
}

/// The backward's list: the row kernel, then the reference (both any strides).
constexpr PadBackwardEntry kPadBackwardImpls[] = {
    {.name = "pad_backward.rows",
     .alias = "fast",
     .declines = &kernels::pad_backward_rows_declines,
     .prepare = &kernels::pad_backward_rows_prepare,
     .run = &kernels::pad_backward_rows,
     .schedule = &kernels::pad_backward_rows_schedule},
    {.name = "ref", .declines = &ref_declines, .run = &ref_backward_run},
};



/// The largest axis length reflect/symmetric may pad: their period (2(n-1), 2n) must fit
/// in int64. Only reachable with zero-stride views; no real buffer is this long.
constexpr int64_t kMaxPeriodicLength = (int64_t{1} << 62) - 1;

/// Bounds on the positive pads of one axis (ERRATA Pad 2): checked on every axis.
Status check_axis_bounds(PadMode mode, size_t d, int64_t n, const char* which, int64_t pad) {
  if (pad <= 0 || mode == PadMode::kConstant) return Status();
  if (n == 0) {
    return invalid_argument(kOp, ": ", to_string(mode), " mode cannot pad axis ", d,
                            " of length 0 (", which, "[", d, "] = ", pad,
                            "); only constant mode pads an empty axis");
  }
  if (mode == PadMode::kReflect && pad > n - 1) {
    return invalid_argument(kOp, ": reflect mode needs ", which, "[", d, "] <= ", n - 1,
                            " (axis ", d, " has length ", n, "), got ", pad);
  }
  if (mode == PadMode::kSymmetric && pad > n) {
    return invalid_argument(kOp, ": symmetric mode needs ", which, "[", d, "] <= ", n,
                            " (axis ", d, " has length ", n, "), got ", pad);
  }
  if ((mode == PadMode::kReflect || mode == PadMode::kSymmetric) && n > kMaxPeriodicLength) {
    return invalid_argument(kOp, ": ", to_string(mode), " mode supports axes of length <= ",
                            kMaxPeriodicLength, ", axis ", d, " has length ", n);
  }
  return Status();
}

/// ERRATA Pad 3: a pad_value is one element of exactly the data's dtype, constant mode only.
Status check_pad_value(PadMode mode, DType dtype, const TensorView* pad_value) {
  if (pad_value == nullptr) return Status();
  if (mode != PadMode::kConstant) {
    return invalid_argument(kOp, ": pad_value is used by constant mode only, got one with ",
                            to_string(mode), " mode");
  }
  GRIDOPS_RETURN_IF_ERROR(validate_view(*pad_value, "pad: pad_value"));
  if (pad_value->dtype != dtype) {
    return invalid_argument(kOp, ": pad_value must have src's dtype ", to_string(dtype),
                            ", got ", to_string(pad_value->dtype));
  }
  if (pad_value->num_elements() != 1) {
    return invalid_argument(kOp, ": pad_value must have exactly 1 element, got shape ",
                            dims_to_string(pad_value->shape));
  }
  return Status();
}

}  // namespace

namespace detail {
std::span<const PadEntry> pad_entries() noexcept { return kPadImpls; }
std::span<const PadBackwardEntry> pad_backward_entries() noexcept { return kPadBackwardImpls; }
}  // namespace detail

const char* to_string(PadMode m) noexcept {
  switch (m) {
    case PadMode::kConstant:
      return "constant";
    case PadMode::kEdge:
      return "edge";
    case PadMode::kReflect:
      return "reflect";
    case PadMode::kSymmetric:
      return "symmetric";
    case PadMode::kWrap:
      return "wrap";
  }
  return "unknown";
}

StatusOr<PadMode> parse_pad_mode(std::string_view s) {
  for (PadMode m : {PadMode::kConstant, PadMode::kEdge, PadMode::kReflect, PadMode::kSymmetric,
                    PadMode::kWrap}) {
    if (s == to_string(m)) return m;
  }
  return invalid_argument(kOp, ": mode must be one of {constant, edge, reflect, symmetric, ",
                          "wrap}, got '", s, "'");
}

StatusOr<Dims> pad_output_shape(const PadDesc& desc, std::span<const int64_t> src_shape) {
  const size_t rank = src_shape.size();
  if (rank > static_cast<size_t>(kMaxRank)) {
    return invalid_argument(kOp, ": src rank must be <= ", kMaxRank, ", got ", rank);
  }
  switch (desc.mode) {
    case PadMode::kConstant:
    case PadMode::kEdge:
    case PadMode::kReflect:
    case PadMode::kSymmetric:
    case PadMode::kWrap:
      break;
    default:
      return invalid_argument(kOp, ": mode must be one of {constant, edge, reflect, ",
                              "symmetric, wrap}, got enumerator ", static_cast<int>(desc.mode));
  }
  GRIDOPS_RETURN_IF_ERROR(checked_num_elements(src_shape, "pad: src").status());
  if (desc.pads_begin.size() != rank) {
    return invalid_argument(kOp, ": pads_begin must have ", rank,
                            " entries (one per axis of src ", dims_to_string(src_shape),
                            "), got ", desc.pads_begin.size());
  }
  if (desc.pads_end.size() != rank) {
    return invalid_argument(kOp, ": pads_end must have ", rank,
                            " entries (one per axis of src ", dims_to_string(src_shape),
                            "), got ", desc.pads_end.size());
  }
  Dims dst(rank);
  for (size_t d = 0; d < rank; ++d) {
    const int64_t n = src_shape[d];
    const int64_t b = desc.pads_begin[d];
    const int64_t e = desc.pads_end[d];
    GRIDOPS_RETURN_IF_ERROR(check_axis_bounds(desc.mode, d, n, "pads_begin", b));
    GRIDOPS_RETURN_IF_ERROR(check_axis_bounds(desc.mode, d, n, "pads_end", e));
    int64_t partial;
    if (!detail::add_ok(b, n, &partial) || !detail::add_ok(partial, e, &dst[d])) {
      return invalid_argument(kOp, ": output dimension ", d, " = pads_begin[", d, "] + ", n,
                              " + pads_end[", d, "] = ", b, " + ", n, " + ", e,
                              " overflows int64");
    }
    if (dst[d] < 0) {
      return invalid_argument(kOp, ": output dimension ", d, " = pads_begin[", d, "] + ", n,
                              " + pads_end[", d, "] = ", b, " + ", n, " + ", e, " = ", dst[d],
                              ", must be >= 0");
    }
    // The kernel computes c = j - pads_begin for j in [0, dst), i.e. c in
    // [-pads_begin, n + pads_end - 1]; both ends must be representable.
    int64_t c_end;
    if (b == std::numeric_limits<int64_t>::min() || !detail::add_ok(n, e, &c_end)) {
      return invalid_argument(kOp, ": pads_begin[", d, "] = ", b, " and pads_end[", d,
                              "] = ", e, " put source indices of axis ", d,
                              " outside the int64 range");
    }
  }
  GRIDOPS_RETURN_IF_ERROR(checked_num_elements(dst, "pad: dst").status());
  return dst;
}

StatusOr<PadPlan> detail::make_pad_plan(const PadDesc& desc, DType dtype,
                                        std::span<const int64_t> src_shape, bool with_backward) {
  if (static_cast<int>(dtype) >= kNumDTypes) {
    return invalid_argument(kOp, ": dtype must be a known DType, got code ",
                            static_cast<int>(dtype));
  }
  GRIDOPS_ASSIGN_OR_RETURN(Dims dst_shape, pad_output_shape(desc, src_shape));
  const Dims src(src_shape.begin(), src_shape.end());
  const kernels::PadProblem problem{desc.mode, dtype, src, desc.pads_begin, desc.pads_end,
                                    dst_shape};
  const std::span<const PadEntry> forward_list(kPadImpls);
  const std::span<const PadBackwardEntry> backward_list(kPadBackwardImpls);
  const bool backward_named = !desc.impl.empty() && detail::names_entry(backward_list, desc.impl);
  const bool forward_named = !desc.impl.empty() && detail::names_entry(forward_list, desc.impl);
  GRIDOPS_ASSIGN_OR_RETURN(
      std::shared_ptr<const PlannedPad> planned,
      detail::plan_entries(kOp, forward_list, problem,
                           backward_named && !forward_named ? std::string_view() : desc.impl));
  PadPlan plan;
  if (with_backward && (is_floating(dtype) || is_complex(dtype))) {
    auto planned_backward =
        detail::plan_entries(kOpBackward, backward_list, problem,
                             backward_named ? std::string_view(desc.impl) : std::string_view());
    if (planned_backward.ok()) {
      plan.backward_impl_name_ = (*planned_backward)->chosen().name;
      plan.prepared_backward_ = *std::move(planned_backward);
    } else {
      plan.backward_error_ = planned_backward.status();
    }
  }
  plan.desc_ = desc;
  plan.dtype_ = dtype;
  plan.src_shape_ = src;
  plan.dst_shape_ = std::move(dst_shape);
  plan.impl_name_ = planned->chosen().name;
  plan.impl_ = &planned->chosen();
  plan.prepared_ = std::move(planned);
  return plan;
}

StatusOr<PadPlan> make_pad_plan(const PadDesc& desc, DType dtype,
                                std::span<const int64_t> src_shape) {
  return detail::make_pad_plan(desc, dtype, src_shape, true);
}

Status PadPlan::run(const TensorView& src, const MutableTensorView& dst,
                    const TensorView* pad_value) const {
  if (impl_ == nullptr) {
    return invalid_argument(kOp, ": plan must come from make_pad_plan, got an empty plan");
  }
  GRIDOPS_RETURN_IF_ERROR(expect_view(src, "pad: src", dtype_, src_shape_));
  GRIDOPS_RETURN_IF_ERROR(expect_view(dst, "pad: dst", dtype_, dst_shape_));
  GRIDOPS_RETURN_IF_ERROR(check_pad_value(desc_.mode, dtype_, pad_value));
  GRIDOPS_RETURN_IF_ERROR(detail::check_no_overlap(kOp, "dst", dst, "src", src));
  if (pad_value != nullptr) {
    GRIDOPS_RETURN_IF_ERROR(detail::check_no_overlap(kOp, "dst", dst, "pad_value", *pad_value));
  }
  const kernels::PadProblem problem{desc_.mode,       dtype_,         src_shape_,
                                    desc_.pads_begin, desc_.pads_end, dst_shape_};
  const kernels::PadArgs args{src.data, src.strides, dst.mutable_data(), dst.strides,
                              pad_value != nullptr ? pad_value->data : nullptr};
  return detail::run_entries(kOp, *static_cast<const PlannedPad*>(prepared_.get()), problem,
                             args);
}

Status PadPlan::backward(const TensorView& grad_dst, const MutableTensorView& grad_src) const {
  if (impl_ == nullptr) {
    return invalid_argument(kOpBackward, ": plan must come from make_pad_plan, got an empty plan");
  }
  if (prepared_backward_ == nullptr) {
    if (!backward_error_.ok()) return backward_error_;
    return invalid_argument(kOpBackward, ": needs a floating or complex dtype (float16, bfloat16, ",
                            "float32, float64, complex64, complex128), the plan's is ",
                            to_string(dtype_));
  }
  GRIDOPS_RETURN_IF_ERROR(expect_view(grad_dst, "pad backward: grad_dst", dtype_, dst_shape_));
  GRIDOPS_RETURN_IF_ERROR(expect_view(grad_src, "pad backward: grad_src", dtype_, src_shape_));
  GRIDOPS_RETURN_IF_ERROR(detail::check_distinct_elements("pad backward: grad_src", grad_src));
  GRIDOPS_RETURN_IF_ERROR(
      detail::check_no_overlap(kOpBackward, "grad_src", grad_src, "grad_dst", grad_dst));
  const kernels::PadProblem problem{desc_.mode,       dtype_,         src_shape_,
                                    desc_.pads_begin, desc_.pads_end, dst_shape_};
  const kernels::PadBackwardArgs args{grad_dst.data, grad_dst.strides, grad_src.mutable_data(),
                                      grad_src.strides};
  return detail::run_entries(kOpBackward,
                             *static_cast<const PlannedPadBackward*>(prepared_backward_.get()),
                             problem, args);
}

Status pad_backward(const PadDesc& desc, const TensorView& grad_dst,
                    const MutableTensorView& grad_src) {
  GRIDOPS_RETURN_IF_ERROR(validate_view(grad_src, "pad backward: grad_src"));
  GRIDOPS_ASSIGN_OR_RETURN(const PadPlan plan,
                           make_pad_plan(desc, grad_src.dtype, grad_src.shape));
  return plan.backward(grad_dst, grad_src);
}

StatusOr<Tensor> pad_backward(const PadDesc& desc, const TensorView& grad_dst,
                              std::span<const int64_t> src_shape) {
  GRIDOPS_RETURN_IF_ERROR(validate_view(grad_dst, "pad backward: grad_dst"));
  GRIDOPS_ASSIGN_OR_RETURN(const PadPlan plan, make_pad_plan(desc, grad_dst.dtype, src_shape));
  GRIDOPS_RETURN_IF_ERROR(
      expect_view(grad_dst, "pad backward: grad_dst", grad_dst.dtype, plan.dst_shape()));
  if (!is_floating(grad_dst.dtype) && !is_complex(grad_dst.dtype)) {
    return invalid_argument(kOpBackward, ": needs a floating or complex dtype (float16, bfloat16, ",
                            "float32, float64, complex64, complex128), grad_dst's is ",
                            to_string(grad_dst.dtype));
  }
  GRIDOPS_ASSIGN_OR_RETURN(Tensor grad_src, Tensor::create(grad_dst.dtype, plan.src_shape()));
  GRIDOPS_RETURN_IF_ERROR(plan.backward(grad_dst, grad_src.mutable_view()));
  return grad_src;
}

Status pad(const PadDesc& desc, const TensorView& src, const MutableTensorView& dst,
           const TensorView* pad_value) {
  GRIDOPS_RETURN_IF_ERROR(validate_view(src, "pad: src"));
  GRIDOPS_ASSIGN_OR_RETURN(const PadPlan plan, detail::make_pad_plan(desc, src.dtype, src.shape, false));
  return plan.run(src, dst, pad_value);
}

StatusOr<Tensor> pad(const PadDesc& desc, const TensorView& src, const TensorView* pad_value) {
  GRIDOPS_RETURN_IF_ERROR(validate_view(src, "pad: src"));
  GRIDOPS_ASSIGN_OR_RETURN(const PadPlan plan, detail::make_pad_plan(desc, src.dtype, src.shape, false));
  // Checked before allocating so that a bad pad_value never costs a large allocation.
  GRIDOPS_RETURN_IF_ERROR(check_pad_value(desc.mode, src.dtype, pad_value));
  GRIDOPS_ASSIGN_OR_RETURN(Tensor dst, Tensor::create(src.dtype, plan.dst_shape()));
  GRIDOPS_RETURN_IF_ERROR(plan.run(src, dst.mutable_view(), pad_value));
  return dst;
}

}  // namespace gridops
