#!/usr/bin/env bash
# Before/after comparison of gridops' own rows (no peers) between two builds of the
# benchmark binaries, in one session: every binary of BEFORE_DIR and AFTER_DIR runs in
# alternation (before, after, before, after, ...) ROUNDS times, then scripts/bench_ab.py
# prints the median of every row for each side and the change.
# Usage: scripts/bench_ab.sh BEFORE_DIR AFTER_DIR OUT_DIR [FILTER_REGEX] [ROUNDS]
#   BEFORE_DIR/AFTER_DIR hold gridops_bench_* binaries (static: copy build/bench/bench/
#   before changing the code); FILTER_REGEX defaults to '/gridops/' (gridops rows only).
set -euo pipefail
before=$1 after=$2 out=$3 filter=${4:-/gridops/} rounds=${5:-3}
mkdir -p "$out"
for r in $(seq 1 "$rounds"); do
  for b in "$after"/gridops_bench_*; do
    name=$(basename "$b")
    [ "$name" = gridops_bench_memcpy ] && continue
    [ -x "$before/$name" ] || continue
    for side in before after; do
      dir=$before; [ $side = after ] && dir=$after
      "$dir/$name" --benchmark_filter="$filter" --benchmark_min_time=0.2 --benchmark_repetitions=3 \
        --benchmark_out="$out/$side.$name.r$r.json" --benchmark_out_format=json >/dev/null 2>>"$out/stderr.log"
    done
  done
done
python3 "$(dirname "$0")/bench_ab.py" "$out"
