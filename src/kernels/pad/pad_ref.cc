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
      const int64_t s = pad_source_index(p.mode, j[d], p.pads_begin[d], p.src_shape[d]);
      if (s == kPadBorder) {
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
