# Type stubs of gridops.torch (GridSample and AffineGrid as PyTorch autograd functions).
import os
from typing import IO, Any, Optional, Sequence, Union

import torch

def grid_sample(input: torch.Tensor, grid: torch.Tensor, mode: str = ..., padding_mode: str = ...,
                align_corners: Optional[bool] = ..., *, layout: str = ...) -> torch.Tensor: ...
def affine_grid(theta: torch.Tensor, size: Sequence[int], align_corners: Optional[bool] = ...) -> torch.Tensor: ...

class GridSample(torch.nn.Module):
    mode: str
    padding_mode: str
    align_corners: Optional[bool]
    layout: str
    def __init__(self, mode: str = ..., padding_mode: str = ..., align_corners: Optional[bool] = ..., *,
                 layout: str = ...) -> None: ...
    def forward(self, input: torch.Tensor, grid: torch.Tensor) -> torch.Tensor: ...

class AffineGrid(torch.nn.Module):
    align_corners: Optional[bool]
    def __init__(self, align_corners: Optional[bool] = ...) -> None: ...
    def forward(self, theta: torch.Tensor, size: Sequence[int]) -> torch.Tensor: ...

ONNX_DOMAIN: str
ONNX_DOMAIN_VERSION: int

class OnnxExportError(RuntimeError): ...

def export_onnx(module: torch.nn.Module, args: Any, f: Union[str, bytes, "os.PathLike[str]", IO[bytes]], *,
                opset: int = ..., check: bool = ..., **kwargs: Any) -> None: ...
# model: an onnx.ModelProto, its bytes or a path; returns an onnx.ModelProto (onnx has no stubs).
def upgrade_onnx(model: Any, opset: int = ..., *, check: bool = ...) -> Any: ...
