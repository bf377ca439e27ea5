"""ONNX models (gridops.onnx.Model) and the ONNX backend conformance runner.

Present when gridops was built with its ONNX front end (GRIDOPS_BUILD_ONNX, the default).
"""

from . import _gridops

try:
    _onnx = _gridops.onnx
except AttributeError as e:  # built with -DGRIDOPS_BUILD_ONNX=OFF
    raise ImportError("gridops was built without its ONNX front end (GRIDOPS_BUILD_ONNX=OFF)") from e

Model = _onnx.Model
ValueInfo = _onnx.ValueInfo
CaseResult = _onnx.CaseResult
conformance = _onnx.conformance
find_test_dirs = _onnx.find_test_dirs
read_tensor = _onnx.read_tensor

__all__ = ["CaseResult", "Model", "ValueInfo", "conformance", "find_test_dirs", "read_tensor"]
