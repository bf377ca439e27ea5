// Differential tests of the resampling paths taken one by one: the bfloat16 channel
// vectors and resample.channels_bf16 against the generic and channel-vector paths (same
// bits), the direct linear forward against the scratch-row entry, streaming stores of the
// large outputs, and non-finite values as in "ref". Bounds: resample_diff_test.cc.
#include <gtest/gtest.h>

#include "kernels/resample_diff_util.h"

namespace gridops {
namespace {

using namespace resample_diff;  // NOLINT(google-build-using-namespace)

// NaN and infinity propagate as in the reference (a zero-weight linear tap still
// multiplies its value), in every layout.
// bfloat16 linear forward with both tensors channels-last and whole channel vectors runs
// the flat loops (and, downsampling by 2, the fused loop) of resample.channels_vector16:
// they must give the bits of resample.generic (one channel at a time), ranks 1-3, streamed
// (a 64-byte aligned 4 MiB output) or not, NaN payloads, infinities and subnormals included.
TEST(ResampleDiff, BFloat16ChannelVectorsMatchTheGenericPath) {
  GRIDOPS_SKIP_WITHOUT_HWY();
  const uint64_t seed = testing::test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed + 83);
  std::uniform_real_distribution<float> val(-2.0f, 2.0f);
  const uint16_t specials[] = {0x7FC0, 0xFFC1, 0x7F80, 0xFF80, 0x0001, 0x8003, 0x0000, 0x8000};
  struct Case {
    Dims s, d;
  };
  const Case cases[] = {
      {{2, 64, 64, 64}, {2, 64, 128, 128}},  // 2x up, 4 MiB of output: streamed when aligned
      {{2, 64, 32, 64}, {2, 64, 16, 32}},    // 2x down: the fused loop
      {{1, 96, 5, 7}, {1, 96, 9, 13}},
      {{1, 64, 40}, {1, 64, 80}},
      {{1, 64, 80}, {1, 64, 39}},
      {{1, 32, 3, 4, 5}, {1, 32, 5, 7, 9}},
      {{1, 32, 3, 4, 6}, {1, 32, 6, 8, 3}},
  };
  for (const Case& c : cases) {
    const int r = static_cast<int>(c.s.size()) - 2;
    SCOPED_TRACE(format_tag(MemoryFormat::kChannelsLast, r) + " " + std::to_string(c.s[r + 1]) +
                 " -> " + std::to_string(c.d[r + 1]));
    const auto s = md(DType::kBFloat16, c.s, MemoryFormat::kChannelsLast);
    const auto d = md(DType::kBFloat16, c.d, MemoryFormat::kChannelsLast);
    if (!accepts("resample.channels_vector16", ResampleAlgorithm::kLinear, s, d)) continue;
    const size_t ns = static_cast<size_t>(*s.buffer_elements());
    const size_t nd = static_cast<size_t>(*d.buffer_elements());
    auto* x = static_cast<bfloat16*>(std::aligned_alloc(64, (ns * 2 + 63) / 64 * 64));
    for (size_t i = 0; i < ns; ++i) {
      x[i] = f32_to_bf16(val(rng));
      // NaN (quiet and with a payload), infinities, subnormals and signed zeros.
      if (i % 97 == 0) x[i].bits = specials[(i / 97) % 8];
    }
    std::vector<std::vector<uint16_t>> outs;
    for (const char* impl : {"resample.channels_vector16", "resample.generic"}) {
      ResampleDesc desc;
      desc.algorithm = ResampleAlgorithm::kLinear;
      desc.impl = impl;
      auto plan = make_resample_plan(desc, s, d);
      ASSERT_TRUE(plan.ok()) << impl << ": " << plan.status().to_string();
      auto* y = static_cast<bfloat16*>(std::aligned_alloc(64, (nd * 2 + 63) / 64 * 64));
      const bool ok = plan->forward(x, y).ok();
      std::vector<uint16_t> bits(nd);
      for (size_t i = 0; i < nd; ++i) bits[i] = y[i].bits;
      std::free(y);
      ASSERT_TRUE(ok) << impl;
      outs.push_back(std::move(bits));
    }
    std::free(x);
    const size_t first = first_difference(outs[0], outs[1]);
    EXPECT_EQ(first, nd) << "first differing element " << first << ": channels_vector16 0x" << std::hex
                         << (first < nd ? outs[0][first] : 0) << ", generic 0x"
                         << (first < nd ? outs[1][first] : 0);
  }
}

// resample.channels_bf16 (bfloat16 linear forward, both tensors channels-last with C a
// multiple of 16 or both blocked by 16, AVX512_BF16 CPUs): the same bits as
// resample.channels_vector16, whose arithmetic it repeats with other conversion
// instructions and loops, on W downsamplings (exact 2x and others: its direct loop) and on
// W upsamplings, equal sizes and downsamplings by less than 2 (its column cache: exact 2x
// and 3x up, arbitrary ratios, taps repeated at the edges), ranks 1-3, odd sizes, C not a
// multiple of 16 (blocked: padded lanes hold NaN on input and must come out +0), channel
// counts that leave strips of 64, 32 and 16 channels, NaN payloads, infinities, subnormal
// inputs and results (the conversion instruction flushes float32 subnormals, so those pairs
// take the integer rounding); also within the linear bound of "ref" (check_problem) and,
// for 4 and 16 MiB 64-byte aligned outputs, streamed.
TEST(ResampleDiff, BFloat16PathMatchesChannelVectors) {
  GRIDOPS_SKIP_WITHOUT_HWY();
  const uint64_t seed = testing::test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed + 85);
  std::uniform_int_distribution<int> pick(0, 1 << 30);
  auto uni = [&](int lo, int hi) { return lo + pick(rng) % (hi - lo + 1); };
  std::uniform_real_distribution<float> val(-2.0f, 2.0f);
  const uint16_t specials[] = {0x7FC0, 0xFFC1, 0x7F81, 0x7F80, 0xFF80, 0x0001,
                               0x8003, 0x007F, 0x0000, 0x8000};
  const std::string lacks = host_lacks("resample.channels_bf16");
  if (!lacks.empty()) GTEST_SKIP() << "resample.channels_bf16 cannot run here: " << lacks;
  Stats stats;
  int taken = 0;
  auto one = [&](const Dims& sd, const Dims& dd, MemoryFormat f, int data_kind, bool big) {
    const int r = static_cast<int>(sd.size()) - 2;
    const auto s = md(DType::kBFloat16, sd, f), d = md(DType::kBFloat16, dd, f);
    SCOPED_TRACE(dims_to_string(sd) + " -> " + dims_to_string(dd) + " " + format_tag(f, r) +
                 " data " + std::to_string(data_kind));
    if (!accepts("resample.channels_bf16", ResampleAlgorithm::kLinear, s, d)) {
      // Only the host (the CPU, the cap) may keep this path from these problems.
      ResampleDesc desc;
      desc.algorithm = ResampleAlgorithm::kLinear;
      desc.impl = "resample.channels_bf16";
      ADD_FAILURE() << "resample.channels_bf16 declines: "
                    << make_resample_plan(desc, s, d).status().to_string();
      return;
    }
    ++taken;
    const std::vector<char> cov = covered(s);
    const size_t ns = cov.size();
    const size_t nd = static_cast<size_t>(*d.buffer_elements());
    auto* x = static_cast<bfloat16*>(std::aligned_alloc(64, (ns * 2 + 63) / 64 * 64 + 64));
    for (size_t i = 0; i < ns; ++i) {
      float v = val(rng);
      if (data_kind == 1) v = std::ldexp(v, -128);  // many float32 subnormal results
      x[i] = f32_to_bf16(v);
      if (data_kind == 2 && i % 89 == 0) x[i].bits = specials[(i / 89) % 10];
      if (!cov[i]) x[i].bits = 0x7FC1;  // padded channels: must be ignored
    }
    // Aligned (streams when 4 MiB or more) and offset by one element (never streams).
    std::vector<std::vector<uint16_t>> outs;
    for (const char* impl : {"resample.channels_bf16", "resample.channels_vector16"}) {
      for (int offset : {0, 1}) {
        if (!big && offset == 1) continue;
        ResampleDesc desc;
        desc.algorithm = ResampleAlgorithm::kLinear;
        desc.impl = impl;
        auto plan = make_resample_plan(desc, s, d);
        ASSERT_TRUE(plan.ok()) << impl << ": " << plan.status().to_string();
        auto* y = static_cast<bfloat16*>(std::aligned_alloc(64, (nd * 2 + 63) / 64 * 64 + 64));
        for (size_t i = 0; i < nd + 1; ++i) y[i].bits = 0x1234;  // poison
        const bool ok = plan->forward(x, y + offset).ok();
        std::vector<uint16_t> bits(nd);
        for (size_t i = 0; i < nd; ++i) bits[i] = y[offset + i].bits;
        std::free(y);
        ASSERT_TRUE(ok) << impl;
        outs.push_back(std::move(bits));
      }
    }
    std::free(x);
    for (size_t k = 1; k < outs.size(); ++k) {
      const size_t first = first_difference(outs[0], outs[k]);
      EXPECT_EQ(first, nd) << "run " << k << ": first differing element " << first
                           << ": channels_bf16 0x" << std::hex
                           << (first < nd ? outs[0][first] : 0) << ", other 0x"
                           << (first < nd ? outs[k][first] : 0);
    }
    // Against the reference, within the stated bound (random data of its own).
    if (!big && data_kind == 0) {
      check_problem("resample.channels_bf16", taken, DType::kBFloat16, ResampleAlgorithm::kLinear,
                    sd, f, dd, f, rng, &stats);
    }
  };
  static const int64_t kClChannels[] = {16, 32, 48, 64, 80, 96, 128};
  static const int64_t kBlockedChannels[] = {1, 5, 16, 20, 33, 48, 64};
  for (int it = 0; it < 240; ++it) {
    const int r = 1 + it % 3;
    const bool cl = (it / 3) % 2 == 0;
    const bool down = (it / 6) % 2 == 0;  // W: the direct loop; else the column cache
    const MemoryFormat f = cl ? MemoryFormat::kChannelsLast : MemoryFormat::kBlocked16;
    Dims sd = {uni(1, 2), cl ? kClChannels[uni(0, 6)] : kBlockedChannels[uni(0, 6)]};
    Dims dd = sd;
    for (int k = 0; k < r; ++k) {
      const bool last = k == r - 1;
      int64_t in = last ? uni(2, r == 3 ? 24 : 61) : uni(1, r == 3 ? 5 : 9);
      int64_t out;
      if (last && !down) {
        in = uni(1, r == 3 ? 12 : 30);
        switch (uni(0, 4)) {
          case 0: out = 2 * in; break;  // exact 2x (0.25 / 0.75 weights)
          case 1: out = 3 * in; break;
          case 2: out = in; break;
          case 3: out = uni(static_cast<int>(in / 2) + 1, static_cast<int>(in)); break;
          default: out = uni(static_cast<int>(in) + 1, static_cast<int>(4 * in) + 1); break;
        }
      } else if (last) {
        switch (uni(0, 3)) {
          case 0: in += in % 2; out = in / 2; break;        // exact 2x (0.5 / 0.5 weights)
          case 1: out = in / 2; break;                       // odd sizes: floor(I / 2)
          case 2: out = std::max<int64_t>(1, in / 3); break;
          default: out = uni(1, static_cast<int>(in / 2)); break;
        }
      } else {
        switch (uni(0, 3)) {
          case 0: out = std::max<int64_t>(1, in / 2); break;
          case 1: out = in * 2; break;
          case 2: out = in; break;
          default: out = uni(1, 12); break;
        }
      }
      sd.push_back(in);
      dd.push_back(out);
    }
    // The data kind changes every 12 problems, so that every (rank, layout, W loop)
    // combination, which repeats every 12, meets each kind.
    const int kind = (it / 12) % 4;
    one(sd, dd, f, kind == 1 ? 1 : (kind == 2 ? 2 : 0), false);
    if (::testing::Test::HasFatalFailure()) return;
  }
  // Exact 2x both ways with W5c's and W5a's shapes, 4 and 16 MiB of output: streamed when
  // aligned; odd output widths (blocked: a last pixel stored alone).
  for (MemoryFormat f : {MemoryFormat::kChannelsLast, MemoryFormat::kBlocked16}) {
    one({1, 48, 34, 98}, {1, 48, 17, 49}, f, 2, false);
    one({1, 80, 9, 13}, {1, 80, 18, 27}, f, 2, false);
    one({8, 64, 128, 128}, {8, 64, 64, 64}, f, 2, true);
    one({8, 64, 64, 64}, {8, 64, 128, 128}, f, 2, true);
    if (::testing::Test::HasFatalFailure()) return;
  }
  EXPECT_GT(taken, 0);
  std::printf("[ resample.channels_bf16 ] %d problems taken, worst error / bound %.3g\n", taken,
              stats.worst_ratio);
}

#ifdef GRIDOPS_HAVE_HWY
// resample.channels_vector16's float32 linear forward with 1 or 2 spatial axes computes
// each output directly from the outer interpolation at its W taps (NOTE [ Resample direct
// linear forward ]); the test-only entry resample.channels_vector16_scratch_row fills its
// scratch row first (ResampleFastTables::direct_linear). The
// two must give the same bits: W up by 2 and 3, equal widths, arbitrary up and down,
// down by 2 and more; channels-last (C a multiple of 16: one flat group when there are
// enough tasks) and blocked by 16 (C not a multiple of 16 too: the full groups direct, the
// partial one through the row); 1 and 2 threads; NaN payloads, infinities and subnormals;
// 64-byte aligned (streamed from 4 MiB) and offset by one element. Also within the linear
// bound of "ref" (check_problem).
TEST(ResampleDiff, DirectLinearForwardMatchesScratchRow) {
  GRIDOPS_SKIP_WITHOUT_HWY();
  const uint64_t seed = testing::test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed + 87);
  std::uniform_int_distribution<int> pick(0, 1 << 30);
  auto uni = [&](int lo, int hi) { return lo + pick(rng) % (hi - lo + 1); };
  std::uniform_real_distribution<float> val(-2.0f, 2.0f);
  const uint32_t specials[] = {0x7FC00000, 0xFFC00123, 0x7F800000, 0xFF800000,
                               0x00000001, 0x80000003, 0x00000000, 0x80000000};
  const int threads_before = get_num_threads();
  Stats stats;
  int taken = 0;
  auto one = [&](const Dims& sd, const Dims& dd, MemoryFormat f, bool specials_in, bool big) {
    const int r = static_cast<int>(sd.size()) - 2;
    const auto s = md(DType::kFloat32, sd, f), d = md(DType::kFloat32, dd, f);
    SCOPED_TRACE(dims_to_string(sd) + " -> " + dims_to_string(dd) + " " + format_tag(f, r));
    ASSERT_TRUE(accepts("resample.channels_vector16", ResampleAlgorithm::kLinear, s, d));
    ++taken;
    const std::vector<char> cov = covered(s);
    const size_t ns = cov.size();
    const size_t nd = static_cast<size_t>(*d.buffer_elements());
    auto* x = static_cast<float*>(std::aligned_alloc(64, (ns * 4 + 63) / 64 * 64));
    for (size_t i = 0; i < ns; ++i) {
      x[i] = val(rng);
      if (specials_in && i % 89 == 0) x[i] = std::bit_cast<float>(specials[(i / 89) % 8]);
      if (!cov[i]) x[i] = std::bit_cast<float>(uint32_t{0x7FC00001});  // padding: ignored
    }
    ResampleDesc desc;
    desc.algorithm = ResampleAlgorithm::kLinear;
    desc.impl = "resample.channels_vector16";
    auto plan = make_resample_plan(desc, s, d);
    ASSERT_TRUE(plan.ok()) << plan.status().to_string();
    desc.impl = "resample.channels_vector16_scratch_row";
    auto scratch_plan = make_resample_plan(desc, s, d);
    ASSERT_TRUE(scratch_plan.ok()) << scratch_plan.status().to_string();
    std::vector<std::vector<uint32_t>> outs;
    for (bool scratch : {false, true}) {
      for (int threads : {1, 2}) {
        for (int offset : {0, 1}) {
          if (!big && (offset == 1 || threads == 2)) continue;
          auto* y = static_cast<float*>(std::aligned_alloc(64, (nd * 4 + 63) / 64 * 64 + 64));
          for (size_t i = 0; i < nd + 1; ++i) y[i] = 123.0f;  // poison
          set_num_threads(threads);
          const bool ok = (scratch ? *scratch_plan : *plan).forward(x, y + offset).ok();
          set_num_threads(threads_before);
          std::vector<uint32_t> bits(nd);
          std::memcpy(bits.data(), y + offset, nd * 4);
          std::free(y);
          ASSERT_TRUE(ok);
          outs.push_back(std::move(bits));
        }
      }
    }
    std::free(x);
    for (size_t k = 1; k < outs.size(); ++k) {
      const size_t first = first_difference(outs[0], outs[k]);
      EXPECT_EQ(first, nd) << "run " << k << " (scratch row from run " << outs.size() / 2
                           << "): first differing element " << first << ": direct 0x"
                           << std::hex << (first < nd ? outs[0][first] : 0) << ", other 0x"
                           << (first < nd ? outs[k][first] : 0);
    }
    if (!big && !specials_in) {
      check_problem("resample.channels_vector16", taken, DType::kFloat32,
                    ResampleAlgorithm::kLinear, sd, f, dd, f, rng, &stats);
    }
  };
  static const int64_t kClChannels[] = {16, 32, 48, 64, 80, 128};
  static const int64_t kBlockedChannels[] = {5, 16, 20, 33, 48, 64};
  for (int it = 0; it < 120; ++it) {
    const int r = 1 + it % 2;
    const bool cl = (it / 2) % 2 == 0;
    const MemoryFormat f = cl ? MemoryFormat::kChannelsLast : MemoryFormat::kBlocked16;
    Dims sd = {uni(1, 3), cl ? kClChannels[uni(0, 5)] : kBlockedChannels[uni(0, 5)]};
    Dims dd = sd;
    if (r == 2) {
      const int64_t h = uni(1, 9);
      sd.push_back(h);
      dd.push_back(uni(0, 2) == 0 ? h : uni(1, 18));
    }
    const int64_t in = uni(1, 60);
    int64_t out;
    switch (uni(0, 5)) {
      case 0: out = 2 * in; break;
      case 1: out = 3 * in; break;
      case 2: out = in; break;
      case 3: out = uni(1, 4 * static_cast<int>(in) + 1); break;
      case 4: out = std::max<int64_t>(1, in / 2); break;
      default: out = std::max<int64_t>(1, in / uni(2, 5)); break;
    }
    sd.push_back(in);
    dd.push_back(out);
    one(sd, dd, f, (it / 4) % 3 == 2, false);
    if (::testing::Test::HasFatalFailure()) return;
  }
  // W5a's shape (32 MiB of output, streamed when aligned) and a long 1-D row (one flat
  // group where the scratch row would have split the channels).
  for (MemoryFormat f : {MemoryFormat::kChannelsLast, MemoryFormat::kBlocked16}) {
    one({8, 64, 64, 64}, {8, 64, 128, 128}, f, true, true);
    one({8, 64, 2048}, {8, 64, 4095}, f, true, true);
    if (::testing::Test::HasFatalFailure()) return;
  }
  std::printf("[ direct linear forward ] %d problems taken, worst error / bound %.3g\n", taken,
              stats.worst_ratio);
}
#endif

// The channels-last nearest forward streams only when input and output together take
// 32 MiB or more (NOTE [ Nearest forward store policy ]); below that it copies pixels with
// ordinary stores (LargeAlignedOutputsUseStreamingStores covers that case). Here 8 MiB in
// and 32 MiB out, float32, 2x up: the streamed (64-byte aligned) output must hold the same
// bits as the unaligned, unstreamed run, and be the source's pixels.
TEST(ResampleDiff, LargeWorkingSetNearestChannelsLastStreams) {
  GRIDOPS_SKIP_WITHOUT_HWY();
  const Dims sd = {2, 64, 128, 128}, dd = {2, 64, 256, 256};
  const auto s = md(DType::kFloat32, sd, MemoryFormat::kChannelsLast);
  const auto d = md(DType::kFloat32, dd, MemoryFormat::kChannelsLast);
  const size_t ns = static_cast<size_t>(*s.buffer_elements());
  const size_t nd = static_cast<size_t>(*d.buffer_elements());
  ResampleDesc desc;
  desc.algorithm = ResampleAlgorithm::kNearest;
  desc.impl = "resample.channels_vector16";
  auto plan = make_resample_plan(desc, s, d);
  ASSERT_TRUE(plan.ok()) << plan.status().to_string();
  auto* xa = static_cast<float*>(std::aligned_alloc(64, ns * sizeof(float)));
  auto* ya = static_cast<float*>(std::aligned_alloc(64, nd * sizeof(float)));
  for (size_t i = 0; i < ns; ++i) xa[i] = static_cast<float>(i % 1000003) * 0.5f;
  std::vector<float> xu(ns + 1), yu(nd + 1);
  std::memcpy(xu.data() + 1, xa, ns * sizeof(float));
  const bool ok_a = plan->forward(xa, ya).ok();
  const bool ok_u = plan->forward(xu.data() + 1, yu.data() + 1).ok();
  const int cmp = std::memcmp(ya, yu.data() + 1, nd * sizeof(float));
  // Nearest 2x up: output pixel (n, oh, ow) is input pixel (n, oh / 2, ow / 2).
  size_t bad = nd;
  const int64_t C = 64, OH = 256, OW = 256, IH = 128, IW = 128;
  for (int64_t n = 0; n < 2 && bad == nd; ++n) {
    for (int64_t oh = 0; oh < OH && bad == nd; ++oh) {
      for (int64_t ow = 0; ow < OW && bad == nd; ++ow) {
        const float* src = xa + ((n * IH + oh / 2) * IW + ow / 2) * C;
        const size_t o = static_cast<size_t>(((n * OH + oh) * OW + ow) * C);
        if (std::memcmp(ya + o, src, C * sizeof(float)) != 0) bad = o;
      }
    }
  }
  std::free(xa);
  std::free(ya);
  ASSERT_TRUE(ok_a);
  ASSERT_TRUE(ok_u);
  EXPECT_EQ(cmp, 0);
  EXPECT_EQ(bad, nd) << "first wrong pixel at element " << bad;
}

TEST(ResampleDiff, NonFiniteValuesPropagateLikeRef) {
  GRIDOPS_SKIP_WITHOUT_HWY();
  for (const std::string& impl : fast_impls()) {
    for (MemoryFormat f : kFormats) {
      const auto s = md(DType::kFloat32, {1, 3, 4, 5}, f);
      const auto d = md(DType::kFloat32, {1, 3, 8, 10}, f);
      if (!accepts(impl, ResampleAlgorithm::kLinear, s, d)) continue;
      std::vector<float> x(static_cast<size_t>(*s.buffer_elements()), 1.0f);
      x[s.offset(Dims{0, 1, 2, 3})] = INFINITY;
      x[s.offset(Dims{0, 2, 0, 0})] = NAN;
      for (ResampleAlgorithm a : {ResampleAlgorithm::kLinear, ResampleAlgorithm::kNearest}) {
        const auto got = run<float>(impl, a, s, d, x, false);
        const auto want = run<float>("ref", a, s, d, x, false);
        for (size_t i = 0; i < got.size(); ++i) {
          ASSERT_EQ(std::isnan(got[i]), std::isnan(want[i])) << i;
          if (!std::isnan(got[i])) {
            ASSERT_EQ(got[i], want[i]) << i;
          }
        }
      }
      // Nearest backward: sums of ones are exact, so every element matches, infinities and
      // NaN included (+inf and -inf meeting in one sum give NaN).
      std::vector<float> gy(static_cast<size_t>(*d.buffer_elements()), 1.0f);
      gy[d.offset(Dims{0, 1, 4, 6})] = INFINITY;
      gy[d.offset(Dims{0, 1, 4, 7})] = -INFINITY;
      gy[d.offset(Dims{0, 0, 2, 2})] = INFINITY;
      gy[d.offset(Dims{0, 2, 7, 9})] = NAN;
      const auto got = run<float>(impl, ResampleAlgorithm::kNearest, s, d, gy, true);
      const auto want = run<float>("ref", ResampleAlgorithm::kNearest, s, d, gy, true);
      int nonfinite = 0;
      for (size_t i = 0; i < got.size(); ++i) {
        ASSERT_EQ(std::isnan(got[i]), std::isnan(want[i])) << i;
        if (!std::isnan(got[i])) {
          ASSERT_EQ(got[i], want[i]) << i;
        }
        nonfinite += std::isfinite(want[i]) ? 0 : 1;
      }
      EXPECT_EQ(nonfinite, 3);
    }
  }
}

// Nearest backward into a diff_src of 4 MiB and more from 64-byte aligned buffers takes the
// non-temporal stores of the channel-vector path: the same bits as the unaligned run.
TEST(ResampleDiff, LargeAlignedNearestBackwardStreams) {
  GRIDOPS_SKIP_WITHOUT_HWY();
  const uint64_t seed = testing::test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed + 81);
  std::uniform_real_distribution<float> val(-2.0f, 2.0f);
  const Dims sd = {2, 32, 128, 128}, dd = {2, 32, 256, 256};  // 4 MiB of float32 diff_src
  for (const std::string& impl : fast_impls()) {
    for (MemoryFormat f : {MemoryFormat::kChannelsLast, MemoryFormat::kBlocked16}) {
      SCOPED_TRACE(impl + " " + format_tag(f, 2));
      const auto s = md(DType::kFloat32, sd, f), d = md(DType::kFloat32, dd, f);
      if (!accepts(impl, ResampleAlgorithm::kNearest, s, d)) continue;
      const size_t ns = static_cast<size_t>(*s.buffer_elements());
      const size_t nd = static_cast<size_t>(*d.buffer_elements());
      std::vector<float> gy(nd);
      for (auto& v : gy) v = val(rng);
      ResampleDesc desc;
      desc.algorithm = ResampleAlgorithm::kNearest;
      desc.impl = impl;
      auto plan = make_resample_plan(desc, s, d);
      ASSERT_TRUE(plan.ok());
      std::vector<float> gu(nd + 1), xu(ns + 1);
      std::memcpy(gu.data() + 1, gy.data(), nd * sizeof(float));
      ASSERT_TRUE(plan->backward(gu.data() + 1, xu.data() + 1).ok());
      float* ga = static_cast<float*>(std::aligned_alloc(64, (nd * 4 + 63) / 64 * 64));
      float* xa = static_cast<float*>(std::aligned_alloc(64, (ns * 4 + 63) / 64 * 64));
      std::memcpy(ga, gy.data(), nd * sizeof(float));
      const bool ok = plan->backward(ga, xa).ok();
      const int cmp = std::memcmp(xa, xu.data() + 1, ns * sizeof(float));
      std::vector<float> got(xa, xa + ns);
      std::free(ga);
      std::free(xa);
      ASSERT_TRUE(ok);
      EXPECT_EQ(cmp, 0);
      // And within the nearest backward bound of ref (4 terms each, 2x up on both axes).
      const auto want = run<float>("ref", ResampleAlgorithm::kNearest, s, d, gy, true);
      std::vector<float> gabs(nd);
      for (size_t i = 0; i < nd; ++i) gabs[i] = std::fabs(gy[i]);
      const auto sum_abs = run<float>("ref", ResampleAlgorithm::kNearest, s, d, gabs, true);
      for (size_t i = 0; i < ns; ++i) {
        ASSERT_LE(std::fabs(static_cast<double>(got[i]) - want[i]),
                  nearest_bwd_bound(false, 4.0, sum_abs[i]))
            << "buffer element " << i << ": got " << got[i] << ", ref " << want[i];
      }
    }
  }
}


}  // namespace
}  // namespace gridops
