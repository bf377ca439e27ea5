"""resample / resample_backward against torch.nn.functional.interpolate and its autograd."""

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from hypothesis import given
from hypothesis import strategies as st

import gridops
from gridops import _gridops

TORCH_LINEAR = {1: "linear", 2: "bilinear", 3: "trilinear"}


def torch_resample(x, size, mode):
    r = x.ndim - 2
    t = torch.from_numpy(x)
    if mode == "linear":
        return F.interpolate(t, size=size, mode=TORCH_LINEAR[r], align_corners=False).numpy()
    return F.interpolate(t, size=size, mode="nearest-exact").numpy()


@pytest.mark.parametrize("mode", ["linear", "nearest"])
@pytest.mark.parametrize("shape,size", [((2, 3, 9), (4,)), ((2, 3, 7, 9), (5, 13)), ((1, 2, 4, 5, 6), (7, 3, 6))])
def test_forward_matches_torch(rng, mode, shape, size):
    x = rng.standard_normal(shape).astype(np.float32)
    y = gridops.resample(x, size=size, mode=mode)
    assert y.shape == shape[:2] + size
    np.testing.assert_allclose(y, torch_resample(x, size, mode), rtol=1e-5, atol=1e-6)


def test_scale_factor_is_floor_of_size_times_factor(rng):
    x = rng.standard_normal((1, 2, 5, 7)).astype(np.float64)
    y = gridops.resample(x, scale_factor=(2.0, 0.5))
    assert y.shape == (1, 2, 10, 3)
    np.testing.assert_allclose(y, torch_resample(x, (10, 3), "linear"), rtol=1e-12, atol=1e-12)
    assert gridops.resample(x, scale_factor=1.5).shape == (1, 2, 7, 10)


@pytest.mark.parametrize("mode", ["linear", "nearest"])
def test_backward_is_torch_autograd(rng, mode):
    x = torch.from_numpy(rng.standard_normal((2, 3, 6, 5))).requires_grad_()
    size = (9, 4)
    y = (F.interpolate(x, size=size, mode="bilinear", align_corners=False) if mode == "linear"
         else F.interpolate(x, size=size, mode="nearest-exact"))
    gy = torch.from_numpy(rng.standard_normal((2, 3) + size))
    (ref,) = torch.autograd.grad(y, x, gy)
    gx = gridops.resample_backward(gy.numpy(), (2, 3, 6, 5), mode)
    np.testing.assert_allclose(gx, ref.numpy(), rtol=1e-10, atol=1e-10)
    gxt = gridops.resample_backward(gy, (2, 3, 6, 5), mode)
    assert isinstance(gxt, torch.Tensor)


def to_blocked(x, b):
    n, c = x.shape[:2]
    cb = -(-c // b)
    padded = np.zeros((n, cb * b) + x.shape[2:], x.dtype)
    padded[:, :c] = x
    blocked = padded.reshape((n, cb, b) + x.shape[2:])
    return np.ascontiguousarray(np.moveaxis(blocked, 2, -1))


@pytest.mark.parametrize("layout,b", [("blocked8", 8), ("blocked16", 16), ("nChw8c", 8)])
def test_blocked_layouts(rng, layout, b):
    x = rng.standard_normal((2, 11, 5, 6)).astype(np.float32)
    ref = gridops.resample(x, size=(7, 4))
    xb = to_blocked(x, b)
    y = gridops.resample(xb, size=(7, 4), layout=layout, channels=11)
    assert y.shape == (2, -(-11 // b), 7, 4, b)
    np.testing.assert_allclose(y, to_blocked(ref, b), rtol=1e-6, atol=1e-6)
    # the padded channels of the output are zeros, and the layout can change on the way
    y_plain = gridops.resample(xb, size=(7, 4), layout=layout, channels=11, out_layout="nchw")
    np.testing.assert_allclose(y_plain, ref, rtol=1e-6, atol=1e-6)


def test_channels_last_layout_and_torch_channels_last_read_in_place(rng):
    x = rng.standard_normal((2, 3, 6, 7)).astype(np.float32)
    ref = gridops.resample(x, size=(4, 9))
    y = gridops.resample(np.ascontiguousarray(x.transpose(0, 2, 3, 1)), size=(4, 9), layout="channels_last")
    np.testing.assert_allclose(y.transpose(0, 3, 1, 2), ref, rtol=1e-6, atol=1e-6)
    t = torch.from_numpy(x).contiguous(memory_format=torch.channels_last)
    before = _gridops._input_copies()
    yt = gridops.resample(t, size=(4, 9))
    assert _gridops._input_copies() == before  # read in place as channels-last
    np.testing.assert_allclose(yt.numpy(), ref, rtol=1e-6, atol=1e-6)


def test_non_dense_input_is_copied_once_and_counted(rng):
    x = rng.standard_normal((1, 2, 8, 10)).astype(np.float32)
    view = x[:, :, ::-2, 1::3]
    before = _gridops._input_copies()
    y = gridops.resample(view, size=(3, 5))
    assert _gridops._input_copies() == before + 1
    np.testing.assert_allclose(y, gridops.resample(np.ascontiguousarray(view), size=(3, 5)), rtol=0, atol=0)


def test_plan_forward_backward_and_out(rng):
    plan = gridops.ResamplePlan((1, 2, 4, 4), (8, 6), "linear", "float32")
    assert plan.input_shape == (1, 2, 4, 4) and plan.output_shape == (1, 2, 8, 6)
    x = rng.standard_normal((1, 2, 4, 4)).astype(np.float32)
    out = np.empty((1, 2, 8, 6), np.float32)
    assert plan(x, out=out) is out
    np.testing.assert_allclose(out, torch_resample(x, (8, 6), "linear"), rtol=1e-5, atol=1e-6)
    g = rng.standard_normal((1, 2, 8, 6)).astype(np.float32)
    # adjoint: <A x, g> == <x, A^T g>
    np.testing.assert_allclose(np.vdot(plan.forward(x), g), np.vdot(x, plan.backward(g)), rtol=1e-5)
    with pytest.raises(ValueError, match="overlap"):
        big = np.zeros(1 * 2 * 8 * 6 + 64, np.float32)
        plan(big[:32].reshape(1, 2, 4, 4), out=big[:96].reshape(1, 2, 8, 6))


@given(r=st.integers(1, 3), c=st.integers(1, 3), mode=st.sampled_from(["linear", "nearest"]),
       sizes=st.lists(st.tuples(st.integers(1, 7), st.integers(1, 7)), min_size=3, max_size=3),
       seed=st.integers(0, 2**31 - 1))
def test_random_problems_match_torch(r, c, mode, sizes, seed):
    x = np.random.default_rng(seed).standard_normal((1, c) + tuple(s[0] for s in sizes[:r]))
    size = tuple(s[1] for s in sizes[:r])
    np.testing.assert_allclose(gridops.resample(x, size=size, mode=mode), torch_resample(x, size, mode),
                               rtol=1e-10, atol=1e-10)
