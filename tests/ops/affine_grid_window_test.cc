// AffineGrid with an output window (AffineGridWindow): random boxes of random grids are the
// same bits as that part of the whole grid, for "ref" and the fast kernel, every dtype and
// align_corners; windows outside the grid are errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "core/convert.h"
#include "gridops/ops/affine_grid.h"
#include "support/test_util.h"

namespace gridops {
namespace {

using ::testing::HasSubstr;
using testing::error_message;

TEST(AffineGridWindow, BoxEqualsThatPartOfTheWholeGrid) {
  std::mt19937_64 rng(2020);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  std::uniform_real_distribution<double> u(-1.5, 1.5);
  const DType dtypes[] = {DType::kFloat32, DType::kFloat64, DType::kFloat16, DType::kBFloat16};
  for (int it = 0; it < 120; ++it) {
    const int r = pick(2, 3);
    const DType dt = dtypes[pick(0, 3)];
    const int64_t n = pick(1, 2);
    Dims size{n, 1};
    for (int a = 0; a < r; ++a) size.push_back(pick(1, 40));
    Tensor theta(dt, {n, r, r + 1});
    for (int64_t i = 0; i < theta.num_elements(); ++i) {
      const double v = u(rng);
      switch (dt) {
        case DType::kFloat32: theta.data_as<float>()[i] = static_cast<float>(v); break;
        case DType::kFloat64: theta.data_as<double>()[i] = v; break;
        case DType::kFloat16: theta.data_as<float16>()[i] = convert::store_real<float16>(static_cast<float>(v)); break;
        default: theta.data_as<bfloat16>()[i] = convert::store_real<bfloat16>(static_cast<float>(v)); break;
      }
    }
    for (const char* impl : {"ref", ""}) {
      AffineGridDesc desc;
      desc.align_corners = pick(0, 1);
      desc.impl = impl;
      SCOPED_TRACE(std::string(impl) + " " + dims_to_string(size) + " " + to_string(dt));
      auto whole = affine_grid(desc, theta, size);
      ASSERT_TRUE(whole.ok()) << whole.status().message();
      AffineGridWindow w;
      for (int a = 0; a < r; ++a) {
        const int64_t len = size[2 + static_cast<size_t>(a)];
        const int64_t b = pick(0, static_cast<int>(len - 1));
        w.origin.push_back(b);
        w.shape.push_back(pick(1, static_cast<int>(len - b)));
      }
      auto part = affine_grid(desc, theta, size, w);
      ASSERT_TRUE(part.ok()) << part.status().message();
      // Compare element by element with the whole grid.
      const Dims& ws = whole->shape();
      const size_t es = dtype_size(dt);
      Dims idx(part->shape().size(), 0);
      bool same = true;
      for (int64_t q = 0; q < part->num_elements(); ++q) {
        int64_t off = 0, stride = 1;
        for (size_t d = ws.size(); d-- > 0;) {
          const int64_t g = idx[d] + (d >= 1 && d <= static_cast<size_t>(r) ? w.origin[d - 1] : 0);
          off += g * stride;
          stride *= ws[d];
        }
        if (std::memcmp(static_cast<const unsigned char*>(part->data()) + static_cast<size_t>(q) * es,
                        static_cast<const unsigned char*>(whole->data()) + static_cast<size_t>(off) * es, es) != 0) {
          same = false;
        }
        for (size_t d = idx.size(); d-- > 0;) {
          if (++idx[d] < part->shape()[d]) break;
          idx[d] = 0;
        }
      }
      ASSERT_TRUE(same);
    }
  }
}

TEST(AffineGridWindow, Errors) {
  Tensor theta(DType::kFloat32, {1, 2, 3});
  AffineGridDesc desc;
  const Dims size{1, 1, 8, 8};
  EXPECT_THAT(error_message(affine_grid(desc, theta, size, AffineGridWindow{{6, 0}, {3, 8}})),
              HasSubstr("window at (6, 0) with shape (3, 8) must lie inside the grid's spatial sizes"));
  EXPECT_THAT(error_message(affine_grid(desc, theta, size, AffineGridWindow{{-1, 0}, {3, 8}})),
              HasSubstr("window at (-1, 0) with shape (3, 8) must lie inside"));
  auto st = affine_grid(desc, theta, size, AffineGridWindow{{0}, {3}});
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.status().message().find("one entry per spatial axis (2)"), std::string::npos);
  auto ok = affine_grid(desc, theta, size, AffineGridWindow{{2, 3}, {4, 5}});
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  EXPECT_EQ(ok->shape(), (Dims{1, 4, 5, 2}));
}

}  // namespace
}  // namespace gridops
