// See gather_cost.h.
#include "core/gather_cost.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

namespace gridops::kernels {
namespace {

// NOTE [ Slow gathers ]
// A gather instruction of N lanes is worth its cost only where it beats N scalar loads put
// into a vector. On AMD Zen 1 and 2 (family 0x17) vgatherdps is microcoded; on Zen 3 and
// Zen 4 (family 0x19) it is no longer microcoded but still slower than the loads (measured,
// from L1, on a Zen 3 and a Zen 4 EPYC: docs/perf/grid_sample.md, "Tap loads"). Intel cores
// since Skylake gather faster, and other CPUs were not measured: they keep the gathers.
// A CPU table, not a timing at run time, so that a plan's choice is the same on every run
// of a host and can be logged and tested.
bool detect() noexcept {
  try {
    std::string why;
    const int forced = slow_gathers_from_env(std::getenv("GRIDOPS_SLOW_GATHERS"), &why);
    if (forced >= 0) return forced == 1;
    if (!why.empty()) std::fprintf(stderr, "[gridops] %s\n", why.c_str());
  } catch (...) {  // std::bad_alloc for the message: the CPU table decides
  }
#if defined(__x86_64__) || defined(__i386__)
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (__get_cpuid(0, &eax, &ebx, &ecx, &edx) == 0) return false;
  char vendor[13] = {};
  std::memcpy(vendor, &ebx, 4);
  std::memcpy(vendor + 4, &edx, 4);
  std::memcpy(vendor + 8, &ecx, 4);
  if (std::strcmp(vendor, "AuthenticAMD") != 0) return false;
  if (__get_cpuid(1, &eax, &ebx, &ecx, &edx) == 0) return false;
  const unsigned base_family = (eax >> 8) & 0xf;
  const unsigned family = base_family == 0xf ? base_family + ((eax >> 20) & 0xff) : base_family;
  return family == 0x17 || family == 0x19;
#else
  return false;
#endif
}

std::atomic<int> g_override{-1};

}  // namespace

int slow_gathers_from_env(const char* value, std::string* why) {
  if (value == nullptr || *value == '\0') return -1;
  if (std::strcmp(value, "1") == 0) return 1;
  if (std::strcmp(value, "0") == 0) return 0;
  if (why != nullptr) {
    *why = std::string("GRIDOPS_SLOW_GATHERS='") + value +
           "' ignored: expected 1 (gathers slow) or 0 (fast); the CPU table decides";
  }
  return -1;
}

bool cpu_gathers_slow() noexcept {
  const int forced = g_override.load(std::memory_order_relaxed);
  if (forced >= 0) return forced == 1;
  static const bool detected = detect();
  return detected;
}

void set_slow_gathers_override(int slow) noexcept {
  g_override.store(slow < 0 ? -1 : (slow > 0 ? 1 : 0), std::memory_order_relaxed);
}

}  // namespace gridops::kernels
