"""gridops.torch.enable(): PyTorch's own operators run on gridops, driven by PyTorch's OpInfo
sample inputs (torch.testing._internal.common_methods_invocations, shipped by Debian's
python3-torch): every sample of every covered operator and dtype, forward and float64
gradients, with enable() on against the same call with it off. Data movement and nearest
must be bit-identical; interpolation within the tolerance of docs/python.md ("PyTorch
drop-in"). Every call that gridops hands back to PyTorch's kernel is counted by reason."""

import collections
import sys
import types
import unittest

import pytest
import torch
import torch.nn.functional as F

import gridops.torch as gt

# common_utils imports expecttest (a PyPI-only test helper Debian does not package) for its
# TestCase base and ACCEPT flag; the OpInfo sample generators use neither.
if "expecttest" not in sys.modules:
    _shim = types.ModuleType("expecttest")
    _shim.TestCase = unittest.TestCase
    _shim.ACCEPT = False
    sys.modules["expecttest"] = _shim

from torch.testing._internal.common_methods_invocations import op_db  # noqa: E402

# OpInfo name -> the aten operators its samples must reach with enable() on.
_OPS = {
    "nn.functional.grid_sample": ("grid_sampler_2d",),
    "nn.functional.interpolate": (),
    "nn.functional.upsample_bilinear": ("upsample_bilinear2d",),
    "nn.functional.upsample_nearest": (),
    "nn.functional.pad": (),
    "index_select": ("index_select",),
}
_INTERP = ("linear", "bilinear", "bicubic", "trilinear", "area", "")
_TOL = {torch.float64: 1e-12, torch.float32: 1e-5, torch.bfloat16: 2 ** -7, torch.float16: 2 ** -10}


def _infos():
    for op in op_db:
        if op.name in _OPS:
            yield pytest.param(op, id=f"{op.name}.{op.variant_test_name}".rstrip("."))


def _exact(op):
    if op.name == "nn.functional.interpolate":
        return op.variant_test_name == "nearest"
    if op.name == "nn.functional.upsample_bilinear":
        return False
    return op.name != "nn.functional.grid_sample"


def _call(op, sample):
    return op(sample.input, *sample.args, **sample.kwargs)


def _flat(v):
    return list(v) if isinstance(v, (tuple, list)) else [v]


def _compare(want, got, exact, dtype, what):
    assert type(want) is type(got), what
    for w, g in zip(_flat(want), _flat(got)):
        assert w.shape == g.shape and w.dtype == g.dtype, what
        assert w.stride() == g.stride(), f"{what}: strides {w.stride()} vs {g.stride()}"
        if exact:  # the bytes (complex32 has no torch.equal; NaNs compare too)
            assert torch.equal(w.contiguous().view(-1).view(torch.uint8),
                               g.contiguous().view(-1).view(torch.uint8)), f"{what}: not bit-identical"
        else:
            scale = 1 + w.abs().max().item() if w.numel() else 1
            err = (w.double() - g.double()).abs().max().item() if w.numel() else 0
            assert err <= _TOL[dtype] * scale, f"{what}: max error {err} > {_TOL[dtype]} x {scale}"


# Every covered operator, every size (the default policy leaves small calls and the
# operators where PyTorch is faster to PyTorch; test_default_policy checks it).
ALL = dict(ops="all", min_elements=0)


@pytest.fixture
def counts():
    gt.reset_fallback_counts()
    yield
    gt.reset_fallback_counts()


def _report(op):
    served = gt.served_counts()
    falls = collections.Counter()
    for (name, why), n in gt.fallback_counts().items():
        falls[f"{name}: {why}"] += n
    print(f"\n{op.name}.{op.variant_test_name}: served {dict(served)}")
    for k, n in sorted(falls.items()):
        print(f"  fallback x{n}: {k}")
    return served


@pytest.mark.parametrize("op", _infos())
def test_every_opinfo_sample_forward_matches_pytorch(op, counts):
    """Every sample in every dtype PyTorch's CPU kernel supports; errors must be the same
    kind with enable() on as off (a declined call runs PyTorch's kernel, which raises)."""
    n = 0
    for dtype in sorted(op.supported_dtypes("cpu"), key=str):
        for sample in op.sample_inputs("cpu", dtype, requires_grad=False):
            what = f"{op.name}.{op.variant_test_name} {dtype} {sample.summary() if hasattr(sample, 'summary') else ''}"
            try:
                want = _call(op, sample)
            except Exception as e:  # noqa: BLE001 - the same error must come with enable()
                with gt.enabled(**ALL), pytest.raises(type(e)):
                    _call(op, sample)
                continue
            with gt.enabled(**ALL):
                got = _call(op, sample)
            _compare(want, got, _exact(op) or not (dtype.is_floating_point or dtype.is_complex),
                     dtype, what)
            n += 1
    served = _report(op)
    assert n > 0
    for name in _OPS[op.name]:
        assert served.get("aten::" + name, 0) > 0, f"no sample reached gridops' {name}"
    if op.name in ("nn.functional.pad", "nn.functional.interpolate") and \
            op.variant_test_name not in ("circular", "area"):
        assert sum(served.values()) > 0, "no sample reached gridops"


@pytest.mark.parametrize("op", [p for p in _infos() if p.values[0].supports_autograd])
def test_every_opinfo_sample_gradient_matches_pytorch(op, counts):
    """float64 gradients of every sample (a random weighting of the output), on vs off."""
    gen = torch.Generator().manual_seed(5)
    n = 0
    if torch.float64 not in op.supported_dtypes("cpu"):
        pytest.skip(f"{op.name} has no float64 on the CPU")
    for sample in op.sample_inputs("cpu", torch.float64, requires_grad=True):
        leaves = [t for t in [sample.input, *sample.args, *sample.kwargs.values()]
                  if isinstance(t, torch.Tensor) and t.requires_grad]
        out = _call(op, sample)
        weight = torch.rand(out.shape, dtype=out.dtype, generator=gen)
        want = torch.autograd.grad((out * weight).sum(), leaves, allow_unused=True)
        with gt.enabled(**ALL):
            out2 = _call(op, sample)
            got = torch.autograd.grad((out2 * weight).sum(), leaves, allow_unused=True)
        for w, g in zip(want, got):
            assert (w is None) == (g is None)
            if w is not None:
                _compare(w, g, False, torch.float64, f"{op.name} gradient")
        n += 1
    _report(op)
    assert n > 0


def test_gradcheck_with_enable():
    gen = torch.Generator().manual_seed(3)
    x = torch.rand(1, 2, 4, 5, dtype=torch.float64, generator=gen, requires_grad=True)
    g = (torch.rand(1, 3, 3, 2, dtype=torch.float64, generator=gen) * 2.4 - 1.2).requires_grad_()
    theta = torch.rand(1, 2, 3, dtype=torch.float64, generator=gen, requires_grad=True)
    v = torch.rand(1, 2, 3, 4, 3, dtype=torch.float64, generator=gen, requires_grad=True)
    g3 = (torch.rand(1, 2, 2, 2, 3, dtype=torch.float64, generator=gen) * 2 - 1).requires_grad_()
    gt.reset_fallback_counts()
    with gt.enabled(**ALL):
        for mode in ("bilinear", "bicubic", "nearest"):
            for pad in ("zeros", "border", "reflection"):
                assert torch.autograd.gradcheck(
                    lambda a, b: F.grid_sample(a, b, mode, pad, align_corners=False), (x, g))
        assert torch.autograd.gradcheck(
            lambda a, b: F.grid_sample(a, b, "bilinear", "border", align_corners=True), (v, g3))
        assert torch.autograd.gradcheck(
            lambda t: F.affine_grid(t, [1, 2, 4, 5], align_corners=False), (theta,))
        assert torch.autograd.gradgradcheck(
            lambda t: F.affine_grid(t, [1, 2, 4, 5], align_corners=True), (theta,))
        assert torch.autograd.gradcheck(
            lambda a: F.interpolate(a, size=(7, 3), mode="bilinear"), (x,))
        assert torch.autograd.gradcheck(lambda a: F.pad(a, (1, 2, 2, 1), mode="reflect"), (x,))
        assert torch.autograd.gradgradcheck(lambda a: F.pad(a, (1, 2, 2, 1), mode="replicate"), (x,))
    served = gt.served_counts()
    for name in ("grid_sampler_2d", "grid_sampler_2d_backward", "grid_sampler_3d",
                 "grid_sampler_3d_backward", "affine_grid_generator", "upsample_bilinear2d",
                 "reflection_pad2d", "reflection_pad2d_backward",
                 "replication_pad2d", "replication_pad2d_backward"):
        assert served.get("aten::" + name, 0) > 0, name
    assert not gt.fallback_counts()


def test_enable_nests_and_disable_gives_pytorch_back():
    x = torch.rand(1, 1, 4, 4)
    g = torch.zeros(1, 2, 2, 2)
    gt.reset_fallback_counts()
    assert not gt.is_enabled()
    gt.enable(**ALL)
    gt.enable(**ALL)
    with pytest.raises(ValueError, match="other settings"):
        gt.enable()
    gt.disable()
    assert gt.is_enabled()
    F.grid_sample(x, g, align_corners=False)
    gt.disable()
    assert not gt.is_enabled()
    F.grid_sample(x, g, align_corners=False)
    assert gt.served_counts() == {"aten::grid_sampler_2d": 1}
    gt.disable()  # an extra disable() is harmless
    with gt.enabled(**ALL):
        assert gt.is_enabled()
    assert not gt.is_enabled()


def test_scripted_and_traced_code_reaches_gridops():
    @torch.jit.script
    def warp(x: torch.Tensor, g: torch.Tensor) -> torch.Tensor:
        return F.pad(F.grid_sample(x, g, "bilinear", "zeros", False), [1, 1, 1, 1])

    x = torch.rand(2, 3, 5, 5)
    g = torch.rand(2, 4, 4, 2) * 2 - 1
    traced = torch.jit.trace(lambda a: F.interpolate(a, scale_factor=2.0, mode="nearest"), (x,))
    want = (warp(x, g), traced(x))
    gt.reset_fallback_counts()
    with gt.enabled(**ALL):
        got = (warp(x, g), traced(x))
    assert torch.allclose(want[0], got[0], atol=1e-6) and torch.equal(want[1], got[1])
    served = gt.served_counts()
    assert served.get("aten::grid_sampler_2d") == 1 and served.get("aten::constant_pad_nd") == 1
    assert served.get("aten::upsample_nearest2d") == 1


def test_declined_calls_run_pytorch_and_are_named(capfd, monkeypatch):
    monkeypatch.setenv("GRIDOPS_VERBOSE", "dispatch")
    gt.reset_fallback_counts()
    x = torch.rand(1, 1, 4, 4)
    with gt.enabled(**ALL):
        with pytest.raises(RuntimeError):  # PyTorch's own error: dtypes differ
            F.grid_sample(x, torch.zeros(1, 2, 2, 2, dtype=torch.float64), align_corners=False)
        z = F.pad(torch.arange(6).reshape(2, 3), (1, 1), value=2.5)  # not exact in int64
        assert z.tolist() == [[2, 0, 1, 2, 2], [2, 3, 4, 5, 2]]
        m = F.interpolate(torch.rand(1, 1, 3, device="meta"), size=5)  # not a CPU tensor
        assert m.device.type == "meta" and m.shape == (1, 1, 5)
    falls = gt.fallback_counts()
    assert any(name == "aten::grid_sampler_2d" and "dtype" in why for name, why in falls)
    assert any(name == "aten::constant_pad_nd" and "not exact" in why for name, why in falls)
    assert any(name == "aten::upsample_nearest1d" and "CPU" in why for name, why in falls)
    err = capfd.readouterr().err
    assert "[gridops] torch: aten::constant_pad_nd: running PyTorch's kernel (value 2.5" in err


def test_channels_last_and_non_contiguous_keep_pytorch_layout():
    gen = torch.Generator().manual_seed(9)
    x = torch.rand(2, 3, 6, 7, generator=gen).contiguous(memory_format=torch.channels_last)
    v = torch.rand(1, 2, 4, 5, 6, generator=gen).contiguous(memory_format=torch.channels_last_3d)
    t = torch.rand(3, 8, 9, generator=gen)[:, ::2, 1:]
    grid = torch.rand(2, 3, 3, 2, generator=gen) * 2 - 1
    cases = [
        lambda: F.interpolate(x, size=(9, 4), mode="bilinear"),
        lambda: F.interpolate(x, scale_factor=2, mode="nearest"),
        lambda: F.interpolate(v, size=(5, 3, 8), mode="trilinear"),
        lambda: F.pad(x, (1, 2, 0, 3)),
        lambda: F.pad(x, (1, 2, 0, 3), mode="reflect"),
        lambda: F.pad(t, (2, 1), mode="replicate"),
        lambda: F.grid_sample(x, grid, align_corners=True),
        lambda: torch.index_select(t, 1, torch.tensor([2, 0, 1])),
    ]
    for i, case in enumerate(cases):
        want = case()
        with gt.enabled(**ALL):
            got = case()
        assert want.stride() == got.stride(), i
        assert torch.allclose(want, got, atol=1e-6), i


def test_results_do_not_depend_on_the_thread_count():
    gen = torch.Generator().manual_seed(11)
    x = torch.rand(2, 8, 33, 35, dtype=torch.float32, generator=gen, requires_grad=True)
    g = (torch.rand(2, 40, 30, 2, generator=gen) * 2.2 - 1.1).requires_grad_()
    w = torch.rand(2, 8, 40, 30, generator=gen)

    def step():
        y = F.grid_sample(x, g, "bilinear", "reflection", align_corners=False)
        gx, gg = torch.autograd.grad((y * w).sum(), (x, g))
        up = F.interpolate(x.detach(), size=(70, 20), mode="bicubic")
        return y.detach(), gx, gg, up

    before = torch.get_num_threads()
    try:
        with gt.enabled(**ALL):
            torch.set_num_threads(1)
            one = step()
            torch.set_num_threads(2)
            two = step()
    finally:
        torch.set_num_threads(before)
    for a, b in zip(one, two):
        assert torch.equal(a, b)


def test_expanded_and_strided_inputs_are_read_in_place():
    gen = torch.Generator().manual_seed(12)
    row = torch.rand(1, 3, 1, 9, generator=gen)
    wide = row.expand(2, 3, 7, 9)  # zero strides
    step = torch.rand(2, 3, 14, 18, generator=gen)[:, :, ::2, ::2]
    grid = (torch.rand(1, 5, 5, 2, generator=gen) * 2 - 1).expand(2, 5, 5, 2)
    cases = [
        lambda t: F.pad(t, (2, 1, 1, 3), value=-1.0),
        lambda t: F.pad(t, (2, 1, 1, 3), mode="reflect"),
        lambda t: F.interpolate(t, size=(11, 4), mode="bilinear", align_corners=True),
        lambda t: F.interpolate(t, size=(11, 4), mode="nearest"),
        lambda t: F.grid_sample(t, grid, "bicubic", "border", align_corners=False),
        lambda t: torch.index_select(t, 3, torch.tensor([8, 0, 4])),
    ]
    gt.reset_fallback_counts()
    for t in (wide, step):
        for i, case in enumerate(cases):
            want = case(t)
            with gt.enabled(**ALL):
                got = case(t)
            assert want.stride() == got.stride(), i
            assert torch.allclose(want, got, rtol=1e-5, atol=1e-6), i
    assert not gt.fallback_counts()


def test_upsample_gradients_keep_the_memory_format():
    gen = torch.Generator().manual_seed(13)
    for x in (torch.rand(2, 3, 6, 7, dtype=torch.float64, generator=gen)
              .contiguous(memory_format=torch.channels_last),
              torch.rand(1, 2, 4, 5, 3, dtype=torch.float64, generator=gen)
              .contiguous(memory_format=torch.channels_last_3d)):
        for mode in ("bilinear" if x.dim() == 4 else "trilinear", "nearest-exact"):
            a = x.clone().requires_grad_()
            size = [9, 4] if x.dim() == 4 else [5, 3, 7]
            y = F.interpolate(a, size=size, mode=mode)
            w = torch.rand(y.shape, dtype=y.dtype, generator=gen)
            want, = torch.autograd.grad(y, a, w)
            gt.reset_fallback_counts()
            with gt.enabled(**ALL):
                got, = torch.autograd.grad(F.interpolate(a, size=size, mode=mode), a, w)
            assert sum(gt.served_counts().values()) == 2 and not gt.fallback_counts()
            assert want.stride() == got.stride()
            assert torch.allclose(want, got, rtol=0, atol=1e-12)


def test_default_policy_serves_large_calls_of_the_measured_operators():
    default = set(gt.covered_operators())
    assert {"aten::grid_sampler_2d", "aten::upsample_bicubic2d", "aten::index_select"} <= default
    assert "aten::constant_pad_nd" not in default and "aten::upsample_linear1d" not in default
    assert set(gt.covered_operators("all")) > default
    gen = torch.Generator().manual_seed(14)
    small = torch.rand(1, 1, 4, 4, generator=gen)
    big = torch.rand(1, 16, 64, 64, generator=gen)
    grid = torch.rand(1, 64, 64, 2, generator=gen) * 2 - 1
    gt.reset_fallback_counts()
    with gt.enabled():
        F.grid_sample(small, torch.zeros(1, 2, 2, 2), align_corners=False)
        F.grid_sample(big, grid, align_corners=False)
        F.pad(big, (1, 1))  # constant_pad_nd: not registered by default
    assert gt.served_counts() == {"aten::grid_sampler_2d": 1}
    (name, why), = gt.fallback_counts()
    assert name == "aten::grid_sampler_2d" and "a small call (4 output elements < 16384)" in why
    # nearest: served on Resample's path (x2: its index map is PyTorch's), not on Resize's
    img = torch.rand(1, 4, 256, 256, generator=gen)
    gt.reset_fallback_counts()
    with gt.enabled():
        F.interpolate(img, scale_factor=2.0, mode="nearest")
        F.interpolate(img, size=(384, 384), mode="nearest")  # legacy x1.5: Resize's path
    assert gt.served_counts() == {"aten::upsample_nearest2d": 1}
    (name, why), = gt.fallback_counts()
    assert why == "nearest on Resize: PyTorch's kernel is faster at every size measured"
    with pytest.raises(ValueError, match="min_elements"):
        gt.enable(min_elements=-1)
    with pytest.raises(ValueError, match="does not cover"):
        gt.enable(ops=["aten::conv2d"])
    assert not gt.is_enabled()


@pytest.mark.parametrize("mode", ["nearest", "nearest-exact"])
def test_nearest_is_bit_identical_for_every_size_and_scale(mode):
    """Sizes and scale factors where float32 rounding decides the source index: each axis
    either runs gridops' Resample or Resize (whose index map is checked against PyTorch's
    rule first) or is declined; the result is always PyTorch's, bit for bit."""
    gen = torch.Generator().manual_seed(15)
    gt.reset_fallback_counts()
    for n_in in (1, 3, 5, 7, 10, 13):
        x = torch.rand(2, 3, n_in, n_in + 2, generator=gen)
        for spec in (dict(size=(n_in * 2, 11)), dict(size=(3, 2 * n_in + 1)),
                     dict(scale_factor=(1.7, 0.6)), dict(scale_factor=(3.0, 2.5)),
                     dict(scale_factor=1 / 3)):
            for t in (x, x.contiguous(memory_format=torch.channels_last), x.bfloat16(),
                      x.bfloat16().contiguous(memory_format=torch.channels_last)):
                try:
                    want = F.interpolate(t, mode=mode, **spec)
                except RuntimeError as e:  # an empty output; bfloat16 channels_last
                    with gt.enabled(**ALL), pytest.raises(RuntimeError, match=str(e)[:30]):
                        F.interpolate(t, mode=mode, **spec)
                    continue
                with gt.enabled(**ALL):
                    got = F.interpolate(t, mode=mode, **spec)
                assert want.stride() == got.stride(), (n_in, spec)
                assert torch.equal(want, got), (n_in, spec, t.dtype)
    assert sum(gt.served_counts().values()) > 0


def test_upsample_backwards_on_resizes_adjoint_pass_gradcheck():
    """The backwards Resample does not have (bicubic, antialiased, align_corners=True, legacy
    nearest, given scales) run on Resize's adjoint: gradcheck in float64, every call served."""
    gen = torch.Generator().manual_seed(5)
    x = torch.rand(2, 3, 7, 9, dtype=torch.float64, generator=gen).requires_grad_()
    gt.reset_fallback_counts()
    with gt.enabled(**ALL):
        for mode, kw in [("bicubic", dict(align_corners=False)),
                         ("bicubic", dict(align_corners=True)),
                         ("bilinear", dict(align_corners=True)),
                         ("bilinear", dict(antialias=True, align_corners=False)),
                         ("bicubic", dict(antialias=True, align_corners=False)),
                         ("nearest", {}), ("nearest-exact", {})]:
            for size in [(13, 5), (4, 4)]:
                assert torch.autograd.gradcheck(
                    lambda a: F.interpolate(a, size=size, mode=mode, **kw), (x,)), (mode, kw, size)
        assert torch.autograd.gradcheck(lambda a: F.interpolate(
            a, scale_factor=(1.7, 0.6), mode="bicubic", align_corners=False), (x,))
    served = gt.served_counts()
    for name in ("upsample_bicubic2d_backward", "upsample_bilinear2d_backward",
                 "_upsample_bilinear2d_aa_backward", "_upsample_bicubic2d_aa_backward",
                 "upsample_nearest2d_backward", "_upsample_nearest_exact2d_backward"):
        assert served.get("aten::" + name, 0) > 0, name
    assert not gt.fallback_counts()


def test_default_policy_serves_large_backwards_with_expanded_gradients():
    """The backward of a .sum() gets an expanded (zero-stride) grad_output: served all the
    same (made contiguous first, as PyTorch's kernels do), with PyTorch's result."""
    gen = torch.Generator().manual_seed(3)
    x = torch.rand(1, 8, 96, 96, generator=gen).requires_grad_()  # above both thresholds
    (want,) = torch.autograd.grad(F.interpolate(x, scale_factor=2.0, mode="bilinear").sum(), x)
    (want_pad,) = torch.autograd.grad(F.pad(x, (2, 2, 2, 2), mode="reflect").sum(), x)
    gt.reset_fallback_counts()
    with gt.enabled():
        (got,) = torch.autograd.grad(F.interpolate(x, scale_factor=2.0, mode="bilinear").sum(), x)
        (got_pad,) = torch.autograd.grad(F.pad(x, (2, 2, 2, 2), mode="reflect").sum(), x)
    served = gt.served_counts()
    assert served.get("aten::upsample_bilinear2d_backward", 0) == 1
    assert served.get("aten::reflection_pad2d_backward", 0) == 1
    torch.testing.assert_close(got, want, rtol=0, atol=1e-5 * (1 + want.abs().max().item()))
    assert torch.equal(got_pad, want_pad)
