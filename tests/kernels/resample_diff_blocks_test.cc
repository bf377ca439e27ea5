// The channel-vector kernels write a blocked output pixel's run of vectors whole (NOTE
// [ Whole pixel blocks per output ], resample_hwy-inl.h): two float32 vectors per 16-channel
// pixel on AVX2, four on SSE4, one on AVX-512. Here every fast entry, on every Highway
// target this CPU runs, against resample.generic (one channel at a time; the same
// arithmetic, so the same bits): blocked16 <-> blocked16 / blocked8 / channels-last, float32
// and bfloat16, linear and nearest, C a multiple of 16 and not (a partial block), an odd
// output width (a pixel's run left over after the four-vectors-per-step loop), outputs of
// 4 MiB and more 64-byte aligned (streamed) and offset by one element (ordinary stores).
#include "resample_diff_util.h"

namespace gridops::resample_diff {
namespace {

/// A 64-byte aligned buffer of n elements of T, offset by `shift` elements.
template <class T>
struct Aligned {
  T* base = nullptr;
  T* p = nullptr;
  size_t n = 0;
  Aligned(size_t count, size_t shift) : n(count) {
    const size_t bytes = ((count + shift) * sizeof(T) + 63) / 64 * 64;
    base = static_cast<T*>(std::aligned_alloc(64, bytes));
    p = base + shift;
  }
  ~Aligned() { std::free(base); }
  Aligned(const Aligned&) = delete;
  Aligned& operator=(const Aligned&) = delete;
};

/// The output of `impl` on `in` (channel padding of the output pre-filled with a
/// non-zero pattern, so that a kernel that skips it is caught), as bits.
template <class T>
std::vector<T> run_aligned(const std::string& impl, ResampleAlgorithm a,
                           const ResampleMemoryDesc& s, const ResampleMemoryDesc& d,
                           const std::vector<T>& in, size_t shift) {
  ResampleDesc desc;
  desc.algorithm = a;
  desc.impl = impl;
  auto plan = make_resample_plan(desc, s, d);
  EXPECT_TRUE(plan.ok()) << plan.status().to_string();
  if (!plan.ok()) return {};
  const auto nd = static_cast<size_t>(*d.buffer_elements());
  Aligned<T> x(in.size(), shift), y(nd, shift);
  std::memcpy(x.p, in.data(), in.size() * sizeof(T));
  for (size_t i = 0; i < nd; ++i) y.p[i] = convert::store_real<T>(123.0);
  EXPECT_TRUE(plan->forward(x.p, y.p).ok());
  return std::vector<T>(y.p, y.p + nd);
}

template <class T>
void check_blocks(DType dt, int64_t c, MemoryFormat fs, MemoryFormat fd, ResampleAlgorithm a,
                  bool best_target, std::mt19937_64& rng) {
  const Dims sd = {2, c, 64, 64}, dd = {2, c, 131, 127};
  const auto s = md(dt, sd, fs), d = md(dt, dd, fd);
  std::vector<T> x(static_cast<size_t>(*s.buffer_elements()));
  std::uniform_real_distribution<float> val(-2.0f, 2.0f);
  for (auto& v : x) v = convert::store_real<T>(val(rng));
  for (size_t shift : {size_t{0}, size_t{1}}) {
    const std::vector<T> want = run_aligned<T>("resample.generic", a, s, d, x, shift);
    for (const std::string& impl : fast_impls()) {
      // resample.channels_bf16 (and "fast", which may pick it) runs its own AVX512_BF16 code
      // whatever the Highway target: the same bits as the best target's kernels only (on
      // SSE4, without FMA, MulAdd rounds twice).
      if (impl == "resample.generic" || !accepts(impl, a, s, d)) continue;
      if (!best_target && (impl == "resample.channels_bf16" || impl == "fast")) continue;
      SCOPED_TRACE(impl + " " + to_string(dt) + " C " + std::to_string(c) + " " +
                   format_tag(fs, 2) + " -> " + format_tag(fd, 2) + " " + to_string(a) +
                   (shift == 0 ? " aligned" : " offset"));
      const std::vector<T> got = run_aligned<T>(impl, a, s, d, x, shift);
      ASSERT_EQ(got.size(), want.size());
      const size_t i = first_difference(got, want);
      ASSERT_EQ(i, got.size()) << "first difference at buffer element " << i;
    }
  }
}

TEST(ResampleDiff, WholePixelBlocksMatchTheGenericPath) {
  GRIDOPS_SKIP_WITHOUT_HWY();
  const uint64_t seed = testing::test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed + 83);
  using F = MemoryFormat;
  struct Pair {
    F s, d;
  };
  const Pair pairs[] = {{F::kBlocked16, F::kBlocked16}, {F::kChannelsLast, F::kBlocked16},
                        {F::kBlocked16, F::kChannelsLast}, {F::kBlocked8, F::kBlocked16}};
  const std::vector<int64_t> targets = testing::hwy_targets();
  for (size_t k = 0; k < targets.size(); ++k) {
    SCOPED_TRACE("Highway target " + testing::hwy_target_name(targets[k]));
    testing::ScopedHwyTarget only(targets[k]);
    const bool best = k == 0;
    for (ResampleAlgorithm a : {ResampleAlgorithm::kLinear, ResampleAlgorithm::kNearest}) {
      for (const Pair& pr : pairs) {
        // 32 float32 / 64 bfloat16 channels: 4 MiB and more of output (streamed when
        // aligned); 20 channels: a partial block.
        check_blocks<float>(DType::kFloat32, 32, pr.s, pr.d, a, best, rng);
        check_blocks<bfloat16>(DType::kBFloat16, 64, pr.s, pr.d, a, best, rng);
        if (::testing::Test::HasFatalFailure()) return;
      }
      check_blocks<float>(DType::kFloat32, 20, F::kBlocked16, F::kBlocked16, a, best, rng);
      check_blocks<bfloat16>(DType::kBFloat16, 20, F::kBlocked16, F::kBlocked16, a, best, rng);
      if (::testing::Test::HasFatalFailure()) return;
    }
  }
}

}  // namespace
}  // namespace gridops::resample_diff
