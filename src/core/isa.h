// The instruction-set cap inside the library (the public side is gridops/isa.h): what the
// dispatch code and the kernels that check a CPU feature themselves ask.
#pragma once

#include <cstdint>

namespace gridops::detail {

/// Applies GRIDOPS_MAX_ISA the first time it is called (also when the library is loaded);
/// cheap afterwards. Every implementation choice calls it first, so no dispatch can run
/// before the environment's cap is in force.
void apply_isa_env_once() noexcept;

/// Whether the CPU has AVX512_BF16 (and the AVX-512 F/BW/DQ/VL, AVX2, FMA, BMI2 and F16C
/// the kernels that use it are compiled for) and the cap allows it. Always false off x86-64.
bool isa_allows_avx512_bf16() noexcept;

/// The Highway target SIMD kernels dispatch to now, e.g. "AVX2" ("none" in a build
/// without Highway).
const char* dispatched_target_name() noexcept;

#ifdef GRIDOPS_HAVE_HWY
/// The Highway targets compiled in that this CPU runs under the cap (hwy::SupportedTargets
/// & HWY_TARGETS), leaving the dispatch tables pointed at them: call this, never
/// hwy::SupportedTargets() directly (which resets the tables to every target the CPU has).
int64_t usable_hwy_targets() noexcept;
#endif

}  // namespace gridops::detail
