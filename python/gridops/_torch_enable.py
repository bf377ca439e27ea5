"""gridops.torch.enable(): gridops as the kernel of PyTorch's own CPU operators.

How it is registered: through ``torch.library`` at the ``BackendSelect`` dispatch key of the
``aten`` operators below. That key sits after autograd and before the backend kernels, so
PyTorch's autograd formulas, ``torch.jit`` graphs and C++ callers all reach it, and PyTorch's
own CPU kernel stays registered underneath: a call gridops cannot serve exactly is handed to
it (``OpOverload._op_dk`` with the backend's key), named in ``fallback_counts()`` and, under
``GRIDOPS_VERBOSE=dispatch``, logged with the reason. A kernel here either computes what
PyTorch's kernel computes (bit-exact for data movement and nearest, within the operator
page's float tolerance for interpolation) or declines; it never approximates.

Every declined case, and every tensor that is not a dense CPU tensor (CUDA, meta, sparse,
quantized), runs PyTorch's kernel for that backend, so PyTorch's own errors are raised for
invalid arguments.
"""

from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import collections
import contextlib
import functools
import math
import os
import sys
import threading
import warnings

import numpy as np
import torch
from torch._C import DispatchKey

from . import _api
from . import _gridops

__all__ = ["covered_operators", "disable", "enable", "enabled", "fallback_counts", "is_enabled",
           "reset_fallback_counts", "served_counts"]

_FLOAT = (torch.float32, torch.float64)
_PAD_DTYPES = (torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64,
               torch.float16, torch.bfloat16, torch.float32, torch.float64, torch.complex64,
               torch.complex128)


# The dtypes PyTorch's reflection and replication pads are tested with (its OpInfo).
_PAD_MODE_DTYPES = (torch.float32, torch.float64, torch.complex64, torch.complex128)


class _Decline(str):
    """A kernel's reason to hand the call to PyTorch's kernel."""


class _Serve:
    """A call gridops can compute exactly: `elements` output elements, computed by `run()`
    (or declined by the size policy, see _MIN_ELEMENTS)."""
    __slots__ = ("elements", "run", "channels", "kind")

    def __init__(self, elements: int, run: Callable[[], Any], channels: int = 0,
                 kind: str = "") -> None:
        # kind: a path with its own entry in _MIN_ELEMENTS (else the operator's)
        self.elements, self.run, self.channels, self.kind = elements, run, channels, kind


# The serving policy of enable()'s defaults: the smallest call (output elements) at which
# gridops' kernel was measured faster than PyTorch's, one thread, through this Python
# registration (each call crosses into Python: about 3 us, plus about 10 us of the checks
# here and 15-20 us of gridops' binding); None: slower at every measured size, so not
# registered unless asked for (docs/perf/torch-enable-crossover.md has the measurements).
_MIN_ELEMENTS: Dict[str, Optional[int]] = {
    "grid_sampler_2d": 16384, "grid_sampler_3d": 4096,
    "grid_sampler_2d_backward": 16384, "grid_sampler_3d_backward": 16384,
    "affine_grid_generator": 512,
    "constant_pad_nd": None,
    "reflection_pad1d": 65536, "reflection_pad2d": 65536, "reflection_pad3d": 32768,
    "replication_pad1d": 65536, "replication_pad2d": 65536, "replication_pad3d": 65536,
    "reflection_pad1d_backward": None, "reflection_pad2d_backward": 65536,
    "reflection_pad3d_backward": 16384, "replication_pad1d_backward": None,
    "replication_pad2d_backward": 65536, "replication_pad3d_backward": 16384,
    "index_select": 65536,
    # nearest on Resample's path; on Resize's (an index map Resample does not share) PyTorch
    # stays faster at every size measured
    "upsample_nearest1d": 131072, "upsample_nearest2d": 131072, "upsample_nearest3d": 131072,
    "_upsample_nearest_exact1d": 131072, "_upsample_nearest_exact2d": 131072,
    "_upsample_nearest_exact3d": 131072, "nearest on Resize": None,
    "upsample_linear1d": None, "upsample_bilinear2d": 262144, "upsample_trilinear3d": 32768,
    "upsample_bicubic2d": 16384, "_upsample_bilinear2d_aa": 16384,
    "_upsample_bicubic2d_aa": 16384,
    # the backwards (grad_output elements); linear and nearest-exact on Resample's backward
    "upsample_linear1d_backward": None, "upsample_bilinear2d_backward": 16384,
    "upsample_trilinear3d_backward": 16384,
    "_upsample_nearest_exact1d_backward": 65536, "_upsample_nearest_exact2d_backward": 65536,
    "_upsample_nearest_exact3d_backward": 65536,
    "linear backward on Resize": 65536,
    "upsample_nearest1d_backward": None, "upsample_nearest2d_backward": None,
    "upsample_nearest3d_backward": None,
    # on Resize's adjoint: bicubic, antialiased, legacy nearest ("nearest on Resize"), and
    # the linear ones with align_corners=True or given scales ("linear backward on Resize")
    "upsample_bicubic2d_backward": 4096, "_upsample_bilinear2d_aa_backward": 4096,
    "_upsample_bicubic2d_aa_backward": 4096,
}
# GridSample's backward below this many channels: PyTorch's kernel was faster at every size.
_MIN_BACKWARD_CHANNELS = 16


def _verbose() -> bool:
    return "dispatch" in os.environ.get("GRIDOPS_VERBOSE", "")


_counts: "collections.Counter[Tuple[str, str]]" = collections.Counter()
_served: "collections.Counter[str]" = collections.Counter()
_counts_lock = threading.Lock()


def fallback_counts() -> Dict[Tuple[str, str], int]:
    """How many calls each (operator, reason) handed to PyTorch's kernel since the last reset."""
    with _counts_lock:
        return dict(_counts)


def served_counts() -> Dict[str, int]:
    """How many calls of each operator gridops computed since the last reset."""
    with _counts_lock:
        return dict(_served)


def reset_fallback_counts() -> None:
    with _counts_lock:
        _counts.clear()
        _served.clear()


def _dense_cpu(*tensors: Any) -> bool:
    for t in tensors:
        if t.device.type != "cpu" or t.layout != torch.strided or t.is_quantized:
            return False
    return True


_backend_keys: Dict[Tuple[str, str, Any, bool], Any] = {}


def _backend_key(op_name: str, tensors: Sequence[Any]) -> Any:
    """The dispatch key whose kernel PyTorch would run next for these tensors (cached per
    operator, device type, layout and quantization)."""
    t = tensors[0]
    cache_key = (op_name, t.device.type, t.layout, t.is_quantized)
    key = _backend_keys.get(cache_key)
    if key is not None:
        return key
    if t.is_quantized:
        name = "QuantizedCPU" if t.device.type == "cpu" else "Quantized" + t.device.type.upper()
    elif t.layout == torch.sparse_coo:
        name = "SparseCPU" if t.device.type == "cpu" else "Sparse" + t.device.type.upper()
    elif t.device.type == "meta":
        name = "Meta"
    else:
        name = {"cpu": "CPU", "cuda": "CUDA", "xpu": "XPU", "mps": "MPS"}.get(t.device.type, "")
    for candidate in (name, "CompositeExplicitAutograd"):
        if candidate and torch._C._dispatch_has_kernel_for_dispatch_key(op_name, candidate):
            key = getattr(DispatchKey, candidate)
            _backend_keys[cache_key] = key
            return key
    raise RuntimeError(f"gridops.torch.enable: no PyTorch kernel of {op_name} for a tensor on "
                       f"device '{t.device}' with layout {t.layout} (the call cannot be handed on)")


def _run_pytorch(op: Any, op_name: str, reason: str, args: Tuple[Any, ...]) -> Any:
    with _counts_lock:
        _counts[(op_name, str(reason))] += 1
    if _verbose():
        print(f"[gridops] torch: {op_name}: running PyTorch's kernel ({reason})", file=sys.stderr)
    tensors = [a for a in args if isinstance(a, torch.Tensor)]
    return op._op_dk(_backend_key(op_name, tensors), *args)


def _memory_format(t: Any) -> Any:
    """The memory format PyTorch's kernels give their results for input `t`
    (suggest_memory_format, which Python does not expose)."""
    if t.dim() == 4 and not t.is_contiguous() and t.is_contiguous(memory_format=torch.channels_last):
        return torch.channels_last
    if t.dim() == 5 and not t.is_contiguous() \
            and t.is_contiguous(memory_format=torch.channels_last_3d):
        return torch.channels_last_3d
    return torch.contiguous_format


def _threads() -> Any:
    return _gridops._ThreadScope(min(max(torch.get_num_threads(), 0), 1024))


# --- GridSample and AffineGrid ---------------------------------------------------------------

_GS_MODES = {0: "bilinear", 1: "nearest", 2: "bicubic"}
_GS_PADDING = {0: "zeros", 1: "border", 2: "reflection"}


def _grid_sampler_decline(input: Any, grid: Any, interp: int, padding: int, rank: int) -> str:
    if not isinstance(input, torch.Tensor) or not isinstance(grid, torch.Tensor):
        return _Decline("an argument is not a tensor")
    if not _dense_cpu(input, grid):
        return _Decline("not a dense CPU tensor")
    if input.dtype not in _FLOAT or grid.dtype != input.dtype:
        return _Decline(f"dtype {input.dtype} / {grid.dtype}: PyTorch's CPU kernel takes "
                        "float32 and float64, the same for both")
    if input.dim() != rank or grid.dim() != rank or grid.shape[-1] != rank - 2 \
            or grid.shape[0] != input.shape[0] or input.shape[0] == 0:
        return _Decline("shapes PyTorch checks (or an empty batch)")
    if input.numel() == 0 or grid.numel() == 0:
        return _Decline("an empty tensor")
    if interp not in _GS_MODES or padding not in _GS_PADDING or (rank == 5 and interp == 2):
        return _Decline(f"interpolation_mode {interp}, padding_mode {padding}")
    return ""


def _grid_sampler(rank: int) -> Callable[..., Any]:
    def forward(input: Any, grid: Any, interp: int, padding: int, align_corners: bool) -> Any:
        why = _grid_sampler_decline(input, grid, interp, padding, rank)
        if why:
            return why
        shape = (*input.shape[:2], *grid.shape[1:-1])

        def run() -> Any:  # PyTorch's output is contiguous (N, C, spatial...)
            return _api.grid_sample(input, grid, _GS_MODES[interp], _GS_PADDING[padding],
                                    bool(align_corners), out=torch.empty(shape, dtype=input.dtype))
        n = math.prod(shape)
        return _Serve(n, run)
    return forward


def _grid_sampler_backward(rank: int) -> Callable[..., Any]:
    def backward(grad_output: Any, input: Any, grid: Any, interp: int, padding: int,
                 align_corners: bool, output_mask: Sequence[bool]) -> Any:
        why = _grid_sampler_decline(input, grid, interp, padding, rank)
        if why:
            return why
        if not isinstance(grad_output, torch.Tensor) or not _dense_cpu(grad_output) \
                or grad_output.dtype != input.dtype:
            return _Decline("grad_output not a dense CPU tensor of input's dtype")
        want_input, want_grid = bool(output_mask[0]), bool(output_mask[1])

        def run() -> Any:
            # PyTorch's kernel gives a contiguous grad_input (or an undefined tensor when the
            # mask leaves it out) and a contiguous grad_grid (zeros for nearest).
            gi_out = torch.empty(input.shape, dtype=input.dtype) if want_input else None
            gg_out = torch.empty(grid.shape, dtype=grid.dtype) if want_grid else None
            gi, gg = _api.grid_sample_backward(
                grad_output, input, grid, _GS_MODES[interp], _GS_PADDING[padding],
                bool(align_corners), input_grad=want_input, grid_grad=want_grid,
                grad_input_out=gi_out, grad_grid_out=gg_out)
            if gg is None and want_grid:
                gg = torch.zeros(grid.shape, dtype=grid.dtype)
            return gi, gg
        return _Serve(grad_output.numel(), run, channels=input.shape[1])
    return backward


def _affine_grid_generator(theta: Any, size: Sequence[int], align_corners: bool) -> Any:
    if not isinstance(theta, torch.Tensor) or not _dense_cpu(theta):
        return _Decline("not a dense CPU tensor")
    if theta.dtype not in _FLOAT:
        return _Decline(f"dtype {theta.dtype}")
    size = list(size)
    if len(size) not in (4, 5) or theta.dim() != 3 or theta.shape[0] != size[0] \
            or tuple(theta.shape[1:]) != ((2, 3) if len(size) == 4 else (3, 4)) \
            or any(s <= 0 for s in size):
        return _Decline("shapes PyTorch checks (or an empty size)")
    shape = (size[0], *size[2:], len(size) - 2)
    return _Serve(math.prod(shape), lambda: _api.affine_grid(
        theta, size, bool(align_corners), out=torch.empty(shape, dtype=theta.dtype)))


# --- Pad ---------------------------------------------------------------------------------------

def _exact_fill(value: Any, dtype: Any) -> bool:
    """Whether gridops' fill of `value` in `dtype` is PyTorch's (integers: an exactly
    representable integral value; bool: 0 or 1; float16/bfloat16: a value they hold
    exactly; float32/64 and complex: any real, rounded once as PyTorch does)."""
    if isinstance(value, complex):
        return False
    v = float(value)
    if dtype in (torch.float16, torch.bfloat16):  # exactly representable: no rounding to match
        return math.isnan(v) or float(torch.tensor(v, dtype=torch.float64).to(dtype)) == v
    if dtype.is_floating_point or dtype.is_complex:
        return True
    if not math.isfinite(v) or v != int(v):
        return False
    if dtype == torch.bool:
        return v in (0.0, 1.0)
    info = torch.iinfo(dtype)
    return info.min <= v <= info.max and abs(v) < 2 ** 53


def _constant_pad_nd(self: Any, pad: Sequence[int], value: Any = 0) -> Any:
    if not isinstance(self, torch.Tensor) or not _dense_cpu(self):
        return _Decline("not a dense CPU tensor")
    pad = list(pad)
    if self.dtype not in _PAD_DTYPES:
        return _Decline(f"dtype {self.dtype}")
    if len(pad) % 2 or len(pad) > 2 * self.dim() or self.dim() == 0:
        return _Decline("a pad length PyTorch checks")
    new_shape = list(self.shape)
    for k in range(len(pad) // 2):
        new_shape[self.dim() - 1 - k] += pad[2 * k] + pad[2 * k + 1]
    if any(n <= 0 for n in new_shape):
        return _Decline("an output size of 0 or less (PyTorch's error)")
    if all(p <= 0 for p in pad):
        return _Decline("no positive pad (PyTorch returns a narrowed copy with its strides)")
    if not _exact_fill(value, self.dtype):
        return _Decline(f"value {value!r} is not exact in {self.dtype}")
    fmt = _memory_format(self)  # PyTorch's constant pad keeps channels_last
    return _Serve(math.prod(new_shape), lambda: _api.pad(
        self, pad, "constant", value, order="torch",
        out=torch.empty(new_shape, dtype=self.dtype, memory_format=fmt)))


def _pad_mode(mode: str, dims: int) -> Callable[..., Any]:
    def kernel(self: Any, padding: Sequence[int]) -> Any:
        if not isinstance(self, torch.Tensor) or not _dense_cpu(self):
            return _Decline("not a dense CPU tensor")
        padding = list(padding)
        if self.dtype not in _PAD_MODE_DTYPES:
            return _Decline(f"dtype {self.dtype}")
        if self.dim() not in (dims + 1, dims + 2) or len(padding) != 2 * dims \
                or self.numel() == 0:
            return _Decline("shapes PyTorch checks (or an empty tensor)")
        for k in range(dims):
            n = self.shape[self.dim() - 1 - k]
            lo, hi = padding[2 * k], padding[2 * k + 1]
            if lo < 0 or hi < 0 or (mode == "reflect" and (lo >= n or hi >= n)):
                return _Decline("pads PyTorch checks (negative, or reflect's pad >= size)")
        shape = list(self.shape)
        for k in range(dims):
            shape[self.dim() - 1 - k] += padding[2 * k] + padding[2 * k + 1]
        # PyTorch's reflection/replication pads are contiguous
        return _Serve(math.prod(shape), lambda: _api.pad(
            self, padding, mode, order="torch", out=torch.empty(shape, dtype=self.dtype)))
    return kernel


def _pad_mode_backward(mode: str, dims: int) -> Callable[..., Any]:
    def kernel(grad_output: Any, self: Any, padding: Sequence[int]) -> Any:
        if not (isinstance(grad_output, torch.Tensor) and isinstance(self, torch.Tensor)) \
                or not _dense_cpu(grad_output) or self.device.type != "cpu":
            return _Decline("not dense CPU tensors")
        padding = list(padding)
        if grad_output.dtype != self.dtype or self.dtype not in _PAD_MODE_DTYPES:
            return _Decline(f"dtypes {grad_output.dtype} and {self.dtype}")
        if self.dim() not in (dims + 1, dims + 2) or len(padding) != 2 * dims \
                or self.numel() == 0:
            return _Decline("shapes PyTorch checks (or an empty tensor)")
        shape = list(self.shape)
        for k in range(dims):
            n = shape[self.dim() - 1 - k]
            lo, hi = padding[2 * k], padding[2 * k + 1]
            if lo < 0 or hi < 0 or (mode == "reflect" and (lo >= n or hi >= n)):
                return _Decline("pads PyTorch checks (negative, or reflect's pad >= size)")
            shape[self.dim() - 1 - k] += lo + hi
        if list(grad_output.shape) != shape:
            return _Decline("a grad_output shape PyTorch checks")
        if not grad_output.is_contiguous():
            grad_output = grad_output.contiguous()  # as PyTorch's kernels do
        # The sum over the output elements that copy an input element, in PyTorch's order
        # (row-major over the output); the result is contiguous, as PyTorch's.
        return _Serve(self.numel(), lambda: _api.pad_backward(
            grad_output, list(self.shape), padding, mode, order="torch",
            out=torch.empty(list(self.shape), dtype=self.dtype)))
    return kernel


# --- index_select --------------------------------------------------------------------------------

def _index_select(self: Any, dim: int, index: Any) -> Any:
    if not isinstance(self, torch.Tensor) or not isinstance(index, torch.Tensor) \
            or not _dense_cpu(self, index):
        return _Decline("not a dense CPU tensor")
    if index.dtype not in (torch.int32, torch.int64) or index.dim() > 1:
        return _Decline(f"index dtype {index.dtype}, rank {index.dim()}")
    if self.dtype not in _PAD_DTYPES:
        return _Decline(f"dtype {self.dtype}")
    if self.dim() == 0:
        return _Decline("a 0-d tensor")
    if not -self.dim() <= dim < self.dim():
        return _Decline("dim out of range")
    index = index.reshape(-1)
    n = self.shape[dim]
    if index.numel() and (int(index.min()) < 0 or int(index.max()) >= n):
        return _Decline("an index out of range (PyTorch's error)")  # gridops reads negatives
    shape = list(self.shape)
    shape[dim] = index.numel()
    return _Serve(math.prod(shape), lambda: _api.gather(
        self, index, dim, out=torch.empty(shape, dtype=self.dtype)))


# --- Upsample ------------------------------------------------------------------------------------

def _scales_for(in_sizes: Sequence[int], out_sizes: Sequence[int],
                scales: Sequence[Optional[float]]) -> Optional[List[float]]:
    """Resize's scales when PyTorch was given them (its coordinates then use 1/scale), or None
    (they use in/out; Resize with sizes= does the same). A scale whose floor(in * scale) is not
    the output size means the caller passed both inconsistently: declined by the caller."""
    if all(s is None or s <= 0 for s in scales):
        return None
    return [float(s) if s is not None and s > 0 else o / i
            for s, i, o in zip(scales, in_sizes, out_sizes)]


def _torch_nearest_index(in_size: int, out_size: int, scale: Optional[float],
                         exact: bool) -> np.ndarray:
    """PyTorch's CPU nearest source indices (UpSample.h: nearest_idx, nearest_exact_idx),
    computed in float32 as it does for float32 input."""
    dst = np.arange(out_size, dtype=np.int64)
    if not exact and out_size == in_size:
        return dst
    if not exact and out_size == 2 * in_size:
        return dst >> 1
    f = np.float32
    s = f(1.0 / scale) if scale is not None and scale > 0 else f(in_size) / f(out_size)
    pos = (dst.astype(f) + f(0.5)) * s if exact else dst.astype(f) * s
    return np.minimum(np.floor(pos).astype(np.int64), in_size - 1)


@functools.lru_cache(maxsize=256)
def _nearest_agrees(in_size: int, out_size: int, scale: Optional[float], exact: bool) -> bool:
    """Whether gridops' Resize, with the attributes _upsample uses, picks PyTorch's source
    index for every output position of this axis (checked by resizing an iota)."""
    iota = np.arange(in_size, dtype=np.float64).reshape(1, in_size)
    kw = _nearest_attrs(exact)
    if scale is not None:
        got = _api.resize(iota, scales=[scale], axes=[1], mode="nearest", **kw)
    else:
        got = _api.resize(iota, sizes=[out_size], axes=[1], mode="nearest", **kw)
    got = np.asarray(got).reshape(-1)
    return got.shape == (out_size,) and bool(np.array_equal(
        got.astype(np.int64), _torch_nearest_index(in_size, out_size, scale, exact)))


def _nearest_attrs(exact: bool) -> Dict[str, Any]:
    # legacy nearest: floor(dst * in/out); nearest-exact: floor((dst + 0.5) * in/out)
    if exact:
        return dict(coordinate_transformation_mode="half_pixel", nearest_mode="round_prefer_ceil")
    return dict(coordinate_transformation_mode="asymmetric", nearest_mode="floor")


def _nearest_agrees_all(in_sizes: Sequence[int], out_sizes: Sequence[int],
                        rs: Optional[Sequence[float]], exact: bool) -> bool:
    """Whether Resize's nearest (_nearest_attrs) takes PyTorch's source index on every axis."""
    return all(_nearest_agrees(i, o, None if rs is None else rs[k], exact)
               for k, (i, o) in enumerate(zip(in_sizes, out_sizes)))


def _resize_kw(mode: str, exact: bool, aa: bool, align_corners: bool) -> Dict[str, Any]:
    """Resize's attributes for PyTorch's upsample of this mode (besides sizes/scales)."""
    if mode == "nearest":
        return _nearest_attrs(exact)
    kw: Dict[str, Any] = dict(coordinate_transformation_mode="align_corners" if align_corners
                              else "half_pixel")
    if mode == "cubic":
        kw.update(cubic_coeff_a=-0.75 if not aa else -0.5)
    if aa:
        kw.update(antialias=True, exclude_outside=True)
    return kw


def _upsample(dims: int, mode: str, exact: bool = False, aa: bool = False) -> Callable[..., Any]:
    interp = mode != "nearest"

    def kernel(self: Any, output_size: Sequence[int], *rest: Any) -> Any:
        if interp:
            align_corners, scales = bool(rest[0]), list(rest[1:])
        else:
            align_corners, scales = False, list(rest)
        if not isinstance(self, torch.Tensor) or not _dense_cpu(self):
            return _Decline("not a dense CPU tensor")
        # bfloat16 interpolation: PyTorch rounds its intermediate sums to bfloat16 (errors of
        # several ulp against the float result), which gridops does not reproduce.
        # bfloat16 nearest: PyTorch 1.13 computes the source index in bfloat16 on some paths
        # and in float on others (nearest-exact has no bfloat16 kernel at all).
        dtypes = _FLOAT if interp else (torch.uint8, torch.float32, torch.float64)
        if self.dtype not in dtypes:
            return _Decline(f"dtype {self.dtype}")
        output_size = [int(s) for s in output_size]
        if self.dim() != dims + 2 or len(output_size) != dims or self.numel() == 0 \
                or any(s <= 0 for s in output_size):
            return _Decline("shapes PyTorch checks (or an empty tensor)")
        scales = (scales + [None] * dims)[:dims]
        in_sizes = list(self.shape[2:])
        rs = None if align_corners else _scales_for(in_sizes, output_size, scales)
        if rs is not None and [math.floor(i * s) for i, s in zip(in_sizes, rs)] != output_size:
            return _Decline("scales whose output size is not output_size")
        axes = list(range(2, 2 + dims))
        shape = (*self.shape[:2], *output_size)
        fmt = _memory_format(self)  # PyTorch's upsamples keep channels_last
        if not interp and self.dtype != torch.uint8 and all(
                _resample_nearest_agrees(in_sizes[k], output_size[k],
                                         None if rs is None else rs[k], exact)
                for k in range(dims)):
            # Resample's nearest (a copy per output row, several times Resize's speed)
            # picks PyTorch's source index on every axis here.
            def resample() -> Any:
                if fmt != torch.contiguous_format:  # channels_last in and out
                    return _api.resample(self, output_size, None, "nearest")
                return _api.resample(self, output_size, None, "nearest",
                                     out=torch.empty(shape, dtype=self.dtype))
            return _Serve(math.prod(shape), resample)
        if not interp and not _nearest_agrees_all(in_sizes, output_size, rs, exact):
            return _Decline("a nearest index where gridops' rounding is not PyTorch's float32 one")
        kw = _resize_kw(mode, exact, aa, align_corners)
        def run() -> Any:
            out = torch.empty(shape, dtype=self.dtype, memory_format=fmt)
            if rs is None:
                return _api.resize(self, sizes=output_size, axes=axes, mode=mode, out=out, **kw)
            return _api.resize(self, scales=rs, axes=axes, mode=mode, out=out, **kw)
        return _Serve(math.prod(shape), run, kind="" if interp else "nearest on Resize")
    return kernel


def _scale_is_ratio(scale: Optional[float], in_size: int, out_size: int) -> bool:
    """Whether PyTorch's coordinate scale (1/scale when given, else in/out) is in/out, in
    float32 and in float64 (Resample's backward uses in/out)."""
    if scale is None or scale <= 0:
        return True
    return 1.0 / scale == in_size / out_size and \
        np.float32(1.0 / scale) == np.float32(in_size) / np.float32(out_size)


@functools.lru_cache(maxsize=256)
def _resample_nearest_agrees(in_size: int, out_size: int, scale: Optional[float],
                             exact: bool) -> bool:
    """Whether Resample's nearest (its index map depends on the sizes only) picks PyTorch's
    source index (float32; legacy nearest or nearest-exact, with the scale PyTorch was given)
    for every output position of this axis (checked by resampling an iota)."""
    iota = np.arange(in_size, dtype=np.float64).reshape(1, 1, in_size)
    got = np.asarray(_api.resample(iota, [out_size], None, "nearest")).reshape(-1)
    return got.shape == (out_size,) and bool(np.array_equal(
        got.astype(np.int64), _torch_nearest_index(in_size, out_size, scale, exact)))


def _upsample_backward(dims: int, mode: str, exact: bool = False,
                       aa: bool = False) -> Callable[..., Any]:
    interp = mode != "nearest"

    def kernel(grad_output: Any, output_size: Sequence[int], input_size: Sequence[int],
               *rest: Any) -> Any:
        if interp:
            align_corners, scales = bool(rest[0]), list(rest[1:])
        else:
            align_corners, scales = False, list(rest)
        if not isinstance(grad_output, torch.Tensor) or not _dense_cpu(grad_output):
            return _Decline("not a dense CPU tensor")
        if grad_output.dtype not in _FLOAT:
            return _Decline(f"dtype {grad_output.dtype}")
        output_size = [int(s) for s in output_size]
        input_size = [int(s) for s in input_size]
        if len(output_size) != dims or len(input_size) != dims + 2 \
                or list(grad_output.shape) != input_size[:2] + output_size \
                or grad_output.numel() == 0 or any(s <= 0 for s in input_size):
            return _Decline("shapes PyTorch checks (or an empty tensor)")
        scales = (scales + [None] * dims)[:dims]
        in_sizes = input_size[2:]
        fmt = _memory_format(grad_output)  # PyTorch's: grad_output's memory format
        if not grad_output.is_contiguous(memory_format=fmt):
            # (the expanded ones of a .sum(), a slice): PyTorch's kernels make it contiguous
            # too, and its copy is faster than the binding's generic strided one
            grad_output = grad_output.contiguous(memory_format=fmt)

        def out() -> Any:
            return torch.empty(input_size, dtype=grad_output.dtype, memory_format=fmt)
        # Resample's backward (linear, nearest-exact; half-pixel coordinates with scale
        # in/out) where it computes PyTorch's map; else Resize's adjoint, which has every
        # mode, align_corners and given scales.
        if (mode == "linear" or exact) and not aa and not align_corners and all(
                _scale_is_ratio(scales[k], in_sizes[k], output_size[k]) and
                (interp or _resample_nearest_agrees(in_sizes[k], output_size[k], scales[k], True))
                for k in range(dims)):
            return _Serve(grad_output.numel(), lambda: _api.resample_backward(
                grad_output, input_size, mode, out=out()))
        rs = None if align_corners else _scales_for(in_sizes, output_size, scales)
        if rs is not None and [math.floor(i * s) for i, s in zip(in_sizes, rs)] != output_size:
            return _Decline("scales whose output size is not output_size")
        if not interp and not _nearest_agrees_all(in_sizes, output_size, rs, exact):
            return _Decline("a nearest index where gridops' rounding is not PyTorch's float32 one")
        kw = _resize_kw(mode, exact, aa, align_corners)
        axes = list(range(2, 2 + dims))

        def run() -> Any:
            if rs is None:
                return _api.resize_backward(grad_output, input_size, sizes=output_size,
                                            axes=axes, mode=mode, out=out(), **kw)
            return _api.resize_backward(grad_output, input_size, scales=rs, axes=axes,
                                        mode=mode, out=out(), **kw)
        kind = "nearest on Resize" if not interp else \
            "linear backward on Resize" if mode == "linear" and not aa else ""
        return _Serve(grad_output.numel(), run, kind=kind)
    return kernel


# --- registration ------------------------------------------------------------------------------

def _kernels() -> Dict[str, Callable[..., Any]]:
    k: Dict[str, Callable[..., Any]] = {
        "grid_sampler_2d": _grid_sampler(4),
        "grid_sampler_3d": _grid_sampler(5),
        "grid_sampler_2d_backward": _grid_sampler_backward(4),
        "grid_sampler_3d_backward": _grid_sampler_backward(5),
        "affine_grid_generator": _affine_grid_generator,
        "constant_pad_nd": _constant_pad_nd,
        "index_select": _index_select,
    }
    for d in (1, 2, 3):
        k[f"reflection_pad{d}d"] = _pad_mode("reflect", d)
        k[f"replication_pad{d}d"] = _pad_mode("edge", d)
        k[f"reflection_pad{d}d_backward"] = _pad_mode_backward("reflect", d)
        k[f"replication_pad{d}d_backward"] = _pad_mode_backward("edge", d)
        k[f"upsample_nearest{d}d"] = _upsample(d, "nearest")
        k[f"_upsample_nearest_exact{d}d"] = _upsample(d, "nearest", exact=True)
        k[f"_upsample_nearest_exact{d}d_backward"] = _upsample_backward(d, "nearest", exact=True)
        k[f"upsample_nearest{d}d_backward"] = _upsample_backward(d, "nearest")
    k["upsample_linear1d_backward"] = _upsample_backward(1, "linear")
    k["upsample_bilinear2d_backward"] = _upsample_backward(2, "linear")
    k["upsample_trilinear3d_backward"] = _upsample_backward(3, "linear")
    k["upsample_bicubic2d_backward"] = _upsample_backward(2, "cubic")
    k["_upsample_bilinear2d_aa_backward"] = _upsample_backward(2, "linear", aa=True)
    k["_upsample_bicubic2d_aa_backward"] = _upsample_backward(2, "cubic", aa=True)
    k["upsample_linear1d"] = _upsample(1, "linear")
    k["upsample_bilinear2d"] = _upsample(2, "linear")
    k["upsample_trilinear3d"] = _upsample(3, "linear")
    k["upsample_bicubic2d"] = _upsample(2, "cubic")
    k["_upsample_bilinear2d_aa"] = _upsample(2, "linear", aa=True)
    k["_upsample_bicubic2d_aa"] = _upsample(2, "cubic", aa=True)
    return k


def _wrap(name: str, kernel: Callable[..., Any], min_elements: Optional[int]) -> Callable[..., Any]:
    op = getattr(torch.ops.aten, name).default
    op_name = "aten::" + name

    def run(*args: Any) -> Any:
        # The tensors reach this key still marked requires_grad (autograd has run above):
        # gridops gets detached views, PyTorch's kernel (a fallback) the arguments as given.
        plain = tuple(a.detach() if isinstance(a, torch.Tensor) and a.requires_grad else a
                      for a in args)
        try:
            res = kernel(*plain)
            if isinstance(res, _Serve):
                least = min_elements
                if least is None:  # the measured policy
                    least = _MIN_ELEMENTS.get(res.kind or name)
                if least is None:
                    res = _Decline(f"{res.kind or name}: PyTorch's kernel is faster at every "
                                   "size measured")
                elif res.elements < least:
                    res = _Decline(f"a small call ({res.elements} output elements < "
                                   f"{least}), where PyTorch's kernel is faster")
                elif min_elements is None and res.channels and \
                        res.channels < _MIN_BACKWARD_CHANNELS:
                    res = _Decline(f"{res.channels} channels < {_MIN_BACKWARD_CHANNELS}, where "
                                   "PyTorch's kernel is faster")
                else:
                    with _threads():
                        res = res.run()
        except (ValueError, TypeError) as e:  # gridops refused what its gate let through
            res = _Decline(f"gridops: {e}")
        if isinstance(res, _Decline):
            return _run_pytorch(op, op_name, res, args)
        with _counts_lock:
            _served[op_name] += 1
        return res
    run.__name__ = "gridops_" + name
    return run


_state_lock = threading.RLock()
_library: Optional[Any] = None
_depth = 0
_settings: Optional[Tuple[Any, Any]] = None


def covered_operators(ops: Any = None) -> List[str]:
    """The aten operators enable(ops) registers, sorted: by default those where gridops
    was measured faster than PyTorch for large enough calls; ops="all": every operator
    gridops can serve."""
    return sorted("aten::" + n for n in _selected(ops))


def _selected(ops: Any) -> List[str]:
    every = _kernels()
    if ops is None:
        return [n for n in every if _MIN_ELEMENTS.get(n) is not None]
    if isinstance(ops, str) and ops == "all":
        return list(every)
    if isinstance(ops, str) or not all(isinstance(n, str) for n in ops):
        raise ValueError(f"gridops.torch.enable: ops must be None, 'all' or a sequence of "
                         f"operator names, got {ops!r}")
    names = [n[len("aten::"):] if n.startswith("aten::") else n for n in ops]
    unknown = sorted(set(names) - set(every))
    if unknown:
        raise ValueError(f"gridops.torch.enable: ops names operators gridops does not cover: "
                         f"{unknown} (covered: {sorted(every)})")
    return names


def enable(ops: Any = None, min_elements: Optional[int] = None) -> None:
    """Makes gridops the kernel of PyTorch's CPU operators covered_operators(ops) lists
    (process-wide, every thread, until disable()).

    ops: None (the operators where gridops was measured faster), "all", or a sequence of
      aten operator names. min_elements: None, the measured per-operator size below which
      calls stay PyTorch's (also GridSample's backward under 16 channels); 0 serves every
      call gridops can compute exactly; an int, that size for every operator.
    Calls nest (each enable() needs a disable()); a nested call must ask for the same."""
    global _library, _depth, _settings
    if min_elements is not None and (isinstance(min_elements, bool)
                                     or not isinstance(min_elements, int) or min_elements < 0):
        raise ValueError(f"gridops.torch.enable: min_elements must be None or an int >= 0, "
                         f"got {min_elements!r}")
    names = _selected(ops)
    settings = (tuple(sorted(names)), min_elements)
    with _state_lock:
        if _library is not None:
            if settings != _settings:
                raise ValueError("gridops.torch.enable: already enabled with other settings "
                                 f"(ops, min_elements) = {_settings}; disable() first")
            _depth += 1
            return
        kernels = _kernels()
        lib = torch.library.Library("aten", "IMPL")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # "Overriding a previously registered kernel"
            for name in names:
                lib.impl(name, _wrap(name, kernels[name], min_elements), "BackendSelect")
        _library, _settings, _depth = lib, settings, 1


def disable() -> None:
    """Undoes one enable(); the last one gives PyTorch's kernels back."""
    global _library, _depth, _settings
    with _state_lock:
        if _depth == 0:
            return
        _depth -= 1
        if _depth == 0 and _library is not None:
            lib, _library, _settings = _library, None, None
            lib.__del__()  # removes the registrations now, not at garbage collection
            # Library.__del__ ran; keep it from running twice when `lib` is collected.
            lib._op_impls = set()


def is_enabled() -> bool:
    with _state_lock:
        return _library is not None


@contextlib.contextmanager
def enabled(ops: Any = None, min_elements: Optional[int] = None) -> Any:
    """``with gridops.torch.enabled():`` enable(ops, min_elements) for the block."""
    enable(ops, min_elements)
    try:
        yield
    finally:
        disable()
