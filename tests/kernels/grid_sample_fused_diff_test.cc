// GridSample differential tests of the fused small-channel path's pieces: the pair gather,
// channels-last, the image end and tap reuse (helpers in grid_sample_diff_util.h).
#include "kernels/grid_sample_diff_util.h"

#include <cstdlib>

namespace gridops {
namespace {


#ifdef GRIDOPS_HAVE_HWY
// The fused path's result with GatherPairsPortable in place of the AVX-512 pair gather
// (NOTE [ GridSample pair gather ]): its test-only twin, forced by name.
Tensor run_portable_pairs(const Problem& p, const std::string& impl, const TensorView& src,
                          const TensorView& grid) {
  return run_impl(p, impl + "_portable_pairs", src, grid);
}
#endif

// NOTE [ GridSample pair gather ] (grid_sample_fused_small_c_hwy.cc): the portable pair
// gather against a scalar read on every Highway target this CPU runs, and against the
// AVX-512 form where the target has it; bits are copied unchanged (NaN payloads, signed
// zeros, subnormals); offsets anywhere in the plane, repeated, and at its last pair.
TEST(GridSampleDiff, PairGatherPortableMatchesIntrinsic) {
#ifdef GRIDOPS_HAVE_HWY
  std::mt19937_64 rng(testing::test_seed() + 9);
  float plane[67];
  int32_t o[16];
  float want[32], portable[32], intrinsic[32];
  const uint32_t specials[] = {0x7fc00001u, 0x7f800001u, 0xffbfffffu, 0x80000000u, 0x00000001u,
                               0x7f800000u};
  int portable_targets = 0, intrinsic_targets = 0, avx512_targets = 0;
  for (const int64_t target : testing::hwy_targets()) {
    SCOPED_TRACE("Highway target " + testing::hwy_target_name(target));
    testing::ScopedHwyTarget only(target);
    if (testing::hwy_target_name(target).rfind("AVX3", 0) == 0) ++avx512_targets;
    for (int round = 0; round < 6; ++round) {
      for (int i = 0; i < 67; ++i) {
        uint32_t bits = static_cast<uint32_t>(rng());
        if (i % 11 == round) bits = specials[static_cast<size_t>(i + round) % 6];
        std::memcpy(&plane[i], &bits, 4);
      }
      for (int i = 0; i < 16; ++i) {
        o[i] = i == round ? 65 : static_cast<int32_t>(rng() % 66);  // 65: the last pair
        if (i == 7) o[i] = o[3];
        want[2 * i] = plane[o[i]];
        want[2 * i + 1] = plane[o[i] + 1];
      }
      std::memset(portable, 0, sizeof(portable));
      if (kernels::grid_sample_gather_pairs16(true, plane, o, portable)) {
        ++portable_targets;
        EXPECT_EQ(0, std::memcmp(portable, want, sizeof(want))) << "portable, round " << round;
      }
      std::memset(intrinsic, 0, sizeof(intrinsic));
      if (kernels::grid_sample_gather_pairs16(false, plane, o, intrinsic)) {
        ++intrinsic_targets;
        EXPECT_EQ(0, std::memcmp(intrinsic, want, sizeof(want))) << "intrinsic, round " << round;
      }
      // NOTE [ GridSample tap loads ]: pairs and floats by scalar loads, the raw helpers and
      // their portable forms.
      float want_floats[16];
      for (int i = 0; i < 16; ++i) want_floats[i] = plane[o[i]];
      for (const bool portable_loads : {false, true}) {
        float loaded[32] = {}, floats[16] = {};
        const bool has_loads =
            kernels::grid_sample_load_taps16(portable_loads, plane, o, loaded, floats);
        EXPECT_EQ(has_loads, kernels::grid_sample_target_has_pairs());
        if (!has_loads) continue;
        EXPECT_EQ(0, std::memcmp(loaded, want, sizeof(want)))
            << "tap loads (portable " << portable_loads << "), round " << round;
        EXPECT_EQ(0, std::memcmp(floats, want_floats, sizeof(floats)))
            << "float tap loads (portable " << portable_loads << "), round " << round;
      }
    }
  }
  // The raw form exists exactly on the AVX-512 targets (6 rounds each).
  EXPECT_EQ(intrinsic_targets, 6 * avx512_targets);
  if (portable_targets == 0) {
    const std::vector<int64_t> targets = testing::hwy_targets();
    ASSERT_TRUE(targets.size() == 1 && testing::hwy_target_name(targets[0]) == "SCALAR")
        << "a vector target ran no portable pair gather";
    GTEST_SKIP() << "the only Highway target here is SCALAR (one lane, no pairs): the CPU or "
                    "GRIDOPS_MAX_ISA=scalar";
  }
#else
  GTEST_SKIP() << "built without Highway: only the reference exists";
#endif
}

// NOTE [ GridSample tap loads ] (grid_sample_fused_gathers_hwy-inl.h): with the host fact
// forced each way (kernels::set_slow_gathers_override), plans of the fused path read their
// taps (channels-last, cubic) by scalar loads or by gathers, and say which in the dispatch
// log; both give the same bits as each other and as the portable twin, within the
// tolerance of ref. Every mode,
// padding, both layouts, 1-4 channels, an image of fewer floats than a vector and one
// whose last pixels are read (the grid's range covers the edges), on every Highway target
// this CPU runs (the loads exist on x86 AVX2 and up; elsewhere both plans gather).
TEST(GridSampleDiff, FusedTapLoads) {
#ifdef GRIDOPS_HAVE_HWY
  const RestoreSlowGathers restore;
  std::mt19937_64 rng(testing::test_seed() + 12);
  const std::string impl = "grid_sample.fused_small_c";
  int compared = 0;
  for (const int64_t target : testing::hwy_targets()) {
    SCOPED_TRACE("Highway target " + testing::hwy_target_name(target));
    testing::ScopedHwyTarget only(target);
    const bool loads_here = kernels::grid_sample_target_has_pairs();
    for (int i = 0; i < 48; ++i) {
      Problem p;
      set_cycled_attributes(p.desc, i);
      p.desc.layout = (i / 4) % 2 ? ChannelLayout::kChannelsLast : ChannelLayout::kChannelsFirst;
      const int64_t c = 1 + (i / 8) % 4;
      const bool tiny = i % 5 == 4;  // 2 x 4 pixels
      const int64_t h = tiny ? 2 : 23, w = tiny ? 4 : 41;
      p.src_shape = p.desc.layout == ChannelLayout::kChannelsLast ? Dims{1 + i % 2, h, w, c}
                                                                  : Dims{1 + i % 2, c, h, w};
      p.grid_shape = {1 + i % 2, tiny ? 5 : 19, tiny ? 7 : 70, 2};
      SCOPED_TRACE("problem " + std::to_string(i) + ": " + describe(p));
      if (declines(p, impl)) continue;
      Tensor src(DType::kFloat32, p.src_shape), grid(DType::kFloat32, p.grid_shape);
      testing::fill_random(src, rng, -1.0, 1.0);
      fill_grid(grid, rng, p);
      Tensor out[2];
      for (int slow = 0; slow < 2; ++slow) {
        kernels::set_slow_gathers_override(slow);
        const bool logged = i < 12;  // both layouts, every mode
        if (logged) {
          ASSERT_EQ(setenv("GRIDOPS_VERBOSE", "dispatch", 1), 0);
          ::testing::internal::CaptureStderr();
        }
        out[slow] = run_impl(p, impl, src.view(), grid.view());
        if (logged) {
          const std::string log = ::testing::internal::GetCapturedStderr();
          unsetenv("GRIDOPS_VERBOSE");
          // Channels-last and cubic only (grid_sample_fast_prepare).
          const bool loads = slow == 1 && loads_here &&
                             (p.desc.layout == ChannelLayout::kChannelsLast ||
                              p.desc.mode == IM::kCubic);
          EXPECT_NE(log.find(std::string(", taps=") + (loads ? "loads)" : "gathers)")),
                    std::string::npos)
              << "slow gathers " << slow << ": " << log;
        }
      }
      kernels::set_slow_gathers_override(-1);
      int64_t where = -1;
      EXPECT_TRUE(testing::bitwise_equal(out[0], out[1], &where))
          << "tap gathers vs tap loads at " << where;
      const Tensor portable = run_portable_pairs(p, impl, src.view(), grid.view());
      EXPECT_TRUE(testing::bitwise_equal(out[1], portable, &where))
          << "tap loads vs portable pair gathers at " << where;
      const Tensor ref = run_impl(p, "ref", src.view(), grid.view());
      expect_close(p, ref, out[1], 1.0);
      ++compared;
      if (::testing::Test::HasFailure()) return;
    }
  }
  ASSERT_GT(compared, 0) << "the fused path took none of the problems";
#else
  GTEST_SKIP() << "built without Highway: only the reference exists";
#endif
}

// The fused path's channels-first linear/cubic with the portable pair gather in place of
// the AVX-512 one (NOTE [ GridSample pair gather ]): the same bits, and within the
// tolerance of ref; 1-4 channels, widths below and above a vector, every padding.
TEST(GridSampleDiff, FusedSmallChannelPathPortablePairGather) {
#ifdef GRIDOPS_HAVE_HWY
  if (!kernels::grid_sample_target_has_pairs()) {
    GTEST_SKIP() << "the CPU's Highway target has no pair gathers: no channels-first "
                    "linear/cubic on the fused path";
  }
  std::mt19937_64 rng(testing::test_seed() + 10);
  for (int i = 0; i < 12; ++i) {
    Problem p;
    p.desc.mode = i % 2 ? IM::kCubic : IM::kLinear;
    p.desc.padding = static_cast<GP>((i / 2) % 3);
    p.desc.fill_value = 0.0;
    p.desc.align_corners = (i / 6) % 2 == 1;
    const int64_t c = 1 + i % 4;
    p.src_shape = i % 3 ? Dims{1, c, 19, 37} : Dims{2, c, 5, 4};
    p.grid_shape = i % 3 ? Dims{1, 21, 35, 2} : Dims{2, 7, 9, 2};
    SCOPED_TRACE("problem " + std::to_string(i) + ": " + describe(p));
    Tensor src(DType::kFloat32, p.src_shape), grid(DType::kFloat32, p.grid_shape);
    testing::fill_random(src, rng, -1.0, 1.0);
    fill_grid(grid, rng, p);
    const std::string impl = "grid_sample.fused_small_c";
    if (declines(p, impl)) continue;
    const Tensor fast = run_impl(p, impl, src.view(), grid.view());
    const Tensor portable = run_portable_pairs(p, impl, src.view(), grid.view());
    int64_t where = -1;
    EXPECT_TRUE(testing::bitwise_equal(fast, portable, &where)) << "first difference at " << where;
    const Tensor ref = run_impl(p, "ref", src.view(), grid.view());
    expect_close(p, ref, portable, 1.0);
    if (::testing::Test::HasFailure()) return;
  }
#else
  GTEST_SKIP() << "built without Highway: only the reference exists";
#endif
}

// NOTE [ GridSample channels-last pair gather ] (grid_sample_fused_small_c_hwy.cc): the
// fused path reads a dense channels-last pixel row by pair gathers, AVX-512's and the
// portable one, and a pixel stride other than the channel count by float gathers. Every
// mode, 1-4 channels, widths at and above the tap count, every padding: the three reads
// give the same bits, the channels-first problem's bits, and stay within the tolerance of
// ref. The padded-pixel view (stride C + 1) has a poisoned extra channel (NaN), which a
// read past a pixel's channels would carry into dst. On every Highway target this CPU runs
// (AVX2: the portable pair gather only; SSE4: no pair gathers, the float gathers, and
// nearest only: the fused path declines channels-first linear/cubic there).
TEST(GridSampleDiff, FusedChannelsLastPairGather) {
#ifdef GRIDOPS_HAVE_HWY
  std::mt19937_64 rng(testing::test_seed() + 11);
  for (const int64_t target : testing::hwy_targets()) {
    SCOPED_TRACE("Highway target " + testing::hwy_target_name(target));
    testing::ScopedHwyTarget only(target);
    for (int i = 0; i < 36; ++i) {
      Problem p;
      set_cycled_attributes(p.desc, i);
      const int64_t c = 1 + (i / 2) % 4;
      const Dims in = i % 4 == 3 ? Dims{5, 4} : Dims{19, 37};
      p.src_shape = {1 + i % 2, c, in[0], in[1]};
      p.grid_shape = i % 4 == 3 ? Dims{1 + i % 2, 7, 9, 2} : Dims{1 + i % 2, 21, 35, 2};
      SCOPED_TRACE("problem " + std::to_string(i) + ": " + describe(p));
      Tensor src(DType::kFloat32, p.src_shape), grid(DType::kFloat32, p.grid_shape);
      testing::fill_random(src, rng, -1.0, 1.0);
      fill_grid(grid, rng, p);
      const std::string impl = "grid_sample.fused_small_c";
      if (declines(p, impl)) continue;
      const Tensor first = run_impl(p, impl, src.view(), grid.view());
      Problem q = p;
      q.desc.layout = ChannelLayout::kChannelsLast;
      const Tensor src_cl = to_channels_last(src);
      q.src_shape = src_cl.shape();
      // The same pixels with one more (NaN) channel after each: pixel stride c + 1.
      const Dims& sh = q.src_shape;
      Tensor padded(DType::kFloat32, {sh[0], sh[1], sh[2], c + 1});
      for (int64_t e = 0; e < padded.num_elements(); ++e) {
        const int64_t ch = e % (c + 1), px = e / (c + 1);
        static_cast<float*>(padded.data())[e] =
            ch < c ? static_cast<const float*>(src_cl.data())[px * c + ch]
                   : std::numeric_limits<float>::quiet_NaN();
      }
      const TensorView padded_view(DType::kFloat32, padded.data(), sh,
                                   {sh[1] * sh[2] * (c + 1), sh[2] * (c + 1), c + 1, 1});
      const Tensor pairs = run_impl(q, impl, src_cl.view(), grid.view());
      const Tensor portable = run_portable_pairs(q, impl, src_cl.view(), grid.view());
      const Tensor floats = run_impl(q, impl, padded_view, grid.view());
      int64_t where = -1;
      EXPECT_TRUE(testing::bitwise_equal(to_channels_last(first), pairs, &where))
          << "pair gathers vs channels-first at " << where;
      EXPECT_TRUE(testing::bitwise_equal(pairs, portable, &where))
          << "pair gathers vs portable pair gathers at " << where;
      EXPECT_TRUE(testing::bitwise_equal(pairs, floats, &where))
          << "pair gathers vs float gathers (pixel stride c + 1) at " << where;
      const Tensor ref = run_impl(q, "ref", src_cl.view(), grid.view());
      expect_close(q, ref, pairs, 1.0);
      if (::testing::Test::HasFailure()) return;
    }
  }
#else
  GTEST_SKIP() << "built without Highway: only the reference exists";
#endif
}

// NOTE [ GridSample channels-last pixel loads ]: channels-last nearest with 3 and 4
// channels reads each pixel by a 16-byte load on AVX-512 (on AVX2 with the tap loads: the
// host fact runs both ways), and a vector holding the image's
// last pixel (3 channels) or an image of fewer than 4 floats gathers instead. Here half of
// the points sit on the last pixel, the source is a std::vector of exactly the image's
// floats (so AddressSanitizer sees a load past its end), and every Highway target must
// give the reference's bits; widths from a vector's lanes down to one point.
TEST(GridSampleDiff, FusedChannelsLastPixelLoadsAtTheImageEnd) {
#ifdef GRIDOPS_HAVE_HWY
  const RestoreSlowGathers restore;
  std::mt19937_64 rng(testing::test_seed() + 14);
  std::uniform_real_distribution<float> uni(-1.0f, 1.0f);
  for (const int64_t target : testing::hwy_targets()) {
    SCOPED_TRACE("Highway target " + testing::hwy_target_name(target));
    testing::ScopedHwyTarget only(target);
    for (int i = 0; i < 12; ++i) {
      Problem p;
      p.desc.mode = IM::kNearest;
      p.desc.padding = static_cast<GP>(i % 3);
      p.desc.fill_value = 0.0;
      p.desc.align_corners = (i / 3) % 2 == 1;
      p.desc.layout = ChannelLayout::kChannelsLast;
      const int64_t c = 3 + (i / 6) % 2;
      const Dims hw = i % 3 == 0 ? Dims{1, 1} : i % 3 == 1 ? Dims{2, 3} : Dims{5, 7};
      const int64_t ow = i % 2 == 0 ? 37 : 1;
      p.src_shape = {1, hw[0], hw[1], c};
      p.grid_shape = {1, 3, ow, 2};
      SCOPED_TRACE("problem " + std::to_string(i) + ": " + describe(p));
      std::vector<float> src(static_cast<size_t>(hw[0] * hw[1] * c));
      for (float& v : src) v = uni(rng);
      const TensorView src_view(DType::kFloat32, src.data(), p.src_shape,
                                {hw[0] * hw[1] * c, hw[1] * c, c, 1});
      // The last pixel's centre: x = 1 - 1 / W (align_corners: 1), the same for y.
      const float lx = p.desc.align_corners ? 1.0f : 1.0f - 1.0f / static_cast<float>(hw[1]);
      const float ly = p.desc.align_corners ? 1.0f : 1.0f - 1.0f / static_cast<float>(hw[0]);
      Tensor grid(DType::kFloat32, p.grid_shape);
      auto* g = static_cast<float*>(grid.data());
      for (int64_t k = 0; k < grid.num_elements() / 2; ++k) {
        const bool last = rng() % 2 == 0;
        g[2 * k] = last ? lx : uni(rng);
        g[2 * k + 1] = last ? ly : uni(rng);
      }
      const std::string impl = "grid_sample.fused_small_c";
      if (declines(p, impl)) continue;
      const Tensor ref = run_impl(p, "ref", src_view, grid.view());
      // With the host fact each way: AVX2 takes the pixel loads only with tap_loads (NOTE
      // [ GridSample tap loads ]).
      for (int slow = 0; slow < 2; ++slow) {
        SCOPED_TRACE("slow gathers " + std::to_string(slow));
        kernels::set_slow_gathers_override(slow);
        const Tensor fast = run_impl(p, impl, src_view, grid.view());
        kernels::set_slow_gathers_override(-1);
        int64_t where = -1;
        EXPECT_TRUE(testing::bitwise_equal(fast, ref, &where)) << "first difference at " << where;
      }
      if (::testing::Test::HasFailure()) return;
    }
  }
#else
  GTEST_SKIP() << "built without Highway: only the reference exists";
#endif
}

// NOTE [ GridSample nearest tap reuse ]: rows of many whole tiles (333 and 1000 points:
// chains of 4 and 14 tiles that each take the previous tile's offsets), on smooth warps
// (points leaving the source, some NaN) and random grids, every padding, 1-4 channels,
// both layouts, every Highway target: the same bits as the reference, as the per-block
// path (the grid through a strided view) and on 1 vs 2 threads (a thread's last tile keeps
// nothing, the next thread's first computes its own).
TEST(GridSampleDiff, FusedNearestTapReuse) {
#ifdef GRIDOPS_HAVE_HWY
  std::mt19937_64 rng(testing::test_seed() + 12);
  for (const int64_t target : testing::hwy_targets()) {
    SCOPED_TRACE("Highway target " + testing::hwy_target_name(target));
    testing::ScopedHwyTarget only(target);
    for (int i = 0; i < 16; ++i) {
      Problem p;
      p.desc.mode = IM::kNearest;
      p.desc.padding = static_cast<GP>(i % 3);
      p.desc.fill_value = 0.0;
      p.desc.align_corners = (i / 3) % 2 == 1;
      p.desc.layout = i % 2 == 0 ? ChannelLayout::kChannelsFirst : ChannelLayout::kChannelsLast;
      const int64_t c = 1 + (i / 2) % 4;
      const int64_t oh = i % 4 == 0 ? 3 : 17, ow = i % 4 == 0 ? 1000 : 333;
      const int64_t ih = 40, iw = 52;
      p.src_shape = p.desc.layout == ChannelLayout::kChannelsFirst ? Dims{1 + i % 2, c, ih, iw}
                                                                   : Dims{1 + i % 2, ih, iw, c};
      p.grid_shape = {1 + i % 2, oh, ow, 2};
      SCOPED_TRACE("problem " + std::to_string(i) + ": " + describe(p));
      Tensor src(DType::kFloat32, p.src_shape), grid(DType::kFloat32, p.grid_shape);
      testing::fill_random(src, rng, -1.0, 1.0);
      if (i % 4 == 3) {
        fill_grid(grid, rng, p);
      } else {
        // A rotated, slightly enlarged warp reaching past the source on every side.
        std::uniform_real_distribution<float> u01(0.0f, 1.0f);
        auto* g = static_cast<float*>(grid.data());
        for (int64_t e = 0; e < grid.num_elements() / 2; ++e) {
          const float x = static_cast<float>(e % ow) / static_cast<float>(ow - 1) * 2.2f - 1.1f;
          const float y = static_cast<float>((e / ow) % oh) / static_cast<float>(oh) * 2.2f - 1.1f;
          g[2 * e] = 0.98f * x - 0.17f * y;
          g[2 * e + 1] = 0.17f * x + 0.98f * y;
          if (u01(rng) < 0.01f) {
            g[2 * e + (u01(rng) < 0.5f ? 1 : 0)] = std::numeric_limits<float>::quiet_NaN();
          }
        }
      }
      const std::string impl = "grid_sample.fused_small_c";
      ASSERT_FALSE(declines(p, impl));
      set_num_threads(1);
      const Tensor one = run_impl(p, impl, src.view(), grid.view());
      set_num_threads(2);
      const Tensor two = run_impl(p, impl, src.view(), grid.view());
      set_num_threads(0);
      Tensor grid_storage;
      const TensorView strided_grid = testing::scrambled_copy(grid, grid_storage, i % 3 == 1);
      const Tensor block = run_impl(p, impl, src.view(), strided_grid);
      const Tensor ref = run_impl(p, "ref", src.view(), grid.view());
      int64_t where = -1;
      EXPECT_TRUE(testing::bitwise_equal(ref, one, &where)) << "fused vs ref at " << where;
      EXPECT_TRUE(testing::bitwise_equal(one, two, &where)) << "1 vs 2 threads at " << where;
      EXPECT_TRUE(testing::bitwise_equal(one, block, &where))
          << "fused vs per-block path at " << where;
      if (::testing::Test::HasFailure()) return;
    }
  }
#else
  GTEST_SKIP() << "built without Highway: only the reference exists";
#endif
}

}  // namespace
}  // namespace gridops
