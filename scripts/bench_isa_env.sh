#!/usr/bin/env bash
# Prints the shell exports that cap every side of the benchmarks at GRIDOPS_BENCH_ISA
# (scripts/bench.sh evals them; docs/BENCHMARKS.md, "ISA-matched tables"), a summary on stderr.
# Usage: GRIDOPS_BENCH_ISA=LEVEL scripts/bench_isa_env.sh BUILD_DIR
#
# LEVEL: native (the default: every cap variable unset, each side picks what it picks) or, on
# x86-64, avx512_bf16, avx512, avx2, sse4. The level in force is gridops' under GRIDOPS_MAX_ISA
# (`BUILD_DIR/gridops isa`: never above the CPU's best), and each peer gets its nearest cap:
#   PyTorch  ATEN_CPU_CAPABILITY  avx512 / avx2 / default (ATen 1.13 believes the variable
#            without checking the CPU: it is only ever set to a level gridops found there)
#   oneDNN   ONEDNN_MAX_CPU_ISA and its older name DNNL_MAX_CPU_ISA: AVX512_CORE_BF16 /
#            AVX512_CORE / AVX2 / SSE41 (also caps the oneDNN inside PyTorch: one libdnnl)
#   OpenCV   OPENCV_CPU_DISABLE: every OpenCV feature above the level that this CPU has
#            (names as OpenCV 4.6 spells them, e.g. AVX512-SKX; a disabled feature does not
#            disable those built on it, so all are listed; OpenCV warns about each one the
#            CPU lacks or the build does not know, and those are left out, by its own word)
set -euo pipefail
build=${1:?usage: GRIDOPS_BENCH_ISA=LEVEL $0 BUILD_DIR}
isa=${GRIDOPS_BENCH_ISA:-native}
vars=(GRIDOPS_MAX_ISA ATEN_CPU_CAPABILITY ONEDNN_MAX_CPU_ISA DNNL_MAX_CPU_ISA OPENCV_CPU_DISABLE)
case $isa in
  native | avx512_bf16 | avx512 | avx2 | sse4) ;;
  *) echo "GRIDOPS_BENCH_ISA: expected one of native, avx512_bf16, avx512, avx2, sse4; got '$isa'" >&2
     exit 1 ;;
esac
echo "export GRIDOPS_BENCH_ISA=$isa"
if [[ "$isa" == native ]]; then
  echo "unset ${vars[*]}"
  echo "GRIDOPS_BENCH_ISA=native: no cap on any side" >&2
  exit 0
fi
level=$(env -u GRIDOPS_MAX_ISA GRIDOPS_MAX_ISA="$isa" "$build/gridops" isa | awk '/^effective:/ { print $2 }')
cv_avx512=AVX512F,AVX512BW,AVX512CD,AVX512DQ,AVX512ER,AVX512IFMA,AVX512PF,AVX512VBMI,AVX512VL
cv_avx512+=,AVX512VBMI2,AVX512VNNI,AVX512BITALG,AVX512VPOPCNTDQ,AVX5124VNNIW,AVX5124FMAPS
cv_avx512+=,AVX512-COMMON,AVX512-KNL,AVX512-KNM,AVX512-SKX,AVX512-CNL,AVX512-CLX,AVX512-ICL
case $level in
  avx512_bf16) torch=avx512 onednn=AVX512_CORE_BF16 cv_off= ;;
  avx512) torch=avx512 onednn=AVX512_CORE cv_off= ;;
  avx2) torch=avx2 onednn=AVX2 cv_off=$cv_avx512 ;;
  sse4) torch=default onednn=SSE41 cv_off=AVX,AVX2,FMA3,FP16,$cv_avx512 ;;
  *) echo "GRIDOPS_BENCH_ISA=$isa: gridops runs '${level:-?}' under it, a level without peer caps" \
       "(use native, avx512_bf16, avx512, avx2 or sse4 on x86-64)" >&2
     exit 1 ;;
esac
if [[ -n "$cv_off" ]]; then
  lacks=$(env -u OPENCV_CPU_DISABLE OPENCV_CPU_DISABLE="$cv_off" "$build/bench/gridops_bench_memcpy" \
            --benchmark_list_tests=true 2>&1 >/dev/null |
          sed -n "s/^OPENCV: Trying to disable \(unavailable\|unknown\) CPU feature.*: '\([^']*\)'\.$/\2/p")
  for f in $lacks; do cv_off=$(tr , '\n' <<<"$cv_off" | grep -vx "$f" | paste -sd, -); done
fi
echo "export GRIDOPS_MAX_ISA=$level ATEN_CPU_CAPABILITY=$torch ONEDNN_MAX_CPU_ISA=$onednn DNNL_MAX_CPU_ISA=$onednn"
if [[ -n "$cv_off" ]]; then echo "export OPENCV_CPU_DISABLE=$cv_off"; else echo "unset OPENCV_CPU_DISABLE"; fi
echo "GRIDOPS_BENCH_ISA=$isa: GRIDOPS_MAX_ISA=$level ATEN_CPU_CAPABILITY=$torch ONEDNN_MAX_CPU_ISA=$onednn" \
     "OPENCV_CPU_DISABLE=${cv_off:-(none)}" >&2
