# Type stubs of gridops.torch (GridSample and AffineGrid as PyTorch autograd functions).
from typing import Optional, Sequence

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
