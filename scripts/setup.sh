#!/usr/bin/env bash
# Installs the Debian packages one job of gridops needs, if any are missing. Idempotent;
# needs root (or sudo) only when something is missing.
#
# Usage: scripts/setup.sh [demo|test|python|bench|fuzz|arm64]...   (default: demo)
#   demo   the library, the `gridops` command and its demo: compiler, CMake, Ninja, Highway,
#          oneTBB (the threads), protobuf + ONNX definitions (the model runner), CLI11, stb
#   test   demo + the test oracles: GoogleTest/GoogleMock, oneDNN (with the OpenCL headers
#          its CMake package requires), the ONNX backend test data, libtorch (GridSample and
#          AffineGrid forward and backward against PyTorch); the Python package's
#          build (python3-dev, pybind11-dev, libdlpack-dev) and tests (pytest, Hypothesis,
#          NumPy, PyTorch, SciPy, mypy, venv + pip; Dask, distributed and Zarr for
#          gridops.dask and its out-of-core example; the onnx Python package for the ONNX
#          export tests)
#   python demo + what `pip install .` (from the checkout or an sdist) needs to build and
#          install the Python package offline: python3-dev, pybind11-dev, libdlpack-dev,
#          NumPy, venv, pip and setuptools
#   bench  demo + Google Benchmark and the peers: libtorch, OpenCV, oneDNN; for
#          bench/python/bench.py the Python package's build and its Python peers
#          (PyTorch, SciPy, OpenCV's cv2, NumPy); Dask and distributed for
#          bench/python/dask_bench.py
#   fuzz   demo + clang and its sanitizer runtimes (libFuzzer)
#   arm64  the aarch64 cross build and its tests under qemu (scripts/test-arm64.sh): host
#          CMake, Ninja, protoc, the cross compiler (crossbuild-essential-arm64), qemu-user
#          (qemu-aarch64, run directly, no binfmt) and the arm64 multiarch -dev packages of
#          the library, the gridops command and the C++ tests (adds the arm64 architecture to
#          dpkg first). Not libonnx-dev:arm64: its libonnxifi:arm64 cannot be co-installed
#          with the host's libonnxifi (both own /usr/lib/libonnxifi.so), so
#          scripts/test-arm64.sh unpacks those three .debs into build/arm64-deps instead.
#          libonnx-testdata (all architectures) is the conformance data.
# The same lists are printed by `scripts/setup.sh --list PROFILE`.
set -euo pipefail

DEMO=(build-essential cmake ninja-build pkg-config libhwy-dev libtbb-dev
      libprotobuf-dev protobuf-compiler libonnx-dev libcli11-dev libstb-dev)
# libdnnl-dev only recommends ocl-icd-opencl-dev, but its CMake package calls
# find_package(OpenCL REQUIRED): without it every configure that looks for oneDNN fails.
# The Python package (python/) and its tests: pybind11, the Python headers and DLPack to
# build it; pytest, Hypothesis and the oracles (NumPy, PyTorch, SciPy); Pillow for the
# example; OpenCV's cv2 and Pillow for docs/coming-from.md's tests
# (python/tests/test_coming_from.py); mypy for the stubs;
# venv and pip for the offline pip-install test; python3-onnx for the ONNX export tests
# (python/tests/test_onnx_export.py).
TEST=(libgtest-dev libgmock-dev libdnnl-dev ocl-icd-opencl-dev libonnx-testdata libtorch-dev
      python3-dev pybind11-dev libdlpack-dev python3-numpy python3-pytest python3-hypothesis
      python3-torch python3-scipy python3-pil mypy python3-venv python3-pip python3-setuptools
      python3-dask python3-distributed python3-zarr python3-onnx python3-opencv)
BENCH=(libbenchmark-dev libtorch-dev libopencv-dev libdnnl-dev ocl-icd-opencl-dev
       python3-dev pybind11-dev libdlpack-dev python3-numpy python3-torch python3-scipy
       python3-opencv python3-dask python3-distributed)
# `pip install --no-build-isolation --no-index .` into a venv (setup.py runs the CMake build).
PYTHON=(python3-dev pybind11-dev libdlpack-dev python3-numpy python3-venv python3-pip
        python3-setuptools)
FUZZ=(clang libclang-rt-14-dev)
ARM64=(cmake ninja-build pkg-config protobuf-compiler crossbuild-essential-arm64 qemu-user
       libhwy-dev:arm64 libtbb-dev:arm64 libprotobuf-dev:arm64 libcli11-dev libstb-dev:arm64
       libgtest-dev:arm64 libgmock-dev:arm64 libonnx-testdata)

list=0
if [[ "${1:-}" == "--list" ]]; then list=1; shift; fi
(($#)) || set -- demo

packages=()
for profile in "$@"; do
  case "$profile" in
    demo) packages+=("${DEMO[@]}") ;;
    test) packages+=("${DEMO[@]}" "${TEST[@]}") ;;
    python) packages+=("${DEMO[@]}" "${PYTHON[@]}") ;;
    bench) packages+=("${DEMO[@]}" "${BENCH[@]}") ;;
    fuzz) packages+=("${DEMO[@]}" "${FUZZ[@]}") ;;
    arm64) packages+=("${ARM64[@]}") ;;
    *) echo "setup: unknown profile '$profile' (expected demo, test, python, bench, fuzz or arm64)" >&2; exit 2 ;;
  esac
done
mapfile -t packages < <(printf '%s\n' "${packages[@]}" | awk '!seen[$0]++')

if ((list)); then printf '%s\n' "${packages[@]}"; exit 0; fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if ((${#missing[@]})); then
  echo "setup ($*): installing ${missing[*]}" >&2
  SUDO=""
  if [[ $(id -u) -ne 0 ]]; then SUDO="sudo"; fi
  export DEBIAN_FRONTEND=noninteractive
  # Arch-qualified names (libhwy-dev:arm64) need that architecture in dpkg's list.
  for p in "${missing[@]}"; do
    if [[ "$p" == *:* ]] && ! dpkg --print-foreign-architectures | grep -qx "${p##*:}"; then
      $SUDO dpkg --add-architecture "${p##*:}"
    fi
  done
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
