"""Type-checked with mypy --strict against the stubs (the CTest test python.mypy); pytest
does not collect it. It uses every public name the way the docs show."""

from typing import Any, Dict, List, Tuple

import numpy as np
import numpy.typing as npt

import gridops
import gridops.onnx
import gridops.torch
import torch


def warp(x: npt.NDArray[np.float32], theta: npt.NDArray[np.float32]) -> npt.NDArray[Any]:
    grid: npt.NDArray[Any] = gridops.affine_grid(theta, x.shape, align_corners=False)
    out = np.empty_like(x)
    same: npt.NDArray[np.float32] = gridops.grid_sample(x, grid, "bicubic", "border", True, out=out)
    return gridops.grid_sample(same, grid, layout="channels_first")


def movement(x: npt.NDArray[Any]) -> Tuple[npt.NDArray[Any], npt.NDArray[Any], npt.NDArray[Any]]:
    a = gridops.gather(x, np.array([0, -1]), axis=0)
    b = gridops.pad(x, ((1, 1), (2, 0)), "reflect")
    c = gridops.pad(x, [1, 2, 3, 4], value=1.5, axes=[0, 1])
    return a, b, c


def plans(x: npt.NDArray[np.float32]) -> Tuple[int, ...]:
    p = gridops.ResamplePlan(x.shape, (8, 8), "linear", np.float32)
    y: Any = p(x)
    gridops.set_num_threads(gridops.get_num_threads())
    shape: Tuple[int, ...] = gridops.GridSamplePlan(x.shape, (1, 4, 4, 2)).output_shape
    del y
    return shape + gridops.resample(x, scale_factor=2.0).shape


def run_model(path: str, x: npt.NDArray[Any]) -> Dict[str, Any]:
    m = gridops.onnx.Model(path)
    names: List[str] = [v.name for v in m.inputs]
    results = gridops.onnx.conformance([path])
    statuses = [r.status for r in results]
    del statuses
    return m.run({names[0]: x})


def version() -> str:
    return gridops.__version__


def train_step(x: torch.Tensor, theta: torch.Tensor) -> float:
    grid = gridops.torch.affine_grid(theta, x.shape, align_corners=False)
    y = gridops.torch.grid_sample(x, grid, "bilinear", "zeros", False, layout="channels_first")
    sampler = gridops.torch.GridSample("bicubic", padding_mode="border")
    z = sampler(y, gridops.torch.AffineGrid(align_corners=None)(theta, list(x.shape)))
    loss = z.square().mean()
    loss.backward()
    return float(loss.item())


def export(module: torch.nn.Module, x: torch.Tensor, theta: torch.Tensor, path: str) -> Any:
    gridops.torch.export_onnx(module, (x, theta), path, opset=20, input_names=["x", "theta"])
    assert gridops.torch.ONNX_DOMAIN == "ai.gridops"
    try:
        torch.onnx.export(module, (x, theta), path, opset_version=14)
    except gridops.torch.OnnxExportError as e:
        print(e)
    return gridops.torch.upgrade_onnx(path, 20, check=False)


def chunked(x: npt.NDArray[np.float32], theta: npt.NDArray[np.float32]) -> Any:
    import gridops.dask
    box: List[Tuple[int, int]] = gridops.grid_sample_input_box(np.zeros((1, 2, 2, 2), np.float32), (8, 8))
    rbox: List[Tuple[int, int]] = gridops.resample_input_box((8,), (4,), (0,), (2,))
    y = gridops.grid_sample(x, np.zeros((1, 2, 2, 2), np.float32), full_size=(8, 8), origin=(box[0][0], box[1][0]))
    z = gridops.resample(x, size=[2], window=((8,), (4,), (rbox[0][0],), (0,)))
    wbox: List[Tuple[int, int]] = gridops.affine_warp_input_box(theta, (8, 8), (4, 4), (0, 0), (2, 2))
    v: npt.NDArray[Any] = gridops.affine_warp(x, theta, (4, 4), "bilinear", "border", False, threads=1,
                                              window=((0, 0), (2, 2)), full_size=(8, 8),
                                              origin=(wbox[0][0], wbox[1][0]))
    del y, z, v
    w = gridops.dask.affine_warp(x, theta, (4, 4), "bilinear", "zeros", False, output_chunks=(2, 2), threads=1)
    return gridops.dask.pad(gridops.dask.resample(w, size=[3, 3]), 1, "wrap")
