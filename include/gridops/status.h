// Errors as values: every public entry point returns a Status or StatusOr<T>.
#pragma once

#include <cassert>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>

namespace gridops {

/// The few kinds of failure the library reports.
enum class StatusCode {
  kOk = 0,
  kInvalidArgument,  ///< the caller passed something the operator does not accept
  kUnimplemented,    ///< valid, but not supported by this build or implementation
  kOutOfMemory,      ///< an allocation failed
  kInternal,         ///< a bug in gridops
};

/// Returns "ok", "invalid argument", ...
const char* to_string(StatusCode code) noexcept;

/// The result of an operation that returns nothing: ok, or a code and a message.
class [[nodiscard]] Status {
 public:
  /// An ok status.
  Status() = default;
  /// A failure; `code` must not be kOk.
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}

  /// True when the operation succeeded.
  bool ok() const noexcept { return code_ == StatusCode::kOk; }
  /// The failure kind (kOk on success).
  StatusCode code() const noexcept { return code_; }
  /// The human-readable message (empty on success).
  const std::string& message() const noexcept { return message_; }
  /// "invalid argument: grid_sample: ..." or "ok".
  std::string to_string() const;

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

/// Either a value or a failed Status.
template <class T>
class [[nodiscard]] StatusOr {
 public:
  /// A value.
  StatusOr(T value) : value_(std::move(value)) {}  // NOLINT(google-explicit-constructor)
  /// A failure; `status` must not be ok.
  StatusOr(Status status) : status_(std::move(status)) {  // NOLINT(google-explicit-constructor)
    if (status_.ok()) status_ = Status(StatusCode::kInternal, "StatusOr built from an ok Status");
  }
  /// True when a value is held.
  bool ok() const noexcept { return status_.ok(); }
  /// The status (ok when a value is held).
  const Status& status() const noexcept { return status_; }
  /// The value; only valid when ok().
  T& value() & {
    assert(ok());
    return *value_;
  }
  /// The value; only valid when ok().
  const T& value() const& {
    assert(ok());
    return *value_;
  }
  /// Moves the value out; only valid when ok().
  T&& value() && {
    assert(ok());
    return std::move(*value_);
  }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

 private:
  Status status_;
  std::optional<T> value_;
};

namespace detail {
template <class... Args>
std::string cat(const Args&... args) {
  std::ostringstream os;
  (os << ... << args);
  return os.str();
}
}  // namespace detail

/// An invalid-argument status whose message is the concatenation of `args`.
template <class... Args>
Status invalid_argument(const Args&... args) {
  return Status(StatusCode::kInvalidArgument, detail::cat(args...));
}

/// An unimplemented status whose message is the concatenation of `args`.
template <class... Args>
Status unimplemented(const Args&... args) {
  return Status(StatusCode::kUnimplemented, detail::cat(args...));
}

/// An internal-error status whose message is the concatenation of `args`.
template <class... Args>
Status internal_error(const Args&... args) {
  return Status(StatusCode::kInternal, detail::cat(args...));
}

}  // namespace gridops

/// Returns from the enclosing function when `expr` (a Status) is not ok.
#define GRIDOPS_RETURN_IF_ERROR(expr)           \
  do {                                          \
    ::gridops::Status gridops_status_ = (expr); \
    if (!gridops_status_.ok()) return gridops_status_; \
  } while (0)

#define GRIDOPS_CONCAT_INNER_(a, b) a##b
#define GRIDOPS_CONCAT_(a, b) GRIDOPS_CONCAT_INNER_(a, b)
#define GRIDOPS_ASSIGN_OR_RETURN_IMPL_(tmp, lhs, expr) \
  auto tmp = (expr);                                   \
  if (!tmp.ok()) return tmp.status();                  \
  lhs = std::move(tmp).value()

/// `GRIDOPS_ASSIGN_OR_RETURN(auto x, f());` declares x from a StatusOr or returns its error.
#define GRIDOPS_ASSIGN_OR_RETURN(lhs, expr) \
  GRIDOPS_ASSIGN_OR_RETURN_IMPL_(GRIDOPS_CONCAT_(gridops_statusor_, __LINE__), lhs, expr)
