// Multi-scale deformable attention: validation, plans, the forward's and the backward's
// implementation lists. docs/ops/ms_deform_attn.md.
#include "gridops/ops/ms_deform_attn.h"

#include <memory>
#include <string>
#include <utility>

#include "core/checked.h"
#include "core/overlap.h"
#include "kernels/ms_deform_attn/ms_deform_attn.h"
#include "ops/dispatch.h"

namespace gridops {
namespace {

constexpr const char* kOp = "ms_deform_attn";
constexpr const char* kOpBackward = "ms_deform_attn backward";

using kernels::MsDeformAttnProblem;
using kernels::MsDeformAttnViews;
using Entry = detail::Entry<MsDeformAttnProblem, MsDeformAttnViews>;
using Planned = detail::PlannedEntries<Entry>;

std::string ref_declines(const MsDeformAttnProblem&) { return {}; }

constexpr Entry kForward[] = {
    {.name = "ms_deform_attn.heads", .alias = "fast",
     .declines = &kernels::ms_deform_attn_heads_declines,
     .run = &kernels::ms_deform_attn_heads_forward},
    {.name = "ref", .declines = &ref_declines, .run = &kernels::ms_deform_attn_ref_forward},
};
constexpr Entry kBackward[] = {
    {.name = "ms_deform_attn.heads", .alias = "fast",
     .declines = &kernels::ms_deform_attn_heads_declines,
     .run = &kernels::ms_deform_attn_heads_backward},
    {.name = "ref", .declines = &ref_declines, .run = &kernels::ms_deform_attn_ref_backward},
};

struct PlanState {
  MsDeformAttnProblem problem;
  std::shared_ptr<const Planned> forward, backward;
};

Status check_shape(const MsDeformAttnShape& s) {
  const std::pair<const char*, int64_t> sizes[] = {
      {"batch", s.batch},   {"heads", s.heads},   {"channels", s.channels},
      {"queries", s.queries}, {"points", s.points}, {"value_rows", s.value_rows}};
  for (const auto& [name, v] : sizes) {
    if (v < 0) return invalid_argument(kOp, ": ", name, " must be >= 0, got ", v);
  }
  const size_t L = s.level_start_index.size();
  if (s.spatial_shapes.size() != 2 * L) {
    return invalid_argument(kOp, ": spatial_shapes must have 2 entries (H, W) per level, ",
                            2 * L, " for the ", L, " levels of level_start_index, got ",
                            s.spatial_shapes.size());
  }
  for (size_t l = 0; l < L; ++l) {
    const int64_t H = s.spatial_shapes[2 * l], W = s.spatial_shapes[2 * l + 1];
    const int64_t start = s.level_start_index[l];
    if (H < 0 || W < 0) {
      return invalid_argument(kOp, ": spatial_shapes of level ", l, " must be >= 0, got (", H,
                              ", ", W, ")");
    }
    int64_t hw = 0, end = 0;
    if (!detail::mul_ok(H, W, &hw) || start < 0 || !detail::add_ok(start, hw, &end) ||
        end > s.value_rows) {
      return invalid_argument(kOp, ": level ", l, " (", H, " x ", W, " rows from level_start_index ",
                              start, ") must lie inside value's ", s.value_rows, " rows");
    }
  }
  // Element counts of every tensor fit int64.
  const Dims shapes[] = {{s.batch, s.value_rows, s.heads, s.channels},
                         {s.batch, s.queries, s.heads, static_cast<int64_t>(L), s.points, 2},
                         {s.batch, s.queries, s.heads, s.channels}};
  for (const Dims& d : shapes) {
    GRIDOPS_RETURN_IF_ERROR(checked_num_elements(d, "ms_deform_attn: tensor").status());
  }
  return Status();
}

Dims value_shape(const MsDeformAttnShape& s) { return {s.batch, s.value_rows, s.heads, s.channels}; }
Dims locations_shape(const MsDeformAttnShape& s) {
  return {s.batch, s.queries, s.heads, static_cast<int64_t>(s.level_start_index.size()), s.points, 2};
}
Dims weights_shape(const MsDeformAttnShape& s) {
  return {s.batch, s.queries, s.heads, static_cast<int64_t>(s.level_start_index.size()), s.points};
}
Dims output_shape(const MsDeformAttnShape& s) {
  return {s.batch, s.queries, s.heads * s.channels};
}

}  // namespace

StatusOr<MsDeformAttnPlan> make_ms_deform_attn_plan(const MsDeformAttnDesc& desc, DType dtype,
                                                    const MsDeformAttnShape& shape) {
  if (dtype != DType::kFloat32 && dtype != DType::kFloat64 && dtype != DType::kFloat16 &&
      dtype != DType::kBFloat16) {
    return invalid_argument(kOp, ": dtype must be float32, float64, float16 or bfloat16, got ",
                            to_string(dtype));
  }
  GRIDOPS_RETURN_IF_ERROR(check_shape(shape));
  auto state = std::make_shared<PlanState>();
  state->problem = MsDeformAttnProblem{shape, dtype};
  GRIDOPS_ASSIGN_OR_RETURN(state->forward,
                           detail::plan_entries(kOp, std::span<const Entry>(kForward),
                                                state->problem, desc.impl));
  GRIDOPS_ASSIGN_OR_RETURN(state->backward,
                           detail::plan_entries(kOpBackward, std::span<const Entry>(kBackward),
                                                state->problem, desc.impl));
  MsDeformAttnPlan plan;
  plan.shape_ = shape;
  plan.dtype_ = dtype;
  plan.impl_name_ = state->forward->chosen().name;
  plan.planned_ = std::move(state);
  return plan;
}

Status MsDeformAttnPlan::forward(const TensorView& value, const TensorView& sampling_locations,
                                 const TensorView& attention_weights,
                                 const MutableTensorView& output) const {
  if (planned_ == nullptr) return invalid_argument(kOp, ": plan must come from make_ms_deform_attn_plan");
  const auto& st = *static_cast<const PlanState*>(planned_.get());
  GRIDOPS_RETURN_IF_ERROR(expect_view(value, "ms_deform_attn: value", dtype_, value_shape(shape_)));
  GRIDOPS_RETURN_IF_ERROR(expect_view(sampling_locations, "ms_deform_attn: sampling_locations",
                                      dtype_, locations_shape(shape_)));
  GRIDOPS_RETURN_IF_ERROR(expect_view(attention_weights, "ms_deform_attn: attention_weights",
                                      dtype_, weights_shape(shape_)));
  GRIDOPS_RETURN_IF_ERROR(expect_view(output, "ms_deform_attn: output", dtype_, output_shape(shape_)));
  GRIDOPS_RETURN_IF_ERROR(detail::check_distinct_elements("ms_deform_attn: output", output));
  for (const auto& [name, in] : {std::pair<const char*, const TensorView*>{"value", &value},
                                 {"sampling_locations", &sampling_locations},
                                 {"attention_weights", &attention_weights}}) {
    GRIDOPS_RETURN_IF_ERROR(detail::check_no_overlap(kOp, "output", output, name, *in));
  }
  MsDeformAttnViews v;
  v.value = &value;
  v.locations = &sampling_locations;
  v.weights = &attention_weights;
  v.output = &output;
  return detail::run_entries(kOp, *st.forward, st.problem, v);
}

Status MsDeformAttnPlan::backward(const TensorView& grad_output, const TensorView& value,
                                  const TensorView& sampling_locations,
                                  const TensorView& attention_weights,
                                  const MutableTensorView* grad_value,
                                  const MutableTensorView* grad_locations,
                                  const MutableTensorView* grad_weights) const {
  if (planned_ == nullptr) {
    return invalid_argument(kOpBackward, ": plan must come from make_ms_deform_attn_plan");
  }
  const auto& st = *static_cast<const PlanState*>(planned_.get());
  GRIDOPS_RETURN_IF_ERROR(expect_view(grad_output, "ms_deform_attn backward: grad_output", dtype_,
                                      output_shape(shape_)));
  GRIDOPS_RETURN_IF_ERROR(expect_view(value, "ms_deform_attn backward: value", dtype_, value_shape(shape_)));
  GRIDOPS_RETURN_IF_ERROR(expect_view(sampling_locations, "ms_deform_attn backward: sampling_locations",
                                      dtype_, locations_shape(shape_)));
  GRIDOPS_RETURN_IF_ERROR(expect_view(attention_weights, "ms_deform_attn backward: attention_weights",
                                      dtype_, weights_shape(shape_)));
  const std::pair<const char*, const MutableTensorView*> outs[] = {
      {"grad_value", grad_value}, {"grad_locations", grad_locations}, {"grad_weights", grad_weights}};
  const Dims out_shapes[] = {value_shape(shape_), locations_shape(shape_), weights_shape(shape_)};
  const std::pair<const char*, const TensorView*> ins[] = {
      {"grad_output", &grad_output}, {"value", &value},
      {"sampling_locations", &sampling_locations}, {"attention_weights", &attention_weights}};
  for (size_t i = 0; i < 3; ++i) {
    const auto& [name, o] = outs[i];
    if (o == nullptr) continue;
    const std::string what = std::string("ms_deform_attn backward: ") + name;
    GRIDOPS_RETURN_IF_ERROR(expect_view(*o, what, dtype_, out_shapes[i]));
    GRIDOPS_RETURN_IF_ERROR(detail::check_distinct_elements(what, *o));
    for (const auto& [in_name, in] : ins) {
      GRIDOPS_RETURN_IF_ERROR(detail::check_no_overlap(kOpBackward, name, *o, in_name, *in));
    }
    for (size_t j = 0; j < i; ++j) {
      if (outs[j].second != nullptr) {
        GRIDOPS_RETURN_IF_ERROR(
            detail::check_no_overlap(kOpBackward, name, *o, outs[j].first, *outs[j].second));
      }
    }
  }
  MsDeformAttnViews v;
  v.value = &value;
  v.locations = &sampling_locations;
  v.weights = &attention_weights;
  v.grad_output = &grad_output;
  v.grad_value = grad_value;
  v.grad_locations = grad_locations;
  v.grad_weights = grad_weights;
  return detail::run_entries(kOpBackward, *st.backward, st.problem, v);
}

StatusOr<Tensor> ms_deform_attn(const MsDeformAttnDesc& desc, const TensorView& value,
                                std::span<const int64_t> spatial_shapes,
                                std::span<const int64_t> level_start_index,
                                const TensorView& sampling_locations,
                                const TensorView& attention_weights) {
  if (value.rank() != 4) {
    return invalid_argument(kOp, ": value must be (N, S, M, D), got shape ",
                            dims_to_string(value.shape));
  }
  if (sampling_locations.rank() != 6) {
    return invalid_argument(kOp, ": sampling_locations must be (N, Lq, M, L, P, 2), got shape ",
                            dims_to_string(sampling_locations.shape));
  }
  MsDeformAttnShape s;
  s.batch = value.shape[0];
  s.value_rows = value.shape[1];
  s.heads = value.shape[2];
  s.channels = value.shape[3];
  s.queries = sampling_locations.shape[1];
  s.points = sampling_locations.shape[4];
  s.spatial_shapes.assign(spatial_shapes.begin(), spatial_shapes.end());
  s.level_start_index.assign(level_start_index.begin(), level_start_index.end());
  GRIDOPS_ASSIGN_OR_RETURN(const MsDeformAttnPlan plan,
                           make_ms_deform_attn_plan(desc, value.dtype, s));
  GRIDOPS_ASSIGN_OR_RETURN(Tensor out, Tensor::create(value.dtype, output_shape(s)));
  GRIDOPS_RETURN_IF_ERROR(plan.forward(value, sampling_locations, attention_weights,
                                       out.mutable_view()));
  return out;
}

}  // namespace gridops
