// The gridops command's behaviour and error paths, run as a separate process.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "gridops/onnx/npy.h"
#include "gridops/onnx/tensor_proto.h"
#include "gridops/version.h"
#include "model_util.h"

namespace gridops::onnx {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

struct Result {
  int exit_code;
  std::string output;  // stdout and stderr together
};

Result run_cli_raw(const std::string& cmd);

Result run_cli(const std::string& args) {
  return run_cli_raw(std::string(GRIDOPS_CLI) + " " + args + " 2>&1");
}

/// Runs a whole shell command line and collects its stdout.
Result run_cli_raw(const std::string& cmd) {
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

class CliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) / ("gridops_cli_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
    // A Gather model: data float32 (3, 2), indices int64 (2,), axis 0.
    auto m = test::one_node("Gather", 13,
                            {test::value("data", ::onnx::TensorProto::FLOAT, {3, 2}),
                             test::value("indices", ::onnx::TensorProto::INT64, {2})},
                            {test::value("out", ::onnx::TensorProto::FLOAT, {2, 2})});
    model_ = (dir_ / "gather.onnx").string();
    std::ofstream(model_, std::ios::binary) << m.SerializeAsString();
    Tensor data(DType::kFloat32, {3, 2});
    for (int i = 0; i < 6; ++i) data.data_as<float>()[i] = static_cast<float>(i) + 0.5f;
    Tensor idx(DType::kInt64, {2});
    idx.data_as<int64_t>()[0] = 2;
    idx.data_as<int64_t>()[1] = -3;
    ASSERT_TRUE(write_npy(data, path("data.npy")).ok());
    ASSERT_TRUE(write_tensor_proto(idx, "indices", path("idx.pb")).ok());
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  // suite/test_mine: the model above with one test_data_set whose expected output is right
  // (returned in *want, for a test to break it).
  void write_passing_case(Tensor* want) const {
    fs::create_directories(dir_ / "suite/test_mine/test_data_set_0");
    fs::copy_file(model_, dir_ / "suite/test_mine/model.onnx");
    Tensor data(DType::kFloat32, {3, 2});
    for (int i = 0; i < 6; ++i) data.data_as<float>()[i] = static_cast<float>(i);
    Tensor idx(DType::kInt64, {2});
    idx.data_as<int64_t>()[0] = 1;
    *want = Tensor(DType::kFloat32, {2, 2});
    const float w[4] = {2, 3, 0, 1};
    std::memcpy(want->data(), w, sizeof w);
    const std::string set = "suite/test_mine/test_data_set_0/";
    ASSERT_TRUE(write_tensor_proto(data, "data", path(set + "input_0.pb")).ok());
    ASSERT_TRUE(write_tensor_proto(idx, "indices", path(set + "input_1.pb")).ok());
    ASSERT_TRUE(write_tensor_proto(*want, "out", path(set + "output_0.pb")).ok());
  }

  fs::path dir_;
  std::string model_;
};

// `gridops isa` shows the cap GRIDOPS_MAX_ISA sets and the target dispatched under it; a
// value that is no level is ignored with a message naming the levels; runs obey the cap
// (GRIDOPS_VERBOSE=dispatch names the dispatched target).
TEST(CliIsa, ShowsTheCapFromTheEnvironment) {
  Result r = run_cli("isa");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("highway target dispatched: "), std::string::npos) << r.output;
#if defined(__x86_64__)
  r = run_cli("isa");
  if (r.output.find("cpu: scalar") != std::string::npos) GTEST_SKIP() << "a CPU without SSE4.2";
  const std::string env = "env GRIDOPS_MAX_ISA=sse4 GRIDOPS_VERBOSE=dispatch " + std::string(GRIDOPS_CLI);
  r = run_cli_raw(env + " isa 2>&1");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  if (r.output.find("baseline") == std::string::npos) {
    EXPECT_NE(r.output.find("cap: sse4 (from GRIDOPS_MAX_ISA)"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("effective: sse4"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("highway target dispatched: SSE4"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("[gridops] isa: cpu "), std::string::npos) << r.output;
  }
#endif
  r = run_cli_raw("env GRIDOPS_MAX_ISA=avx9 " + std::string(GRIDOPS_CLI) + " isa 2>&1");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("GRIDOPS_MAX_ISA='avx9' ignored: not a level of this"), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("cap: native"), std::string::npos) << r.output;
}

TEST_F(CliTest, RunWritesEveryOutput) {
  Result r = run_cli("run " + model_ + " --input data=" + path("data.npy") + " --input indices=" +
                     path("idx.pb") + " --output-dir " + path("out"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  auto out = read_npy(path("out/out.npy"));
  ASSERT_TRUE(out.ok()) << out.status().to_string();
  ASSERT_EQ(out->shape(), (Dims{2, 2}));
  // Rows 2 and 0 (-3 counts from the end).
  EXPECT_EQ(out->data_as<float>()[0], 4.5f);
  EXPECT_EQ(out->data_as<float>()[1], 5.5f);
  EXPECT_EQ(out->data_as<float>()[2], 0.5f);
  EXPECT_EQ(out->data_as<float>()[3], 1.5f);
  Result pb = run_cli("run " + model_ + " -i data=" + path("data.npy") + " -i indices=" + path("idx.pb") +
                      " -o " + path("outpb") + " --format pb --threads 1");
  ASSERT_EQ(pb.exit_code, 0) << pb.output;
  auto t = read_tensor_proto(path("outpb/out.pb"));
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->data_as<float>()[0], 4.5f);
}

TEST_F(CliTest, MissingInputListsWhatTheModelExpects) {
  Result r = run_cli("run " + model_ + " --input data=" + path("data.npy") + " --output-dir " + path("o"));
  EXPECT_NE(r.exit_code, 0);
  EXPECT_THAT(r.output, HasSubstr("missing input 'indices'"));
  EXPECT_THAT(r.output, HasSubstr("indices: int64[2]"));
  EXPECT_THAT(r.output, HasSubstr("data: float32[3, 2]"));
}

TEST_F(CliTest, UnnamedInputNeedsAOneInputModel) {
  Result r = run_cli("run " + model_ + " --input " + path("data.npy") + " --output-dir " + path("o"));
  EXPECT_NE(r.exit_code, 0);
  EXPECT_THAT(r.output, HasSubstr("the model has 2 inputs, so each --input must be NAME=FILE"));
}

TEST_F(CliTest, WrongDtypeAndShapeAreErrors) {
  Tensor wrong(DType::kFloat64, {3, 2});
  ASSERT_TRUE(write_npy(wrong, path("wrong.npy")).ok());
  Result r = run_cli("run " + model_ + " -i data=" + path("wrong.npy") + " -i indices=" + path("idx.pb") + " -o " + path("o"));
  EXPECT_NE(r.exit_code, 0);
  EXPECT_THAT(r.output, HasSubstr("input 'data' must be float32[3, 2], got float64(3, 2)"));
  Tensor shape(DType::kFloat32, {2, 3});
  ASSERT_TRUE(write_npy(shape, path("shape.npy")).ok());
  r = run_cli("run " + model_ + " -i data=" + path("shape.npy") + " -i indices=" + path("idx.pb") + " -o " + path("o"));
  EXPECT_NE(r.exit_code, 0);
  EXPECT_THAT(r.output, HasSubstr("got float32(2, 3)"));
}

TEST_F(CliTest, OutOfRangeIndexIsAnErrorNamingTheNode) {
  Tensor idx(DType::kInt64, {2});
  idx.data_as<int64_t>()[1] = 7;
  ASSERT_TRUE(write_npy(idx, path("bad_idx.npy")).ok());
  Result r = run_cli("run " + model_ + " -i data=" + path("data.npy") + " -i indices=" + path("bad_idx.npy") + " -o " + path("o"));
  EXPECT_NE(r.exit_code, 0);
  EXPECT_THAT(r.output, HasSubstr("Gather_node"));
  EXPECT_THAT(r.output, HasSubstr("7"));
  EXPECT_FALSE(fs::exists(path("o/out.npy")));
}

TEST_F(CliTest, CorruptAndTruncatedFilesAreClearErrors) {
  std::ofstream(path("garbage.onnx"), std::ios::binary) << "this is not a protobuf \xFF\xFF\xFF";
  Result r = run_cli("info " + path("garbage.onnx"));
  EXPECT_NE(r.exit_code, 0);
  EXPECT_THAT(r.output, HasSubstr("not a valid ONNX model"));
  // Every truncation of the model either parses to something gridops rejects or loads;
  // it never crashes (exit code below 128).
  std::ifstream in(model_, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (size_t n : {size_t{1}, bytes.size() / 3, bytes.size() / 2, bytes.size() - 1}) {
    std::ofstream(path("trunc.onnx"), std::ios::binary) << bytes.substr(0, n);
    Result t = run_cli("run " + path("trunc.onnx") + " -i data=" + path("data.npy") + " -i indices=" + path("idx.pb") + " -o " + path("o"));
    EXPECT_LT(t.exit_code, 128) << t.output;
    EXPECT_NE(t.exit_code, 0) << n;
  }
  std::ifstream npy_in(path("data.npy"), std::ios::binary);
  const std::string npy((std::istreambuf_iterator<char>(npy_in)), std::istreambuf_iterator<char>());
  std::ofstream(path("trunc.npy"), std::ios::binary) << npy.substr(0, npy.size() - 3);
  r = run_cli("run " + model_ + " -i data=" + path("trunc.npy") + " -i indices=" + path("idx.pb") + " -o " + path("o"));
  EXPECT_NE(r.exit_code, 0);
  EXPECT_THAT(r.output, HasSubstr("expected 24 data bytes"));
  r = run_cli("run " + path("missing.onnx") + " -i x=y -o " + path("o"));
  EXPECT_NE(r.exit_code, 0);
  EXPECT_THAT(r.output, HasSubstr("cannot open"));
}

TEST_F(CliTest, UnsupportedOpIsRejectedBeforeRunning) {
  auto m = test::one_node("Relu", 13, {test::value("x", ::onnx::TensorProto::FLOAT, {2})},
                          {test::value("y", ::onnx::TensorProto::FLOAT, {2})});
  std::ofstream(path("relu.onnx"), std::ios::binary) << m.SerializeAsString();
  Result r = run_cli("run " + path("relu.onnx") + " -i " + path("data.npy") + " -o " + path("o"));
  EXPECT_NE(r.exit_code, 0);
  EXPECT_THAT(r.output, HasSubstr("node 0 'Relu_node' (Relu): op 'Relu' is not supported"));
}

TEST_F(CliTest, InfoDescribesTheModel) {
  Result r = run_cli("info " + model_);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("ai.onnx:13"));
  EXPECT_THAT(r.output, HasSubstr("Gather 'Gather_node'(data, indices) -> out"));
  EXPECT_THAT(r.output, HasSubstr("runnable by gridops: yes"));
}

TEST_F(CliTest, ConformanceReportsEachCaseAndASummary) {
  // One passing case built here: the model above with its expected output.
  Tensor want;
  ASSERT_NO_FATAL_FAILURE(write_passing_case(&want));
  Result r = run_cli("conformance " + path("suite"));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("PASS suite/test_mine"));
  EXPECT_THAT(r.output, HasSubstr("1 passed, 0 failed, 0 skipped"));
  // A wrong expected value is a FAIL with the largest difference, and a non-zero exit.
  want.data_as<float>()[3] = 1.5f;
  ASSERT_TRUE(write_tensor_proto(want, "out", path("suite/test_mine/test_data_set_0/output_0.pb")).ok());
  r = run_cli("conformance " + path("suite"));
  EXPECT_NE(r.exit_code, 0);
  EXPECT_THAT(r.output, HasSubstr("FAIL suite/test_mine"));
  EXPECT_THAT(r.output, HasSubstr("largest difference 0.5"));
  EXPECT_THAT(r.output, HasSubstr("0 passed, 1 failed, 0 skipped"));
}

TEST_F(CliTest, DemoWritesAPng) {
  Result r = run_cli("demo --output " + path("demo.png"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("wrote"));
  std::ifstream f(path("demo.png"), std::ios::binary);
  char magic[8] = {};
  f.read(magic, 8);
  EXPECT_EQ(std::string(magic + 1, 3), "PNG");
}

TEST_F(CliTest, BadArgumentsAreUsageErrors) {
  Result r = run_cli("frobnicate");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_THAT(r.output, HasSubstr("unknown subcommand 'frobnicate'"));
  r = run_cli("run " + model_ + " -i data=" + path("data.npy") + " -o " + path("o") + " --format xml");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_THAT(r.output, HasSubstr("xml"));
}

// ---- Issue 49: line breaks, --version, unknown subcommands, exit statuses, --json. ------

// A multi-line message keeps its line breaks (they were printed as \x0A); a control
// character in a name it quotes is still escaped.
TEST_F(CliTest, MultiLineMessagesBreakLines) {
  Result r = run_cli("run " + model_ + " --input " + path("data.npy") + " --output-dir " + path("o"));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr("it expects:\n  data: float32[3, 2]\n  indices: int64[2]\n"));
  EXPECT_THAT(r.output, ::testing::Not(HasSubstr("\\x0A")));
  r = run_cli("run " + model_ + " --input data=" + path("data.npy") + " --output-dir " + path("o"));
  EXPECT_THAT(r.output, HasSubstr("\n  data: float32[3, 2]\n  indices: int64[2]"));
  EXPECT_THAT(r.output, ::testing::Not(HasSubstr("\\x0A")));

  const std::string esc_name = "da\x1b[2Jta", nul_name = std::string("id\0x", 4);
  auto m = test::one_node("Gather", 13,
                          {test::value(esc_name, ::onnx::TensorProto::FLOAT, {3, 2}),
                           test::value(nul_name, ::onnx::TensorProto::INT64, {2})},
                          {test::value("out", ::onnx::TensorProto::FLOAT, {2, 2})});
  std::ofstream(path("ctl.onnx"), std::ios::binary) << m.SerializeAsString();
  r = run_cli("run " + path("ctl.onnx") + " --input " + path("data.npy") + " --output-dir " + path("o"));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr("it expects:\n  da\\x1B[2Jta: float32[3, 2]\n  id\\x00x: int64[2]\n"));
  for (char c : r.output) EXPECT_TRUE(c == '\n' || static_cast<unsigned char>(c) >= 0x20) << static_cast<int>(c);
}

TEST(CliVersion, PrintsTheVersionAndExitsZero) {
  Result r = run_cli("--version");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output, std::string("gridops ") + GRIDOPS_VERSION_STRING + "\n");
}

TEST(CliUsage, AnUnknownSubcommandIsNamed) {
  Result r = run_cli("frobnicate --json");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr("gridops: unknown subcommand 'frobnicate'"));
  EXPECT_THAT(r.output, HasSubstr("run, info, isa, conformance, demo"));
  EXPECT_THAT(r.output, ::testing::Not(HasSubstr("A subcommand is required")));
  // The name is escaped like every untrusted text.
  r = run_cli("\"$(printf 'fro\\033[2Jb')\"");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr("unknown subcommand 'fro\\x1B[2Jb'"));
  // No subcommand at all is still that.
  r = run_cli("");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr("A subcommand is required"));
}

// `info` exits as `run` does for a model run refuses (3: unsupported), after the whole
// description.
TEST_F(CliTest, InfoExitsAsRunDoesForAnUnsupportedModel) {
  auto m = test::one_node("Relu", 13, {test::value("x", ::onnx::TensorProto::FLOAT, {2})},
                          {test::value("y", ::onnx::TensorProto::FLOAT, {2})});
  std::ofstream(path("relu.onnx"), std::ios::binary) << m.SerializeAsString();
  Result info = run_cli("info " + path("relu.onnx"));
  EXPECT_EQ(info.exit_code, 3) << info.output;
  EXPECT_THAT(info.output, HasSubstr("inputs:\n  x: float32[2]\noutputs:\n  y: float32[2]\nnodes:\n  Relu 'Relu_node'(x) -> y\n"));
  EXPECT_THAT(info.output, HasSubstr("runnable by gridops: no: " + path("relu.onnx") +
                                      ": node 0 'Relu_node' (Relu): op 'Relu' is not supported"));
  Result run = run_cli("run " + path("relu.onnx") + " -i " + path("data.npy") + " -o " + path("o"));
  EXPECT_EQ(run.exit_code, info.exit_code) << run.output;
}

// `demo` exits 4, the status for outputs that cannot be written, when it cannot write its file.
TEST_F(CliTest, DemoThatCannotWriteExitsFour) {
  Result r = run_cli("demo --output " + path("no/such/dir/demo.png"));
  EXPECT_EQ(r.exit_code, 4) << r.output;
  EXPECT_THAT(r.output, HasSubstr("cannot write PNG"));
  EXPECT_THAT(r.output, HasSubstr("No such file or directory"));
}

// --json output, read back by Python's json module (a parser that is not ours).
class CliJsonTest : public CliTest {
 protected:
  void SetUp() override {
    CliTest::SetUp();
    if (run_cli_raw("command -v python3 >/dev/null 2>&1").exit_code != 0) GTEST_SKIP() << "no python3 to parse the JSON";
  }
  // Runs the command with `args` (stdout only) into a Python snippet that gets the parsed
  // object as `d` and prints its checks; returns the snippet's output and the command's
  // exit status (written by the shell to a file).
  Result check(const std::string& args, const std::string& python) {
    std::ofstream(path("check.py")) << "import json, sys\nraw = sys.stdin.buffer.read()\nd = json.loads(raw.decode('utf-8'))\n"
                                    << python << "\n";
    Result r = run_cli_raw("{ " + std::string(GRIDOPS_CLI) + " " + args + "; echo $? > " + path("rc") + "; } | python3 " +
                           path("check.py") + " 2>&1");
    std::ifstream rc(path("rc"));
    int code = -1;
    rc >> code;
    return {code, r.exit_code == 0 ? r.output : "python failed: " + r.output};
  }
};

TEST_F(CliJsonTest, InfoJsonDescribesTheModel) {
  Result r = check("info --json " + model_,
                   "print(d['model'].endswith('gather.onnx'))\n"
                   "print(d['opsets'])\n"
                   "print([(i['name'], i['type'], i['dtype'], i['shape'], i['has_initializer']) for i in d['inputs']])\n"
                   "print([(o['name'], o['dtype'], o['shape']) for o in d['outputs']])\n"
                   "n = d['nodes'][0]\n"
                   "print(n['op_type'], n['domain'] == '', n['name'], n['inputs'], n['outputs'], n['attributes'])\n"
                   "print(d['runnable'], d['reason'], d['exit_code'])\n"
                   "print(sorted(d))");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output,
            "True\n"
            "[{'domain': 'ai.onnx', 'version': 13}]\n"
            "[('data', 'float32[3, 2]', 'float32', [3, 2], False), ('indices', 'int64[2]', 'int64', [2], False)]\n"
            "[('out', 'float32', [2, 2])]\n"
            "Gather True Gather_node ['data', 'indices'] ['out'] \n"
            "True None 0\n"
            "['exit_code', 'inputs', 'model', 'nodes', 'opsets', 'outputs', 'reason', 'runnable']\n");
}

TEST_F(CliJsonTest, InfoJsonKeepsNamesExactlyAndSaysWhyNot) {
  // A symbolic dimension, control characters and a quote in names, an unsupported op.
  const std::string name = std::string("x\"\x1b[2J\n\0z", 9);
  auto m = test::one_node("Relu", 13, {test::value(name, ::onnx::TensorProto::FLOAT, {2})},
                          {test::value("y\xc3\xa9", ::onnx::TensorProto::FLOAT, {2})});
  auto* dim = m.mutable_graph()->mutable_input(0)->mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim(0);
  dim->set_dim_param("N");
  std::ofstream(path("relu.onnx"), std::ios::binary) << m.SerializeAsString();
  // The raw bytes hold no control character: every one is escaped.
  Result raw = run_cli_raw(std::string(GRIDOPS_CLI) + " info --json " + path("relu.onnx"));
  EXPECT_EQ(raw.exit_code, 3);
  for (char c : raw.output) EXPECT_TRUE(c == '\n' || static_cast<unsigned char>(c) >= 0x20) << static_cast<int>(c);
  Result r = check("info --json " + path("relu.onnx"),
                   "print(d['inputs'][0]['name'] == 'x\"\\x1b[2J\\n\\x00z', d['inputs'][0]['shape'])\n"
                   "print(d['outputs'][0]['name'] == 'y\\u00e9')\n"
                   "print(d['runnable'], d['exit_code'], \"op 'Relu' is not supported\" in d['reason'])");
  EXPECT_EQ(r.exit_code, 3) << r.output;
  EXPECT_EQ(r.output, "True ['N']\nTrue\nFalse 3 True\n");
}

TEST_F(CliJsonTest, ConformanceJsonListsEveryCase) {
  Tensor want;
  ASSERT_NO_FATAL_FAILURE(write_passing_case(&want));
  // A case gridops skips: an unsupported op.
  auto relu = test::one_node("Relu", 13, {test::value("x", ::onnx::TensorProto::FLOAT, {2})},
                             {test::value("y", ::onnx::TensorProto::FLOAT, {2})});
  fs::create_directories(dir_ / "suite/test_relu");
  std::ofstream(path("suite/test_relu/model.onnx"), std::ios::binary) << relu.SerializeAsString();
  const std::string py =
      "print(len(d['suites']), d['suites'][0].endswith('suite'))\n"
      "for c in d['cases']: print(c['name'], c['result'], c['path'].endswith(c['name']), bool(c['detail']))\n"
      "print(d['passed'], d['failed'], d['skipped'], sorted(d))";
  Result r = check("conformance --json " + path("suite"), py);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output,
            "1 True\nsuite/test_mine pass True False\nsuite/test_relu skip True True\n"
            "1 0 1 ['cases', 'failed', 'passed', 'skipped', 'suites']\n");
  want.data_as<float>()[3] = 1.5f;
  ASSERT_TRUE(write_tensor_proto(want, "out", path("suite/test_mine/test_data_set_0/output_0.pb")).ok());
  r = check("conformance --json " + path("suite"), "print([(c['result'], c['detail']) for c in d['cases']][0])");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("('fail', "));
  EXPECT_THAT(r.output, HasSubstr("largest difference 0.5"));
}

}  // namespace
}  // namespace gridops::onnx
