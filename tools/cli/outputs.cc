// `gridops run`'s output files (outputs.h): file names from output names, exclusive
// temporary and backup files, and the all-or-nothing move into place.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "gridops/gridops.h"
#include "gridops/onnx/npy.h"
#include "gridops/onnx/tensor_proto.h"

#include "common.h"
#include "outputs.h"

namespace fs = std::filesystem;

namespace gridops::cli {
namespace {

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


}  // namespace

namespace {

// One run of write_outputs (below), its steps as methods over the pending outputs.
class OutputWrite {
 public:
  OutputWrite(const std::map<std::string, Tensor>& outs, const std::string& out_dir, const std::string& format,
              bool existed, int dirfd)
      : out_dir_(out_dir), format_(format), ext_(format == "pb" ? ".pb" : ".npy"), existed_(existed), dirfd_(dirfd) {
    for (const auto& [name, t] : outs) pending_.push_back({&name, &t, output_file_stem(name) + ext_, false, "", "", false});
  }

  // 1. Every final path before anything is written.
  int check_paths() {
    for (auto& p : pending_) {
      struct stat st {};
      if (::fstatat(dirfd_, p.final_name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0) {
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
    return 0;
  }

  // 2. Every output to its own temporary file.
  int write_temporaries() {
    for (auto& p : pending_) {
      const int fd = create_reserved(dirfd_, ext_, &p.tmp);
      if (fd < 0) {
        const int err = errno;
        p.tmp.clear();
        remove_temporaries();
        remove_dir_if_created();
        std::fprintf(stderr,
                     "gridops: output '%s' was not written (nothing was): cannot create a temporary file in '%s': %s\n",
                     printable(*p.name).c_str(), printable(out_dir_).c_str(), os_reason(err).c_str());
        return kExitResource;
      }
      const std::string where = (fs::path(out_dir_) / p.tmp).string();
      Status s = format_ == "pb" ? onnx::write_tensor_proto_to_fd(*p.tensor, *p.name, fd, where)
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
        return s.code() == StatusCode::kInvalidArgument || s.code() == StatusCode::kOutOfMemory ? kExitResource
                                                                                                : fail(s);
      }
    }
    return 0;
  }

  // 3. Move each existing file aside and the new output into place; then the backups go
  // and a line per output is printed.
  int commit() {
    for (auto& p : pending_) {
      if (p.replaces) {
        const int fd = create_reserved(dirfd_, ext_, &p.backup);
        if (fd < 0) {
          const int err = errno;
          p.backup.clear();
          return abort_commit(p, "cannot create a backup file for the existing one: " + os_reason(err));
        }
        ::close(fd);
        if (::renameat(dirfd_, p.final_name.c_str(), dirfd_, p.backup.c_str()) != 0) {
          const int err = errno;
          ::unlinkat(dirfd_, p.backup.c_str(), 0);
          p.backup.clear();
          return abort_commit(p, "cannot move the existing file aside: " + os_reason(err));
        }
      }
      if (rename_noreplace(dirfd_, p.tmp, p.final_name) != 0) {
        const int err = errno;
        return abort_commit(p, err == EEXIST ? std::string("a file appeared there while the outputs were written")
                                             : os_reason(err));
      }
      p.tmp.clear();
      p.installed = true;
    }
    for (const auto& p : pending_) {
      if (!p.backup.empty() && ::unlinkat(dirfd_, p.backup.c_str(), 0) != 0) {
        const std::string why = os_reason(errno);
        std::fprintf(stderr, "gridops: warning: cannot remove '%s', the previous content of '%s': %s\n",
                     at(p.backup).c_str(), at(p.final_name).c_str(), why.c_str());
      }
    }
    for (const auto& p : pending_) {
      std::printf("%s: %s%s -> %s\n", printable(*p.name).c_str(), to_string(p.tensor->dtype()),
                  dims_to_string(p.tensor->shape()).c_str(), at(p.final_name).c_str());
    }
    return 0;
  }

 private:
  struct Pending {
    const std::string* name;
    const Tensor* tensor;
    std::string final_name;  // in out_dir
    bool replaces = false;   // a regular file is at final_name
    std::string tmp;         // the temporary file while it exists
    std::string backup;      // the replaced file's backup name while it exists
    bool installed = false;  // the new output is at final_name
  };
  static constexpr const char* kUnchanged = "no output was written; existing files are unchanged";

  void remove_dir_if_created() const {
    std::error_code e;
    if (!existed_) fs::remove(out_dir_, e);  // only if empty
  }

  std::string at(const std::string& file) const { return printable((fs::path(out_dir_) / file).string()); }

  void not_written(const Pending& p, const std::string& why, const char* what_happened) const {
    std::fprintf(stderr, "gridops: cannot write output '%s' to '%s': %s (%s)\n", printable(*p.name).c_str(),
                 at(p.final_name).c_str(), why.c_str(), what_happened);
  }

  void remove_temporaries() {
    for (auto& p : pending_) {
      if (!p.tmp.empty()) ::unlinkat(dirfd_, p.tmp.c_str(), 0);
      p.tmp.clear();
    }
  }

  // 4. Undoes step 3; returns what could not be undone ("" when everything was).
  std::string roll_back() {
    std::string left;
    auto note = [&](const std::string& what) { left += (left.empty() ? "" : "; ") + what; };
    for (auto it = pending_.rbegin(); it != pending_.rend(); ++it) {
      Pending& q = *it;
      if (q.installed) {
        if (q.backup.empty()) {
          if (::unlinkat(dirfd_, q.final_name.c_str(), 0) == 0) {
            q.installed = false;
          } else {
            const int err = errno;
            note("the new '" + at(q.final_name) + "' could not be removed: " + os_reason(err));
          }
        } else if (::renameat(dirfd_, q.backup.c_str(), dirfd_, q.final_name.c_str()) == 0) {
          q.installed = false;
          q.backup.clear();
        } else {
          const int err = errno;
          note("'" + at(q.final_name) + "' holds the new output; its previous content is in '" + at(q.backup) +
               "': " + os_reason(err));
        }
      } else if (!q.backup.empty()) {
        if (rename_noreplace(dirfd_, q.backup, q.final_name) == 0) {
          q.backup.clear();
        } else {
          const int err = errno;
          note("the previous content of '" + at(q.final_name) + "' is in '" + at(q.backup) + "': " + os_reason(err));
        }
      }
    }
    remove_temporaries();
    return left;
  }

  int abort_commit(const Pending& p, const std::string& why) {
    const std::string left = roll_back();
    remove_dir_if_created();
    if (left.empty()) {
      not_written(p, why, kUnchanged);
    } else {
      not_written(p, why, ("the outputs were not all written and undoing the others was incomplete: " + left).c_str());
    }
    return kExitResource;
  }

  const std::string& out_dir_;
  const std::string& format_;
  const std::string ext_;
  const bool existed_;
  const int dirfd_;
  std::vector<Pending> pending_;
};

}  // namespace

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
  struct DirFd {
    int fd;
    ~DirFd() {
      if (fd >= 0) ::close(fd);
    }
  } dir{::open(out_dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)};
  if (dir.fd < 0) {
    const std::string why = os_reason(errno);
    std::fprintf(stderr, "gridops: cannot open output directory '%s': %s\n", printable(out_dir).c_str(), why.c_str());
    std::error_code e;
    if (!existed) fs::remove(out_dir, e);  // only if empty
    return kExitResource;
  }
  OutputWrite w(outs, out_dir, format, existed, dir.fd);
  if (const int rc = w.check_paths(); rc != 0) return rc;
  if (const int rc = w.write_temporaries(); rc != 0) return rc;
  return w.commit();
}

}  // namespace gridops::cli
