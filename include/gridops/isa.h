// The instruction-set cap: the highest SIMD level gridops dispatches to, for every decision
// that depends on the CPU (the Highway target of every SIMD kernel and each implementation
// that checks a CPU feature itself, such as the AVX512_BF16 Resample path). Like oneDNN's
// ONEDNN_MAX_CPU_ISA and PyTorch's ATEN_CPU_CAPABILITY, it lets one machine run (and test,
// and time) what a lesser CPU runs.
//
// Set it with the environment variable GRIDOPS_MAX_ISA (read once, when the library first
// dispatches) or with set_max_isa(). The levels, lowest first:
//
//   x86-64   scalar, sse4, avx2, avx512, avx512_bf16, native
//   aarch64  scalar, neon, sve, sve2, native
//
//   scalar       Highway's portable EMU128 / SCALAR code only
//   sse4         up to Highway's SSE4 target (SSE4.2, CLMUL, AES) and SSSE3
//   avx2         up to Highway's AVX2 target (AVX2, FMA, F16C, BMI2)
//   avx512       up to Highway's AVX3 target (AVX-512 F, BW, DQ, VL), no AVX512_BF16 kernels
//   avx512_bf16  AVX-512 and the kernels that need AVX512_BF16
//   neon         Highway's NEON target, no SVE
//   sve          SVE (any vector length), no SVE2
//   sve2         SVE2
//   native       no cap (the default): the best the CPU has
//
// A cap never raises the level above what the CPU has. A cap below what the build requires
// of every CPU (its baseline, e.g. a build compiled with -mavx2) cannot be honoured and is
// refused. Set the cap before making plans: a plan keeps the implementation it chose (its
// SIMD code still dispatches to the capped Highway target at each run).
#pragma once

#include <string>
#include <string_view>

#include "gridops/status.h"

namespace gridops {

/// Sets the cap ("" or "native": none). Invalid: a name that is not a level of this
/// build's architecture, or one below the build's baseline; the cap is then unchanged.
[[nodiscard]] Status set_max_isa(std::string_view level);

/// The cap in force: one of the level names above ("native" when none is set).
std::string max_isa();

/// The best level the CPU has, capped: what gridops dispatches to now (e.g. "avx2" on an
/// AVX-512 machine under GRIDOPS_MAX_ISA=avx2).
std::string effective_isa();

/// A few lines for people: the CPU's features that matter here, the cap and where it came
/// from, the Highway targets compiled into this build, those the CPU supports under the
/// cap, and the one dispatched.
std::string isa_report();

}  // namespace gridops
