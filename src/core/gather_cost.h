// Whether this CPU's vector gathers cost more than scalar loads of the same elements: a
// host fact for the plans, as the cache size is (core/cache_size.h). NOTE [ Slow gathers ]:
// the fused GridSample path (grid_sample.fused_small_c) reads its taps by scalar loads where
// this holds (its schedule prints taps=loads or taps=gathers under
// GRIDOPS_VERBOSE=dispatch). The measurements behind the table are in
// docs/perf/grid_sample.md, "Tap loads".
#pragma once

#include <string>

namespace gridops::kernels {

/// Whether gathers are slow here: GRIDOPS_SLOW_GATHERS ("1" or "0") where set, else the
/// CPU table: true on AMD families 0x17 and 0x19 (Zen 1 to Zen 4, x86-64 only), false on
/// every other CPU. Read once; set_slow_gathers_override changes it for later plans.
bool cpu_gathers_slow() noexcept;

/// GRIDOPS_SLOW_GATHERS's value as cpu_gathers_slow() reads it: 1 for "1", 0 for "0", -1
/// (the CPU table decides) for null or empty (unset) and for any other value, for which
/// `why`, where given, receives the message that names the variable, the values it takes
/// and the value it got (cpu_gathers_slow() prints it once on stderr).
int slow_gathers_from_env(const char* value, std::string* why);

/// Overrides the host fact, as the ISA cap overrides the CPU's: from now on
/// cpu_gathers_slow() returns `slow` (1: true, 0: false; negative: the detected fact
/// again). Not an implementation variant: plans made afterwards choose from it and log
/// the choice. The tests use it to run both tap reads on every host.
void set_slow_gathers_override(int slow) noexcept;

}  // namespace gridops::kernels
