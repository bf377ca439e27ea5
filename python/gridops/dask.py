"""gridops on Dask arrays: chunked and distributed, the same bits as the in-memory operators.

Every function takes and returns ``dask.array.Array`` and builds a small graph: one task per
output chunk, which depends directly on the input chunks its input box touches (no
per-element tasks, no overlap layer). Coordinates are always computed for the whole array
(the operators' window options: ``grid_sample(..., full_size=, origin=)``,
``resample(..., window=)``, ``affine_warp(..., window=, full_size=, origin=)``), so chunking changes only which memory is read and the result
is bit-identical to the in-memory operator on the whole array with the same
implementation, for any chunking. See docs/dask.md.

``threads``: gridops threads per task (``gridops.set_num_threads`` in the worker before the
kernel runs; process-wide). ``None`` leaves the worker's setting alone.

``halo_packs`` (resize, grid_sample, affine_warp): read the thin parts of neighbouring
blocks from one small task per block instead of depending on whole blocks (docs/dask.md,
"Thin halos come from packs"); ``None`` (default): when the default distributed client has
several worker processes.
"""

from __future__ import annotations

import itertools
import math
from typing import Any, List, Optional, Sequence, Tuple

import numpy as np

import dask
import dask.array as da
from dask.base import tokenize
from dask.highlevelgraph import HighLevelGraph

from . import _api
from . import _gridops as _g

__all__ = ["affine_grid_points", "affine_warp", "gather", "grid_sample", "pad", "resample", "resize",
           "worker_config"]

Box = List[Tuple[int, int]]


# --- worker settings -------------------------------------------------------------------


def worker_config(keep_free_bytes: int = 2**31) -> dict:
    """Dask configuration under which worker processes started afterwards (a nanny's
    ``pre-spawn-environ``: ``distributed.LocalCluster``, ``dask-worker``) reuse the memory
    of freed task outputs instead of handing it back to the system and faulting it in again
    in the next tasks. Use: ``with dask.config.set(gridops.dask.worker_config()):
    cluster = distributed.LocalCluster(...)``.

    The glibc settings it sets (docs/dask.md, "Worker memory settings"):

    - ``MALLOC_ARENA_MAX=1``: one heap for every thread. Otherwise each task thread
      allocates in its own arena, whose 64 MiB heaps glibc unmaps as soon as they hold
      nothing, whatever the trim threshold (a run's outputs are freed together);
    - ``MALLOC_TRIM_THRESHOLD_=keep_free_bytes``: free memory the worker keeps at the top
      of its heap (distributed's default, 64 KiB, returns nearly all of it); keep it above
      the bytes a run's results free together (one run's outputs on the worker), and in
      mind when setting a worker ``memory_limit``: memory kept for reuse counts as the
      worker's unmanaged memory;
    - ``MALLOC_MMAP_THRESHOLD_=32 MiB`` (glibc's largest on 64-bit): outputs below it come
      from the heap; larger ones are fresh mappings in every task.
    """
    if isinstance(keep_free_bytes, bool) or not isinstance(keep_free_bytes, (int, np.integer)) \
            or not 0 <= int(keep_free_bytes) <= 2**62:
        raise ValueError("gridops.dask.worker_config: keep_free_bytes must be an integer in "
                         f"[0, 2^62], got {keep_free_bytes!r}")
    env = "distributed.nanny.pre-spawn-environ."
    return {env + "MALLOC_ARENA_MAX": 1,
            env + "MALLOC_TRIM_THRESHOLD_": int(keep_free_bytes),
            env + "MALLOC_MMAP_THRESHOLD_": 2**25}


# --- helpers: chunk geometry ----------------------------------------------------------


def _starts(chunks_axis: Sequence[int]) -> np.ndarray:
    """Start offsets of the blocks of one axis, plus the end: len(chunks) + 1 entries."""
    return np.concatenate([[0], np.cumsum(np.asarray(chunks_axis, dtype=np.int64))]).astype(np.int64)


def _blocks_for_range(starts: np.ndarray, lo: int, hi: int) -> List[int]:
    """The blocks of an axis (starts from _starts) that intersect [lo, hi)."""
    if hi <= lo:
        return []
    b0 = int(np.searchsorted(starts, lo, side="right")) - 1
    b1 = int(np.searchsorted(starts, hi, side="left"))  # exclusive
    return [b for b in range(b0, b1) if starts[b + 1] > starts[b]]


def _nested_keys(name: str, block_lists: Sequence[Sequence[int]]) -> Any:
    """Nested lists of the keys (name, i, j, ...) over the cartesian product of block lists."""
    def rec(prefix: Tuple[int, ...], d: int) -> Any:
        if d == len(block_lists):
            return (name,) + prefix
        return [rec(prefix + (b,), d + 1) for b in block_lists[d]]
    return rec((), 0)


def _aligned(a: Any) -> np.ndarray:
    """a as an array aligned to its element type (arrays that distributed deserializes can
    sit at odd byte offsets; gridops refuses those): copied only when needed."""
    a = np.asarray(a)
    return a if a.flags.aligned else a.copy()


def _assemble(pieces: Any, ndim: int) -> np.ndarray:
    """np.block of nested pieces, without a copy when there is only one."""
    p = pieces
    single = True
    for _ in range(ndim):
        if len(p) != 1:
            single = False
            break
        p = p[0]
    if single:
        return _aligned(p)
    return np.block(pieces)


def _fetch_box(x: da.Array, box: Box) -> Tuple[Any, List[List[int]]]:
    """The keys of x's blocks covering box (nested lists) and, per axis, where each of
    those blocks starts relative to box's start (the second argument of _box_from_pieces)."""
    lists, rel = [], []
    for ax, (lo, hi) in enumerate(box):
        st = _starts(x.chunks[ax])
        bl = _blocks_for_range(st, lo, hi)
        lists.append(bl)
        rel.append([int(st[b]) - lo for b in bl])
    return _nested_keys(x.name, lists), rel


class _Part:
    """A piece of a block (a halo taken from a pack, see _BoxReads): the sub-array and where
    it starts within its block, per axis."""

    __slots__ = ("array", "start")

    def __init__(self, array: np.ndarray, start: Sequence[int]) -> None:
        self.array = array
        self.start = start


def _pack(block: Any, regions: Sequence[Sequence[Tuple[int, int]]]) -> Tuple[np.ndarray, ...]:
    """The parts of a block that other tasks read as halos (block-relative [lo, hi) per
    axis): views, so only these bytes travel when a task on another worker needs them."""
    a = np.asarray(block)
    return tuple(a[tuple(slice(lo, hi) for lo, hi in reg)] for reg in regions)


def _part(pack: Sequence[np.ndarray], i: int, start: Sequence[int]) -> _Part:
    return _Part(pack[i], start)


def _box_from_pieces(pieces: Any, rel: Sequence[Sequence[int]], box: Box) -> np.ndarray:
    """The box from the blocks covering it (each a block or a _Part of one): a view when one
    piece holds it, else one allocation of the box's size into which only the overlapping
    parts are copied."""
    nd = len(box)
    shape = tuple(hi - lo for lo, hi in box)
    out = None
    for idx in itertools.product(*(range(len(r)) for r in rel)):
        p = pieces
        for i in idx:
            p = p[i]
        b = [rel[ax][i] for ax, i in enumerate(idx)]  # the block's start relative to the box
        if isinstance(p, _Part):
            b = [v + s for v, s in zip(b, p.start)]
            p = p.array
        if all(len(r) == 1 for r in rel):
            a = _aligned(p)
            return a[tuple(slice(-v, -v + n) for v, n in zip(b, shape))]
        a = np.asarray(p)
        if out is None:
            out = np.empty(shape, dtype=a.dtype)
        dst, src = [], []
        for ax in range(nd):
            lo, hi = max(0, b[ax]), min(shape[ax], b[ax] + a.shape[ax])
            dst.append(slice(lo, hi))
            src.append(slice(lo - b[ax], hi - b[ax]))
        out[tuple(dst)] = a[tuple(src)]
    assert out is not None
    return out


def _several_worker_processes() -> bool:
    """Whether the current default ``distributed`` client has more than one worker process
    (where halo packs pay: only their bytes move between processes; with one process or
    Dask's local schedulers they are extra tasks that move nothing)."""
    try:
        from distributed import default_client
        client = default_client()
    except (ImportError, ValueError):
        return False
    try:
        return len(client.scheduler_info().get("workers", {})) > 1
    except Exception:  # a closed or failing client: no packs
        return False


class _BoxReads:
    """The reads of a graph's tasks, each an input box of x (NOTE in docs/dask.md, "How
    chunks and halos are chosen"). A task depends on the blocks its box overlaps; where it
    needs only a thin part of a block (at most a quarter of it: an interpolation margin, a
    corner of a rotated box), it reads that part from the block's pack, one extra task per
    block holding such parts, the smallest first while they add up to at most half the
    block, so that on a cluster only those bytes move between workers, not the block.
    Packs are made when ``packs`` (the functions' ``halo_packs``, None: the default
    distributed client has several worker processes) is True (on one process they cost a task per block and
    save nothing: the 1 GiB warp of the benchmark 1.29x the in-memory call with them, 1.11x
    without, median of paired runs). add() registers a task while the graph is built;
    emit() writes the tasks and packs."""

    THIN = 0.25  # a part of at most this fraction of its block is read from the pack
    PACKED = 0.5  # a block is packed when its thin parts add up to at most this fraction

    def __init__(self, x: da.Array, name: str, packs: bool) -> None:
        self.x = x
        self.packs = packs
        self.pack_name = "pack-" + name
        self.starts = [_starts(c) for c in x.chunks]
        self.tasks: List[Tuple[Any, Any, Box, Tuple[Any, ...]]] = []

    def add(self, key: Any, func: Any, box: Box, *args: Any) -> None:
        """Task key = (func, pieces, rel, box, *args), pieces and rel as _box_from_pieces reads."""
        self.tasks.append((key, func, box, args))

    def _blocks(self, box: Box) -> List[List[int]]:
        return [_blocks_for_range(st, lo, hi) for st, (lo, hi) in zip(self.starts, box)]

    def _region(self, blk: Tuple[int, ...], box: Box) -> Tuple[Tuple[int, int], ...]:
        """The part of block blk that box overlaps, relative to the block's start."""
        return tuple((max(lo, int(st[b])) - int(st[b]), min(hi, int(st[b + 1])) - int(st[b]))
                     for st, b, (lo, hi) in zip(self.starts, blk, box))

    def emit(self, dsk: dict) -> None:
        def vol(reg: Sequence[Tuple[int, int]]) -> int:
            return int(np.prod([hi - lo for lo, hi in reg], dtype=np.int64))

        def block_vol(blk: Tuple[int, ...]) -> int:
            return int(np.prod([int(st[b + 1] - st[b]) for st, b in zip(self.starts, blk)], dtype=np.int64))

        # Per block, the distinct thin parts the tasks read from it; its pack holds the
        # smallest of them while they add up to at most PACKED of the block (tasks reading
        # a larger part read the block).
        thin: dict = {}
        for _, _, box, _ in (self.tasks if self.packs else []):
            for blk in itertools.product(*self._blocks(box)):
                reg = self._region(blk, box)
                if vol(reg) <= self.THIN * block_vol(blk):
                    thin.setdefault(blk, set()).add(reg)
        packed = {}
        for blk, regs in thin.items():
            total, keep = 0, {}
            for reg in sorted(regs, key=lambda r: (vol(r), r)):
                total += vol(reg)
                if total > self.PACKED * block_vol(blk):
                    break
                keep[reg] = len(keep)
            if keep:
                packed[blk] = keep
                dsk[(self.pack_name,) + blk] = (_pack, (self.x.name,) + blk, tuple(keep))
        for key, func, box, args in self.tasks:
            lists = self._blocks(box)
            rel = [[int(st[b]) - lo for b in bl] for st, bl, (lo, _) in zip(self.starts, lists, box)]

            def piece(blk: Tuple[int, ...]) -> Any:
                regs = packed.get(blk)
                reg = self._region(blk, box)
                if regs is not None and reg in regs:
                    return (_part, (self.pack_name,) + blk, regs[reg], [lo for lo, _ in reg])
                return (self.x.name,) + blk

            def rec(prefix: Tuple[int, ...], d: int) -> Any:
                if d == len(lists):
                    return piece(prefix)
                return [rec(prefix + (b,), d + 1) for b in lists[d]]

            dsk[key] = (func, rec((), 0), rel, box) + tuple(args)


def _channels_first_only(layout: Any, fn: str) -> None:
    layout = _api._str(layout, f"gridops.dask.{fn}: layout")
    if layout not in ("channels_first", "NCHW", "nchw", "plain"):
        raise ValueError(f"gridops.dask.{fn}: layout={layout!r}: on dask arrays only channels_first "
                         "is planned (chunks over (N, C, spatial...)); transpose x with "
                         f"x.transpose(...) or use gridops.{fn} in memory")


def _set_threads(threads: Optional[int]) -> None:
    if threads is not None:
        _g.set_num_threads(int(threads))


def _as_dask(x: Any, name: str) -> da.Array:
    if isinstance(x, da.Array):
        return x
    if isinstance(x, np.ndarray):
        return da.from_array(x, chunks=x.shape if x.size else -1)
    raise TypeError(f"gridops.dask.{name}: expected a dask or NumPy array, got {type(x).__name__}")


def _new_array(name: str, dsk: dict, deps: Sequence[da.Array], chunks: Any, dtype: Any) -> da.Array:
    graph = HighLevelGraph.from_collections(name, dsk, dependencies=list(deps))
    return da.Array(graph, name, chunks, dtype=dtype)


def _scaled_chunks(in_chunks: Sequence[int], n_in: int, n_out: int) -> Tuple[int, ...]:
    """Output chunks of an axis resized from n_in to n_out: the input chunk boundaries
    scaled (and merged where they coincide)."""
    if n_out == 0:
        return (0,)
    st = _starts(in_chunks)
    b = sorted({int(round(int(s) * n_out / max(n_in, 1))) for s in st} | {0, n_out})
    sizes = tuple(int(e - s) for s, e in zip(b[:-1], b[1:]) if e > s)
    return sizes or (n_out,)


def _align_flag(value: Any, fn: str) -> bool:
    """align_corners as the in-memory functions take it: a bool, or the int 0 or 1."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, np.integer)) and int(value) in (0, 1):
        return bool(int(value))
    raise ValueError(f"gridops.dask.{fn}: align_corners must be True/False (or 0/1), got {value!r}")


# --- pad ---------------------------------------------------------------------------------


def _normalize_pads(pads: Any, ndim: int) -> List[Tuple[int, int]]:
    if isinstance(pads, (int, np.integer)):
        return [(int(pads), int(pads))] * ndim
    seq = list(np.asarray(pads, dtype=object).tolist()) if isinstance(pads, np.ndarray) else list(pads)
    if seq and all(isinstance(p, (list, tuple)) for p in seq):
        pairs = [(int(a), int(b)) for a, b in seq]
        if len(pairs) == 1:
            pairs = pairs * ndim
        if len(pairs) != ndim:
            raise ValueError(f"gridops.dask.pad: pads must have one (before, after) pair per axis ({ndim}), got {len(pairs)}")
        return pairs
    flat = [int(p) for p in seq]
    if len(flat) != 2 * ndim:
        raise ValueError(f"gridops.dask.pad: ONNX pads must have 2 * ndim = {2 * ndim} entries, got {len(flat)}")
    return list(zip(flat[:ndim], flat[ndim:]))


def _pad_task(pieces: Any, idx: Sequence[np.ndarray], shape: Tuple[int, ...], value: Any,
              dtype: Any, threads: Optional[int]) -> np.ndarray:
    _set_threads(threads)
    if pieces is None:  # every position of the chunk is the constant
        return np.full(shape, value if value is not None else 0, dtype=dtype)
    arr = _assemble(pieces, len(shape))
    for ax, ix in enumerate(idx):
        take = np.where(ix < 0, 0, ix).astype(np.int64)
        arr = _g.gather(np.ascontiguousarray(arr), take, ax)
    for ax, ix in enumerate(idx):
        outside = ix < 0
        if outside.any():
            sl = [slice(None)] * len(shape)
            sl[ax] = outside
            arr[tuple(sl)] = value if value is not None else 0
    return arr


def pad(x: Any, pads: Any, mode: str = "constant", value: Any = None, axes: Any = None, *,
        chunks: Any = None, threads: Optional[int] = None, order: str = "onnx",
        constant_values: Any = _api._MISSING) -> da.Array:
    """gridops.pad on a dask array: constant, edge, reflect, symmetric, wrap.

    pads: an int, one (before, after) pair per axis (or one for all), or ONNX's flat form
    (all begins, then all ends); negative pads crop. Each output chunk reads only the input
    chunks its positions come from: at a border that is the far side of the array for
    wrap, the mirrored rows for reflect and symmetric. Pure data movement: the same bits as
    gridops.pad(x.compute(), ...). chunks: the output chunks (default: x's, the first and
    last chunk of each axis grown or shrunk by the pads). axes, order ("torch": F.pad's
    tuple), constant_values and the mode names "replicate" / "circular" as in gridops.pad.
    """
    x = _as_dask(x, "pad")
    mode = _api._pad_mode(mode, "gridops.dask.pad: mode")
    if constant_values is not _api._MISSING:
        if value is not None:
            raise TypeError("gridops.dask.pad: give value or constant_values (numpy.pad's name), not both")
        value = constant_values
    if order == "torch":
        if axes is not None:
            raise ValueError("gridops.dask.pad: order='torch' gives the axes itself (the last ones): "
                             "axes= must be None")
        pairs = _api._torch_pads(pads, x.ndim)
    elif order != "onnx":
        raise ValueError(f"gridops.dask.pad: order must be 'onnx' or 'torch', got {order!r}")
    elif axes is not None:
        ax_list = [int(a) + (x.ndim if int(a) < 0 else 0) for a in axes]
        if any(not 0 <= a < x.ndim for a in ax_list) or len(set(ax_list)) != len(ax_list):
            raise ValueError(f"gridops.dask.pad: axes must be distinct axes of rank {x.ndim}, got {list(axes)}")
        pairs = [(0, 0)] * x.ndim
        for a, pr in zip(ax_list, _normalize_pads(pads, len(ax_list))):
            pairs[a] = pr
    else:
        pairs = _normalize_pads(pads, x.ndim)
    # The mode, the value and its fit to x's dtype are checked as in memory, by gridops.pad
    # itself on one element of that dtype (the tasks then fill with the same value).
    _g.pad(np.zeros((1,), dtype=x.dtype), [1, 1] if mode == "constant" else [0, 0], mode, value)
    # Per axis: the source index of every output position (-1: the constant), from
    # gridops.pad itself on 0..n-1, so the mapping is exactly the operator's.
    maps = []
    for ax, (b, a) in enumerate(pairs):
        n = x.shape[ax]
        src = np.arange(n, dtype=np.int64)
        try:
            if mode == "constant":
                m = _g.pad(src, [b, a], "constant", -1)
            else:
                m = _g.pad(src, [b, a], mode)
        except ValueError as e:
            # The 1-D map is the axis's own: name the real axis, as gridops.pad does.
            msg = str(e).replace("pads_begin[0]", f"pads_begin[{ax}]").replace(
                "pads_end[0]", f"pads_end[{ax}]").replace("(axis 0 ", f"(axis {ax} ")
            raise ValueError(msg) from None
        maps.append(np.asarray(m, dtype=np.int64))
    out_shape = tuple(len(m) for m in maps)
    if chunks is None:
        out_chunks = []
        for ax, (b, a) in enumerate(pairs):
            c = list(x.chunks[ax])
            c[0] += b
            c[-1] += a
            if out_shape[ax] == 0:
                out_chunks.append((0,))
            elif all(v > 0 for v in c):
                out_chunks.append(tuple(c))
            else:
                out_chunks.append(da.core.normalize_chunks(max(x.chunks[ax]), (out_shape[ax],))[0])
        chunks = tuple(out_chunks)
    chunks = da.core.normalize_chunks(chunks, out_shape, dtype=x.dtype)
    name = "gridops-pad-" + tokenize(x, pairs, mode, value, chunks)
    in_starts = [_starts(c) for c in x.chunks]
    dsk = {}
    out_starts = [_starts(c) for c in chunks]
    for oi in itertools.product(*(range(len(c)) for c in chunks)):
        idx_axes, block_lists, empty = [], [], False
        for ax, i in enumerate(oi):
            o0, o1 = int(out_starts[ax][i]), int(out_starts[ax][i + 1])
            ix = maps[ax][o0:o1]
            need = ix[ix >= 0]
            if need.size == 0:
                empty = True
                block_lists.append([])
                idx_axes.append(ix)
                continue
            blocks = np.unique(np.searchsorted(in_starts[ax], need, side="right") - 1)
            block_lists.append([int(v) for v in blocks])
            # Position of each source index in the concatenation of those blocks.
            sizes = np.array([x.chunks[ax][bb] for bb in blocks], dtype=np.int64)
            cstart = np.concatenate([[0], np.cumsum(sizes)])
            bpos = np.searchsorted(blocks, np.searchsorted(in_starts[ax], np.maximum(ix, 0), side="right") - 1)
            bpos = np.minimum(bpos, len(blocks) - 1)
            remap = cstart[bpos] + np.maximum(ix, 0) - in_starts[ax][blocks[bpos]]
            idx_axes.append(np.where(ix < 0, -1, remap).astype(np.int64))
        shape = tuple(int(out_starts[ax][i + 1] - out_starts[ax][i]) for ax, i in enumerate(oi))
        pieces = None if empty or any(s == 0 for s in shape) else _nested_keys(x.name, block_lists)
        if pieces is None and any(s == 0 for s in shape):
            dsk[(name,) + oi] = (np.empty, shape, x.dtype)
            continue
        dsk[(name,) + oi] = (_pad_task, pieces, idx_axes, shape, value, x.dtype, threads)
    return _new_array(name, dsk, [x], chunks, x.dtype)


# --- gather ------------------------------------------------------------------------------


def _gather_task(pieces: Any, idx: np.ndarray, axis: int, ndim: int, threads: Optional[int]) -> np.ndarray:
    _set_threads(threads)
    arr = _assemble(pieces, ndim)
    return _g.gather(arr, _aligned(idx), axis)


def gather(x: Any, indices: Any, axis: int = 0, *, threads: Optional[int] = None) -> da.Array:
    """gridops.gather (np.take) on a dask array, with NumPy or dask indices.

    The output has x's chunks on the other axes and the indices' chunks in place of axis
    (NumPy indices: one chunk per run of len(x.chunks[axis][0]) indices along their first
    axis). With NumPy indices each output chunk reads only the input chunks its indices
    fall in, and the indices are checked when the graph is built (IndexError); dask
    indices are not known then, so each output chunk reads the whole axis and gridops
    checks them in the task. A selection: the same bits as gridops.gather in memory.
    """
    x = _as_dask(x, "gather")
    if not -x.ndim <= axis < x.ndim:
        raise ValueError(f"gridops.dask.gather: axis {axis} out of range for a {x.ndim}-D array")
    axis %= x.ndim
    n = x.shape[axis]
    st = _starts(x.chunks[axis])
    known = not isinstance(indices, da.Array)
    if known:
        ind_np = np.asarray(indices)
        if ind_np.dtype not in (np.int32, np.int64):
            raise TypeError(f"gridops.dask.gather: indices must be int32 or int64, got {ind_np.dtype}")
        if ind_np.size and (ind_np.min() < -n or ind_np.max() >= n):
            bad = ind_np[(ind_np < -n) | (ind_np >= n)].ravel()[0]
            raise IndexError(f"gridops.dask.gather: index {int(bad)} is out of range for axis {axis} of length {n}")
        step = max(1, int(x.chunks[axis][0]) if x.chunks[axis] else 1)
        if ind_np.ndim:
            ichunks = da.core.normalize_chunks((step,) + (-1,) * (ind_np.ndim - 1), ind_np.shape)
            ind = da.from_array(ind_np, chunks=ichunks)
        else:
            ind = da.from_array(ind_np)
    else:
        ind = indices
        ind_np = None
    out_chunks = x.chunks[:axis] + ind.chunks + x.chunks[axis + 1:]
    name = "gridops-gather-" + tokenize(x, indices if not known else ind_np, axis)
    ind_starts = [_starts(c) for c in ind.chunks]
    dsk = {}
    for xi in itertools.product(*(range(len(c)) for a, c in enumerate(x.chunks) if a != axis)):
        for ii in itertools.product(*(range(len(c)) for c in ind.chunks)):
            out_key = (name,) + xi[:axis] + ii + xi[axis:]
            other = list(xi[:axis]) + [None] + list(xi[axis:])
            if known:
                sl = tuple(slice(int(s[i]), int(s[i + 1])) for s, i in zip(ind_starts, ii))
                chunk_idx = ind_np[sl].astype(np.int64)
                chunk_idx = np.where(chunk_idx < 0, chunk_idx + n, chunk_idx)
                if chunk_idx.size:
                    blocks = np.unique(np.searchsorted(st, chunk_idx.ravel(), side="right") - 1)
                else:
                    blocks = np.array([0] if len(x.chunks[axis]) else [], dtype=np.int64)
                blocks = [int(b) for b in blocks if x.chunks[axis][b] > 0] or [0]
                sizes = np.array([x.chunks[axis][b] for b in blocks], dtype=np.int64)
                cstart = np.concatenate([[0], np.cumsum(sizes)])
                bpos = np.searchsorted(np.array(blocks), np.searchsorted(st, chunk_idx, side="right") - 1)
                bpos = np.minimum(bpos, len(blocks) - 1)
                remap = (cstart[bpos] + chunk_idx - st[np.array(blocks)[bpos]]).astype(np.int64)
                lists = [[b] if b is not None else blocks for b in other]
                dsk[out_key] = (_gather_task, _nested_keys(x.name, lists), remap, axis, x.ndim, threads)
            else:
                lists = [[b] if b is not None else list(range(len(x.chunks[axis]))) for b in other]
                dsk[out_key] = (_gather_task, _nested_keys(x.name, lists), (ind.name,) + ii, axis,
                                x.ndim, threads)
    deps = [x] if known else [x, ind]
    if known:
        return _new_array(name, dsk, deps, out_chunks, x.dtype)
    return _new_array(name, dsk, deps, out_chunks, x.dtype)


# --- resample ----------------------------------------------------------------------------


def _resample_task(subs: Sequence[Tuple[Any, Sequence[Sequence[int]], Box, Sequence[int], Sequence[int]]],
                   shape: Tuple[int, ...], out_begin: Sequence[int], full_in: Sequence[int],
                   full_out: Sequence[int], mode: str, dtype: Any, threads: Optional[int]) -> np.ndarray:
    """One output chunk from its sub-windows (one per input block it covers, see
    resample()): each runs gridops.resample on its input box with the whole array's
    coordinates; one sub-window is returned as is, several are copied into the chunk."""
    _set_threads(threads)
    out = None
    for pieces, rel, box, ob, oe in subs:
        arr = _box_from_pieces(pieces, rel, box)
        part = _g.resample(arr, size=[e - b for b, e in zip(ob, oe)], mode=mode,
                           window=(list(full_in), list(full_out), [a for a, _ in box[2:]], list(ob)))
        if len(subs) == 1:
            return part
        if out is None:
            out = np.empty(shape, dtype=dtype)
        out[(slice(None), slice(None)) + tuple(slice(b - o, e - o) for b, e, o in zip(ob, oe, out_begin))] = part
    assert out is not None
    return out


def _group_chunks(tiles: Sequence[Tuple[int, ...]], tile_bytes: float, target: float) -> List[Tuple[int, ...]]:
    """Merges consecutive tiles of each axis (innermost first: a task's input stays in as
    few rows of blocks along the outer axes as it can, which is how a volume is usually
    split between workers) while a merged chunk's input stays within target bytes
    (tile_bytes: the input bytes of one tile)."""
    groups = [1] * len(tiles)
    for k in reversed(range(len(tiles))):
        while groups[k] < len(tiles[k]) and tile_bytes * np.prod(groups) * 2 <= target:
            groups[k] = min(len(tiles[k]), groups[k] * 2)
        if tile_bytes * np.prod(groups) * 2 > target:
            break
    out = []
    for t, g in zip(tiles, groups):
        out.append(tuple(int(sum(t[i:i + g])) for i in range(0, len(t), g)))
    return out


def resample(x: Any, size: Any = None, scale_factor: Any = None, mode: str = "linear", *,
             layout: str = "channels_first", chunks: Any = None, threads: Optional[int] = None,
             task_bytes: Optional[int] = None) -> da.Array:
    """gridops.resample on a dask array (N, C, D1..Dr), r = 1..3, channels first.

    size / scale_factor as in gridops.resample (exactly one). Each output chunk is
    computed from sub-windows, one per input block its outputs map to (x's chunk
    boundaries scaled): each sub-window reads only the input box its taps need
    (gridops.resample_input_box; for aligned blocks exactly one input block, used without
    a copy) and computes its taps from the whole array's sizes (resample(..., window=...)):
    the same bits as gridops.resample(x.compute(), ...). chunks: the output's spatial
    chunks; default: the scaled input blocks merged (innermost axis first) until a task
    reads about task_bytes of input (default 64 MiB: a few large tasks instead of many
    small ones, Dask's per-task cost being ~1 ms). N and C keep x's chunks.
    """
    _channels_first_only(layout, "resample")
    x = _as_dask(x, "resample")
    r = x.ndim - 2
    if not 1 <= r <= 3:
        raise ValueError(f"gridops.dask.resample: x must be (N, C, D1..Dr) with r in 1..3, got shape {x.shape}")
    full_in = [int(v) for v in x.shape[2:]]
    if (size is None) == (scale_factor is None):
        raise ValueError("gridops.dask.resample: give exactly one of size and scale_factor")
    if size is not None:
        s = [int(size)] * r if isinstance(size, (int, np.integer)) else [int(v) for v in size]
        if len(s) == 1 and r > 1:
            s = s * r
        full_out = s
    else:
        try:
            f = [float(scale_factor)] * r if np.isscalar(scale_factor) else [float(v) for v in scale_factor]
        except (TypeError, ValueError):
            raise TypeError(f"gridops.dask.resample: scale_factor must be a number or a sequence of "
                            f"numbers, got {scale_factor!r}") from None
        if len(f) == 1 and r > 1:
            f = f * r
        for fk in f:
            if not (math.isfinite(fk) and fk > 0):
                raise ValueError(f"gridops.dask.resample: scale_factor must be finite and > 0, got {fk}")
        full_out = [int(math.floor(i * fk)) for i, fk in zip(full_in, f)]
    if len(full_out) != r:
        raise ValueError(f"gridops.dask.resample: size must have {r} entries, got {len(full_out)}")
    tiles = [_scaled_chunks(x.chunks[2 + k], full_in[k], full_out[k]) for k in range(r)]
    if chunks is None:
        nc = max(x.chunks[0]) * max(x.chunks[1]) if x.size else 0
        tile_bytes = float(nc * x.dtype.itemsize * np.prod([max(c) if c else 0 for c in x.chunks[2:]]))
        target = float(task_bytes if task_bytes is not None else 64 * 2**20)
        sp = tuple(_group_chunks(tiles, tile_bytes, target))
    else:
        sp = da.core.normalize_chunks(chunks, tuple(full_out), dtype=x.dtype)
    out_chunks = (x.chunks[0], x.chunks[1]) + tuple(sp)
    name = "gridops-resample-" + tokenize(x, full_out, mode, out_chunks)
    ost = [_starts(c) for c in out_chunks]
    tst = [_starts(t) for t in tiles]
    dsk = {}
    for oi in itertools.product(*(range(len(c)) for c in out_chunks)):
        ob = [int(ost[2 + k][oi[2 + k]]) for k in range(r)]
        oe = [int(ost[2 + k][oi[2 + k] + 1]) for k in range(r)]
        n0, n1 = int(ost[0][oi[0]]), int(ost[0][oi[0] + 1])
        c0, c1 = int(ost[1][oi[1]]), int(ost[1][oi[1] + 1])
        shape = (n1 - n0, c1 - c0) + tuple(e - b for b, e in zip(ob, oe))
        if any(v == 0 for v in shape):
            dsk[(name,) + oi] = (np.empty, shape, x.dtype)
            continue
        # Sub-windows: the chunk cut at the scaled input block boundaries.
        cuts = []
        for k in range(r):
            inner = [int(v) for v in tst[k] if ob[k] < v < oe[k]]
            edges = [ob[k]] + inner + [oe[k]]
            cuts.append(list(zip(edges[:-1], edges[1:])))
        subs = []
        for sub in itertools.product(*cuts):
            sb = [a for a, _ in sub]
            se = [b for _, b in sub]
            sbox = _g.resample_input_box(full_in, full_out, sb, se, mode)
            box = [(n0, n1), (c0, c1)] + [(int(a), int(b)) for a, b in sbox]
            pieces, rel = _fetch_box(x, box)
            subs.append([pieces, rel, box, sb, se])  # a list: dask substitutes the keys inside
        dsk[(name,) + oi] = (_resample_task, subs, shape, ob, full_in, full_out, mode, x.dtype, threads)
    return _new_array(name, dsk, [x], out_chunks, x.dtype)


# --- resize ------------------------------------------------------------------------------

_RESIZE_KW = ("coordinate_transformation_mode", "nearest_mode", "cubic_coeff_a", "exclude_outside",
              "antialias", "keep_aspect_ratio_policy", "extrapolation_value", "axes", "roi")


def _resize_task(pieces: Any, rel: Sequence[Sequence[int]], box: Box, window: Tuple[Any, ...],
                 kw: dict, threads: Optional[int]) -> np.ndarray:
    _set_threads(threads)
    arr = _box_from_pieces(pieces, rel, box)
    return _g.resize(arr, window=window, **kw)


def resize(x: Any, scales: Any = None, sizes: Any = None, mode: str = "nearest", *, chunks: Any = None,
           threads: Optional[int] = None, halo_packs: Optional[bool] = None, **kwargs: Any) -> da.Array:
    """gridops.resize (ONNX Resize) on a dask array of any rank; the keyword arguments are
    gridops.resize's (coordinate_transformation_mode, nearest_mode, cubic_coeff_a,
    exclude_outside, antialias, keep_aspect_ratio_policy, extrapolation_value, axes, roi).

    Each output chunk reads only the input box its taps need (gridops.resize_input_box) and
    takes the whole array's tap tables (resize(..., window=...)): the same bits as
    gridops.resize(x.compute(), ...). chunks: the output chunks (default: x's chunk
    boundaries scaled on the resized axes).
    """
    x = _as_dask(x, "resize")
    bad = set(kwargs) - set(_RESIZE_KW)
    if bad:
        raise TypeError(f"gridops.dask.resize: unexpected keyword arguments {sorted(bad)}")
    kw = dict(kwargs, scales=scales, sizes=sizes, mode=mode)
    full_in = [int(v) for v in x.shape]
    plan = _g.ResizePlan(full_in, x.dtype, scales, sizes, mode,
                         **{k: v for k, v in kwargs.items()})
    full_out = [int(v) for v in plan.output_shape]
    if chunks is None:
        chunks = tuple(x.chunks[a] if full_out[a] == full_in[a] else _scaled_chunks(x.chunks[a], full_in[a], full_out[a])
                       for a in range(x.ndim))
    chunks = da.core.normalize_chunks(chunks, tuple(full_out), dtype=x.dtype)
    packs = _several_worker_processes() if halo_packs is None else bool(halo_packs)
    name = "gridops-resize-" + tokenize(x, kw, chunks, packs)
    ost = [_starts(c) for c in chunks]
    box_kw = {k: v for k, v in kw.items() if k != "extrapolation_value"}
    dsk = {}
    reads = _BoxReads(x, name, packs)
    for oi in itertools.product(*(range(len(c)) for c in chunks)):
        ob = [int(ost[a][oi[a]]) for a in range(x.ndim)]
        oe = [int(ost[a][oi[a] + 1]) for a in range(x.ndim)]
        shape = tuple(e - b for b, e in zip(ob, oe))
        if any(v == 0 for v in shape):
            dsk[(name,) + oi] = (np.empty, shape, x.dtype)
            continue
        need = _g.resize_input_box(full_in, ob, oe, **box_kw)
        box = []
        for a, (lo, hi) in enumerate(need):
            lo, hi = int(lo), int(hi)
            if hi <= lo:  # reads nothing there (extrapolated): any 1-wide box
                lo, hi = 0, 1
            box.append((lo, hi))
        window = (full_in, [lo for lo, _ in box], ob, list(shape))
        reads.add((name,) + oi, _resize_task, box, window, kw, threads)
    reads.emit(dsk)
    return _new_array(name, dsk, [x], chunks, x.dtype)


# --- grid_sample -------------------------------------------------------------------------


def _gs_task(pieces: Any, rel: Sequence[Sequence[int]], box: Box, grid: np.ndarray, mode: str,
             padding_mode: str, align_corners: bool, full: Sequence[int], threads: Optional[int],
             units: str = "normalized", fill: float = 0.0) -> np.ndarray:
    _set_threads(threads)
    arr = _box_from_pieces(pieces, rel, box)
    return _g.grid_sample(arr, _aligned(grid), mode, padding_mode, align_corners,
                          full_size=list(full), origin=[lo for lo, _ in box[2:]],
                          grid_units=units, fill_value=fill)


def _grid_box(grid: np.ndarray, full: Sequence[int], mode: str, padding_mode: str,
              align_corners: bool, units: str = "normalized", fill: float = 0.0) -> np.ndarray:
    b = _g.grid_sample_input_box(_aligned(grid), list(full), mode, padding_mode, align_corners,
                                 grid_units=units, fill_value=fill)
    return np.array(b, dtype=np.int64).reshape((1,) * (grid.ndim - 1) + (len(full), 2))


def _absolute_block(d: np.ndarray, out_sizes: Sequence[int], pixels: bool, align_corners: bool,
                    block_info: Any = None) -> np.ndarray:
    """A displacement grid block plus its points' own coordinates (their indices in the
    whole output), in the kernels' coordinate precision and operations (float32 for
    float16/float32 grids, float64 for float64): the absolute grid whose result has the
    same bits as the displacement's on the whole output (kernels::ref_taps::base_coordinate,
    docs/ops/grid_sample.md, "Grid conventions")."""
    ft = np.float64 if d.dtype == np.float64 else np.float32
    loc = block_info[0]["array-location"] if block_info else [(0, s) for s in d.shape]
    r = d.shape[-1]
    g = d.astype(ft, copy=True)
    for k in range(r):
        a = r - 1 - k  # grid component k belongs to spatial axis a
        lo, hi = loc[1 + a]
        n = int(out_sizes[a])
        o = np.arange(lo, hi)
        if pixels:
            base = o.astype(ft)
        elif n == 1:
            base = np.zeros(hi - lo, ft)
        elif align_corners:
            base = (2 * o).astype(ft) / ft(n - 1) - ft(1)
        else:
            base = (2 * o + 1).astype(ft) / ft(n) - ft(1)
        shape = [1] * (r + 1)
        shape[1 + a] = hi - lo
        g[..., k] = g[..., k] + base.reshape(shape)
    return g


def grid_sample(x: Any, grid: Any, mode: str = "bilinear", padding_mode: str = "zeros",
                align_corners: bool = False, *, layout: str = "channels_first",
                threads: Optional[int] = None, halo_packs: Optional[bool] = None,
                grid_units: str = "normalized", grid_kind: str = "absolute",
                fill_value: float = 0.0) -> da.Array:
    """gridops.grid_sample with a chunked grid: x (N, C, D1..Dr), grid (N, D1_out..Dr_out, r),
    either a dask or a NumPy array; channels first.

    Output chunk = grid chunk (x's chunks along C). Each grid chunk's input box
    (gridops.grid_sample_input_box) decides which input chunks its task reads; those boxes
    are computed when the graph is built, by one pass over the grid (a dask grid is read
    twice: once for the boxes, once to sample). Coordinates are computed against the whole
    input (grid_sample(..., full_size=, origin=)): the same bits as the in-memory operator.
    grid_units, grid_kind, fill_value: as gridops.grid_sample's; a displacement grid is
    chunked like the output, and each chunk gets its points' own coordinates in the whole
    output added (in the kernels' precision and operations: the same bits).
    """
    align_corners = _align_flag(align_corners, "grid_sample")
    units = _api._str(grid_units, "gridops.dask.grid_sample: grid_units")
    kind = _api._str(grid_kind, "gridops.dask.grid_sample: grid_kind")
    fill = _api._real(fill_value, "gridops.dask.grid_sample: fill_value")
    if units not in ("normalized", "pixels") or kind not in ("absolute", "displacement"):
        raise ValueError(f"gridops.dask.grid_sample: grid_units must be normalized or pixels and "
                         f"grid_kind absolute or displacement, got {units!r}, {kind!r}")
    _channels_first_only(layout, "grid_sample")
    x = _as_dask(x, "grid_sample")
    grid = _as_dask(grid, "grid_sample")
    r = x.ndim - 2
    if r < 1 or grid.ndim != r + 2 or grid.shape[-1] != r or grid.shape[0] != x.shape[0]:
        raise ValueError(f"gridops.dask.grid_sample: x (N, C, D1..Dr) and grid (N, D1_out..Dr_out, r) do not fit: "
                         f"x {x.shape}, grid {grid.shape}")
    if len(grid.chunks[-1]) != 1:
        grid = grid.rechunk({grid.ndim - 1: -1})
    if kind == "displacement":
        if grid.dtype not in (np.float16, np.float32, np.float64):
            raise TypeError(f"gridops.dask.grid_sample: a displacement grid must be float16, float32 "
                            f"or float64, got {grid.dtype}")
        grid = grid.map_blocks(_absolute_block, [int(v) for v in grid.shape[1:-1]], units == "pixels",
                               bool(align_corners),
                               dtype=np.float64 if grid.dtype == np.float64 else np.float32)
    full = [int(v) for v in x.shape[2:]]
    # The input box of every grid chunk, computed now (small: r pairs per chunk).
    boxes_arr = grid.map_blocks(_grid_box, full, mode, padding_mode, bool(align_corners), units, fill,
                                dtype=np.int64,
                                chunks=tuple((1,) * len(c) for c in grid.chunks[:-1]) + ((r,), (2,)),
                                new_axis=grid.ndim)
    boxes = np.asarray(boxes_arr.compute())  # (nblocks_0, ..., nblocks_r, 1, r, 2)
    out_chunks = (grid.chunks[0], x.chunks[1]) + tuple(grid.chunks[1:-1])
    packs = _several_worker_processes() if halo_packs is None else bool(halo_packs)
    name = "gridops-grid-sample-" + tokenize(x, grid, mode, padding_mode, align_corners, packs, units, fill)
    gst = [_starts(c) for c in grid.chunks]
    cst = _starts(x.chunks[1])
    dsk = {}
    reads = _BoxReads(x, name, packs)
    for gi in itertools.product(*(range(len(c)) for c in grid.chunks[:-1])):
        sbox = boxes[gi].reshape(r, 2)
        n0, n1 = int(gst[0][gi[0]]), int(gst[0][gi[0] + 1])
        for ci in range(len(x.chunks[1])):
            c0, c1 = int(cst[ci]), int(cst[ci + 1])
            key = (name, gi[0], ci) + gi[1:]
            shape = (n1 - n0, c1 - c0) + tuple(int(gst[1 + k][gi[1 + k] + 1] - gst[1 + k][gi[1 + k]]) for k in range(r))
            if any(v == 0 for v in shape):
                dsk[key] = (np.empty, shape, x.dtype)
                continue
            box = [(n0, n1), (c0, c1)] + [(int(a), int(b)) for a, b in sbox]
            if any(hi <= lo for lo, hi in box[2:]):
                # An empty input axis (zeros, constant, fill): nothing is read.
                dsk[key] = (_gs_empty_task, shape, x.dtype, (grid.name,) + gi + (0,), mode,
                            padding_mode, bool(align_corners), full, threads, units, fill)
                continue
            reads.add(key, _gs_task, box, (grid.name,) + gi + (0,), mode, padding_mode,
                      bool(align_corners), full, threads, units, fill)
    reads.emit(dsk)
    return _new_array(name, dsk, [x, grid], out_chunks, x.dtype)


def _gs_empty_task(shape: Tuple[int, ...], dtype: Any, grid: np.ndarray, mode: str, padding_mode: str,
                   align_corners: bool, full: Sequence[int], threads: Optional[int],
                   units: str = "normalized", fill: float = 0.0) -> np.ndarray:
    _set_threads(threads)
    src = np.zeros(shape[:2] + tuple(full), dtype=dtype)  # some axis of full is 0: empty
    return _g.grid_sample(src, _aligned(grid), mode, padding_mode, align_corners,
                          grid_units=units, fill_value=fill)


# --- affine_warp -------------------------------------------------------------------------


def affine_grid_points(theta: np.ndarray, index_ranges: Sequence[np.ndarray], full_size: Sequence[int],
                       align_corners: bool = False) -> np.ndarray:
    """The points of gridops.affine_grid(theta, (N, C) + full_size, align_corners) at the
    spatial indices index_ranges (one integer vector per spatial axis, outermost first, each
    within 0..full_size - 1): shape (N, len(range_1), ..., len(range_r), r), the same bits
    as those elements of the whole grid. Computed by gridops.affine_grid on the window from
    each axis' smallest to its largest index (window coordinates are the whole grid's), then
    indexed; theta: float32 or float64."""
    theta = np.asarray(theta)
    if theta.dtype not in (np.float32, np.float64):
        raise TypeError(f"gridops.dask: theta must be float32 or float64, got {theta.dtype}")
    r = len(full_size)
    nb = theta.shape[0]
    if theta.shape[1:] != (r, r + 1):
        raise ValueError(f"gridops.dask: theta must be (N, {r}, {r + 1}) for {r} spatial axes, got {theta.shape}")
    idx = [np.asarray(v, dtype=np.int64).reshape(-1) for v in index_ranges]
    sizes = tuple(len(v) for v in idx)
    if any(s == 0 for s in sizes):
        return np.empty((nb,) + sizes + (r,), theta.dtype)
    lo = [int(v.min()) for v in idx]
    span = [int(v.max()) + 1 - a for v, a in zip(idx, lo)]
    if r == 1:
        # AffineGrid is 2-D or 3-D: a 1-D grid is the x of a 2-D one of height 1, row 0 of
        # theta [a, -0.0, b] (y = 0 there, and a * x + -0.0 * 0 is a * x exactly).
        t2 = np.zeros((nb, 2, 3), theta.dtype)
        t2[:, 0, 0], t2[:, 0, 1], t2[:, 0, 2] = theta[:, 0, 0], -0.0, theta[:, 0, 1]
        win = _g.affine_grid(t2, [nb, 1, 1, int(full_size[0])], bool(align_corners),
                             window=([0] + lo, [1] + span))[:, 0, :, :1]
    else:
        win = _g.affine_grid(_aligned(theta), [nb, 1] + [int(s) for s in full_size], bool(align_corners),
                             window=(lo, span))
    if all(s == n and (n == 1 or bool(np.all(np.diff(v) == 1))) for v, s, n in zip(idx, span, sizes)):
        return np.ascontiguousarray(win)  # the indices are the window itself
    return win[(slice(None),) + np.ix_(*[v - a for v, a in zip(idx, lo)])]


def _warp_task(pieces: Any, rel: Sequence[Sequence[int]], box: Box, theta: np.ndarray, ranges: Sequence[Tuple[int, int]],
               out_size: Sequence[int], mode: str, padding_mode: str, align_corners: bool,
               full: Sequence[int], threads: Optional[int]) -> np.ndarray:
    _set_threads(threads)
    arr = _box_from_pieces(pieces, rel, box)
    # The fused operator on this chunk's output window, reading the input box: the same
    # bits as gridops.affine_warp on the whole arrays.
    return _g.affine_warp(arr, _aligned(theta), list(out_size), mode, padding_mode, align_corners,
                          window=([a for a, _ in ranges], [b - a for a, b in ranges]),
                          full_size=list(full), origin=[lo for lo, _ in box[2:]])


def affine_warp(x: Any, theta: Any, size: Optional[Sequence[int]] = None, mode: str = "bilinear",
                padding_mode: str = "zeros", align_corners: bool = False, output_chunks: Any = None, *,
                layout: str = "channels_first", threads: Optional[int] = None,
                halo_packs: Optional[bool] = None, task_bytes: Optional[int] = None,
                output_shape: Optional[Sequence[int]] = None) -> da.Array:
    """gridops.affine_warp (AffineGrid + GridSample, fused) of a dask array x (N, C, W),
    (N, C, H, W) or (N, C, D, H, W), per output chunk.

    theta: NumPy (N, r, r + 1), float16/bfloat16/float32/float64. size: the output's
    spatial sizes, or (N, C, *spatial) as in gridops.affine_warp (default x's; output_shape=
    is its former name). output_chunks: the output's spatial chunks; default: when
    the sizes agree, x's chunks merged (innermost axis first) while a task's output stays
    within task_bytes (default 16 MiB: long rows for the kernel, few tasks, and below glibc's
    largest mmap threshold, so outputs reuse freed memory instead of faulting in afresh),
    else dask's "auto" chunks limited to task_bytes. Each task runs gridops.affine_warp on its
    output window (coordinates of the whole output) reading only the input box
    gridops.affine_warp_input_box names for it (the exact hull of its taps, from the
    window's corners): the same bits as gridops.affine_warp(x.compute(), theta, ...).
    """
    align_corners = _align_flag(align_corners, "affine_warp")
    _channels_first_only(layout, "affine_warp")
    x = _as_dask(x, "affine_warp")
    if size is not None and output_shape is not None:
        raise TypeError("gridops.dask.affine_warp: give size or output_shape (its former name), not both")
    output_shape = size if size is not None else output_shape
    if output_shape is not None and len(output_shape) == x.ndim and x.ndim >= 3:
        output_shape = list(output_shape)[2:]  # (N, C, *spatial) as in gridops.affine_warp
    r = x.ndim - 2
    if r not in (1, 2, 3):
        raise ValueError(f"gridops.dask.affine_warp: x must be (N, C, W), (N, C, H, W) or (N, C, D, H, W), "
                         f"got {x.shape}")
    theta = np.asarray(theta)
    full_in = [int(v) for v in x.shape[2:]]
    out_size = [int(v) for v in (output_shape if output_shape is not None else full_in)]
    if len(out_size) != r:
        raise ValueError(f"gridops.dask.affine_warp: size must have {r} (spatial) or {r + 2} entries, got {len(out_size)}")
    if theta.shape != (x.shape[0], r, r + 1):
        raise ValueError(f"gridops.dask.affine_warp: theta must be ({x.shape[0]}, {r}, {r + 1}), got {theta.shape}")
    if output_chunks is None:
        target = float(task_bytes if task_bytes is not None else 16 * 2**20)
        nc_bytes = max(x.chunks[0]) * max(x.chunks[1]) * x.dtype.itemsize if x.size else 1
        if out_size == full_in:
            tile_bytes = float(nc_bytes * np.prod([max(c) if c else 0 for c in x.chunks[2:]]))
            sp = tuple(_group_chunks(x.chunks[2:], tile_bytes, target))
        else:
            sp = da.core.normalize_chunks("auto", tuple(out_size), limit=max(1, int(target // nc_bytes)) * x.dtype.itemsize,
                                          dtype=x.dtype)
    else:
        sp = da.core.normalize_chunks(output_chunks, tuple(out_size), dtype=x.dtype)
    out_chunks = (x.chunks[0], x.chunks[1]) + tuple(sp)
    packs = _several_worker_processes() if halo_packs is None else bool(halo_packs)
    name = "gridops-affine-warp-" + tokenize(x, theta, out_size, mode, padding_mode, align_corners, out_chunks, packs)
    ost = [_starts(c) for c in out_chunks]
    dsk = {}
    reads = _BoxReads(x, name, packs)
    box_cache = {}
    for oi in itertools.product(*(range(len(c)) for c in out_chunks)):
        n0, n1 = int(ost[0][oi[0]]), int(ost[0][oi[0] + 1])
        c0, c1 = int(ost[1][oi[1]]), int(ost[1][oi[1] + 1])
        ranges = [(int(ost[2 + k][oi[2 + k]]), int(ost[2 + k][oi[2 + k] + 1])) for k in range(r)]
        shape = (n1 - n0, c1 - c0) + tuple(b - a for a, b in ranges)
        if any(v == 0 for v in shape):
            dsk[(name,) + oi] = (np.empty, shape, x.dtype)
            continue
        ck = (oi[0],) + tuple(oi[2:])
        if ck not in box_cache:
            sbox = _g.affine_warp_input_box(theta[n0:n1], full_in, out_size, [a for a, _ in ranges],
                                            [b - a for a, b in ranges], mode, padding_mode, align_corners)
            box_cache[ck] = [(int(a), int(b)) for a, b in sbox]
        box = [(n0, n1), (c0, c1)] + box_cache[ck]
        reads.add((name,) + oi, _warp_task, box, theta[n0:n1], ranges, out_size, mode,
                  padding_mode, bool(align_corners), full_in, threads)
    reads.emit(dsk)
    return _new_array(name, dsk, [x], out_chunks, x.dtype)
