// Internal: a per-thread cap on the size of one Tensor allocation, for callers that run
// untrusted graphs (the ONNX runner's RunOptions::max_value_bytes, the model fuzz target).
#pragma once

#include <cstdint>

namespace gridops::detail {

/// The largest byte size Tensor::create allocates on the calling thread; 0 means no cap.
/// A larger request is kOutOfMemory naming the size, the shape and the cap.
int64_t tensor_byte_limit() noexcept;

/// Sets the calling thread's cap for one scope (0: no cap) and restores the previous one.
class ScopedTensorByteLimit {
 public:
  explicit ScopedTensorByteLimit(int64_t limit) noexcept;
  ~ScopedTensorByteLimit();
  ScopedTensorByteLimit(const ScopedTensorByteLimit&) = delete;
  ScopedTensorByteLimit& operator=(const ScopedTensorByteLimit&) = delete;

 private:
  int64_t previous_;
};

}  // namespace gridops::detail
