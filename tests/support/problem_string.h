// One test problem as one canonical line, printed when a check fails and read back to run
// exactly that problem again (oneDNN's benchdnn prints its problems the same way):
//
//   <op> key=value key=value ...
//
// Values have no spaces (shapes are written 2x3x9, an empty shape as -). The keys and
// their order are the operator tester's (tests/kernels/*_tester.h); a tester's `str()`
// writes every key, so the line alone fixes the problem, its data (a data seed) and the
// entry it runs. To rerun one:
//
//   GRIDOPS_RERUN='<the line>' build/release/tests/<binary> --gtest_filter='*.Rerun'
//
// The operator's Rerun test (in its diff test) then checks that problem only.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gridops/dtype.h"
#include "gridops/tensor.h"

namespace gridops::testing {

class ProblemString {
 public:
  explicit ProblemString(std::string op) : op_(std::move(op)) {}

  ProblemString& add(const std::string& key, const std::string& value);
  ProblemString& add(const std::string& key, const char* value) {
    return add(key, std::string(value));
  }
  ProblemString& add(const std::string& key, int64_t value);
  ProblemString& add(const std::string& key, int value) {
    return add(key, static_cast<int64_t>(value));
  }
  ProblemString& add(const std::string& key, uint64_t value);
  ProblemString& add(const std::string& key, bool value) { return add(key, value ? 1 : 0); }
  /// Written with 17 significant digits: read back, the same double.
  ProblemString& add(const std::string& key, double value);
  ProblemString& add(const std::string& key, const Dims& value);
  ProblemString& add(const std::string& key, DType value);
  /// Comma-separated, each with 17 significant digits.
  ProblemString& add(const std::string& key, const std::vector<double>& value);
  /// One-letter flags as one value, in the order given ("sng"; "-" for none).
  ProblemString& add_flags(const std::string& key,
                           std::initializer_list<std::pair<char, bool>> flags);

  const std::string& op() const { return op_; }
  std::string str() const;

  /// The line's fields; nullopt (and *error) when it is not "<op> key=value ...".
  static std::optional<ProblemString> parse(const std::string& line, std::string* error);

  bool has(const std::string& key) const;
  /// A key's value; a missing key or a malformed value is a test failure (then the
  /// fallback is returned).
  std::string get(const std::string& key, const std::string& fallback = {}) const;
  int64_t get_int(const std::string& key, int64_t fallback = 0) const;
  uint64_t get_uint(const std::string& key, uint64_t fallback = 0) const;
  double get_double(const std::string& key, double fallback = 0.0) const;
  Dims get_dims(const std::string& key) const;
  DType get_dtype(const std::string& key, DType fallback = DType::kFloat32) const;
  std::vector<double> get_doubles(const std::string& key) const;
  /// Whether the flags value of key (add_flags) holds the letter c.
  bool has_flag(const std::string& key, char c) const;
  /// A key's value read by an operator's parse function (parse_grid_padding, ...), which
  /// returns a StatusOr<T>.
  template <class T, class Parse>
  T get_enum(const std::string& key, Parse parse, T fallback) const {
    const std::string v = get(key);
    auto r = parse(v);
    if (!r.ok()) {
      fail_value(key, v, r.status().to_string());
      return fallback;
    }
    return r.value();
  }

 private:
  static void fail_value(const std::string& key, const std::string& value,
                         const std::string& why);

  std::string op_;
  std::vector<std::pair<std::string, std::string>> fields_;
};

/// The problem of GRIDOPS_RERUN when its line is for `op`, else nullopt. A line that does
/// not parse is a test failure.
std::optional<ProblemString> rerun_request(const std::string& op);

/// A Highway target in a problem line: "best" for 0 (the CPU's best), else its name.
std::string hwy_target_label(int64_t target);
/// The target a label names (0 for "best"); a target this CPU lacks is a test failure.
int64_t hwy_target_from_label(const std::string& label);

/// What a failing check prints: the line and the command that reruns it.
std::string rerun_hint(const ProblemString& p);

/// What a <Suite>.Rerun test runs: the tester of GRIDOPS_RERUN's line for `op` (from_env
/// true), else of `fixed`, which must read back to itself (checked here, so that the rerun
/// path is tested without GRIDOPS_RERUN). Tester has `static Tester from(const
/// ProblemString&, std::string* impl)` and `ProblemString line(const std::string& impl)`.
template <class Tester>
struct Rerun {
  Tester tester;
  std::string impl;
  bool from_env = false;
};

template <class Tester>
std::optional<Rerun<Tester>> rerun_problem(const std::string& op, const std::string& fixed) {
  std::optional<ProblemString> line = rerun_request(op);
  const bool from_env = line.has_value();
  if (!from_env) {
    std::string error;
    line = ProblemString::parse(fixed, &error);
    if (!line) {
      ADD_FAILURE() << "the fixed line: " << error;
      return std::nullopt;
    }
  }
  std::string impl;
  Tester t = Tester::from(*line, &impl);
  if (!from_env) {
    EXPECT_EQ(t.line(impl).str(), fixed) << "the fixed line does not read back";
  }
  return Rerun<Tester>{std::move(t), std::move(impl), from_env};
}

}  // namespace gridops::testing
