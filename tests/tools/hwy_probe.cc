// gridops_hwy_probe: prints the Highway target that dynamic dispatch picks on this CPU,
// with its vector width, and every target the CPU supports among those compiled in. The
// probe is compiled like the library's *_hwy.cc files (foreach_target.h, the same
// HWY_DISABLED_TARGETS), so its choice is theirs. scripts/test-arm64.sh runs it under each
// emulated CPU (QEMU_CPU) and checks the chosen target's name: NEON, SVE_256, SVE2, ...
//
// Output: "chosen: <NAME> (<bits>-bit vectors)" then "supported: <NAME> <NAME> ...".
#include <cstdint>
#include <cstdio>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "tools/hwy_probe.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

HWY_BEFORE_NAMESPACE();
namespace gridops_probe {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// The target this copy was compiled for, and its float vector's bytes on this CPU.
int64_t ThisTarget(size_t* vector_bytes) {
  *vector_bytes = hn::Lanes(hn::ScalableTag<float>()) * sizeof(float);
  return HWY_TARGET;
}

}  // namespace HWY_NAMESPACE
}  // namespace gridops_probe
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace gridops_probe {
HWY_EXPORT(ThisTarget);
}  // namespace gridops_probe

int main() {
  size_t bytes = 0;
  const int64_t chosen = HWY_DYNAMIC_DISPATCH(gridops_probe::ThisTarget)(&bytes);
  std::printf("chosen: %s (%zu-bit vectors)\nsupported:", hwy::TargetName(chosen), bytes * 8);
  for (const int64_t t : hwy::SupportedAndGeneratedTargets()) std::printf(" %s", hwy::TargetName(t));
  std::printf("\n");
  return 0;
}
#endif
