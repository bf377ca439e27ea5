// The gridops command under hostile and careless use (issue 11): memory limits, broken
// conformance directories, colliding and unwritable output names, models without graph
// inputs, bad --threads, misleading messages. Each test runs the command as a process.
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
namespace {

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
Result run_cli(const std::string& args, const std::string& prefix = "") {
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

::onnx::TensorProto int64_tensor(const std::string& name, std::vector<int64_t> v) {
  ::onnx::TensorProto t;
  t.set_name(name);
  t.set_data_type(::onnx::TensorProto::INT64);
  t.add_dims(static_cast<int64_t>(v.size()));
  for (int64_t x : v) t.add_int64_data(x);
  return t;
}

std::vector<std::string> listing(const fs::path& dir) {
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

// ---- Defect 1: no abort on memory; graph outputs are moved, not copied. ---------------

// A Pad whose output is 64 MiB runs under a 110,000 KiB address-space limit (the command
// itself needs under 20 MB): the output is held once (moved out of the runner, written
// from its own buffer). Copying it once more, as the runner once did, needs 128 MiB and
// aborted (exit 134).
TEST_F(CliHardening, LargeOutputIsNotCopied) {
  if (kAsan) GTEST_SKIP() << "ulimit -v does not work with AddressSanitizer's shadow memory";
  if (kEmulated) GTEST_SKIP() << kEmulatedNoLimit;
  const int64_t n = int64_t{16} << 20;  // float32 elements: 64 MiB
  const std::string model = pad_model(3, n - 3);
  Result r = run_cli("run " + model + " -i " + path("x.npy") + " -o " + path("out") + " --threads 1", "ulimit -v 110000;");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(fs::file_size(path("out/y.npy")), static_cast<uintmax_t>(128 + n * 4));
  std::ifstream f(path("out/y.npy"), std::ios::binary);
  f.seekg(128);
  float head[4] = {};
  f.read(reinterpret_cast<char*>(head), sizeof head);
  EXPECT_EQ(head[0], 0.25f);
  EXPECT_EQ(head[2], 2.25f);
  EXPECT_EQ(head[3], 0.0f);
}

// Peak memory is the live values, not every value computed: x -> a (64 MiB) -> b (cropped
// back to 3 elements) -> y (64 MiB). `a` is freed once `b` exists, so a and y are never
// held together and the run fits in 110,000 KiB; keeping every value needs 128 MiB + more.
TEST_F(CliHardening, IntermediatesAreFreedAfterTheirLastUse) {
  if (kAsan) GTEST_SKIP() << "ulimit -v does not work with AddressSanitizer's shadow memory";
  if (kEmulated) GTEST_SKIP() << kEmulatedNoLimit;
  const int64_t n = int64_t{16} << 20;  // float32 elements: 64 MiB
  auto m = test::one_node("Pad", 13, {test::value("x", ::onnx::TensorProto::FLOAT, {3})},
                          {test::value("y", ::onnx::TensorProto::FLOAT, {n})});
  auto* g = m.mutable_graph();
  g->clear_node();
  const char* names[][3] = {{"x", "p1", "a"}, {"a", "p2", "b"}, {"b", "p3", "y"}};
  const int64_t ends[] = {n - 3, -(n - 3), n - 3};
  for (int k = 0; k < 3; ++k) {
    auto* node = g->add_node();
    node->set_op_type("Pad");
    node->set_name(std::string("pad") + std::to_string(k));
    node->add_input(names[k][0]);
    node->add_input(names[k][1]);
    node->add_output(names[k][2]);
    *g->add_initializer() = int64_tensor(names[k][1], {0, ends[k]});
  }
  Result r = run_cli("run " + save(m, "chain.onnx") + " -i " + path("x.npy") + " -o " + path("out") + " --threads 1",
                     "ulimit -v 110000;");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(fs::file_size(path("out/y.npy")), static_cast<uintmax_t>(128 + n * 4));
}

// An output too large for memory is exit 4 naming the node and the size, not an abort.
TEST_F(CliHardening, OutputTooLargeForMemoryIsOutOfMemoryNamingTheNode) {
  if (kAsan) GTEST_SKIP() << "ulimit -v does not work with AddressSanitizer's shadow memory";
  const std::string model = pad_model(3, (int64_t{1} << 29) - 3);  // 2 GiB
  Result r = run_cli("run " + model + " -i " + path("x.npy") + " -o " + path("out") + " --threads 1", "ulimit -v 1000000;");
  EXPECT_EQ(r.exit_code, 4) << r.output;
  EXPECT_THAT(r.output, HasSubstr("node 0 'Pad_node' (Pad)"));
  EXPECT_THAT(r.output, HasSubstr("2147483648 bytes"));
  EXPECT_FALSE(fs::exists(path("out")));
}

// Under `conformance`, a case that needs more memory than there is fails alone; the run
// goes on to the next case and prints its summary.
TEST_F(CliHardening, ConformanceSurvivesACaseThatRunsOutOfMemory) {
  if (kAsan) GTEST_SKIP() << "ulimit -v does not work with AddressSanitizer's shadow memory";
  if (kEmulated) GTEST_SKIP() << kEmulatedNoLimit;
  const int64_t n = int64_t{16} << 20;  // 64 MiB
  for (const char* c : {"test_a_big", "test_b_small"}) {
    fs::create_directories(dir_ / "suite" / c / "test_data_set_0");
    const bool big = std::string(c) == "test_a_big";
    fs::copy_file(pad_model(3, big ? n - 3 : 2, std::string(c) + ".onnx"), dir_ / "suite" / c / "model.onnx");
    Tensor x(DType::kFloat32, {3});
    Tensor y(DType::kFloat32, {5});
    ASSERT_TRUE(write_tensor_proto(x, "x", (dir_ / "suite" / c / "test_data_set_0/input_0.pb").string()).ok());
    ASSERT_TRUE(write_tensor_proto(y, "y", (dir_ / "suite" / c / "test_data_set_0/output_0.pb").string()).ok());
  }
  // The big case's output is computed once (64 MiB) and fails its comparison (shape);
  // two copies would not fit.
  Result r = run_cli("conformance " + path("suite"), "ulimit -v 110000;");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("FAIL suite/test_a_big"));
  EXPECT_THAT(r.output, HasSubstr("PASS suite/test_b_small"));
  EXPECT_THAT(r.output, HasSubstr("1 passed, 1 failed, 0 skipped"));
  // With less memory the big case cannot even be computed: still a FAIL line.
  r = run_cli("conformance " + path("suite"), "ulimit -v 50000;");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("FAIL suite/test_a_big"));
  EXPECT_THAT(r.output, HasSubstr("bytes"));
  EXPECT_THAT(r.output, HasSubstr("1 passed, 1 failed, 0 skipped"));
}

// ---- Defect 2: conformance and filesystem errors. ----------------------------------------

TEST_F(CliHardening, ConformanceReportsABrokenCaseAndGoesOn) {
  fs::create_directories(dir_ / "suite/test_loop");
  fs::copy_file(pad_model(3, 2), dir_ / "suite/test_loop/model.onnx");
  fs::create_symlink("test_data_set_0", dir_ / "suite/test_loop/test_data_set_0");  // a loop
  fs::create_directories(dir_ / "suite/test_ok/test_data_set_0");
  fs::copy_file(path("pad.onnx"), dir_ / "suite/test_ok/model.onnx");
  Tensor x(DType::kFloat32, {3});
  Tensor y(DType::kFloat32, {5});
  ASSERT_TRUE(write_tensor_proto(x, "x", path("suite/test_ok/test_data_set_0/input_0.pb")).ok());
  ASSERT_TRUE(write_tensor_proto(y, "y", path("suite/test_ok/test_data_set_0/output_0.pb")).ok());
  Result r = run_cli("conformance " + path("suite"));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("FAIL suite/test_loop: test_data_set_0: Too many levels of symbolic links"));
  EXPECT_THAT(r.output, HasSubstr("PASS suite/test_ok"));
  EXPECT_THAT(r.output, HasSubstr("1 passed, 1 failed, 0 skipped"));
}

TEST_F(CliHardening, ConformanceWithNoCaseIsAnError) {
  fs::create_directories(dir_ / "empty/sub");
  Result r = run_cli("conformance " + path("empty"));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr("no conformance case"));
  EXPECT_THAT(r.output, Not(HasSubstr("0 passed")));
}

// ---- Defect 3: every output has its own file. --------------------------------------------

TEST_F(CliHardening, OutputNamesMapToDistinctFiles) {
  const std::string model = identity_model({"a/b", "a_b", "a%2Fb", "..", "c\\d"});
  Result r = run_cli("run " + model + " -i " + path("x.npy") + " -o " + path("out"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(listing(dir_ / "out"),
            (std::vector<std::string>{"%2E%2E.npy", "a%252Fb.npy", "a%2Fb.npy", "a_b.npy", "c%5Cd.npy"}));
  for (const auto& f : listing(dir_ / "out")) {
    auto t = read_npy((dir_ / "out" / f).string());
    ASSERT_TRUE(t.ok()) << f;
    EXPECT_EQ(t->data_as<float>()[1], 1.25f) << f;
  }
}

// ---- Defect 4: all outputs or none. -------------------------------------------------------

TEST_F(CliHardening, AFailedOutputLeavesNothingBehind) {
  const std::string long_name(300, 'n');  // longer than NAME_MAX (255)
  const std::string model = identity_model({"a", long_name});
  fs::create_directories(dir_ / "out");
  std::ofstream(path("out/keep.txt")) << "mine";
  Result r = run_cli("run " + model + " -i " + path("x.npy") + " -o " + path("out"));
  EXPECT_EQ(r.exit_code, 4) << r.output;
  EXPECT_THAT(r.output, HasSubstr("File name too long"));
  EXPECT_THAT(r.output, HasSubstr(path("out") + "/nnnn"));
  EXPECT_EQ(listing(dir_ / "out"), (std::vector<std::string>{"keep.txt"}));
  // A directory the command created is removed again.
  r = run_cli("run " + model + " -i " + path("x.npy") + " -o " + path("new/out"));
  EXPECT_EQ(r.exit_code, 4) << r.output;
  EXPECT_FALSE(fs::exists(path("new/out")));
}

TEST_F(CliHardening, AnUnwritableOutputDirectoryIsAnErrorWithTheReason) {
  if (::geteuid() == 0) GTEST_SKIP() << "root writes into read-only directories";
  const std::string model = identity_model({"a"});
  fs::create_directories(dir_ / "ro");
  fs::permissions(dir_ / "ro", fs::perms::owner_read | fs::perms::owner_exec);
  Result r = run_cli("run " + model + " -i " + path("x.npy") + " -o " + path("ro"));
  fs::permissions(dir_ / "ro", fs::perms::owner_all);
  EXPECT_EQ(r.exit_code, 4) << r.output;
  EXPECT_THAT(r.output, HasSubstr("Permission denied"));
  EXPECT_TRUE(listing(dir_ / "ro").empty());
}

// ---- Defect 5: models without graph inputs; overriding an initializer. ---------------------

TEST_F(CliHardening, ModelsWithoutGraphInputsRun) {
  ::onnx::ModelProto m = test::one_node("Constant", 13, {}, {test::value("c", ::onnx::TensorProto::INT64, {2})});
  auto* a = m.mutable_graph()->mutable_node(0)->add_attribute();
  a->set_name("value");
  a->set_type(::onnx::AttributeProto::TENSOR);
  *a->mutable_t() = int64_tensor("", {7, -2});
  Result r = run_cli("run " + save(m, "const.onnx") + " -o " + path("out"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  auto c = read_npy(path("out/c.npy"));
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->data_as<int64_t>()[0], 7);
  EXPECT_EQ(c->data_as<int64_t>()[1], -2);

  // Gather whose every input has an initializer (also listed as graph inputs, IR >= 4).
  auto g = test::one_node("Gather", 13,
                          {test::value("data", ::onnx::TensorProto::INT64, {3}),
                           test::value("idx", ::onnx::TensorProto::INT64, {1})},
                          {test::value("y", ::onnx::TensorProto::INT64, {1})});
  *g.mutable_graph()->add_initializer() = int64_tensor("data", {10, 20, 30});
  *g.mutable_graph()->add_initializer() = int64_tensor("idx", {2});
  const std::string gm = save(g, "gather_init.onnx");
  r = run_cli("run " + gm + " -o " + path("g1"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(read_npy(path("g1/y.npy"))->data_as<int64_t>()[0], 30);
  Tensor idx(DType::kInt64, {1});
  idx.data_as<int64_t>()[0] = -3;
  ASSERT_TRUE(write_npy(idx, path("idx.npy")).ok());
  r = run_cli("run " + gm + " -i idx=" + path("idx.npy") + " -o " + path("g2"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(read_npy(path("g2/y.npy"))->data_as<int64_t>()[0], 10);
  // The override is checked against the input's declaration.
  Tensor bad(DType::kInt64, {2});
  ASSERT_TRUE(write_npy(bad, path("bad.npy")).ok());
  r = run_cli("run " + gm + " -i idx=" + path("bad.npy") + " -o " + path("g3"));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr("input 'idx' must be int64[1]"));
  Result info = run_cli("info " + gm);
  EXPECT_THAT(info.output, HasSubstr("idx: int64[1] (optional: has an initializer)"));
}

// ---- Defect 6: --threads and usage errors. -----------------------------------------------

TEST_F(CliHardening, ThreadsAreBoundedAndUsageErrorsExit2) {
  const std::string model = identity_model({"a"});
  const std::string base = "run " + model + " -i " + path("x.npy") + " -o " + path("out");
  for (const char* t : {"0", "-1", "100000"}) {
    Result r = run_cli(base + " --threads " + t);
    EXPECT_EQ(r.exit_code, 2) << t << r.output;
    EXPECT_THAT(r.output, HasSubstr("--threads must be between 1 and 1024, got " + std::string(t)));
  }
  Result r = run_cli(base + " --threads many");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  r = run_cli(base + " --threads 1024");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  for (const std::string& bad : {std::string("frobnicate"), std::string("run"), base + " --format xml",
                                 base + " --no-such-option", std::string("info")}) {
    r = run_cli(bad);
    EXPECT_EQ(r.exit_code, 2) << bad << "\n" << r.output;
  }
  EXPECT_EQ(run_cli("--help").exit_code, 0);
}

// ---- Defect 7: messages that say what is wrong. --------------------------------------------

TEST_F(CliHardening, PathsThatAreNotFilesSayWhy) {
  fs::create_directories(dir_ / "adir");
  Result r = run_cli("info " + path("adir"));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr("cannot read '" + path("adir") + "': Is a directory"));
  const std::string model = identity_model({"a"});
  r = run_cli("run " + model + " -i " + path("adir") + " -o " + path("out"));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr("Is a directory"));
  if (::geteuid() != 0) {
    std::ofstream(path("secret.npy")) << "x";
    fs::permissions(path("secret.npy"), fs::perms::none);
    r = run_cli("run " + model + " -i " + path("secret.npy") + " -o " + path("out"));
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_THAT(r.output, HasSubstr("cannot open '" + path("secret.npy") + "': Permission denied"));
  }
  // A .npy without the magic is reported as a bad .npy, not as a bad TensorProto.
  std::ofstream(path("bad.npy"), std::ios::binary) << "\x93NUMPX\x01\x00garbage";
  r = run_cli("run " + model + " -i " + path("bad.npy") + " -o " + path("out"));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr("not a valid .npy file"));
  EXPECT_THAT(r.output, Not(HasSubstr("TensorProto")));
  // A device or FIFO is read only up to the stated bound.
  r = run_cli("run " + model + " -i /dev/zero -o " + path("out") + " --max-input-mb 1");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr("more than the limit of 1048576 bytes"));
  EXPECT_FALSE(fs::exists(path("out")));
}

TEST_F(CliHardening, AnInputGivenTwiceIsAnError) {
  const std::string model = identity_model({"a"});
  Result r = run_cli("run " + model + " -i x=" + path("x.npy") + " -i x=" + path("x.npy") + " -o " + path("out"));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr("input 'x' is given more than once"));
}

TEST_F(CliHardening, ResizeWithANonPositiveScaleIsInvalid) {
  for (float scale : {0.0f, -2.0f}) {
    auto m = test::one_node("Resize", 13, {test::value("X", ::onnx::TensorProto::FLOAT, {1, 1, 2, 2})},
                            {test::value("Y", ::onnx::TensorProto::FLOAT, {-1, -1, -1, -1})});
    auto* n = m.mutable_graph()->mutable_node(0);
    n->add_input("");
    n->add_input("scales");
    ::onnx::TensorProto s;
    s.set_name("scales");
    s.set_data_type(::onnx::TensorProto::FLOAT);
    s.add_dims(4);
    for (float v : {1.0f, 1.0f, scale, 2.0f}) s.add_float_data(v);
    *m.mutable_graph()->add_initializer() = s;
    test::add_attr_string(n, "mode", "linear");
    Tensor x(DType::kFloat32, {1, 1, 2, 2});
    ASSERT_TRUE(write_npy(x, path("x4.npy")).ok());
    Result r = run_cli("run " + save(m, "resize.onnx") + " -i " + path("x4.npy") + " -o " + path("out"));
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_THAT(r.output, HasSubstr("must be finite and > 0"));
  }
}

TEST_F(CliHardening, InfoEscapesControlCharacters) {
  auto m = test::one_node("Gather", 13,
                          {test::value("da\x1b[2Jta", ::onnx::TensorProto::FLOAT, {3}),
                           test::value("i\rdx", ::onnx::TensorProto::INT64, {1})},
                          {test::value("y\xc2\x9b", ::onnx::TensorProto::FLOAT, {1})});
  m.mutable_graph()->mutable_node(0)->set_name("n\x07");
  Result r = run_cli("info " + save(m, "ctl.onnx"));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("da\\x1B[2Jta"));
  EXPECT_THAT(r.output, HasSubstr("i\\x0Ddx"));
  EXPECT_THAT(r.output, HasSubstr("y\\xC2\\x9B"));
  EXPECT_THAT(r.output, HasSubstr("'n\\x07'"));
  for (char c : r.output) EXPECT_TRUE(c == '\n' || static_cast<unsigned char>(c) >= 0x20) << static_cast<int>(c);
}

TEST_F(CliHardening, InfoAndRunAgreeOnWhatRuns) {
  // Duplicate graph input names.
  auto dup = test::one_node("Gather", 13,
                            {test::value("x", ::onnx::TensorProto::FLOAT, {3}),
                             test::value("x", ::onnx::TensorProto::INT64, {1})},
                            {test::value("y", ::onnx::TensorProto::FLOAT, {1})});
  // A Constant whose tensor has external data.
  ::onnx::ModelProto ext = test::one_node("Constant", 13, {}, {test::value("c", ::onnx::TensorProto::FLOAT, {2})});
  auto* a = ext.mutable_graph()->mutable_node(0)->add_attribute();
  a->set_name("value");
  a->set_type(::onnx::AttributeProto::TENSOR);
  a->mutable_t()->set_data_type(::onnx::TensorProto::FLOAT);
  a->mutable_t()->add_dims(2);
  a->mutable_t()->set_data_location(::onnx::TensorProto::EXTERNAL);
  auto* e = a->mutable_t()->add_external_data();
  e->set_key("location");
  e->set_value("weights.bin");
  for (const auto& [m, what] : {std::pair{dup, std::string("declared more than once")},
                                std::pair{ext, std::string("external data")}}) {
    const std::string file = save(m, "agree.onnx");
    Result info = run_cli("info " + file);
    EXPECT_THAT(info.output, HasSubstr("runnable by gridops: no")) << info.output;
    EXPECT_THAT(info.output, HasSubstr(what));
    Result run = run_cli("run " + file + " -i x=" + path("x.npy") + " -o " + path("out"));
    EXPECT_NE(run.exit_code, 0);
    EXPECT_THAT(run.output, HasSubstr(what));
    EXPECT_EQ(info.exit_code, run.exit_code) << info.output;  // info exits as run does
  }
}

// ---- Defect 8: schema type constraints. ---------------------------------------------------

TEST_F(CliHardening, ASchemaTypeViolationIsAnInvalidModel) {
  // Pad-2 takes float types only; int32 data once ran.
  auto m = test::one_node("Pad", 2, {test::value("x", ::onnx::TensorProto::INT32, {3})},
                          {test::value("y", ::onnx::TensorProto::INT32, {4})});
  auto* pads = m.mutable_graph()->mutable_node(0)->add_attribute();
  pads->set_name("pads");
  pads->set_type(::onnx::AttributeProto::INTS);
  pads->add_ints(1);
  pads->add_ints(0);
  Tensor x(DType::kInt32, {3});
  ASSERT_TRUE(write_npy(x, path("xi.npy")).ok());
  const std::string file = save(m, "pad2.onnx");
  Result r = run_cli("run " + file + " -i " + path("xi.npy") + " -o " + path("out"));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr("node 0 'Pad_node' (Pad): input 0 'data' ('x') has type int32; Pad-2 allows T in {float16, float32, float64}"));
  EXPECT_FALSE(fs::exists(path("out")));
  EXPECT_THAT(run_cli("info " + file).output, HasSubstr("runnable by gridops: no"));
}

// ---- Hostile inputs through the command (the library-level tests exist). -----------------

// A .npy header claiming 2^40 elements, and a TensorProto with dims of 2^40 elements and no
// data: both refused before anything that size is allocated (the run is under 200 MB).
TEST_F(CliHardening, MemoryBombInputsAreRefused) {
  const std::string model = identity_model({"a"});
  std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (1099511627776,), }";
  header.append(64 - 10 - header.size() % 64 + (header.size() % 64 > 53 ? 64 : 0), ' ');
  std::string npy = std::string("\x93NUMPY\x01\x00", 8);
  const size_t hl = header.size() + 1;
  npy.push_back(static_cast<char>(hl & 0xFF));
  npy.push_back(static_cast<char>(hl >> 8));
  npy += header + "\n";
  std::ofstream(path("bomb.npy"), std::ios::binary) << npy;
  // The limit only guards the machine should a check fail (none under the sanitizers or
  // an emulator: see kEmulated); the exit status and messages are checked either way.
  const std::string limit = kAsan || kEmulated ? "" : "ulimit -v 200000;";
  Result r = run_cli("run " + model + " -i " + path("bomb.npy") + " -o " + path("out"), limit);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr("bomb.npy"));
  EXPECT_THAT(r.output, HasSubstr("data bytes"));  // the size check, not a header error
  ::onnx::TensorProto t;
  t.set_data_type(::onnx::TensorProto::FLOAT);
  t.add_dims(int64_t{1} << 20);
  t.add_dims(int64_t{1} << 20);
  std::ofstream(path("bomb.pb"), std::ios::binary) << t.SerializeAsString();
  r = run_cli("run " + model + " -i " + path("bomb.pb") + " -o " + path("out"), limit);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr("bomb.pb"));
  EXPECT_FALSE(fs::exists(path("out")));
}

// NaN and infinite grid coordinates are valid input: the command runs and writes the output.
TEST_F(CliHardening, NonFiniteGridsRun) {
  auto m = test::one_node("GridSample", 20,
                          {test::value("X", ::onnx::TensorProto::FLOAT, {1, 1, 2, 2}),
                           test::value("grid", ::onnx::TensorProto::FLOAT, {1, 1, 3, 2})},
                          {test::value("Y", ::onnx::TensorProto::FLOAT, {1, 1, 1, 3})});
  Tensor x(DType::kFloat32, {1, 1, 2, 2});
  for (int i = 0; i < 4; ++i) x.data_as<float>()[i] = static_cast<float>(i + 1);
  Tensor g(DType::kFloat32, {1, 1, 3, 2});
  const float gv[6] = {NAN, 0.0f, INFINITY, -INFINITY, 0.0f, 0.0f};
  std::memcpy(g.data(), gv, sizeof gv);
  ASSERT_TRUE(write_npy(x, path("X.npy")).ok());
  ASSERT_TRUE(write_npy(g, path("grid.npy")).ok());
  Result r = run_cli("run " + save(m, "gs.onnx") + " -i X=" + path("X.npy") + " -i grid=" + path("grid.npy") +
                     " -o " + path("out"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  auto y = read_npy(path("out/Y.npy"));
  ASSERT_TRUE(y.ok());
  EXPECT_EQ(y->data_as<float>()[2], 2.5f);  // the finite point: the mean of the four
}

// ---- Issue 53, item 3: temporary files, the commit, names like temporary files. ------------

std::string file_text(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), {});
}

// Runs the command in a child process whose arguments are made from its own process id
// (which the command keeps: the child execs it), after `prepare(pid)` ran in the child;
// *pid receives that id.
Result run_cli_in_child(const std::function<std::vector<std::string>(pid_t)>& prepare, pid_t* pid) {
  int fds[2];
  Result r{-1, ""};
  if (::pipe(fds) != 0) return r;
  const pid_t child = ::fork();
  *pid = child;
  if (child == 0) {
    ::close(fds[0]);
    std::vector<std::string> args = prepare(::getpid());
    // Through sh, as run_cli: GRIDOPS_CLI is a command line (under an emulator it starts
    // with qemu-aarch64); `exec` keeps this process, so the command's pid is getpid().
    std::string line = std::string("exec ") + GRIDOPS_CLI + " \"$@\"";
    args.insert(args.begin(), {"sh", "-c", line, "sh"});
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    ::dup2(fds[1], 1);
    ::dup2(fds[1], 2);
    ::execv("/bin/sh", argv.data());
    ::_exit(127);
  }
  ::close(fds[1]);
  char buf[4096];
  ssize_t n;
  while ((n = ::read(fds[0], buf, sizeof buf)) > 0) r.output.append(buf, static_cast<size_t>(n));
  ::close(fds[0]);
  int status = 0;
  ::waitpid(child, &status, 0);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return r;
}

// Symbolic links planted in a shared output directory under every name the run could pick
// for its temporary and backup files (the names of the old scheme, .gridops-tmp-<pid>-<k>,
// and of the current one, .gridops%tmp-<pid>-<n>) are never followed: the files they point
// to outside the directory are unchanged (or not created), the links stay as they were, and
// the outputs are regular files. The old command opened its temporary files with
// fopen("wb"), overwrote the link's target and renamed the link itself into place.
TEST_F(CliHardening, TemporaryFilesNeverFollowSymbolicLinks) {
  const std::string model = identity_model({"a", "b"});
  fs::create_directories(dir_ / "out");
  std::ofstream(path("victim.txt")) << "precious";
  std::ofstream(path("out/a.npy")) << "old a";  // replaced: a backup file is made
  std::string plant = "for k in 0 1 2 3 4 5 6 7; do ln -s " + path("victim.txt") + " \"" + path("out") +
                      "/.gridops-tmp-$$-$k.npy\"; ln -s " + path("dangling.txt") + " \"" + path("out") +
                      "/.gridops%tmp-$$-$k.npy\"; done;";
  Result r = run_cli("run " + model + " -i " + path("x.npy") + " -o " + path("out"), plant);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(file_text(path("victim.txt")), "precious");
  EXPECT_FALSE(fs::exists(path("dangling.txt")));
  size_t links = 0;
  for (const auto& e : fs::directory_iterator(dir_ / "out")) {
    const std::string f = e.path().filename().string();
    if (f == "a.npy" || f == "b.npy") {
      EXPECT_TRUE(fs::is_regular_file(fs::symlink_status(e.path()))) << f;
      auto t = read_npy(e.path().string());
      ASSERT_TRUE(t.ok()) << f;
      EXPECT_EQ(t->data_as<float>()[1], 1.25f) << f;
    } else {
      EXPECT_TRUE(fs::is_symlink(fs::symlink_status(e.path()))) << f << " was left behind";
      ++links;
    }
  }
  EXPECT_EQ(links, 16u);
}

// A directory at one output's final path is refused before anything is renamed: an
// existing file at another output's path keeps its content, no temporary file is left, and
// the message says that nothing was written. The old command replaced A.npy, failed on
// B.npy and then deleted A.npy, saying "no output was written".
TEST_F(CliHardening, AnOutputThatCannotBeWrittenLeavesExistingFilesAlone) {
  const std::string model = identity_model({"A", "B"});
  fs::create_directories(dir_ / "out/B.npy");
  std::ofstream(path("out/B.npy/inside")) << "mine";
  std::ofstream(path("out/A.npy")) << "my A";
  Result r = run_cli("run " + model + " -i " + path("x.npy") + " -o " + path("out"));
  EXPECT_EQ(r.exit_code, 4) << r.output;
  EXPECT_THAT(r.output, HasSubstr("cannot write output 'B' to '" + path("out/B.npy") +
                                  "': it is a directory (no output was written; existing files are unchanged)"));
  EXPECT_EQ(file_text(path("out/A.npy")), "my A");
  EXPECT_EQ(file_text(path("out/B.npy/inside")), "mine");
  EXPECT_EQ(listing(dir_ / "out"), (std::vector<std::string>{"A.npy", "B.npy"}));

  // A symbolic link at a final path is neither followed nor replaced (the old command
  // replaced the link).
  fs::remove_all(dir_ / "out/B.npy");
  std::ofstream(path("victim.txt")) << "precious";
  fs::create_symlink(path("victim.txt"), dir_ / "out/B.npy");
  r = run_cli("run " + model + " -i " + path("x.npy") + " -o " + path("out"));
  EXPECT_EQ(r.exit_code, 4) << r.output;
  EXPECT_THAT(r.output, HasSubstr("'" + path("out/B.npy") + "': it is a symbolic link"));
  EXPECT_EQ(file_text(path("out/A.npy")), "my A");
  EXPECT_TRUE(fs::is_symlink(fs::symlink_status(dir_ / "out/B.npy")));
  EXPECT_EQ(file_text(path("victim.txt")), "precious");
  EXPECT_EQ(listing(dir_ / "out"), (std::vector<std::string>{"A.npy", "B.npy"}));
}

// A rename that fails after others were done (B.npy is immutable: the check before the
// commit sees a regular file, the rename is refused) is undone: A.npy, already replaced,
// gets its previous content back. Needs root and a file system with chattr +i (ext4).
TEST_F(CliHardening, AFailureDuringTheCommitRestoresWhatWasReplaced) {
  const std::string model = identity_model({"A", "B"});
  fs::create_directories(dir_ / "out");
  std::ofstream(path("out/A.npy")) << "my A";
  std::ofstream(path("out/B.npy")) << "my B";
  if (::geteuid() != 0 || std::system(("chattr +i " + path("out/B.npy") + " 2>/dev/null").c_str()) != 0) {
    GTEST_SKIP() << "needs root and a file system with the immutable attribute (chattr +i)";
  }
  Result r = run_cli("run " + model + " -i " + path("x.npy") + " -o " + path("out"));
  ASSERT_EQ(std::system(("chattr -i " + path("out/B.npy")).c_str()), 0);
  EXPECT_EQ(r.exit_code, 4) << r.output;
  EXPECT_THAT(r.output, HasSubstr("cannot write output 'B' to '" + path("out/B.npy") +
                                  "': cannot move the existing file aside: Operation not permitted"));
  EXPECT_THAT(r.output, HasSubstr("(no output was written; existing files are unchanged)"));
  EXPECT_EQ(file_text(path("out/A.npy")), "my A");
  EXPECT_EQ(file_text(path("out/B.npy")), "my B");
  EXPECT_EQ(listing(dir_ / "out"), (std::vector<std::string>{"A.npy", "B.npy"}));
}

// Outputs named like temporary files get their own files with their own data. With the old
// names (.gridops-tmp-<pid>-<k>.npy), output 1 named ".gridops-tmp-<pid>-2" had the final
// path of output 2's temporary file: the run exited 0 with that file missing and output
// 1's data in A.npy.
TEST_F(CliHardening, OutputNamesLikeTemporaryFilesGetTheirOwnFiles) {
  Tensor z(DType::kFloat32, {3});
  for (int i = 0; i < 3; ++i) z.data_as<float>()[i] = static_cast<float>(i) + 10.5f;
  ASSERT_TRUE(write_npy(z, path("z.npy")).ok());
  pid_t child = 0;
  Result r = run_cli_in_child([&](pid_t self) {
    const std::string pid = std::to_string(self);
    ::onnx::ModelProto m = test::one_node("Identity", 13,
                                          {test::value("x", ::onnx::TensorProto::FLOAT, {3}),
                                           test::value("z", ::onnx::TensorProto::FLOAT, {3})}, {});
    auto* g = m.mutable_graph();
    g->clear_node();
    // Sorted as the command numbers them: '%' < '-' < 'A'.
    const std::pair<const char*, std::string> outs[] = {{"x", ".gridops%tmp-" + pid + "-0"},
                                                        {"x", ".gridops-tmp-" + pid + "-2"},
                                                        {"z", "A"}};
    for (const auto& [in, out] : outs) {
      auto* n = g->add_node();
      n->set_op_type("Identity");
      n->set_name("id_" + out);
      n->add_input(in);
      n->add_output(out);
      *g->add_output() = test::value(out, ::onnx::TensorProto::FLOAT, {3});
    }
    const std::string model = save(m, "tmpnames.onnx");
    return std::vector<std::string>{"run", model, "-i", "x=" + path("x.npy"), "-i", "z=" + path("z.npy"),
                                    "-o", path("out")};
  }, &child);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string pid = std::to_string(child);
  const std::vector<std::string> files = {".gridops%25tmp-" + pid + "-0.npy", ".gridops-tmp-" + pid + "-2.npy",
                                          "A.npy"};
  EXPECT_EQ(listing(dir_ / "out"), files);
  EXPECT_THAT(r.output, HasSubstr("A: float32(3,) -> " + path("out/A.npy")));
  for (size_t k = 0; k < files.size(); ++k) {
    auto t = read_npy((dir_ / "out" / files[k]).string());
    EXPECT_TRUE(t.ok()) << files[k] << " is missing";
    if (t.ok()) {
      EXPECT_EQ(t->data_as<float>()[1], k == 2 ? 11.5f : 1.25f) << files[k] << " has another output's data";
    }
  }
}

// `run` prints output names as `info` does: an ESC sequence is written as \x1B and an
// embedded NUL as \x00 (the old command wrote the ESC raw and cut the name at the NUL).
TEST_F(CliHardening, RunEscapesOutputNames) {
  const std::string name = std::string("y\x1b[31m") + std::string(1, '\0') + "z";
  const std::string model = identity_model({name});
  Result r = run_cli("run " + model + " -i " + path("x.npy") + " -o " + path("out"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output.find('\x1b'), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find('\0'), std::string::npos) << r.output;
  EXPECT_THAT(r.output, HasSubstr("y\\x1B[31m\\x00z: float32(3,) -> " + path("out/y%1B[31m%00z.npy")));
  EXPECT_EQ(listing(dir_ / "out"), (std::vector<std::string>{"y%1B[31m%00z.npy"}));
  EXPECT_THAT(run_cli("info " + model).output, HasSubstr("y\\x1B[31m\\x00z: float32[3]"));
}

}  // namespace
}  // namespace gridops::onnx
