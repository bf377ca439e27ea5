"""gridops: spatial sampling and data-movement operators for NumPy and PyTorch.

GridSample and AffineGrid (forward and backward), AffineWarp (the two fused), Resample (forward and backward), ONNX
Resize, Gather and Pad (forward and backward) from the gridops
C++ library, taking NumPy arrays (any strides), PyTorch CPU tensors (through DLPack,
bfloat16 included) and anything with the buffer protocol without copying, and releasing the
GIL while a kernel runs. See help(gridops.grid_sample) and docs/python.md.
gridops.torch (imported on first use; it needs torch) has grid_sample and affine_grid as
PyTorch autograd functions.
"""

from ._gridops import DTypeError
from ._api import (
    AffineGridPlan,
    GatherPlan,
    GridSamplePlan,
    PadPlan,
    ResamplePlan,
    ResizePlan,
    affine_grid,
    affine_grid_backward,
    affine_warp,
    affine_warp_input_box,
    effective_isa,
    gather,
    get_num_threads,
    grid_sample,
    grid_sample_backward,
    grid_sample_input_box,
    isa_report,
    max_isa,
    ms_deform_attn,
    ms_deform_attn_backward,
    num_threads,
    pad,
    pad_backward,
    resample,
    resample_backward,
    resample_input_box,
    resize,
    resize_backward,
    resize_input_box,
    set_max_isa,
    set_num_threads,
)
from ._remap import remap
from ._version import __version__

__all__ = [
    "AffineGridPlan",
    "DTypeError",
    "GatherPlan",
    "GridSamplePlan",
    "PadPlan",
    "ResamplePlan",
    "ResizePlan",
    "__version__",
    "affine_grid",
    "affine_grid_backward",
    "affine_warp",
    "affine_warp_input_box",
    "dask",
    "gather",
    "effective_isa",
    "get_num_threads",
    "grid_sample",
    "grid_sample_backward",
    "grid_sample_input_box",
    "isa_report",
    "max_isa",
    "ms_deform_attn",
    "ms_deform_attn_backward",
    "num_threads",
    "onnx",
    "pad",
    "pad_backward",
    "remap",
    "resample",
    "resample_backward",
    "resample_input_box",
    "resize",
    "resize_backward",
    "resize_input_box",
    "set_max_isa",
    "set_num_threads",
]


def __getattr__(name: str):  # the onnx, torch and dask submodules on first use
    if name in ("onnx", "torch", "dask"):
        import importlib

        return importlib.import_module("." + name, __name__)
    raise AttributeError(f"module 'gridops' has no attribute {name!r}")
