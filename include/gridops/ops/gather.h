// Gather (ONNX Gather 1/11/13): take slices along one axis at the given indices.
#pragma once

#include <memory>
#include <span>
#include <string>

#include "gridops/status.h"
#include "gridops/tensor.h"

namespace gridops {

/// What to compute. Shape-independent.
struct GatherDesc {
  /// The gathered axis, in [-r, r-1] for data of rank r.
  int64_t axis = 0;
  /// Forces an implementation by name ("ref", ...); empty: the first that accepts.
  std::string impl;
};

/// data.shape[:axis] + indices.shape + data.shape[axis+1:], or why not.
StatusOr<Dims> gather_output_shape(const GatherDesc& desc, std::span<const int64_t> data_shape,
                                   std::span<const int64_t> indices_shape);

/// A validated Gather problem.
class GatherPlan {
 public:
  /// Checks every index (in [-s, s-1]) before writing anything.
  Status run(const TensorView& data, const TensorView& indices,
             const MutableTensorView& dst) const;
  /// The output shape: data.shape[:axis] + indices.shape + data.shape[axis+1:].
  const Dims& dst_shape() const noexcept { return dst_shape_; }
  /// The name of the chosen implementation ("ref", ...).
  const char* impl_name() const noexcept { return impl_name_; }

 private:
  friend StatusOr<GatherPlan> make_gather_plan(const GatherDesc&, DType, std::span<const int64_t>,
                                               DType, std::span<const int64_t>);
  GatherDesc desc_;
  int64_t axis_ = 0;  // normalized
  DType data_dtype_ = DType::kFloat32, indices_dtype_ = DType::kInt64;
  Dims data_shape_, indices_shape_, dst_shape_;
  const char* impl_name_ = "";
  const void* impl_ = nullptr;
  /// The planned entries: the chosen one and those a run may hand off to, with their tables
  /// (src/ops/dispatch.h, PlannedEntries; shared by copies of the plan).
  std::shared_ptr<const void> planned_;
};

/// data: any dtype; indices: int32 or int64, any rank (rank 0 removes the axis).
StatusOr<GatherPlan> make_gather_plan(const GatherDesc& desc, DType data_dtype,
                                      std::span<const int64_t> data_shape, DType indices_dtype,
                                      std::span<const int64_t> indices_shape);

/// One-shot into a caller-provided dst.
Status gather(const GatherDesc& desc, const TensorView& data, const TensorView& indices,
              const MutableTensorView& dst);
/// One-shot, allocating dst.
StatusOr<Tensor> gather(const GatherDesc& desc, const TensorView& data, const TensorView& indices);

}  // namespace gridops
