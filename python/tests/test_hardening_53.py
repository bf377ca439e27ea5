"""Issue 53 (second hardening round): the defects found through the Python front end, each
with what now happens instead."""

import threading

import numpy as np
import pytest
import torch

import gridops
import gridops.dask as gd
import gridops.torch as gt

da = pytest.importorskip("dask.array")


# --- 2. silent wrong results ---------------------------------------------------------------

def test_negative_and_conjugate_bit_inputs_are_read_as_their_values():
    t = torch.tensor([1 + 2j, 3 + 4j]).conj().imag  # negative bit
    assert t.is_neg()
    assert gridops.pad(t, 1).tolist() == [0.0, -2.0, -4.0, 0.0]
    n = torch._neg_view(torch.tensor([1.0, 2.0, 3.0]))
    assert gridops.gather(n, np.array([2, 0]), 0).tolist() == [-3.0, -1.0]
    c = torch.tensor([1 + 2j, 3 + 4j]).conj()  # conjugate bit
    assert c.is_conj()
    assert gridops.pad(c, 1).tolist() == [0j, 1 - 2j, 3 - 4j, 0j]


def test_negative_bit_out_is_refused():
    o = torch.zeros(4)
    with pytest.raises(ValueError, match="negative bit set"):
        gridops.pad(torch.ones(2), 1, out=torch._neg_view(o))
    assert o.tolist() == [0.0] * 4
    oc = torch.zeros(4, dtype=torch.complex64)
    with pytest.raises(ValueError, match="conjugate bit set"):
        gridops.pad(torch.ones(2, dtype=torch.complex64), 1, out=oc.conj())


def test_double_backward_through_grid_sample_raises():
    x = torch.randn(1, 2, 5, 5, dtype=torch.float64, requires_grad=True)
    g = (torch.rand(1, 3, 3, 2, dtype=torch.float64) * 2 - 1).requires_grad_()
    y = gt.grid_sample(x, g, align_corners=False)
    gx, = torch.autograd.grad(y.sum(), x, create_graph=True)
    with pytest.raises(RuntimeError, match="differentiate twice gridops.torch.grid_sample"):
        (y.sum() + (gx ** 2).sum()).backward()
    # First order is unchanged.
    y = gt.grid_sample(x, g, align_corners=False)
    y.sum().backward()
    assert x.grad is not None and g.grad is not None


def test_dask_pad_value_checked_as_in_memory():
    x = da.from_array(np.zeros((3, 4), np.uint8), chunks=2)
    for v, msg in ((300, "does not fit uint8"), (-1, "does not fit uint8"), (1.5, "not an integer")):
        with pytest.raises(ValueError, match=msg):
            gridops.pad(np.zeros((3, 4), np.uint8), 1, "constant", v)
        with pytest.raises(ValueError, match=msg):
            gd.pad(x, 1, "constant", v)
    with pytest.raises(ValueError, match="constant mode only"):
        gd.pad(x, 1, "edge", 3)


def test_per_call_threads_leave_the_process_count_alone():
    x = np.zeros((1, 1, 32, 32), np.float32)
    th = np.eye(2, 3, dtype=np.float32)[None]
    old = gridops.get_num_threads()
    try:
        gridops.set_num_threads(2)
        errors = []

        def work(n):
            try:
                for _ in range(100):
                    gridops.affine_warp(x, th, (48, 48), threads=n)
            except Exception as e:  # pragma: no cover - reported below
                errors.append(e)

        ts = [threading.Thread(target=work, args=(n,)) for n in (1, 1, 1, 1)]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
        assert not errors
        assert gridops.get_num_threads() == 2
    finally:
        gridops.set_num_threads(old)


# --- 5. valid input refused ------------------------------------------------------------------

def test_dask_pad_crops_a_multi_chunk_axis_to_zero():
    x = np.zeros((3, 4))
    got = gd.pad(da.from_array(x, chunks=1), [(-3, 0), (0, 0)]).compute()
    assert got.shape == gridops.pad(x, [(-3, 0), (0, 0)]).shape == (0, 4)


# --- 6. clear, consistent errors -------------------------------------------------------------

def test_dlpack_device_of_the_wrong_shape():
    class Bad:
        def __dlpack__(self):  # pragma: no cover - never reached
            raise AssertionError

        def __dlpack_device__(self):
            return ()

    with pytest.raises(ValueError, match=r"__dlpack_device__ must return \(device_type, device_id\), got \(\)"):
        gridops.pad(Bad(), 1)


@pytest.mark.parametrize("bad,exc", [(1.5, TypeError), ("2", TypeError), (True, TypeError),
                                     (-1, ValueError), (10**6, ValueError)])
def test_thread_counts_are_checked_alike(bad, exc):
    x = np.zeros((1, 1, 4, 4), np.float32)
    th = np.eye(2, 3, dtype=np.float32)[None]
    old = gridops.get_num_threads()
    with pytest.raises(exc, match="set_num_threads: n must be"):
        gridops.set_num_threads(bad)
    assert gridops.get_num_threads() == old
    with pytest.raises(exc, match="threads must be"):
        gridops.affine_warp(x, th, (4, 4), threads=bad)


@pytest.mark.parametrize("bad", ["yes", 2, -1, 0.5, None])
def test_dask_align_corners_as_in_memory(bad):
    x = np.zeros((1, 1, 4, 4), np.float32)
    grid = np.zeros((1, 2, 2, 2), np.float32)
    with pytest.raises(ValueError, match="align_corners must be True/False"):
        gridops.grid_sample(x, grid, align_corners=bad)
    with pytest.raises(ValueError, match="align_corners must be True/False"):
        gd.grid_sample(da.from_array(x), grid, align_corners=bad)


@pytest.mark.parametrize("f", [0, -1.0, float("nan"), float("inf")])
def test_dask_resample_scale_factor_as_in_memory(f):
    x = np.zeros((1, 1, 4, 4), np.float32)
    with pytest.raises(ValueError, match="must be finite and > 0"):
        gridops.resample(x, scale_factor=f)
    with pytest.raises(ValueError, match="must be finite and > 0"):
        gd.resample(da.from_array(x), scale_factor=f)


def test_dask_pad_reflect_error_names_the_axis():
    x = np.zeros((5, 2))
    with pytest.raises(ValueError) as mem:
        gridops.pad(x, [(0, 0), (5, 0)], "reflect")
    with pytest.raises(ValueError) as dsk:
        gd.pad(da.from_array(x, chunks=1), [(0, 0), (5, 0)], "reflect")
    assert str(dsk.value) == str(mem.value)
    assert "axis 1" in str(dsk.value)


def test_self_overlapping_out_is_refused():
    from numpy.lib.stride_tricks import as_strided

    base = np.zeros(4, np.float32)
    out = as_strided(base, shape=(6,), strides=(0,), writeable=True)
    with pytest.raises(ValueError, match="out= overlaps itself: axis 0 of length 6 has stride 0"):
        gridops.pad(np.ones(2, np.float32), 2, out=out)
    assert not base.any()


def test_a_dlpack_capsule_is_no_out():
    t = torch.zeros(6)
    cap = torch.utils.dlpack.to_dlpack(t)
    with pytest.raises(TypeError, match="a DLPack capsule cannot be an out= array"):
        gridops.pad(np.ones(2, np.float32), 2, out=cap)
    assert not t.any()


def test_interleaved_views_that_share_no_element_are_not_overlap():
    # The real and imaginary parts of one complex array share no element although their
    # byte ranges interleave: out= one, input the other (issue 53, defect 6).
    rng = np.random.default_rng(53)
    z = np.zeros((1, 2, 6, 7), np.complex64)
    z.real = rng.standard_normal(z.shape, dtype=np.float32)
    want = gridops.pad(z.real.copy(), 0)
    got = gridops.pad(z.real, 0, out=z.imag)
    assert got is z.imag or np.shares_memory(got, z.imag)
    np.testing.assert_array_equal(z.imag, want)
    # Even and odd columns through grid_sample, and gather's rows.
    buf = rng.standard_normal((1, 2, 5, 16), dtype=np.float32)
    grid = rng.uniform(-1, 1, (1, 5, 8, 2)).astype(np.float32)
    want = gridops.grid_sample(buf[..., 0::2].copy(), grid)
    gridops.grid_sample(buf[..., 0::2], grid, out=buf[..., 1::2])
    np.testing.assert_array_equal(buf[..., 1::2], want)
    table = np.arange(40, dtype=np.float64).reshape(4, 10)
    want = gridops.gather(table[:, 0::2].copy(), np.array([3, 0]), 0)
    gridops.gather(table[:, 0::2], np.array([3, 0]), 0, out=table[2:, 1::2])
    np.testing.assert_array_equal(table[2:, 1::2], want)
    # Views that do share an element are still refused, before anything is written.
    x = np.zeros(12, np.float32)
    with pytest.raises(ValueError, match="dst must not overlap src in memory"):
        gridops.pad(x[0:6], 0, out=x[4:10])
    assert not x.any()


X4 = np.zeros((1, 2, 4, 4), np.float32)
THETA0 = np.zeros((1, 2, 3), np.float32)


@pytest.mark.parametrize(
    "call, exc, message",
    [
        (lambda: gridops.resample(X4, scale_factor="2"), TypeError,
         "resample: scale_factor: expected a number, got str '2'"),
        (lambda: gridops.resample(X4, scale_factor=[2, "a"]), TypeError,
         "resample: scale_factor: expected a number, got str 'a'"),
        (lambda: gridops.resample(X4, scale_factor=object()), TypeError,
         "resample: scale_factor: expected a number, got object"),
        (lambda: gridops.resize(X4, scales=[1, 1, 2, "a"]), TypeError,
         "resize: scales: expected a number, got str 'a'"),
        (lambda: gridops.pad(X4, 2**70), ValueError, "pad: pads: 1180591620717411303424 does not fit"),
        (lambda: gridops.pad(X4, 1, value=10**400), ValueError,
         "pad: value: 1000000000000000000"),
        (lambda: gridops.resample(X4, scale_factor=2.0, channels="x"), TypeError,
         "channels: expected an int, got str 'x'"),
        (lambda: gridops.grid_sample(X4, np.zeros((1, 2, 2, 2), np.float32), align_corners=2**70),
         ValueError, "align_corners must be True/False"),
        (lambda: gridops.affine_warp(X4, THETA0, [4, 4], window=5), TypeError,
         "affine_warp: window must be (origin, shape), spatial, got int 5"),
        (lambda: gridops.affine_warp(X4, THETA0, [4, 4], window=[[0, 0]]), ValueError,
         "affine_warp: window must be (origin, shape), spatial, got 1 entries"),
        (lambda: gridops.resample(X4, scale_factor=2.0, window="abcd"), TypeError,
         "resample: window must be (full_input_size, full_output_size, input_origin, "
         "output_origin), got str 'abcd'"),
    ],
)
def test_arguments_of_the_wrong_type_name_the_argument(call, exc, message):
    # Each of these was pybind11's "Unable to cast Python instance to C++ type" (or its
    # "not an instance of 'sequence'") before (issue 53, defect 6).
    with pytest.raises(exc) as info:
        call()
    assert message in str(info.value)
    assert "Unable to cast" not in str(info.value)
