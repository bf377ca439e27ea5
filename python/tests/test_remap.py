"""gridops.remap against cv2.remap (2-D) and scipy.ndimage.map_coordinates (3-D)."""
import numpy as np
import pytest
import scipy.ndimage as ndi

import gridops

cv2 = pytest.importorskip("cv2", reason="python3-opencv (the OpenCV peer of these tests) is not installed")

BORDERS = [cv2.BORDER_CONSTANT, cv2.BORDER_REPLICATE, cv2.BORDER_REFLECT, cv2.BORDER_REFLECT_101,
           cv2.BORDER_WRAP]


def maps(rng, ho, wo, h, w, margin=3.0, avoid_ties=False):
    mx = rng.uniform(-margin, w - 1 + margin, size=(ho, wo)).astype(np.float32)
    my = rng.uniform(-margin, h - 1 + margin, size=(ho, wo)).astype(np.float32)
    if avoid_ties:  # nearest: keep fractional parts away from .5, where the rounding rules differ
        for m in (mx, my):
            f = m - np.floor(m)
            m[np.abs(f - 0.5) < 0.05] += 0.1
    return mx, my


@pytest.mark.parametrize("border", BORDERS)
@pytest.mark.parametrize("dtype", [np.uint8, np.float32])
@pytest.mark.parametrize("channels", [None, 1, 3, 4])
def test_nearest_matches_opencv_exactly(border, dtype, channels):
    rng = np.random.default_rng(1 + border)
    for trial in range(5):
        h, w = (int(v) for v in rng.integers(1, 20, size=2))
        shape = (h, w) if channels is None else (h, w, channels)
        src = (rng.integers(0, 256, size=shape) if dtype == np.uint8 else rng.uniform(-1, 1, size=shape)).astype(dtype)
        mx, my = maps(rng, 9, 13, h, w, avoid_ties=True)
        want = cv2.remap(src, mx, my, cv2.INTER_NEAREST, borderMode=border, borderValue=(7, 7, 7, 7))
        got = gridops.remap(src, mx, my, cv2.INTER_NEAREST, border, 7)
        if channels == 1:
            want = want[..., None]  # cv2 drops a single channel's axis; gridops keeps src's rank
        assert got.shape == want.shape and got.dtype == want.dtype
        np.testing.assert_array_equal(got, want, err_msg=f"border {border} shape {shape}")


@pytest.mark.parametrize("border", BORDERS)
@pytest.mark.parametrize("interp", [cv2.INTER_LINEAR, cv2.INTER_CUBIC])
def test_float_interpolation_matches_opencv_within_its_weight_rounding(border, interp):
    """OpenCV rounds the fractional position to 1/32 of a pixel: results agree to about
    1/64 of the local value range (linear) and a few times that for cubic."""
    rng = np.random.default_rng(10 + border + 7 * interp)
    for trial in range(5):
        h, w = (int(v) for v in rng.integers(4, 24, size=2))
        src = rng.uniform(0, 1, size=(h, w, 3)).astype(np.float32)
        mx, my = maps(rng, 11, 17, h, w)
        want = cv2.remap(src, mx, my, interp, borderMode=border, borderValue=(0.25, 0.25, 0.25))
        got = gridops.remap(src, mx, my, interp, border, 0.25)
        tol = 0.04 if interp == cv2.INTER_LINEAR else 0.12
        np.testing.assert_allclose(got, want, rtol=0, atol=tol, err_msg=f"border {border}")
        assert np.mean(np.abs(got - want)) < tol / 4


def test_uint8_linear_is_within_the_rounding_of_opencv():
    rng = np.random.default_rng(3)
    src = rng.integers(0, 256, size=(40, 50, 3)).astype(np.uint8)
    mx, my = maps(rng, 30, 70, 40, 50, margin=0.0)
    want = cv2.remap(src, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE).astype(int)
    got = gridops.remap(src, mx, my, "linear", "replicate").astype(int)
    # OpenCV: weights to 1/32, round to nearest; gridops: float weights, truncation.
    assert np.max(np.abs(got - want)) <= 6
    assert np.mean(got - want) < 0 and np.mean(np.abs(got - want)) < 1.5


def test_one_map_equals_two_maps_and_the_grid_sample_it_is():
    rng = np.random.default_rng(4)
    src = rng.uniform(-1, 1, size=(20, 30, 2)).astype(np.float32)
    mx, my = maps(rng, 8, 9, 20, 30)
    a = gridops.remap(src, mx, my, "cubic", "reflect_101")
    b = gridops.remap(src, np.stack([mx, my], -1), None, "cubic", "reflect_101")
    np.testing.assert_array_equal(a, b)
    c = gridops.grid_sample(src[None], np.stack([mx, my], -1)[None], "bicubic", "reflection", True,
                            layout="channels_last", grid_units="pixels")[0]
    np.testing.assert_array_equal(a, c)
    out = np.empty_like(a)
    assert gridops.remap(src, mx, my, "cubic", "reflect_101", out=out) is out
    np.testing.assert_array_equal(out, a)


@pytest.mark.parametrize("order,interp", [(0, "nearest"), (1, "linear")])
@pytest.mark.parametrize("border,mode", [("replicate", "nearest"), ("wrap", "grid-wrap"),
                                         ("constant", "grid-constant"), ("reflect", "reflect"),
                                         ("reflect_101", "mirror")])
def test_volumes_match_scipy(order, interp, border, mode):
    rng = np.random.default_rng(5)
    vol = rng.uniform(-1, 1, size=(6, 7, 8))
    coords = [rng.uniform(-2, n + 1, size=(4, 5, 6)) for n in vol.shape]  # z, y, x
    if order == 0:  # away from rounding ties
        coords = [c + 0.1 * (np.abs(c - np.floor(c) - 0.5) < 0.05) for c in coords]
    want = ndi.map_coordinates(vol, coords, order=order, mode=mode, cval=0.5)
    got = gridops.remap(vol, coords[2], coords[1], interp, border, 0.5, map3=coords[0])
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)
    joint = gridops.remap(vol[..., None], np.stack([coords[2], coords[1], coords[0]], -1), None,
                          interp, border, 0.5)
    np.testing.assert_array_equal(joint[..., 0], got)


def test_axes_beyond_opencvs_32767_limit():
    w = 40000
    src = np.arange(w, dtype=np.float32).reshape(1, w)
    mx = np.array([[0.25, 39998.5, 35000.75]], np.float32)
    my = np.zeros_like(mx)
    got = gridops.remap(src, mx, my, "linear", "replicate")
    np.testing.assert_allclose(got, mx, rtol=0, atol=1e-2)


def test_errors():
    src = np.zeros((4, 5), np.float32)
    m = np.zeros((2, 3), np.float32)
    with pytest.raises(ValueError, match="interpolation must be nearest, linear or cubic"):
        gridops.remap(src, m, m, "lanczos")
    with pytest.raises(ValueError, match="border_mode transparent"):
        gridops.remap(src, m, m, "linear", cv2.BORDER_TRANSPARENT)
    with pytest.raises(ValueError, match="border_mode must be constant, replicate"):
        gridops.remap(src, m, m, "linear", "mirror")
    with pytest.raises(ValueError, match="border_value must be one value for every channel"):
        gridops.remap(src, m, m, "linear", "constant", (1, 2, 3))
    with pytest.raises(ValueError, match=r"map2 must have the shape of map1"):
        gridops.remap(src, m, np.zeros((3, 3), np.float32))
    with pytest.raises(ValueError, match=r"map1 must be \(H_out, W_out, 2\)"):
        gridops.remap(src, m)
    with pytest.raises(ValueError, match="map3 given without map2"):
        gridops.remap(src, np.zeros((2, 3, 2), np.float32), None, map3=m)
    with pytest.raises(ValueError, match="src must have 2 or 3 axes"):
        gridops.remap(np.zeros((1, 4, 5, 1), np.float32), m, m)
