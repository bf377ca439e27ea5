#!/usr/bin/env python3
"""Pairs gridops with every peer in Google Benchmark JSON output and prints a markdown table.

Benchmark names are <workload>[/<layout>/<type>]/<impl>/threads:<n>; the median of the
repetitions is used (GRIDOPS_BENCH_STAT=min: the fastest, as scripts/bench_targets.py). Ratio = peer time / gridops time (> 1: gridops is faster).
The header says at which instruction-set level each side ran (scripts/bench_isa.py)."""
import json
import os
import sys
from collections import defaultdict

from bench_isa import header as isa_header  # noqa: E402 (same folder)
from bench_targets import check_stat  # noqa: E402 (same folder)

STAT = os.environ.get("GRIDOPS_BENCH_STAT", "median")


def main(paths):
    rows = defaultdict(dict)  # (workload, threads) -> impl -> (ms, GB/s)
    context = None
    for p in paths:
        with open(p) as f:
            data = json.load(f)
        context = context or data.get("context", {})
        check_stat(p, data["benchmarks"])
        for b in data["benchmarks"]:
            if b.get("run_type") == "aggregate" and b.get("aggregate_name") != STAT:
                continue
            name = b.get("run_name", b["name"])
            parts = name.split("/")
            if len(parts) < 3 or not parts[-1].startswith("threads:"):
                continue
            threads = parts[-1].split(":")[1]
            impl = parts[-2]
            workload = "/".join(parts[:-2])
            ms = b["real_time"] * {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}[b["time_unit"]]
            gbs = b.get("bytes", 0.0) / (ms * 1e-3) / 1e9 if ms > 0 else 0.0
            rows[(workload, threads)][impl] = (ms, gbs)
    if context:
        print(f"Machine: {context.get('num_cpus')} CPUs at {context.get('mhz_per_cpu')} MHz, "
              f"date {context.get('date')}, library build {context.get('library_build_type')}\n")
    for line in isa_header(paths):
        print(line + "\n")
    print("| workload | threads | gridops ms | gridops GB/s | peer | peer ms | peer GB/s | peer / gridops |")
    print("|---|---|---|---|---|---|---|---|")
    for (workload, threads), impls in sorted(rows.items()):
        g = impls.get("gridops")
        peers = [(k, v) for k, v in impls.items() if k != "gridops"]
        if not g:
            for k, v in peers:
                print(f"| {workload} | {threads} | – | – | {k} | {v[0]:.3f} | {v[1]:.1f} | – |")
            continue
        if not peers:
            print(f"| {workload} | {threads} | {g[0]:.3f} | {g[1]:.1f} | – | – | – | – |")
        for k, v in sorted(peers):
            print(f"| {workload} | {threads} | {g[0]:.3f} | {g[1]:.1f} | {k} | {v[0]:.3f} | {v[1]:.1f} | {v[0] / g[0]:.2f}x |")


if __name__ == "__main__":
    main(sys.argv[1:])
