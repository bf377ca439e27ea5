"""torch.ops.gridops.*: the dispatcher operators for what PyTorch lacks (N-D and tricubic
GridSample, fused AffineWarp, symmetric/wrap Pad), with autograd (gradcheck), from eager,
scripted and traced code."""

import pytest
import torch
import torch.nn.functional as F

import gridops
import gridops.torch  # noqa: F401  (defines torch.ops.gridops.*)

ops = torch.ops.gridops


def _gen(seed):
    return torch.Generator().manual_seed(seed)


def test_grid_sample_matches_f_grid_sample_and_gridops_in_every_rank():
    gen = _gen(1)
    x = torch.rand(2, 3, 5, 6, dtype=torch.float64, generator=gen)
    g = torch.rand(2, 4, 3, 2, dtype=torch.float64, generator=gen) * 2.4 - 1.2
    for mode in ("bilinear", "nearest", "bicubic"):
        for pad in ("zeros", "border", "reflection"):
            want = F.grid_sample(x, g, mode, pad, align_corners=True)
            assert torch.allclose(ops.grid_sample(x, g, mode, pad, True), want, atol=1e-12)
    for rank in (1, 3, 4):  # 1-D and 4-D: PyTorch has none; 3-D bicubic: PyTorch has none
        xs = torch.rand(1, 2, *([4] * rank), dtype=torch.float64, generator=gen)
        gs = torch.rand(1, *([3] * rank), rank, dtype=torch.float64, generator=gen) * 2 - 1
        want = gridops.grid_sample(xs, gs, "bicubic", "border", False)
        assert torch.equal(ops.grid_sample(xs, gs, "bicubic", "border", False), want)


def test_grid_sample_gradients_in_2d_3d_and_4d():
    gen = _gen(2)
    for rank in (2, 3, 4):
        x = torch.rand(1, 2, *([3] * rank), dtype=torch.float64, generator=gen,
                       requires_grad=True)
        g = (torch.rand(1, *([2] * rank), rank, dtype=torch.float64, generator=gen) * 1.8
             - 0.9).requires_grad_()
        for mode in ("bilinear", "bicubic"):
            assert torch.autograd.gradcheck(
                lambda a, b: ops.grid_sample(a, b, mode, "border", False), (x, g)), (rank, mode)


def test_affine_warp_is_the_fused_composition_with_its_gradient():
    gen = _gen(3)
    x = torch.rand(2, 2, 5, 6, dtype=torch.float64, generator=gen, requires_grad=True)
    theta = (torch.tensor([[[0.9, -0.1, 0.05], [0.2, 1.1, -0.1]]], dtype=torch.float64)
             + torch.rand(2, 2, 3, dtype=torch.float64, generator=gen) * 0.01).requires_grad_()
    ref = F.grid_sample(x, F.affine_grid(theta, [2, 2, 7, 4], align_corners=False),
                        align_corners=False)
    with torch.no_grad():
        fused = ops.affine_warp(x, theta, [7, 4], "bilinear", "zeros", False)
    assert torch.allclose(fused, ref, atol=1e-12)
    assert torch.autograd.gradcheck(
        lambda a, t: ops.affine_warp(a, t, [7, 4], "bilinear", "zeros", False), (x, theta))
    v = torch.rand(1, 1, 4, 4, 4, dtype=torch.float64, generator=gen)
    t3 = torch.eye(3, 4, dtype=torch.float64)[None] * 0.93
    want = gridops.affine_warp(v, t3, [3, 5, 4], "bicubic", "reflection", True)  # tricubic
    assert torch.equal(ops.affine_warp(v, t3, [3, 5, 4], "bicubic", "reflection", True), want)


@pytest.mark.parametrize("mode", ["constant", "replicate", "reflect", "symmetric", "circular"])
def test_pad_modes_and_their_exact_adjoint(mode):
    gen = _gen(4)
    x = torch.rand(1, 2, 4, 5, dtype=torch.float64, generator=gen, requires_grad=True)
    pads = [2, 3, -1, 2]
    f = lambda a: ops.pad(a, pads, mode, 1.5)  # noqa: E731
    assert torch.autograd.gradcheck(f, (x,)) and torch.autograd.gradgradcheck(f, (x,))
    want = gridops.pad(x.detach(), pads, mode, 1.5 if mode == "constant" else None,
                       order="torch")
    assert torch.equal(f(x).detach(), want)
    if mode in ("constant", "replicate", "reflect"):  # F.pad agrees (circular: see below)
        kw = dict(value=1.5) if mode == "constant" else {}
        assert torch.equal(F.pad(x.detach(), pads, mode=mode, **kw), want)


def test_circular_with_a_negative_pad_is_periodic_in_the_input():
    # gridops' wrap (ONNX): period = the input's length; F.pad's circular crops first.
    x = torch.arange(5.0).reshape(1, 1, 5)
    assert ops.pad(x, [-1, 2], "circular").tolist() == [[[1.0, 2.0, 3.0, 4.0, 0.0, 1.0]]]
    assert F.pad(x, (-1, 2), mode="circular").tolist() == [[[1.0, 2.0, 3.0, 4.0, 1.0, 2.0]]]


def test_scripted_and_traced_calls():
    gen = _gen(5)
    v = torch.rand(1, 2, 3, 4, 5, generator=gen)
    g = torch.rand(1, 2, 2, 2, 3, generator=gen) * 2 - 1

    @torch.jit.script
    def tricubic(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return ops.grid_sample(a, b, "bicubic", "zeros", False, "channels_first")

    assert torch.equal(tricubic(v, g), gridops.grid_sample(v, g, "bicubic", "zeros", False))
    traced = torch.jit.trace(lambda a: ops.pad(a, [1, 1], "symmetric", 0.0), (v,))
    assert torch.equal(traced(v), gridops.pad(v, [1, 1], "symmetric", order="torch"))


def test_bad_arguments_are_gridops_errors():
    x = torch.rand(1, 1, 4, 4)
    with pytest.raises(ValueError, match="mode"):
        ops.grid_sample(x, torch.zeros(1, 2, 2, 2), "trilinearish", "zeros", False)
    with pytest.raises(ValueError, match="reflect"):
        ops.pad(x, [4, 4], "reflect", 0.0)
