// The ONNX backend node-test runner: model.onnx + test_data_set_*/input_*.pb, output_*.pb.
#pragma once

#include <string>
#include <vector>

namespace gridops::onnx {

/// The outcome of one test directory.
struct CaseResult {
  enum class Kind { kPass, kFail, kSkip };
  std::string name;    ///< the directory name (test_gridsample_bicubic, ...)
  std::string path;    ///< the directory
  Kind kind = Kind::kFail;
  std::string detail;  ///< FAIL: what differed (largest difference); SKIP: the reason
};

/// "pass", "fail" or "skip" (the CLI's --json and the Python results use these names).
const char* to_string(CaseResult::Kind kind) noexcept;

/// Every directory under `root` (recursively, `root` included) that holds a model.onnx,
/// sorted by path.
std::vector<std::string> find_test_dirs(const std::string& root);

/// Runs one test directory: every test_data_set_*, compared with rtol 1e-3, atol 1e-5
/// (as the ONNX backend runner) for floating and complex outputs, exactly for integer,
/// bool and string outputs. A model gridops does not run (another op, an unsupported
/// attribute combination) is a SKIP with the reason; a wrong or missing output, or any
/// other error, is a FAIL.
CaseResult run_conformance_case(const std::string& dir);

/// The suites `gridops conformance` runs when given no directory: Debian's
/// libonnx-testdata node tests and ../shared/conformance (relative to the working
/// directory and to `exe_dir`'s repository) when they exist.
std::vector<std::string> default_conformance_roots(const std::string& exe_dir);

}  // namespace gridops::onnx
