#!/usr/bin/env python3
"""Prints the before/after table of scripts/bench_ab.sh: for every benchmark row, the wall
time on each side and the change (after / before - 1). Rows beyond +/-5 % are marked.

The time of a side is, with --stat median (default), the median over all repetitions of
all rounds; with --stat min, the fastest round's median (each round is one process per
side; on a VM where one process can run a row 1.5-2x slower than the next for the whole
process, the fastest process is the comparable figure).

Usage: scripts/bench_ab.py OUT_DIR [--stat median|min]
"""
import glob
import json
import os
import statistics
import sys
from collections import defaultdict

UNIT_MS = {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}


def collect(paths, stat):
    """{row: time in ms} for the files of one side."""
    per_file = defaultdict(list)  # row -> [median of each file (one process)]
    every = defaultdict(list)  # row -> every repetition
    for p in paths:
        if os.path.getsize(p) == 0:  # a binary with no row matching the filter
            continue
        reps = defaultdict(list)
        for b in json.load(open(p))["benchmarks"]:
            if b.get("run_type") == "aggregate":
                continue
            reps[b.get("run_name", b["name"])].append(b["real_time"] * UNIT_MS[b["time_unit"]])
        for name, ts in reps.items():
            per_file[name].append(statistics.median(ts))
            every[name].extend(ts)
    if stat == "min":
        return {name: min(v) for name, v in per_file.items()}
    return {name: statistics.median(v) for name, v in every.items()}


def main(out_dir, stat="median"):
    before = collect(glob.glob(os.path.join(out_dir, "before.*.json")), stat)
    after = collect(glob.glob(os.path.join(out_dir, "after.*.json")), stat)
    print("| row | before ms | after ms | change |")
    print("|---|---:|---:|---:|")
    changes = []
    for name in sorted(set(before) & set(after)):
        b, a = before[name], after[name]
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
    args = sys.argv[1:]
    stat = "median"
    if "--stat" in args:
        i = args.index("--stat")
        stat = args[i + 1]
        del args[i:i + 2]
        if stat not in ("median", "min"):
            sys.exit("--stat must be median or min")
    print(f"statistic: {stat}\n")
    main(args[0], stat)
