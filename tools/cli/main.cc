// The gridops command: run ONNX models, describe them, run the ONNX conformance suites,
// and draw the demo contact sheet.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "demo.h"
#include "gridops/gridops.h"
#include "gridops/onnx/conformance.h"
#include "gridops/onnx/model.h"
#include "gridops/onnx/npy.h"
#include "gridops/onnx/tensor_proto.h"

namespace fs = std::filesystem;
using namespace gridops;

namespace {

int fail(const Status& s) {
  std::fprintf(stderr, "gridops: %s\n", s.message().c_str());
  return s.code() == StatusCode::kUnimplemented ? 3 : 2;
}

// Reads a tensor from .npy or TensorProto (.pb), chosen by the file's first bytes.
StatusOr<Tensor> read_tensor_file(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return invalid_argument("cannot open input file '", path, "'");
  char magic[6] = {};
  const size_t got = std::fread(magic, 1, 6, f);
  std::fclose(f);
  if (got == 6 && std::string(magic, 6) == "\x93NUMPY") return onnx::read_npy(path);
  return onnx::read_tensor_proto(path);
}

// Replaces characters that cannot be part of a file name.
std::string safe_file_name(const std::string& name) {
  std::string s = name.empty() ? "output" : name;
  for (char& c : s)
    if (c == '/' || c == '\\' || c == '\0') c = '_';
  if (s == "." || s == "..") s = "_" + s;
  return s;
}

int cmd_run(const std::string& model_path, const std::vector<std::string>& input_args,
            const std::string& out_dir, const std::string& format, int threads) {
  if (threads > 0) set_num_threads(threads);
  auto model = onnx::Model::load(model_path);
  if (!model.ok()) return fail(model.status());
  Status supported = model->check_supported();
  if (!supported.ok()) return fail(supported);
  std::map<std::string, Tensor> inputs;
  for (const std::string& arg : input_args) {
    std::string name, file;
    const size_t eq = arg.find('=');
    if (eq == std::string::npos) {
      if (model->inputs().size() != 1) {
        std::string names;
        for (const auto& vi : model->inputs()) names += "\n  " + vi.name + ": " + vi.to_string();
        return fail(invalid_argument("--input ", arg, ": the model has ", model->inputs().size(),
                                     " inputs, so each --input must be NAME=FILE; it expects:", names));
      }
      name = model->inputs()[0].name;
      file = arg;
    } else {
      name = arg.substr(0, eq);
      file = arg.substr(eq + 1);
    }
    auto t = read_tensor_file(file);
    if (!t.ok()) return fail(t.status());
    inputs[name] = std::move(t).value();
  }
  auto outs = model->run(inputs);
  if (!outs.ok()) return fail(outs.status());
  std::error_code ec;
  fs::create_directories(out_dir, ec);
  if (ec) return fail(invalid_argument("cannot create output directory '", out_dir, "': ", ec.message()));
  for (const auto& [name, t] : *outs) {
    const fs::path p = fs::path(out_dir) / (safe_file_name(name) + (format == "pb" ? ".pb" : ".npy"));
    Status s = format == "pb" ? onnx::write_tensor_proto(t, name, p.string()) : onnx::write_npy(t, p.string());
    if (!s.ok()) return fail(s);
    std::printf("%s: %s%s -> %s\n", name.c_str(), to_string(t.dtype()), dims_to_string(t.shape()).c_str(),
                p.string().c_str());
  }
  return 0;
}

int cmd_info(const std::string& model_path) {
  auto model = onnx::Model::load(model_path);
  if (!model.ok()) return fail(model.status());
  std::printf("model: %s\nopsets:", model_path.c_str());
  for (const auto& [d, v] : model->opsets()) std::printf(" %s:%lld", d.empty() ? "ai.onnx" : d.c_str(), static_cast<long long>(v));
  std::printf("\ninputs:\n");
  for (const auto& vi : model->inputs()) std::printf("  %s: %s\n", vi.name.c_str(), vi.to_string().c_str());
  std::printf("outputs:\n");
  for (const auto& vi : model->outputs()) std::printf("  %s: %s\n", vi.name.c_str(), vi.to_string().c_str());
  std::printf("nodes:\n");
  for (const auto& n : model->nodes()) {
    std::string ins, outs;
    for (const auto& i : n.inputs) ins += (ins.empty() ? "" : ", ") + (i.empty() ? std::string("<none>") : i);
    for (const auto& o : n.outputs) outs += (outs.empty() ? "" : ", ") + o;
    std::printf("  %s%s(%s) -> %s", n.op_type.c_str(), n.name.empty() ? "" : (" '" + n.name + "'").c_str(),
                ins.c_str(), outs.c_str());
    if (!n.attributes.empty()) std::printf("  [%s]", n.attributes.c_str());
    std::printf("\n");
  }
  Status s = model->check_supported();
  std::printf("runnable by gridops: %s\n", s.ok() ? "yes" : ("no: " + s.message()).c_str());
  return 0;
}

void progress(size_t done, size_t total, bool tty) {
  if (!tty || total == 0) return;
  const int width = 30;
  const int filled = static_cast<int>(done * width / total);
  std::fprintf(stderr, "\r[%.*s%*s] %zu/%zu", filled, "##############################", width - filled, "",
               done, total);
  if (done == total) std::fprintf(stderr, "\r%*s\r", width + 24, "");
  std::fflush(stderr);
}

int cmd_conformance(std::vector<std::string> roots, const std::string& exe_dir) {
  if (roots.empty()) roots = onnx::default_conformance_roots(exe_dir);
  if (roots.empty()) {
    std::fprintf(stderr, "gridops: no conformance suites found (install libonnx-testdata or pass a directory)\n");
    return 2;
  }
  std::vector<std::string> dirs;
  for (const auto& r : roots) {
    std::error_code ec;
    if (!fs::is_directory(r, ec)) {
      std::fprintf(stderr, "gridops: '%s' is not a directory\n", r.c_str());
      return 2;
    }
    std::printf("suite: %s\n", r.c_str());
    for (auto& d : onnx::find_test_dirs(r)) dirs.push_back(std::move(d));
  }
  const bool tty = isatty(fileno(stderr)) != 0;
  size_t passed = 0, failed = 0, skipped = 0;
  for (size_t i = 0; i < dirs.size(); ++i) {
    progress(i, dirs.size(), tty);
    const onnx::CaseResult r = onnx::run_conformance_case(dirs[i]);
    const std::string where = fs::path(r.path).parent_path().filename().string() + "/" + r.name;
    switch (r.kind) {
      case onnx::CaseResult::Kind::kPass:
        ++passed;
        std::printf("PASS %s\n", where.c_str());
        break;
      case onnx::CaseResult::Kind::kFail:
        ++failed;
        std::printf("FAIL %s: %s\n", where.c_str(), r.detail.c_str());
        break;
      case onnx::CaseResult::Kind::kSkip:
        ++skipped;
        std::printf("SKIP %s: %s\n", where.c_str(), r.detail.c_str());
        break;
    }
    std::fflush(stdout);
  }
  progress(dirs.size(), dirs.size(), tty);
  std::printf("%zu passed, %zu failed, %zu skipped\n", passed, failed, skipped);
  return failed ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"gridops: spatial sampling and data-movement operators (GridSample, AffineGrid, "
               "Resample, Gather, Pad) for ONNX models"};
  app.require_subcommand(1);

  std::string model_path, out_dir, format = "npy";
  std::vector<std::string> inputs;
  int threads = 0;
  CLI::App* run = app.add_subcommand("run", "Run an ONNX model and write its outputs");
  run->add_option("model", model_path, "the .onnx file")->required();
  run->add_option("--input,-i", inputs, "NAME=FILE (.npy or TensorProto .pb); FILE alone for a one-input model")->required();
  run->add_option("--output-dir,-o", out_dir, "where to write <output name>.npy (or .pb)")->required();
  run->add_option("--format", format, "npy or pb")->check(CLI::IsMember({"npy", "pb"}));
  run->add_option("--threads", threads, "threads to use (default: all cores)")->check(CLI::PositiveNumber);

  std::string info_model;
  CLI::App* info = app.add_subcommand("info", "Describe an ONNX model: opsets, inputs, outputs, nodes");
  info->add_option("model", info_model, "the .onnx file")->required();

  std::vector<std::string> roots;
  CLI::App* conf = app.add_subcommand("conformance", "Run ONNX backend node tests found under each DIR");
  conf->add_option("dirs", roots, "directories to search (default: libonnx-testdata and ../shared/conformance)");

  std::string demo_out = "gridops-demo.png";
  CLI::App* demo = app.add_subcommand("demo", "Draw every operator and mode on a built-in image as a PNG contact sheet");
  demo->add_option("--output,-o", demo_out, "the PNG file to write");

  CLI11_PARSE(app, argc, argv);
  const std::string exe_dir = fs::absolute(fs::path(argv[0])).parent_path().string();
  if (*run) return cmd_run(model_path, inputs, out_dir, format, threads);
  if (*info) return cmd_info(info_model);
  if (*conf) return cmd_conformance(roots, exe_dir);
  if (*demo) {
    Status s = gridops::cli::write_demo_sheet(demo_out);
    if (!s.ok()) return fail(s);
    std::printf("wrote %s\n", demo_out.c_str());
    return 0;
  }
  return 0;
}
