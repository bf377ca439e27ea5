#!/usr/bin/env bash
# gridops as a CMake subproject (add_subdirectory; configure only, nothing is compiled):
# 1. tests, examples, Python and the ONNX dependency check default OFF, and gridops::onnx is
#    there when its dependencies are;
# 2. with ONNX made unfindable (CMAKE_DISABLE_FIND_PACKAGE_ONNX), configure still succeeds,
#    warns that the ONNX part is left out, and defines no gridops::onnx;
# 3. as the top-level project, the same missing ONNX still fails configure (GRIDOPS_REQUIRE_ONNX).
# Usage: subproject_test.sh SOURCE_DIR CXX GENERATOR
set -euo pipefail
src=$1 cxx=$2 generator=$3
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gridops-subproject-test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

configure() {  # name source extra-args...
  local name=$1 dir=$2
  shift 2
  cmake -S "$dir" -B "$tmp/$name" -G "$generator" -DCMAKE_CXX_COMPILER="$cxx" "$@" >"$tmp/$name.log" 2>&1
}

configure plain "$here/subproject" -DGRIDOPS_SOURCE_DIR="$src" || { cat "$tmp/plain.log" >&2; exit 1; }
grep -q "subproject check: gridops::onnx defined" "$tmp/plain.log" ||
  { cat "$tmp/plain.log" >&2; echo "FAIL: no gridops::onnx in the subproject with its dependencies installed" >&2; exit 1; }
grep "subproject check" "$tmp/plain.log"
echo "ok: options OFF in a subproject, gridops::onnx defined"

configure no_onnx "$here/subproject" -DGRIDOPS_SOURCE_DIR="$src" -DCMAKE_DISABLE_FIND_PACKAGE_ONNX=ON ||
  { cat "$tmp/no_onnx.log" >&2; echo "FAIL: a missing ONNX failed configure in a subproject" >&2; exit 1; }
grep -q "subproject check: gridops::onnx not defined" "$tmp/no_onnx.log" &&
  grep -q "are left out" "$tmp/no_onnx.log" ||
  { cat "$tmp/no_onnx.log" >&2; echo "FAIL: without ONNX: no warning, or gridops::onnx defined" >&2; exit 1; }
echo "ok: without ONNX the subproject configures, gridops::onnx left out with a warning"

if configure top "$src" -DCMAKE_DISABLE_FIND_PACKAGE_ONNX=ON -DGRIDOPS_BUILD_TESTS=OFF \
     -DGRIDOPS_BUILD_PYTHON=OFF -DGRIDOPS_BUILD_EXAMPLES=OFF; then
  cat "$tmp/top.log" >&2
  echo "FAIL: a missing ONNX did not fail configure of gridops as the top-level project" >&2
  exit 1
fi
grep -q "GRIDOPS_BUILD_ONNX=OFF" "$tmp/top.log" || { cat "$tmp/top.log" >&2; exit 1; }
echo "ok: as the top-level project a missing ONNX fails configure"
