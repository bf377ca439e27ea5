// The last-level cache size, for the kernels' choice between streaming (non-temporal) and
// ordinary stores. NOTE [ Stream thresholds by cache size ]: the thresholds were measured
// on the 32 MiB-L3 AMD EPYC host of docs/BENCHMARKS.md; on a machine with a larger
// last-level cache an output that fits in it is better left there by ordinary stores
// (the next call, or the next reader, finds it), so thresholds scale with the size.
// Measured on the Intel Xeon host of 2026-11-30 (480 MiB L3 reported, 2 cores), Resample
// with its 4 MiB threshold scaled 15 times, against streaming from 4 MiB
// (`scripts/bench_ab.sh`, 2 rounds): W5a / W5b upsampling (16-32 MiB outputs) 12-20 %
// faster in nhwc and nChw16c, float32 and bfloat16, and W5b nchw float32; the bfloat16
// downsampling rows (W5c, 4 MiB outputs) and W5f nhwc bfloat16 3-6 % slower (4 rounds);
// the rest within +/-5 % (docs/ops/resample.md). Used by Resample and by Pad's one-thread
// threshold (NOTE [ Pad stores by thread count ], pad_fast.cc: W7e 5-10 % faster
// unstreamed; its two-thread threshold stays, W7a-W7d were 7-11 % slower unstreamed).
// Gather keeps its threshold: W6a was 10-23 % slower without streaming.
#pragma once

#include <cstdint>

namespace gridops::kernels {

/// The size the thresholds were measured at.
inline constexpr int64_t kMeasuredLlcBytes = int64_t{32} << 20;

/// Bytes of the last-level cache as the C library reports it (the L3, else the L2), or
/// kMeasuredLlcBytes where it reports neither. Read once; tests may override it.
int64_t last_level_cache_bytes() noexcept;

/// Tests: last_level_cache_bytes() returns `bytes` from now on (0: the detected size).
void set_last_level_cache_bytes_for_testing(int64_t bytes) noexcept;

/// A threshold of `bytes` measured at kMeasuredLlcBytes, scaled to this machine's last-
/// level cache: bytes * llc / kMeasuredLlcBytes, never below `bytes` (machines with a
/// smaller cache keep the measured values).
int64_t scale_to_llc(int64_t bytes) noexcept;

}  // namespace gridops::kernels
