// AffineGrid values: hand-worked examples (2-D and 3-D, both align_corners), the ERRATA
// rules, every theta dtype, strided views, and random thetas against formulas written
// here independently of the kernel.
#include "ops/affine_grid_test_util.h"

namespace gridops {
namespace {

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
}  // namespace
}  // namespace gridops
