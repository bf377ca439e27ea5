// grid_sample.blocked: channels-first float32 with >= 8 channels on AVX2 and AVX-512, NOTE
// [ GridSample channel blocks ]: steps 1-3 of NOTE [ GridSample fast path ]
// (grid_sample_hwy-inl.h) on a channel-blocked copy of src, step 4 16 channels at a time.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <new>
#include <string>

#include "gridops/parallel.h"
#include "kernels/grid_sample/grid_sample.h"
#include "kernels/grid_sample/grid_sample_fast.h"

#ifndef GRIDOPS_GRID_SAMPLE_BLOCKED_RUN_DEFINED
#define GRIDOPS_GRID_SAMPLE_BLOCKED_RUN_DEFINED
namespace gridops::kernels::grid_sample_simd {
/// The path's run (NOTE [ GridSample channel blocks ]): the common context, whose sstride
/// holds the strides of the blocked copy (dense spatial strides times kCB), and the split
/// into items (batch item, channel block, chunk of output points).
struct BlockedRun : Ctx {
  int64_t cblocks;      // channel blocks of kCB
  int64_t chunks;       // point chunks per (batch, channel block) item
  int64_t chunk_pts;    // points per chunk (multiple of kSub)
  int64_t s_spatial[3];  // src spatial strides (elements)
  float* shared;        // copies of all (n, cb) made before the items run, or null
  int64_t copy_parts;   // row ranges per copy (shared copies)
  bool portable_transpose;  // tests: Transpose16Portable in place of Transpose16
};
}  // namespace gridops::kernels::grid_sample_simd
#endif

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/grid_sample/grid_sample_blocked_hwy.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/aligned_allocator.h>
#include <hwy/cache_control.h>
#include <hwy/highway.h>

#include "kernels/grid_sample/grid_sample_hwy-inl.h"
#include "kernels/grid_sample/grid_sample_blocked_rows_hwy-inl.h"

HWY_BEFORE_NAMESPACE();
namespace gridops::kernels::grid_sample_simd {
namespace HWY_NAMESPACE {

// NOTE [ GridSample channel blocks ]
// Channels-first float32 with many channels (W1: 64 channels of 128 x 128) is bound by
// moving cache lines, not by arithmetic: a gather over points brings one 64-byte line
// from L2 per tap, point and channel and uses 4 or 8 bytes of it. Instead, each item
// (batch n, block cb of kCB = 16 channels, chunk of output points) works on a copy of
// that block in which each input pixel's 16 channels are contiguous (NHWC16c: pixel q,
// channel i at [q * 16 + i], one 64-byte line per pixel; channels past C are zeros).
// - Where the copy lives: with at least 2 blocks per thread (chunks == 1, so every block
//   is exactly one item), the thread that runs an item copies its block into its own
//   scratch (1 MiB for 128 x 128, so it stays in that core's L2). With fewer blocks (W3:
//   one block), blocks are split into several chunks, and all threads first copy every
//   block once, by row ranges, into one shared buffer (c.shared) before the items run,
//   so no block is copied twice however parallel_for splits the items.
// - Steps 1-3 run unchanged on the copy's strides (sstride = dense strides * 16); a
//   chunk's taps are kept (up to 1 MiB) for its next channel block.
// - Step 4 reads, per point and tap, one 16-channel vector and accumulates with the
//   weight broadcast: acc = MulAdd(w_k, v_k, acc) over k in the same order as the other
//   paths, so the results are the same bits as theirs (nearest selects the vector or
//   zero, bit for bit). 16 points x 16 channels are transposed in registers, staged, and
//   stored as runs of points into the 16 channel planes (BlockedChannels).
// The copy and every output element are computed the same way whatever the split, so
// results do not depend on the thread count.

#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX2
constexpr bool kHaveBlocked = true;

/// The channel-blocked copy of channels [cb * 16, cb * 16 + 16) of batch n (channels
/// past C are zeros): pixel q (dense, innermost axis fastest) at out[q * 16].
/// Rows (runs along the innermost input axis) [row0, row1) only.
template <bool kPortable>
void BlockedCopy(const BlockedRun& c, int64_t n, int64_t cb, float* HWY_RESTRICT out, int64_t row0,
                 int64_t row1) {
  const float* sbase = reinterpret_cast<const float*>(c.src) + n * c.s_batch +
                       cb * kCB * c.s_channel;
  const int64_t nch = std::min(kCB, c.channels - cb * kCB);
  const int r = c.r;
  const int64_t W = c.len[r - 1];
  const int64_t sx = c.s_spatial[r - 1];
  int64_t o[2] = {0, 0};
  if (r == 3) {
    o[0] = row0 / c.len[1];
    o[1] = row0 % c.len[1];
  } else {
    o[0] = row0;
  }
  for (int64_t row = row0; row < row1; ++row) {
    int64_t roff = 0;
    for (int d = 0; d < r - 1; ++d) roff += o[d] * c.s_spatial[d];
    float* orow = out + row * W * kCB;
    const float* srow = sbase + roff;
    if (sx == 1) {
      int64_t x = 0;
      if (nch == kCB) {
        for (; x + kCB <= W; x += kCB) {
          Row v[16], tr[16];
          for (int i = 0; i < 16; ++i) v[i] = LoadRowU(srow + i * c.s_channel + x);
          TransposeTile<kPortable>(v, tr);
          float* o16 = orow + x * kCB;
          for (int q = 0; q < 16; ++q) StoreRow(tr[q], o16 + q * kCB);
        }
      }
      for (; x < W; x += kCB) {
        const int64_t m = std::min(kCB, W - x);
        Row v[16], tr[16];
        for (int i = 0; i < 16; ++i) {
          v[i] = LoadRowFirst(srow + i * c.s_channel + x, i < nch ? m : 0);
        }
        TransposeTile<kPortable>(v, tr);
        for (int64_t q = 0; q < m; ++q) StoreRow(tr[q], orow + (x + q) * kCB);
      }
    } else {
      for (int64_t x = 0; x < W; ++x) {
        for (int64_t i = 0; i < kCB; ++i) {
          orow[x * kCB + i] = i < nch ? srow[i * c.s_channel + x * sx] : 0.0f;
        }
      }
    }
    for (int d = r - 2; d >= 0; --d) {
      if (++o[d] < c.len[d]) break;
      o[d] = 0;
    }
  }
}

/// Step 4 in channel-blocked mode for points [p0, p0 + cnt) of block cb, whose taps are
/// at [t0, t0 + cnt) of the tap arrays.
template <int NT, bool kPortable>
void BlockedChannels(const BlockedRun& c, const Work& wk, const float* HWY_RESTRICT plane, int64_t n,
                     int64_t cb, int64_t p0, int64_t t0, int64_t cnt) {
  const DB df;
  const auto P = static_cast<size_t>(c.P);
  const bool nearest = c.mode == InterpolationMode::kNearest;
  const int64_t nt = NT > 0 ? NT : c.NT;
  const int64_t nch = std::min(kCB, c.channels - cb * kCB);
  float* dbase = reinterpret_cast<float*>(c.dst) + n * c.d_batch + cb * kCB * c.d_channel;
  const int32_t* off = wk.off.data() + t0;
  const float* w = wk.w.data() + t0;
  const int64_t* doff = wk.doff.data() + t0;
  // Transposed tiles go to a staging area of kStage points per channel, then out in runs
  // of kStage points per channel plane: storing tile rows straight into 16 planes (64 KiB
  // apart on W1, one L1 set) thrashes L1. With c.stream, whole 64-byte lines of dst are
  // written with non-temporal stores: ordinary stores of 16 short interleaved runs wait
  // on reading each line first (measured: docs/perf/grid_sample.md, "Channel blocks"). The
  // runs start `shift` points before p0 so that they cover whole lines of dst; positions
  // outside [p0, p0 + cnt) are computed from a clamped point and not stored.
  bool stream = c.stream && c.dst_dense;
  int64_t shift = 0;
  if (stream) {
    const auto addr = reinterpret_cast<uintptr_t>(dbase + p0);
    stream = (addr & 3) == 0 && (c.d_channel & 15) == 0;
    if (stream) shift = static_cast<int64_t>((addr & 63) / 4);
  }
  constexpr int64_t kStage = 128, kRow = kStage + 16;  // row padding spreads the L1 sets
  HWY_ALIGN float stage[16 * kRow];
  const int64_t vend = shift + cnt;
  for (int64_t v0 = 0; v0 < vend; v0 += kStage) {
    const int64_t vn = std::min(kStage, vend - v0);
    for (int64_t jj = 0; jj < vn; jj += 16) {
      const int64_t q0 = v0 + jj - shift;
      const bool edge = q0 < 0 || q0 + 16 > cnt;
      Row acc[16], col[16];
      for (int l = 0; l < 16; ++l) {
        const auto p = static_cast<size_t>(edge ? std::min(std::max<int64_t>(q0 + l, 0), cnt - 1)
                                                : q0 + l);
        if (nearest) {
          const auto take = hn::FirstN(df, w[p] > 0.0f ? kN : size_t{0});
          for (int h = 0; h < kV; ++h) {
            acc[l].v[h] = hn::IfThenElseZero(take, hn::Load(df, plane + off[p] + h * kN));
          }
        } else {
          Row a;
          for (int h = 0; h < kV; ++h) a.v[h] = hn::Zero(df);
          for (int64_t k = 0; k < nt; ++k) {
            const size_t at = static_cast<size_t>(k) * P + p;
            const VB wk = hn::Set(df, w[at]);
            const float* tap = plane + off[at];
            for (int h = 0; h < kV; ++h) a.v[h] = hn::MulAdd(wk, hn::Load(df, tap + h * kN), a.v[h]);
          }
          acc[l] = a;
        }
      }
      TransposeTile<kPortable>(acc, col);
      for (int i = 0; i < 16; ++i) {
        for (int h = 0; h < kV; ++h) hn::Store(col[i].v[h], df, stage + i * kRow + jj + h * kN);
      }
    }
    for (int64_t i = 0; i < nch; ++i) {
      const float* srow = stage + i * kRow;
      if (!c.dst_dense) {
        float* dplane = dbase + i * c.d_channel;
        for (int64_t jj = 0; jj < vn; ++jj) dplane[doff[v0 + jj]] = srow[jj];
        continue;
      }
      float* d = dbase + i * c.d_channel + p0 - shift + v0;  // virtual position v0
      for (int64_t jj = 0; jj < vn; jj += static_cast<int64_t>(kN)) {
        const auto n = static_cast<int64_t>(kN);
        const int64_t lo = std::max(v0 + jj, shift) - v0 - jj;
        const int64_t hi = std::min(v0 + jj + n, vend) - v0 - jj;
        VB x = hn::Load(df, srow + jj);
        KeepInRegister(x);
        if (lo <= 0 && hi >= n) {
          if (stream) {
            hn::Stream(x, df, d + jj);
          } else {
            hn::StoreU(x, df, d + jj);
          }
        } else if (std::max<int64_t>(lo, 0) < std::min(hi, n)) {  // lanes [lo, hi)
          const auto mask =
              hn::AndNot(hn::FirstN(df, static_cast<size_t>(std::max<int64_t>(lo, 0))),
                         hn::FirstN(df, static_cast<size_t>(std::min(hi, n))));
          hn::BlendedStore(x, mask, df, d + jj);
        }
      }
    }
  }
}

/// Steps 1-3 for points [p0, p0 + cnt) of batch n (cnt <= kSub), into the tap arrays at
/// [s0, s0 + cnt).
void BlockedTaps(const Ctx& c, Work& wk, int64_t n, int64_t p0, int64_t cnt, int64_t s0) {
  const int64_t Pv = (cnt + 15) / 16 * 16;
  int64_t* doff = wk.doff.data() + s0;
  switch (c.grid_dtype) {
    case DType::kFloat16: FillGridR<float16>(c, wk, n, p0, cnt, Pv, doff); break;
    case DType::kBFloat16: FillGridR<bfloat16>(c, wk, n, p0, cnt, Pv, doff); break;
    default: FillGridR<float>(c, wk, n, p0, cnt, Pv, doff); break;
  }
  for (int d = 0; d < c.r; ++d) AxisTaps(c, wk, d, Pv);
  if (c.window) {
    CombineWindow(c, wk, Pv, s0);
  } else {
    Combine(c, wk, Pv, s0);
  }
}

template <int NT, bool kPortable>
void RunBlockedT(const BlockedRun& c, int64_t begin, int64_t end) {
  Work wk(c);
  hwy::AlignedFreeUniquePtr<float[]> copy;
  if (c.shared == nullptr) {
    copy = hwy::AllocateAligned<float>(static_cast<size_t>(c.in_points * kCB));
    if (!copy) throw std::bad_alloc();  // as the std::vector scratch would
  }
  const float* plane = copy.get();
  // With c.P == c.chunk_pts the tap arrays hold a whole chunk and are reused by the
  // next channel block of the same points; else they hold one sub-block.
  const bool keep_taps = c.P >= c.chunk_pts;
  int64_t have_copy = -1, have_taps = -1;
  for (int64_t item = begin; item < end; ++item) {
    const int64_t plane_id = item / c.chunks, chunk = item % c.chunks;
    const int64_t n = plane_id / c.cblocks, cb = plane_id % c.cblocks;
    if (c.shared != nullptr) {
      plane = c.shared + plane_id * c.in_points * kCB;
    } else if (plane_id != have_copy) {
      BlockedCopy<kPortable>(c, n, cb, copy.get(), 0, c.in_points / c.len[c.r - 1]);
      have_copy = plane_id;
    }
    const int64_t first = chunk * c.chunk_pts;
    const int64_t last = std::min(c.out_points, first + c.chunk_pts);
    if (keep_taps) {
      const int64_t key = n * c.chunks + chunk;
      if (key != have_taps) {
        for (int64_t p0 = first; p0 < last; p0 += kSub) {
          BlockedTaps(c, wk, n, p0, std::min(kSub, last - p0), p0 - first);
        }
        have_taps = key;
      }
      BlockedChannels<NT, kPortable>(c, wk, plane, n, cb, first, 0, last - first);
    } else {
      for (int64_t p0 = first; p0 < last; p0 += kSub) {
        const int64_t cnt = std::min(kSub, last - p0);
        BlockedTaps(c, wk, n, p0, cnt, 0);
        BlockedChannels<NT, kPortable>(c, wk, plane, n, cb, p0, 0, cnt);
      }
    }
  }
  if (c.stream) hwy::FlushStream();  // non-temporal stores visible before the caller reads
}

template <bool kPortable>
void RunBlockedP(const BlockedRun& c, int64_t begin, int64_t end) {
  switch (c.NT) {
    case 1: RunBlockedT<1, kPortable>(c, begin, end); break;
    case 4: RunBlockedT<4, kPortable>(c, begin, end); break;
    case 8: RunBlockedT<8, kPortable>(c, begin, end); break;
    case 16: RunBlockedT<16, kPortable>(c, begin, end); break;
    default: RunBlockedT<0, kPortable>(c, begin, end); break;
  }
}

/// Items [begin, end): (batch n, channel block cb, chunk of output points).
void RunBlocked(const BlockedRun& c, int64_t begin, int64_t end) {
  if (c.portable_transpose) {
    RunBlockedP<true>(c, begin, end);
  } else {
    RunBlockedP<false>(c, begin, end);
  }
}

/// The shared channel-blocked copies (c.shared), items (plane, part of its rows).
void CopyBlocked(const BlockedRun& c, int64_t begin, int64_t end) {
  const int64_t rows = c.in_points / c.len[c.r - 1];
  for (int64_t item = begin; item < end; ++item) {
    const int64_t plane_id = item / c.copy_parts, part = item % c.copy_parts;
    float* out = c.shared + plane_id * c.in_points * kCB;
    const int64_t row0 = rows * part / c.copy_parts, row1 = rows * (part + 1) / c.copy_parts;
    if (c.portable_transpose) {
      BlockedCopy<true>(c, plane_id / c.cblocks, plane_id % c.cblocks, out, row0, row1);
    } else {
      BlockedCopy<false>(c, plane_id / c.cblocks, plane_id % c.cblocks, out, row0, row1);
    }
  }
}

/// Tests: Transpose16 (portable false) or Transpose16Portable of the tile in (16 x 16,
/// 64-byte aligned) into out; false when this target has no Transpose16.
bool Transpose16Tile(bool portable, const float* in, float* out) {
  if (portable) {
    Transpose16Portable(in, out);
    return true;
  }
  const DB d;
  Row v[16], t[16];
  for (int i = 0; i < 16; ++i) v[i] = LoadRowU(in + 16 * i);
  TransposeRows(v, t);
  for (int i = 0; i < 16; ++i) StoreRow(t[i], out + 16 * i);
  (void)d;
  return true;
}
#else
constexpr bool kHaveBlocked = false;
void RunBlocked(const BlockedRun&, int64_t, int64_t) {
  HWY_ABORT("grid_sample.blocked on a Highway target below AVX2 (its declines and "
            "declines_views decline it)");
}
void CopyBlocked(const BlockedRun&, int64_t, int64_t) {
  HWY_ABORT("grid_sample.blocked on a Highway target below AVX2");
}
bool Transpose16Tile(bool portable, const float* in, float* out) {
  if (!portable) return false;
  Transpose16Portable(in, out);
  return true;
}
#endif

bool HaveBlocked() { return kHaveBlocked; }
}  // namespace HWY_NAMESPACE
}  // namespace gridops::kernels::grid_sample_simd
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace gridops::kernels {
GRIDOPS_GRID_SAMPLE_FAST_PATH(blocked)

namespace grid_sample_simd {
HWY_EXPORT(RunBlocked);
HWY_EXPORT(CopyBlocked);
HWY_EXPORT(HaveBlocked);
HWY_EXPORT(Transpose16Tile);
}  // namespace grid_sample_simd

bool grid_sample_target_has_blocked() {
  return HWY_DYNAMIC_DISPATCH(grid_sample_simd::HaveBlocked)();
}

namespace {

/// Why the path cannot take the views (none) or (should the target have changed since
/// the plan) the CPU's Highway target.
std::string ViewDeclines(const grid_sample_simd::Ctx&) {
  if (!grid_sample_target_has_blocked()) return "the CPU's Highway target is not x86 AVX2 or AVX-512";
  return {};
}

}  // namespace

bool grid_sample_transpose16(bool portable, const float* in, float* out) {
  return HWY_DYNAMIC_DISPATCH(grid_sample_simd::Transpose16Tile)(portable, in, out);
}

/// The largest 16-channel block the blocked path copies (below).
constexpr int64_t kBlockedCopyCap = int64_t{32} << 20;

std::string grid_sample_blocked_declines(const GridSampleProblem& p) {
  std::string why = grid_sample_fast_declines(p);
  if (!why.empty()) return why;
  // NOTE [ GridSample channel blocks ]: channels-first float32 2-D/3-D with at least 8
  // channels, when the output has at least an eighth as many points as the input (the
  // copy costs about one pass over the input).
  const int r = p.spatial_rank;
  if (p.layout == ChannelLayout::kChannelsLast || p.src_dtype != DType::kFloat32) {
    return "channels-first float32 only";
  }
  if (r < 2) return "spatial rank 2 or 3 only";
  if (p.channels < 8) return "fewer than 8 channels";
  if (!grid_sample_target_has_blocked()) return "the CPU's Highway target is not x86 AVX2 or AVX-512";
  // Its copy spans the full input: with an input window the other paths run (the same
  // bits).
  if (!p.window_origin.empty()) return "an input window";
  int64_t in_points = 1, out_points = 1;
  for (int d = 0; d < r; ++d) {
    in_points *= p.in_sizes[static_cast<size_t>(d)];
    out_points *= p.out_sizes[static_cast<size_t>(d)];
  }
  if (in_points * 16 >= (int64_t{1} << 31)) return "input plane of 2^27 points or more";
  if (8 * out_points < in_points) {
    return "fewer than 1/8 as many output points as input points (the copy would not pay)";
  }
  // The copy pays while it stays in the L3 cache: each point then reads its taps' lines
  // from the L3. Past it they come from memory, where the per-channel planes of the gather
  // paths still fit (docs/perf/grid_sample.md, "Channel blocks"; docs/ops/grid_sample.md,
  // step 5).
  if (in_points * 16 * 4 > kBlockedCopyCap) {
    return "a 16-channel block over " + std::to_string(kBlockedCopyCap >> 20) +
           " MiB (its random reads would miss the L3 cache)";
  }
  return {};
}

std::string grid_sample_blocked_declines_views(const GridSampleProblem& p, const void* tables,
                                               const GridSampleViews& v) {
  return grid_sample_path_declines_views(p, tables, v, ViewDeclines);
}

namespace {

void RunBlockedPath(const GridSampleProblem& p, const void* tables, const GridSampleViews& v,
                    bool portable_transpose) {
  namespace gs = grid_sample_simd;
  gs::BlockedRun c{};
  if (!grid_sample_path_begin(p, tables, v, &c)) return;
  c.portable_transpose = portable_transpose;
  c.cblocks = (c.channels + gs::kCB - 1) / gs::kCB;
  const size_t first_spatial = c.channels_last ? 1 : 2;
  for (int d = 0; d < c.r; ++d) c.s_spatial[d] = v.src.strides[first_spatial + static_cast<size_t>(d)];
  // The split for the thread count (it never changes a result).
  const int64_t threads = std::max(1, get_num_threads());
  const int64_t planes = c.batch * c.cblocks;
  // Enough items for an even split: each (n, cb) in ceil(2 * threads / planes) chunks.
  c.chunks = std::max<int64_t>(1, (2 * threads + planes - 1) / planes);
  const int64_t subs = (c.out_points + gs::kSub - 1) / gs::kSub;
  c.chunks = std::min(c.chunks, subs);
  c.chunk_pts = (subs + c.chunks - 1) / c.chunks * gs::kSub;
  c.chunks = (c.out_points + c.chunk_pts - 1) / c.chunk_pts;
  // Taps of a whole chunk kept across channel blocks when they take at most 1 MiB.
  c.P = c.chunk_pts * (c.NT + 1) * 8 <= (int64_t{1} << 20) && c.cblocks > 1 ? c.chunk_pts
                                                                            : gs::kSub;
  int64_t dense = gs::kCB;
  for (int d = c.r - 1; d >= 0; --d) {
    c.sstride[d] = static_cast<int32_t>(dense);
    dense *= c.len[d];
  }
  // Each thread copies the (n, cb) blocks of its own items into its own scratch, which
  // stays in its L2 when small. With several chunks per block (fewer blocks than 2 per
  // thread) the copies are made first by all threads together into one shared buffer
  // instead, so that no block is copied twice.
  hwy::AlignedFreeUniquePtr<float[]> shared;
  c.shared = nullptr;
  if (c.chunks > 1) {
    shared = hwy::AllocateAligned<float>(static_cast<size_t>(planes * c.in_points * gs::kCB));
    if (!shared) throw std::bad_alloc();
    c.shared = shared.get();
    const int64_t rows = c.in_points / c.len[c.r - 1];
    c.copy_parts = std::min<int64_t>(rows, 4 * threads);
    const auto copy_blocked = HWY_DYNAMIC_DISPATCH(gs::CopyBlocked);
    const int64_t per_part = c.in_points * gs::kCB / c.copy_parts;
    parallel_for(planes * c.copy_parts, std::max<int64_t>(1, (int64_t{1} << 16) / per_part),
                 [&](int64_t b, int64_t e) { copy_blocked(c, b, e); });
  }
  const auto run_blocked = HWY_DYNAMIC_DISPATCH(gs::RunBlocked);
  // Small problems stay on one thread, as in grid_sample_fast_run_items. With enough batch
  // items and a chunk's taps kept across channel blocks, a range of items covers every
  // channel block of a batch item, so that its taps are reused whatever chunks
  // parallel_for hands out; without that, single items balance the threads better
  // (docs/perf/grid_sample.md, "Channel blocks").
  const int64_t per_item = std::min(c.chunk_pts, c.out_points) * gs::kCB * c.NT;
  int64_t grain = std::max<int64_t>(1, (int64_t{1} << 17) / per_item);
  if (c.chunks == 1 && c.batch >= 2 * threads && c.P == c.chunk_pts) {
    grain = std::max(grain, c.cblocks);
  }
  parallel_for(planes * c.chunks, grain, [&](int64_t b, int64_t e) { run_blocked(c, b, e); });
  grid_sample_fast_finish(p, tables, v);
}

}  // namespace

void grid_sample_blocked_run(const GridSampleProblem& p, const void* tables,
                             const GridSampleViews& v) {
  RunBlockedPath(p, tables, v, false);
}

void grid_sample_blocked_portable_transpose_run(const GridSampleProblem& p, const void* tables,
                                                const GridSampleViews& v) {
  RunBlockedPath(p, tables, v, true);
}

}  // namespace gridops::kernels
#endif  // HWY_ONCE
