// GridSample differential tests of large and unaligned dsts and the channel-blocked path's
// pieces: the transpose, the copy cap (helpers in grid_sample_diff_util.h).
#include "kernels/grid_sample_diff_util.h"

namespace gridops {
namespace {


// The reference on the first two rows of output points of a 2-D channels-first float32
// problem with one batch (p's shapes, its grid `grid`), against those rows of `full`,
// the whole output of a fast path.
void expect_first_rows_match_ref(const Problem& p, const Tensor& src, const Tensor& grid,
                                 const Tensor& full) {
  const int64_t channels = p.src_shape[1], h = p.grid_shape[1], w = p.grid_shape[2];
  constexpr int64_t kRows = 2;
  Problem r = p;
  r.grid_shape = {1, kRows, w, 2};
  Tensor g2(DType::kFloat32, r.grid_shape);
  std::memcpy(g2.data(), grid.data(), static_cast<size_t>(kRows * w * 2) * 4);
  const Tensor ref = run_impl(r, "ref", src.view(), g2.view());
  Tensor part(DType::kFloat32, ref.shape());
  for (int64_t ch = 0; ch < channels; ++ch) {
    std::memcpy(part.data_as<float>() + ch * kRows * w, full.data_as<float>() + ch * h * w,
                static_cast<size_t>(kRows * w) * 4);
  }
  expect_close(r, ref, part, 1.0);
}

// The channel-blocked path with a dst large enough for non-temporal stores (>= 8 MiB),
// at an offset that is not a multiple of 64 bytes: against the channels-last fast path
// (the same bits), with the reference on the first two rows of points.
TEST(GridSampleDiff, ChannelBlockedLargeUnalignedDst) {
#ifdef GRIDOPS_HAVE_HWY
  std::mt19937_64 rng(testing::test_seed() + 3);
  for (int m = 0; m < 3; ++m) {
    GridSampleDesc desc;
    desc.mode = static_cast<IM>(m);
    desc.padding = static_cast<GP>(m);
    const Dims src_shape{1, 20, 96, 80}, grid_shape{1, 300, 360, 2};
    Tensor src(DType::kFloat32, src_shape), grid(DType::kFloat32, grid_shape);
    testing::fill_random(src, rng, -1.0, 1.0);
    testing::fill_random(grid, rng, -1.1, 1.1);
    auto plan = make_grid_sample_plan(desc, DType::kFloat32, src_shape, DType::kFloat32,
                                      grid_shape);
    ASSERT_TRUE(plan.ok());
    const Dims dst_shape = plan.value().dst_shape();
    int64_t count = 1;
    for (int64_t v : dst_shape) count *= v;
    for (int64_t shift : {0, 1, 7}) {
      std::vector<float> buf(static_cast<size_t>(count + 16), -7.0f);
      const MutableTensorView dst(DType::kFloat32, buf.data() + shift, dst_shape);
      ASSERT_TRUE(plan.value().run(src.view(), grid.view(), dst).ok());
      for (int64_t k = 0; k < shift; ++k) EXPECT_EQ(buf[static_cast<size_t>(k)], -7.0f);
      for (int64_t k = shift + count; k < count + 16; ++k) {
        EXPECT_EQ(buf[static_cast<size_t>(k)], -7.0f);
      }
      GridSampleDesc cl = desc;
      cl.layout = ChannelLayout::kChannelsLast;
      const Tensor src_cl = to_channels_last(src);
      auto plan_cl = make_grid_sample_plan(cl, DType::kFloat32, src_cl.shape(), DType::kFloat32,
                                           grid_shape);
      ASSERT_TRUE(plan_cl.ok());
      Tensor last(DType::kFloat32, plan_cl.value().dst_shape());
      ASSERT_TRUE(plan_cl.value().run(src_cl.view(), grid.view(), last.mutable_view()).ok());
      Tensor first(DType::kFloat32, dst_shape);
      std::memcpy(first.data(), buf.data() + shift, static_cast<size_t>(count) * 4);
      int64_t where = -1;
      EXPECT_TRUE(testing::bitwise_equal(to_channels_last(first), last, &where))
          << "mode " << m << " shift " << shift << ": first difference at " << where;
    }
    Tensor full(DType::kFloat32, dst_shape);
    ASSERT_TRUE(plan.value().run(src.view(), grid.view(), full.mutable_view()).ok());
    Problem p;
    p.desc = desc;
    p.src_shape = src_shape;
    p.grid_shape = grid_shape;
    expect_first_rows_match_ref(p, src, grid, full);
  }
#else
  GTEST_SKIP() << "built without Highway: only the reference exists";
#endif
}

// NOTE [ GridSample fused streaming stores ] (grid_sample_fused_small_c_hwy.cc): a
// channels-first dst of 8 MiB or more is written with non-temporal stores where a vector's
// destination is 64-byte aligned, and each row's tiles are shifted so that their vectors
// are (NOTE [ GridSample fused aligned tiles ]). The fused path on such a dst at offsets 0,
// 1 and 7 floats from a 64-byte line, with rows of 1024 points (every row at the same
// shift), 1000 and 200 (shifts alternating by 8 floats; the last tile up to 15 points
// longer) and 70 (two tiles, the second shorter than the first: no taps kept ahead): the
// bytes around it untouched, the same bits at every offset and as channels-last (never
// shifted nor streamed), on 1 and 2 threads, and the reference on the first two rows.
TEST(GridSampleDiff, FusedLargeChannelsFirstDst) {
#ifdef GRIDOPS_HAVE_HWY
  std::mt19937_64 rng(testing::test_seed() + 5);
  for (int m = 0; m < 3; ++m) {
    for (int64_t w : {1024, 1000, 200, 70}) {
      Problem p;
      p.desc.mode = static_cast<IM>(m);
      p.desc.padding = static_cast<GP>(m);
      p.desc.fill_value = 0.0;
      p.desc.impl = "grid_sample.fused_small_c";
      p.src_shape = {1, 3, 40, 52};
      const int64_t h = (int64_t{8} << 20) / (12 * w) + 1;  // dst: 3 x h x w floats, >= 8 MiB
      p.grid_shape = {1, h, w, 2};
      SCOPED_TRACE(describe(p));
      if (declines(p, p.desc.impl)) continue;
      Tensor src(DType::kFloat32, p.src_shape), grid(DType::kFloat32, p.grid_shape);
      testing::fill_random(src, rng, -1.0, 1.0);
      testing::fill_random(grid, rng, -1.1, 1.1);
      auto plan = make_grid_sample_plan(p.desc, DType::kFloat32, p.src_shape, DType::kFloat32,
                                        p.grid_shape);
      ASSERT_TRUE(plan.ok()) << plan.status().to_string();
      ASSERT_EQ(std::string(plan.value().impl_name()), p.desc.impl);
      const Dims dst_shape = plan.value().dst_shape();
      int64_t count = 1;
      for (int64_t v : dst_shape) count *= v;
      ASSERT_GE(count * 4, int64_t{8} << 20);
      Problem q = p;
      q.desc.layout = ChannelLayout::kChannelsLast;
      const Tensor src_cl = to_channels_last(src);
      q.src_shape = src_cl.shape();
      const Tensor last = run_impl(q, p.desc.impl, src_cl.view(), grid.view());
      Tensor first(DType::kFloat32, dst_shape);
      for (int threads : {1, 2}) {
        set_num_threads(threads);
        for (int64_t shift : {0, 1, 7}) {
          SCOPED_TRACE("threads " + std::to_string(threads) + " shift " + std::to_string(shift));
          // 64-byte aligned storage, so that shift 0 is the streamed case.
          Tensor storage(DType::kFloat32, Dims{count + 32});
          float* buf = storage.data_as<float>();
          ASSERT_EQ(reinterpret_cast<uintptr_t>(buf) % 64, 0u);
          std::fill(buf, buf + count + 32, -7.0f);
          const MutableTensorView dst(DType::kFloat32, buf + shift, dst_shape);
          ASSERT_TRUE(plan.value().run(src.view(), grid.view(), dst).ok());
          for (int64_t k = 0; k < shift; ++k) EXPECT_EQ(buf[k], -7.0f);
          for (int64_t k = shift + count; k < count + 32; ++k) EXPECT_EQ(buf[k], -7.0f);
          Tensor got(DType::kFloat32, dst_shape);
          std::memcpy(got.data(), buf + shift, static_cast<size_t>(count) * 4);
          int64_t where = -1;
          EXPECT_TRUE(testing::bitwise_equal(to_channels_last(got), last, &where))
              << "channels-first vs channels-last at " << where;
          if (threads == 1 && shift == 0) {
            std::memcpy(first.data(), got.data(), static_cast<size_t>(count) * 4);
          }
        }
      }
      set_num_threads(0);
      expect_first_rows_match_ref(p, src, grid, first);
    }
  }
#else
  GTEST_SKIP() << "built without Highway: only the reference exists";
#endif
}

// NOTE [ GridSample Transpose16 ] (grid_sample_blocked_hwy.cc): the portable 16 x 16
// transpose against a scalar transpose on every Highway target this CPU runs, and against
// the target's own transpose where it has one; bits are copied unchanged (NaN payloads,
// signed zeros, subnormals).
TEST(GridSampleDiff, Transpose16PortableMatchesIntrinsic) {
#ifdef GRIDOPS_HAVE_HWY
  std::mt19937_64 rng(testing::test_seed() + 5);
  alignas(64) float in[256], want[256], portable[256], intrinsic[256];
  const uint32_t specials[] = {0x7fc00001u, 0x7f800001u, 0xffbfffffu, 0x80000000u, 0x00000001u,
                               0x7f800000u};
  int intrinsic_targets = 0;
  for (const int64_t target : testing::hwy_targets()) {
    SCOPED_TRACE("Highway target " + testing::hwy_target_name(target));
    testing::ScopedHwyTarget only(target);
    for (int round = 0; round < 4; ++round) {
      for (int i = 0; i < 256; ++i) {
        uint32_t bits = static_cast<uint32_t>(rng());
        if (i % 17 == round) bits = specials[static_cast<size_t>(i + round) % 6];
        std::memcpy(&in[i], &bits, 4);
      }
      for (int i = 0; i < 16; ++i) {
        for (int k = 0; k < 16; ++k) want[k * 16 + i] = in[i * 16 + k];
      }
      std::memset(portable, 0, sizeof(portable));
      ASSERT_TRUE(kernels::grid_sample_transpose16(true, in, portable));
      EXPECT_EQ(0, std::memcmp(portable, want, sizeof(want))) << "portable, round " << round;
      std::memset(intrinsic, 0, sizeof(intrinsic));
      if (kernels::grid_sample_transpose16(false, in, intrinsic)) {
        ++intrinsic_targets;
        EXPECT_EQ(0, std::memcmp(intrinsic, want, sizeof(want))) << "intrinsic, round " << round;
      }
    }
  }
  // The intrinsic form exists exactly where the blocked path does.
  EXPECT_EQ(intrinsic_targets > 0, kernels::grid_sample_target_has_blocked());
#else
  GTEST_SKIP() << "built without Highway: only the reference exists";
#endif
}

// The channel-blocked path copies one 16-channel block of at most 32 MiB (past it the
// per-point reads leave the L3 cache; NOTE [ GridSample channel blocks ]), whatever the mode:
// W3's 16 MiB blocks take it, nearest included; a (1, 16, 1024, 1024) input (64 MiB) goes to
// a gather path. Plans only: nothing is allocated.
TEST(GridSampleDiff, ChannelBlockedPathCopyCap) {
#ifdef GRIDOPS_HAVE_HWY
  if (!kernels::grid_sample_target_has_blocked()) {
    GTEST_SKIP() << "the CPU's Highway target is not x86 AVX2 or AVX-512: no grid_sample.blocked";
  }
  auto impl_of = [](IM mode, const Dims& src, const Dims& grid) {
    GridSampleDesc desc;
    desc.mode = mode;
    auto plan = make_grid_sample_plan(desc, DType::kFloat32, src, DType::kFloat32, grid);
    EXPECT_TRUE(plan.ok()) << plan.status().to_string();
    return plan.ok() ? std::string(plan.value().impl_name()) : std::string();
  };
  for (IM mode : {IM::kNearest, IM::kLinear, IM::kCubic}) {
    SCOPED_TRACE("mode " + std::to_string(static_cast<int>(mode)));
    EXPECT_EQ(impl_of(mode, {1, 16, 64, 64, 64}, {1, 64, 64, 64, 3}), "grid_sample.blocked");
    // 724 x 724 x 64 bytes: just under 32 MiB.
    EXPECT_EQ(impl_of(mode, {1, 16, 724, 724}, {1, 724, 724, 2}), "grid_sample.blocked");
    const Dims big_src{1, 16, 1024, 1024}, big_grid{1, 1024, 1024, 2};
    const std::string big = impl_of(mode, big_src, big_grid);
    EXPECT_NE(big, "grid_sample.blocked");
    EXPECT_NE(big, "ref");
    GridSampleDesc forced;
    forced.mode = mode;
    forced.impl = "grid_sample.blocked";
    auto declined =
        make_grid_sample_plan(forced, DType::kFloat32, big_src, DType::kFloat32, big_grid);
    ASSERT_FALSE(declined.ok());
    EXPECT_EQ(declined.status().code(), StatusCode::kUnimplemented);
    EXPECT_THAT(declined.status().to_string(),
                ::testing::HasSubstr("a 16-channel block over 32 MiB"));
  }
#else
  GTEST_SKIP() << "built without Highway";
#endif
}

// The channel-blocked path with the portable transpose in place of the target's own (its
// test-only twin grid_sample.blocked_portable_transpose; NOTE [ GridSample Transpose16 ]):
// the same bits, every mode, 2-D and 3-D, a partial
// channel block, both the per-thread and the shared copies (1 and 2 threads).
TEST(GridSampleDiff, ChannelBlockedPathPortableTranspose) {
#ifdef GRIDOPS_HAVE_HWY
  if (!kernels::grid_sample_target_has_blocked()) {
    GTEST_SKIP() << "the CPU's Highway target is not x86 AVX2 or AVX-512: no grid_sample.blocked";
  }
  std::mt19937_64 rng(testing::test_seed() + 6);
  for (int i = 0; i < 12; ++i) {
    Problem p;
    p.desc.mode = static_cast<IM>(i % 3);
    p.desc.padding = static_cast<GP>((i / 3) % 3);
    p.desc.fill_value = 0.0;
    p.desc.align_corners = (i / 2) % 2 == 1;
    const int64_t c = i % 2 ? 17 : 16;
    p.src_shape = i % 4 == 3 ? Dims{1, c, 5, 6, 37} : Dims{2, c, 23, 37};
    p.grid_shape = i % 4 == 3 ? Dims{1, 9, 10, 11, 3} : Dims{2, 60, 53, 2};
    SCOPED_TRACE("problem " + std::to_string(i) + ": " + describe(p));
    Tensor src(DType::kFloat32, p.src_shape), grid(DType::kFloat32, p.grid_shape);
    testing::fill_random(src, rng, -1.0, 1.0);
    fill_grid(grid, rng, p);
    set_num_threads(2 - i % 2);  // 16 channels on 2 threads: shared copies
    const Tensor fast = run_impl(p, "grid_sample.blocked", src.view(), grid.view());
    const Tensor portable =
        run_impl(p, "grid_sample.blocked_portable_transpose", src.view(), grid.view());
    set_num_threads(0);
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

}  // namespace
}  // namespace gridops
