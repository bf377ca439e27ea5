#!/usr/bin/env bash
# Builds the benchmarks (with libtorch, OpenCV and oneDNN from Debian: scripts/setup.sh bench) and runs them;
# JSON results go to build/bench/results/ (or $GRIDOPS_BENCH_OUT), and a markdown table of
# gridops against each peer is printed (scripts/bench_table.py). The copy-bandwidth
# reference (gridops_bench_memcpy) runs first and last, into memcpy.start.json and
# memcpy.end.json, so that scripts/bench_targets.py can show the bandwidth at both ends of
# the run. Usage: [GRIDOPS_BENCH_ISA=LEVEL] scripts/bench.sh [FILTER_REGEX]
#
# GRIDOPS_BENCH_ISA caps every side at one instruction-set level, so that one host can show
# the table of a lesser CPU (docs/BENCHMARKS.md, "ISA-matched tables"): native (the default:
# no cap, each side picks what it picks), avx512_bf16, avx512, avx2 or sse4 (x86-64). The
# level in force is gridops' under that cap (never above the CPU's best), and each peer gets
# its own nearest cap: GRIDOPS_MAX_ISA, PyTorch's ATEN_CPU_CAPABILITY, oneDNN's
# ONEDNN_MAX_CPU_ISA (and DNNL_MAX_CPU_ISA, its older name), OpenCV's OPENCV_CPU_DISABLE.
# Every binary records the level each side ran at in its JSON context (bench/bench_context.h),
# the tables' headers print it, and the run stops when a side is above the cap.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh bench
filter=${1:-.}
out=${GRIDOPS_BENCH_OUT:-build/bench/results}
cmake $(scripts/cmake_generator.sh build/bench) -S . -B build/bench -DCMAKE_BUILD_TYPE=Release -DGRIDOPS_BUILD_BENCH=ON -DGRIDOPS_BUILD_TESTS=OFF >/dev/null
cmake --build build/bench -j"$(nproc)"
mkdir -p "$out"
# The ISA caps of every side (scripts/bench_isa_env.sh; native: none).
isa_env=$(scripts/bench_isa_env.sh build/bench)
eval "$isa_env"
# Seven repetitions of each row, randomly interleaved with the other rows of the same binary
# (Google Benchmark's random interleaving), and their median and minimum (bench_util.h): a
# slow phase of this shared host then falls on gridops and its peers alike instead of on
# whichever row ran then, and the fastest of seven is timed in the host's fast two-thread
# memory state on both sides of a ratio more often than the median (docs/BENCHMARKS.md,
# "Two-thread rows"; the scripts read the median unless GRIDOPS_BENCH_STAT=min).
flags=(--benchmark_format=json --benchmark_out_format=json --benchmark_min_time=0.3
       --benchmark_repetitions=7 --benchmark_enable_random_interleaving=true
       --benchmark_report_aggregates_only=true)
build/bench/bench/gridops_bench_memcpy "${flags[@]}" --benchmark_out="$out/memcpy.start.json" >/dev/null
# Every side at the level the header will state, or no run.
python3 scripts/bench_isa.py "$out/memcpy.start.json"
for b in build/bench/bench/gridops_bench_*; do
  name=$(basename "$b")
  [ "$name" = gridops_bench_memcpy ] && continue
  "$b" --benchmark_filter="$filter" "${flags[@]}" --benchmark_out="$out/$name.json" >/dev/null
  # A binary with no row matching the filter leaves an empty file: not a result.
  [ -s "$out/$name.json" ] || rm -f "$out/$name.json"
done
build/bench/bench/gridops_bench_memcpy "${flags[@]}" --benchmark_out="$out/memcpy.end.json" >/dev/null
python3 scripts/bench_table.py "$out"/*.json
echo "targets: python3 scripts/bench_targets.py $out/*.json"
