// The gridops command's output files (issue 11, issue 53 item 3): every output has its own
// file, all outputs or none, temporary and backup files created exclusively and never
// through symbolic links, the commit undone on failure. Each test runs the command as a
// process (the fixture: cli_hardening.h).
#include "cli_hardening.h"

namespace gridops::onnx {
namespace {

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
