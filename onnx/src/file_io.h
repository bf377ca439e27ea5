// Internal: whole-file reads and writes with errors that name the path and the OS reason.
#pragma once

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>

#include "gridops/onnx/io.h"
#include "gridops/status.h"

namespace gridops::onnx::detail {

inline Status os_error(const char* doing, const std::string& path, int err) {
  return invalid_argument("cannot ", doing, " '", path, "': ", std::strerror(err));
}

/// Reads a whole regular file, FIFO or device, refusing more than `max_bytes` bytes (a
/// regular file's size is checked before anything is read; a stream is read up to the
/// bound). A directory or an unreadable path is an error naming the path and the reason.
inline StatusOr<std::string> read_file(const std::string& path, int64_t max_bytes) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return os_error("open", path, errno);
  struct Closer {
    std::FILE* f;
    ~Closer() { std::fclose(f); }
  } closer{f};
  struct stat st {};
  if (fstat(fileno(f), &st) != 0) return os_error("stat", path, errno);
  if (S_ISDIR(st.st_mode)) return os_error("read", path, EISDIR);
  std::string out;
  try {
    if (S_ISREG(st.st_mode)) {
      if (st.st_size > max_bytes) {
        return invalid_argument("cannot read '", path, "': its size ", static_cast<int64_t>(st.st_size),
                                " bytes exceeds the limit of ", max_bytes, " bytes");
      }
      out.reserve(static_cast<size_t>(st.st_size));
    }
    char buf[1 << 16];
    for (;;) {
      const size_t n = std::fread(buf, 1, sizeof buf, f);
      if (n > 0) {
        if (static_cast<int64_t>(out.size() + n) > max_bytes) {
          return invalid_argument("cannot read '", path, "': more than the limit of ", max_bytes,
                                  " bytes (a stream or device is read up to the limit)");
        }
        out.append(buf, n);
      }
      if (n < sizeof buf) {
        if (std::ferror(f)) return os_error("read", path, errno);
        break;
      }
    }
  } catch (const std::bad_alloc&) {
    return Status(StatusCode::kOutOfMemory, "cannot read '" + path + "': out of memory");
  }
  return out;
}

/// Writes `parts` one after another to `path` (created or truncated) and closes it; an
/// error (a full disk, a name too long) names the path and the OS reason. A failed write
/// leaves a partial file that the caller removes.
inline Status write_file_parts(const std::string& path, std::initializer_list<std::string_view> parts) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) return os_error("open", path, errno);
  for (std::string_view p : parts) {
    if (!p.empty() && std::fwrite(p.data(), 1, p.size(), f) != p.size()) {
      const int err = errno;
      std::fclose(f);
      return os_error("write", path, err);
    }
  }
  if (std::fflush(f) != 0) {
    const int err = errno;
    std::fclose(f);
    return os_error("write", path, err);
  }
  if (std::fclose(f) != 0) return os_error("write", path, errno);
  return Status();
}

inline Status write_file(const std::string& path, std::string_view bytes) {
  return write_file_parts(path, {bytes});
}

/// Writes `parts` one after another to the open descriptor `fd` (left open; short writes
/// are continued, EINTR retried); an error names `what` (the file's path) and the OS reason.
inline Status write_fd_parts(int fd, const std::string& what, std::initializer_list<std::string_view> parts) {
  for (std::string_view p : parts) {
    const char* d = p.data();
    size_t left = p.size();
    while (left > 0) {
      const ssize_t n = ::write(fd, d, left < (size_t{1} << 30) ? left : (size_t{1} << 30));
      if (n < 0) {
        if (errno == EINTR) continue;
        return os_error("write", what, errno);
      }
      d += n;
      left -= static_cast<size_t>(n);
    }
  }
  return Status();
}

}  // namespace gridops::onnx::detail
