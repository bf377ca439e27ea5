"""Two-worker placement probe for gridops.dask.affine_warp (1 GiB, 128^3 blocks): per run,
gridops in memory at 2 threads, then the Dask warp, and the MiB received by the workers
from each other. VARIANT: default | slab (input blocks placed by halves of D) | nosteal /
slab-nosteal (work stealing off) | repl (client.replicate the input) | repl-noamm (and
the active memory manager off, so replicas stay) | 1x2 (one worker, two threads).
PYTHONPATH=build/rel/python /usr/bin/python3 placement_probe.py VARIANT RUNS"""
import os, sys, time, numpy as np, dask, dask.array as da, distributed, gridops, gridops.dask as gd
def main():
    D,H,W=1024,512,512; ch=128
    variant=sys.argv[1]; reps=int(sys.argv[2])
    vol=np.random.default_rng(0).random((1,1,D,H,W),dtype=np.float32)
    a=np.deg2rad(12.0)
    theta=np.array([[[np.cos(a),-np.sin(a),0,0.03],[np.sin(a),np.cos(a),0,-0.02],[0,0,1,0]]],np.float32)
    env={"distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_": 2**30,
         "distributed.nanny.pre-spawn-environ.MALLOC_MMAP_THRESHOLD_": 2**25}
    nw, tpw = (1, 2) if variant == "1x2" else (2, 1)
    if "nosteal" in variant: env["distributed.scheduler.work-stealing"] = False
    if "noamm" in variant: env["distributed.scheduler.active-memory-manager.start"] = False
    with dask.config.set(env):
        cluster=distributed.LocalCluster(n_workers=nw, threads_per_worker=tpw, processes=True, memory_limit=0, dashboard_address=None, silence_logs=40)
        client=distributed.Client(cluster)
    ws=sorted(client.scheduler_info()["workers"])
    x=da.from_array(vol, chunks=(1,1)+(ch,)*3).map_blocks(np.copy)
    if variant.startswith("slab"):
        nd=x.numblocks[2]
        with dask.annotate(workers=lambda k: [ws[0]] if k[3] < nd//2 else [ws[1]], allow_other_workers=False):
            x=x.map_blocks(np.copy)
        x=client.persist(x, optimize_graph=False)
    else:
        x=client.persist(x)
    distributed.wait(x)
    if variant.startswith("repl"):
        client.replicate(x)
    who=client.who_has(x); print(variant, "blocks per worker", {w[-5:]: sum(1 for v in who.values() if w in v) for w in ws})
    g=gd.affine_warp(x, theta, mode="bilinear", padding_mode="border", threads=1)
    def inc(dask_worker):
        log=getattr(dask_worker,"transfer_incoming_log",None)
        if log is None: log=getattr(dask_worker,"incoming_transfer_log",[])
        n=sum(e.get("total",0) for e in log)
        import collections
        c=collections.Counter(str(k).split("'")[1][:30] if "'" in str(k) else str(k)[:30] for e in log for k in e.get("keys",()))
        print("TRANSFER KEYS", dict(c), flush=True)
        log.clear(); return n
    y=None
    gridops.set_num_threads(2)
    for rep in range(reps):
        if y is not None: client.cancel(y); del y; time.sleep(0.5)
        t=time.perf_counter(); out=gridops.affine_warp(vol,theta,(D,H,W),"bilinear","border"); tm=time.perf_counter()-t; del out; time.sleep(0.2)
        client.run(inc)
        t=time.perf_counter(); y=client.persist(g); distributed.wait(y); td=time.perf_counter()-t
        mib=sum(client.run(inc).values())/2**20
        print(f"{variant} rep {rep}: load {os.getloadavg()[0]:.1f} in-memory 2T {tm:.3f} s, dask {td:.3f} s, ratio {td/tm:.2f}, transferred {mib:.0f} MiB", flush=True)
    client.close(); cluster.close()
if __name__=="__main__": main()
