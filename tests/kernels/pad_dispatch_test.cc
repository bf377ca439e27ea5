// Pad dispatch (huge shapes, benchmark workloads, views and targets handed off) and the
// line writer's pieces (helpers in pad_diff_util.h).
#include "kernels/pad_diff_util.h"

#ifdef __linux__
#include <sys/mman.h>
#include <unistd.h>
#endif

namespace gridops {
namespace {

// Plans for shapes no buffer could hold (checked only when run) must not overflow while
// the fast entry merges dimensions: it declines them and the reference takes the plan.
TEST(PadDispatch, HugeShapesAreDeclinedNotOverflowed) {
  PadDesc desc;
  desc.mode = PadMode::kConstant;
  desc.pads_begin = {1, 0};
  desc.pads_end = {0, 0};
  auto p = make_pad_plan(desc, DType::kFloat64, Dims{2, int64_t{1} << 61});
  ASSERT_TRUE(p.ok()) << p.status().to_string();
  EXPECT_STREQ(p->impl_name(), "ref");
  desc.mode = PadMode::kWrap;  // huge pads: tables too large
  desc.pads_begin = {int64_t{1} << 40, 0};
  auto q = make_pad_plan(desc, DType::kUInt8, Dims{3, 5});
  ASSERT_TRUE(q.ok()) << q.status().to_string();
  EXPECT_STREQ(q->impl_name(), "ref");
}

// The benchmark workloads (W7a-W7e) must not silently fall back to the reference.
TEST(PadDispatch, BenchmarkWorkloadsUseTheFastKernel) {
  for (PadMode mode : kModes) {
    PadDesc w7a;
    w7a.mode = mode;
    w7a.pads_begin = {0, 0, 3, 3};
    w7a.pads_end = {0, 0, 3, 3};
    auto p = make_pad_plan(w7a, DType::kFloat32, Dims{8, 64, 128, 128});
    ASSERT_TRUE(p.ok());
    EXPECT_STRNE(p->impl_name(), "ref") << to_string(mode);
    PadDesc w7e;
    w7e.mode = mode;
    w7e.pads_begin = {0, 0};
    w7e.pads_end = {0, 24};
    auto q = make_pad_plan(w7e, DType::kFloat32, Dims{4096, 1000});
    ASSERT_TRUE(q.ok());
    EXPECT_STRNE(q->impl_name(), "ref") << to_string(mode);
  }
}

// Views the fast entries cannot take (non-contiguous) run the reference, with the same
// bits, and each hand-off is logged under GRIDOPS_VERBOSE=dispatch.
TEST(PadDispatch, NonContiguousViewsFallBackVisibly) {
  std::mt19937_64 rng(testing::test_seed());
  Tensor src(DType::kFloat32, {4, 60});  // rows of 252 bytes: pad.lines' where it exists
  testing::fill_random_bytes(src, rng);
  Tensor storage;
  const TensorView strided = testing::scrambled_copy(src, storage, true);
  PadDesc desc;
  desc.mode = PadMode::kReflect;
  desc.pads_begin = std::vector<int64_t>{1, 2};
  desc.pads_end = std::vector<int64_t>{2, 1};
  const Tensor want = run_impl(desc, "ref", src.view(), nullptr);
  int taken = 0;
  for (const auto& e : detail::pad_entries()) {
    if (std::string(e.name) == "ref" || !takes(desc, e.name, src.dtype(), src.shape())) continue;
    ++taken;
    SCOPED_TRACE(e.name);
    ASSERT_EQ(setenv("GRIDOPS_VERBOSE", "dispatch", 1), 0);
    ::testing::internal::CaptureStderr();
    const Tensor got = run_impl(desc, e.name, strided, nullptr);
    const std::string log = ::testing::internal::GetCapturedStderr();
    unsetenv("GRIDOPS_VERBOSE");
    EXPECT_TRUE(testing::bitwise_equal(got, want));
    EXPECT_NE(log.find(std::string("pad: '") + e.name +
                       "' declines these views at run time (src is not contiguous): running '"),
              std::string::npos)
        << log;
    EXPECT_NE(log.find("' declines these views at run time (src is not contiguous): running 'ref'"),
              std::string::npos)
        << log;
  }
  EXPECT_GE(taken, 1);
}

// A plan made for pad.lines and run after Highway's target changed to one without
// AVX-512 BW (the tests switch targets; a cached choice once made the stub write nothing)
// hands the run to the next entry that takes it: logged, the same bytes.
TEST(PadDispatch, TargetWithoutTheLineWriterRunsTheRows) {
  const std::vector<int64_t> targets = testing::hwy_targets();
  PadDesc desc;
  desc.mode = PadMode::kEdge;
  desc.pads_begin = std::vector<int64_t>{1, 3};
  desc.pads_end = std::vector<int64_t>{2, 5};
  const Dims shape{9, 100};
  std::string why;
  if (targets.size() < 2 || !takes(desc, "pad.lines", DType::kFloat32, shape, &why)) {
    GTEST_SKIP() << "no pad.lines on this CPU's best Highway target, or no lower target: " << why;
  }
  desc.impl = "pad.lines";
  auto plan = make_pad_plan(desc, DType::kFloat32, shape);
  ASSERT_TRUE(plan.ok()) << plan.status().to_string();
  const int64_t planned_line = kernels::pad_lines_vec_bytes();
  std::mt19937_64 rng(testing::test_seed());
  Tensor src(DType::kFloat32, shape);
  testing::fill_random_bytes(src, rng);
  const Tensor want = run_impl(desc, "ref", src.view(), nullptr);
  Tensor got(DType::kFloat32, plan->dst_shape());
  {
    testing::ScopedHwyTarget lowest(targets.back());
    SCOPED_TRACE("lowest Highway target " + testing::hwy_target_name(targets.back()));
    const int64_t lowest_line = kernels::pad_lines_vec_bytes();
    ASSERT_EQ(setenv("GRIDOPS_VERBOSE", "dispatch", 1), 0);
    ::testing::internal::CaptureStderr();
    const Status st = plan->run(src.view(), got.mutable_view());
    const std::string log = ::testing::internal::GetCapturedStderr();
    unsetenv("GRIDOPS_VERBOSE");
    ASSERT_TRUE(st.ok()) << st.to_string();
    EXPECT_NE(log.find("pad: 'pad.lines' declines these views at run time (the dispatched Highway "
                       "target has no AVX-512 BW): running 'pad.lines_vec'"),
              std::string::npos)
        << log;
    // The next entry in list order, pad.lines_vec, writes when the lowest target's line
    // vector is the one its pieces were cut for (a build whose baseline is AVX2, like the
    // sanitized one, has AVX2 as its lowest target); otherwise it declines and pad.rows
    // writes the rows.
    if (lowest_line == planned_line) {
      EXPECT_EQ(log.find("'pad.lines_vec' declines"), std::string::npos) << log;
    } else {
      EXPECT_NE(log.find("pad: 'pad.lines_vec' declines these views at run time (the dispatched "
                         "Highway target's vector is " +
                         std::to_string(lowest_line) + " bytes, the plan's lines " +
                         std::to_string(planned_line) + "): running 'pad.rows'"),
                std::string::npos)
          << log;
    }
  }
  EXPECT_TRUE(testing::bitwise_equal(got, want));
}

// A plan made for pad.lines_vec and run after Highway's target changed to one whose vector
// is not the plan's line (its pieces were cut for that line) hands the run to pad.rows:
// logged, the same bytes. Every target with a line of another size is tried.
// Constant mode (no pad pieces) and reflect (window pieces) both.
class PadLinesVecTargets : public ::testing::TestWithParam<PadMode> {};

TEST_P(PadLinesVecTargets, OnATargetWithAnotherLineRunsTheRows) {
  const std::vector<int64_t> targets = testing::hwy_targets();
  PadDesc desc;
  desc.mode = GetParam();
  desc.pads_begin = std::vector<int64_t>{1, 3};
  desc.pads_end = std::vector<int64_t>{2, 5};
  const Dims shape{9, 100};
  std::string why;
  if (targets.empty() || !takes(desc, "pad.lines_vec", DType::kFloat32, shape, &why)) {
    GTEST_SKIP() << "no pad.lines_vec on this CPU's Highway target: " << why;
  }
  desc.impl = "pad.lines_vec";
  auto plan = make_pad_plan(desc, DType::kFloat32, shape);
  ASSERT_TRUE(plan.ok()) << plan.status().to_string();
  const int64_t planned = kernels::pad_lines_vec_bytes();
  std::mt19937_64 rng(testing::test_seed());
  Tensor src(DType::kFloat32, shape);
  testing::fill_random_bytes(src, rng);
  const Tensor want = run_impl(desc, "ref", src.view(), nullptr);
  int other = 0;
  for (int64_t target : targets) {
    testing::ScopedHwyTarget only(target);
    SCOPED_TRACE("Highway target " + testing::hwy_target_name(target));
    const int64_t line = kernels::pad_lines_vec_bytes();
    Tensor got(DType::kFloat32, plan->dst_shape());
    ASSERT_EQ(setenv("GRIDOPS_VERBOSE", "dispatch", 1), 0);
    ::testing::internal::CaptureStderr();
    const Status st = plan->run(src.view(), got.mutable_view());
    const std::string log = ::testing::internal::GetCapturedStderr();
    unsetenv("GRIDOPS_VERBOSE");
    ASSERT_TRUE(st.ok()) << st.to_string();
    EXPECT_TRUE(testing::bitwise_equal(got, want));
    const std::string handoff = "pad: 'pad.lines_vec' declines these views at run time (the "
                                "dispatched Highway target's vector is " +
                                std::to_string(line) + " bytes, the plan's lines " +
                                std::to_string(planned) + "): running 'pad.rows'";
    if (line == planned) {
      EXPECT_EQ(log.find("declines"), std::string::npos) << log;
    } else {
      ++other;
      EXPECT_NE(log.find(handoff), std::string::npos) << log;
    }
  }
  if (other == 0) GTEST_SKIP() << "every Highway target of this CPU has " << planned << "-byte lines";
}

INSTANTIATE_TEST_SUITE_P(Modes, PadLinesVecTargets,
                         ::testing::Values(PadMode::kConstant, PadMode::kReflect),
                         [](const ::testing::TestParamInfo<PadMode>& info) {
                           return std::string(to_string(info.param));
                         });

// NOTE [ Pad Permute16 ] (pad_hwy.cc): the portable 16-bit lane permutation against the
// AVX-512 one and a scalar lookup, on every Highway target that has the line writer; bits
// are copied unchanged.
TEST(PadLines, Permute16PortableMatchesIntrinsic) {
#ifdef GRIDOPS_HAVE_HWY
  std::mt19937_64 rng(testing::test_seed());
  int intrinsic_targets = 0;
  const std::vector<int64_t> targets = testing::hwy_targets();
  for (int64_t target : targets) {
    SCOPED_TRACE("Highway target " + testing::hwy_target_name(target));
    testing::ScopedHwyTarget only(target);
    bool have = false;
    for (int it = 0; it < 200; ++it) {
      uint16_t idx[32], v[32], want[32], portable[32], intrinsic[32];
      for (int i = 0; i < 32; ++i) {
        // Random indices, or a rotation (as the line writer makes), or all one lane.
        idx[i] = static_cast<uint16_t>(it % 3 == 0   ? (i + it) % 32
                                       : it % 3 == 1 ? rng() % 32
                                                     : it % 32);
        v[i] = static_cast<uint16_t>(rng());
      }
      for (int i = 0; i < 32; ++i) want[i] = v[idx[i]];
      have = kernels::pad_permute16(false, idx, v, intrinsic);
      if (!have) break;
      ASSERT_TRUE(kernels::pad_permute16(true, idx, v, portable));
      for (int i = 0; i < 32; ++i) {
        ASSERT_EQ(intrinsic[i], want[i]) << "lane " << i << ", iteration " << it;
        ASSERT_EQ(portable[i], want[i]) << "lane " << i << ", iteration " << it;
      }
    }
    intrinsic_targets += have ? 1 : 0;
  }
  // The permutation exists exactly where the line writer does (the best target first).
  if (!targets.empty()) {
    testing::ScopedHwyTarget best(targets.front());
    EXPECT_EQ(intrinsic_targets > 0, kernels::pad_lines_available());
  }
  if (intrinsic_targets == 0) GTEST_SKIP() << "no Highway target of this CPU has AVX-512 BW";
#else
  GTEST_SKIP() << "built without Highway: no line writer";
#endif
}

#ifdef GRIDOPS_HAVE_HWY
/// `impl` (pad.lines or pad.lines_portable_permute) against the reference on a random `dt`
/// tensor of `shape`, bit for bit.
void expect_lines_match_ref(const PadDesc& desc, DType dt, const Dims& shape,
                            std::mt19937_64& rng, const char* impl = "pad.lines") {
  Tensor src(dt, shape);
  testing::fill_random_bytes(src, rng);
  const Tensor want = run_impl(desc, "ref", src.view(), nullptr);
  const Tensor got = run_impl(desc, impl, src.view(), nullptr);
  int64_t where = 0;
  EXPECT_TRUE(testing::bitwise_equal(got, want, &where)) << "first difference at " << where;
}
#endif

// The whole line writer with Permute16Portable in place of the AVX-512 Permute16 (the
// test-only entry pad.lines_portable_permute): the same bytes as the reference, on random problems and on rows of 16-bit cells with wide
// pads of the non-constant modes (the pieces that take the 16-bit permutation).
TEST(PadLines, LineWriterWithPortablePermute) {
#ifdef GRIDOPS_HAVE_HWY
  if (!kernels::pad_lines_available()) {
    GTEST_SKIP() << "the CPU's Highway target has no AVX-512 BW: no pad.lines";
  }
  constexpr const char* kPortable = "pad.lines_portable_permute";
  std::mt19937_64 rng(testing::test_seed());
  int taken = 0;
  for (DType dt : {DType::kFloat16, DType::kUInt16, DType::kBFloat16}) {
    for (PadMode mode : {PadMode::kEdge, PadMode::kReflect, PadMode::kSymmetric, PadMode::kWrap}) {
      for (int64_t pad : {3, 5, 9, 13, 20}) {
        SCOPED_TRACE(std::string(to_string(dt)) + " " + to_string(mode) + " pad " +
                     std::to_string(pad));
        PadDesc desc;
        desc.mode = mode;
        desc.pads_begin = std::vector<int64_t>{0, pad};
        desc.pads_end = std::vector<int64_t>{1, pad + 2};
        const Dims shape{3, 97};
        if (!takes(desc, kPortable, dt, shape)) continue;
        ++taken;
        expect_lines_match_ref(desc, dt, shape, rng, kPortable);
      }
    }
  }
  EXPECT_GT(taken, 0);
  EXPECT_GT(random_problems_against_ref(kPortable, testing::test_seed() + 1, 600), 0);
#else
  GTEST_SKIP() << "built without Highway: no line writer";
#endif
}

// Pads thousands of cells wide of the non-constant modes: the line writer's window pieces
// repeat a few lane tables, which the plan keeps once (with their rotations) instead of
// once per piece (16-32 tables of 64 bytes each); the bytes are the reference's.
TEST(PadLines, WidePadsShareLaneTables) {
#ifdef GRIDOPS_HAVE_HWY
  if (!kernels::pad_lines_available()) {
    GTEST_SKIP() << "the CPU's Highway target has no AVX-512 BW: no pad.lines";
  }
  std::mt19937_64 rng(testing::test_seed());
  int taken = 0;
  for (DType dt : {DType::kFloat32, DType::kUInt16, DType::kFloat64}) {
    for (PadMode mode : {PadMode::kEdge, PadMode::kReflect, PadMode::kSymmetric}) {
      SCOPED_TRACE(std::string(to_string(dt)) + " " + to_string(mode));
      const std::vector<int64_t> shape{2, 6000}, begin{0, 5000}, end{0, 4001}, out{2, 15001};
      kernels::PadProblem p;
      p.mode = mode;
      p.dtype = dt;
      p.src_shape = shape;
      p.pads_begin = begin;
      p.pads_end = end;
      p.dst_shape = out;
      if (!kernels::pad_lines_declines(p).empty()) continue;
      ++taken;
      const auto tables =
          std::static_pointer_cast<const kernels::PadTables>(kernels::pad_lines_prepare(p));
      ASSERT_GT(tables->perm_lane, 0);
      const auto rotations = static_cast<size_t>(64 / tables->perm_lane);
      const size_t pieces = tables->left_pieces.size() + tables->right_pieces.size();
      ASSERT_EQ(tables->perm_idx.size() % rotations, 0u);
      // Each side is one repeated cell (edge) or one descending run (reflect, symmetric):
      // hundreds of window pieces, one table each but for the partial last piece.
      const size_t distinct = tables->perm_idx.size() / rotations;
      EXPECT_LE(distinct, 4u) << pieces << " pieces";
      EXPECT_GT(pieces, 100u);
      PadDesc desc;
      desc.mode = mode;
      desc.pads_begin = begin;
      desc.pads_end = end;
      expect_lines_match_ref(desc, dt, Dims(shape.begin(), shape.end()), rng);
    }
  }
  EXPECT_GT(taken, 0);
#else
  GTEST_SKIP() << "built without Highway: no line writer";
#endif
}
// pad.lines_vec (pad_vec_hwy.cc) on every Highway target of this CPU: cells of 1, 2, 3, 4,
// 8, 12 and 16 bytes (3 and 12: folded trailing axes, no lane permutation), odd row
// lengths, pads from one cell to more than one line, every mode, against the reference
// bit for bit; and the dispatch log names the line and the permutation.
TEST(PadLines, LinesVecEveryCellWidthOnEveryTarget) {
#ifdef GRIDOPS_HAVE_HWY
  struct CellKind {
    DType dtype;
    int64_t fold;  // a trailing unpadded axis of this length (1: none)
  };
  const CellKind kinds[] = {{DType::kUInt8, 1}, {DType::kInt16, 1},     {DType::kUInt8, 3},
                            {DType::kFloat32, 1}, {DType::kFloat64, 1}, {DType::kFloat32, 3},
                            {DType::kComplex128, 1}};
  const int64_t pads[][2] = {{1, 2}, {3, 3}, {7, 5}, {13, 17}, {31, 33}};
  std::mt19937_64 rng(testing::test_seed());
  int with_line = 0;
  for (int64_t target : testing::hwy_targets()) {
    testing::ScopedHwyTarget only(target);
    SCOPED_TRACE("Highway target " + testing::hwy_target_name(target));
    if (kernels::pad_lines_vec_bytes() == 0) continue;
    ++with_line;
    int taken = 0;
    // Every run on the plan's own target is pad.lines_vec's (no hand-off to pad.rows).
    ASSERT_EQ(setenv("GRIDOPS_VERBOSE", "dispatch", 1), 0);
    ::testing::internal::CaptureStderr();
    for (const CellKind& k : kinds) {
      for (PadMode mode : kModes) {
        for (const auto& pad : pads) {
          for (int64_t w : {41, 64, 99}) {
            PadDesc desc;
            desc.mode = mode;
            desc.pads_begin = std::vector<int64_t>{1, pad[0], 0};
            desc.pads_end = std::vector<int64_t>{0, pad[1], 0};
            const Dims shape{3, w, k.fold};
            SCOPED_TRACE(std::string(to_string(k.dtype)) + " x" + std::to_string(k.fold) + " " +
                         to_string(mode) + " pads " + std::to_string(pad[0]) + "/" +
                         std::to_string(pad[1]) + " width " + std::to_string(w));
            if (!takes(desc, "pad.lines_vec", k.dtype, shape)) continue;
            ++taken;
            expect_lines_match_ref(desc, k.dtype, shape, rng, "pad.lines_vec");
          }
        }
      }
    }
    const std::string sweep_log = ::testing::internal::GetCapturedStderr();
    unsetenv("GRIDOPS_VERBOSE");
    EXPECT_EQ(sweep_log.find("declines these views at run time"), std::string::npos)
        << sweep_log.substr(0, 2000);
    EXPECT_GT(taken, 100);
  }
  if (with_line == 0) GTEST_SKIP() << "no Highway target of this CPU has pad.lines_vec";
  if (kernels::pad_lines_vec_bytes() == 0) {
    GTEST_SKIP() << "the sweep ran; the CPU's best Highway target (SVE) has no pad.lines_vec "
                    "for the dispatch-log check";
  }
  // The log of a W7c-like plan (reflect, float32 rows) on the best target.
  PadDesc desc;
  desc.mode = PadMode::kReflect;
  desc.pads_begin = std::vector<int64_t>{0, 3, 3};
  desc.pads_end = std::vector<int64_t>{0, 3, 3};
  desc.impl = "pad.lines_vec";
  ASSERT_EQ(setenv("GRIDOPS_VERBOSE", "dispatch", 1), 0);
  ::testing::internal::CaptureStderr();
  auto plan = make_pad_plan(desc, DType::kFloat32, Dims{2, 16, 128});
  const std::string log = ::testing::internal::GetCapturedStderr();
  unsetenv("GRIDOPS_VERBOSE");
  ASSERT_TRUE(plan.ok()) << plan.status().to_string();
  EXPECT_NE(log.find("line=" + std::to_string(kernels::pad_lines_vec_bytes()) +
                     "B, permute=lanes32"),
            std::string::npos)
      << log;
#else
  GTEST_SKIP() << "built without Highway: no line writer";
#endif
}
// pad.lines_vec reads only the source's bytes (its vector loads are bounded by the source
// buffer, NOTE in pad_vec_hwy.cc): a source that starts right after and ends right before
// an inaccessible page pads without a fault, on every Highway target, in every mode.
TEST(PadLines, LinesVecReadsNoByteOutsideTheSource) {
#if defined(GRIDOPS_HAVE_HWY) && defined(__linux__)
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  std::mt19937_64 rng(testing::test_seed());
  int taken = 0;
  for (DType dt : {DType::kFloat32, DType::kUInt8, DType::kFloat64}) {
    const Dims shape{5, 167};
    const size_t bytes = 5 * 167 * dtype_size(dt);
    const size_t span = (bytes + page - 1) / page * page;
    // guard page | data pages | guard page; the source at the start or the end of the data.
    void* map = mmap(nullptr, span + 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ASSERT_NE(map, MAP_FAILED);
    auto* base = static_cast<unsigned char*>(map);
    ASSERT_EQ(mprotect(base, page, PROT_NONE), 0);
    ASSERT_EQ(mprotect(base + page + span, page, PROT_NONE), 0);
    for (unsigned char* at : {base + page, base + page + span - bytes}) {
      for (size_t i = 0; i < bytes; ++i) at[i] = static_cast<unsigned char>(rng());
      const TensorView sv(dt, at, shape);
      for (int64_t target : testing::hwy_targets()) {
        testing::ScopedHwyTarget only(target);
        for (PadMode mode : kModes) {
          SCOPED_TRACE(std::string(to_string(dt)) + " " + to_string(mode) + " target " +
                       testing::hwy_target_name(target));
          PadDesc desc;
          desc.mode = mode;
          desc.pads_begin = std::vector<int64_t>{2, 5};
          desc.pads_end = std::vector<int64_t>{1, 7};
          if (!takes(desc, "pad.lines_vec", dt, shape)) continue;
          ++taken;
          const Tensor want = run_impl(desc, "ref", sv, nullptr);
          const Tensor got = run_impl(desc, "pad.lines_vec", sv, nullptr);
          EXPECT_TRUE(testing::bitwise_equal(got, want));
        }
      }
    }
    ASSERT_EQ(munmap(map, span + 2 * page), 0);
  }
  if (taken == 0) GTEST_SKIP() << "no Highway target of this CPU has pad.lines_vec";
#else
  GTEST_SKIP() << "needs Highway and Linux (mmap guard pages)";
#endif
}
}  // namespace
}  // namespace gridops
