"""The public functions and plans of gridops: Python signatures over the extension.

Each function here checks the arguments the extension would take as C++ types (names of
modes and layouts, flags, numbers), so that a wrong one is a TypeError or ValueError that
names the argument (the extension's own dispatcher would print every argument, a whole
tensor included), accepts the PyTorch and NumPy spellings listed in docs/python.md
("Names from PyTorch and NumPy"), keeps a torch input's channels-last memory format where
PyTorch's own operator does (resample, resize, pad), and then calls the extension. The signatures are real (inspect.signature works), the functions
and plans pickle, and the docstrings are the extension's.
"""

from __future__ import annotations

import numbers
from typing import Any

from . import _gridops as _g

_MISSING: Any = object()


# --- argument checks ------------------------------------------------------------------------

def _short(value: Any) -> str:
    r = repr(value)
    return r if len(r) <= 60 else r[:57] + "..."


def _str(value: Any, what: str) -> str:
    if type(value) is str:  # the common case first: these checks run on every call
        return value
    if not isinstance(value, str):
        raise TypeError(f"{what} must be a str, got {type(value).__name__} {_short(value)}")
    return value


def _opt_str(value: Any, what: str) -> Any:
    return None if value is None else _str(value, what)


def _flag(value: Any, what: str) -> bool:
    """A bool (or a NumPy bool, or 0 / 1)."""
    if value is True or value is False:
        return value
    if type(value).__name__ == "bool_" or (isinstance(value, numbers.Integral) and value in (0, 1)):
        return bool(value)
    raise TypeError(f"{what} must be True or False, got {type(value).__name__} {_short(value)}")


def _real(value: Any, what: str) -> float:
    """An int or float (or a NumPy / torch real scalar); not a bool, str or complex."""
    if type(value) is float:
        return value
    if (isinstance(value, (bool, str, bytes, complex)) or type(value).__name__ == "bool_"
            or not (isinstance(value, numbers.Real) or hasattr(value, "__float__"))):
        raise TypeError(f"{what} must be a real number, got {type(value).__name__} {_short(value)}")
    return float(value)


def _int(value: Any, what: str) -> int:
    if isinstance(value, bool) or not hasattr(value, "__index__"):
        raise TypeError(f"{what} must be an int, got {type(value).__name__} {_short(value)}")
    return value.__index__()


def _doc(name: str) -> Any:
    def attach(fn: Any) -> Any:
        fn.__doc__ = getattr(_g, name).__doc__
        fn.__module__ = "gridops"
        fn.__qualname__ = name
        return fn
    return attach


# --- torch memory format --------------------------------------------------------------------

def _channels_last_torch(x: Any) -> bool:
    """Whether x is a 4-D or 5-D torch tensor in channels-last memory format (and not also
    contiguous, as a tensor with C == 1 or 1x1 spatial is): F.interpolate and F.pad then give
    a channels-last result, and so do resample, resize and pad (F.grid_sample gives a
    contiguous one, and so do grid_sample and affine_warp)."""
    if not type(x).__module__.startswith("torch") or not hasattr(x, "is_contiguous"):
        return False
    import torch

    if not isinstance(x, torch.Tensor) or x.dim() not in (4, 5) or x.is_contiguous():
        return False
    fmt = torch.channels_last if x.dim() == 4 else torch.channels_last_3d
    return bool(x.is_contiguous(memory_format=fmt))


def _to_channels_last(t: Any) -> Any:
    import torch

    return t.contiguous(memory_format=torch.channels_last if t.dim() == 4 else torch.channels_last_3d)


# --- GridSample, AffineGrid, AffineWarp ------------------------------------------------------

@_doc("grid_sample")
def grid_sample(input: Any, grid: Any, mode: str = "bilinear", padding_mode: str = "zeros",
                align_corners: Any = False, *, layout: str = "channels_first", out: Any = None,
                full_size: Any = None, origin: Any = None, grid_units: str = "normalized",
                grid_kind: str = "absolute", fill_value: Any = 0.0) -> Any:
    mode = _str(mode, "grid_sample: mode")
    padding_mode = _str(padding_mode, "grid_sample: padding_mode")
    layout = _str(layout, "grid_sample: layout")
    if (out is None and full_size is None and origin is None and layout == "channels_first"
            and grid_units == "normalized" and grid_kind == "absolute"
            and type(fill_value) in (int, float) and fill_value == 0):
        return _g.grid_sample(input, grid, mode, padding_mode, align_corners)  # no keywords: faster
    return _g.grid_sample(input, grid, mode, padding_mode, align_corners, layout=layout, out=out,
                          full_size=full_size, origin=origin,
                          grid_units=_str(grid_units, "grid_sample: grid_units"),
                          grid_kind=_str(grid_kind, "grid_sample: grid_kind"),
                          fill_value=_real(fill_value, "grid_sample: fill_value"))


@_doc("grid_sample_input_box")
def grid_sample_input_box(grid: Any, full_size: Any, mode: str = "bilinear",
                          padding_mode: str = "zeros", align_corners: Any = False, *,
                          grid_units: str = "normalized", grid_kind: str = "absolute",
                          fill_value: Any = 0.0) -> Any:
    return _g.grid_sample_input_box(grid, full_size, _str(mode, "grid_sample_input_box: mode"),
                                    _str(padding_mode, "grid_sample_input_box: padding_mode"),
                                    align_corners,
                                    grid_units=_str(grid_units, "grid_sample_input_box: grid_units"),
                                    grid_kind=_str(grid_kind, "grid_sample_input_box: grid_kind"),
                                    fill_value=_real(fill_value, "grid_sample_input_box: fill_value"))


@_doc("grid_sample_backward")
def grid_sample_backward(grad_output: Any, input: Any, grid: Any, mode: str = "bilinear",
                         padding_mode: str = "zeros", align_corners: Any = False, *,
                         layout: str = "channels_first", input_grad: Any = True,
                         grid_grad: Any = True, grad_input_out: Any = None,
                         grad_grid_out: Any = None, grid_units: str = "normalized",
                         grid_kind: str = "absolute", fill_value: Any = 0.0) -> Any:
    return _g.grid_sample_backward(
        grad_output, input, grid, _str(mode, "grid_sample_backward: mode"),
        _str(padding_mode, "grid_sample_backward: padding_mode"), align_corners,
        layout=_str(layout, "grid_sample_backward: layout"),
        input_grad=_flag(input_grad, "grid_sample_backward: input_grad"),
        grid_grad=_flag(grid_grad, "grid_sample_backward: grid_grad"),
        grad_input_out=grad_input_out, grad_grid_out=grad_grid_out,
        grid_units=_str(grid_units, "grid_sample_backward: grid_units"),
        grid_kind=_str(grid_kind, "grid_sample_backward: grid_kind"),
        fill_value=_real(fill_value, "grid_sample_backward: fill_value"))


@_doc("affine_grid")
def affine_grid(theta: Any, size: Any, align_corners: Any = False, *, out: Any = None,
                window: Any = None) -> Any:
    return _g.affine_grid(theta, size, align_corners, out=out, window=window)


@_doc("affine_grid_backward")
def affine_grid_backward(grad_grid: Any, size: Any, align_corners: Any = False, *,
                         out: Any = None) -> Any:
    return _g.affine_grid_backward(grad_grid, size, align_corners, out=out)


@_doc("affine_warp")
def affine_warp(input: Any, theta: Any, size: Any, mode: str = "bilinear",
                padding_mode: str = "zeros", align_corners: Any = False, *,
                layout: str = "channels_first", out: Any = None, window: Any = None,
                full_size: Any = None, origin: Any = None, threads: Any = None) -> Any:
    mode = _str(mode, "affine_warp: mode")
    padding_mode = _str(padding_mode, "affine_warp: padding_mode")
    layout = _str(layout, "affine_warp: layout")
    return _g.affine_warp(input, theta, size, mode, padding_mode, align_corners, layout=layout,
                          out=out, window=window, full_size=full_size, origin=origin,
                          threads=threads)


@_doc("affine_warp_input_box")
def affine_warp_input_box(theta: Any, full_size: Any, size: Any, out_origin: Any, out_shape: Any,
                          mode: str = "bilinear", padding_mode: str = "zeros",
                          align_corners: Any = False) -> Any:
    return _g.affine_warp_input_box(theta, full_size, size, out_origin, out_shape,
                                    _str(mode, "affine_warp_input_box: mode"),
                                    _str(padding_mode, "affine_warp_input_box: padding_mode"),
                                    align_corners)


# --- Resize ---------------------------------------------------------------------------------

def _resize_axes(rank: int, scales: Any, sizes: Any, axes: Any) -> tuple[Any, Any, Any]:
    """A single number as scales (or a single int as sizes) means every spatial axis, as in
    F.interpolate: the axes after N and C of an input of this rank, or each of axes=."""
    seqs = (list, tuple, type(None))  # the common cases, decided without the ABCs below
    one_scale = (type(scales) not in seqs and isinstance(scales, numbers.Real)
                 and not isinstance(scales, bool))
    one_size = (type(sizes) not in seqs and isinstance(sizes, numbers.Integral)
                and not isinstance(sizes, bool))
    if not (one_scale or one_size):
        return scales, sizes, axes
    if axes is None:
        if rank < 3:
            raise ValueError(f"resize: a single {'scale' if one_scale else 'size'} applies to the "
                             f"spatial axes (after N and C), but input has rank {rank}: give one "
                             "per axis or axes=")
        axes = list(range(2, rank))
    n = len(list(axes))
    if one_scale:
        scales = [float(scales)] * n
    if one_size:
        sizes = [int(sizes)] * n
    return scales, sizes, axes


_RESIZE_MODES = {"nearest": "nearest", "linear": "linear", "cubic": "cubic",
                 "bilinear": "linear", "trilinear": "linear", "bicubic": "cubic"}


def _resize_mode(mode: Any, what: str) -> str:
    mode = _str(mode, what)
    if mode in ("nearest-exact", "area"):
        hint = ("mode='nearest' with nearest_mode='round_prefer_ceil' and the default half_pixel "
                "coordinates" if mode == "nearest-exact" else "mode='linear', antialias=True")
        raise ValueError(f"{what}: '{mode}' is PyTorch's name, not an ONNX Resize mode: {hint} "
                         "is the nearest equivalent (docs/coming-from.md)")
    return _RESIZE_MODES.get(mode, mode)


def _resize_attrs(fn: str, mode: Any, coordinate_transformation_mode: Any, nearest_mode: Any,
                  cubic_coeff_a: Any, exclude_outside: Any, antialias: Any,
                  keep_aspect_ratio_policy: Any) -> dict[str, Any]:
    """Resize's attributes, checked and named for `fn` (resize, resize_input_box)."""
    return dict(
        mode=_resize_mode(mode, f"{fn}: mode"),
        coordinate_transformation_mode=_str(coordinate_transformation_mode,
                                            f"{fn}: coordinate_transformation_mode"),
        nearest_mode=_str(nearest_mode, f"{fn}: nearest_mode"),
        cubic_coeff_a=_real(cubic_coeff_a, f"{fn}: cubic_coeff_a"),
        exclude_outside=_flag(exclude_outside, f"{fn}: exclude_outside"),
        antialias=_flag(antialias, f"{fn}: antialias"),
        keep_aspect_ratio_policy=_str(keep_aspect_ratio_policy, f"{fn}: keep_aspect_ratio_policy"))


@_doc("resize")
def resize(input: Any, scales: Any = None, sizes: Any = None, mode: str = "nearest", *,
           coordinate_transformation_mode: str = "half_pixel",
           nearest_mode: str = "round_prefer_floor", cubic_coeff_a: Any = -0.75,
           exclude_outside: Any = False, antialias: Any = False,
           keep_aspect_ratio_policy: str = "stretch", extrapolation_value: Any = 0.0,
           axes: Any = None, roi: Any = None, out: Any = None, window: Any = None) -> Any:
    scales, sizes, axes = _resize_axes(len(getattr(input, "shape", ())), scales, sizes, axes)
    attrs = _resize_attrs("resize", mode, coordinate_transformation_mode, nearest_mode,
                          cubic_coeff_a, exclude_outside, antialias, keep_aspect_ratio_policy)
    result = _g.resize(input, scales, sizes, attrs.pop("mode"), **attrs,
                       extrapolation_value=_real(extrapolation_value, "resize: extrapolation_value"),
                       axes=axes, roi=roi, out=out, window=window)
    if out is None and window is None and _channels_last_torch(input) and result.dim() == input.dim():
        result = _to_channels_last(result)  # one copy: Resize plans the logical axes
    return result


def resize_backward(grad: Any, input_shape: Any, scales: Any = None, sizes: Any = None,
                    mode: str = "nearest", *, coordinate_transformation_mode: str = "half_pixel",
                    nearest_mode: str = "round_prefer_floor", cubic_coeff_a: Any = -0.75,
                    exclude_outside: Any = False, antialias: Any = False,
                    keep_aspect_ratio_policy: str = "stretch", axes: Any = None, roi: Any = None,
                    out: Any = None) -> Any:
    """resize_backward(grad, input_shape, scales=None, sizes=None, mode="nearest", *, ..., out=None)

    The gradient of gridops.resize with respect to its input: the adjoint (transpose) of
    the Resize of an input of input_shape with these attributes (the same names and
    meanings as gridops.resize), applied to grad, the gradient with respect to the output.
    Output points at the extrapolation value (tf_crop_and_resize outside the input) give
    no gradient. Deterministic (the same bits for any thread count); float32 arithmetic
    (float64 for float64 and complex128), within the tolerance of docs/ops/resize.md
    ("Backward") of the reference, which sums in float64. dtypes: float16, bfloat16,
    float32, float64, complex64, complex128. ResizePlan(...).backward(grad) plans once.
    """
    try:
        rank = len(input_shape)
    except TypeError:
        rank = 0  # the extension names the bad input_shape
    scales, sizes, axes = _resize_axes(rank, scales, sizes, axes)
    attrs = _resize_attrs("resize_backward", mode, coordinate_transformation_mode, nearest_mode,
                          cubic_coeff_a, exclude_outside, antialias, keep_aspect_ratio_policy)
    dtype = getattr(grad, "dtype", None)
    if dtype is None:
        raise TypeError(f"resize_backward: grad must be an array or tensor, got {_short(grad)}")
    plan = _g.ResizePlan(input_shape, dtype, scales, sizes, attrs.pop("mode"), **attrs, axes=axes,
                         roi=roi)
    return plan.backward(grad, out=out)


def _int_list(obj: Any, what: str) -> list:
    """A flat list of ints from an array, tensor or (nested) sequence of ints."""
    if hasattr(obj, "tolist"):
        obj = obj.tolist()
    out: list = []

    def walk(o: Any) -> None:
        if isinstance(o, (list, tuple)):
            for e in o:
                walk(e)
        else:
            out.append(_int(o, what))
    walk(obj)
    return out


@_doc("ms_deform_attn")
def ms_deform_attn(value: Any, spatial_shapes: Any, level_start_index: Any,
                   sampling_locations: Any, attention_weights: Any, *, out: Any = None) -> Any:
    return _g.ms_deform_attn(value, _int_list(spatial_shapes, "ms_deform_attn: spatial_shapes"),
                             _int_list(level_start_index, "ms_deform_attn: level_start_index"),
                             sampling_locations, attention_weights, out=out)


@_doc("ms_deform_attn_backward")
def ms_deform_attn_backward(grad_output: Any, value: Any, spatial_shapes: Any,
                            level_start_index: Any, sampling_locations: Any,
                            attention_weights: Any, *, value_grad: Any = True,
                            locations_grad: Any = True, weights_grad: Any = True) -> Any:
    what = "ms_deform_attn_backward"
    return _g.ms_deform_attn_backward(
        grad_output, value, _int_list(spatial_shapes, what + ": spatial_shapes"),
        _int_list(level_start_index, what + ": level_start_index"), sampling_locations,
        attention_weights, value_grad=_flag(value_grad, what + ": value_grad"),
        locations_grad=_flag(locations_grad, what + ": locations_grad"),
        weights_grad=_flag(weights_grad, what + ": weights_grad"))


@_doc("resize_input_box")
def resize_input_box(full_input_shape: Any, out_begin: Any, out_end: Any, scales: Any = None,
                     sizes: Any = None, mode: str = "nearest", *,
                     coordinate_transformation_mode: str = "half_pixel",
                     nearest_mode: str = "round_prefer_floor", cubic_coeff_a: Any = -0.75,
                     exclude_outside: Any = False, antialias: Any = False,
                     keep_aspect_ratio_policy: str = "stretch", axes: Any = None,
                     roi: Any = None) -> Any:
    try:
        rank = len(full_input_shape)
    except TypeError:
        rank = 0  # the extension names the bad full_input_shape
    scales, sizes, axes = _resize_axes(rank, scales, sizes, axes)
    attrs = _resize_attrs("resize_input_box", mode, coordinate_transformation_mode, nearest_mode,
                          cubic_coeff_a, exclude_outside, antialias, keep_aspect_ratio_policy)
    return _g.resize_input_box(full_input_shape, out_begin, out_end, scales, sizes,
                               attrs.pop("mode"), **attrs, axes=axes, roi=roi)


# --- Gather, Pad ----------------------------------------------------------------------------

@_doc("gather")
def gather(data: Any, indices: Any, axis: Any = 0, *, out: Any = None) -> Any:
    return _g.gather(data, indices, _int(axis, "gather: axis"), out=out)


# PyTorch's and NumPy's names of the Pad modes gridops has; NumPy's statistical modes and
# linear_ramp are refused by name.
_PAD_MODES = {"constant": "constant", "edge": "edge", "reflect": "reflect",
              "symmetric": "symmetric", "wrap": "wrap", "replicate": "edge", "circular": "wrap"}
_NUMPY_ONLY_PAD_MODES = ("maximum", "mean", "median", "minimum", "linear_ramp", "empty")


def _pad_mode(mode: Any, what: str) -> str:
    mode = _str(mode, what)
    if mode in _NUMPY_ONLY_PAD_MODES:
        raise ValueError(f"{what}: numpy.pad's mode '{mode}' is not a Pad mode (Pad moves "
                         "elements: constant, edge / replicate, reflect, symmetric, wrap / circular)")
    return _PAD_MODES.get(mode, mode)


def _torch_pads(pads: Any, rank: int) -> list[tuple[int, int]]:
    """F.pad's pad tuple: (before, after) pairs from the last axis backwards."""
    try:
        flat = [_int(p, "pad: pads") for p in pads]
    except TypeError as e:
        if "must be an int" in str(e):
            raise
        raise TypeError(f"pad: with order='torch', pads must be a flat sequence of ints "
                        f"(F.pad's form), got {_short(pads)}") from None
    if len(flat) % 2 or len(flat) > 2 * rank:
        raise ValueError(f"pad: with order='torch', pads must have an even number of entries, at "
                         f"most 2 * rank = {2 * rank} (F.pad's form: (before, after) of the last "
                         f"axis first), got {len(flat)}")
    pairs = [(0, 0)] * rank
    for k in range(len(flat) // 2):
        pairs[rank - 1 - k] = (flat[2 * k], flat[2 * k + 1])
    return pairs


@_doc("pad")
def pad(input: Any, pads: Any, mode: str = "constant", value: Any = None, axes: Any = None, *,
        out: Any = None, order: str = "onnx", constant_values: Any = _MISSING) -> Any:
    mode = _pad_mode(mode, "pad: mode")
    order = _str(order, "pad: order")
    if constant_values is not _MISSING:
        if value is not None:
            raise TypeError("pad: give value or constant_values (numpy.pad's name), not both")
        if isinstance(constant_values, (tuple, list)):
            raise ValueError("pad: constant_values must be one scalar (numpy.pad's per-axis "
                             f"values are not supported), got {_short(constant_values)}")
        value = constant_values
    if order == "torch":
        if axes is not None:
            raise ValueError("pad: order='torch' gives the axes itself (the last ones): axes= "
                             "must be None")
        pads = _torch_pads(pads, len(getattr(input, "shape", ())))
    elif order != "onnx":
        raise ValueError(f"pad: order must be 'onnx' (a flat sequence is all begins, then all "
                         f"ends; or NumPy's pad_width pairs) or 'torch' (F.pad's tuple), got "
                         f"{_short(order)}")
    if out is None and _channels_last_torch(input):
        # Pad the channels-last storage as (N, D..., C), an exact data movement, and return
        # it viewed as (N, C, D...): F.pad keeps the memory format the same way.
        r = input.dim()
        perm = [0] + list(range(2, r)) + [1]  # storage order of the axes
        where = {a: i for i, a in enumerate(perm)}  # input axis -> axis of the permuted view
        if axes is None:
            axes = list(range(r))
        mapped: Any = []
        for a in axes:
            if isinstance(a, bool) or not hasattr(a, "__index__") or not -r <= a.__index__() < r:
                mapped = None  # the extension reports the bad entry, naming it
                break
            mapped.append(where[a.__index__() % r])
        if mapped is not None:
            res = _g.pad(input.permute(*perm), pads, mode, value, mapped)
            back = [0, r - 1] + list(range(1, r - 1))
            return res.permute(*back)
    if out is None:
        return _g.pad(input, pads, mode, value, axes)
    return _g.pad(input, pads, mode, value, axes, out=out)


@_doc("pad_backward")
def pad_backward(grad: Any, input_shape: Any, pads: Any, mode: str = "constant", axes: Any = None,
                 *, out: Any = None, order: str = "onnx") -> Any:
    mode = _pad_mode(mode, "pad_backward: mode")
    order = _str(order, "pad_backward: order")
    if order == "torch":
        if axes is not None:
            raise ValueError("pad_backward: order='torch' gives the axes itself (the last ones): "
                             "axes= must be None")
        try:
            rank = len(input_shape)
        except TypeError:
            rank = 0  # the extension names the bad input_shape
        pads = _torch_pads(pads, rank)
    elif order != "onnx":
        raise ValueError(f"pad_backward: order must be 'onnx' or 'torch' (as in gridops.pad), got "
                         f"{_short(order)}")
    if out is None:
        return _g.pad_backward(grad, input_shape, pads, mode, axes)
    return _g.pad_backward(grad, input_shape, pads, mode, axes, out=out)


# --- Resample -------------------------------------------------------------------------------

def _resample_mode(mode: Any, what: str) -> str:
    mode = _str(mode, what)
    if mode in ("bicubic", "cubic", "nearest-exact", "area"):
        hint = {"bicubic": "gridops.resize(mode='cubic')", "cubic": "gridops.resize(mode='cubic')",
                "nearest-exact": "mode='nearest' (Resample's nearest is PyTorch's nearest-exact)",
                "area": "gridops.resize(mode='linear', antialias=True)"}[mode]
        raise ValueError(f"{what}: '{mode}' is not a Resample mode (oneDNN's: 'nearest', 'linear'; "
                         f"also 'bilinear', 'trilinear'): use {hint}")
    return mode


@_doc("resample")
def resample(input: Any, size: Any = None, scale_factor: Any = None, mode: str = "linear", *,
             layout: str = "channels_first", channels: Any = None, out_layout: Any = None,
             out: Any = None, window: Any = None) -> Any:
    mode = _resample_mode(mode, "resample: mode")
    layout = _str(layout, "resample: layout")
    out_layout = _opt_str(out_layout, "resample: out_layout")
    keep_cl = (out is None and out_layout is None and window is None
               and layout == "channels_first" and _channels_last_torch(input))
    if keep_cl:
        # Written channels-last as (N, D..., C) and returned viewed as (N, C, D...), like
        # F.interpolate's result for a channels-last input.
        res = _g.resample(input, size, scale_factor, mode, layout=layout, channels=channels,
                          out_layout="channels_last")
        r = res.dim()
        return res.permute(0, r - 1, *range(1, r - 1))
    return _g.resample(input, size, scale_factor, mode, layout=layout, channels=channels,
                       out_layout=out_layout, out=out, window=window)


@_doc("resample_input_box")
def resample_input_box(full_input_size: Any, full_output_size: Any, out_begin: Any, out_end: Any,
                       mode: str = "linear") -> Any:
    return _g.resample_input_box(full_input_size, full_output_size, out_begin, out_end,
                                 _resample_mode(mode, "resample_input_box: mode"))


@_doc("resample_backward")
def resample_backward(grad_output: Any, input_size: Any, mode: str = "linear", *,
                      layout: str = "channels_first", out_layout: Any = None,
                      out: Any = None) -> Any:
    return _g.resample_backward(grad_output, input_size,
                                _resample_mode(mode, "resample_backward: mode"),
                                layout=_str(layout, "resample_backward: layout"),
                                out_layout=_opt_str(out_layout, "resample_backward: out_layout"),
                                out=out)


# --- threads and the ISA cap ----------------------------------------------------------------

@_doc("set_num_threads")
def set_num_threads(n: Any) -> None:
    _g.set_num_threads(n)


@_doc("get_num_threads")
def get_num_threads() -> int:
    return int(_g.get_num_threads())


def num_threads(n: Any) -> Any:
    """num_threads(n): a context manager; inside the with block the calling thread's gridops
    calls use n threads (0: the default count), whatever set_num_threads says. Other threads
    are unaffected and blocks nest. gridops.torch uses it to follow torch.get_num_threads().

        with gridops.num_threads(1):
            y = gridops.grid_sample(x, grid)
    """
    return _g._ThreadScope(n)


num_threads.__module__ = "gridops"


@_doc("set_max_isa")
def set_max_isa(level: Any) -> None:
    _g.set_max_isa(_str(level, "set_max_isa: level"))


@_doc("max_isa")
def max_isa() -> str:
    return str(_g.max_isa())


@_doc("effective_isa")
def effective_isa() -> str:
    return str(_g.effective_isa())


@_doc("isa_report")
def isa_report() -> str:
    return str(_g.isa_report())


# --- plans ----------------------------------------------------------------------------------

def _rebuild_plan(cls: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    return cls(*args, **kwargs)


class _PlanPickle:
    """Plans pickle as their constructor's arguments: unpickling plans again (tables are
    rebuilt, as in the process that made the plan)."""

    _gridops_args: tuple[tuple[Any, ...], dict[str, Any]]

    def __reduce__(self) -> Any:
        args, kwargs = self._gridops_args
        return (_rebuild_plan, (type(self), args, kwargs))


def _plan(base: Any, name: str, init_doc_args: str) -> Any:
    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        base.__init__(self, *args, **kwargs)
        self._gridops_args = (args, kwargs)

    cls = type(name, (_PlanPickle, base), {"__init__": __init__, "__module__": "gridops",
                                           "__doc__": base.__doc__})
    import ast
    import inspect

    params = [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
    kind = inspect.Parameter.POSITIONAL_OR_KEYWORD
    for part in init_doc_args.split(", "):
        if part == "*":
            kind = inspect.Parameter.KEYWORD_ONLY
            continue
        pname, eq, default = part.partition("=")
        params.append(inspect.Parameter(
            pname, kind, default=ast.literal_eval(default) if eq else inspect.Parameter.empty))
    cls.__init__.__signature__ = inspect.Signature(params)
    return cls


GridSamplePlan = _plan(_g.GridSamplePlan, "GridSamplePlan",
                       "input_shape, grid_shape, dtype='float32', grid_dtype=None, "
                       "mode='bilinear', padding_mode='zeros', align_corners=False, "
                       "layout='channels_first', *, grid_units='normalized', "
                       "grid_kind='absolute', fill_value=0.0")
AffineGridPlan = _plan(_g.AffineGridPlan, "AffineGridPlan",
                       "theta_shape, size, dtype='float32', align_corners=False")
GatherPlan = _plan(_g.GatherPlan, "GatherPlan",
                   "data_shape, indices_shape, dtype='float32', indices_dtype='int64', axis=0")
PadPlan = _plan(_g.PadPlan, "PadPlan",
                "input_shape, pads, dtype='float32', mode='constant', axes=None")
ResizePlan = _plan(_g.ResizePlan, "ResizePlan",
                   "input_shape, dtype='float32', scales=None, sizes=None, mode='nearest', *, "
                   "coordinate_transformation_mode='half_pixel', "
                   "nearest_mode='round_prefer_floor', cubic_coeff_a=-0.75, "
                   "exclude_outside=False, antialias=False, keep_aspect_ratio_policy='stretch', "
                   "extrapolation_value=0.0, axes=None, roi=None")
ResamplePlan = _plan(_g.ResamplePlan, "ResamplePlan",
                     "input_size, output_size, mode='linear', dtype='float32', "
                     "layout='channels_first', out_layout=None")
