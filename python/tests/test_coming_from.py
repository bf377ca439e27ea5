"""docs/coming-from.md, statement by statement: each equivalence it gives between a PyTorch,
NumPy/SciPy, OpenCV or Pillow call and gridops, and each difference it names, with the
figures it quotes (measured on the seeded data below). Sections and test names follow the
page; a test that needs cv2, PIL or scipy skips naming the missing module."""

from fractions import Fraction

import numpy as np
import pytest

import gridops

torch = pytest.importorskip("torch")
F = torch.nn.functional


def maxdiff(a, b):
    return float(np.max(np.abs(np.asarray(a, np.float64) - np.asarray(b, np.float64))))


def noise(shape, seed=0, dtype=np.float64):
    """Uniform 0-255 noise: the worst case for interpolation differences."""
    return np.random.default_rng(seed).uniform(0, 255, shape).astype(dtype)


# ---- the conversions the page gives (copied from it) ------------------------------------------

def grid_from_pixels(px, py, W, H, align_corners=False):
    """Pixel coordinates (centre of pixel i at i; x = column, y = row) -> a gridops grid."""
    if align_corners:
        return np.stack([2 * px / (W - 1) - 1, 2 * py / (H - 1) - 1], axis=-1)
    return np.stack([(2 * px + 1) / W - 1, (2 * py + 1) / H - 1], axis=-1)


def theta_from_pixel_map(A, b, in_size, out_size, align_corners=False):
    """gridops theta (2x3) for the pixel map p_in = A @ p_out + b (x, y order, pixel centres
    at integers); in_size, out_size are (W, H)."""
    A, b = np.asarray(A, np.float64), np.asarray(b, np.float64)
    s_in, s_out = np.asarray(in_size, np.float64), np.asarray(out_size, np.float64)
    if align_corners:
        M = A * (s_out - 1)[None, :] / (s_in - 1)[:, None]
        t = (2 * b + A @ (s_out - 1)) / (s_in - 1) - 1
    else:
        M = A * s_out[None, :] / s_in[:, None]
        t = (2 * b + A @ (s_out - 1) + 1) / s_in - 1
    return np.concatenate([M, t[:, None]], axis=1)


def torch_pad_to_onnx(p, ndim):
    """F.pad's pad tuple (last axis first, (left, right) pairs) -> (pads, axes) for gridops.pad."""
    k = len(p) // 2
    axes = list(range(ndim - k, ndim))
    begins = [p[2 * (ndim - 1 - a)] for a in axes]
    ends = [p[2 * (ndim - 1 - a) + 1] for a in axes]
    return begins + ends, axes


def torch_pad_to_width(p, ndim):
    """F.pad's pad tuple -> NumPy pad_width (one (before, after) pair per axis)."""
    k = len(p) // 2
    return ((0, 0),) * (ndim - k) + tuple((p[2 * i], p[2 * i + 1]) for i in reversed(range(k)))


# exact nearest rules, in rationals, for the tie tests
def exact_floor_index(I, O):             # floor(o * I / O): torch "nearest", cv2 INTER_NEAREST
    return [min(I - 1, (o * I) // O) for o in range(O)]


def exact_half_pixel_up(I, O):           # floor((o + 0.5) * I / O): "nearest-exact", Pillow
    return [min(I - 1, ((2 * o + 1) * I) // (2 * O)) for o in range(O)]


def exact_half_pixel_down(I, O):         # round half down of (o + 0.5) I / O - 0.5: ONNX default
    out = []
    for o in range(O):
        x = Fraction((2 * o + 1) * I, 2 * O) - Fraction(1, 2)
        f = x.numerator // x.denominator
        out.append(min(I - 1, f + 1 if x - f > Fraction(1, 2) else f))
    return out


def tie_positions(I, O, floor_rule):
    """Outputs whose exact source coordinate sits on a rounding boundary."""
    if floor_rule:
        return {o for o in range(1, O) if (o * I) % O == 0}
    return {o for o in range(O) if ((2 * o + 1) * I) % (2 * O) == 0}


def assert_only_tie_mismatches(got, I, O, exact, floor_rule):
    bad = set(np.nonzero(np.asarray(got).astype(np.int64) != np.asarray(exact))[0].tolist())
    assert bad <= tie_positions(I, O, floor_rule), (I, O, sorted(bad))
    return len(bad)


def ramp(I):
    return np.arange(I, dtype=np.float32)[None].repeat(2, 0)      # (2, I): value == index


def nearest_1d(v, O, **kw):
    return gridops.resize(v, sizes=[O], axes=[1], mode="nearest", **kw)[0]


TIE_SWEEP = [(I, O) for I in range(1, 25) for O in range(1, 49)]


# ==== PyTorch ==================================================================================

@pytest.mark.parametrize("dtype,tol", [(np.float64, 1e-12), (np.float32, 1e-5)])
def test_grid_sample_matches_torch(dtype, tol):
    r = np.random.default_rng(1)
    x = r.standard_normal((2, 3, 9, 12)).astype(dtype)
    g = r.uniform(-1.3, 1.3, (2, 5, 7, 2)).astype(dtype)
    for mode in ("bilinear", "nearest", "bicubic"):
        for padding in ("zeros", "border", "reflection"):
            for align in (False, True):
                ref = F.grid_sample(torch.from_numpy(x), torch.from_numpy(g), mode, padding, align)
                y = gridops.grid_sample(x, g, mode, padding, align)
                assert maxdiff(y, ref) <= tol * (1 + np.abs(ref.numpy()).max()), (mode, padding, align)


def test_plain_functions_record_no_autograd_graph():
    x = torch.rand(1, 1, 4, 4, requires_grad=True)
    g = torch.zeros(1, 2, 2, 2)
    with pytest.raises(ValueError):
        gridops.grid_sample(x, g)
    assert gridops.grid_sample(x.detach(), g).shape == (1, 1, 2, 2)


def test_grid_sample_nearest_rounds_ties_to_even_like_torch():
    x = np.arange(8.0)[None, None, None, :]
    px = np.array([0.5, 1.5, 2.5, 3.5, 4.5, 5.5, 6.5])
    g = grid_from_pixels(px, np.zeros_like(px), 8, 1)[None, None]
    y = gridops.grid_sample(x, g, "nearest", "zeros", False)
    assert y.ravel().tolist() == [0, 2, 2, 4, 4, 6, 6]
    ref = F.grid_sample(torch.from_numpy(x), torch.from_numpy(g), "nearest", "zeros", False)
    assert ref.ravel().tolist() == y.ravel().tolist()


def test_affine_grid_matches_torch():
    r = np.random.default_rng(2)
    for shape, tshape in [((2, 3, 9, 12), (2, 2, 3)), ((2, 3, 4, 9, 12), (2, 3, 4))]:
        theta = r.standard_normal(tshape)
        for align in (False, True):
            ref = F.affine_grid(torch.from_numpy(theta), shape, align_corners=align)
            assert maxdiff(gridops.affine_grid(theta, shape, align), ref) <= 1e-14
            if len(shape) == 4:
                x = r.standard_normal(shape)
                ref = F.grid_sample(torch.from_numpy(x), ref, "bilinear", "zeros", align)
                y = gridops.affine_warp(x, theta, shape[2:], "bilinear", "zeros", align)
                assert maxdiff(y, ref) <= 1e-13


NO_TIE_SIZES = [(5, 8), (22, 32), (7, 23), (1, 1), (1, 5)]   # from (11, 16): no exact ties


@pytest.mark.parametrize("size", NO_TIE_SIZES)
def test_interpolate_modes(size):
    x = noise((2, 3, 11, 16))
    t = torch.from_numpy(x)
    ax = dict(sizes=size, axes=[2, 3])
    # nearest: floor(o * in / out)
    ref = F.interpolate(t, size=size, mode="nearest").numpy()
    np.testing.assert_array_equal(gridops.resize(x, mode="nearest", coordinate_transformation_mode="asymmetric",
                                                 nearest_mode="floor", **ax), ref)
    # nearest-exact: floor((o + 0.5) * in / out)
    ref = F.interpolate(t, size=size, mode="nearest-exact").numpy()
    np.testing.assert_array_equal(gridops.resize(x, mode="nearest", nearest_mode="round_prefer_ceil", **ax), ref)
    np.testing.assert_array_equal(gridops.resample(x, size=size, mode="nearest"), ref)
    for tmode, gmode in (("bilinear", "linear"), ("bicubic", "cubic")):
        for align in (False, True):
            ctm = "align_corners" if align else "half_pixel"
            ref = F.interpolate(t, size=size, mode=tmode, align_corners=align).numpy()
            y = gridops.resize(x, mode=gmode, coordinate_transformation_mode=ctm, **ax)
            assert maxdiff(y, ref) <= 1e-9, (tmode, align)
    ref = F.interpolate(t, size=size, mode="bilinear", align_corners=False).numpy()
    assert maxdiff(gridops.resample(x, size=size, mode="linear"), ref) <= 1e-9


def test_interpolate_linear_and_trilinear():
    x1 = noise((2, 3, 13))
    ref = F.interpolate(torch.from_numpy(x1), size=7, mode="linear", align_corners=False)
    assert maxdiff(gridops.resize(x1, sizes=[7], axes=[2], mode="linear"), ref) <= 1e-9
    x3 = noise((1, 2, 5, 6, 7))
    ref = F.interpolate(torch.from_numpy(x3), size=(9, 4, 11), mode="trilinear", align_corners=False)
    assert maxdiff(gridops.resize(x3, sizes=(9, 4, 11), axes=[2, 3, 4], mode="linear"), ref) <= 1e-9
    assert maxdiff(gridops.resample(x3, size=(9, 4, 11)), ref) <= 1e-9


def test_interpolate_float32_within_rounding():
    x = noise((2, 3, 37, 53), dtype=np.float32)
    for size in [(9, 13), (80, 100)]:
        for tmode, gmode in (("bilinear", "linear"), ("bicubic", "cubic")):
            ref = F.interpolate(torch.from_numpy(x), size=size, mode=tmode, align_corners=False)
            assert maxdiff(gridops.resize(x, sizes=size, axes=[2, 3], mode=gmode), ref) <= 1e-3


def test_nearest_rules_at_a_tie():
    """8 -> 4: every (o + 0.5) * 8 / 4 - 0.5 is a tie."""
    v = ramp(8)
    assert nearest_1d(v, 4).tolist() == [0, 2, 4, 6]                          # ONNX default
    assert nearest_1d(v, 4, nearest_mode="round_prefer_ceil").tolist() == [1, 3, 5, 7]
    assert nearest_1d(v, 4, nearest_mode="floor").tolist() == [0, 2, 4, 6]
    assert nearest_1d(v, 4, nearest_mode="ceil").tolist() == [1, 3, 5, 7]
    assert nearest_1d(v, 4, coordinate_transformation_mode="asymmetric", nearest_mode="floor").tolist() == [0, 2, 4, 6]
    assert gridops.resample(v[:1][None], size=[4], mode="nearest").ravel().tolist() == [1, 3, 5, 7]
    t = torch.from_numpy(v[:1])[None]
    assert F.interpolate(t, size=4, mode="nearest").ravel().tolist() == [0, 2, 4, 6]
    assert F.interpolate(t, size=4, mode="nearest-exact").ravel().tolist() == [1, 3, 5, 7]


def test_nearest_mismatches_only_at_exact_ties():
    """Over inputs 1..24 and outputs 1..48 the torch rules and their gridops spellings disagree
    only where the exact coordinate is a tie; each side's floating point decides there.
    gridops.resample's nearest is the exact rule everywhere."""
    wrong = dict.fromkeys(["torch nearest", "torch nearest-exact", "resize asymmetric/floor",
                           "resize half_pixel/round_prefer_ceil", "resize half_pixel/round_prefer_floor"], 0)
    disagree = {"nearest": 0, "nearest-exact": 0}
    for I, O in TIE_SWEEP:
        v = ramp(I)
        t = torch.from_numpy(v[:1])[None]
        up, fl = exact_half_pixel_up(I, O), exact_floor_index(I, O)
        tn = F.interpolate(t, size=O, mode="nearest").ravel().numpy()
        tne = F.interpolate(t, size=O, mode="nearest-exact").ravel().numpy()
        gn = nearest_1d(v, O, coordinate_transformation_mode="asymmetric", nearest_mode="floor")
        gne = nearest_1d(v, O, nearest_mode="round_prefer_ceil")
        wrong["torch nearest"] += assert_only_tie_mismatches(tn, I, O, fl, True)
        wrong["torch nearest-exact"] += assert_only_tie_mismatches(tne, I, O, up, False)
        wrong["resize asymmetric/floor"] += assert_only_tie_mismatches(gn, I, O, fl, True)
        wrong["resize half_pixel/round_prefer_ceil"] += assert_only_tie_mismatches(gne, I, O, up, False)
        wrong["resize half_pixel/round_prefer_floor"] += assert_only_tie_mismatches(
            nearest_1d(v, O), I, O, exact_half_pixel_down(I, O), False)
        disagree["nearest"] += assert_only_tie_mismatches(tn, I, O, gn, True)
        disagree["nearest-exact"] += assert_only_tie_mismatches(tne, I, O, gne, False)
        np.testing.assert_array_equal(gridops.resample(v[:1][None], size=[O], mode="nearest").ravel(), up)
    # the figures the page quotes
    assert sum(len(tie_positions(I, O, True)) for I, O in TIE_SWEEP) == 1582
    assert sum(len(tie_positions(I, O, False)) for I, O in TIE_SWEEP) == 752
    assert disagree == {"nearest": 7, "nearest-exact": 19}, disagree
    assert wrong == {"torch nearest": 1, "torch nearest-exact": 13, "resize asymmetric/floor": 6,
                     "resize half_pixel/round_prefer_ceil": 6, "resize half_pixel/round_prefer_floor": 5}, wrong
    # one of them: 14 -> 18, output 9, exact source 9 * 14 / 18 = 7
    assert F.interpolate(torch.from_numpy(ramp(14)[:1])[None], size=18, mode="nearest").ravel()[9] == 7
    assert nearest_1d(ramp(14), 18, coordinate_transformation_mode="asymmetric", nearest_mode="floor")[9] == 6


def test_length_one_output_half_pixel_matches_torch_not_pytorch_half_pixel():
    v = np.arange(4.0)[None, None]
    assert F.interpolate(torch.from_numpy(v), size=1, mode="linear", align_corners=False).item() == 1.5
    assert gridops.resize(v, sizes=[1], axes=[2], mode="linear").item() == 1.5
    assert gridops.resize(v, sizes=[1], axes=[2], mode="linear",
                          coordinate_transformation_mode="pytorch_half_pixel").item() == 0.0
    v2 = np.arange(16.0).reshape(1, 1, 4, 4)
    assert F.interpolate(torch.from_numpy(v2), size=(1, 1), mode="bicubic", align_corners=False).item() == 7.5
    assert gridops.resize(v2, sizes=[1, 1], axes=[2, 3], mode="cubic").item() == 7.5
    assert gridops.resize(v2, sizes=[1, 1], axes=[2, 3], mode="cubic",
                          coordinate_transformation_mode="pytorch_half_pixel").item() == 0.0


def test_scale_factor_and_recompute_scale_factor():
    x = noise((1, 2, 7, 9))
    t = torch.from_numpy(x)
    for sf in (1.3, 0.6):
        for tmode, kw in (("bilinear", dict(mode="linear")), ("bicubic", dict(mode="cubic")),
                          ("nearest", dict(mode="nearest", coordinate_transformation_mode="asymmetric",
                                           nearest_mode="floor"))):
            extra = {} if tmode == "nearest" else dict(align_corners=False)
            plain = F.interpolate(t, scale_factor=sf, mode=tmode, **extra).numpy()
            recomputed = F.interpolate(t, scale_factor=sf, mode=tmode, recompute_scale_factor=True, **extra).numpy()
            by_scales = gridops.resize(x, scales=[sf, sf], axes=[2, 3], **kw)
            by_sizes = gridops.resize(x, sizes=plain.shape[2:], axes=[2, 3], **kw)
            assert by_scales.shape == plain.shape == recomputed.shape     # floor(in * scale) both
            assert maxdiff(by_scales, plain) <= 1e-9
            assert maxdiff(by_sizes, recomputed) <= 1e-9
            assert maxdiff(by_scales, recomputed) > 50                  # a different sampling
        # align_corners=True ignores the scale factor: give sizes
        ac = F.interpolate(t, scale_factor=sf, mode="bilinear", align_corners=True).numpy()
        kw = dict(axes=[2, 3], mode="linear", coordinate_transformation_mode="align_corners")
        assert maxdiff(gridops.resize(x, sizes=ac.shape[2:], **kw), ac) <= 1e-9
        assert maxdiff(gridops.resize(x, scales=[sf, sf], **kw), ac) > 50


ANTIALIAS_SIZES = [(9, 13), (18, 26), (5, 40), (1, 1), (80, 100)]


def antialias_diffs(dtype):
    x = noise((2, 3, 37, 53), dtype=dtype)
    t = torch.from_numpy(x)
    d = {}
    for size in ANTIALIAS_SIZES:
        for tmode, gmode in (("bilinear", "linear"), ("bicubic", "cubic")):
            ref = F.interpolate(t, size=size, mode=tmode, antialias=True, align_corners=False)
            for a in (-0.75, -0.5):
                for ex in (False, True):
                    y = gridops.resize(x, sizes=size, axes=[2, 3], mode=gmode, antialias=True,
                                       exclude_outside=ex, cubic_coeff_a=a)
                    d[size, tmode, a, ex] = maxdiff(y, ref)
    return d


@pytest.mark.parametrize("dtype,tol", [(np.float64, 1e-11), (np.float32, 2e-3)])
def test_antialias_needs_exclude_outside_and_a_minus_half(dtype, tol):
    d = antialias_diffs(dtype)
    down = [s for s in ANTIALIAS_SIZES if s != (80, 100)]
    for size in ANTIALIAS_SIZES:
        assert d[size, "bilinear", -0.75, True] <= tol
        assert d[size, "bicubic", -0.5, True] <= tol
        assert d[size, "bicubic", -0.75, False] > 1
        assert d[size, "bicubic", -0.75, True] > (1e-3 if size == (1, 1) else 1)
    for size in down:
        assert d[size, "bilinear", -0.75, False] > 1
    # upsampling: antialias is the plain bilinear kernel, exclude_outside changes nothing
    assert d[(80, 100), "bilinear", -0.75, False] <= tol
    # the largest difference without exclude_outside (page: up to about 16 on 0-255 noise)
    worst = max(d[s, "bilinear", -0.75, False] for s in down)
    assert 10 < worst < 20


def test_resample_takes_linear_and_nearest_on_floats_only():
    x = noise((1, 1, 8, 8), dtype=np.float32)
    for mode in ("nearest-exact", "bicubic", "area"):
        with pytest.raises(ValueError):
            gridops.resample(x, size=(4, 4), mode=mode)
    with pytest.raises(TypeError):
        gridops.resample(x, size=(4, 4), antialias=True)
    with pytest.raises(TypeError):                               # gridops.DTypeError
        gridops.resample(x.astype(np.uint8), size=(4, 4))
    assert issubclass(gridops.DTypeError, TypeError)
    np.testing.assert_array_equal(gridops.resize(x.astype(np.uint8), sizes=(4, 4), axes=[2, 3], mode="cubic"),
                                  np.trunc(np.clip(gridops.resize(x.astype(np.uint8).astype(np.float32), sizes=(4, 4),
                                                                  axes=[2, 3], mode="cubic"), 0, 255)))


def test_torch_interpolates_uint8_in_nearest_only():
    u = torch.from_numpy(np.random.default_rng(23).integers(0, 256, (1, 1, 8, 8), dtype=np.uint8))
    F.interpolate(u, size=(4, 4), mode="nearest")
    for tmode, gmode in (("bilinear", "linear"), ("bicubic", "cubic")):
        with pytest.raises(RuntimeError):
            F.interpolate(u, size=(4, 4), mode=tmode)
        assert gridops.resize(u, sizes=(4, 4), axes=[2, 3], mode=gmode).dtype == torch.uint8


def test_interpolate_area_is_mean_pooling_not_antialias():
    x = noise((1, 2, 12, 18))
    ref = F.interpolate(torch.from_numpy(x), size=(6, 9), mode="area").numpy()
    assert maxdiff(x.reshape(1, 2, 6, 2, 9, 2).mean((3, 5)), ref) <= 1e-12
    aa = gridops.resize(x, sizes=(6, 9), axes=[2, 3], mode="linear", antialias=True, exclude_outside=True)
    assert maxdiff(aa, ref) > 10


def test_pad_flat_sequence_is_onnx_order_not_torch_order():
    a = np.zeros((3, 4))
    assert gridops.pad(a, (1, 1, 2, 2)).shape == (6, 7)
    assert tuple(F.pad(torch.from_numpy(a), (1, 1, 2, 2)).shape) == (7, 6)


@pytest.mark.parametrize("tmode,gmode", [("constant", "constant"), ("reflect", "reflect"),
                                         ("replicate", "edge"), ("circular", "wrap")])
def test_pad_torch_tuple_conversion(tmode, gmode):
    x = np.random.default_rng(3).standard_normal((2, 3, 5, 6))
    t = torch.from_numpy(x)
    cases = [(1, 2, 3, 4), (1, 2, 0, 3)] + ([] if tmode == "circular" else [(-1, 2, 3, -2)])
    for p in cases:
        ref = F.pad(t, p, tmode).numpy()
        pads, axes = torch_pad_to_onnx(p, 4)
        np.testing.assert_array_equal(gridops.pad(x, pads, gmode, axes=axes), ref)
        np.testing.assert_array_equal(gridops.pad(x, torch_pad_to_width(p, 4), gmode), ref)
    ref = F.pad(t, (1, 2), value=7.5).numpy()
    np.testing.assert_array_equal(gridops.pad(x, [1, 2], value=7.5, axes=[3]), ref)


def test_pad_circular_with_a_negative_pad_wraps_the_uncropped_data():
    t = torch.arange(5.0).reshape(1, 1, 5)
    assert F.pad(t, (-1, 2), "circular").ravel().tolist() == [1, 2, 3, 4, 1, 2]
    assert gridops.pad(t.numpy(), [-1, 2], "wrap", axes=[2]).ravel().tolist() == [1, 2, 3, 4, 0, 1]
    assert F.pad(t, (2, -1), "circular").ravel().tolist() == [2, 3, 0, 1, 2, 3]
    assert gridops.pad(t.numpy(), [2, -1], "wrap", axes=[2]).ravel().tolist() == [3, 4, 0, 1, 2, 3]


def test_pad_size_limits_against_torch():
    t = torch.arange(5.0).reshape(1, 1, 5)
    x = t.numpy()
    with pytest.raises(RuntimeError):
        F.pad(t, (5, 0), "reflect")
    with pytest.raises(ValueError, match="reflect mode needs"):
        gridops.pad(x, [5, 0], "reflect", axes=[2])
    assert gridops.pad(x, [4, 0], "reflect", axes=[2]).ravel().tolist() == \
        F.pad(t, (4, 0), "reflect").ravel().tolist()
    with pytest.raises(RuntimeError):
        F.pad(t, (6, 0), "circular")
    assert gridops.pad(x, [6, 0], "wrap", axes=[2]).ravel().tolist() == [4, 0, 1, 2, 3, 4, 0, 1, 2, 3, 4]
    # PyTorch's non-constant modes: rank 2 to 5, the last 1-3 axes; gridops: any
    with pytest.raises(RuntimeError):
        F.pad(torch.arange(5.0), (1, 1), "reflect")
    with pytest.raises(RuntimeError):
        F.pad(torch.zeros(2, 3, 4, 5), (1, 1), "reflect")
    assert gridops.pad(np.arange(5.0), [1, 1], "reflect").tolist() == [1, 0, 1, 2, 3, 4, 3]
    assert gridops.pad(np.zeros((2, 3, 4, 5)), [1, 1], "reflect", axes=[1]).shape == (2, 5, 4, 5)


def test_index_select_is_gather_and_torch_gather_is_not():
    x = np.random.default_rng(4).standard_normal((4, 5, 6))
    t = torch.from_numpy(x)
    idx = torch.tensor([3, 0, 2])
    y = gridops.gather(t, idx, axis=1)
    assert isinstance(y, torch.Tensor) and torch.equal(y, torch.index_select(t, 1, idx))
    assert torch.equal(gridops.gather(t, torch.tensor([-1]), axis=1), t[:, 4:5])
    with pytest.raises(RuntimeError):
        torch.index_select(t, 1, torch.tensor([-1]))
    # torch.gather picks one element per index (ONNX GatherElements): not gridops.gather
    i2 = torch.zeros((4, 2, 6), dtype=torch.int64)
    assert tuple(torch.gather(t, 1, i2).shape) == (4, 2, 6)
    assert tuple(gridops.gather(t, i2, axis=1).shape) == (4, 4, 2, 6, 6)


# ==== NumPy / SciPy ============================================================================

def test_np_pad_modes_and_pad_width_forms():
    a = np.random.default_rng(5).standard_normal((4, 5))
    for mode in ("constant", "edge", "reflect", "symmetric", "wrap"):
        for pw in (((1, 2), (3, 1)), ((3, 3), (4, 4)), 2, ((1, 2),)):
            np.testing.assert_array_equal(gridops.pad(a, pw, mode), np.pad(a, pw, mode))
    np.testing.assert_array_equal(gridops.pad(a, ((1, 2), (3, 1)), "constant", value=-3.0),
                                  np.pad(a, ((1, 2), (3, 1)), "constant", constant_values=-3.0))
    # a flat pair is ONNX pads for gridops, one pair for every axis for NumPy
    np.testing.assert_array_equal(gridops.pad(a, ((1, 2),)), np.pad(a, (1, 2)))
    assert gridops.pad(a, (1, 2), axes=[0]).shape == (7, 5)           # begin 1, end 2 of axis 0
    with pytest.raises(ValueError, match="4 entries"):                # 2 axes: 4 ONNX pads
        gridops.pad(a, (1, 2))
    assert np.pad(a, (1, 2)).shape == (7, 8)


def test_np_pad_differences():
    a = np.arange(4.0)
    # reflect / symmetric past one reflection: NumPy repeats, gridops refuses
    for mode, limit in (("reflect", 3), ("symmetric", 4)):
        np.testing.assert_array_equal(gridops.pad(a, ((limit, limit),), mode), np.pad(a, limit, mode))
        with pytest.raises(ValueError, match=f"{mode} mode needs"):
            gridops.pad(a, ((limit + 1, 0),), mode)
        assert np.pad(a, (limit + 1, 0), mode).shape == (4 + limit + 1,)
    # wrap: periodic for any pads; NumPy's differs when one side is longer than the axis
    # and the other is not zero
    np.testing.assert_array_equal(gridops.pad(a, ((6, 9),), "wrap"), np.pad(a, (6, 9), "wrap"))
    assert gridops.pad(a, ((6, 1),), "wrap").tolist() == [2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0]
    assert np.pad(a, (6, 1), "wrap").tolist() == [3, 0, 0, 1, 2, 3, 0, 1, 2, 3, 0]
    # modes that compute values, per-axis constants, reflect_type: no equivalent
    for mode in ("maximum", "mean", "median", "minimum", "linear_ramp", "empty"):
        with pytest.raises(ValueError):
            gridops.pad(a, 1, mode)
    with pytest.raises((TypeError, ValueError)):
        gridops.pad(a, 1, "constant", ((1, 2),))
    with pytest.raises(TypeError):
        gridops.pad(a, 1, "reflect", reflect_type="odd")


def test_np_take_is_gather():
    a = np.random.default_rng(6).standard_normal((4, 5, 6))
    idx = np.array([[3, 0], [-1, 2]])
    for axis in range(3):
        np.testing.assert_array_equal(gridops.gather(a, idx, axis=axis), np.take(a, idx, axis=axis))
    np.testing.assert_array_equal(gridops.gather(a, np.array(2), axis=1), np.take(a, 2, axis=1))
    # default axis: gridops 0, np.take flattens (axis=None)
    assert gridops.gather(a, np.array([1, 2])).shape == (2, 5, 6)
    assert np.take(a, [1, 2]).shape == (2,)
    with pytest.raises(ValueError, match="out of range"):
        gridops.gather(a, np.array([4]))
    with pytest.raises(IndexError):
        np.take(a, [4], axis=0)
    with pytest.raises(TypeError):                  # a list is not an array for gridops
        gridops.gather(a, [1, 2])
    with pytest.raises(TypeError):                  # int32 / int64 indices only
        gridops.gather(a, np.array([1], np.int16))


# gridops padding (align_corners) -> scipy.ndimage mode, for order=1
SCIPY_MODES = [("grid-constant", "zeros", False), ("nearest", "border", False),
               ("reflect", "reflection", False), ("grid-mirror", "reflection", False),
               ("mirror", "reflection", True)]


def test_map_coordinates_order1_is_bilinear():
    ndimage = pytest.importorskip("scipy.ndimage")
    H, W = 9, 12
    img = noise((H, W), 7)
    r = np.random.default_rng(8)
    rows, cols = r.uniform(-2, H + 1, (6, 7)), r.uniform(-2, W + 1, (6, 7))
    for smode, padding, align in SCIPY_MODES:
        ref = ndimage.map_coordinates(img, [rows, cols], order=1, mode=smode)
        g = grid_from_pixels(cols, rows, W, H, align)[None]
        assert maxdiff(gridops.grid_sample(img[None, None], g, "bilinear", padding, align)[0, 0], ref) <= 1e-9
    # scipy's "constant" does not interpolate past the edge: not "zeros"
    ref = ndimage.map_coordinates(img, [rows, cols], order=1, mode="constant")
    g = grid_from_pixels(cols, rows, W, H)[None]
    assert maxdiff(gridops.grid_sample(img[None, None], g, "bilinear", "zeros", False)[0, 0], ref) > 10


def test_map_coordinates_order0_and_order3():
    ndimage = pytest.importorskip("scipy.ndimage")
    H, W = 9, 12
    img = noise((H, W), 9)
    r = np.random.default_rng(10)
    rows, cols = r.uniform(0, H - 1, 40), r.uniform(0, W - 1, 40)
    g = grid_from_pixels(cols, rows, W, H)[None, None]
    np.testing.assert_array_equal(gridops.grid_sample(img[None, None], g, "nearest", "border")[0, 0, 0],
                                  ndimage.map_coordinates(img, [rows, cols], order=0))
    # ties: scipy rounds half up, gridops half to even
    v = np.arange(8.0)
    p = np.array([0.5, 1.5, 2.5, 3.5])
    assert ndimage.map_coordinates(v, [p], order=0).tolist() == [1, 2, 3, 4]
    g = grid_from_pixels(p, np.zeros_like(p), 8, 1)[None, None]
    assert gridops.grid_sample(v[None, None, None], g, "nearest", "border").ravel().tolist() == [0, 2, 2, 4]
    # order=3 is a cubic B-spline (prefiltered), not Keys' cubic convolution
    rows, cols = r.uniform(2, H - 3, (20, 20)), r.uniform(2, W - 3, (20, 20))
    g = grid_from_pixels(cols, rows, W, H)[None]
    y = gridops.grid_sample(img[None, None], g, "bicubic", "border")[0, 0]
    assert maxdiff(y, ndimage.map_coordinates(img, [rows, cols], order=3, mode="nearest")) > 5
    assert maxdiff(y, ndimage.map_coordinates(img, [rows, cols], order=3, mode="nearest", prefilter=False)) > 5


def test_affine_transform_conversion():
    ndimage = pytest.importorskip("scipy.ndimage")
    H, W = 9, 12
    img = noise((H, W), 11)
    matrix, offset, out_shape = np.array([[0.9, -0.3], [0.25, 1.1]]), np.array([1.2, -0.7]), (8, 10)
    ref = ndimage.affine_transform(img, matrix, offset, output_shape=out_shape, order=1, mode="grid-constant")
    for align in (False, True):
        theta = theta_from_pixel_map(matrix[::-1, ::-1], offset[::-1], (W, H), out_shape[::-1], align)
        y = gridops.affine_warp(img[None, None], theta[None], out_shape, "bilinear", "zeros", align)[0, 0]
        assert maxdiff(y, ref) <= 1e-9


def test_zoom():
    ndimage = pytest.importorskip("scipy.ndimage")
    x = noise((3, 7), 12)
    for z in (1.9, 2.0, 0.6):
        for grid_mode, ctm in ((False, "align_corners"), (True, "half_pixel")):
            ref = ndimage.zoom(x, z, order=1, grid_mode=grid_mode, mode="nearest")
            y = gridops.resize(x, sizes=ref.shape, mode="linear", coordinate_transformation_mode=ctm)
            assert maxdiff(y, ref) <= 1e-9
    # output length: scipy rounds in * zoom, gridops' scales floor it
    assert ndimage.zoom(x, 1.9, order=1).shape == (6, 13)
    assert gridops.resize(x, scales=[1.9, 1.9], mode="linear").shape == (5, 13)


# ==== OpenCV ===================================================================================

BORDERS = [("BORDER_CONSTANT", "zeros", False), ("BORDER_REPLICATE", "border", False),
           ("BORDER_REFLECT", "reflection", False), ("BORDER_REFLECT_101", "reflection", True)]


def test_remap():
    cv2 = pytest.importorskip("cv2")
    H, W = 20, 30
    img = noise((H, W), 13, np.float32)
    r = np.random.default_rng(14)
    mx = r.uniform(-3, W + 2, (15, 17)).astype(np.float32)
    my = r.uniform(-3, H + 2, (15, 17)).astype(np.float32)
    q = lambda m: (np.round(m * 32) / 32).astype(np.float32)          # noqa: E731
    for interp, mode, tol in (("INTER_LINEAR", "bilinear", 1e-4), ("INTER_CUBIC", "bicubic", 2e-4)):
        for border, padding, align in BORDERS:
            flags = dict(interpolation=getattr(cv2, interp), borderMode=getattr(cv2, border), borderValue=0)
            # on maps that are multiples of 1/32 pixel: the same up to float32 rounding
            ref = cv2.remap(img, q(mx), q(my), **flags)
            g = grid_from_pixels(q(mx).astype(np.float64), q(my).astype(np.float64), W, H, align)[None]
            assert maxdiff(gridops.grid_sample(img[None, None].astype(np.float64), g, mode, padding, align)[0, 0],
                           ref) <= tol, (interp, border)
            # on other maps OpenCV rounds each coordinate to 1/32 pixel first
            ref = cv2.remap(img, mx, my, **flags)
            g = grid_from_pixels(mx.astype(np.float64), my.astype(np.float64), W, H, align)[None]
            d = maxdiff(gridops.grid_sample(img[None, None].astype(np.float64), g, mode, padding, align)[0, 0], ref)
            assert 1 < d < 8.5, (interp, border, d)
        ref = cv2.remap(img, mx, my, cv2.INTER_NEAREST, borderMode=getattr(cv2, border))
        g = grid_from_pixels(mx.astype(np.float64), my.astype(np.float64), W, H, align)[None]
        np.testing.assert_array_equal(gridops.grid_sample(img[None, None], g, "nearest", padding, align)[0, 0], ref)
    # an (H, W, C) image: img[None] with layout="channels_last"
    rgb = noise((H, W, 3), 24, np.float32)
    g = grid_from_pixels(q(mx), q(my), W, H)[None]
    ref = cv2.remap(rgb, q(mx), q(my), cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    assert maxdiff(gridops.grid_sample(rgb[None], g, "bilinear", "border", layout="channels_last")[0], ref) <= 1e-4
    assert maxdiff(gridops.grid_sample(rgb.transpose(2, 0, 1)[None], g, "bilinear", "border")[0].transpose(1, 2, 0),
                   ref) <= 1e-4
    v = np.arange(8, dtype=np.float32)[None].repeat(2, 0)
    px = np.array([[0.5, 1.5, 2.5, 3.5]], np.float32).repeat(2, 0)
    assert cv2.remap(v, px, np.zeros_like(px), cv2.INTER_NEAREST)[0].tolist() == [0, 2, 2, 4]


def test_warp_affine():
    cv2 = pytest.importorskip("cv2")
    H, W, Ho, Wo = 20, 30, 16, 25
    img = noise((H, W), 15, np.float32)
    M = cv2.getRotationMatrix2D((W / 2, H / 2), 17, 0.9)
    M[:, 2] += [1.3, -2.1]
    Minv = cv2.invertAffineTransform(M)
    theta = theta_from_pixel_map(Minv[:, :2], Minv[:, 2], (W, H), (Wo, Ho))
    # the conversion is exact: affine_grid(theta) is OpenCV's pixel map, normalized
    ys, xs = np.mgrid[0:Ho, 0:Wo].astype(np.float64)
    px = Minv[0, 0] * xs + Minv[0, 1] * ys + Minv[0, 2]
    py = Minv[1, 0] * xs + Minv[1, 1] * ys + Minv[1, 2]
    assert maxdiff(gridops.affine_grid(theta[None], (1, 1, Ho, Wo)), grid_from_pixels(px, py, W, H)[None]) <= 1e-14
    x64 = img.astype(np.float64)[None, None]
    for border, padding, _ in BORDERS[:3]:
        ref = cv2.warpAffine(img, M, (Wo, Ho), flags=cv2.INTER_LINEAR, borderMode=getattr(cv2, border))
        inv = cv2.warpAffine(img, Minv, (Wo, Ho), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                             borderMode=getattr(cv2, border))
        np.testing.assert_array_equal(ref, inv)
        y = gridops.affine_warp(x64, theta[None], (Ho, Wo), "bilinear", padding)[0, 0]
        d = np.abs(y - ref)
        assert 1 < d.max() < 8.5 and d.mean() < 1.5, (border, d.max(), d.mean())   # 1/32-pixel coordinates
        ref = cv2.warpAffine(img, M, (Wo, Ho), flags=cv2.INTER_NEAREST, borderMode=getattr(cv2, border))
        y = gridops.affine_warp(x64, theta[None], (Ho, Wo), "nearest", padding)[0, 0]
        assert 0 < np.mean(y != ref) < 0.01          # fixed-point coordinates round near half pixels


def test_cv2_resize_float():
    cv2 = pytest.importorskip("cv2")
    img = noise((37, 53, 3), 16, np.float32)
    x = img.astype(np.float64)
    for Wo, Ho in [(20, 15), (106, 74), (70, 30)]:
        kw = dict(sizes=(Ho, Wo), axes=[0, 1])
        ref = cv2.resize(img, (Wo, Ho), interpolation=cv2.INTER_LINEAR)
        assert maxdiff(gridops.resize(x, mode="linear", **kw), ref) <= 1e-3
        ref = cv2.resize(img, (Wo, Ho), interpolation=cv2.INTER_CUBIC)
        assert maxdiff(gridops.resize(x, mode="cubic", **kw), ref) <= 1e-3          # a = -0.75 both
        assert maxdiff(gridops.resize(x, mode="cubic", cubic_coeff_a=-0.5, **kw), ref) > 1
        ref = cv2.resize(img, (Wo, Ho), interpolation=cv2.INTER_NEAREST)
        np.testing.assert_array_equal(gridops.resize(img, mode="nearest", coordinate_transformation_mode="asymmetric",
                                                     nearest_mode="floor", **kw), ref)
        ref = cv2.resize(img, (Wo, Ho), interpolation=cv2.INTER_NEAREST_EXACT)
        np.testing.assert_array_equal(gridops.resize(img, mode="nearest", **kw), ref)
    # INTER_AREA: mean pooling for integer factors; not an antialiased resize
    ref = cv2.resize(img[:36, :52], (26, 18), interpolation=cv2.INTER_AREA)
    assert maxdiff(img[:36, :52].astype(np.float64).reshape(18, 2, 26, 2, 3).mean((1, 3)), ref) <= 1e-4
    aa = gridops.resize(x[:36, :52], sizes=(18, 26), axes=[0, 1], mode="linear", antialias=True, exclude_outside=True)
    assert maxdiff(aa, ref) > 10


def test_cv2_nearest_at_ties():
    cv2 = pytest.importorskip("cv2")
    v = ramp(8)
    assert cv2.resize(v, (4, 2), interpolation=cv2.INTER_NEAREST)[0].tolist() == [0, 2, 4, 6]
    assert cv2.resize(v, (4, 2), interpolation=cv2.INTER_NEAREST_EXACT)[0].tolist() == [0, 2, 4, 6]
    wrong = up = 0
    for I, O in TIE_SWEEP:
        v = ramp(I)
        wrong += assert_only_tie_mismatches(cv2.resize(v, (O, 2), interpolation=cv2.INTER_NEAREST)[0], I, O,
                                            exact_floor_index(I, O), True)
        up += assert_only_tie_mismatches(cv2.resize(v, (O, 2), interpolation=cv2.INTER_NEAREST_EXACT)[0], I, O,
                                         exact_half_pixel_down(I, O), False)
    # the page: INTER_NEAREST wrong at 9 ties; INTER_NEAREST_EXACT rounds 294 of the 752 ties up
    assert (wrong, up) == (9, 294)


def test_integer_results_truncate_where_opencv_rounds():
    cv2 = pytest.importorskip("cv2")
    u = np.random.default_rng(17).integers(0, 256, (64, 96, 3), dtype=np.uint8)
    for (Wo, Ho), interp, mode in (((150, 100), cv2.INTER_LINEAR, "linear"), ((40, 30), cv2.INTER_LINEAR, "linear"),
                                   ((150, 100), cv2.INTER_CUBIC, "cubic")):
        kw = dict(sizes=(Ho, Wo), axes=[0, 1], mode=mode)
        yu = gridops.resize(u, **kw)
        y32 = gridops.resize(u.astype(np.float32), **kw)
        y64 = gridops.resize(u.astype(np.float64), **kw)
        # the rule: the float32 result truncated toward zero, saturated to [0, 255]
        np.testing.assert_array_equal(yu, np.clip(np.trunc(y32), 0, 255).astype(np.uint8))
        assert -0.52 < np.mean(yu - y64) < -0.45
        d = yu.astype(np.int64) - cv2.resize(u, (Wo, Ho), interpolation=interp)
        assert set(np.unique(d).tolist()) == {-1, 0} and -0.5 < d.mean() < -0.3
        # rounding gridops' float32 result: within 1 of OpenCV (its 11-bit fixed-point weights)
        rounded = np.clip(np.rint(y32), 0, 255).astype(np.uint8)
        assert maxdiff(rounded, cv2.resize(u, (Wo, Ho), interpolation=interp)) == 1
        assert 0.05 < np.mean(rounded != cv2.resize(u, (Wo, Ho), interpolation=interp)) < 0.14
    # the same rule in grid_sample (computed in double for uint8 there)
    H, W = 24, 32
    img = u[:H, :W, 0]
    r = np.random.default_rng(18)
    mx = (np.round(r.uniform(0, W - 1, (40, 50)) * 32) / 32).astype(np.float32)
    my = (np.round(r.uniform(0, H - 1, (40, 50)) * 32) / 32).astype(np.float32)
    g = grid_from_pixels(mx.astype(np.float64), my.astype(np.float64), W, H)[None]
    yu = gridops.grid_sample(img[None, None], g, "bilinear", "border")[0, 0]
    yf = gridops.grid_sample(img[None, None].astype(np.float64), g, "bilinear", "border")[0, 0]
    np.testing.assert_array_equal(yu, np.trunc(yf))
    theta = np.array([[[0.9, -0.2, 0.05], [0.15, 1.1, -0.1]]])
    np.testing.assert_array_equal(gridops.affine_warp(img[None, None], theta, (20, 30)),
                                  np.trunc(gridops.affine_warp(img[None, None].astype(np.float64), theta, (20, 30))))
    d = yu.astype(np.int64) - cv2.remap(img, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    assert set(np.unique(d).tolist()) == {-1, 0} and -0.6 < d.mean() < -0.4


def test_copy_make_border():
    cv2 = pytest.importorskip("cv2")
    img = noise((5, 6, 3), 19, np.float32)
    for border, mode in (("BORDER_CONSTANT", "constant"), ("BORDER_REPLICATE", "edge"),
                         ("BORDER_REFLECT", "symmetric"), ("BORDER_REFLECT_101", "reflect"),
                         ("BORDER_WRAP", "wrap")):
        ref = cv2.copyMakeBorder(img, 1, 3, 2, 4, getattr(cv2, border), value=0)   # top, bottom, left, right
        np.testing.assert_array_equal(gridops.pad(img, ((1, 3), (2, 4), (0, 0)), mode), ref)
        np.testing.assert_array_equal(gridops.pad(img, [1, 2, 3, 4], mode, axes=[0, 1]), ref)
    # past one reflection OpenCV repeats, gridops refuses
    line = np.arange(3, dtype=np.float32)[None]
    assert cv2.copyMakeBorder(line, 0, 0, 5, 0, cv2.BORDER_REFLECT_101)[0].tolist() == [1, 0, 1, 2, 1, 0, 1, 2]
    with pytest.raises(ValueError):
        gridops.pad(line, [5, 0], "reflect", axes=[1])
    np.testing.assert_array_equal(gridops.pad(line, [7, 8], "wrap", axes=[1]),
                                  cv2.copyMakeBorder(line, 0, 0, 7, 8, cv2.BORDER_WRAP))


# ==== Pillow ===================================================================================

def test_pillow_resize_float():
    Image = pytest.importorskip("PIL.Image")
    img = noise((37, 53), 20, np.float32)
    im = Image.fromarray(img, mode="F")
    R = Image.Resampling
    for Wo, Ho in [(20, 15), (106, 74), (70, 30), (1, 1)]:
        kw = dict(sizes=(Ho, Wo), antialias=True)
        x = img.astype(np.float64)
        ref = np.asarray(im.resize((Wo, Ho), R.BILINEAR))
        assert maxdiff(gridops.resize(x, mode="linear", exclude_outside=True, **kw), ref) <= 1e-3
        ref = np.asarray(im.resize((Wo, Ho), R.BICUBIC))
        assert maxdiff(gridops.resize(x, mode="cubic", cubic_coeff_a=-0.5, exclude_outside=True, **kw), ref) <= 1e-3
        assert maxdiff(gridops.resize(x, mode="cubic", cubic_coeff_a=-0.5, **kw), ref) > (0.5 if Wo == 1 else 1)
        ref = np.asarray(im.resize((Wo, Ho), R.NEAREST))
        np.testing.assert_array_equal(gridops.resize(img, sizes=(Ho, Wo), mode="nearest",
                                                     nearest_mode="round_prefer_ceil"), ref)
    ref = np.asarray(im.resize((26, 18), R.BILINEAR))
    assert maxdiff(gridops.resize(img.astype(np.float64), sizes=(18, 26), mode="linear", antialias=True), ref) > 1


def test_pillow_nearest_at_ties():
    Image = pytest.importorskip("PIL.Image")
    v = ramp(8)
    assert np.asarray(Image.fromarray(v, "F").resize((4, 2), Image.Resampling.NEAREST))[0].tolist() == [1, 3, 5, 7]
    down = 0
    for I, O in TIE_SWEEP:
        v = ramp(I)
        got = np.asarray(Image.fromarray(v, "F").resize((O, 2), Image.Resampling.NEAREST))[0]
        down += assert_only_tie_mismatches(got, I, O, exact_half_pixel_up(I, O), False)
    assert down == 247              # of the 752 ties, rounded down instead of up


def test_pillow_uint8_rounds():
    Image = pytest.importorskip("PIL.Image")
    u = np.random.default_rng(21).integers(0, 256, (64, 96), dtype=np.uint8)
    R = Image.Resampling
    for (Wo, Ho), res, kw in (((150, 100), R.BILINEAR, dict(mode="linear")),
                              ((40, 30), R.BILINEAR, dict(mode="linear")),
                              ((40, 30), R.BICUBIC, dict(mode="cubic", cubic_coeff_a=-0.5))):
        kw.update(sizes=(Ho, Wo), antialias=True, exclude_outside=True)
        ref = np.asarray(Image.fromarray(u).resize((Wo, Ho), res)).astype(np.int64)
        yu = gridops.resize(u, **kw)
        y32 = gridops.resize(u.astype(np.float32), **kw)
        np.testing.assert_array_equal(yu, np.clip(np.trunc(y32), 0, 255).astype(np.uint8))
        d = yu.astype(np.int64) - ref
        assert set(np.unique(d).tolist()) == {-1, 0} and -0.55 < d.mean() < -0.45
        assert maxdiff(np.clip(np.rint(y32), 0, 255), ref) == 1
        assert 0.12 < np.mean(np.clip(np.rint(y32), 0, 255) != ref) < 0.21


def test_pillow_transform_affine():
    Image = pytest.importorskip("PIL.Image")
    H, W, Ho, Wo = 24, 32, 20, 28
    img = noise((H, W), 22, np.float32)
    im = Image.fromarray(img, "F")
    data = (0.913, -0.2071, 3.137, 0.2519, 1.0537, -1.4113)
    A = np.array([[data[0], data[1]], [data[3], data[4]]])
    c = np.array([data[2], data[5]])
    b = c + A @ [0.5, 0.5] - 0.5                      # Pillow's corner coordinates -> pixel centres
    theta = theta_from_pixel_map(A, b, (W, H), (Wo, Ho))
    ys, xs = np.mgrid[0:Ho, 0:Wo]
    px, py = A[0, 0] * xs + A[0, 1] * ys + b[0], A[1, 0] * xs + A[1, 1] * ys + b[1]
    inside = (px >= -0.5) & (px < W - 0.5) & (py >= -0.5) & (py < H - 0.5)
    assert (~inside).sum() > 10 and inside.sum() > 300
    x = img.astype(np.float64)[None, None]
    R = Image.Resampling
    for res, mode, tol in ((R.BILINEAR, "bilinear", 1e-3), (R.NEAREST, "nearest", 0)):
        ref = np.asarray(im.transform((Wo, Ho), Image.Transform.AFFINE, data, resample=res, fillcolor=-1000.0))
        y = gridops.affine_warp(x, theta[None], (Ho, Wo), mode, "border")[0, 0]
        assert maxdiff(y[inside], ref[inside]) <= tol
        assert np.all(ref[~inside] == -1000.0)         # outside the image's extent: fillcolor
    # at ties (here every output: p = x + 0.5) Pillow rounds up, gridops to even
    row = np.arange(6, dtype=np.float32)[None].repeat(3, 0)
    ref = np.asarray(Image.fromarray(row, "F").transform((5, 3), Image.Transform.AFFINE, (1, 0, 0.5, 0, 1, 0),
                                                         resample=R.NEAREST))
    assert ref[0].tolist() == [1, 2, 3, 4, 5]
    theta = theta_from_pixel_map(np.eye(2), [0.5, 0.0], (6, 3), (5, 3))
    y = gridops.affine_warp(row[None, None], theta[None], (3, 5), "nearest", "border")
    assert y[0, 0, 0].tolist() == [0, 2, 2, 4, 4]
    # BICUBIC is a = -0.5; grid_sample's bicubic is a = -0.75
    ref = np.asarray(im.transform((Wo, Ho), Image.Transform.AFFINE, data, resample=R.BICUBIC))
    y = gridops.affine_warp(x, theta[None], (Ho, Wo), "bicubic", "border")[0, 0]
    assert maxdiff(y[inside], ref[inside]) > 1
