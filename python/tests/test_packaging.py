"""The package metadata, the sdist (MANIFEST.in) and the offline pip install from the
checkout, or from the sdist, into a virtual environment (python3 -m venv
--system-site-packages; Debian's pip and setuptools, no index)."""

import ast
import os
import re
import shutil
import subprocess
import sys
import tarfile

import pytest

import gridops

ROOT = os.environ.get("GRIDOPS_SOURCE_DIR") or os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def cmake_project_version():
    with open(os.path.join(ROOT, "CMakeLists.txt")) as f:
        m = re.search(r"project\(gridops VERSION ([0-9.]+)", f.read())
    assert m
    return m.group(1)


def test_version_is_the_cmake_project_version():
    assert gridops.__version__ == cmake_project_version()


def test_version_is_the_cpp_librarys():
    # GRIDOPS_VERSION_STRING of include/gridops/version.h, generated from project(VERSION);
    # no version literal is left in the Python sources or the metadata files.
    from gridops import _gridops
    assert gridops.__version__ == _gridops.__version__
    for f in ("pyproject.toml", os.path.join("python", "gridops", "_version.py"),
              os.path.join("python", "gridops", "__init__.py")):
        with open(os.path.join(ROOT, f)) as fh:
            assert cmake_project_version() not in fh.read(), f


def test_license_and_notice():
    with open(os.path.join(ROOT, "LICENSE")) as f:
        text = f.read()
    assert text.lstrip().startswith("Apache License") and "Version 2.0, January 2004" in text
    assert "END OF TERMS AND CONDITIONS" in text
    with open(os.path.join(ROOT, "NOTICE")) as f:
        notice = f.read()
    for component in ("Highway", "oneTBB", "Protocol Buffers", "ONNX", "CLI11", "stb", "pybind11", "DLPack",
                      "GoogleTest", "Google Benchmark", "oneDNN", "libtorch", "OpenCV"):
        assert component in notice, component


def test_pyproject_declares_the_license():
    tomllib = pytest.importorskip("tomllib")
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as f:
        meta = tomllib.load(f)
    assert meta["project"]["license"] == {"text": "Apache-2.0"}
    assert "License :: OSI Approved :: Apache Software License" in meta["project"]["classifiers"]
    assert set(meta["tool"]["setuptools"]["license-files"]) == {"LICENSE", "NOTICE"}
    # the version is setup.py's, read from CMakeLists.txt
    assert meta["project"]["dynamic"] == ["version"]
    assert "dynamic" not in meta["tool"]["setuptools"]


def test_changelog_has_this_version():
    with open(os.path.join(ROOT, "CHANGELOG.md")) as f:
        text = f.read()
    assert text.startswith("# Changelog")
    assert re.search(r"^## \[%s\]" % re.escape(cmake_project_version()), text, re.M)
    assert re.search(r"^## \[Unreleased\]", text, re.M)


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
    check = ("import gridops, numpy as np, importlib.metadata as md; "
             "y = gridops.pad(np.arange(3.0), 1); assert y.tolist() == [0, 0, 1, 2, 0], y; "
             "m = md.metadata('gridops'); "
             "print(gridops.__version__, gridops.__file__, m['Version'], m['License'], "
             "','.join(sorted(m.get_all('License-File') or [])))")
    r = subprocess.run([py, "-c", check], env=env, capture_output=True, text=True, cwd=str(tmp_path))
    assert r.returncode == 0, r.stderr
    version, path, meta_version, meta_license, license_files = r.stdout.split()
    assert version == gridops.__version__ == meta_version
    assert meta_license == "Apache-2.0"
    assert license_files == "LICENSE,NOTICE"
    assert path.startswith(str(venv)), path  # the installed copy, not the build tree


def run_sdist(dist_dir):
    """python3 setup.py sdist of the checkout into dist_dir (egg_info --egg-base: the metadata
    goes there too, not into python/ of the checkout). Returns the tarball's path."""
    pytest.importorskip("setuptools")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    r = subprocess.run([sys.executable, "setup.py", "-q", "egg_info", "--egg-base", str(dist_dir),
                        "sdist", "--dist-dir", str(dist_dir)],
                       cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    tarballs = [f for f in os.listdir(dist_dir) if f.endswith(".tar.gz")]
    assert tarballs == ["gridops-%s.tar.gz" % cmake_project_version()], tarballs
    return os.path.join(str(dist_dir), tarballs[0])


@pytest.fixture(scope="module")
def sdist(tmp_path_factory):
    return run_sdist(tmp_path_factory.mktemp("sdist"))


def sdist_members(path):
    """The sdist's file names, relative to its top directory gridops-VERSION/."""
    top = "gridops-%s/" % cmake_project_version()
    with tarfile.open(path) as t:
        names = [m.name for m in t.getmembers() if m.isfile()]
    assert all(n.startswith(top) for n in names), [n for n in names if not n.startswith(top)][:5]
    return {n[len(top):] for n in names}


def test_sdist_has_the_sources_of_the_cmake_build(sdist):
    names = sdist_members(sdist)
    for f in ("CMakeLists.txt", "setup.py", "pyproject.toml", "MANIFEST.in", "LICENSE", "NOTICE",
              "README.md", "CHANGELOG.md", "docs/python.md", "scripts/setup.sh", "PKG-INFO",
              "cmake/version.h.in", "src/ops/grid_sample.cc", "include/gridops/gridops.h",
              "python/CMakeLists.txt", "python/src/module.cc", "python/src/onnx_module.cc",
              "python/gridops/__init__.py", "python/gridops/py.typed", "tools/cli/main.cc"):
        assert f in names, f
    # every file of the directories the build reads (CMake globs src/ and onnx/src/)
    for d in ("cmake", "include", "src", "onnx", os.path.join("python", "src"), os.path.join("tools", "cli")):
        for dirpath, dirnames, files in os.walk(os.path.join(ROOT, d)):
            dirnames[:] = [n for n in dirnames if n != "__pycache__"]
            for f in files:
                rel = os.path.relpath(os.path.join(dirpath, f), ROOT).replace(os.sep, "/")
                assert rel in names, rel
    # no build trees, results, VCS data or byte code; the tests, benchmarks and examples stay out
    for n in names:
        parts = n.split("/")
        assert parts[0] not in ("build", "bench", "tests", "examples", ".git", "out"), n
        assert not any(p.startswith("build") or p in ("__pycache__", ".git") or p.endswith(".egg-info")
                       for p in parts[:-1]), n
        assert not n.endswith((".pyc", ".so", ".o", ".a")), n
    assert os.path.getsize(sdist) < 4 << 20, os.path.getsize(sdist)


@pytest.mark.skipif(shutil.which("cmake") is None, reason="needs cmake")
def test_sdist_configures_without_tests_bench_and_examples(sdist, tmp_path):
    # setup.py's configure of the unpacked sdist (no tests/, bench/ or examples/ there).
    with tarfile.open(sdist) as t:
        t.extractall(tmp_path)
    src = tmp_path / ("gridops-%s" % cmake_project_version())
    for d in ("tests", "bench", "examples"):
        assert not (src / d).exists()
    r = subprocess.run(["cmake", "-S", str(src), "-B", str(tmp_path / "build"), "-DCMAKE_BUILD_TYPE=Release",
                        "-DGRIDOPS_BUILD_TESTS=OFF", "-DGRIDOPS_BUILD_EXAMPLES=OFF", "-DGRIDOPS_BUILD_PYTHON=ON",
                        "-DPython3_EXECUTABLE=%s" % sys.executable],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    assert (tmp_path / "build" / "python" / "gridops" / "__init__.py").exists(), r.stdout + r.stderr


def test_setup_py_names_the_setup_profile_when_cmake_is_missing(tmp_path):
    # PATH without cmake: setup.py stops with a message naming scripts/setup.sh python.
    pytest.importorskip("setuptools")
    bindir = tmp_path / "bin"
    bindir.mkdir()
    os.symlink(sys.executable, bindir / "python3")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "GRIDOPS_CMAKE_BUILD_DIR")}
    env["PATH"] = str(bindir)
    r = subprocess.run([str(bindir / "python3"), os.path.join(ROOT, "setup.py"), "-q", "build_ext",
                        "--build-temp", str(tmp_path / "temp"), "--build-lib", str(tmp_path / "lib")],
                       cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert r.returncode != 0
    assert "cmake not found" in r.stderr and "scripts/setup.sh python" in r.stderr, r.stderr
    assert not (tmp_path / "lib").exists()


@pytest.mark.skipif(shutil.which("cmake") is None, reason="needs cmake")
def test_setup_py_hints_at_the_setup_profile_when_configure_fails(tmp_path):
    # A configure that fails (here: no such compiler) ends with the hint, and its cache is
    # not kept for the next try.
    pytest.importorskip("setuptools")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "GRIDOPS_CMAKE_BUILD_DIR")}
    env["GRIDOPS_CMAKE_ARGS"] = "-DCMAKE_CXX_COMPILER=%s" % (tmp_path / "no-such-c++")
    r = subprocess.run([sys.executable, os.path.join(ROOT, "setup.py"), "-q", "build_ext",
                        "--build-temp", str(tmp_path / "temp"), "--build-lib", str(tmp_path / "lib")],
                       cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode != 0
    assert "CMake configure failed" in r.stderr and "scripts/setup.sh python" in r.stderr, r.stderr
    assert not (tmp_path / "temp" / "cmake" / "CMakeCache.txt").exists()


@pytest.mark.skipif(os.environ.get("GRIDOPS_TEST_SDIST") != "1",
                    reason="a full CMake build of the extension from the sdist (minutes): set GRIDOPS_TEST_SDIST=1")
def test_pip_install_the_sdist_offline_into_a_venv(sdist, tmp_path):
    # The sdist is built from its own sources (no GRIDOPS_CMAKE_BUILD_DIR: a build directory
    # of the checkout would compile the checkout, not the sdist).
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", "--without-pip", str(venv)], check=True)
    py = str(venv / "bin" / "python")
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "PIP_INDEX_URL", "PIP_FIND_LINKS", "GRIDOPS_CMAKE_BUILD_DIR")}
    env["PIP_NO_INDEX"] = "1"
    r = subprocess.run([py, "-m", "pip", "install", "--no-build-isolation", "--no-index", "--no-deps", "-q", sdist],
                       env=env, capture_output=True, text=True, timeout=3600, cwd=str(tmp_path))
    assert r.returncode == 0, r.stdout + r.stderr
    check = ("import gridops, numpy as np, importlib.metadata as md; "
             "y = gridops.pad(np.arange(3.0), 1); assert y.tolist() == [0, 0, 1, 2, 0], y; "
             "print(gridops.__version__, gridops.__file__, md.metadata('gridops')['License'])")
    r = subprocess.run([py, "-c", check], env=env, capture_output=True, text=True, cwd=str(tmp_path))
    assert r.returncode == 0, r.stderr
    version, path, meta_license = r.stdout.split()
    assert version == gridops.__version__
    assert meta_license == "Apache-2.0"
    assert path.startswith(str(venv)), path


def stub_names(path):
    with open(path) as f:
        tree = ast.parse(f.read())
    return {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef)) and not n.name.startswith("_")}


def test_stubs_cover_the_runtime_api():
    here = os.path.dirname(gridops.__file__)
    src = os.path.join(ROOT, "python", "gridops")
    public = {n for n in gridops.__all__ if n not in ("onnx", "dask", "__version__")}
    assert stub_names(os.path.join(src, "__init__.pyi")) == public
    import gridops.onnx as gonnx
    assert stub_names(os.path.join(src, "onnx.pyi")) == set(gonnx.__all__)
    import gridops.torch as gtorch
    assert stub_names(os.path.join(src, "torch.pyi")) == set(gtorch.__all__)
    import gridops.dask as gdask
    assert stub_names(os.path.join(src, "dask.pyi")) == set(gdask.__all__)
    # the stubs and py.typed travel with the package
    assert os.path.exists(os.path.join(here, "__init__.pyi")) and os.path.exists(os.path.join(here, "py.typed"))
    # the keyword names of the stubs are those of the signature line of the docstrings
    # (pybind11 checks the same names when it binds keyword arguments)
    for name in ("grid_sample", "affine_grid", "gather", "pad", "resample", "resample_backward",
                 "grid_sample_backward", "affine_grid_backward", "resize", "affine_warp"):
        first_line = getattr(gridops, name).__doc__.splitlines()[0]
        with open(os.path.join(src, "__init__.pyi")) as f:
            stub = f.read()
        stub_sig = re.search(r"def %s\((.*?)\) ->" % name, stub, re.S).group(1)
        stub_params = re.findall(r"(\w+):", stub_sig)
        inside = first_line[first_line.index("(") + 1:first_line.rindex(")")]
        runtime_params = [p.split("=")[0].strip() for p in inside.split(",") if p.strip() != "*"]
        assert stub_params == runtime_params, (name, stub_params, runtime_params)
        # and those of the function's real signature (issue 49: inspect.signature works)
        import inspect
        assert list(inspect.signature(getattr(gridops, name)).parameters) == runtime_params, name


def test_every_keyword_of_the_docs_is_accepted():
    import numpy as np
    x = np.zeros((1, 2, 4, 4), np.float32)
    g = np.zeros((1, 3, 3, 2), np.float32)
    gridops.grid_sample(input=x, grid=g, mode="bilinear", padding_mode="zeros", align_corners=False,
                        layout="channels_first", out=np.empty((1, 2, 3, 3), np.float32))
    gridops.affine_grid(theta=np.zeros((1, 2, 3), np.float32), size=(1, 2, 4, 4), align_corners=True,
                        out=np.empty((1, 4, 4, 2), np.float32))
    gridops.affine_warp(input=x, theta=np.zeros((1, 2, 3), np.float32), size=(3, 3), mode="bilinear",
                        padding_mode="zeros", align_corners=False, layout="channels_first",
                        out=np.empty((1, 2, 3, 3), np.float32), window=None, full_size=None, origin=None,
                        threads=1)
    gridops.affine_warp_input_box(theta=np.zeros((1, 2, 3), np.float32), full_size=(4, 4), size=(3, 3),
                                  out_origin=(0, 0), out_shape=(3, 3), mode="bilinear", padding_mode="zeros",
                                  align_corners=False)
    gridops.gather(data=x, indices=np.array([0]), axis=1, out=np.empty((1, 1, 4, 4), np.float32))
    gridops.pad(input=x, pads=[1, 1], mode="constant", value=0.0, axes=[2], out=np.empty((1, 2, 6, 4), np.float32))
    gridops.resample(input=x, size=None, scale_factor=2.0, mode="linear", layout="channels_first", channels=None,
                     out_layout=None, out=np.empty((1, 2, 8, 8), np.float32))
    gridops.resample_backward(grad_output=np.zeros((1, 2, 8, 8), np.float32), input_size=(1, 2, 4, 4), mode="linear",
                              layout="channels_first", out_layout=None, out=np.empty((1, 2, 4, 4), np.float32))
    gridops.grid_sample_backward(grad_output=np.zeros((1, 2, 3, 3), np.float32), input=x, grid=g, mode="bilinear",
                                 padding_mode="zeros", align_corners=False, layout="channels_first",
                                 input_grad=True, grid_grad=True, grad_input_out=None, grad_grid_out=None)
    gridops.affine_grid_backward(grad_grid=np.zeros((1, 4, 4, 2), np.float32), size=(1, 2, 4, 4),
                                 align_corners=False, out=None)
    gridops.resize(input=x, scales=None, sizes=[8], mode="linear", coordinate_transformation_mode="half_pixel",
                   nearest_mode="floor", cubic_coeff_a=-0.5, exclude_outside=False, antialias=False,
                   keep_aspect_ratio_policy="stretch", extrapolation_value=0.0, axes=[3], roi=None, out=None)
    gridops.ResizePlan(input_shape=x.shape, dtype="float32", scales=[2.0], sizes=None, mode="nearest",
                       coordinate_transformation_mode="asymmetric", nearest_mode="floor", cubic_coeff_a=-0.75,
                       exclude_outside=False, antialias=False, keep_aspect_ratio_policy="stretch",
                       extrapolation_value=0.0, axes=[2], roi=None)(input=x, out=None)
    gridops.set_num_threads(n=gridops.get_num_threads())
    p = gridops.GridSamplePlan(input_shape=x.shape, grid_shape=g.shape, dtype="float32", grid_dtype=None,
                               mode="nearest", padding_mode="border", align_corners=True, layout="channels_first")
    p(input=x, grid=g, out=np.empty((1, 2, 3, 3), np.float32))
    gridops.AffineGridPlan(theta_shape=(1, 2, 3), size=(1, 1, 2, 2), dtype="float32", align_corners=False)
    gridops.GatherPlan(data_shape=(3,), indices_shape=(2,), dtype="float32", indices_dtype="int32", axis=0)
    pp = gridops.PadPlan(input_shape=(3,), pads=[1, 1], dtype="float32", mode="edge", axes=None)
    pp(input=np.zeros(3, np.float32), value=None, out=np.empty(5, np.float32))
    rp = gridops.ResamplePlan(input_size=(1, 1, 4), output_size=(8,), mode="nearest", dtype="float32",
                              layout="ncw", out_layout=None)
    rp.backward(grad_output=rp.forward(input=np.zeros((1, 1, 4), np.float32)), out=np.empty((1, 1, 4), np.float32))
