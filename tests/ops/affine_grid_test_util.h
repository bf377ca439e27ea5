// AffineGrid tests: the helpers both test files use (theta construction, the plan run, the
// independent formulas and the grid check).
#pragma once

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "core/convert.h"
#include "gridops/ops/affine_grid.h"
#include "support/test_util.h"

namespace gridops {
namespace {

// The implementation a default plan picks: the Highway kernel where Highway was found.
#ifdef GRIDOPS_HAVE_HWY
constexpr const char* kDefaultImpl = "affine_grid.rows";
#else
constexpr const char* kDefaultImpl = "ref";
#endif

constexpr DType kThetaDTypes[] = {DType::kFloat16, DType::kBFloat16, DType::kFloat32,
                                  DType::kFloat64};

// A contiguous theta of dtype dt holding `vals` (row-major), each rounded once to dt.
// The hand examples only use values every dtype holds exactly.
inline Tensor make_theta(DType dt, Dims shape, const std::vector<double>& vals) {
  Tensor t(dt, std::move(shape));
  EXPECT_EQ(t.num_elements(), static_cast<int64_t>(vals.size()));
  visit_dtype(dt, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (convert::is_numeric_v<T> && !convert::is_complex_t<T>::value) {
      for (size_t i = 0; i < vals.size(); ++i) t.data_as<T>()[i] = convert::store_real<T>(vals[i]);
    }
  });
  return t;
}

// Runs the allocating one-shot and fails the test on error.
inline Tensor run_affine_grid(const Tensor& theta, const Dims& size, int64_t align_corners) {
  AffineGridDesc desc;
  desc.align_corners = align_corners;
  StatusOr<Tensor> r = affine_grid(desc, theta.view(), size);
  EXPECT_TRUE(r.ok()) << r.status().to_string();
  if (!r.ok()) return Tensor();
  return std::move(r).value();
}

// grid element at flat row-major index i, as double.
inline double g(const Tensor& grid, int64_t i) { return testing::element_as_double(grid, i); }

// ---------------------------------------------------------------------------------------
// Independent formulas (ERRATA AffineGrid 1 and 2).

// Base coordinate as the ERRATA writes it, in compute type F, in the documented order
// (quotient first, then -1).
template <class F>
F base_in(int64_t i, int64_t len, bool align_corners) {
  if (len == 1) return F(0);
  if (align_corners) return static_cast<F>(2 * i) / static_cast<F>(len - 1) - F(1);
  return static_cast<F>(2 * i + 1) / static_cast<F>(len) - F(1);
}

// The same, in long double, for the tolerance check.
inline long double base_exactish(int64_t i, int64_t len, bool align_corners) {
  if (len == 1) return 0.0L;
  if (align_corners) return -1.0L + 2.0L * static_cast<long double>(i) / (len - 1);
  return -1.0L + (2.0L * static_cast<long double>(i) + 1.0L) / static_cast<long double>(len);
}

// Unit roundoff of the final conversion from F to the output type (0 when none).
inline double output_roundoff(DType dt) {
  switch (dt) {
    case DType::kFloat16: return std::ldexp(1.0, -11);
    case DType::kBFloat16: return std::ldexp(1.0, -8);
    default: return 0.0;
  }
}

// Checks every element of `grid` (contiguous) against
//  (a) the documented float/double computation rounded once to theta's type: bit-exact;
//  (b) a long double evaluation: within 8 * eps(F) * sum_j |theta[k, j]| plus the final
//      rounding's relative error (2^-11 float16, 2^-8 bfloat16), see docs/ops/affine_grid.md.
inline void check_grid(const Tensor& theta, const Dims& size, int64_t align_corners,
                       const Tensor& grid) {
  const int r = static_cast<int>(size.size()) - 2;
  ASSERT_EQ(grid.dtype(), theta.dtype());
  Dims want_shape{size[0]};
  for (int a = 0; a < r; ++a) want_shape.push_back(size[2 + a]);
  want_shape.push_back(r);
  ASSERT_EQ(grid.shape(), want_shape);
  const bool ac = align_corners == 1;
  visit_dtype(theta.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, float16> || std::is_same_v<T, bfloat16> ||
                  std::is_same_v<T, float> || std::is_same_v<T, double>) {
      using F = std::conditional_t<std::is_same_v<T, double>, double, float>;
      const double eps = std::numeric_limits<F>::epsilon();
      int64_t flat = 0;
      int64_t points = 1;
      for (int a = 0; a < r; ++a) points *= size[2 + a];
      for (int64_t n = 0; n < size[0]; ++n) {
        for (int64_t q = 0; q < points; ++q) {
          // Spatial index, outermost first, from the row-major point number q.
          int64_t s[3] = {0, 0, 0};
          int64_t rest = q;
          for (int a = r - 1; a >= 0; --a) {
            s[a] = rest % size[2 + a];
            rest /= size[2 + a];
          }
          for (int k = 0; k < r; ++k, ++flat) {
            // theta[n, k, :] as double (exact for every floating dtype).
            std::vector<double> row(r + 1);
            for (int j = 0; j <= r; ++j) row[j] = g(theta, (n * r + k) * (r + 1) + j);
            // (a) documented order in F: acc = t0*c0; acc += t_j*c_j; acc += t_r.
            F acc = static_cast<F>(row[0]) * base_in<F>(s[r - 1], size[1 + r], ac);
            for (int j = 1; j < r; ++j) {
              const F prod = static_cast<F>(row[j]) * base_in<F>(s[r - 1 - j], size[1 + r - j], ac);
              acc = acc + prod;
            }
            acc = acc + static_cast<F>(row[r]);
            const T want = convert::store_real<T>(acc);
            const T got = grid.data_as<T>()[flat];
            ASSERT_EQ(std::memcmp(&want, &got, sizeof(T)), 0)
                << "n " << n << " point " << q << " k " << k << ": got " << g(grid, flat)
                << ", want " << convert::load_real<double>(want) << " (float sum "
                << static_cast<double>(acc) << ", theta row " << row[0] << " " << row[1]
                << " " << row[2] << ")";
            // (b) against long double with a stated bound.
            long double exact = row[r];
            double mag = 0;
            for (int j = 0; j < r; ++j) {
              exact += row[j] * base_exactish(s[r - 1 - j], size[1 + r - j], ac);
              mag += std::fabs(row[j]);
            }
            mag += std::fabs(row[r]);
            const double tol = 8 * eps * mag + output_roundoff(theta.dtype()) *
                                                   std::fabs(static_cast<double>(exact));
            ASSERT_LE(std::fabs(g(grid, flat) - static_cast<double>(exact)), tol)
                << "n " << n << " point " << q << " k " << k;
          }
        }
      }
    }
  });
}

// A contiguous copy of a (possibly strided) view.
inline Tensor contiguous_copy(const TensorView& v) {
  Tensor t(v.dtype, v.shape);
  const int64_t n = t.num_elements();
  const size_t es = dtype_size(v.dtype);
  Dims idx(v.shape.size(), 0);
  for (int64_t f = 0; f < n; ++f) {
    std::memcpy(static_cast<char*>(t.data()) + f * static_cast<int64_t>(es), v.element_ptr(idx),
                es);
    for (size_t a = idx.size(); a-- > 0;) {
      if (++idx[a] < v.shape[a]) break;
      idx[a] = 0;
    }
  }
  return t;
}

}  // namespace
}  // namespace gridops
