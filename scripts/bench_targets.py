#!/usr/bin/env python3
"""Checks the targets of ../shared/bench/WORKLOADS.md (issues 4 and 5) against Google
Benchmark JSON files (medians when repetitions were run) and prints one markdown line per
target and row: the measured figure, the target and MET / MISSED.

Usage: [GRIDOPS_BENCH_STAT=median|min] scripts/bench_targets.py bench/results/<run>/*.json

GRIDOPS_BENCH_STAT picks the statistic of the repetitions: "median" (the default) or "min"
(the fastest repetition; recorded by runs since 2026-11-28 04:40, see docs/BENCHMARKS.md,
"Two-thread rows").

A second table checks issue 17's rule for W1-W7: every row at >= 1.0x the best peer at 1
and 2 threads, and >= 1.2x where that peer moves less than 0.8 of the copy bandwidth. A
row below its bar where gridops and the peer both move at least 0.8 of the copy bandwidth
is marked MEMORY LIMIT (with both rates) rather than MISSED. Rows with a write_output
reference (the output written alone with streaming stores, registered where the output is
larger than the input) also print each side's fraction of it, and a row at or above the
best peer but under its 1.2x bar, with both sides at >= 0.8 of that reference, is marked WRITE
LIMIT: counted below the bar, listed apart. The copy bandwidth is the
mean of memcpy.start.json and memcpy.end.json when scripts/bench.sh wrote them (both are
printed), else the copy64MiB row of whichever file holds it.

Ratios are best peer time / gridops time from the same files (bandwidth references
memcpy, memset, memcpy_output and write_output are not peers, nor are gridops' own entries
timed beside its automatic choice: "ref", "gather.slices", ...). Rows without a peer are listed only where
a target does not need one (W3d against gridops' own W3a, W4 against ONNX Runtime's
published figures and the copy bandwidth, W7 against memcpy_output).

The first lines say at which instruction-set level each side ran: native, or every side
capped at one level by scripts/bench.sh's GRIDOPS_BENCH_ISA (scripts/bench_isa.py).
"""
import json
import os
import re
import sys
from collections import defaultdict

from bench_isa import header as isa_header  # noqa: E402 (same folder)

REFS = {"memcpy", "memset", "memcpy_output", "write_output"}


def is_peer(impl):
    """A peer library's row: not gridops' automatic choice, not a bandwidth reference, and
    not one of gridops' own entries that some binaries time beside it, forced by name
    ("ref", or a dotted entry name such as "gather.slices")."""
    return impl != "gridops" and impl not in REFS and impl != "ref" and "." not in impl

STAT = os.environ.get("GRIDOPS_BENCH_STAT", "median")
# ONNX Runtime's figures from WORKLOADS.md (not in the benchmark binaries), ms, 1 thread.
ORT_MS = {"W4a": 2.1, "W4b": 7.9}


def copy_bandwidths(paths):
    """{"start"|"end": {threads: GB/s}} from scripts/bench.sh's memcpy.start/end.json."""
    out = {}
    for p in paths:
        m = re.search(r"memcpy\.(start|end)\.json$", p)
        if not m:
            continue
        times, nbytes = load([p])
        out[m.group(1)] = {t: nbytes[k] / (ms["memcpy"] * 1e-3) / 1e9
                           for k, ms in times.items() for t in [k[1]]
                           if k[0] == "copy64MiB" and "memcpy" in ms and k in nbytes}
    return out


def row_copy_bw(times, nbytes):
    """{threads: GB/s} of the copy64MiB row in the loaded files (the last file's, when
    both memcpy.start.json and memcpy.end.json are loaded)."""
    bw = {}
    for t in (1, 2):
        ms = times.get(("copy64MiB", t), {}).get("memcpy")
        b = nbytes.get(("copy64MiB", t))
        if ms and b:
            bw[t] = b / (ms * 1e-3) / 1e9
    return bw


def copy_reference(paths, times, nbytes):
    """(issue 17's copy bandwidth {threads: GB/s}, copy_bandwidths(paths)): the mean of the
    run's two ends where scripts/bench.sh wrote them, else the copy64MiB row."""
    ends = copy_bandwidths(paths)
    bw = row_copy_bw(times, nbytes)
    for t in (1, 2):
        vals = [ends[w][t] for w in ends if t in ends[w]]
        if vals:
            bw[t] = sum(vals) / len(vals)
    return bw, ends


def check_stat(path, benchmarks):
    """Exits when `path` holds repetition aggregates but none of the statistic STAT."""
    names = {b.get("aggregate_name") for b in benchmarks if b.get("run_type") == "aggregate"}
    if names and STAT not in names:
        sys.exit(f"{path}: no '{STAT}' aggregates (GRIDOPS_BENCH_STAT; it has {sorted(names)})")


def load(paths):
    """(times, nbytes): times[(workload, threads)][impl] = ms (the STAT of the repetitions); nbytes[(workload,
    threads)] = the bytes gridops' row counts (a row without gridops: another impl's; the
    copy references count their own, e.g. a memcpy of the output reads and writes it)."""
    times = defaultdict(dict)  # (workload, threads) -> impl -> ms
    nbytes = {}
    gridops_bytes = {}
    for p in paths:
        benchmarks = json.load(open(p))["benchmarks"]
        check_stat(p, benchmarks)
        for b in benchmarks:
            if b.get("run_type") == "aggregate" and b.get("aggregate_name") != STAT:
                continue
            parts = b.get("run_name", b["name"]).split("/")
            if len(parts) < 3 or not parts[-1].startswith("threads:"):
                continue
            ms = b["real_time"] * {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}[b["time_unit"]]
            key = ("/".join(parts[:-2]), int(parts[-1].split(":")[1]))
            times[key][parts[-2]] = ms
            if "bytes" in b:
                (gridops_bytes if parts[-2] == "gridops" else nbytes)[key] = b["bytes"]
    nbytes.update(gridops_bytes)
    return times, nbytes


def best_peer(impls):
    peers = {k: v for k, v in impls.items() if is_peer(k)}
    if not peers:
        return None, None
    k = min(peers, key=peers.get)
    return k, peers[k]


def verdict(ok):
    return "MET" if ok else "MISSED"


def main(paths):
    for h in isa_header(paths):
        print(h + "\n")
    times, nbytes = load(paths)
    out = []

    def line(target, row, figure, ok):
        out.append(f"| {target} | {row} | {figure} | {verdict(ok)} |")

    copy_bw = row_copy_bw(times, nbytes)

    for (w, t), impls in sorted(times.items()):
        g = impls.get("gridops")
        if g is None:
            continue
        wid = w.split("/")[0]
        layout = w.split("/")[1] if "/" in w else ""
        k, v = best_peer(impls)
        if re.fullmatch(r"W[12][a-f]", w) and v:
            line(">= 2x best peer (NCHW)", f"{w} {t}T", f"{v / g:.2f}x ({k})", v / g >= 2.0)
        if re.fullmatch(r"W3[abc]", w) and v:
            line(">= 5x best peer", f"{w} {t}T", f"{v / g:.2f}x ({k})", v / g >= 5.0)
        if w == "W3d":
            tri = times.get(("W3a", t), {}).get("gridops")
            if tri:
                line("tricubic <= 8x own trilinear", f"W3d {t}T", f"{g / tri:.2f}x", g / tri <= 8.0)
        if w in ORT_MS and t == 1:
            line(">= 2x ONNX Runtime's figure", f"{w} {t}T", f"{g:.3f} ms vs {ORT_MS[w]} ms",
                 g <= ORT_MS[w] / 2)
            if t in copy_bw and (w, t) in nbytes:
                gbs = nbytes[(w, t)] / (g * 1e-3) / 1e9
                line(">= 0.6 of copy bandwidth", f"{w} {t}T",
                     f"{gbs:.1f} GB/s = {gbs / copy_bw[t]:.2f} of {copy_bw[t]:.1f}", gbs >= 0.6 * copy_bw[t])
        if re.fullmatch(r"W5[abcd]", wid) and v:
            line("forward >= best peer per layout/type", f"{w} {t}T", f"{v / g:.2f}x ({k})", v / g >= 1.0)
        if re.fullmatch(r"W5[abcd]", wid) and layout in ("nchw", "ncdhw"):
            cl = "nhwc" if layout == "nchw" else "ndhwc"
            other = times.get((w.replace(layout, cl), t), {}).get("gridops")
            if other:
                line("nchw within 2x of own nhwc", f"{w} {t}T", f"{g / other:.2f}x", g / other <= 2.0)
        if re.fullmatch(r"W5[ef]", wid) and v:
            line("backward >= 1.5x best peer", f"{w} {t}T", f"{v / g:.2f}x ({k})", v / g >= 1.5)
        if wid.startswith("W6") and v:
            line(">= 1.5x best peer", f"{w} {t}T", f"{v / g:.2f}x ({k})", v / g >= 1.5)
        if wid.startswith("W7"):
            if v:
                line(">= best peer", f"{w} {t}T", f"{v / g:.2f}x ({k})", v / g >= 1.0)
            mc = impls.get("memcpy_output")
            if mc:
                line(">= 0.8 of memcpy_output", f"{w} {t}T", f"{mc / g:.2f}", mc / g >= 0.8)
        # Two threads vs one: W1-W3 always; W5-W7 where one thread is below copy bandwidth.
        if t == 2 and (w, 1) in times and "gridops" in times[(w, 1)]:
            g1 = times[(w, 1)]["gridops"]
            need = bool(re.match(r"W[123]", wid))
            if re.match(r"W[567]", wid) and 1 in copy_bw and (w, 1) in nbytes:
                need = nbytes[(w, 1)] / (g1 * 1e-3) / 1e9 < copy_bw[1]
            if need:
                line("2T >= 1.7x 1T", w, f"{g1 / g:.2f}x", g1 / g >= 1.7)

    print("| target | row | measured | verdict |")
    print("|---|---|---|---|")
    for l in sorted(set(out), key=out.index):
        print(l)
    met = sum(l.endswith("| MET |") for l in out)
    print(f"\n{met} of {len(out)} target rows met.")

    issue17_bw, ends = copy_reference(paths, times, nbytes)
    if ends:
        for which in ("start", "end"):
            bw = ends.get(which, {})
            print(f"\ncopy bandwidth at the {which} of the run: " +
                  ", ".join(f"{bw[t]:.1f} GB/s at {t} thread(s)" for t in sorted(bw)))
    never_slower(times, nbytes, issue17_bw)


def issue17(w, t, impls, nbytes, copy_bw):
    """Issue 17's rule for one row: None without gridops or a peer, else (ratio, peer, bar,
    verdict, note); verdict is MET, MEMORY LIMIT or MISSED."""
    g = impls.get("gridops")
    k, v = best_peer(impls)
    if g is None or not v:
        return None
    ratio = v / g
    bar, note, at_limit = 1.0, "", False
    b = nbytes.get((w, t))
    bw = copy_bw.get(t)
    if b and bw:
        peer_gbs, own_gbs = b / (v * 1e-3) / 1e9, b / (g * 1e-3) / 1e9
        note = f"; gridops {own_gbs:.1f} GB/s ({own_gbs / bw:.2f}), {k} {peer_gbs:.1f} GB/s ({peer_gbs / bw:.2f}) of {bw:.1f}"
        if peer_gbs < 0.8 * bw:
            bar = 1.2
        at_limit = own_gbs >= 0.8 * bw and peer_gbs >= 0.8 * bw
    # Rows with a write_output reference (outputs larger than their inputs): the time to write
    # the output alone, and each side's fraction of it.
    wo = impls.get("write_output")
    at_write_limit = False
    if wo:
        own_w, peer_w = wo / g, wo / v
        note += f"; output written alone {wo:.3f} ms: gridops at {own_w:.2f}, {k} at {peer_w:.2f} of it"
        at_write_limit = own_w >= 0.8 and peer_w >= 0.8
    if ratio >= bar:
        verdict_s = "MET"
    elif at_limit:
        verdict_s = "MEMORY LIMIT"
    elif at_write_limit and ratio >= 1.0:
        verdict_s = "WRITE LIMIT"
    else:
        verdict_s = "MISSED"
    return ratio, k, bar, verdict_s, note


def never_slower(times, nbytes, copy_bw):
    """Issue 17: no W1-W7 row below the best peer (1.2x where the peer is below 0.8 copy)."""
    rows = []
    for (w, t), impls in sorted(times.items()):
        if not re.match(r"W[1-7]", w):
            continue
        r = issue17(w, t, impls, nbytes, copy_bw)
        if r is None:
            continue
        ratio, k, bar, verdict_s, note = r
        rows.append(f"| {w} {t}T | {ratio:.2f}x {k} (bar {bar:.1f}x){note} | {verdict_s} |")
    if not rows:
        return
    print("\n| issue 17: never slower than a peer | measured (bytes/time against the copy bandwidth) | verdict |")
    print("|---|---|---|")
    for r in rows:
        print(r)
    low = sum(not r.endswith("| MET |") for r in rows)
    print(f"\n{len(rows) - low} of {len(rows)} rows at their bar; {low} below "
          f"({sum(r.endswith('| MEMORY LIMIT |') for r in rows)} of them at the memory limit for both, "
          f"{sum(r.endswith('| WRITE LIMIT |') for r in rows)} at or above the best peer with both at "
          f">= 0.8 of the output-write reference).")


if __name__ == "__main__":
    main(sys.argv[1:])
