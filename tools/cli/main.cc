// The gridops command: run ONNX models, describe them, run the ONNX conformance suites,
// and draw the demo contact sheet.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "common.h"
#include "demo.h"
#include "gridops/gridops.h"
#include "gridops/version.h"
#include "json.h"
#include "outputs.h"
#include "gridops/onnx/conformance.h"
#include "gridops/onnx/io.h"
#include "gridops/onnx/model.h"
#include "gridops/onnx/npy.h"
#include "gridops/onnx/tensor_proto.h"

namespace fs = std::filesystem;
using namespace gridops;

namespace {

using cli::exit_code;
using cli::fail;
using cli::kExitInvalid;
using cli::kExitResource;
using cli::kExitUnsupported;
using cli::printable;
using cli::printable_message;
using cli::write_outputs;

bool ends_with(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Reads a tensor from .npy or TensorProto (.pb): .npy when the file starts with the NumPy
// magic or its name ends in .npy, a TensorProto otherwise. At most max_bytes are read.
StatusOr<Tensor> read_tensor_file(const std::string& path, int64_t max_bytes) {
  GRIDOPS_ASSIGN_OR_RETURN(const std::string bytes, onnx::read_bytes(path, max_bytes));
  if (bytes.rfind("\x93NUMPY", 0) == 0 || ends_with(path, ".npy")) return onnx::parse_npy(bytes, path);
  return onnx::parse_tensor_proto(bytes, path);
}

int cmd_run(const std::string& model_path, const std::vector<std::string>& input_args,
            const std::string& out_dir, const std::string& format, int threads, int64_t max_input_mb) {
  if (threads > 0) set_num_threads(threads);
  const int64_t max_bytes = max_input_mb * (int64_t{1} << 20);
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
    if (inputs.count(name)) return fail(invalid_argument("--input: input '", name, "' is given more than once"));
    auto t = read_tensor_file(file, max_bytes);
    if (!t.ok()) return fail(Status(t.status().code(), "--input " + name + ": " + t.status().message()));
    inputs[name] = std::move(t).value();
  }
  auto outs = model->run(inputs);
  if (!outs.ok()) return fail(outs.status());
  return write_outputs(*outs, out_dir, format);
}

// A graph input or output for `info --json`: "dtype" null when the model gives no type,
// "shape" null when it gives no rank, each dimension a number or its symbolic name (null
// when neither is given).
void json_value_info(cli::JsonWriter& j, const onnx::ValueInfo& vi, const char* has_initializer) {
  j.begin_object().key("name").value(vi.name).key("type").value(vi.to_string()).key("dtype");
  if (vi.type_known) {
    j.value(to_string(vi.dtype));
  } else {
    j.null();
  }
  j.key("shape");
  if (vi.rank_known) {
    j.begin_array();
    for (size_t d = 0; d < vi.dims.size(); ++d) {
      if (vi.dims[d] >= 0) {
        j.value(static_cast<int64_t>(vi.dims[d]));
      } else if (d < vi.dim_names.size() && !vi.dim_names[d].empty()) {
        j.value(vi.dim_names[d]);
      } else {
        j.null();
      }
    }
    j.end_array();
  } else {
    j.null();
  }
  if (has_initializer) j.key("has_initializer").value(std::string_view(has_initializer) == "yes");
  j.end_object();
}

// `info`: the description, then whether gridops runs the model. The exit status is the one
// `run` gives for the same model before reading any input: 0 when it runs, 3 when an op or
// attribute is unsupported, 2 when the model is invalid.
int cmd_info(const std::string& model_path, bool json) {
  auto model = onnx::Model::load(model_path);
  if (!model.ok()) return fail(model.status());
  // The same check `run` makes before reading any input.
  const Status s = model->check_supported();
  if (json) {
    cli::JsonWriter j;
    j.begin_object().key("model").value(model_path).key("opsets").begin_array();
    for (const auto& [d, v] : model->opsets()) {
      j.begin_object().key("domain").value(d.empty() ? std::string("ai.onnx") : d).key("version").value(v).end_object();
    }
    j.end_array().key("inputs").begin_array();
    for (const auto& vi : model->inputs()) json_value_info(j, vi, "no");
    for (const auto& vi : model->inputs_with_initializers()) json_value_info(j, vi, "yes");
    j.end_array().key("outputs").begin_array();
    for (const auto& vi : model->outputs()) json_value_info(j, vi, nullptr);
    j.end_array().key("nodes").begin_array();
    for (const auto& n : model->nodes()) {
      j.begin_object().key("op_type").value(n.op_type).key("domain").value(n.domain).key("name").value(n.name);
      j.key("inputs").begin_array();
      for (const auto& i : n.inputs) j.value(i);
      j.end_array().key("outputs").begin_array();
      for (const auto& o : n.outputs) j.value(o);
      j.end_array().key("attributes").value(n.attributes).end_object();
    }
    j.end_array().key("runnable").value(s.ok()).key("reason");
    if (s.ok()) {
      j.null();
    } else {
      j.value(s.message());
    }
    j.key("exit_code").value(exit_code(s)).end_object();
    std::printf("%s\n", j.str().c_str());
    return exit_code(s);
  }
  std::printf("model: %s\nopsets:", printable(model_path).c_str());
  for (const auto& [d, v] : model->opsets()) {
    std::printf(" %s:%lld", d.empty() ? "ai.onnx" : printable(d).c_str(), static_cast<long long>(v));
  }
  std::printf("\ninputs:\n");
  for (const auto& vi : model->inputs()) std::printf("  %s: %s\n", printable(vi.name).c_str(), printable(vi.to_string()).c_str());
  for (const auto& vi : model->inputs_with_initializers()) {
    std::printf("  %s: %s (optional: has an initializer)\n", printable(vi.name).c_str(), printable(vi.to_string()).c_str());
  }
  std::printf("outputs:\n");
  for (const auto& vi : model->outputs()) std::printf("  %s: %s\n", printable(vi.name).c_str(), printable(vi.to_string()).c_str());
  std::printf("nodes:\n");
  for (const auto& n : model->nodes()) {
    std::string ins, outs;
    for (const auto& i : n.inputs) ins += (ins.empty() ? "" : ", ") + (i.empty() ? std::string("<none>") : i);
    for (const auto& o : n.outputs) outs += (outs.empty() ? "" : ", ") + o;
    std::printf("  %s%s(%s) -> %s", printable(n.op_type).c_str(), n.name.empty() ? "" : (" '" + printable(n.name) + "'").c_str(),
                printable(ins).c_str(), printable(outs).c_str());
    if (!n.attributes.empty()) std::printf("  [%s]", printable(n.attributes).c_str());
    std::printf("\n");
  }
  std::printf("runnable by gridops: %s\n", s.ok() ? "yes" : ("no: " + printable_message(s.message())).c_str());
  return exit_code(s);
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

// `conformance`: a line per case and a summary, or with json one object at the end (the
// progress bar, on a terminal, goes to stderr either way). Exit 1 when a case failed.
int cmd_conformance(std::vector<std::string> roots, const std::string& exe_dir, bool json) {
  if (roots.empty()) roots = onnx::default_conformance_roots(exe_dir);
  if (roots.empty()) {
    std::fprintf(stderr, "gridops: no conformance suites found (install libonnx-testdata or pass a directory)\n");
    return kExitInvalid;
  }
  std::vector<std::string> dirs;
  for (const auto& r : roots) {
    std::error_code ec;
    if (!fs::is_directory(r, ec)) {
      std::fprintf(stderr, "gridops: '%s' is not a directory\n", printable(r).c_str());
      return kExitInvalid;
    }
    if (!json) std::printf("suite: %s\n", printable(r).c_str());
    for (auto& d : onnx::find_test_dirs(r)) dirs.push_back(std::move(d));
  }
  if (dirs.empty()) {
    std::fprintf(stderr, "gridops: no conformance case (a directory holding model.onnx) found under the given directories\n");
    return kExitInvalid;
  }
  const bool tty = isatty(fileno(stderr)) != 0;
  size_t passed = 0, failed = 0, skipped = 0;
  cli::JsonWriter j;
  if (json) {
    j.begin_object().key("suites").begin_array();
    for (const auto& r : roots) j.value(r);
    j.end_array().key("cases").begin_array();
  }
  for (size_t i = 0; i < dirs.size(); ++i) {
    progress(i, dirs.size(), tty);
    const onnx::CaseResult r = onnx::run_conformance_case(dirs[i]);
    const std::string parent = fs::path(r.path).parent_path().filename().string();
    switch (r.kind) {
      case onnx::CaseResult::Kind::kPass: ++passed; break;
      case onnx::CaseResult::Kind::kFail: ++failed; break;
      case onnx::CaseResult::Kind::kSkip: ++skipped; break;
    }
    if (json) {
      j.begin_object().key("name").value(parent + "/" + r.name).key("path").value(r.path);
      j.key("result").value(onnx::to_string(r.kind)).key("detail").value(r.detail).end_object();
      continue;
    }
    const std::string where = printable(parent + "/" + r.name);
    if (r.kind == onnx::CaseResult::Kind::kPass) {
      std::printf("PASS %s\n", where.c_str());
    } else {
      std::printf("%s %s: %s\n", r.kind == onnx::CaseResult::Kind::kFail ? "FAIL" : "SKIP", where.c_str(),
                  printable(r.detail).c_str());
    }
    std::fflush(stdout);
  }
  progress(dirs.size(), dirs.size(), tty);
  if (json) {
    j.end_array().key("passed").value(passed).key("failed").value(failed).key("skipped").value(skipped).end_object();
    std::printf("%s\n", j.str().c_str());
  } else {
    std::printf("%zu passed, %zu failed, %zu skipped\n", passed, failed, skipped);
  }
  return failed ? 1 : 0;
}

int run_main(int argc, char** argv) {
  CLI::App app{"gridops: spatial sampling and data-movement operators (GridSample, AffineGrid, "
               "Resample, Gather, Pad) for ONNX models"};
  app.require_subcommand(1);

  std::string model_path, out_dir, format = "npy";
  std::vector<std::string> inputs;
  int threads = 0;
  int64_t max_input_mb = onnx::kDefaultMaxFileBytes >> 20;
  CLI::App* run = app.add_subcommand("run", "Run an ONNX model and write its outputs");
  run->add_option("model", model_path, "the .onnx file")->required();
  run->add_option("--input,-i", inputs,
                  "NAME=FILE (.npy or TensorProto .pb); FILE alone for a one-input model; may also "
                  "override an input that has an initializer");
  run->add_option("--output-dir,-o", out_dir, "where to write <output name>.npy (or .pb)")->required();
  run->add_option("--format", format, "npy or pb")->check(CLI::IsMember({"npy", "pb"}));
  run->add_option("--threads", threads, "threads to use, 1 to " + std::to_string(kMaxThreads) + " (default: all cores)");
  run->add_option("--max-input-mb", max_input_mb, "refuse an input file larger than this many MiB (default 4096)");

  std::string info_model;
  bool info_json = false;
  CLI::App* info = app.add_subcommand(
      "info", "Describe an ONNX model: opsets, inputs, outputs, nodes, and whether gridops runs it "
              "(exit 0 if so, 3 for an unsupported op or attribute, 2 for an invalid model)");
  info->add_option("model", info_model, "the .onnx file")->required();
  info->add_flag("--json", info_json, "print one JSON object (docs/onnx.md)");

  CLI::App* isa = app.add_subcommand(
      "isa", "Show the CPU's SIMD level, the ISA cap (GRIDOPS_MAX_ISA) and the Highway targets "
             "compiled, usable and dispatched");

  std::vector<std::string> roots;
  CLI::App* conf = app.add_subcommand("conformance", "Run ONNX backend node tests found under each DIR");
  conf->add_option("dirs", roots, "directories to search (default: libonnx-testdata and ../shared/conformance)");
  bool conf_json = false;
  conf->add_flag("--json", conf_json, "print one JSON object at the end instead of a line per case (docs/onnx.md)");

  std::string demo_out = "gridops-demo.png";
  CLI::App* demo = app.add_subcommand("demo", "Draw every operator and mode on a built-in image as a PNG contact sheet");
  demo->add_option("--output,-o", demo_out, "the PNG file to write");

  app.set_version_flag("--version", std::string("gridops ") + GRIDOPS_VERSION_STRING,
                       "Print the version and exit");

  // The first word that is not an option is the subcommand (the command itself takes
  // flags only): one that is not a subcommand is named, where CLI11 would say that a
  // subcommand is required.
  for (int i = 1; i < argc; ++i) {
    const std::string word = argv[i];
    if (word.empty() || word[0] == '-') continue;
    std::string names;
    bool known = false;
    for (const CLI::App* sub : app.get_subcommands(std::function<bool(CLI::App*)>())) {
      names += (names.empty() ? "" : ", ") + sub->get_name();
      known = known || sub->get_name() == word;
    }
    if (!known) {
      std::fprintf(stderr, "gridops: unknown subcommand '%s' (the subcommands: %s; see gridops --help)\n",
                   printable(word).c_str(), names.c_str());
      return kExitInvalid;
    }
    break;
  }

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help prints and exits 0; every usage error exits 2 (CLI11's own codes are 100+).
    const int code = app.exit(e);
    return code == 0 ? 0 : kExitInvalid;
  }
  if (*run) {
    if (run->count("--threads") && (threads < 1 || threads > kMaxThreads)) {
      std::fprintf(stderr, "gridops: --threads must be between 1 and %d, got %d\n", kMaxThreads, threads);
      return kExitInvalid;
    }
    if (max_input_mb < 1 || max_input_mb > (int64_t{1} << 40)) {
      std::fprintf(stderr, "gridops: --max-input-mb must be between 1 and 2^40, got %lld\n", static_cast<long long>(max_input_mb));
      return kExitInvalid;
    }
    return cmd_run(model_path, inputs, out_dir, format, threads, max_input_mb);
  }
  const std::string exe_dir = fs::absolute(fs::path(argv[0])).parent_path().string();
  if (*info) return cmd_info(info_model, info_json);
  if (*isa) {
    std::printf("%s", gridops::isa_report().c_str());
    return 0;
  }
  if (*conf) return cmd_conformance(roots, exe_dir, conf_json);
  if (*demo) {
    // The sheet is drawn from built-in data: what fails is writing the file (or memory),
    // exit 4 either way.
    Status s = gridops::cli::write_demo_sheet(demo_out);
    if (!s.ok()) {
      fail(s);
      return kExitResource;
    }
    std::printf("wrote %s\n", printable(demo_out).c_str());
    return 0;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  // Nothing may end the command with an uncaught exception (std::terminate, exit 134).
  try {
    return run_main(argc, argv);
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "gridops: out of memory\n");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gridops: internal error: %s\n", printable(e.what()).c_str());
  }
  return kExitResource;
}
