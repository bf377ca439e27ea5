#!/usr/bin/env python3
"""Where gridops.torch.enable() starts to pay: each covered PyTorch call at growing sizes,
PyTorch's kernel against gridops' through the drop-in (ops="all", min_elements=0), one
thread, in one process. Prints, per size, "name:output elements:speed-up" (PyTorch time /
gridops time); the defaults of _torch_enable._MIN_ELEMENTS come from such a run
(docs/perf/torch-enable-crossover.md).

    PYTHONPATH=build/release/python /usr/bin/python3 bench/python/torch_enable_crossover.py [NAME...]

(NAMEs: only those cases; the pad backward rows count input elements, the gradient's.)
"""

import sys
import time

import torch
import torch.nn.functional as F

import gridops.torch as gt


def per_call_us(fn, budget=0.1):
    fn()
    t0, k = time.perf_counter(), 0
    while time.perf_counter() - t0 < budget:
        fn()
        k += 1
    return (time.perf_counter() - t0) / k * 1e6


def cases(s):
    gen = torch.Generator().manual_seed(s)
    x = torch.rand(1, 4, s, s, generator=gen)
    g = torch.rand(1, s, s, 2, generator=gen) * 2 - 1
    v = torch.rand(1, 2, max(2, s // 4), s // 2, s // 2, generator=gen)
    g3 = torch.rand(1, max(2, s // 4), s // 2, s // 2, 3, generator=gen) * 2 - 1
    line = torch.rand(1, 4, s * s, generator=gen)
    xr, gr = x.clone().requires_grad_(), g.clone().requires_grad_()
    idx = torch.randint(0, s, (s,), generator=gen)
    th, th3 = torch.rand(1, 2, 3, generator=gen), torch.rand(1, 3, 4, generator=gen)
    yield "grid_sample_2d", lambda: F.grid_sample(x, g, align_corners=False), 4 * s * s
    yield "grid_sample_2d_bicubic", lambda: F.grid_sample(x, g, "bicubic", align_corners=False), 4 * s * s
    yield "grid_sample_3d", lambda: F.grid_sample(v, g3, align_corners=False), 2 * g3[..., 0].numel()
    yield "grid_sample_2d+backward", lambda: torch.autograd.grad(
        F.grid_sample(xr, gr, align_corners=False).sum(), (xr, gr)), 4 * s * s
    yield "affine_grid", lambda: F.affine_grid(th, [1, 4, s, s], align_corners=False), 2 * s * s
    yield "affine_grid_3d", lambda: F.affine_grid(th3, [1, 1, max(1, s // 4), s, s],
                                                  align_corners=False), 3 * s * s * max(1, s // 4)
    yield "pad_constant", lambda: F.pad(x, (1, 2, 1, 2)), 4 * (s + 3) ** 2
    yield "pad_reflect", lambda: F.pad(x, (1, 2, 1, 2), mode="reflect"), 4 * (s + 3) ** 2
    yield "pad_replicate", lambda: F.pad(x, (1, 2, 1, 2), mode="replicate"), 4 * (s + 3) ** 2
    yield "pad_reflect_3d", lambda: F.pad(v, (1, 1, 1, 1, 1, 1), mode="reflect"), v.numel()
    # The pad backwards alone (the aten operator autograd calls), input elements
    gx = torch.rand(1, 4, s + 3, s + 3, generator=gen)
    gl = torch.rand(1, 4, s * s + 3, generator=gen)
    gv = torch.rand(*v.shape[:2], *(n + 2 for n in v.shape[2:]), generator=gen)
    yield "pad_reflect_backward", lambda: torch.ops.aten.reflection_pad2d_backward(
        gx, x, [1, 2, 1, 2]), x.numel()
    yield "pad_replicate_backward", lambda: torch.ops.aten.replication_pad2d_backward(
        gx, x, [1, 2, 1, 2]), x.numel()
    yield "pad_reflect_1d_backward", lambda: torch.ops.aten.reflection_pad1d_backward(
        gl, line, [1, 2]), line.numel()
    yield "pad_replicate_3d_backward", lambda: torch.ops.aten.replication_pad3d_backward(
        gv, v, [1, 1, 1, 1, 1, 1]), v.numel()
    # The upsample backwards alone (2x up, antialiased 2x down), grad_output elements
    up = torch.rand(1, 4, 2 * s, 2 * s, generator=gen)
    down = torch.rand(1, 4, s // 2, s // 2, generator=gen)
    size4, out2, half = list(x.shape), [2 * s, 2 * s], [s // 2, s // 2]
    aten = torch.ops.aten
    yield "bicubic_backward", lambda: aten.upsample_bicubic2d_backward(
        up, out2, size4, False, None, None), up.numel()
    yield "bilinear_backward", lambda: aten.upsample_bilinear2d_backward(
        up, out2, size4, False, None, None), up.numel()
    vup = torch.rand(*v.shape[:2], *(2 * n for n in v.shape[2:]), generator=gen)
    yield "trilinear_backward", lambda: aten.upsample_trilinear3d_backward(
        vup, list(vup.shape[2:]), list(v.shape), False, None, None, None), vup.numel()
    lup = torch.rand(1, 4, 2 * s * s, generator=gen)
    yield "linear_1d_backward", lambda: aten.upsample_linear1d_backward(
        lup, [2 * s * s], list(line.shape), False, None), lup.numel()
    yield "bilinear_align_corners_backward", lambda: aten.upsample_bilinear2d_backward(
        up, out2, size4, True, None, None), up.numel()
    yield "nearest_exact_backward", lambda: aten._upsample_nearest_exact2d_backward(
        up, out2, size4, None, None), up.numel()
    yield "nearest_backward", lambda: aten.upsample_nearest2d_backward(
        up, out2, size4, None, None), up.numel()
    yield "bilinear_aa_backward", lambda: aten._upsample_bilinear2d_aa_backward(
        down, half, size4, False, None, None), down.numel()
    yield "bicubic_aa_backward", lambda: aten._upsample_bicubic2d_aa_backward(
        down, half, size4, False, None, None), down.numel()
    yield "index_select", lambda: torch.index_select(x, 3, idx), 4 * s * s
    yield "nearest", lambda: F.interpolate(x, scale_factor=2.0, mode="nearest"), 16 * s * s
    yield "nearest_exact", lambda: F.interpolate(x, scale_factor=2.0, mode="nearest-exact"), 16 * s * s
    yield "linear_1d", lambda: F.interpolate(line, scale_factor=2.0, mode="linear"), 2 * line.numel()
    yield "bilinear", lambda: F.interpolate(x, scale_factor=2.0, mode="bilinear"), 16 * s * s
    yield "bicubic", lambda: F.interpolate(x, scale_factor=2.0, mode="bicubic"), 16 * s * s
    yield "trilinear", lambda: F.interpolate(v, scale_factor=2.0, mode="trilinear"), 8 * v.numel()
    yield "bilinear_aa", lambda: F.interpolate(x, scale_factor=0.5, mode="bilinear",
                                               antialias=True), x.numel() // 4
    yield "bicubic_aa", lambda: F.interpolate(x, scale_factor=0.5, mode="bicubic",
                                              antialias=True), x.numel() // 4
    yield "bilinear+backward", lambda: torch.autograd.grad(
        F.interpolate(xr, scale_factor=2.0, mode="bilinear").sum(), xr), 16 * s * s


def main():
    # Optional arguments: names of cases to run (default: all).
    only = set(sys.argv[1:])
    torch.set_num_threads(1)
    print("size name:output elements:speed-up ...")
    for s in (8, 16, 32, 64, 128, 256):
        row = []
        for name, fn, n in cases(s):
            if only and name not in only:
                continue
            off = per_call_us(fn)
            with gt.enabled(ops="all", min_elements=0):
                on = per_call_us(fn)
            row.append(f"{name}:{n}:{off / on:.2f}")
        print(s, " ".join(row), flush=True)


if __name__ == "__main__":
    main()
