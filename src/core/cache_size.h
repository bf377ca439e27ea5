// The last-level cache size, for the plans' choice between streaming (non-temporal) and
// ordinary stores. NOTE [ Stream thresholds by cache size ]: the thresholds were measured
// on a 32 MiB-L3 host; on a machine with a larger last-level cache an output that fits in
// it is better left there by ordinary stores, so thresholds scale with the size. Used by
// Resample and Pad (each plan prints its store choice under
// GRIDOPS_VERBOSE=dispatch); Gather keeps its fixed threshold. The measurements behind
// this are in docs/perf/pad.md and docs/perf/resample.md.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace gridops::kernels {

/// The size the thresholds were measured at.
inline constexpr int64_t kMeasuredLlcBytes = int64_t{32} << 20;

/// Bytes of one instance of the last-level cache: the one CPU 0 shares with its neighbours,
/// as Linux's sysfs describes it (llc_bytes_from_sysfs), else as the C library reports it
/// (the L3, else the L2), else kMeasuredLlcBytes. Read once; tests may override it.
///
/// NOTE [ Cache instance, not package ]: the instance is what a thread's data can stay in.
/// On AMD parts with several core complexes the C library reports the sum over the
/// package (glibc 2.36 on a Zen 4 EPYC VM: 320 MiB, where each complex, and this VM, has
/// 32 MiB; `lscpu` says "32 MiB (1 instance)"), which scaled every store threshold ten
/// times and kept 33 MiB Resample outputs out of the streaming stores
/// (docs/perf/resample.md, "Cache instance, not package").
int64_t last_level_cache_bytes() noexcept;

/// A sysfs cache size ("32768K", "1M", "512"; a trailing newline or blank allowed) in
/// bytes; 0 for anything else.
int64_t parse_cache_size(std::string_view text) noexcept;

/// The size of the highest-level data or unified cache listed under `cache_dir` (sysfs:
/// /sys/devices/system/cpu/cpuN/cache, entries index0, index1, ... with files level, type
/// and size), the largest at that level; 0 where none can be read.
int64_t llc_bytes_from_sysfs(const std::string& cache_dir);

/// Overrides the detected host fact, as the ISA cap overrides the CPU's: from now on
/// last_level_cache_bytes() returns `bytes` (0: the detected size again). Not an
/// implementation variant: plans made afterwards choose their stores from it and log the
/// choice. The tests use it to make those choices independent of the host.
void set_last_level_cache_bytes_override(int64_t bytes) noexcept;

/// A threshold of `bytes` measured at kMeasuredLlcBytes, scaled to this machine's last-
/// level cache: bytes * llc / kMeasuredLlcBytes, never below `bytes` (machines with a
/// smaller cache keep the measured values).
int64_t scale_to_llc(int64_t bytes) noexcept;

}  // namespace gridops::kernels
