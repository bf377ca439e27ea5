"""Per-process spread: several fresh one-worker clusters in turn, each running the 1 GiB
warp RUNS times after one warm-up run, with gridops in memory (1 thread) right before each.
PYTHONPATH=build/rel/python /usr/bin/python3 perprocess_probe.py CLUSTERS RUNS"""
import os, sys, time, numpy as np, dask, dask.array as da, distributed, gridops, gridops.dask as gd
def main():
    D,H,W=1024,512,512; ch=128
    vol=np.random.default_rng(0).random((1,1,D,H,W),dtype=np.float32)
    a=np.deg2rad(12.0)
    theta=np.array([[[np.cos(a),-np.sin(a),0,0.03],[np.sin(a),np.cos(a),0,-0.02],[0,0,1,0]]],np.float32)
    env={"distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_": 2**30,
         "distributed.nanny.pre-spawn-environ.MALLOC_MMAP_THRESHOLD_": 2**25}
    gridops.set_num_threads(1)
    for c in range(int(sys.argv[1])):
        with dask.config.set(env):
            cluster=distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True, memory_limit=0, dashboard_address=None, silence_logs=40)
            client=distributed.Client(cluster)
        x=client.persist(da.from_array(vol, chunks=(1,1)+(ch,)*3).map_blocks(np.copy)); distributed.wait(x)
        g=gd.affine_warp(x, theta, mode="bilinear", padding_mode="border", threads=1)
        y=client.persist(g); distributed.wait(y)  # warm-up: the first run faults in the outputs
        ts=[]; tms=[]
        for r in range(int(sys.argv[2])):
            client.cancel(y); del y; time.sleep(0.5)
            t=time.perf_counter(); out=gridops.affine_warp(vol,theta,(D,H,W),"bilinear","border"); tms.append(time.perf_counter()-t); del out; time.sleep(0.2)
            t=time.perf_counter(); y=client.persist(g); distributed.wait(y); ts.append(time.perf_counter()-t)
        print(f"cluster {c}: load {os.getloadavg()[0]:.1f} dask {['%.3f'%v for v in ts]} in-memory {['%.3f'%v for v in tms]} best/best {min(ts)/min(tms):.2f} median pair {np.median(np.array(ts)/np.array(tms)):.2f}", flush=True)
        client.close(); cluster.close()
if __name__=="__main__": main()
