// Resize with a window (ResizeWindow): for random problems (modes, coordinate modes,
// antialias, exclude_outside, tf_crop_and_resize, dtypes) and random chunkings of the
// output, each output chunk computed from only the input box resize_input_box names
// (sometimes widened) is the same bits as that part of the unwindowed result, for "ref"
// and "fast". Plus the errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "core/convert.h"
#include "gridops/ops/resize.h"
#include "support/test_util.h"

namespace gridops {
namespace {

using ::testing::HasSubstr;
using testing::error_message;

using testing::copy_box;
using testing::random_chunks;
using testing::paste_box;

TEST(ResizeWindow, ChunkedEqualsWholeBitForBit) {
  std::mt19937_64 rng(1116);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  std::uniform_real_distribution<double> u(0.0, 1.0);
  int fast_runs = 0;
  for (int it = 0; it < 100; ++it) {
    ResizeDesc desc;
    desc.mode = static_cast<ResizeMode>(pick(0, 2));
    desc.coordinate_mode = static_cast<ResizeCoordinateMode>(pick(0, 6));
    desc.nearest_mode = static_cast<ResizeNearestMode>(pick(0, 3));
    desc.antialias = desc.mode != ResizeMode::kNearest && pick(0, 2) == 0;
    desc.exclude_outside = pick(0, 3) == 0;
    desc.extrapolation_value = 7.5;
    const int rank = pick(1, 4);
    Dims full;
    for (int a = 0; a < rank; ++a) full.push_back(rank == 4 ? pick(1, 6) : pick(1, 14));
    // Resize a random subset of the axes (at least one).
    for (int a = 0; a < rank; ++a) {
      if (pick(0, 2) != 0 || (a == rank - 1 && desc.axes.empty())) {
        desc.axes.push_back(a);
        desc.scales.push_back(0.4 + 2.2 * u(rng));
      }
    }
    if (desc.coordinate_mode == ResizeCoordinateMode::kTfCropAndResize) {
      const size_t k = desc.axes.size();
      desc.roi.assign(2 * k, 0.0);
      for (size_t i = 0; i < k; ++i) {
        desc.roi[i] = -0.2 + 0.5 * u(rng);
        desc.roi[k + i] = 0.6 + 0.6 * u(rng);
      }
    }
    const DType dt = pick(0, 3) == 0 ? DType::kFloat64 : pick(0, 2) == 0 ? DType::kFloat16 : DType::kFloat32;
    Tensor src(dt, full);
    for (int64_t i = 0; i < src.num_elements(); ++i) {
      const double v = u(rng) * 4.0 - 2.0;
      if (dt == DType::kFloat32) src.data_as<float>()[i] = static_cast<float>(v);
      else if (dt == DType::kFloat64) src.data_as<double>()[i] = v;
      else src.data_as<float16>()[i] = convert::store_real<float16>(static_cast<float>(v));
    }
    for (const char* impl : {"ref", "fast"}) {
      SCOPED_TRACE(std::string(impl) + " it " + std::to_string(it) + " " + dims_to_string(full) +
                   " " + to_string(desc.mode) + " " + to_string(desc.coordinate_mode));
      desc.impl = impl;
      auto whole_plan = make_resize_plan(desc, dt, full);
      if (!whole_plan.ok()) {
        ASSERT_STREQ(impl, "fast") << whole_plan.status().message();
        continue;
      }
      if (std::string(impl) == "fast") ++fast_runs;
      const Dims out_shape = whole_plan->dst_shape();
      Tensor whole(dt, out_shape);
      ASSERT_TRUE(whole_plan->run(src, whole.mutable_view()).ok());
      Tensor chunked(dt, out_shape);
      std::memset(chunked.data(), 0x5a, chunked.nbytes());
      const size_t es = dtype_size(dt);
      const Dims cst = contiguous_strides(out_shape);
      std::vector<std::vector<std::pair<int64_t, int64_t>>> ch(static_cast<size_t>(rank));
      for (int a = 0; a < rank; ++a) ch[static_cast<size_t>(a)] = random_chunks(rng, out_shape[static_cast<size_t>(a)]);
      Dims ci(static_cast<size_t>(rank), 0);
      bool empty = false;
      for (int64_t v : out_shape) empty = empty || v == 0;
      while (!empty) {
        Dims ob, oe;
        for (int a = 0; a < rank; ++a) {
          ob.push_back(ch[static_cast<size_t>(a)][static_cast<size_t>(ci[static_cast<size_t>(a)])].first);
          oe.push_back(ch[static_cast<size_t>(a)][static_cast<size_t>(ci[static_cast<size_t>(a)])].second);
        }
        auto box = resize_input_box(desc, full, ob, oe);
        ASSERT_TRUE(box.ok()) << box.status().message();
        ResizeWindow w;
        w.full_in = full;
        w.out_origin = ob;
        for (int a = 0; a < rank; ++a) {
          auto [lo, hi] = (*box)[static_cast<size_t>(a)];
          if (lo == hi) hi = lo + 1;  // reads nothing (all extrapolated): any 1-wide box
          if (pick(0, 2) == 0) lo = pick(0, static_cast<int>(lo));
          if (pick(0, 2) == 0) hi = pick(static_cast<int>(hi), static_cast<int>(full[static_cast<size_t>(a)]));
          w.in_origin.push_back(lo);
          w.in_shape.push_back(hi - lo);
          w.out_shape.push_back(oe[static_cast<size_t>(a)] - ob[static_cast<size_t>(a)]);
        }
        const Tensor part = copy_box(src, w.in_origin, w.in_shape);
        auto plan = make_resize_plan(desc, dt, w);
        ASSERT_TRUE(plan.ok()) << plan.status().message();
        // The same entry, or another of the fast family (a box may take the passes where
        // the whole problem takes the fused rows, or copy tables where it has none: the
        // same bits, in the whole problem's pass order).
        if (std::string(whole_plan->impl_name()) == "ref") {
          EXPECT_STREQ(plan->impl_name(), "ref");
        } else {
          EXPECT_EQ(std::string(plan->impl_name()).rfind("resize.", 0), 0u) << plan->impl_name();
        }
        int64_t off = 0;
        for (int a = 0; a < rank; ++a) off += ob[static_cast<size_t>(a)] * cst[static_cast<size_t>(a)];
        const MutableTensorView view(dt, static_cast<unsigned char*>(chunked.data()) + static_cast<size_t>(off) * es,
                                     w.out_shape, cst);
        ASSERT_TRUE(plan->run(part, view).ok());
        int a = rank - 1;
        for (; a >= 0; --a) {
          if (++ci[static_cast<size_t>(a)] < static_cast<int64_t>(ch[static_cast<size_t>(a)].size())) break;
          ci[static_cast<size_t>(a)] = 0;
        }
        if (a < 0) break;
      }
      ASSERT_EQ(0, std::memcmp(whole.data(), chunked.data(), whole.nbytes()))
          << "chunked result differs from the whole-input result";
    }
  }
  EXPECT_GT(fast_runs, 50);
}

// Channels-last problems that the separable implementation runs with its fused rows
// (float32 and uint8, 2 or 3 consecutive resized axes, C >= 2, dense views): each output
// chunk computed into its own dense tensor (as gridops.dask does), from the input box only,
// is the same bits as that part of the whole result, whether the chunk's own plan takes the
// fused rows or the separate passes, and whether the whole problem's best pass order is
// axis order or not.
TEST(ResizeWindow, FusedRowsChunksEqualWholeBitForBit) {
  std::mt19937_64 rng(2411);
  struct Case {
    Dims full;
    std::vector<int64_t> axes;
    std::vector<double> scales;
    ResizeMode mode;
    ResizeCoordinateMode coord;
  };
  const Case cases[] = {
      {{2, 20, 24, 3}, {1, 2}, {2.0, 2.0}, ResizeMode::kCubic, ResizeCoordinateMode::kHalfPixel},
      {{1, 18, 40, 4}, {1, 2}, {2.5, 1.5}, ResizeMode::kLinear, ResizeCoordinateMode::kAsymmetric},
      {{1, 40, 12, 3}, {1, 2}, {0.3, 3.0}, ResizeMode::kCubic, ResizeCoordinateMode::kHalfPixel},
      {{1, 12, 36, 5}, {1, 2}, {3.0, 0.4}, ResizeMode::kLinear, ResizeCoordinateMode::kHalfPixel},
      {{1, 6, 8, 10, 16}, {1, 2, 3}, {2.0, 2.0, 2.0}, ResizeMode::kLinear,
       ResizeCoordinateMode::kAlignCorners},
      {{1, 5, 9, 7, 17}, {1, 2, 3}, {1.7, 0.6, 2.3}, ResizeMode::kCubic,
       ResizeCoordinateMode::kPytorchHalfPixel},
  };
  int compared = 0;
  for (const Case& c : cases) {
    for (DType dt : {DType::kFloat32, DType::kUInt8}) {
      ResizeDesc desc;
      desc.mode = c.mode;
      desc.coordinate_mode = c.coord;
      desc.axes = c.axes;
      desc.scales = c.scales;
      desc.impl = "fast";
      SCOPED_TRACE(dims_to_string(c.full) + " " + to_string(c.mode) + " " + to_string(dt));
      Tensor src(dt, c.full);
      std::uniform_real_distribution<float> u(-2.0f, 2.0f);
      for (int64_t i = 0; i < src.num_elements(); ++i) {
        if (dt == DType::kFloat32) src.data_as<float>()[i] = u(rng);
        else src.data_as<uint8_t>()[i] = static_cast<uint8_t>(rng() & 0xff);
      }
      auto whole_plan = make_resize_plan(desc, dt, c.full);
      ASSERT_TRUE(whole_plan.ok()) << whole_plan.status().message();
      const Dims out_shape = whole_plan->dst_shape();
      Tensor whole(dt, out_shape);
      ASSERT_TRUE(whole_plan->run(src, whole.mutable_view()).ok());
      for (int rep = 0; rep < 3; ++rep) {
        Tensor chunked(dt, out_shape);
        std::memset(chunked.data(), 0x5a, chunked.nbytes());
        const size_t rank = out_shape.size();
        std::vector<std::vector<std::pair<int64_t, int64_t>>> ch(rank);
        for (size_t a = 0; a < rank; ++a) {
          // Rep 0 keeps the innermost axes whole (long fused rows); later reps cut them too.
          const bool cut = rep > 0 || a + 2 < rank;
          ch[a] = cut ? random_chunks(rng, out_shape[a])
                      : std::vector<std::pair<int64_t, int64_t>>{{0, out_shape[a]}};
        }
        Dims ci(rank, 0);
        for (;;) {
          Dims ob, oe;
          for (size_t a = 0; a < rank; ++a) {
            ob.push_back(ch[a][static_cast<size_t>(ci[a])].first);
            oe.push_back(ch[a][static_cast<size_t>(ci[a])].second);
          }
          auto box = resize_input_box(desc, c.full, ob, oe);
          ASSERT_TRUE(box.ok()) << box.status().message();
          ResizeWindow w;
          w.full_in = c.full;
          w.out_origin = ob;
          for (size_t a = 0; a < rank; ++a) {
            w.in_origin.push_back((*box)[a].first);
            w.in_shape.push_back((*box)[a].second - (*box)[a].first);
            w.out_shape.push_back(oe[a] - ob[a]);
          }
          const Tensor part = copy_box(src, w.in_origin, w.in_shape);
          auto plan = make_resize_plan(desc, dt, w);
          ASSERT_TRUE(plan.ok()) << plan.status().message();
          Tensor out(dt, w.out_shape);
          ASSERT_TRUE(plan->run(part, out.mutable_view()).ok());
          paste_box(out, chunked, ob);
          size_t a = rank;
          while (a-- > 0) {
            if (++ci[a] < static_cast<int64_t>(ch[a].size())) break;
            ci[a] = 0;
          }
          if (a == static_cast<size_t>(-1)) break;
        }
        ASSERT_EQ(0, std::memcmp(whole.data(), chunked.data(), whole.nbytes()))
            << "rep " << rep << ": chunked result differs from the whole-input result";
        ++compared;
      }
    }
  }
  EXPECT_EQ(compared, 36);
}

TEST(ResizeWindow, Errors) {
  ResizeDesc desc;
  desc.mode = ResizeMode::kLinear;
  desc.scales = {0.5};
  // Linear half-pixel 8 -> 4: output o reads 2o and 2o + 1.
  auto box = resize_input_box(desc, Dims{8}, Dims{1}, Dims{3});
  ASSERT_TRUE(box.ok()) << box.status().message();
  EXPECT_EQ((*box)[0], std::make_pair(int64_t{2}, int64_t{6}));
  EXPECT_THAT(error_message(resize_input_box(desc, Dims{8}, Dims{1}, Dims{5})),
              HasSubstr("output box at (1,) to (5,) must lie inside (4,)"));
  auto plan = make_resize_plan(desc, DType::kFloat32, ResizeWindow{{8}, {2}, {3}, {1}, {2}});
  ASSERT_FALSE(plan.ok());
  EXPECT_NE(plan.status().message().find("read inputs [2, 6)"), std::string::npos)
      << plan.status().message();
  EXPECT_THAT(error_message(make_resize_plan(desc, DType::kFloat32, ResizeWindow{{8}, {6}, {4}, {1}, {2}})),
              HasSubstr("window src box at (6,) with shape (4,) must lie inside (8,)"));
  EXPECT_THAT(error_message(make_resize_plan(desc, DType::kFloat32, ResizeWindow{{8}, {2}, {4}, {3}, {2}})),
              HasSubstr("window dst box at (3,) with shape (2,) must lie inside (4,)"));
  EXPECT_THAT(error_message(make_resize_plan(desc, DType::kFloat32, ResizeWindow{{8}, {2}, {4}, {1}, {}})),
              HasSubstr("must have one entry per axis (1)"));
  plan = make_resize_plan(desc, DType::kFloat32, ResizeWindow{{8}, {2}, {4}, {1}, {2}});
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  const float in[4] = {2, 3, 4, 5};
  float out[2] = {0, 0};
  ASSERT_TRUE(plan->run(TensorView(DType::kFloat32, in, {4}),
                        MutableTensorView(DType::kFloat32, out, {2})).ok());
  EXPECT_EQ(out[0], 2.5f);
  EXPECT_EQ(out[1], 4.5f);
}

}  // namespace
}  // namespace gridops
