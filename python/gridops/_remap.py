"""gridops.remap: an OpenCV-style entry point to GridSample with pixel maps, 2-D and 3-D.

docs/ops/remap.md states the contract and how the results compare with cv::remap.
"""

import numbers
from typing import Any, Optional

import numpy as np

from . import _api

# OpenCV's constants (cv2.INTER_*, cv2.BORDER_*), so that cv2 users can pass them as they are.
_INTERPOLATIONS = {0: "nearest", 1: "bilinear", 2: "bicubic",
                   "nearest": "nearest", "linear": "bilinear", "bilinear": "bilinear",
                   "cubic": "bicubic", "bicubic": "bicubic"}
_BORDER_NAMES = {0: "constant", 1: "replicate", 2: "reflect", 3: "wrap", 4: "reflect_101",
                 5: "transparent"}
# OpenCV border -> (GridSample padding_mode, align_corners): with pixel maps align_corners
# only sets reflection's mirrors: -0.5 and L-0.5 (edge repeated, BORDER_REFLECT) or 0 and L-1
# (BORDER_REFLECT_101).
_BORDERS = {"constant": ("constant", False), "replicate": ("border", False),
            "reflect": ("reflection", False), "reflect_101": ("reflection", True),
            "reflect101": ("reflection", True), "wrap": ("wrap", False)}


def _interpolation(value: Any) -> str:
    key = value.lower() if isinstance(value, str) else value
    if isinstance(key, bool) or not isinstance(key, (str, numbers.Integral)) or key not in _INTERPOLATIONS:
        raise ValueError(f"remap: interpolation must be nearest, linear or cubic (or cv2.INTER_NEAREST, "
                         f"INTER_LINEAR, INTER_CUBIC), got {value!r}")
    return _INTERPOLATIONS[key]


def _border(value: Any) -> str:
    name = value.lower() if isinstance(value, str) else _BORDER_NAMES.get(value) \
        if isinstance(value, numbers.Integral) and not isinstance(value, bool) else None
    if name == "transparent":
        raise ValueError("remap: border_mode transparent (cv2.BORDER_TRANSPARENT) is not supported "
                         "(it leaves dst's pixels outside unwritten)")
    if name not in _BORDERS:
        raise ValueError(f"remap: border_mode must be constant, replicate, reflect, reflect_101 or wrap "
                         f"(or the cv2.BORDER_* constants), got {value!r}")
    return name


def _border_value(value: Any) -> float:
    if isinstance(value, (tuple, list)):
        vals = {_api._real(v, "remap: border_value") for v in value}
        if len(vals) > 1:
            raise ValueError(f"remap: border_value must be one value for every channel, got {tuple(value)!r}")
        return vals.pop() if vals else 0.0
    return _api._real(value, "remap: border_value")


def remap(src: Any, map1: Any, map2: Any = None, interpolation: Any = "linear",
          border_mode: Any = "constant", border_value: Any = 0.0, *, map3: Any = None,
          out: Any = None) -> Any:
    """Samples an image or volume at pixel positions, as ``cv2.remap`` (and in 3-D).

    src: an image (H, W) or (H, W, C), or with ``map1`` of 3 components (or ``map3``) a
    volume (D, H, W) or (D, H, W, C): channels last, any dtype GridSample takes (uint8 and
    float32 have the fast paths). map1: the pixel coordinates as one array
    (H_out, W_out, 2) of (x, y) (or (D_out, H_out, W_out, 3) of (x, y, z)), or the x map
    (H_out, W_out) with map2 the y map (and map3 the z map); float32 or float64 (float16
    and bfloat16 too); pixel p is the centre of pixel p, as in OpenCV. interpolation:
    "nearest", "linear", "cubic" or cv2.INTER_NEAREST / INTER_LINEAR / INTER_CUBIC.
    border_mode: "constant" (taps outside read border_value), "replicate", "reflect"
    (edge repeated), "reflect_101", "wrap", or the cv2.BORDER_* constants; border_value:
    one number (or a tuple of equal numbers). Returns dst (H_out, W_out[, C]) (or
    (D_out, H_out, W_out[, C])) of src's dtype, or writes ``out``.

    Differences from cv2.remap: weights are exact float32 (OpenCV rounds them to 1/32 of a
    pixel and its fixed-point maps to 1/32); integer results truncate toward zero after
    interpolation in float (OpenCV rounds to nearest); no size limit below 2^31 per axis
    (OpenCV: 32767); 3-D; nearest rounds half to even (OpenCV: floor(x + 0.5)). See
    docs/ops/remap.md.
    """
    mode = _interpolation(interpolation)
    border = _border(border_mode)
    padding, align_corners = _BORDERS[border]
    fill = _border_value(border_value)
    if padding == "constant" and fill == 0.0:
        padding = "zeros"  # the same result; zeros has every fast path (uint8 included)
    elif padding != "constant":
        fill = 0.0
    if map2 is None and map3 is not None:
        raise ValueError("remap: map3 given without map2")
    if map2 is None:
        m = np.asarray(map1) if not hasattr(map1, "__dlpack__") else map1
        shape = tuple(m.shape)
        if len(shape) not in (3, 4) or shape[-1] != len(shape) - 1:
            raise ValueError(f"remap: map1 must be (H_out, W_out, 2) or (D_out, H_out, W_out, 3) "
                             f"when map2 is not given, got shape {shape}")
        grid = m
    else:
        maps = [map1, map2] + ([map3] if map3 is not None else [])
        arrays = [np.asarray(a) for a in maps]
        for name, a in zip(("map1", "map2", "map3"), arrays):
            if a.shape != arrays[0].shape or a.ndim != len(maps):
                raise ValueError(f"remap: {name} must have the shape of map1 with {len(maps)} axes, got "
                                 f"{a.shape} (map1 {arrays[0].shape})")
        grid = np.stack(arrays, -1)
    r = grid.shape[-1]
    x = src
    shape = tuple(x.shape)
    if len(shape) not in (r, r + 1):
        raise ValueError(f"remap: src must have {r} or {r + 1} axes for maps of {r} components "
                         f"((H, W) or (H, W, C) in 2-D), got shape {shape}")
    channels = len(shape) == r + 1
    x = x[None] if channels else x[None, ..., None]
    g = grid[None]
    o = None
    if out is not None:
        o = out[None] if channels else out[None, ..., None]
    res = _api.grid_sample(x, g, mode, padding, align_corners, layout="channels_last", out=o,
                           grid_units="pixels", fill_value=fill)
    if out is not None:
        return out
    return res[0] if channels else res[0, ..., 0]
