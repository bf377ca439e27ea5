#!/usr/bin/env python3
"""Best-peer summary: for each workload and thread count, gridops time, the fastest peer
(bandwidth references memcpy/memset/memcpy_output/write_output excluded) and the ratio peer/gridops;
also gridops' own 2-thread speed-up. Input: Google Benchmark JSON files. The first line says
at which instruction-set level each side ran (scripts/bench_isa.py)."""
import sys
from bench_isa import header as isa_header  # noqa: E402 (same folder)
from bench_targets import is_peer, load as load_with_bytes  # noqa: E402 (same folder)


def load(paths):
    return load_with_bytes(paths)[0]


def main(paths):
    rows = load(paths)
    for h in isa_header(paths):
        print(h + "\n")
    print("| workload | threads | gridops ms | best peer | peer ms | peer / gridops | gridops 1T / 2T |")
    print("|---|---|---|---|---|---|---|")
    for (w, t), impls in sorted(rows.items()):
        g = impls.get("gridops")
        if g is None:
            continue
        peers = {k: v for k, v in impls.items() if is_peer(k)}
        speedup = ""
        if t == 2 and (w, 1) in rows and "gridops" in rows[(w, 1)]:
            speedup = f"{rows[(w, 1)]['gridops'] / g:.2f}x"
        if peers:
            k, v = min(peers.items(), key=lambda kv: kv[1])
            print(f"| {w} | {t} | {g:.3f} | {k} | {v:.3f} | {v / g:.2f}x | {speedup} |")
        else:
            print(f"| {w} | {t} | {g:.3f} | – | – | – | {speedup} |")


if __name__ == "__main__":
    main(sys.argv[1:])
