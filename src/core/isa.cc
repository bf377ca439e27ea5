// The instruction-set cap (gridops/isa.h). The cap is one number, the level; the Highway
// targets above it are disabled through hwy::DisableTargets (which every later
// SupportedTargets, and so every HWY_DYNAMIC_DISPATCH, honours; also the tests'
// SetSupportedTargetsForTest), and the kernels that check a CPU feature themselves ask
// isa_allows_*().
#include "core/isa.h"

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>

#include "gridops/isa.h"
#include "core/cache_size.h"
#include "core/gather_cost.h"

#ifdef GRIDOPS_HAVE_HWY
#include <hwy/targets.h>
#endif

#if defined(__aarch64__) && defined(__linux__)
#include <sys/auxv.h>
#endif

namespace gridops {
namespace {

constexpr int kNative = 100;  // no cap

struct Level {
  const char* name;
  int rank;
  int64_t disabled_targets;  // Highway targets above the level
};

#ifdef GRIDOPS_HAVE_HWY
constexpr int64_t kAllButPortable = ~(int64_t{HWY_EMU128} | int64_t{HWY_SCALAR});
// A Highway target bit T: the targets better than T are the lower bits, (T - 1).
constexpr int64_t above(int64_t target) { return target - 1; }
#else
constexpr int64_t kAllButPortable = 0;
constexpr int64_t above(int64_t) { return 0; }
#define HWY_SSE4 0
#define HWY_AVX2 0
#define HWY_AVX3 0
#define HWY_NEON 0
#define HWY_SVE2 0
#define HWY_SVE2_128 0
#endif

#if defined(__x86_64__) || defined(_M_X64) || defined(__i386__)
constexpr const char* kArch = "x86-64";
constexpr Level kLevels[] = {
    {"scalar", 0, kAllButPortable},
    {"sse4", 1, above(HWY_SSE4)},
    {"avx2", 2, above(HWY_AVX2)},
    {"avx512", 3, above(HWY_AVX3)},
    {"avx512_bf16", 4, above(HWY_AVX3)},
    {"native", kNative, 0},
};
constexpr int kRankAvx512Bf16 = 4;
#elif defined(__aarch64__)
constexpr const char* kArch = "aarch64";
constexpr Level kLevels[] = {
    {"scalar", 0, kAllButPortable},
    {"neon", 1, above(HWY_NEON)},
    {"sve", 2, int64_t{HWY_SVE2} | int64_t{HWY_SVE2_128}},
    {"sve2", 3, 0},
    {"native", kNative, 0},
};
constexpr int kRankAvx512Bf16 = kNative + 1;  // never
#else
constexpr const char* kArch = "this architecture";
constexpr Level kLevels[] = {
    {"scalar", 0, kAllButPortable},
    {"native", kNative, 0},
};
constexpr int kRankAvx512Bf16 = kNative + 1;
#endif

std::atomic<int> g_rank{kNative};
std::mutex g_mu;                         // serializes changes of the cap
std::string g_source = "none";           // where the cap came from (under g_mu)

std::string level_names() {
  std::string s;
  for (const Level& l : kLevels) s += (s.empty() ? "" : ", ") + std::string(l.name);
  return s;
}

const Level* find_level(std::string_view name) {
  if (name.empty()) name = "native";
  for (const Level& l : kLevels) {
    if (name == l.name) return &l;
  }
  return nullptr;
}

/// The level the CPU has (its best), before any cap: detected once (cpu_rank).
int detect_cpu_rank() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_cpu_init();
  const bool avx512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                      __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl");
  const bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
                    __builtin_cpu_supports("bmi2") && __builtin_cpu_supports("f16c");
  if (avx2 && avx512 && __builtin_cpu_supports("avx512bf16")) return 4;
  if (avx2 && avx512) return 3;
  if (avx2) return 2;
  if (__builtin_cpu_supports("sse4.2")) return 1;
  return 0;
#elif defined(__aarch64__) && defined(__linux__)
  // HWCAP_SVE (bit 22 of AT_HWCAP) and HWCAP2_SVE2 (bit 1 of AT_HWCAP2), as the kernel
  // defines them; NEON (ASIMD) is part of every aarch64 CPU Linux runs on.
  const unsigned long hw = getauxval(AT_HWCAP);
  const unsigned long hw2 = getauxval(AT_HWCAP2);
  if ((hw & (1ul << 22)) && (hw2 & (1ul << 1))) return 3;
  if (hw & (1ul << 22)) return 2;
  return 1;
#else
  return 0;
#endif
}

int cpu_rank() {
  static const int cpu = detect_cpu_rank();
  return cpu;
}

/// The cap's level name ("native" when none).
const char* cap_name(int rank) {
  for (const Level& l : kLevels) {
    if (l.rank == rank) return l.name;
  }
  return "native";
}

/// The level dispatched to: the CPU's, at most the cap.
int effective_rank() {
  const int rank = g_rank.load(std::memory_order_acquire);
  return cpu_rank() < rank ? cpu_rank() : rank;
}

std::string rank_name(int rank) {
  const char* best = kLevels[0].name;
  for (const Level& l : kLevels) {
    if (l.rank <= rank && l.rank != kNative) best = l.name;
  }
  return best;
}

/// Sets the cap (under g_mu). Empty string: done; else why not.
std::string apply_level(const Level& l, const char* source) {
#ifdef GRIDOPS_HAVE_HWY
  if ((l.disabled_targets & HWY_STATIC_TARGET) != 0) {
    return std::string("this build's baseline is Highway's ") + hwy::TargetName(HWY_STATIC_TARGET) +
           " (compiled for it: every CPU it runs on has it), so it cannot run below it";
  }
  hwy::DisableTargets(l.disabled_targets);
#endif
  g_rank.store(l.rank, std::memory_order_release);
  g_source = l.rank == kNative ? "none" : source;
  return std::string();
}

std::once_flag g_env_once;

void apply_env() {
  const char* env = std::getenv("GRIDOPS_MAX_ISA");
  if (env != nullptr && *env != '\0') {
    std::lock_guard<std::mutex> lock(g_mu);
    const Level* l = find_level(env);
    std::string why;
    if (l == nullptr) {
      why = std::string("not a level of this ") + kArch + " build (one of " + level_names() + ")";
    } else {
      why = apply_level(*l, "GRIDOPS_MAX_ISA");
    }
    if (!why.empty()) {
      std::fprintf(stderr, "[gridops] GRIDOPS_MAX_ISA='%s' ignored: %s\n", env, why.c_str());
    }
  }
  const char* verbose = std::getenv("GRIDOPS_VERBOSE");
  if (verbose != nullptr && std::strstr(verbose, "dispatch") != nullptr) {
    std::fprintf(stderr, "[gridops] isa: cpu %s, cap %s, effective %s\n",
                 rank_name(cpu_rank()).c_str(), cap_name(g_rank.load(std::memory_order_acquire)),
                 rank_name(effective_rank()).c_str());
  }
}

// Applied when the library is loaded, before any code of the program can dispatch (this
// file is linked into every program that chooses an implementation: select_impl calls
// apply_isa_env_once).
[[maybe_unused]] const bool g_env_applied = (detail::apply_isa_env_once(), true);

}  // namespace

Status set_max_isa(std::string_view level) {
  detail::apply_isa_env_once();
  const Level* l = find_level(level);
  if (l == nullptr) {
    return invalid_argument("set_max_isa: level must be one of {", level_names(), "} on ", kArch,
                            ", got '", level, "'");
  }
  std::lock_guard<std::mutex> lock(g_mu);
  const std::string why = apply_level(*l, "set_max_isa");
  if (!why.empty()) {
    return invalid_argument("set_max_isa: level '", level, "': ", why);
  }
  return Status();
}

std::string max_isa() {
  detail::apply_isa_env_once();
  return cap_name(g_rank.load(std::memory_order_acquire));
}

std::string effective_isa() {
  detail::apply_isa_env_once();
  return rank_name(effective_rank());
}

std::string isa_report() {
  detail::apply_isa_env_once();
  std::string source;
  {
    std::lock_guard<std::mutex> lock(g_mu);
    source = g_source;
  }
  std::string s;
  s += std::string("architecture: ") + kArch + "\n";
  s += "cpu: " + rank_name(cpu_rank()) + "\n";
  s += "cap: " + max_isa() + (source == "none" ? std::string() : " (from " + source + ")") + "\n";
  s += "effective: " + effective_isa() + "\n";
#ifdef GRIDOPS_HAVE_HWY
  auto names = [](int64_t bits) {
    std::string out;
    for (int64_t t = bits; t != 0; t &= t - 1) {
      out += (out.empty() ? "" : " ") + std::string(hwy::TargetName(t & -t));
    }
    return out;
  };
  s += "highway targets compiled: " + names(HWY_TARGETS) + "\n";
  s += "highway targets usable: " + names(detail::usable_hwy_targets()) + "\n";
  s += std::string("highway target dispatched: ") + detail::dispatched_target_name() + "\n";
#else
  s += "highway: not in this build (portable kernels only)\n";
#endif
  s += std::string("avx512_bf16 kernels: ") + (detail::isa_allows_avx512_bf16() ? "yes" : "no") +
       "\n";
  // The other host facts the plans read (docs/platforms.md, "Per-CPU plan facts").
  const int64_t llc = kernels::last_level_cache_bytes();
  s += "last-level cache: " +
       (llc % (int64_t{1} << 20) == 0 ? std::to_string(llc >> 20) + " MiB"
                                      : std::to_string(llc >> 10) + " KiB") +
       " (one instance; the store thresholds scale with it)\n";
  s += std::string("slow gathers: ") + (kernels::cpu_gathers_slow() ? "yes" : "no") + "\n";
  return s;
}

namespace detail {

void apply_isa_env_once() noexcept {
  try {
    std::call_once(g_env_once, apply_env);
  } catch (...) {
    // std::call_once reports a failure to start a thread-safe once as std::system_error;
    // the cap then stays as it is (none).
  }
}

bool isa_allows_avx512_bf16() noexcept {
  apply_isa_env_once();
  return effective_rank() >= kRankAvx512Bf16;
}

#ifdef GRIDOPS_HAVE_HWY
int64_t usable_hwy_targets() noexcept {
  apply_isa_env_once();
  // hwy::SupportedTargets() (Highway 1.0.3) re-detects the CPU and points the dispatch
  // tables at every target it has, disabled ones included, before masking what it
  // returns: HWY_DYNAMIC_DISPATCH's own caller updates them again with the result. A
  // direct call must do the same, or the next dispatch ignores GRIDOPS_MAX_ISA (and a test's
  // ScopedHwyTarget).
  const int64_t supported = hwy::SupportedTargets();
  hwy::GetChosenTarget().Update(supported);
  return supported & HWY_TARGETS;
}
#endif

const char* dispatched_target_name() noexcept {
#ifdef GRIDOPS_HAVE_HWY
  const int64_t usable = usable_hwy_targets();
  return hwy::TargetName(usable == 0 ? HWY_STATIC_TARGET : (usable & -usable));
#else
  return "none";
#endif
}

}  // namespace detail
}  // namespace gridops
