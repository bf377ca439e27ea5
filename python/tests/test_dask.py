"""gridops.dask: for random chunkings (uneven, chunks of 1 element, chunks smaller than the
interpolation halo) every function gives the same bits as the in-memory operator on the
whole array; the graphs have one task per output chunk; and the same holds on a
distributed.LocalCluster with worker processes."""

import itertools

import numpy as np
import pytest

da = pytest.importorskip("dask.array")
dask = pytest.importorskip("dask")

import gridops  # noqa: E402
import gridops.dask as gd  # noqa: E402


def rand_chunks(rng, n, small=False):
    """Uneven chunks of an axis of length n (sizes 1..n//2+1; small: 1..3)."""
    if n == 0:
        return (0,)
    out, left = [], n
    top = 3 if small else max(1, n // 2 + 1)
    while left:
        c = int(min(left, rng.integers(1, top + 1)))
        out.append(c)
        left -= c
    return tuple(out)


def rand_dask(rng, x, small_prob=0.3):
    return da.from_array(x, chunks=tuple(rand_chunks(rng, n, rng.random() < small_prob) for n in x.shape))


def same_bits(a, b):
    a, b = np.asarray(a), np.asarray(b)
    assert a.shape == b.shape and a.dtype == b.dtype, (a.shape, b.shape, a.dtype, b.dtype)
    assert a.tobytes() == b.tobytes(), "differs from the in-memory result"


def key_deps(arr):
    """{output chunk key: the keys its task reads}."""
    from dask.core import get_dependencies
    dsk = dict(arr.__dask_graph__())
    return {k: get_dependencies(dsk, k) for k in arr.dask.layers[arr.name] if k[0] == arr.name}


def tasks(arr):
    """The number of output-chunk tasks of the array's own (last) layer."""
    return sum(1 for k in arr.dask.layers[arr.name] if k[0] == arr.name)


def packs(arr):
    """The halo packs of the array's own layer (at most one per input block)."""
    return [k for k in arr.dask.layers[arr.name] if k[0] != arr.name]


def test_resample_random_chunkings():
    rng = np.random.default_rng(16)
    for it in range(14):
        r = int(rng.integers(1, 4))
        shape = (int(rng.integers(1, 3)), int(rng.integers(1, 4))) + tuple(
            int(rng.integers(1, 9 if r == 3 else 23)) for _ in range(r))
        dt = [np.float32, np.float64, np.float32][it % 3]
        x = rng.standard_normal(shape).astype(dt)
        mode = ["linear", "nearest"][it % 2]
        size = [int(rng.integers(1, 10 if r == 3 else 31)) for _ in range(r)]
        ref = gridops.resample(x, size=size, mode=mode)
        dx = rand_dask(rng, x)
        out_chunks = tuple(rand_chunks(rng, s, rng.random() < 0.5) for s in size) if it % 2 else None
        tb = [None, 1, 300, 3000][it % 4]  # default grouping, one task per input block, small groups
        y = gd.resample(dx, size=size, mode=mode, chunks=out_chunks, task_bytes=tb)
        assert tasks(y) == int(np.prod(y.numblocks))
        same_bits(y.compute(scheduler="sync"), ref)
    # scale_factor as in gridops.resample: floor(in * factor)
    x = rng.standard_normal((1, 2, 13, 7)).astype(np.float32)
    same_bits(gd.resample(rand_dask(rng, x), scale_factor=1.7).compute(), gridops.resample(x, scale_factor=1.7))


def test_resample_aligned_blocks_are_read_alone_and_grouped():
    # x0.5 of 8 x 8 blocks: each block's outputs read exactly that block (no halo, no copy);
    # the default groups blocks into tasks of about task_bytes of input.
    x = np.arange(2 * 32 * 32, dtype=np.float32).reshape(1, 2, 32, 32)
    dx = da.from_array(x, chunks=(1, 1, 8, 8))
    ref = gridops.resample(x, size=[16, 16])
    one = gd.resample(dx, size=[16, 16], task_bytes=1)
    assert one.chunks[2:] == ((4,) * 4, (4,) * 4)
    assert all(len(d) == 1 for d in key_deps(one).values())
    same_bits(one.compute(), ref)
    grouped = gd.resample(dx, size=[16, 16], task_bytes=8 * 8 * 4 * 8)  # 8 blocks per task
    assert grouped.chunks[2:] == ((8, 8), (16,))  # the innermost axis merged first
    assert all(len(d) == 8 for d in key_deps(grouped).values())
    same_bits(grouped.compute(), ref)
    big = gd.resample(dx, size=[16, 16])  # 64 MiB: one task per (N, C) chunk
    assert big.chunks[2:] == ((16,), (16,)) and tasks(big) == 2
    same_bits(big.compute(), ref)


def test_resize_random_chunkings():
    rng = np.random.default_rng(23)
    cms = ["half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric", "tf_half_pixel_for_nn",
           "tf_crop_and_resize", "half_pixel_symmetric"]
    for it in range(14):
        nd = int(rng.integers(1, 5))
        shape = tuple(int(rng.integers(1, 7 if nd == 4 else 16)) for _ in range(nd))
        x = rng.standard_normal(shape).astype([np.float32, np.float64, np.float16][it % 3])
        axes = sorted({int(a) for a in rng.integers(0, nd, size=int(rng.integers(1, nd + 1)))})
        mode = ["nearest", "linear", "cubic"][it % 3]
        kw = dict(coordinate_transformation_mode=cms[it % len(cms)], axes=axes,
                  antialias=bool(mode != "nearest" and it % 2), exclude_outside=bool(it % 4 == 1))
        if kw["coordinate_transformation_mode"] == "tf_crop_and_resize":
            kw["roi"] = [0.1] * len(axes) + [0.8] * len(axes)
            kw["extrapolation_value"] = 3.0
        scales = [float(v) for v in rng.uniform(0.4, 2.6, len(axes))]
        ref = gridops.resize(x, scales=scales, mode=mode, **kw)
        y = gd.resize(rand_dask(rng, x), scales=scales, mode=mode, halo_packs=bool((it // 2) % 2), **kw)
        assert tasks(y) == int(np.prod(y.numblocks))
        same_bits(y.compute(scheduler="sync"), ref)


def test_grid_sample_random_chunkings():
    rng = np.random.default_rng(17)
    for it in range(14):
        r = int(rng.integers(1, 4))
        n = int(rng.integers(1, 3))
        full = tuple(int(rng.integers(1, 8 if r == 3 else 20)) for _ in range(r))
        out = tuple(int(rng.integers(1, 7 if r == 3 else 15)) for _ in range(r))
        x = rng.standard_normal((n, int(rng.integers(1, 4))) + full).astype(np.float32)
        lo = rng.uniform(-1.2, 1.0, r)
        grid = (lo + rng.uniform(0, 0.6, (n,) + out + (r,))).astype([np.float32, np.float64][it % 4 == 3])
        if it % 5 == 0:
            grid.reshape(-1)[:: 7] = np.nan
        mode = ["bilinear", "nearest", "bicubic"][it % 3]
        pm = ["zeros", "border", "reflection"][(it // 3) % 3]
        ac = bool(it % 2)
        ref = gridops.grid_sample(x, grid, mode, pm, ac)
        g = rand_dask(rng, grid) if it % 2 else grid  # dask or NumPy grid
        y = gd.grid_sample(rand_dask(rng, x), g, mode, pm, ac, halo_packs=bool((it // 2) % 2))
        same_bits(y.compute(scheduler="sync"), ref)


def test_grid_sample_conventions_and_extension_paddings_random_chunkings():
    """Pixel and displacement grids (a displacement chunked like the output: each chunk adds
    its points' own coordinates in the whole output), wrap, constant and fill: the same bits
    as the in-memory operator."""
    rng = np.random.default_rng(19)
    for it in range(24):
        r = int(rng.integers(1, 4))
        n = int(rng.integers(1, 3))
        full = tuple(int(rng.integers(1, 8 if r == 3 else 20)) for _ in range(r))
        out = tuple(int(rng.integers(1, 7 if r == 3 else 15)) for _ in range(r))
        x = rng.standard_normal((n, int(rng.integers(1, 4))) + full).astype(np.float32)
        units = ["normalized", "pixels"][it % 2]
        kind = ["absolute", "displacement", "displacement"][it % 3]
        dt = [np.float32, np.float64, np.float16][it % 3 if kind == "displacement" else 0]
        scale = (2.0 if units == "pixels" else 0.3) if kind == "displacement" else 1.0
        if kind == "absolute" and units == "pixels":
            grid = rng.uniform(-2, 2, (n,) + out + (r,)) + np.array(full[::-1], float) * rng.uniform(0, 1, r)
        else:
            grid = rng.uniform(-1.2, 1.2, (n,) + out + (r,)) * scale
        grid = grid.astype(dt)
        mode = ["bilinear", "nearest", "bicubic"][it % 3]
        pm = ["wrap", "constant", "fill", "zeros", "border", "reflection"][(it // 2) % 6]
        fill = 0.5 if pm in ("constant", "fill") else 0.0
        ac = bool((it // 3) % 2)
        kw = dict(grid_units=units, grid_kind=kind, fill_value=fill)
        ref = gridops.grid_sample(x, grid, mode, pm, ac, **kw)
        g = rand_dask(rng, grid) if it % 4 else grid
        y = gd.grid_sample(rand_dask(rng, x), g, mode, pm, ac, **kw)
        same_bits(y.compute(scheduler="sync"), ref)


def test_affine_grid_points_are_affine_grid():
    rng = np.random.default_rng(18)
    for dt in (np.float32, np.float64):
        for ac in (False, True):
            for size in ((2, 3, 9, 1), (2, 1, 5, 7, 6)):
                r = len(size) - 2
                theta = rng.uniform(-1.5, 1.5, (2, r, r + 1)).astype(dt)
                ref = gridops.affine_grid(theta, size, ac)
                pts = gd.affine_grid_points(theta, [np.arange(s) for s in size[2:]], size[2:], ac)
                same_bits(pts, ref)
                sub = gd.affine_grid_points(theta, [np.arange(s)[1:] for s in size[2:]], size[2:], ac)
                same_bits(sub, ref[(slice(None),) + (slice(1, None),) * r])
                win = gridops.affine_grid(theta, size, ac, window=([1] * r, [s - 1 for s in size[2:]]))
                same_bits(win, ref[(slice(None),) + (slice(1, None),) * r])


def rotation(rng, r, dt):
    if r == 1:
        m = np.array([[rng.uniform(0.6, 1.4)]])
    elif r == 2:
        a = rng.uniform(-0.6, 0.6)
        m = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]]) * rng.uniform(0.7, 1.3)
    else:
        q, _ = np.linalg.qr(rng.standard_normal((3, 3)))
        m = 0.5 * q + 0.6 * np.eye(3)
    t = rng.uniform(-0.3, 0.3, (r, 1))
    return np.concatenate([m, t], axis=1).astype(dt)


def test_affine_warp_random_chunkings():
    rng = np.random.default_rng(19)
    for it in range(15):
        r = 2 if it < 8 else (3 if it < 12 else 1)
        shape = (int(rng.integers(1, 3)), int(rng.integers(1, 3))) + tuple(
            int(rng.integers(2, 10 if r == 3 else 24)) for _ in range(r))
        x = rng.standard_normal(shape).astype(np.float32)
        dt = np.float64 if it % 4 == 3 else np.float32
        theta = np.stack([rotation(rng, r, dt) for _ in range(shape[0])])
        out = tuple(int(rng.integers(1, 9 if r == 3 else 20)) for _ in range(r))
        mode = ["bilinear", "nearest", "bicubic"][it % 3]
        pm = ["zeros", "border", "reflection"][(it // 2) % 3]
        ac = bool(it % 2)
        ref = gridops.affine_warp(x, theta, out, mode, pm, ac)
        if r >= 2:  # the fused operator is the composition (nearest bit-exact, linear within its bound)
            comp = gridops.grid_sample(x, gridops.affine_grid(theta, shape[:2] + out, ac), mode, pm, ac)
            if mode == "nearest":
                same_bits(ref, comp)
            else:
                np.testing.assert_allclose(ref, comp, rtol=0, atol=2.0 ** -17 * np.abs(x).max())
        oc = tuple(rand_chunks(rng, s, rng.random() < 0.5) for s in out)
        y = gd.affine_warp(rand_dask(rng, x), theta, out, mode, pm, ac, output_chunks=oc, threads=1,
                           halo_packs=bool((it // 2) % 2))
        assert tasks(y) == int(np.prod(y.numblocks))
        same_bits(y.compute(scheduler="threads"), ref)


def test_affine_warp_reads_only_the_needed_chunks():
    # A small shift of a 4 x 4-chunk image: each output chunk reads its own input chunk and
    # (for the halo) at most its 8 neighbours, a corner chunk at most 2 x 2.
    x = np.arange(64 * 64, dtype=np.float32).reshape(1, 1, 64, 64)
    dx = da.from_array(x, chunks=(1, 1, 16, 16))
    theta = np.array([[[1.0, 0.0, 0.05], [0.0, 1.0, -0.05]]], np.float32)
    y = gd.affine_warp(dx, theta, output_chunks=(16, 16))  # (the default would merge them all)
    deps = list(key_deps(y).values())
    assert len(deps) == 16 and max(len(d) for d in deps) <= 9, [len(d) for d in deps]
    assert len(key_deps(y)[(y.name, 0, 0, 0, 0)]) <= 4
    same_bits(y.compute(), gridops.affine_warp(x, theta, x.shape[2:]))


def test_affine_warp_default_chunks_merge_into_tasks_of_task_bytes():
    """Without output_chunks, x's chunks are merged innermost axis first while a task's
    output stays within task_bytes (16 MiB by default); other output sizes get dask's
    "auto" chunks under the same limit."""
    theta = np.array([[[1.0, 0.0, 0.0, 0.02], [0.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, -0.01]]], np.float32)
    big = da.zeros((1, 1, 256, 256, 256), dtype=np.float32, chunks=(1, 1, 128, 128, 128))
    assert gd.affine_warp(big, theta).chunks[2:] == ((128, 128), (128, 128), (256,))
    rng = np.random.default_rng(37)
    x = rng.standard_normal((1, 2, 16, 32, 30)).astype(np.float32)
    dx = da.from_array(x, chunks=(1, 2, 4, 8, 8))  # 2 KiB per block (the last W one smaller)
    y = gd.affine_warp(dx, theta, task_bytes=8192)
    assert y.chunks[2:] == ((4,) * 4, (8,) * 4, (30,)), y.chunks
    same_bits(y.compute(scheduler="sync"), gridops.affine_warp(x, theta, x.shape[2:]))
    y = gd.affine_warp(dx, theta, task_bytes=16384)
    assert y.chunks[2:] == ((4,) * 4, (16, 16), (30,)), y.chunks
    y = gd.affine_warp(dx, theta, (40, 40, 40), task_bytes=16384)
    assert max(np.prod(c) for c in itertools.product(*y.chunks)) * 4 <= 16384, y.chunks
    same_bits(y.compute(scheduler="sync"), gridops.affine_warp(x, theta, (40, 40, 40)))


def test_thin_halos_come_from_packs():
    """A task needing only a thin part of a block (a margin) depends on that block's pack,
    which holds just the parts other tasks read, not on the block: a 3-D warp that keeps D
    (its taps still read one plane past each chunk along D) and rotates H, W."""
    rng = np.random.default_rng(31)
    x = rng.standard_normal((1, 2, 24, 20, 20)).astype(np.float32)
    dx = da.from_array(x, chunks=(1, 2, 8, 20, 20))
    a = np.deg2rad(7.0)
    theta = np.array([[[np.cos(a), -np.sin(a), 0, 0.01], [np.sin(a), np.cos(a), 0, 0.02], [0, 0, 1, 0]]],
                     np.float32)
    kw = dict(mode="bilinear", padding_mode="border", output_chunks=(8, 20, 20))
    assert not packs(gd.affine_warp(dx, theta, **kw))  # no cluster: none
    y = gd.affine_warp(dx, theta, **kw, halo_packs=True)
    same_bits(y.compute(scheduler="sync"), gridops.affine_warp(x, theta, x.shape[2:], "bilinear", "border"))
    assert tasks(y) == 3
    pk = packs(y)
    assert len(pk) == 3, pk  # every block: its first and last planes
    dsk = dict(y.__dask_graph__())
    bytes_packed = sum(v.nbytes for k in pk for v in dask.get(dsk, k))
    assert bytes_packed <= x.nbytes / 4, bytes_packed  # (here 6 of the 24 planes)
    # the first D chunk's tasks read the next D chunk only through its packs
    for key, deps in key_deps(y).items():
        if key[3] == 0:  # (name, n, c, d, h, w)
            assert all(k[3] == 0 for k in deps if k[0] == dx.name), deps
            assert any(k[0] != dx.name and k[3] == 1 for k in deps), deps


@pytest.mark.parametrize("mode", ["constant", "edge", "reflect", "symmetric", "wrap"])
def test_pad_random_chunkings(mode):
    rng = np.random.default_rng(20)
    for it in range(6):
        nd = int(rng.integers(1, 4))
        shape = tuple(int(rng.integers(2, 12)) for _ in range(nd))
        x = rng.standard_normal(shape).astype(np.float32)
        pads = []
        for n in shape:
            hi = n - 1 if mode in ("reflect",) else (n if mode == "symmetric" else 2 * n + 3)
            b, a = int(rng.integers(-1, hi + 1)), int(rng.integers(0, hi + 1))
            pads.append((max(b, -(n - 1)) if mode != "constant" else b, a))
        value = 2.5 if mode == "constant" else None
        ref = gridops.pad(x, pads, mode, value)
        y = gd.pad(rand_dask(rng, x, 0.6), pads, mode, value)
        assert tasks(y) == int(np.prod(y.numblocks))
        same_bits(y.compute(scheduler="sync"), ref)
    # ONNX flat pads, and a chunking of the output that differs from the input's
    x = rng.standard_normal((5, 7)).astype(np.float32)
    if mode in ("constant", "edge", "wrap", "symmetric"):
        ref = gridops.pad(x, [2, 5, 3, 4], mode)
        same_bits(gd.pad(rand_dask(rng, x), [2, 5, 3, 4], mode, chunks=(3, 4)).compute(), ref)


def test_pad_wrap_halo_comes_from_the_far_side():
    x = np.arange(20, dtype=np.float32)
    dx = da.from_array(x, chunks=5)
    y = gd.pad(dx, [(3, 3)], "wrap")
    # The first output chunk (8 wide: 3 of halo + 5) reads the last input chunk and the first.
    first = (y.name, 0)
    assert sorted(k[1] for k in key_deps(y)[first]) == [0, 3]
    same_bits(y.compute(), gridops.pad(x, [(3, 3)], "wrap"))


def test_gather_numpy_and_dask_indices():
    rng = np.random.default_rng(21)
    for it in range(8):
        nd = int(rng.integers(1, 4))
        shape = tuple(int(rng.integers(1, 10)) for _ in range(nd))
        x = rng.standard_normal(shape).astype(np.float32)
        axis = int(rng.integers(-nd, nd))
        n = shape[axis]
        ind = rng.integers(-n, n, size=tuple(int(rng.integers(1, 6)) for _ in range(int(rng.integers(0, 3)))))
        ind = ind.astype([np.int64, np.int32][it % 2])
        ref = gridops.gather(x, ind, axis)
        dx = rand_dask(rng, x)
        same_bits(gd.gather(dx, ind, axis).compute(scheduler="sync"), ref)
        if ind.ndim:
            same_bits(gd.gather(dx, rand_dask(rng, ind), axis).compute(scheduler="sync"), ref)
    with pytest.raises(IndexError, match="index 5 is out of range"):
        gd.gather(da.zeros((5, 2), chunks=2), np.array([0, 5]), 0)


def test_window_errors_are_clear():
    x = np.zeros((1, 1, 12, 12), np.float32)
    grid = np.zeros((1, 1, 1, 2), np.float32)  # the center: taps 5 and 6, box [4, 8)
    assert gridops.grid_sample_input_box(grid, (12, 12)) == [(4, 8), (4, 8)]
    with pytest.raises(ValueError, match=r"needs input positions \[4, 8\) on spatial axis 0"):
        gridops.grid_sample(x[:, :, 5:8, 4:8], grid, full_size=(12, 12), origin=(5, 4))
    with pytest.raises(ValueError, match="both full_size and origin"):
        gridops.grid_sample(x, grid, full_size=(12, 12))
    assert gridops.resample_input_box((8,), (4,), (1,), (3,)) == [(2, 6)]
    with pytest.raises(ValueError, match=r"read inputs \[2, 6\)"):
        gridops.resample(np.zeros((1, 1, 3), np.float32), size=[2], window=((8,), (4,), (2,), (1,)))


@pytest.fixture(scope="module")
def client():
    distributed = pytest.importorskip("distributed")
    cluster = distributed.LocalCluster(processes=True, n_workers=2, threads_per_worker=1,
                                       dashboard_address=None, silence_logs=50)
    c = distributed.Client(cluster)
    yield c
    c.close()
    cluster.close()


def test_distributed_local_cluster_with_processes(client):
    rng = np.random.default_rng(22)
    x = rng.standard_normal((2, 3, 40, 36)).astype(np.float32)
    dx = da.from_array(x, chunks=(1, 2, 11, 7))
    theta = np.stack([rotation(rng, 2, np.float32) for _ in range(2)])
    ref_w = gridops.affine_warp(x, theta, (30, 33), "bicubic", "reflection")
    ref_b = gridops.affine_warp(x, theta, (30, 33), "bilinear", "border")
    ref_r = gridops.resample(x, size=[17, 50])
    ref_p = gridops.pad(x, [(0, 0), (0, 0), (4, 9), (13, 2)], "wrap")
    w = gd.affine_warp(dx, theta, (30, 33), "bicubic", "reflection", output_chunks=(8, 9), threads=1)
    rs = gd.resample(dx, size=[17, 50], threads=1)
    p = gd.pad(dx, [(0, 0), (0, 0), (4, 9), (13, 2)], "wrap")
    b = gd.affine_warp(dx, theta, (30, 33), "bilinear", "border", output_chunks=(7, 12), threads=1)
    got = client.compute([w, rs, p, b], sync=True)
    assert len(client.scheduler_info()["workers"]) == 2
    same_bits(got[0], ref_w)
    same_bits(got[1], ref_r)
    same_bits(got[2], ref_p)
    same_bits(got[3], ref_b)
    # both worker processes ran tasks
    who = client.run(lambda: __import__("os").getpid())
    assert len(set(who.values())) == 2


def test_out_of_core_example_runs(tmp_path):
    """examples/python/out_of_core_zarr.py on a small volume: it writes both results to Zarr
    and its spot checks (bit-identical sub-volumes) pass."""
    import os
    import subprocess
    import sys
    pytest.importorskip("zarr")
    root = os.path.join(os.path.dirname(__file__), "..", "..")
    r = subprocess.run([sys.executable, os.path.join(root, "examples", "python", "out_of_core_zarr.py"),
                        "--shape", "40", "36", "32", "--chunk", "16", "--workers", "1", "--memory-limit", "400MiB",
                        "--checks", "2", "--dir", str(tmp_path)],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    assert "spot checks: 4 sub-volumes bit-identical" in r.stdout
    assert os.path.isdir(tmp_path / "warped.zarr") and os.path.isdir(tmp_path / "half.zarr")


def test_worker_config_keeps_freed_outputs_for_reuse():
    """Workers started under gridops.dask.worker_config() have its glibc settings and keep
    the memory of 64 MiB of task-thread outputs freed together (the next outputs reuse it:
    no new memory), where workers with distributed's defaults hand it back."""
    import os
    distributed = pytest.importorskip("distributed")
    keys = ("MALLOC_ARENA_MAX", "MALLOC_TRIM_THRESHOLD_", "MALLOC_MMAP_THRESHOLD_")

    def probe(n_arrays, nbytes):
        # In a worker: resident MiB after n_arrays outputs of nbytes made in a task thread,
        # after freeing them together, and after making them again; the glibc settings.
        from concurrent.futures import ThreadPoolExecutor

        def rss():
            with open("/proc/self/statm") as f:
                return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20

        def make():
            with ThreadPoolExecutor(1) as ex:
                return [ex.submit(lambda: np.ones(nbytes // 4, np.float32)).result() for _ in range(n_arrays)]

        r0 = rss()
        outs = make()
        r1 = rss()
        del outs
        r2 = rss()
        outs = make()
        r3 = rss()
        return r1 - r0, r2 - r0, r3 - r0, {k: os.environ.get(k) for k in keys}

    cfg = gd.worker_config(2**30)
    assert cfg == {"distributed.nanny.pre-spawn-environ.MALLOC_ARENA_MAX": 1,
                   "distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_": 2**30,
                   "distributed.nanny.pre-spawn-environ.MALLOC_MMAP_THRESHOLD_": 2**25}
    # distributed's nanny writes pre-spawn-environ into this process's os.environ (and
    # prefers what is there to the configuration): start from and restore the caller's.
    saved = {k: os.environ.pop(k, None) for k in keys}
    got = {}
    try:
        for label, conf in (("default", {}), ("tuned", cfg)):
            for k in keys:
                os.environ.pop(k, None)
            with dask.config.set(conf):
                cluster = distributed.LocalCluster(processes=True, n_workers=1, threads_per_worker=1,
                                                   dashboard_address=None, silence_logs=50)
            try:
                with distributed.Client(cluster) as c:
                    got[label], = c.run(probe, 4, 16 * 2**20).values()
            finally:
                cluster.close()
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    made, kept, again, env = got["tuned"]
    assert env == {"MALLOC_ARENA_MAX": "1", "MALLOC_TRIM_THRESHOLD_": str(2**30),
                   "MALLOC_MMAP_THRESHOLD_": str(2**25)}
    assert made > 60 and kept > 60 and again - kept < 4, got
    made, kept, again, env = got["default"]
    assert env["MALLOC_ARENA_MAX"] is None and env["MALLOC_TRIM_THRESHOLD_"] == "65536"
    assert made > 60 and kept < 4, got
    with pytest.raises(ValueError, match=r"keep_free_bytes must be an integer in \[0, 2\^62\], got -1"):
        gd.worker_config(-1)
    with pytest.raises(ValueError, match="got True"):
        gd.worker_config(True)
