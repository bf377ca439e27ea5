// The gridops command under hostile and careless use (issue 11): memory limits, broken
// conformance directories, models without graph inputs, bad --threads, misleading
// messages. Each test runs the command as a process. The output files' tests (distinct
// names, all or nothing, temporary files) are in cli_output_files_test.cc.
#include "cli_hardening.h"

namespace gridops::onnx {
namespace {

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

}  // namespace
}  // namespace gridops::onnx
