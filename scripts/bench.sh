#!/usr/bin/env bash
# Builds the benchmarks (with libtorch, OpenCV and oneDNN from Debian: scripts/setup.sh bench) and runs them;
# JSON results go to build/bench/results/, and a markdown table of gridops against each
# peer is printed (scripts/bench_table.py). Usage: scripts/bench.sh [FILTER_REGEX]
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh bench
filter=${1:-.}
cmake -S . -B build/bench -DCMAKE_BUILD_TYPE=Release -DGRIDOPS_BUILD_BENCH=ON -DGRIDOPS_BUILD_TESTS=OFF >/dev/null
cmake --build build/bench -j"$(nproc)"
mkdir -p build/bench/results
for b in build/bench/bench/gridops_bench_*; do
  name=$(basename "$b")
  "$b" --benchmark_filter="$filter" --benchmark_format=json --benchmark_out="build/bench/results/$name.json" \
    --benchmark_out_format=json --benchmark_min_time=0.3 --benchmark_repetitions=5 --benchmark_report_aggregates_only=true >/dev/null
done
python3 scripts/bench_table.py build/bench/results/*.json
