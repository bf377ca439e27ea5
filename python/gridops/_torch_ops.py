"""torch.ops.gridops.*: gridops' operators that PyTorch has no operator for, as dispatcher
operators (callable from eager code, torch.jit.script and torch.jit.trace), with autograd.

    torch.ops.gridops.grid_sample(input, grid, mode, padding_mode, align_corners, layout)
        any spatial rank (N-D), "bicubic" in 3-D (tricubic) and beyond, channels_last layout
    torch.ops.gridops.affine_warp(input, theta, size, mode, padding_mode, align_corners)
        grid_sample(input, affine_grid(theta, (N, C, *size))) fused, no grid materialized
    torch.ops.gridops.pad(input, pad, mode, value)
        F.pad's pad tuple; modes constant, replicate/edge, reflect, symmetric, circular/wrap

Each is registered for the CPU key (gridops' kernel) and the Autograd key:
  - grid_sample: gridops' backward (gridops.torch.grid_sample);
  - affine_warp: the fused forward, and the gradient of the composition
    grid_sample(affine_grid(...)) at the same point (gridops has no fused backward);
  - pad: the exact adjoint (each output element's gradient added to the input element it
    copies), written with index_select/index_add, so it has derivatives of every order.
"""

from typing import Any, List, Optional, Sequence

import torch

from . import _api

_LIB = torch.library.Library("gridops", "DEF")
_LIB.define("grid_sample(Tensor input, Tensor grid, str mode=\"bilinear\", "
            "str padding_mode=\"zeros\", bool align_corners=False, "
            "str layout=\"channels_first\") -> Tensor")
_LIB.define("affine_warp(Tensor input, Tensor theta, int[] size, str mode=\"bilinear\", "
            "str padding_mode=\"zeros\", bool align_corners=False) -> Tensor")
_LIB.define("pad(Tensor input, int[] pad, str mode=\"constant\", float value=0.0) -> Tensor")


def _threads() -> Any:
    from . import _gridops
    return _gridops._ThreadScope(min(max(torch.get_num_threads(), 0), 1024))


def _plain(t: torch.Tensor) -> torch.Tensor:
    return t.detach() if t.requires_grad else t


# --- grid_sample ---------------------------------------------------------------------------

# The dispatcher leaves out trailing arguments equal to the schema's defaults when it calls a
# Python kernel, so each kernel repeats the defaults.
def _grid_sample_cpu(input: torch.Tensor, grid: torch.Tensor, mode: str = "bilinear",
                     padding_mode: str = "zeros", align_corners: bool = False,
                     layout: str = "channels_first") -> torch.Tensor:
    with _threads():
        return _api.grid_sample(_plain(input), _plain(grid), mode, padding_mode, align_corners,
                                layout=layout)


def _grid_sample_autograd(input: torch.Tensor, grid: torch.Tensor, mode: str = "bilinear",
                          padding_mode: str = "zeros", align_corners: bool = False,
                          layout: str = "channels_first") -> torch.Tensor:
    from . import torch as gt
    if not (torch.is_grad_enabled() and (input.requires_grad or grid.requires_grad)):
        return _grid_sample_cpu(input, grid, mode, padding_mode, align_corners, layout)
    return gt.grid_sample(input, grid, mode, padding_mode, align_corners, layout=layout)


# --- affine_warp ---------------------------------------------------------------------------

def _affine_warp_cpu(input: torch.Tensor, theta: torch.Tensor, size: List[int],
                     mode: str = "bilinear", padding_mode: str = "zeros",
                     align_corners: bool = False) -> torch.Tensor:
    with _threads():
        return _api.affine_warp(_plain(input), _plain(theta), list(size), mode, padding_mode,
                                align_corners)


class _AffineWarpFunction(torch.autograd.Function):
    """Forward: the fused kernel. Backward: the gradient of the composition
    grid_sample(affine_grid(theta), ...) at the same point (gridops has no fused backward)."""

    @staticmethod
    def forward(ctx: Any, input: torch.Tensor, theta: torch.Tensor, size: List[int], mode: str,
                padding_mode: str, align_corners: bool) -> torch.Tensor:
        ctx.save_for_backward(input, theta)
        ctx.args = (list(size), mode, padding_mode, align_corners)
        return _affine_warp_cpu(input, theta, size, mode, padding_mode, align_corners)

    @staticmethod
    def backward(ctx: Any, grad: torch.Tensor) -> Any:
        from . import torch as gt
        input, theta = ctx.saved_tensors
        size, mode, padding_mode, align_corners = ctx.args
        wants = ctx.needs_input_grad[:2]
        with torch.enable_grad():
            x = input.detach().requires_grad_(wants[0])
            t = theta.detach().requires_grad_(wants[1])
            full = [int(x.shape[0]), int(x.shape[1])] + [int(s) for s in size]
            y = gt.grid_sample(x, gt.affine_grid(t, full, align_corners), mode, padding_mode,
                               align_corners)
            leaves = [v for v, w in zip((x, t), wants) if w]
            grads = list(torch.autograd.grad(y, leaves, grad))
        gi = grads.pop(0) if wants[0] else None
        gt_ = grads.pop(0) if wants[1] else None
        return gi, gt_, None, None, None, None


def _affine_warp_autograd(input: torch.Tensor, theta: torch.Tensor, size: List[int],
                          mode: str = "bilinear", padding_mode: str = "zeros",
                          align_corners: bool = False) -> torch.Tensor:
    if not (torch.is_grad_enabled() and (input.requires_grad or theta.requires_grad)):
        return _affine_warp_cpu(input, theta, size, mode, padding_mode, align_corners)
    out: torch.Tensor = _AffineWarpFunction.apply(input, theta, list(size), mode, padding_mode,
                                                  align_corners)
    return out


# --- pad -------------------------------------------------------------------------------------

def _pad_cpu(input: torch.Tensor, pad: List[int], mode: str = "constant",
             value: float = 0.0) -> torch.Tensor:
    with _threads():
        return _api.pad(_plain(input), list(pad), mode, value if mode == "constant" else None,
                        order="torch")


class _PadFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, input: torch.Tensor, pad: List[int], mode: str,
                value: float) -> torch.Tensor:
        ctx.shape = tuple(input.shape)
        ctx.pad, ctx.mode = list(pad), mode
        return _pad_cpu(input, pad, mode, value)

    @staticmethod
    def backward(ctx: Any, grad: torch.Tensor) -> Any:
        return _PadBackwardFunction.apply(grad, ctx.shape, ctx.pad, ctx.mode), None, None, None


class _PadBackwardFunction(torch.autograd.Function):
    """gridops.pad_backward (the exact adjoint, summed in row-major output order); its own
    gradient is the pad again, with a zero fill (the adjoint of the adjoint)."""

    @staticmethod
    def forward(ctx: Any, grad: torch.Tensor, shape: Sequence[int], pad: List[int],
                mode: str) -> torch.Tensor:
        ctx.pad, ctx.mode = list(pad), mode
        with _threads():
            out: torch.Tensor = _api.pad_backward(_plain(grad), list(shape), list(pad), mode,
                                                  order="torch")
        return out

    @staticmethod
    def backward(ctx: Any, gg: torch.Tensor) -> Any:
        return _pad_autograd(gg, ctx.pad, ctx.mode, 0.0), None, None, None


def _pad_autograd(input: torch.Tensor, pad: List[int], mode: str = "constant",
                  value: float = 0.0) -> torch.Tensor:
    if not (torch.is_grad_enabled() and input.requires_grad):
        return _pad_cpu(input, pad, mode, value)
    out: torch.Tensor = _PadFunction.apply(input, list(pad), mode, value)
    return out


for _name, _cpu, _ad in (("grid_sample", _grid_sample_cpu, _grid_sample_autograd),
                         ("affine_warp", _affine_warp_cpu, _affine_warp_autograd),
                         ("pad", _pad_cpu, _pad_autograd)):
    _LIB.impl(_name, _cpu, "CPU")
    _LIB.impl(_name, _ad, "Autograd")
