// What the GridSample forward (grid_sample.cc) and backward (grid_sample_backward.cc)
// operators share: the descriptor and shape checks, with errors prefixed by the operator's
// name, and the problem the kernels see. Internal to src/ops.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "gridops/ops/grid_sample.h"
#include "gridops/status.h"
#include "gridops/tensor.h"
#include "kernels/grid_sample/grid_sample.h"
#include "ops/grid_sample_validate.h"

namespace gridops::grid_sample_common {

/// The grid shape the spec prescribes for r spatial axes (grid_sample_validate.cc).
inline std::string expected_grid_shape(int r) { return detail::grid_sample_expected_grid_shape(r); }

/// The descriptor fields that do not depend on shapes or dtypes (grid_sample_validate.cc).
inline Status validate_desc(const GridSampleDesc& desc, const char* op = "grid_sample") {
  return detail::grid_sample_validate_desc(desc, op);
}

/// The problem the kernels see, from validated shapes.
inline kernels::GridSampleProblem make_problem(const GridSampleDesc& desc, DType src_dtype,
                                        std::span<const int64_t> src_shape, DType grid_dtype,
                                        std::span<const int64_t> dst_shape) {
  kernels::GridSampleProblem p;
  p.mode = desc.mode;
  p.padding = desc.padding;
  p.align_corners = desc.align_corners == 1;
  p.layout = desc.layout;
  p.units = desc.units;
  p.kind = desc.kind;
  p.fill_value = desc.fill_value;
  p.src_dtype = src_dtype;
  p.grid_dtype = grid_dtype;
  const int r = static_cast<int>(src_shape.size()) - 2;
  p.spatial_rank = r;
  p.batch = src_shape[0];
  if (desc.layout == ChannelLayout::kChannelsFirst) {
    p.channels = src_shape[1];
    p.in_sizes.assign(src_shape.begin() + 2, src_shape.end());
    p.out_sizes.assign(dst_shape.begin() + 2, dst_shape.end());
  } else {
    p.channels = src_shape[static_cast<size_t>(r) + 1];
    p.in_sizes.assign(src_shape.begin() + 1, src_shape.begin() + 1 + r);
    p.out_sizes.assign(dst_shape.begin() + 1, dst_shape.begin() + 1 + r);
  }
  return p;
}

/// The output shape, errors prefixed with `op` ("grid_sample" or "grid_sample_backward").
inline StatusOr<Dims> output_shape(const char* op, const GridSampleDesc& desc,
                            std::span<const int64_t> src_shape,
                            std::span<const int64_t> grid_shape) {
  GRIDOPS_RETURN_IF_ERROR(validate_desc(desc, op));
  const int src_rank = static_cast<int>(src_shape.size());
  const bool channels_first = desc.layout == ChannelLayout::kChannelsFirst;
  if (src_rank < 3) {
    return invalid_argument(op, ": src must have rank >= 3 ",
                            channels_first ? "(N, C, D1, ...)" : "(N, D1, ..., C)", ", got rank ",
                            src_rank, " with shape ", dims_to_string(src_shape));
  }
  if (src_rank > kMaxRank) {
    return invalid_argument(op, ": src rank must be <= ", kMaxRank, ", got ", src_rank);
  }
  GRIDOPS_RETURN_IF_ERROR(
      checked_num_elements(src_shape, std::string(op) + ": src").status());
  const int r = src_rank - 2;
  if (static_cast<int>(grid_shape.size()) != src_rank || grid_shape.back() != r) {
    return invalid_argument(op, ": grid must have shape ", expected_grid_shape(r), " for a ",
                            src_rank, "-D input, got ", dims_to_string(grid_shape));
  }
  GRIDOPS_RETURN_IF_ERROR(checked_num_elements(grid_shape, std::string(op) + ": grid").status());
  if (grid_shape[0] != src_shape[0]) {
    return invalid_argument(op, ": grid batch must equal src batch ", src_shape[0], ", got ",
                            grid_shape[0], " (grid shape ", dims_to_string(grid_shape),
                            ", src shape ", dims_to_string(src_shape), ")");
  }

  // dst: src's N and C around the grid's output spatial sizes.
  Dims dst(static_cast<size_t>(src_rank));
  dst[0] = src_shape[0];
  const int64_t channels = channels_first ? src_shape[1] : src_shape.back();
  const size_t first_spatial = channels_first ? 2 : 1;
  if (channels_first) dst[1] = channels; else dst.back() = channels;
  for (int d = 0; d < r; ++d) {
    dst[first_spatial + static_cast<size_t>(d)] = grid_shape[1 + static_cast<size_t>(d)];
  }
  GRIDOPS_ASSIGN_OR_RETURN(const int64_t dst_count,
                           checked_num_elements(dst, std::string(op) + ": dst"));

  // ERRATA GridSample 9: an empty input axis has nothing to clamp or reflect to.
  // Constant and fill read nothing from an empty axis either (every sample takes the value).
  if (dst_count > 0 && desc.padding != GridPadding::kZeros &&
      desc.padding != GridPadding::kConstant && desc.padding != GridPadding::kFill) {
    for (int d = 0; d < r; ++d) {
      const size_t axis = first_spatial + static_cast<size_t>(d);
      if (src_shape[axis] == 0) {
        return invalid_argument(op, ": src spatial axis ", axis, " has length 0 in shape ",
                                dims_to_string(src_shape), "; padding_mode ",
                                to_string(desc.padding),
                                " needs at least 1 element to sample (only zeros, constant and "
                                "fill allow an empty input axis with a non-empty output)");
      }
    }
  }
  return dst;
}

}  // namespace gridops::grid_sample_common
