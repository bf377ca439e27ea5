#!/bin/bash
cd "$(dirname "$0")/../../../.."  # the repository root; usage: run.sh OUTPUT_FOLDER
flags=(--benchmark_format=json --benchmark_out_format=json --benchmark_min_time=0.3 --benchmark_repetitions=5 --benchmark_enable_random_interleaving=true --benchmark_report_aggregates_only=true)
out=${1:?output folder}
build/bench/bench/gridops_bench_memcpy "${flags[@]}" --benchmark_out=$out/memcpy.start.json >/dev/null 2>&1
build/bench/bench/gridops_bench_gather --benchmark_filter='^W6' "${flags[@]}" --benchmark_out=$out/gridops_bench_gather.json > /dev/null 2>$out/gather.err
build/bench/bench/gridops_bench_grid_sample --benchmark_filter='^W3' "${flags[@]}" --benchmark_out=$out/gridops_bench_grid_sample.json >/dev/null 2>$out/gs.err
build/bench/bench/gridops_bench_grid_sample_backward --benchmark_filter='^W9' "${flags[@]}" --benchmark_out=$out/gridops_bench_grid_sample_backward.json >/dev/null 2>$out/gsb.err
build/bench/bench/gridops_bench_memcpy "${flags[@]}" --benchmark_out=$out/memcpy.end.json >/dev/null 2>&1
echo finished > $out/done
