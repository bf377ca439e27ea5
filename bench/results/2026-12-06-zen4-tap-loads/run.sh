#!/bin/bash
cd "$(dirname "$0")/../../.."  # the repository root; usage: run.sh OUTPUT_FOLDER
B=build/release/bench/gridops_bench_grid_sample
out=${1:?out}; mkdir -p $out
F='^W2[a-d](/nhwc/f32)?/gridops/threads:[12]$'
flags=(--benchmark_format=json --benchmark_min_time=0.2 --benchmark_repetitions=3 --benchmark_enable_random_interleaving=true --benchmark_report_aggregates_only=true)
for rep in 1 2 3 4; do
 for isa in ${ISAS:-avx2 native}; do
  for slow in $([ $((rep%2)) = 1 ] && echo "0 1" || echo "1 0"); do
   GRIDOPS_MAX_ISA=$isa GRIDOPS_SLOW_GATHERS=$slow $B --benchmark_filter="$F" "${flags[@]}" > $out/$isa.slow$slow.rep$rep.json 2>/dev/null
  done
 done
done
echo done > $out/done
