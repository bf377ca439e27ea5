"""Out of core: warp and resample a Zarr volume larger than the workers' memory with
gridops.dask on a distributed.LocalCluster, write the results back to Zarr with a progress
bar, spot-check sub-volumes against gridops in memory, and report time and peak memory.

    PYTHONPATH=build/release/python /usr/bin/python3 examples/python/out_of_core_zarr.py \\
        [--shape 1024 512 512] [--chunk 64] [--workers 2] [--memory-limit 256MiB] [--dir DIR]

The volume (float32, default 1 GiB) is created chunk by chunk in DIR (default: a temporary
directory, removed at the end); the worker memory limit must stay well below it. See
docs/dask.md.
"""

import argparse
import os
import resource
import shutil
import sys
import tempfile
import time

import numpy as np

import dask
import dask.array as da
import dask.utils
import distributed
import zarr
from distributed.diagnostics.progressbar import progress

import gridops
import gridops.dask as gd


def peak_rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def parse_bytes(s: str) -> int:
    return int(dask.utils.parse_bytes(s))


def run(client, arr, store, what):
    """Writes arr to a new Zarr array in store with a progress bar; returns the seconds."""
    t = time.perf_counter()
    job = da.to_zarr(arr, store, overwrite=True, compute=False)
    fut = client.compute(job)
    print(f"{what}:", flush=True)
    progress(fut)
    fut.result()
    print(flush=True)
    return time.perf_counter() - t


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shape", type=int, nargs=3, default=[1024, 512, 512], metavar=("D", "H", "W"))
    ap.add_argument("--chunk", type=int, default=64)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--threads", type=int, default=1, help="gridops threads per task")
    ap.add_argument("--memory-limit", default="256MiB", help="per worker")
    ap.add_argument("--dir", default=None)
    ap.add_argument("--checks", type=int, default=6, help="sub-volumes to spot-check per result")
    args = ap.parse_args()

    D, H, W = args.shape
    nbytes = D * H * W * 4
    limit = parse_bytes(args.memory_limit)
    print(f"volume {D} x {H} x {W} float32 = {nbytes / 2**30:.2f} GiB; {args.workers} workers x "
          f"{limit / 2**20:.0f} MiB = {args.workers * limit / 2**30:.2f} GiB of worker memory")
    if args.workers * limit >= nbytes:
        print("note: the workers' memory is not below the volume size")
    root = args.dir or tempfile.mkdtemp(prefix="gridops-zarr-")
    made_root = args.dir is None
    cluster = distributed.LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True,
                                       memory_limit=limit, dashboard_address=None, silence_logs=40)
    client = distributed.Client(cluster)
    try:
        c = args.chunk
        shape5 = (1, 1, D, H, W)
        chunks5 = (1, 1, c, c, c)
        src_path = os.path.join(root, "input.zarr")
        # The input: a smooth volume plus noise, generated per chunk on the workers.
        rs = da.random.RandomState(16)
        vol = rs.random_sample(shape5, chunks=chunks5).astype(np.float32)
        zz = da.arange(D, chunks=c, dtype=np.float32)[None, None, :, None, None]
        vol = vol + da.sin(zz / 17.0)
        t_make = run(client, vol, zarr.DirectoryStore(src_path), "writing the input volume")
        x = da.from_zarr(src_path)
        print(f"input written in {t_make:.1f} s: {x.shape}, chunks {x.chunksize}")

        # 1. An affine warp: a rotation about the volume's center (trilinear, border padding).
        a = np.deg2rad(12.0)
        theta = np.array([[[np.cos(a), -np.sin(a), 0.0, 0.03],
                           [np.sin(a), np.cos(a), 0.0, -0.02],
                           [0.0, 0.0, 1.0, 0.0]]], np.float32)
        warped = gd.affine_warp(x, theta, mode="bilinear", padding_mode="border", threads=args.threads)
        warp_path = os.path.join(root, "warped.zarr")
        t_warp = run(client, warped, zarr.DirectoryStore(warp_path), "affine warp -> warped.zarr")

        # 2. A resampling to half size in every spatial axis (linear).
        small = gd.resample(x, scale_factor=0.5, mode="linear", threads=args.threads)
        small_path = os.path.join(root, "half.zarr")
        t_res = run(client, small, zarr.DirectoryStore(small_path), "resample x0.5 -> half.zarr")

        worker_peak = client.run(lambda: resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0)

        # Spot checks: sub-volumes of the results against gridops in memory on that
        # sub-volume's input box, read straight from Zarr, with the whole volume's
        # coordinates (the windows: bit-identical to the operator on the whole volume).
        rng = np.random.default_rng(0)
        zin = zarr.open(src_path, mode="r")
        zw = zarr.open(warp_path, mode="r")
        zs = zarr.open(small_path, mode="r")
        checked = 0
        for _ in range(args.checks):
            size = [int(rng.integers(1, 40)) for _ in range(3)]
            o = [int(rng.integers(0, n - s + 1)) for n, s in zip((D, H, W), size)]
            box = gridops.affine_warp_input_box(theta, (D, H, W), (D, H, W), o, size, "bilinear", "border")
            part = zin[(0, slice(0, 1)) + tuple(slice(lo, hi) for lo, hi in box)][None]
            want = gridops.affine_warp(part, theta, (D, H, W), "bilinear", "border", window=(o, size),
                                       full_size=(D, H, W), origin=[lo for lo, _ in box])
            got = zw[(slice(0, 1), slice(0, 1)) + tuple(slice(b, b + s) for b, s in zip(o, size))]
            assert np.array_equal(want.view(np.uint32), got.view(np.uint32)), "warp: sub-volume differs"
            od = [n // 2 for n in (D, H, W)]
            s2 = [min(s, n) for s, n in zip(size, od)]
            o2 = [int(rng.integers(0, n - s + 1)) for n, s in zip(od, s2)]
            rbox = gridops.resample_input_box((D, H, W), od, o2, [b + s for b, s in zip(o2, s2)], "linear")
            rpart = zin[(slice(0, 1), slice(0, 1)) + tuple(slice(lo, hi) for lo, hi in rbox)]
            rwant = gridops.resample(rpart, size=s2, mode="linear",
                                     window=((D, H, W), od, [lo for lo, _ in rbox], o2))
            rgot = zs[(slice(0, 1), slice(0, 1)) + tuple(slice(b, b + s) for b, s in zip(o2, s2))]
            assert np.array_equal(rwant.view(np.uint32), rgot.view(np.uint32)), "resample: sub-volume differs"
            checked += 2
        print(f"spot checks: {checked} sub-volumes bit-identical to gridops in memory")
        print(f"time: input {t_make:.1f} s, affine warp {t_warp:.1f} s, resample {t_res:.1f} s "
              f"({nbytes / 2**20 / t_warp:.0f} and {nbytes / 2**20 / t_res:.0f} MiB/s of input)")
        peaks = ", ".join(f"{v:.0f}" for v in worker_peak.values())
        print(f"peak RSS: workers {peaks} MiB (limit {limit / 2**20:.0f} MiB each), "
              f"driver {peak_rss_mib():.0f} MiB; volume {nbytes / 2**20:.0f} MiB")
    finally:
        client.close()
        cluster.close()
        if made_root:
            shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
