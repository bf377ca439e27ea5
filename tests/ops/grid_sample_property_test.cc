// GridSample properties over random shapes: an independent separable formula for 1-D..4-D,
// identity grids, channels-last vs channels-first, strided / negative-stride / broadcast
// views, and nearest over every dtype.
#include "ops/grid_sample_property_util.h"

namespace gridops {
namespace {

// --- against the separable formula ------------------------------------------------------

TEST(GridSampleProperty, MatchesSeparableFormulaDouble) {
  const uint64_t seed = testing::test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  for (int r = 1; r <= 4; ++r) {
    for (int trial = 0; trial < 3; ++trial) {
      Dims ss, gs;
      random_shapes(rng, r, &ss, &gs);
      Tensor src(DType::kFloat64, ss), grid(DType::kFloat64, gs);
      testing::fill_random(src, rng, -1, 1);
      testing::fill_random(grid, rng, -1.4, 1.4);  // past the edges: padding matters
      for (IM mode : kModes) {
        for (GP pad : kPads) {
          for (bool ac : {false, true}) {
            SCOPED_TRACE(trace(r, mode, pad, ac) + " src " + dims_to_string(ss));
            Tensor out = run_ok(make_desc(mode, pad, ac), src.view(), grid.view());
            const std::vector<double> want = ref_grid_sample<double>(src, grid, mode, pad, ac);
            ASSERT_EQ(static_cast<size_t>(out.num_elements()), want.size());
            for (size_t i = 0; i < want.size(); ++i) {
              ASSERT_NEAR(out.data_as<double>()[i], want[i], 1e-12) << "element " << i;
            }
          }
        }
      }
    }
  }
}

TEST(GridSampleProperty, MatchesSeparableFormulaFloat) {
  const uint64_t seed = testing::test_seed() + 1;
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  for (int r = 1; r <= 3; ++r) {
    for (int trial = 0; trial < 2; ++trial) {
      Dims ss, gs;
      random_shapes(rng, r, &ss, &gs);
      Tensor src64(DType::kFloat64, ss), grid(DType::kFloat32, gs);
      testing::fill_random(src64, rng, -1, 1);
      testing::fill_random(grid, rng, -1.4, 1.4);
      // The same values as float32 (exact: round the double data to float first).
      Tensor src32(DType::kFloat32, ss);
      for (int64_t i = 0; i < src64.num_elements(); ++i) {
        src32.data_as<float>()[i] = static_cast<float>(src64.data_as<double>()[i]);
        src64.data_as<double>()[i] = src32.data_as<float>()[i];
      }
      for (IM mode : kModes) {
        for (GP pad : kPads) {
          for (bool ac : {false, true}) {
            SCOPED_TRACE(trace(r, mode, pad, ac) + " src " + dims_to_string(ss));
            Tensor out = run_ok(make_desc(mode, pad, ac), src32.view(), grid.view());
            // Coordinates in float as the kernel (ERRATA 2); the rest in double.
            const std::vector<double> want = ref_grid_sample<float>(src64, grid, mode, pad, ac);
            ASSERT_EQ(static_cast<size_t>(out.num_elements()), want.size());
            for (size_t i = 0; i < want.size(); ++i) {
              ASSERT_NEAR(out.data_as<float>()[i], want[i], 2e-5) << "element " << i;
            }
          }
        }
      }
    }
  }
}

// The gridops extensions (docs/ops/grid_sample.md, "Grid conventions", "Padding modes"):
// pixel and displacement grids, wrap, constant and fill, against the separable formula
// with its own base coordinates, wrap by repeated shifts and constant as a weighted value.
constexpr GP kAllPads[] = {GP::kZeros, GP::kBorder,   GP::kReflection,
                           GP::kWrap,  GP::kConstant, GP::kFill};

template <class SrcT, class G>
void check_extensions(uint64_t seed, int max_rank, double tol) {
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  const DType sdt = std::is_same_v<SrcT, double> ? DType::kFloat64 : DType::kFloat32;
  const DType gdt = std::is_same_v<G, double> ? DType::kFloat64 : DType::kFloat32;
  for (int r = 1; r <= max_rank; ++r) {
    for (int trial = 0; trial < 2; ++trial) {
      Dims ss, gs;
      random_shapes(rng, r, &ss, &gs);
      Tensor src64(DType::kFloat64, ss), src(sdt, ss);
      testing::fill_random(src64, rng, -1, 1);
      for (int64_t i = 0; i < src64.num_elements(); ++i) {  // the same values in both
        const auto v = static_cast<SrcT>(src64.data_as<double>()[i]);
        src.data_as<SrcT>()[i] = v;
        src64.data_as<double>()[i] = static_cast<double>(v);
      }
      for (int units = 0; units < 2; ++units) {
        for (int kind = 0; kind < 2; ++kind) {
          Conv cv;
          cv.pixels = units == 1;
          cv.displacement = kind == 1;
          cv.fill = 0.75;
          Tensor grid(gdt, gs);
          if (!cv.pixels) {
            testing::fill_random(grid, rng, cv.displacement ? -0.5 : -1.4, cv.displacement ? 0.5 : 1.4);
          } else if (cv.displacement) {
            testing::fill_random(grid, rng, -1.7, 1.7);
          } else {
            testing::fill_random(grid, rng, -1.7, 6.7);  // inputs are 1..5 long
          }
          for (IM mode : kModes) {
            for (GP pad : kAllPads) {
              for (bool ac : {false, true}) {
                SCOPED_TRACE(trace(r, mode, pad, ac) + " pixels=" + std::to_string(units) +
                             " displacement=" + std::to_string(kind) + " src " + dims_to_string(ss));
                GridSampleDesc d = make_desc(mode, pad, ac);
                d.units = cv.pixels ? GridUnits::kPixels : GridUnits::kNormalized;
                d.kind = cv.displacement ? GridKind::kDisplacement : GridKind::kAbsolute;
                Conv c = cv;
                if (pad != GP::kConstant && pad != GP::kFill) c.fill = 0.0;
                d.fill_value = c.fill;
                Tensor out = run_ok(d, src.view(), grid.view());
                const std::vector<double> want = ref_grid_sample<G>(src64, grid, mode, pad, ac, c);
                ASSERT_EQ(static_cast<size_t>(out.num_elements()), want.size());
                for (size_t i = 0; i < want.size(); ++i) {
                  ASSERT_NEAR(static_cast<double>(out.data_as<SrcT>()[i]), want[i], tol)
                      << "element " << i;
                }
              }
            }
          }
        }
      }
    }
  }
}

TEST(GridSampleProperty, ExtensionsMatchSeparableFormulaDouble) {
  check_extensions<double, double>(testing::test_seed() + 11, 4, 1e-12);
}

// float32: the fast forward's paths for what they take (pixel and displacement grids with
// zeros, border, reflection), the reference for the rest.
TEST(GridSampleProperty, ExtensionsMatchSeparableFormulaFloat) {
  check_extensions<float, float>(testing::test_seed() + 12, 3, 2e-5);
}

// Ranks beyond 3-D (ERRATA 6: cubic works for every rank), up to kMaxRank - 2 = 14.
TEST(GridSampleProperty, HighRanksMatchSeparableFormula) {
  const uint64_t seed = testing::test_seed() + 7;
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  struct Case {
    int r;
    int64_t in, out;
    IM mode;
  };
  // 4^6 = 4096 cubic tap combinations per point; 2^14 = 16384 linear ones.
  for (const Case& k : {Case{6, 3, 1, IM::kCubic}, Case{5, 3, 2, IM::kLinear},
                        Case{14, 2, 1, IM::kLinear}, Case{14, 2, 1, IM::kNearest}}) {
    Dims ss = {1, 2}, gs = {1};
    for (int d = 0; d < k.r; ++d) ss.push_back(k.in);
    for (int d = 0; d < k.r; ++d) gs.push_back(k.out);
    gs.push_back(k.r);
    Tensor src(DType::kFloat64, ss), grid(DType::kFloat64, gs);
    testing::fill_random(src, rng, -1, 1);
    testing::fill_random(grid, rng, -1.3, 1.3);
    for (GP pad : kPads) {
      const bool ac = (rng() & 1) != 0;
      SCOPED_TRACE(trace(k.r, k.mode, pad, ac));
      Tensor out = run_ok(make_desc(k.mode, pad, ac), src.view(), grid.view());
      const std::vector<double> want = ref_grid_sample<double>(src, grid, k.mode, pad, ac);
      ASSERT_EQ(static_cast<size_t>(out.num_elements()), want.size());
      for (size_t i = 0; i < want.size(); ++i) {
        ASSERT_NEAR(out.data_as<double>()[i], want[i], 1e-12) << "element " << i;
      }
    }
  }
}

// --- identity grids -------------------------------------------------------------------------

/// The identity grid for output = input sizes, from the base coordinate formula
/// (align_corners=1: -1 + 2i/(L-1); 0: -1 + (2i+1)/L), computed in double, stored as float.
Tensor identity_grid(const Dims& src_shape, bool ac) {
  const int r = static_cast<int>(src_shape.size()) - 2;
  Dims gs = {src_shape[0]};
  for (int d = 0; d < r; ++d) gs.push_back(src_shape[static_cast<size_t>(d) + 2]);
  gs.push_back(r);
  Tensor grid(DType::kFloat32, gs);
  float* g = grid.data_as<float>();
  Dims o(static_cast<size_t>(r), 0);
  int64_t points = 1;
  for (int d = 0; d < r; ++d) points *= gs[static_cast<size_t>(d) + 1];
  for (int64_t n = 0; n < gs[0]; ++n) {
    std::fill(o.begin(), o.end(), 0);
    for (int64_t p = 0; p < points; ++p) {
      for (int d = 0; d < r; ++d) {
        const double len = static_cast<double>(src_shape[static_cast<size_t>(d) + 2]);
        const double i = static_cast<double>(o[static_cast<size_t>(d)]);
        const double base = ac ? -1.0 + 2.0 * i / (len - 1.0) : -1.0 + (2.0 * i + 1.0) / len;
        g[(n * points + p) * r + (r - 1 - d)] = static_cast<float>(base);
      }
      for (int d = r - 1; d >= 0; --d) {
        if (++o[static_cast<size_t>(d)] < gs[static_cast<size_t>(d) + 1]) break;
        o[static_cast<size_t>(d)] = 0;
      }
    }
  }
  return grid;
}

TEST(GridSampleProperty, IdentityGridReturnsInput) {
  const uint64_t seed = testing::test_seed() + 2;
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  for (const Dims& ss : {Dims{1, 2, 7}, Dims{2, 3, 5, 6}, Dims{1, 2, 3, 4, 5}, Dims{1, 1, 2, 3, 2, 3}}) {
    SCOPED_TRACE(dims_to_string(ss));
    Tensor src(DType::kFloat32, ss);
    testing::fill_random(src, rng, -1, 1);
    for (GP pad : kPads) {
      // align_corners=1: linear within rounding of the grid, nearest exactly.
      Tensor g1 = identity_grid(ss, true);
      Tensor lin = run_ok(make_desc(IM::kLinear, pad, true), src.view(), g1.view());
      for (int64_t i = 0; i < src.num_elements(); ++i) {
        ASSERT_NEAR(lin.data_as<float>()[i], src.data_as<float>()[i], 1e-5) << i;
      }
      Tensor near1 = run_ok(make_desc(IM::kNearest, pad, true), src.view(), g1.view());
      EXPECT_TRUE(testing::bitwise_equal(near1, src)) << to_string(pad);
      // Pixel centres with align_corners=0: nearest exactly.
      Tensor g0 = identity_grid(ss, false);
      Tensor near0 = run_ok(make_desc(IM::kNearest, pad, false), src.view(), g0.view());
      EXPECT_TRUE(testing::bitwise_equal(near0, src)) << to_string(pad);
    }
  }
}

// --- nearest over every dtype ----------------------------------------------------------------

TEST(GridSampleProperty, NearestSelectsTheFormulaElementForEveryDType) {
  const uint64_t seed = testing::test_seed() + 3;
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  for (int code = 0; code < kNumDTypes; ++code) {
    const DType dt = static_cast<DType>(code);
    SCOPED_TRACE(to_string(dt));
    const int r = 1 + code % 3;
    Dims ss, gs;
    random_shapes(rng, r, &ss, &gs);
    Tensor src(dt, ss), grid(DType::kFloat64, gs);
    testing::fill_random(src, rng, -100, 100);
    testing::fill_random(grid, rng, -1.5, 1.5);
    // Index source: a double tensor holding each element's flat index.
    Tensor idx(DType::kFloat64, ss);
    for (int64_t i = 0; i < idx.num_elements(); ++i) idx.data_as<double>()[i] = static_cast<double>(i);
    for (GP pad : kPads) {
      for (bool ac : {false, true}) {
        Tensor out = run_ok(make_desc(IM::kNearest, pad, ac), src.view(), grid.view());
        const std::vector<double> which = ref_grid_sample<double>(idx, grid, IM::kNearest, pad, ac);
        // Zeros padding outside: the formula gives 0 for "no tap"; tell it apart from index 0
        // with a second index tensor shifted by one.
        Tensor idx1 = std::move(idx.clone()).value();
        for (int64_t i = 0; i < idx1.num_elements(); ++i) idx1.data_as<double>()[i] += 1;
        const std::vector<double> which1 = ref_grid_sample<double>(idx1, grid, IM::kNearest, pad, ac);
        const size_t es = dtype_size(dt);
        for (size_t i = 0; i < which.size(); ++i) {
          const bool outside = which1[i] == 0;
          const char* got = static_cast<const char*>(out.data()) + static_cast<int64_t>(i * es);
          if (dt == DType::kString) {
            const std::string& s = *reinterpret_cast<const std::string*>(got);
            EXPECT_EQ(s, outside ? std::string() : src.data_as<std::string>()[static_cast<int64_t>(which[i])]);
          } else if (outside) {
            const std::vector<char> zero(es, 0);
            EXPECT_EQ(std::memcmp(got, zero.data(), es), 0) << i;
          } else {
            const char* want = static_cast<const char*>(src.data()) +
                               static_cast<int64_t>(which[i]) * static_cast<int64_t>(es);
            EXPECT_EQ(std::memcmp(got, want, es), 0) << i;
          }
        }
      }
    }
  }
}

// --- layouts and strides ---------------------------------------------------------------------

/// perm taking channels-first (N, C, D1..Dr) to channels-last (N, D1..Dr, C), and back.
std::vector<int> to_last(int rank) {
  std::vector<int> p = {0};
  for (int i = 2; i < rank; ++i) p.push_back(i);
  p.push_back(1);
  return p;
}
std::vector<int> to_first(int rank) {
  std::vector<int> p = {0, rank - 1};
  for (int i = 1; i < rank - 1; ++i) p.push_back(i);
  return p;
}

TEST(GridSampleProperty, ChannelsLastEqualsChannelsFirst) {
  const uint64_t seed = testing::test_seed() + 4;
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  for (DType dt : {DType::kFloat32, DType::kInt16, DType::kComplex64, DType::kString}) {
    for (int r = 1; r <= 3; ++r) {
      Dims ss, gs;
      random_shapes(rng, r, &ss, &gs);
      Tensor src(dt, ss), grid(DType::kFloat32, gs);
      testing::fill_random(src, rng, -50, 50);
      testing::fill_random(grid, rng, -1.3, 1.3);
      Tensor src_last = permute(src, to_last(r + 2));
      for (IM mode : kModes) {
        if (dt == DType::kString && mode != IM::kNearest) continue;
        for (GP pad : kPads) {
          for (bool ac : {false, true}) {
            SCOPED_TRACE(std::string(to_string(dt)) + " " + trace(r, mode, pad, ac));
            Tensor first = run_ok(make_desc(mode, pad, ac), src.view(), grid.view());
            Tensor last = run_ok(make_desc(mode, pad, ac, ChannelLayout::kChannelsLast),
                                 src_last.view(), grid.view());
            EXPECT_TRUE(testing::bitwise_equal(permute(last, to_first(r + 2)), first));
          }
        }
      }
    }
  }
}

TEST(GridSampleProperty, StridedAndNegativeStridesMatchContiguous) {
  const uint64_t seed = testing::test_seed() + 5;
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  for (DType dt : {DType::kFloat32, DType::kUInt8, DType::kFloat16, DType::kString}) {
    for (DType gdt : {DType::kFloat32, DType::kBFloat16, DType::kFloat64}) {
      const int r = 1 + static_cast<int>(rng() % 3);
      Dims ss, gs;
      random_shapes(rng, r, &ss, &gs);
      Tensor src(dt, ss), grid(gdt, gs);
      testing::fill_random(src, rng, 0, 200);
      testing::fill_random(grid, rng, -1.3, 1.3);
      for (bool negative : {false, true}) {
        Tensor src_store, grid_store;
        const TensorView sv = testing::scrambled_copy(src, src_store, negative);
        const TensorView gv = testing::scrambled_copy(grid, grid_store, negative);
        for (IM mode : kModes) {
          if (dt == DType::kString && mode != IM::kNearest) continue;
          for (GP pad : kPads) {
            const bool ac = (rng() & 1) != 0;
            SCOPED_TRACE(std::string(to_string(dt)) + " grid " + to_string(gdt) + " " +
                         trace(r, mode, pad, ac) + (negative ? " negative" : " reversed"));
            const GridSampleDesc d = make_desc(mode, pad, ac);
            Tensor want = run_ok(d, src.view(), grid.view());
            EXPECT_TRUE(testing::bitwise_equal(run_ok(d, sv, gv), want));
            // A strided dst: the scrambled layout of a tensor of dst's shape.
            Tensor dst_shape_tensor(dt, want.shape()), dst_store;
            const TensorView dv = testing::scrambled_copy(dst_shape_tensor, dst_store, negative);
            MutableTensorView mdv(dt, const_cast<void*>(dv.data), dv.shape, dv.strides);
            ASSERT_TRUE(grid_sample(d, sv, gv, mdv).ok());
            EXPECT_TRUE(testing::bitwise_equal(materialize(mdv), want));
          }
        }
      }
    }
  }
}

TEST(GridSampleProperty, ZeroStrideBroadcastSrc) {
  // One channel read through stride 0 behaves like C identical channels.
  const uint64_t seed = testing::test_seed() + 6;
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  Tensor plane(DType::kFloat32, {1, 1, 4, 5});
  testing::fill_random(plane, rng, -1, 1);
  Tensor full(DType::kFloat32, {1, 3, 4, 5});
  for (int c = 0; c < 3; ++c) {
    std::memcpy(full.data_as<float>() + c * 20, plane.data_as<float>(), 20 * sizeof(float));
  }
  TensorView bcast(DType::kFloat32, plane.data(), {1, 3, 4, 5}, {20, 0, 5, 1});
  Tensor grid(DType::kFloat32, {1, 3, 3, 2});
  testing::fill_random(grid, rng, -1.2, 1.2);
  for (IM mode : kModes) {
    const GridSampleDesc d = make_desc(mode, GP::kReflection, false);
    EXPECT_TRUE(testing::bitwise_equal(run_ok(d, bcast, grid.view()), run_ok(d, full.view(), grid.view())));
  }
}

}  // namespace
}  // namespace gridops
