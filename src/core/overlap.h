// The one overlap policy of every operator: an output may not share a byte with any input
// it reads (the kernels read inputs while writing the output, in an order that differs
// between implementations and thread counts, so an in-place call has no defined result).
// Plans check it in run(), before anything is written, and return kInvalidArgument.
#pragma once

#include <cstdint>
#include <string_view>

#include "gridops/status.h"
#include "gridops/tensor.h"

namespace gridops::detail {

/// The bytes [lo, hi) a view or buffer covers; lo == hi for one with no elements.
struct ByteRange {
  uintptr_t lo = 0;
  uintptr_t hi = 0;
  bool empty() const noexcept { return lo == hi; }
};

/// The byte range of a validated view (validate_view bounds its extent in int64); empty
/// when any dimension is zero, whatever the others are.
ByteRange byte_range(const TensorView& v) noexcept;
/// The byte range of a dense buffer of `elements` elements of `dt` (elements >= 0).
ByteRange byte_range(const void* data, int64_t elements, DType dt) noexcept;

/// True when both ranges are non-empty and share at least one byte.
bool ranges_overlap(ByteRange a, ByteRange b) noexcept;

/// kInvalidArgument "<op>: <out_name> must not overlap <in_name> in memory, got <out_name>
/// bytes [..) and <in_name> bytes [..)" when they overlap; OK otherwise.
Status check_no_overlap(std::string_view op, std::string_view out_name, ByteRange out,
                        std::string_view in_name, ByteRange in);

/// Whether two validated views share at least one byte of an element, decided on the
/// elements themselves, not on their byte ranges: interleaved views (`x[..., 0::2]` and
/// `x[..., 1::2]`, the two halves of a complex array) share none although their ranges do.
/// Exact within a work bound (NOTE [ Exact overlap ] in overlap.cc); past it the answer is
/// `true`, so a caller that refuses overlap may refuse a disjoint pair, never accept an
/// overlapping one.
bool views_share_memory(const TensorView& a, const TensorView& b) noexcept;

/// check_no_overlap on the views' elements (views_share_memory): the same error, with the
/// same byte ranges, only for views that share a byte (or that the bound could not clear).
Status check_no_overlap(std::string_view op, std::string_view out_name, const TensorView& out,
                        std::string_view in_name, const TensorView& in);

/// kInvalidArgument "<what>: elements must not share memory (a written view), got shape ..
/// with strides .." when two elements of a validated view may share memory (zero strides,
/// or strides too small for the axes inside them); OK otherwise. For outputs whose
/// elements each receive one result (a sum: backward kernels).
Status check_distinct_elements(std::string_view what, const TensorView& v);

}  // namespace gridops::detail
