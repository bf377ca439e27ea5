#!/usr/bin/env bash
# The Python tests with the bindings (python/src) built with AddressSanitizer and
# UndefinedBehaviorSanitizer, the sanitizer runtimes preloaded into Debian's python3. The
# library comes uninstrumented from a Release build (its own sanitized run is the C++
# suite's); what this checks is the binding layer: buffer and DLPack lifetimes, capsules,
# argument conversion. Not part of scripts/test.sh (a manual check, about 2 minutes).
# Usage: python/asan_check.sh [BUILD_DIR]   (default build/release, built with the tests)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/release}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
[[ -f $build/libgridops.a && -f $build/libgridops_onnx.a ]] || {
  echo "asan_check: build $build first (cmake --build $build --target gridops gridops_onnx)" >&2; exit 2; }
py=/usr/bin/python3
inc=$($py -c "import sysconfig; print(sysconfig.get_paths()['include'])")
suffix=$($py -c "import sysconfig; print(sysconfig.get_config_var('EXT_SUFFIX'))")
flags=(-O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all
       -fPIC -fvisibility=hidden -std=c++20 -DGRIDOPS_PY_HAVE_ONNX=1 -Iinclude -Ionnx/include -isystem "$inc")
for f in module arrays onnx_module; do g++ "${flags[@]}" -c python/src/$f.cc -o "$out/$f.o" & done
wait
mkdir -p "$out/gridops"
g++ -fsanitize=address,undefined -shared -o "$out/gridops/_gridops$suffix" "$out"/*.o \
  "$build/libgridops.a" "$build/libgridops_onnx.a" "$build/libgridops.a" \
  -lhwy -lgomp -lonnx_proto -lprotobuf
cp python/gridops/* "$out/gridops/"
LD_PRELOAD="$(gcc -print-file-name=libasan.so) $(gcc -print-file-name=libubsan.so)" \
ASAN_OPTIONS=detect_leaks=0:abort_on_error=1:allocator_may_return_null=1 \
UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
PYTHONPATH="$out" GRIDOPS_SOURCE_DIR="$PWD" GRIDOPS_SHARED_DIR="$PWD/../shared" \
  $py -m pytest -q -p no:cacheprovider python/tests
