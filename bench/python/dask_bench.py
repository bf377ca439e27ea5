"""gridops.dask against the SciPy recipe on Dask (docs/dask.md; table in docs/BENCHMARKS.md).

A float32 volume (1, 1, D, H, W) held in worker memory (aligned blocks, as a worker holds
data it loaded) is resampled to half size (linear,
half-pixel) and affine-warped (a rotation, trilinear, border padding) through Dask on a
distributed.LocalCluster with worker processes (1 and 2 workers, 1 thread each;
--threads-per-worker 2 --workers 1 for one process with two task threads):

- gridops: gridops.dask.resample (default output chunks: 64 MiB of input per task) /
  affine_warp (output chunks = input chunks), threads=1 per task;
- SciPy: the dask-image recipe (dask_image.ndinterp.affine_transform, written out here since
  Debian has no dask-image): per output chunk, the input slice its transformed corners
  need plus a halo of 1, then scipy.ndimage.affine_transform(order=1, mode="nearest") on it;
- gridops in memory on the whole volume (1 and 2 threads), when it fits, for the overhead
  of the chunking: gridops.resample and gridops.affine_warp (the fused AffineGrid +
  GridSample that gridops.dask.affine_warp runs per chunk).

The results are checked against each other (SciPy computes in float64: |diff| <= 1e-3 on
values in [0, 2]; gridops.dask against gridops in memory: bit-identical). Times are the
best of --repeat runs of compute() of the whole result into worker memory (persist, wait).
gridops in memory is timed back to back with gridops.dask: each repeat runs the in-memory
call (at min(workers x threads per worker, 2) threads, in the client process while the
cluster idles) right before the Dask run, so that both sides see the same machine load;
both produce a new output array every run. --breakdown prints, per Dask run, where the
time went (distributed's task stream: task compute time per worker, the idle gaps between
the tasks of each worker thread, the latency to the first task, transfers between workers;
the workers' CPU time and minor page faults from /proc).

    PYTHONPATH=build/release/python /usr/bin/python3 bench/python/dask_bench.py [--shape 1024 512 512]
        [--chunk 128] [--repeat 2] [--json out.json] [--default-malloc] [--breakdown]
        [--workers 1 2] [--threads-per-worker 1] [--skip-scipy-above GiB]
"""

import argparse
import itertools
import json
import os
import sys
import time

import numpy as np
import scipy.ndimage as ndi

import dask
import dask.array as da
import distributed

import gridops
import gridops.dask as gd


# --- the SciPy recipe (dask-image's affine_transform, for matrix M and offset o: input
# coordinate = M @ output index + o, axis order D, H, W) -------------------------------


def _scipy_block(block, matrix, offset, out_shape):
    return ndi.affine_transform(block[0, 0], matrix, offset, output_shape=out_shape, order=1,
                                mode="nearest")[None, None]


def scipy_affine(x, matrix, offset, out_shape, out_chunks):
    """dask-image's recipe: one task per output chunk reading the input slice its corners
    map to (plus a halo of 1 for order 1), scipy.ndimage.affine_transform on it."""
    in_shape = x.shape[2:]
    starts = [np.concatenate([[0], np.cumsum(c)]) for c in out_chunks]
    blocks = np.empty(tuple(len(c) for c in out_chunks), dtype=object)
    for idx in itertools.product(*(range(len(c)) for c in out_chunks)):
        lo = np.array([starts[d][i] for d, i in enumerate(idx)], float)
        hi = np.array([starts[d][i + 1] for d, i in enumerate(idx)], float) - 1
        corners = np.array(list(itertools.product(*zip(lo, hi))))
        mapped = corners @ matrix.T + offset
        a = np.clip(np.floor(mapped.min(0)).astype(int) - 1, 0, np.array(in_shape) - 1)
        b = np.clip(np.ceil(mapped.max(0)).astype(int) + 2, 1, np.array(in_shape))
        sub = x[(slice(None), slice(None)) + tuple(slice(int(p), int(q)) for p, q in zip(a, b))]
        shape = tuple(int(hi[d] - lo[d] + 1) for d in range(3))
        part = dask.delayed(_scipy_block)(sub, matrix, offset + matrix @ lo - a, shape)
        blocks[idx] = da.from_delayed(part, (1, 1) + shape, dtype=x.dtype)
    return da.block(blocks.tolist())


def theta_to_pixels(theta, in_shape, out_shape):
    """The pixel-space map of gridops' affine warp (align_corners=False): input index (D, H,
    W order) = M @ output index + o."""
    r = 3
    # base_j(i) = (2 i + 1) / L_j - 1 along output axis j; grid component k belongs to input
    # axis r-1-k; x_k = ((g_k + 1) * L_in - 1) / 2.
    M = np.zeros((3, 3))
    o = np.zeros(3)
    for k in range(r):
        ax_in = r - 1 - k
        Lin = in_shape[ax_in]
        const = theta[k, r]
        for j in range(r):
            ax_out = r - 1 - j  # c_j runs along output axis r-1-j
            Lout = out_shape[ax_out]
            M[ax_in, ax_out] += theta[k, j] * 2.0 / Lout * Lin / 2.0
            const += theta[k, j] * (1.0 / Lout - 1.0)
        o[ax_in] = ((const + 1.0) * Lin - 1.0) / 2.0
    return M, o


def _proc_stat(pid):
    """(CPU seconds, minor page faults) of a process, from /proc/<pid>/stat (Linux)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    # fields[0] is the state (stat field 3): minflt is field 10, utime 14, stime 15.
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK"), int(fields[7])


def _breakdown(stream, t0, wall, cpu_before, cpu_after):
    """A summary of one Dask run from distributed's task stream (records with per-action
    start/stop times) and the workers' /proc counters before and after it."""
    per_thread, actions = {}, {}
    for rec in stream:
        for s in rec["startstops"]:
            actions[s["action"]] = actions.get(s["action"], 0.0) + s["stop"] - s["start"]
            if s["action"] == "compute":
                per_thread.setdefault((rec["worker"], rec.get("thread")), []).append((s["start"], s["stop"]))
    busy, gaps, first, last = {}, {}, [], []
    for (worker, _), spans in per_thread.items():
        spans.sort()
        busy[worker] = busy.get(worker, 0.0) + sum(b - a for a, b in spans)
        gaps[worker] = gaps.get(worker, 0.0) + sum(spans[i + 1][0] - spans[i][1] for i in range(len(spans) - 1))
        first.append(spans[0][0] - t0)
        last.append(spans[-1][1] - t0)
    workers = sorted(busy)
    busy = [busy[w] for w in workers]
    gaps = [gaps[w] for w in workers]
    return {"wall_s": wall, "tasks": sum(len(v) for v in per_thread.values()),
            "compute_s_per_worker": busy, "gaps_s_per_worker": gaps,
            "first_task_s": min(first), "last_task_end_s": max(last),
            "actions_s": actions,
            "worker_cpu_s": [a[0] - b[0] for a, b in zip(cpu_after, cpu_before)],
            "worker_minflt": [a[1] - b[1] for a, b in zip(cpu_after, cpu_before)]}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shape", type=int, nargs=3, default=[1024, 512, 512])
    ap.add_argument("--chunk", type=int, default=128)
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--threads-per-worker", type=int, default=1,
                    help="Dask threads per worker process (gridops runs 1 thread per task)")
    ap.add_argument("--skip-scipy-above", type=float, default=1e9, help="GiB")
    ap.add_argument("--json", default=None)
    ap.add_argument("--default-malloc", action="store_true",
                    help="keep distributed's worker malloc settings (MALLOC_TRIM_THRESHOLD_=65536)")
    ap.add_argument("--placement", choices=["slabs", "pinned", "scheduler"], default="slabs",
                    help="slabs (default): worker i holds the i-th slab of D chunks of the input "
                         "and distributed places the tasks; pinned: the same slabs, and every "
                         "gridops task annotated with its slab's worker; scheduler: distributed "
                         "places the input too")
    ap.add_argument("--warp-chunks", type=int, nargs=3, default=None, metavar=("D", "H", "W"),
                    help="output chunks of the affine warp (default: the input's chunks)")
    ap.add_argument("--breakdown", action="store_true",
                    help="print where each Dask run's time went (task stream, transfers, worker CPU)")
    args = ap.parse_args()
    breakdowns = []
    D, H, W = args.shape
    gib = D * H * W * 4 / 2**30
    rng = np.random.default_rng(0)
    vol = rng.random((1, 1, D, H, W), dtype=np.float32)
    a = np.deg2rad(12.0)
    theta = np.array([[[np.cos(a), -np.sin(a), 0.0, 0.03],
                       [np.sin(a), np.cos(a), 0.0, -0.02],
                       [0.0, 0.0, 1.0, 0.0]]], np.float32)
    half = [D // 2, H // 2, W // 2]
    rows = []
    print(f"load average at start {os.getloadavg()[0]:.1f}")
    print(f"volume {D} x {H} x {W} float32 ({gib:.2f} GiB), chunks {args.chunk}^3, worker malloc "
          + ("distributed's default" if args.default_malloc else "gridops.dask.worker_config() (MALLOC_ARENA_MAX=1, MALLOC_TRIM_THRESHOLD_=2 GiB, MALLOC_MMAP_THRESHOLD_=32 MiB)")
          + f", input placement {args.placement}")

    # gridops in memory, whole volume: the reference results (timed below, back to back
    # with the Dask runs).
    gridops.set_num_threads(2)
    ref_r = gridops.resample(vol, size=half, mode="linear")
    # The same operator the Dask path runs per chunk: the fused affine_warp.
    ref_w = gridops.affine_warp(vol, theta, (D, H, W), "bilinear", "border")
    mem_ops = (lambda: gridops.resample(vol, size=half, mode="linear"),
               lambda: gridops.affine_warp(vol, theta, (D, H, W), "bilinear", "border"))
    M_r = np.diag([2.0, 2.0, 2.0])
    o_r = np.array([0.5, 0.5, 0.5])
    M_w, o_w = theta_to_pixels(theta[0].astype(np.float64), (D, H, W), (D, H, W))
    tpw = args.threads_per_worker
    for nw in args.workers:
        # distributed starts workers with MALLOC_TRIM_THRESHOLD_=65536, which also fixes
        # glibc's mmap threshold at 128 KiB: every task's output (MiBs) is then a fresh
        # mmap whose pages fault in on first write (measured in a worker on a 128^3 chunk:
        # affine_warp 14 ms instead of 9, resample 0.75 ms instead of 0.22). Unless
        # --default-malloc, the workers run under gridops.dask.worker_config() and keep
        # freed memory for reuse instead (both the gridops and the SciPy tasks run in these
        # workers); docs/dask.md, "Worker memory settings".
        environ = {} if args.default_malloc else gd.worker_config()
        with dask.config.set(environ):
            cluster = distributed.LocalCluster(n_workers=nw, threads_per_worker=tpw, processes=True,
                                               memory_limit=0, dashboard_address=None, silence_logs=40)
        client = distributed.Client(cluster)
        t_mem = min(nw * tpw, os.cpu_count() or 1, 2)
        paired = {}
        try:
            x = da.from_array(vol, chunks=(1, 1) + (args.chunk,) * 3)
            # Blocks shipped from the client are deserialized in place, about a third of them
            # at odd byte offsets, which gridops (and the box assembly) would copy in every
            # task; a worker that loads or computes its data (Zarr, an earlier step) holds
            # aligned blocks, so the volume is copied once in the workers, as such data.
            if args.placement in ("slabs", "pinned"):
                # Worker i holds the i-th slab of D chunks, as workers that each load a slab
                # of a stored volume would; "scheduler" leaves the placement to distributed
                # (here it interleaves the blocks of the two workers like a checkerboard).
                addrs = sorted(client.scheduler_info()["workers"])
                nd = len(x.chunks[2])
                with dask.annotate(workers=lambda k: [addrs[min(k[3] * len(addrs) // nd, len(addrs) - 1)]],
                                   allow_other_workers=False):
                    xc = x.map_blocks(np.copy)
                x = client.persist(xc, optimize_graph=False)
            else:
                x = client.persist(x.map_blocks(np.copy))
            distributed.wait(x)
            pids = list(client.run(os.getpid).values())

            def incoming(dask_worker):  # bytes received from other workers since the last call
                log = getattr(dask_worker, "transfer_incoming_log", None)
                if log is None:
                    log = getattr(dask_worker, "incoming_transfer_log", [])
                n = sum(e.get("total", 0) for e in log)
                log.clear()
                return n

            def timed(arr, mem_op, label):
                # Each run computes from scratch: the previous run's result is released
                # first (persisting the same graph again would return the cached result).
                # mem_op (gridops in memory, t_mem threads) runs right before each Dask run.
                ts, tm = [], []
                y = None
                for rep in range(args.repeat):
                    if y is not None:
                        client.cancel(y)
                        del y
                        time.sleep(0.5)
                    if mem_op is not None:
                        gridops.set_num_threads(t_mem)
                        t = time.perf_counter()
                        out = mem_op()
                        tm.append(time.perf_counter() - t)
                        assert out.dtype == np.float32
                        del out
                        time.sleep(0.2)
                    client.run(incoming)
                    before = [_proc_stat(p) for p in pids]
                    t0 = time.time()
                    t = time.perf_counter()
                    if args.breakdown:
                        with distributed.get_task_stream(client) as stream:
                            y = client.persist(arr, optimize_graph=arr.name not in placed_names)
                            distributed.wait(y)
                    else:
                        y = client.persist(arr, optimize_graph=arr.name not in placed_names)
                        distributed.wait(y)
                    ts.append(time.perf_counter() - t)
                    if args.breakdown:
                        bd = _breakdown(stream.data, t0, ts[-1], before, [_proc_stat(p) for p in pids])
                        bd["transfer_MiB"] = sum(client.run(incoming).values()) / 2**20
                        bd["in_memory_s"] = tm[-1] if tm else None
                        breakdowns.append({"op": label, "workers": nw, "repeat": rep, **bd})
                        f = lambda v: "[" + ", ".join(f"{u:.3f}" for u in v) + "]"
                        print(f"    {label} run {rep}: wall {ts[-1]:.3f} s"
                              + (f" (in memory just before: {tm[-1]:.3f} s, ratio {ts[-1] / tm[-1]:.2f})" if tm else "")
                              + f"; {bd['tasks']} tasks, compute per worker {f(bd['compute_s_per_worker'])} s, "
                              f"idle gaps between tasks {f(bd['gaps_s_per_worker'])} s, first task at "
                              f"{bd['first_task_s'] * 1e3:.0f} ms, last ends at {bd['last_task_end_s']:.3f} s; "
                              f"transfers {bd['actions_s'].get('transfer', 0.0):.3f} s ({bd['transfer_MiB']:.0f} MiB); "
                              f"worker CPU {f(bd['worker_cpu_s'])} s, minor faults {bd['worker_minflt']}", flush=True)
                if tm:  # the ratio of each Dask run to the in-memory run just before it
                    paired[label] = float(np.median([a / b for a, b in zip(ts, tm)]))
                return min(ts), (min(tm) if tm else None), y

            placed_names = set()

            def placed(build):
                # With the input in slabs, each output chunk's task (and each halo pack) is
                # annotated with the worker holding its slab of D chunks: distributed's own
                # placement balances the two queues instead and moves most blocks between
                # the workers (docs/dask.md, "Performance").
                if args.placement != "pinned":
                    return build()
                nd_out = build().numblocks[2]
                with dask.annotate(workers=lambda k: [addrs[min(k[3] * len(addrs) // nd_out, len(addrs) - 1)]],
                                   allow_other_workers=False):
                    arr = build()
                placed_names.add(arr.name)  # persisted unoptimized: the low-level fusion drops annotations
                return arr

            g_res = placed(lambda: gd.resample(x, size=half, mode="linear", threads=1))
            g_warp = placed(lambda: gd.affine_warp(
                x, theta, mode="bilinear", padding_mode="border", threads=1,
                output_chunks=None if args.warp_chunks is None else tuple(args.warp_chunks)))
            tr, mr, yr = timed(g_res, mem_ops[0], "gridops.dask resample")
            tw, mw, yw = timed(g_warp, mem_ops[1], "gridops.dask warp")
            assert np.array_equal(yr.compute(), ref_r) and np.array_equal(yw.compute(), ref_w), \
                "gridops.dask differs from gridops in memory"
            rows.append({"impl": "gridops in memory", "threads": t_mem, "resample_s": mr, "warp_s": mw})
            print(f"gridops in memory, {t_mem} thread(s) (timed back to back with the Dask runs): "
                  f"resample {mr:.2f} s, warp {mw:.2f} s")
            row = {"impl": "gridops.dask", "workers": nw, "threads_per_worker": tpw, "resample_s": tr,
                   "warp_s": tw, "paired_ratio_resample": paired["gridops.dask resample"],
                   "paired_ratio_warp": paired["gridops.dask warp"]}
            print(f"gridops.dask, {nw} worker(s) x {tpw} thread(s): resample {tr:.2f} s, warp {tw:.2f} s")
            if gib <= args.skip_scipy_above:
                s_res = scipy_affine(x, M_r, o_r, half, g_res.chunks[2:])
                s_warp = scipy_affine(x, M_w, o_w, (D, H, W), g_warp.chunks[2:])
                sr, _, zr = timed(s_res, None, "SciPy resample")
                sw, _, zw = timed(s_warp, None, "SciPy warp")
                dr = float(np.abs(zr.compute() - ref_r).max())
                dw = float(np.abs(zw.compute() - ref_w).max())
                assert dr <= 1e-3 and dw <= 1e-3, (dr, dw)
                row.update({"scipy_resample_s": sr, "scipy_warp_s": sw, "max_abs_diff_resample": dr,
                            "max_abs_diff_warp": dw})
                print(f"SciPy recipe, {nw} worker(s) x {tpw} thread(s): resample {sr:.2f} s ({sr / tr:.1f}x gridops), "
                      f"warp {sw:.2f} s ({sw / tw:.1f}x gridops); max |diff| {dr:.1e}, {dw:.1e}")
            print(f"  gridops.dask / gridops in memory ({t_mem} thread(s)): best / best: resample "
                  f"{tr / mr:.2f}x, warp {tw / mw:.2f}x; median of the back-to-back pairs: resample "
                  f"{paired['gridops.dask resample']:.2f}x, warp {paired['gridops.dask warp']:.2f}x")
            rows.append(row)
        finally:
            client.close()
            cluster.close()
    print(f"load average at end {os.getloadavg()[0]:.1f}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"shape": args.shape, "chunk": args.chunk, "rows": rows,
                       "load_average": os.getloadavg(), "breakdown": breakdowns}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
