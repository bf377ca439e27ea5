#!/usr/bin/env bash
# The main job on built-in data: builds gridops and runs `gridops demo`, which warps,
# resamples and pads a built-in test image with every operator and mode and writes one
# labelled PNG contact sheet. Extra arguments go to `gridops demo` (e.g. --output x.png).
set -euo pipefail
cd "$(dirname "$0")/.."
# Only what the demo needs (scripts/setup.sh --list demo); the test oracles are
# scripts/test.sh's business, and configure does not look for them here.
scripts/setup.sh demo
cmake $(scripts/cmake_generator.sh build/release) -S . -B build/release -DCMAKE_BUILD_TYPE=Release -DGRIDOPS_BUILD_TESTS=OFF >/dev/null
cmake --build build/release -j"$(nproc)" --target gridops_cli
build/release/gridops demo "$@"
