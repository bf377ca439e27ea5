// Tests' entry to the two-table lane lookup of core/table_lookup_hwy-inl.h (NOTE
// [ TwoTableLookup ]); defined in table_lookup_hwy.cc, only in builds with Highway.
#pragma once

#include <cstddef>
#include <cstdint>

namespace gridops::core {

/// Tests: on the CPU's dispatched Highway target with N = Lanes(ScalableTag<float>),
/// out[i] = table[idx[i]] (table holds lo then hi, 2 N
/// values; idx in [0, 2 N)), for i < N, with TwoTableLookupPortable (portable) or
/// TwoTableLookup, on float (as_float) or uint32 lanes. Returns N (at most 16).
size_t two_table_lookup_probe(bool portable, bool as_float, const uint32_t* table,
                                    const int32_t* idx, uint32_t* out);

}  // namespace gridops::core
