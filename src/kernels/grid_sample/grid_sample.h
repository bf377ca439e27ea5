// GridSample kernel contract. The operator layer (src/ops/grid_sample.cc) validates
// everything; kernels only assert their preconditions.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "gridops/dtype.h"
#include "gridops/ops/grid_sample.h"
#include "gridops/tensor.h"

namespace gridops::kernels {

/// A validated GridSample problem, independent of memory addresses and strides.
///
/// Preconditions every kernel may assume (the operator layer guarantees them):
/// - 1 <= spatial_rank <= kMaxRank - 2; in_sizes and out_sizes have spatial_rank entries,
///   ordered like the tensor axes (D1 first, innermost last); all sizes >= 0.
/// - src has dtype src_dtype and shape (batch, channels, in_sizes...) for kChannelsFirst or
///   (batch, in_sizes..., channels) for kChannelsLast; dst has src_dtype and the same
///   layout with out_sizes; grid has grid_dtype (float16, bfloat16, float32 or float64)
///   and shape (batch, out_sizes..., spatial_rank).
/// - Views are valid (validate_view passed): any strides, including zero and negative,
///   every reachable byte offset fits in int64.
/// - src_dtype == kString only with mode == kNearest.
/// - padding is kBorder or kReflection only when every in_sizes entry is >= 1 or the
///   output is empty.
/// - dst does not overlap src or grid.
/// - Input window (GridSampleWindow; window_origin non-empty): in_sizes are the FULL input's
///   sizes (coordinates are unnormalized and padded against them), src's spatial sizes are
///   window_extent, and a tap at full index i is read at i - window_origin. The operator
///   layer has checked that grid_sample_input_box of the grid lies inside the window, so
///   every tap a kernel reads (the reference's listed taps; the fast path's K-column x
///   windows) is inside; a kernel maps an index it never reads with a nonzero weight
///   (zeros padding outside) into the window. Only the forward takes a window.
struct GridSampleProblem {
  InterpolationMode mode = InterpolationMode::kLinear;
  GridPadding padding = GridPadding::kZeros;
  bool align_corners = false;
  ChannelLayout layout = ChannelLayout::kChannelsFirst;
  GridUnits units = GridUnits::kNormalized;
  GridKind kind = GridKind::kAbsolute;
  double fill_value = 0.0;  ///< kConstant (finite) and kFill; representable in src_dtype
  DType src_dtype = DType::kFloat32;
  DType grid_dtype = DType::kFloat32;
  int spatial_rank = 0;
  int64_t batch = 0;
  int64_t channels = 0;
  Dims in_sizes;   ///< D1..Dr of src
  Dims out_sizes;  ///< D1_out..Dr_out of grid and dst
  Dims window_origin;  ///< empty: no window; else r entries (see above)
  Dims window_extent;  ///< r entries with a window: src's spatial sizes
};

/// What a forward run adds to the problem: its views (valid for the call only).
struct GridSampleViews {
  const TensorView& src;
  const TensorView& grid;
  const MutableTensorView& dst;
};

/// The reference kernel: N-D, every dtype, mode and padding; single-threaded; computes
/// exactly the formulas of docs/ops/grid_sample.md.
void grid_sample_ref(const GridSampleProblem& p, const TensorView& src, const TensorView& grid,
                     const MutableTensorView& dst);

/// The scope every fast forward path shares (grid_sample_fast.cc; each path's `declines`
/// starts with it): empty when it takes the problem, else why not: spatial rank 1-3, src
/// float32/float16/bfloat16, grid float32/float16/bfloat16, every mode, padding,
/// align_corners and layout, input axes of length 1..2^22-1.
std::string grid_sample_fast_declines(const GridSampleProblem& p);

#ifdef GRIDOPS_HAVE_HWY
// The fast forward's paths are entries of the implementation list (src/ops/grid_sample.cc),
// one translation unit each: grid_sample_<path>_hwy.cc, with their shared parts in
// grid_sample_fast.h and grid_sample_hwy-inl.h (docs/ops/grid_sample.md, "Fast path").

/// Whether the CPU's Highway target has the channel-blocked path (x86 AVX2 and AVX-512) and
/// the pair gathers (AVX2 and up).
bool grid_sample_target_has_blocked();
bool grid_sample_target_has_pairs();

/// The 16 x 16 float32 tile `in` transposed into `out` (both 64-byte aligned):
/// out[k * 16 + i] = in[i * 16 + k], with Transpose16Portable (portable) or the blocked
/// path's transpose on the CPU's Highway target (Transpose16 on AVX-512, four Transpose8 on
/// AVX2: NOTE [ GridSample Transpose16 ] in grid_sample_blocked_hwy.cc); false (nothing
/// written) when that target has no blocked path. Tested directly.
bool grid_sample_transpose16(bool portable, const float* in, float* out);
/// The pairs at the 16 element offsets o of plane read into out[2i], out[2i + 1] with the
/// portable GatherPairsPortable (portable) or the AVX-512 GatherPairs on the CPU's Highway
/// target (NOTE [ GridSample pair gather ] in grid_sample_fused_small_c_hwy.cc); false
/// (nothing written) when that target has no raw form. Tested directly.
bool grid_sample_gather_pairs16(bool portable, const float* plane, const int32_t* o,
                                float* out);
/// As grid_sample_gather_pairs16 by the fused path's tap loads (NOTE [ GridSample tap
/// loads ]), the raw LoadPairVectors and LoadFloats or (portable) their Highway forms: the
/// pairs into out[2i], out[2i + 1], the floats plane[o[i]] into floats[i]; false (nothing
/// written) when the CPU's Highway target has no tap loads.
bool grid_sample_load_taps16(bool portable, const float* plane, const int32_t* o, float* out,
                             float* floats);
#endif

/// What the finishing pass of padding constant and fill needs of a problem (the fast
/// forward's and the uint8 path's tables give it): output points and sizes, the full input
/// sizes, the grid conventions and a displacement's base tables (float per output index).
struct GridSampleFinishGeometry {
  int64_t out_points = 0;
  int64_t out_sizes[3] = {0, 0, 0};
  int64_t len[3] = {0, 0, 0};
  bool pixels = false;
  bool displacement = false;
  const float* base[3] = {nullptr, nullptr, nullptr};
};

/// The finishing pass (grid_sample_fast.cc) of a kernel that ran padding constant as zeros
/// and fill as border (nothing for other paddings): one threaded pass over the grid that,
/// per output point, writes the fill value (fill: a sample outside the bounds) or adds
/// fill * (1 - the product over axes of the inside taps' weights) to the stored result
/// (constant: a sample with a tap outside; exactly the fill value when an axis has none
/// inside), with the kernels' float coordinate arithmetic. dst float32, float16, bfloat16
/// or uint8 (spatial rank <= 3).
void grid_sample_finish_pass(const GridSampleProblem& p, const GridSampleFinishGeometry& g,
                             const GridSampleViews& v);

/// GridSample backward (docs/ops/grid_sample.md, "Backward"). Same problem and
/// preconditions as the forward, plus: src_dtype is float16, bfloat16, float32 or float64;
/// grad_dst has dst's shape, layout and src_dtype; grad_src (null: not wanted) src's shape,
/// layout and dtype; grad_grid (null: not wanted) grid's shape and dtype; neither output
/// overlaps any input or the other. Outputs are overwritten (not accumulated into); every
/// element of a wanted output is written.
using GridSampleBackwardFn = void (*)(const GridSampleProblem& p, const TensorView& grad_dst,
                                      const TensorView& src, const TensorView& grid,
                                      const MutableTensorView* grad_src,
                                      const MutableTensorView* grad_grid);

/// The fast backward's scope (grid_sample_backward_fast.cc): empty when it takes the
/// problem, else why not: spatial rank 1-3, src and grid float32/float16/bfloat16, input
/// axes of length 1..2^30; every mode, padding, align_corners, layout and stride.
std::string grid_sample_backward_fast_declines(const GridSampleProblem& p);

/// Run time: why the fast backward cannot write these outputs (empty: it can): outputs
/// whose elements alias each other (zero or interleaved strides), which the reference
/// defines by its write order. The entries' declines_views: the run goes to the reference.
std::string grid_sample_backward_fast_declines_views(const MutableTensorView* grad_src,
                                                     const MutableTensorView* grad_grid);

/// Plan time: the fast backward's tables (grid_sample_backward_plan.cc): channel-row width,
/// chunk sizes, sort-key buckets and split (for the thread count at plan time), the band
/// kernel, and the scratch the plan's runs reuse. One function per entry:
/// grid_sample_backward.bands (the Highway band kernel; portable without Highway), the
/// test-only .bands_portable (the portable band kernel) and .bands_four_chunks (chunks of at
/// most out_points / 4 + 1 points, so that the accumulators carry over chunks). May throw
/// std::bad_alloc.
std::shared_ptr<const void> grid_sample_backward_bands_prepare(const GridSampleProblem& p);
std::shared_ptr<const void> grid_sample_backward_bands_portable_prepare(const GridSampleProblem& p);
std::shared_ptr<const void> grid_sample_backward_bands_four_chunks_prepare(
    const GridSampleProblem& p);
/// The tables' schedule, "field=value, ...", for the dispatch log.
std::string grid_sample_backward_bands_schedule(const GridSampleProblem& p, const void* tables);

/// The fast backward with one of those tables (outputs it takes only): threaded through
/// parallel_for, float accumulation, results bit-identical for any thread count and split
/// (NOTE [ GridSample backward fast path ]).
void grid_sample_backward_fast(const GridSampleProblem& p, const void* tables,
                               const TensorView& grad_dst, const TensorView& src,
                               const TensorView& grid, const MutableTensorView* grad_src,
                               const MutableTensorView* grad_grid);

/// The backward reference: N-D, every mode and padding, single-threaded, sums in double,
/// each output element stored once.
void grid_sample_backward_ref(const GridSampleProblem& p, const TensorView& grad_dst,
                              const TensorView& src, const TensorView& grid,
                              const MutableTensorView* grad_src,
                              const MutableTensorView* grad_grid);

/// Taps of one spatial axis exactly as the reference computes them (ERRATA GridSample 2-8),
/// for the fast kernel's lanes with non-finite or huge coordinates. x is the unnormalized
/// coordinate (float), len >= 1. Writes `count` = 1, 2 or 4 (nearest, linear, cubic) slots:
/// idx[k] in [0, len) and w[k]; a tap outside under zeros padding gets idx 0 and weight 0
/// (for nearest: weight 0 marks "outside", 1 "inside").
void grid_sample_axis_taps_exact(InterpolationMode mode, GridPadding padding, bool align_corners,
                                 float x, int64_t len, int32_t* idx, float* w);

}  // namespace gridops::kernels
