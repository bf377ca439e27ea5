// Helpers shared by the Pad tests: tensor builders and an independent expected-value
// model of Pad written from the ERRATA formulas (not from the kernel or coords.h).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "gridops/ops/pad.h"
#include "gridops/tensor.h"

namespace gridops::pad_testing {

/// A contiguous tensor of `shape` holding `values` (row-major).
template <class T>
Tensor make_tensor(Dims shape, const std::vector<T>& values) {
  Tensor t(dtype_of<T>(), std::move(shape));
  EXPECT_EQ(static_cast<size_t>(t.num_elements()), values.size());
  for (size_t i = 0; i < values.size(); ++i) t.data_as<T>()[i] = values[i];
  return t;
}

/// All elements of a contiguous tensor, row-major.
template <class T>
std::vector<T> values_of(const Tensor& t) {
  return std::vector<T>(t.data_as<T>(), t.data_as<T>() + t.num_elements());
}

/// A descriptor.
inline PadDesc make_desc(PadMode mode, Dims begin, Dims end) {
  PadDesc d;
  d.mode = mode;
  d.pads_begin = std::move(begin);
  d.pads_end = std::move(end);
  return d;
}

/// The source index of ERRATA Pad 1/5 for c = j - pads_begin on an axis of length n, or
/// -1 for a constant border. Written as the ERRATA states it (one reflection at a time,
/// repeated), independently of coords.h.
inline int64_t expected_source(PadMode mode, int64_t c, int64_t n) {
  if (c >= 0 && c < n) return c;
  switch (mode) {
    case PadMode::kConstant:
      return -1;
    case PadMode::kEdge:
      return std::clamp<int64_t>(c, 0, n - 1);
    case PadMode::kReflect:
      if (n == 1) return 0;
      while (c < 0 || c >= n) c = c < 0 ? -c : 2 * (n - 1) - c;
      return c;
    case PadMode::kSymmetric:
      while (c < 0 || c >= n) c = c < 0 ? -c - 1 : 2 * n - 1 - c;
      return c;
    case PadMode::kWrap:
      return ((c % n) + n) % n;
  }
  return -1;
}

/// Pad computed element by element from the flat output index (unravelled by division),
/// for a contiguous src. `pad_value` is one element of src's dtype or nullptr (zero / "").
inline Tensor expected_pad(const Tensor& src, PadMode mode, const Dims& begin, const Dims& end,
                           const void* pad_value = nullptr) {
  const int r = src.rank();
  Dims out(r);
  for (int d = 0; d < r; ++d) out[d] = begin[d] + src.shape()[d] + end[d];
  Tensor dst(src.dtype(), out);
  const size_t es = dtype_size(src.dtype());
  const bool str = src.dtype() == DType::kString;
  const std::vector<unsigned char> zeros(es, 0);
  for (int64_t f = 0; f < dst.num_elements(); ++f) {
    int64_t rest = f;
    int64_t src_flat = 0;
    int64_t src_mul = 1;
    bool border = false;
    for (int d = r - 1; d >= 0; --d) {
      const int64_t j = rest % out[d];
      rest /= out[d];
      const int64_t s = expected_source(mode, j - begin[d], src.shape()[d]);
      if (s < 0) border = true;
      src_flat += s * src_mul;
      src_mul *= src.shape()[d];
    }
    char* to = static_cast<char*>(dst.data()) + f * static_cast<int64_t>(es);
    const char* from =
        border ? static_cast<const char*>(pad_value)
               : static_cast<const char*>(src.data()) + src_flat * static_cast<int64_t>(es);
    if (str) {
      *reinterpret_cast<std::string*>(to) =
          from ? *reinterpret_cast<const std::string*>(from) : std::string();
    } else {
      std::memcpy(to, from ? from : reinterpret_cast<const char*>(zeros.data()), es);
    }
  }
  return dst;
}

}  // namespace gridops::pad_testing
