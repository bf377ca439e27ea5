// Helpers shared by the Gather tests. Written independently of the Gather kernels: they
// only build tensors, copy views element by element and compare.
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "gridops/ops/gather.h"
#include "support/test_util.h"

namespace gridops::gather_test {

/// A contiguous tensor of dtype_of<T>() holding `values` in row-major order.
template <class T>
Tensor make_tensor(Dims shape, const std::vector<T>& values) {
  Tensor t(dtype_of<T>(), std::move(shape));
  EXPECT_EQ(static_cast<size_t>(t.num_elements()), values.size());
  T* p = t.data_as<T>();
  for (size_t i = 0; i < values.size(); ++i) p[i] = values[i];
  return t;
}

/// Next row-major position of `pos` in `shape`; false after the last one.
inline bool next_position(Dims& pos, const Dims& shape) {
  for (size_t d = shape.size(); d-- > 0;) {
    if (++pos[d] < shape[d]) return true;
    pos[d] = 0;
  }
  return false;
}

/// A contiguous copy of any (strided) view, element by element.
inline Tensor materialize(const TensorView& v) {
  Tensor t(v.dtype, v.shape);
  const int64_t n = t.num_elements();
  if (n == 0) return t;
  const size_t es = dtype_size(v.dtype);
  Dims pos(v.shape.size(), 0);
  for (int64_t f = 0; f < n; ++f) {
    const void* src = v.element_ptr(pos);
    char* dst = static_cast<char*>(t.data()) + f * static_cast<int64_t>(es);
    if (v.dtype == DType::kString) {
      *reinterpret_cast<std::string*>(dst) = *static_cast<const std::string*>(src);
    } else {
      std::memcpy(dst, src, es);
    }
    next_position(pos, v.shape);
  }
  return t;
}

/// A writable view with reversed axis order and negative strides over `storage`
/// (allocated here with dst's shape reversed and filled from `init`).
inline MutableTensorView scrambled_dst(const Tensor& init, Tensor& storage) {
  const TensorView v = testing::scrambled_copy(init, storage, /*negative=*/true);
  return MutableTensorView(v.dtype, const_cast<void*>(v.data), v.shape, v.strides);
}

/// Asserts that `t` equals `expected` bit for bit (strings by value).
inline void expect_same(const Tensor& t, const Tensor& expected) {
  int64_t where = 0;
  EXPECT_TRUE(testing::bitwise_equal(t, expected, &where))
      << "first difference at flat index " << where << " (shape " << dims_to_string(t.shape())
      << " vs " << dims_to_string(expected.shape()) << ")";
}

}  // namespace gridops::gather_test
