#include "gridops/tensor.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <new>
#include <sstream>

#include "core/checked.h"

namespace gridops {

namespace {
thread_local int64_t g_tensor_byte_limit = 0;
}  // namespace

int64_t tensor_byte_limit() noexcept { return g_tensor_byte_limit; }
ScopedTensorByteLimit::ScopedTensorByteLimit(int64_t limit) noexcept
    : previous_(g_tensor_byte_limit) {
  g_tensor_byte_limit = limit > 0 ? limit : 0;
}
ScopedTensorByteLimit::~ScopedTensorByteLimit() { g_tensor_byte_limit = previous_; }

std::string dims_to_string(std::span<const int64_t> dims) {
  std::ostringstream os;
  os << '(';
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i) os << ", ";
    os << dims[i];
  }
  if (dims.size() == 1) os << ',';
  os << ')';
  return os.str();
}

Dims contiguous_strides(std::span<const int64_t> shape) {
  Dims s(shape.size());
  int64_t acc = 1;
  for (size_t i = shape.size(); i-- > 0;) {
    s[i] = acc;
    // Wraps only for invalid shapes, which validate_view rejects before any use.
    acc = static_cast<int64_t>(static_cast<uint64_t>(acc) *
                               static_cast<uint64_t>(shape[i] > 0 ? shape[i] : 1));
  }
  return s;
}

StatusOr<int64_t> checked_num_elements(std::span<const int64_t> shape, std::string_view what) {
  int64_t n = 1;
  bool empty = false;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] < 0) {
      return invalid_argument(what, ": dimension ", i, " must be >= 0, got ", shape[i],
                              " in shape ", dims_to_string(shape));
    }
    if (shape[i] == 0) empty = true;
  }
  if (empty) return int64_t{0};
  for (size_t i = 0; i < shape.size(); ++i) {
    if (!detail::mul_ok(n, shape[i], &n)) {
      return invalid_argument(what, ": element count of shape ", dims_to_string(shape),
                              " overflows 64 bits");
    }
  }
  return n;
}

int64_t TensorView::num_elements() const noexcept {
  // A zero anywhere makes the view empty, even when the other dimensions' product would
  // overflow; valid non-empty views never overflow (validate_view checks).
  for (int64_t d : shape)
    if (d == 0) return 0;
  uint64_t n = 1;
  for (int64_t d : shape) n *= static_cast<uint64_t>(d);
  return static_cast<int64_t>(n);
}

bool TensorView::is_contiguous() const noexcept {
  int64_t acc = 1;
  for (size_t i = shape.size(); i-- > 0;) {
    if (shape[i] != 1 && strides[i] != acc) return false;
    acc *= shape[i];
  }
  return true;
}

const void* TensorView::element_ptr(std::span<const int64_t> index) const noexcept {
  int64_t off = 0;
  for (size_t i = 0; i < index.size(); ++i) off += index[i] * strides[i];
  return static_cast<const char*>(data) + off * static_cast<int64_t>(dtype_size(dtype));
}

Status validate_view(const TensorView& v, std::string_view what) {
  if (static_cast<int>(v.dtype) >= kNumDTypes) {
    return invalid_argument(what, ": unknown dtype code ", static_cast<int>(v.dtype));
  }
  if (v.rank() > kMaxRank) {
    return invalid_argument(what, ": rank must be <= ", kMaxRank, ", got ", v.rank());
  }
  if (v.strides.size() != v.shape.size()) {
    return invalid_argument(what, ": expected ", v.shape.size(), " strides for shape ",
                            dims_to_string(v.shape), ", got ", v.strides.size());
  }
  GRIDOPS_ASSIGN_OR_RETURN(const int64_t n, checked_num_elements(v.shape, what));
  if (n == 0) return Status();
  if (v.data == nullptr) {
    return invalid_argument(what, ": data pointer is null for non-empty shape ",
                            dims_to_string(v.shape));
  }
  // The furthest element offset (in bytes, either direction) must fit in int64 so that
  // kernels can compute addresses without overflow.
  int64_t span = 0;
  for (size_t i = 0; i < v.shape.size(); ++i) {
    int64_t s = v.strides[i];
    if (s == std::numeric_limits<int64_t>::min()) {
      return invalid_argument(what, ": stride ", i, " out of range");
    }
    int64_t t;
    if (!detail::mul_ok(v.shape[i] - 1, s < 0 ? -s : s, &t) || !detail::add_ok(span, t, &span)) {
      return invalid_argument(what, ": byte extent of shape ", dims_to_string(v.shape),
                              " with strides ", dims_to_string(v.strides), " overflows 64 bits");
    }
  }
  int64_t bytes;
  if (!detail::mul_ok(span + 1, static_cast<int64_t>(dtype_size(v.dtype)), &bytes)) {
    return invalid_argument(what, ": byte extent of shape ", dims_to_string(v.shape),
                            " overflows 64 bits");
  }
  return Status();
}

Status expect_view(const TensorView& v, std::string_view what, DType dt,
                   std::span<const int64_t> shape) {
  GRIDOPS_RETURN_IF_ERROR(validate_view(v, what));
  if (v.dtype != dt) {
    return invalid_argument(what, ": expected dtype ", to_string(dt), ", got ",
                            to_string(v.dtype));
  }
  if (!std::equal(v.shape.begin(), v.shape.end(), shape.begin(), shape.end())) {
    return invalid_argument(what, ": expected shape ", dims_to_string(shape), ", got ",
                            dims_to_string(v.shape));
  }
  return Status();
}

void Tensor::Deleter::operator()(void* p) const noexcept {
  if (!p) return;
  if (dtype == DType::kString) {
    auto* s = static_cast<std::string*>(p);
    for (int64_t i = 0; i < count; ++i) s[i].~basic_string();
  }
  std::free(p);
}

StatusOr<Tensor> Tensor::create(DType dt, Dims shape) {
  if (static_cast<int>(shape.size()) > kMaxRank) {
    return invalid_argument("tensor: rank must be <= ", kMaxRank, ", got ", shape.size());
  }
  GRIDOPS_ASSIGN_OR_RETURN(const int64_t n, checked_num_elements(shape, "tensor"));
  int64_t bytes;
  if (!detail::mul_ok(n, static_cast<int64_t>(dtype_size(dt)), &bytes)) {
    return invalid_argument("tensor: byte size of shape ", dims_to_string(shape),
                            " overflows 64 bits");
  }
  if (const int64_t cap = tensor_byte_limit(); cap > 0 && bytes > cap) {
    return Status(StatusCode::kOutOfMemory,
                  detail::cat("tensor: ", bytes, " bytes for shape ", dims_to_string(shape),
                              " exceed the limit of ", cap, " bytes per tensor"));
  }
  Tensor t;
  t.dtype_ = dt;
  t.shape_ = std::move(shape);
  t.count_ = n;
  // Round up to the alignment; allocate at least one block so data() is never null.
  const size_t size = (static_cast<size_t>(bytes) + 63) / 64 * 64 + 64;
  if (static_cast<uint64_t>(bytes) > std::numeric_limits<size_t>::max() - 128) {
    return Status(StatusCode::kOutOfMemory, "tensor: allocation too large");
  }
  void* p = std::aligned_alloc(64, size);
  if (!p) {
    return Status(StatusCode::kOutOfMemory,
                  detail::cat("tensor: cannot allocate ", bytes, " bytes for shape ",
                              dims_to_string(t.shape_)));
  }
  std::memset(p, 0, size);
  if (dt == DType::kString) {
    auto* s = static_cast<std::string*>(p);
    for (int64_t i = 0; i < n; ++i) new (s + i) std::string();
  }
  t.buf_ = std::unique_ptr<void, Deleter>(p, Deleter{dt, n});
  return t;
}

Tensor::Tensor(DType dt, Dims shape) {
  auto r = create(dt, std::move(shape));
  if (!r.ok()) {
    std::fprintf(stderr, "gridops::Tensor: %s\n", r.status().to_string().c_str());
    std::abort();
  }
  *this = std::move(r).value();
}

StatusOr<Tensor> Tensor::clone() const {
  GRIDOPS_ASSIGN_OR_RETURN(Tensor t, create(dtype_, shape_));
  if (dtype_ == DType::kString) {
    try {
      for (int64_t i = 0; i < count_; ++i) t.data_as<std::string>()[i] = data_as<std::string>()[i];
    } catch (const std::bad_alloc&) {
      return Status(StatusCode::kOutOfMemory,
                    detail::cat("tensor: cannot copy the strings of shape ", dims_to_string(shape_)));
    }
  } else if (count_ > 0) {
    std::memcpy(t.data(), data(), nbytes());
  }
  return t;
}

}  // namespace gridops
