#!/usr/bin/env python3
"""Prints the before/after table of scripts/bench_ab.sh: for every benchmark row, the median
wall time over all repetitions of all rounds on each side, and the change (after / before
- 1). Rows beyond +/-5 % are marked.

Usage: scripts/bench_ab.py OUT_DIR   (the before.*.json and after.*.json files)
"""
import glob
import json
import os
import statistics
import sys
from collections import defaultdict

UNIT_MS = {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}


def collect(paths):
    rows = defaultdict(list)
    for p in paths:
        for b in json.load(open(p))["benchmarks"]:
            if b.get("run_type") == "aggregate":
                continue
            rows[b.get("run_name", b["name"])].append(b["real_time"] * UNIT_MS[b["time_unit"]])
    return rows


def main(out_dir):
    before = collect(glob.glob(os.path.join(out_dir, "before.*.json")))
    after = collect(glob.glob(os.path.join(out_dir, "after.*.json")))
    print("| row | before ms | after ms | change |")
    print("|---|---:|---:|---:|")
    changes = []
    for name in sorted(set(before) & set(after)):
        b, a = statistics.median(before[name]), statistics.median(after[name])
        c = a / b - 1
        changes.append(c)
        mark = "" if abs(c) <= 0.05 else (" (slower)" if c > 0 else " (faster)")
        print(f"| {name} | {b:.3f} | {a:.3f} | {100 * c:+.1f} %{mark} |")
    only = sorted(set(before) ^ set(after))
    if only:
        print("\nrows on one side only: " + ", ".join(only))
    if changes:
        within = sum(abs(c) <= 0.05 for c in changes)
        print(f"\n{within} of {len(changes)} rows within +/-5 %; median change "
              f"{100 * statistics.median(changes):+.1f} %, largest slowdown "
              f"{100 * max(changes):+.1f} %, largest speed-up {100 * min(changes):+.1f} %.")


if __name__ == "__main__":
    main(sys.argv[1])
