// libFuzzer target: the .npy reader must return a value or a clear error for any bytes.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "gridops/onnx/npy.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto t = gridops::onnx::parse_npy(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz");
  if (t.ok()) {
    // Whatever parses must serialize again.
    auto bytes = gridops::onnx::serialize_npy(*t);
    (void)bytes;
  }
  return 0;
}
