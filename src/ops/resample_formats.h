// The memory descs of Resample (src/ops/resample_formats.cc): the checks and element
// layouts the operator layer (src/ops/resample.cc) builds its problems from.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "gridops/ops/resample.h"
#include "gridops/status.h"
#include "kernels/resample/resample.h"

namespace gridops::resample_internal {

bool is_supported_dtype(DType d);
bool is_valid_format(MemoryFormat f);
int64_t block_of(MemoryFormat f);
/// A readable name of a desc's format even when the rank is invalid.
std::string format_name(const ResampleMemoryDesc& md);
/// Checks one desc completely and returns its buffer size in elements. `what` is "src",
/// "dst", ... Messages start with "resample: <what>".
StatusOr<int64_t> checked_buffer_elements(const ResampleMemoryDesc& md, std::string_view what);
/// a * b wrapping modulo 2^64. Only an empty buffer (a zero dim elsewhere) can have
/// stride products beyond int64, and its strides are never used; wrapping keeps that
/// case free of signed overflow. For non-empty validated buffers the products fit.
int64_t wrap_mul(int64_t a, int64_t b);
/// The element layout of a desc (assumed valid). See ResampleLayout.
kernels::ResampleLayout layout_of(const ResampleMemoryDesc& md);

}  // namespace gridops::resample_internal
