#!/usr/bin/env python3
"""Which instruction-set level each side of a benchmark run ran at, from the JSON context the
benchmark binaries record (bench/bench_context.h): "native" (no cap) or every side capped at
one level by scripts/bench.sh's GRIDOPS_BENCH_ISA.

Usage: scripts/bench_isa.py FILE.json...   prints the header lines scripts/bench_table.py and
scripts/bench_targets.py print, and exits 1 when a capped run has a side above its cap (or
files of one run disagree), so that scripts/bench.sh can stop before a mislabelled run."""
import json
import sys

# Levels, lowest first; a side's level is compared with the cap by rank. "default" is
# PyTorch's baseline build of its kernels (no AVX), "baseline" OpenCV's (SSE2).
RANK = {"scalar": 0, "default": 0, "baseline": 0, "sse4": 1, "avx": 1.5, "avx2": 2,
        "avx512": 3, "avx512_bf16": 4}
SIDES = (("gridops", "isa_gridops"), ("PyTorch", "isa_torch"), ("oneDNN", "isa_onednn"),
         ("OpenCV", "isa_opencv"))


def context_of(path):
    with open(path) as f:
        return json.load(f).get("context", {})


def problems(ctx):
    """Sides above the cap in force (the cap: gridops' effective level, which bench.sh
    derives every other side's from). Empty for native runs and files without the keys."""
    req = ctx.get("isa_requested")
    if req in (None, "native"):
        return []
    cap = ctx.get("isa_gridops")
    out = []
    if cap not in RANK:
        return [f"gridops level {cap!r} unknown"]
    for side, key in SIDES[1:]:
        v = ctx.get(key)
        if v is None:
            continue
        if v not in RANK:
            out.append(f"{side} level {v!r} unknown")
        elif RANK[v] > RANK[cap]:
            out.append(f"{side} ran at {v}, above the cap {cap}")
    return out


def sides(ctx):
    parts = []
    for side, key in SIDES:
        if key in ctx:
            detail = ctx.get(key + "_detail", "")
            # OpenCV's detail is its whole feature line: too long for a header.
            parts.append(f"{side} {ctx[key]}" + (f" ({detail})" if detail and side != "OpenCV" else ""))
    return ", ".join(parts)


def describe(ctx):
    """One line: the cap (or native), the host, and each side's level."""
    if "isa_requested" not in ctx:
        return "ISA: not recorded (results from binaries older than the ISA context)"
    req, host = ctx["isa_requested"], ctx.get("isa_host", "?")
    where = f"{ctx.get('cpu_model', '?')}, best level {host}, flags {ctx.get('cpu_flags_level', '?')}"
    if req == "native":
        head = f"ISA: native (no cap) on {where}"
    else:
        cap = ctx.get("isa_gridops", "?")
        asked = "" if req == cap else f" (GRIDOPS_BENCH_ISA={req}; the host's best is {host})"
        head = (f"ISA: every side capped at {cap}{asked} (GRIDOPS_BENCH_ISA) on an {host} host: {where}")
    bad = problems(ctx)
    return f"{head}; ran at: {sides(ctx)}" + (f". WARNING: {'; '.join(bad)}" if bad else "")


def header(paths):
    """Header lines for a set of result files: one when their ISA contexts agree, else one
    per distinct context, naming its files."""
    groups = {}
    for p in paths:
        line = describe(context_of(p))
        groups.setdefault(line, []).append(p)
    if len(groups) == 1:
        return list(groups)
    return [f"{line} [{', '.join(ps)}]" for line, ps in groups.items()] + [
        "WARNING: the files were run at different ISA levels"]


def main(paths):
    for line in header(paths):
        print(line)
    bad = [f"{p}: {x}" for p in paths for x in problems(context_of(p))]
    if len(header(paths)) > 1:
        bad.append("files disagree")
    for x in bad:
        print(f"error: {x}", file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
