#include "support/test_util.h"

#include <algorithm>
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <cstring>
#include <sstream>
#include <string>

#include "core/convert.h"
#include "gridops/isa.h"

#ifdef GRIDOPS_HAVE_HWY
#include <hwy/targets.h>
#endif

namespace gridops::testing {

namespace {

uint64_t draw_seed() {
  if (const char* s = std::getenv("GRIDOPS_SEED")) return std::strtoull(s, nullptr, 10);
  std::random_device rd;
  return (static_cast<uint64_t>(rd()) << 32 | rd()) % 1000000000000ull;
}

// Prints the seed at the start and after each failed assertion of any test.
class SeedPrinter : public ::testing::EmptyTestEventListener {
 public:
  void OnTestProgramStart(const ::testing::UnitTest&) override {
    std::printf("Random seed: GRIDOPS_SEED=%llu\n", static_cast<unsigned long long>(test_seed()));
  }
  void OnTestPartResult(const ::testing::TestPartResult& r) override {
    if (r.failed()) {
      std::printf("(this run's random seed: rerun with GRIDOPS_SEED=%llu to reproduce)\n",
                  static_cast<unsigned long long>(test_seed()));
    }
  }
};

// Registered when this file is linked, i.e. by every test that calls test_seed().
[[maybe_unused]] const bool g_seed_printer_registered = [] {
  ::testing::UnitTest::GetInstance()->listeners().Append(new SeedPrinter);
  return true;
}();

}  // namespace

std::vector<int64_t> hwy_targets_all() {
#ifdef GRIDOPS_HAVE_HWY
  (void)max_isa();  // GRIDOPS_MAX_ISA in force (it removes the targets above the cap)
  std::vector<int64_t> targets = hwy::SupportedAndGeneratedTargets();
  // SupportedTargets() leaves the dispatch tables on every target of the CPU, the capped
  // ones included (core/isa.h, usable_hwy_targets): point them back.
  hwy::GetChosenTarget().Update(hwy::SupportedTargets());
  return targets;
#else
  return {};
#endif
}

std::vector<int64_t> hwy_targets() {
  std::vector<int64_t> targets = hwy_targets_all();
  const char* skip = std::getenv("GRIDOPS_TEST_SKIP_TARGETS");
  if (skip == nullptr || *skip == '\0') return targets;
  std::vector<std::string> names;
  std::istringstream list(skip);
  for (std::string name; std::getline(list, name, ',');) {
    if (!name.empty()) names.push_back(name);
  }
  std::vector<int64_t> kept;
  std::string left_out;
  for (int64_t t : targets) {
    if (std::find(names.begin(), names.end(), hwy_target_name(t)) != names.end()) {
      left_out += (left_out.empty() ? "" : ", ") + hwy_target_name(t);
    } else {
      kept.push_back(t);
    }
  }
  static bool said = false;
  if (!said) {
    said = true;
    std::printf("per-target loops leave out %s (GRIDOPS_TEST_SKIP_TARGETS=%s)\n",
                left_out.empty() ? "nothing" : left_out.c_str(), skip);
  }
  return kept;
}

std::string hwy_target_name(int64_t target) {
#ifdef GRIDOPS_HAVE_HWY
  return hwy::TargetName(target);
#else
  return "none (" + std::to_string(target) + ")";
#endif
}

ScopedHwyTarget::ScopedHwyTarget([[maybe_unused]] int64_t target) {
#ifdef GRIDOPS_HAVE_HWY
  hwy::SetSupportedTargetsForTest(target);
#endif
}

ScopedHwyTarget::~ScopedHwyTarget() {
#ifdef GRIDOPS_HAVE_HWY
  hwy::SetSupportedTargetsForTest(0);
#endif
}

uint64_t test_seed() {
  static const uint64_t seed = draw_seed();
  return seed;
}

TensorView scrambled_copy(const Tensor& t, Tensor& storage, bool negative) {
  const int r = t.rank();
  // Physical layout: axes in reverse order (column-major), optionally walked backwards.
  Dims phys_shape(t.shape().rbegin(), t.shape().rend());
  storage = Tensor(t.dtype(), phys_shape);
  Dims phys_strides = contiguous_strides(phys_shape);
  Dims strides(r);
  for (int i = 0; i < r; ++i) strides[i] = phys_strides[r - 1 - i];
  const size_t es = dtype_size(t.dtype());
  char* base = static_cast<char*>(storage.data());
  int64_t start = 0;
  if (negative) {
    for (int i = 0; i < r; ++i) {
      if (t.shape()[i] > 0) start += (t.shape()[i] - 1) * strides[i];
      strides[i] = -strides[i];
    }
  }
  TensorView v(t.dtype(), base + start * static_cast<int64_t>(es), t.shape(), strides);
  const int64_t n = t.num_elements();
  Dims idx(r, 0);
  for (int64_t f = 0; f < n; ++f) {
    char* dst = static_cast<char*>(const_cast<void*>(v.element_ptr(idx)));
    const char* src = static_cast<const char*>(t.data()) + f * static_cast<int64_t>(es);
    if (t.dtype() == DType::kString) {
      *reinterpret_cast<std::string*>(dst) = *reinterpret_cast<const std::string*>(src);
    } else {
      std::memcpy(dst, src, es);
    }
    for (int i = r - 1; i >= 0; --i) {
      if (++idx[i] < t.shape()[i]) break;
      idx[i] = 0;
    }
  }
  return v;
}

void fill_random(Tensor& t, std::mt19937_64& rng, double lo, double hi) {
  std::uniform_real_distribution<double> u(lo, hi);
  const int64_t n = t.num_elements();
  visit_dtype(t.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* p = t.data_as<T>();
    for (int64_t i = 0; i < n; ++i) {
      if constexpr (std::is_same_v<T, std::string>) {
        p[i] = "s" + std::to_string(rng() % 1000);
      } else if constexpr (std::is_same_v<T, bool>) {
        p[i] = (rng() & 1) != 0;
      } else if constexpr (convert::is_complex_t<T>::value) {
        using P = typename T::value_type;
        p[i] = T(static_cast<P>(u(rng)), static_cast<P>(u(rng)));
      } else if constexpr (std::is_integral_v<T>) {
        p[i] = convert::store_real<T>(std::floor(u(rng)));
      } else {
        p[i] = convert::store_real<T>(u(rng));
      }
    }
  });
}

void fill_random_bytes(Tensor& t, std::mt19937_64& rng) {
  auto* p = static_cast<unsigned char*>(t.data());
  for (size_t i = 0; i < t.nbytes(); ++i) {
    p[i] = static_cast<unsigned char>(t.dtype() == DType::kBool ? rng() & 1 : rng());
  }
}

int64_t product(const Dims& dims) {
  int64_t p = 1;
  for (int64_t v : dims) p *= v;
  return p;
}

Dims unravel(int64_t f, const Dims& dims) {
  Dims idx(dims.size());
  for (size_t i = dims.size(); i-- > 0;) {
    idx[i] = f % dims[i];
    f /= dims[i];
  }
  return idx;
}

double element_as_double(const Tensor& t, int64_t i) {
  return visit_dtype(t.dtype(), [&](auto tag) -> double {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, std::string>) {
      return 0.0;
    } else if constexpr (convert::is_complex_t<T>::value) {
      return static_cast<double>(t.data_as<T>()[i].real());
    } else {
      return convert::load_real<double>(t.data_as<T>()[i]);
    }
  });
}

bool bitwise_equal(const Tensor& a, const Tensor& b, int64_t* where) {
  if (a.dtype() != b.dtype() || a.shape() != b.shape()) {
    if (where) *where = -1;
    return false;
  }
  const int64_t n = a.num_elements();
  const size_t es = dtype_size(a.dtype());
  for (int64_t i = 0; i < n; ++i) {
    bool same;
    if (a.dtype() == DType::kString) {
      same = a.data_as<std::string>()[i] == b.data_as<std::string>()[i];
    } else {
      same = std::memcmp(static_cast<const char*>(a.data()) + i * static_cast<int64_t>(es),
                         static_cast<const char*>(b.data()) + i * static_cast<int64_t>(es), es) == 0;
    }
    if (!same) {
      if (where) *where = i;
      return false;
    }
  }
  return true;
}

namespace {
/// Calls f(offset in the box's contiguous layout, offset in t's) for every element of the
/// box [start, start + shape) of the contiguous tensor t, in row-major order.
template <class F>
void for_each_in_box(const Tensor& t, const Dims& start, const Dims& shape, F&& f) {
  const Dims ts = contiguous_strides(t.shape());
  Dims idx(shape.size(), 0);
  for (int64_t q = 0, n = product(shape); q < n; ++q) {
    int64_t off = 0;
    for (size_t d = 0; d < idx.size(); ++d) off += (start[d] + idx[d]) * ts[d];
    f(q, off);
    for (size_t d = idx.size(); d-- > 0;) {
      if (++idx[d] < shape[d]) break;
      idx[d] = 0;
    }
  }
}
}  // namespace

Tensor copy_box(const Tensor& t, const Dims& start, const Dims& shape) {
  Tensor out(t.dtype(), shape);
  const size_t es = dtype_size(t.dtype());
  const auto* src = static_cast<const unsigned char*>(t.data());
  auto* dst = static_cast<unsigned char*>(out.data());
  for_each_in_box(t, start, shape, [&](int64_t q, int64_t off) {
    std::memcpy(dst + static_cast<size_t>(q) * es, src + static_cast<size_t>(off) * es, es);
  });
  return out;
}

void paste_box(const Tensor& part, Tensor& dst, const Dims& start) {
  const size_t es = dtype_size(dst.dtype());
  const auto* src = static_cast<const unsigned char*>(part.data());
  auto* out = static_cast<unsigned char*>(dst.data());
  for_each_in_box(dst, start, part.shape(), [&](int64_t q, int64_t off) {
    std::memcpy(out + static_cast<size_t>(off) * es, src + static_cast<size_t>(q) * es, es);
  });
}

std::vector<std::pair<int64_t, int64_t>> random_chunks(std::mt19937_64& rng, int64_t len) {
  std::vector<std::pair<int64_t, int64_t>> v;
  int64_t b = 0;
  while (b < len) {
    const int64_t most = std::max<int64_t>(1, len / 2 + 1);
    const int64_t e = std::min(len, b + std::uniform_int_distribution<int64_t>(1, most)(rng));
    v.emplace_back(b, e);
    b = e;
  }
  return v;
}

}  // namespace gridops::testing
