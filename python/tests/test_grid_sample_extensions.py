"""GridSample's gridops extensions (docs/ops/grid_sample.md, "Grid conventions" and
"Padding modes"): pixel and displacement grids, wrap, constant and fill padding.

Checked against SciPy's map_coordinates (order 0 and 1: grid-wrap, grid-constant and
constant), against the compositions they replace (a displacement is the absolute grid
base + d; a pixel grid is the normalized grid of the same points), with gradcheck through
gridops.torch, and for their errors.
"""
import numpy as np
import pytest
import scipy.ndimage as ndi
import torch

import gridops
import gridops.torch as gt

PADS = ("zeros", "border", "reflection", "wrap", "constant", "fill")


def pixel_grid(rng, out_shape, in_shape, lo=-2.0, hi=2.0):
    """A (1, *out_shape, r) grid of pixel coordinates spread from lo below 0 to hi beyond
    each axis; component k belongs to spatial axis r - 1 - k (innermost first)."""
    r = len(in_shape)
    comps = [rng.uniform(lo, in_shape[r - 1 - k] - 1 + hi, size=out_shape) for k in range(r)]
    return np.stack(comps, -1)[None]


def scipy_coords(grid):
    """map_coordinates' coordinate array (axis-major) for a (1, *out, r) pixel grid."""
    r = grid.shape[-1]
    return np.stack([grid[0, ..., r - 1 - a] for a in range(r)], 0)


@pytest.mark.parametrize("order,mode", [(0, "nearest"), (1, "bilinear")])
@pytest.mark.parametrize("rank", [1, 2, 3])
def test_wrap_and_constant_match_scipy(order, mode, rank):
    rng = np.random.default_rng(100 + 10 * rank + order)
    for trial in range(40):
        in_shape = tuple(int(v) for v in rng.integers(1, 7, size=rank))
        out_shape = tuple(int(v) for v in rng.integers(1, 6, size=rank))
        src = rng.uniform(-1, 1, size=in_shape)
        grid = pixel_grid(rng, out_shape, in_shape)
        coords = scipy_coords(grid)
        x = src[None, None]
        cval = float(rng.uniform(-3, 3))
        for ac in (False, True):  # wrap and constant do not depend on align_corners
            got = gridops.grid_sample(x, grid, mode, "wrap", ac, grid_units="pixels")[0, 0]
            want = ndi.map_coordinates(src, coords, order=order, mode="grid-wrap")
            np.testing.assert_allclose(got, want, rtol=0, atol=1e-12, err_msg=f"wrap {in_shape}")
            got = gridops.grid_sample(x, grid, mode, "constant", ac, grid_units="pixels",
                                      fill_value=cval)[0, 0]
            want = ndi.map_coordinates(src, coords, order=order, mode="grid-constant", cval=cval)
            np.testing.assert_allclose(got, want, rtol=0, atol=1e-12, err_msg=f"constant {in_shape}")


@pytest.mark.parametrize("order,mode", [(0, "nearest"), (1, "bilinear")])
@pytest.mark.parametrize("rank", [1, 2, 3])
def test_fill_matches_scipy_constant(order, mode, rank):
    """fill: SciPy's mode='constant' with align_corners=True (a sample outside [0, L-1]
    takes cval); without align_corners the bounds are [-0.5, L-0.5] and the samples inside
    read clamped taps (SciPy's mode='nearest' there)."""
    rng = np.random.default_rng(200 + 10 * rank + order)
    for trial in range(40):
        in_shape = tuple(int(v) for v in rng.integers(1, 7, size=rank))
        out_shape = tuple(int(v) for v in rng.integers(1, 6, size=rank))
        src = rng.uniform(-1, 1, size=in_shape)
        grid = pixel_grid(rng, out_shape, in_shape, -1.0, 1.0)
        coords = scipy_coords(grid)
        cval = float(rng.uniform(-3, 3))
        got = gridops.grid_sample(src[None, None], grid, mode, "fill", True, grid_units="pixels",
                                  fill_value=cval)[0, 0]
        want = ndi.map_coordinates(src, coords, order=order, mode="constant", cval=cval)
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-12, err_msg=f"fill ac=1 {in_shape}")
        got = gridops.grid_sample(src[None, None], grid, mode, "fill", False, grid_units="pixels",
                                  fill_value=cval)[0, 0]
        inside = np.ones(out_shape, bool)
        for a in range(rank):
            inside &= (coords[a] >= -0.5) & (coords[a] <= in_shape[a] - 0.5)
        want = np.where(inside, ndi.map_coordinates(src, coords, order=order, mode="nearest"), cval)
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-12, err_msg=f"fill ac=0 {in_shape}")


def base_grid(out_shape, pixels, align_corners, dtype):
    """Each output point's own coordinate, in the dtype's arithmetic as the kernels compute
    it (pixels: the index; normalized: the identity AffineGrid's value)."""
    r = len(out_shape)
    comps = []
    for k in range(r):
        axis = r - 1 - k
        n = out_shape[axis]
        o = np.arange(n)
        if pixels:
            b = o.astype(dtype)
        elif n == 1:
            b = np.zeros(1, dtype)
        elif align_corners:
            b = (2 * o).astype(dtype) / dtype(n - 1) - dtype(1)
        else:
            b = (2 * o + 1).astype(dtype) / dtype(n) - dtype(1)
        shape = [1] * r
        shape[axis] = n
        comps.append(np.broadcast_to(b.reshape(shape), out_shape))
    return np.stack(comps, -1)[None].astype(dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("rank", [1, 2, 3])
def test_displacement_is_the_absolute_grid_base_plus_d_bit_for_bit(dtype, rank):
    """grid_kind='displacement' gives the same bits as the absolute grid base + d computed
    in the grid's precision (forward and both gradients), on every padding and mode."""
    rng = np.random.default_rng(300 + rank)
    for trial in range(6):
        in_shape = tuple(int(v) for v in rng.integers(1, 9, size=rank))
        out_shape = tuple(int(v) for v in rng.integers(1, 8, size=rank))
        c = int(rng.integers(1, 4))
        x = rng.uniform(-1, 1, size=(2, c) + in_shape).astype(dtype)
        for pixels in (False, True):
            for ac in (False, True):
                scale = 2.0 if pixels else 0.4
                d = rng.uniform(-scale, scale, size=(2,) + out_shape + (rank,)).astype(dtype)
                absolute = base_grid(out_shape, pixels, ac, dtype) + d
                units = "pixels" if pixels else "normalized"
                gout = rng.uniform(-1, 1, size=(2, c) + out_shape).astype(dtype)
                for pad in PADS:
                    fill = 0.25 if pad in ("constant", "fill") else 0.0
                    for mode in ("nearest", "bilinear", "bicubic"):
                        kw = dict(grid_units=units, fill_value=fill)
                        a = gridops.grid_sample(x, d, mode, pad, ac, grid_kind="displacement", **kw)
                        b = gridops.grid_sample(x, absolute, mode, pad, ac, **kw)
                        assert np.array_equal(a, b, equal_nan=True), (pad, mode, units, ac)
                        ga = gridops.grid_sample_backward(gout, x, d, mode, pad, ac,
                                                          grid_kind="displacement", **kw)
                        gb = gridops.grid_sample_backward(gout, x, absolute, mode, pad, ac, **kw)
                        assert np.array_equal(ga[0], gb[0]), (pad, mode, units, ac)
                        assert np.array_equal(ga[1], gb[1]), (pad, mode, units, ac)


@pytest.mark.parametrize("rank", [1, 2, 3])
def test_pixel_grid_is_the_normalized_grid_of_the_same_points(rank):
    rng = np.random.default_rng(400 + rank)
    for trial in range(8):
        in_shape = tuple(int(v) for v in rng.integers(2, 9, size=rank))
        out_shape = tuple(int(v) for v in rng.integers(1, 7, size=rank))
        x = rng.uniform(-1, 1, size=(1, 2) + in_shape)
        p = pixel_grid(rng, out_shape, in_shape)
        for ac in (False, True):
            g = np.empty_like(p)
            for k in range(rank):
                n = in_shape[rank - 1 - k]
                g[..., k] = p[..., k] * 2 / (n - 1) - 1 if ac else (2 * p[..., k] + 1) / n - 1
            for pad in PADS:
                fill = -0.5 if pad in ("constant", "fill") else 0.0
                for mode in ("bilinear", "bicubic"):
                    a = gridops.grid_sample(x, p, mode, pad, ac, grid_units="pixels", fill_value=fill)
                    b = gridops.grid_sample(x, g, mode, pad, ac, fill_value=fill)
                    np.testing.assert_allclose(a, b, rtol=0, atol=1e-12, err_msg=f"{pad} {mode} ac={ac}")


def test_fast_paths_take_pixel_and_displacement_grids_and_agree_with_the_reference():
    rng = np.random.default_rng(5)
    x = rng.uniform(-1, 1, size=(2, 3, 40, 50)).astype(np.float32)
    d = rng.uniform(-3, 3, size=(2, 30, 70, 2)).astype(np.float32)
    for pad in ("zeros", "border", "reflection"):
        plan = gridops.GridSamplePlan(x.shape, d.shape, "float32", mode="bilinear",
                                      padding_mode=pad, grid_units="pixels",
                                      grid_kind="displacement")
        assert plan.impl_name != "ref"
        got = plan(x, d)
        want = gridops.grid_sample(x.astype(np.float64), d.astype(np.float64), "bilinear", pad,
                                   grid_units="pixels", grid_kind="displacement")
        np.testing.assert_allclose(got, want, rtol=0, atol=2e-5)


@pytest.mark.parametrize("pad", PADS)
def test_gradcheck_every_padding_and_convention(pad):
    torch.manual_seed(7)
    fill = 0.3 if pad in ("constant", "fill") else 0.0
    for units in ("normalized", "pixels"):
        for kind in ("absolute", "displacement"):
            for mode in ("bilinear", "bicubic"):
                x = torch.rand(1, 2, 4, 5, dtype=torch.float64, requires_grad=True)
                scale = (1.5 if units == "pixels" else 0.3) if kind == "displacement" else 1.2
                g = (torch.rand(1, 3, 4, 2, dtype=torch.float64) * 2 - 1) * scale
                if units == "pixels" and kind == "absolute":
                    g = g * 3 + 2
                g.requires_grad_(True)
                f = lambda a, b: gt.grid_sample(a, b, mode, pad, False, grid_units=units,
                                                grid_kind=kind, fill_value=fill)
                assert torch.autograd.gradcheck(f, (x, g), atol=1e-6), (pad, units, kind, mode)


def test_integer_and_half_dtypes_take_the_fill_value():
    x = np.arange(12, dtype=np.uint8).reshape(1, 1, 3, 4)
    grid = np.array([[[[-5.0, -5.0], [1.0, 1.0]]]], np.float32)
    out = gridops.grid_sample(x, grid, "nearest", "fill", True, grid_units="pixels", fill_value=200)
    assert out.dtype == np.uint8 and out.tolist() == [[[[200, 5]]]]
    out = gridops.grid_sample(x.astype(np.int16), grid, "bilinear", "constant", True,
                              grid_units="pixels", fill_value=-7)
    assert out.tolist() == [[[[-7, 5]]]]
    xh = torch.ones(1, 1, 3, 4, dtype=torch.bfloat16)
    out = gt.grid_sample(xh, torch.from_numpy(grid), "bilinear", "fill", True, grid_units="pixels",
                         fill_value=float("nan"))
    assert torch.isnan(out[0, 0, 0, 0]) and out[0, 0, 0, 1] == 1


def test_errors():
    x = np.zeros((1, 1, 3, 4), np.float32)
    g = np.zeros((1, 2, 2, 2), np.float32)
    with pytest.raises(ValueError, match="grid_units must be normalized or pixels, got 'pixel'"):
        gridops.grid_sample(x, g, grid_units="pixel")
    with pytest.raises(ValueError, match="grid_kind must be absolute or displacement, got 'flow'"):
        gridops.grid_sample(x, g, grid_kind="flow")
    with pytest.raises(ValueError, match="fill_value is used only by padding_mode constant and fill, "
                                         "got 2 with padding_mode zeros"):
        gridops.grid_sample(x, g, fill_value=2)
    with pytest.raises(ValueError, match="fill_value must be finite with padding_mode constant"):
        gridops.grid_sample(x, g, padding_mode="constant", fill_value=float("inf"))
    with pytest.raises(ValueError, match=r"fill_value must be an integer in \[0, 256\) for uint8 src, got 300"):
        gridops.grid_sample(x.astype(np.uint8), g, "nearest", "fill", fill_value=300)
    with pytest.raises(ValueError, match=r"fill_value must be an integer in \[-128, 128\) for int8 src, got 1.5"):
        gridops.grid_sample(x.astype(np.int8), g, "nearest", "constant", fill_value=1.5)
    with pytest.raises(TypeError, match="fill_value must be a real number, got str"):
        gridops.grid_sample(x, g, padding_mode="fill", fill_value="0")
    with pytest.raises(TypeError, match="grid_units must be a str, got int"):
        gt.grid_sample(torch.from_numpy(x), torch.from_numpy(g), grid_units=1)
    with pytest.raises(ValueError, match="fill_value is used only by padding_mode constant and fill"):
        gt.grid_sample(torch.from_numpy(x), torch.from_numpy(g), fill_value=1.0)
