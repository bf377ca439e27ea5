#!/usr/bin/env bash
# The C++ test suite on aarch64: a cross build with Debian 12's aarch64-linux-gnu-g++ 12
# (cmake/toolchain-aarch64.cmake) against the arm64 multiarch packages, every test run
# under qemu-user (qemu-aarch64, invoked directly: no binfmt_misc needed) three times:
#   NEON     QEMU_CPU=cortex-a72        Highway dispatches to NEON (128-bit)
#   SVE 256  QEMU_CPU=max,sve256=on     Highway dispatches to SVE_256 (256-bit vectors)
#   SVE 512  QEMU_CPU=max,sve512=on     Highway dispatches to SVE2 (512-bit, length-agnostic)
# Before each run gridops_hwy_probe (tests/tools/hwy_probe.cc, compiled like the library's
# Highway files) prints the target Highway's dynamic dispatch picks under that CPU, and the
# run stops unless it is the expected one. Each phase's seconds are printed at the end
# ("ARM64 build: N s", ...). Exits non-zero when a probe or any test fails (all three runs
# are made first).
#
# Usage: scripts/test-arm64.sh [--neon-only]
#   GRIDOPS_ARM64_JOBS  parallel compile and test jobs (default: nproc)
#
# What is built: the library, the gridops command, the examples and every C++ test
# (tests/core, ops, properties, kernels, onnx and the ONNX conformance suites), Release,
# -Werror, the test sources at -O1 as in scripts/test.sh. Left out on ARM: the oneDNN and
# PyTorch comparisons (GRIDOPS_TEST_ONEDNN/TORCH: x86 test oracles; Debian's libdnnl-dev
# and libtorch-dev are not needed here) and the Python package (GRIDOPS_BUILD_PYTHON=OFF).
# Threads come from oneTBB (libtbb-dev:arm64 co-installs with the host's).
#
# Packages (scripts/setup.sh --list arm64): all co-install with the x86 ones except
# libonnx-dev:arm64, whose dependency libonnxifi:arm64 owns /usr/lib/libonnxifi.so like the
# host's libonnxifi (dpkg refuses to overwrite it). So the arm64 libonnx1, libonnx-dev and
# libonnxifi .debs are downloaded with apt-get and unpacked into build/arm64-deps (not
# installed), and CMake finds ONNX there (CMAKE_PREFIX_PATH); the binaries find
# libonnx_proto.so.1 through their build-tree RUNPATH.
#
# Time (docs/dev/ci.md, "ARM64 under qemu"), on the project's 2-core machine: the clean build
# 384 s, the NEON run 128-147 s, SVE 256 186-203 s, SVE 512 168-228 s (502 tests each, two
# runs), about 16 minutes in all; so all three runs cover the whole suite (nothing is
# selected with ctest -R/-L) and no test's problem count is scaled down. The tests that
# loop over every Highway target (the kernel diff tests) leave out, in the SVE runs, the
# targets the NEON run already ran (NEON in this build, from the NEON probe's
# "supported:" line; GRIDOPS_TEST_SKIP_TARGETS): under qemu's SVE CPUs they would only be
# emulated again. Under qemu the three CLI tests that measure
# memory with ulimit -v skip (the limit covers the emulator's own mappings).
set -euo pipefail
cd "$(dirname "$0")/.."

neon_only=0
[[ "${1:-}" == "--neon-only" ]] && neon_only=1

phases=()
phase() { phases+=("$1: $((SECONDS - t0)) s"); t0=$SECONDS; }
t0=$SECONDS
JOBS=${GRIDOPS_ARM64_JOBS:-$(nproc)}
BUILD=build/arm64
DEPS=build/arm64-deps

scripts/setup.sh arm64

# The arm64 ONNX libraries and CMake package, unpacked (see above); redone when the
# candidate version changes.
onnx_version=$(apt-cache policy libonnx-dev:arm64 | awk '/Candidate:/ { print $2 }')
if [[ -z "$onnx_version" || "$onnx_version" == "(none)" ]]; then
  echo "test-arm64: no candidate for libonnx-dev:arm64 (apt-get update?)" >&2
  exit 1
fi
if [[ "$(cat "$DEPS/.onnx-version" 2>/dev/null)" != "$onnx_version" ]]; then
  echo "== unpacking libonnx1, libonnx-dev, libonnxifi $onnx_version (arm64) into $DEPS =="
  rm -rf "$DEPS"
  mkdir -p "$DEPS/debs"
  (cd "$DEPS/debs" && apt-get download -q -o APT::Sandbox::User=root \
     "libonnx1:arm64=$onnx_version" "libonnx-dev:arm64=$onnx_version" \
     "libonnxifi:arm64=$onnx_version")
  for deb in "$DEPS"/debs/*.deb; do dpkg-deb -x "$deb" "$DEPS"; done
  echo "$onnx_version" > "$DEPS/.onnx-version"
fi
phase "ARM64 packages"

echo "== ARM64 cross build (-Werror) =="
cmake $(scripts/cmake_generator.sh "$BUILD") -S . -B "$BUILD" \
  -DCMAKE_TOOLCHAIN_FILE=cmake/toolchain-aarch64.cmake -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$PWD/$DEPS/usr" \
  -DGRIDOPS_WERROR=ON -DGRIDOPS_BUILD_TESTS=ON -DGRIDOPS_REQUIRE_TEST_DEPS=ON \
  -DGRIDOPS_TEST_ONEDNN=OFF -DGRIDOPS_TEST_TORCH=OFF -DGRIDOPS_BUILD_PYTHON=OFF \
  -DGRIDOPS_TEST_OPT=-O1 >/dev/null
cmake --build "$BUILD" -j"$JOBS"
phase "ARM64 build"

QEMU=$(command -v qemu-aarch64)
# The arm64 loader and libc as the toolchain file picks them (its GRIDOPS_AARCH64_LD_PREFIX).
LD_PREFIX=/usr/aarch64-linux-gnu
[[ -e /lib/ld-linux-aarch64.so.1 ]] && LD_PREFIX=/
failed=()
# The targets the NEON run covers (its probe's "supported:" list); the SVE runs leave them
# out of the tests' per-target loops (GRIDOPS_TEST_SKIP_TARGETS, tests/support/test_util.h).
neon_targets=
# run NAME QEMU_CPU EXPECTED_TARGET_REGEX [SKIP_TARGETS]
run() {
  local name=$1 cpu=$2 expect=$3 skip=${4:-} probe
  echo "== ARM64 $name tests (QEMU_CPU=$cpu) =="
  if ! probe=$(QEMU_CPU=$cpu "$QEMU" -L "$LD_PREFIX" "$BUILD/tests/gridops_hwy_probe"); then
    echo "test-arm64: the probe did not run under QEMU_CPU=$cpu" >&2
    failed+=("$name (probe)")
    return
  fi
  echo "$probe"
  if ! grep -Eq "^chosen: ($expect)\$" <<<"$probe"; then
    echo "test-arm64: under QEMU_CPU=$cpu Highway should choose '$expect'" >&2
    failed+=("$name (probe)")
    return
  fi
  [[ $name == NEON ]] && neon_targets=$(sed -n 's/^supported: //p' <<<"$probe" | tr ' ' ',')
  [[ -n $skip ]] && echo "per-target loops leave out the NEON run's targets: GRIDOPS_TEST_SKIP_TARGETS=$skip"
  if ! (cd "$BUILD" && QEMU_CPU=$cpu GRIDOPS_TEST_SKIP_TARGETS=$skip ctest -j"$JOBS" --output-on-failure); then
    failed+=("$name")
  fi
  phase "ARM64 $name tests"
}
run NEON cortex-a72 'NEON \(128-bit vectors\)'
if ((neon_only == 0)); then
  run "SVE 256" max,sve256=on 'SVE_256 \(256-bit vectors\)' "$neon_targets"
  run "SVE 512" max,sve512=on 'SVE2? \(512-bit vectors\)' "$neon_targets"
fi

echo "== test-arm64.sh phases =="
printf '%s\n' "${phases[@]}"
if ((${#failed[@]})); then
  echo "test-arm64: failed: ${failed[*]}" >&2
  exit 1
fi
