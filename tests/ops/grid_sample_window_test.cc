// GridSample with an input window (GridSampleWindow): for random problems and random
// chunkings of the grid, running every grid chunk on only the input box
// grid_sample_input_box names (optionally widened) and writing into the chunk's part of dst
// gives exactly the bits of the unwindowed operator on the whole input with the same
// implementation (every entry of the implementation list). Plus the errors: a window that misses a needed tap,
// a window outside the full input, mismatched window lengths; nothing is written then.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "core/convert.h"
#include "gridops/ops/grid_sample.h"
#include "ops/grid_sample_impls.h"
#include "support/test_util.h"

namespace gridops {
namespace {

using ::testing::HasSubstr;
using testing::copy_box;
using testing::error_message;
using testing::random_chunks;

using IM = InterpolationMode;
using GP = GridPadding;

/// What to run: the automatic choice (""), then the entries of the implementation list:
/// "ref" always, the fast entries when neither dtype is float64 (no fast entry takes
/// float64). An entry that declines a windowed problem is skipped (takes_window).
std::vector<std::string> impls_for(DType src, DType grid) {
  std::vector<std::string> v = {""};
  for (const detail::GridSampleEntry& impl : detail::grid_sample_entries()) {
    const bool ref = std::string(impl.name) == "ref";
    if (ref || (src != DType::kFloat64 && grid != DType::kFloat64)) v.emplace_back(impl.name);
  }
  return v;
}

/// False when `desc.impl` declines the problem with an input window (grid_sample.blocked
/// takes none): the whole input as the window.
bool takes_window(const GridSampleDesc& desc, DType src_dtype, const Dims& src_shape,
                  DType grid_dtype, const Dims& grid_shape, const Dims& full) {
  const GridSampleWindow w{full, Dims(full.size(), 0)};
  auto plan = make_grid_sample_plan(desc, src_dtype, src_shape, grid_dtype, grid_shape, w);
  return plan.ok() || plan.status().code() != StatusCode::kUnimplemented;
}

void put(Tensor& t, int64_t i, double v) {
  switch (t.dtype()) {
    case DType::kFloat32: t.data_as<float>()[i] = static_cast<float>(v); break;
    case DType::kFloat64: t.data_as<double>()[i] = v; break;
    case DType::kFloat16:
      t.data_as<float16>()[i] = convert::store_real<float16>(static_cast<float>(v));
      break;
    default: FAIL() << "unexpected dtype";
  }
}

struct Case {
  GridSampleDesc desc;
  DType src_dtype, grid_dtype;
  Dims full;       // spatial
  Dims out;        // spatial
  int64_t n, c;
};

std::string describe(const Case& k) {
  return std::string(to_string(k.desc.mode)) + " " + to_string(k.desc.padding) +
         " ac=" + std::to_string(k.desc.align_corners) + " " + to_string(k.desc.layout) +
         " src " + to_string(k.src_dtype) + " grid " + to_string(k.grid_dtype) + " full " +
         dims_to_string(k.full) + " out " + dims_to_string(k.out) + " units " +
         to_string(k.desc.units) + " kind " + to_string(k.desc.kind);
}

TEST(GridSampleWindow, ChunkedEqualsWholeBitForBit) {
  std::mt19937_64 rng(20261123);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  std::uniform_real_distribution<double> u(0.0, 1.0);
  int fast_runs = 0;
  for (int it = 0; it < 100; ++it) {
    Case k;
    k.desc.mode = static_cast<IM>(pick(0, 2));
    k.desc.padding = static_cast<GP>(pick(0, 5));  // the extensions wrap, constant, fill too
    if (k.desc.padding == GP::kConstant || k.desc.padding == GP::kFill) k.desc.fill_value = -0.5;
    k.desc.align_corners = pick(0, 1);
    // The grid conventions: pixel grids get the same positions (converted below).
    if (pick(0, 3) == 0) k.desc.units = GridUnits::kPixels;
    if (pick(0, 3) == 0) k.desc.kind = GridKind::kDisplacement;
    k.desc.layout = pick(0, 3) == 0 ? ChannelLayout::kChannelsLast : ChannelLayout::kChannelsFirst;
    const int sd = pick(0, 5);
    k.src_dtype = sd == 0 ? DType::kFloat16 : sd == 1 ? DType::kFloat64 : DType::kFloat32;
    const int gd = pick(0, 6);
    k.grid_dtype = gd == 0 ? DType::kFloat16 : gd == 1 ? DType::kFloat64 : DType::kFloat32;
    const int r = pick(1, 3);
    k.n = pick(1, 2);
    k.c = pick(0, 5) == 0 ? pick(8, 17) : pick(1, 3);
    for (int d = 0; d < r; ++d) {
      k.full.push_back(r == 3 ? pick(1, 9) : pick(1, 20));
      k.out.push_back(r == 3 ? pick(1, 7) : pick(1, 14));
    }
    SCOPED_TRACE(describe(k));
    const bool cl = k.desc.layout == ChannelLayout::kChannelsLast;
    auto tensor_shape = [&](const Dims& sp) {
      Dims s{k.n};
      if (!cl) s.push_back(k.c);
      s.insert(s.end(), sp.begin(), sp.end());
      if (cl) s.push_back(k.c);
      return s;
    };
    Tensor src(k.src_dtype, tensor_shape(k.full));
    for (int64_t i = 0; i < src.num_elements(); ++i) put(src, i, u(rng) * 4.0 - 2.0);
    Dims gshape{k.n};
    gshape.insert(gshape.end(), k.out.begin(), k.out.end());
    gshape.push_back(r);
    Tensor grid(k.grid_dtype, gshape);
    // Coordinates in a random sub-range of [-1.2, 1.2] per axis, so that chunks need
    // small boxes; some exact pixel positions (ties, zero weights) and a few non-finite
    // or huge values.
    std::vector<double> lo(static_cast<size_t>(r)), span(static_cast<size_t>(r));
    for (int d = 0; d < r; ++d) {
      lo[static_cast<size_t>(d)] = -1.2 + 2.4 * u(rng);
      span[static_cast<size_t>(d)] = 0.6 * u(rng);
    }
    for (int64_t i = 0; i < grid.num_elements(); ++i) {
      const auto coord = static_cast<size_t>(i % r);
      double g = lo[coord] + span[coord] * u(rng);
      const int special = pick(0, 60);
      if (special == 0) g = std::numeric_limits<double>::quiet_NaN();
      if (special == 1) g = std::numeric_limits<double>::infinity();
      if (special == 2) g = -1e9;
      if (special == 3) g = std::round(g * 8.0) / 8.0;
      if (std::isfinite(g) && std::fabs(g) < 2.0) {
        const int64_t len = k.full[static_cast<size_t>(r) - 1 - coord];
        const bool ac = k.desc.align_corners == 1;
        // The same position in pixels; a displacement: minus the point's own coordinate
        // (roughly: any offset is valid, the box follows it).
        if (k.desc.units == GridUnits::kPixels) {
          g = ac ? (g + 1.0) / 2.0 * static_cast<double>(len - 1)
                 : ((g + 1.0) * static_cast<double>(len) - 1.0) / 2.0;
        }
        if (k.desc.kind == GridKind::kDisplacement) {
          const int64_t o = (i / r) % k.out[static_cast<size_t>(r) - 1 - coord];
          g -= k.desc.units == GridUnits::kPixels
                   ? static_cast<double>(o)
                   : 2.0 * static_cast<double>(o) /
                         static_cast<double>(k.out[static_cast<size_t>(r) - 1 - coord]) - 1.0;
        }
      }
      put(grid, i, g);
    }
    for (const std::string& impl : impls_for(k.src_dtype, k.grid_dtype)) {
      SCOPED_TRACE(impl.empty() ? "automatic" : impl);
      GridSampleDesc desc = k.desc;
      desc.impl = impl;
      if (!takes_window(desc, k.src_dtype, src.shape(), k.grid_dtype, grid.shape(), k.full)) {
        continue;
      }
      auto whole = grid_sample(desc, src, grid);
      ASSERT_TRUE(whole.ok()) << whole.status().message();
      if (impl != "ref" && !impl.empty()) ++fast_runs;
      Tensor chunked(k.src_dtype, whole->shape());
      const size_t es = dtype_size(k.src_dtype);
      // A sentinel so that an unwritten element shows.
      std::memset(chunked.data(), 0x5a, chunked.nbytes());
      // A random chunking of the output (= grid) axes.
      std::vector<std::vector<std::pair<int64_t, int64_t>>> ch(static_cast<size_t>(r));
      for (int d = 0; d < r; ++d) ch[static_cast<size_t>(d)] = random_chunks(rng, k.out[static_cast<size_t>(d)]);
      // A displacement is relative to the output index of the run: a chunk of the output
      // is another problem (gridops.dask adds the chunk's bases itself). One chunk, whose
      // input window is still random.
      if (k.desc.kind == GridKind::kDisplacement) {
        for (int d = 0; d < r; ++d) ch[static_cast<size_t>(d)] = {{0, k.out[static_cast<size_t>(d)]}};
      }
      Dims ci(static_cast<size_t>(r), 0);
      const Dims gst = contiguous_strides(grid.shape());
      const Dims dst_st = contiguous_strides(chunked.shape());
      const size_t first = cl ? 1 : 2;
      for (;;) {
        // The grid chunk and its dst part, as views into the whole tensors.
        int64_t goff = 0, doff = 0;
        Dims gcs{k.n}, dcs = chunked.shape();
        for (int d = 0; d < r; ++d) {
          const auto& [b, e] = ch[static_cast<size_t>(d)][static_cast<size_t>(ci[static_cast<size_t>(d)])];
          goff += b * gst[1 + static_cast<size_t>(d)];
          doff += b * dst_st[first + static_cast<size_t>(d)];
          gcs.push_back(e - b);
          dcs[first + static_cast<size_t>(d)] = e - b;
        }
        gcs.push_back(r);
        const TensorView gview(k.grid_dtype,
                               static_cast<const unsigned char*>(grid.data()) +
                                   static_cast<size_t>(goff) * dtype_size(k.grid_dtype),
                               gcs, gst);
        const MutableTensorView dview(k.src_dtype,
                                      static_cast<unsigned char*>(chunked.data()) +
                                          static_cast<size_t>(doff) * es,
                                      dcs, dst_st);
        auto box = grid_sample_input_box(desc, k.full, gview);
        ASSERT_TRUE(box.ok()) << box.status().message();
        GridSampleWindow w;
        w.full = k.full;
        Dims start(src.shape().size(), 0), bshape = src.shape();
        for (int d = 0; d < r; ++d) {
          auto [b, e] = (*box)[static_cast<size_t>(d)];
          ASSERT_LE(0, b);
          ASSERT_LE(e, k.full[static_cast<size_t>(d)]);
          ASSERT_LT(b, e);
          // Sometimes a wider window than needed: the result must not change.
          if (pick(0, 2) == 0) b = pick(0, static_cast<int>(b));
          if (pick(0, 2) == 0) e = pick(static_cast<int>(e), static_cast<int>(k.full[static_cast<size_t>(d)]));
          w.origin.push_back(b);
          start[first + static_cast<size_t>(d)] = b;
          bshape[first + static_cast<size_t>(d)] = e - b;
        }
        const Tensor part = copy_box(src, start, bshape);
        const Status st = grid_sample(desc, w, part, gview, dview);
        ASSERT_TRUE(st.ok()) << st.message();
        int d = r - 1;
        for (; d >= 0; --d) {
          if (++ci[static_cast<size_t>(d)] < static_cast<int64_t>(ch[static_cast<size_t>(d)].size())) break;
          ci[static_cast<size_t>(d)] = 0;
        }
        if (d < 0) break;
      }
      ASSERT_EQ(0, std::memcmp(whole->data(), chunked.data(), chunked.nbytes()))
          << "chunked result differs from the whole-input result";
    }
  }
#ifdef GRIDOPS_HAVE_HWY
  EXPECT_GT(fast_runs, 40);
#endif
}

/// A 2-D problem whose grid reads around input (5, 6) of a 12 x 12 input.
struct Small {
  Tensor src{DType::kFloat32, {1, 2, 12, 12}};
  Tensor grid{DType::kFloat32, {1, 1, 2, 2}};
  GridSampleDesc desc;
  Small() {
    for (int64_t i = 0; i < src.num_elements(); ++i) src.data_as<float>()[i] = static_cast<float>(i);
    // align_corners = 0: x = ((g + 1) * 12 - 1) / 2; g = 0.0 -> 5.5, g = 0.05 -> 5.86.
    const float g[4] = {0.0f, 0.0f, 0.05f, 0.05f};
    std::memcpy(grid.data(), g, sizeof g);
    desc.mode = IM::kLinear;
  }
};

TEST(GridSampleWindow, InputBoxHasTheMargin) {
  Small s;
  const Dims full{12, 12};
  auto box = grid_sample_input_box(s.desc, full, s.grid);
  ASSERT_TRUE(box.ok()) << box.status().message();
  // Taps 5 and 6 on both axes, widened by K - 1 = 1.
  EXPECT_EQ((*box)[0], std::make_pair(int64_t{4}, int64_t{8}));
  EXPECT_EQ((*box)[1], std::make_pair(int64_t{4}, int64_t{8}));
  s.desc.mode = IM::kNearest;  // x = 5.5 -> 6 (ties to even), 5.86 -> 6
  box = grid_sample_input_box(s.desc, full, s.grid);
  ASSERT_TRUE(box.ok());
  EXPECT_EQ((*box)[0], std::make_pair(int64_t{6}, int64_t{7}));
  // Every tap outside under zeros padding: a box of min(full, K) at 0.
  s.desc.mode = IM::kCubic;
  const float far[4] = {5.0f, 5.0f, 7.0f, 9.0f};  // every coordinate beyond the right edge
  std::memcpy(s.grid.data(), far, sizeof far);
  box = grid_sample_input_box(s.desc, full, s.grid);
  ASSERT_TRUE(box.ok());
  EXPECT_EQ((*box)[0], std::make_pair(int64_t{0}, int64_t{4}));
  EXPECT_EQ((*box)[1], std::make_pair(int64_t{0}, int64_t{4}));
}

TEST(GridSampleWindow, WindowMissingATapIsAnErrorAndWritesNothing) {
  for (const std::string& impl : impls_for(DType::kFloat32, DType::kFloat32)) {
    SCOPED_TRACE(impl.empty() ? "automatic" : impl);
    Small s;
    s.desc.impl = impl;
    if (!takes_window(s.desc, DType::kFloat32, s.src.shape(), DType::kFloat32, s.grid.shape(),
                      {12, 12})) {
      continue;
    }
    // Needed box [4, 8) on both axes; the window [4, 7) x [4, 8) misses row 7.
    const Tensor part = copy_box(s.src, {0, 0, 4, 4}, {1, 2, 3, 4});
    GridSampleWindow w{{12, 12}, {4, 4}};
    Tensor dst(DType::kFloat32, {1, 2, 1, 2});
    std::memset(dst.data(), 0x5a, dst.nbytes());
    const Status st = grid_sample(s.desc, w, part, s.grid, dst.mutable_view());
    ASSERT_FALSE(st.ok());
    EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
    EXPECT_NE(st.message().find("needs input positions [4, 8) on spatial axis 0"), std::string::npos)
        << st.message();
    EXPECT_NE(st.message().find("covers only [4, 7)"), std::string::npos) << st.message();
    for (int64_t i = 0; i < dst.num_elements(); ++i) {
      uint32_t bits;
      std::memcpy(&bits, dst.data_as<float>() + i, 4);
      EXPECT_EQ(bits, 0x5a5a5a5au);
    }
    // The same window shifted to start at 5 misses row 4 and column 4.
    const Tensor part2 = copy_box(s.src, {0, 0, 5, 5}, {1, 2, 3, 3});
    GridSampleWindow w2{{12, 12}, {5, 5}};
    EXPECT_THAT(error_message(grid_sample(s.desc, w2, part2, s.grid, dst.mutable_view())),
                HasSubstr("needs input positions [4, 8) on spatial axis 0"));
    // With the needed box it runs and equals the unwindowed result.
    const Tensor part3 = copy_box(s.src, {0, 0, 4, 4}, {1, 2, 4, 4});
    GridSampleWindow w3{{12, 12}, {4, 4}};
    ASSERT_TRUE(grid_sample(s.desc, w3, part3, s.grid, dst.mutable_view()).ok());
    auto whole = grid_sample(s.desc, s.src, s.grid);
    ASSERT_TRUE(whole.ok());
    EXPECT_EQ(0, std::memcmp(whole->data(), dst.data(), dst.nbytes()));
  }
}

TEST(GridSampleWindow, AxisWithoutTapsNeedsOnlyKElements) {
  for (const std::string& impl : impls_for(DType::kFloat32, DType::kFloat32)) {
    SCOPED_TRACE(impl.empty() ? "automatic" : impl);
    Small s;
    s.desc.impl = impl;
    if (!takes_window(s.desc, DType::kFloat32, s.src.shape(), DType::kFloat32, s.grid.shape(),
                      {12, 12})) {
      continue;
    }
    // Rows: every tap outside (g = 5); columns: taps 5 and 6 (box [4, 8)).
    const float g[4] = {0.0f, 5.0f, 0.05f, 5.0f};
    std::memcpy(s.grid.data(), g, sizeof g);
    auto whole = grid_sample(s.desc, s.src, s.grid);
    ASSERT_TRUE(whole.ok());
    // Any 2 rows (K = 2) will do, wherever they are.
    const Tensor part = copy_box(s.src, {0, 0, 9, 4}, {1, 2, 2, 4});
    auto out = grid_sample(s.desc, GridSampleWindow{{12, 12}, {9, 4}}, part, s.grid);
    ASSERT_TRUE(out.ok()) << out.status().message();
    EXPECT_EQ(0, std::memcmp(whole->data(), out->data(), out->nbytes()));
    // One row is too few.
    const Tensor thin = copy_box(s.src, {0, 0, 9, 4}, {1, 2, 1, 4});
    out = grid_sample(s.desc, GridSampleWindow{{12, 12}, {9, 4}}, thin, s.grid);
    ASSERT_FALSE(out.ok());
    EXPECT_NE(out.status().message().find("at least 2"), std::string::npos) << out.status().message();
  }
}

TEST(GridSampleWindow, BadWindowsAreErrors) {
  Small s;
  const Tensor part = copy_box(s.src, {0, 0, 4, 4}, {1, 2, 4, 4});
  Tensor dst(DType::kFloat32, {1, 2, 1, 2});
  // Outside the full input.
  Status st = grid_sample(s.desc, GridSampleWindow{{12, 12}, {9, 4}}, part, s.grid,
                          dst.mutable_view());
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("must lie inside the full input"), std::string::npos) << st.message();
  st = grid_sample(s.desc, GridSampleWindow{{12, 12}, {-1, 4}}, part, s.grid, dst.mutable_view());
  EXPECT_THAT(error_message(st), HasSubstr("at origin (-1, 4) must lie inside the full input"));
  // Wrong number of entries.
  st = grid_sample(s.desc, GridSampleWindow{{12}, {4}}, part, s.grid, dst.mutable_view());
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("one entry per spatial axis (2)"), std::string::npos) << st.message();
  // Origin near INT64_MAX: no overflow, an error.
  st = grid_sample(s.desc,
                   GridSampleWindow{{12, 12}, {std::numeric_limits<int64_t>::max() - 1, 4}}, part,
                   s.grid, dst.mutable_view());
  EXPECT_THAT(error_message(st),
              HasSubstr("at origin (9223372036854775806, 4) must lie inside the full input"));
  // grid_sample_input_box: bad arguments.
  EXPECT_THAT(error_message(grid_sample_input_box(s.desc, Dims{12}, s.grid)),
              HasSubstr("grid must have shape (N, W_out, 1) for 1 spatial axes, got (1, 1, 2, 2)"));
  EXPECT_THAT(error_message(grid_sample_input_box(s.desc, Dims{12, -1}, s.grid)),
              HasSubstr("full sizes must be >= 0, got (12, -1)"));
  // The output shape is the unwindowed one's (from the grid).
  auto out = grid_sample(s.desc, GridSampleWindow{{12, 12}, {4, 4}}, part, s.grid);
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(out->shape(), (Dims{1, 2, 1, 2}));
}

}  // namespace
}  // namespace gridops
