"""Zero-copy interop: inputs read in place (pointer identity, no copies counted), outputs that
own gridops memory, out= written in place, DLPack round trips for every dtype."""

import numpy as np
import pytest
import torch

import gridops
from gridops import _gridops

TORCH_DTYPES = [torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64, torch.float16,
                torch.bfloat16, torch.float32, torch.float64, torch.complex64, torch.complex128]
NUMPY_DTYPES = [np.bool_, np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64,
                np.float16, np.float32, np.float64, np.complex64, np.complex128]


@pytest.mark.parametrize("view", [
    lambda a: a,
    lambda a: a[:, :, ::-1, :],
    lambda a: a[:, :, 1::2, ::-3],
    lambda a: a.transpose(0, 1, 3, 2),
    lambda a: np.broadcast_to(a[:, :, :1, :], a.shape),
])
def test_numpy_views_are_read_in_place(rng, view):
    base = rng.standard_normal((2, 3, 8, 9)).astype(np.float32)
    v = view(base)
    info = _gridops._view_info(v)
    assert info["data"] == v.__array_interface__["data"][0]
    assert info["shape"] == v.shape
    assert info["strides"] == tuple(s // v.itemsize for s in v.strides)
    assert info["source"] == "buffer"
    g = rng.uniform(-1, 1, (2, 4, 5, 2)).astype(np.float32)
    before = _gridops._input_copies()
    y = gridops.grid_sample(v, g)
    assert _gridops._input_copies() == before
    np.testing.assert_array_equal(y, gridops.grid_sample(np.ascontiguousarray(v), g))
    np.testing.assert_array_equal(gridops.pad(v, 1), np.pad(v, 1))
    np.testing.assert_array_equal(gridops.gather(v, np.array([1, 0]), 2), np.take(v, [1, 0], 2))
    assert _gridops._input_copies() == before


def test_torch_tensors_are_read_in_place(rng):
    t = torch.from_numpy(rng.standard_normal((2, 3, 8, 9)).astype(np.float32))
    for v in (t, t[:, :, 1::2], t.transpose(2, 3), t.contiguous(memory_format=torch.channels_last)):
        info = _gridops._view_info(v)
        assert info["data"] == v.data_ptr() and info["source"] == "dlpack" and info["torch"]
        assert info["strides"] == v.stride()


def test_outputs_own_gridops_memory_and_out_is_written_in_place(rng):
    x = rng.standard_normal((1, 2, 5, 5)).astype(np.float32)
    g = rng.uniform(-1, 1, (1, 3, 3, 2)).astype(np.float32)
    y = gridops.grid_sample(x, g)
    assert type(y.base).__name__ == "PyCapsule" and "gridops.Tensor" in repr(y.base)
    assert y.flags.writeable and y.flags.c_contiguous and y.ctypes.data % 64 == 0
    assert not np.shares_memory(y, x)
    out = np.full((1, 2, 3, 3), np.nan, np.float32)
    r = gridops.grid_sample(x, g, out=out)
    assert r is out
    np.testing.assert_array_equal(out, y)
    # a strided out= view of a bigger array: only the view is written
    big = np.zeros((1, 2, 6, 3), np.float32)
    r = gridops.grid_sample(x, g, out=big[:, :, ::2])
    assert np.shares_memory(r, big)
    np.testing.assert_array_equal(big[:, :, ::2], y)
    assert not big[:, :, 1::2].any()
    # torch out=
    tout = torch.zeros(1, 2, 3, 3)
    assert gridops.grid_sample(torch.from_numpy(x), torch.from_numpy(g), out=tout) is tout
    np.testing.assert_array_equal(tout.numpy(), y)


def test_torch_in_torch_out_through_dlpack(rng):
    x = torch.from_numpy(rng.standard_normal((1, 2, 5, 5)))
    y = gridops.pad(x, 1)
    assert isinstance(y, torch.Tensor) and y.dtype == torch.float64 and y.is_contiguous()
    assert y.data_ptr() % 64 == 0  # gridops' 64-byte-aligned allocation, not a torch one
    # the memory lives as long as any view of it
    z = y[1:-1, 1:-1]
    del y
    np.testing.assert_array_equal(z[:, :, 1:-1, 1:-1].numpy(), x.numpy())


@pytest.mark.parametrize("dtype", TORCH_DTYPES, ids=str)
def test_dlpack_round_trip_every_torch_dtype(dtype):
    src = (torch.arange(24, dtype=torch.float64).reshape(4, 6) % 5).to(dtype)
    idx = torch.tensor([3, 0, 2])
    y = gridops.gather(src, idx, 0)
    assert isinstance(y, torch.Tensor) and y.dtype == dtype
    assert torch.equal(y, src.index_select(0, idx))
    p = gridops.pad(src, ((1, 0), (0, 2)))
    assert p.dtype == dtype and torch.equal(p[1:, :6], src) and bool((p[0] == 0).all())


@pytest.mark.parametrize("dtype", NUMPY_DTYPES)
def test_buffer_round_trip_every_numpy_dtype(dtype):
    src = (np.arange(24).reshape(4, 6) % 5).astype(dtype)
    y = gridops.gather(src[:, ::-1], np.array([3, 0]), 0)
    assert type(y) is np.ndarray and y.dtype == dtype
    np.testing.assert_array_equal(y, src[:, ::-1][[3, 0]])
    # a capsule from numpy's own __dlpack__ (numpy exports every dtype here but bool)
    if dtype is not np.bool_:
        np.testing.assert_array_equal(gridops.gather(src.__dlpack__(), np.array([1]), 0), src[[1]])


def test_array_interface_objects_are_accepted(rng):
    class OnlyInterface:
        def __init__(self, a):
            self.a = a
            self.__array_interface__ = a.__array_interface__

    a = rng.standard_normal((3, 4))
    np.testing.assert_array_equal(gridops.pad(OnlyInterface(a[::-1]), 1), np.pad(a[::-1], 1))
