// Copies with non-temporal (streaming) stores, for kernels whose output is far larger than
// the caches (Pad, Gather). A streaming store writes a whole cache line to memory without
// reading it first, so a copy moves 2 bytes per byte instead of 3 (read src, read dst line
// for ownership, write it back). Used only above kStreamMinBytes of output: a smaller
// output is better left in the cache for whoever reads it next.
//
// Plain SSE2 (every x86-64 CPU): 16-byte streaming stores fill the write-combining buffers
// just as wider ones do, so no per-target dispatch is needed. Elsewhere: memcpy.
#pragma once

#include <cstdint>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace gridops::kernels {

/// Outputs of at least this many bytes are written with streaming stores.
inline constexpr int64_t kStreamMinBytes = int64_t{8} << 20;
/// Pad with two or more threads: outputs below this many bytes stay in the cache.
inline constexpr int64_t kStreamMinBytesThreaded = int64_t{32} << 20;

/// memcpy(dst, src, n), with the whole 64-byte cache lines inside dst written by streaming
/// stores and the partial lines at both ends by ordinary stores (a partly streamed line
/// costs a slow partial write-combining flush). Call stream_fence() before the written
/// memory is handed to another thread.
inline void copy_stream(char* dst, const char* src, int64_t n) {
#if defined(__SSE2__)
  if (n >= 128) {
    const int64_t head = static_cast<int64_t>((-reinterpret_cast<uintptr_t>(dst)) & 63u);
    std::memcpy(dst, src, static_cast<size_t>(head));
    dst += head;
    src += head;
    n -= head;
    int64_t i = 0;
    for (; i + 64 <= n; i += 64) {
      const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i));
      const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i + 16));
      const __m128i c = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i + 32));
      const __m128i d = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i + 48));
      _mm_stream_si128(reinterpret_cast<__m128i*>(dst + i), a);
      _mm_stream_si128(reinterpret_cast<__m128i*>(dst + i + 16), b);
      _mm_stream_si128(reinterpret_cast<__m128i*>(dst + i + 32), c);
      _mm_stream_si128(reinterpret_cast<__m128i*>(dst + i + 48), d);
    }
    std::memcpy(dst + i, src + i, static_cast<size_t>(n - i));
    return;
  }
#endif
  std::memcpy(dst, src, static_cast<size_t>(n));
}

/// memset(dst, 0, n) with streaming stores for the whole cache lines inside dst.
inline void zero_stream(char* dst, int64_t n) {
#if defined(__SSE2__)
  if (n >= 128) {
    const int64_t head = static_cast<int64_t>((-reinterpret_cast<uintptr_t>(dst)) & 63u);
    std::memset(dst, 0, static_cast<size_t>(head));
    dst += head;
    n -= head;
    const __m128i z = _mm_setzero_si128();
    int64_t i = 0;
    for (; i + 64 <= n; i += 64) {
      _mm_stream_si128(reinterpret_cast<__m128i*>(dst + i), z);
      _mm_stream_si128(reinterpret_cast<__m128i*>(dst + i + 16), z);
      _mm_stream_si128(reinterpret_cast<__m128i*>(dst + i + 32), z);
      _mm_stream_si128(reinterpret_cast<__m128i*>(dst + i + 48), z);
    }
    std::memset(dst + i, 0, static_cast<size_t>(n - i));
    return;
  }
#endif
  std::memset(dst, 0, static_cast<size_t>(n));
}

/// Orders this thread's streaming stores before anything it writes later (in particular
/// before parallel_for reports the chunk done).
inline void stream_fence() {
#if defined(__SSE2__)
  _mm_sfence();
#endif
}

}  // namespace gridops::kernels
