"""One- or two-worker breakdown of gridops.dask.affine_warp (1 GiB, 128^3 blocks) with the
tasks instrumented: per task the box assembly and the kernel (wall, thread CPU, minor
faults), the task stream, the processes CPU and the inter-worker transfers.
PYTHONPATH=build/rel/python /usr/bin/python3 task_split_probe.py WORKERS inst RUNS"""
import psutil, os, sys, time, json, resource, numpy as np, dask, dask.array as da, distributed, gridops, gridops.dask as gd

def wtask(pieces, rel, box, theta, ranges, out_size, mode, padding_mode, align_corners, full, threads):
    import time, resource, gridops.dask as m
    from gridops import _gridops as g
    rec = getattr(m, "_probe", None)
    if rec is None:
        rec = m._probe = []
    c0 = time.thread_time(); t0 = time.perf_counter(); f0 = resource.getrusage(resource.RUSAGE_THREAD).ru_minflt
    m._set_threads(threads)
    arr = m._box_from_pieces(pieces, rel, box)
    c1 = time.thread_time(); t1 = time.perf_counter(); f1 = resource.getrusage(resource.RUSAGE_THREAD).ru_minflt
    out = g.affine_warp(arr, theta, list(out_size), mode, padding_mode, align_corners,
                        window=([a for a, _ in ranges], [b - a for a, b in ranges]),
                        full_size=list(full), origin=[lo for lo, _ in box[2:]])
    c2 = time.thread_time(); t2 = time.perf_counter(); f2 = resource.getrusage(resource.RUSAGE_THREAD).ru_minflt
    rec.append((t0, t1 - t0, t2 - t1, f1 - f0, f2 - f1, arr.nbytes, sum(len(r) for r in rel), c1 - c0, c2 - c1))
    return out

def main():
    D,H,W = 1024,512,512; ch=128
    nw = int(sys.argv[1]); variant = sys.argv[2] if len(sys.argv) > 2 else ""
    rng = np.random.default_rng(0)
    vol = rng.random((1,1,D,H,W), dtype=np.float32)
    a = np.deg2rad(12.0)
    theta = np.array([[[np.cos(a), -np.sin(a), 0.0, 0.03],[np.sin(a), np.cos(a), 0.0, -0.02],[0.0,0.0,1.0,0.0]]], np.float32)
    gridops.set_num_threads(min(nw,2))
    environ = {"distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_": 2**30,
               "distributed.nanny.pre-spawn-environ.MALLOC_MMAP_THRESHOLD_": 2**25}
    if "sat" in variant:
        environ["distributed.scheduler.worker-saturation"] = float("inf")
    with dask.config.set(environ):
        cluster = distributed.LocalCluster(n_workers=nw, threads_per_worker=1, processes=True, memory_limit=0, dashboard_address=None, silence_logs=40)
        client = distributed.Client(cluster)
    x = da.from_array(vol, chunks=(1,1)+(ch,)*3)
    x = client.persist(x.map_blocks(np.copy)); distributed.wait(x)
    def tb0(dask_worker):
        log = getattr(dask_worker, "transfer_incoming_log", None) or getattr(dask_worker, "incoming_transfer_log", [])
        log.clear()
    client.run(tb0)
    who = client.who_has(x)
    print("input blocks per worker:", {w: sum(1 for v in who.values() if w in v) for w in set(sum(map(list, who.values()), []))})
    g = gd.affine_warp(x, theta, mode="bilinear", padding_mode="border", threads=1)
    if "inst" in variant:
        dsk = dict(g.dask)
        for k, v in dsk.items():
            if isinstance(k, tuple) and k[0] == g.name:
                dsk[k] = (wtask,) + v[1:]
        g = da.Array(dsk, g.name, g.chunks, dtype=g.dtype)
    y=None
    for rep in range(int(sys.argv[3]) if len(sys.argv)>3 else 4):
        # in-memory, back to back
        cp=time.process_time(); tp=time.perf_counter(); ref=gridops.affine_warp(vol, theta, (D,H,W), "bilinear","border"); tmem=time.perf_counter()-tp; cmem=time.process_time()-cp
        del ref
        if y is not None:
            client.cancel(y); del y; time.sleep(0.5)
        client.run(lambda: setattr(__import__("gridops.dask").dask, "_probe", []))
        procs=[psutil.Process(os.getpid())]+[psutil.Process(p) for p in client.run(os.getpid).values()]
        def cpus(): return [sum(p.cpu_times()[:2]) for p in procs]
        cb=cpus()
        t0=time.time(); tp=time.perf_counter()
        with distributed.get_task_stream(client) as ts:
            y = client.persist(g); distributed.wait(y)
        wall=time.perf_counter()-tp
        ca=cpus(); dc=[b-a for a,b in zip(cb,ca)]
        acts={}; comp=[]
        per_w = {}
        for r in ts.data:
            for s in r["startstops"]:
                acts[s["action"]]=acts.get(s["action"],0)+s["stop"]-s["start"]
                if s["action"]=="compute":
                    per_w.setdefault(r["worker"], []).append((s["start"], s["stop"]))
        gaps=[]; first=[]; last=[]; busy=[]
        for w, l in per_w.items():
            l.sort(); first.append(l[0][0]-t0); last.append(l[-1][1]-t0)
            gaps += [l[i+1][0]-l[i][1] for i in range(len(l)-1)]
            busy.append(sum(b-a for a,b in l))
        gaps=np.array(gaps)
        line = (f"rep {rep}: load {os.getloadavg()[0]:.1f} in-mem {tmem:.3f} s cpu {cmem:.3f} s | cpu client+sched {dc[0]:.3f} workers {['%.3f'%v for v in dc[1:]]} | dask wall {wall:.3f} s ({wall/tmem:.2f}x) compute/worker {['%.3f'%b for b in busy]} "
                f"first +{min(first)*1e3:.0f} ms last stop +{max(last)*1e3:.0f} ms, gaps sum {gaps.sum():.3f} med {np.median(gaps)*1e3:.2f} ms max {gaps.max()*1e3:.1f}; actions {json.dumps({k: round(v,3) for k,v in acts.items()})}")
        if "inst" in variant:
            recs = sum(client.run(lambda: __import__("gridops.dask").dask._probe).values(), [])
            R = np.array([r[1:] for r in recs])
            line += (f"\n   tasks {len(R)}: assemble sum {R[:,0].sum():.3f} s, kernel sum {R[:,1].sum():.3f} s (med {np.median(R[:,1])*1e3:.2f} ms), "
                     f"cpu assemble {R[:,6].sum():.3f} kernel {R[:,7].sum():.3f} s, minflt assemble {R[:,2].sum():.0f} kernel {R[:,3].sum():.0f}, box MiB mean {R[:,4].mean()/2**20:.1f}, blocks/task {R[:,5].mean():.1f}")
        def tb(dask_worker):
            log = getattr(dask_worker, "transfer_incoming_log", None) or getattr(dask_worker, "incoming_transfer_log", [])
            n = sum(1 for e in log); b = sum(e.get("total", 0) for e in log)
            keys = sum(len(e.get("keys", ())) for e in log)
            log.clear()
            return (n, keys, b)
        line += f"\n   incoming transfers per worker (msgs, keys, MiB): {[(a, k, round(b/2**20)) for a, k, b in client.run(tb).values()]}"
        print(line, flush=True)
    client.close(); cluster.close()

if __name__=="__main__":
    main()
