// The fixture of the gridops command's hardening tests (cli_hardening_test.cc,
// cli_output_files_test.cc): runs the command as a process in a fresh directory per test,
// with small models built in place.
#pragma once

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>

#include "gridops/onnx/npy.h"
#include "gridops/onnx/tensor_proto.h"
#include "model_util.h"

namespace gridops::onnx {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kAsan = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kAsan = true;
#else
constexpr bool kAsan = false;
#endif
#else
constexpr bool kAsan = false;
#endif

// The command runs under an emulator (a cross build's tests under qemu-user:
// GRIDOPS_CLI_EMULATED, tests/CMakeLists.txt). `ulimit -v` then limits the emulator's
// process, whose own mappings (its translation buffer, its copy of the guest's) are
// counted too: qemu-aarch64 7.2 does not even start under 200,000 KiB, so such a limit says
// nothing about the command's memory.
#if defined(GRIDOPS_CLI_EMULATED) && GRIDOPS_CLI_EMULATED
constexpr bool kEmulated = true;
#else
constexpr bool kEmulated = false;
#endif
constexpr const char* kEmulatedNoLimit =
    "ulimit -v limits the emulator (qemu-user) running the command, not the command alone";

struct Result {
  int exit_code;
  std::string output;  // stdout and stderr together
};

// Runs `sh -c "<prefix> exec gridops <args>"`.
inline Result run_cli(const std::string& args, const std::string& prefix = "") {
  const std::string cmd = "sh -c '" + prefix + " exec " + std::string(GRIDOPS_CLI) + " " + args + "' 2>&1";
  Result r{-1, ""};
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return r;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) r.output.append(buf, n);
  const int status = pclose(p);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return r;
}

inline ::onnx::TensorProto int64_tensor(const std::string& name, std::vector<int64_t> v) {
  ::onnx::TensorProto t;
  t.set_name(name);
  t.set_data_type(::onnx::TensorProto::INT64);
  t.add_dims(static_cast<int64_t>(v.size()));
  for (int64_t x : v) t.add_int64_data(x);
  return t;
}

inline std::vector<std::string> listing(const fs::path& dir) {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

class CliHardening : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) / ("gridops_cli_hard_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    Tensor x(DType::kFloat32, {3});
    for (int i = 0; i < 3; ++i) x.data_as<float>()[i] = static_cast<float>(i) + 0.25f;
    ASSERT_TRUE(write_npy(x, path("x.npy")).ok());
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  std::string save(const ::onnx::ModelProto& m, const std::string& name) {
    std::ofstream(path(name), std::ios::binary) << m.SerializeAsString();
    return path(name);
  }
  // x float32[n] -> Pad-13 (constant) with pads from an initializer -> y float32[n + extra].
  std::string pad_model(int64_t n, int64_t extra, const std::string& name = "pad.onnx") {
    auto m = test::one_node("Pad", 13, {test::value("x", ::onnx::TensorProto::FLOAT, {n})},
                            {test::value("y", ::onnx::TensorProto::FLOAT, {n + extra})});
    auto* node = m.mutable_graph()->mutable_node(0);
    node->add_input("pads");
    *m.mutable_graph()->add_initializer() = int64_tensor("pads", {0, extra});
    return save(m, name);
  }
  // x float32[3] -> Identity -> each of `outputs`.
  std::string identity_model(const std::vector<std::string>& outputs, const std::string& name = "id.onnx") {
    ::onnx::ModelProto m = test::one_node("Identity", 13, {test::value("x", ::onnx::TensorProto::FLOAT, {3})}, {});
    auto* g = m.mutable_graph();
    g->clear_node();
    for (size_t k = 0; k < outputs.size(); ++k) {
      auto* n = g->add_node();
      n->set_op_type("Identity");
      n->set_name("id" + std::to_string(k));
      n->add_input("x");
      n->add_output(outputs[k]);
      *g->add_output() = test::value(outputs[k], ::onnx::TensorProto::FLOAT, {3});
    }
    return save(m, name);
  }

  fs::path dir_;
};

}  // namespace gridops::onnx
