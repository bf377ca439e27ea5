"""examples/python/warp_image.py runs and writes the picture it promises."""

import os
import subprocess
import sys

import numpy as np
import pytest

PIL = pytest.importorskip("PIL.Image")
ROOT = os.environ.get("GRIDOPS_SOURCE_DIR") or os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def test_warp_image_example(tmp_path):
    src = tmp_path / "in.png"
    PIL.fromarray((np.arange(48 * 64 * 3) % 251).astype(np.uint8).reshape(48, 64, 3)).save(src)
    out = tmp_path / "out.png"
    r = subprocess.run([sys.executable, os.path.join(ROOT, "examples", "python", "warp_image.py"), str(src),
                        "-o", str(out), "--padding", "border"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    sheet = np.asarray(PIL.open(out))
    assert sheet.shape == (2 * 48, 4 * 64, 3)
    # the first column is the input itself; the warped columns differ from it
    np.testing.assert_array_equal(sheet[:48, :64], np.asarray(PIL.open(src)))
    assert (sheet[:48, 64:128] != sheet[:48, :64]).any()


def test_torch_dropin_example():
    pytest.importorskip("torch")
    r = subprocess.run([sys.executable, os.path.join(ROOT, "examples", "python", "torch_dropin.py"),
                        "--queries", "50", "--repeat", "2"], capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "'aten::grid_sampler_2d': 8" in r.stdout, r.stdout  # 4 levels x 2 calls
