#include "core/overlap.h"

namespace gridops::detail {

ByteRange byte_range(const TensorView& v) noexcept {
  for (const int64_t d : v.shape)
    if (d == 0) return {};
  int64_t lo = 0, hi = 0;  // element offsets of the lowest and highest element
  for (size_t i = 0; i < v.shape.size(); ++i) {
    const int64_t reach = (v.shape[i] - 1) * v.strides[i];
    if (reach < 0) lo += reach;
    else hi += reach;
  }
  const auto es = static_cast<int64_t>(dtype_size(v.dtype));
  const auto base = reinterpret_cast<uintptr_t>(v.data);
  // Two's-complement wrap of uintptr_t is well defined and gives the right address.
  return {base + static_cast<uintptr_t>(lo * es), base + static_cast<uintptr_t>((hi + 1) * es)};
}

ByteRange byte_range(const void* data, int64_t elements, DType dt) noexcept {
  if (elements <= 0) return {};
  const auto base = reinterpret_cast<uintptr_t>(data);
  return {base, base + static_cast<uintptr_t>(elements) * static_cast<uintptr_t>(dtype_size(dt))};
}

bool ranges_overlap(ByteRange a, ByteRange b) noexcept {
  return !a.empty() && !b.empty() && a.lo < b.hi && b.lo < a.hi;
}

Status check_no_overlap(std::string_view op, std::string_view out_name, ByteRange out,
                        std::string_view in_name, ByteRange in) {
  if (!ranges_overlap(out, in)) return Status();
  return invalid_argument(op, ": ", out_name, " must not overlap ", in_name, " in memory, got ",
                          out_name, " bytes [", out.lo, ", ", out.hi, ") and ", in_name,
                          " bytes [", in.lo, ", ", in.hi, ")");
}

}  // namespace gridops::detail
