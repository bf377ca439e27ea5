#!/usr/bin/env python3
"""Unmodified PyTorch model code on gridops: the pure-PyTorch core of multi-scale deformable
attention (as Deformable DETR, DINO and Mask2Former write it: one F.grid_sample per feature
level), run with gridops.torch.enable() off and on, from the same inputs.

    PYTHONPATH=build/release/python /usr/bin/python3 examples/python/torch_dropin.py [--batch 1]

Prints both times (median of --repeat calls), the speed-up, the largest difference between
the two outputs and what gridops served. Exits 1 if the outputs differ by more than the
float32 tolerance of docs/python.md (1e-5 x (1 + max |value|)) or if a call fell back.
"""

import argparse
import statistics
import sys
import time

import torch
import torch.nn.functional as F

import gridops.torch as gt


def ms_deform_attn_core(value, spatial_shapes, sampling_locations, attention_weights):
    n, _, m, d = value.shape
    _, lq, m, nl, p, _ = sampling_locations.shape
    value_list = value.split([h * w for h, w in spatial_shapes], dim=1)
    grids = 2 * sampling_locations - 1
    samples = []
    for lid, (h, w) in enumerate(spatial_shapes):
        v = value_list[lid].flatten(2).transpose(1, 2).reshape(n * m, d, h, w)
        g = grids[:, :, :, lid].transpose(1, 2).flatten(0, 1)
        samples.append(F.grid_sample(v, g, mode="bilinear", padding_mode="zeros",
                                     align_corners=False))
    attention_weights = attention_weights.transpose(1, 2).reshape(n * m, 1, lq, nl * p)
    out = (torch.stack(samples, dim=-2).flatten(-2) * attention_weights).sum(-1)
    return out.view(n, m * d, lq).transpose(1, 2).contiguous()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--batch", type=int, default=1)
    ap.add_argument("--queries", type=int, default=300)
    ap.add_argument("--repeat", type=int, default=5)
    a = ap.parse_args()
    gen = torch.Generator().manual_seed(0)
    shapes = [(64, 64), (32, 32), (16, 16), (8, 8)]
    heads, dim, points = 8, 32, 4
    value = torch.rand(a.batch, sum(h * w for h, w in shapes), heads, dim, generator=gen)
    loc = torch.rand(a.batch, a.queries, heads, len(shapes), points, 2, generator=gen)
    aw = torch.softmax(torch.rand(a.batch, a.queries, heads, len(shapes) * points,
                                  generator=gen), -1).view(a.batch, a.queries, heads,
                                                           len(shapes), points)

    def timed():
        times, out = [], None
        for _ in range(a.repeat):
            t0 = time.perf_counter()
            out = ms_deform_attn_core(value, shapes, loc, aw)
            times.append(time.perf_counter() - t0)
        return out, statistics.median(times)

    with torch.no_grad():
        want, t_off = timed()
        gt.reset_fallback_counts()
        with gt.enabled():
            got, t_on = timed()
    err = (want - got).abs().max().item()
    tol = 1e-5 * (1 + want.abs().max().item())
    print(f"output {tuple(want.shape)}; PyTorch {t_off * 1e3:.2f} ms, with gridops.torch.enable() "
          f"{t_on * 1e3:.2f} ms ({t_off / t_on:.2f}x); largest difference {err:.3g} (tolerance "
          f"{tol:.3g}); served {gt.served_counts()}")
    if err > tol or gt.fallback_counts():
        print(f"FAILED: fallbacks {gt.fallback_counts()}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
