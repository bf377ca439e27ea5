#include "support/problem_string.h"

#include <unistd.h>

#include <gtest/gtest.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "support/test_util.h"

namespace gridops::testing {

ProblemString& ProblemString::add(const std::string& key, const std::string& value) {
  fields_.emplace_back(key, value.empty() ? std::string("-") : value);
  return *this;
}

ProblemString& ProblemString::add(const std::string& key, int64_t value) {
  return add(key, std::to_string(value));
}

ProblemString& ProblemString::add(const std::string& key, uint64_t value) {
  return add(key, std::to_string(value));
}

ProblemString& ProblemString::add(const std::string& key, double value) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", value);
  return add(key, std::string(buf));
}

ProblemString& ProblemString::add(const std::string& key, const Dims& value) {
  std::string s;
  for (size_t i = 0; i < value.size(); ++i) {
    if (i > 0) s += "x";
    s += std::to_string(value[i]);
  }
  return add(key, s);
}

ProblemString& ProblemString::add(const std::string& key, const std::vector<double>& value) {
  std::string s;
  for (size_t i = 0; i < value.size(); ++i) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.17g", value[i]);
    if (i > 0) s += ",";
    s += buf;
  }
  return add(key, s);
}

ProblemString& ProblemString::add_flags(const std::string& key,
                                        std::initializer_list<std::pair<char, bool>> flags) {
  std::string s;
  for (const auto& [letter, on] : flags) {
    if (on) s += letter;
  }
  return add(key, s);
}

ProblemString& ProblemString::add(const std::string& key, DType value) {
  return add(key, std::string(to_string(value)));
}

std::string ProblemString::str() const {
  std::string s = op_;
  for (const auto& [k, v] : fields_) s += " " + k + "=" + v;
  return s;
}

std::optional<ProblemString> ProblemString::parse(const std::string& line, std::string* error) {
  std::istringstream in(line);
  std::string op, tok;
  if (!(in >> op) || op.find('=') != std::string::npos) {
    *error = "a problem line starts with the operator's name, got '" + line + "'";
    return std::nullopt;
  }
  ProblemString p(op);
  while (in >> tok) {
    const size_t eq = tok.find('=');
    if (eq == std::string::npos || eq == 0) {
      *error = "expected key=value, got '" + tok + "'";
      return std::nullopt;
    }
    p.fields_.emplace_back(tok.substr(0, eq), tok.substr(eq + 1));
  }
  return p;
}

bool ProblemString::has(const std::string& key) const {
  for (const auto& f : fields_) {
    if (f.first == key) return true;
  }
  return false;
}

std::string ProblemString::get(const std::string& key, const std::string& fallback) const {
  for (const auto& f : fields_) {
    if (f.first == key) return f.second == "-" ? std::string() : f.second;
  }
  ADD_FAILURE() << "problem '" << str() << "' has no key " << key;
  return fallback;
}

int64_t ProblemString::get_int(const std::string& key, int64_t fallback) const {
  const std::string v = get(key);
  char* end = nullptr;
  errno = 0;
  const long long x = std::strtoll(v.c_str(), &end, 10);
  if (v.empty() || *end != '\0' || errno != 0) {
    ADD_FAILURE() << "problem key " << key << ": expected an integer, got '" << v << "'";
    return fallback;
  }
  return x;
}

uint64_t ProblemString::get_uint(const std::string& key, uint64_t fallback) const {
  const std::string v = get(key);
  char* end = nullptr;
  errno = 0;
  const unsigned long long x = std::strtoull(v.c_str(), &end, 10);
  if (v.empty() || *end != '\0' || errno != 0) {
    ADD_FAILURE() << "problem key " << key << ": expected an unsigned integer, got '" << v << "'";
    return fallback;
  }
  return x;
}

double ProblemString::get_double(const std::string& key, double fallback) const {
  const std::string v = get(key);
  char* end = nullptr;
  const double x = std::strtod(v.c_str(), &end);
  if (v.empty() || *end != '\0') {
    ADD_FAILURE() << "problem key " << key << ": expected a number, got '" << v << "'";
    return fallback;
  }
  return x;
}

Dims ProblemString::get_dims(const std::string& key) const {
  const std::string v = get(key);
  Dims d;
  size_t at = 0;
  while (at < v.size()) {
    size_t x = v.find('x', at);
    if (x == std::string::npos) x = v.size();
    const std::string part = v.substr(at, x - at);
    char* end = nullptr;
    const long long n = std::strtoll(part.c_str(), &end, 10);
    if (part.empty() || *end != '\0') {
      ADD_FAILURE() << "problem key " << key << ": expected a shape like 2x3x4, got '" << v << "'";
      return {};
    }
    d.push_back(n);
    at = x + 1;
  }
  return d;
}

std::vector<double> ProblemString::get_doubles(const std::string& key) const {
  const std::string v = get(key);
  std::vector<double> out;
  size_t at = 0;
  while (at < v.size()) {
    size_t c = v.find(',', at);
    if (c == std::string::npos) c = v.size();
    const std::string part = v.substr(at, c - at);
    char* end = nullptr;
    const double x = std::strtod(part.c_str(), &end);
    if (part.empty() || *end != '\0') {
      ADD_FAILURE() << "problem key " << key << ": expected numbers like 0.5,2, got '" << v << "'";
      return {};
    }
    out.push_back(x);
    at = c + 1;
  }
  return out;
}

bool ProblemString::has_flag(const std::string& key, char c) const {
  return get(key).find(c) != std::string::npos;
}

DType ProblemString::get_dtype(const std::string& key, DType fallback) const {
  const std::string v = get(key);
  const std::optional<DType> d = parse_dtype(v);
  if (!d) {
    ADD_FAILURE() << "problem key " << key << ": expected a dtype, got '" << v << "'";
    return fallback;
  }
  return *d;
}

void ProblemString::fail_value(const std::string& key, const std::string& value,
                               const std::string& why) {
  ADD_FAILURE() << "problem key " << key << ": '" << value << "': " << why;
}

std::optional<ProblemString> rerun_request(const std::string& op) {
  const char* env = std::getenv("GRIDOPS_RERUN");
  if (env == nullptr || *env == '\0') return std::nullopt;
  std::string error;
  std::optional<ProblemString> p = ProblemString::parse(env, &error);
  if (!p) {
    ADD_FAILURE() << "GRIDOPS_RERUN: " << error;
    return std::nullopt;
  }
  if (p->op() != op) return std::nullopt;
  return p;
}

std::string hwy_target_label(int64_t target) {
  return target == 0 ? std::string("best") : hwy_target_name(target);
}

int64_t hwy_target_from_label(const std::string& label) {
  if (label == "best") return 0;
  for (int64_t t : hwy_targets_all()) {
    if (hwy_target_name(t) == label) return t;
  }
  ADD_FAILURE() << "this CPU has no Highway target " << label;
  return 0;
}

std::string rerun_hint(const ProblemString& p) {
  const ::testing::TestInfo* info = ::testing::UnitTest::GetInstance()->current_test_info();
  const std::string suite = info != nullptr ? info->test_suite_name() : "*";
  char exe[4096];
  const ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  const std::string binary = n > 0 ? std::string(exe, static_cast<size_t>(n)) : "<the test binary>";
  return "problem: " + p.str() + "\nrerun it alone: GRIDOPS_RERUN='" + p.str() + "' " + binary +
         " --gtest_filter='" + suite + ".Rerun*'";
}

}  // namespace gridops::testing
