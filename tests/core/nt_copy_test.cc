// core/nt_copy.h: copy_stream and zero_stream (Pad, Gather) against memcpy / memset:
// destinations at offsets within a cache line, lengths around the 128-byte threshold and
// the 64-byte lines, and the bytes just before and after the destination untouched.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "core/nt_copy.h"
#include "support/test_util.h"

namespace gridops {
namespace {

constexpr int64_t kGuard = 64;

void check_all_lengths() {
  std::mt19937_64 rng(testing::test_seed());
  const int64_t lengths[] = {0, 1, 63, 64, 65, 127, 128, 129, 191, 192, 255, 256, 1000, 4096 + 37};
  for (int64_t n : lengths) {
    for (int64_t dst_off : {0, 1, 8, 31, 32, 63}) {
      for (int64_t src_off : {0, 3}) {
        SCOPED_TRACE("n " + std::to_string(n) + " dst offset " + std::to_string(dst_off) +
                     " src offset " + std::to_string(src_off));
        // Buffers aligned to 64 bytes by hand (std::vector guarantees 16 at most).
        const size_t bytes = static_cast<size_t>(n + 2 * kGuard + 64);
        std::vector<unsigned char> src_buf(bytes + 64), dst_buf(bytes + 64), want(bytes + 64);
        auto align = [](unsigned char* p) {
          return p + ((64 - reinterpret_cast<uintptr_t>(p) % 64) % 64);
        };
        unsigned char* src = align(src_buf.data()) + src_off;
        unsigned char* base = align(dst_buf.data());
        unsigned char* wbase = align(want.data());
        for (int64_t i = 0; i < n; ++i) src[i] = static_cast<unsigned char>(rng());
        const size_t span = static_cast<size_t>(n + 2 * kGuard);
        for (size_t i = 0; i < span; ++i) base[i] = wbase[i] = static_cast<unsigned char>(0xA5 ^ i);
        char* dst = reinterpret_cast<char*>(base + kGuard + dst_off);
        for (int64_t i = 0; i < n; ++i) wbase[kGuard + dst_off + i] = src[i];
        kernels::copy_stream(dst, reinterpret_cast<const char*>(src), n);
        kernels::stream_fence();
        ASSERT_EQ(std::memcmp(base, wbase, span + static_cast<size_t>(dst_off)), 0) << "copy_stream";
        for (int64_t i = 0; i < n; ++i) wbase[kGuard + dst_off + i] = 0;
        kernels::zero_stream(dst, n);
        kernels::stream_fence();
        ASSERT_EQ(std::memcmp(base, wbase, span + static_cast<size_t>(dst_off)), 0) << "zero_stream";
      }
    }
  }
}

TEST(StreamingCopy, MatchesMemcpyAndMemset) { check_all_lengths(); }

}  // namespace
}  // namespace gridops
