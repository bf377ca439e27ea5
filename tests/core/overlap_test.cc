// core/overlap.h: views_share_memory decides on the elements (NOTE [ Exact overlap ]), checked
// against the byte sets of random views of one small buffer, and the operators' overlap
// check accepts interleaved views that share no element.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "core/overlap.h"
#include "gridops/ops/pad.h"
#include "gridops/tensor.h"

namespace gridops {
namespace {

/// Every byte the view's elements cover, as offsets from `origin`.
std::set<int64_t> bytes_of(const TensorView& v, const unsigned char* origin) {
  std::set<int64_t> out;
  for (int64_t d : v.shape)
    if (d == 0) return out;
  const int64_t es = static_cast<int64_t>(dtype_size(v.dtype));
  std::vector<int64_t> idx(v.shape.size(), 0);
  while (true) {
    int64_t off = 0;
    for (size_t i = 0; i < idx.size(); ++i) off += idx[i] * v.strides[i];
    const int64_t at = static_cast<const unsigned char*>(v.data) - origin + off * es;
    for (int64_t b = 0; b < es; ++b) out.insert(at + b);
    size_t k = idx.size();
    while (k > 0) {
      --k;
      if (++idx[k] < v.shape[k]) break;
      idx[k] = 0;
      if (k == 0) return out;
    }
    if (idx.empty()) return out;
  }
}

bool brute_force_share(const TensorView& a, const TensorView& b, const unsigned char* origin) {
  const std::set<int64_t> x = bytes_of(a, origin), y = bytes_of(b, origin);
  for (int64_t v : x)
    if (y.count(v) != 0) return true;
  return false;
}

/// A random view inside buf[0, size): rank 0-4, lengths 0-5, strides -12..12 elements.
TensorView random_view(std::mt19937_64& rng, const std::vector<unsigned char>& buf) {
  const DType dtypes[] = {DType::kUInt8, DType::kFloat16, DType::kFloat32, DType::kFloat64};
  const DType dt = dtypes[rng() % 4];
  const int64_t es = static_cast<int64_t>(dtype_size(dt));
  const auto size = static_cast<int64_t>(buf.size());
  while (true) {
    const int rank = static_cast<int>(rng() % 5);
    Dims shape(rank), strides(rank);
    int64_t lo = 0, hi = 0;
    for (int i = 0; i < rank; ++i) {
      shape[i] = static_cast<int64_t>(rng() % 6);
      strides[i] = static_cast<int64_t>(rng() % 25) - 12;
      const int64_t reach = (std::max<int64_t>(shape[i], 1) - 1) * strides[i] * es;
      (reach < 0 ? lo : hi) += reach;
    }
    const int64_t span = hi - lo + es;
    if (span > size) continue;
    const int64_t start = -lo + static_cast<int64_t>(rng() % static_cast<uint64_t>(size - span + 1));
    return TensorView(dt, buf.data() + start, shape, strides);
  }
}

std::string describe(const TensorView& v, const unsigned char* origin) {
  std::string s = std::string(to_string(v.dtype)) + " at " +
                  std::to_string(static_cast<const unsigned char*>(v.data) - origin) + " shape";
  for (int64_t d : v.shape) s += " " + std::to_string(d);
  s += " strides";
  for (int64_t d : v.strides) s += " " + std::to_string(d);
  return s;
}

TEST(ViewsShareMemory, MatchesTheByteSetsOfRandomViews) {
  std::vector<unsigned char> buf(512);
  std::mt19937_64 rng(20261202);
  int shared = 0, disjoint_hulls_meeting = 0;
  for (int it = 0; it < 20000; ++it) {
    const TensorView a = random_view(rng, buf), b = random_view(rng, buf);
    const bool want = brute_force_share(a, b, buf.data());
    ASSERT_EQ(detail::views_share_memory(a, b), want)
        << describe(a, buf.data()) << " / " << describe(b, buf.data());
    ASSERT_EQ(detail::views_share_memory(b, a), want);
    shared += want;
    disjoint_hulls_meeting +=
        !want && detail::ranges_overlap(detail::byte_range(a), detail::byte_range(b));
  }
  // Both answers occur, and many disjoint pairs have meeting byte ranges (the cases the
  // range test refused).
  std::printf("%d of 20000 pairs share memory, %d more have meeting byte ranges only\n", shared,
              disjoint_hulls_meeting);
  EXPECT_GT(shared, 1500);
  EXPECT_GT(disjoint_hulls_meeting, 500);
}

TEST(ViewsShareMemory, InterleavedHalvesOfALargeArrayAreDisjoint) {
  // The real and imaginary parts of a (2048, 2048) complex64 array, and its even and odd
  // columns: one step per row, well inside the work bound.
  std::vector<float> buf(2048 * 4096);
  const TensorView re(DType::kFloat32, buf.data(), {2048, 2048}, {4096, 2});
  const TensorView im(DType::kFloat32, buf.data() + 1, {2048, 2048}, {4096, 2});
  EXPECT_FALSE(detail::views_share_memory(re, im));
  EXPECT_TRUE(detail::views_share_memory(re, re));
  // Flipped rows of the odd columns: still disjoint; shifted by one column, shared.
  const TensorView im_flipped(DType::kFloat32, buf.data() + 1 + 2047 * 4096, {2048, 2048},
                              {-4096, 2});
  EXPECT_FALSE(detail::views_share_memory(re, im_flipped));
  const TensorView re_shifted(DType::kFloat32, buf.data() + 2, {2048, 2047}, {4096, 2});
  EXPECT_TRUE(detail::views_share_memory(re, re_shifted));
}

TEST(ViewsShareMemory, PastTheWorkBoundTheAnswerIsShared) {
  // Floats 0, 4, 8, ... and 1, 7, 13, ...: even and odd offsets, so no element is shared,
  // but the strides differ and the search visits one of them element by element. With 100
  // elements each it decides exactly; with 10^6 it stops at its bound with the safe answer.
  std::vector<float> buf(6'000'000);
  const TensorView a_small(DType::kFloat32, buf.data(), {100}, {4});
  const TensorView b_small(DType::kFloat32, buf.data() + 1, {100}, {6});
  EXPECT_FALSE(detail::views_share_memory(a_small, b_small));
  const TensorView a(DType::kFloat32, buf.data(), {1'000'000}, {4});
  const TensorView b(DType::kFloat32, buf.data() + 1, {1'000'000}, {6});
  EXPECT_TRUE(detail::views_share_memory(a, b));
  // With one stride the same sizes are decided at once.
  const TensorView c(DType::kFloat32, buf.data() + 1, {1'000'000}, {4});
  EXPECT_FALSE(detail::views_share_memory(a, c));
}

TEST(OverlapCheck, PadAcceptsInterleavedViewsAndRefusesSharedOnes) {
  // src: the even columns of a (4, 8) float buffer; dst: its odd columns (same shape, no
  // padding), then a dst that shares src's first element.
  std::vector<float> buf(4 * 16);
  for (size_t i = 0; i < buf.size(); ++i) buf[i] = static_cast<float>(i);
  PadDesc desc;
  desc.pads_begin = {0, 0};
  desc.pads_end = {0, 0};
  const Dims shape = {4, 8};
  auto plan = make_pad_plan(desc, DType::kFloat32, shape);
  ASSERT_TRUE(plan.ok()) << plan.status().to_string();
  const TensorView src(DType::kFloat32, buf.data(), {4, 8}, {16, 2});
  MutableTensorView dst(DType::kFloat32, buf.data() + 1, {4, 8}, {16, 2});
  ASSERT_TRUE(plan->run(src, dst).ok());
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 8; ++c) EXPECT_EQ(buf[r * 16 + 2 * c + 1], static_cast<float>(r * 16 + 2 * c));
  MutableTensorView shared(DType::kFloat32, buf.data() + 2, {4, 8}, {16, 2});
  const Status s = plan->run(src, shared);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("dst must not overlap src in memory"), std::string::npos) << s.to_string();
}

}  // namespace
}  // namespace gridops
