// core/cache_size.h: the last-level cache size the streaming thresholds scale with (NOTE
// [ Stream thresholds by cache size ]) and Resample's two thresholds built on it.
#include <gtest/gtest.h>

#include <cstdint>

#include "core/cache_size.h"
#include "kernels/resample/resample_fast.h"

namespace gridops {
namespace {

constexpr int64_t kMiB = int64_t{1} << 20;

struct RestoreLlc {
  ~RestoreLlc() { kernels::set_last_level_cache_bytes_override(0); }
};

TEST(CacheSize, DetectedSizeIsPositive) {
  kernels::set_last_level_cache_bytes_override(0);
  EXPECT_GT(kernels::last_level_cache_bytes(), 0);
}

TEST(CacheSize, ThresholdsGrowWithALargerCacheOnly) {
  RestoreLlc restore;
  kernels::set_last_level_cache_bytes_override(32 * kMiB);
  EXPECT_EQ(kernels::last_level_cache_bytes(), 32 * kMiB);
  EXPECT_EQ(kernels::scale_to_llc(4 * kMiB), 4 * kMiB);
  EXPECT_EQ(kernels::resample_stream_min_bytes(), 4 * kMiB);
  EXPECT_EQ(kernels::resample_stream_working_set_bytes(), 32 * kMiB);
  // A smaller cache keeps the measured values.
  kernels::set_last_level_cache_bytes_override(8 * kMiB);
  EXPECT_EQ(kernels::scale_to_llc(4 * kMiB), 4 * kMiB);
  // 480 MiB (the Intel host of 2026-11-30): 15 times.
  kernels::set_last_level_cache_bytes_override(480 * kMiB);
  EXPECT_EQ(kernels::scale_to_llc(4 * kMiB), 60 * kMiB);
  EXPECT_EQ(kernels::resample_stream_min_bytes(), 60 * kMiB);
  EXPECT_EQ(kernels::resample_stream_working_set_bytes(), 480 * kMiB);
  // Not a multiple: the ratio rounds down (100 / 32 = 3).
  kernels::set_last_level_cache_bytes_override(100 * kMiB);
  EXPECT_EQ(kernels::scale_to_llc(4 * kMiB), 12 * kMiB);
  // An absurd reported size is capped at 1024 times.
  kernels::set_last_level_cache_bytes_override(int64_t{1} << 50);
  EXPECT_EQ(kernels::scale_to_llc(4 * kMiB), 4096 * kMiB);
}

}  // namespace
}  // namespace gridops
