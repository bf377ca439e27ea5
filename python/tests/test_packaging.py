"""The package metadata and the offline pip install from the checkout into a virtual
environment (python3 -m venv --system-site-packages; Debian's pip and setuptools, no index)."""

import os
import re
import subprocess
import sys

import pytest

import gridops

ROOT = os.environ.get("GRIDOPS_SOURCE_DIR") or os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def test_version_is_the_cmake_project_version():
    with open(os.path.join(ROOT, "CMakeLists.txt")) as f:
        m = re.search(r"project\(gridops VERSION ([0-9.]+)", f.read())
    assert m and gridops.__version__ == m.group(1)


def test_help_shows_the_contract():
    doc = gridops.grid_sample.__doc__
    assert "grid_sample(input, grid, mode=" in doc and "padding_mode" in doc and "DTypeError" in doc
    assert "ONNX" in gridops.pad.__doc__ and "pad_width" in gridops.pad.__doc__


@pytest.mark.skipif(not os.environ.get("GRIDOPS_BUILD_DIR"),
                    reason="needs GRIDOPS_BUILD_DIR (a configured CMake build to reuse; ctest sets it)")
def test_pip_install_offline_into_a_venv(tmp_path):
    venv = tmp_path / "venv"
    # --without-pip: Debian's pip is reached through --system-site-packages (no ensurepip copy)
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", "--without-pip", str(venv)], check=True)
    py = str(venv / "bin" / "python")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PIP_INDEX_URL", "PIP_FIND_LINKS")}
    env["GRIDOPS_CMAKE_BUILD_DIR"] = os.environ["GRIDOPS_BUILD_DIR"]
    env["PIP_NO_INDEX"] = "1"
    r = subprocess.run([py, "-m", "pip", "install", "--no-build-isolation", "--no-index", "--no-deps", "-q", ROOT],
                       env=env, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    check = ("import gridops, numpy as np; "
             "y = gridops.pad(np.arange(3.0), 1); assert y.tolist() == [0, 0, 1, 2, 0], y; "
             "print(gridops.__version__, gridops.__file__)")
    r = subprocess.run([py, "-c", check], env=env, capture_output=True, text=True, cwd=str(tmp_path))
    assert r.returncode == 0, r.stderr
    version, path = r.stdout.split()
    assert version == gridops.__version__
    assert path.startswith(str(venv)), path  # the installed copy, not the build tree
