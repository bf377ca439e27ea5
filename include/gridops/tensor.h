// Tensor views (non-owning: dtype, shape, strides in elements) and an owning Tensor.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "gridops/dtype.h"
#include "gridops/status.h"

namespace gridops {

/// The largest rank a view may have. GridSample with r spatial axes needs rank r + 2.
inline constexpr int kMaxRank = 16;

/// A list of dimensions or strides.
using Dims = std::vector<int64_t>;

/// "(1, 8, 8, 3)".
std::string dims_to_string(std::span<const int64_t> dims);

/// Row-major (C order) strides, in elements, for `shape`.
Dims contiguous_strides(std::span<const int64_t> shape);

/// Product of `shape`, or an error if a dimension is negative or the product overflows
/// int64. `what` names the tensor in the message ("grid_sample: grid").
StatusOr<int64_t> checked_num_elements(std::span<const int64_t> shape, std::string_view what);

/// A read-only view of typed elements. Strides are in elements and may be zero or
/// negative. A view does not own its memory.
struct TensorView {
  DType dtype = DType::kFloat32;
  const void* data = nullptr;
  Dims shape;
  Dims strides;  ///< same length as shape

  TensorView() = default;
  /// A contiguous (row-major) view.
  TensorView(DType dt, const void* p, Dims shp)
      : dtype(dt), data(p), shape(std::move(shp)), strides(contiguous_strides(shape)) {}
  /// A strided view.
  TensorView(DType dt, const void* p, Dims shp, Dims str)
      : dtype(dt), data(p), shape(std::move(shp)), strides(std::move(str)) {}

  /// Number of axes.
  int rank() const noexcept { return static_cast<int>(shape.size()); }
  /// Product of the dimensions (assumes a validated view).
  int64_t num_elements() const noexcept;
  /// True when the strides are row-major contiguous.
  bool is_contiguous() const noexcept;
  /// Address of the element at `index` (one entry per axis; not bounds-checked).
  const void* element_ptr(std::span<const int64_t> index) const noexcept;
  /// Typed element access for tests and reference kernels (not bounds-checked).
  template <class T>
  const T& at(std::initializer_list<int64_t> index) const noexcept {
    return *static_cast<const T*>(element_ptr({index.begin(), index.size()}));
  }
};

/// A writable view: the same as TensorView with a mutable data pointer.
struct MutableTensorView : TensorView {
  MutableTensorView() = default;
  MutableTensorView(DType dt, void* p, Dims shp) : TensorView(dt, p, std::move(shp)) {}
  MutableTensorView(DType dt, void* p, Dims shp, Dims str)
      : TensorView(dt, p, std::move(shp), std::move(str)) {}
  /// The writable data pointer.
  void* mutable_data() const noexcept { return const_cast<void*>(data); }
  /// Writable address of the element at `index` (not bounds-checked).
  void* mutable_element_ptr(std::span<const int64_t> index) const noexcept {
    return const_cast<void*>(element_ptr(index));
  }
  template <class T>
  T& at(std::initializer_list<int64_t> index) const noexcept {
    return *static_cast<T*>(mutable_element_ptr({index.begin(), index.size()}));
  }
};

/// Checks that a view is well formed: rank <= kMaxRank, non-negative dimensions, strides
/// given for every axis, element count and byte extent within int64, and a non-null data
/// pointer unless the view is empty. `what` names the argument ("gather: data").
Status validate_view(const TensorView& v, std::string_view what);

/// Checks that `v` has dtype `dt` and shape `shape` (and is a valid view).
Status expect_view(const TensorView& v, std::string_view what, DType dt,
                   std::span<const int64_t> shape);

/// An owning, contiguous, 64-byte-aligned tensor. Elements are value-initialized (zero,
/// or empty strings).
class Tensor {
 public:
  Tensor() = default;
  /// Allocates; an invalid shape yields an error.
  static StatusOr<Tensor> create(DType dt, Dims shape);
  /// Allocates and aborts on an invalid shape or a failed allocation (tests and examples
  /// only: the library and the tools use create()).
  Tensor(DType dt, Dims shape);
  Tensor(Tensor&&) noexcept = default;
  Tensor& operator=(Tensor&&) noexcept = default;
  ~Tensor() = default;
  /// A deep copy, or kOutOfMemory (naming the byte size and shape) when it cannot be
  /// allocated.
  StatusOr<Tensor> clone() const;

  DType dtype() const noexcept { return dtype_; }
  const Dims& shape() const noexcept { return shape_; }
  int rank() const noexcept { return static_cast<int>(shape_.size()); }
  int64_t num_elements() const noexcept { return count_; }
  size_t nbytes() const noexcept { return static_cast<size_t>(count_) * dtype_size(dtype_); }
  void* data() noexcept { return buf_.get(); }
  const void* data() const noexcept { return buf_.get(); }
  template <class T>
  T* data_as() noexcept {
    return static_cast<T*>(data());
  }
  template <class T>
  const T* data_as() const noexcept {
    return static_cast<const T*>(data());
  }
  /// A read-only view of the whole tensor.
  TensorView view() const { return TensorView(dtype_, data(), shape_); }
  /// A writable view of the whole tensor.
  MutableTensorView mutable_view() { return MutableTensorView(dtype_, data(), shape_); }
  operator TensorView() const { return view(); }  // NOLINT(google-explicit-constructor)

 private:
  struct Deleter {
    DType dtype;
    int64_t count;
    void operator()(void* p) const noexcept;
  };
  DType dtype_ = DType::kFloat32;
  Dims shape_;
  int64_t count_ = 0;
  std::unique_ptr<void, Deleter> buf_{nullptr, Deleter{DType::kFloat32, 0}};
};

/// The largest byte size Tensor::create and Tensor::clone allocate on the calling thread;
/// 0 means no cap. A larger request is kOutOfMemory naming the size, the shape and the cap.
/// For callers that run untrusted inputs (the ONNX runner's RunOptions::max_tensor_bytes).
int64_t tensor_byte_limit() noexcept;

/// Sets the calling thread's tensor_byte_limit() for one scope (0 or negative: no cap) and
/// restores the previous one when it ends.
class ScopedTensorByteLimit {
 public:
  explicit ScopedTensorByteLimit(int64_t limit) noexcept;
  ~ScopedTensorByteLimit();
  ScopedTensorByteLimit(const ScopedTensorByteLimit&) = delete;
  ScopedTensorByteLimit& operator=(const ScopedTensorByteLimit&) = delete;

 private:
  int64_t previous_;
};

}  // namespace gridops
