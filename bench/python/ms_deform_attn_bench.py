#!/usr/bin/env python3
"""W11: multi-scale deformable attention, gridops.torch.ms_deform_attn against the pure-PyTorch
core (F.grid_sample per level and the weighted sum, as the model repositories ship it) on
PyTorch's CPU kernels, forward and forward + backward, at 1 and 2 threads, in one process.
Deformable-DETR shapes: M = 8 heads, D = 32, L = 4 levels of an 800x1066 image at strides
8-64, P = 4; encoder Lq = S, decoder Lq = 300; N = 1 and 2. Prints one markdown row per case
with the medians (ms), the speed-up, and gridops' bytes moved per second against the copy
bandwidth of the same process (a 64 MiB tensor copy at that thread count). The bytes moved
are a lower bound of what the operator must read and write once: sampling_locations,
attention_weights, the output, and of value the smaller of its size and the bytes its taps
read (the decoder's 300 queries touch at most half of it); with the backward also the
output gradient read and the three input gradients written (the value gradient whole). The
last column is the forward's tap reads per second: 4 bilinear taps of D = 32 floats (128
bytes) per sampling point, head and query, from wherever in the cache hierarchy they are.

    PYTHONPATH=build/release/python /usr/bin/python3 bench/python/ms_deform_attn_bench.py [--reps 5]
"""

import argparse
import statistics
import time

import torch
import torch.nn.functional as F

import gridops.torch as gt

SHAPES = [(100, 134), (50, 67), (25, 34), (13, 17)]
M, D, P = 8, 32, 4  # heads, channels per head, points per level (L = len(SHAPES) levels)


def core(value, spatial_shapes, sampling_locations, attention_weights):
    n, _, m, d = value.shape
    _, lq, _, levels, points, _ = sampling_locations.shape
    value_list = value.split([h * w for h, w in spatial_shapes], dim=1)
    grids = 2 * sampling_locations - 1
    samples = []
    for lid, (h, w) in enumerate(spatial_shapes):
        value_l = value_list[lid].flatten(2).transpose(1, 2).reshape(n * m, d, h, w)
        grid_l = grids[:, :, :, lid].transpose(1, 2).flatten(0, 1)
        samples.append(F.grid_sample(value_l, grid_l, mode="bilinear", padding_mode="zeros",
                                     align_corners=False))
    weights = attention_weights.transpose(1, 2).reshape(n * m, 1, lq, levels * points)
    out = (torch.stack(samples, dim=-2).flatten(-2) * weights).sum(-1).view(n, m * d, lq)
    return out.transpose(1, 2).contiguous()


def timed(fn, reps):
    fn()
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1e3


def copy_gbs(threads, reps):
    """GB/s of a 64 MiB float32 tensor copy (read and write counted) at `threads` threads."""
    torch.set_num_threads(threads)
    src = torch.rand(16 << 20)
    dst = torch.empty_like(src)
    ms = timed(lambda: dst.copy_(src), max(reps, 5))
    return 2 * src.numel() * 4 / (ms * 1e-3) / 1e9


def tap_bytes(n, lq):
    """The bytes the forward's bilinear taps read: 4 rows of D floats per point, head, query."""
    return n * lq * M * len(SHAPES) * P * 4 * D * 4


def bytes_moved(n, s, lq, backward):
    """A lower bound of the bytes gridops' kernels must read and write (see the module doc)."""
    levels = len(SHAPES)
    value, out = 4 * n * s * M * D, 4 * n * lq * M * D
    loc, att = 4 * n * lq * M * levels * P * 2, 4 * n * lq * M * levels * P
    forward = min(value, tap_bytes(n, lq)) + loc + att + out
    if not backward:
        return forward
    # The forward, then the backward: reads value, loc, att and the output gradient, writes
    # the three gradients.
    return 2 * forward + value + loc + att


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=5)
    args = ap.parse_args()
    s = sum(h * w for h, w in SHAPES)
    starts = [0]
    for h, w in SHAPES[:-1]:
        starts.append(starts[-1] + h * w)
    bandwidth = {t: copy_gbs(t, args.reps) for t in (1, 2)}
    print("copy bandwidth (64 MiB tensor copy): " +
          " / ".join(f"{bandwidth[t]:.1f}" for t in (1, 2)) + " GB/s at 1 / 2 threads\n")
    print("| case | threads | PyTorch core (ms) | gridops (ms) | speed-up | gridops GB/s (of copy) "
          "| tap reads GB/s |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for n in (1, 2):
        for name, lq in (("encoder", s), ("decoder", 300)):
            gen = torch.Generator().manual_seed(0)
            levels = len(SHAPES)
            value = torch.randn(n, s, M, D, generator=gen)
            loc = torch.rand(n, lq, M, levels, P, 2, generator=gen)
            att = torch.softmax(torch.randn(n, lq, M, levels * P, generator=gen),
                                -1).view(n, lq, M, levels, P)
            grad = torch.randn(n, lq, M * D, generator=gen)
            for threads in (1, 2):
                torch.set_num_threads(threads)
                for backward in (False, True):
                    def run(f):
                        if not backward:
                            with torch.no_grad():
                                return lambda: f(value, loc, att)
                        v, l, a = (t.clone().requires_grad_() for t in (value, loc, att))
                        return lambda: torch.autograd.grad(f(v, l, a), (v, l, a), grad)
                    ref = timed(run(lambda v, l, a: core(v, SHAPES, l, a)), args.reps)
                    ours = timed(run(lambda v, l, a: gt.ms_deform_attn(v, SHAPES, starts, l, a)),
                                 args.reps)
                    case = f"N={n} {name} (Lq={lq}){' + backward' if backward else ''}"
                    gbs = bytes_moved(n, s, lq, backward) / (ours * 1e-3) / 1e9
                    taps = "" if backward else f"{tap_bytes(n, lq) / (ours * 1e-3) / 1e9:.1f}"
                    print(f"| {case} | {threads} | {ref:.2f} | {ours:.2f} | {ref / ours:.2f}x | "
                          f"{gbs:.1f} ({gbs / bandwidth[threads]:.2f}) | {taps} |", flush=True)


if __name__ == "__main__":
    main()
