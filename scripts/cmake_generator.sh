#!/usr/bin/env bash
# Prints the generator option for `cmake -S . -B DIR`: "-G Ninja" for a new build tree when
# ninja is installed (scripts/setup.sh installs ninja-build), nothing otherwise. An existing
# tree keeps the generator in its cache (CMake refuses to switch one).
#
# Why Ninja: with Unix Makefiles a target's sources start only after the targets it links
# are built, so the tests and tools waited for the library's slowest file with one core
# idle; Ninja orders only the links. The sanitized build of scripts/test.sh took 898 s with
# make -j2 and 727 s with Ninja on 2 cores (docs/dev/ci.md).
set -euo pipefail
dir=${1:?usage: scripts/cmake_generator.sh BUILD_DIR}
if [[ ! -f "$dir/CMakeCache.txt" ]] && command -v ninja >/dev/null 2>&1; then
  echo "-G Ninja"
fi
