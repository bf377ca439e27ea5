// Resample tests: the independent description of the memory formats, the independent
// forward/adjoint reference and the library runs that the resample_*_test.cc files share.
#pragma once

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

inline ResampleMemoryDesc md(DType dt, Dims dims, MemoryFormat f = MemoryFormat::kPlain) {
  ResampleMemoryDesc m;
  m.dtype = dt;
  m.dims = std::move(dims);
  m.format = f;
  return m;
}

inline ResampleDesc rdesc(ResampleAlgorithm a, std::string impl = "") {
  ResampleDesc d;
  d.algorithm = a;
  d.impl = std::move(impl);
  return d;
}

// --- an independent description of the memory formats ------------------------------------

inline int64_t block_size(MemoryFormat f) {
  return f == MemoryFormat::kBlocked8 ? 8 : f == MemoryFormat::kBlocked16 ? 16 : 1;
}

/// Physical dims and the physical index of logical (n, c, d...), as oneDNN's tags read:
/// nchw = (N, C, D...), nhwc = (N, D..., C), nChw8c = (N, ceil(C/8), D..., 8).
inline void physical(MemoryFormat f, const Dims& dims, const Dims& idx, Dims* pd, Dims* pi) {
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

inline int64_t phys_offset(MemoryFormat f, const Dims& dims, const Dims& idx) {
  Dims pd, pi;
  physical(f, dims, idx, &pd, &pi);
  int64_t off = 0;
  for (size_t i = 0; i < pd.size(); ++i) off = off * pd[i] + pi[i];
  return off;
}

inline int64_t phys_size(MemoryFormat f, const Dims& dims) {
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
inline std::vector<std::pair<int64_t, double>> expected_taps(ResampleAlgorithm a, int64_t o,
                                                             int64_t in, int64_t out) {
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

inline std::vector<double> expected_forward(ResampleAlgorithm a, const Dims& sd, const Dims& dd,
                                            const std::vector<double>& x) {
  std::vector<double> y(static_cast<size_t>(product(dd)), 0.0);
  for_each_weight(a, sd, dd, [&](int64_t s, int64_t o, double w) { y[o] += w * x[s]; });
  return y;
}

inline std::vector<double> expected_backward(ResampleAlgorithm a, const Dims& sd, const Dims& dd,
                                             const std::vector<double>& gy) {
  std::vector<double> gx(static_cast<size_t>(product(sd)), 0.0);
  for_each_weight(a, sd, dd, [&](int64_t s, int64_t o, double w) { gx[s] += w * gy[o]; });
  return gx;
}

inline std::vector<double> random_values(std::mt19937_64& rng, int64_t n, double lo, double hi) {
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
inline std::vector<double> fwd64(ResampleAlgorithm a, const Dims& sd, const Dims& dd,
                                 const std::vector<double>& x) {
  return forward_t<double>(a, md(DType::kFloat64, sd), md(DType::kFloat64, dd), x);
}
inline std::vector<double> bwd64(ResampleAlgorithm a, const Dims& sd, const Dims& dd,
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
inline double rel_tol(DType dt) {
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
inline void expect_close(const std::vector<double>& got, const std::vector<double>& want, DType dt,
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

}  // namespace
}  // namespace gridops
