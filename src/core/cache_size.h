// The last-level cache size, for the plans' choice between streaming (non-temporal) and
// ordinary stores. NOTE [ Stream thresholds by cache size ]: the thresholds were measured
// on a 32 MiB-L3 host; on a machine with a larger last-level cache an output that fits in
// it is better left there by ordinary stores, so thresholds scale with the size. Used by
// Resample, Pad and AffineGrid (each plan prints its store choice under
// GRIDOPS_VERBOSE=dispatch); Gather keeps its fixed threshold. The measurements behind
// this are in docs/perf/pad.md and docs/perf/resample.md.
#pragma once

#include <cstdint>

namespace gridops::kernels {

/// The size the thresholds were measured at.
inline constexpr int64_t kMeasuredLlcBytes = int64_t{32} << 20;

/// Bytes of the last-level cache as the C library reports it (the L3, else the L2), or
/// kMeasuredLlcBytes where it reports neither. Read once; tests may override it.
int64_t last_level_cache_bytes() noexcept;

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
