// The fast GridSample forward's paths (entries grid_sample.blocked, .fused_small_c, .pairs,
// .channels, .generic of the implementation list in src/ops/grid_sample.cc): what they
// share outside the SIMD code. docs/ops/grid_sample.md, "Fast path"; NOTE [ GridSample fast
// path ] in grid_sample_hwy-inl.h.
//
// Files: grid_sample_fast.cc (compiled without target flags): the scope every path shares,
// the exact scalar taps, the plan-time tables (grid_sample_fast_prepare) and the per-run
// common context (Ctx; a path's own run state derives from it in the path's file);
// grid_sample_hwy-inl.h: the Highway helpers of steps 1-3 shared by the paths;
// grid_sample_<path>_hwy.cc: one path each (its kernel, its plan-time `declines`, its
// run-time `declines_views` and its `run`; the fused path's first two and its schedule in
// grid_sample_fused_small_c_plan.cc), declared by GRIDOPS_GRID_SAMPLE_FAST_PATH where the
// list names it.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>

#include "gridops/dtype.h"
#include "gridops/ops/grid_sample.h"
#include "gridops/parallel.h"
#include "gridops/tensor.h"
#include "kernels/grid_sample/grid_sample.h"

namespace gridops::kernels {

/// What the fast paths derive from the problem alone (shapes and attributes), built once
/// per plan by grid_sample_fast_prepare and kept by the plan. Nothing here depends on the
/// views or the thread count, and only tap_loads on the CPU.
struct GridSampleFastTables {
  InterpolationMode mode;
  GridPadding padding;
  bool align_corners;
  bool finish;        // padding constant (the kernels run zeros) or fill (border): the
                      // run ends with grid_sample_fast_finish
  bool pixels;        // GridUnits::kPixels: AxisStep takes grid values as coordinates
  bool displacement;  // GridKind::kDisplacement: FillGrid adds base[d][o_d]
  const float* base[3];  // per axis, out_sizes[d] entries (displacement), owned by the
                         // plan's tables; else null
  bool channels_last;
  int r;        // spatial rank, 1..3
  int K;        // taps per axis
  int NT;       // K^r
  int64_t batch;
  int64_t channels;
  DType src_dtype;
  DType grid_dtype;
  int64_t len[3];      // full input sizes (with an input window: the virtual full input's)
  // Input window (GridSampleProblem::window_origin): taps are computed against len and
  // then mapped to src's box by AxisStep (index - origin, clamped into the box: only
  // zero-weight taps ever need the clamp); x windows are clamped to the box's width.
  bool windowed;
  int64_t origin[3];
  int64_t ext[3];      // src's spatial sizes (== len without a window)
  int64_t xwin_len;    // columns an x window may span: ext of the innermost axis
  int64_t out_sizes[3];
  int64_t out_points;
  int64_t in_points;   // product of len
  // Points per block before the thread count caps it (the per-run P): about 512 KiB of
  // offsets and weights, kSub with few channels.
  int64_t block_points;
  bool window;     // 2-D/3-D linear/cubic with W >= K: taps on the x window (CombineWindow)
  // Whether dst runs are streamed (non-temporal stores: dst much larger than L2), in the
  // channel-blocked path and the fused path's channels-first stores (NOTE [ GridSample
  // fused streaming stores ]).
  bool stream;
  // The fused path's tap reads (NOTE [ GridSample tap loads ]): scalar loads in place of
  // its pair and float gathers, channels-last or cubic, on a CPU whose gathers are slow
  // (core/gather_cost.h) and whose Highway target at plan time has the loads (x86 AVX2
  // and up; a later target without them gathers). The same bits either way.
  bool tap_loads;
};

/// grid_sample.fused_small_c's items: tiles of kFusedTileH x kFusedTileW output points
/// (NOTE [ GridSample fused small-channel path ]).
inline constexpr int64_t kFusedTileH = 16, kFusedTileW = 64;

namespace grid_sample_simd {

/// Points per sub-block of the tap computation (a multiple of every vector length).
constexpr int64_t kSub = 512;

/// Channels per block of the channel-blocked copy (one 64-byte line of float32).
constexpr int64_t kCB = 16;

/// What every path's kernel reads: the plan's tables, copied, and what each run adds
/// (pointers, strides and facts of the views, the split for the thread count). A path with
/// state of its own derives from it in its file (BlockedRun, FusedRun).
struct Ctx : GridSampleFastTables {
  int64_t P;           // points per block (multiple of kSub)
  int64_t blocks_per_batch;  // items per batch item (grid_sample_fast_run_items)
  int32_t sstride[3];  // src spatial strides (elements)
  // src
  const char* src;
  int64_t s_batch, s_channel;
  // grid
  const char* grid;
  int64_t g_batch, g_spatial[3], g_coord;
  // dst
  char* dst;
  int64_t d_batch, d_channel, d_spatial[3];
  bool dst_dense;  // point offset (in elements) == point index (channels-first) or
                   // point index * C (channels-last, with d_channel == 1)
};

}  // namespace grid_sample_simd

/// Plan time: the tables of a problem grid_sample_fast_declines accepted (every fast path's
/// `prepare`; may throw std::bad_alloc).
std::shared_ptr<const void> grid_sample_fast_prepare(const GridSampleProblem& p);

/// The schedule the tables fix, for the dispatch log (every fast path's `schedule`; the
/// fused path's adds its tile and its tap reads, NOTE [ GridSample tap loads ]; its test
/// twin's always gathers).
std::string grid_sample_fast_schedule(const GridSampleProblem& p, const void* tables);
std::string grid_sample_fused_small_c_schedule(const GridSampleProblem& p, const void* tables);
std::string grid_sample_fused_small_c_portable_pairs_schedule(const GridSampleProblem& p,
                                                              const void* tables);

/// Run time: the context of a run from the plan's tables and the views. Returns why no
/// fast path can take the views (src offsets that do not fit in int32), else empty. P is
/// capped for the thread count.
std::string grid_sample_fast_context(const GridSampleProblem& p, const void* tables,
                                     const GridSampleViews& v, grid_sample_simd::Ctx* c);

/// Whether the problem has no output element (every path then returns at once).
inline bool grid_sample_fast_empty(const GridSampleFastTables& t) {
  return t.batch == 0 || t.channels == 0 || t.out_points == 0;
}

/// Runs `item` (a path's kernel over items [begin, end) of the run `c`: item i is part
/// i % per_batch of batch item i / per_batch, of about `item_points` output points) through
/// parallel_for, on one thread for small problems. Sets c.blocks_per_batch = per_batch.
template <class Run>
void grid_sample_fast_run_items(Run& c, int64_t per_batch, int64_t item_points,
                                void (*item)(const Run&, int64_t, int64_t)) {
  c.blocks_per_batch = per_batch;
  const int64_t items = c.batch * per_batch;
  // Small problems run on one thread: waking a second costs more than it saves.
  const int64_t work_per_item = item_points * std::max<int64_t>(c.channels, 4) * c.NT;
  const int64_t grain = std::max<int64_t>(1, (int64_t{1} << 17) / work_per_item);
  parallel_for(items, grain, [&](int64_t b, int64_t e) { item(c, b, e); });
}

/// grid_sample_fast_run_items over blocks of c.P output points.
inline void grid_sample_fast_run_blocks(grid_sample_simd::Ctx& c,
                                        void (*item)(const grid_sample_simd::Ctx&, int64_t,
                                                     int64_t)) {
  grid_sample_fast_run_items(c, (c.out_points + c.P - 1) / c.P, c.P, item);
}

/// A path's own test of the view facts in a run's context (empty: it takes them).
using GridSamplePathViewDeclines = std::string (*)(const grid_sample_simd::Ctx&);

/// Every path's declines_views: why no fast path can take the views
/// (grid_sample_fast_context), else, for a problem with output elements, the path's own
/// test (`path_declines`; null: none).
std::string grid_sample_path_declines_views(const GridSampleProblem& p, const void* tables,
                                            const GridSampleViews& v,
                                            GridSamplePathViewDeclines path_declines);

/// Every path's run prologue: builds the context `c` of views the path's declines_views
/// took (a precondition of every entry's run). False when the problem has no output
/// element (the run is over), true when the path's kernel is to run on `c`.
bool grid_sample_path_begin(const GridSampleProblem& p, const void* tables,
                            const GridSampleViews& v, grid_sample_simd::Ctx* c);

/// Every path's run epilogue for padding constant and fill, whose kernels ran zeros and
/// border (GridSampleFastTables::finish; nothing otherwise): one threaded pass over the
/// grid that, per output point, writes the fill value (fill: a sample outside the bounds)
/// or adds fill * (1 - the product over axes of the inside taps' weights) (constant: a
/// sample with a tap outside; exactly the fill value when an axis has none inside), with
/// the kernels' coordinate arithmetic. Within the fast path's tolerance of the reference,
/// which weights each outside tap by the fill value.
void grid_sample_fast_finish(const GridSampleProblem& p, const void* tables,
                             const GridSampleViews& v);

/// The test-only twins of two paths (entries grid_sample.blocked_portable_transpose and
/// grid_sample.fused_small_c_portable_pairs): the same kernel with the portable form of one
/// instruction sequence (NOTE [ GridSample Transpose16 ], NOTE [ GridSample pair gather ]),
/// which gives the same bits. Their declines and declines_views are the path's.
void grid_sample_blocked_portable_transpose_run(const GridSampleProblem& p, const void* tables,
                                                const GridSampleViews& v);
void grid_sample_fused_small_c_portable_pairs_run(const GridSampleProblem& p,
                                                  const void* tables, const GridSampleViews& v);

}  // namespace gridops::kernels

/// Declares the three functions of the fast path grid_sample.<name>, defined in
/// grid_sample_<name>_hwy.cc (use inside namespace gridops::kernels): its plan-time scope
/// (empty: it takes the problem; from shapes, dtypes, layout, the input window and the
/// CPU's Highway target), its run-time view check (empty: it takes these views; else the
/// run goes to the next planned entry, logged) and its kernel (tables from
/// grid_sample_fast_prepare; views its view check took). Every path gives the same bits on
/// a problem they all take.
#define GRIDOPS_GRID_SAMPLE_FAST_PATH(name)                                                 \
  std::string grid_sample_##name##_declines(const GridSampleProblem& p);                   \
  std::string grid_sample_##name##_declines_views(const GridSampleProblem& p,              \
                                                  const void* tables,                      \
                                                  const GridSampleViews& v);               \
  void grid_sample_##name##_run(const GridSampleProblem& p, const void* tables,            \
                                const GridSampleViews& v);
