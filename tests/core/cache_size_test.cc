// core/cache_size.h: the last-level cache size the streaming thresholds scale with (NOTE
// [ Stream thresholds by cache size ]) and Resample's two thresholds built on it.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

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

TEST(CacheSize, ParsesSysfsSizes) {
  EXPECT_EQ(kernels::parse_cache_size("32768K"), 32 * kMiB);
  EXPECT_EQ(kernels::parse_cache_size("32M"), 32 * kMiB);
  EXPECT_EQ(kernels::parse_cache_size("1G"), 1024 * kMiB);
  EXPECT_EQ(kernels::parse_cache_size("512"), 512);
  EXPECT_EQ(kernels::parse_cache_size("48K \n"), 48 * 1024);
  for (const char* bad : {"", "K", "32 K", "32KB", "-1K", "12x", "99999999999999999999K"}) {
    EXPECT_EQ(kernels::parse_cache_size(bad), 0) << "'" << bad << "'";
  }
}

/// A fake sysfs cache directory: one indexN folder per entry {level, type, size}.
class SysfsCacheDir : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::path(::testing::TempDir()) /
           ("gridops_cache_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  void add(int index, const std::string& level, const std::string& type, const std::string& size) {
    const auto d = dir_ / ("index" + std::to_string(index));
    std::filesystem::create_directories(d);
    std::ofstream(d / "level") << level << "\n";
    std::ofstream(d / "type") << type << "\n";
    std::ofstream(d / "size") << size << "\n";
  }
  std::string path() const { return dir_.string(); }
  std::filesystem::path dir_;
};

TEST_F(SysfsCacheDir, TheHighestDataOrUnifiedLevelGivesTheSize) {
  // An AMD Zen 4 core complex: the instance is 32 MiB whatever the package holds.
  add(0, "1", "Data", "32K");
  add(1, "1", "Instruction", "32K");
  add(2, "2", "Unified", "1024K");
  add(3, "3", "Unified", "32768K");
  EXPECT_EQ(kernels::llc_bytes_from_sysfs(path()), 32 * kMiB);
}

TEST_F(SysfsCacheDir, InstructionCachesAndGapsAreNotCounted) {
  add(0, "1", "Data", "48K");
  add(1, "2", "Unified", "2048K");
  add(2, "3", "Instruction", "64M");  // not a data cache
  add(4, "3", "Unified", "64M");      // after the gap at index3: not read
  EXPECT_EQ(kernels::llc_bytes_from_sysfs(path()), 2 * kMiB);
}

TEST_F(SysfsCacheDir, UnreadableEntriesGiveZero) {
  EXPECT_EQ(kernels::llc_bytes_from_sysfs(path()), 0);
  EXPECT_EQ(kernels::llc_bytes_from_sysfs(path() + "/missing"), 0);
  add(0, "3", "Unified", "lots");
  EXPECT_EQ(kernels::llc_bytes_from_sysfs(path()), 0);
}

TEST(CacheSize, DetectionReadsTheSysfsInstanceFirst) {
  const std::string real = "/sys/devices/system/cpu/cpu0/cache";
  const int64_t sysfs = kernels::llc_bytes_from_sysfs(real);
  if (sysfs == 0) GTEST_SKIP() << "no readable cache sizes under " << real;
  kernels::set_last_level_cache_bytes_override(0);
  EXPECT_EQ(kernels::last_level_cache_bytes(), sysfs);
}

}  // namespace
}  // namespace gridops
