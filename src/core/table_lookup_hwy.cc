// The tests' entry to NOTE [ TwoTableLookup ] (core/table_lookup_hwy-inl.h), per target.
#include "core/table_lookup.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "core/table_lookup_hwy.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include "core/table_lookup_hwy-inl.h"

HWY_BEFORE_NAMESPACE();
namespace gridops::core::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

template <class D>
size_t LookupT(D d, bool portable, const uint32_t* table, const int32_t* idx, uint32_t* out) {
  const hn::RebindToUnsigned<D> du;
  const hn::RebindToSigned<D> di;
  const size_t n = hn::Lanes(d);
  const auto lo = hn::BitCast(d, hn::LoadU(du, table));
  const auto hi = hn::BitCast(d, hn::LoadU(du, table + n));
  const auto i = hn::LoadU(di, idx);
  const auto r = portable ? gridops::HWY_NAMESPACE::TwoTableLookupPortable(d, lo, hi, i)
                          : gridops::HWY_NAMESPACE::TwoTableLookup(d, lo, hi, i);
  hn::StoreU(hn::BitCast(du, r), du, out);
  return n;
}

size_t TwoTableLookupForTesting(bool portable, bool as_float, const uint32_t* table,
                                const int32_t* idx, uint32_t* out) {
  if (as_float) return LookupT(hn::ScalableTag<float>(), portable, table, idx, out);
  return LookupT(hn::ScalableTag<uint32_t>(), portable, table, idx, out);
}

}  // namespace gridops::core::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace gridops::core {
HWY_EXPORT(TwoTableLookupForTesting);

size_t two_table_lookup_probe(bool portable, bool as_float, const uint32_t* table,
                                    const int32_t* idx, uint32_t* out) {
  return HWY_DYNAMIC_DISPATCH(TwoTableLookupForTesting)(portable, as_float, table, idx, out);
}
}  // namespace gridops::core
#endif  // HWY_ONCE
