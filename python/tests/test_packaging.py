"""The package metadata and the offline pip install from the checkout into a virtual
environment (python3 -m venv --system-site-packages; Debian's pip and setuptools, no index)."""

import ast
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


def stub_names(path):
    with open(path) as f:
        tree = ast.parse(f.read())
    return {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef)) and not n.name.startswith("_")}


def test_stubs_cover_the_runtime_api():
    here = os.path.dirname(gridops.__file__)
    src = os.path.join(ROOT, "python", "gridops")
    public = {n for n in gridops.__all__ if n not in ("onnx", "__version__")}
    assert stub_names(os.path.join(src, "__init__.pyi")) == public
    import gridops.onnx as gonnx
    assert stub_names(os.path.join(src, "onnx.pyi")) == set(gonnx.__all__)
    # the stubs and py.typed travel with the package
    assert os.path.exists(os.path.join(here, "__init__.pyi")) and os.path.exists(os.path.join(here, "py.typed"))
    # the keyword names of the stubs are the runtime's (pybind11 writes them in the docstring)
    for name in ("grid_sample", "affine_grid", "gather", "pad", "resample", "resample_backward"):
        first_line = getattr(gridops, name).__doc__.splitlines()[0]
        with open(os.path.join(src, "__init__.pyi")) as f:
            stub = f.read()
        stub_sig = re.search(r"def %s\((.*?)\) ->" % name, stub, re.S).group(1)
        stub_params = re.findall(r"(\w+):", stub_sig)
        runtime_params = re.findall(r"(\w+):", first_line)
        assert stub_params == runtime_params, (name, stub_params, runtime_params)
