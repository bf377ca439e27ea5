"""grid_sample_backward and affine_grid_backward against torch.autograd; resize (ONNX
Resize) against torch.nn.functional.interpolate where they compute the same thing."""

import numpy as np
import pytest
import torch
import torch.nn.functional as F

import gridops

TORCH_MODE = {"bilinear": "bilinear", "nearest": "nearest", "bicubic": "bicubic"}


@pytest.mark.parametrize("mode", ["bilinear", "bicubic", "nearest"])
@pytest.mark.parametrize("padding", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("align", [False, True])
def test_grid_sample_backward_is_torch_autograd(rng, mode, padding, align):
    x = torch.from_numpy(rng.standard_normal((2, 3, 6, 7))).requires_grad_()
    g = torch.from_numpy(rng.uniform(-1.1, 1.1, (2, 4, 5, 2))).requires_grad_()
    y = F.grid_sample(x, g, mode=TORCH_MODE[mode], padding_mode=padding, align_corners=align)
    gy = torch.from_numpy(rng.standard_normal(tuple(y.shape)))
    ref_x, ref_g = torch.autograd.grad(y, (x, g), gy)
    gx, gg = gridops.grid_sample_backward(gy.numpy(), x.detach().numpy(), g.detach().numpy(), mode, padding, align)
    np.testing.assert_allclose(gx, ref_x.numpy(), rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(gg, ref_g.numpy(), rtol=1e-7, atol=1e-7)


def test_grid_sample_backward_options(rng):
    x = rng.standard_normal((1, 2, 5, 5)).astype(np.float32)
    g = rng.uniform(-1, 1, (1, 3, 3, 2)).astype(np.float32)
    gy = rng.standard_normal((1, 2, 3, 3)).astype(np.float32)
    full_x, full_g = gridops.grid_sample_backward(gy, x, g)
    only_x, none_g = gridops.grid_sample_backward(gy, x, g, grid_grad=False)
    assert none_g is None
    np.testing.assert_array_equal(only_x, full_x)
    out = np.empty_like(g)
    none_x, gg = gridops.grid_sample_backward(gy, x, g, input_grad=False, grad_grid_out=out)
    assert none_x is None and gg is out
    np.testing.assert_array_equal(out, full_g)
    tx, tg = gridops.grid_sample_backward(torch.from_numpy(gy), torch.from_numpy(x), torch.from_numpy(g))
    assert isinstance(tx, torch.Tensor) and isinstance(tg, torch.Tensor)
    with pytest.raises(ValueError):
        gridops.grid_sample_backward(gy[:, :1], x, g)


@pytest.mark.parametrize("dims", [(2, 3, 4, 5), (2, 1, 3, 4, 5)])
@pytest.mark.parametrize("align", [False, True])
def test_affine_grid_backward_is_torch_autograd(rng, dims, align):
    r = len(dims) - 2
    theta = torch.from_numpy(rng.standard_normal((dims[0], r, r + 1))).requires_grad_()
    grid = F.affine_grid(theta, list(dims), align_corners=align)
    gg = torch.from_numpy(rng.standard_normal(tuple(grid.shape)))
    (ref,) = torch.autograd.grad(grid, theta, gg)
    np.testing.assert_allclose(gridops.affine_grid_backward(gg.numpy(), dims, align), ref.numpy(),
                               rtol=1e-10, atol=1e-10)
    out = np.empty((dims[0], r, r + 1))
    assert gridops.affine_grid_backward(gg.numpy(), dims, align, out=out) is out


@pytest.mark.parametrize("size", [(5, 13), (14, 3), (7, 9)])
def test_resize_linear_and_cubic_match_interpolate(rng, size):
    x = rng.standard_normal((2, 3, 7, 9))
    t = torch.from_numpy(x)
    y = gridops.resize(x, sizes=size, mode="linear", axes=[2, 3])
    np.testing.assert_allclose(y, F.interpolate(t, size=size, mode="bilinear", align_corners=False).numpy(),
                               rtol=1e-10, atol=1e-10)
    y = gridops.resize(x, sizes=size, mode="linear", axes=[2, 3], coordinate_transformation_mode="align_corners")
    np.testing.assert_allclose(y, F.interpolate(t, size=size, mode="bilinear", align_corners=True).numpy(),
                               rtol=1e-10, atol=1e-10)
    y = gridops.resize(x, sizes=size, mode="cubic", axes=[2, 3])
    np.testing.assert_allclose(y, F.interpolate(t, size=size, mode="bicubic", align_corners=False).numpy(),
                               rtol=1e-9, atol=1e-9)
    # torch's "nearest" is ONNX asymmetric + floor
    y = gridops.resize(x, sizes=size, mode="nearest", axes=[2, 3], coordinate_transformation_mode="asymmetric",
                       nearest_mode="floor")
    np.testing.assert_array_equal(y, F.interpolate(t, size=size, mode="nearest").numpy())


def test_resize_scales_plan_and_torch(rng):
    x = rng.standard_normal((1, 2, 4, 6)).astype(np.float32)
    y = gridops.resize(x, scales=[1, 1, 2, 0.5], mode="linear")
    assert y.shape == (1, 2, 8, 3)
    plan = gridops.ResizePlan(x.shape, np.float32, scales=[2.0, 0.5], mode="linear", axes=[2, 3])
    assert plan.output_shape == (1, 2, 8, 3) and isinstance(plan.impl_name, str)
    np.testing.assert_array_equal(plan(x), y)
    out = np.empty((1, 2, 8, 3), np.float32)
    assert plan(x, out=out) is out
    yt = gridops.resize(torch.from_numpy(x), scales=[2.0, 0.5], mode="linear", axes=[-2, -1])
    assert isinstance(yt, torch.Tensor)
    np.testing.assert_array_equal(yt.numpy(), y)
    with pytest.raises(ValueError):
        gridops.resize(x, scales=[2.0], sizes=[3], axes=[2])
    with pytest.raises(ValueError, match="mode"):
        gridops.resize(x, scales=[2.0], mode="lanczos", axes=[2])


@pytest.mark.parametrize("mode,kw,torch_kw", [
    ("cubic", dict(coordinate_transformation_mode="half_pixel"), dict(mode="bicubic", align_corners=False)),
    ("cubic", dict(coordinate_transformation_mode="align_corners"), dict(mode="bicubic", align_corners=True)),
    ("linear", dict(coordinate_transformation_mode="align_corners"), dict(mode="bilinear", align_corners=True)),
    ("linear", dict(antialias=True, exclude_outside=True), dict(mode="bilinear", antialias=True)),
    ("cubic", dict(antialias=True, exclude_outside=True, cubic_coeff_a=-0.5),
     dict(mode="bicubic", antialias=True)),
    ("nearest", dict(coordinate_transformation_mode="asymmetric", nearest_mode="floor"), dict(mode="nearest")),
])
@pytest.mark.parametrize("size", [(13, 5), (4, 4)])
def test_resize_backward_is_torch_autograd(rng, mode, kw, torch_kw, size):
    x = torch.from_numpy(rng.standard_normal((2, 3, 7, 9))).requires_grad_()
    y = F.interpolate(x, size=size, **torch_kw)
    g = torch.from_numpy(rng.standard_normal(tuple(y.shape)))
    (want,) = torch.autograd.grad(y, x, g)
    got = gridops.resize_backward(g, x.shape, sizes=size, axes=(2, 3), mode=mode, **kw)
    assert isinstance(got, torch.Tensor) and got.shape == x.shape
    torch.testing.assert_close(got, want, rtol=0, atol=1e-12 * (1 + want.abs().max().item()))
    g32 = g.float()
    got32 = gridops.resize_backward(g32, x.shape, sizes=size, axes=(2, 3), mode=mode, **kw)
    assert got32.dtype == torch.float32
    torch.testing.assert_close(got32, want.float(), rtol=0, atol=1e-5 * (1 + want.abs().max().item()))


def test_resize_backward_plan_numpy_and_errors(rng):
    g = rng.standard_normal((1, 1, 10, 6)).astype(np.float32)
    plan = gridops.ResizePlan((1, 1, 5, 3), np.float32, scales=[1, 1, 2, 2], mode="linear")
    assert plan.backward_impl_name == "resize_backward.passes"
    out = np.empty((1, 1, 5, 3), np.float32)
    assert plan.backward(g, out=out) is out
    np.testing.assert_array_equal(out, gridops.resize_backward(g, (1, 1, 5, 3), [1, 1, 2, 2],
                                                               mode="linear"))
    # <resize(x), g> == <x, resize_backward(g)>
    x = rng.standard_normal((1, 1, 5, 3))
    y = gridops.resize(x, [1, 1, 2, 2], mode="linear")
    gx = gridops.resize_backward(g.astype(np.float64), x.shape, [1, 1, 2, 2], mode="linear")
    assert abs(float((y * g).sum()) - float((x * gx).sum())) < 1e-9
    with pytest.raises(ValueError, match="floating or complex"):
        gridops.ResizePlan((1, 1, 5, 3), np.int32, scales=[1, 1, 2, 2]).backward(
            np.zeros((1, 1, 10, 6), np.int32))
    with pytest.raises(ValueError, match="grad_dst"):
        plan.backward(g[:, :, :9])
