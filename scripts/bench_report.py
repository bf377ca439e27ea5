#!/usr/bin/env python3
"""One markdown table per workload family (W1-W7) of one benchmark run, as docs/BENCHMARKS.md
prints them: each row's gridops time, best peer, the peer's time and the ratio at 1 and 2
threads, and issue 17's verdict per thread count (scripts/bench_targets.py's rule and copy
reference: the mean of memcpy.start.json and memcpy.end.json; "write limit": at or above
the best peer, under the 1.2x bar, both sides at >= 0.8 of the write_output reference).

Usage: [GRIDOPS_BENCH_STAT=median|min] scripts/bench_report.py bench/results/<run>/*.json
"""
import re
import sys

from bench_targets import best_peer, copy_reference, issue17, load  # noqa: E402 (same folder)

FAMILIES = {
    "W1": "GridSample 2-D/3-D, many channels",
    "W2": "GridSample few-channel image warps",
    "W3": "GridSample 3-D volumes",
    "W4": "AffineGrid",
    "W5": "Resample forward and backward",
    "W6": "Gather",
    "W7": "Pad",
}
SHORT = {"MET": "ok", "MEMORY LIMIT": "mem. limit", "WRITE LIMIT": "write limit", "MISSED": "**missed**"}


def main(paths):
    times, nbytes = load(paths)
    bw, ends = copy_reference(paths, times, nbytes)
    for which in ("start", "end"):
        if which in ends:
            print(f"copy reference at the {which}: " +
                  " / ".join(f"{ends[which][t]:.1f}" for t in sorted(ends[which])) + " GB/s (1 / 2 threads)")
    workloads = sorted({w for (w, _t) in times if re.match(r"W[1-7]", w)})
    counts = {"MET": 0, "MEMORY LIMIT": 0, "WRITE LIMIT": 0, "MISSED": 0}
    for fam, title in FAMILIES.items():
        rows = [w for w in workloads if w.startswith(fam)]
        if not rows:
            continue
        print(f"\n#### {fam}: {title}\n")
        print("| row | gridops ms (1T / 2T) | best peer (1T / 2T) | peer ms (1T / 2T) | "
              "peer / gridops (1T / 2T) | issue 17 (1T / 2T) |")
        print("|---|---|---|---|---|---|")
        for w in rows:
            cells = {t: (times.get((w, t), {}), issue17(w, t, times.get((w, t), {}), nbytes, bw))
                     for t in (1, 2)}
            if all(c[1] is None for c in cells.values()):
                continue  # no peer (W3d, W4 type variants, W7 against memcpy_output only)

            def fmt(f, t):
                impls, r = cells[t]
                return f(impls, r) if impls.get("gridops") is not None and r else "–"

            g = " / ".join(f"{cells[t][0]['gridops']:.3f}" if "gridops" in cells[t][0] else "–"
                           for t in (1, 2))
            peers = [fmt(lambda i, r: r[1], t) for t in (1, 2)]
            peer = peers[0] if peers[0] == peers[1] else " / ".join(peers)
            pms = " / ".join(fmt(lambda i, r: f"{best_peer(i)[1]:.3f}", t) for t in (1, 2))
            ratio = " / ".join(fmt(lambda i, r: f"{r[0]:.2f}x", t) for t in (1, 2))
            verdicts = " / ".join(fmt(lambda i, r: SHORT[r[3]], t) for t in (1, 2))
            for t in (1, 2):
                if cells[t][1]:
                    counts[cells[t][1][3]] += 1
            print(f"| {w} | {g} | {peer} | {pms} | {ratio} | {verdicts} |")
    print(f"\nissue 17: {counts['MET']} of {sum(counts.values())} rows at their bar, "
          f"{counts['MEMORY LIMIT']} at the memory limit for both, {counts['WRITE LIMIT']} under the "
          f"1.2x bar with both sides at >= 0.8 of the output-write reference, {counts['MISSED']} missed.")


if __name__ == "__main__":
    main(sys.argv[1:])
