#!/usr/bin/env bash
# The whole test suite: a Release build with -Wall -Wextra -Werror and an
# AddressSanitizer + UndefinedBehaviorSanitizer build, each running every test.
# Usage: scripts/test.sh [--quick]   (--quick: the Release build only)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh test

JOBS=$(nproc)
# Seconds per phase, printed at the end (where a slow CI run spends its time).
phases=()
phase() { phases+=("$1: $((SECONDS - t0)) s"); t0=$SECONDS; }
t0=$SECONDS
quick=0
[[ "${1:-}" == "--quick" ]] && quick=1

echo "== Release build (-Werror) =="
# GRIDOPS_TEST_TORCH: the PyTorch oracle (libtorch-dev), Release build only (libtorch is not
# built with the sanitizers; the gridops code it checks runs under them in the other tests).
# GRIDOPS_TEST_OPT: the test sources' own optimization level (the library keeps -O3; see
# tests/CMakeLists.txt).
cmake $(scripts/cmake_generator.sh build/release) -S . -B build/release -DCMAKE_BUILD_TYPE=Release \
  -DGRIDOPS_WERROR=ON -DGRIDOPS_BUILD_TESTS=ON -DGRIDOPS_REQUIRE_TEST_DEPS=ON -DGRIDOPS_TEST_TORCH=ON \
  -DGRIDOPS_TEST_OPT=-O1 >/dev/null
cmake --build build/release -j"$JOBS"
phase "Release build"
(cd build/release && ctest -j"$JOBS" --output-on-failure)
phase "Release tests"

# The C++ suite again under the ISA cap (include/gridops/isa.h), so that one machine runs
# what a lesser CPU runs: AVX-512 without AVX512_BF16, AVX2 (AMD Zen 2 and the like), SSE4.
# oneDNN, the Resample oracle, is capped alike (ONEDNN_MAX_CPU_ISA). A level the CPU does
# not exceed would repeat the Release pass and is left out (the line says so). The Python
# tests run once, in the Release pass.
native=$(build/release/gridops isa | awk '/^effective:/ { print $2 }')
for cap in avx512 avx2 sse4; do
  case $cap in
    avx512) onednn=AVX512_CORE ;;
    avx2) onednn=AVX2 ;;
    sse4) onednn=SSE41 ;;
  esac
  if [[ "$(uname -m)" != x86_64 ]]; then break; fi
  effective=$(GRIDOPS_MAX_ISA=$cap build/release/gridops isa | awk '/^effective:/ { print $2 }')
  if [[ "$effective" == "$native" ]]; then
    echo "== capped pass GRIDOPS_MAX_ISA=$cap left out: this CPU's best is $native (the Release pass ran it) =="
    continue
  fi
  echo "== Release tests under GRIDOPS_MAX_ISA=$cap (ONEDNN_MAX_CPU_ISA=$onednn) =="
  (cd build/release && GRIDOPS_MAX_ISA=$cap ONEDNN_MAX_CPU_ISA=$onednn DNNL_MAX_CPU_ISA=$onednn \
     ctest -j"$JOBS" --output-on-failure -E '^python\.')
  phase "Release tests capped at $cap"
done

if ((quick == 0)); then
  echo "== ASan + UBSan build =="
  # -O1 (the level AddressSanitizer's documentation recommends) with line tables only (-g1:
  # reports keep file:line, no variable locations): the largest kernel file compiled in
  # 153 s this way against 570 s at RelWithDebInfo's -O2 -g (docs/dev/ci.md). The test
  # sources, still instrumented, at -O0 (GRIDOPS_TEST_OPT): tests/ops/pad_test.cc compiled in
  # 25.6 s at -O1 and 14.0 s at -O0 (9.0 s at -O1 without the sanitizers); the library,
  # whose code they check, stays at -O1.
  # On an x86 CPU with AVX2 (and the FMA, BMI2, F16C, AES and CLMUL that Highway's AVX2
  # target needs), the sanitized build takes AVX2 as its baseline: Highway then compiles the
  # AVX2 and AVX-512 targets only (the ones such a CPU dispatches to), not also its scalar
  # fallback, which was the slowest target to compile under the sanitizers
  # (resample_channels_hwy.cc: 280 against 139 CPU s). The Release build keeps every
  # target, and its tests run each one the CPU supports.
  asan_cxx_flags=""
  if [[ "$(uname -m)" == x86_64 ]] &&
     awk '/^flags/ { f = " " $0 " "; exit } END {
            n = split("avx2 fma bmi1 bmi2 f16c aes pclmulqdq", want, " ")
            for (i = 1; i <= n; ++i) if (index(f, " " want[i] " ") == 0) exit 1 }' /proc/cpuinfo; then
    asan_cxx_flags="-mavx2 -mfma -mbmi -mbmi2 -mf16c -maes -mpclmul"
  fi
  echo "sanitized build baseline flags: ${asan_cxx_flags:-(none)}"
  cmake $(scripts/cmake_generator.sh build/asan) -S . -B build/asan -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DGRIDOPS_SANITIZE=ON -DCMAKE_CXX_FLAGS="$asan_cxx_flags" \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" -DGRIDOPS_TEST_OPT=-O0 \
    -DGRIDOPS_WERROR=ON -DGRIDOPS_BUILD_TESTS=ON -DGRIDOPS_REQUIRE_TEST_DEPS=ON >/dev/null
  cmake --build build/asan -j"$JOBS"
  phase "ASan + UBSan build"
  export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
  export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
  (cd build/asan && ctest -j"$JOBS" --output-on-failure)
  phase "ASan + UBSan tests"
fi
echo "== test.sh phases =="
printf '%s\n' "${phases[@]}"
