#include "gridops/onnx/conformance.h"

#include <algorithm>
#include <cmath>
#include <complex>
#include <filesystem>
#include <map>
#include <sstream>

#include "gridops/convert.h"
#include "gridops/onnx/model.h"
#include "gridops/onnx/tensor_proto.h"

namespace gridops::onnx {
namespace fs = std::filesystem;

std::vector<std::string> find_test_dirs(const std::string& root) {
  std::vector<std::string> out;
  std::error_code ec;
  // Every filesystem call takes an error_code: a broken entry (a symlink loop, an
  // unreadable directory) is passed over here and reported by run_conformance_case when
  // it is a case of its own.
  if (fs::exists(fs::path(root) / "model.onnx", ec)) out.push_back(root);
  try {
    for (fs::recursive_directory_iterator it(root, fs::directory_options::skip_permission_denied, ec), end;
         !ec && it != end; it.increment(ec)) {
      std::error_code e;
      if (it->is_directory(e) && fs::exists(it->path() / "model.onnx", e)) out.push_back(it->path().string());
    }
  } catch (const std::exception&) {
    // Only allocation can throw here; what was found so far is returned.
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

namespace {

// Compares one output; empty string when it matches.
std::string compare(const std::string& name, const Tensor& got, const Tensor& want) {
  std::ostringstream os;
  if (got.dtype() != want.dtype()) {
    os << "output '" << name << "': dtype " << to_string(got.dtype()) << ", expected " << to_string(want.dtype());
    return os.str();
  }
  if (got.shape() != want.shape()) {
    os << "output '" << name << "': shape " << dims_to_string(got.shape()) << ", expected "
       << dims_to_string(want.shape());
    return os.str();
  }
  const int64_t n = got.num_elements();
  constexpr double kRtol = 1e-3, kAtol = 1e-5;
  double worst = 0;
  int64_t worst_i = -1, bad = 0;
  std::string exact_mismatch;
  visit_dtype(got.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* g = got.data_as<T>();
    const T* w = want.data_as<T>();
    for (int64_t i = 0; i < n; ++i) {
      if constexpr (std::is_same_v<T, std::string> || std::is_same_v<T, bool> || std::is_integral_v<T>) {
        if (!(g[i] == w[i])) {
          if (bad++ == 0) {
            std::ostringstream e;
            if constexpr (std::is_same_v<T, std::string>) e << "'" << g[i] << "' vs expected '" << w[i] << "'";
            else e << static_cast<int64_t>(g[i]) << " vs expected " << static_cast<int64_t>(w[i]);
            exact_mismatch = e.str();
            worst_i = i;
          }
        }
      } else {
        auto parts = [](const T& v) {
          if constexpr (convert::is_complex_t<T>::value) {
            return std::pair<double, double>(v.real(), v.imag());
          } else {
            return std::pair<double, double>(convert::load_real<double>(v), 0.0);
          }
        };
        const auto [gr, gi] = parts(g[i]);
        const auto [wr, wi] = parts(w[i]);
        for (auto [a, b] : {std::pair<double, double>(gr, wr), std::pair<double, double>(gi, wi)}) {
          if (std::isnan(a) && std::isnan(b)) continue;
          if (std::isinf(b) && a == b) continue;
          const double diff = std::fabs(a - b);
          if (!(diff <= kAtol + kRtol * std::fabs(b))) {
            ++bad;
            if (!(diff <= worst)) {
              worst = diff;
              worst_i = i;
            }
          }
        }
      }
    }
  });
  if (bad == 0) return "";
  os << "output '" << name << "': " << bad << " of " << n << " elements differ";
  if (!exact_mismatch.empty()) os << " (first at " << worst_i << ": " << exact_mismatch << ")";
  else os << " (largest difference " << worst << " at element " << worst_i << ")";
  return os.str();
}

}  // namespace

namespace {

CaseResult run_case(const std::string& dir) {
  CaseResult r;
  r.path = dir;
  r.name = fs::path(dir).filename().string();
  auto model = Model::load((fs::path(dir) / "model.onnx").string());
  if (!model.ok()) {
    // A model that uses something gridops does not run (sequences, sparse initializers,
    // unknown element types) is skipped; a malformed one fails.
    if (model.status().code() == StatusCode::kUnimplemented) r.kind = CaseResult::Kind::kSkip;
    r.detail = model.status().message();
    return r;
  }
  Status supported = model->check_supported();
  if (supported.code() == StatusCode::kUnimplemented) {
    r.kind = CaseResult::Kind::kSkip;
    r.detail = supported.message();
    return r;
  }
  if (!supported.ok()) {
    r.detail = supported.message();
    return r;
  }
  std::vector<fs::path> sets;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->path().filename().string().rfind("test_data_set_", 0) != 0) continue;
    std::error_code e;
    const bool is_dir = it->is_directory(e);
    if (e) {
      r.detail = it->path().filename().string() + ": " + e.message();
      return r;
    }
    if (is_dir) sets.push_back(it->path());
  }
  if (ec) {
    r.detail = "cannot list the directory: " + ec.message();
    return r;
  }
  std::sort(sets.begin(), sets.end());
  if (sets.empty()) {
    r.detail = "no test_data_set_* directory";
    return r;
  }
  for (const auto& set : sets) {
    std::map<std::string, Tensor> inputs;
    const auto& ins = model->inputs();
    for (size_t i = 0; i < ins.size(); ++i) {
      const fs::path p = set / ("input_" + std::to_string(i) + ".pb");
      auto t = read_tensor_proto(p.string());
      if (!t.ok()) {
        r.detail = t.status().message();
        return r;
      }
      inputs[ins[i].name] = std::move(t).value();
    }
    auto outs = model->run(inputs);
    if (!outs.ok()) {
      if (outs.status().code() == StatusCode::kUnimplemented) {
        r.kind = CaseResult::Kind::kSkip;
      }
      r.detail = outs.status().message();
      return r;
    }
    const auto& os = model->outputs();
    for (size_t i = 0; i < os.size(); ++i) {
      const fs::path p = set / ("output_" + std::to_string(i) + ".pb");
      auto want = read_tensor_proto(p.string());
      if (!want.ok()) {
        r.detail = want.status().message();
        return r;
      }
      std::string diff = compare(os[i].name, outs->at(os[i].name), *want);
      if (!diff.empty()) {
        r.detail = set.filename().string() + ": " + diff;
        return r;
      }
    }
  }
  r.kind = CaseResult::Kind::kPass;
  return r;
}

}  // namespace

CaseResult run_conformance_case(const std::string& dir) {
  // Whatever goes wrong with one case (a filesystem error, memory) is that case's FAIL.
  try {
    return run_case(dir);
  } catch (const std::bad_alloc&) {
    CaseResult r;
    r.path = dir;
    r.name = fs::path(dir).filename().string();
    r.detail = "out of memory";
    return r;
  } catch (const std::exception& e) {
    CaseResult r;
    r.path = dir;
    r.name = fs::path(dir).filename().string();
    r.detail = e.what();
    return r;
  }
}

std::vector<std::string> default_conformance_roots(const std::string& exe_dir) {
  std::vector<std::string> roots;
  std::error_code ec;
  const fs::path debian = "/usr/share/libonnx-testdata/data/node";
  if (fs::is_directory(debian, ec)) roots.push_back(debian.string());
  std::vector<fs::path> candidates = {fs::current_path(ec) / ".." / "shared" / "conformance"};
  // The executable usually lives in <repo>/build/<config>/tools or <repo>/build/...
  for (fs::path p = fs::path(exe_dir); !p.empty() && p != p.root_path(); p = p.parent_path()) {
    candidates.push_back(p / ".." / "shared" / "conformance");
  }
  for (const auto& c : candidates) {
    if (fs::is_directory(c, ec)) {
      const std::string s = fs::weakly_canonical(c, ec).string();
      if (std::find(roots.begin(), roots.end(), s) == roots.end()) roots.push_back(s);
      break;
    }
  }
  return roots;
}

const char* to_string(CaseResult::Kind kind) noexcept {
  switch (kind) {
    case CaseResult::Kind::kPass: return "pass";
    case CaseResult::Kind::kFail: return "fail";
    case CaseResult::Kind::kSkip: return "skip";
  }
  return "fail";
}

}  // namespace gridops::onnx
