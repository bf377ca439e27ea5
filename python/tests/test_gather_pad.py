"""gather against numpy.take, pad against numpy.pad (and slicing for negative pads)."""

import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

import gridops

DTYPES = [np.bool_, np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64,
          np.float16, np.float32, np.float64, np.complex64, np.complex128]


def random_array(rng, shape, dtype):
    a = rng.standard_normal(shape) * 100
    if np.issubdtype(dtype, np.complexfloating):
        a = a + 1j * rng.standard_normal(shape)
    return a.astype(dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_gather_every_dtype_matches_take(rng, dtype):
    data = random_array(rng, (4, 5, 3), dtype)
    idx = np.array([[0, -1], [2, -3]], np.int32)
    for axis in range(-3, 3):
        np.testing.assert_array_equal(gridops.gather(data, idx, axis), np.take(data, idx, axis))


def test_gather_scalar_index_and_errors(rng):
    data = rng.standard_normal((4, 5))
    np.testing.assert_array_equal(gridops.gather(data, np.array(2), 1), data[:, 2])
    with pytest.raises(ValueError, match="indices"):
        gridops.gather(data, np.array([0, 9]), 1)


@given(shape=st.lists(st.integers(1, 5), min_size=1, max_size=4), ishape=st.lists(st.integers(0, 3), max_size=3),
       axis_seed=st.integers(0, 100), seed=st.integers(0, 2**31 - 1), int32=st.booleans())
def test_gather_random(shape, ishape, axis_seed, seed, int32):
    r = np.random.default_rng(seed)
    data = r.standard_normal(shape)
    axis = axis_seed % len(shape) - (len(shape) if axis_seed % 2 else 0)
    idx = r.integers(-shape[axis], shape[axis], ishape).astype(np.int32 if int32 else np.int64)
    np.testing.assert_array_equal(gridops.gather(data, idx, axis), np.take(data, idx, axis))


NUMPY_MODES = ["constant", "edge", "reflect", "symmetric", "wrap"]


@pytest.mark.parametrize("mode", NUMPY_MODES)
@pytest.mark.parametrize("dtype", [np.uint8, np.int64, np.float16, np.float32, np.complex128])
def test_pad_matches_numpy_pad(rng, mode, dtype):
    x = random_array(rng, (3, 4, 5), dtype)
    pw = ((1, 2), (0, 3), (2, 1))
    np.testing.assert_array_equal(gridops.pad(x, pw, mode), np.pad(x, pw, mode))


def test_pad_forms_agree(rng):
    x = rng.standard_normal((3, 4))
    ref = np.pad(x, ((1, 2), (3, 0)))
    np.testing.assert_array_equal(gridops.pad(x, [1, 3, 2, 0]), ref)          # ONNX: begins, then ends
    np.testing.assert_array_equal(gridops.pad(x, ((1, 2), (3, 0))), ref)      # NumPy pad_width
    np.testing.assert_array_equal(gridops.pad(x, np.array([1, 3, 2, 0])), ref)
    np.testing.assert_array_equal(gridops.pad(x, np.array([[1, 2], [3, 0]])), ref)        # 2-D array: pairs
    np.testing.assert_array_equal(gridops.pad(x, torch.tensor([1, 3, 2, 0])), ref)
    np.testing.assert_array_equal(gridops.pad(x, 2), np.pad(x, 2))
    np.testing.assert_array_equal(gridops.pad(x, ((1, 2),)), np.pad(x, ((1, 2),)))
    np.testing.assert_array_equal(gridops.pad(x, [3, 0], axes=[-1]), np.pad(x, ((0, 0), (3, 0))))
    np.testing.assert_array_equal(gridops.pad(x, [1, 2], "reflect", axes=[0]), np.pad(x, ((1, 2), (0, 0)), "reflect"))


def test_pad_value_and_negative_pads(rng):
    x = rng.integers(0, 100, (4, 6)).astype(np.int16)
    np.testing.assert_array_equal(gridops.pad(x, ((1, 1), (2, 0)), value=-7),
                                  np.pad(x, ((1, 1), (2, 0)), constant_values=-7))
    np.testing.assert_array_equal(gridops.pad(x, [-1, 2, 0, -3]), np.pad(x[1:, :3], ((0, 0), (2, 0))))
    with pytest.raises(ValueError, match="does not fit"):
        gridops.pad(x, 1, value=40000)
    with pytest.raises(ValueError, match="not an integer"):
        gridops.pad(x, 1, value=1.5)
    # NumPy / torch scalars are numbers: converted to the input's dtype
    np.testing.assert_array_equal(gridops.pad(x, 1, value=np.int64(-3)), np.pad(x, 1, constant_values=-3))
    np.testing.assert_array_equal(gridops.pad(x, 1, value=torch.tensor(5)), np.pad(x, 1, constant_values=5))
    with pytest.raises(ValueError):
        gridops.pad(x, 1, "edge", value=3)
    f = np.ones((2, 2), np.float32)
    np.testing.assert_array_equal(gridops.pad(f, 1, value=np.float32(2.5)), np.pad(f, 1, constant_values=2.5))
    np.testing.assert_array_equal(gridops.pad(f, 1, value=np.array([2.5], np.float32)),
                                  np.pad(f, 1, constant_values=2.5))
    tb = torch.ones(2, 2, dtype=torch.bfloat16)
    yb = gridops.pad(tb, 1, value=0.5)
    assert yb.dtype == torch.bfloat16 and yb[0, 0].item() == 0.5


@given(shape=st.lists(st.integers(1, 4), min_size=1, max_size=3), mode=st.sampled_from(NUMPY_MODES),
       data=st.data())
def test_pad_random(shape, mode, data):
    limit = (lambda n: n - 1) if mode == "reflect" else (lambda n: n) if mode == "symmetric" else (lambda n: 6)
    pw = [(data.draw(st.integers(0, limit(n))), data.draw(st.integers(0, limit(n)))) for n in shape]
    x = np.arange(np.prod(shape), dtype=np.float64).reshape(shape)
    if mode == "wrap":
        # periodic for any pad size (ERRATA Pad 5); numpy's wrap is not past one period
        ref = x
        for axis, (b, a) in enumerate(pw):
            ref = np.take(ref, np.arange(-b, shape[axis] + a) % shape[axis], axis)
    else:
        ref = np.pad(x, pw, mode)
    np.testing.assert_array_equal(gridops.pad(x, pw, mode), ref)


def test_plans_match_functions(rng):
    data = rng.standard_normal((5, 6)).astype(np.float32)
    idx = np.array([4, 0, 1], np.int64)
    gp = gridops.GatherPlan(data.shape, idx.shape, np.float32, "int64", axis=1)
    assert gp.output_shape == (5, 3)
    np.testing.assert_array_equal(gp(data, idx), np.take(data, idx, 1))
    pp = gridops.PadPlan(data.shape, ((1, 0), (2, 2)), "float32", "wrap")
    assert pp.output_shape == (6, 10)
    out = np.empty((6, 10), np.float32)
    assert pp(data, out=out) is out
    np.testing.assert_array_equal(out, np.pad(data, ((1, 0), (2, 2)), "wrap"))
    x = rng.standard_normal((1, 2, 5, 5)).astype(np.float32)
    g = rng.uniform(-1, 1, (1, 3, 3, 2)).astype(np.float32)
    gsp = gridops.GridSamplePlan(x.shape, g.shape, torch.float32, mode="bicubic", align_corners=True)
    assert gsp.output_shape == (1, 2, 3, 3) and isinstance(gsp.impl_name, str)
    np.testing.assert_array_equal(gsp(x, g), gridops.grid_sample(x, g, "bicubic", align_corners=True))
    theta = rng.standard_normal((1, 2, 3))
    agp = gridops.AffineGridPlan(theta.shape, (1, 1, 4, 6), np.dtype("float64"))
    np.testing.assert_array_equal(agp(theta), gridops.affine_grid(theta, (1, 1, 4, 6)))
    with pytest.raises(ValueError):  # a plan checks the shapes it was made for
        gsp(x[:, :1], g)


# --- pad_backward -------------------------------------------------------------------------------

@given(shape=st.lists(st.integers(1, 5), min_size=1, max_size=3),
       mode=st.sampled_from(["constant", "edge", "reflect", "symmetric", "wrap"]), data=st.data())
def test_pad_backward_is_the_adjoint(shape, mode, data):
    """<pad(x), g> == <x, pad_backward(g)>, exact on small integers in float64."""
    limit = (lambda n: n - 1) if mode == "reflect" else (lambda n: n) if mode == "symmetric" \
        else (lambda n: 7)
    pw = [(data.draw(st.integers(-1, limit(n))), data.draw(st.integers(-1, limit(n))))
          for n in shape]
    rng = np.random.default_rng(data.draw(st.integers(0, 2 ** 32 - 1)))
    x = rng.integers(-8, 9, shape).astype(np.float64)
    y = gridops.pad(x, pw, mode)
    g = rng.integers(-8, 9, y.shape).astype(np.float64)
    gx = gridops.pad_backward(g, shape, pw, mode)
    assert gx.shape == tuple(shape) and gx.dtype == np.float64
    assert float((y * g).sum()) == float((x * gx).sum())


@pytest.mark.parametrize("mode,torch_mode", [("reflect", "reflect"), ("edge", "replicate"),
                                             ("constant", "constant")])
@pytest.mark.parametrize("shape,pads", [((2, 3, 9), (3, 2)), ((2, 3, 9, 11), (2, 3, 1, 4)),
                                        ((1, 2, 5, 6, 7), (1, 2, 3, 1, 2, 2))])
def test_pad_backward_is_pytorchs_gradient_bit_for_bit(mode, torch_mode, shape, pads):
    """PyTorch's CPU pad backwards add in row-major output order too: the same bits."""
    gen = torch.Generator().manual_seed(1)
    for dtype in (torch.float32, torch.float64):
        x = torch.randn(shape, dtype=dtype, generator=gen, requires_grad=True)
        y = torch.nn.functional.pad(x, pads, mode=torch_mode)
        g = torch.randn(y.shape, dtype=dtype, generator=gen)
        (want,) = torch.autograd.grad(y, x, g)
        got = gridops.pad_backward(g, shape, pads, mode, order="torch")
        assert isinstance(got, torch.Tensor) and got.dtype == dtype
        assert torch.equal(got, want)


def test_pad_backward_forms_plans_and_errors(rng):
    g = rng.standard_normal((6, 10)).astype(np.float32)
    pw = ((1, 0), (2, 2))
    a = gridops.pad_backward(g, (5, 6), pw, "wrap")
    assert np.array_equal(a, gridops.pad_backward(g, (5, 6), [1, 2, 0, 2], "circular"))
    plan = gridops.PadPlan((5, 6), pw, "float32", "wrap")
    assert plan.backward_impl_name == "pad_backward.rows"
    out = np.empty((5, 6), np.float32)
    assert plan.backward(g, out=out) is out
    assert np.array_equal(out, a)
    strided = g[:, ::1][::1].T.copy().T  # Fortran order: any strides
    assert np.array_equal(gridops.pad_backward(strided, (5, 6), pw, "wrap"), a)
    c = (rng.standard_normal((6, 10)) + 1j * rng.standard_normal((6, 10))).astype(np.complex64)
    gc = gridops.pad_backward(c, (5, 6), pw, "wrap")
    assert np.array_equal(gc.real, gridops.pad_backward(np.ascontiguousarray(c.real), (5, 6), pw,
                                                        "wrap"))
    with pytest.raises(ValueError, match="grad_dst"):
        gridops.pad_backward(g[:, :9], (5, 6), pw, "wrap")
    with pytest.raises(ValueError, match="floating or complex"):
        gridops.pad_backward(np.zeros((6, 10), np.int32), (5, 6), pw, "wrap")
    with pytest.raises(ValueError, match="order must be"):
        gridops.pad_backward(g, (5, 6), pw, "wrap", order="numpy")
