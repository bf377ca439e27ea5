"""gridops.torch: GridSample and AffineGrid as PyTorch autograd functions.

``grid_sample`` and ``affine_grid`` take and return torch tensors, like
``torch.nn.functional.grid_sample`` / ``affine_grid``, and record an autograd graph: the
forward runs gridops' forward kernel, the backward gridops' backward kernels
(``gridops.grid_sample_backward``, ``gridops.affine_grid_backward``), which are exact and
bit-identical for any thread count. Tensors are handed to gridops through DLPack without
copies (any strides, channels_last memory included). ``GridSample`` and ``AffineGrid`` are
``torch.nn.Module`` wrappers.

Modules using them export to ONNX: ``torch.onnx.export`` at opset 16 or 17 (standard
GridSample, custom-domain ``ai.gridops`` nodes where ONNX has no operator there), or
``export_onnx(module, args, path, opset=20)`` for standard AffineGrid-20 and GridSample-20
(``upgrade_onnx`` rewrites an exported model). See docs/onnx.md, section "Exporting
gridops.torch models to ONNX".

This module imports torch; ``import gridops`` alone does not. See docs/python.md,
section "gridops.torch", for where it differs from PyTorch.
"""

from typing import Any, Optional, Sequence, Tuple

import functools
import io
import os
import warnings

import torch

from . import _api, _gridops
from . import _torch_ops  # noqa: F401  (defines torch.ops.gridops.*)
from ._torch_enable import (covered_operators, disable, enable, enabled, fallback_counts,
                            is_enabled, reset_fallback_counts, served_counts)

__all__ = ["AffineGrid", "GridSample", "MSDeformAttn", "MsDeformAttn", "OnnxExportError",
           "affine_grid", "covered_operators", "disable", "enable", "enabled", "export_onnx",
           "fallback_counts", "grid_sample", "is_enabled", "ms_deform_attn",
           "reset_fallback_counts", "served_counts", "upgrade_onnx"]

# The bindings, looked up here at call time (the tests count the calls).
_grid_sample = _gridops.grid_sample
_grid_sample_backward = _gridops.grid_sample_backward
_affine_grid = _gridops.affine_grid
_affine_grid_backward = _gridops.affine_grid_backward


def _torch_threads() -> Any:
    """gridops' thread count for this call: torch.get_num_threads(), as PyTorch's own CPU
    operators use (gridops.num_threads; the process-wide gridops count is left alone)."""
    return _gridops._ThreadScope(min(max(torch.get_num_threads(), 0), 1024))

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


# ----------------------------------------------------------------------------------------
# ONNX export (docs/onnx.md, section "Exporting gridops.torch models to ONNX").
#
# torch.onnx.export calls the `symbolic` staticmethod of an autograd.Function for each call
# it traced; without one, torch 1.13 inlines the forward, whose DLPack call it cannot see,
# and the graph becomes one Constant. Standard ONNX nodes are emitted where ONNX has the
# operator at the export opset; the rest become nodes of the custom domain ai.gridops,
# which upgrade_onnx rewrites to standard nodes at opset 20 where ONNX has them there.

ONNX_DOMAIN = "ai.gridops"
"""The custom ONNX domain of the nodes gridops.torch exports where ONNX has no operator."""
ONNX_DOMAIN_VERSION = 1

# Canonical names (gridops also accepts the aliases on the left).
_MODES = {"bilinear": "linear", "linear": "linear", "nearest": "nearest", "bicubic": "cubic",
          "cubic": "cubic"}
_MODES_OPSET16 = {"linear": "bilinear", "nearest": "nearest", "cubic": "bicubic"}
_PADDINGS = ("zeros", "border", "reflection")
_LAYOUTS = {"channels_first": "channels_first", "NCHW": "channels_first", "nchw": "channels_first",
            "channels_last": "channels_last", "NHWC": "channels_last", "nhwc": "channels_last"}


class OnnxExportError(RuntimeError):
    """A gridops.torch call that cannot be exported to ONNX (the message names it and why)."""


def _export_opset() -> int:
    """The opset_version of the torch.onnx.export call running the symbolic."""
    try:
        from torch.onnx._globals import GLOBALS
    except ImportError:  # before torch 1.13
        from torch.onnx import symbolic_helper
        return int(getattr(symbolic_helper, "_export_onnx_opset_version"))
    return int(GLOBALS.export_onnx_opset_version)


def _value_rank(v: Any) -> Optional[int]:
    try:
        r = v.type().dim()
    except RuntimeError:
        return None
    return None if r is None else int(r)


def _op(g: Any, *args: Any, **kwargs: Any) -> Any:
    # torch 1.13 hands autograd.Function symbolics a torch._C.Graph, whose g.op it marks
    # deprecated with a FutureWarning on every call; later versions hand a GraphContext.
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", category=FutureWarning, message=".*_graph_op")
        return g.op(*args, **kwargs)


def _grid_sample_symbolic(g: Any, input: Any, grid: Any, mode: str, padding_mode: str,
                          align_corners: bool, layout: str, grid_units: str = "normalized",
                          grid_kind: str = "absolute", fill_value: float = 0.0) -> Any:
    fn = "gridops.torch.grid_sample"
    if grid_units != "normalized" or grid_kind != "absolute" or padding_mode in ("wrap", "constant", "fill"):
        # gridops extensions (ONNX GridSample has normalized absolute grids and three
        # paddings): the custom node with every attribute; upgrade_onnx keeps it custom.
        if mode not in _MODES or layout not in _LAYOUTS:
            raise OnnxExportError(f"{fn}: cannot export mode={mode!r}, layout={layout!r} to ONNX (not a "
                                  f"gridops GridSample option)")
        extra = {}
        if grid_units != "normalized":
            extra["grid_units_s"] = grid_units
        if grid_kind != "absolute":
            extra["grid_kind_s"] = grid_kind
        if fill_value != 0.0:
            extra["fill_value_f"] = float(fill_value)
        return _op(g, f"{ONNX_DOMAIN}::GridSample", input, grid, mode_s=_MODES[mode], padding_mode_s=padding_mode,
                   align_corners_i=int(align_corners), layout_s=_LAYOUTS[layout], **extra)
    opset = _export_opset()
    if mode not in _MODES or padding_mode not in _PADDINGS or layout not in _LAYOUTS:
        raise OnnxExportError(f"{fn}: cannot export mode={mode!r}, padding_mode={padding_mode!r}, "
                              f"layout={layout!r} to ONNX (not a gridops GridSample option)")
    mode_c, layout_c = _MODES[mode], _LAYOUTS[layout]
    rank = _value_rank(grid)
    if rank is None:
        rank = _value_rank(input)
    if rank is None:
        raise OnnxExportError(f"{fn}: cannot export to ONNX: the rank of the grid is unknown to the "
                              f"exporter (export with example inputs of fixed rank)")
    if layout_c == "channels_first" and rank == 4:
        if opset < 16:
            raise OnnxExportError(
                f"{fn}: cannot export to ONNX at opset {opset}: ONNX has GridSample from opset 16 "
                f"(torch.onnx.export's default opset is 14); pass opset_version=16 or 17, or use "
                f"gridops.torch.export_onnx(..., opset=20)")
        return _op(g, "GridSample", input, grid, mode_s=_MODES_OPSET16[mode_c],
                   padding_mode_s=padding_mode, align_corners_i=int(align_corners))
    # 1-D, 3-D, N-D (ONNX has them from GridSample-20) or channels_last (ONNX has no layout
    # attribute): the custom node, attributes as the Python arguments.
    return _op(g, f"{ONNX_DOMAIN}::GridSample", input, grid, mode_s=mode_c, padding_mode_s=padding_mode,
               align_corners_i=int(align_corners), layout_s=layout_c)


def _affine_grid_symbolic(g: Any, theta: Any, size: Tuple[int, ...], align_corners: bool) -> Any:
    # ONNX has AffineGrid from opset 20 only, which torch 1.13 cannot export: always the
    # custom node (upgrade_onnx makes it AffineGrid-20).
    size = tuple(int(s) for s in size)
    return _op(g, f"{ONNX_DOMAIN}::AffineGrid", theta, size_i=list(size), align_corners_i=int(align_corners))


def _no_export_symbolic(fn: str, why: str) -> Any:
    def symbolic(g: Any, *args: Any) -> Any:
        raise OnnxExportError(f"{fn}: cannot be exported to ONNX: {why}")
    return staticmethod(symbolic)


class _GridSampleFunction(torch.autograd.Function):
    symbolic = staticmethod(_grid_sample_symbolic)

    @staticmethod
    def forward(ctx: Any, input: torch.Tensor, grid: torch.Tensor, mode: str, padding_mode: str,
                align_corners: bool, layout: str, grid_units: str = "normalized",
                grid_kind: str = "absolute", fill_value: float = 0.0) -> torch.Tensor:
        with _torch_threads():
            out = _grid_sample(_plain(input), _plain(grid), mode, padding_mode, align_corners,
                               layout=layout, grid_units=grid_units, grid_kind=grid_kind,
                               fill_value=fill_value)
        ctx.save_for_backward(input, grid)
        ctx.attrs = (mode, padding_mode, align_corners, layout, grid_units, grid_kind, fill_value)
        return out

    @staticmethod
    @_first_order_only
    def backward(ctx: Any, grad_output: torch.Tensor) -> Tuple[Optional[torch.Tensor], ...]:
        want_input, want_grid = ctx.needs_input_grad[0], ctx.needs_input_grad[1]
        grad_input = grad_grid = None
        if want_input or want_grid:
            input, grid = ctx.saved_tensors
            mode, padding_mode, align_corners, layout, grid_units, grid_kind, fill_value = ctx.attrs
            with _torch_threads():
                grad_input, grad_grid = _grid_sample_backward(
                    _plain(grad_output), _plain(input), _plain(grid), mode, padding_mode,
                    align_corners, layout=layout, input_grad=bool(want_input),
                    grid_grad=bool(want_grid), grid_units=grid_units, grid_kind=grid_kind,
                    fill_value=fill_value)
        return grad_input, grad_grid, None, None, None, None, None, None, None


# AffineGrid is linear in theta and its backward linear in grad_grid: each is the other's
# adjoint, so the pair gives derivatives of every order.
class _AffineGridFunction(torch.autograd.Function):
    symbolic = staticmethod(_affine_grid_symbolic)

    @staticmethod
    def forward(ctx: Any, theta: torch.Tensor, size: Tuple[int, ...],
                align_corners: bool) -> torch.Tensor:
        ctx.attrs = (size, align_corners)
        with _torch_threads():
            return _affine_grid(_plain(theta), size, align_corners)

    @staticmethod
    def backward(ctx: Any, grad_grid: torch.Tensor) -> Tuple[Optional[torch.Tensor], ...]:
        if not ctx.needs_input_grad[0]:
            return None, None, None
        size, align_corners = ctx.attrs
        return _AffineGridBackwardFunction.apply(grad_grid, size, align_corners), None, None


class _AffineGridBackwardFunction(torch.autograd.Function):
    symbolic = _no_export_symbolic("gridops.torch.affine_grid (its gradient)",
                                   "the gradient of affine_grid has no ONNX node; export the forward only")

    @staticmethod
    def forward(ctx: Any, grad_grid: torch.Tensor, size: Tuple[int, ...],
                align_corners: bool) -> torch.Tensor:
        ctx.attrs = (size, align_corners)
        with _torch_threads():
            return _affine_grid_backward(_plain(grad_grid), size, align_corners)

    @staticmethod
    def backward(ctx: Any, grad_theta: torch.Tensor) -> Tuple[Optional[torch.Tensor], ...]:
        if not ctx.needs_input_grad[0]:
            return None, None, None
        size, align_corners = ctx.attrs
        return _AffineGridFunction.apply(grad_theta, size, align_corners), None, None


def grid_sample(input: torch.Tensor, grid: torch.Tensor, mode: str = "bilinear",
                padding_mode: str = "zeros", align_corners: Optional[bool] = None, *,
                layout: str = "channels_first", grid_units: str = "normalized",
                grid_kind: str = "absolute", fill_value: float = 0.0) -> torch.Tensor:
    """Samples ``input`` at the normalized positions in ``grid`` with autograd support.

    As ``torch.nn.functional.grid_sample`` for CPU tensors, with gradients to ``input`` and
    ``grid`` from gridops' backward (only those that autograd asks for are computed):

    - input (N, C, D1, ..., Dr), grid (N, D1_out, ..., Dr_out, r), output (N, C, D1_out, ...,
      Dr_out); any spatial rank r >= 1 (PyTorch: 2 and 3).
    - mode: "bilinear" (alias "linear": linear along every axis, trilinear in 3-D), "nearest"
      (ties to even), "bicubic" (alias "cubic": Keys' A = -0.75 along every axis, so also in
      3-D, where PyTorch has none). padding_mode: "zeros", "border", "reflection", and the
      gridops extensions "wrap", "constant" and "fill" (with ``fill_value``).
    - grid_units="pixels" (grid values are pixel coordinates) and grid_kind="displacement"
      (the grid holds offsets added to each output point's own coordinate): gridops
      extensions, differentiated as the composition they replace (docs/ops/grid_sample.md,
      "Grid conventions"); they export to ONNX as the custom ai.gridops::GridSample.
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
    for name, value in (("mode", mode), ("padding_mode", padding_mode), ("layout", layout),
                        ("grid_units", grid_units), ("grid_kind", grid_kind)):
        if not isinstance(value, str):
            raise TypeError(f"gridops.torch.grid_sample: {name} must be a str, got {type(value).__name__}")
    if (grid_units == "normalized" and grid_kind == "absolute" and padding_mode in _PADDINGS
            and type(fill_value) in (int, float) and fill_value == 0):
        out: torch.Tensor = _GridSampleFunction.apply(input, grid, mode, padding_mode,
                                                      _align(fn, align_corners), layout)
        return out
    fill = _api._real(fill_value, "gridops.torch.grid_sample: fill_value")
    out = _GridSampleFunction.apply(input, grid, mode, padding_mode, _align(fn, align_corners),
                                    layout, grid_units, grid_kind, fill)
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
                 *, layout: str = "channels_first", grid_units: str = "normalized",
                 grid_kind: str = "absolute", fill_value: float = 0.0) -> None:
        super().__init__()
        self.mode = mode
        self.padding_mode = padding_mode
        self.align_corners = align_corners
        self.layout = layout
        self.grid_units = grid_units
        self.grid_kind = grid_kind
        self.fill_value = fill_value

    def forward(self, input: torch.Tensor, grid: torch.Tensor) -> torch.Tensor:
        return grid_sample(input, grid, self.mode, self.padding_mode, self.align_corners, layout=self.layout,
                           grid_units=self.grid_units, grid_kind=self.grid_kind, fill_value=self.fill_value)

    def extra_repr(self) -> str:
        return (f"mode={self.mode!r}, padding_mode={self.padding_mode!r}, align_corners={self.align_corners}"
                + (f", layout={self.layout!r}" if self.layout != "channels_first" else "")
                + (f", grid_units={self.grid_units!r}" if self.grid_units != "normalized" else "")
                + (f", grid_kind={self.grid_kind!r}" if self.grid_kind != "absolute" else "")
                + (f", fill_value={self.fill_value!r}" if self.fill_value != 0.0 else ""))


class AffineGrid(torch.nn.Module):
    """``affine_grid`` as a module: ``AffineGrid(align_corners)(theta, size)``."""

    def __init__(self, align_corners: Optional[bool] = None) -> None:
        super().__init__()
        self.align_corners = align_corners

    def forward(self, theta: torch.Tensor, size: Sequence[int]) -> torch.Tensor:
        return affine_grid(theta, size, self.align_corners)

    def extra_repr(self) -> str:
        return f"align_corners={self.align_corners}"


# ----------------------------------------------------------------------------------------
# Opset 20: torch 1.13 exports opsets up to 17, where ONNX has neither AffineGrid nor N-D
# GridSample; upgrade_onnx rewrites an opset 16/17 export to a later opset.

# Standard operators a model written for opset 17 must be rewritten for at 18-20: the
# reductions take `axes` as an input from 18 (ReduceSum already did from 13), Split needs
# `num_outputs` from 18 when it has no `split` input, GridSample renames its modes at 20.
# Every other change in 18-20 adds element types, attributes with defaults that keep the
# old meaning, or new operators. DFT-20 (axis as an input, another default) is refused.
_REDUCE_AXES_INPUT_18 = frozenset({"ReduceL1", "ReduceL2", "ReduceLogSum", "ReduceLogSumExp", "ReduceMax",
                                   "ReduceMean", "ReduceMin", "ReduceProd", "ReduceSumSquare"})
_NOT_UPGRADED = {"DFT": 20}
_MODES_OPSET20 = {"bilinear": "linear", "bicubic": "cubic"}


def _attrs(node: Any) -> dict:
    from onnx import helper
    out = {}
    for a in node.attribute:
        v = helper.get_attribute_value(a)
        out[a.name] = v.decode() if isinstance(v, bytes) else v
    return out


def upgrade_onnx(model: Any, opset: int = 20, *, check: bool = True) -> Any:
    """An ONNX model exported at opset 16 or 17 (by torch.onnx.export) rewritten for a later
    ``opset`` (16 to 20); returns a new onnx.ModelProto (``model``: a ModelProto, the bytes of
    one, or a path). Needs the ``onnx`` Python package.

    At opset 20 the custom nodes of gridops.torch become standard ones:
    ``ai.gridops::AffineGrid`` becomes AffineGrid-20 (its ``size`` attribute a Constant
    input), ``ai.gridops::GridSample`` with ``layout="channels_first"`` becomes GridSample-20
    (any spatial rank), and GridSample-16 nodes take the opset-20 mode names (``linear``,
    ``cubic``). Channels-last GridSample stays in ``ai.gridops`` (ONNX has no layout
    attribute), and so does one with gridops' extensions (grid_units, grid_kind, the
    wrap, constant and fill paddings). From opset 18 the reductions with an ``axes`` attribute get it as an input
    and Split without a ``split`` input gets ``num_outputs``; a node of an operator whose
    rewrite is not known (DFT at 20) is an error. The ``ai.gridops`` opset import is dropped
    when no custom node is left.

    check: run ``onnx.checker.check_model`` on the result when the installed onnx knows the
    opset (onnx 1.15 or later for opset 20; Debian 12's onnx 1.12 knows opsets up to 17).
    """
    import onnx
    from onnx import helper

    if isinstance(model, onnx.ModelProto):
        src_model = model
    elif isinstance(model, (bytes, bytearray)):
        src_model = onnx.load_from_string(bytes(model))
    else:
        src_model = onnx.load(os.fspath(model))
    m = onnx.ModelProto()
    m.CopyFrom(src_model)
    if not isinstance(opset, int) or not 16 <= opset <= 20:
        raise ValueError(f"gridops.torch.upgrade_onnx: opset must be 16 to 20, got {opset!r}")
    imports = {o.domain: o.version for o in m.opset_import}
    src = imports.get("", imports.get("ai.onnx"))
    if src is None:
        raise ValueError("gridops.torch.upgrade_onnx: the model imports no ONNX (ai.onnx) opset")
    if src not in (16, 17) or src > opset:
        raise ValueError(f"gridops.torch.upgrade_onnx: upgrades an opset 16 or 17 model to a later opset, "
                         f"got a model at opset {src} and opset={opset}")
    if len(m.functions):
        raise ValueError("gridops.torch.upgrade_onnx: models with local functions are not upgraded")

    used = set()

    def collect(graph: Any) -> None:
        used.update(v.name for v in graph.input)
        used.update(t.name for t in graph.initializer)
        for n in graph.node:
            used.update(n.output)
            for a in n.attribute:
                for sub in ([a.g] if a.type == onnx.AttributeProto.GRAPH else list(a.graphs)):
                    collect(sub)

    collect(m.graph)
    counter = [0]

    def fresh(base: str) -> str:
        while True:
            counter[0] += 1
            name = f"{base}_{counter[0]}"
            if name not in used:
                used.add(name)
                return name

    def ints_constant(values: Sequence[int], base: str) -> Tuple[Any, str]:
        out = fresh(base)
        node = helper.make_node("Constant", [], [out], name=fresh(base + "_Constant"),
                                value=helper.make_tensor(out, onnx.TensorProto.INT64, [len(values)],
                                                         [int(v) for v in values]))
        return node, out

    custom_left = [0]

    def upgrade_graph(graph: Any) -> None:
        nodes = []
        for n in graph.node:
            for a in n.attribute:
                for sub in ([a.g] if a.type == onnx.AttributeProto.GRAPH else list(a.graphs)):
                    upgrade_graph(sub)
            where = f"gridops.torch.upgrade_onnx: node '{n.name}' ({n.domain + '::' if n.domain else ''}{n.op_type})"
            at = _attrs(n)
            if n.domain == ONNX_DOMAIN:
                if n.op_type == "AffineGrid" and opset >= 20:
                    const, size = ints_constant(at["size"], (n.name or "AffineGrid") + "_size")
                    nodes.append(const)
                    nodes.append(helper.make_node("AffineGrid", [n.input[0], size], list(n.output), name=n.name,
                                                  align_corners=int(at.get("align_corners", 0))))
                    continue
                extension = (at.get("padding_mode", "zeros") in ("wrap", "constant", "fill")
                             or any(k in at for k in ("grid_units", "grid_kind", "fill_value")))
                if (n.op_type == "GridSample" and opset >= 20 and not extension
                        and at.get("layout", "channels_first") == "channels_first"):
                    mode = _MODES.get(str(at.get("mode", "linear")))
                    if mode is None:
                        raise ValueError(f"{where}: unknown mode {at.get('mode')!r}")
                    nodes.append(helper.make_node("GridSample", list(n.input), list(n.output), name=n.name, mode=mode,
                                                  padding_mode=str(at.get("padding_mode", "zeros")),
                                                  align_corners=int(at.get("align_corners", 0))))
                    continue
                if n.op_type not in ("AffineGrid", "GridSample", "MsDeformAttn"):
                    raise ValueError(f"{where}: not a node of gridops.torch")
                custom_left[0] += 1
            elif n.domain in ("", "ai.onnx"):
                if n.op_type in _NOT_UPGRADED and opset >= _NOT_UPGRADED[n.op_type]:
                    raise ValueError(f"{where}: {n.op_type} changed at opset {_NOT_UPGRADED[n.op_type]} and "
                                     f"upgrade_onnx does not rewrite it; export at opset 17")
                if n.op_type == "GridSample" and opset >= 20 and "mode" in at:
                    new = onnx.NodeProto()
                    new.CopyFrom(n)
                    for a in new.attribute:
                        if a.name == "mode":
                            a.s = _MODES_OPSET20.get(at["mode"], at["mode"]).encode()
                    nodes.append(new)
                    continue
                if n.op_type in _REDUCE_AXES_INPUT_18 and opset >= 18 and "axes" in at:
                    const, axes = ints_constant(at["axes"], (n.name or n.op_type) + "_axes")
                    nodes.append(const)
                    new = helper.make_node(n.op_type, [n.input[0], axes], list(n.output), name=n.name,
                                           **{k: v for k, v in at.items() if k != "axes"})
                    nodes.append(new)
                    continue
                if n.op_type == "Split" and opset >= 18 and (len(n.input) < 2 or not n.input[1]):
                    new = onnx.NodeProto()
                    new.CopyFrom(n)
                    new.attribute.append(helper.make_attribute("num_outputs", len(n.output)))
                    nodes.append(new)
                    continue
            nodes.append(n)
        del graph.node[:]
        graph.node.extend(nodes)

    upgrade_graph(m.graph)
    for o in m.opset_import:
        if o.domain in ("", "ai.onnx"):
            o.version = opset
    if not custom_left[0]:
        keep = [o for o in m.opset_import if o.domain != ONNX_DOMAIN]
        del m.opset_import[:]
        m.opset_import.extend(keep)
    if check and onnx.defs.onnx_opset_version() >= opset:
        onnx.checker.check_model(m)
    return m


def export_onnx(module: torch.nn.Module, args: Any, f: Any, *, opset: int = 20, check: bool = True,
                **kwargs: Any) -> None:
    """``torch.onnx.export(module, args, f, ...)`` at ONNX ``opset`` 16 to 20 for models that
    use gridops.torch (any other keyword goes to torch.onnx.export; ``f`` is a path or a
    binary file object).

    Opsets 16 and 17 are torch's own export with the ``ai.gridops`` custom domain declared;
    18 to 20 export at 17 and rewrite the model with :func:`upgrade_onnx`, so at opset 20
    affine_grid is AffineGrid-20 and every channels-first grid_sample GridSample-20 (see
    docs/onnx.md, "Exporting gridops.torch models to ONNX"). Needs the ``onnx`` Python
    package for opsets 18 to 20 and for ``check`` (``onnx.checker.check_model``, run when
    the installed onnx knows the opset). The whole model is built in memory (no external
    data: models under 2 GiB).
    """
    if "opset_version" in kwargs:
        raise TypeError("gridops.torch.export_onnx: pass opset=, not opset_version=")
    if not isinstance(opset, int) or not 16 <= opset <= 20:
        raise ValueError(f"gridops.torch.export_onnx: opset must be 16 to 20, got {opset!r}")
    custom = dict(kwargs.pop("custom_opsets", None) or {})
    custom.setdefault(ONNX_DOMAIN, ONNX_DOMAIN_VERSION)
    buf = io.BytesIO()
    with warnings.catch_warnings():
        # Torch's shape inference cannot see into custom-domain nodes (their outputs get
        # symbolic dims); it warns once per node and pass.
        warnings.filterwarnings("ignore", category=UserWarning,
                                message=r"The shape inference of ai\.gridops::")
        torch.onnx.export(module, args, buf, opset_version=min(opset, 17), custom_opsets=custom, **kwargs)
    data = buf.getvalue()
    if opset > 17:
        data = upgrade_onnx(data, opset, check=check).SerializeToString()
    elif check:
        import onnx
        onnx.checker.check_model(onnx.load_from_string(data))
    if isinstance(f, (str, bytes, os.PathLike)):
        with open(f, "wb") as out:
            out.write(data)
    else:
        f.write(data)


# Multi-scale deformable attention (its own file; it uses the helpers above).
from ._torch_ms_deform_attn import MSDeformAttn, MsDeformAttn, ms_deform_attn  # noqa: E402
