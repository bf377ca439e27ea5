// Bulk float16/bfloat16 <-> float32 conversions, written once with Highway and compiled
// for every target it supports; the best one for the running CPU is chosen at run time.
// Results are bit-identical to the scalar functions in gridops/dtype.h (tested per target).
//
// NOTE [ bf16 rounding instructions ]
// AVX-512 BF16's VCVTNEPS2BF16 rounds to nearest even but flushes subnormal inputs and
// outputs to zero, so it is not the exact conversion the library promises; the
// integer rounding (add 0x7FFF + lsb, keep the top half, quiet NaNs; StoreBF16 in
// core/convert_hwy-inl.h) is exact and costs a few integer operations per vector. float16
// uses the hardware converter (F16C / AVX-512), which rounds to nearest even exactly as the
// scalar code does.
#include "gridops/dtype.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "core/convert_hwy.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include "core/convert_hwy-inl.h"

HWY_BEFORE_NAMESPACE();
namespace gridops {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

void F16ToF32(const float16* src, float* dst, size_t n) {
  size_t i = 0;
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX2  // F16C or AVX-512 conversions
  const hn::ScalableTag<float> df;
  const hn::Rebind<hwy::float16_t, decltype(df)> dh;
  const size_t N = hn::Lanes(df);
  for (; i + N <= n; i += N) {
    const auto h = hn::LoadU(dh, reinterpret_cast<const hwy::float16_t*>(src + i));
    hn::StoreU(hn::PromoteTo(df, h), df, dst + i);
  }
#endif
  for (; i < n; ++i) dst[i] = f16_to_f32(src[i]);
}

void F32ToF16(const float* src, float16* dst, size_t n) {
  size_t i = 0;
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX2
  const hn::ScalableTag<float> df;
  const hn::Rebind<hwy::float16_t, decltype(df)> dh;
  const size_t N = hn::Lanes(df);
  for (; i + N <= n; i += N) {
    const auto v = hn::LoadU(df, src + i);
    hn::StoreU(hn::DemoteTo(dh, v), dh, reinterpret_cast<hwy::float16_t*>(dst + i));
  }
#endif
  for (; i < n; ++i) dst[i] = f32_to_f16(src[i]);
}

void BF16ToF32(const bfloat16* src, float* dst, size_t n) {
  const hn::ScalableTag<float> df;
  const size_t N = hn::Lanes(df);
  size_t i = 0;
  for (; i + N <= n; i += N) hn::StoreU(LoadBF16(df, src + i), df, dst + i);
  for (; i < n; ++i) dst[i] = bf16_to_f32(src[i]);
}

void F32ToBF16(const float* src, bfloat16* dst, size_t n) {
  const hn::ScalableTag<float> df;
  const size_t N = hn::Lanes(df);
  size_t i = 0;
  for (; i + N <= n; i += N) StoreBF16(df, hn::LoadU(df, src + i), dst + i);
  for (; i < n; ++i) dst[i] = f32_to_bf16(src[i]);
}

}  // namespace HWY_NAMESPACE
}  // namespace gridops
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace gridops {
HWY_EXPORT(F16ToF32);
HWY_EXPORT(F32ToF16);
HWY_EXPORT(BF16ToF32);
HWY_EXPORT(F32ToBF16);

void convert_f16_to_f32(const float16* src, float* dst, size_t n) noexcept {
  HWY_DYNAMIC_DISPATCH(F16ToF32)(src, dst, n);
}
void convert_f32_to_f16(const float* src, float16* dst, size_t n) noexcept {
  HWY_DYNAMIC_DISPATCH(F32ToF16)(src, dst, n);
}
void convert_bf16_to_f32(const bfloat16* src, float* dst, size_t n) noexcept {
  HWY_DYNAMIC_DISPATCH(BF16ToF32)(src, dst, n);
}
void convert_f32_to_bf16(const float* src, bfloat16* dst, size_t n) noexcept {
  HWY_DYNAMIC_DISPATCH(F32ToBF16)(src, dst, n);
}
}  // namespace gridops
#endif  // HWY_ONCE
