#!/usr/bin/env bash
# Samples this host's copy bandwidth at 1 and 2 threads over time (the copy reference,
# gridops_bench_memcpy, built by scripts/bench.sh), one timestamped line per sample:
# on the benchmark VM the two-thread bandwidth switches between about 100 and about 45 GB/s
# every few seconds (docs/BENCHMARKS.md, "Two-thread rows"), so a two-thread row is
# only comparable with rows timed in the same state.
# Usage: scripts/host_state.sh [SAMPLES (default 12)] [SECONDS BETWEEN (default 5)]
set -euo pipefail
cd "$(dirname "$0")/.."
bin=build/bench/bench/gridops_bench_memcpy
[ -x "$bin" ] || { echo "host_state: $bin not built (run scripts/bench.sh first)" >&2; exit 1; }
samples=${1:-12}
pause=${2:-5}
for ((i = 0; i < samples; ++i)); do
  [ "$i" -eq 0 ] || sleep "$pause"
  printf '%s ' "$(date -u +%H:%M:%S)"
  "$bin" --benchmark_min_time=0.2 --benchmark_format=json 2>/dev/null | python3 -c '
import json, sys
rows = json.load(sys.stdin)["benchmarks"]
print("  ".join("%s %.1f GB/s" % (r["name"].split("/")[-1], r["bytes"] / (r["real_time"] * 1e-3) / 1e9)
                for r in rows))'
done
