#!/usr/bin/env bash
# Installs the build to a temporary prefix and uses it as a user would: a CMake project
# with find_package(gridops) linking gridops::gridops and gridops::onnx, and a plain
# compiler command with pkg-config's flags. Each builds tests/cmake/consumer/main.cc and
# runs it. The build's targets must be built already (ctest runs after the build); nothing
# of the library is rebuilt.
# Usage: install_test.sh BUILD_DIR LIBDIR CXX GENERATOR VERSION [CXXFLAGS [LDFLAGS]]
set -euo pipefail
build=$1 libdir=$2 cxx=$3 generator=$4 version=$5 cxxflags=${6:-} ldflags=${7:-}
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gridops-install-test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix

cmake --install "$build" --prefix "$prefix" >/dev/null

for f in include/gridops/gridops.h include/gridops/version.h include/gridops/onnx/model.h \
         "$libdir"/cmake/gridops/gridopsConfig.cmake "$libdir"/cmake/gridops/gridopsOnnxTargets.cmake \
         "$libdir"/pkgconfig/gridops.pc "$libdir"/pkgconfig/gridops-onnx.pc \
         share/doc/gridops/LICENSE share/doc/gridops/NOTICE; do
  if [[ ! -f "$prefix/$f" ]]; then
    echo "FAIL: the install has no $f" >&2
    exit 1
  fi
done
if ! grep -q "Apache License" "$prefix/share/doc/gridops/LICENSE"; then
  echo "FAIL: share/doc/gridops/LICENSE is not the Apache License" >&2
  exit 1
fi
grep -q "#define GRIDOPS_VERSION_STRING \"$version\"" "$prefix/include/gridops/version.h" ||
  { echo "FAIL: the installed version.h does not say $version" >&2; exit 1; }

expected="gridops $version: 0 1 2 3 0 0"
check_output() {  # what program
  local got
  got=$("$2")
  if [[ "$got" != "$expected" ]]; then
    echo "FAIL ($1): printed '$got', expected '$expected'" >&2
    exit 1
  fi
  echo "ok ($1): $got"
}

# 1. CMake: find_package(gridops CONFIG REQUIRED COMPONENTS onnx).
cmake -S "$here/consumer" -B "$tmp/consumer" -G "$generator" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_CXX_FLAGS="$cxxflags" -DCMAKE_EXE_LINKER_FLAGS="$ldflags" \
  -DCMAKE_PREFIX_PATH="$prefix" >"$tmp/configure.log" 2>&1 || { cat "$tmp/configure.log" >&2; exit 1; }
cmake --build "$tmp/consumer" >"$tmp/build.log" 2>&1 || { cat "$tmp/build.log" >&2; exit 1; }
check_output find_package "$tmp/consumer/consumer"

# 2. pkg-config: gridops-onnx (which requires gridops) against the same prefix.
export PKG_CONFIG_PATH="$prefix/$libdir/pkgconfig"
got=$(pkg-config --modversion gridops)
[[ "$got" == "$version" ]] || { echo "FAIL: pkg-config --modversion gridops says '$got'" >&2; exit 1; }
flags=$(pkg-config --cflags --libs gridops)
echo "pkg-config --cflags --libs gridops: $flags"
[[ " $flags " == *" -I$prefix/"*"include "* && " $flags " == *" -lgridops "* ]] ||
  { echo "FAIL: pkg-config gridops gives no -I of the prefix or no -lgridops" >&2; exit 1; }
onnx_flags=$(pkg-config --cflags --libs gridops-onnx)
echo "pkg-config --cflags --libs gridops-onnx: $onnx_flags"
# shellcheck disable=SC2086  # the flags are words
"$cxx" -std=c++20 $cxxflags "$here/consumer/main.cc" -o "$tmp/consumer-pc" $onnx_flags $ldflags
check_output pkg-config "$tmp/consumer-pc"
