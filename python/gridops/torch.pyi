# Type stubs of gridops.torch (GridSample and AffineGrid as PyTorch autograd functions).
import os
from typing import IO, Any, ContextManager, Dict, List, Optional, Sequence, Tuple, Union

import torch

def grid_sample(input: torch.Tensor, grid: torch.Tensor, mode: str = ..., padding_mode: str = ...,
                align_corners: Optional[bool] = ..., *, layout: str = ..., grid_units: str = ...,
                grid_kind: str = ..., fill_value: float = ...) -> torch.Tensor: ...
def affine_grid(theta: torch.Tensor, size: Sequence[int], align_corners: Optional[bool] = ...) -> torch.Tensor: ...
def ms_deform_attn(value: torch.Tensor, spatial_shapes: Any, level_start_index: Any,
                   sampling_locations: torch.Tensor, attention_weights: torch.Tensor) -> torch.Tensor: ...

class GridSample(torch.nn.Module):
    mode: str
    padding_mode: str
    align_corners: Optional[bool]
    layout: str
    grid_units: str
    grid_kind: str
    fill_value: float
    def __init__(self, mode: str = ..., padding_mode: str = ..., align_corners: Optional[bool] = ..., *,
                 layout: str = ..., grid_units: str = ..., grid_kind: str = ...,
                 fill_value: float = ...) -> None: ...
    def forward(self, input: torch.Tensor, grid: torch.Tensor) -> torch.Tensor: ...

class AffineGrid(torch.nn.Module):
    align_corners: Optional[bool]
    def __init__(self, align_corners: Optional[bool] = ...) -> None: ...
    def forward(self, theta: torch.Tensor, size: Sequence[int]) -> torch.Tensor: ...

class MsDeformAttn(torch.nn.Module):
    def forward(self, value: torch.Tensor, spatial_shapes: Any, level_start_index: Any,
                sampling_locations: torch.Tensor, attention_weights: torch.Tensor) -> torch.Tensor: ...

class MSDeformAttn(torch.nn.Module):
    d_model: int
    n_levels: int
    n_heads: int
    n_points: int
    sampling_offsets: torch.nn.Linear
    attention_weights: torch.nn.Linear
    value_proj: torch.nn.Linear
    output_proj: torch.nn.Linear
    def __init__(self, d_model: int = ..., n_levels: int = ..., n_heads: int = ...,
                 n_points: int = ...) -> None: ...
    def reset_parameters(self) -> None: ...
    def forward(self, query: torch.Tensor, reference_points: torch.Tensor,
                input_flatten: torch.Tensor, input_spatial_shapes: Any,
                input_level_start_index: Any,
                input_padding_mask: Optional[torch.Tensor] = ...) -> torch.Tensor: ...

ONNX_DOMAIN: str
ONNX_DOMAIN_VERSION: int

class OnnxExportError(RuntimeError): ...

def export_onnx(module: torch.nn.Module, args: Any, f: Union[str, bytes, "os.PathLike[str]", IO[bytes]], *,
                opset: int = ..., check: bool = ..., **kwargs: Any) -> None: ...
# model: an onnx.ModelProto, its bytes or a path; returns an onnx.ModelProto (onnx has no stubs).
def upgrade_onnx(model: Any, opset: int = ..., *, check: bool = ...) -> Any: ...

# The PyTorch drop-in (gridops.torch.enable(): gridops as the kernel of PyTorch's own CPU
# operators; docs/python.md, "PyTorch drop-in").
# ops: None (the measured-faster default set), "all" or aten operator names;
# min_elements: None (the measured per-operator sizes), 0 (every size) or an int.
def enable(ops: Union[None, str, Sequence[str]] = ..., min_elements: Optional[int] = ...) -> None: ...
def disable() -> None: ...
def enabled(ops: Union[None, str, Sequence[str]] = ...,
            min_elements: Optional[int] = ...) -> ContextManager[None]: ...
def is_enabled() -> bool: ...
def covered_operators(ops: Union[None, str, Sequence[str]] = ...) -> List[str]: ...
def fallback_counts() -> Dict[Tuple[str, str], int]: ...
def served_counts() -> Dict[str, int]: ...
def reset_fallback_counts() -> None: ...
