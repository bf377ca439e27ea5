"""Builds the extension gridops._gridops with the project's CMake build (setuptools only
copies the result). GRIDOPS_CMAKE_BUILD_DIR names an existing build directory to reuse
(configured or not); otherwise one is made under setuptools' build_temp. GRIDOPS_CMAKE_ARGS
adds configure arguments. No download: CMake finds Debian's packages (scripts/setup.sh demo
plus python3-dev pybind11-dev libdlpack-dev)."""

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


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        build_dir = os.environ.get("GRIDOPS_CMAKE_BUILD_DIR") or os.path.join(os.path.abspath(self.build_temp),
                                                                               "cmake")
        os.makedirs(build_dir, exist_ok=True)
        if not os.path.exists(os.path.join(build_dir, "CMakeCache.txt")):
            subprocess.check_call(["cmake", "-S", ROOT, "-B", build_dir, "-DCMAKE_BUILD_TYPE=Release",
                                   "-DGRIDOPS_BUILD_TESTS=OFF", "-DGRIDOPS_BUILD_EXAMPLES=OFF",
                                   "-DGRIDOPS_BUILD_PYTHON=ON", f"-DPython3_EXECUTABLE={sys.executable}"]
                                  + shlex.split(os.environ.get("GRIDOPS_CMAKE_ARGS", "")))
        subprocess.check_call(["cmake", "--build", build_dir, "--target", "gridops_python", "-j",
                               str(os.cpu_count() or 2)])
        name = "_gridops" + sysconfig.get_config_var("EXT_SUFFIX")
        built = os.path.join(build_dir, "python", "gridops", name)
        if not os.path.exists(built):
            raise RuntimeError(f"gridops: the CMake build did not produce {built} "
                               "(is GRIDOPS_BUILD_PYTHON on and are python3-dev, pybind11-dev, libdlpack-dev installed?)")
        dest = self.get_ext_fullpath(ext.name)
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        shutil.copyfile(built, dest)


setup(version=cmake_project_version(), ext_modules=[Extension("gridops._gridops", sources=[])], cmdclass={"build_ext": CMakeBuild})
