# Type stubs of gridops (the extension gridops._gridops re-exported). Arrays are NumPy
# arrays or anything with the buffer protocol, __array_interface__ or __dlpack__ (torch
# tensors); a NumPy input gives a NumPy result, a torch tensor a torch tensor.
from typing import Any, Optional, Protocol, Sequence, Tuple, TypeVar, Union, overload

import numpy as np
import numpy.typing as npt

from . import onnx as onnx
from . import dask as dask

__version__: str

class _SupportsDLPack(Protocol):
    def __dlpack__(self, *args: Any, **kwargs: Any) -> Any: ...

_NDArray = npt.NDArray[Any]
_ArrayIn = Union[_NDArray, _SupportsDLPack, Any]
_Out = TypeVar("_Out", bound=Union[npt.NDArray[Any], _SupportsDLPack])
_Shape = Sequence[int]
_DType = Union[str, np.dtype[Any], type, Any]
_AlignCorners = Union[bool, int]

class DTypeError(TypeError, ValueError): ...

@overload
def grid_sample(input: _NDArray, grid: _ArrayIn, mode: str = ..., padding_mode: str = ...,
                align_corners: _AlignCorners = ..., *, layout: str = ..., out: None = ...,
                full_size: Optional[_Shape] = ..., origin: Optional[_Shape] = ...,
                grid_units: str = ..., grid_kind: str = ..., fill_value: float = ...) -> _NDArray: ...
@overload
def grid_sample(input: _ArrayIn, grid: _ArrayIn, mode: str = ..., padding_mode: str = ...,
                align_corners: _AlignCorners = ..., *, layout: str = ..., out: _Out,
                full_size: Optional[_Shape] = ..., origin: Optional[_Shape] = ...,
                grid_units: str = ..., grid_kind: str = ..., fill_value: float = ...) -> _Out: ...
@overload
def grid_sample(input: _ArrayIn, grid: _ArrayIn, mode: str = ..., padding_mode: str = ...,
                align_corners: _AlignCorners = ..., *, layout: str = ..., out: None = ...,
                full_size: Optional[_Shape] = ..., origin: Optional[_Shape] = ...,
                grid_units: str = ..., grid_kind: str = ..., fill_value: float = ...) -> Any: ...
def grid_sample_input_box(grid: _ArrayIn, full_size: _Shape, mode: str = ..., padding_mode: str = ...,
                          align_corners: _AlignCorners = ..., *, grid_units: str = ...,
                          grid_kind: str = ..., fill_value: float = ...) -> list[Tuple[int, int]]: ...
def resample_input_box(full_input_size: _Shape, full_output_size: _Shape, out_begin: _Shape,
                       out_end: _Shape, mode: str = ...) -> list[Tuple[int, int]]: ...
@overload
def affine_grid(theta: _NDArray, size: _Shape, align_corners: _AlignCorners = ..., *,
                out: None = ...,
                window: Optional[Tuple[_Shape, _Shape]] = ...) -> _NDArray: ...
@overload
def affine_grid(theta: _ArrayIn, size: _Shape, align_corners: _AlignCorners = ..., *, out: _Out,
                window: Optional[Tuple[_Shape, _Shape]] = ...) -> _Out: ...
@overload
def affine_grid(theta: _ArrayIn, size: _Shape, align_corners: _AlignCorners = ..., *, out: None = ...,
                window: Optional[Tuple[_Shape, _Shape]] = ...) -> Any: ...
@overload
def affine_warp(input: _NDArray, theta: _ArrayIn, size: _Shape, mode: str = ..., padding_mode: str = ...,
                align_corners: _AlignCorners = ..., *, layout: str = ..., out: None = ...,
                window: Optional[Tuple[_Shape, _Shape]] = ..., full_size: Optional[_Shape] = ...,
                origin: Optional[_Shape] = ..., threads: Optional[int] = ...) -> _NDArray: ...
@overload
def affine_warp(input: _ArrayIn, theta: _ArrayIn, size: _Shape, mode: str = ..., padding_mode: str = ...,
                align_corners: _AlignCorners = ..., *, layout: str = ..., out: _Out,
                window: Optional[Tuple[_Shape, _Shape]] = ..., full_size: Optional[_Shape] = ...,
                origin: Optional[_Shape] = ..., threads: Optional[int] = ...) -> _Out: ...
@overload
def affine_warp(input: _ArrayIn, theta: _ArrayIn, size: _Shape, mode: str = ..., padding_mode: str = ...,
                align_corners: _AlignCorners = ..., *, layout: str = ..., out: None = ...,
                window: Optional[Tuple[_Shape, _Shape]] = ..., full_size: Optional[_Shape] = ...,
                origin: Optional[_Shape] = ..., threads: Optional[int] = ...) -> Any: ...
def affine_warp_input_box(theta: _ArrayIn, full_size: _Shape, size: _Shape, out_origin: _Shape,
                          out_shape: _Shape, mode: str = ..., padding_mode: str = ...,
                          align_corners: _AlignCorners = ...) -> list[Tuple[int, int]]: ...
@overload
def gather(data: _NDArray, indices: _ArrayIn, axis: int = ..., *, out: None = ...) -> _NDArray: ...
@overload
def gather(data: _ArrayIn, indices: _ArrayIn, axis: int = ..., *, out: _Out) -> _Out: ...
@overload
def gather(data: _ArrayIn, indices: _ArrayIn, axis: int = ..., *, out: None = ...) -> Any: ...

_Pads = Union[int, Sequence[int], Sequence[Sequence[int]], _NDArray]
_Scalar = Union[bool, int, float, complex, _ArrayIn]

@overload
def pad(input: _NDArray, pads: _Pads, mode: str = ..., value: Optional[_Scalar] = ...,
        axes: Optional[Sequence[int]] = ..., *, out: None = ..., order: str = ...,
        constant_values: Optional[_Scalar] = ...) -> _NDArray: ...
@overload
def pad(input: _ArrayIn, pads: _Pads, mode: str = ..., value: Optional[_Scalar] = ...,
        axes: Optional[Sequence[int]] = ..., *, out: _Out, order: str = ...,
        constant_values: Optional[_Scalar] = ...) -> _Out: ...
@overload
def pad(input: _ArrayIn, pads: _Pads, mode: str = ..., value: Optional[_Scalar] = ...,
        axes: Optional[Sequence[int]] = ..., *, out: None = ..., order: str = ...,
        constant_values: Optional[_Scalar] = ...) -> Any: ...

def pad_backward(grad: _ArrayIn, input_shape: _Shape, pads: _Pads, mode: str = ...,
                 axes: Optional[Sequence[int]] = ..., *, out: Any = ..., order: str = ...) -> Any: ...

_Size = Union[int, Sequence[int], None]
_Scale = Union[float, Sequence[float], None]

@overload
def resample(input: _NDArray, size: _Size = ..., scale_factor: _Scale = ..., mode: str = ..., *,
             layout: str = ..., channels: Optional[int] = ..., out_layout: Optional[str] = ...,
             out: None = ...,
             window: Optional[Tuple[_Shape, _Shape, _Shape, _Shape]] = ...) -> _NDArray: ...
@overload
def resample(input: _ArrayIn, size: _Size = ..., scale_factor: _Scale = ..., mode: str = ..., *,
             layout: str = ..., channels: Optional[int] = ..., out_layout: Optional[str] = ...,
             out: _Out,
             window: Optional[Tuple[_Shape, _Shape, _Shape, _Shape]] = ...) -> _Out: ...
@overload
def resample(input: _ArrayIn, size: _Size = ..., scale_factor: _Scale = ..., mode: str = ..., *,
             layout: str = ..., channels: Optional[int] = ..., out_layout: Optional[str] = ...,
             out: None = ...,
             window: Optional[Tuple[_Shape, _Shape, _Shape, _Shape]] = ...) -> Any: ...
@overload
def resample_backward(grad_output: _NDArray, input_size: _Shape, mode: str = ..., *, layout: str = ...,
                      out_layout: Optional[str] = ..., out: None = ...) -> _NDArray: ...
@overload
def resample_backward(grad_output: _ArrayIn, input_size: _Shape, mode: str = ..., *, layout: str = ...,
                      out_layout: Optional[str] = ..., out: _Out) -> _Out: ...
@overload
def resample_backward(grad_output: _ArrayIn, input_size: _Shape, mode: str = ..., *, layout: str = ...,
                      out_layout: Optional[str] = ..., out: None = ...) -> Any: ...

def grid_sample_backward(grad_output: _ArrayIn, input: _ArrayIn, grid: _ArrayIn, mode: str = ...,
                         padding_mode: str = ..., align_corners: _AlignCorners = ..., *, layout: str = ...,
                         input_grad: bool = ..., grid_grad: bool = ..., grad_input_out: Any = ...,
                         grad_grid_out: Any = ..., grid_units: str = ..., grid_kind: str = ...,
                         fill_value: float = ...) -> Tuple[Any, Any]: ...
@overload
def affine_grid_backward(grad_grid: _NDArray, size: _Shape, align_corners: _AlignCorners = ..., *,
                         out: None = ...) -> _NDArray: ...
@overload
def affine_grid_backward(grad_grid: _ArrayIn, size: _Shape, align_corners: _AlignCorners = ..., *,
                         out: _Out) -> _Out: ...
@overload
def affine_grid_backward(grad_grid: _ArrayIn, size: _Shape, align_corners: _AlignCorners = ..., *,
                         out: None = ...) -> Any: ...

_Floats = Union[float, Sequence[float], None]

@overload
def resize(input: _NDArray, scales: _Floats = ..., sizes: _Size = ..., mode: str = ..., *,
           coordinate_transformation_mode: str = ..., nearest_mode: str = ..., cubic_coeff_a: float = ...,
           exclude_outside: bool = ..., antialias: bool = ..., keep_aspect_ratio_policy: str = ...,
           extrapolation_value: float = ..., axes: Optional[Sequence[int]] = ..., roi: _Floats = ...,
           out: None = ..., window: Optional[Tuple[_Shape, _Shape, _Shape, _Shape]] = ...) -> _NDArray: ...
@overload
def resize(input: _ArrayIn, scales: _Floats = ..., sizes: _Size = ..., mode: str = ..., *,
           coordinate_transformation_mode: str = ..., nearest_mode: str = ..., cubic_coeff_a: float = ...,
           exclude_outside: bool = ..., antialias: bool = ..., keep_aspect_ratio_policy: str = ...,
           extrapolation_value: float = ..., axes: Optional[Sequence[int]] = ..., roi: _Floats = ...,
           out: _Out, window: Optional[Tuple[_Shape, _Shape, _Shape, _Shape]] = ...) -> _Out: ...
@overload
def resize(input: _ArrayIn, scales: _Floats = ..., sizes: _Size = ..., mode: str = ..., *,
           coordinate_transformation_mode: str = ..., nearest_mode: str = ..., cubic_coeff_a: float = ...,
           exclude_outside: bool = ..., antialias: bool = ..., keep_aspect_ratio_policy: str = ...,
           extrapolation_value: float = ..., axes: Optional[Sequence[int]] = ..., roi: _Floats = ...,
           out: None = ..., window: Optional[Tuple[_Shape, _Shape, _Shape, _Shape]] = ...) -> Any: ...
def resize_backward(grad: _ArrayIn, input_shape: _Shape, scales: _Floats = ..., sizes: _Size = ...,
                    mode: str = ..., *, coordinate_transformation_mode: str = ...,
                    nearest_mode: str = ..., cubic_coeff_a: float = ..., exclude_outside: bool = ...,
                    antialias: bool = ..., keep_aspect_ratio_policy: str = ...,
                    axes: Optional[Sequence[int]] = ..., roi: _Floats = ..., out: Any = ...) -> Any: ...
def resize_input_box(full_input_shape: _Shape, out_begin: _Shape, out_end: _Shape, scales: _Floats = ...,
                     sizes: _Size = ..., mode: str = ..., *, coordinate_transformation_mode: str = ...,
                     nearest_mode: str = ..., cubic_coeff_a: float = ..., exclude_outside: bool = ...,
                     antialias: bool = ..., keep_aspect_ratio_policy: str = ...,
                     axes: Optional[Sequence[int]] = ..., roi: _Floats = ...) -> list[Tuple[int, int]]: ...

def ms_deform_attn(value: _ArrayIn, spatial_shapes: Any, level_start_index: Any,
                   sampling_locations: _ArrayIn, attention_weights: _ArrayIn, *,
                   out: Any = ...) -> Any: ...
def ms_deform_attn_backward(grad_output: _ArrayIn, value: _ArrayIn, spatial_shapes: Any,
                            level_start_index: Any, sampling_locations: _ArrayIn,
                            attention_weights: _ArrayIn, *, value_grad: bool = ...,
                            locations_grad: bool = ..., weights_grad: bool = ...) -> Tuple[Any, Any, Any]: ...

def set_num_threads(n: int) -> None: ...
def get_num_threads() -> int: ...
class _ThreadScope:
    def __enter__(self) -> int: ...
    def __exit__(self, *args: Any) -> bool: ...
def num_threads(n: int) -> _ThreadScope: ...
def set_max_isa(level: str) -> None: ...
def max_isa() -> str: ...
def effective_isa() -> str: ...
def isa_report() -> str: ...

class GridSamplePlan:
    def __init__(self, input_shape: _Shape, grid_shape: _Shape, dtype: _DType = ...,
                 grid_dtype: Optional[_DType] = ..., mode: str = ..., padding_mode: str = ...,
                 align_corners: _AlignCorners = ..., layout: str = ..., *, grid_units: str = ...,
                 grid_kind: str = ..., fill_value: float = ...) -> None: ...
    def __call__(self, input: _ArrayIn, grid: _ArrayIn, *, out: Any = ...) -> Any: ...
    @property
    def output_shape(self) -> Tuple[int, ...]: ...
    @property
    def impl_name(self) -> str: ...

class AffineGridPlan:
    def __init__(self, theta_shape: _Shape, size: _Shape, dtype: _DType = ...,
                 align_corners: _AlignCorners = ...) -> None: ...
    def __call__(self, theta: _ArrayIn, *, out: Any = ...) -> Any: ...
    @property
    def output_shape(self) -> Tuple[int, ...]: ...
    @property
    def impl_name(self) -> str: ...

class GatherPlan:
    def __init__(self, data_shape: _Shape, indices_shape: _Shape, dtype: _DType = ...,
                 indices_dtype: _DType = ..., axis: int = ...) -> None: ...
    def __call__(self, data: _ArrayIn, indices: _ArrayIn, *, out: Any = ...) -> Any: ...
    @property
    def output_shape(self) -> Tuple[int, ...]: ...
    @property
    def impl_name(self) -> str: ...

class PadPlan:
    def __init__(self, input_shape: _Shape, pads: _Pads, dtype: _DType = ..., mode: str = ...,
                 axes: Optional[Sequence[int]] = ...) -> None: ...
    def __call__(self, input: _ArrayIn, value: Optional[_Scalar] = ..., *, out: Any = ...) -> Any: ...
    def backward(self, grad: _ArrayIn, *, out: Any = ...) -> Any: ...
    @property
    def backward_impl_name(self) -> str: ...
    @property
    def output_shape(self) -> Tuple[int, ...]: ...
    @property
    def impl_name(self) -> str: ...

class ResizePlan:
    def __init__(self, input_shape: _Shape, dtype: _DType = ..., scales: _Floats = ..., sizes: _Size = ...,
                 mode: str = ..., *, coordinate_transformation_mode: str = ..., nearest_mode: str = ...,
                 cubic_coeff_a: float = ..., exclude_outside: bool = ..., antialias: bool = ...,
                 keep_aspect_ratio_policy: str = ..., extrapolation_value: float = ...,
                 axes: Optional[Sequence[int]] = ..., roi: _Floats = ...) -> None: ...
    def __call__(self, input: _ArrayIn, *, out: Any = ...) -> Any: ...
    def backward(self, grad: _ArrayIn, *, out: Any = ...) -> Any: ...
    @property
    def backward_impl_name(self) -> str: ...
    @property
    def output_shape(self) -> Tuple[int, ...]: ...
    @property
    def impl_name(self) -> str: ...

class ResamplePlan:
    def __init__(self, input_size: _Shape, output_size: _Shape, mode: str = ..., dtype: _DType = ...,
                 layout: str = ..., out_layout: Optional[str] = ...) -> None: ...
    def __call__(self, input: _ArrayIn, *, out: Any = ...) -> Any: ...
    def forward(self, input: _ArrayIn, *, out: Any = ...) -> Any: ...
    def backward(self, grad_output: _ArrayIn, *, out: Any = ...) -> Any: ...
    @property
    def input_shape(self) -> Tuple[int, ...]: ...
    @property
    def output_shape(self) -> Tuple[int, ...]: ...
    @property
    def impl_name(self) -> str: ...
