// See cache_size.h.
#include "core/cache_size.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cstdint>
#include <fstream>
#include <string>

namespace gridops::kernels {
namespace {

/// The first line of a small text file; empty where it cannot be read.
std::string first_line(const std::string& path) {
  std::ifstream f(path);
  std::string s;
  if (!f || !std::getline(f, s)) return {};
  return s;
}

int64_t detect() noexcept {
  try {
    if (const int64_t v = llc_bytes_from_sysfs("/sys/devices/system/cpu/cpu0/cache"); v > 0) return v;
  } catch (...) {  // allocation failure while reading: fall back to the C library
  }
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

int64_t parse_cache_size(std::string_view text) noexcept {
  size_t i = 0;
  int64_t v = 0;
  for (; i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])) != 0; ++i) {
    if (v > (int64_t{1} << 40)) return 0;  // no cache is this large: not a size
    v = v * 10 + (text[i] - '0');
  }
  if (i == 0) return 0;
  int shift = 0;
  if (i < text.size()) {
    switch (text[i]) {
      case 'K': shift = 10; break;
      case 'M': shift = 20; break;
      case 'G': shift = 30; break;
      default: return 0;
    }
    ++i;
  }
  if (v > (INT64_MAX >> shift)) return 0;
  while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i])) != 0) ++i;
  if (i != text.size()) return 0;
  return v << shift;
}

int64_t llc_bytes_from_sysfs(const std::string& cache_dir) {
  int best_level = 0;
  int64_t best = 0;
  // index0, index1, ... are consecutive; the first missing one ends the list.
  for (int k = 0; k < 16; ++k) {
    const std::string dir = cache_dir + "/index" + std::to_string(k) + "/";
    const std::string level_s = first_line(dir + "level");
    if (level_s.empty()) break;
    if (first_line(dir + "type") == "Instruction") continue;
    const int64_t level = parse_cache_size(level_s);
    const int64_t size = parse_cache_size(first_line(dir + "size"));
    if (level <= 0 || level > 8 || size <= 0) continue;
    if (level > best_level || (level == best_level && size > best)) {
      best_level = static_cast<int>(level);
      best = size;
    }
  }
  return best;
}

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
