// Replays the committed fuzz corpus (seeds and inputs that once crashed or exhausted memory)
// through the parsers and the model fuzz target (which runs what passes the checks), so
// that the suite and its sanitizer build guard against regressions.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "gridops/onnx/model.h"
#include "gridops/onnx/npy.h"
#include "gridops/onnx/tensor_proto.h"

// The model fuzz target (tests/fuzz/onnx_model_fuzz.cc), linked into this test.
extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace gridops::onnx {
namespace {

namespace fs = std::filesystem;

TEST(FuzzCorpus, EveryInputParsesOrFailsCleanly) {
  const fs::path root = fs::path(GRIDOPS_SOURCE_DIR) / "tests" / "fuzz" / "corpus";
  ASSERT_TRUE(fs::is_directory(root)) << root;
  int files = 0;
  for (const auto& e : fs::recursive_directory_iterator(root)) {
    if (!e.is_regular_file()) continue;
    std::ifstream f(e.path(), std::ios::binary);
    std::stringstream ss;
    ss << f.rdbuf();
    const std::string bytes = ss.str();
    SCOPED_TRACE(e.path().string());
    // Each parser either succeeds or returns an error with a message; none may crash.
    auto npy = parse_npy(bytes, "corpus");
    if (!npy.ok()) {
      EXPECT_FALSE(npy.status().message().empty());
    }
    auto model = Model::parse(bytes, "corpus");
    if (model.ok()) {
      (void)model->check_supported();
    } else {
      EXPECT_FALSE(model.status().message().empty());
    }
    auto t = parse_tensor_proto(bytes, "corpus");
    if (!t.ok()) {
      EXPECT_FALSE(t.status().message().empty());
    }
    // And the whole fuzz target: models that pass the checks are run.
    EXPECT_EQ(LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()), 0);
    ++files;
  }
  EXPECT_GT(files, 5);
}

}  // namespace
}  // namespace gridops::onnx
