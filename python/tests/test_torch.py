"""gridops.torch: grid_sample and affine_grid as autograd functions. Oracles: finite
differences (torch.autograd.gradcheck in float64) and torch.nn.functional.grid_sample /
affine_grid with their autograd."""

import os
import subprocess
import sys

import numpy as np
import pytest
import torch
import torch.nn.functional as F

import gridops
import gridops.torch as gt

MODES = ["bilinear", "nearest", "bicubic"]
PADDINGS = ["zeros", "border", "reflection"]


def safe_grid(rng, n, in_spatial, out_spatial, align):
    """A float64 grid whose unnormalized coordinates lie in [-2, L+2) with fractional parts in
    [0.15, 0.35] or [0.65, 0.85]: away from the integers (tap boundaries, border clipping,
    reflection folds with align_corners), the half-integers (nearest's rounding, reflection
    folds without align_corners), and with points outside the input for the padding."""
    r = len(in_spatial)
    g = np.empty((n,) + tuple(out_spatial) + (r,))
    for k in range(r):
        length = in_spatial[r - 1 - k]  # grid[..., 0] is the innermost axis
        shape = (n,) + tuple(out_spatial)
        whole = rng.integers(-2, length + 2, shape)
        frac = rng.uniform(0.15, 0.35, shape) + 0.5 * rng.integers(0, 2, shape)
        x = whole + frac
        g[..., k] = 2 * x / (length - 1) - 1 if align else (2 * x + 1) / length - 1
    return torch.from_numpy(g)


CASES_2D = dict(n=2, c=2, in_spatial=(3, 4), out_spatial=(2, 3))
CASES_3D = dict(n=1, c=2, in_spatial=(3, 3, 4), out_spatial=(2, 2, 2))


@pytest.mark.parametrize("rank", [2, 3])
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("padding", PADDINGS)
@pytest.mark.parametrize("align", [False, True])
def test_gradcheck_grid_sample(rng, rank, mode, padding, align):
    # every mode x padding x align_corners in 2-D and 3-D (bicubic in 3-D: gridops only)
    case = CASES_2D if rank == 2 else CASES_3D
    x = torch.from_numpy(rng.standard_normal((case["n"], case["c"]) + case["in_spatial"])).requires_grad_()
    g = safe_grid(rng, case["n"], case["in_spatial"], case["out_spatial"], align).requires_grad_()

    def f(x, g):
        return gt.grid_sample(x, g, mode, padding, align)

    assert torch.autograd.gradcheck(f, (x, g), eps=1e-6, atol=1e-7, rtol=1e-5)
    if mode == "nearest":  # piecewise constant: zero grid gradient
        (gg,) = torch.autograd.grad(f(x, g).sum(), g)
        assert gg.abs().max().item() == 0


def test_gradcheck_other_ranks_and_channels_last(rng):
    x = torch.from_numpy(rng.standard_normal((2, 3, 7))).requires_grad_()  # 1-D
    g = safe_grid(rng, 2, (7,), (5,), False).requires_grad_()
    for mode in ("linear", "cubic"):
        assert torch.autograd.gradcheck(lambda x, g: gt.grid_sample(x, g, mode, "reflection"), (x, g),
                                        eps=1e-6, atol=1e-7, rtol=1e-5)
    # layout="channels_last": input (N, H, W, C), output (N, H_out, W_out, C)
    x = torch.from_numpy(rng.standard_normal((1, 3, 4, 2))).requires_grad_()
    g = safe_grid(rng, 1, (3, 4), (2, 2), True).requires_grad_()
    assert torch.autograd.gradcheck(
        lambda x, g: gt.grid_sample(x, g, "bicubic", "border", True, layout="channels_last"), (x, g),
        eps=1e-6, atol=1e-7, rtol=1e-5)
    y = gt.grid_sample(x, g, "bilinear", "zeros", True, layout="channels_last")
    ref = F.grid_sample(x.permute(0, 3, 1, 2), g, "bilinear", "zeros", True).permute(0, 2, 3, 1)
    torch.testing.assert_close(y, ref, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("rank", [2, 3])
@pytest.mark.parametrize("align", [False, True])
def test_gradcheck_affine_grid_and_the_chain(rng, rank, align):
    size = (2, 2, 3, 4) if rank == 2 else (1, 2, 2, 3, 4)
    theta = torch.from_numpy(np.eye(rank, rank + 1) + 0.1 * rng.standard_normal((size[0], rank, rank + 1)))
    theta.requires_grad_()
    assert torch.autograd.gradcheck(lambda t: gt.affine_grid(t, size, align), (theta,))
    # linear, so derivatives of any order (the backward is itself an autograd function)
    assert torch.autograd.gradgradcheck(lambda t: gt.affine_grid(t, size, align), (theta,))
    # theta -> affine_grid -> grid_sample, gradients to theta and the input
    x = torch.from_numpy(rng.standard_normal(size)).requires_grad_()
    assert torch.autograd.gradcheck(
        lambda t, x: gt.grid_sample(x, gt.affine_grid(t, size, align), "bicubic", "border", align),
        (theta, x), eps=1e-6, atol=1e-7, rtol=1e-5)


def torch_mode(mode):
    return {"linear": "bilinear", "cubic": "bicubic"}.get(mode, mode)


# PyTorch has no 3-D bicubic (gridops' is covered by the gradcheck test)
@pytest.mark.parametrize("dims,mode", [((2, 3, 6, 7), m) for m in MODES] +
                         [((2, 2, 4, 5, 3), m) for m in MODES if m != "bicubic"])
@pytest.mark.parametrize("padding", PADDINGS)
@pytest.mark.parametrize("align", [False, True])
def test_values_match_torch(rng, dims, mode, padding, align):
    """Forward and both gradients against F.grid_sample and its autograd, float64 and float32,
    random coordinates in [-1.2, 1.2] (some outside the input). Tolerance, absolute, times
    (1 + the largest magnitude of PyTorch's tensor): float64 1e-12 (seen: 1.2e-15; both sum in
    double, in different orders), float32 1e-5 (seen: 1.2e-6; gridops' fast path and PyTorch
    both compute in float)."""
    r = len(dims) - 2
    x0 = rng.standard_normal(dims)
    g0 = rng.uniform(-1.2, 1.2, (dims[0],) + tuple(d + 1 for d in dims[2:]) + (r,))
    gy0 = None
    for dtype, tol in ((torch.float64, 1e-12), (torch.float32, 1e-5)):
        results = []
        for fn in (gt.grid_sample, F.grid_sample):
            x = torch.from_numpy(x0).to(dtype).requires_grad_()
            g = torch.from_numpy(g0).to(dtype).requires_grad_()
            y = fn(x, g, mode, padding, align)
            if gy0 is None:
                gy0 = rng.standard_normal(tuple(y.shape))
            y.backward(torch.from_numpy(gy0).to(dtype))
            results.append((y.detach(), x.grad, g.grad))
        for ours, ref in zip(results[0], results[1]):
            assert ours.dtype == dtype and ours.shape == ref.shape
            torch.testing.assert_close(ours, ref, rtol=0, atol=tol * (1 + ref.abs().max().item()))


@pytest.mark.parametrize("size", [(3, 2, 5, 6), (2, 3, 4, 5, 3)])
@pytest.mark.parametrize("align", [False, True, None])
def test_affine_grid_matches_torch(rng, size, align):
    r = len(size) - 2
    t0 = rng.standard_normal((size[0], r, r + 1))
    ours_t = torch.from_numpy(t0).requires_grad_()
    ref_t = torch.from_numpy(t0).requires_grad_()
    ours = gt.affine_grid(ours_t, torch.Size(size), align)
    ref = F.affine_grid(ref_t, list(size), bool(align))
    torch.testing.assert_close(ours, ref, rtol=1e-12, atol=1e-12)
    gg = torch.from_numpy(rng.standard_normal(tuple(ref.shape)))
    ours.backward(gg)
    ref.backward(gg)
    torch.testing.assert_close(ours_t.grad, ref_t.grad, rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("want", [(True, False), (False, True), (True, True)])
def test_only_the_needed_gradients_are_computed(rng, monkeypatch, want):
    calls = []
    real = gt._grid_sample_backward

    def spy(*args, **kwargs):
        calls.append((kwargs["input_grad"], kwargs["grid_grad"]))
        return real(*args, **kwargs)

    monkeypatch.setattr(gt, "_grid_sample_backward", spy)
    x = torch.from_numpy(rng.standard_normal((1, 2, 4, 4))).requires_grad_(want[0])
    g = torch.from_numpy(rng.uniform(-1, 1, (1, 3, 3, 2))).requires_grad_(want[1])
    y = gt.grid_sample(x, g, "bilinear", "border", False)
    y.sum().backward()
    assert calls == [want]
    assert (x.grad is not None) == want[0] and (g.grad is not None) == want[1]
    ref_x, ref_g = x.detach().clone().requires_grad_(want[0]), g.detach().clone().requires_grad_(want[1])
    F.grid_sample(ref_x, ref_g, "bilinear", "border", False).sum().backward()
    for ours, ref in ((x.grad, ref_x.grad), (g.grad, ref_g.grad)):
        if ref is not None:
            torch.testing.assert_close(ours, ref, rtol=1e-10, atol=1e-10)
    # nothing requires grad: no graph, no backward
    calls.clear()
    y = gt.grid_sample(x.detach(), g.detach())
    assert not y.requires_grad and y.grad_fn is None and calls == []


class Warp(torch.nn.Module):
    """A learnable affine warp and a 1x1 convolution, with gridops' or PyTorch's ops."""

    def __init__(self, use_gridops):
        super().__init__()
        self.theta = torch.nn.Parameter(torch.tensor([[[0.9, 0.2, 0.05], [-0.1, 1.1, -0.05]]], dtype=torch.float64))
        self.conv = torch.nn.Conv2d(3, 2, 1).double()
        if use_gridops:
            self.grid = gt.AffineGrid(align_corners=False)
            self.sample = gt.GridSample("bilinear", "reflection", align_corners=False)
        else:
            self.grid = lambda t, s: F.affine_grid(t, s, align_corners=False)
            self.sample = lambda x, g: F.grid_sample(x, g, "bilinear", "reflection", align_corners=False)

    def forward(self, x):
        g = self.grid(self.theta.expand(x.shape[0], 2, 3), x.shape)
        return self.conv(self.sample(x, g))


def test_in_an_nn_module(rng):
    torch.manual_seed(0)
    ours = Warp(True)
    ref = Warp(False)
    ref.load_state_dict(ours.state_dict())
    assert "GridSample(mode='bilinear', padding_mode='reflection', align_corners=False)" in repr(ours)
    x = torch.from_numpy(rng.standard_normal((2, 3, 8, 9)))
    for m in (ours, ref):
        m(x).square().mean().backward()
    for (name, p), q in zip(ours.named_parameters(), ref.parameters()):
        assert p.grad is not None, name
        torch.testing.assert_close(p.grad, q.grad, rtol=1e-10, atol=1e-12, msg=name)


def test_non_contiguous_inputs_without_copies(rng):
    base = torch.from_numpy(rng.standard_normal((2, 3, 7, 6)))
    x_t = base.transpose(2, 3)  # (2, 3, 6, 7), not contiguous
    x_cl = base.transpose(2, 3).contiguous(memory_format=torch.channels_last)
    g_big = torch.from_numpy(rng.uniform(-1.1, 1.1, (2, 10, 8, 2)))
    g_s = g_big[:, ::2, 1:7]  # (2, 5, 6, 2), strided
    want = None
    for x, g in ((x_t, g_s), (x_cl, g_s), (x_t.contiguous(), g_s.contiguous())):
        x = x.detach().requires_grad_()
        g = g.detach().requires_grad_()
        copies = gridops._gridops._input_copies()
        y = gt.grid_sample(x, g, "bicubic", "reflection", True)
        y.sum().backward()  # grad_output: a zero-stride expanded tensor of ones
        assert gridops._gridops._input_copies() == copies
        got = (y.detach(), x.grad, g.grad)
        if want is None:
            want = got
            ref_x, ref_g = x.detach().clone().requires_grad_(), g.detach().clone().requires_grad_()
            ref_y = F.grid_sample(ref_x, ref_g, "bicubic", "reflection", True)
            ref_y.sum().backward()
            for a, b in zip(got, (ref_y.detach(), ref_x.grad, ref_g.grad)):
                torch.testing.assert_close(a, b, rtol=1e-9, atol=1e-9)
        else:
            for a, b in zip(got, want):
                torch.testing.assert_close(a, b, rtol=1e-12, atol=1e-12)


def test_other_dtypes(rng):
    x0 = rng.standard_normal((1, 2, 5, 5))
    g0 = rng.uniform(-1, 1, (1, 3, 3, 2))
    # input and grid of different dtypes (PyTorch requires one): each gradient in its tensor's dtype
    x = torch.from_numpy(x0).float().requires_grad_()
    g = torch.from_numpy(g0).requires_grad_()
    y = gt.grid_sample(x, g)
    assert y.dtype == torch.float32
    y.sum().backward()
    assert x.grad.dtype == torch.float32 and g.grad.dtype == torch.float64
    # bfloat16 and float16 through, gradients included, close to float64
    ref_x, ref_g = torch.from_numpy(x0).requires_grad_(), torch.from_numpy(g0).requires_grad_()
    gt.grid_sample(ref_x, ref_g).sum().backward()
    for dtype, tol in ((torch.bfloat16, 0.05), (torch.float16, 0.01)):
        x = torch.from_numpy(x0).to(dtype).requires_grad_()
        g = torch.from_numpy(g0).to(dtype).requires_grad_()
        gt.grid_sample(x, g).sum().backward()
        assert x.grad.dtype == dtype and g.grad.dtype == dtype
        torch.testing.assert_close(x.grad.double(), ref_x.grad, rtol=tol, atol=tol)
        torch.testing.assert_close(g.grad.double(), ref_g.grad, rtol=tol, atol=tol * (1 + ref_g.grad.abs().max().item()))
    # integer inputs: the forward only (no gradients for integers in torch)
    xi = torch.arange(16, dtype=torch.int32).reshape(1, 1, 4, 4)
    yi = gt.grid_sample(xi, torch.zeros(1, 1, 1, 2), "nearest", align_corners=True)
    assert yi.dtype == torch.int32 and yi.item() in (5, 6, 9, 10)


def test_errors(rng):
    x = torch.zeros(1, 2, 4, 4)
    g = torch.zeros(1, 3, 3, 2)
    with pytest.raises(TypeError, match=r"gridops.torch.grid_sample: input must be a torch.Tensor, got ndarray"):
        gt.grid_sample(x.numpy(), g)
    with pytest.raises(TypeError, match="grid must be a torch.Tensor, got list"):
        gt.grid_sample(x, [[0.0, 0.0]])
    # a non-CPU tensor (meta stands in for CUDA: same check, no GPU needed)
    with pytest.raises(ValueError, match=r"grid_sample: grid must be a CPU tensor.*device 'meta'"):
        gt.grid_sample(x, torch.zeros(1, 3, 3, 2, device="meta"))
    with pytest.raises(ValueError, match=r"affine_grid: theta must be a CPU tensor.*device 'meta'"):
        gt.affine_grid(torch.zeros(1, 2, 3, device="meta"), (1, 1, 4, 4))
    with pytest.raises(ValueError, match=r"input must be a dense \(torch.strided\) tensor, got layout torch.sparse_coo"):
        gt.grid_sample(x.to_sparse(), g)
    xc = torch.zeros(1, 2, 4, 4, dtype=torch.complex64, requires_grad=True)
    with pytest.raises(ValueError, match="input requires grad, which gridops supports for float16.*got torch.complex64"):
        gt.grid_sample(xc, g)
    with pytest.raises(ValueError, match="mode"):
        gt.grid_sample(x, g, "lanczos")
    with pytest.raises(ValueError, match="padding_mode"):
        gt.grid_sample(x, g, padding_mode="circular")
    with pytest.raises(TypeError, match="mode must be a str, got int"):
        gt.grid_sample(x, g, 1)
    with pytest.raises(ValueError, match="align_corners must be True, False or None, got 2"):
        gt.grid_sample(x, g, align_corners=2)
    with pytest.raises(ValueError, match="grid"):  # batch mismatch, from gridops
        gt.grid_sample(x, torch.zeros(2, 3, 3, 2))
    with pytest.raises(ValueError, match="size"):
        gt.affine_grid(torch.zeros(1, 2, 3), (2, 1, 4, 4))
    with pytest.raises(TypeError, match="size must be a sequence of ints"):
        gt.affine_grid(torch.zeros(1, 2, 3), torch.tensor([1, 1, 4, 4]))
    # second derivatives of grid_sample: a clear error when the backward is differentiated
    xr = torch.from_numpy(rng.standard_normal((1, 2, 4, 4))).requires_grad_()
    (gx,) = torch.autograd.grad(gt.grid_sample(xr, g.double()).square().sum(), xr, create_graph=True)
    with pytest.raises(RuntimeError, match="differentiate twice"):
        gx.sum().backward()
    # the saved inputs changed in place before backward: torch's own version check
    xr = torch.from_numpy(rng.standard_normal((1, 2, 4, 4))).requires_grad_()
    gg = g.double().requires_grad_()
    y = gt.grid_sample(xr, gg)
    with torch.no_grad():
        gg.add_(0.1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


def test_import_gridops_does_not_need_torch():
    code = ("import sys; sys.modules['torch'] = None\n"
            "import numpy as np, gridops\n"
            "y = gridops.grid_sample(np.ones((1, 1, 2, 2)), np.zeros((1, 1, 1, 2)))\n"
            "assert y.shape == (1, 1, 1, 1)\n"
            "try:\n"
            "    import gridops.torch\n"
            "except ImportError:\n"
            "    print('no torch')\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=dict(os.environ))
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "no torch"
    # and with torch, gridops.torch is reached as an attribute too
    assert gridops.torch is gt


ROOT = os.environ.get("GRIDOPS_SOURCE_DIR") or os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
EXAMPLE = os.path.join(ROOT, "examples", "python", "spatial_transformer_train.py")


def test_spatial_transformer_example_runs(monkeypatch, capsys):
    # as a script, in this process (a subprocess would spend seconds importing torch again)
    import runpy
    monkeypatch.setattr(sys, "argv", [EXAMPLE, "--steps", "2"])
    with pytest.raises(SystemExit) as e:
        runpy.run_path(EXAMPLE, run_name="__main__")
    out = capsys.readouterr().out
    assert e.value.code == 0, out
    assert out.count("step ") == 2 and "OK: gridops.torch matches PyTorch" in out


@pytest.fixture
def example_module():
    import importlib.util
    spec = importlib.util.spec_from_file_location("spatial_transformer_train", EXAMPLE)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_spatial_transformer_example_other_options_and_its_check_can_fail(example_module, monkeypatch, capsys):
    assert example_module.main(["--steps", "2", "--dtype", "float64", "--mode", "bicubic",
                                "--padding", "reflection", "--align-corners", "--batch", "4"]) == 0
    assert "OK: gridops.torch matches PyTorch" in capsys.readouterr().out
    # a grid gradient 0.1 % off must be caught
    real = gt._grid_sample_backward

    def off(*args, **kwargs):
        gi, gg = real(*args, **kwargs)
        return gi, (gg * 1.001 if gg is not None else None)

    monkeypatch.setattr(gt, "_grid_sample_backward", off)
    assert example_module.main(["--steps", "1", "--dtype", "float64", "--batch", "4"]) == 1
    assert "MISMATCH" in capsys.readouterr().out
