// NOTE [ TwoTableLookup ] (core/table_lookup_hwy-inl.h): the raw AVX-512 two-table lookup
// and its portable form against a scalar lookup, on every Highway target of this CPU,
// float and uint32 lanes; bits are copied unchanged (NaN payloads too).
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "core/table_lookup.h"
#include "support/test_util.h"

namespace gridops {
namespace {

TEST(TwoTableLookup, PortableAndIntrinsicMatchScalarOnEveryTarget) {
#ifndef GRIDOPS_HAVE_HWY
  GTEST_SKIP() << "built without Highway";
#else
  std::mt19937_64 rng(testing::test_seed());
  const std::vector<int64_t> targets = testing::hwy_targets();
  ASSERT_FALSE(targets.empty());
  for (int64_t target : targets) {
    SCOPED_TRACE("Highway target " + testing::hwy_target_name(target));
    testing::ScopedHwyTarget only(target);
    // N: the lane count of the dispatched target (a lookup with every index 0).
    uint32_t zeros_table[32] = {}, probe[16] = {};
    const int32_t zeros_idx[16] = {};
    const size_t n = core::two_table_lookup_probe(true, true, zeros_table, zeros_idx, probe);
    ASSERT_GE(n, 1u);
    ASSERT_LE(n, 16u);
    for (int it = 0; it < 300; ++it) {
      int32_t idx[16] = {};
      for (size_t i = 0; i < n; ++i) {
        // Random, both halves, a shifted window (as the kernels make), or one lane.
        const size_t k = static_cast<size_t>(it % 4);
        idx[i] = static_cast<int32_t>(k == 0   ? rng() % (2 * n)
                                      : k == 1 ? (i + static_cast<size_t>(it)) % (2 * n)
                                      : k == 2 ? (i < n / 2 ? i : n + i)
                                               : static_cast<size_t>(it) % (2 * n));
      }
      std::vector<uint32_t> lohi(2 * n);
      for (uint32_t& v : lohi) v = static_cast<uint32_t>(rng());  // NaNs among the floats
      for (bool as_float : {true, false}) {
        for (bool portable : {true, false}) {
          uint32_t out[16] = {};
          ASSERT_EQ(core::two_table_lookup_probe(portable, as_float, lohi.data(), idx, out), n);
          for (size_t i = 0; i < n; ++i) {
            ASSERT_EQ(out[i], lohi[static_cast<size_t>(idx[i])])
                << "lane " << i << " of " << n << ", idx " << idx[i] << (portable ? ", portable" : "")
                << (as_float ? ", float" : ", uint32") << ", iteration " << it;
          }
        }
      }
    }
  }
#endif
}

}  // namespace
}  // namespace gridops
