#!/usr/bin/env python3
"""gridops from Python against the Python peers on the workloads W1a-W7a of
../shared/bench/WORKLOADS.md, in one run: PyTorch (torch.nn.functional), SciPy (ndimage),
OpenCV (cv2) and NumPy where they compute the same thing. Prints a Markdown table.

    PYTHONPATH=build/release/python /usr/bin/python3 bench/python/bench.py [--threads 1] [--filter W2a]

Times are medians of repeated calls after a warm-up (each row runs for about --budget
seconds); gridops writes into preallocated outputs (out=), and so do the peers that can
(torch.index_select, np.take, cv2.remap/resize with dst=); the others allocate. The
speed-up column is peer time / gridops time, against gridops on the same layout (peers
on interleaved NHWC data against gridops' channels-last call). Also measured: the per-call cost of a tiny
GridSample (1x3x8x8) and two Python threads calling at once.
"""

import argparse
import math
import os
import statistics
import subprocess
import threading
import time

import numpy as np
import torch
import torch.nn.functional as F

import gridops

try:
    import cv2
except ImportError:  # python3-opencv (scripts/setup.sh bench)
    cv2 = None
try:
    from scipy import ndimage
except ImportError:
    ndimage = None


def timeit(fn, budget, min_reps=3, max_reps=200):
    fn()  # warm-up
    times = []
    t_end = time.perf_counter() + budget
    while len(times) < max_reps and (len(times) < min_reps or time.perf_counter() < t_end):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1e3, len(times)


def pixel_coords(grid, sizes):
    """Normalized grid (align_corners=False) -> pixel coordinates, axis order (x, y, z)."""
    return [((grid[..., k] + 1) * sizes[k] - 1) / 2 for k in range(grid.shape[-1])]


def w1a(rng):
    x = rng.standard_normal((4, 64, 128, 128)).astype(np.float32)
    g = rng.uniform(-1.1, 1.1, (4, 128, 128, 2)).astype(np.float32)
    out = np.empty((4, 64, 128, 128), np.float32)
    xt, gt = torch.from_numpy(x), torch.from_numpy(g)
    rows = {"gridops": lambda: gridops.grid_sample(x, g, out=out),
            "torch": lambda: F.grid_sample(xt, gt, "bilinear", "zeros", False)}
    if cv2 is not None:
        x_nhwc = np.ascontiguousarray(x.transpose(0, 2, 3, 1))
        px, py = pixel_coords(g, (128, 128))
        px, py = px.astype(np.float32), py.astype(np.float32)
        dst = np.empty_like(x_nhwc)
        x_cl = np.ascontiguousarray(x.transpose(0, 2, 3, 1))
        out_cl = np.empty_like(x_cl)
        rows["gridops (channels_last)"] = lambda: gridops.grid_sample(x_cl, g, layout="channels_last", out=out_cl)

        def remap():
            for n in range(4):
                cv2.remap(x_nhwc[n], px[n], py[n], cv2.INTER_LINEAR, dst=dst[n], borderMode=cv2.BORDER_CONSTANT)
        rows["OpenCV remap (NHWC)"] = remap
    if ndimage is not None:
        qx, qy = pixel_coords(g.astype(np.float64), (128, 128))

        def mapc():
            for n in range(4):
                for c in range(64):
                    ndimage.map_coordinates(x[n, c], [qy[n], qx[n]], order=1, mode="constant", cval=0.0,
                                            prefilter=False)
        rows["SciPy map_coordinates"] = mapc
    return rows


def smooth_grid(h, w):
    ys, xs = np.meshgrid(np.linspace(-1, 1, h), np.linspace(-1, 1, w), indexing="ij")
    a, s = math.radians(10), 1.05
    gx = (math.cos(a) * xs - math.sin(a) * ys) / s + 0.02 * np.sin(6 * math.pi * ys)
    gy = (math.sin(a) * xs + math.cos(a) * ys) / s + 0.02 * np.sin(6 * math.pi * xs)
    return np.stack([gx, gy], -1)[None].astype(np.float32)


def w2a(rng):
    x = rng.random((1, 3, 1024, 1024), np.float32)
    g = smooth_grid(1024, 1024)
    out = np.empty_like(x)
    xt, gt = torch.from_numpy(x), torch.from_numpy(g)
    rows = {"gridops": lambda: gridops.grid_sample(x, g, out=out),
            "torch": lambda: F.grid_sample(xt, gt, "bilinear", "zeros", False)}
    x_cl = np.ascontiguousarray(x.transpose(0, 2, 3, 1))
    out_cl = np.empty_like(x_cl)
    rows["gridops (channels_last)"] = lambda: gridops.grid_sample(x_cl, g, layout="channels_last", out=out_cl)
    px, py = pixel_coords(g, (1024, 1024))
    if cv2 is not None:
        x_hwc = np.ascontiguousarray(x[0].transpose(1, 2, 0))
        mx, my = px[0].astype(np.float32), py[0].astype(np.float32)
        dst = np.empty_like(x_hwc)
        rows["OpenCV remap (HWC)"] = lambda: cv2.remap(x_hwc, mx, my, cv2.INTER_LINEAR, dst=dst,
                                                       borderMode=cv2.BORDER_CONSTANT)
        m1, m2 = cv2.convertMaps(mx, my, cv2.CV_16SC2)
        rows["OpenCV remap (fixed-point map)"] = lambda: cv2.remap(x_hwc, m1, m2, cv2.INTER_LINEAR, dst=dst,
                                                                   borderMode=cv2.BORDER_CONSTANT)
    if ndimage is not None:
        coords = [py[0].astype(np.float64), px[0].astype(np.float64)]
        rows["SciPy map_coordinates"] = lambda: [ndimage.map_coordinates(x[0, c], coords, order=1, mode="constant",
                                                                         prefilter=False) for c in range(3)]
    return rows


def w3a(rng):
    x = rng.standard_normal((1, 16, 64, 64, 64)).astype(np.float32)
    g = rng.uniform(-1, 1, (1, 64, 64, 64, 3)).astype(np.float32)
    out = np.empty_like(x)
    xt, gt = torch.from_numpy(x), torch.from_numpy(g)
    rows = {"gridops": lambda: gridops.grid_sample(x, g, out=out),
            "torch": lambda: F.grid_sample(xt, gt, "bilinear", "zeros", False)}
    if ndimage is not None:
        px, py, pz = pixel_coords(g.astype(np.float64), (64, 64, 64))
        coords = [pz[0], py[0], px[0]]
        rows["SciPy map_coordinates"] = lambda: [ndimage.map_coordinates(x[0, c], coords, order=1, mode="constant",
                                                                         prefilter=False) for c in range(16)]
    return rows


def w4a(rng):
    theta = rng.standard_normal((8, 2, 3)).astype(np.float32)
    size = (8, 3, 512, 512)
    out = np.empty((8, 512, 512, 2), np.float32)
    tt = torch.from_numpy(theta)
    xs = (np.arange(512, dtype=np.float32) * 2 + 1) / 512 - 1
    base = np.stack(np.broadcast_arrays(xs[None, :], xs[:, None], np.float32(1)), -1).astype(np.float32)

    def numpy_affine():
        np.einsum("hwk,njk->nhwj", base, theta, out=out, optimize=True)
    return {"gridops": lambda: gridops.affine_grid(theta, size, out=out),
            "torch": lambda: F.affine_grid(tt, list(size), align_corners=False),
            "NumPy einsum": numpy_affine}


def w5a(rng):
    x = rng.standard_normal((8, 64, 64, 64)).astype(np.float32)
    out = np.empty((8, 64, 128, 128), np.float32)
    xt = torch.from_numpy(x)
    plan = gridops.ResamplePlan(x.shape, (128, 128), "linear")
    rows = {"gridops": lambda: plan(x, out=out),
            "torch": lambda: F.interpolate(xt, size=(128, 128), mode="bilinear", align_corners=False)}
    x_cl = np.ascontiguousarray(x.transpose(0, 2, 3, 1))
    out_cl = np.empty((8, 128, 128, 64), np.float32)
    plan_cl = gridops.ResamplePlan(x.shape, (128, 128), "linear", layout="channels_last")
    rows["gridops (nhwc)"] = lambda: plan_cl(x_cl, out=out_cl)
    xt_cl = xt.contiguous(memory_format=torch.channels_last)
    rows["torch (channels_last)"] = lambda: F.interpolate(xt_cl, size=(128, 128), mode="bilinear",
                                                          align_corners=False)
    if cv2 is not None:
        def resize():
            for n in range(8):
                cv2.resize(x_cl[n], (128, 128), dst=out_cl[n], interpolation=cv2.INTER_LINEAR)
        rows["OpenCV resize (nhwc)"] = resize
    if ndimage is not None:
        rows["SciPy zoom"] = lambda: ndimage.zoom(x, (1, 1, 2, 2), order=1, grid_mode=True, mode="nearest",
                                                  prefilter=False)
    return rows


def w6a(rng):
    data = rng.standard_normal((100000, 256)).astype(np.float32)
    idx = rng.integers(0, 100000, 50000).astype(np.int64)
    out = np.empty((50000, 256), np.float32)
    dt, it = torch.from_numpy(data), torch.from_numpy(idx)
    tout = torch.empty(50000, 256)
    return {"gridops": lambda: gridops.gather(data, idx, 0, out=out),
            "torch": lambda: torch.index_select(dt, 0, it, out=tout),
            "NumPy take": lambda: np.take(data, idx, 0, out=out)}


def w7a(rng):
    x = rng.standard_normal((8, 64, 128, 128)).astype(np.float32)
    out = np.empty((8, 64, 134, 134), np.float32)
    xt = torch.from_numpy(x)
    plan = gridops.PadPlan(x.shape, [3, 3, 3, 3], "float32", axes=[2, 3])
    rows = {"gridops": lambda: plan(x, out=out),
            "torch": lambda: F.pad(xt, (3, 3, 3, 3)),
            "NumPy pad": lambda: np.pad(x, ((0, 0), (0, 0), (3, 3), (3, 3)))}
    if cv2 is not None:
        def border():
            for n in range(8):
                for c in range(64):
                    cv2.copyMakeBorder(x[n, c], 3, 3, 3, 3, cv2.BORDER_CONSTANT, dst=out[n, c], value=0)
        rows["OpenCV copyMakeBorder (per plane)"] = border
    return rows


WORKLOADS = {"W1a": w1a, "W2a": w2a, "W3a": w3a, "W4a": w4a, "W5a": w5a, "W6a": w6a, "W7a": w7a}


def tiny_call(budget):
    x = np.random.default_rng(0).random((1, 3, 8, 8), np.float32)
    g = np.random.default_rng(1).uniform(-1, 1, (1, 8, 8, 2)).astype(np.float32)
    out = np.empty((1, 3, 8, 8), np.float32)
    plan = gridops.GridSamplePlan(x.shape, g.shape)
    old = gridops.get_num_threads()
    gridops.set_num_threads(1)
    res = {}
    for name, fn in [("grid_sample(x, g, out=out)", lambda: gridops.grid_sample(x, g, out=out)),
                     ("grid_sample(x, g)", lambda: gridops.grid_sample(x, g)),
                     ("GridSamplePlan(x, g, out=out)", lambda: plan(x, g, out=out))]:
        n = 2000
        best = float("inf")
        t_end = time.perf_counter() + budget
        while time.perf_counter() < t_end:
            t0 = time.perf_counter()
            for _ in range(n):
                fn()
            best = min(best, (time.perf_counter() - t0) / n)
        res[name] = best * 1e6
    gridops.set_num_threads(old)
    return res


def two_threads(budget):
    """Two Python threads calling W2a-sized GridSample at once, gridops at one thread each."""
    old = gridops.get_num_threads()
    gridops.set_num_threads(1)
    try:
        x = np.random.default_rng(0).random((1, 3, 512, 512), np.float32)
        g = smooth_grid(512, 512)
        outs = [np.empty_like(x) for _ in range(2)]
        reps = 10

        def work(k):
            for _ in range(reps):
                gridops.grid_sample(x, g, out=outs[k])

        work(0)
        t0 = time.perf_counter()
        work(0)
        work(1)
        serial = time.perf_counter() - t0
        ts = [threading.Thread(target=work, args=(k,)) for k in range(2)]
        t0 = time.perf_counter()
        for t in ts:
            t.start()
        for t in ts:
            t.join()
        parallel = time.perf_counter() - t0
        return serial * 1e3, parallel * 1e3
    finally:
        gridops.set_num_threads(old)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--threads", type=int, default=1, help="threads for gridops and torch (default 1)")
    ap.add_argument("--filter", default="", help="only workloads whose name contains this")
    ap.add_argument("--budget", type=float, default=1.0, help="seconds per row (default 1)")
    ap.add_argument("--cpp-tiny", default="", help="the gridops_tiny_call program (default: next to the package)")
    args = ap.parse_args()
    gridops.set_num_threads(args.threads)
    torch.set_num_threads(args.threads)
    if cv2 is not None:
        cv2.setNumThreads(args.threads)
    rng = np.random.default_rng(42)
    print(f"gridops {gridops.__version__}, torch {torch.__version__}, numpy {np.__version__}, "
          f"OpenCV {cv2.__version__ if cv2 else 'missing'}, threads {args.threads}, "
          f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs\n")
    print("| workload | implementation | ms (median) | calls | gridops speed-up |")
    print("| --- | --- | ---: | ---: | ---: |")
    for name, make in WORKLOADS.items():
        if args.filter not in name:
            continue
        rows = make(rng)
        base = {}  # gridops' time per layout: peers on interleaved data compare with gridops'
        for impl, fn in rows.items():
            ms, n = timeit(fn, args.budget)
            interleaved = any(k in impl for k in ("nhwc", "NHWC", "HWC", "channels_last", "fixed-point"))
            if impl.startswith("gridops"):
                base[interleaved] = ms
                ratio = ""
            else:
                b = base.get(interleaved, base.get(False))
                ratio = f"{ms / b:.2f}x" if b else ""
            print(f"| {name} | {impl} | {ms:.2f} | {n} | {ratio} |", flush=True)
    if not args.filter or "tiny" in args.filter:
        print("\nTiny GridSample 1x3x8x8 (float32, grid 1x8x8x2, one thread), best mean per call:")
        for k, us in tiny_call(args.budget).items():
            print(f"- Python {k}: {us:.2f} us")
        cpp = args.cpp_tiny or os.path.join(os.path.dirname(os.path.dirname(gridops.__file__)), "gridops_tiny_call")
        if os.path.exists(cpp):
            for line in subprocess.run([cpp], capture_output=True, text=True, check=True).stdout.splitlines():
                print(f"- C++ {line}")
        else:
            print(f"- C++: {cpp} missing (cmake --build BUILD --target gridops_tiny_call)")
    if not args.filter or "threads" in args.filter:
        serial, parallel = two_threads(args.budget)
        print(f"\nTwo Python threads, 10 GridSample calls (1x3x512x512, one gridops thread each): "
              f"one after the other {serial:.1f} ms, at once {parallel:.1f} ms, speed-up {serial / parallel:.2f}x")


if __name__ == "__main__":
    main()
