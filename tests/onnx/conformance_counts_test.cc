// The conformance suites' exact counts, so CI notices a case that stops passing or starts
// being skipped (the ctest entries conformance.* only check that nothing fails):
// - ../shared/conformance/onnx: 71 passed, 0 failed, 4 skipped, the skips being exactly the
//   four test_affine_grid_*_expanded graphs (they need general ONNX ops);
// - ../shared/conformance/onnx_legacy_opsets: every case passes;
// - Debian's libonnx-testdata: every test_resize_* case passes.
// A suite that is not installed is reported as skipped (GTEST_SKIP), not as passed.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "gridops/onnx/conformance.h"

namespace gridops::onnx {
namespace {

namespace fs = std::filesystem;

struct Counts {
  int passed = 0, failed = 0, skipped = 0;
  std::vector<std::string> skipped_names, failures;
};

Counts run_suite(const std::string& root, const std::string& name_prefix = "") {
  Counts c;
  for (const std::string& dir : find_test_dirs(root)) {
    if (fs::path(dir).filename().string().rfind(name_prefix, 0) != 0) continue;
    const CaseResult r = run_conformance_case(dir);
    switch (r.kind) {
      case CaseResult::Kind::kPass: ++c.passed; break;
      case CaseResult::Kind::kFail:
        ++c.failed;
        c.failures.push_back(r.path + ": " + r.detail);
        break;
      case CaseResult::Kind::kSkip:
        ++c.skipped;
        c.skipped_names.push_back(r.name + ": " + r.detail);
        break;
    }
  }
  return c;
}

const std::string kShared = std::string(GRIDOPS_SHARED_DIR) + "/conformance";

TEST(ConformanceCounts, SharedOnnxSuite) {
  const std::string root = kShared + "/onnx";
  if (!fs::is_directory(root)) GTEST_SKIP() << root << " is not present";
  const Counts c = run_suite(root);
  EXPECT_EQ(c.failed, 0) << ::testing::PrintToString(c.failures);
  EXPECT_EQ(c.passed, 71);
  ASSERT_EQ(c.skipped, 4) << ::testing::PrintToString(c.skipped_names);
  for (const std::string& s : c.skipped_names) {
    EXPECT_THAT(s, ::testing::MatchesRegex("test_affine_grid_.*_expanded: .*"));
  }
}

TEST(ConformanceCounts, SharedLegacyOpsetsSuite) {
  const std::string root = kShared + "/onnx_legacy_opsets";
  if (!fs::is_directory(root)) GTEST_SKIP() << root << " is not present";
  const Counts c = run_suite(root);
  EXPECT_EQ(c.failed, 0) << ::testing::PrintToString(c.failures);
  EXPECT_EQ(c.skipped, 0) << ::testing::PrintToString(c.skipped_names);
  EXPECT_EQ(c.passed, 155);
}

TEST(ConformanceCounts, DebianResizeCases) {
  const std::string root = "/usr/share/libonnx-testdata/data/node";
  if (!fs::is_directory(root)) GTEST_SKIP() << root << " is not present (libonnx-testdata)";
  const Counts c = run_suite(root, "test_resize_");
  EXPECT_EQ(c.failed, 0) << ::testing::PrintToString(c.failures);
  EXPECT_EQ(c.skipped, 0) << ::testing::PrintToString(c.skipped_names);
  EXPECT_GE(c.passed, 23);  // libonnx-testdata 1.12 has 23 Resize cases
}

}  // namespace
}  // namespace gridops::onnx
