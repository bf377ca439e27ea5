// Reference Pad kernel: slow, N-D, every dtype and mode, written to read like the
// formulas in docs/ops/pad.md.
#include <array>
#include <cassert>
#include <cstring>
#include <string>

#include "core/coords.h"
#include "gridops/tensor.h"
#include "kernels/pad/pad.h"

namespace gridops::kernels {
namespace {

/// Marks an output position that lies in the constant border.
constexpr int64_t kBorder = -1;

/// The source index on one axis of length n for output position j, or kBorder when the
/// position takes pad_value (constant mode only). ERRATA Pad 1, 4, 5: c = j - pads_begin,
/// taken relative to the original (uncropped) data, mapped into [0, n) by the mode.
int64_t source_index(PadMode mode, int64_t j, int64_t pad_begin, int64_t n) {
  const int64_t c = j - pad_begin;  // fits in int64 (precondition)
  if (c >= 0 && c < n) return c;
  switch (mode) {
    case PadMode::kConstant:
      return kBorder;
    case PadMode::kEdge:
      return coords::clamp_index(c, n);
    case PadMode::kReflect:
      return coords::reflect_index(c, n);
    case PadMode::kSymmetric:
      return coords::symmetric_index(c, n);
    case PadMode::kWrap:
      return coords::wrap_index(c, n);
  }
  assert(false && "unknown PadMode");
  return kBorder;
}

}  // namespace

void pad_ref(const PadProblem& p, const PadArgs& a) {
  const size_t rank = p.dst_shape.size();
  assert(rank <= static_cast<size_t>(kMaxRank));
  assert(p.src_shape.size() == rank && p.pads_begin.size() == rank);
  assert(a.src_strides.size() == rank && a.dst_strides.size() == rank);
  assert(a.pad_value == nullptr || p.mode == PadMode::kConstant);
  for (size_t d = 0; d < rank; ++d) {
    if (p.dst_shape[d] == 0) return;  // empty output: nothing to write
  }

  const bool is_string = p.dtype == DType::kString;
  const int64_t es = static_cast<int64_t>(dtype_size(p.dtype));
  const char* src = static_cast<const char*>(a.src);
  char* dst = static_cast<char*>(a.dst);
  // The value of a border element: pad_value, else zero bytes (0, 0.0, false, 0+0i) or "".
  static constexpr std::array<unsigned char, 16> kZeroBytes{};
  assert(static_cast<size_t>(es) <= kZeroBytes.size() || is_string);
  const std::string empty_string;
  const void* border_value = a.pad_value;
  if (border_value == nullptr) {
    border_value = is_string ? static_cast<const void*>(&empty_string) : kZeroBytes.data();
  }

  // Odometer over every output position j (row-major); rank 0 visits the single element.
  std::array<int64_t, kMaxRank> j{};
  for (;;) {
    int64_t src_off = 0;  // in elements
    int64_t dst_off = 0;
    bool border = false;
    for (size_t d = 0; d < rank; ++d) {
      dst_off += j[d] * a.dst_strides[d];
      const int64_t s = source_index(p.mode, j[d], p.pads_begin[d], p.src_shape[d]);
      if (s == kBorder) {
        border = true;
      } else {
        assert(s >= 0 && s < p.src_shape[d]);
        src_off += s * a.src_strides[d];
      }
    }
    const void* from = border ? border_value : src + src_off * es;
    void* to = dst + dst_off * es;
    if (is_string) {
      *static_cast<std::string*>(to) = *static_cast<const std::string*>(from);
    } else {
      std::memcpy(to, from, static_cast<size_t>(es));  // bit-exact, NaN payloads included
    }

    size_t d = rank;
    while (d > 0) {
      --d;
      if (++j[d] < p.dst_shape[d]) break;
      j[d] = 0;
      if (d == 0) return;
    }
    if (rank == 0) return;
  }
}

}  // namespace gridops::kernels
