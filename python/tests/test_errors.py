"""The bad-input table: every row a clear Python exception, never a crash."""

import numpy as np
import pytest
import torch

import gridops

X = np.zeros((1, 2, 4, 4), np.float32)
G = np.zeros((1, 3, 3, 2), np.float32)


@pytest.mark.parametrize("bad,exc,match", [
    (None, TypeError, "got None"),
    ([[1.0, 2.0]], TypeError, "got list"),
    (3.0, TypeError, "got float"),
    (7, TypeError, "got int"),
    ("abc", TypeError, "got str"),
    (np.array(1.0, np.float32), ValueError, "rank"),                        # 0-d array
    (np.array([[["a"]]]), TypeError, "string arrays"),
    (np.array([[[object()]]]), TypeError, "object arrays"),
    (np.zeros((1, 2, 4, 4), ">f4"), TypeError, "big-endian"),
    (np.zeros((1, 2, 4, 4), np.longdouble), TypeError, "unsupported element format"),
])
def test_bad_inputs(bad, exc, match):
    with pytest.raises(exc, match=match):
        gridops.grid_sample(bad, G)
    with pytest.raises(exc, match=match if exc is TypeError else "rank"):
        gridops.gather(bad, np.array([0]), 0)


def test_dtype_errors_are_type_and_value_errors():
    with pytest.raises(TypeError, match="grid dtype"):
        gridops.grid_sample(X, G.astype(np.int32))
    with pytest.raises(ValueError, match="grid dtype"):
        gridops.grid_sample(X, G.astype(np.int32))
    with pytest.raises(gridops.DTypeError):
        gridops.gather(X, np.array([0.0]), 0)
    assert issubclass(gridops.DTypeError, TypeError) and issubclass(gridops.DTypeError, ValueError)


def test_invalid_arguments_name_the_argument():
    with pytest.raises(ValueError, match="mode"):
        gridops.grid_sample(X, G, mode="trilinear_ish")
    with pytest.raises(ValueError, match="padding"):
        gridops.grid_sample(X, G, padding_mode="circular")
    with pytest.raises(ValueError, match="align_corners"):
        gridops.grid_sample(X, G, align_corners=2)
    with pytest.raises(ValueError, match="layout"):
        gridops.grid_sample(X, G, layout="NCWH")
    with pytest.raises(ValueError, match="grid"):
        gridops.grid_sample(X, np.zeros((2, 3, 3, 2), np.float32))
    with pytest.raises(ValueError, match="pads must have"):
        gridops.pad(X, [1, 2, 3])
    with pytest.raises(ValueError, match="axes"):
        gridops.pad(X, [1, 1], axes=[7])
    with pytest.raises(ValueError, match="exactly one"):
        gridops.resample(X)
    with pytest.raises(ValueError, match="size"):
        gridops.affine_grid(np.zeros((1, 2, 3), np.float32), (1, 2, 3))


@pytest.mark.parametrize("call", [
    lambda: gridops.resample(X, scale_factor="x"),
    lambda: gridops.resample(X, size=("a", 3)),
    lambda: gridops.resample(X, size=4, out_layout=3),
    lambda: gridops.grid_sample(X, G, mode=None),
    lambda: gridops.gather(X, np.array([0]), axis="0"),
    lambda: gridops.affine_grid(np.zeros((1, 2, 3), np.float32), None),
    lambda: gridops.pad(X, "1"),
    lambda: gridops.pad(X, [[1, 2], "ab", [0, 0], [0, 0]]),
    lambda: gridops.affine_grid(np.zeros((1, 2, 3), np.float32), [1, 1, [2], 2]),
    lambda: gridops.affine_grid(np.zeros((1, 2, 3), np.float32), [1, 1, 2.0, 2]),
    lambda: gridops.GridSamplePlan(X.shape, G.shape, dtype="quaternion"),
    lambda: gridops.GatherPlan((3,), (1,), object),
])
def test_arguments_of_the_wrong_python_type_are_type_errors(call):
    with pytest.raises(TypeError):
        call()


@pytest.mark.parametrize("out,exc,match", [
    (np.zeros((1, 2, 3, 3), np.float32)[None][0].copy(), None, None),  # a good one, for contrast
    (np.zeros((1, 2, 3, 4), np.float32), ValueError, "shape"),
    (np.zeros((1, 2, 3, 3), np.float64), TypeError, "dtype"),
    ("out", TypeError, "got str"),
    ([0.0], TypeError, "got list"),
])
def test_wrong_out(out, exc, match):
    if exc is None:
        assert gridops.grid_sample(X, G, out=out) is out
        return
    with pytest.raises(exc, match=match):
        gridops.grid_sample(X, G, out=out)


def test_read_only_out_is_rejected_and_untouched():
    out = np.full((1, 2, 3, 3), 5.0, np.float32)
    out.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        gridops.grid_sample(X, G, out=out)
    assert (out == 5.0).all()
    with pytest.raises(ValueError, match="read-only"):
        gridops.pad(np.zeros(3), 1, out=np.broadcast_to(np.zeros(1), (5,)))


def test_out_overlapping_an_input_is_rejected():
    x = np.zeros((1, 2, 3, 3), np.float32)
    with pytest.raises(ValueError, match="overlap"):
        gridops.grid_sample(x, G, out=x)


def test_dlpack_capsule_used_twice():
    cap = torch.arange(6.0).__dlpack__()
    gridops.pad(cap, 1)
    with pytest.raises(ValueError, match="already consumed"):
        gridops.pad(cap, 1)


def test_non_cpu_and_grad_tensors():
    meta = torch.empty((1, 2, 4, 4), device="meta")
    with pytest.raises(ValueError, match="device 'meta'"):
        gridops.grid_sample(meta, torch.from_numpy(G))

    class FakeGpuArray:  # a DLPack producer on another device
        def __dlpack_device__(self):
            return (2, 0)

        def __dlpack__(self, stream=None):
            raise AssertionError("must not be exported")

    with pytest.raises(ValueError, match="device type 2"):
        gridops.pad(FakeGpuArray(), 1)
    with pytest.raises(ValueError, match="detach"):
        gridops.pad(torch.zeros(3, requires_grad=True), 1)


def test_allocation_failure_is_memory_error():
    theta = np.zeros((1, 2, 3), np.float32)
    with pytest.raises(MemoryError):
        gridops.affine_grid(theta, (1, 1, 1 << 21, 1 << 21))
    # a broadcast (zero-stride) grid asking for a 4 TB output
    g = np.broadcast_to(np.zeros((1, 1, 1, 2), np.float32), (1, 1 << 18, 1 << 18, 2))
    with pytest.raises(MemoryError):
        gridops.grid_sample(np.zeros((1, 16, 2, 2), np.float32), g)


def test_nothing_is_written_on_error():
    out = np.full((2,), 9, np.int64)
    with pytest.raises(ValueError):
        gridops.gather(np.arange(5), np.array([1, 5]), 0, out=out)
    assert (out == 9).all()


def test_misaligned_data_is_rejected():
    raw = np.zeros(4 * 17 + 1, np.uint8)
    odd = np.frombuffer(raw.data, np.float32, count=16, offset=1).reshape(1, 1, 4, 4)
    with pytest.raises(ValueError, match="aligned"):
        gridops.grid_sample(odd, G[:1, :1, :1])
    with pytest.raises(ValueError, match="aligned"):
        gridops.pad(np.zeros((1, 1, 4, 4), np.float32), 0, out=odd)
    # an aligned view of the same buffer is fine
    ok = np.frombuffer(raw.data, np.float32, count=16, offset=4).reshape(1, 1, 4, 4)
    assert gridops.grid_sample(ok, G[:1, :1, :1]).shape == (1, 1, 1, 1)
