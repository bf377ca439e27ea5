// Pad (OpenVINO Pad-1, with Pad-12 negative pads and ONNX wrap mode).
#pragma once

#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "gridops/ops/modes.h"
#include "gridops/status.h"
#include "gridops/tensor.h"

namespace gridops {

/// What to compute.
struct PadDesc {
  PadMode mode = PadMode::kConstant;
  /// One entry per axis of src; negative values crop (Pad-12).
  Dims pads_begin;
  Dims pads_end;
  /// Forces an implementation by name ("ref", ...); empty: the first that accepts.
  std::string impl;
};

/// pads_begin[d] + src.shape[d] + pads_end[d] per axis, or why not (bounds included).
StatusOr<Dims> pad_output_shape(const PadDesc& desc, std::span<const int64_t> src_shape);

/// A validated Pad problem.
class PadPlan {
 public:
  /// pad_value: nullptr (zero / empty string / false) or a one-element view of src's dtype;
  /// only allowed with PadMode::kConstant.
  Status run(const TensorView& src, const MutableTensorView& dst,
             const TensorView* pad_value = nullptr) const;
  const Dims& dst_shape() const noexcept { return dst_shape_; }
  const char* impl_name() const noexcept { return impl_name_; }

 private:
  friend StatusOr<PadPlan> make_pad_plan(const PadDesc&, DType, std::span<const int64_t>);
  PadDesc desc_;
  DType dtype_ = DType::kFloat32;
  Dims src_shape_, dst_shape_;
  const char* impl_name_ = "";
  const void* impl_ = nullptr;
  /// The planned entries: the chosen one and those a run may hand off to, with their tables
  /// (src/ops/dispatch.h, PlannedEntries; shared by copies of the plan).
  std::shared_ptr<const void> prepared_;
};

/// Validates modes and bounds on every axis (ERRATA Pad 2).
StatusOr<PadPlan> make_pad_plan(const PadDesc& desc, DType dtype, std::span<const int64_t> src_shape);

/// One-shot into a caller-provided dst.
Status pad(const PadDesc& desc, const TensorView& src, const MutableTensorView& dst,
           const TensorView* pad_value = nullptr);
/// One-shot, allocating dst.
StatusOr<Tensor> pad(const PadDesc& desc, const TensorView& src,
                     const TensorView* pad_value = nullptr);

}  // namespace gridops
