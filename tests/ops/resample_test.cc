// Tests for resampling (forward and backward). Expected values come from hand calculations
// (in comments) or from the independent formulas below (expected_taps, phys_offset), never
// from the library's own output.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "core/convert.h"
#include "gridops/ops/resample.h"
#include "gridops/parallel.h"
#include "kernels/resample/resample.h"
#include "support/test_util.h"

namespace gridops {
namespace {

using testing::product;
using testing::unravel;

using ::testing::HasSubstr;

constexpr MemoryFormat kAllFormats[] = {MemoryFormat::kPlain, MemoryFormat::kChannelsLast,
                                        MemoryFormat::kBlocked8, MemoryFormat::kBlocked16};
constexpr ResampleAlgorithm kAlgs[] = {ResampleAlgorithm::kNearest, ResampleAlgorithm::kLinear};
constexpr DType kDTypes[] = {DType::kFloat32, DType::kFloat64, DType::kFloat16,
                             DType::kBFloat16};

ResampleMemoryDesc md(DType dt, Dims dims, MemoryFormat f = MemoryFormat::kPlain) {
  ResampleMemoryDesc m;
  m.dtype = dt;
  m.dims = std::move(dims);
  m.format = f;
  return m;
}

ResampleDesc rdesc(ResampleAlgorithm a, std::string impl = "") {
  ResampleDesc d;
  d.algorithm = a;
  d.impl = std::move(impl);
  return d;
}

// --- an independent description of the memory formats ------------------------------------

int64_t block_size(MemoryFormat f) {
  return f == MemoryFormat::kBlocked8 ? 8 : f == MemoryFormat::kBlocked16 ? 16 : 1;
}

/// Physical dims and the physical index of logical (n, c, d...), as oneDNN's tags read:
/// nchw = (N, C, D...), nhwc = (N, D..., C), nChw8c = (N, ceil(C/8), D..., 8).
void physical(MemoryFormat f, const Dims& dims, const Dims& idx, Dims* pd, Dims* pi) {
  const size_t r = dims.size() - 2;
  pd->clear();
  pi->clear();
  pd->push_back(dims[0]);
  pi->push_back(idx[0]);
  if (f == MemoryFormat::kPlain) {
    *pd = dims;
    *pi = idx;
    return;
  }
  if (f == MemoryFormat::kChannelsLast) {
    for (size_t k = 0; k < r; ++k) {
      pd->push_back(dims[2 + k]);
      pi->push_back(idx[2 + k]);
    }
    pd->push_back(dims[1]);
    pi->push_back(idx[1]);
    return;
  }
  const int64_t b = block_size(f);
  pd->push_back((dims[1] + b - 1) / b);
  pi->push_back(idx[1] / b);
  for (size_t k = 0; k < r; ++k) {
    pd->push_back(dims[2 + k]);
    pi->push_back(idx[2 + k]);
  }
  pd->push_back(b);
  pi->push_back(idx[1] % b);
}

int64_t phys_offset(MemoryFormat f, const Dims& dims, const Dims& idx) {
  Dims pd, pi;
  physical(f, dims, idx, &pd, &pi);
  int64_t off = 0;
  for (size_t i = 0; i < pd.size(); ++i) off = off * pd[i] + pi[i];
  return off;
}

int64_t phys_size(MemoryFormat f, const Dims& dims) {
  Dims pd, pi;
  physical(f, dims, Dims(dims.size(), 0), &pd, &pi);
  return product(pd);
}

/// The logical (row-major over dims) values, laid out in md's format; padding = pad.
template <class T>
std::vector<T> pack(const std::vector<double>& logical, const ResampleMemoryDesc& m,
                    double pad = 0.0) {
  std::vector<T> buf(static_cast<size_t>(phys_size(m.format, m.dims)),
                     convert::store_real<T>(pad));
  for (int64_t f = 0; f < static_cast<int64_t>(logical.size()); ++f) {
    buf[phys_offset(m.format, m.dims, unravel(f, m.dims))] = convert::store_real<T>(logical[f]);
  }
  return buf;
}

template <class T>
std::vector<double> unpack(const std::vector<T>& buf, const ResampleMemoryDesc& m) {
  std::vector<double> out(static_cast<size_t>(product(m.dims)));
  for (int64_t f = 0; f < static_cast<int64_t>(out.size()); ++f) {
    out[f] = convert::load_real<double>(buf[phys_offset(m.format, m.dims, unravel(f, m.dims))]);
  }
  return out;
}

/// The buffer elements of the padded channels [C, ceil(C/B)*B) of a blocked format.
template <class T>
std::vector<T> padding_of(const std::vector<T>& buf, const ResampleMemoryDesc& m) {
  std::vector<T> out;
  const int64_t b = block_size(m.format);
  const int64_t cp = (m.dims[1] + b - 1) / b * b;
  Dims padded = m.dims;
  padded[1] = cp;
  for (int64_t f = 0; f < product(padded); ++f) {
    Dims idx = unravel(f, padded);
    if (idx[1] < m.dims[1]) continue;
    out.push_back(buf[phys_offset(m.format, m.dims, idx)]);
  }
  return out;
}

// --- an independent forward/adjoint reference -----------------------------------------------

/// Taps of output o along an axis (I -> O), written from the ERRATA text: nearest
/// floor((2o + 1) I / (2O)) in integers; linear s = ((2o + 1) I - O) / (2O), taps floor(s)
/// and floor(s) + 1 clamped, weights 1 - t and t.
std::vector<std::pair<int64_t, double>> expected_taps(ResampleAlgorithm a, int64_t o, int64_t in,
                                                      int64_t out) {
  if (a == ResampleAlgorithm::kNearest) {
    int64_t i = ((2 * o + 1) * in) / (2 * out);
    if (i > in - 1) i = in - 1;
    return {{i, 1.0}};
  }
  const double s = static_cast<double>((2 * o + 1) * in - out) / static_cast<double>(2 * out);
  const double fl = std::floor(s);
  const double t = s - fl;
  auto clampi = [&](int64_t i) { return i < 0 ? 0 : (i > in - 1 ? in - 1 : i); };
  const auto lo = static_cast<int64_t>(fl);
  return {{clampi(lo), 1.0 - t}, {clampi(lo + 1), t}};
}

/// Calls f(src_flat, dst_flat, weight) for every (output, tap combination) pair.
template <class F>
void for_each_weight(ResampleAlgorithm a, const Dims& sd, const Dims& dd, F&& f) {
  const size_t r = sd.size() - 2;
  for (int64_t of = 0; of < product(dd); ++of) {
    const Dims oi = unravel(of, dd);
    std::vector<std::vector<std::pair<int64_t, double>>> taps(r);
    for (size_t k = 0; k < r; ++k) taps[k] = expected_taps(a, oi[2 + k], sd[2 + k], dd[2 + k]);
    std::vector<size_t> j(r, 0);
    while (true) {
      double w = 1.0;
      int64_t sf = oi[0] * sd[1] + oi[1];
      for (size_t k = 0; k < r; ++k) {
        w *= taps[k][j[k]].second;
        sf = sf * sd[2 + k] + taps[k][j[k]].first;
      }
      f(sf, of, w);
      size_t k = r;
      while (k > 0 && ++j[k - 1] == taps[k - 1].size()) j[--k] = 0;
      if (k == 0) break;
    }
  }
}

std::vector<double> expected_forward(ResampleAlgorithm a, const Dims& sd, const Dims& dd,
                                     const std::vector<double>& x) {
  std::vector<double> y(static_cast<size_t>(product(dd)), 0.0);
  for_each_weight(a, sd, dd, [&](int64_t s, int64_t o, double w) { y[o] += w * x[s]; });
  return y;
}

std::vector<double> expected_backward(ResampleAlgorithm a, const Dims& sd, const Dims& dd,
                                      const std::vector<double>& gy) {
  std::vector<double> gx(static_cast<size_t>(product(sd)), 0.0);
  for_each_weight(a, sd, dd, [&](int64_t s, int64_t o, double w) { gx[s] += w * gy[o]; });
  return gx;
}

std::vector<double> random_values(std::mt19937_64& rng, int64_t n, double lo, double hi) {
  std::uniform_real_distribution<double> u(lo, hi);
  std::vector<double> v(static_cast<size_t>(n));
  for (double& e : v) e = u(rng);
  return v;
}

/// Rounds through T (what storing the inputs does), so expectations use the same inputs.
template <class T>
std::vector<double> as_type(const std::vector<double>& v) {
  std::vector<double> out(v.size());
  for (size_t i = 0; i < v.size(); ++i) {
    out[i] = convert::load_real<double>(convert::store_real<T>(v[i]));
  }
  return out;
}

// --- running the library ----------------------------------------------------------------

template <class T>
std::vector<double> forward_t(ResampleAlgorithm a, const ResampleMemoryDesc& s,
                              const ResampleMemoryDesc& d, const std::vector<double>& x) {
  std::vector<T> src = pack<T>(x, s, std::nan(""));  // NaN padding: must be ignored
  std::vector<T> dst(static_cast<size_t>(phys_size(d.format, d.dims)) + 1);
  Status st = resample_forward(rdesc(a), s, src.data(), d, dst.data());
  EXPECT_TRUE(st.ok()) << st.to_string();
  return unpack(dst, d);
}

template <class T>
std::vector<double> backward_t(ResampleAlgorithm a, const ResampleMemoryDesc& s,
                               const ResampleMemoryDesc& d, const std::vector<double>& gy) {
  std::vector<T> ddst = pack<T>(gy, d, std::nan(""));
  std::vector<T> dsrc(static_cast<size_t>(phys_size(s.format, s.dims)) + 1,
                      convert::store_real<T>(123.0));
  Status st = resample_backward(rdesc(a), s, dsrc.data(), d, ddst.data());
  EXPECT_TRUE(st.ok()) << st.to_string();
  return unpack(dsrc, s);
}

/// f64 forward/backward through the plain format.
std::vector<double> fwd64(ResampleAlgorithm a, const Dims& sd, const Dims& dd,
                          const std::vector<double>& x) {
  return forward_t<double>(a, md(DType::kFloat64, sd), md(DType::kFloat64, dd), x);
}
std::vector<double> bwd64(ResampleAlgorithm a, const Dims& sd, const Dims& dd,
                          const std::vector<double>& gy) {
  return backward_t<double>(a, md(DType::kFloat64, sd), md(DType::kFloat64, dd), gy);
}

template <class F>
void for_each_type(DType dt, F&& f) {
  switch (dt) {
    case DType::kFloat32: f(TypeTag<float>{}); break;
    case DType::kFloat64: f(TypeTag<double>{}); break;
    case DType::kFloat16: f(TypeTag<float16>{}); break;
    case DType::kBFloat16: f(TypeTag<bfloat16>{}); break;
    default: FAIL() << "unexpected dtype";
  }
}

/// Relative tolerance of a result stored in dt and computed in double: one unit in the last
/// place (the reference and the library may sum in different orders).
double rel_tol(DType dt) {
  switch (dt) {
    case DType::kFloat64: return 1e-13;
    case DType::kFloat32: return std::ldexp(1.0, -23);
    case DType::kFloat16: return std::ldexp(1.0, -10);
    default: return std::ldexp(1.0, -7);
  }
}

/// `sum_abs` (optional): per element, the sum of |w * x| over its terms; the float32
/// arithmetic of the fast path adds up to `fast_rel` * sum_abs to the tolerance (see
/// docs/ops/resample.md "Fast path" and tests/kernels/resample_diff_test.cc).
void expect_close(const std::vector<double>& got, const std::vector<double>& want, DType dt,
                  double scale, const std::vector<double>* sum_abs = nullptr,
                  double fast_rel = 0.0) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    // float64: the two sums, in different orders, differ by a few ulp of their terms
    // (|w x| <= scale), which a result that cancels to near zero cannot bound relative to
    // itself (seen with per-run seeds: 2.2e-16 apart at |want| = 1.9e-3); 1e-13 * scale does.
    const double floor = (dt == DType::kFloat64 ? 1.0 : 1e-3) * scale;
    const double tol = rel_tol(dt) * std::max(std::fabs(want[i]), floor) + 1e-300 +
                       (sum_abs ? fast_rel * (*sum_abs)[i] : 0.0);
    ASSERT_NEAR(got[i], want[i], tol) << "element " << i;
  }
}

// ===== names and formats ====================================================================

TEST(ResampleNames, Algorithms) {
  EXPECT_STREQ(to_string(ResampleAlgorithm::kNearest), "nearest");
  EXPECT_STREQ(to_string(ResampleAlgorithm::kLinear), "linear");
  for (const char* s : {"linear", "bilinear", "trilinear"}) {
    auto a = parse_resample_algorithm(s);
    ASSERT_TRUE(a.ok()) << s;
    EXPECT_EQ(*a, ResampleAlgorithm::kLinear);
  }
  ASSERT_TRUE(parse_resample_algorithm("nearest").ok());
  EXPECT_EQ(*parse_resample_algorithm("nearest"), ResampleAlgorithm::kNearest);
  auto bad = parse_resample_algorithm("cubic");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(bad.status().message(), HasSubstr("resample: algorithm must be one of"));
  EXPECT_THAT(bad.status().message(), HasSubstr("got 'cubic'"));
}

TEST(ResampleNames, FormatTagsRoundTrip) {
  const char* want[4][3] = {{"ncw", "nchw", "ncdhw"},
                            {"nwc", "nhwc", "ndhwc"},
                            {"nCw8c", "nChw8c", "nCdhw8c"},
                            {"nCw16c", "nChw16c", "nCdhw16c"}};
  for (int f = 0; f < 4; ++f) {
    for (int r = 1; r <= 3; ++r) {
      EXPECT_EQ(format_tag(kAllFormats[f], r), want[f][r - 1]);
      int rank = -1;
      auto p = parse_memory_format(want[f][r - 1], &rank);
      ASSERT_TRUE(p.ok()) << want[f][r - 1];
      EXPECT_EQ(*p, kAllFormats[f]);
      EXPECT_EQ(rank, r);
    }
    EXPECT_EQ(format_tag(kAllFormats[f], 0), "");
    EXPECT_EQ(format_tag(kAllFormats[f], 4), "");
  }
  const char* words[] = {"plain", "channels_last", "blocked8", "blocked16"};
  for (int f = 0; f < 4; ++f) {
    int rank = -1;
    auto p = parse_memory_format(words[f], &rank);
    ASSERT_TRUE(p.ok());
    EXPECT_EQ(*p, kAllFormats[f]);
    EXPECT_EQ(rank, 0);
  }
  EXPECT_TRUE(parse_memory_format("nhwc").ok());  // rank pointer is optional
  for (const char* s : {"nchw8c", "NCHW", "nChw4c", ""}) {
    auto p = parse_memory_format(s);
    ASSERT_FALSE(p.ok()) << s;
    EXPECT_EQ(p.status().code(), StatusCode::kInvalidArgument);
    EXPECT_THAT(p.status().message(), HasSubstr("resample: memory format must be"));
    EXPECT_THAT(p.status().message(), HasSubstr("got '" + std::string(s) + "'"));
  }
}

TEST(ResampleMemoryDesc, BufferElements) {
  EXPECT_EQ(*md(DType::kFloat32, {2, 3, 4, 5}).buffer_elements(), 120);
  EXPECT_EQ(*md(DType::kFloat32, {2, 3, 4, 5}, MemoryFormat::kChannelsLast).buffer_elements(),
            120);
  // C = 3 pads to 8 or 16 channels.
  EXPECT_EQ(*md(DType::kFloat32, {2, 3, 4, 5}, MemoryFormat::kBlocked8).buffer_elements(), 320);
  EXPECT_EQ(*md(DType::kFloat32, {2, 3, 4, 5}, MemoryFormat::kBlocked16).buffer_elements(), 640);
  // C = 17 pads to 24 / 32.
  EXPECT_EQ(*md(DType::kFloat32, {1, 17, 2}, MemoryFormat::kBlocked8).buffer_elements(), 48);
  EXPECT_EQ(*md(DType::kFloat32, {1, 17, 2}, MemoryFormat::kBlocked16).buffer_elements(), 64);
  EXPECT_EQ(*md(DType::kFloat32, {1, 0, 2}, MemoryFormat::kBlocked16).buffer_elements(), 0);
  EXPECT_EQ(*md(DType::kFloat32, {1, 2, 0, 3, 3}).buffer_elements(), 0);
  const int64_t big = int64_t{1} << 40;
  auto ov = md(DType::kFloat32, {big, big, 2}).buffer_elements();
  ASSERT_FALSE(ov.ok());
  EXPECT_THAT(ov.status().message(), HasSubstr("overflows 64 bits"));
  // 2^62 elements fit int64, 2^62 * 4 bytes do not.
  auto bytes = md(DType::kFloat32, {1, 1, int64_t{1} << 62}).buffer_elements();
  ASSERT_FALSE(bytes.ok());
  EXPECT_THAT(bytes.status().message(), HasSubstr("overflows 64 bits"));
  // The padded channel count itself overflows.
  auto pad = md(DType::kFloat32, {1, std::numeric_limits<int64_t>::max(), 1},
                MemoryFormat::kBlocked16)
                 .buffer_elements();
  ASSERT_FALSE(pad.ok());
  EXPECT_THAT(pad.status().message(), HasSubstr("nCw16c overflows 64 bits"));
  auto neg = md(DType::kFloat32, {1, 2, -3}).buffer_elements();
  ASSERT_FALSE(neg.ok());
  EXPECT_THAT(neg.status().message(),
              HasSubstr("resample: memory desc dims must be >= 0, got -3 at axis 2"));
  auto rank = md(DType::kFloat32, {1, 2}).buffer_elements();
  ASSERT_FALSE(rank.ok());
  EXPECT_THAT(rank.status().message(), HasSubstr("rank 3, 4 or 5), got rank 2 (1, 2)"));
}

TEST(ResampleMemoryDesc, OffsetMatchesTags) {
  const Dims shapes[] = {{2, 3, 5}, {2, 19, 3, 4}, {1, 9, 2, 3, 2}, {3, 1, 1, 1}};
  for (const Dims& dims : shapes) {
    for (MemoryFormat f : kAllFormats) {
      const ResampleMemoryDesc m = md(DType::kFloat32, dims, f);
      for (int64_t i = 0; i < product(dims); ++i) {
        const Dims idx = unravel(i, dims);
        ASSERT_EQ(m.offset(idx), phys_offset(f, dims, idx))
            << format_tag(f, static_cast<int>(dims.size()) - 2) << " " << dims_to_string(idx);
      }
    }
  }
  // Spot checks by hand: nChw8c (1, 10, 2, 3): element (0, 9, 1, 2) is in block 1, lane 1:
  // ((0 * 2 + 1) * 6 + 1 * 3 + 2) * 8 + 1 = 89.
  EXPECT_EQ(md(DType::kFloat32, {1, 10, 2, 3}, MemoryFormat::kBlocked8).offset(Dims{0, 9, 1, 2}),
            89);
  // nhwc (2, 3, 4, 5): (1, 2, 3, 4) -> ((1 * 4 + 3) * 5 + 4) * 3 + 2 = 119.
  EXPECT_EQ(
      md(DType::kFloat32, {2, 3, 4, 5}, MemoryFormat::kChannelsLast).offset(Dims{1, 2, 3, 4}),
      119);
}

// ===== output size from factors (ERRATA Resampling 2) =======================================

TEST(ResampleDstDims, FloorOfProduct) {
  const Dims src = {2, 3, 5, 7, 3};
  const double f[] = {1.5, 0.75, 2.0};
  auto d = resample_dst_dims(src, f);
  ASSERT_TRUE(d.ok()) << d.status().to_string();
  // floor(5 * 1.5) = 7, floor(7 * 0.75) = floor(5.25) = 5, floor(3 * 2) = 6.
  EXPECT_EQ(*d, (Dims{2, 3, 7, 5, 6}));
  // floor(I * F), not the spec's floor(I / F): 64 * 0.640625 = 41 (the spec would give 99).
  const Dims s1 = {1, 1, 64};
  const double f1[] = {0.640625};
  EXPECT_EQ(*resample_dst_dims(s1, f1), (Dims{1, 1, 41}));
  // Computed in double: 10 * 0.3 = 3.0000000000000004 -> 3; 3 * (1/3.) = 1 exactly.
  const Dims s2 = {1, 1, 10, 3};
  const double f2[] = {0.3, 1.0 / 3.0};
  EXPECT_EQ(*resample_dst_dims(s2, f2), (Dims{1, 1, 3, 1}));
  // An empty input axis gives an empty output axis.
  const Dims s3 = {1, 1, 0};
  const double f3[] = {2.0};
  EXPECT_EQ(*resample_dst_dims(s3, f3), (Dims{1, 1, 0}));
}

TEST(ResampleDstDims, Errors) {
  auto fails = [](Dims src, std::vector<double> f, const std::string& text) {
    auto d = resample_dst_dims(src, f);
    ASSERT_FALSE(d.ok()) << text;
    EXPECT_EQ(d.status().code(), StatusCode::kInvalidArgument);
    EXPECT_THAT(d.status().message(), HasSubstr(text));
  };
  const double inf = std::numeric_limits<double>::infinity();
  fails({1, 1, 4}, {0.0}, "resample: factor 0 must be finite and > 0, got 0");
  fails({1, 1, 4, 4}, {1.0, -2.0}, "resample: factor 1 must be finite and > 0, got -2");
  fails({1, 1, 4}, {std::nan("")}, "factor 0 must be finite and > 0, got nan");
  fails({1, 1, 4}, {inf}, "factor 0 must be finite and > 0, got inf");
  fails({1, 1, 4, 4}, {2.0}, "resample: factors must have one entry per spatial axis (2 for src "
                             "dims (1, 1, 4, 4)), got 1");
  fails({1, 1, 4}, {2.0, 2.0}, "one entry per spatial axis (1 for src dims (1, 1, 4)), got 2");
  fails({1, 1, 3}, {0.25}, "factor 0 = 0.25 gives output length floor(3 * 0.25) = 0");
  fails({1, 1, int64_t{1} << 62}, {4.0}, "of spatial axis 0 does not fit in 64 bits");
  fails({1, 1}, {}, "resample: src dims must be (N, C, D1..Dr) with r in 1..3");
  fails({1, 1, 1, 1, 1, 1}, {1, 1, 1, 1}, "got rank 6");
  fails({1, -1, 4}, {2.0}, "resample: src dims must be >= 0, got -1 at axis 1 of (1, -1, 4)");
}

// ===== forward, by hand =====================================================================

// I = 2 -> O = 4 linear: s = (o + 0.5) / 2 - 0.5 = -0.25, 0.25, 0.75, 1.25.
//   o = 0: taps -1 -> 0 and 0, t = 0.75: 0.25 * 1 + 0.75 * 1 = 1       (edge replicated)
//   o = 1: taps 0, 1, t = 0.25: 0.75 * 1 + 0.25 * 3 = 1.5
//   o = 2: taps 0, 1, t = 0.75: 0.25 * 1 + 0.75 * 3 = 2.5
//   o = 3: taps 1, 2 -> 1: 3                                             (edge replicated)
// (The DNNL 1.2 printed formula swaps the weights and would give 2.5 at o = 1.)
TEST(ResampleForward, Linear1DUpsampleByHand) {
  EXPECT_EQ(fwd64(ResampleAlgorithm::kLinear, {1, 1, 2}, {1, 1, 4}, {1, 3}),
            (std::vector<double>{1, 1.5, 2.5, 3}));
}

// I = 4 -> O = 2 linear: s = (o + 0.5) * 2 - 0.5 = 0.5, 2.5 -> midpoints.
// I = 3 -> O = 5 linear: s = (o + 0.5) * 0.6 - 0.5 = -0.2, 0.4, 1.0, 1.6, 2.2:
//   0 (edge), 0.6 * 0 + 0.4 * 10 = 4, 10, 0.4 * 10 + 0.6 * 30 = 22, 30 (edge).
TEST(ResampleForward, Linear1DDownsampleAndNonIntegerByHand) {
  EXPECT_EQ(fwd64(ResampleAlgorithm::kLinear, {1, 1, 4}, {1, 1, 2}, {0, 10, 20, 40}),
            (std::vector<double>{5, 30}));
  const auto y = fwd64(ResampleAlgorithm::kLinear, {1, 1, 3}, {1, 1, 5}, {0, 10, 30});
  const double want[] = {0, 4, 10, 22, 30};
  for (int i = 0; i < 5; ++i) EXPECT_NEAR(y[i], want[i], 1e-12) << i;
}

// Nearest i = floor((2o + 1) I / (2O)):
//   3 -> 2: 3/4 -> 0, 9/4 -> 2.         2 -> 3: 2/6 -> 0, 6/6 -> 1, 10/6 -> 1.
//   2 -> 4: 2/8, 6/8, 10/8, 14/8 -> 0, 0, 1, 1.
//   5 -> 7: 5/14, 15/14, 25/14, 35/14, 45/14, 55/14, 65/14 -> 0, 1, 1, 2, 3, 3, 4.
TEST(ResampleForward, Nearest1DByHand) {
  const auto nn = ResampleAlgorithm::kNearest;
  EXPECT_EQ(fwd64(nn, {1, 1, 3}, {1, 1, 2}, {10, 11, 12}), (std::vector<double>{10, 12}));
  EXPECT_EQ(fwd64(nn, {1, 1, 2}, {1, 1, 3}, {10, 11}), (std::vector<double>{10, 11, 11}));
  EXPECT_EQ(fwd64(nn, {1, 1, 2}, {1, 1, 4}, {10, 11}), (std::vector<double>{10, 10, 11, 11}));
  EXPECT_EQ(fwd64(nn, {1, 1, 5}, {1, 1, 7}, {10, 11, 12, 13, 14}),
            (std::vector<double>{10, 11, 11, 12, 13, 13, 14}));
}

// The exact tie of ERRATA 1: I = 2, O = 41, o = 20: (2 * 20 + 1) * 2 / 82 = 1 exactly, so the
// index is 1 (round half up; ERRATA: oneDNN 1.2's float reciprocal gave 0 there).
TEST(ResampleForward, NearestExactTie) {
  std::vector<double> y = fwd64(ResampleAlgorithm::kNearest, {1, 1, 2}, {1, 1, 41}, {7, 9});
  for (int o = 0; o < 41; ++o) EXPECT_EQ(y[o], o < 20 ? 7 : 9) << o;
  // I = 4, O = 2: (2o + 1) * 4 / 4 = 1, 3, ties at every o -> indices 1 and 3.
  EXPECT_EQ(fwd64(ResampleAlgorithm::kNearest, {1, 1, 4}, {1, 1, 2}, {0, 1, 2, 3}),
            (std::vector<double>{1, 3}));
  // I = 6, O = 4 has no ties: (2o + 1) * 6 / 8 = 0.75, 2.25, 3.75, 5.25 -> 0, 2, 3, 5.
  EXPECT_EQ(fwd64(ResampleAlgorithm::kNearest, {1, 1, 6}, {1, 1, 4}, {0, 1, 2, 3, 4, 5}),
            (std::vector<double>{0, 2, 3, 5}));
  // I = 3, O = 1: 3 / 2 = 1.5 -> 1 (the middle).
  EXPECT_EQ(fwd64(ResampleAlgorithm::kNearest, {1, 1, 3}, {1, 1, 1}, {0, 1, 2}),
            (std::vector<double>{1}));
  // I = 4, O = 1: 4 / 2 = 2 exactly, a tie -> index 2 (the upper middle).
  EXPECT_EQ(fwd64(ResampleAlgorithm::kNearest, {1, 1, 4}, {1, 1, 1}, {0, 1, 2, 3}),
            (std::vector<double>{2}));
}

// 2x2 -> 4x4 bilinear of src = [[1, 3], [5, 7]], i.e. 1 + 4y + 2x: the result is the same
// affine function of the clamped source coordinates sy, sx in {0, 0.25, 0.75, 1}.
TEST(ResampleForward, Linear2DByHand) {
  const auto y = fwd64(ResampleAlgorithm::kLinear, {1, 1, 2, 2}, {1, 1, 4, 4}, {1, 3, 5, 7});
  const std::vector<double> want = {1, 1.5, 2.5, 3,  //
                                    2, 2.5, 3.5, 4,  //
                                    4, 4.5, 5.5, 6,  //
                                    5, 5.5, 6.5, 7};
  EXPECT_EQ(y, want);
}

// 3x2 -> 2x3 nearest: rows 3 -> 2 pick 0, 2; columns 2 -> 3 pick 0, 1, 1.
TEST(ResampleForward, Nearest2DByHand) {
  const auto y = fwd64(ResampleAlgorithm::kNearest, {1, 1, 3, 2}, {1, 1, 2, 3},
                       {0, 1, 10, 11, 20, 21});
  EXPECT_EQ(y, (std::vector<double>{0, 1, 1, 20, 21, 21}));
}

// N and C are independent: two images, two channels, each its own 1-D upsample.
TEST(ResampleForward, BatchAndChannelsAreIndependent) {
  const auto y = fwd64(ResampleAlgorithm::kLinear, {2, 2, 2}, {2, 2, 4}, {1, 3, 0, 4, 5, 9, 2, 2});
  EXPECT_EQ(y, (std::vector<double>{1, 1.5, 2.5, 3, 0, 1, 3, 4, 5, 6, 8, 9, 2, 2, 2, 2}));
}

// Edges replicate: a length-1 axis gives a constant; the outermost outputs of an upsample
// read exactly the edge values.
TEST(ResampleForward, EdgeReplication) {
  for (ResampleAlgorithm a : kAlgs) {
    EXPECT_EQ(fwd64(a, {1, 1, 1}, {1, 1, 5}, {2.5}), (std::vector<double>(5, 2.5)));
    const auto y = fwd64(a, {1, 1, 4}, {1, 1, 8}, {-1, 5, 6, 7.25});
    EXPECT_EQ(y.front(), -1);   // s = -0.25: both taps at 0
    EXPECT_EQ(y.back(), 7.25);  // s = 3.25: both taps at 3
  }
  // 3-D: 1x1x1 -> 2x3x2 is constant.
  EXPECT_EQ(fwd64(ResampleAlgorithm::kLinear, {1, 1, 1, 1, 1}, {1, 1, 2, 3, 2}, {4}),
            (std::vector<double>(12, 4)));
}

// Linear interpolation reproduces an affine function of the clamped source coordinates:
// f(s_1, .., s_r) with s_k = clamp((o + 0.5) I / O - 0.5, 0, I - 1). An independent check
// of the weights, for every rank and random sizes.
TEST(ResampleForward, LinearReproducesAffineFunctions) {
  const uint64_t seed = testing::test_seed();
  SCOPED_TRACE(testing::test_seed());
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int64_t> len(1, 9);
  for (int iter = 0; iter < 30; ++iter) {
    const int r = 1 + iter % 3;
    Dims sd = {1, 1}, dd = {1, 1};
    double coef[4] = {0.5, 1.25, -0.75, 2.0};
    for (int k = 0; k < r; ++k) {
      sd.push_back(len(rng));
      dd.push_back(len(rng));
    }
    std::vector<double> x(static_cast<size_t>(product(sd)));
    for (int64_t f = 0; f < product(sd); ++f) {
      const Dims i = unravel(f, sd);
      x[f] = coef[0];
      for (int k = 0; k < r; ++k) x[f] += coef[k + 1] * static_cast<double>(i[2 + k]);
    }
    const auto y = fwd64(ResampleAlgorithm::kLinear, sd, dd, x);
    for (int64_t f = 0; f < product(dd); ++f) {
      const Dims o = unravel(f, dd);
      double want = coef[0];
      for (int k = 0; k < r; ++k) {
        const double in = static_cast<double>(sd[2 + k]), out = static_cast<double>(dd[2 + k]);
        double s = (static_cast<double>(o[2 + k]) + 0.5) * in / out - 0.5;
        s = std::min(std::max(s, 0.0), in - 1.0);
        want += coef[k + 1] * s;
      }
      ASSERT_NEAR(y[f], want, 1e-12) << dims_to_string(sd) << " -> " << dims_to_string(dd);
    }
  }
}

// ===== every dtype and format against the independent reference ============================

TEST(ResampleForward, RandomShapesEveryDTypeAndFormat) {
  const uint64_t seed = testing::test_seed();
  SCOPED_TRACE(testing::test_seed());
  std::mt19937_64 rng(seed + 1);
  std::uniform_int_distribution<int64_t> len(1, 7), small(1, 3), fmt(0, 3);
  int iter = 0;
  for (DType dt : kDTypes) {
    for (ResampleAlgorithm a : kAlgs) {
      for (int r = 1; r <= 3; ++r, ++iter) {
        Dims sd = {small(rng), 1 + small(rng) * 3}, dd;
        for (int k = 0; k < r; ++k) sd.push_back(len(rng));
        dd = sd;
        for (int k = 0; k < r; ++k) dd[2 + k] = len(rng);
        const auto s = md(dt, sd, kAllFormats[fmt(rng)]);
        const auto d = md(dt, dd, kAllFormats[fmt(rng)]);
        SCOPED_TRACE(std::string(to_string(dt)) + " " + to_string(a) + " " +
                     dims_to_string(sd) + " " + format_tag(s.format, r) + " -> " +
                     dims_to_string(dd) + " " + format_tag(d.format, r));
        for_each_type(dt, [&](auto tag) {
          using T = typename decltype(tag)::type;
          const auto x = as_type<T>(random_values(rng, product(sd), -2, 2));
          // Linear float32/bfloat16 run on the fast path in float32 arithmetic: its bound is
          // relative to the sum of |w x| (2^-20 forward, 2^-17 backward for these sizes).
          const bool f32_arith = a == ResampleAlgorithm::kLinear &&
                                 (dt == DType::kFloat32 || dt == DType::kBFloat16);
          auto abs_of = [](std::vector<double> v) {
            for (double& e : v) e = std::fabs(e);
            return v;
          };
          const auto sx = expected_forward(a, sd, dd, abs_of(x));
          expect_close(forward_t<T>(a, s, d, x), expected_forward(a, sd, dd, x), dt, 2.0,
                       f32_arith ? &sx : nullptr, std::ldexp(1.0, -20));
          const auto gy = as_type<T>(random_values(rng, product(dd), -2, 2));
          const auto sg = expected_backward(a, sd, dd, abs_of(gy));
          // Nearest backward sums its k terms in float32 on the fast path: within
          // (k - 1) 2^-24 of their absolute sum of the exact value (docs/ops/resample.md);
          // k <= prod (O / I + 1).
          double kmax = 1;
          for (int k = 0; k < r; ++k) {
            kmax *= static_cast<double>(dd[2 + k] / sd[2 + k] + 1);
          }
          const bool f32_sum = dt == DType::kFloat32 || dt == DType::kBFloat16;
          const double bwd_rel =
              a == ResampleAlgorithm::kLinear ? std::ldexp(1.0, -17) : kmax * std::ldexp(1.0, -24);
          expect_close(backward_t<T>(a, s, d, gy), expected_backward(a, sd, dd, gy), dt, 2.0,
                       f32_sum ? &sg : nullptr, bwd_rel);
        });
      }
    }
  }
}

// Every (src format, dst format) pair gives bit-identical logical results, forward and
// backward, for a 2-D and a 3-D problem with C not a multiple of the block.
TEST(ResampleFormats, EveryPairBitExact) {
  std::mt19937_64 rng(testing::test_seed() + 2);
  SCOPED_TRACE(testing::test_seed());
  const std::pair<Dims, Dims> problems[] = {{{2, 11, 3, 5}, {2, 11, 7, 4}},
                                            {{1, 17, 2, 3, 4}, {1, 17, 3, 2, 5}}};
  for (DType dt : {DType::kFloat32, DType::kBFloat16}) {
    for (ResampleAlgorithm a : kAlgs) {
      for (const auto& [sd, dd] : problems) {
        for_each_type(dt, [&](auto tag) {
          using T = typename decltype(tag)::type;
          const auto x = as_type<T>(random_values(rng, product(sd), -3, 3));
          const auto gy = as_type<T>(random_values(rng, product(dd), -3, 3));
          const auto y0 = forward_t<T>(a, md(dt, sd), md(dt, dd), x);
          const auto g0 = backward_t<T>(a, md(dt, sd), md(dt, dd), gy);
          const int r = static_cast<int>(sd.size()) - 2;
          for (MemoryFormat fs : kAllFormats) {
            for (MemoryFormat fd : kAllFormats) {
              SCOPED_TRACE(format_tag(fs, r) + " -> " + format_tag(fd, r));
              const auto y = forward_t<T>(a, md(dt, sd, fs), md(dt, dd, fd), x);
              const auto g = backward_t<T>(a, md(dt, sd, fs), md(dt, dd, fd), gy);
              ASSERT_EQ(0, std::memcmp(y.data(), y0.data(), y.size() * sizeof(double)));
              ASSERT_EQ(0, std::memcmp(g.data(), g0.data(), g.size() * sizeof(double)));
            }
          }
        });
      }
    }
  }
}

// Blocked formats: the padded channels of dst (forward) and diff_src (backward) are written
// as +0, whatever the buffer held; NaN in the padded channels of the input is ignored.
TEST(ResampleFormats, BlockedPaddingZeroed) {
  for (MemoryFormat f : {MemoryFormat::kBlocked8, MemoryFormat::kBlocked16}) {
    for (ResampleAlgorithm a : kAlgs) {
      const auto s = md(DType::kFloat32, {2, 3, 2, 3}, f);
      const auto d = md(DType::kFloat32, {2, 3, 4, 5}, f);
      const std::vector<double> x(12 * 3, 1.5), gy(40 * 3, 0.5);
      std::vector<float> src = pack<float>(x, s, std::nan(""));
      std::vector<float> dst(static_cast<size_t>(phys_size(f, d.dims)), 77.0f);
      ASSERT_TRUE(resample_forward(rdesc(a), s, src.data(), d, dst.data()).ok());
      for (float v : padding_of(dst, d)) ASSERT_EQ(std::bit_cast<uint32_t>(v), 0u);
      for (double v : unpack(dst, d)) ASSERT_EQ(v, 1.5);
      std::vector<float> ddst = pack<float>(gy, d, std::nan(""));
      std::vector<float> dsrc(static_cast<size_t>(phys_size(f, s.dims)), -5.0f);
      ASSERT_TRUE(resample_backward(rdesc(a), s, dsrc.data(), d, ddst.data()).ok());
      for (float v : padding_of(dsrc, s)) ASSERT_EQ(std::bit_cast<uint32_t>(v), 0u);
      // Total gradient is conserved: each of the 120 outputs spreads weight 1 over inputs.
      double total = 0;
      for (double v : unpack(dsrc, s)) total += v;
      EXPECT_NEAR(total, 0.5 * 120, 1e-4);
    }
  }
}

// ===== rounding of narrow types =============================================================

// I = 4 -> O = 2 linear takes exact midpoints (t = 0.5). With bf16 (8 significant bits) the
// midpoint of 1 and 1 + 2^-7 is 1 + 2^-8, a tie that rounds to even (1.0); the midpoint of
// 1 + 2^-7 and 1 + 2^-6 is 1 + 3 * 2^-8, a tie that rounds to even (1 + 2^-6). Same for f16
// with 2^-10 in place of 2^-7.
TEST(ResampleRounding, NarrowTypesRoundToNearestEvenOnce) {
  const auto lin = ResampleAlgorithm::kLinear;
  {
    const double u = std::ldexp(1.0, -7);
    const std::vector<double> x = {1, 1 + u, 1 + u, 1 + 2 * u};
    const auto y = forward_t<bfloat16>(lin, md(DType::kBFloat16, {1, 1, 4}),
                                       md(DType::kBFloat16, {1, 1, 2}), x);
    EXPECT_EQ(y, (std::vector<double>{1.0, 1 + 2 * u}));
  }
  {
    const double u = std::ldexp(1.0, -10);
    const std::vector<double> x = {1, 1 + u, 1 + u, 1 + 2 * u};
    const auto y = forward_t<float16>(lin, md(DType::kFloat16, {1, 1, 4}),
                                      md(DType::kFloat16, {1, 1, 2}), x);
    EXPECT_EQ(y, (std::vector<double>{1.0, 1 + 2 * u}));
  }
  // 2 -> 4 linear of bf16 {1, 1 + 2^-7}: o = 1 is 1 + 2^-9 (below half an ulp: 1), o = 2 is
  // 1 + 3 * 2^-9 (above half an ulp: 1 + 2^-7).
  {
    const double u = std::ldexp(1.0, -7);
    const auto y = forward_t<bfloat16>(lin, md(DType::kBFloat16, {1, 1, 2}),
                                       md(DType::kBFloat16, {1, 1, 4}), {1, 1 + u});
    EXPECT_EQ(y, (std::vector<double>{1, 1, 1 + u, 1 + u}));
  }
  // One rounding from double: f32 inputs 1 and 1 + 2^-23 at t = 0.25 give 1 + 2^-25 exactly
  // in double, which rounds to 1; 0.75 gives 1 + 3 * 2^-25 -> 1 + 2^-23.
  {
    const double u = std::ldexp(1.0, -23);
    const auto y = forward_t<float>(lin, md(DType::kFloat32, {1, 1, 2}),
                                    md(DType::kFloat32, {1, 1, 4}), {1, 1 + u});
    EXPECT_EQ(y, (std::vector<double>{1, 1, 1 + u, 1 + u}));
  }
  // Nearest copies bits, including -0 and values that are not representable in f32.
  {
    const auto y = forward_t<double>(ResampleAlgorithm::kNearest, md(DType::kFloat64, {1, 1, 2}),
                                     md(DType::kFloat64, {1, 1, 3}), {-0.0, 0.1});
    EXPECT_TRUE(std::signbit(y[0]));
    EXPECT_EQ(y[1], 0.1);
  }
}

// ===== backward =============================================================================

// Backward nearest of an upsample 3 -> 7: o -> floor((2o + 1) * 3 / 14) = 0 0 1 1 1 2 2, so
// with diff_dst = 1 each src receives its count {2, 3, 2}; with distinct values the sums.
TEST(ResampleBackward, NearestUpsampleCounts) {
  const auto nn = ResampleAlgorithm::kNearest;
  EXPECT_EQ(bwd64(nn, {1, 1, 3}, {1, 1, 7}, std::vector<double>(7, 1.0)),
            (std::vector<double>{2, 3, 2}));
  EXPECT_EQ(bwd64(nn, {1, 1, 3}, {1, 1, 7}, {1, 2, 4, 8, 16, 32, 64}),
            (std::vector<double>{3, 28, 96}));
  // 2-D: 2x3 -> 4x7 is separable: rows 2 -> 4 map 0 0 1 1 (count 2 each), columns as above.
  EXPECT_EQ(bwd64(nn, {1, 1, 2, 3}, {1, 1, 4, 7}, std::vector<double>(28, 1.0)),
            (std::vector<double>{4, 6, 4, 4, 6, 4}));
  // Downsample 5 -> 2: o -> floor(5/4) = 1, floor(15/4) = 3; inputs 0, 2, 4 get nothing.
  EXPECT_EQ(bwd64(nn, {1, 1, 5}, {1, 1, 2}, {3, 4}), (std::vector<double>{0, 3, 0, 4, 0}));
  // The exact tie I = 2, O = 41: outputs 0..19 go to 0, 20..40 to 1.
  EXPECT_EQ(bwd64(nn, {1, 1, 2}, {1, 1, 41}, std::vector<double>(41, 1.0)),
            (std::vector<double>{20, 21}));
}

// Backward linear 2 -> 4 (weights from Linear1DUpsampleByHand):
//   diff_src[0] = 1 * g0 + 0.75 * g1 + 0.25 * g2,  diff_src[1] = 0.25 * g1 + 0.75 * g2 + g3.
TEST(ResampleBackward, Linear1DByHand) {
  const auto lin = ResampleAlgorithm::kLinear;
  EXPECT_EQ(bwd64(lin, {1, 1, 2}, {1, 1, 4}, {1, 1, 1, 1}), (std::vector<double>{2, 2}));
  EXPECT_EQ(bwd64(lin, {1, 1, 2}, {1, 1, 4}, {1, 2, 4, 8}), (std::vector<double>{3.5, 11.5}));
  // 4 -> 2 takes midpoints: each output gives 0.5 to two inputs.
  EXPECT_EQ(bwd64(lin, {1, 1, 4}, {1, 1, 2}, {2, 6}), (std::vector<double>{1, 1, 3, 3}));
}

// <A x, y> = <x, A^T y> in double over random shapes, ranks, directions, algorithms and
// formats (positive data, so the relative error is meaningful).
TEST(ResampleBackward, AdjointProperty) {
  const uint64_t seed = testing::test_seed();
  SCOPED_TRACE(testing::test_seed());
  std::mt19937_64 rng(seed + 3);
  std::uniform_int_distribution<int64_t> len(1, 12), small(1, 3), fmt(0, 3);
  for (int iter = 0; iter < 48; ++iter) {
    const int r = 1 + iter % 3;
    const ResampleAlgorithm a = kAlgs[(iter / 3) % 2];
    Dims sd = {small(rng), small(rng) * 3 - 1};
    for (int k = 0; k < r; ++k) sd.push_back(len(rng));
    Dims dd = sd;
    for (int k = 0; k < r; ++k) {
      // Alternate up- and downsampling, and equal lengths.
      dd[2 + k] = (iter / 6) % 3 == 0 ? sd[2 + k] * 2 + 1
                  : (iter / 6) % 3 == 1 ? std::max<int64_t>(1, sd[2 + k] / 2)
                                        : len(rng);
    }
    const auto s = md(DType::kFloat64, sd, kAllFormats[fmt(rng)]);
    const auto d = md(DType::kFloat64, dd, kAllFormats[fmt(rng)]);
    SCOPED_TRACE(std::string(to_string(a)) + " " + dims_to_string(sd) + " -> " +
                 dims_to_string(dd));
    const auto x = random_values(rng, product(sd), 0.5, 1.5);
    const auto y = random_values(rng, product(dd), 0.5, 1.5);
    const auto ax = forward_t<double>(a, s, d, x);
    const auto aty = backward_t<double>(a, s, d, y);
    double lhs = 0, rhs = 0;
    for (size_t i = 0; i < y.size(); ++i) lhs += ax[i] * y[i];
    for (size_t i = 0; i < x.size(); ++i) rhs += x[i] * aty[i];
    ASSERT_NEAR(lhs, rhs, 1e-12 * std::fabs(lhs));
  }
}

// Backward into an empty diff_dst (an O = 0 axis): no output reads src, so diff_src is zero.
TEST(ResampleBackward, EmptyDiffDstGivesZeros) {
  const auto s = md(DType::kFloat32, {1, 2, 3}), d = md(DType::kFloat32, {1, 2, 0});
  std::vector<float> dsrc(6, 9.0f);
  ASSERT_TRUE(resample_backward(rdesc(ResampleAlgorithm::kLinear), s, dsrc.data(), d, nullptr)
                  .ok());
  EXPECT_EQ(dsrc, std::vector<float>(6, 0.0f));
}

// ===== plans, dispatch, threads, the kernel contract =======================================

TEST(ResamplePlan, ReusableAndNamesImpl) {
  const auto s = md(DType::kFloat32, {1, 1, 2}), d = md(DType::kFloat32, {1, 1, 4});
  auto plan = make_resample_plan(rdesc(ResampleAlgorithm::kLinear), s, d);
  ASSERT_TRUE(plan.ok()) << plan.status().to_string();
#ifdef GRIDOPS_HAVE_HWY
  // The fast path for contiguous-W (plain) float32 problems.
  EXPECT_STREQ(plan->impl_name(), "resample.plain");
#else
  EXPECT_STREQ(plan->impl_name(), "ref");
#endif
  EXPECT_EQ(plan->src_desc().dims, s.dims);
  EXPECT_EQ(plan->dst_desc().dims, d.dims);
  const float x[2] = {1, 3};
  float y[4];
  ASSERT_TRUE(plan->forward(x, y).ok());
  EXPECT_EQ(std::vector<float>(y, y + 4), (std::vector<float>{1, 1.5f, 2.5f, 3}));
  const float g[4] = {1, 2, 4, 8};
  float gx[2];
  ASSERT_TRUE(plan->backward(g, gx).ok());
  EXPECT_EQ(std::vector<float>(gx, gx + 2), (std::vector<float>{3.5f, 11.5f}));
  auto forced = make_resample_plan(rdesc(ResampleAlgorithm::kLinear, "ref"), s, d);
  ASSERT_TRUE(forced.ok());
  EXPECT_STREQ(forced->impl_name(), "ref");
}

TEST(ResamplePlan, SameBitsForAnyThreadCount) {
  std::mt19937_64 rng(testing::test_seed() + 4);
  SCOPED_TRACE(testing::test_seed());
  const auto s = md(DType::kFloat32, {2, 5, 6, 7}, MemoryFormat::kBlocked8);
  const auto d = md(DType::kFloat32, {2, 5, 9, 4}, MemoryFormat::kChannelsLast);
  const auto x = random_values(rng, product(s.dims), -1, 1);
  const int before = get_num_threads();
  set_num_threads(1);
  const auto y1 = forward_t<float>(ResampleAlgorithm::kLinear, s, d, x);
  const auto g1 = backward_t<float>(ResampleAlgorithm::kLinear, s, d, y1);
  // Small problems run on one thread whatever the setting; a host runner that ignores the
  // grain and runs one-row chunks in reverse order exercises a different split.
  set_parallel_runner([](int64_t n, int64_t, const std::function<void(int64_t, int64_t)>& body) {
    for (int64_t i = n; i-- > 0;) body(i, i + 1);
  });
  const auto y3 = forward_t<float>(ResampleAlgorithm::kLinear, s, d, x);
  const auto g3 = backward_t<float>(ResampleAlgorithm::kLinear, s, d, y1);
  set_parallel_runner(nullptr);
  set_num_threads(before);
  EXPECT_EQ(0, std::memcmp(y1.data(), y3.data(), y1.size() * sizeof(double)));
  EXPECT_EQ(0, std::memcmp(g1.data(), g3.data(), g1.size() * sizeof(double)));
}

// The reference kernel takes any strides, negative ones included: src walks every axis
// backwards, dst is transposed and walks h backwards; the values must be those of the
// independent reference.
TEST(ResampleKernel, NegativeStridesMatchPlain) {
  std::mt19937_64 rng(testing::test_seed() + 5);
  SCOPED_TRACE(testing::test_seed());
  const Dims sd = {2, 3, 4, 5}, dd = {2, 3, 7, 3};
  const auto x = random_values(rng, product(sd), -1, 1);
  for (ResampleAlgorithm a : kAlgs) {
    const auto want = expected_forward(a, sd, dd, x);
    // src as a reversed plain array: element (n, c, h, w) at base - plain_offset.
    std::vector<double> src(x.rbegin(), x.rend());
    std::vector<double> dst(static_cast<size_t>(product(dd)), -1.0);
    kernels::ResampleProblem p;
    p.dtype = DType::kFloat64;
    p.algorithm = a;
    p.spatial_rank = 2;
    p.n = 2;
    p.c = 3;
    p.in[0] = 4, p.in[1] = 5, p.out[0] = 7, p.out[1] = 3;
    p.src = {-60, -20, 0, 1, {-5, -1, 0}, 3};
    // dst: offset 36 + 3n + c - 6h + 42w, a bijection onto [0, 126).
    p.dst = {3, 1, 0, 1, {-6, 42, 0}, 3};
    kernels::resample_forward_ref(p, src.data() + src.size() - 1, dst.data() + 6 * 6);
    for (int64_t f = 0; f < product(dd); ++f) {
      const Dims i = unravel(f, dd);
      const int64_t off = 6 * 6 + i[0] * 3 + i[1] - 6 * i[2] + 42 * i[3];
      ASSERT_NEAR(dst[off], want[f], 1e-12) << dims_to_string(i);
    }
    // Backward through the same layouts against the independent adjoint.
    const auto gy = random_values(rng, product(dd), -1, 1);
    std::vector<double> gdst(dst.size());
    for (int64_t f = 0; f < product(dd); ++f) {
      const Dims i = unravel(f, dd);
      gdst[6 * 6 + i[0] * 3 + i[1] - 6 * i[2] + 42 * i[3]] = gy[f];
    }
    std::vector<double> gsrc(src.size(), 5.0);
    kernels::resample_backward_ref(p, gdst.data() + 6 * 6, gsrc.data() + gsrc.size() - 1);
    const auto gwant = expected_backward(a, sd, dd, gy);
    for (int64_t f = 0; f < product(sd); ++f) {
      ASSERT_NEAR(gsrc[gsrc.size() - 1 - f], gwant[f], 1e-12) << f;
    }
  }
}

// ===== empty problems =======================================================================

TEST(ResampleEmpty, EmptyOutputsSucceedAndWriteNothing) {
  const auto lin = rdesc(ResampleAlgorithm::kLinear);
  const Dims cases[][2] = {{{0, 2, 3}, {0, 2, 5}},      // N = 0
                           {{2, 0, 3}, {2, 0, 5}},      // C = 0
                           {{1, 2, 3}, {1, 2, 0}},      // O = 0
                           {{1, 2, 0, 3}, {1, 2, 0, 4}},  // I = 0 with O = 0
                           {{0, 2, 0}, {0, 2, 6}},      // I = 0 but N = 0: nothing to sample
                           // Empty, so no overflow even though the other dims multiply past
                           // int64 (their strides are never used).
                           {{0, 3, int64_t{1} << 40, int64_t{1} << 40, int64_t{1} << 40},
                            {0, 3, 1, 1, 1}}};
  for (const auto& c : cases) {
    for (MemoryFormat f : kAllFormats) {
      SCOPED_TRACE(dims_to_string(c[0]) + " -> " + dims_to_string(c[1]));
      const auto s = md(DType::kFloat32, c[0], f), d = md(DType::kFloat32, c[1], f);
      float sentinel = 42.0f;
      const float x = 1.0f;
      EXPECT_TRUE(resample_forward(lin, s, *s.buffer_elements() ? &x : nullptr, d, nullptr).ok());
      EXPECT_TRUE(resample_forward(lin, s, &x, d, &sentinel).ok());
      EXPECT_EQ(sentinel, 42.0f);
    }
  }
}

// ===== errors ===============================================================================

/// Expects make_resample_plan (and the one-shot calls) to fail with `text`, writing nothing.
void expect_plan_error(const ResampleDesc& desc, const ResampleMemoryDesc& s,
                       const ResampleMemoryDesc& d, const std::string& text,
                       StatusCode code = StatusCode::kInvalidArgument) {
  auto plan = make_resample_plan(desc, s, d);
  ASSERT_FALSE(plan.ok()) << text;
  EXPECT_EQ(plan.status().code(), code);
  EXPECT_THAT(plan.status().message(), HasSubstr(text));
  std::vector<float> src(64, 1.0f), dst(64, 7.0f);
  Status f = resample_forward(desc, s, src.data(), d, dst.data());
  EXPECT_THAT(f.message(), HasSubstr(text));
  Status b = resample_backward(desc, s, src.data(), d, dst.data());
  EXPECT_THAT(b.message(), HasSubstr(text));
  EXPECT_EQ(src, std::vector<float>(64, 1.0f));  // nothing written on error
  EXPECT_EQ(dst, std::vector<float>(64, 7.0f));
}

TEST(ResampleErrors, Ranks) {
  const auto nn = rdesc(ResampleAlgorithm::kNearest);
  const auto f32 = DType::kFloat32;
  expect_plan_error(nn, md(f32, {1, 2}), md(f32, {1, 2}),
                    "resample: src dims must be (N, C, D1..Dr) with r in 1..3 (rank 3, 4 or 5), "
                    "got rank 2 (1, 2)");
  expect_plan_error(nn, md(f32, {1, 1, 2, 2}), md(f32, {1, 1, 1, 1, 1, 1}),
                    "resample: dst dims must be (N, C, D1..Dr) with r in 1..3 (rank 3, 4 or 5), "
                    "got rank 6 (1, 1, 1, 1, 1, 1)");
  expect_plan_error(nn, md(f32, {1, 1, 2, 2}), md(f32, {1, 1, 4}),
                    "resample: src and dst must have the same spatial rank, got 2 (src dims "
                    "(1, 1, 2, 2)) and 1 (dst dims (1, 1, 4))");
}

TEST(ResampleErrors, BatchAndChannels) {
  const auto nn = rdesc(ResampleAlgorithm::kNearest);
  const auto f32 = DType::kFloat32;
  expect_plan_error(nn, md(f32, {2, 3, 4}), md(f32, {1, 3, 8}),
                    "resample: dst N must equal src N (2), got 1");
  expect_plan_error(nn, md(f32, {2, 3, 4}), md(f32, {2, 4, 8}),
                    "resample: dst C must equal src C (3), got 4");
}

TEST(ResampleErrors, DTypes) {
  const auto nn = rdesc(ResampleAlgorithm::kNearest);
  expect_plan_error(nn, md(DType::kInt32, {1, 1, 4}), md(DType::kInt32, {1, 1, 4}),
                    "resample: src dtype must be one of {float32, bfloat16, float16, float64}, "
                    "got int32");
  expect_plan_error(nn, md(DType::kFloat32, {1, 1, 4}), md(DType::kComplex64, {1, 1, 4}),
                    "resample: dst dtype must be one of {float32, bfloat16, float16, float64}, "
                    "got complex64");
  expect_plan_error(nn, md(DType::kFloat32, {1, 1, 4}), md(DType::kBFloat16, {1, 1, 8}),
                    "resample: src and dst dtypes must match, got float32 and bfloat16");
  expect_plan_error(nn, md(static_cast<DType>(200), {1, 1, 4}), md(DType::kFloat32, {1, 1, 4}),
                    "got an unknown dtype code");
}

TEST(ResampleErrors, NegativeDimsAndBadEnums) {
  const auto f32 = DType::kFloat32;
  const auto nn = rdesc(ResampleAlgorithm::kNearest);
  expect_plan_error(nn, md(f32, {1, 1, -4}), md(f32, {1, 1, 4}),
                    "resample: src dims must be >= 0, got -4 at axis 2 of (1, 1, -4)");
  expect_plan_error(nn, md(f32, {1, 1, 4}), md(f32, {-1, 1, 4}),
                    "resample: dst dims must be >= 0, got -1 at axis 0 of (-1, 1, 4)");
  expect_plan_error(nn, md(f32, {1, 1, 4}, static_cast<MemoryFormat>(9)), md(f32, {1, 1, 4}),
                    "resample: src format must be plain, channels_last, blocked8 or blocked16, "
                    "got format code 9");
  expect_plan_error(rdesc(static_cast<ResampleAlgorithm>(7)), md(f32, {1, 1, 4}),
                    md(f32, {1, 1, 4}),
                    "resample: algorithm must be nearest or linear, got algorithm code 7");
}

TEST(ResampleErrors, NothingToSample) {
  const auto f32 = DType::kFloat32;
  expect_plan_error(rdesc(ResampleAlgorithm::kLinear), md(f32, {1, 1, 3, 0}),
                    md(f32, {1, 1, 3, 2}),
                    "resample: src spatial axis 1 has length 0 but dst has length 2 there (dst "
                    "dims (1, 1, 3, 2) is not empty): nothing to sample");
}

TEST(ResampleErrors, BufferSizeOverflow) {
  const auto f32 = DType::kFloat32;
  const auto nn = rdesc(ResampleAlgorithm::kNearest);
  const int64_t big = int64_t{1} << 32;
  expect_plan_error(nn, md(f32, {1, 1, 4}), md(f32, {1, 1, big, big}),
                    "resample: dst buffer size of dims (1, 1, 4294967296, 4294967296) in format "
                    "nchw overflows 64 bits");
  // Elements fit, bytes do not (2^61 float64 elements).
  expect_plan_error(nn, md(DType::kFloat64, {1, 1, int64_t{1} << 61}, MemoryFormat::kPlain),
                    md(DType::kFloat64, {1, 1, 2}),
                    "resample: src buffer size of dims (1, 1, 2305843009213693952) in format ncw "
                    "overflows 64 bits");
  // Only the blocked padding overflows: bf16 with C = 2^62 - 15 takes 2^63 - 30 bytes in
  // ncw, but nCw16c pads C to 2^62 channels, 2^63 bytes.
  const int64_t c = (int64_t{1} << 62) - 15;
  const auto bf = DType::kBFloat16;
  EXPECT_TRUE(md(bf, {1, c, 1}).buffer_elements().ok());
  expect_plan_error(nn, md(bf, {1, c, 1}, MemoryFormat::kBlocked16),
                    md(bf, {1, c, 1}, MemoryFormat::kBlocked16),
                    "resample: src buffer size of dims (1, 4611686018427387889, 1) in format nCw16c "
                    "overflows 64 bits");
}

TEST(ResampleErrors, UnknownImpl) {
  const auto f32 = DType::kFloat32;
#ifdef GRIDOPS_HAVE_HWY
  const char* want =
      "resample: impl must be one of {resample.plain, resample.channels_bf16, "
      "resample.channels_vector16, resample.channels_vector16_scratch_row, "
      "resample.channels_vector8, resample.generic, ref} or an "
      "alias {fast}, got 'avx9000'";
#else
  const char* want = "resample: impl must be one of {ref}, got 'avx9000'";
#endif
  expect_plan_error(rdesc(ResampleAlgorithm::kLinear, "avx9000"), md(f32, {1, 1, 4}),
                    md(f32, {1, 1, 8}), want);
}

// Each Highway path declines at plan time what its layout facts rule out, with the reason;
// the family alias "fast" picks the first path that accepts, or lists every reason.
TEST(ResampleErrors, ForcedPathsDeclineWithTheirReason) {
#ifdef GRIDOPS_HAVE_HWY
  const auto f32 = DType::kFloat32;
  const auto nhwc = MemoryFormat::kChannelsLast;
  expect_plan_error(rdesc(ResampleAlgorithm::kLinear, "resample.plain"), md(f32, {1, 3, 4}, nhwc),
                    md(f32, {1, 3, 8}, nhwc),
                    "resample: implementation 'resample.plain' declines this problem: src and dst "
                    "are not both unblocked and contiguous along the last spatial axis",
                    StatusCode::kUnimplemented);
  expect_plan_error(rdesc(ResampleAlgorithm::kLinear, "resample.channels_vector8"),
                    md(f32, {1, 3, 4}), md(f32, {1, 3, 8}),
                    "resample: implementation 'resample.channels_vector8' declines this problem: "
                    "src and dst do not both hold runs of 8 contiguous channels",
                    StatusCode::kUnimplemented);
  expect_plan_error(rdesc(ResampleAlgorithm::kLinear, "fast"), md(DType::kFloat64, {1, 3, 4}),
                    md(DType::kFloat64, {1, 3, 8}),
                    "resample: implementation 'fast' declines this problem (resample.plain: dtype "
                    "float64 is not float32 or bfloat16",
                    StatusCode::kUnimplemented);
  auto plan = make_resample_plan(rdesc(ResampleAlgorithm::kLinear, "fast"),
                                 md(f32, {1, 3, 4}, nhwc), md(f32, {1, 3, 8}, nhwc));
  ASSERT_TRUE(plan.ok()) << plan.status().to_string();
  EXPECT_STREQ(plan->impl_name(), "resample.channels_vector16");
  plan = make_resample_plan(rdesc(ResampleAlgorithm::kLinear, "resample.generic"),
                            md(f32, {1, 3, 4}, nhwc), md(f32, {1, 3, 8}));
  ASSERT_TRUE(plan.ok()) << plan.status().to_string();
  EXPECT_STREQ(plan->impl_name(), "resample.generic");
#else
  GTEST_SKIP() << "built without Highway: only the reference exists";
#endif
}

TEST(ResampleErrors, NullPointers) {
  const auto lin = rdesc(ResampleAlgorithm::kLinear);
  const auto s = md(DType::kFloat32, {1, 2, 3}), d = md(DType::kFloat32, {1, 2, 5});
  std::vector<float> x(6, 1.0f), y(10, 7.0f);
  Status st = resample_forward(lin, s, nullptr, d, y.data());
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(st.message(), HasSubstr("resample: src pointer is null for a non-empty buffer of 6 "
                                      "elements (dims (1, 2, 3))"));
  EXPECT_EQ(y, std::vector<float>(10, 7.0f));
  st = resample_forward(lin, s, x.data(), d, nullptr);
  EXPECT_THAT(st.message(), HasSubstr("resample: dst pointer is null for a non-empty buffer of 10"));
  st = resample_backward(lin, s, x.data(), d, nullptr);
  EXPECT_THAT(st.message(), HasSubstr("resample: diff_dst pointer is null for a non-empty buffer"));
  EXPECT_EQ(x, std::vector<float>(6, 1.0f));
  st = resample_backward(lin, s, nullptr, d, y.data());
  EXPECT_THAT(st.message(), HasSubstr("resample: diff_src pointer is null for a non-empty buffer "
                                      "of 6 elements"));
}

TEST(ResampleErrors, OverlapAndEmptyPlan) {
  const auto lin = rdesc(ResampleAlgorithm::kLinear);
  const auto s = md(DType::kFloat32, {1, 1, 4}), d = md(DType::kFloat32, {1, 1, 4});
  std::vector<float> buf = {1, 2, 3, 4, 5, 6};
  Status st = resample_forward(lin, s, buf.data(), d, buf.data() + 2);
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(st.message(), HasSubstr("resample: dst must not overlap src in memory"));
  st = resample_backward(lin, s, buf.data(), d, buf.data() + 1);
  EXPECT_THAT(st.message(), HasSubstr("resample: diff_src must not overlap diff_dst in memory"));
  EXPECT_EQ(buf, (std::vector<float>{1, 2, 3, 4, 5, 6}));
  // Adjacent, non-overlapping buffers are fine.
  std::vector<float> two(8, 1.0f);
  EXPECT_TRUE(resample_forward(lin, s, two.data(), d, two.data() + 4).ok());
  ResamplePlan empty;
  st = empty.forward(two.data(), two.data() + 4);
  EXPECT_THAT(st.message(), HasSubstr("resample: plan is empty; create it with make_resample_plan"));
  st = empty.backward(two.data(), two.data() + 4);
  EXPECT_THAT(st.message(), HasSubstr("resample: plan is empty"));
}

}  // namespace
}  // namespace gridops

namespace gridops {
namespace {

// NOTE [ Resample table bound ] (src/ops/resample.cc): a plan whose per-axis tables would
// exceed 1 GiB is refused at once, before anything is allocated, naming the bytes and the
// axes; the same axis resampled in windows plans.
TEST(ResamplePlan, TablesOverTheBoundAreRefusedBeforeAllocating) {
  ResampleDesc desc;
  desc.algorithm = ResampleAlgorithm::kLinear;
  ResampleMemoryDesc s, d;
  s.dtype = d.dtype = DType::kFloat32;
  s.dims = {1, 1, int64_t{1} << 26};
  d.dims = {1, 1, int64_t{1} << 26};
  auto plan = make_resample_plan(desc, s, d);
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(plan.status().message().find("resample: the plan's per-axis index and weight tables "
                                         "would take 3584 MiB"),
            std::string::npos)
      << plan.status().message();
  EXPECT_NE(plan.status().message().find("67108864 -> 67108864"), std::string::npos);
  s.dims = {1, 1, int64_t{1} << 30, int64_t{1} << 30};
  d.dims = s.dims;
  EXPECT_FALSE(make_resample_plan(desc, s, d).ok());
  // A window of that axis: tables for its box only.
  ResampleWindow w;
  w.full_in = {int64_t{1} << 26};
  w.full_out = {int64_t{1} << 26};
  w.in_origin = {900};
  w.out_origin = {1000};
  s.dims = {1, 1, 4400};
  d.dims = {1, 1, 4096};
  auto windowed = make_resample_plan(desc, s, d, w);
  ASSERT_TRUE(windowed.ok()) << windowed.status().to_string();
  // Just under the bound plans.
  s.dims = d.dims = {1, 1, int64_t{1} << 24};
  EXPECT_TRUE(make_resample_plan(desc, s, d).ok());
}

}  // namespace
}  // namespace gridops
