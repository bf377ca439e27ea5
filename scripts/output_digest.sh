#!/usr/bin/env bash
# Runs gridops_output_digest (tests/tools/output_digest.cc; built with the tests, this
# script builds nothing) once per ISA cap and writes OUT_DIR/<cap>.txt: one line per
# (operator, entry, problem, threads) with the FNV-1a 64 hash of the output bytes. Two
# builds give the same bits when `diff -r` of their OUT_DIRs is empty.
# Usage: scripts/output_digest.sh OUT_DIR [BUILD_DIR (default build/release)]
# Caps: $DIGEST_CAPS (default "native avx512 avx2 sse4"; a cap above the CPU's level runs
# at the CPU's level, and the header line of each file says which level ran).
set -euo pipefail
if [ $# -lt 1 ]; then
  sed -n '2,8p' "$0" >&2
  exit 2
fi
out=$1
build=${2:-build/release}
tool=$build/tests/gridops_output_digest
if [ ! -x "$tool" ]; then
  echo "$tool not found: build the target gridops_output_digest first" >&2
  exit 1
fi
mkdir -p "$out"
unset GRIDOPS_IMPL GRIDOPS_MAX_ISA
for cap in ${DIGEST_CAPS:-native avx512 avx2 sse4}; do
  "$tool" --max-isa="$cap" >"$out/$cap.txt"
  echo "$cap: $(tail -n 1 "$out/$cap.txt")"
done
