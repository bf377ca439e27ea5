"""grid_sample and affine_grid against torch.nn.functional (the independent oracle)."""

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from hypothesis import given
from hypothesis import strategies as st

import gridops

MODES = {"bilinear": "bilinear", "linear": "bilinear", "nearest": "nearest", "bicubic": "bicubic", "cubic": "bicubic"}


def torch_grid_sample(x, g, mode, padding, align):
    return F.grid_sample(torch.from_numpy(x), torch.from_numpy(g), mode=MODES[mode], padding_mode=padding,
                         align_corners=align).numpy()


@pytest.mark.parametrize("mode", sorted(MODES))
@pytest.mark.parametrize("padding", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("align", [False, True])
def test_2d_matches_torch(rng, mode, padding, align):
    x = rng.standard_normal((2, 3, 7, 9)).astype(np.float32)
    g = rng.uniform(-1.2, 1.2, (2, 5, 6, 2)).astype(np.float32)
    y = gridops.grid_sample(x, g, mode, padding, align)
    assert isinstance(y, np.ndarray) and y.shape == (2, 3, 5, 6) and y.dtype == np.float32
    np.testing.assert_allclose(y, torch_grid_sample(x, g, mode, padding, align), rtol=1e-5, atol=2e-5)


@pytest.mark.parametrize("mode", ["bilinear", "nearest"])
@pytest.mark.parametrize("padding", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("align", [False, True])
def test_3d_matches_torch(rng, mode, padding, align):
    x = rng.standard_normal((1, 2, 4, 5, 6)).astype(np.float64)
    g = rng.uniform(-1.1, 1.1, (1, 3, 4, 2, 3)).astype(np.float64)
    y = gridops.grid_sample(x, g, mode, padding, align)
    np.testing.assert_allclose(y, torch_grid_sample(x, g, mode, padding, align), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("mode", ["linear", "nearest", "cubic"])
def test_1d_equals_2d_with_one_row(rng, mode):
    # ONNX allows any spatial rank; a 1-D sample is the 2-D one on a single row at y = 0.
    x = rng.standard_normal((2, 3, 11)).astype(np.float32)
    gx = rng.uniform(-1, 1, (2, 7, 1)).astype(np.float32)
    y1 = gridops.grid_sample(x, gx, mode, "border")
    g2 = np.concatenate([gx, np.zeros_like(gx)], axis=-1)[:, None]
    y2 = gridops.grid_sample(x[:, :, None, :], g2, mode, "border")
    np.testing.assert_allclose(y1, y2[:, :, 0, :], rtol=1e-6, atol=1e-6)


def test_channels_last_is_the_transposed_channels_first(rng):
    x = rng.standard_normal((2, 3, 8, 8)).astype(np.float32)
    g = rng.uniform(-1, 1, (2, 4, 5, 2)).astype(np.float32)
    ref = gridops.grid_sample(x, g, "bicubic", "reflection", True)
    x_nhwc = np.ascontiguousarray(x.transpose(0, 2, 3, 1))
    y = gridops.grid_sample(x_nhwc, g, "bicubic", "reflection", True, layout="channels_last")
    assert y.shape == (2, 4, 5, 3)
    np.testing.assert_allclose(y.transpose(0, 3, 1, 2), ref, rtol=1e-5, atol=1e-5)


def test_float16_and_bfloat16(rng):
    x = rng.standard_normal((1, 2, 6, 6)).astype(np.float32)
    g = rng.uniform(-1, 1, (1, 4, 4, 2)).astype(np.float32)
    ref = torch_grid_sample(x, g, "bilinear", "zeros", False)
    y16 = gridops.grid_sample(x.astype(np.float16), g.astype(np.float16))
    assert y16.dtype == np.float16
    ref16 = torch_grid_sample(x.astype(np.float16).astype(np.float32), g.astype(np.float16).astype(np.float32),
                              "bilinear", "zeros", False)
    np.testing.assert_allclose(y16.astype(np.float32), ref16, rtol=2e-3, atol=2e-3)
    xb, gb = torch.from_numpy(x).bfloat16(), torch.from_numpy(g).bfloat16()
    yb = gridops.grid_sample(xb, gb)
    assert isinstance(yb, torch.Tensor) and yb.dtype == torch.bfloat16
    refb = F.grid_sample(xb.float(), gb.float(), align_corners=False)
    torch.testing.assert_close(yb.float(), refb, rtol=2e-2, atol=2e-2)
    del ref


@given(n=st.integers(1, 2), c=st.integers(1, 5), h=st.integers(1, 9), w=st.integers(1, 9),
       ho=st.integers(1, 6), wo=st.integers(1, 6), mode=st.sampled_from(["bilinear", "nearest", "bicubic"]),
       padding=st.sampled_from(["zeros", "border", "reflection"]), align=st.booleans(),
       seed=st.integers(0, 2**31 - 1))
def test_random_problems_match_torch(n, c, h, w, ho, wo, mode, padding, align, seed):
    r = np.random.default_rng(seed)
    x = r.standard_normal((n, c, h, w))
    g = r.uniform(-1.5, 1.5, (n, ho, wo, 2))
    if mode == "nearest":
        # keep sample points away from ties between two pixels (rounding there is a choice)
        g = np.round(g * 64) / 64 + 1 / 512
    y = gridops.grid_sample(x, g, mode, padding, align)
    np.testing.assert_allclose(y, torch_grid_sample(x, g, mode, padding, align), rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("align", [False, True])
@pytest.mark.parametrize("dims", [(2, 3, 5, 7), (2, 1, 3, 4, 5)])
def test_affine_grid_matches_torch(rng, align, dims):
    r = len(dims) - 2
    theta = rng.standard_normal((dims[0], r, r + 1)).astype(np.float32)
    g = gridops.affine_grid(theta, dims, align)
    ref = F.affine_grid(torch.from_numpy(theta), list(dims), align_corners=align).numpy()
    assert g.shape == ref.shape
    np.testing.assert_allclose(g, ref, rtol=1e-5, atol=1e-5)
    # torch in, torch out; a torch.Size is a size
    gt = gridops.affine_grid(torch.from_numpy(theta), torch.Size(dims), align_corners=align)
    assert isinstance(gt, torch.Tensor)
    np.testing.assert_array_equal(gt.numpy(), g)


def test_affine_grid_out_and_warp_pipeline(rng):
    theta = np.array([[[0.8, -0.3, 0.1], [0.25, 0.9, -0.2]]], np.float64)
    x = rng.standard_normal((1, 3, 16, 12))
    grid = np.empty((1, 16, 12, 2))
    assert gridops.affine_grid(theta, x.shape, out=grid) is grid
    y = gridops.grid_sample(x, grid, "bilinear", "zeros")
    ref = F.grid_sample(torch.from_numpy(x), F.affine_grid(torch.from_numpy(theta), list(x.shape), False),
                        align_corners=False).numpy()
    np.testing.assert_allclose(y, ref, rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("layout", ["nchw", "nhwc"])
@pytest.mark.parametrize("mode", ["bilinear", "nearest"])
@pytest.mark.parametrize("padding", ["zeros", "border", "reflection"])
def test_uint8_few_channel_path_within_bound_of_reference(rng, monkeypatch, layout, mode, padding):
    # docs/ops/grid_sample.md, "uint8 few-channel path": nearest bit-exact, bilinear within 1.
    shape = (2, 3, 9, 13) if layout == "nchw" else (2, 9, 13, 3)
    x = rng.integers(0, 256, shape, dtype=np.uint8)
    g = rng.uniform(-1.2, 1.2, (2, 7, 11, 2)).astype(np.float32)
    g[0, 0, :3, 0] = [np.nan, np.inf, -1e9]
    plan = gridops.GridSamplePlan(x.shape, g.shape, np.uint8, np.float32, mode=mode, padding_mode=padding,
                                  layout=layout)
    assert plan.impl_name == "grid_sample.u8_few_channels"
    y = gridops.grid_sample(x, g, mode, padding, False, layout=layout)
    monkeypatch.setenv("GRIDOPS_IMPL", "ref")
    assert gridops.GridSamplePlan(x.shape, g.shape, np.uint8, np.float32, mode=mode, padding_mode=padding,
                                  layout=layout).impl_name == "ref"
    ref = gridops.grid_sample(x, g, mode, padding, False, layout=layout)
    assert y.dtype == np.uint8 and y.shape == ref.shape
    diff = np.abs(y.astype(np.int32) - ref.astype(np.int32))
    assert diff.max() <= (0 if mode == "nearest" else 1)
