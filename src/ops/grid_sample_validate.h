// GridSample's checks shared by the forward and backward operator code
// (grid_sample_validate.cc).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "gridops/ops/grid_sample.h"
#include "gridops/status.h"
#include "gridops/tensor.h"

namespace gridops::detail {

/// The descriptor fields that do not depend on shapes or dtypes; errors start with `op`.
Status grid_sample_validate_desc(const GridSampleDesc& desc, const char* op);
/// fill_value against src's dtype (padding constant and fill): none for strings, 0/1 for
/// bool, an integer the dtype holds for integer dtypes.
Status grid_sample_check_fill_value(const GridSampleDesc& desc, DType src_dtype, const char* op);
/// The grid shape the spec prescribes for r spatial axes, e.g. "(N, H_out, W_out, 2)".
std::string grid_sample_expected_grid_shape(int r);
/// The box of grid_sample_input_box for a validated desc, full sizes and grid view (rank
/// r + 2, last axis r, floating dtype), with (-1, -1) for an axis without taps.
StatusOr<std::vector<std::pair<int64_t, int64_t>>> grid_sample_raw_input_box(
    const GridSampleDesc& desc, std::span<const int64_t> full, const TensorView& grid);

}  // namespace gridops::detail
