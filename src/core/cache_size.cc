// See cache_size.h.
#include "core/cache_size.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>

namespace gridops::kernels {
namespace {

int64_t detect() noexcept {
#if defined(_SC_LEVEL3_CACHE_SIZE) && defined(_SC_LEVEL2_CACHE_SIZE)
  for (const int name : {_SC_LEVEL3_CACHE_SIZE, _SC_LEVEL2_CACHE_SIZE}) {
    const long v = sysconf(name);
    if (v > 0) return static_cast<int64_t>(v);
  }
#endif
  return kMeasuredLlcBytes;
}

std::atomic<int64_t> g_override{0};

}  // namespace

int64_t last_level_cache_bytes() noexcept {
  const int64_t forced = g_override.load(std::memory_order_relaxed);
  if (forced > 0) return forced;
  static const int64_t detected = detect();
  return detected;
}

void set_last_level_cache_bytes_override(int64_t bytes) noexcept {
  g_override.store(bytes > 0 ? bytes : 0, std::memory_order_relaxed);
}

int64_t scale_to_llc(int64_t bytes) noexcept {
  const int64_t llc = last_level_cache_bytes();
  if (llc <= kMeasuredLlcBytes) return bytes;
  // The ratio rounded down and capped (a reported size past 32 GiB is not a cache), so the
  // product of thresholds under 2^40 stays far inside int64.
  return bytes * std::min<int64_t>(llc / kMeasuredLlcBytes, 1024);
}

}  // namespace gridops::kernels
