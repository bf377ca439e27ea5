"""Issue 49, item 3: arguments that cannot be misread. PyTorch's and NumPy's names and pad
order, complex and NumPy scalar values, errors that name the argument (not the tensor),
memory formats as PyTorch keeps them, thread counts from torch, real signatures, pickling."""

import inspect
import pickle

import numpy as np
import pytest

import gridops

torch = pytest.importorskip("torch")
F = torch.nn.functional


# --- Pad: PyTorch's pad tuple, mode names, NumPy's keyword ---------------------------------

def test_pad_reads_a_flat_tuple_in_onnx_order_and_torch_order_on_request():
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    # The same tuple: ONNX reads (begin_0, begin_1, end_0, end_1), F.pad (left, right, top,
    # bottom) from the last axis.
    assert gridops.pad(a, (1, 1, 2, 2)).shape == (6, 7)
    want = F.pad(torch.from_numpy(a), (1, 1, 2, 2)).numpy()
    got = gridops.pad(a, (1, 1, 2, 2), order="torch")
    assert want.shape == got.shape == (7, 6)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("mode", ["constant", "reflect", "replicate", "circular"])
def test_pad_in_torch_order_matches_F_pad(mode):
    # F.pad pads the last len(pads) // 2 axes; its non-constant modes take 1 to 3 of them on
    # inputs of rank 3 to 5.
    for shape, pads in [((2, 3, 6), (1, 2)), ((2, 3, 5, 6), (2, 1, 3, 0)),
                        ((1, 2, 4, 5, 6), (0, 1, 1, 2, 2, 0))]:
        x = torch.arange(int(np.prod(shape)), dtype=torch.float32).reshape(shape)
        want = F.pad(x, pads, mode=mode)
        got = gridops.pad(x, pads, mode, order="torch")
        assert torch.equal(got, want), (mode, pads)


def test_pad_torch_order_errors_name_the_form():
    a = np.zeros((3, 4), np.float32)
    with pytest.raises(ValueError, match="order='torch', pads must have an even number of entries, at most 2 \\* rank = 4"):
        gridops.pad(a, (1, 1, 1), order="torch")
    with pytest.raises(ValueError, match="order='torch' gives the axes itself"):
        gridops.pad(a, (1, 1), order="torch", axes=[0])
    with pytest.raises(ValueError, match="pad: order must be 'onnx' .* or 'torch'"):
        gridops.pad(a, 1, order="numpy")


def test_pad_mode_names_of_pytorch_and_numpy():
    a = np.arange(5.0)
    np.testing.assert_array_equal(gridops.pad(a, 2, "replicate"), np.pad(a, 2, "edge"))
    np.testing.assert_array_equal(gridops.pad(a, 2, "circular"), np.pad(a, 2, "wrap"))
    for m in ("mean", "median", "maximum", "minimum", "linear_ramp", "empty"):
        with pytest.raises(ValueError, match=f"numpy.pad's mode '{m}' is not a Pad mode"):
            gridops.pad(a, 1, m)


def test_pad_constant_values_is_numpys_name_for_value():
    a = np.arange(3, dtype=np.int32)
    np.testing.assert_array_equal(gridops.pad(a, 1, constant_values=7),
                                  np.pad(a, 1, constant_values=7))
    with pytest.raises(TypeError, match="give value or constant_values"):
        gridops.pad(a, 1, value=1, constant_values=2)
    with pytest.raises(ValueError, match="constant_values must be one scalar"):
        gridops.pad(a, 1, constant_values=(1, 2))


@pytest.mark.parametrize("value", [1 + 2j, np.complex64(1 + 2j), np.complex128(1 + 2j),
                                   np.array(1 + 2j), 3, 2.5])
def test_pad_fill_values_of_complex_inputs(value):
    z = np.zeros(2, np.complex64)
    got = gridops.pad(z, 1, value=value)
    assert got[0] == got[-1] == np.complex64(complex(value))


def test_scalars_of_numpy_and_torch_are_numbers():
    x = np.random.default_rng(0).random((1, 1, 4, 4)).astype(np.float32)
    np.testing.assert_array_equal(gridops.pad(x, 1, value=np.float32(2)),
                                  gridops.pad(x, 1, value=2.0))
    np.testing.assert_array_equal(gridops.pad(x, 1, value=torch.tensor(2.0)),
                                  gridops.pad(x, 1, value=2.0))
    a = gridops.resize(x, [1, 1, 2, 2], mode="cubic", cubic_coeff_a=np.float32(-0.5))
    b = gridops.resize(x, [1, 1, 2, 2], mode="cubic", cubic_coeff_a=-0.5)
    np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(gridops.gather(x, np.array([0]), np.int64(2)),
                                  gridops.gather(x, np.array([0]), 2))


# --- errors name the argument, never print the tensor --------------------------------------

BIG = np.zeros((1, 3, 200, 200), np.float32)
GRID = np.zeros((1, 8, 8, 2), np.float32)


@pytest.mark.parametrize("call, message", [
    (lambda: gridops.grid_sample(BIG, GRID, mdoe="bilinear"), "unexpected keyword argument 'mdoe'"),
    (lambda: gridops.grid_sample(BIG, GRID, 1), "grid_sample: mode must be a str, got int 1"),
    (lambda: gridops.grid_sample(BIG, GRID, padding_mode=None), "grid_sample: padding_mode must be a str, got NoneType"),
    (lambda: gridops.resize(BIG, [1, 1, 2, 2], cubic_coeff_a="x"), "resize: cubic_coeff_a must be a real number, got str 'x'"),
    (lambda: gridops.resize(BIG, [1, 1, 2, 2], antialias="yes"), "resize: antialias must be True or False, got str 'yes'"),
    (lambda: gridops.gather(BIG, np.array([0]), 1.5), "gather: axis must be an int, got float 1.5"),
    (lambda: gridops.resample(BIG, scale_factor=2.0, antialias=True), "unexpected keyword argument 'antialias'"),
    (lambda: gridops.set_max_isa(3), "set_max_isa: level must be a str, got int 3"),
])
def test_a_wrong_argument_is_named_and_the_tensor_not_printed(call, message):
    with pytest.raises(TypeError) as info:
        call()
    text = str(info.value)
    assert message in text
    assert len(text) < 200, text  # no repr of a 120,000-element array


def test_pytorch_mode_names_gridops_does_not_have_are_refused_with_the_equivalent():
    x = np.zeros((1, 1, 4, 4), np.float32)
    with pytest.raises(ValueError, match="'bicubic' is not a Resample mode .* use gridops.resize\\(mode='cubic'\\)"):
        gridops.resample(x, scale_factor=2.0, mode="bicubic")
    with pytest.raises(ValueError, match="'nearest-exact' is not a Resample mode .*Resample's nearest is PyTorch's nearest-exact"):
        gridops.resample(x, scale_factor=2.0, mode="nearest-exact")
    with pytest.raises(ValueError, match="resize: mode: 'area' is PyTorch's name"):
        gridops.resize(x, 2.0, mode="area")
    # PyTorch's bilinear / bicubic are accepted names of resize's linear / cubic
    np.testing.assert_array_equal(gridops.resize(x, 2.0, mode="bicubic"),
                                  gridops.resize(x, 2.0, mode="cubic"))


def test_a_single_scale_or_size_applies_to_the_spatial_axes():
    x = np.random.default_rng(1).random((2, 3, 4, 5)).astype(np.float32)
    np.testing.assert_array_equal(gridops.resize(x, 2.0, mode="linear"),
                                  gridops.resize(x, [1, 1, 2, 2], mode="linear"))
    np.testing.assert_array_equal(gridops.resize(x, sizes=6, mode="linear"),
                                  gridops.resize(x, sizes=[2, 3, 6, 6], mode="linear"))
    np.testing.assert_array_equal(gridops.resize(x, 2.0, axes=[3]),
                                  gridops.resize(x, [2.0], axes=[3]))
    with pytest.raises(ValueError, match="a single scale applies to the spatial axes"):
        gridops.resize(np.zeros(4, np.float32), 2.0)
    assert (gridops.resize_input_box((2, 3, 4, 5), [0, 0, 0, 0], [2, 3, 8, 10], 2.0, mode="linear")
            == gridops.resize_input_box((2, 3, 4, 5), [0, 0, 0, 0], [2, 3, 8, 10], [1, 1, 2, 2],
                                        mode="linear"))


# --- torch memory formats ------------------------------------------------------------------

def _is_channels_last(t):
    return t.is_contiguous(memory_format=torch.channels_last) and not t.is_contiguous()


def test_channels_last_is_kept_where_pytorch_keeps_it():
    x = torch.rand(2, 3, 6, 7)
    xc = x.contiguous(memory_format=torch.channels_last)
    assert _is_channels_last(F.interpolate(xc, scale_factor=2.0, mode="bilinear"))
    assert _is_channels_last(F.pad(xc, (1, 1, 1, 1)))
    g = torch.rand(2, 4, 5, 2) * 2 - 1
    assert F.grid_sample(xc, g, align_corners=False).is_contiguous()
    cases = [
        (lambda t: gridops.resample(t, scale_factor=2.0), True),
        (lambda t: gridops.resize(t, [1, 1, 2, 2], mode="linear"), True),
        (lambda t: gridops.pad(t, ((0, 0), (0, 0), (1, 2), (3, 0)), "reflect"), True),
        (lambda t: gridops.pad(t, (1, 2, 0, 1), "replicate", order="torch"), True),
        (lambda t: gridops.grid_sample(t, g), False),
    ]
    for fn, keeps in cases:
        want = fn(x)
        got = fn(xc)
        assert torch.equal(got, want)  # the same values, bit for bit
        assert _is_channels_last(got) == keeps
        if not keeps:
            assert got.is_contiguous()
    # 3-D: channels_last_3d
    v = torch.rand(1, 2, 3, 4, 5).contiguous(memory_format=torch.channels_last_3d)
    r = gridops.resample(v, scale_factor=2.0)
    assert r.is_contiguous(memory_format=torch.channels_last_3d) and not r.is_contiguous()
    assert torch.equal(r, gridops.resample(v.contiguous(), scale_factor=2.0))


# --- threads ---------------------------------------------------------------------------------

def test_num_threads_scopes_the_calling_thread():
    before = gridops.get_num_threads()
    with gridops.num_threads(1) as n:
        assert n == 1 == gridops.get_num_threads()
        with gridops.num_threads(2):
            assert gridops.get_num_threads() == 2
        assert gridops.get_num_threads() == 1
    assert gridops.get_num_threads() == before
    with pytest.raises(TypeError, match="num_threads: n must be an int"):
        gridops.num_threads("2")


def test_gridops_torch_follows_torch_set_num_threads():
    import gridops.torch as gt

    saved = torch.get_num_threads()
    try:
        for n in (1, 2):
            torch.set_num_threads(n)
            with gt._torch_threads() as used:
                assert used == n == gridops.get_num_threads()
        x = torch.rand(1, 2, 5, 5, requires_grad=True)
        g = torch.rand(1, 3, 3, 2) * 2 - 1
        gt.grid_sample(x, g).sum().backward()  # runs under the scope
        assert x.grad is not None
    finally:
        torch.set_num_threads(saved)


# --- signatures and pickling ---------------------------------------------------------------

def test_every_public_function_and_plan_has_a_signature():
    for name in gridops.__all__:
        if name in ("onnx", "dask", "torch", "__version__", "DTypeError"):
            continue
        obj = getattr(gridops, name)
        sig = inspect.signature(obj)
        assert sig is not None, name
    assert list(inspect.signature(gridops.grid_sample).parameters)[:5] == [
        "input", "grid", "mode", "padding_mode", "align_corners"]
    assert list(inspect.signature(gridops.PadPlan).parameters) == [
        "input_shape", "pads", "dtype", "mode", "axes"]


def test_functions_and_plans_pickle():
    for name in ("grid_sample", "pad", "resize", "resample", "gather", "affine_grid"):
        f = getattr(gridops, name)
        assert pickle.loads(pickle.dumps(f)) is f
    x = np.random.default_rng(2).random((1, 2, 5, 6)).astype(np.float32)
    plans = [
        (gridops.PadPlan(x.shape, ((0, 0), (0, 0), (1, 1), (2, 1)), mode="reflect"), (x,)),
        (gridops.ResizePlan(x.shape, scales=[1, 1, 2, 2], mode="linear"), (x,)),
        (gridops.ResamplePlan(x.shape, (1, 2, 10, 12)), (x,)),
        (gridops.GatherPlan(x.shape, (3,), axis=3), (x, np.array([0, 5, 2]))),
        (gridops.GridSamplePlan(x.shape, (1, 3, 3, 2), mode="bicubic"),
         (x, np.zeros((1, 3, 3, 2), np.float32))),
        (gridops.AffineGridPlan((1, 2, 3), (1, 2, 5, 6)),
         (np.array([[[1, 0, 0], [0, 1, 0]]], np.float32),)),
    ]
    for plan, args in plans:
        again = pickle.loads(pickle.dumps(plan))
        assert type(again) is type(plan)
        assert again.output_shape == plan.output_shape
        np.testing.assert_array_equal(again(*args), plan(*args))


# --- gridops.dask: the in-memory names ------------------------------------------------------

def test_dask_signatures_use_the_in_memory_names():
    da = pytest.importorskip("dask.array")
    import gridops.dask as gd

    x = np.random.default_rng(3).random((1, 2, 6, 8)).astype(np.float32)
    dx = da.from_array(x, chunks=(1, 1, 3, 4))
    # pad: axes=, order="torch", PyTorch's mode names, constant_values=
    np.testing.assert_array_equal(gd.pad(dx, [1, 2, 0, 3], axes=[2, 3]).compute(),
                                  gridops.pad(x, [1, 2, 0, 3], axes=[2, 3]))
    np.testing.assert_array_equal(gd.pad(dx, (1, 2, 0, 3), "replicate", order="torch").compute(),
                                  gridops.pad(x, (1, 2, 0, 3), "replicate", order="torch"))
    np.testing.assert_array_equal(gd.pad(dx, 1, constant_values=4).compute(),
                                  gridops.pad(x, 1, value=4))
    # affine_warp: size (spatial or (N, C, *spatial)) as in memory; output_shape its old name
    theta = np.array([[[0.9, 0.1, 0.0], [-0.1, 0.9, 0.1]]], np.float32)
    want = gridops.affine_warp(x, theta, [5, 7])
    for kw in ({"size": [5, 7]}, {"size": (1, 2, 5, 7)}, {"output_shape": [5, 7]}):
        np.testing.assert_array_equal(gd.affine_warp(dx, theta, **kw).compute(), want)
    # layout=: channels_first accepted, channels_last refused by name
    g = np.random.default_rng(4).uniform(-1, 1, (1, 3, 4, 2)).astype(np.float32)
    np.testing.assert_array_equal(gd.grid_sample(dx, g, layout="channels_first").compute(),
                                  gridops.grid_sample(x, g))
    for fn in (lambda: gd.grid_sample(dx, g, layout="channels_last"),
               lambda: gd.resample(dx, scale_factor=2.0, layout="channels_last"),
               lambda: gd.affine_warp(dx, theta, layout="channels_last")):
        with pytest.raises(ValueError, match="layout='channels_last': on dask arrays only channels_first"):
            fn()


def test_help_states_the_rules_users_look_up():
    # help(gridops.resize) recommended pytorch_half_pixel for length-1 outputs (torch 1.13
    # gives 1.5 there, pytorch_half_pixel 0.0: docs/coming-from.md) and said nothing of
    # integer rounding.
    doc = gridops.resize.__doc__
    assert "pytorch_half_pixel for" not in doc
    assert "with half_pixel, for every output length" in doc
    assert "integer results truncate toward" in doc
    assert "exclude_outside=True" in doc
    x = torch.arange(16.0).reshape(1, 1, 4, 4)
    want = F.interpolate(x, size=(1, 1), mode="bilinear", align_corners=False)
    got = gridops.resize(x, sizes=[1, 1], mode="linear", axes=[2, 3])
    assert torch.equal(got, want)
    assert "truncate toward zero" in gridops.grid_sample.__doc__
