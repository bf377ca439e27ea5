// GridSample's uint8 few-channel path: 2-D warps of uint8 images with 1 to 4 channels
// (the image-augmentation case), Highway SIMD with dynamic dispatch, threaded over output
// rows through parallel_for. See docs/ops/grid_sample.md, "uint8 few-channel path".
//
// NOTE [ GridSample uint8 few-channel path ]
// Work items are output rows (n, y_out); each is computed by one thread, vectors of points
// always start at x_out = 0 (the tile fields allow other item shapes), so results never depend on the thread count. Per vector of
// points (lanes = float32 lanes):
//   1. the (x, y) grid values (deinterleaved from one load when the grid is dense), the
//      unnormalized coordinates with the reference's operation sequence (no FMA), and per
//      axis the taps in float: nearest rounds half to even; linear takes floor, t = x - f,
//      weights 1 - t and t. Zeros and border padding are done in the vector (a tap outside
//      under zeros gets weight 0; border clamps). Lanes with a non-finite coordinate, one
//      with |x| >= 2^22, or (reflection) a tap outside the input are redone one by one with
//      the reference's own per-axis taps (ref_taps::axis_taps), so ERRATA GridSample 8 and
//      reflection of any distance are exactly the reference's.
//   2. Linear: the two taps of an axis are put on a pair of consecutive columns (rows)
//      `base`, `base + 1` (padding maps two consecutive integers on equal or consecutive
//      indices; weights landing on the same index are summed), so one 32-bit gather at a
//      pixel's byte offset brings both columns of a channels-first row, and (AVX2 and
//      AVX-512) one 64-bit gather both pixels of a channels-last pair. A read whose 4 or 8
//      bytes would pass the last byte src reaches is moved back and the word shifted, so
//      nothing outside src is read.
//   3. Per channel: the bytes widened to float, acc = sum w_k v_k (FMA), truncated toward
//      zero and saturated to [0, 255] (ERRATA GridSample 7), stored as bytes
//      (channels-last: each point's channels packed into a word, the words of a 128-bit
//      block compacted by one byte shuffle). Nearest selects the byte (0 outside under
//      zeros).
// Nearest gives the reference's bits. Linear: the reference sums the same 4 products in
// float without FMA and with tap weights unsummed; both are within a few 2^-24 relative of
// the exact sum, so after truncation they differ by at most 1 (docs/ops/grid_sample.md).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <utility>

#include <hwy/aligned_allocator.h>
#include <hwy/cache_control.h>

#include "gridops/parallel.h"
#include "kernels/grid_sample/grid_sample.h"
#include "kernels/grid_sample/grid_sample_taps.h"
#include "kernels/grid_sample/grid_sample_u8.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/grid_sample/grid_sample_u8_hwy.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include "core/vec_array_hwy-inl.h"
#include "kernels/grid_sample/grid_sample_u8_ctx.h"
#include "kernels/grid_sample/grid_sample_u8_hwy-inl.h"

HWY_BEFORE_NAMESPACE();
namespace gridops::kernels::grid_sample_simd {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

/// The source prefetch of smooth grids. At one thread the 3 MiB source of W2 does not fit
/// the 1 MiB L2, and most of the time of the whole-pixel gathers went to waiting on L3
/// (perf: ~75% of the samples on the gather). A smooth grid's row oy + pf_rows reads about
/// the same source pixels as row oy moved by one offset, so each vector prefetches its own
/// offsets moved by that: for the row, the move of its first, middle and last points, used
/// only when the three agree within kPfAgree pixels and are within kPfGate pixels (a random
/// grid's rows fail this and prefetch nothing). Measured, not assumed: see
/// docs/ops/grid_sample.md, "uint8 few-channel path".
constexpr float kPfGate = 32.0f;
constexpr float kPfAgree = 4.0f;

/// The offset move of row `grow` over c.pf_rows rows into `delta`, or false where the row
/// is not smooth enough for it (above).
HWY_INLINE bool RowShift(const U8Ctx& c, int64_t oy, const float* grow, int32_t& delta) {
  const float sx = c.pixels ? 1.0f : 0.5f * static_cast<float>(c.len[1]);
  const float sy = c.pixels ? 1.0f : 0.5f * static_cast<float>(c.len[0]);
  // A displacement's rows move by their bases too.
  const float by = c.displacement ? (c.base[0][oy + c.pf_rows] - c.base[0][oy]) * sy : 0.0f;
  float dx[3], dy[3];
  int k = 0;
  for (int64_t x : {int64_t{0}, c.Wo / 2, c.Wo - 1}) {
    const float* g = grow + x * 2;
    const float* f = g + c.pf_rows * c.gy;
    dx[k] = (f[0] - g[0]) * sx;
    dy[k] = (f[1] - g[1]) * sy + by;
    if (!(std::abs(dx[k]) < kPfGate && std::abs(dy[k]) < kPfGate)) return false;
    ++k;
  }
  const float mx = (dx[0] + dx[1] + dx[2]) / 3.0f, my = (dy[0] + dy[1] + dy[2]) / 3.0f;
  for (int i = 0; i < 3; ++i) {
    if (!(std::abs(dx[i] - mx) < kPfAgree && std::abs(dy[i] - my) < kPfAgree)) return false;
  }
  const int64_t d = static_cast<int64_t>(std::lround(my)) * c.sy + static_cast<int64_t>(std::lround(mx)) * c.sx;
  delta = static_cast<int32_t>(std::clamp<int64_t>(d, -int64_t{c.lim}, int64_t{c.lim}));
  return true;
}

/// Prefetches the source at every 4th lane (linear: two rows of taps) or 8th (nearest) of
/// `off` + `delta`, clamped into the source (A/B in docs/ops/grid_sample.md).
HWY_INLINE void PrefetchShift(const U8Ctx& c, VI off, VI delta) {
  const DI di;
  const VI o = hn::Min(hn::Max(hn::Add(off, delta), hn::Zero(di)), hn::Set(di, c.lim));
  HWY_ALIGN int32_t ov[kMaxLanes];
  hn::Store(o, di, ov);
  const size_t step = c.nearest ? 8 : 4;
  for (size_t k = 0; k < hn::Lanes(di); k += step) hwy::Prefetch(c.src + ov[k]);
}

/// Items [begin, end) of (batch, tile) with kC channels. Over 150 lines: one loop over a
/// tile's rows whose per-row tap vectors, the prefetch state and the word stores share
/// registers; split into functions, they would go through memory in the hot loop.
template <int kC>
void RunRowsC(const U8Ctx& c, int64_t begin, int64_t end) {
  constexpr int C = kC;
  const DF df;
  const DI di;
  const size_t L = hn::Lanes(df);
  HWY_ALIGN float tx[kMaxLanes], ty[kMaxLanes];
  const VI ey1 = hn::Set(di, static_cast<int32_t>(c.ext[0] - 1));
  const VI ex1 = hn::Set(di, static_cast<int32_t>(c.ext[1] - 1));
  const VI sy = hn::Set(di, static_cast<int32_t>(c.sy));
  const VI sx = hn::Set(di, static_cast<int32_t>(c.sx));
  const VI one = hn::Set(di, 1);
  // StoreWords' shuffle: in each block, bytes 0..C-1 of its 4 words, then zeros.
  HWY_ALIGN uint8_t pack[HWY_MAX_BYTES];
  for (size_t k = 0; k < sizeof(pack); ++k) {
    const size_t j = k % 16;
    pack[k] = j < 4 * static_cast<size_t>(C)
                  ? static_cast<uint8_t>(j / static_cast<size_t>(C) * 4 + j % static_cast<size_t>(C))
                  : 0x80;
  }
  // StoreWords' permutation: lane i takes lane i % C of block i / C (the rest: anything).
  HWY_ALIGN int32_t perm[kMaxLanes];
  for (size_t i = 0; i < kMaxLanes; ++i) {
    const auto Cs = static_cast<size_t>(C);
    perm[i] = static_cast<int32_t>(i < Cs * (L / 4) ? i / Cs * 4 + i % Cs : i % L);
  }
  // StorePlanarWords' shuffle: in each block, byte ch * 4 + p takes byte p * 4 + ch (the
  // channel-ch byte of its word p), and its permutation: dword ch * (L / 4) + b takes dword
  // ch of block b (the rest: anything).
  HWY_ALIGN uint8_t planar_pack[HWY_MAX_BYTES];
  for (size_t k = 0; k < sizeof(planar_pack); ++k) {
    const size_t j = k % 16;
    planar_pack[k] = static_cast<uint8_t>(j % 4 * 4 + j / 4);
  }
  HWY_ALIGN int32_t planar_perm[kMaxLanes];
  for (size_t i = 0; i < kMaxLanes; ++i) {
    const size_t blocks = std::max<size_t>(1, L / 4);
    planar_perm[i] = static_cast<int32_t>(i < L ? i % blocks * 4 + i / blocks : 0);
  }
  const bool word_store = c.channels_last && c.dst_dense;
  const bool planar_store = !c.channels_last && c.dst_dense;
  const auto L4 = 4 * static_cast<int64_t>(L);  // bytes of a vector of words
  const int64_t tiles = c.tiles_y * c.tiles_x;
  for (int64_t item = begin; item < end; ++item) {
    const int64_t n = item / tiles, trow = item % tiles / c.tiles_x, tcol = item % c.tiles_x;
    const int64_t y_end = std::min(c.Ho, (trow + 1) * c.tile_h);
    const int64_t x_begin = tcol * c.tile_w, x_end = std::min(c.Wo, x_begin + c.tile_w);
    for (int64_t oy = trow * c.tile_h; oy < y_end; ++oy) {
    const float* grow = c.grid + n * c.gb + oy * c.gy;
    uint8_t* drow = c.dst + n * c.db + oy * c.dy;
    const VI nb = hn::Set(di, static_cast<int32_t>(c.bias + n * c.sb));
    int32_t shift = 0;
    const bool pf_row = c.pf_rows > 0 && oy + c.pf_rows < c.Ho && RowShift(c, oy, grow, shift);
    const VI vshift = hn::Set(di, shift);
    for (int64_t ox = x_begin; ox < x_end; ox += static_cast<int64_t>(L)) {
      const size_t count = static_cast<size_t>(std::min<int64_t>(static_cast<int64_t>(L), x_end - ox));
      VF gxv, gyv;
      if (c.grid_dense && count == L) {
        hn::LoadInterleaved2(df, grow + ox * 2, gxv, gyv);
      } else {
        for (size_t i = 0; i < L; ++i) {
          const float* g = grow + (ox + static_cast<int64_t>(i)) * c.gx;
          tx[i] = i < count ? g[0] : 0.0f;
          ty[i] = i < count ? g[c.gc] : 0.0f;
        }
        gxv = hn::Load(df, tx);
        gyv = hn::Load(df, ty);
      }
      if (c.displacement) {  // FillGrid's arithmetic: g + base in float
        gxv = hn::Add(gxv, hn::LoadU(df, c.base[1] + ox));
        gyv = hn::Add(gyv, hn::Set(df, c.base[0][oy]));
      }
      const VF X = c.pixels ? gxv : Unnormalize(gxv, c.len[1], c.align_corners);
      const VF Y = c.pixels ? gyv : Unnormalize(gyv, c.len[0], c.align_corners);
      VI4 out;
      for (int ch = 0; ch < 4; ++ch) out[ch] = hn::Zero(di);
      if (c.nearest) {
        VI ix, iy, inx, iny;
        NearestAxis(c, 1, X, ix, inx);
        NearestAxis(c, 0, Y, iy, iny);
        const VI inside = hn::And(inx, iny);
        const VI row = hn::Add(nb, hn::Mul(iy, sy));
        if (c.fetch == Fetch::kPixel) {
          const VI poff = hn::Add(row, hn::Mul(ix, sx));
          if (pf_row && count == L) {
            PrefetchShift(c, poff, vshift);
          }
          const VI w = hn::And(Word(c, poff), inside);
          if (word_store && count == L) {
            StoreWords(C, drow + ox * C, w, pack, perm, (x_end - ox) * C >= L4);
            continue;
          }
          if (planar_store && count == L) {
            StorePlanarWords(c, C, drow, ox, w, planar_pack, planar_perm);
            continue;
          }
          for (int ch = 0; ch < C; ++ch) out[ch] = ByteIN(w, ch);
        } else {
          const VI px = hn::Add(row, hn::Mul(ix, sx));
          for (int ch = 0; ch < C; ++ch) {
            const VI w = Word(c, hn::Add(px, hn::Set(di, static_cast<int32_t>(ch * c.sc))));
            out[ch] = hn::And(hn::And(w, inside), hn::Set(di, 0xFF));
          }
        }
        StoreOut(c, C, drow, ox, count, out);
        continue;
      }
      VI bx, by;
      VF wx0, wx1, wy0, wy1;
      LinearAxis(c, 1, X, bx, wx0, wx1);
      LinearAxis(c, 0, Y, by, wy0, wy1);
      // Product of the axis weights in the reference's order (y first).
      const VF w00 = hn::Mul(wy0, wx0), w01 = hn::Mul(wy0, wx1);
      const VF w10 = hn::Mul(wy1, wx0), w11 = hn::Mul(wy1, wx1);
      const VI r0 = hn::Add(nb, hn::Mul(by, sy));
      const VI r1 = hn::Add(nb, hn::Mul(hn::Min(hn::Add(by, one), ey1), sy));
      VF4 v00, v01, v10, v11;
      if (c.fetch == Fetch::kPixel) {
        const VI x0 = hn::Mul(bx, sx);
        if (pf_row && count == L) {
          PrefetchShift(c, hn::Add(r0, x0), vshift);
        }
#ifdef GRIDOPS_U8_PAIR64
        VI a0, a1, b0, b1;
        PixelPair(c, C, hn::Add(r0, x0), a0, a1);
        PixelPair(c, C, hn::Add(r1, x0), b0, b1);
#else
        const VI x1 = hn::Mul(hn::Min(hn::Add(bx, one), ex1), sx);
        const VI a0 = Word(c, hn::Add(r0, x0)), a1 = Word(c, hn::Add(r0, x1));
        const VI b0 = Word(c, hn::Add(r1, x0)), b1 = Word(c, hn::Add(r1, x1));
#endif
        for (int ch = 0; ch < C; ++ch) {
          v00[ch] = ByteN(a0, ch);
          v01[ch] = ByteN(a1, ch);
          v10[ch] = ByteN(b0, ch);
          v11[ch] = ByteN(b1, ch);
        }
      } else if (c.fetch == Fetch::kPair) {
        const VI o0 = hn::Add(r0, bx), o1 = hn::Add(r1, bx);
        for (int ch = 0; ch < C; ++ch) {
          const VI co = hn::Set(di, static_cast<int32_t>(ch * c.sc));
          const VI a = Word(c, hn::Add(o0, co)), b = Word(c, hn::Add(o1, co));
          v00[ch] = Byte<0>(a);
          v01[ch] = Byte<1>(a);
          v10[ch] = Byte<0>(b);
          v11[ch] = Byte<1>(b);
        }
      } else {
        const VI x0 = hn::Mul(bx, sx), x1 = hn::Mul(hn::Min(hn::Add(bx, one), ex1), sx);
        for (int ch = 0; ch < C; ++ch) {
          const VI co = hn::Set(di, static_cast<int32_t>(ch * c.sc));
          const VI a = hn::Add(r0, co), b = hn::Add(r1, co);
          v00[ch] = Byte<0>(Word(c, hn::Add(a, x0)));
          v01[ch] = Byte<0>(Word(c, hn::Add(a, x1)));
          v10[ch] = Byte<0>(Word(c, hn::Add(b, x0)));
          v11[ch] = Byte<0>(Word(c, hn::Add(b, x1)));
        }
      }
      for (int ch = 0; ch < C; ++ch) {
        VF acc = hn::Mul(w00, v00[ch]);
        acc = hn::MulAdd(w01, v01[ch], acc);
        acc = hn::MulAdd(w10, v10[ch], acc);
        acc = hn::MulAdd(w11, v11[ch], acc);
        // Truncation toward zero (convert::store). No saturation needed: the weights are
        // >= 0 and sum to at most 1 + a few 2^-24 (per axis (1 - t) + t, or the reference's
        // weights), so 0 <= acc < 255.001 and the result is already in [0, 255] (the
        // all-255 test images check the top).
        out[ch] = TruncI(acc);
      }
      if ((word_store || planar_store) && count == L) {
        VI w = out[0];
        for (int ch = 1; ch < C; ++ch) w = hn::Or(w, hn::ShiftLeftSame(out[ch], 8 * ch));
        if (word_store) {
          StoreWords(C, drow + ox * C, w, pack, perm, (x_end - ox) * C >= L4);
        } else {
          StorePlanarWords(c, C, drow, ox, w, planar_pack, planar_perm);
        }
        continue;
      }
      StoreOut(c, C, drow, ox, count, out);
    }
    }
  }
}

/// NOTE [ GridSample uint8 channel count ]: the rows with the channel count as a
/// compile-time constant, so that the per-channel loops unroll and their vectors stay in
/// registers.
void RunRows(const U8Ctx& c, int64_t begin, int64_t end) {
  switch (c.C) {
    case 1: return RunRowsC<1>(c, begin, end);
    case 2: return RunRowsC<2>(c, begin, end);
    case 3: return RunRowsC<3>(c, begin, end);
    default: return RunRowsC<4>(c, begin, end);
  }
}

#undef GRIDOPS_U8_PAIR64

/// NOTE [ GridSample uint8 interleaved copy ]: rows [begin, end) of the (n, y) rows of a
/// channels-first src with unit x stride (Fetch::kPair), written channels-last and packed
/// (C bytes per pixel, rows of ext_x pixels) to `out`, so that the kPixel reads bring all
/// of a pixel's channels with one word.
void InterleaveRows(const U8Ctx& c, uint8_t* out, int64_t begin, int64_t end) {
  const hn::ScalableTag<uint8_t> d8;
  const size_t L = hn::Lanes(d8);
  const int64_t W = c.ext[1], H = c.ext[0];
  const int C = c.C;
  for (int64_t r = begin; r < end; ++r) {
    const int64_t n = r / H, y = r % H;
    const uint8_t* p[4];
    for (int ch = 0; ch < C; ++ch) p[ch] = c.src + c.bias + n * c.sb + ch * c.sc + y * c.sy;
    uint8_t* o = out + r * W * C;
    int64_t x = 0;
    for (; x + static_cast<int64_t>(L) <= W; x += static_cast<int64_t>(L)) {
      const auto v0 = hn::LoadU(d8, p[0] + x), v1 = hn::LoadU(d8, p[1] + x);
      uint8_t* d = o + C * x;
      switch (C) {
        case 2: hn::StoreInterleaved2(v0, v1, d8, d); break;
        case 3: hn::StoreInterleaved3(v0, v1, hn::LoadU(d8, p[2] + x), d8, d); break;
        default:
          hn::StoreInterleaved4(v0, v1, hn::LoadU(d8, p[2] + x), hn::LoadU(d8, p[3] + x), d8, d);
          break;
      }
    }
    for (; x < W; ++x) {
      for (int ch = 0; ch < C; ++ch) o[x * C + ch] = p[ch][x];
    }
  }
}

// NOLINTNEXTLINE(google-readability-namespace-comments)
}  // namespace HWY_NAMESPACE
}  // namespace gridops::kernels::grid_sample_simd
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace gridops::kernels {
namespace grid_sample_simd {
HWY_EXPORT(RunRows);
HWY_EXPORT(InterleaveRows);
}  // namespace grid_sample_simd

std::string grid_sample_u8_declines(const GridSampleProblem& p) {
  if (p.spatial_rank != 2) {
    return "spatial rank " + std::to_string(p.spatial_rank) + " (uint8 path: 2)";
  }
  if (p.src_dtype != DType::kUInt8) {
    return std::string("src dtype ") + to_string(p.src_dtype) + " (uint8 path: uint8)";
  }
  if (p.grid_dtype != DType::kFloat32) {
    return std::string("grid dtype ") + to_string(p.grid_dtype) + " (uint8 path: float32)";
  }
  if (p.channels < 1 || p.channels > 4) {
    return std::to_string(p.channels) + " channels (uint8 path: 1 to 4)";
  }
  if (p.mode == InterpolationMode::kCubic) return "mode cubic (uint8 path: linear, nearest)";
  if (p.padding == GridPadding::kWrap) return "padding_mode wrap (uint8 path: not yet)";
  for (int64_t len : p.in_sizes) {
    // Tap indices are int32, computed in float (exact below 2^24).
    if (len < 1 || len >= (int64_t{1} << 22)) {
      return "input axis of length " + std::to_string(len) + " (uint8 path: 1 to 2^22-1)";
    }
  }
  return {};
}

namespace {

/// The lowest (non-positive) and highest byte offsets src reaches from its element 0.
std::pair<int64_t, int64_t> SrcReach(const GridSampleProblem& p, const TensorView& src) {
  const bool last = p.layout == ChannelLayout::kChannelsLast;
  const size_t ca = last ? 3 : 1, ya = last ? 1 : 2, xa = last ? 2 : 3;
  const bool windowed = !p.window_origin.empty();
  int64_t lo = 0, hi = 0;
  for (const auto& [size, stride] :
       {std::pair{p.batch, src.strides[0]}, std::pair{p.channels, src.strides[ca]},
        std::pair{windowed ? p.window_extent[0] : p.in_sizes[0], src.strides[ya]},
        std::pair{windowed ? p.window_extent[1] : p.in_sizes[1], src.strides[xa]}}) {
    (stride < 0 ? lo : hi) += (size - 1) * stride;
  }
  return {lo, hi};
}

}  // namespace

std::shared_ptr<const void> grid_sample_u8_prepare(const GridSampleProblem& p) {
  auto t = std::make_shared<GridSampleU8Tables>();
  const int64_t ho = p.out_sizes[0], wo = p.out_sizes[1];
  const int64_t in_px =
      p.batch * (p.window_origin.empty() ? p.in_sizes[0] * p.in_sizes[1]
                                         : p.window_extent[0] * p.window_extent[1]);
  // NOTE [ GridSample uint8 interleaved copy ]: when the output has at least half as many
  // points as the input pixels and the copy stays in int32 offsets.
  t->interleave = p.layout == ChannelLayout::kChannelsFirst && p.channels >= 2 &&
                  2 * p.batch * ho * wo >= in_px && in_px * p.channels <= (int64_t{1} << 30);
  // Work items are whole output rows (docs/perf/grid_sample.md: tiles measured no faster).
  t->tile_h = 1;
  t->tile_w = wo;
  t->prefetch_rows = 4;
  if (p.kind == GridKind::kDisplacement) {
    for (int d = 0; d < 2; ++d) t->base[d] = ref_taps::base_table(p, d, 64);
  }
  return t;
}

std::string grid_sample_u8_schedule(const GridSampleProblem&, const void* tables) {
  const auto& t = *static_cast<const GridSampleU8Tables*>(tables);
  return std::string("interleave=") + (t.interleave ? "1" : "0") +
         ", tile=" + std::to_string(t.tile_h) + "x" + std::to_string(t.tile_w) +
         ", prefetch_rows=" + std::to_string(t.prefetch_rows);
}

std::string grid_sample_u8_declines_views(const GridSampleProblem& p, const void*,
                                          const GridSampleViews& v) {
  // Offsets are int32 from the lowest byte src reaches, and a word read needs 8 bytes.
  const auto [lo, hi] = SrcReach(p, v.src);
  const int64_t reach = hi - lo;
  if (reach < 7) return "src reaches fewer than 8 bytes";
  if (reach > (int64_t{1} << 30)) return "src reaches over 2^30 bytes";
  return {};
}

void grid_sample_u8_run(const GridSampleProblem& p, const void* tables,
                        const GridSampleViews& v) {
  const auto& t = *static_cast<const GridSampleU8Tables*>(tables);
  const TensorView& src = v.src;
  const TensorView& grid = v.grid;
  const MutableTensorView& dst = v.dst;
  const bool last = p.layout == ChannelLayout::kChannelsLast;
  const size_t ca = last ? 3 : 1, ya = last ? 1 : 2, xa = last ? 2 : 3;
  // Constant runs the kernel with zeros and fill with border, then the finishing pass
  // (grid_sample_finish_pass) adds the fill value's share or writes it.
  GridSampleProblem pk = p;
  if (p.padding == GridPadding::kConstant) pk.padding = GridPadding::kZeros;
  if (p.padding == GridPadding::kFill) pk.padding = GridPadding::kBorder;
  grid_sample_simd::U8Ctx c{};
  c.p = &pk;
  c.nearest = p.mode == InterpolationMode::kNearest;
  c.padding = pk.padding;
  c.align_corners = p.align_corners;
  c.channels_last = last;
  c.C = static_cast<int>(p.channels);
  const bool windowed = !p.window_origin.empty();
  c.windowed = windowed;
  for (int a = 0; a < 2; ++a) {
    const auto i = static_cast<size_t>(a);
    c.len[a] = p.in_sizes[i];
    c.origin[a] = windowed ? p.window_origin[i] : 0;
    c.ext[a] = windowed ? p.window_extent[i] : p.in_sizes[i];
  }
  c.sb = src.strides[0];
  c.sc = src.strides[ca];
  c.sy = src.strides[ya];
  c.sx = src.strides[xa];
  // Offsets are int32 from the lowest byte src reaches (negative strides included), so
  // that every offset is non-negative (grid_sample_u8_declines_views took the reach).
  const auto [lo, hi] = SrcReach(p, src);
  const int64_t reach = hi - lo;
  c.src = static_cast<const uint8_t*>(src.data) + lo;
  c.bias = -lo;
  c.lim = static_cast<int32_t>(reach - 3);
  c.lim8 = static_cast<int32_t>(reach - 7);
  using grid_sample_simd::Fetch;
  c.fetch = !last && c.sx == 1                        ? Fetch::kPair
            : last && c.sc == 1 && c.sx == p.channels ? Fetch::kPixel
                                                      : Fetch::kGeneric;
  c.grid = static_cast<const float*>(grid.data);
  c.gb = grid.strides[0];
  c.gy = grid.strides[1];
  c.gx = grid.strides[2];
  c.gc = grid.strides[3];
  c.grid_dense = c.gc == 1 && c.gx == 2;
  c.dst = static_cast<uint8_t*>(dst.mutable_data());
  c.db = dst.strides[0];
  c.dc = dst.strides[ca];
  c.dy = dst.strides[ya];
  c.dx = dst.strides[xa];
  c.dst_dense = last ? (c.dc == 1 && c.dx == p.channels) : c.dx == 1;
  c.Ho = p.out_sizes[0];
  c.Wo = p.out_sizes[1];
  if (p.batch == 0 || c.Ho == 0 || c.Wo == 0) return;
  c.tile_h = t.tile_h;
  c.tile_w = t.tile_w;
  c.tiles_y = (c.Ho + c.tile_h - 1) / c.tile_h;
  c.tiles_x = (c.Wo + c.tile_w - 1) / c.tile_w;
  const int64_t items = p.batch * c.tiles_y * c.tiles_x;
  const auto run = HWY_DYNAMIC_DISPATCH(grid_sample_simd::RunRows);
  // NOTE [ GridSample uint8 interleaved copy ]: channels-first src with 2 to 4 channels is
  // first copied channels-last (packed), in parallel over its rows, and read as kPixel
  // (one gather per point and row for all channels, instead of one per channel); dst stays
  // channels-first. Where the tables take it (t.interleave) and src has a unit x stride;
  // see docs/ops/grid_sample.md, "uint8 few-channel path".
  hwy::AlignedFreeUniquePtr<uint8_t[]> packed;
  const int64_t in_px = p.batch * c.ext[0] * c.ext[1];
  if (c.fetch == Fetch::kPair && t.interleave) {
    const int64_t bytes = in_px * c.C;
    packed = hwy::AllocateAligned<uint8_t>(static_cast<size_t>(bytes + 8));
    if (packed) {
      const auto interleave = HWY_DYNAMIC_DISPATCH(grid_sample_simd::InterleaveRows);
      uint8_t* out = packed.get();
      const int64_t row_grain = std::max<int64_t>(1, (int64_t{1} << 16) / (c.ext[1] * c.C));
      parallel_for(p.batch * c.ext[0], row_grain,
                   [&](int64_t b, int64_t e) { interleave(c, out, b, e); });
      std::memset(out + bytes, 0, 8);
      c.fetch = Fetch::kPixel;
      c.src = out;
      c.bias = 0;
      c.sb = c.ext[0] * c.ext[1] * c.C;
      c.sc = 1;
      c.sy = c.ext[1] * c.C;
      c.sx = c.C;
      // Reads may start at any pixel: the 8 bytes after the copy are readable.
      c.lim = static_cast<int32_t>(bytes - 1);
      c.lim8 = c.lim;
    }
  }
  // Source prefetch t.prefetch_rows rows ahead on the whole-pixel (kPixel) paths, the only
  // ones that prefetch, where the grid is dense (RowShift reads it row by row;
  // PrefetchShift picks the lanes; docs/ops/grid_sample.md, "uint8 few-channel path"). The
  // plane paths skip RowShift's grid loads.
  c.pf_rows = c.fetch == Fetch::kPixel && c.grid_dense ? t.prefetch_rows : 0;
  c.pixels = p.units == GridUnits::kPixels;
  c.displacement = p.kind == GridKind::kDisplacement;
  c.base[0] = c.displacement ? t.base[0].data() : nullptr;
  c.base[1] = c.displacement ? t.base[1].data() : nullptr;
  // About 64 Ki output elements per chunk: small problems stay on one thread.
  const int64_t grain =
      std::max<int64_t>(1, (int64_t{1} << 16) / (c.tile_h * c.tile_w * p.channels));
  parallel_for(items, grain, [&](int64_t b, int64_t e) { run(c, b, e); });
  GridSampleFinishGeometry g;
  g.out_points = c.Ho * c.Wo;
  g.pixels = c.pixels;
  g.displacement = c.displacement;
  for (int d = 0; d < 2; ++d) {
    g.out_sizes[d] = p.out_sizes[static_cast<size_t>(d)];
    g.len[d] = p.in_sizes[static_cast<size_t>(d)];
    g.base[d] = c.base[d];
  }
  grid_sample_finish_pass(p, g, v);
}

}  // namespace gridops::kernels
#endif  // HWY_ONCE
