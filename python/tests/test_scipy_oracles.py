"""grid_sample and resample against scipy.ndimage where it computes the same thing (linear
interpolation: map_coordinates order 1 and zoom order 1 with grid_mode=True)."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import gridops

ndimage = pytest.importorskip("scipy.ndimage")

# gridops padding (align_corners) -> scipy mode
SCIPY_MODE = {("zeros", False): "grid-constant", ("zeros", True): "grid-constant",
              ("border", False): "nearest", ("border", True): "nearest",
              ("reflection", False): "reflect", ("reflection", True): "mirror"}


def pixel(g, size, align):
    return (g + 1) / 2 * (size - 1) if align else ((g + 1) * size - 1) / 2


@given(h=st.integers(2, 9), w=st.integers(2, 9), ho=st.integers(1, 6), wo=st.integers(1, 6),
       padding=st.sampled_from(["zeros", "border", "reflection"]), align=st.booleans(),
       seed=st.integers(0, 2**31 - 1))
def test_grid_sample_linear_is_map_coordinates(h, w, ho, wo, padding, align, seed):
    r = np.random.default_rng(seed)
    x = r.standard_normal((1, 2, h, w))
    # points up to about half the image outside it: within one reflection of each edge
    g = r.uniform(-1.9, 1.9, (1, ho, wo, 2))
    y = gridops.grid_sample(x, g, "bilinear", padding, align)
    coords = [pixel(g[0, ..., 1], h, align), pixel(g[0, ..., 0], w, align)]
    for c in range(2):
        ref = ndimage.map_coordinates(x[0, c], coords, order=1, mode=SCIPY_MODE[(padding, align)], cval=0.0,
                                      prefilter=False)
        np.testing.assert_allclose(y[0, c], ref, rtol=1e-10, atol=1e-10)


def test_grid_sample_3d_linear_is_map_coordinates(rng):
    x = rng.standard_normal((1, 1, 5, 6, 7))
    g = rng.uniform(-1.2, 1.2, (1, 3, 4, 5, 3))
    y = gridops.grid_sample(x, g, "bilinear", "zeros", False)
    coords = [pixel(g[0, ..., 2], 5, False), pixel(g[0, ..., 1], 6, False), pixel(g[0, ..., 0], 7, False)]
    ref = ndimage.map_coordinates(x[0, 0], coords, order=1, mode="grid-constant", prefilter=False)
    np.testing.assert_allclose(y[0, 0], ref, rtol=1e-10, atol=1e-10)


@given(shape=st.lists(st.integers(1, 8), min_size=1, max_size=3), data=st.data(), seed=st.integers(0, 2**31 - 1))
def test_resample_linear_is_zoom(shape, data, seed):
    size = tuple(data.draw(st.integers(1, 12)) for _ in shape)
    x = np.random.default_rng(seed).standard_normal((1, 2) + tuple(shape))
    y = gridops.resample(x, size=size, mode="linear")
    factors = (1, 1) + tuple(o / i for o, i in zip(size, shape))
    ref = ndimage.zoom(x, factors, order=1, grid_mode=True, mode="nearest", prefilter=False)
    assert ref.shape == y.shape
    np.testing.assert_allclose(y, ref, rtol=1e-9, atol=1e-9)
