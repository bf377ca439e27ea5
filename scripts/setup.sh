#!/usr/bin/env bash
# Installs the Debian packages one job of gridops needs, if any are missing. Idempotent;
# needs root (or sudo) only when something is missing.
#
# Usage: scripts/setup.sh [demo|test|bench|fuzz]...   (default: demo)
#   demo   the library, the `gridops` command and its demo: compiler, CMake, Ninja, Highway,
#          oneTBB (the threads), protobuf + ONNX definitions (the model runner), CLI11, stb
#   test   demo + the test oracles: GoogleTest/GoogleMock, oneDNN (with the OpenCL headers
#          its CMake package requires), the ONNX backend test data, libtorch (GridSample and
#          AffineGrid forward and backward against PyTorch); the Python package's
#          build (python3-dev, pybind11-dev, libdlpack-dev) and tests (pytest, Hypothesis,
#          NumPy, PyTorch, SciPy, mypy, venv + pip; Dask, distributed and Zarr for
#          gridops.dask and its out-of-core example)
#   bench  demo + Google Benchmark and the peers: libtorch, OpenCV, oneDNN; for
#          bench/python/bench.py the Python package's build and its Python peers
#          (PyTorch, SciPy, OpenCV's cv2, NumPy); Dask and distributed for
#          bench/python/dask_bench.py
#   fuzz   demo + clang and its sanitizer runtimes (libFuzzer)
# The same lists are printed by `scripts/setup.sh --list PROFILE`.
set -euo pipefail

DEMO=(build-essential cmake ninja-build pkg-config libhwy-dev libtbb-dev
      libprotobuf-dev protobuf-compiler libonnx-dev libcli11-dev libstb-dev)
# libdnnl-dev only recommends ocl-icd-opencl-dev, but its CMake package calls
# find_package(OpenCL REQUIRED): without it every configure that looks for oneDNN fails.
# The Python package (python/) and its tests: pybind11, the Python headers and DLPack to
# build it; pytest, Hypothesis and the oracles (NumPy, PyTorch, SciPy); Pillow for the
# example; mypy for the stubs;
# venv and pip for the offline pip-install test.
TEST=(libgtest-dev libgmock-dev libdnnl-dev ocl-icd-opencl-dev libonnx-testdata libtorch-dev
      python3-dev pybind11-dev libdlpack-dev python3-numpy python3-pytest python3-hypothesis
      python3-torch python3-scipy python3-pil mypy python3-venv python3-pip python3-setuptools
      python3-dask python3-distributed python3-zarr)
BENCH=(libbenchmark-dev libtorch-dev libopencv-dev libdnnl-dev ocl-icd-opencl-dev
       python3-dev pybind11-dev libdlpack-dev python3-numpy python3-torch python3-scipy
       python3-opencv python3-dask python3-distributed)
FUZZ=(clang libclang-rt-14-dev)

list=0
if [[ "${1:-}" == "--list" ]]; then list=1; shift; fi
(($#)) || set -- demo

packages=()
for profile in "$@"; do
  case "$profile" in
    demo) packages+=("${DEMO[@]}") ;;
    test) packages+=("${DEMO[@]}" "${TEST[@]}") ;;
    bench) packages+=("${DEMO[@]}" "${BENCH[@]}") ;;
    fuzz) packages+=("${DEMO[@]}" "${FUZZ[@]}") ;;
    *) echo "setup: unknown profile '$profile' (expected demo, test, bench or fuzz)" >&2; exit 2 ;;
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
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
