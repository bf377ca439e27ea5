// Internal: conversions between onnx::TensorProto and gridops::Tensor.
#pragma once

#include <onnx/onnx_pb.h>

#include "gridops/status.h"
#include "gridops/tensor.h"

namespace gridops::onnx {

/// Converts a TensorProto; `what` names it in messages.
StatusOr<Tensor> tensor_from_proto(const ::onnx::TensorProto& p, std::string_view what);
/// Fills a TensorProto from a tensor.
Status tensor_to_proto(const Tensor& t, const std::string& name, ::onnx::TensorProto* p);

}  // namespace gridops::onnx
