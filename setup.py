"""Builds the extension gridops._gridops with the project's CMake build (setuptools only
copies the result). GRIDOPS_CMAKE_BUILD_DIR names an existing build directory to reuse
(configured or not); otherwise one is made under setuptools' build_temp. GRIDOPS_CMAKE_ARGS
adds configure arguments. No download: CMake finds Debian's packages, which
`scripts/setup.sh python` installs (the library's build packages plus python3-dev,
pybind11-dev, libdlpack-dev); a missing one stops the build with a message naming it."""

import os
import re
import shlex
import shutil
import subprocess
import sys
import sysconfig

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = os.path.dirname(os.path.abspath(__file__))


def cmake_project_version():
    """The version of project(gridops VERSION ...) in CMakeLists.txt, the one place it is
    written (include/gridops/version.h and so gridops.__version__ are generated from it)."""
    with open(os.path.join(ROOT, "CMakeLists.txt")) as f:
        m = re.search(r"project\(\s*gridops\s+VERSION\s+([0-9]+\.[0-9]+\.[0-9]+)", f.read())
    if not m:
        raise RuntimeError("gridops: no project(gridops VERSION X.Y.Z) line in CMakeLists.txt")
    return m.group(1)


SETUP_HINT = ("on Debian 12, `scripts/setup.sh python` (in the source tree or the unpacked sdist) "
              "installs the compiler, CMake and the packages the build needs")


def fail(msg):
    """Stops the build with msg and the hint naming scripts/setup.sh python."""
    raise SystemExit(f"gridops: {msg}\ngridops: {SETUP_HINT}")


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        if shutil.which("cmake") is None:
            fail("cmake not found on PATH: the extension is built by the project's CMake build")
        own_dir = not os.environ.get("GRIDOPS_CMAKE_BUILD_DIR")
        build_dir = os.environ.get("GRIDOPS_CMAKE_BUILD_DIR") or os.path.join(os.path.abspath(self.build_temp),
                                                                               "cmake")
        os.makedirs(build_dir, exist_ok=True)
        cache = os.path.join(build_dir, "CMakeCache.txt")
        fresh = not os.path.exists(cache)

        def forget_configure():
            # A configure that failed or left the extension out (a missing package) is not
            # reused: the next pip install, after scripts/setup.sh python, configures again.
            if own_dir and fresh and os.path.exists(cache):
                os.remove(cache)

        if fresh:
            try:
                subprocess.check_call(["cmake", "-S", ROOT, "-B", build_dir, "-DCMAKE_BUILD_TYPE=Release",
                                       "-DGRIDOPS_BUILD_TESTS=OFF", "-DGRIDOPS_BUILD_EXAMPLES=OFF",
                                       "-DGRIDOPS_BUILD_PYTHON=ON", f"-DPython3_EXECUTABLE={sys.executable}"]
                                      + shlex.split(os.environ.get("GRIDOPS_CMAKE_ARGS", "")))
            except subprocess.CalledProcessError as e:
                forget_configure()
                fail(f"the CMake configure failed (exit {e.returncode}; its messages above name what is missing)")
        name = "_gridops" + sysconfig.get_config_var("EXT_SUFFIX")
        built = os.path.join(build_dir, "python", "gridops", name)
        try:
            subprocess.check_call(["cmake", "--build", build_dir, "--target", "gridops_python", "-j",
                                   str(os.cpu_count() or 2)])
        except subprocess.CalledProcessError as e:
            if not os.path.exists(os.path.join(build_dir, "python", "gridops")):
                # no target gridops_python: configure left the Python package out
                forget_configure()
                fail(f"the CMake configure left the Python extension out (exit {e.returncode}): python3-dev, "
                     "pybind11-dev or libdlpack-dev is missing (its warning above names it), or "
                     "GRIDOPS_CMAKE_ARGS turned it off")
            fail(f"the CMake build failed (exit {e.returncode})")
        if not os.path.exists(built):
            forget_configure()
            fail(f"the CMake build did not produce {built} (is GRIDOPS_BUILD_PYTHON on and are "
                 "python3-dev, pybind11-dev, libdlpack-dev installed?)")
        dest = self.get_ext_fullpath(ext.name)
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        shutil.copyfile(built, dest)


setup(version=cmake_project_version(), ext_modules=[Extension("gridops._gridops", sources=[])], cmdclass={"build_ext": CMakeBuild})
