// The instruction-set cap (gridops/isa.h): what set_max_isa accepts and refuses, that the
// Highway targets above a cap are neither usable nor dispatched, that the entries which
// check a CPU feature themselves follow it, and that "native" restores the CPU's best.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/cache_size.h"
#include "core/gather_cost.h"
#include "core/isa.h"
#include "gridops/isa.h"
#include "gridops/ops/resample.h"
#include "gridops/status.h"
#include "kernels/pad/pad_lines.h"
#include "kernels/resample/resample_fast.h"
#include "support/test_util.h"

namespace gridops {
namespace {

#if defined(__x86_64__)
const std::vector<std::string> kLevels = {"scalar", "sse4", "avx2", "avx512", "avx512_bf16"};
// The Highway targets above each level (any of them dispatched under the cap is a bug).
const std::vector<std::vector<std::string>> kAbove = {{"SSSE3", "SSE4", "AVX2", "AVX3", "AVX3_DL"},
                                                      {"AVX2", "AVX3", "AVX3_DL"},
                                                      {"AVX3", "AVX3_DL"},
                                                      {"AVX3_DL"},
                                                      {}};
#elif defined(__aarch64__)
const std::vector<std::string> kLevels = {"scalar", "neon", "sve", "sve2"};
const std::vector<std::vector<std::string>> kAbove = {
    {"NEON", "SVE", "SVE_256", "SVE2", "SVE2_128"}, {"SVE", "SVE_256", "SVE2", "SVE2_128"},
    {"SVE2", "SVE2_128"}, {}};
#else
const std::vector<std::string> kLevels = {"scalar"};
const std::vector<std::vector<std::string>> kAbove = {{}};
#endif

/// Restores the cap the test started with (the environment's, in the capped CI passes).
class IsaCap : public ::testing::Test {
 protected:
  void SetUp() override { saved_ = max_isa(); }
  void TearDown() override { EXPECT_TRUE(set_max_isa(saved_).ok()); }
  std::string saved_;
};

int rank_of(const std::string& level) {
  for (size_t i = 0; i < kLevels.size(); ++i) {
    if (kLevels[i] == level) return static_cast<int>(i);
  }
  return static_cast<int>(kLevels.size());  // native
}

TEST_F(IsaCap, EachLevelCapsTheHighwayTargets) {
  int applied = 0;
  for (size_t i = 0; i < kLevels.size(); ++i) {
    SCOPED_TRACE(kLevels[i]);
    const Status s = set_max_isa(kLevels[i]);
    if (!s.ok()) {
      // Only a level below what the build requires of every CPU (its baseline) is refused.
      EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
      EXPECT_NE(s.message().find("baseline"), std::string::npos) << s.message();
      continue;
    }
    ++applied;
    EXPECT_EQ(max_isa(), kLevels[i]);
    // The effective level is the cap or the CPU's best, whichever is lower.
    EXPECT_LE(rank_of(effective_isa()), static_cast<int>(i)) << effective_isa();
    std::vector<int64_t> targets = testing::hwy_targets_all();
#ifdef GRIDOPS_HAVE_HWY
    EXPECT_FALSE(targets.empty());
#endif
    for (int64_t t : targets) {
      const std::string name = testing::hwy_target_name(t);
      for (const std::string& above : kAbove[i]) {
        EXPECT_NE(name, above) << "target " << name << " usable under the cap " << kLevels[i];
      }
    }
    const std::string dispatched = detail::dispatched_target_name();
    for (const std::string& above : kAbove[i]) EXPECT_NE(dispatched, above);
    const std::string report = isa_report();
    EXPECT_NE(report.find("cap: " + kLevels[i] + " (from set_max_isa)"), std::string::npos)
        << report;
    EXPECT_NE(report.find("highway target dispatched: " + dispatched), std::string::npos)
        << report;
  }
  EXPECT_GT(applied, 0);
  ASSERT_TRUE(set_max_isa("native").ok());
  EXPECT_EQ(max_isa(), "native");
  // "" is "native" too.
  ASSERT_TRUE(set_max_isa("").ok());
  EXPECT_EQ(max_isa(), "native");
}

// The report names the host facts the plans read besides the SIMD level, as they are now.
TEST(Isa, ReportNamesTheCacheSizeAndTheGatherFact) {
  kernels::set_last_level_cache_bytes_override(48 << 20);
  kernels::set_slow_gathers_override(1);
  std::string report = isa_report();
  EXPECT_NE(report.find("last-level cache: 48 MiB (one instance"), std::string::npos) << report;
  EXPECT_NE(report.find("slow gathers: yes"), std::string::npos) << report;
  kernels::set_last_level_cache_bytes_override(1280 << 10);
  kernels::set_slow_gathers_override(0);
  report = isa_report();
  kernels::set_last_level_cache_bytes_override(0);
  kernels::set_slow_gathers_override(-1);
  EXPECT_NE(report.find("last-level cache: 1280 KiB"), std::string::npos) << report;
  EXPECT_NE(report.find("slow gathers: no"), std::string::npos) << report;
}

// GRIDOPS_SLOW_GATHERS takes "1" or "0"; unset or empty leaves the CPU table, and any other
// value does too, with a message that names the variable, the values it takes and the value.
TEST(Isa, SlowGathersVariableTakesOneOrZeroAndNamesAnythingElse) {
  std::string why;
  EXPECT_EQ(kernels::slow_gathers_from_env("1", &why), 1);
  EXPECT_EQ(kernels::slow_gathers_from_env("0", &why), 0);
  EXPECT_EQ(kernels::slow_gathers_from_env(nullptr, &why), -1);
  EXPECT_EQ(kernels::slow_gathers_from_env("", &why), -1);
  EXPECT_TRUE(why.empty()) << why;
  for (const char* bad : {"yes", "2", "1 ", "true"}) {
    why.clear();
    EXPECT_EQ(kernels::slow_gathers_from_env(bad, &why), -1) << bad;
    EXPECT_NE(why.find(std::string("GRIDOPS_SLOW_GATHERS='") + bad + "'"), std::string::npos) << why;
    EXPECT_NE(why.find("expected 1"), std::string::npos) << why;
    EXPECT_NE(why.find("or 0"), std::string::npos) << why;
  }
  EXPECT_EQ(kernels::slow_gathers_from_env("maybe", nullptr), -1);
}

// Asking which targets are usable (the dispatch log, isa_report, the tests' target list)
// leaves the dispatch under the cap: hwy::SupportedTargets() alone would point it at every
// target of the CPU (core/isa.h, usable_hwy_targets).
TEST_F(IsaCap, AskingTheTargetsKeepsTheDispatchCapped) {
#ifdef GRIDOPS_HAVE_HWY
  for (const std::string& level : kLevels) {
    SCOPED_TRACE(level);
    if (!set_max_isa(level).ok()) continue;  // below the baseline
    const int64_t bytes = kernels::pad_lines_vec_bytes();  // a dynamic dispatch
    (void)detail::dispatched_target_name();
    (void)isa_report();
    (void)testing::hwy_targets_all();
    EXPECT_EQ(kernels::pad_lines_vec_bytes(), bytes);
  }
#else
  GTEST_SKIP() << "built without Highway: no dispatch";
#endif
}

TEST_F(IsaCap, NativeRestoresTheBestTarget) {
  ASSERT_TRUE(set_max_isa("native").ok());
  const std::vector<int64_t> all = testing::hwy_targets_all();
  const std::string best = detail::dispatched_target_name();
  const Status s = set_max_isa("scalar");
  if (!s.ok()) GTEST_SKIP() << "this build cannot run below its baseline: " << s.message();
  if (all.size() > 1) {
    EXPECT_NE(std::string(detail::dispatched_target_name()), best);
  }
  ASSERT_TRUE(set_max_isa("native").ok());
  EXPECT_EQ(testing::hwy_targets_all(), all);
  EXPECT_EQ(std::string(detail::dispatched_target_name()), best);
}

TEST_F(IsaCap, UnknownLevelsAreRefusedAndChangeNothing) {
  const std::string before = max_isa();
  for (const char* bad : {"avx9", "AVX2", "sse", " avx2", "native ", "neon_x"}) {
    SCOPED_TRACE(bad);
    const Status s = set_max_isa(bad);
    ASSERT_FALSE(s.ok());
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
    EXPECT_NE(s.message().find("set_max_isa: level must be one of {"), std::string::npos)
        << s.message();
    EXPECT_NE(s.message().find(std::string("got '") + bad + "'"), std::string::npos)
        << s.message();
    EXPECT_EQ(max_isa(), before);
  }
#if defined(__x86_64__)
  // Another architecture's level names are not levels here.
  EXPECT_FALSE(set_max_isa("neon").ok());
#elif defined(__aarch64__)
  EXPECT_FALSE(set_max_isa("avx2").ok());
#endif
}

#if defined(__x86_64__) && defined(GRIDOPS_HAVE_HWY)
// resample.channels_bf16 checks the CPU itself (AVX512_BF16, not a Highway target): under a
// cap below avx512_bf16 it declines with the cap as the reason, and plans pick the next entry.
TEST_F(IsaCap, TheBf16ResampleEntryFollowsTheCap) {
  ASSERT_TRUE(set_max_isa("native").ok());
  if (!detail::isa_allows_avx512_bf16()) {
    GTEST_SKIP() << "the CPU lacks AVX512_BF16: " << kernels::resample_channels_bf16_unavailable();
  }
  ResampleMemoryDesc s, d;
  s.dtype = d.dtype = DType::kBFloat16;
  s.format = d.format = MemoryFormat::kChannelsLast;
  s.dims = {1, 32, 8, 8};
  d.dims = {1, 32, 16, 16};
  ResampleDesc desc;
  desc.algorithm = ResampleAlgorithm::kLinear;
  auto plan = make_resample_plan(desc, s, d);
  ASSERT_TRUE(plan.ok()) << plan.status().to_string();
  EXPECT_STREQ(plan->impl_name(), "resample.channels_bf16");
  for (const char* cap : {"avx512", "avx2"}) {
    SCOPED_TRACE(cap);
    ASSERT_TRUE(set_max_isa(cap).ok());
    EXPECT_FALSE(detail::isa_allows_avx512_bf16());
    auto capped = make_resample_plan(desc, s, d);
    ASSERT_TRUE(capped.ok()) << capped.status().to_string();
    EXPECT_STRNE(capped->impl_name(), "resample.channels_bf16");
    desc.impl = "resample.channels_bf16";
    auto forced = make_resample_plan(desc, s, d);
    desc.impl.clear();
    ASSERT_FALSE(forced.ok());
    EXPECT_NE(forced.status().message().find(std::string("the ISA cap (GRIDOPS_MAX_ISA / "
                                                         "set_max_isa) is ") + cap),
              std::string::npos)
        << forced.status().message();
  }
  ASSERT_TRUE(set_max_isa("avx512_bf16").ok());
  EXPECT_TRUE(detail::isa_allows_avx512_bf16());
}
#endif

}  // namespace
}  // namespace gridops
