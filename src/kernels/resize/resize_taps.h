// The Resize tap tables (kernels::ResizeAxisTable) built from an axis's geometry: all the
// coordinate math of Resize, in double, run once per plan by the operator layer
// (src/ops/resize.cc). See docs/ops/resize.md, "Taps".
#pragma once

#include <cstdint>
#include <utility>

#include "gridops/ops/resize.h"
#include "kernels/resize/resize.h"

namespace gridops::kernels {

/// Builds *tb, the table of resized axis `axis` (geometry `ax`); false when the map is
/// the identity (the problem then lists no table for it). May throw std::bad_alloc.
bool resize_axis_table(const ResizeDesc& d, const ResizeAxis& ax, int axis, ResizeAxisTable* tb);

/// The table of axis `a` of the full problem, identity maps included (explicit taps
/// o -> o, weight 1); *identity tells which.
void resize_full_axis_table(const ResizeDesc& d, const ResizeAxis& ax, int a, ResizeAxisTable* tb,
                            bool* identity);

/// The listed taps' range [lo, hi) of rows [ob, oe) of a table; [0, 0) when none.
std::pair<int64_t, int64_t> resize_tap_range(const ResizeAxisTable& tb, int64_t ob, int64_t oe);

/// A window's table of axis `axis`: the rows [ob, ob + os) of the full problem's table
/// `full`, input indices shifted by -io into a src box of length `is` (every tap of those
/// rows lies in [io, io + is), checked by the caller).
ResizeAxisTable resize_window_axis_table(const ResizeAxisTable& full, int axis, int64_t io,
                                         int64_t is, int64_t ob, int64_t os);

}  // namespace gridops::kernels
