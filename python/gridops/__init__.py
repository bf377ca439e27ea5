"""gridops: spatial sampling and data-movement operators for NumPy and PyTorch.

GridSample, AffineGrid, Resample (forward and backward), Gather and Pad from the gridops
C++ library, taking NumPy arrays (any strides), PyTorch CPU tensors (through DLPack,
bfloat16 included) and anything with the buffer protocol without copying, and releasing the
GIL while a kernel runs. See help(gridops.grid_sample) and docs/python.md.
"""

from ._gridops import (
    AffineGridPlan,
    DTypeError,
    GatherPlan,
    GridSamplePlan,
    PadPlan,
    ResamplePlan,
    affine_grid,
    gather,
    get_num_threads,
    grid_sample,
    pad,
    resample,
    resample_backward,
    set_num_threads,
)
from ._version import __version__

__all__ = [
    "AffineGridPlan",
    "DTypeError",
    "GatherPlan",
    "GridSamplePlan",
    "PadPlan",
    "ResamplePlan",
    "__version__",
    "affine_grid",
    "gather",
    "get_num_threads",
    "grid_sample",
    "onnx",
    "pad",
    "resample",
    "resample_backward",
    "set_num_threads",
]


def __getattr__(name: str):  # the onnx submodule on first use
    if name == "onnx":
        import importlib

        return importlib.import_module(".onnx", __name__)
    raise AttributeError(f"module 'gridops' has no attribute {name!r}")
