// The per-run context of GridSample's uint8 few-channel path (grid_sample_u8_hwy.cc) and
// its exact per-axis taps from the reference's formulas (NOTE [ GridSample uint8
// few-channel path ], step 1), shared by its Highway code (grid_sample_u8_hwy-inl.h).
#pragma once

#include <algorithm>
#include <cstdint>

#include "kernels/grid_sample/grid_sample.h"
#include "kernels/grid_sample/grid_sample_taps.h"

namespace gridops::kernels::grid_sample_simd {

/// How source bytes are fetched (step 2).
enum class Fetch {
  kPair,     // channels-first, unit x stride: one word = columns base and base+1
  kPixel,    // channels-last, unit channel stride, x stride C: one word = a pixel's channels
  kGeneric,  // any other non-negative strides: one gather per element
};

/// Everything a row needs, computed once per run.
struct U8Ctx {
  const GridSampleProblem* p;
  bool nearest;
  GridPadding padding;
  bool align_corners;
  bool channels_last;
  bool windowed;
  Fetch fetch;
  int C;
  int64_t len[2];     // full input sizes (y, x)
  int64_t origin[2];  // window origin (0 without a window)
  int64_t ext[2];     // src's spatial sizes (the window's, or len)
  const uint8_t* src;      // the lowest byte src reaches
  int64_t sb, sc, sy, sx;  // src strides (elements = bytes)
  int64_t bias;            // offset of element (0, 0, 0, 0) from src
  int32_t lim8;            // last offset from which 8 bytes may be read (channels-last pairs)
  int32_t lim;             // last offset from which 4 bytes may be read
  const float* grid;
  int64_t gb, gy, gx, gc;  // grid strides (elements)
  bool grid_dense;         // gc == 1 and gx == 2
  uint8_t* dst;
  int64_t db, dc, dy, dx;  // dst strides (elements)
  bool dst_dense;          // channels-first: dx == 1; channels-last: dc == 1 and dx == C
  int64_t Ho, Wo;
  int64_t tile_h, tile_w, tiles_y, tiles_x;  // work items: tiles of tile_h x tile_w points
  int pf_rows;   // rows ahead of the source prefetch of smooth grids (0: none; RowShift)
  bool pixels;        // pixel grid: the values are the coordinates
  bool displacement;  // add base[axis] (the plan's tables) to the grid values first
  const float* base[2];
};

/// Linear taps of one axis in the pair form of step 2, from the exact scalar taps
/// (ref_taps::axis_taps, coords::grid_axis_taps: the reference's formulas): base
/// index (window-relative) and the weights of base and base + 1.
inline void pair_from_exact_taps(const U8Ctx& c, int axis, float x, int32_t* base,
                                 float* w0, float* w1) {
  const ref_taps::AxisTaps<float> a = ref_taps::axis_taps<float>(*c.p, x, c.len[axis]);
  *base = 0;
  *w0 = 0.0f;
  *w1 = 0.0f;
  if (a.count == 0) return;
  const int64_t ext = c.ext[axis];
  int64_t m = a.index[0];
  for (int k = 1; k < a.count; ++k) m = std::min(m, a.index[k]);
  m -= c.origin[axis];
  const int64_t b = std::max<int64_t>(0, std::min(m, ext - 2));
  *base = static_cast<int32_t>(b);
  for (int k = 0; k < a.count; ++k) {
    // Listed taps lie inside the window (the operator layer checked it).
    const int64_t slot = a.index[k] - c.origin[axis] - b;
    (slot == 0 ? *w0 : *w1) += a.weight[k];
  }
}

/// Nearest tap of one axis from the exact scalar taps: window-relative index and whether
/// it is inside (zeros padding).
inline void nearest_from_exact_taps(const U8Ctx& c, int axis, float x, int32_t* idx,
                                    int32_t* inside) {
  const ref_taps::AxisTaps<float> a = ref_taps::axis_taps<float>(*c.p, x, c.len[axis]);
  *idx = a.count == 0 ? 0 : static_cast<int32_t>(a.index[0] - c.origin[axis]);
  *inside = a.count == 0 ? 0 : -1;
}

}  // namespace gridops::kernels::grid_sample_simd
