// bfloat16 <-> float32 conversions of whole vectors, for Highway kernels (included from a
// file compiled per target through foreach_target.h; Highway's per-target include guard).
// The one vector form of the exact rounding of gridops/dtype.h's f32_to_bf16, shared by
// core/convert_hwy.cc (bulk conversions) and the kernels that convert in registers
// (src/kernels/resample/resample_hwy-inl.h). See NOTE [ bf16 rounding instructions ] in
// core/convert_hwy.cc for why the integer rounding rather than AVX-512 BF16.
#if defined(GRIDOPS_CORE_CONVERT_HWY_INL_H_) == defined(HWY_TARGET_TOGGLE)  // NOLINT
#ifdef GRIDOPS_CORE_CONVERT_HWY_INL_H_
#undef GRIDOPS_CORE_CONVERT_HWY_INL_H_
#else
#define GRIDOPS_CORE_CONVERT_HWY_INL_H_
#endif

#include <cstdint>

#include <hwy/highway.h>

#include "gridops/dtype.h"

HWY_BEFORE_NAMESPACE();
namespace gridops::HWY_NAMESPACE {

/// Lanes(df) bfloat16 values at p, widened exactly to float32 (unaligned load).
template <class DF>
HWY_INLINE hwy::HWY_NAMESPACE::Vec<DF> LoadBF16(DF df, const bfloat16* p) {
  namespace hn = hwy::HWY_NAMESPACE;
  const hn::RebindToUnsigned<DF> du32;
  const hn::Rebind<uint16_t, DF> du16;
  const auto b = hn::LoadU(du16, reinterpret_cast<const uint16_t*>(p));
  return hn::BitCast(df, hn::ShiftLeft<16>(hn::PromoteTo(du32, b)));
}

/// v rounded to bfloat16 (to nearest even, NaN quieted: bit-identical to f32_to_bf16) and
/// stored to p[0, Lanes(df)) (unaligned store).
template <class DF>
HWY_INLINE void StoreBF16(DF df, hwy::HWY_NAMESPACE::Vec<DF> v, bfloat16* p) {
  namespace hn = hwy::HWY_NAMESPACE;
  const hn::RebindToUnsigned<DF> du32;
  const hn::RebindToSigned<DF> di32;
  const hn::Rebind<uint16_t, DF> du16;
  const auto bits = hn::BitCast(du32, v);
  const auto top = hn::ShiftRight<16>(bits);
  const auto lsb = hn::And(top, hn::Set(du32, 1u));
  const auto rounded = hn::ShiftRight<16>(hn::Add(bits, hn::Add(lsb, hn::Set(du32, 0x7FFFu))));
  const auto nan_result = hn::Or(top, hn::Set(du32, 0x40u));
  const auto is_nan = hn::RebindMask(du32, hn::IsNaN(v));  // one float compare
  const auto r = hn::IfThenElse(is_nan, nan_result, rounded);
  hn::StoreU(hn::DemoteTo(du16, hn::BitCast(di32, r)), du16, reinterpret_cast<uint16_t*>(p));
  (void)df;
}

}  // namespace gridops::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // GRIDOPS_CORE_CONVERT_HWY_INL_H_
