// The reference Gather: one loop over every dst position, reading like the formula
//   dst[a, i, b] = data[a, indices[i], b]
// (a: data axes before `axis`, i: indices axes, b: data axes after `axis`). Slow and
// obviously correct; fast kernels are tested against it.

#include <cassert>
#include <cstring>
#include <string>

#include "kernels/gather/gather.h"

namespace gridops::kernels {

namespace {

// Byte offset of the element at `index` in a view with `strides` (in elements). The
// operator layer checked that the extent of every view fits in int64, so no term or
// partial sum can overflow.
int64_t byte_offset(const int64_t* index, const Dims& strides, int64_t elem_size) {
  int64_t off = 0;
  for (size_t d = 0; d < strides.size(); ++d) off += index[d] * strides[d];
  return off * elem_size;
}

}  // namespace

void gather_ref(const GatherProblem& p, const TensorView& data, const TensorView& indices,
                const MutableTensorView& dst) {
  const int r = static_cast<int>(p.data_shape.size());
  const int q = static_cast<int>(p.indices_shape.size());
  const int out_rank = static_cast<int>(p.dst_shape.size());
  assert(r >= 1 && p.axis >= 0 && p.axis < r);
  assert(out_rank == q + r - 1);
  assert(data.dtype == p.dtype && dst.dtype == p.dtype && indices.dtype == p.indices_dtype);
  assert(data.shape == p.data_shape && indices.shape == p.indices_shape &&
         dst.shape == p.dst_shape);

  int64_t count = 1;
  for (int64_t d : p.dst_shape) count *= d;
  if (count == 0) return;

  const int64_t es = static_cast<int64_t>(dtype_size(p.dtype));
  const int64_t ies = static_cast<int64_t>(dtype_size(p.indices_dtype));
  const int64_t s = p.data_shape[static_cast<size_t>(p.axis)];
  const char* data_base = static_cast<const char*>(data.data);
  const char* idx_base = static_cast<const char*>(indices.data);
  char* dst_base = static_cast<char*>(dst.mutable_data());

  // o walks dst in row-major order; its pieces are the data and indices positions:
  //   o = (o[0 .. axis), o[axis .. axis+q), o[axis+q .. out_rank))
  //   indices position = o[axis .. axis+q)
  //   data position    = (o[0 .. axis), k, o[axis+q .. out_rank))
  int64_t o[kMaxRank] = {};
  int64_t src[kMaxRank] = {};
  for (int64_t n = 0; n < count; ++n) {
    const int64_t v = load_index(idx_base + byte_offset(o + p.axis, indices.strides, ies),
                                 p.indices_dtype);
    const int64_t k = index_row(v, s);  // clamped: indices may change during the call

    for (int d = 0; d < p.axis; ++d) src[d] = o[d];
    src[p.axis] = k;
    for (int d = p.axis + 1; d < r; ++d) src[d] = o[d + q - 1];

    const char* from = data_base + byte_offset(src, data.strides, es);
    char* to = dst_base + byte_offset(o, dst.strides, es);
    if (p.dtype == DType::kString) {
      *reinterpret_cast<std::string*>(to) = *reinterpret_cast<const std::string*>(from);
    } else {
      std::memcpy(to, from, static_cast<size_t>(es));
    }

    // Next dst position (row-major odometer).
    for (int d = out_rank - 1; d >= 0; --d) {
      if (++o[d] < p.dst_shape[static_cast<size_t>(d)]) break;
      o[d] = 0;
    }
  }
}

}  // namespace gridops::kernels
