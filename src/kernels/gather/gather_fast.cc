// The fast Gather kernel: copies by element size, dimensions merged, threaded.
//
// NOTE [ Fast Gather ]
// With contiguous views, data is (outer, s, inner) and dst is (outer, q, inner) where
// outer = product of data.shape[:axis], s = data.shape[axis], q = number of indices and
// inner = product of data.shape[axis+1:] times the element size, in bytes. dst is then a
// sequence of outer * q slices of `inner` bytes, slice (o, i) being data slice (o, k_i).
// The indices are normalized once per run (k = v < 0 ? v + s : v; the operator layer has
// already checked them all). Slices of 1, 2, 4, 8 or 16 bytes are copied as one typed
// load and store each (the loop unrolls and needs no call); other sizes with memcpy, which
// runs at copy speed for large slices. parallel_for splits the outer * q slices into
// contiguous ranges, so each output byte is written by one thread and the result never
// depends on the split.
//
// NOTE [ Gather index pairs ]
// With indices below 2^32 the typed copies keep them as uint32 and read two by one 64-bit
// load, in blocks of 32 slices of straight-line code (fewer memory operations per slice;
// the loop's instructions, not memory, bound it). Measurements: docs/perf/gather.md.
#include <algorithm>
#include <bit>
#include <cassert>
#include <climits>
#include <cstdint>
#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <type_traits>
#include <vector>

#include "gridops/parallel.h"
#include "kernels/gather/gather.h"
#include "core/checked.h"
#include "core/nt_copy.h"

namespace gridops::kernels {
namespace {

struct alignas(1) Bytes16 {
  unsigned char b[16];
};

/// The counting sort's buckets for one problem (NOTE [ Gather address order ]): index >>
/// shift, `buckets` of them; shift < 0 where the problem keeps index order.
struct AddressOrder {
  int shift = -1;
  int64_t buckets = 0;
};

/// Copies k slices: out[j] = src[idx[j]] for slices of sizeof(T) bytes. I is int64_t or,
/// when every index fits, uint32_t: then two indices are read by one 64-bit load (NOTE
/// [ Gather index pairs ]).
template <class T, class I>
void copy_slices(char* out, const char* src, const I* idx, int64_t k, int64_t /*inner*/,
                 bool /*stream*/, const AddressOrder& /*order*/) {
  constexpr size_t sz = sizeof(T);
  int64_t j = 0;
  if constexpr (std::is_same_v<I, uint32_t> && std::endian::native == std::endian::little) {
    const auto pair = [&](int64_t at) {
      uint64_t two;
      std::memcpy(&two, idx + at, sizeof(two));  // idx[at] in the low half
      T a, b;
      std::memcpy(&a, src + static_cast<size_t>(static_cast<uint32_t>(two)) * sz, sz);
      std::memcpy(&b, src + static_cast<size_t>(two >> 32) * sz, sz);
      std::memcpy(out + static_cast<size_t>(at) * sz, &a, sz);
      std::memcpy(out + static_cast<size_t>(at + 1) * sz, &b, sz);
    };
    // Blocks of a fixed 32 slices: straight-line code, faster than a loop over pairs
    // unrolled by the compiler (NOTE [ Gather index pairs ]).
    for (; j + 32 <= k; j += 32) {
#pragma GCC unroll 16
      for (int64_t u = 0; u < 32; u += 2) pair(j + u);
    }
    for (; j + 2 <= k; j += 2) pair(j);
  } else {
    for (; j + 4 <= k; j += 4) {
      T a, b, c, d;
      std::memcpy(&a, src + static_cast<size_t>(idx[j]) * sz, sz);
      std::memcpy(&b, src + static_cast<size_t>(idx[j + 1]) * sz, sz);
      std::memcpy(&c, src + static_cast<size_t>(idx[j + 2]) * sz, sz);
      std::memcpy(&d, src + static_cast<size_t>(idx[j + 3]) * sz, sz);
      std::memcpy(out + static_cast<size_t>(j) * sz, &a, sz);
      std::memcpy(out + static_cast<size_t>(j + 1) * sz, &b, sz);
      std::memcpy(out + static_cast<size_t>(j + 2) * sz, &c, sz);
      std::memcpy(out + static_cast<size_t>(j + 3) * sz, &d, sz);
    }
  }
  for (; j < k; ++j) {
    std::memcpy(out + static_cast<size_t>(j) * sz, src + static_cast<size_t>(idx[j]) * sz, sz);
  }
}

/// Random slices defeat the hardware prefetcher, which only follows a slice once it has
/// begun. Slices of 64 bytes and more are therefore prefetched whole (up to
/// kPrefetchMaxBytes of each) about kPrefetchBytes ahead of the copy, so that several
/// slices' misses are in flight at once (memory-level parallelism; W6a/W6b read random
/// 1 KiB / 256-byte rows of tables larger than the caches). NOTE [ Gather prefetch ]:
/// prefetching only the first 4 lines of the slice 4 ahead left W6a at 0.93x PyTorch at
/// one thread; whole slices 8 KiB ahead were 1.5-1.9x faster (docs/BENCHMARKS.md).
constexpr int64_t kPrefetchBytes = 8192;
constexpr int64_t kPrefetchMaxBytes = 2048;

// NOTE [ Gather streamed slices ]
// Streamed slices of 128 bytes and more (outputs of kStreamMinBytes and more) are copied by
// one Highway function per run of indices (gather_slices_stream_hwy, gather_hwy.cc): the
// same prefetch ahead, each line of the slice prefetched once, and the whole 64-byte lines
// of the destination slice written by streaming stores of the target's widest vector.
// Measurements: docs/perf/gather.md.

#ifdef GRIDOPS_HAVE_HWY
// NOTE [ Gather address order ]
// Streamed slices of 1 KiB and more from a table of 32 MiB and more, at one thread, are
// copied in the order of their source addresses (a stable counting sort of the run's
// slices by index / rows-per-bucket; each slice still written to its own output place, so
// the output is the same bytes). The plan decides it (gather.slices' tables,
// address_order=sorted|index in its schedule); where the sort's buffers cannot be had the
// slices go in index order. Measurements: docs/perf/gather.md.
constexpr int64_t kOrderMinSliceBytes = 1024;
constexpr int64_t kOrderMinTableBytes = int64_t{32} << 20;
constexpr int64_t kOrderMinSlices = 256;

/// Decided once per run: slices of `inner` bytes from a table of `s` of them, streamed.
AddressOrder address_order_for(int64_t s, int64_t inner, bool stream) {
  AddressOrder a;
  // s * inner <= the data's bytes: no overflow.
  if (!stream || inner < kOrderMinSliceBytes || s * inner < kOrderMinTableBytes || get_num_threads() > 1) {
    return a;
  }
  a.shift = 0;
  while ((int64_t{1} << a.shift) * inner < (int64_t{1} << 16)) ++a.shift;  // >= 64 KiB a bucket
  while (((s - 1) >> a.shift) >= 4096) ++a.shift;                          // <= 4,096 buckets
  a.buckets = ((s - 1) >> a.shift) + 1;
  return a;
}

/// Fills *ord with the order of idx[0..k) (each in [0, s)) by source address and returns
/// true, or returns false where `a` keeps index order, the run is short, or the buffers (4
/// bytes per index, freed on return) cannot be allocated.
bool address_order(const int64_t* idx, int64_t k, const AddressOrder& a, std::vector<int32_t>* ord) {
  if (a.shift < 0 || k < kOrderMinSlices || k > INT32_MAX) return false;
  const auto buckets = static_cast<size_t>(a.buckets);
  std::vector<int32_t> count;
  try {
    ord->resize(static_cast<size_t>(k));
    count.assign(buckets + 1, 0);
  } catch (const std::bad_alloc&) {
    return false;
  }
  for (int64_t j = 0; j < k; ++j) ++count[static_cast<size_t>(idx[j] >> a.shift) + 1];
  for (size_t b = 0; b < buckets; ++b) count[b + 1] += count[b];
  for (int64_t j = 0; j < k; ++j) {
    (*ord)[static_cast<size_t>(count[static_cast<size_t>(idx[j] >> a.shift)]++)] = static_cast<int32_t>(j);
  }
  return true;
}
#endif

/// Slices of any size: one memcpy each (or streaming copies), the slices ahead prefetched.
template <>
void copy_slices<void, int64_t>(char* out, const char* src, const int64_t* idx, int64_t k,
                                int64_t inner, bool stream, [[maybe_unused]] const AddressOrder& order) {
  const int64_t ahead = std::max<int64_t>(4, kPrefetchBytes / inner);
  const int64_t span = std::min(inner, kPrefetchMaxBytes);
#ifdef GRIDOPS_HAVE_HWY
  if (stream && inner >= 128) {
    std::vector<int32_t> ord;
    const bool ordered = address_order(idx, k, order, &ord);
    gather_slices_stream_hwy(out, src, idx, ordered ? ord.data() : nullptr, k, inner, ahead, span);
    return;
  }
#endif
  for (int64_t j = 0; j < k; ++j) {
    if (inner >= 64 && j + ahead < k) {
      prefetch_slice(src + idx[j + ahead] * inner, span);
    }
    if (stream) {
      copy_stream(out + j * inner, src + idx[j] * inner, inner);
    } else {
      std::memcpy(out + j * inner, src + idx[j] * inner, static_cast<size_t>(inner));
    }
  }
}

template <class T, class I = int64_t>
void run_slices(const char* data, const I* idx, char* dst, int64_t outer, int64_t s, int64_t q,
                int64_t inner, bool stream, const AddressOrder& order) {
  const int64_t units = outer * q;
  const int64_t grain = std::max<int64_t>(1, (int64_t{1} << 16) / std::max<int64_t>(inner, 1));
  parallel_for(units, grain, [&](int64_t u0, int64_t u1) {
    int64_t o = u0 / q;
    int64_t i = u0 - o * q;
    char* out = dst + u0 * inner;
    for (int64_t u = u0; u < u1;) {
      const int64_t k = std::min(q - i, u1 - u);
      copy_slices<T, I>(out, data + o * s * inner, idx + i, k, inner, stream, order);
      u += k;
      out += k * inner;
      i = 0;
      ++o;
    }
    if (stream) stream_fence();
  });
}

/// The problem as (outer, s, inner bytes) with q indices; false when the slice size
/// overflows (a plan never run may be that large).
struct Merged {
  int64_t outer = 1, s = 0, q = 1, inner = 0;
};

/// gather.slices' tables: the merged problem and the schedule fixed at plan time (the
/// store kind and the address order, NOTE [ Gather address order ]).
struct SlicesTables {
  Merged m;
  bool stream = false;
  AddressOrder order;
};
bool merge(const GatherProblem& p, Merged* m) {
  const size_t axis = static_cast<size_t>(p.axis);
  int64_t inner = static_cast<int64_t>(dtype_size(p.dtype));
  for (size_t d = 0; d < axis; ++d) m->outer *= p.data_shape[d];  // <= data elements
  for (size_t d = axis + 1; d < p.data_shape.size(); ++d) {
    if (!detail::mul_ok(inner, p.data_shape[d], &inner)) return false;
  }
  for (int64_t d : p.indices_shape) m->q *= d;  // <= dst elements
  m->s = p.data_shape[axis];
  m->inner = inner;
  return true;
}

/// The copies for m's slice size: typed for 1, 2, 4, 8 and 16 bytes, memcpy otherwise
/// (int64 indices only).
template <class I>
void run_by_size(const char* src, const I* idx, char* out, const SlicesTables& t) {
  const Merged& m = t.m;
  switch (m.inner) {
    case 1:
      return run_slices<uint8_t>(src, idx, out, m.outer, m.s, m.q, m.inner, t.stream, t.order);
    case 2:
      return run_slices<uint16_t>(src, idx, out, m.outer, m.s, m.q, m.inner, t.stream, t.order);
    case 4:
      return run_slices<uint32_t>(src, idx, out, m.outer, m.s, m.q, m.inner, t.stream, t.order);
    case 8:
      return run_slices<uint64_t>(src, idx, out, m.outer, m.s, m.q, m.inner, t.stream, t.order);
    case 16:
      return run_slices<Bytes16>(src, idx, out, m.outer, m.s, m.q, m.inner, t.stream, t.order);
    default:
      if constexpr (std::is_same_v<I, int64_t>) {
        return run_slices<void>(src, idx, out, m.outer, m.s, m.q, m.inner, t.stream, t.order);
      } else {
        assert(false && "32-bit indices are for the typed slice sizes only");
      }
  }
}

/// The indices with negative values made non-negative (the operator layer has checked
/// -s <= v < s; each is read once here and clamped by index_row, so a value changed since
/// the check cannot send a copy outside data).
std::vector<int64_t> normalized_indices(const GatherProblem& p, const TensorView& indices,
                                        int64_t s, int64_t q) {
  std::vector<int64_t> idx(static_cast<size_t>(q));
  if (p.indices_dtype == DType::kInt32) {
    const auto* v = static_cast<const int32_t*>(indices.data);
    for (int64_t i = 0; i < q; ++i) idx[static_cast<size_t>(i)] = index_row(v[i], s);
  } else {
    const auto* v = static_cast<const int64_t*>(indices.data);
    for (int64_t i = 0; i < q; ++i) idx[static_cast<size_t>(i)] = index_row(v[i], s);
  }
  return idx;
}

bool empty_output(const GatherProblem& p) {
  for (int64_t d : p.dst_shape) {
    if (d == 0) return true;
  }
  return false;
}

std::string contiguity_declines(const TensorView& data, const TensorView& indices,
                                const MutableTensorView& dst) {
  if (!data.is_contiguous()) return "data is not contiguous";
  if (!indices.is_contiguous()) return "indices are not contiguous";
  if (!dst.is_contiguous()) return "dst is not contiguous";
  return {};
}

}  // namespace

std::string gather_slices_declines(const GatherProblem& p) {
  if (p.dtype == DType::kString) return "strings are copied by assignment (reference only)";
  Merged m;
  if (!merge(p, &m)) return "slices of more than 2^63 - 1 bytes";
  return {};
}

std::shared_ptr<const void> gather_slices_prepare(const GatherProblem& p) {
  auto t = std::make_shared<SlicesTables>();
  merge(p, &t->m);
  // Large outputs bypass the cache (see nt_copy.h); slices under 64 bytes never stream.
  // Outputs whose byte count overflows are empty or never run (their views are rejected).
  int64_t bytes = 0;
  t->stream = !empty_output(p) && detail::mul_ok(t->m.outer * t->m.q, t->m.inner, &bytes) &&
              bytes >= kStreamMinBytes;
#ifdef GRIDOPS_HAVE_HWY
  t->order = address_order_for(t->m.s, t->m.inner, t->stream);
#endif
  return t;
}

std::string gather_slices_schedule(const GatherProblem&, const void* tables) {
  const auto& t = *static_cast<const SlicesTables*>(tables);
  std::string s = std::string("stores=") + (t.stream ? "streaming" : "cached");
  s += t.order.shift < 0 ? ", address_order=index"
                         : ", address_order=sorted (" + std::to_string(t.order.buckets) +
                               " buckets of 2^" + std::to_string(t.order.shift) + " slices)";
  return s;
}

std::string gather_slices_declines_views(const GatherProblem&, const void*,
                                         const GatherViews& v) {
  return contiguity_declines(v.data, v.indices, v.dst);
}

void gather_slices(const GatherProblem& p, const void* tables, const GatherViews& v) {
  assert(gather_slices_declines(p).empty());
  assert(gather_slices_declines_views(p, tables, v).empty());
  if (empty_output(p)) return;
  const SlicesTables& t = *static_cast<const SlicesTables*>(tables);
  const Merged& m = t.m;
  const std::vector<int64_t> idx = normalized_indices(p, v.indices, m.s, m.q);
  const char* src = static_cast<const char*>(v.data.data);
  char* out = static_cast<char*>(v.dst.mutable_data());
  const bool typed = m.inner == 1 || m.inner == 2 || m.inner == 4 || m.inner == 8 || m.inner == 16;
  if (typed && m.s <= int64_t{UINT32_MAX}) {
    // 0 <= k < s <= UINT32_MAX: the typed copies read 32-bit indices in pairs.
    const std::vector<uint32_t> idx32(idx.begin(), idx.end());
    return run_by_size(src, idx32.data(), out, t);
  }
  return run_by_size(src, idx.data(), out, t);
}

#ifdef GRIDOPS_HAVE_HWY

// NOTE [ Gather vector gathers by CPU ]: AMD's vector gathers are slower than
// gather.slices' unrolled scalar copies, so gather.vector is unavailable on AMD CPUs (its
// unavailable() and declines say so) and gather.slices runs; the test-only entry
// gather.vector_any_cpu runs the kernel there. Measurements: docs/perf/gather.md.
bool gather_vector_slower_on_this_cpu() {
#if defined(__x86_64__) || defined(__i386__)
  static const bool amd = __builtin_cpu_is("amd");
  return amd;
#else
  return false;
#endif
}

std::string gather_vector_unavailable() {
  if (!gather_vector_slower_on_this_cpu()) return {};
  return "an AMD CPU, whose vector gathers are slower than the slice copies (NOTE [ Gather "
         "vector gathers by CPU ])";
}

std::string gather_vector_declines(const GatherProblem& p) {
  if (p.dtype != DType::kString) {
    std::string why = gather_vector_unavailable();
    if (!why.empty()) return why;
  }
  return gather_vector_any_cpu_declines(p);
}

std::string gather_vector_any_cpu_declines(const GatherProblem& p) {
  if (p.dtype == DType::kString) return "strings are copied by assignment (reference only)";
  Merged m;
  const bool fits = merge(p, &m);
  if (!fits || (m.inner != 4 && m.inner != 8)) {
    return "slices of " + (fits ? std::to_string(m.inner) : std::string("over 2^63 - 1")) +
           " bytes (vector gathers: 4 or 8)";
  }
  if (m.inner == 4 && m.s > INT32_MAX) {
    return "an axis of " + std::to_string(m.s) + " 4-byte slices (vector gathers: up to 2^31 - 1)";
  }
  return {};
}

std::string gather_vector_declines_views(const GatherProblem& p, const void*,
                                         const GatherViews& v) {
  std::string why = contiguity_declines(v.data, v.indices, v.dst);
  if (!why.empty()) return why;
  Merged m;
  merge(p, &m);
  const auto misaligned = [&](const void* a) { return reinterpret_cast<uintptr_t>(a) % static_cast<uintptr_t>(m.inner) != 0; };
  if (misaligned(v.data.data)) return "data is not aligned to its " + std::to_string(m.inner) + "-byte slices";
  if (misaligned(v.dst.data)) return "dst is not aligned to its " + std::to_string(m.inner) + "-byte slices";
  return {};
}

void gather_vector(const GatherProblem& p, [[maybe_unused]] const void* tables, const GatherViews& v) {
  assert(gather_vector_any_cpu_declines(p).empty());
  assert(gather_vector_declines_views(p, tables, v).empty());
  if (empty_output(p)) return;
  Merged m;
  merge(p, &m);
  const std::vector<int64_t> idx = normalized_indices(p, v.indices, m.s, m.q);
  const char* src = static_cast<const char*>(v.data.data);
  char* out = static_cast<char*>(v.dst.mutable_data());
  const int64_t units = m.outer * m.q;
  const int64_t grain = int64_t{1} << 14;
  if (m.inner == 4) {
    const std::vector<int32_t> idx32(idx.begin(), idx.end());  // 0 <= k < s <= INT32_MAX
    parallel_for(units, grain, [&](int64_t u0, int64_t u1) {
      gather_chunk32_hwy(reinterpret_cast<const uint32_t*>(src), m.s, idx32.data(), m.q,
                         reinterpret_cast<uint32_t*>(out), u0, u1);
    });
  } else {
    parallel_for(units, grain, [&](int64_t u0, int64_t u1) {
      gather_chunk64_hwy(reinterpret_cast<const uint64_t*>(src), m.s, idx.data(), m.q,
                         reinterpret_cast<uint64_t*>(out), u0, u1);
    });
  }
}
#endif

}  // namespace gridops::kernels
