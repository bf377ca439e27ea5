"""gridops.torch's multi-scale deformable attention: the autograd function
(``ms_deform_attn``), its ONNX export (``ai.gridops::MsDeformAttn``) and two modules:
``MsDeformAttn`` (the core alone) and ``MSDeformAttn`` (the core with the projection layers
of Deformable DETR's module, the same parameter names). Imported by gridops.torch, which
exports these names; docs/ops/ms_deform_attn.md, "PyTorch".
"""

import math
from typing import Any, Optional, Sequence, Tuple

import torch
import torch.nn.functional as F

from . import _api, _gridops
from .torch import (ONNX_DOMAIN, _check_tensor, _first_order_only, _op, _plain,
                    _torch_threads)


def _ms_deform_attn_symbolic(g: Any, value: Any, spatial_shapes: Tuple[int, ...],
                             level_start_index: Tuple[int, ...], sampling_locations: Any,
                             attention_weights: Any) -> Any:
    # The level lists are fixed when the module is exported: int64 Constants, (L, 2) and (L,).
    shapes = torch.tensor(list(spatial_shapes), dtype=torch.int64).reshape(-1, 2)
    starts = torch.tensor(list(level_start_index), dtype=torch.int64)
    return _op(g, f"{ONNX_DOMAIN}::MsDeformAttn", value, _op(g, "Constant", value_t=shapes),
               _op(g, "Constant", value_t=starts), sampling_locations, attention_weights)


class _MsDeformAttnFunction(torch.autograd.Function):
    symbolic = staticmethod(_ms_deform_attn_symbolic)

    @staticmethod
    def forward(ctx: Any, value: torch.Tensor, spatial_shapes: Tuple[int, ...],
                level_start_index: Tuple[int, ...], sampling_locations: torch.Tensor,
                attention_weights: torch.Tensor) -> torch.Tensor:
        ctx.attrs = (spatial_shapes, level_start_index)
        ctx.save_for_backward(value, sampling_locations, attention_weights)
        with _torch_threads():
            out: torch.Tensor = _gridops.ms_deform_attn(
                _plain(value), list(spatial_shapes), list(level_start_index),
                _plain(sampling_locations), _plain(attention_weights))
        return out

    @staticmethod
    @_first_order_only
    def backward(ctx: Any, grad_output: torch.Tensor) -> Tuple[Optional[torch.Tensor], ...]:
        value, loc, att = ctx.saved_tensors
        spatial_shapes, level_start_index = ctx.attrs
        need = ctx.needs_input_grad
        if not (need[0] or need[3] or need[4]):
            return None, None, None, None, None
        with _torch_threads():
            gv, gl, ga = _gridops.ms_deform_attn_backward(
                _plain(grad_output), _plain(value), list(spatial_shapes), list(level_start_index),
                _plain(loc), _plain(att), value_grad=bool(need[0]), locations_grad=bool(need[3]),
                weights_grad=bool(need[4]))
        return gv, None, None, gl, ga


def ms_deform_attn(value: torch.Tensor, spatial_shapes: Any, level_start_index: Any,
                   sampling_locations: torch.Tensor, attention_weights: torch.Tensor) -> torch.Tensor:
    """Multi-scale deformable attention with autograd (gridops.ms_deform_attn): value (N, S,
    M, D), spatial_shapes (L, 2), level_start_index (L,), sampling_locations (N, Lq, M, L, P,
    2) in [0, 1], attention_weights (N, Lq, M, L, P) -> (N, Lq, M * D); float32, float64,
    float16 or bfloat16 CPU tensors (the half types summed in float). Gradients for value,
    sampling_locations and attention_weights (first order). Exports to ONNX as ``ai.gridops::MsDeformAttn`` (the level lists become constants)."""
    for name, t in (("value", value), ("sampling_locations", sampling_locations),
                    ("attention_weights", attention_weights)):
        _check_tensor("ms_deform_attn", name, t)
    shapes = tuple(_api._int_list(spatial_shapes, "gridops.torch.ms_deform_attn: spatial_shapes"))
    starts = tuple(_api._int_list(level_start_index,
                                  "gridops.torch.ms_deform_attn: level_start_index"))
    out: torch.Tensor = _MsDeformAttnFunction.apply(value, shapes, starts, sampling_locations,
                                                    attention_weights)
    return out


class MsDeformAttn(torch.nn.Module):
    """``ms_deform_attn`` as a module without parameters: ``MsDeformAttn()(value,
    spatial_shapes, level_start_index, sampling_locations, attention_weights)``."""

    def forward(self, value: torch.Tensor, spatial_shapes: Any, level_start_index: Any,
                sampling_locations: torch.Tensor, attention_weights: torch.Tensor) -> torch.Tensor:
        return ms_deform_attn(value, spatial_shapes, level_start_index, sampling_locations,
                              attention_weights)


class MSDeformAttn(torch.nn.Module):
    """Multi-scale deformable attention with its projection layers, as the module of
    Deformable DETR (and DINO, Mask2Former) defines it, with the same parameter names
    (``sampling_offsets``, ``attention_weights``, ``value_proj``, ``output_proj``) and
    initialization, so a checkpoint's state_dict loads into it; the sampling core runs on
    gridops (``ms_deform_attn``).

    ``forward(query, reference_points, input_flatten, input_spatial_shapes,
    input_level_start_index, input_padding_mask=None)``: query (N, Lq, d_model);
    reference_points (N, Lq, L, 2) in [0, 1] (x, y), or (N, Lq, L, 4) boxes (cx, cy, w, h);
    input_flatten (N, S, d_model); input_spatial_shapes (L, 2) of (H, W);
    input_level_start_index (L,); input_padding_mask (N, S), True where a value is padding
    (zeroed). Returns (N, Lq, d_model).
    """

    def __init__(self, d_model: int = 256, n_levels: int = 4, n_heads: int = 8,
                 n_points: int = 4) -> None:
        super().__init__()
        if d_model % n_heads != 0:
            raise ValueError(f"MSDeformAttn: d_model must be divisible by n_heads, got d_model="
                             f"{d_model} and n_heads={n_heads}")
        self.d_model = d_model
        self.n_levels = n_levels
        self.n_heads = n_heads
        self.n_points = n_points
        self.sampling_offsets = torch.nn.Linear(d_model, n_heads * n_levels * n_points * 2)
        self.attention_weights = torch.nn.Linear(d_model, n_heads * n_levels * n_points)
        self.value_proj = torch.nn.Linear(d_model, d_model)
        self.output_proj = torch.nn.Linear(d_model, d_model)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Deformable DETR's initialization: zero offset weights with biases that start each
        head's points on a ray of its own direction (point k at distance k + 1), uniform
        attention (zero weights and biases), Xavier-uniform projections with zero biases."""
        torch.nn.init.constant_(self.sampling_offsets.weight, 0.0)
        thetas = torch.arange(self.n_heads, dtype=torch.float32) * (2.0 * math.pi / self.n_heads)
        grid = torch.stack([thetas.cos(), thetas.sin()], -1)
        grid = (grid / grid.abs().max(-1, keepdim=True)[0]).view(self.n_heads, 1, 1, 2)
        grid = grid.repeat(1, self.n_levels, self.n_points, 1)
        for k in range(self.n_points):
            grid[:, :, k, :] *= k + 1
        with torch.no_grad():
            self.sampling_offsets.bias.copy_(grid.view(-1))
        torch.nn.init.constant_(self.attention_weights.weight, 0.0)
        torch.nn.init.constant_(self.attention_weights.bias, 0.0)
        torch.nn.init.xavier_uniform_(self.value_proj.weight)
        torch.nn.init.constant_(self.value_proj.bias, 0.0)
        torch.nn.init.xavier_uniform_(self.output_proj.weight)
        torch.nn.init.constant_(self.output_proj.bias, 0.0)

    def forward(self, query: torch.Tensor, reference_points: torch.Tensor,
                input_flatten: torch.Tensor, input_spatial_shapes: Any,
                input_level_start_index: Any,
                input_padding_mask: Optional[torch.Tensor] = None) -> torch.Tensor:
        n, lq, _ = query.shape
        _, s, _ = input_flatten.shape
        shapes = _api._int_list(input_spatial_shapes, "MSDeformAttn: input_spatial_shapes")
        if len(shapes) != 2 * self.n_levels:
            raise ValueError(f"MSDeformAttn: input_spatial_shapes must be ({self.n_levels}, 2) "
                             f"(n_levels={self.n_levels}), got {len(shapes) // 2} levels")
        if sum(shapes[2 * i] * shapes[2 * i + 1] for i in range(self.n_levels)) != s:
            raise ValueError(f"MSDeformAttn: input_flatten has {s} rows, the levels "
                             f"{shapes} have {sum(shapes[2 * i] * shapes[2 * i + 1] for i in range(self.n_levels))}")
        value = self.value_proj(input_flatten)
        if input_padding_mask is not None:
            value = value.masked_fill(input_padding_mask[..., None], 0.0)
        value = value.view(n, s, self.n_heads, self.d_model // self.n_heads)
        offsets = self.sampling_offsets(query).view(n, lq, self.n_heads, self.n_levels,
                                                    self.n_points, 2)
        weights = self.attention_weights(query).view(n, lq, self.n_heads,
                                                     self.n_levels * self.n_points)
        weights = F.softmax(weights, -1).view(n, lq, self.n_heads, self.n_levels, self.n_points)
        if reference_points.shape[-1] == 2:
            # Offsets are in pixels of each level: divide by (W, H).
            wh = torch.tensor([[shapes[2 * i + 1], shapes[2 * i]] for i in range(self.n_levels)],
                              dtype=query.dtype, device=query.device)
            locations = (reference_points[:, :, None, :, None, :]
                         + offsets / wh[None, None, None, :, None, :])
        elif reference_points.shape[-1] == 4:
            # Boxes: offsets scaled by half the box size, per point.
            locations = (reference_points[:, :, None, :, None, :2]
                         + offsets / self.n_points * reference_points[:, :, None, :, None, 2:] * 0.5)
        else:
            raise ValueError(f"MSDeformAttn: reference_points must end in 2 (points) or 4 "
                             f"(boxes), got shape {tuple(reference_points.shape)}")
        out = ms_deform_attn(value, shapes, input_level_start_index, locations, weights)
        return self.output_proj(out)

    def extra_repr(self) -> str:
        return (f"d_model={self.d_model}, n_levels={self.n_levels}, n_heads={self.n_heads}, "
                f"n_points={self.n_points}")


__all__: Sequence[str] = ["MSDeformAttn", "MsDeformAttn", "ms_deform_attn"]
