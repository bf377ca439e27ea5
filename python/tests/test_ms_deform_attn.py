"""gridops.ms_deform_attn against the pure-PyTorch multi-scale deformable attention core
(written here from its definition: F.grid_sample per level, then the weighted sum), forward
and the three gradients; gradcheck; determinism; errors."""

import numpy as np
import pytest
import torch
import torch.nn.functional as F

import gridops
import gridops.torch as gt


def core(value, spatial_shapes, sampling_locations, attention_weights):
    n, _, m, d = value.shape
    _, lq, _, levels, points, _ = sampling_locations.shape
    value_list = value.split([h * w for h, w in spatial_shapes], dim=1)
    grids = 2 * sampling_locations - 1
    samples = []
    for lid, (h, w) in enumerate(spatial_shapes):
        value_l = value_list[lid].flatten(2).transpose(1, 2).reshape(n * m, d, h, w)
        grid_l = grids[:, :, :, lid].transpose(1, 2).flatten(0, 1)
        samples.append(F.grid_sample(value_l, grid_l, mode="bilinear", padding_mode="zeros",
                                     align_corners=False))
    weights = attention_weights.transpose(1, 2).reshape(n * m, 1, lq, levels * points)
    out = (torch.stack(samples, dim=-2).flatten(-2) * weights).sum(-1).view(n, m * d, lq)
    return out.transpose(1, 2).contiguous()


def problem(gen, dtype, shapes, n=2, m=3, d=5, lq=7, p=4, spread=(-0.1, 1.1)):
    s = sum(h * w for h, w in shapes)
    starts = np.cumsum([0] + [h * w for h, w in shapes[:-1]]).tolist()
    value = torch.randn(n, s, m, d, dtype=dtype, generator=gen)
    lo, hi = spread
    loc = torch.rand(n, lq, m, len(shapes), p, 2, dtype=dtype, generator=gen) * (hi - lo) + lo
    att = torch.rand(n, lq, m, len(shapes), p, dtype=dtype, generator=gen)
    return value, starts, loc, att


@pytest.mark.parametrize("seed", range(6))
def test_matches_the_pytorch_core_forward_and_gradients(seed):
    gen = torch.Generator().manual_seed(seed)
    shapes = [[(6, 7), (3, 4), (2, 1)], [(8, 8), (4, 4), (2, 2), (1, 1)], [(5, 3)]][seed % 3]
    for dtype, tol in ((torch.float64, 1e-12), (torch.float32, 2e-5)):
        value, starts, loc, att = problem(gen, dtype, shapes)
        v1, l1, a1 = (t.clone().requires_grad_() for t in (value, loc, att))
        v2, l2, a2 = (t.clone().requires_grad_() for t in (value, loc, att))
        want = core(v1, shapes, l1, a1)
        got = gt.ms_deform_attn(v2, shapes, starts, l2, a2)
        scale = 1 + want.abs().max().item()
        torch.testing.assert_close(got, want, rtol=0, atol=tol * scale)
        g = torch.randn(want.shape, dtype=dtype, generator=gen)
        for a, b in zip(torch.autograd.grad(got, (v2, l2, a2), g),
                        torch.autograd.grad(want, (v1, l1, a1), g)):
            torch.testing.assert_close(a, b, rtol=0, atol=tol * 10 * (1 + b.abs().max().item()))


def test_gradcheck_and_points_on_borders_and_outside():
    gen = torch.Generator().manual_seed(7)
    shapes = [(4, 5), (2, 3)]
    value, starts, loc, att = problem(gen, torch.float64, shapes, n=1, m=2, d=3, lq=3, p=2,
                                      spread=(-0.3, 1.3))
    args = tuple(t.requires_grad_() for t in (value, loc, att))
    assert torch.autograd.gradcheck(
        lambda v, l, a: gt.ms_deform_attn(v, shapes, starts, l, a), args)


def test_nan_locations_sample_zero_like_grid_sample():
    gen = torch.Generator().manual_seed(3)
    shapes = [(4, 4), (2, 2)]
    value, starts, loc, att = problem(gen, torch.float64, shapes)
    loc[0, 1, 0, 0, 0, 0] = float("nan")
    loc[1, 2, 1, 1, 3, 1] = float("inf")
    got = gridops.ms_deform_attn(value, shapes, starts, loc, att)
    assert torch.isfinite(got).all()
    ok = loc.clone()
    att2 = att.clone()
    att2[0, 1, 0, 0, 0] = 0  # the NaN point contributes nothing
    att2[1, 2, 1, 1, 3] = 0
    ok[0, 1, 0, 0, 0, 0] = 0.5
    ok[1, 2, 1, 1, 3, 1] = 0.5
    torch.testing.assert_close(got, gridops.ms_deform_attn(value, shapes, starts, ok, att2),
                               rtol=0, atol=1e-12)


def test_numpy_inputs_threads_and_deterministic_backward():
    gen = torch.Generator().manual_seed(11)
    shapes = [(16, 16), (8, 8)]
    value, starts, loc, att = problem(gen, torch.float32, shapes, n=1, m=4, d=8, lq=50)
    out = gridops.ms_deform_attn(value.numpy(), np.array(shapes), np.array(starts), loc.numpy(),
                                 att.numpy())
    assert isinstance(out, np.ndarray) and out.shape == (1, 50, 32)
    np.testing.assert_array_equal(out, gridops.ms_deform_attn(value, shapes, starts, loc, att).numpy())
    g = torch.randn(1, 50, 32, generator=gen)
    runs = []
    for threads in (1, 2, 3):
        with gridops.num_threads(threads):
            runs.append(gridops.ms_deform_attn_backward(g, value, shapes, starts, loc, att))
    for r in runs[1:]:
        for a, b in zip(r, runs[0]):
            assert torch.equal(a, b)
    gv, gl, ga = gridops.ms_deform_attn_backward(g, value, shapes, starts, loc, att,
                                                 value_grad=False, weights_grad=False)
    assert gv is None and ga is None and torch.equal(gl, runs[0][1])


def test_errors_name_the_argument():
    value = torch.zeros(1, 20, 2, 4)
    loc = torch.zeros(1, 3, 2, 2, 2, 2)
    att = torch.zeros(1, 3, 2, 2, 2)
    with pytest.raises(ValueError, match="level 1 .* must lie inside value's 20 rows"):
        gridops.ms_deform_attn(value, [(4, 4), (2, 3)], [0, 16], loc, att)
    with pytest.raises(ValueError, match="attention_weights"):
        gridops.ms_deform_attn(value, [(4, 4), (2, 2)], [0, 16], loc, att[..., :1])
    with pytest.raises(ValueError, match="sampling_locations must be"):
        gridops.ms_deform_attn(value, [(4, 4), (2, 2)], [0, 16], loc[0], att)
    with pytest.raises(ValueError, match=r"value must be \(N, S, M, D\)"):
        gridops.ms_deform_attn(value[0], [(4, 4), (2, 2)], [0, 16], loc, att)
    with pytest.raises(ValueError, match="float32 or float64"):
        gridops.ms_deform_attn(value.half(), [(4, 4), (2, 2)], [0, 16], loc.half(), att.half())
