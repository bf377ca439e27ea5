#!/usr/bin/env python3
"""gridops.torch.enable() on real model code: the same PyTorch function timed with enable()
off and on, in one process, at batch 1 and 8 and 1 and 2 threads (issue 50's cases).

    PYTHONPATH=build/release/python /usr/bin/python3 bench/python/torch_enable_bench.py \
        [--filter msda] [--budget 1.0] [--json out.json]

Each row: the median over 5 rounds of the median of repeated calls (after a warm-up), off
and on interleaved in each round, in alternating order, so that a change of the host's
load or of the heap's state hits both; speed-up = off / on. Forward only, under
torch.no_grad() (inference), except the rows named "+backward" (a training step's
forward and backward through the covered operators).
"""

import argparse
import json
import math
import statistics
import time

import torch
import torch.nn.functional as F

import gridops.torch as gt


# --- model code, written as its projects write it (pure PyTorch) -------------------------------

def ms_deform_attn_core(value, spatial_shapes, sampling_locations, attention_weights):
    """The pure-PyTorch core of multi-scale deformable attention (Deformable DETR, DINO,
    Mask2Former): a grid_sample per level, then a weighted sum."""
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


def raft_backward_warp(feat, flow):
    """RAFT-style backward warp: sample feat at pixel + flow (align_corners=True)."""
    b, _, h, w = feat.shape
    ys, xs = torch.meshgrid(torch.arange(h, dtype=feat.dtype), torch.arange(w, dtype=feat.dtype),
                            indexing="ij")
    x = 2 * (xs + flow[:, 0]) / (w - 1) - 1
    y = 2 * (ys + flow[:, 1]) / (h - 1) - 1
    return F.grid_sample(feat, torch.stack((x, y), dim=-1), mode="bilinear",
                         padding_mode="zeros", align_corners=True)


def warp_affine(img, theta, size):
    """Kornia-style warp_affine of an augmentation batch (normalized theta)."""
    grid = F.affine_grid(theta, [img.shape[0], img.shape[1], *size], align_corners=False)
    return F.grid_sample(img, grid, mode="bilinear", padding_mode="zeros", align_corners=False)


def volume_affine_resample(vol, theta):
    grid = F.affine_grid(theta, list(vol.shape), align_corners=False)
    return F.grid_sample(vol, grid, mode="bilinear", padding_mode="border", align_corners=False)


def volume_interpolate(vol):
    return F.interpolate(vol, scale_factor=1.25, mode="trilinear", align_corners=False)


def unet_decoder_step(x, skip):
    """UNet decoder (as the common PyTorch UNet writes it): upsample, pad to the skip's
    size, concatenate (the concatenation is PyTorch's in both rows)."""
    up = F.interpolate(x, scale_factor=2, mode="bilinear", align_corners=False)
    dy, dx = skip.shape[2] - up.shape[2], skip.shape[3] - up.shape[3]
    up = F.pad(up, [dx // 2, dx - dx // 2, dy // 2, dy - dy // 2])
    return torch.cat([skip, up], dim=1)


def unet_upsample_pad(x, skip):
    """The decoder step's interpolate + pad alone."""
    up = F.interpolate(x, scale_factor=2, mode="bilinear", align_corners=False)
    dy, dx = skip.shape[2] - up.shape[2], skip.shape[3] - up.shape[3]
    return F.pad(up, [dx // 2, dx - dx // 2, dy // 2, dy - dy // 2])


# --- cases ----------------------------------------------------------------------------------

def cases(batch, gen):
    r = lambda *s: torch.rand(*s, generator=gen)  # noqa: E731
    shapes = [(64, 64), (32, 32), (16, 16), (8, 8)]
    lq, m, d, p = 300, 8, 32, 4  # decoder queries, heads, head dim, points
    value = r(batch, sum(h * w for h, w in shapes), m, d)
    loc = r(batch, lq, m, len(shapes), p, 2)
    aw = torch.softmax(r(batch, lq, m, len(shapes) * p), -1).view(batch, lq, m, len(shapes), p)
    yield "msda", (lambda: ms_deform_attn_core(value, shapes, loc, aw)), False
    feat = r(batch, 64, 96, 128)
    flow = (r(batch, 2, 96, 128) - 0.5) * 8
    yield "raft_warp", (lambda: raft_backward_warp(feat, flow)), False
    img = r(batch, 3, 256, 256)
    ang = r(batch) - 0.5
    theta = torch.stack([torch.stack([ang.cos(), -ang.sin(), 0.1 * ang], -1),
                         torch.stack([ang.sin(), ang.cos(), -0.1 * ang], -1)], 1)
    yield "warp_affine", (lambda: warp_affine(img, theta, (224, 224))), False
    if batch == 1:  # a CT volume: batch 1 only (8 volumes of 128^3 would be the same per volume)
        vol = r(1, 1, 128, 128, 128)
        t3 = torch.tensor([[[0.95, 0.05, 0.0, 0.02], [-0.05, 0.95, 0.0, 0.0],
                            [0.0, 0.0, 1.0, -0.03]]])
        yield "volume_affine_grid_sample", (lambda: volume_affine_resample(vol, t3)), False
        yield "volume_interpolate", (lambda: volume_interpolate(vol)), False
    x = r(batch, 64, 63, 63)
    skip = r(batch, 32, 127, 127)
    yield "unet_decoder", (lambda: unet_decoder_step(x, skip)), False
    yield "unet_upsample_pad", (lambda: unet_upsample_pad(x, skip)), False
    tiny = r(batch, 3, 8, 8)
    tiny_grid = r(batch, 8, 8, 2) * 2 - 1
    yield "tiny_grid_sample_8x8", (lambda: F.grid_sample(tiny, tiny_grid, align_corners=False)), False
    fx = r(batch, 64, 96, 128).requires_grad_()
    ff = ((r(batch, 2, 96, 128) - 0.5) * 8).requires_grad_()
    yield "raft_warp+backward", (lambda: raft_backward_warp(fx, ff).sum().backward()), True


def median_time(fn, reps):
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def measure(fn, grad, budget):
    ctx = torch.enable_grad if grad else torch.no_grad
    with ctx():
        fn()
        with gt.enabled():
            fn()  # warm-up both (plans, first-touch pages)
        t0 = time.perf_counter()
        fn()
        one = max(time.perf_counter() - t0, 1e-6)
        reps = max(3, min(50, int(budget / 2 / one / 5)))
        off, on = [], []
        for r in range(5):  # interleaved rounds, the order alternating (the heap's state
            # after one side's calls favours the side that runs next)
            for side in ((0, 1) if r % 2 == 0 else (1, 0)):
                if side == 0:
                    off.append(median_time(fn, reps))
                else:
                    with gt.enabled():
                        on.append(median_time(fn, reps))
    return statistics.median(off), statistics.median(on)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--filter", default="")
    ap.add_argument("--budget", type=float, default=1.0, help="seconds per row (about)")
    ap.add_argument("--threads", type=int, nargs="*", default=[1, 2])
    ap.add_argument("--batch", type=int, nargs="*", default=[1, 8])
    ap.add_argument("--json", default="")
    a = ap.parse_args()
    rows = []
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads available")
    print("| case | batch | threads | enable() off ms | on ms | speed-up | fallbacks |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | --- |")
    for threads in a.threads:
        torch.set_num_threads(threads)
        for batch in a.batch:
            for name, fn, grad in cases(batch, torch.Generator().manual_seed(0)):
                if a.filter and a.filter not in name:
                    continue
                gt.reset_fallback_counts()
                off, on = measure(fn, grad, a.budget)
                falls = sum(gt.fallback_counts().values())
                rows.append(dict(case=name, batch=batch, threads=threads, off_s=off, on_s=on,
                                 speedup=off / on, fallbacks=falls,
                                 served=gt.served_counts()))
                print(f"| {name} | {batch} | {threads} | {off * 1e3:.2f} | {on * 1e3:.2f} | "
                      f"{off / on:.2f} | {falls} |", flush=True)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(dict(torch=torch.__version__, rows=rows), f, indent=1)


if __name__ == "__main__":
    main()
