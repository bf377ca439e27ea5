// libFuzzer target: the ONNX model loader (ModelProto and TensorProto parsing, graph
// checks, support checks) must return a value or a clear error for any bytes.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "gridops/onnx/model.h"
#include "gridops/onnx/tensor_proto.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  auto model = gridops::onnx::Model::parse(bytes, "fuzz");
  if (model.ok()) {
    gridops::Status s = model->check_supported();
    (void)s;
    for (const auto& v : model->inputs()) (void)v.to_string();
    for (const auto& v : model->outputs()) (void)v.to_string();
    (void)model->opsets();
  }
  auto t = gridops::onnx::parse_tensor_proto(bytes, "fuzz");
  (void)t;
  return 0;
}
