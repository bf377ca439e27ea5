// libFuzzer target: the ONNX model loader and runner. For any bytes, ModelProto and
// TensorProto parsing, the graph and support checks, and running a model that passes them
// must return a value or a clear error: no crash, leak, UB or unbounded allocation.
//
// A model that passes check_supported() is run on inputs made here: each graph input gets
// its declared element type (float32 when undeclared) and shape (symbolic or unknown dims
// become 1 to 4, at most kMaxInputElements elements), filled with the fuzz input's bytes
// repeated, so indices, pads and sizes read from inputs take fuzzed values too. The run is
// capped by RunOptions::max_tensor_bytes so that a memory bomb is an error, not an OOM.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <map>
#include <string>
#include <string_view>

#include "gridops/onnx/model.h"
#include "gridops/onnx/tensor_proto.h"

namespace {

constexpr int64_t kMaxInputElements = 4096;
constexpr int64_t kMaxTensorBytes = 1 << 20;

// Fills t's bytes (or strings) from `bytes`, repeated.
void fill(gridops::Tensor& t, std::string_view bytes) {
  if (t.dtype() == gridops::DType::kString) {
    for (int64_t i = 0; i < t.num_elements(); ++i)
      t.data_as<std::string>()[i] = std::string(bytes.substr(0, std::min<size_t>(bytes.size(), 8)));
    return;
  }
  auto* p = static_cast<unsigned char*>(t.data());
  const size_t n = t.nbytes();
  for (size_t i = 0; i < n; ++i) p[i] = bytes.empty() ? 0 : static_cast<unsigned char>(bytes[i % bytes.size()]);
  if (t.dtype() == gridops::DType::kBool) {
    for (size_t i = 0; i < n; ++i) p[i] &= 1;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  auto model = gridops::onnx::Model::parse(bytes, "fuzz");
  if (model.ok()) {
    for (const auto& v : model->inputs()) (void)v.to_string();
    for (const auto& v : model->outputs()) (void)v.to_string();
    (void)model->opsets();
    gridops::Status s = model->check_supported();
    if (s.ok()) {
      std::map<std::string, gridops::Tensor> inputs;
      bool ok = true;
      for (const auto& v : model->inputs()) {
        gridops::Dims dims;
        int64_t count = 1;
        const size_t rank = v.rank_known ? v.dims.size() : 2;
        for (size_t d = 0; d < rank; ++d) {
          int64_t n = v.rank_known && v.dims[d] >= 0 ? v.dims[d] : 1 + static_cast<int64_t>(d % 4);
          dims.push_back(n);
          if (n > 0 && count > kMaxInputElements / n) ok = false;
          else count *= n;
        }
        if (!ok) break;
        auto t = gridops::Tensor::create(v.type_known ? v.dtype : gridops::DType::kFloat32, dims);
        if (!t.ok()) {
          ok = false;
          break;
        }
        fill(*t, bytes);
        inputs.emplace(v.name, std::move(t).value());
      }
      if (ok) {
        gridops::onnx::RunOptions options;
        options.max_tensor_bytes = kMaxTensorBytes;
        auto out = model->run(inputs, options);
        if (!out.ok() && out.status().message().empty()) __builtin_trap();  // errors must say why
      }
    }
  }
  auto t = gridops::onnx::parse_tensor_proto(bytes, "fuzz");
  (void)t;
  return 0;
}
