#!/bin/bash
# W2 (few-channel warps) on this host with every side capped at AVX2: usage run.sh OUTPUT_FOLDER
cd "$(dirname "$0")/../../.."  # the repository root
B=${BENCH_DIR:-build/release/bench}
eval "$(GRIDOPS_BENCH_ISA=avx2 scripts/bench_isa_env.sh "$(dirname "$B")" 2>/dev/null)"
flags=(--benchmark_format=json --benchmark_out_format=json --benchmark_min_time=0.3 --benchmark_repetitions=5 --benchmark_enable_random_interleaving=true --benchmark_report_aggregates_only=true)
out=${1:?output folder}; mkdir -p "$out"
$B/gridops_bench_memcpy "${flags[@]}" --benchmark_out=$out/memcpy.start.json >/dev/null 2>&1
$B/gridops_bench_grid_sample --benchmark_filter='^W2[a-z]/' "${flags[@]}" --benchmark_out=$out/gridops_bench_grid_sample.json >/dev/null 2>$out/gs.err
$B/gridops_bench_memcpy "${flags[@]}" --benchmark_out=$out/memcpy.end.json >/dev/null 2>&1
