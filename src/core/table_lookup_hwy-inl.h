// Two-table lane lookup of 32-bit lanes, for Highway kernels (included from a file compiled
// per target through foreach_target.h; Highway's per-target include guard). Shared by
// Resample's plain kernels (resample_plain_hwy.cc) and Resize's row passes
// (resize_hwy.cc).
//
// NOTE [ TwoTableLookup ]
// Lane i of the result is lane idx[i] of lo (idx[i] < N) or lane idx[i] - N of hi
// (idx[i] in [0, 2 N)), N = Lanes(d): a window of 2 N input values picked into N outputs.
// Highway 1.0.3 (Debian 12's, the version gridops builds with) has no two-table lookup
// (TwoTablesLookupLanes came in a later release), so on AVX-512 with full 512-bit vectors
// it is one vpermt2ps / vpermt2d in TwoTableLookup, the only raw intrinsic here; on every
// other target (and on AVX-512 for narrower vectors) it is TwoTableLookupPortable: two
// TableLookupLanes and a select. Both copy bits unchanged. The tests run both forms on
// every Highway target against a scalar lookup (core::two_table_lookup_probe,
// tests/core/table_lookup_test.cc).
#if defined(GRIDOPS_CORE_TABLE_LOOKUP_HWY_INL_H_) == defined(HWY_TARGET_TOGGLE)  // NOLINT
#ifdef GRIDOPS_CORE_TABLE_LOOKUP_HWY_INL_H_
#undef GRIDOPS_CORE_TABLE_LOOKUP_HWY_INL_H_
#else
#define GRIDOPS_CORE_TABLE_LOOKUP_HWY_INL_H_
#endif

#include <cstdint>

#include <hwy/highway.h>

HWY_BEFORE_NAMESPACE();
namespace gridops::HWY_NAMESPACE {

/// NOTE [ TwoTableLookup ] in Highway ops only (32-bit lanes, idx in [0, 2 Lanes(d))).
template <class D>
HWY_INLINE hwy::HWY_NAMESPACE::Vec<D> TwoTableLookupPortable(
    D d, hwy::HWY_NAMESPACE::Vec<D> lo, hwy::HWY_NAMESPACE::Vec<D> hi,
    hwy::HWY_NAMESPACE::Vec<hwy::HWY_NAMESPACE::RebindToSigned<D>> idx) {
  namespace hn = hwy::HWY_NAMESPACE;
  static_assert(sizeof(hn::TFromD<D>) == 4, "32-bit lanes");
  const hn::RebindToSigned<D> di;
  const auto n = static_cast<int32_t>(hn::Lanes(d));  // a power of two
  const auto i = hn::IndicesFromVec(d, hn::And(idx, hn::Set(di, n - 1)));
  const auto in_lo = hn::RebindMask(d, hn::Lt(idx, hn::Set(di, n)));
  return hn::IfThenElse(in_lo, hn::TableLookupLanes(lo, i), hn::TableLookupLanes(hi, i));
}

/// NOTE [ TwoTableLookup ]: lane i = idx[i] < N ? lo[idx[i]] : hi[idx[i] - N] (32-bit
/// lanes, idx in [0, 2 N), N = Lanes(d)).
template <class D>
HWY_INLINE hwy::HWY_NAMESPACE::Vec<D> TwoTableLookup(
    D d, hwy::HWY_NAMESPACE::Vec<D> lo, hwy::HWY_NAMESPACE::Vec<D> hi,
    hwy::HWY_NAMESPACE::Vec<hwy::HWY_NAMESPACE::RebindToSigned<D>> idx) {
  namespace hn = hwy::HWY_NAMESPACE;
  static_assert(sizeof(hn::TFromD<D>) == 4, "32-bit lanes");
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3
  if constexpr (sizeof(hn::Vec<D>) == 64) {
    if constexpr (hwy::IsFloat<hn::TFromD<D>>()) {
      return hn::Vec<D>{_mm512_permutex2var_ps(lo.raw, idx.raw, hi.raw)};
    } else {
      return hn::Vec<D>{_mm512_permutex2var_epi32(lo.raw, idx.raw, hi.raw)};
    }
  }
#endif
  return TwoTableLookupPortable(d, lo, hi, idx);
}

}  // namespace gridops::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // GRIDOPS_CORE_TABLE_LOOKUP_HWY_INL_H_
