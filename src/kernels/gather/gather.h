// Gather kernels: the contract every implementation in the Gather list fulfils.
//
// The operator layer (src/ops/gather.cc) validates everything, including every index
// value, before a kernel runs; kernels only assert their preconditions.
#pragma once

#include <cassert>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>

#include "gridops/dtype.h"
#include "gridops/tensor.h"

namespace gridops::kernels {

/// A validated Gather problem, as a kernel receives it.
///
/// Preconditions (checked by the operator layer, asserted here):
/// - rank(data) >= 1, 0 <= axis < rank(data); data and dst have dtype `dtype`;
/// - indices have dtype kInt32 or kInt64 and any rank q (0 included);
/// - dst_shape == data_shape[:axis] + indices_shape + data_shape[axis+1:] (rank <= kMaxRank);
/// - every view passed to the kernel is valid (validate_view) and has the shape recorded
///   here; strides are arbitrary (negative and zero included);
/// - every index value v satisfies -s <= v < s with s = data_shape[axis];
/// - dst does not overlap data or indices.
struct GatherProblem {
  /// Element type of data and dst.
  DType dtype = DType::kFloat32;
  /// Element type of indices: kInt32 or kInt64.
  DType indices_dtype = DType::kInt64;
  /// The gathered axis, normalized to [0, rank(data)).
  int axis = 0;
  /// Shapes of the three tensors.
  Dims data_shape, indices_shape, dst_shape;
};

/// The views of one run, as the operator hands them to an entry.
struct GatherViews {
  const TensorView& data;
  const TensorView& indices;
  const MutableTensorView& dst;
};

/// Reads the index stored at `p` (an int32 or int64, possibly unaligned) as int64.
inline int64_t load_index(const void* p, DType indices_dtype) noexcept {
  assert(indices_dtype == DType::kInt32 || indices_dtype == DType::kInt64);
  if (indices_dtype == DType::kInt32) {
    int32_t v;
    std::memcpy(&v, p, sizeof v);
    return v;
  }
  int64_t v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

/// The row an index selects, k = v < 0 ? v + s : v, for s >= 1. The operator layer has
/// checked every index before the kernel runs, but the kernel reads the indices again: one
/// that another thread changed in between (the caller's bug, e.g. a Python thread writing
/// the array while the GIL is released) is clamped into [0, s), so the copy never reads
/// outside data; dst then holds unspecified rows of data.
inline int64_t index_row(int64_t v, int64_t s) noexcept {
  const int64_t k = v < 0 ? v + s : v;
  return k < 0 ? 0 : (k >= s ? s - 1 : k);
}

/// Prefetches each 64-byte line holding one of the `span` bytes at p (span >= 1) once: the
/// slice prefetch of gather.slices' copy loops (NOTE [ Gather prefetch ], gather_fast.cc).
/// A prefetch never faults, so p may be any address.
inline void prefetch_slice(const char* p, int64_t span) noexcept {
  const uintptr_t first = reinterpret_cast<uintptr_t>(p) & ~uintptr_t{63};
  const uintptr_t last = reinterpret_cast<uintptr_t>(p) + static_cast<uintptr_t>(span) - 1;
  for (uintptr_t line = first; line <= last; line += 64) {
    __builtin_prefetch(reinterpret_cast<const char*>(line));
  }
}

/// The reference kernel: for every dst position o = (a, i, b) with a the data axes before
/// `axis`, i the indices position and b the data axes after it,
/// dst[a, i, b] = data[a, k, b] with k = indices[i] (+ s when negative).
/// Copies dtype_size bytes per element (strings by assignment, which may throw
/// std::bad_alloc; nothing else throws). Single-threaded.
void gather_ref(const GatherProblem& p, const TensorView& data, const TensorView& indices,
                const MutableTensorView& dst);

/// gather.slices (gather_fast.cc; NOTE [ Fast Gather ]): dimensions merged to
/// (outer, s, inner bytes), slices copied by size, threaded with parallel_for. Bit-exact
/// with gather_ref. Declines strings at plan time and non-contiguous views at run time.
/// Its tables fix the store kind and the address order (NOTE [ Gather address order ]) at
/// plan time, shown by its schedule.
std::string gather_slices_declines(const GatherProblem& p);
std::shared_ptr<const void> gather_slices_prepare(const GatherProblem& p);
std::string gather_slices_declines_views(const GatherProblem& p, const void* tables,
                                         const GatherViews& v);
void gather_slices(const GatherProblem& p, const void* tables, const GatherViews& v);
std::string gather_slices_schedule(const GatherProblem& p, const void* tables);

/// gather.vector (gather_fast.cc and gather_hwy.cc, only built with Highway): the same
/// merged problem with slices of 4 or 8 bytes moved by vector gathers. Declines other
/// slice sizes (and 4-byte slices on an axis over 2^31 - 1) at plan time, and views that
/// are not contiguous or whose data or dst is not aligned to the slice size at run time.
/// On CPUs whose vector gathers are slower (gather_vector_slower_on_this_cpu) it declines
/// every problem; the test-only entry gather.vector_any_cpu runs the same kernel there
/// (gather_vector_any_cpu_declines).
std::string gather_vector_declines(const GatherProblem& p);
/// The CPU check alone (empty: this CPU runs gather.vector).
std::string gather_vector_unavailable();
std::string gather_vector_any_cpu_declines(const GatherProblem& p);
std::string gather_vector_declines_views(const GatherProblem& p, const void* tables,
                                         const GatherViews& v);
void gather_vector(const GatherProblem& p, const void* tables, const GatherViews& v);
/// True on CPUs whose vector gathers are slower than gather.slices' copies (AMD): there
/// gather.vector declines every problem (NOTE [ Gather vector gathers by CPU ]).
bool gather_vector_slower_on_this_cpu();
/// gather.vector's Highway kernels: dst slices [u0, u1) of the (outer, q) output,
/// dst[o * q + i] = data[o * s + idx[i]] with normalized indices; data and dst aligned to
/// the element size.
void gather_chunk32_hwy(const uint32_t* data, int64_t s, const int32_t* idx, int64_t q,
                        uint32_t* dst, int64_t u0, int64_t u1);
void gather_chunk64_hwy(const uint64_t* data, int64_t s, const int64_t* idx, int64_t q,
                        uint64_t* dst, int64_t u0, int64_t u1);
/// gather.slices' streamed copies with Highway (NOTE [ Gather streamed slices ]):
/// out + j * inner <- src + idx[j] * inner for j in [0, k), inner >= 128, taken in the
/// order ord[0], ord[1], ... (a permutation of [0, k); null: 0, 1, ...; NOTE [ Gather
/// address order ]), the slice `ahead` places on in that order prefetched (the lines of
/// its first `span` bytes), whole lines streamed; the caller fences the streaming stores
/// (stream_fence) before handing the output on.
void gather_slices_stream_hwy(char* out, const char* src, const int64_t* idx, const int32_t* ord,
                              int64_t k, int64_t inner, int64_t ahead, int64_t span);

}  // namespace gridops::kernels
