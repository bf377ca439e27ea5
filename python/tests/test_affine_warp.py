"""gridops.affine_warp: the fused AffineGrid + GridSample against the composition of the two
operators, windows against the whole, and the input box (docs/ops/affine_warp.md)."""

import numpy as np
import pytest

import gridops


def rotation(r, deg, n=1, dtype=np.float32, shift=0.1):
    a = np.deg2rad(deg)
    c, s = np.cos(a), np.sin(a)
    th = np.zeros((n, r, r + 1), np.float64)
    for b in range(n):
        th[b, :, :r] = np.eye(r)
        if r >= 2:
            th[b, 0, :2] = [c, -s]
            th[b, 1, :2] = [s, c]
        th[b, :, r] = shift * (b + 1)
    return th.astype(dtype)


@pytest.mark.parametrize("r", [1, 2, 3])
@pytest.mark.parametrize("mode", ["bilinear", "nearest", "bicubic"])
@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("align_corners", [False, True])
def test_equals_the_composition(rng, r, mode, padding_mode, align_corners):
    shape = (2, 3) + (7, 9, 6)[:r]
    x = rng.standard_normal(shape).astype(np.float32)
    th = rotation(r, 17, n=2)
    size = (5, 8, 7)[:r]
    y = gridops.affine_warp(x, th, size, mode, padding_mode, align_corners)
    ref = gridops.affine_warp(x, th, size, mode, padding_mode, align_corners)
    assert y.shape == (2, 3) + size
    np.testing.assert_array_equal(y, ref)  # deterministic
    if r >= 2:  # gridops.affine_grid takes 2-D and 3-D
        g = gridops.affine_grid(th, (2, 3) + size, align_corners)
        z = gridops.grid_sample(x, g, mode, padding_mode, align_corners)
        if mode == "nearest":
            np.testing.assert_array_equal(y, z)
        else:
            np.testing.assert_allclose(y, z, rtol=0, atol=2.0 ** -17 * np.abs(x).max())


@pytest.mark.parametrize("mode", ["bilinear", "nearest"])
@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
def test_windows_give_the_bits_of_the_whole(rng, mode, padding_mode):
    x = rng.standard_normal((1, 2, 11, 13, 12)).astype(np.float32)
    th = rotation(3, 23, shift=0.2)
    size = (9, 14, 10)
    whole = gridops.affine_warp(x, th, size, mode, padding_mode, False)
    for _ in range(8):
        oo = [int(rng.integers(0, s)) for s in size]
        os_ = [int(rng.integers(1, s - o + 1)) for o, s in zip(oo, size)]
        box = gridops.affine_warp_input_box(th, x.shape[2:], size, oo, os_, mode, padding_mode, False)
        part = x[(slice(None), slice(None)) + tuple(slice(a, b) for a, b in box)]
        y = gridops.affine_warp(part, th, size, mode, padding_mode, False, window=(oo, os_),
                                full_size=x.shape[2:], origin=[a for a, _ in box])
        np.testing.assert_array_equal(y, whole[(slice(None), slice(None)) +
                                               tuple(slice(o, o + n) for o, n in zip(oo, os_))])


def test_a_window_missing_a_tap_is_an_error_and_writes_nothing():
    x = np.arange(64, dtype=np.float32).reshape(1, 1, 8, 8)
    th = np.array([[[1, 0, 0.5], [0, 1, 0]]], np.float32)
    box = gridops.affine_warp_input_box(th, (8, 8), (8, 8), (0, 0), (4, 4))
    lo, hi = box[1]
    part = x[:, :, :, lo:hi - 1]
    out = np.full((1, 1, 4, 4), 7.0, np.float32)
    with pytest.raises(ValueError, match="covers only"):
        gridops.affine_warp(part, th, (8, 8), window=((0, 0), (4, 4)), full_size=(8, 8), origin=(0, lo), out=out)
    assert (out == 7.0).all()


def test_threads_and_sizes_and_errors(rng):
    x = rng.standard_normal((1, 1, 20, 30, 40)).astype(np.float32)
    th = rotation(3, 12)
    one = gridops.affine_warp(x, th, x.shape[2:], "bilinear", "border", threads=1)
    two = gridops.affine_warp(x, th, x.shape, "bilinear", "border", threads=2)  # (N, C, ...) size
    np.testing.assert_array_equal(one, two)
    with pytest.raises(ValueError, match="theta must have shape"):
        gridops.affine_warp(x, th[:, :2, :3], x.shape[2:])
    with pytest.raises(ValueError, match="size must have one entry per spatial axis"):
        gridops.affine_warp(x, th, (4, 4))
    with pytest.raises(ValueError, match="threads"):
        gridops.affine_warp(x, th, x.shape[2:], threads=-1)
