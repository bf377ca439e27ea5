"""Output-chunk granularity of gridops.dask.affine_warp on one worker (1 GiB, 128^3 input
blocks): alternates output chunks of 128^3, 128x128x256, 128x256x256 and 128x512x512 with
gridops in memory, per round; prints wall, task compute, idle gaps, worker CPU and minor
faults. PYTHONPATH=build/rel/python /usr/bin/python3 granularity_probe.py ROUNDS"""
import os, sys, time, numpy as np, dask, dask.array as da, distributed, gridops, gridops.dask as gd
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
from dask_bench import _proc_stat, _breakdown
def main():
    D,H,W=1024,512,512; ch=128
    vol=np.random.default_rng(0).random((1,1,D,H,W),dtype=np.float32)
    a=np.deg2rad(12.0)
    theta=np.array([[[np.cos(a),-np.sin(a),0,0.03],[np.sin(a),np.cos(a),0,-0.02],[0,0,1,0]]],np.float32)
    env={"distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_": 2**30,
         "distributed.nanny.pre-spawn-environ.MALLOC_MMAP_THRESHOLD_": 2**25}
    with dask.config.set(env):
        cluster=distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True, memory_limit=0, dashboard_address=None, silence_logs=40)
        client=distributed.Client(cluster)
    x=client.persist(da.from_array(vol, chunks=(1,1)+(ch,)*3).map_blocks(np.copy)); distributed.wait(x)
    pids=list(client.run(os.getpid).values())
    gs={c: gd.affine_warp(x, theta, mode="bilinear", padding_mode="border", threads=1, output_chunks=c) for c in [(128,128,128),(128,128,256),(128,256,256),(128,512,512)]}
    gridops.set_num_threads(1)
    res={c: [] for c in gs}
    ys={}
    for rnd in range(int(sys.argv[1])):
        t=time.perf_counter(); out=gridops.affine_warp(vol,theta,(D,H,W),"bilinear","border"); tm=time.perf_counter()-t; del out
        for c,g in gs.items():
            if c in ys: client.cancel(ys.pop(c)); time.sleep(0.3)
            b=[_proc_stat(p) for p in pids]; t0=time.time(); t=time.perf_counter()
            with distributed.get_task_stream(client) as st:
                y=client.persist(g); distributed.wait(y)
            w=time.perf_counter()-t; ys[c]=y
            bd=_breakdown(st.data, t0, w, b, [_proc_stat(p) for p in pids])
            res[c].append((w, bd["worker_cpu_s"][0], bd["gaps_s_per_worker"][0], bd["compute_s_per_worker"][0], tm))
            print(f"round {rnd} load {os.getloadavg()[0]:.1f} chunks {c}: tasks {bd['tasks']} wall {w:.3f} compute {bd['compute_s_per_worker'][0]:.3f} gaps {bd['gaps_s_per_worker'][0]:.3f} first {bd['first_task_s']*1e3:.0f} ms cpu {bd['worker_cpu_s'][0]:.2f} minflt {bd['worker_minflt'][0]} | in-mem {tm:.3f}", flush=True)
    for c,r in res.items():
        r=np.array(r[1:])
        print(c, "median wall %.3f cpu %.3f gaps %.3f compute %.3f; median wall/in-mem %.2f" % tuple(list(np.median(r[:,:4],0))+[np.median(r[:,0]/r[:,4])]))
    client.close(); cluster.close()
if __name__=="__main__": main()
