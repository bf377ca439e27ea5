// Resampling with a window (ResampleWindow): for random problems (every dtype, algorithm
// and memory format) and random chunkings of the output, each output chunk computed from
// only the input box resample_input_box names (sometimes widened) is the same bits as that
// part of the unwindowed result on the full tensors, for "ref" and "fast". Plus the errors:
// a src box that misses a tap, windows outside the full tensors, backward of a windowed
// plan.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "core/convert.h"
#include "gridops/ops/resample.h"
#include "support/test_util.h"

namespace gridops {
namespace {

using ::testing::HasSubstr;
using testing::error_message;

using testing::random_chunks;

ResampleMemoryDesc md(DType dt, Dims dims, MemoryFormat f) {
  ResampleMemoryDesc m;
  m.dtype = dt;
  m.dims = std::move(dims);
  m.format = f;
  return m;
}

/// A zeroed buffer for a desc.
std::vector<unsigned char> buffer(const ResampleMemoryDesc& m) {
  auto n = m.buffer_elements();
  EXPECT_TRUE(n.ok());
  return std::vector<unsigned char>(static_cast<size_t>(*n) * dtype_size(m.dtype) + 1, 0);
}

/// Visits every logical index (n, c, spatial...) of dims.
template <class F>
void for_each_index(const Dims& dims, F&& f) {
  int64_t total = 1;
  for (int64_t d : dims) total *= d;
  Dims idx(dims.size(), 0);
  for (int64_t q = 0; q < total; ++q) {
    f(idx);
    for (size_t d = dims.size(); d-- > 0;) {
      if (++idx[d] < dims[d]) break;
      idx[d] = 0;
    }
  }
}

TEST(ResampleWindow, ChunkedEqualsWholeBitForBit) {
  std::mt19937_64 rng(1123);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  const DType dtypes[] = {DType::kFloat32, DType::kFloat32, DType::kBFloat16, DType::kFloat16,
                          DType::kFloat64};
  const MemoryFormat formats[] = {MemoryFormat::kPlain, MemoryFormat::kChannelsLast,
                                  MemoryFormat::kBlocked8, MemoryFormat::kBlocked16};
  int hwy_runs = 0;
  for (int it = 0; it < 120; ++it) {
    const DType dt = dtypes[pick(0, 4)];
    const auto alg = pick(0, 2) == 0 ? ResampleAlgorithm::kNearest : ResampleAlgorithm::kLinear;
    const int r = pick(1, 3);
    const int64_t n = pick(1, 2), c = pick(0, 3) == 0 ? pick(5, 19) : pick(1, 3);
    Dims fin, fout;
    for (int k = 0; k < r; ++k) {
      fin.push_back(r == 3 ? pick(1, 9) : pick(1, 24));
      // Up- and downsampling, including by large factors.
      fout.push_back(r == 3 ? pick(1, 9) : pick(1, 30));
    }
    const MemoryFormat sf = formats[pick(0, 3)], df = formats[pick(0, 3)];
    Dims sdims{n, c}, ddims{n, c};
    sdims.insert(sdims.end(), fin.begin(), fin.end());
    ddims.insert(ddims.end(), fout.begin(), fout.end());
    const ResampleMemoryDesc smd = md(dt, sdims, sf), dmd = md(dt, ddims, df);
    const std::string what = std::string(to_string(alg)) + " " + to_string(dt) + " " +
                             format_tag(sf, r) + " -> " + format_tag(df, r) + " in " +
                             dims_to_string(sdims) + " out " + dims_to_string(ddims);
    SCOPED_TRACE(what);
    const size_t es = dtype_size(dt);
    std::vector<unsigned char> src = buffer(smd);
    for (size_t i = 0; i + es <= src.size(); i += es) {
      const float v = std::uniform_real_distribution<float>(-3.0f, 3.0f)(rng);
      switch (dt) {
        case DType::kFloat32: std::memcpy(&src[i], &v, 4); break;
        case DType::kFloat64: { const double d = v; std::memcpy(&src[i], &d, 8); break; }
        case DType::kFloat16: { const float16 h = convert::store_real<float16>(v); std::memcpy(&src[i], &h, 2); break; }
        default: { const bfloat16 b = convert::store_real<bfloat16>(v); std::memcpy(&src[i], &b, 2); break; }
      }
    }
    for (const char* impl : {"ref", "fast"}) {
      SCOPED_TRACE(impl);
      ResampleDesc desc;
      desc.algorithm = alg;
      desc.impl = impl;
      auto whole_plan = make_resample_plan(desc, smd, dmd);
      if (!whole_plan.ok()) {
        ASSERT_STREQ(impl, "fast") << whole_plan.status().message();  // fast declines float64
        continue;
      }
      if (std::string(impl) == "fast") ++hwy_runs;
      std::vector<unsigned char> whole = buffer(dmd);
      ASSERT_TRUE(whole_plan->forward(src.data(), whole.data()).ok());
      std::vector<std::vector<std::pair<int64_t, int64_t>>> ch(static_cast<size_t>(r));
      for (int k = 0; k < r; ++k) ch[static_cast<size_t>(k)] = random_chunks(rng, fout[static_cast<size_t>(k)]);
      Dims ci(static_cast<size_t>(r), 0);
      int64_t compared = 0;
      for (;;) {
        ResampleWindow w;
        w.full_in = fin;
        w.full_out = fout;
        Dims ob(static_cast<size_t>(r)), oe(static_cast<size_t>(r));
        for (int k = 0; k < r; ++k) {
          const auto& [b, e] = ch[static_cast<size_t>(k)][static_cast<size_t>(ci[static_cast<size_t>(k)])];
          ob[static_cast<size_t>(k)] = b;
          oe[static_cast<size_t>(k)] = e;
        }
        auto box = resample_input_box(alg, fin, fout, ob, oe);
        ASSERT_TRUE(box.ok()) << box.status().message();
        Dims bsd{n, c}, cdd{n, c};
        for (int k = 0; k < r; ++k) {
          auto [lo, hi] = (*box)[static_cast<size_t>(k)];
          ASSERT_LE(0, lo);
          ASSERT_LT(lo, hi);
          ASSERT_LE(hi, fin[static_cast<size_t>(k)]);
          if (pick(0, 2) == 0) lo = pick(0, static_cast<int>(lo));
          if (pick(0, 2) == 0) hi = pick(static_cast<int>(hi), static_cast<int>(fin[static_cast<size_t>(k)]));
          w.in_origin.push_back(lo);
          w.out_origin.push_back(ob[static_cast<size_t>(k)]);
          bsd.push_back(hi - lo);
          cdd.push_back(oe[static_cast<size_t>(k)] - ob[static_cast<size_t>(k)]);
        }
        const ResampleMemoryDesc bmd = md(dt, bsd, sf), cmd = md(dt, cdd, df);
        std::vector<unsigned char> part = buffer(bmd), out = buffer(cmd);
        for_each_index(bsd, [&](const Dims& idx) {
          Dims g = idx;
          for (int k = 0; k < r; ++k) g[2 + static_cast<size_t>(k)] += w.in_origin[static_cast<size_t>(k)];
          std::memcpy(&part[static_cast<size_t>(bmd.offset(idx)) * es],
                      &src[static_cast<size_t>(smd.offset(g)) * es], es);
        });
        auto plan = make_resample_plan(desc, bmd, cmd, w);
        ASSERT_TRUE(plan.ok()) << plan.status().message();
        EXPECT_STREQ(plan->impl_name(), whole_plan->impl_name());
        ASSERT_TRUE(plan->forward(part.data(), out.data()).ok());
        bool same = true;
        for_each_index(cdd, [&](const Dims& idx) {
          Dims g = idx;
          for (int k = 0; k < r; ++k) g[2 + static_cast<size_t>(k)] += ob[static_cast<size_t>(k)];
          if (std::memcmp(&out[static_cast<size_t>(cmd.offset(idx)) * es],
                          &whole[static_cast<size_t>(dmd.offset(g)) * es], es) != 0) {
            same = false;
          }
          ++compared;
        });
        ASSERT_TRUE(same) << "chunk at " << dims_to_string(ob) << " differs";
        int k = r - 1;
        for (; k >= 0; --k) {
          if (++ci[static_cast<size_t>(k)] < static_cast<int64_t>(ch[static_cast<size_t>(k)].size())) break;
          ci[static_cast<size_t>(k)] = 0;
        }
        if (k < 0) break;
      }
      int64_t expect = n * c;
      for (int64_t o : fout) expect *= o;
      EXPECT_EQ(compared, expect);
    }
  }
#ifdef GRIDOPS_HAVE_HWY
  EXPECT_GT(hwy_runs, 50);
#endif
}

TEST(ResampleWindow, InputBoxAndErrors) {
  // Linear 8 -> 4: s = (o + 0.5) * 2 - 0.5 = 2o + 0.5, taps 2o and 2o + 1.
  auto box = resample_input_box(ResampleAlgorithm::kLinear, Dims{8}, Dims{4}, Dims{1}, Dims{3});
  ASSERT_TRUE(box.ok());
  EXPECT_EQ((*box)[0], std::make_pair(int64_t{2}, int64_t{6}));
  // Nearest 4 -> 8: i = floor((2o + 1) * 4 / 16): o = 3 -> 1, o = 5 -> 2.
  box = resample_input_box(ResampleAlgorithm::kNearest, Dims{4}, Dims{8}, Dims{3}, Dims{6});
  ASSERT_TRUE(box.ok());
  EXPECT_EQ((*box)[0], std::make_pair(int64_t{1}, int64_t{3}));
  EXPECT_THAT(error_message(resample_input_box(ResampleAlgorithm::kLinear, Dims{8}, Dims{4}, Dims{3}, Dims{5})),
              HasSubstr("got full_in 8, full_out 4, outputs [3, 5)"));
  EXPECT_THAT(error_message(resample_input_box(ResampleAlgorithm::kLinear, Dims{0}, Dims{4}, Dims{0}, Dims{1})),
              HasSubstr("got full_in 0, full_out 4, outputs [0, 1)"));

  ResampleDesc desc;
  desc.algorithm = ResampleAlgorithm::kLinear;
  const ResampleMemoryDesc s3 = md(DType::kFloat32, {1, 1, 3}, MemoryFormat::kPlain);
  const ResampleMemoryDesc d2 = md(DType::kFloat32, {1, 1, 2}, MemoryFormat::kPlain);
  // Outputs [1, 3) of 8 -> 4 read [2, 6): a src box [2, 5) misses input 5.
  auto plan = make_resample_plan(desc, s3, d2, ResampleWindow{{8}, {4}, {2}, {1}});
  ASSERT_FALSE(plan.ok());
  EXPECT_NE(plan.status().message().find("read inputs [2, 6)"), std::string::npos)
      << plan.status().message();
  EXPECT_NE(plan.status().message().find("covers only [2, 5)"), std::string::npos);
  // Outside the full tensors.
  EXPECT_THAT(error_message(make_resample_plan(desc, s3, d2, ResampleWindow{{8}, {4}, {6}, {1}})),
              HasSubstr("src at (6,) (dims (1, 1, 3)) must lie in the full input (8,)"));
  EXPECT_THAT(error_message(make_resample_plan(desc, s3, d2, ResampleWindow{{8}, {4}, {2}, {3}})),
              HasSubstr("dst at (3,) (dims (1, 1, 2)) in the full output (4,)"));
  EXPECT_THAT(error_message(make_resample_plan(desc, s3, d2, ResampleWindow{{8}, {4}, {-1}, {1}})),
              HasSubstr("src at (-1,)"));
  EXPECT_THAT(error_message(make_resample_plan(desc, s3, d2, ResampleWindow{{8, 8}, {4}, {2}, {1}})),
              HasSubstr("must have one entry per spatial axis (1), got (8, 8)"));
  // The right box works; backward of it is refused.
  const ResampleMemoryDesc s4 = md(DType::kFloat32, {1, 1, 4}, MemoryFormat::kPlain);
  plan = make_resample_plan(desc, s4, d2, ResampleWindow{{8}, {4}, {2}, {1}});
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  const float in[4] = {2, 3, 4, 5};
  float out[2] = {0, 0};
  ASSERT_TRUE(plan->forward(in, out).ok());
  // o = 1: s = 2.5 -> 0.5 * (2 + 3); o = 2: s = 4.5 -> 0.5 * (4 + 5).
  EXPECT_EQ(out[0], 2.5f);
  EXPECT_EQ(out[1], 4.5f);
  float g[4];
  const Status st = plan->backward(out, g);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("forward only"), std::string::npos);
}

}  // namespace
}  // namespace gridops
