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
    with pytest.raises(ValueError, match="float32, float64, float16 or bfloat16, got int32"):
        gridops.ms_deform_attn(value.int(), [(4, 4), (2, 2)], [0, 16], loc.int(), att.int())


def core_with_empty_levels(value, spatial_shapes, starts, loc, att):
    """The core over the non-empty levels only (F.grid_sample cannot take an empty level;
    gridops documents that an empty level contributes nothing), reading each level's rows
    from its level_start_index."""
    keep = [i for i, (h, w) in enumerate(spatial_shapes) if h * w > 0]
    if not keep:
        n, _, m, d = value.shape
        return value.new_zeros(n, loc.shape[1], m * d)
    rows = torch.cat([value[:, starts[i]:starts[i] + spatial_shapes[i][0] * spatial_shapes[i][1]]
                      for i in keep], dim=1)
    return core(rows, [spatial_shapes[i] for i in keep], loc[:, :, :, keep], att[:, :, :, keep])


def test_thousands_of_random_problems_against_the_pytorch_core():
    """2,000 random problems: 1-4 levels (some empty, trailing value rows no level reads),
    points inside, outside [0, 1], on level borders and pixel centres, NaN and infinite;
    forward on every problem, the three gradients on every fourth."""
    rng = np.random.default_rng(2026)
    gen = torch.Generator().manual_seed(2026)
    for it in range(2000):
        dtype = torch.float64 if it % 3 == 0 else torch.float32
        levels = int(rng.integers(1, 5))
        shapes = [(0 if rng.random() < 0.1 else int(rng.integers(1, 7)), int(rng.integers(1, 7)))
                  for _ in range(levels)]
        n, m, d, lq, p = (int(rng.integers(1, 3)), int(rng.integers(1, 4)), int(rng.integers(1, 6)),
                          int(rng.integers(0, 6)), int(rng.integers(1, 4)))
        starts = np.cumsum([0] + [h * w for h, w in shapes[:-1]]).tolist()
        s = sum(h * w for h, w in shapes) + int(rng.integers(0, 3))
        value = torch.randn(n, s, m, d, dtype=dtype, generator=gen)
        loc = torch.rand(n, lq, m, levels, p, 2, dtype=dtype, generator=gen) * 1.6 - 0.3
        # Borders and centres: k / (2 L) for the level's own size.
        for lvl, (h, w) in enumerate(shapes):
            if rng.random() < 0.3 and h > 0:
                k = torch.randint(0, 2 * w + 1, (n, lq, m, p), generator=gen)
                loc[:, :, :, lvl, :, 0] = k.to(dtype) / (2 * w)
        att = torch.rand(n, lq, m, levels, p, dtype=dtype, generator=gen) * 2 - 1
        special = rng.random() < 0.2 and loc.numel() > 0
        if special:
            flat = loc.view(-1)
            idx = torch.randint(0, flat.numel(), (3,), generator=gen)
            flat[idx[0]] = float("nan")
            flat[idx[1]] = float("inf")
            flat[idx[2]] = -float("inf")
        tol = 1e-12 if dtype == torch.float64 else 2e-5
        grads = it % 4 == 0 and not special
        v1, l1, a1 = (t.clone().requires_grad_(grads) for t in (value, loc, att))
        got = gt.ms_deform_attn(v1, shapes, starts, l1, a1)
        if special:
            # NaN and infinite points sample zero (docs/ops/ms_deform_attn.md): as weight 0.
            bad = ~torch.isfinite(loc).all(-1)
            att0 = att.masked_fill(bad, 0)
            loc0 = loc.masked_fill(~torch.isfinite(loc), 0.5)
            want = core_with_empty_levels(value, shapes, starts, loc0, att0)
        else:
            v2, l2, a2 = (t.clone().requires_grad_(grads) for t in (value, loc, att))
            want = core_with_empty_levels(v2, shapes, starts, l2, a2)
        scale = 1 + (want.abs().max().item() if want.numel() else 0)
        torch.testing.assert_close(got, want, rtol=0, atol=tol * scale,
                                   msg=lambda m_, it=it, shapes=shapes: f"problem {it} {shapes}: {m_}")
        if grads and want.numel() and want.requires_grad:
            g = torch.randn(want.shape, dtype=dtype, generator=gen)
            got_g = list(torch.autograd.grad(got, (v1, l1, a1), g, allow_unused=True))
            want_g = list(torch.autograd.grad(want, (v2, l2, a2), g, allow_unused=True))
            # The location gradient is one-sided at integer pixel coordinates (x = loc W -
            # 0.5), and which side depends on the last bit of x: loc W - 0.5 here,
            # ((2 loc - 1 + 1) W - 1) / 2 in F.grid_sample. Where W is not a power of two the
            # two roundings may land on either side of the kink, so those points are compared
            # by the forward only; with W a power of two both are exact and must agree.
            wh = torch.tensor([[w, h] for h, w in shapes], dtype=dtype)
            x = loc * wh[None, None, None, :, None, :] - 0.5
            pow2 = torch.tensor([[w & (w - 1) == 0, h & (h - 1) == 0] for h, w in shapes])
            ambiguous = ((x - x.round()).abs() < 1e-6) & ~pow2[None, None, None, :, None, :]
            ambiguous = ambiguous.any(-1, keepdim=True).expand_as(loc)
            want_g[1] = want_g[1].masked_fill(ambiguous, 0)
            got_g[1] = got_g[1].masked_fill(ambiguous, 0)
            for a, b in zip(got_g, want_g):
                b = torch.zeros_like(a) if b is None else b
                torch.testing.assert_close(a, b, rtol=0, atol=tol * 10 * (1 + b.abs().max().item()))


class ReferenceMSDeformAttn(torch.nn.Module):
    """Deformable DETR's module written from its definition, with the PyTorch core."""

    def __init__(self, d_model, n_levels, n_heads, n_points):
        super().__init__()
        self.d_model, self.n_levels, self.n_heads, self.n_points = d_model, n_levels, n_heads, n_points
        self.sampling_offsets = torch.nn.Linear(d_model, n_heads * n_levels * n_points * 2)
        self.attention_weights = torch.nn.Linear(d_model, n_heads * n_levels * n_points)
        self.value_proj = torch.nn.Linear(d_model, d_model)
        self.output_proj = torch.nn.Linear(d_model, d_model)

    def forward(self, query, reference_points, x, shapes, starts, mask=None):
        n, lq, _ = query.shape
        s = x.shape[1]
        value = self.value_proj(x)
        if mask is not None:
            value = value.masked_fill(mask[..., None], 0.0)
        value = value.view(n, s, self.n_heads, -1)
        off = self.sampling_offsets(query).view(n, lq, self.n_heads, self.n_levels, self.n_points, 2)
        att = F.softmax(self.attention_weights(query).view(n, lq, self.n_heads, -1), -1)
        att = att.view(n, lq, self.n_heads, self.n_levels, self.n_points)
        if reference_points.shape[-1] == 2:
            norm = torch.stack([shapes[..., 1], shapes[..., 0]], -1).to(query.dtype)
            loc = reference_points[:, :, None, :, None, :] + off / norm[None, None, None, :, None, :]
        else:
            loc = (reference_points[:, :, None, :, None, :2]
                   + off / self.n_points * reference_points[:, :, None, :, None, 2:] * 0.5)
        out = core(value, [tuple(int(v) for v in hw) for hw in shapes], loc, att)
        return self.output_proj(out)


@pytest.mark.parametrize("box", [False, True])
def test_msdeformattn_module_matches_the_reference_module(box):
    torch.manual_seed(5)
    ours = gt.MSDeformAttn(d_model=32, n_levels=3, n_heads=4, n_points=2).double()
    theirs = ReferenceMSDeformAttn(32, 3, 4, 2).double()
    # Random weights (the zero initialization would hide the offsets' projection).
    for p_ in ours.parameters():
        torch.nn.init.normal_(p_, std=0.2)
    theirs.load_state_dict(ours.state_dict())
    shapes = torch.tensor([[6, 7], [3, 4], [2, 2]])
    starts = torch.tensor([0, 42, 54])
    q = torch.randn(2, 9, 32, dtype=torch.float64)
    ref = torch.rand(2, 9, 3, 4 if box else 2, dtype=torch.float64)
    x = torch.randn(2, 58, 32, dtype=torch.float64)
    mask = torch.rand(2, 58) < 0.2
    y1 = ours(q, ref, x, shapes, starts, mask)
    y2 = theirs(q, ref, x, shapes, starts, mask)
    torch.testing.assert_close(y1, y2, rtol=0, atol=1e-12)
    g = torch.randn_like(y1)
    for a, b in zip(torch.autograd.grad(y1, list(ours.parameters()), g),
                    torch.autograd.grad(y2, list(theirs.parameters()), g)):
        torch.testing.assert_close(a, b, rtol=0, atol=1e-10)


def test_msdeformattn_initialization_and_errors():
    m = gt.MSDeformAttn(d_model=16, n_levels=2, n_heads=4, n_points=3)
    assert m.sampling_offsets.weight.abs().max() == 0 and m.attention_weights.bias.abs().max() == 0
    b = m.sampling_offsets.bias.view(4, 2, 3, 2)
    # Head 0 points along +x, point k at distance k + 1, the same on every level.
    torch.testing.assert_close(b[0, :, :, 0], torch.tensor([[1.0, 2.0, 3.0]] * 2))
    torch.testing.assert_close(b[0, :, :, 1], torch.zeros(2, 3), atol=1e-6, rtol=0)
    assert "n_points=3" in repr(m)
    with pytest.raises(ValueError, match="divisible by n_heads"):
        gt.MSDeformAttn(d_model=10, n_heads=4)
    with pytest.raises(ValueError, match=r"input_spatial_shapes must be \(2, 2\)"):
        m(torch.zeros(1, 2, 16), torch.zeros(1, 2, 2, 2), torch.zeros(1, 5, 16), [[1, 5]], [0])
    with pytest.raises(ValueError, match="reference_points must end in 2"):
        m(torch.zeros(1, 2, 16), torch.zeros(1, 2, 2, 3), torch.zeros(1, 5, 16), [[1, 3], [1, 2]], [0, 3])


@pytest.mark.parametrize("dtype,ulp", [(torch.float16, 2.0 ** -10), (torch.bfloat16, 2.0 ** -7)])
def test_half_storage_rounds_the_float_result_once(dtype, ulp):
    """float16/bfloat16 tensors: sums in float, each output (and gradient) rounded once to
    the storage type: within one unit in the last place of the PyTorch core run in float64
    on the same (rounded) inputs."""
    gen = torch.Generator().manual_seed(21)
    shapes = [(6, 7), (3, 4), (2, 2)]
    value, starts, loc, att = problem(gen, torch.float64, shapes)
    value, loc, att = (t.to(dtype) for t in (value, loc, att))
    v1, l1, a1 = (t.clone().requires_grad_() for t in (value, loc, att))
    got = gt.ms_deform_attn(v1, shapes, starts, l1, a1)
    assert got.dtype == dtype
    v2, l2, a2 = (t.double().requires_grad_() for t in (value, loc, att))
    want = core(v2, shapes, l2, a2)
    scale = want.abs().max().item()
    torch.testing.assert_close(got.double(), want, rtol=0, atol=(ulp + 1e-5) * scale)
    g = torch.randn(want.shape, dtype=torch.float64, generator=gen).to(dtype)
    for a, b, what in zip(torch.autograd.grad(got, (v1, l1, a1), g),
                          torch.autograd.grad(want, (v2, l2, a2), g.double()),
                          ("value", "sampling_locations", "attention_weights")):
        assert a.dtype == dtype, what
        # The half-precision locations times the level sizes are exact in float and in
        # double, so both take the same side at the kinks.
        torch.testing.assert_close(a.double(), b, rtol=0, atol=(ulp + 1e-4) * b.abs().max().item(),
                                   msg=lambda m_, what=what: f"{what}: {m_}")
