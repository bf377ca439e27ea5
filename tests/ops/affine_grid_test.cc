// AffineGrid values: hand-worked examples (2-D and 3-D, both align_corners), the ERRATA
// rules, every theta dtype, strided views, and random thetas against formulas written
// here independently of the kernel.
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
Tensor make_theta(DType dt, Dims shape, const std::vector<double>& vals) {
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
Tensor run_affine_grid(const Tensor& theta, const Dims& size, int64_t align_corners) {
  AffineGridDesc desc;
  desc.align_corners = align_corners;
  StatusOr<Tensor> r = affine_grid(desc, theta.view(), size);
  EXPECT_TRUE(r.ok()) << r.status().to_string();
  if (!r.ok()) return Tensor();
  return std::move(r).value();
}

// grid element at flat row-major index i, as double.
double g(const Tensor& grid, int64_t i) { return testing::element_as_double(grid, i); }

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
long double base_exactish(int64_t i, int64_t len, bool align_corners) {
  if (len == 1) return 0.0L;
  if (align_corners) return -1.0L + 2.0L * static_cast<long double>(i) / (len - 1);
  return -1.0L + (2.0L * static_cast<long double>(i) + 1.0L) / static_cast<long double>(len);
}

// Unit roundoff of the final conversion from F to the output type (0 when none).
double output_roundoff(DType dt) {
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
void check_grid(const Tensor& theta, const Dims& size, int64_t align_corners,
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
Tensor contiguous_copy(const TensorView& v) {
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

// ---------------------------------------------------------------------------------------
// Hand-worked 2-D examples.

// Identity theta [[1, 0, 0], [0, 1, 0]], H = 2, W = 3.
// align_corners = 1: x_w = -1 + 2w/2 = -1, 0, 1;      y_h = -1 + 2h/1 = -1, 1.
// align_corners = 0: x_w = -1 + (2w+1)/3 = -2/3, 0, 2/3; y_h = -1 + (2h+1)/2 = -1/2, 1/2.
// grid[0, h, w] = (x_w, y_h).
TEST(AffineGrid2D, IdentityBothAlignCorners) {
  const Tensor theta = make_theta(DType::kFloat64, {1, 2, 3}, {1, 0, 0, 0, 1, 0});
  const Tensor a1 = run_affine_grid(theta, {1, 1, 2, 3}, 1);
  ASSERT_EQ(a1.shape(), (Dims{1, 2, 3, 2}));
  const double want1[] = {-1, -1, 0, -1, 1, -1,  //
                          -1, 1,  0, 1,  1, 1};
  for (int i = 0; i < 12; ++i) EXPECT_EQ(g(a1, i), want1[i]) << i;

  const Tensor a0 = run_affine_grid(theta, {1, 1, 2, 3}, 0);
  const double want0[] = {-2.0 / 3, -0.5, 0, -0.5, 2.0 / 3, -0.5,  //
                          -2.0 / 3, 0.5,  0, 0.5,  2.0 / 3, 0.5};
  for (int i = 0; i < 12; ++i) EXPECT_NEAR(g(a0, i), want0[i], 1e-15) << i;
}

// A 90-degree rotation theta [[0, -1, 0], [1, 0, 0]]: grid = (-y, x).
// H = W = 2, align_corners = 1: x, y in {-1, 1}.
//   (h, w) = (0, 0): x = -1, y = -1 -> ( 1, -1)
//            (0, 1): x =  1, y = -1 -> ( 1,  1)
//            (1, 0): x = -1, y =  1 -> (-1, -1)
//            (1, 1): x =  1, y =  1 -> (-1,  1)
// align_corners = 0: x, y in {-1/2, 1/2}: the same pattern halved.
TEST(AffineGrid2D, Rotation) {
  for (DType dt : kThetaDTypes) {
    SCOPED_TRACE(to_string(dt));
    const Tensor theta = make_theta(dt, {1, 2, 3}, {0, -1, 0, 1, 0, 0});
    const Tensor a1 = run_affine_grid(theta, {1, 3, 2, 2}, 1);
    const double want1[] = {1, -1, 1, 1, -1, -1, -1, 1};
    for (int i = 0; i < 8; ++i) EXPECT_EQ(g(a1, i), want1[i]) << i;
    const Tensor a0 = run_affine_grid(theta, {1, 3, 2, 2}, 0);
    for (int i = 0; i < 8; ++i) EXPECT_EQ(g(a0, i), want1[i] / 2) << i;
  }
}

// Translation theta [[1, 0, 0.5], [0, 1, -0.25]], H = 1, W = 2, align_corners = 0:
// x in {-1/2, 1/2}, y = 0 (L == 1) -> grid = (x + 0.5, -0.25) = (0, -0.25), (1, -0.25).
// align_corners = 1: x in {-1, 1} -> (-0.5, -0.25), (1.5, -0.25).
TEST(AffineGrid2D, Translation) {
  for (DType dt : kThetaDTypes) {
    SCOPED_TRACE(to_string(dt));
    const Tensor theta = make_theta(dt, {1, 2, 3}, {1, 0, 0.5, 0, 1, -0.25});
    const Tensor a0 = run_affine_grid(theta, {1, 1, 1, 2}, 0);
    ASSERT_EQ(a0.shape(), (Dims{1, 1, 2, 2}));
    const double want0[] = {0, -0.25, 1, -0.25};
    for (int i = 0; i < 4; ++i) EXPECT_EQ(g(a0, i), want0[i]) << i;
    const Tensor a1 = run_affine_grid(theta, {1, 1, 1, 2}, 1);
    const double want1[] = {-0.5, -0.25, 1.5, -0.25};
    for (int i = 0; i < 4; ++i) EXPECT_EQ(g(a1, i), want1[i]) << i;
  }
}

// A general matrix and two batch entries. Batch 0: theta [[2, 3, 1], [-1, 0.5, 4]],
// H = W = 2, align_corners = 0: x, y in {-1/2, 1/2};
//   g0 = 2x + 3y + 1, g1 = -x + 0.5y + 4:
//   (0,0): x=-.5, y=-.5 -> (-1.5, 4.25)   (0,1): x=.5, y=-.5 -> (0.5, 3.25)
//   (1,0): x=-.5, y=.5  -> ( 1.5, 4.75)   (1,1): x=.5, y=.5  -> (3.5, 3.75)
// Batch 1: theta [[0, 0, 7], [0, 0, -7]]: every point (7, -7).
TEST(AffineGrid2D, GeneralMatrixTwoBatches) {
  for (DType dt : kThetaDTypes) {
    SCOPED_TRACE(to_string(dt));
    const Tensor theta =
        make_theta(dt, {2, 2, 3}, {2, 3, 1, -1, 0.5, 4, 0, 0, 7, 0, 0, -7});
    const Tensor grid = run_affine_grid(theta, {2, 5, 2, 2}, 0);
    ASSERT_EQ(grid.shape(), (Dims{2, 2, 2, 2}));
    const double want[] = {-1.5, 4.25, 0.5, 3.25, 1.5, 4.75, 3.5, 3.75,
                           7,    -7,   7,   -7,   7,   -7,   7,   -7};
    for (int i = 0; i < 16; ++i) EXPECT_EQ(g(grid, i), want[i]) << i;
  }
}

// ---------------------------------------------------------------------------------------
// Hand-worked 3-D examples.

// Identity theta (3, 4), D = 2, H = 1, W = 3, align_corners = 1:
// x in {-1, 0, 1}, y = 0 (H == 1), z in {-1, 1}; grid[0, d, 0, w] = (x_w, 0, z_d).
// align_corners = 0: x in {-2/3, 0, 2/3}, y = 0, z in {-1/2, 1/2}.
TEST(AffineGrid3D, IdentityBothAlignCorners) {
  const Tensor theta =
      make_theta(DType::kFloat64, {1, 3, 4}, {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0});
  const Tensor a1 = run_affine_grid(theta, {1, 2, 2, 1, 3}, 1);
  ASSERT_EQ(a1.shape(), (Dims{1, 2, 1, 3, 3}));
  const double want1[] = {-1, 0, -1, 0, 0, -1, 1, 0, -1,  //
                          -1, 0, 1,  0, 0, 1,  1, 0, 1};
  for (int i = 0; i < 18; ++i) EXPECT_EQ(g(a1, i), want1[i]) << i;
  const Tensor a0 = run_affine_grid(theta, {1, 2, 2, 1, 3}, 0);
  const double want0[] = {-2.0 / 3, 0, -0.5, 0, 0, -0.5, 2.0 / 3, 0, -0.5,  //
                          -2.0 / 3, 0, 0.5,  0, 0, 0.5,  2.0 / 3, 0, 0.5};
  for (int i = 0; i < 18; ++i) EXPECT_NEAR(g(a0, i), want0[i], 1e-15) << i;
}

// Rotation by 90 degrees about z: theta [[0, -1, 0, 0], [1, 0, 0, 0], [0, 0, 1, 0]]:
// grid = (-y, x, z). D = 1, H = 2, W = 2, align_corners = 1: x, y in {-1, 1}, z = 0:
//   (0,0,0): (1, -1, 0)  (0,0,1): (1, 1, 0)  (0,1,0): (-1, -1, 0)  (0,1,1): (-1, 1, 0)
TEST(AffineGrid3D, RotationAboutZ) {
  for (DType dt : kThetaDTypes) {
    SCOPED_TRACE(to_string(dt));
    const Tensor theta = make_theta(dt, {1, 3, 4}, {0, -1, 0, 0, 1, 0, 0, 0, 0, 0, 1, 0});
    const Tensor grid = run_affine_grid(theta, {1, 1, 1, 2, 2}, 1);
    ASSERT_EQ(grid.shape(), (Dims{1, 1, 2, 2, 3}));
    const double want[] = {1, -1, 0, 1, 1, 0, -1, -1, 0, -1, 1, 0};
    for (int i = 0; i < 12; ++i) EXPECT_EQ(g(grid, i), want[i]) << i;
  }
}

// Translation by (0.25, -1, 2), D = H = 2, W = 1, align_corners = 0:
// x = 0 (W == 1), y, z in {-1/2, 1/2}: grid = (0.25, y - 1, z + 2):
//   (d,h) = (0,0): (0.25, -1.5, 1.5)  (0,1): (0.25, -0.5, 1.5)
//           (1,0): (0.25, -1.5, 2.5)  (1,1): (0.25, -0.5, 2.5)
TEST(AffineGrid3D, Translation) {
  for (DType dt : kThetaDTypes) {
    SCOPED_TRACE(to_string(dt));
    const Tensor theta =
        make_theta(dt, {1, 3, 4}, {1, 0, 0, 0.25, 0, 1, 0, -1, 0, 0, 1, 2});
    const Tensor grid = run_affine_grid(theta, {1, 1, 2, 2, 1}, 0);
    const double want[] = {0.25, -1.5, 1.5, 0.25, -0.5, 1.5,
                           0.25, -1.5, 2.5, 0.25, -0.5, 2.5};
    for (int i = 0; i < 12; ++i) EXPECT_EQ(g(grid, i), want[i]) << i;
  }
}

// A general 3-D matrix [[1, 2, 3, 4], [0, -1, 0, 0.5], [2, 0, -2, 1]], D = H = W = 2,
// align_corners = 1 (x, y, z in {-1, 1}): g0 = x + 2y + 3z + 4, g1 = -y + 0.5,
// g2 = 2x - 2z + 1. (d, h, w) -> (z, y, x):
//   000: (-2, 1.5, 1)  001: (0, 1.5, 5)  010: (2, -0.5, 1)  011: (4, -0.5, 5)
//   100: ( 4, 1.5,-3)  101: (6, 1.5, 1)  110: (8, -0.5,-3)  111: (10, -0.5, 1)
TEST(AffineGrid3D, GeneralMatrix) {
  for (DType dt : kThetaDTypes) {
    SCOPED_TRACE(to_string(dt));
    const Tensor theta =
        make_theta(dt, {1, 3, 4}, {1, 2, 3, 4, 0, -1, 0, 0.5, 2, 0, -2, 1});
    const Tensor grid = run_affine_grid(theta, {1, 4, 2, 2, 2}, 1);
    const double want[] = {-2, 1.5, 1,  0, 1.5, 5,  2, -0.5, 1,  4,  -0.5, 5,
                           4,  1.5, -3, 6, 1.5, 1,  8, -0.5, -3, 10, -0.5, 1};
    for (int i = 0; i < 24; ++i) EXPECT_EQ(g(grid, i), want[i]) << i;
  }
}

// ---------------------------------------------------------------------------------------
// ERRATA AffineGrid 1: an axis of length 1 has base coordinate 0 for both align_corners
// (the ONNX function body gives NaN, the ONNX reference -1, another runtime +1).
TEST(AffineGridErrata, LengthOneGivesZero) {
  for (int64_t ac : {0, 1}) {
    SCOPED_TRACE(ac);
    // 2-D, H = W = 1: grid = theta's translation column (3, -5).
    const Tensor t2 = make_theta(DType::kFloat32, {1, 2, 3}, {9, 8, 3, 7, 6, -5});
    const Tensor g2 = run_affine_grid(t2, {1, 1, 1, 1}, ac);
    EXPECT_EQ(g(g2, 0), 3);
    EXPECT_EQ(g(g2, 1), -5);
    // 3-D, D = H = W = 1: grid = (4, 8, 12).
    const Tensor t3 =
        make_theta(DType::kFloat32, {1, 3, 4}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12});
    const Tensor g3 = run_affine_grid(t3, {1, 1, 1, 1, 1}, ac);
    EXPECT_EQ(g(g3, 0), 4);
    EXPECT_EQ(g(g3, 1), 8);
    EXPECT_EQ(g(g3, 2), 12);
    // Only the length-1 axis is zero: H = 1, W = 2 with the identity: y = 0.
    const Tensor id = make_theta(DType::kFloat32, {1, 2, 3}, {1, 0, 0, 0, 1, 0});
    const Tensor g4 = run_affine_grid(id, {1, 1, 1, 2}, ac);
    EXPECT_EQ(g(g4, 1), 0);
    EXPECT_EQ(g(g4, 3), 0);
    EXPECT_EQ(g(g4, 0), ac ? -1.0 : -0.5);
    EXPECT_EQ(g(g4, 2), ac ? 1.0 : 0.5);
  }
}

// ERRATA AffineGrid 2: the grid has theta's dtype and is computed in its precision.
// align_corners = 0, W = 3: x_0 = 1/3 - 1 rounded in float for float32 and in double for
// float64 (these differ: float64 is not a widened float computation); float16 and
// bfloat16 are the float value rounded once.
TEST(AffineGridErrata, ComputedInThetaPrecision) {
  const std::vector<double> id = {1, 0, 0, 0, 1, 0};
  const float xf = 1.0f / 3.0f - 1.0f;
  const double xd = 1.0 / 3.0 - 1.0;
  ASSERT_NE(static_cast<double>(xf), xd);
  for (DType dt : kThetaDTypes) {
    SCOPED_TRACE(to_string(dt));
    const Tensor grid = run_affine_grid(make_theta(dt, {1, 2, 3}, id), {1, 1, 1, 3}, 0);
    EXPECT_EQ(grid.dtype(), dt);
    switch (dt) {
      case DType::kFloat64: EXPECT_EQ(grid.data_as<double>()[0], xd); break;
      case DType::kFloat32: EXPECT_EQ(grid.data_as<float>()[0], xf); break;
      case DType::kFloat16: EXPECT_EQ(grid.data_as<float16>()[0].bits, f32_to_f16(xf).bits); break;
      case DType::kBFloat16:
        EXPECT_EQ(grid.data_as<bfloat16>()[0].bits, f32_to_bf16(xf).bits);
        break;
      default: FAIL();
    }
  }
}

// ERRATA AffineGrid 2, single rounding for half types. float16 theta
// [[1, 2^-20, 2^-11], [0, 0, 0]] (2^-20 is a float16 subnormal, held exactly),
// H = W = 2, align_corners = 1 (x, y in {-1, 1}). At (h, w) = (1, 1): x = y = 1 and
//   float: 1 * 1 = 1;  1 + 2^-20 (exact in float);  + 2^-11 = 1 + 2^-11 + 2^-20 (exact),
// just above the tie between the float16 neighbours 1 and 1 + 2^-10 -> 1 + 2^-10 (0x3C01).
// Rounding every step to float16 would lose 2^-20 first, then tie to even: 1 (0x3C00).
// At (h, w) = (0, 1): y = -1: 1 + 2^-11 - 2^-20, just below the tie -> 1 (0x3C00).
TEST(AffineGridErrata, HalfTypesRoundOnce) {
  const double t1 = std::ldexp(1.0, -20), t2 = std::ldexp(1.0, -11);
  const Tensor theta = make_theta(DType::kFloat16, {1, 2, 3}, {1, t1, t2, 0, 0, 0});
  const Tensor grid = run_affine_grid(theta, {1, 1, 2, 2}, 1);
  // Point (h = 1, w = 1), k = 0 is flat element (1 * 2 + 1) * 2 = 6.
  EXPECT_EQ(grid.data_as<float16>()[6].bits, 0x3C01);
  // Point (h = 0, w = 1), k = 0 is flat element 2.
  EXPECT_EQ(grid.data_as<float16>()[2].bits, 0x3C00);
}

// The same for bfloat16 (8 significant bits): theta [[1, 2^-20, 2^-8], [0, 0, 0]].
// At (1, 1): float 1 + 2^-8 + 2^-20 (exact), just above the tie between 1 and 1 + 2^-7
// -> 1 + 2^-7 (0x3F81); bfloat16 step by step would give 1 (0x3F80).
// At (0, 1): 1 + 2^-8 - 2^-20, just below the tie -> 1 (0x3F80).
TEST(AffineGridErrata, BFloat16RoundsOnce) {
  const double t1 = std::ldexp(1.0, -20), t2 = std::ldexp(1.0, -8);
  const Tensor theta = make_theta(DType::kBFloat16, {1, 2, 3}, {1, t1, t2, 0, 0, 0});
  const Tensor grid = run_affine_grid(theta, {1, 1, 2, 2}, 1);
  EXPECT_EQ(grid.data_as<bfloat16>()[6].bits, 0x3F81);
  EXPECT_EQ(grid.data_as<bfloat16>()[2].bits, 0x3F80);
}

// ERRATA AffineGrid 4: N = 1 keeps its batch axis (the printed function body squeezes it).
TEST(AffineGridErrata, BatchOfOneIsKept) {
  const Tensor theta = make_theta(DType::kFloat32, {1, 2, 3}, {1, 0, 0, 0, 1, 0});
  const Tensor grid = run_affine_grid(theta, {1, 1, 3, 4}, 0);
  EXPECT_EQ(grid.shape(), (Dims{1, 3, 4, 2}));
  const Tensor theta3 = make_theta(DType::kFloat32, {1, 3, 4}, std::vector<double>(12, 0.0));
  const Tensor grid3 = run_affine_grid(theta3, {1, 1, 2, 3, 4}, 0);
  EXPECT_EQ(grid3.shape(), (Dims{1, 2, 3, 4, 3}));
}

// ---------------------------------------------------------------------------------------
// Empty problems (ERRATA AffineGrid 3): N = 0 or a zero spatial size give an empty grid.
TEST(AffineGridEmpty, ZeroBatchOrSpatial) {
  AffineGridDesc desc;
  // N = 0 with a null theta pointer.
  const TensorView empty_theta(DType::kFloat32, nullptr, {0, 2, 3});
  StatusOr<Tensor> a = affine_grid(desc, empty_theta, Dims{0, 3, 4, 5});
  ASSERT_TRUE(a.ok()) << a.status().to_string();
  EXPECT_EQ(a->shape(), (Dims{0, 4, 5, 2}));
  // H = 0, W huge: the element count is 0, no overflow error.
  const Tensor theta = make_theta(DType::kFloat64, {1, 2, 3}, {1, 0, 0, 0, 1, 0});
  const int64_t huge = int64_t{1} << 62;
  StatusOr<Tensor> b = affine_grid(desc, theta.view(), Dims{1, 1, 0, huge});
  ASSERT_TRUE(b.ok()) << b.status().to_string();
  EXPECT_EQ(b->shape(), (Dims{1, 0, huge, 2}));
  // 3-D, D = 0.
  const Tensor theta3 = make_theta(DType::kFloat16, {2, 3, 4}, std::vector<double>(24, 1.0));
  StatusOr<Tensor> c = affine_grid(desc, theta3.view(), Dims{2, 0, 0, 3, 3});
  ASSERT_TRUE(c.ok()) << c.status().to_string();
  EXPECT_EQ(c->shape(), (Dims{2, 0, 3, 3, 3}));
  // Zero innermost axis after huge ones (their product alone would overflow int64).
  StatusOr<Tensor> e = affine_grid(desc, theta3.view(), Dims{2, 1, huge, huge, 0});
  ASSERT_TRUE(e.ok()) << e.status().to_string();
  EXPECT_EQ(e->shape(), (Dims{2, huge, huge, 0, 3}));
  StatusOr<Tensor> f = affine_grid(desc, theta.view(), Dims{1, 1, huge, 0});
  ASSERT_TRUE(f.ok()) << f.status().to_string();
  // C = 0 is allowed and unused.
  StatusOr<Tensor> d = affine_grid(desc, theta.view(), Dims{1, 0, 1, 1});
  ASSERT_TRUE(d.ok()) << d.status().to_string();
  EXPECT_EQ(d->shape(), (Dims{1, 1, 1, 2}));
  // Into a caller's empty view with a null pointer.
  const MutableTensorView out(DType::kFloat64, nullptr, {1, 0, 7, 2});
  EXPECT_TRUE(affine_grid(desc, theta.view(), Dims{1, 1, 0, 7}, out).ok());
}

// ---------------------------------------------------------------------------------------
// Random thetas, every dtype, 2-D and 3-D, against the independent formulas above.
TEST(AffineGridProperty, RandomThetasMatchFormula) {
  const uint64_t seed = testing::test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  for (int iter = 0; iter < 120; ++iter) {
    const DType dt = kThetaDTypes[iter % 4];
    const int r = 2 + static_cast<int>(rng() % 2);
    const int64_t ac = static_cast<int64_t>(rng() % 2);
    Dims size{static_cast<int64_t>(rng() % 3), static_cast<int64_t>(rng() % 4)};
    for (int a = 0; a < r; ++a) size.push_back(1 + static_cast<int64_t>(rng() % (r == 2 ? 9 : 5)));
    if (iter % 17 == 0) size[2] = 0;  // now and then an empty spatial axis
    SCOPED_TRACE("iter " + std::to_string(iter) + " dtype " + to_string(dt) + " size " +
                 dims_to_string(size) + " align_corners " + std::to_string(ac));
    Tensor theta(dt, {size[0], r, r + 1});
    testing::fill_random(theta, rng, -3.0, 3.0);
    const Tensor grid = run_affine_grid(theta, size, ac);
    check_grid(theta, size, ac, grid);
    if (::testing::Test::HasFatalFailure()) return;
  }
}

// Long axes: align_corners = 1 puts the ends exactly at -1 and 1, and both modes stay
// within [-1, 1] and increase strictly (identity theta, H = 1).
TEST(AffineGridProperty, LongAxisEndsAndMonotone) {
  const uint64_t seed = testing::test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  for (DType dt : {DType::kFloat32, DType::kFloat64}) {
    for (int64_t ac : {0, 1}) {
      const int64_t w = 2 + static_cast<int64_t>(rng() % 3000);
      SCOPED_TRACE(std::string(to_string(dt)) + " W " + std::to_string(w) + " ac " +
                   std::to_string(ac));
      const Tensor theta = make_theta(dt, {1, 2, 3}, {1, 0, 0, 0, 1, 0});
      const Dims size{1, 1, 1, w};
      const Tensor grid = run_affine_grid(theta, size, ac);
      check_grid(theta, size, ac, grid);
      if (ac == 1) {
        EXPECT_EQ(g(grid, 0), -1.0);
        EXPECT_EQ(g(grid, 2 * (w - 1)), 1.0);
      }
      for (int64_t i = 1; i < w; ++i) {
        ASSERT_LT(g(grid, 2 * (i - 1)), g(grid, 2 * i)) << i;
        ASSERT_GE(g(grid, 2 * i), -1.0);
        ASSERT_LE(g(grid, 2 * i), 1.0);
      }
    }
  }
}

// Strided, reversed and negative-stride theta views give the same bits as a contiguous one.
TEST(AffineGridStrides, StridedAndNegativeTheta) {
  const uint64_t seed = testing::test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed + 1);
  for (DType dt : kThetaDTypes) {
    for (int r : {2, 3}) {
      SCOPED_TRACE(std::string(to_string(dt)) + " r " + std::to_string(r));
      Tensor theta(dt, {3, r, r + 1});
      testing::fill_random(theta, rng, -2.0, 2.0);
      const Dims size = r == 2 ? Dims{3, 2, 4, 5} : Dims{3, 2, 2, 3, 4};
      const Tensor want = run_affine_grid(theta, size, 0);
      for (bool negative : {false, true}) {
        Tensor storage;
        const TensorView strided = testing::scrambled_copy(theta, storage, negative);
        AffineGridDesc desc;
        StatusOr<Tensor> got = affine_grid(desc, strided, size);
        ASSERT_TRUE(got.ok()) << got.status().to_string();
        int64_t where = 0;
        EXPECT_TRUE(testing::bitwise_equal(*got, want, &where))
            << "negative " << negative << " first difference at " << where;
      }
    }
  }
}

// A zero batch stride broadcasts one theta over every batch entry.
TEST(AffineGridStrides, ZeroStrideThetaBroadcasts) {
  const Tensor one = make_theta(DType::kFloat32, {1, 2, 3}, {0.5, -1, 0.25, 2, 1.5, -3});
  const TensorView bcast(DType::kFloat32, one.data(), {4, 2, 3}, {0, 3, 1});
  AffineGridDesc desc;
  desc.align_corners = 1;
  StatusOr<Tensor> got = affine_grid(desc, bcast, Dims{4, 1, 3, 2});
  ASSERT_TRUE(got.ok()) << got.status().to_string();
  const Tensor single = run_affine_grid(one, {1, 1, 3, 2}, 1);
  for (int64_t n = 0; n < 4; ++n) {
    for (int64_t i = 0; i < 12; ++i) EXPECT_EQ(g(*got, n * 12 + i), g(single, i)) << n << " " << i;
  }
}

// The grid may be any strided view too: reversed axis order with negative strides.
TEST(AffineGridStrides, StridedAndNegativeGrid) {
  const uint64_t seed = testing::test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed + 2);
  for (DType dt : kThetaDTypes) {
    for (int r : {2, 3}) {
      SCOPED_TRACE(std::string(to_string(dt)) + " r " + std::to_string(r));
      Tensor theta(dt, {2, r, r + 1});
      testing::fill_random(theta, rng, -2.0, 2.0);
      const Dims size = r == 2 ? Dims{2, 1, 3, 4} : Dims{2, 1, 2, 3, 4};
      const Tensor want = run_affine_grid(theta, size, 1);
      // Lay the grid out in reverse axis order, every stride negated.
      Dims phys(want.shape().rbegin(), want.shape().rend());
      Tensor storage(dt, phys);
      const Dims ps = contiguous_strides(phys);
      const int rank = want.rank();
      Dims strides(rank);
      int64_t start = 0;
      for (int a = 0; a < rank; ++a) {
        strides[a] = -ps[rank - 1 - a];
        start += (want.shape()[a] - 1) * ps[rank - 1 - a];
      }
      const MutableTensorView out(
          dt, static_cast<char*>(storage.data()) + start * static_cast<int64_t>(dtype_size(dt)),
          want.shape(), strides);
      AffineGridDesc desc;
      desc.align_corners = 1;
      ASSERT_TRUE(affine_grid(desc, theta.view(), size, out).ok());
      int64_t where = 0;
      EXPECT_TRUE(testing::bitwise_equal(contiguous_copy(out), want, &where)) << where;
    }
  }
}

// ---------------------------------------------------------------------------------------
// Plans: built once, run many times with different data; the implementation is named.
TEST(AffineGridPlans, ReusableAndNamed) {
  AffineGridDesc desc;
  desc.align_corners = 1;
  const Dims theta_shape{2, 2, 3};
  const Dims size{2, 1, 2, 2};
  StatusOr<AffineGridPlan> plan = make_affine_grid_plan(desc, DType::kFloat64, theta_shape, size);
  ASSERT_TRUE(plan.ok()) << plan.status().to_string();
  EXPECT_STREQ(plan->impl_name(), kDefaultImpl);
  EXPECT_EQ(plan->grid_shape(), (Dims{2, 2, 2, 2}));
  for (double scale : {1.0, -2.0}) {
    const Tensor theta =
        make_theta(DType::kFloat64, theta_shape, {scale, 0, 0, 0, scale, 0, 0, 0, 1, 0, 0, 2});
    Tensor grid(DType::kFloat64, plan->grid_shape());
    ASSERT_TRUE(plan->run(theta.view(), grid.mutable_view()).ok());
    // Batch 0: (scale x, scale y) on the corners x, y in {-1, 1}; batch 1: (1, 2).
    const double want[] = {-scale, -scale, scale, -scale, -scale, scale, scale, scale,
                           1,      2,      1,     2,      1,      2,     1,     2};
    for (int i = 0; i < 16; ++i) EXPECT_EQ(g(grid, i), want[i]) << scale << " " << i;
  }
  // Forcing the reference by name works too.
  desc.impl = "ref";
  StatusOr<AffineGridPlan> forced = make_affine_grid_plan(desc, DType::kFloat16, theta_shape, size);
  ASSERT_TRUE(forced.ok()) << forced.status().to_string();
  EXPECT_STREQ(forced->impl_name(), "ref");
}

// GRIDOPS_IMPL from the environment forces a listed implementation; an unknown name
// there is ignored (unlike an unknown AffineGridDesc::impl, which is an error).
TEST(AffineGridPlans, ImplFromEnvironment) {
  const Dims theta_shape{1, 2, 3}, size{1, 1, 2, 2};
  ASSERT_EQ(setenv("GRIDOPS_IMPL", "no_such_impl", 1), 0);
  StatusOr<AffineGridPlan> a = make_affine_grid_plan(AffineGridDesc{}, DType::kFloat32,
                                                     theta_shape, size);
  ASSERT_EQ(setenv("GRIDOPS_IMPL", "ref", 1), 0);
  StatusOr<AffineGridPlan> b = make_affine_grid_plan(AffineGridDesc{}, DType::kFloat32,
                                                     theta_shape, size);
  unsetenv("GRIDOPS_IMPL");
  ASSERT_TRUE(a.ok()) << a.status().to_string();
  ASSERT_TRUE(b.ok()) << b.status().to_string();
  EXPECT_STREQ(a->impl_name(), kDefaultImpl);
  EXPECT_STREQ(b->impl_name(), "ref");
}

// affine_grid_output_shape agrees with the plan's shape for both kinds.
TEST(AffineGridPlans, OutputShape) {
  StatusOr<Dims> s2 = affine_grid_output_shape(Dims{3, 2, 3}, Dims{3, 7, 5, 6});
  ASSERT_TRUE(s2.ok());
  EXPECT_EQ(*s2, (Dims{3, 5, 6, 2}));
  StatusOr<Dims> s3 = affine_grid_output_shape(Dims{2, 3, 4}, Dims{2, 1, 4, 5, 6});
  ASSERT_TRUE(s3.ok());
  EXPECT_EQ(*s3, (Dims{2, 4, 5, 6, 3}));
}

// Non-finite theta values propagate (no special casing, no crash).
TEST(AffineGridValues, NonFiniteThetaPropagates) {
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (DType dt : kThetaDTypes) {
    SCOPED_TRACE(to_string(dt));
    const Tensor theta = make_theta(dt, {1, 2, 3}, {nan, 0, 0, 0, 0, inf});
    const Tensor grid = run_affine_grid(theta, {1, 1, 1, 2}, 1);
    EXPECT_TRUE(std::isnan(g(grid, 0)));
    EXPECT_EQ(g(grid, 1), inf);
  }
}

}  // namespace
}  // namespace gridops
