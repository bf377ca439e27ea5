// Gather of 4- and 8-byte slices with vector gathers (Highway GatherIndex), compiled for
// every target Highway supports and chosen at run time, once per parallel_for chunk. The
// slices are moved as unsigned integers of their size, so every bit pattern (NaN payloads
// included) is copied unchanged. See NOTE [ Fast Gather ] in gather_fast.cc.
#include <algorithm>
#include <cstdint>
#include <cstring>

#include "kernels/gather/gather.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/gather/gather_hwy.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

HWY_BEFORE_NAMESPACE();
namespace gridops::kernels::gather_simd {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// dst slices [u0, u1) of the (outer, q) output: dst[u] = data[o * s + idx[i]] with
// u = o * q + i. I is the signed integer type of T's size (GatherIndex needs equal sizes).
template <class T, class I>
void GatherChunkT(const T* HWY_RESTRICT data, int64_t s, const I* HWY_RESTRICT idx, int64_t q,
                  T* HWY_RESTRICT dst, int64_t u0, int64_t u1) {
  const hn::ScalableTag<T> d;
  const hn::RebindToSigned<decltype(d)> di;
  const int64_t n = static_cast<int64_t>(hn::Lanes(d));
  int64_t o = u0 / q;
  int64_t i = u0 - o * q;
  T* out = dst + u0;
  for (int64_t u = u0; u < u1;) {
    const int64_t k = std::min(q - i, u1 - u);
    const T* row = data + o * s;
    const I* ix = idx + i;
    int64_t j = 0;
    for (; j + 2 * n <= k; j += 2 * n) {
      const auto a = hn::GatherIndex(d, row, hn::LoadU(di, ix + j));
      const auto b = hn::GatherIndex(d, row, hn::LoadU(di, ix + j + n));
      hn::StoreU(a, d, out + j);
      hn::StoreU(b, d, out + j + n);
    }
    for (; j < k; ++j) out[j] = row[ix[j]];
    u += k;
    out += k;
    i = 0;
    ++o;
  }
}

void GatherChunk32(const uint32_t* data, int64_t s, const int32_t* idx, int64_t q, uint32_t* dst,
                   int64_t u0, int64_t u1) {
  GatherChunkT(data, s, idx, q, dst, u0, u1);
}

void GatherChunk64(const uint64_t* data, int64_t s, const int64_t* idx, int64_t q, uint64_t* dst,
                   int64_t u0, int64_t u1) {
  GatherChunkT(data, s, idx, q, dst, u0, u1);
}

/// Slices j in [0, k) of `inner` bytes, out + j * inner <- src + idx[j] * inner, in the
/// order of ord (null: 0, 1, ...), the slice `ahead` places on in that order prefetched
/// (the lines of its first `span` bytes), the whole 64-byte lines of each destination
/// slice written by streaming stores and the partial lines at its ends by ordinary ones.
/// NOTE [ Gather streamed slices ] and NOTE [ Gather address order ] in gather_fast.cc.
template <bool kOrdered>
HWY_INLINE void GatherSlicesStreamT(char* HWY_RESTRICT out, const char* HWY_RESTRICT src,
                                    const int64_t* HWY_RESTRICT idx, const int32_t* HWY_RESTRICT ord,
                                    int64_t k, int64_t inner, int64_t ahead, int64_t span) {
  const hn::ScalableTag<uint8_t> d;
  const auto L = static_cast<int64_t>(hn::Lanes(d));
  for (int64_t q = 0; q < k; ++q) {
    const int64_t j = kOrdered ? ord[q] : q;
    if (q + ahead < k) prefetch_slice(src + idx[kOrdered ? ord[q + ahead] : q + ahead] * inner, span);
    char* o = out + j * inner;
    const char* a = src + idx[j] * inner;
    const int64_t head = std::min<int64_t>(inner, static_cast<int64_t>((-reinterpret_cast<uintptr_t>(o)) & 63u));
    if (head != 0) std::memcpy(o, a, static_cast<size_t>(head));
    const int64_t lines_end = head + (inner - head) / 64 * 64;
    for (int64_t i = head; i < lines_end; i += L) {
      hn::Stream(hn::LoadU(d, reinterpret_cast<const uint8_t*>(a + i)), d, reinterpret_cast<uint8_t*>(o + i));
    }
    if (lines_end != inner) std::memcpy(o + lines_end, a + lines_end, static_cast<size_t>(inner - lines_end));
  }
  // No fence here: run_slices fences once per chunk (stream_fence) before the chunk is
  // reported done, after every call of this function for the chunk's rows.
}

void GatherSlicesStream(char* HWY_RESTRICT out, const char* HWY_RESTRICT src,
                        const int64_t* HWY_RESTRICT idx, const int32_t* HWY_RESTRICT ord, int64_t k,
                        int64_t inner, int64_t ahead, int64_t span) {
  if (ord != nullptr) {
    GatherSlicesStreamT<true>(out, src, idx, ord, k, inner, ahead, span);
  } else {
    GatherSlicesStreamT<false>(out, src, idx, nullptr, k, inner, ahead, span);
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace gridops::kernels::gather_simd
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace gridops::kernels::gather_simd {
HWY_EXPORT(GatherChunk32);
HWY_EXPORT(GatherChunk64);
HWY_EXPORT(GatherSlicesStream);
}  // namespace gridops::kernels::gather_simd

namespace gridops::kernels {
using namespace gather_simd;  // NOLINT(google-build-using-namespace): HWY_DYNAMIC_DISPATCH

void gather_chunk32_hwy(const uint32_t* data, int64_t s, const int32_t* idx, int64_t q,
                        uint32_t* dst, int64_t u0, int64_t u1) {
  HWY_DYNAMIC_DISPATCH(GatherChunk32)(data, s, idx, q, dst, u0, u1);
}

void gather_chunk64_hwy(const uint64_t* data, int64_t s, const int64_t* idx, int64_t q,
                        uint64_t* dst, int64_t u0, int64_t u1) {
  HWY_DYNAMIC_DISPATCH(GatherChunk64)(data, s, idx, q, dst, u0, u1);
}

void gather_slices_stream_hwy(char* out, const char* src, const int64_t* idx, const int32_t* ord,
                              int64_t k, int64_t inner, int64_t ahead, int64_t span) {
  HWY_DYNAMIC_DISPATCH(GatherSlicesStream)(out, src, idx, ord, k, inner, ahead, span);
}
}  // namespace gridops::kernels
#endif  // HWY_ONCE
