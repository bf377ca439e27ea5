#!/usr/bin/env bash
# The main job on built-in data: builds gridops and runs the example program, which
# exercises every operator and prints what it did.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
cmake -S . -B build/release -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build/release -j"$(nproc)" --target gridops_example
build/release/gridops_example
