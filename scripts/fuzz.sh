#!/usr/bin/env bash
# Builds the libFuzzer targets with clang, ASan and UBSan, and runs each for SECONDS
# (default 600) on the corpus in tests/fuzz/corpus/<target>/ (new inputs are kept in
# build/fuzz/corpus-<target>/). Usage: scripts/fuzz.sh [SECONDS] [TARGET...]
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh fuzz
seconds=${1:-600}
shift || true
targets=("$@")
((${#targets[@]})) || targets=(npy_fuzz onnx_model_fuzz)
CC=clang CXX=clang++ cmake $(scripts/cmake_generator.sh build/fuzz) -S . -B build/fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGRIDOPS_SANITIZE=ON \
  -DGRIDOPS_FUZZ=ON -DGRIDOPS_BUILD_TESTS=OFF -DGRIDOPS_BUILD_EXAMPLES=OFF -DGRIDOPS_USE_OPENMP=OFF >/dev/null
cmake --build build/fuzz -j"$(nproc)" --target "${targets[@]}"
# Seeds for the model loader: the models and tensors of the shared conformance suites.
seeds=build/fuzz/seed-onnx_model
mkdir -p "$seeds"
if [[ -d ../shared/conformance ]]; then
  find ../shared/conformance -name '*.onnx' -o -name '*.pb' | head -400 | while read -r f; do
    cp "$f" "$seeds/$(echo "$f" | md5sum | cut -c1-16)"
  done
fi
for t in "${targets[@]}"; do
  corpus=build/fuzz/corpus-${t%_fuzz}
  mkdir -p "$corpus"
  extra=()
  [[ $t == onnx_model_fuzz ]] && extra=("$seeds")
  echo "== $t for ${seconds}s"
  build/fuzz/$t -max_total_time="$seconds" -rss_limit_mb=4096 -max_len=65536 -print_final_stats=1 \
    -artifact_prefix=build/fuzz/ "$corpus" "tests/fuzz/corpus/${t%_fuzz}" tests/fuzz/corpus/regressions "${extra[@]}"
done
