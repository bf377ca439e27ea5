// The fast GridSample kernel's scalar parts, compiled without target-specific flags: the
// scope all its paths share (grid_sample_fast_declines), the exact per-axis taps for lanes
// the SIMD code does not take (non-finite or huge coordinates), the plan-time tables every
// path's `prepare` builds and the per-run context (grid_sample_fast.h). The exact taps are
// coords::grid_axis_taps in float, the reference's taps (grid_sample_taps.h), so such lanes
// give exactly the reference's taps and weights. See docs/ops/grid_sample.md, "Fast path".
#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "core/convert.h"
#include "core/coords.h"
#include "core/gather_cost.h"
#include "gridops/parallel.h"
#include "kernels/grid_sample/grid_sample.h"
#include "kernels/grid_sample/grid_sample_fast.h"
#include "kernels/grid_sample/grid_sample_taps.h"

namespace gridops::kernels {

std::string grid_sample_fast_declines(const GridSampleProblem& p) {
  if (p.spatial_rank < 1 || p.spatial_rank > 3) {
    return "spatial rank " + std::to_string(p.spatial_rank) + " (fast path: 1 to 3)";
  }
  if (p.src_dtype != DType::kFloat32 && p.src_dtype != DType::kFloat16 &&
      p.src_dtype != DType::kBFloat16) {
    return std::string("src dtype ") + to_string(p.src_dtype) +
           " (fast path: float32, float16, bfloat16)";
  }
  if (p.grid_dtype != DType::kFloat32 && p.grid_dtype != DType::kFloat16 &&
      p.grid_dtype != DType::kBFloat16) {
    return std::string("grid dtype ") + to_string(p.grid_dtype) +
           " (fast path: float32, float16, bfloat16)";
  }
  if (p.padding == GridPadding::kConstant && p.src_dtype != DType::kFloat32) {
    // grid_sample_fast_finish adds the fill value's share to the stored result: a second
    // rounding, of a value that may be far larger than the result, in a half type.
    return std::string("padding_mode constant with ") + to_string(p.src_dtype) +
           " src (fast path: float32)";
  }
  for (int64_t len : p.in_sizes) {
    // Tap indices are int32 and reflection reduces them in float (exact below 2^24).
    if (len < 1 || len >= (int64_t{1} << 22)) {
      return "input axis of length " + std::to_string(len) + " (fast path: 1 to 2^22-1)";
    }
  }
  return {};
}

void grid_sample_axis_taps_exact(InterpolationMode mode, GridPadding padding, bool align_corners,
                                 float x, int64_t len, int32_t* idx, float* w) {
  const int count = coords::taps_per_axis(mode);
  for (int k = 0; k < count; ++k) {
    idx[k] = 0;  // a tap not put (outside under zeros) keeps index 0 and weight 0
    w[k] = 0.0f;
  }
  coords::grid_axis_taps<float>(mode, padding, align_corners, x, len,
                                [&](int k, int64_t i, float wk) {
                                  idx[k] = static_cast<int32_t>(i);
                                  w[k] = wk;
                                });
}

std::shared_ptr<const void> grid_sample_fast_prepare(const GridSampleProblem& p) {
  using grid_sample_simd::kSub;
  // The tables with the storage of the displacement bases (t.base points into it).
  struct Owner : GridSampleFastTables {
    std::vector<float> base_store[3];
  };
  auto tables = std::make_shared<Owner>();
  GridSampleFastTables& t = *tables;
  t.mode = p.mode;
  // Constant runs the kernels with zeros and fill with border; the finishing pass
  // (grid_sample_fast_finish) then adds the fill value's share or writes it.
  t.finish = p.padding == GridPadding::kConstant || p.padding == GridPadding::kFill;
  t.pixels = p.units == GridUnits::kPixels;
  t.displacement = p.kind == GridKind::kDisplacement;
  t.padding = p.padding == GridPadding::kConstant ? GridPadding::kZeros
              : p.padding == GridPadding::kFill   ? GridPadding::kBorder
                                                  : p.padding;
  t.align_corners = p.align_corners;
  t.channels_last = p.layout == ChannelLayout::kChannelsLast;
  t.r = p.spatial_rank;
  t.K = coords::taps_per_axis(p.mode);
  t.NT = 1;
  for (int d = 0; d < t.r; ++d) t.NT *= t.K;
  t.batch = p.batch;
  t.channels = p.channels;
  t.src_dtype = p.src_dtype;
  t.grid_dtype = p.grid_dtype;
  // Block size: about 512 KiB of offsets and weights (NT * P * 8 bytes), so that a block
  // sweeps each channel plane once (step 4 is channel-outer); smaller when that leaves
  // fewer than 4 blocks per thread (grid_sample_fast_context). The split never changes
  // any result.
  t.block_points = std::max<int64_t>(kSub, (int64_t{1} << 16) / t.NT);
  // With few channels the tap arrays are reread only a few times: keep them small (in L1
  // and L2) instead; the source locality then comes from the grid itself.
  if (p.channels <= 4) t.block_points = kSub;
  t.out_points = 1;
  t.in_points = 1;
  t.windowed = !p.window_origin.empty();
  for (int d = 0; d < t.r; ++d) {
    const auto i = static_cast<size_t>(d);
    t.len[d] = p.in_sizes[i];
    t.origin[d] = t.windowed ? p.window_origin[i] : 0;
    t.ext[d] = t.windowed ? p.window_extent[i] : t.len[d];
    t.out_sizes[d] = p.out_sizes[i];
    t.out_points *= t.out_sizes[d];
    t.in_points *= t.len[d];
    t.base[d] = nullptr;
    if (t.displacement) {
      // The reference's base_coordinate in float (the fast path's grids are float, half
      // or bfloat16, whose coordinates are float), added in FillGrid.
      // Padded with zeros past the axis: the fused path loads a vector of x bases at a
      // row's last points (lanes beyond the row are never stored).
      tables->base_store[d] = ref_taps::base_table(p, d, 64);
      t.base[d] = tables->base_store[d].data();
    }
  }
  // Decided on the full sizes, so that a window takes the unwindowed run's path (the box
  // is then at least K wide along x: grid_sample_input_box).
  // Not under wrap: its taps at an edge are the axis's two ends, not K adjacent columns.
  t.window = t.r >= 2 && p.mode != InterpolationMode::kNearest && t.len[t.r - 1] >= t.K &&
             p.padding != GridPadding::kWrap;
  t.xwin_len = t.ext[t.r - 1];
  t.stream = p.batch * t.channels * t.out_points * 4 >= (int64_t{8} << 20);
  // NOTE [ GridSample tap loads ]: channels-last and cubic only. Channels-first linear and
  // nearest read their taps as fast by gathers on the measured CPU (docs/perf/grid_sample.md,
  // "Tap loads").
  t.tap_loads = cpu_gathers_slow() && grid_sample_target_has_pairs() &&
                (t.channels_last || p.mode == InterpolationMode::kCubic);
  return tables;
}

std::string grid_sample_fast_schedule(const GridSampleProblem&, const void* tables) {
  const auto& t = *static_cast<const GridSampleFastTables*>(tables);
  std::string s = "block_points=" + std::to_string(t.block_points) +
                  ", x_window=" + (t.window ? "1" : "0") + ", stream=" + (t.stream ? "1" : "0");
  return s;
}

std::string grid_sample_fast_context(const GridSampleProblem&, const void* tables,
                                     const GridSampleViews& v, grid_sample_simd::Ctx* out) {
  using grid_sample_simd::kSub;
  const TensorView& src = v.src;
  const TensorView& grid = v.grid;
  const MutableTensorView& dst = v.dst;
  grid_sample_simd::Ctx& c = *out;
  c = grid_sample_simd::Ctx{};
  static_cast<GridSampleFastTables&>(c) = *static_cast<const GridSampleFastTables*>(tables);
  c.P = c.block_points;
  if (grid_sample_fast_empty(c)) return {};

  const size_t first_spatial = c.channels_last ? 1 : 2;
  const size_t chan_axis = c.channels_last ? static_cast<size_t>(c.r) + 1 : 1;
  // src offsets must fit in int32 (tap offsets and, channels-last, plus the channel).
  int64_t span = 0;
  for (int d = 0; d < c.r; ++d) {
    const int64_t st = src.strides[first_spatial + static_cast<size_t>(d)];
    span += (c.ext[d] - 1) * (st < 0 ? -st : st);
    if (st > INT32_MAX || st < -INT32_MAX) span = INT64_MAX / 4;
    c.sstride[d] = static_cast<int32_t>(st);
  }
  if (c.channels_last) {
    const int64_t st = src.strides[chan_axis];
    span += (c.channels - 1) * (st < 0 ? -st : st);
    if (st > INT32_MAX || st < -INT32_MAX) span = INT64_MAX / 4;
  }
  if (span >= (int64_t{1} << 30)) {
    // Rare: a huge or strangely strided src, whose offsets do not fit the int32 gathers.
    return "src offsets do not fit in int32";
  }
  c.src = static_cast<const char*>(src.data);
  c.s_batch = src.strides[0];
  c.s_channel = src.strides[chan_axis];
  c.grid = static_cast<const char*>(grid.data);
  c.g_batch = grid.strides[0];
  for (int d = 0; d < c.r; ++d) c.g_spatial[d] = grid.strides[1 + static_cast<size_t>(d)];
  c.g_coord = grid.strides[static_cast<size_t>(c.r) + 1];
  c.dst = static_cast<char*>(dst.mutable_data());
  c.d_batch = dst.strides[0];
  c.d_channel = dst.strides[chan_axis];
  int64_t expect = c.channels_last ? c.channels : 1;
  c.dst_dense = !c.channels_last || c.d_channel == 1;
  for (int d = c.r - 1; d >= 0; --d) {
    c.d_spatial[d] = dst.strides[first_spatial + static_cast<size_t>(d)];
    if (c.d_spatial[d] != expect && c.out_sizes[d] > 1) c.dst_dense = false;
    expect *= c.out_sizes[d];
  }
  // The thread count may change between runs (set_num_threads): at least 4 blocks per
  // thread where the problem has them.
  const int64_t threads = std::max(1, get_num_threads());
  const int64_t want = (c.batch * c.out_points + 4 * threads - 1) / (4 * threads);
  const int64_t want_rounded = (want + kSub - 1) / kSub * kSub;
  c.P = std::min(c.P, std::max(kSub, want_rounded));
  return {};
}

namespace {

/// grid_sample_fast_finish for one dst dtype T and grid dtype GT.
template <class T, class GT, int R>
void finish_typed(const GridSampleProblem& p, const GridSampleFinishGeometry& t,
                  const GridSampleViews& v) {
  constexpr int r = R;  // the spatial rank, known at compile time: the axis loops unroll
  float interior_hi[3] = {0.0f, 0.0f, 0.0f};  // x below it (and >= 1): every tap inside
  for (int d = 0; d < r; ++d) interior_hi[d] = static_cast<float>(t.len[d] - 2);
  const bool fill_mode = p.padding == GridPadding::kFill;
  const ref_taps::SplitStrides ds = ref_taps::split_strides(v.dst, r, p.layout);
  const Dims& gs = v.grid.strides;
  const GT* gbase = static_cast<const GT*>(v.grid.data);
  T* dbase = static_cast<T*>(v.dst.mutable_data());
  const float fill = static_cast<float>(p.fill_value);
  const T fill_t = convert::store_real<T>(p.fill_value);
  const int64_t points = t.out_points;
  constexpr int64_t kChunk = 4096;
  const int64_t chunks = (points + kChunk - 1) / kChunk;
  parallel_for(p.batch * chunks, 1, [&](int64_t b, int64_t e) {
    for (int64_t item = b; item < e; ++item) {
      const int64_t n = item / chunks, q0 = item % chunks * kChunk;
      const int64_t q1 = std::min(points, q0 + kChunk);
      int64_t o[3] = {0, 0, 0};
      int64_t rem = q0;
      for (int d = r - 1; d >= 0; --d) {
        o[d] = rem % t.out_sizes[d];
        rem /= t.out_sizes[d];
      }
      // The strides in locals (the loop below must not reload them through the vectors).
      int64_t gsp[3] = {0, 0, 0}, dsp[3] = {0, 0, 0};
      for (int d = 0; d < r; ++d) {
        gsp[d] = gs[static_cast<size_t>(d) + 1];
        dsp[d] = ds.spatial[static_cast<size_t>(d)];
      }
      const int64_t gcs = gs[static_cast<size_t>(r) + 1], dch = ds.channel;
      for (int64_t q = q0; q < q1; ++q) {
        int64_t goff = n * gs[0], doff = n * ds.batch;
        for (int d = 0; d < r; ++d) {
          goff += o[d] * gsp[d];
          doff += o[d] * dsp[d];
        }
        bool outside = false;   // fill: the sample takes the value
        bool partial = false;   // constant: some tap is outside
        float inside_weight = 1.0f;  // constant: prod over axes of the inside taps' weights
        for (int d = 0; d < r; ++d) {
          const float g = convert::load_real<float>(gbase[goff + static_cast<int64_t>(r - 1 - d) * gcs]);
          // FillGrid and AxisStep's arithmetic: base + g in float, then unnormalize.
          const float x = coords::grid_pixel_coordinate(
              g, t.displacement, t.displacement ? t.base[d][o[d]] : 0.0f, t.pixels, t.len[d],
              p.align_corners);
          if (fill_mode) {
            if (!coords::grid_fill_inside(x, t.len[d], p.align_corners)) outside = true;
            continue;
          }
          // Every tap of every mode inside (floor(x) - 1 >= 0, floor(x) + 2 <= len - 1):
          // nothing to add on this axis (its inside weight is the whole).
          if (x >= 1.0f && x < interior_hi[d]) continue;
          float in_w = 0.0f;
          int listed = 0;
          coords::grid_axis_taps<float>(p.mode, GridPadding::kConstant, p.align_corners, x,
                                        t.len[d], [&](int, int64_t i, float w) {
                                          ++listed;
                                          if (i >= 0) in_w += w;
                                          else partial = true;
                                        });
          if (listed == 0) partial = true;  // non-finite: every tap outside
          inside_weight *= in_w;
        }
        if (fill_mode) {
          if (outside) {
            for (int64_t c = 0; c < p.channels; ++c) dbase[doff + c * dch] = fill_t;
          }
        } else if (partial) {
          // The kernels (zeros) gave the taps inside; the taps outside add fill times their
          // weight, 1 - the inside weight (exactly the fill value when none is inside).
          const float add = fill * (1.0f - inside_weight);
          for (int64_t c = 0; c < p.channels; ++c) {
            T& out = dbase[doff + c * dch];
            out = inside_weight == 0.0f ? fill_t
                                        : convert::store_real<T>(convert::load_real<float>(out) + add);
          }
        }
        for (int d = r - 1; d >= 0; --d) {
          if (++o[d] < t.out_sizes[d]) break;
          o[d] = 0;
        }
      }
    }
  });
}

template <class T, class GT>
void finish_rank(const GridSampleProblem& p, const GridSampleFinishGeometry& t,
                 const GridSampleViews& v) {
  switch (p.spatial_rank) {
    case 1: finish_typed<T, GT, 1>(p, t, v); break;
    case 2: finish_typed<T, GT, 2>(p, t, v); break;
    default: finish_typed<T, GT, 3>(p, t, v); break;
  }
}

template <class T>
void finish_grid(const GridSampleProblem& p, const GridSampleFinishGeometry& t,
                 const GridSampleViews& v) {
  switch (p.grid_dtype) {
    case DType::kFloat16: finish_rank<T, float16>(p, t, v); break;
    case DType::kBFloat16: finish_rank<T, bfloat16>(p, t, v); break;
    default: finish_rank<T, float>(p, t, v); break;
  }
}

}  // namespace

void grid_sample_finish_pass(const GridSampleProblem& p, const GridSampleFinishGeometry& g,
                             const GridSampleViews& v) {
  if (p.padding != GridPadding::kConstant && p.padding != GridPadding::kFill) return;
  if (p.batch == 0 || p.channels == 0 || g.out_points == 0) return;
  switch (p.src_dtype) {
    case DType::kFloat16: finish_grid<float16>(p, g, v); break;
    case DType::kBFloat16: finish_grid<bfloat16>(p, g, v); break;
    case DType::kUInt8: finish_grid<uint8_t>(p, g, v); break;
    default: finish_grid<float>(p, g, v); break;
  }
}

void grid_sample_fast_finish(const GridSampleProblem& p, const void* tables,
                             const GridSampleViews& v) {
  const auto& t = *static_cast<const GridSampleFastTables*>(tables);
  if (!t.finish || grid_sample_fast_empty(t)) return;
  GridSampleFinishGeometry g;
  g.out_points = t.out_points;
  g.pixels = t.pixels;
  g.displacement = t.displacement;
  for (int d = 0; d < 3; ++d) {
    g.out_sizes[d] = t.out_sizes[d];
    g.len[d] = t.len[d];
    g.base[d] = t.base[d];
  }
  grid_sample_finish_pass(p, g, v);
}

std::string grid_sample_path_declines_views(const GridSampleProblem& p, const void* tables,
                                            const GridSampleViews& v,
                                            GridSamplePathViewDeclines path_declines) {
  grid_sample_simd::Ctx c;
  const std::string why = grid_sample_fast_context(p, tables, v, &c);
  if (!why.empty() || grid_sample_fast_empty(c) || path_declines == nullptr) return why;
  return path_declines(c);
}

bool grid_sample_path_begin(const GridSampleProblem& p, const void* tables,
                            const GridSampleViews& v, grid_sample_simd::Ctx* c) {
  const std::string why = grid_sample_fast_context(p, tables, v, c);
  if (!why.empty()) {
    // A broken precondition (the path's declines_views takes no such views): stop here
    // rather than gather outside src.
    std::fprintf(stderr, "gridops: grid_sample fast path run on views it declines (%s)\n",
                 why.c_str());
    std::abort();
  }
  return !grid_sample_fast_empty(*c);
}

}  // namespace gridops::kernels
