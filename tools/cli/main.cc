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

#include "demo.h"
#include "gridops/gridops.h"
#include "gridops/version.h"
#include "json.h"
#include "gridops/onnx/conformance.h"
#include "gridops/onnx/io.h"
#include "gridops/onnx/model.h"
#include "gridops/onnx/npy.h"
#include "gridops/onnx/tensor_proto.h"

namespace fs = std::filesystem;
using namespace gridops;

namespace {

// Exit statuses (docs/onnx.md): 0 ok, 1 a conformance case failed, 2 invalid model, input or
// usage, 3 unsupported by gridops, 4 out of memory or the outputs could not be written.
constexpr int kExitInvalid = 2, kExitUnsupported = 3, kExitResource = 4;

std::string printable(const std::string& text, bool keep_newlines = false);
// A message for the terminal: line breaks kept, every other control byte escaped.
std::string printable_message(const std::string& text) { return printable(text, true); }

// The exit status for an error of this code.
int exit_code(const Status& s) {
  switch (s.code()) {
    case StatusCode::kOk: return 0;
    case StatusCode::kUnimplemented: return kExitUnsupported;
    case StatusCode::kOutOfMemory:
    case StatusCode::kInternal: return kExitResource;
    default: return kExitInvalid;
  }
}

int fail(const Status& s) {
  std::fprintf(stderr, "gridops: %s\n", printable_message(s.message()).c_str());
  return exit_code(s);
}

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

// The file name of an output: the name with every byte outside printable ASCII, and '/',
// '\\' and '%', written as %XX (two upper-case hex digits); "" is "%", "." and ".." are
// "%2E" and "%2E%2E". The mapping is injective, so two outputs never share a file.
std::string output_file_stem(const std::string& name) {
  if (name.empty()) return "%";
  const bool dots = name == "." || name == "..";
  std::string s;
  for (unsigned char c : name) {
    if (c < 0x20 || c > 0x7E || c == '/' || c == '\\' || c == '%' || (dots && c == '.')) {
      static const char kHex[] = "0123456789ABCDEF";
      s += '%';
      s += kHex[c >> 4];
      s += kHex[c & 15];
    } else {
      s += static_cast<char>(c);
    }
  }
  return s;
}

// Temporary and backup files in the output directory are named
// ".gridops%tmp-<pid>-<n><ext>" and created exclusively (O_CREAT | O_EXCL | O_NOFOLLOW: an
// existing file or symbolic link of that name is never opened, followed or replaced; the
// next n is tried). output_file_stem writes '%' only as "%XX" with upper-case hex digits
// (or "%" alone for the empty name), never "%t", so no output's file name is ever one of
// these names.
int create_reserved(int dirfd, const std::string& ext, std::string* name) {
  static unsigned long next = 0;
  const std::string prefix = ".gridops%tmp-" + std::to_string(::getpid()) + "-";
  for (int tries = 0; tries < 10000; ++tries) {
    *name = prefix + std::to_string(next++) + ext;
    const int fd = ::openat(dirfd, name->c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (fd >= 0 || errno != EEXIST) return fd;
  }
  errno = EEXIST;
  return -1;
}

// Renames `from` to `to` (both in dirfd) unless `to` exists: RENAME_NOREPLACE, or where
// the file system lacks it, a plain rename after checking that `to` does not exist.
int rename_noreplace(int dirfd, const std::string& from, const std::string& to) {
#ifdef RENAME_NOREPLACE
  if (::renameat2(dirfd, from.c_str(), dirfd, to.c_str(), RENAME_NOREPLACE) == 0) return 0;
  if (errno != EINVAL && errno != ENOSYS && errno != ENOTSUP) return -1;
#endif
  struct stat st {};
  if (::fstatat(dirfd, to.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0) {
    errno = EEXIST;
    return -1;
  }
  if (errno != ENOENT) return -1;
  return ::renameat(dirfd, from.c_str(), dirfd, to.c_str());
}

std::string os_reason(int err) { return std::strerror(err); }

// Writes every output to a temporary file in out_dir, then moves them all into place, all
// or nothing:
// 1. every final path is checked first: a directory, symbolic link or other non-regular
//    file there (or a name the file system refuses) is an error before anything is written;
// 2. each output is written to its own temporary file, created exclusively;
// 3. for each output in turn, an existing regular file at its final path is moved to a
//    backup name (created exclusively), and the temporary file is renamed to the final
//    path (never over a file that appeared meanwhile);
// 4. if a step of 3 fails, what was done is undone (new outputs removed, backups renamed
//    back), and the message says so, or says what could not be undone; on success the
//    backups are removed.
// The output directory is opened once and every name is resolved in it (openat,
// renameat), so it cannot be swapped for another mid-way. If the command created out_dir,
// it removes it again on failure.
int write_outputs(const std::map<std::string, Tensor>& outs, const std::string& out_dir, const std::string& format) {
  std::error_code ec;
  const bool existed = fs::exists(out_dir, ec);
  fs::create_directories(out_dir, ec);
  if (ec) {
    std::fprintf(stderr, "gridops: cannot create output directory '%s': %s\n", printable(out_dir).c_str(),
                 ec.message().c_str());
    return kExitResource;
  }
  if (!fs::is_directory(out_dir, ec)) {
    std::fprintf(stderr, "gridops: output directory '%s' is not a directory\n", printable(out_dir).c_str());
    return kExitInvalid;
  }
  auto remove_dir_if_created = [&] {
    std::error_code e;
    if (!existed) fs::remove(out_dir, e);  // only if empty
  };
  struct DirFd {
    int fd;
    ~DirFd() {
      if (fd >= 0) ::close(fd);
    }
  } dir{::open(out_dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)};
  if (dir.fd < 0) {
    const std::string why = os_reason(errno);
    std::fprintf(stderr, "gridops: cannot open output directory '%s': %s\n", printable(out_dir).c_str(), why.c_str());
    remove_dir_if_created();
    return kExitResource;
  }
  const std::string ext = format == "pb" ? ".pb" : ".npy";
  auto at = [&](const std::string& file) { return printable((fs::path(out_dir) / file).string()); };

  struct Pending {
    const std::string* name;
    const Tensor* tensor;
    std::string final_name;  // in out_dir
    bool replaces = false;   // a regular file is at final_name
    std::string tmp;         // the temporary file while it exists
    std::string backup;      // the replaced file's backup name while it exists
    bool installed = false;  // the new output is at final_name
  };
  std::vector<Pending> pending;
  for (const auto& [name, t] : outs) pending.push_back({&name, &t, output_file_stem(name) + ext, false, "", "", false});
  const char* const kUnchanged = "no output was written; existing files are unchanged";
  auto not_written = [&](const Pending& p, const std::string& why, const char* what_happened) {
    std::fprintf(stderr, "gridops: cannot write output '%s' to '%s': %s (%s)\n", printable(*p.name).c_str(),
                 at(p.final_name).c_str(), why.c_str(), what_happened);
  };
  auto remove_temporaries = [&] {
    for (auto& p : pending) {
      if (!p.tmp.empty()) ::unlinkat(dir.fd, p.tmp.c_str(), 0);
      p.tmp.clear();
    }
  };

  // 1. Every final path before anything is written.
  for (auto& p : pending) {
    struct stat st {};
    if (::fstatat(dir.fd, p.final_name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0) {
      if (!S_ISREG(st.st_mode)) {
        not_written(p,
                    S_ISDIR(st.st_mode)   ? "it is a directory"
                    : S_ISLNK(st.st_mode) ? "it is a symbolic link, which is neither followed nor replaced"
                                          : "it is not a regular file",
                    kUnchanged);
        remove_dir_if_created();
        return kExitResource;
      }
      p.replaces = true;
    } else if (errno != ENOENT) {
      const std::string why = os_reason(errno);
      not_written(p, why, kUnchanged);
      remove_dir_if_created();
      return kExitResource;
    }
  }

  // 2. Every output to its own temporary file.
  for (auto& p : pending) {
    const int fd = create_reserved(dir.fd, ext, &p.tmp);
    if (fd < 0) {
      const int err = errno;
      p.tmp.clear();
      remove_temporaries();
      remove_dir_if_created();
      std::fprintf(stderr,
                   "gridops: output '%s' was not written (nothing was): cannot create a temporary file in '%s': %s\n",
                   printable(*p.name).c_str(), printable(out_dir).c_str(), os_reason(err).c_str());
      return kExitResource;
    }
    const std::string where = (fs::path(out_dir) / p.tmp).string();
    Status s = format == "pb" ? onnx::write_tensor_proto_to_fd(*p.tensor, *p.name, fd, where)
                              : onnx::write_npy_to_fd(*p.tensor, fd, where);
    if (::close(fd) != 0 && s.ok()) {
      const std::string why = os_reason(errno);
      s = invalid_argument("cannot write '", where, "': ", why);
    }
    if (!s.ok()) {
      remove_temporaries();
      remove_dir_if_created();
      std::fprintf(stderr, "gridops: output '%s' was not written (nothing was): %s\n", printable(*p.name).c_str(),
                   printable_message(s.message()).c_str());
      return s.code() == StatusCode::kInvalidArgument || s.code() == StatusCode::kOutOfMemory ? kExitResource : fail(s);
    }
  }

  // 4. Undoes step 3; returns what could not be undone ("" when everything was).
  auto roll_back = [&]() {
    std::string left;
    auto note = [&](const std::string& what) { left += (left.empty() ? "" : "; ") + what; };
    for (auto it = pending.rbegin(); it != pending.rend(); ++it) {
      Pending& q = *it;
      if (q.installed) {
        if (q.backup.empty()) {
          if (::unlinkat(dir.fd, q.final_name.c_str(), 0) == 0) {
            q.installed = false;
          } else {
            const int err = errno;
            note("the new '" + at(q.final_name) + "' could not be removed: " + os_reason(err));
          }
        } else if (::renameat(dir.fd, q.backup.c_str(), dir.fd, q.final_name.c_str()) == 0) {
          q.installed = false;
          q.backup.clear();
        } else {
          const int err = errno;
          note("'" + at(q.final_name) + "' holds the new output; its previous content is in '" + at(q.backup) +
               "': " + os_reason(err));
        }
      } else if (!q.backup.empty()) {
        if (rename_noreplace(dir.fd, q.backup, q.final_name) == 0) {
          q.backup.clear();
        } else {
          const int err = errno;
          note("the previous content of '" + at(q.final_name) + "' is in '" + at(q.backup) + "': " + os_reason(err));
        }
      }
    }
    remove_temporaries();
    return left;
  };
  auto abort_commit = [&](const Pending& p, const std::string& why) {
    const std::string left = roll_back();
    remove_dir_if_created();
    if (left.empty()) {
      not_written(p, why, kUnchanged);
    } else {
      not_written(p, why, ("the outputs were not all written and undoing the others was incomplete: " + left).c_str());
    }
    return kExitResource;
  };

  // 3. Move each existing file aside and the new output into place.
  for (auto& p : pending) {
    if (p.replaces) {
      const int fd = create_reserved(dir.fd, ext, &p.backup);
      if (fd < 0) {
        const int err = errno;
        p.backup.clear();
        return abort_commit(p, "cannot create a backup file for the existing one: " + os_reason(err));
      }
      ::close(fd);
      if (::renameat(dir.fd, p.final_name.c_str(), dir.fd, p.backup.c_str()) != 0) {
        const int err = errno;
        ::unlinkat(dir.fd, p.backup.c_str(), 0);
        p.backup.clear();
        return abort_commit(p, "cannot move the existing file aside: " + os_reason(err));
      }
    }
    if (rename_noreplace(dir.fd, p.tmp, p.final_name) != 0) {
      const int err = errno;
      return abort_commit(p, err == EEXIST ? std::string("a file appeared there while the outputs were written")
                                           : os_reason(err));
    }
    p.tmp.clear();
    p.installed = true;
  }
  for (const auto& p : pending) {
    if (!p.backup.empty() && ::unlinkat(dir.fd, p.backup.c_str(), 0) != 0) {
      const std::string why = os_reason(errno);
      std::fprintf(stderr, "gridops: warning: cannot remove '%s', the previous content of '%s': %s\n",
                   at(p.backup).c_str(), at(p.final_name).c_str(), why.c_str());
    }
  }
  for (const auto& p : pending) {
    std::printf("%s: %s%s -> %s\n", printable(*p.name).c_str(), to_string(p.tensor->dtype()),
                dims_to_string(p.tensor->shape()).c_str(), at(p.final_name).c_str());
  }
  return 0;
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

// The text with control characters (C0, DEL, C1) and invalid UTF-8 bytes written as \xNN
// (and '\' as "\\"), so that a model's names cannot move the cursor or reprogram the
// terminal; valid UTF-8 text is kept. keep_newlines: '\n' stays a line break (the text of a
// multi-line message; ESC, NUL, CR and the rest are still escaped, in the names it quotes
// too).
std::string printable(const std::string& text, bool keep_newlines) {
  std::string s;
  auto escape = [&](unsigned char c) {
    char buf[8];
    std::snprintf(buf, sizeof buf, "\\x%02X", c);
    s += buf;
  };
  const size_t n = text.size();
  for (size_t i = 0; i < n;) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c == '\\') {
      s += "\\\\";
      ++i;
    } else if (c == '\n' && keep_newlines) {
      s += '\n';
      ++i;
    } else if (c < 0x20 || c == 0x7F) {
      escape(c);
      ++i;
    } else if (c < 0x80) {
      s += static_cast<char>(c);
      ++i;
    } else {
      // A well-formed UTF-8 sequence (no overlongs, surrogates or C1 controls) is kept.
      const size_t len = c >= 0xF0 && c <= 0xF4 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 && c < 0xE0 ? 2 : 0;
      bool ok = len > 0 && i + len <= n && c < 0xF5;
      uint32_t cp = ok ? (c & (0x7F >> len)) : 0;
      for (size_t k = 1; ok && k < len; ++k) {
        const auto d = static_cast<unsigned char>(text[i + k]);
        ok = (d & 0xC0) == 0x80;
        cp = (cp << 6) | (d & 0x3F);
      }
      ok = ok && !(cp >= 0x80 && cp <= 0x9F) && !(cp >= 0xD800 && cp <= 0xDFFF) && cp <= 0x10FFFF &&
           !(len == 3 && cp < 0x800) && !(len == 4 && cp < 0x10000);
      if (ok) {
        s.append(text, i, len);
        i += len;
      } else {
        escape(c);
        ++i;
      }
    }
  }
  return s;
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
