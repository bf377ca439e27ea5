"""gridops.torch: GridSample and AffineGrid as PyTorch autograd functions.

``grid_sample`` and ``affine_grid`` take and return torch tensors, like
``torch.nn.functional.grid_sample`` / ``affine_grid``, and record an autograd graph: the
forward runs gridops' forward kernel, the backward gridops' backward kernels
(``gridops.grid_sample_backward``, ``gridops.affine_grid_backward``), which are exact and
bit-identical for any thread count. Tensors are handed to gridops through DLPack without
copies (any strides, channels_last memory included). ``GridSample`` and ``AffineGrid`` are
``torch.nn.Module`` wrappers.

This module imports torch; ``import gridops`` alone does not. See docs/python.md,
section "gridops.torch", for where it differs from PyTorch.
"""

from typing import Any, Optional, Sequence, Tuple

import torch
import functools

from . import _gridops

__all__ = ["AffineGrid", "GridSample", "affine_grid", "grid_sample"]

# The bindings, looked up here at call time (the tests count the calls).
_grid_sample = _gridops.grid_sample
_grid_sample_backward = _gridops.grid_sample_backward
_affine_grid = _gridops.affine_grid
_affine_grid_backward = _gridops.affine_grid_backward

# The dtypes with gradients in gridops (grid_sample_backward, affine_grid_backward).
_GRAD_DTYPES = (torch.float16, torch.bfloat16, torch.float32, torch.float64)


def _check_tensor(fn: str, name: str, t: Any) -> torch.Tensor:
    if not isinstance(t, torch.Tensor):
        raise TypeError(f"gridops.torch.{fn}: {name} must be a torch.Tensor, got {type(t).__name__}")
    if t.device.type != "cpu":
        raise ValueError(f"gridops.torch.{fn}: {name} must be a CPU tensor (gridops runs on the CPU "
                         f"only; use .cpu()), got a tensor on device '{t.device}'")
    if t.layout != torch.strided:
        raise ValueError(f"gridops.torch.{fn}: {name} must be a dense (torch.strided) tensor, got "
                         f"layout {t.layout}")
    if t.requires_grad and t.dtype not in _GRAD_DTYPES:
        raise ValueError(f"gridops.torch.{fn}: {name} requires grad, which gridops supports for "
                         f"float16, bfloat16, float32 and float64 only, got {t.dtype}")
    return t


def _plain(t: torch.Tensor) -> torch.Tensor:
    """The tensor as gridops takes it: no autograd history, conjugate and negative bits
    resolved (DLPack exports neither; both are no-ops, without copies, when unset)."""
    return t.detach().resolve_conj().resolve_neg()


def _align(fn: str, align_corners: Any) -> bool:
    # PyTorch's default None means False (PyTorch also warns); 0 and 1 as in gridops.
    if align_corners is None:
        return False
    if isinstance(align_corners, bool):
        return align_corners
    if isinstance(align_corners, int) and align_corners in (0, 1):
        return bool(align_corners)
    raise ValueError(f"gridops.torch.{fn}: align_corners must be True, False or None, got "
                     f"{align_corners!r}")


def _size(size: Any) -> Tuple[int, ...]:
    if isinstance(size, torch.Tensor) or isinstance(size, (str, bytes)):
        raise TypeError(f"gridops.torch.affine_grid: size must be a sequence of ints (torch.Size, "
                        f"list, tuple), got {type(size).__name__}")
    try:
        return tuple(int(s) for s in size)
    except TypeError:
        raise TypeError(f"gridops.torch.affine_grid: size must be a sequence of ints (torch.Size, "
                        f"list, tuple), got {type(size).__name__}") from None


def _first_order_only(fn: Any) -> Any:
    """Like torch.autograd.function.once_differentiable, but the saved tensors count too.

    once_differentiable marks the gradients as not differentiable only when an argument of
    backward (the incoming gradient) requires grad; the gradient of grid_sample also
    depends on the saved input and grid, so with create_graph=True and a constant incoming
    gradient (y.sum()) it returned gradients that silently acted as constants in a second
    backward. Here any saved tensor or argument that requires grad makes the gradients
    raise when differentiated again.
    """

    @functools.wraps(fn)
    def wrapper(ctx: Any, *args: Any) -> Any:
        with torch.no_grad():
            outputs = fn(ctx, *args)
        if not torch.is_grad_enabled():
            return outputs
        tensors = [a for a in args if isinstance(a, torch.Tensor)] + list(ctx.saved_tensors)
        if not any(t.requires_grad for t in tensors):
            return outputs
        err = getattr(torch._C, "_functions").DelayedError(
            b"trying to differentiate twice gridops.torch.grid_sample: its gradient is not "
            b"differentiable (no double backward through it)", len(outputs))

        def fake(v: Any) -> Any:
            if v is None:
                return v
            v = v.detach()
            v.requires_grad = True
            return v

        return err(*[fake(v) for v in outputs])

    return wrapper


class _GridSampleFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, input: torch.Tensor, grid: torch.Tensor, mode: str, padding_mode: str,
                align_corners: bool, layout: str) -> torch.Tensor:
        out = _grid_sample(_plain(input), _plain(grid), mode, padding_mode, align_corners, layout=layout)
        ctx.save_for_backward(input, grid)
        ctx.attrs = (mode, padding_mode, align_corners, layout)
        return out

    @staticmethod
    @_first_order_only
    def backward(ctx: Any, grad_output: torch.Tensor) -> Tuple[Optional[torch.Tensor], ...]:
        want_input, want_grid = ctx.needs_input_grad[0], ctx.needs_input_grad[1]
        grad_input = grad_grid = None
        if want_input or want_grid:
            input, grid = ctx.saved_tensors
            mode, padding_mode, align_corners, layout = ctx.attrs
            grad_input, grad_grid = _grid_sample_backward(
                _plain(grad_output), _plain(input), _plain(grid), mode, padding_mode, align_corners,
                layout=layout, input_grad=bool(want_input), grid_grad=bool(want_grid))
        return grad_input, grad_grid, None, None, None, None


# AffineGrid is linear in theta and its backward linear in grad_grid: each is the other's
# adjoint, so the pair gives derivatives of every order.
class _AffineGridFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, theta: torch.Tensor, size: Tuple[int, ...],
                align_corners: bool) -> torch.Tensor:
        ctx.attrs = (size, align_corners)
        return _affine_grid(_plain(theta), size, align_corners)

    @staticmethod
    def backward(ctx: Any, grad_grid: torch.Tensor) -> Tuple[Optional[torch.Tensor], ...]:
        if not ctx.needs_input_grad[0]:
            return None, None, None
        size, align_corners = ctx.attrs
        return _AffineGridBackwardFunction.apply(grad_grid, size, align_corners), None, None


class _AffineGridBackwardFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, grad_grid: torch.Tensor, size: Tuple[int, ...],
                align_corners: bool) -> torch.Tensor:
        ctx.attrs = (size, align_corners)
        return _affine_grid_backward(_plain(grad_grid), size, align_corners)

    @staticmethod
    def backward(ctx: Any, grad_theta: torch.Tensor) -> Tuple[Optional[torch.Tensor], ...]:
        if not ctx.needs_input_grad[0]:
            return None, None, None
        size, align_corners = ctx.attrs
        return _AffineGridFunction.apply(grad_theta, size, align_corners), None, None


def grid_sample(input: torch.Tensor, grid: torch.Tensor, mode: str = "bilinear",
                padding_mode: str = "zeros", align_corners: Optional[bool] = None, *,
                layout: str = "channels_first") -> torch.Tensor:
    """Samples ``input`` at the normalized positions in ``grid`` with autograd support.

    As ``torch.nn.functional.grid_sample`` for CPU tensors, with gradients to ``input`` and
    ``grid`` from gridops' backward (only those that autograd asks for are computed):

    - input (N, C, D1, ..., Dr), grid (N, D1_out, ..., Dr_out, r), output (N, C, D1_out, ...,
      Dr_out); any spatial rank r >= 1 (PyTorch: 2 and 3).
    - mode: "bilinear" (alias "linear": linear along every axis, trilinear in 3-D), "nearest"
      (ties to even), "bicubic" (alias "cubic": Keys' A = -0.75 along every axis, so also in
      3-D, where PyTorch has none). padding_mode: "zeros", "border", "reflection".
    - align_corners: None means False (PyTorch's default, without its warning).
    - layout="channels_last": input (N, D1, ..., Dr, C) and output (N, D1_out, ..., C) (a
      gridops extension; a channels_last-*memory* NCHW tensor needs no option).
    - dtypes: input and grid float16, bfloat16, float32 or float64 for gradients (the
      forward also takes what gridops.grid_sample takes); input and grid may differ in dtype
      (PyTorch requires one dtype).
    - Second derivatives are not supported: differentiating the gradients again (after
      ``create_graph=True``) raises RuntimeError, also when the incoming gradient is a
      constant (the gradients depend on the saved input and grid).
    """
    fn = "grid_sample"
    _check_tensor(fn, "input", input)
    _check_tensor(fn, "grid", grid)
    for name, value in (("mode", mode), ("padding_mode", padding_mode), ("layout", layout)):
        if not isinstance(value, str):
            raise TypeError(f"gridops.torch.grid_sample: {name} must be a str, got {type(value).__name__}")
    out: torch.Tensor = _GridSampleFunction.apply(input, grid, mode, padding_mode, _align(fn, align_corners),
                                                  layout)
    return out


def affine_grid(theta: torch.Tensor, size: Sequence[int], align_corners: Optional[bool] = None) -> torch.Tensor:
    """The sampling grid of the affine maps ``theta`` with autograd support.

    As ``torch.nn.functional.affine_grid`` for CPU tensors: theta (N, 2, 3) with size
    (N, C, H, W) gives a grid (N, H, W, 2); theta (N, 3, 4) with size (N, C, D, H, W) a grid
    (N, D, H, W, 3). The gradient with respect to theta comes from
    gridops.affine_grid_backward (float16, bfloat16, float32, float64); derivatives of any
    order are supported (the map is linear). align_corners: None means False.
    """
    fn = "affine_grid"
    _check_tensor(fn, "theta", theta)
    out: torch.Tensor = _AffineGridFunction.apply(theta, _size(size), _align(fn, align_corners))
    return out


class GridSample(torch.nn.Module):
    """``grid_sample`` as a module: ``GridSample(mode, padding_mode, align_corners)(input, grid)``."""

    def __init__(self, mode: str = "bilinear", padding_mode: str = "zeros", align_corners: Optional[bool] = None,
                 *, layout: str = "channels_first") -> None:
        super().__init__()
        self.mode = mode
        self.padding_mode = padding_mode
        self.align_corners = align_corners
        self.layout = layout

    def forward(self, input: torch.Tensor, grid: torch.Tensor) -> torch.Tensor:
        return grid_sample(input, grid, self.mode, self.padding_mode, self.align_corners, layout=self.layout)

    def extra_repr(self) -> str:
        return (f"mode={self.mode!r}, padding_mode={self.padding_mode!r}, align_corners={self.align_corners}"
                + (f", layout={self.layout!r}" if self.layout != "channels_first" else ""))


class AffineGrid(torch.nn.Module):
    """``affine_grid`` as a module: ``AffineGrid(align_corners)(theta, size)``."""

    def __init__(self, align_corners: Optional[bool] = None) -> None:
        super().__init__()
        self.align_corners = align_corners

    def forward(self, theta: torch.Tensor, size: Sequence[int]) -> torch.Tensor:
        return affine_grid(theta, size, self.align_corners)

    def extra_repr(self) -> str:
        return f"align_corners={self.align_corners}"
