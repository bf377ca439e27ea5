// The inner kernel of the fast GridSample backward (NOTE [ GridSample backward fast path ]
// in grid_sample_backward_fast.cc): one band of input rows, channels in SIMD vectors.
// Portable version in grid_sample_backward_fast.cc; with Highway, a dynamically dispatched
// one in grid_sample_backward_hwy.cc.
#pragma once

#include <cstdint>

namespace gridops::kernels::grid_sample_simd {

/// What one band reads and writes. Arrays indexed by q are per point of the current chunk,
/// in the chunk's sorted order; channel rows are CP floats (channels past C are zeros).
struct BandArgs {
  int r = 0;        ///< spatial rank, 1..3
  int K = 0;        ///< taps per axis: 1, 2 or 4
  int64_t CP = 0;   ///< channels padded (a multiple of band_lanes() or 4, see chunk_channels)
  int64_t pb = 0, pe = 0;          ///< points (sorted positions) [pb, pe) this band visits
  int64_t b0 = 0, b1 = 0;          ///< the band: axis-0 indices [b0, b1)
  /// [q][1 + r K]: the point's lowest valid tap index on axis 0 (lo0), then per axis and
  /// tap the padded tap index, -1 outside (zeros padding).
  const int32_t* irec = nullptr;
  /// [q][2 r K]: per axis and tap the weight, then per axis and tap its derivative in x.
  const float* frec = nullptr;
  int64_t dense[3] = {0, 0, 0};    ///< input point strides (row-major over the input axes)
  const int64_t* order = nullptr;  ///< per sorted position: the point's natural index
  const float* gd = nullptr;       ///< [natural index][CP] grad_dst (rows read via order)
  const float* src = nullptr;      ///< [input point][CP] src, or null: no grid gradient
  float* acc = nullptr;            ///< [input point][CP] grad_src accumulator, or null
  float* gg = nullptr;             ///< [natural index][r] grid gradient in x (owned points)
};

/// Visits points [pb, pe) in order: adds w * grad_dst into acc for every tap whose axis-0 index
/// lies in [b0, b1), in the order of the positions and then of the taps; for the points it
/// owns (lo0 >= b0), when src is set, stores gg[order[pos]][d] = sum over taps and channels of
/// dw_d * grad_dst * src.
void band_portable(const BandArgs& a);

#ifdef GRIDOPS_HAVE_HWY
/// band_portable with Highway vectors (the best target of this CPU).
void band_hwy(const BandArgs& a);
/// Floats per vector of band_hwy's target.
int64_t band_lanes_hwy();
/// rows[j * CP + c] = s[c * ch + j] for j < n, c < C (channel planes to channel rows).
void planes_to_rows_hwy(const float* s, int64_t ch, int64_t n, int64_t C, float* rows, int64_t CP);
/// s[c * ch + j] = rows[j * CP + c] for j < n, c < C (the inverse).
void rows_to_planes_hwy(const float* rows, int64_t CP, int64_t n, int64_t C, float* s, int64_t ch);
#endif

}  // namespace gridops::kernels::grid_sample_simd
