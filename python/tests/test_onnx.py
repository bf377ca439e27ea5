"""gridops.onnx: the model runner and the conformance runner from Python."""

import glob
import os

import numpy as np
import pytest

import gridops
from conftest import shared_dir

onnx = pytest.importorskip("gridops.onnx")

SHARED = shared_dir()
CONF = os.path.join(SHARED, "conformance", "onnx") if SHARED else None
needs_data = pytest.mark.skipif(not CONF or not os.path.isdir(CONF), reason="../shared/conformance/onnx missing")


@needs_data
@pytest.mark.parametrize("case", ["test_gridsample_bicubic", "test_affine_grid_2d_align_corners", "test_gridsample"])
def test_model_run_matches_the_expected_outputs(case):
    d = os.path.join(CONF, case)
    m = onnx.Model(os.path.join(d, "model.onnx"))
    m.check_supported()
    assert m.inputs and m.outputs and m.opset > 0
    data = os.path.join(d, "test_data_set_0")
    inputs = {}
    for i, info in enumerate(m.inputs):
        arr = onnx.read_tensor(os.path.join(data, f"input_{i}.pb"))
        assert info.dtype == str(arr.dtype) and len(info.shape) == arr.ndim
        inputs[info.name] = arr
    out = m.run(inputs)
    assert list(out) == [o.name for o in m.outputs]
    for i, info in enumerate(m.outputs):
        expected = onnx.read_tensor(os.path.join(data, f"output_{i}.pb"))
        np.testing.assert_allclose(out[info.name], expected, rtol=1e-3, atol=1e-5)


@needs_data
def test_model_errors():
    m = onnx.Model(os.path.join(CONF, "test_gridsample", "model.onnx"))
    with pytest.raises(ValueError):
        m.run({})
    with pytest.raises(ValueError):
        onnx.Model(os.path.join(CONF, "no_such_dir", "model.onnx"))


@needs_data
def test_conformance_runner():
    dirs = sorted(glob.glob(os.path.join(CONF, "test_gridsample*")))[:6]
    results = onnx.conformance(dirs)
    assert len(results) == len(dirs)
    assert {r.status for r in results} <= {"pass", "skip"}
    assert any(r.status == "pass" for r in results)
    assert all(r.name == os.path.basename(r.path) for r in results)
