// The AffineGrid fast kernel: Highway (every target it supports, chosen at run time),
// threaded through parallel_for, bit-identical to the reference.
//
// NOTE [ AffineGrid fast path ]
// The grid is a sequence of rows (one per (n, d, h)), each holding W points of r
// interleaved values (x-, y-[, z-] component k = 0..r-1). Along a row only x changes, so
// with the per-row constants
//     py[k] = theta[k][1] * y_h,  pz[k] = theta[k][2] * z_d  (products rounded on their own)
// element (w, k) is  ((theta[k][0] * x_w + py[k]) [+ pz[k]]) + theta[k][r]  — the order of
// NOTE [ AffineGrid arithmetic ] exactly. The row is processed as a flat array of W * r
// elements: r consecutive vectors of N lanes hold N whole points, so lane i of vector v
// belongs to component k = (v * N + i) % r, and the per-component constants become r
// "pattern" vectors. x_w comes from a table repeated r times (xr[w * r + k] = x_w) that
// the plan precomputes, so the inner loop is: load xr, Mul, 2-3 Adds, store.
//
// Bit-exactness needs every product rounded before it is added. GCC implements the x86
// Mul/Add intrinsics as plain vector arithmetic and, with -ffp-contract=fast (its default
// for C++), fuses Mul followed by Add into FMA on targets that have it (AVX2, AVX-512):
// checked with objdump on GCC 12. Hence the pragma below, which turns contraction off
// for every function of this file (and only this file).
//
// Work items are (row, segment) pairs, a segment being up to kSegPoints points, so that a
// single long row still spreads over threads; each grid element belongs to exactly one
// item, and its value does not depend on which thread computes it, so any thread count
// gives the same bits. float16/bfloat16 rows are computed in float into a buffer and
// rounded once by the bulk converters (bit-identical to the scalar ones). Rows that are
// not contiguous in memory go through the same buffer and are scattered element by
// element. A grid view whose elements may alias (a zero stride on an axis longer than 1,
// or interleaving strides) is handed to the reference: there the last write in row-major
// order defines the result, which a threaded kernel could not reproduce.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("fp-contract=off")
#endif

#include <algorithm>
#include <cassert>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <type_traits>

#include "core/convert.h"
#include "gridops/dtype.h"
#include "gridops/parallel.h"
#include "core/coords.h"
#include "kernels/affine_grid/affine_grid.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/affine_grid/affine_grid_hwy.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/cache_control.h>
#include <hwy/highway.h>

#if defined(__clang__)
#pragma clang fp contract(off)
#endif

#ifndef GRIDOPS_AFFINE_GRID_HWY_SHARED
#define GRIDOPS_AFFINE_GRID_HWY_SHARED
namespace gridops::kernels::affine_grid_detail {

/// Points per work item (one segment of a row); a multiple of every vector length.
inline constexpr int64_t kSegPoints = 512;
/// Elements per parallel_for grain: below about this many, one thread is faster.
inline constexpr int64_t kGrainElements = 32768;
/// Grids of at least this many bytes are written with streaming stores (bigger than a
/// core's L2 on current x86 parts, so the lines would leave the cache before reuse).
inline constexpr int64_t kStreamBytes = int64_t{4} << 20;
/// Largest vector, in bytes, of any target (SVE/RVV allow 256).
inline constexpr size_t kMaxVectorBytes = 256;

/// Everything a per-target run needs; built once per run in the dispatching code.
struct RunArgs {
  const AffineGridProblem* p;
  const AffineGridTables* tables;
  const TensorView* theta;
  const MutableTensorView* grid;
  int r;
  int64_t D, H, W;  // D = 1 for 2-D
  int64_t rows, nseg, items;
  // Grid strides in elements: batch, d, h, w, k (sd = 0 for 2-D).
  int64_t sn, sd, sh, sw, sk;
  bool row_contiguous;  // sk == 1 and (W == 1 or sw == r)
  bool stream;          // write whole groups with non-temporal stores where aligned
};

}  // namespace gridops::kernels::affine_grid_detail
#endif  // GRIDOPS_AFFINE_GRID_HWY_SHARED

HWY_BEFORE_NAMESPACE();
namespace gridops::kernels::affine_grid_simd {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;
using affine_grid_detail::kMaxVectorBytes;
using affine_grid_detail::kSegPoints;
using affine_grid_detail::RunArgs;

// Per-row pattern vectors (see NOTE [ AffineGrid fast path ]) for component layouts of
// period r; vector v of a group of r holds lanes v*N .. v*N+N-1.
template <class F>
struct Patterns {
  static constexpr size_t kMax = 3 * kMaxVectorBytes / sizeof(F);
  HWY_ALIGN F t0[kMax];  // theta[k][0]
  HWY_ALIGN F t1[kMax];  // theta[k][1]
  HWY_ALIGN F t2[kMax];  // theta[k][2] (3-D)
  HWY_ALIGN F tr[kMax];  // theta[k][r]
};

// Writes np points (np * R elements) of one row starting at out (contiguous). xr is the
// repeated x table at the segment's first point; y, z the row's base coordinates.
template <int R, bool kStream = false, class F>
HWY_INLINE void ComputeSegment(const Patterns<F>& pat, const F* HWY_RESTRICT xr, F y, F z,
                               size_t np, F* HWY_RESTRICT out) {
  const hn::ScalableTag<F> d;
  const size_t N = hn::Lanes(d);
  const auto vy = hn::Set(d, y);
  const auto vz = hn::Set(d, z);
  // Pattern vectors of the group: products t1*y and t2*z are rounded on their own.
  const auto t0a = hn::Load(d, pat.t0), t0b = hn::Load(d, pat.t0 + N);
  const auto tra = hn::Load(d, pat.tr), trb = hn::Load(d, pat.tr + N);
  const auto pya = hn::Mul(hn::Load(d, pat.t1), vy);
  const auto pyb = hn::Mul(hn::Load(d, pat.t1 + N), vy);
  const size_t total = np * R;
  size_t e = 0;
  if constexpr (R == 2) {
    for (; e + 2 * N <= total; e += 2 * N) {
      const auto a = hn::Add(hn::Add(hn::Mul(t0a, hn::LoadU(d, xr + e)), pya), tra);
      const auto b = hn::Add(hn::Add(hn::Mul(t0b, hn::LoadU(d, xr + e + N)), pyb), trb);
      if constexpr (kStream) {
        hn::Stream(a, d, out + e);
        hn::Stream(b, d, out + e + N);
      } else {
        hn::StoreU(a, d, out + e);
        hn::StoreU(b, d, out + e + N);
      }
    }
  } else {
    const auto t0c = hn::Load(d, pat.t0 + 2 * N), trc = hn::Load(d, pat.tr + 2 * N);
    const auto pyc = hn::Mul(hn::Load(d, pat.t1 + 2 * N), vy);
    const auto pza = hn::Mul(hn::Load(d, pat.t2), vz);
    const auto pzb = hn::Mul(hn::Load(d, pat.t2 + N), vz);
    const auto pzc = hn::Mul(hn::Load(d, pat.t2 + 2 * N), vz);
    for (; e + 3 * N <= total; e += 3 * N) {
      const auto a =
          hn::Add(hn::Add(hn::Add(hn::Mul(t0a, hn::LoadU(d, xr + e)), pya), pza), tra);
      const auto b =
          hn::Add(hn::Add(hn::Add(hn::Mul(t0b, hn::LoadU(d, xr + e + N)), pyb), pzb), trb);
      const auto c =
          hn::Add(hn::Add(hn::Add(hn::Mul(t0c, hn::LoadU(d, xr + e + 2 * N)), pyc), pzc), trc);
      if constexpr (kStream) {
        hn::Stream(a, d, out + e);
        hn::Stream(b, d, out + e + N);
        hn::Stream(c, d, out + e + 2 * N);
      } else {
        hn::StoreU(a, d, out + e);
        hn::StoreU(b, d, out + e + N);
        hn::StoreU(c, d, out + e + 2 * N);
      }
    }
  }
  if (e == total) return;
  // Tail: fewer than N points left, starting at a group boundary (so lane patterns line
  // up). Compute one whole group from a zero-padded copy and keep the valid part.
  HWY_ALIGN F xin[Patterns<F>::kMax];
  HWY_ALIGN F res[Patterns<F>::kMax];
  const size_t rest = total - e;
  std::memset(xin, 0, sizeof(xin));
  std::memcpy(xin, xr + e, rest * sizeof(F));
  for (size_t v = 0; v < static_cast<size_t>(R); ++v) {
    const auto t0 = hn::Load(d, pat.t0 + v * N);
    const auto py = hn::Mul(hn::Load(d, pat.t1 + v * N), vy);
    auto acc = hn::Add(hn::Mul(t0, hn::Load(d, xin + v * N)), py);
    if constexpr (R == 3) acc = hn::Add(acc, hn::Mul(hn::Load(d, pat.t2 + v * N), vz));
    hn::Store(hn::Add(acc, hn::Load(d, pat.tr + v * N)), d, res + v * N);
  }
  std::memcpy(out + e, res, rest * sizeof(F));
}

// theta[n] in F, then the pattern arrays for this target's vector length.
template <class T, class F>
void LoadTheta(const RunArgs& a, int64_t n, Patterns<F>& pat) {
  const int r = a.r;
  const auto* base = static_cast<const T*>(a.theta->data);
  const int64_t s0 = a.theta->strides[0], s1 = a.theta->strides[1], s2 = a.theta->strides[2];
  F th[3][4] = {};
  for (int k = 0; k < r; ++k) {
    for (int j = 0; j <= r; ++j) th[k][j] = convert::load_real<F>(base[n * s0 + k * s1 + j * s2]);
  }
  const hn::ScalableTag<F> d;
  const size_t lanes = static_cast<size_t>(r) * hn::Lanes(d);
  for (size_t e = 0; e < lanes; ++e) {
    const size_t k = e % static_cast<size_t>(r);
    pat.t0[e] = th[k][0];
    pat.t1[e] = th[k][1];
    pat.t2[e] = r == 3 ? th[k][2] : F(0);
    pat.tr[e] = th[k][r];
  }
}

template <int R, class T, class F>
void RunItems(const RunArgs& a, int64_t begin, int64_t end) {
  constexpr bool kDirect = std::is_same_v<T, F>;
  const std::vector<F>* xt;
  if constexpr (std::is_same_v<F, float>) xt = a.tables->f32;
  else xt = a.tables->f64;
  const F* xr = xt[0].data();
  const F* ytab = xt[1].data();
  const F* ztab = R == 3 ? xt[2].data() : nullptr;
  T* const gbase = static_cast<T*>(a.grid->mutable_data());

  Patterns<F> pat;
  HWY_ALIGN F buf[kSegPoints * 3];
  int64_t cur_n = -1;
  for (int64_t item = begin; item < end; ++item) {
    const int64_t row = item / a.nseg, seg = item % a.nseg;
    const int64_t h = row % a.H;
    const int64_t rest = row / a.H;
    const int64_t dd = R == 3 ? rest % a.D : 0;
    const int64_t n = R == 3 ? rest / a.D : rest;
    if (n != cur_n) {
      LoadTheta<T, F>(a, n, pat);
      cur_n = n;
    }
    const int64_t w0 = seg * kSegPoints;
    const int64_t np = std::min<int64_t>(kSegPoints, a.W - w0);
    T* dst = gbase + n * a.sn + dd * a.sd + h * a.sh + w0 * a.sw;
    const F y = ytab[h];
    const F z = R == 3 ? ztab[dd] : F(0);
    const F* x = xr + w0 * R;
    if (a.row_contiguous) {
      if constexpr (kDirect) {
        const size_t vbytes = hn::Lanes(hn::ScalableTag<F>()) * sizeof(F);
        if (a.stream && reinterpret_cast<uintptr_t>(dst) % vbytes == 0) {
          ComputeSegment<R, true>(pat, x, y, z, static_cast<size_t>(np), dst);
        } else {
          ComputeSegment<R>(pat, x, y, z, static_cast<size_t>(np), dst);
        }
        continue;
      } else {
        ComputeSegment<R>(pat, x, y, z, static_cast<size_t>(np), buf);
        if constexpr (std::is_same_v<T, float16>) {
          convert_f32_to_f16(buf, dst, static_cast<size_t>(np * R));
        } else {
          convert_f32_to_bf16(buf, dst, static_cast<size_t>(np * R));
        }
        continue;
      }
    }
    ComputeSegment<R>(pat, x, y, z, static_cast<size_t>(np), buf);
    for (int64_t q = 0; q < np; ++q) {
      for (int k = 0; k < R; ++k) {
        dst[q * a.sw + k * a.sk] = convert::store_real<T>(buf[q * R + k]);
      }
    }
  }
  if (a.stream) hwy::FlushStream();
}

template <int R, class T, class F>
void RunTyped(const RunArgs& a) {
  const int64_t per_item = std::min<int64_t>(kSegPoints, a.W) * R;
  const int64_t grain =
      std::max<int64_t>(1, affine_grid_detail::kGrainElements / std::max<int64_t>(per_item, 1));
  parallel_for(a.items, grain,
               [&a](int64_t b, int64_t e) { RunItems<R, T, F>(a, b, e); });
}

template <int R>
void RunRank(const RunArgs& a) {
  switch (a.p->dtype) {
    case DType::kFloat16: RunTyped<R, float16, float>(a); break;
    case DType::kBFloat16: RunTyped<R, bfloat16, float>(a); break;
    case DType::kFloat32: RunTyped<R, float, float>(a); break;
    case DType::kFloat64: RunTyped<R, double, double>(a); break;
    default: assert(false && "affine_grid_hwy: theta dtype must be floating"); break;
  }
}

void AffineGridRun(const RunArgs& a) {
  if (a.r == 2) RunRank<2>(a);
  else RunRank<3>(a);
}

}  // namespace HWY_NAMESPACE
}  // namespace gridops::kernels::affine_grid_simd
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace gridops::kernels::affine_grid_simd {
HWY_EXPORT(AffineGridRun);
}  // namespace gridops::kernels::affine_grid_simd

namespace gridops::kernels {
using namespace affine_grid_simd;  // NOLINT(google-build-using-namespace): HWY_DYNAMIC_DISPATCH

namespace {

template <class F>
void fill_tables(const AffineGridProblem& p, std::vector<F> (&t)[3]) {
  const int r = p.spatial_rank;
  const int64_t W = p.spatial[r - 1], H = p.spatial[r - 2];
  t[0].resize(static_cast<size_t>(W * r));
  for (int64_t w = 0; w < W; ++w) {
    const F x = coords::affine_grid_base<F>(affine_grid_index(p, r - 1, w), affine_grid_length(p, r - 1),
                                   p.align_corners);
    for (int k = 0; k < r; ++k) t[0][static_cast<size_t>(w * r + k)] = x;
  }
  t[1].resize(static_cast<size_t>(H));
  for (int64_t h = 0; h < H; ++h) {
    t[1][static_cast<size_t>(h)] = coords::affine_grid_base<F>(affine_grid_index(p, r - 2, h),
                                                      affine_grid_length(p, r - 2), p.align_corners);
  }
  if (r == 3) {
    const int64_t D = p.spatial[0];
    t[2].resize(static_cast<size_t>(D));
    for (int64_t i = 0; i < D; ++i) {
      t[2][static_cast<size_t>(i)] = coords::affine_grid_base<F>(affine_grid_index(p, 0, i),
                                                        affine_grid_length(p, 0), p.align_corners);
    }
  }
}

bool is_empty(const AffineGridProblem& p) {
  if (p.batch == 0) return true;
  for (int a = 0; a < p.spatial_rank; ++a) {
    if (p.spatial[a] == 0) return true;
  }
  return false;
}

// True when no two grid indices address the same element: sorted by |stride|, each axis
// longer than 1 must step past everything the smaller axes reach.
bool provably_distinct(const MutableTensorView& g) {
  struct Ax {
    int64_t len, stride;
  };
  constexpr int kRank = kAffineGridMaxSpatial + 2;
  Ax ax[kRank];
  int m = 0;
  for (int i = 0; i < g.rank() && i < kRank; ++i) {
    if (g.shape[static_cast<size_t>(i)] > 1) {
      const int64_t s = g.strides[static_cast<size_t>(i)];
      // Insertion by |stride| (a handful of axes; std::sort trips GCC 12's -Warray-bounds).
      Ax cur{g.shape[static_cast<size_t>(i)], s < 0 ? -s : s};
      int j = m++;
      for (; j > 0 && ax[j - 1].stride > cur.stride; --j) ax[j] = ax[j - 1];
      ax[j] = cur;
    }
  }
  int64_t reach = 0;  // largest offset the smaller axes span; fits: the view is valid
  for (int i = 0; i < m; ++i) {
    if (ax[i].stride <= reach) return false;
    reach += (ax[i].len - 1) * ax[i].stride;
  }
  return true;
}

}  // namespace

std::shared_ptr<const void> affine_grid_make_tables(const AffineGridProblem& p) {
  assert(p.spatial_rank == 2 || p.spatial_rank == 3);
  if (is_empty(p)) return nullptr;
  auto t = std::make_shared<AffineGridTables>();
  if (p.dtype == DType::kFloat64) fill_tables<double>(p, t->f64);
  else fill_tables<float>(p, t->f32);
  // Streaming (non-temporal) stores for a large float32/float64 grid: no read for
  // ownership of lines that are only written, and no eviction of the caller's working set.
  // Taken by runs whose grid rows are contiguous. Measurements: docs/perf/affine_grid.md.
  if (p.dtype == DType::kFloat32 || p.dtype == DType::kFloat64) {
    const int r = p.spatial_rank;
    const int64_t rows = p.batch * (r == 3 ? p.spatial[0] : 1) * p.spatial[r - 2];
    const int64_t bytes = rows * p.spatial[r - 1] * r * static_cast<int64_t>(dtype_size(p.dtype));
    t->stream_contiguous_rows = bytes >= affine_grid_detail::kStreamBytes;
  }
  return t;
}

std::string affine_grid_hwy_schedule(const AffineGridProblem&, const void* tables) {
  if (tables == nullptr) return "grid=empty";
  const auto& t = *static_cast<const AffineGridTables*>(tables);
  return t.stream_contiguous_rows ? "stores=streaming (contiguous rows)" : "stores=cached";
}

std::string affine_grid_hwy_declines(const AffineGridProblem& p) {
  if (p.spatial_rank != 2 && p.spatial_rank != 3) {
    return "spatial rank " + std::to_string(p.spatial_rank) + " (only 2 and 3)";
  }
  for (int a = 0; a < p.spatial_rank && !is_empty(p); ++a) {
    if (p.spatial[a] > kAffineGridMaxTableEntries / p.spatial_rank) {
      return "a coordinate table of more than " + std::to_string(kAffineGridMaxTableEntries) +
             " entries (spatial size " + std::to_string(p.spatial[a]) + ")";
    }
  }
  return {};
}

std::string affine_grid_hwy_declines_views(const AffineGridProblem&, const void*,
                                           const AffineGridViews& v) {
  const MutableTensorView& grid = v.grid;
  for (int64_t d : grid.shape) {
    if (d == 0) return {};  // nothing is written
  }
  if (!provably_distinct(grid)) {
    return "grid elements may alias each other (a zero stride or interleaved strides); "
           "the reference defines aliasing writes";
  }
  return {};
}

void affine_grid_hwy(const AffineGridProblem& p, const void* tables, const AffineGridViews& v) {
  const TensorView& theta = v.theta;
  const MutableTensorView& grid = v.grid;
  assert(p.spatial_rank == 2 || p.spatial_rank == 3);
  assert(theta.dtype == p.dtype && grid.dtype == p.dtype);
  if (is_empty(p)) return;
  assert(provably_distinct(grid));
  assert(tables != nullptr);
  affine_grid_detail::RunArgs a{};
  a.p = &p;
  a.tables = static_cast<const AffineGridTables*>(tables);
  a.theta = &theta;
  a.grid = &grid;
  a.r = p.spatial_rank;
  const int r = a.r;
  a.W = p.spatial[r - 1];
  a.H = p.spatial[r - 2];
  a.D = r == 3 ? p.spatial[0] : 1;
  a.rows = p.batch * a.D * a.H;
  a.nseg = (a.W + affine_grid_detail::kSegPoints - 1) / affine_grid_detail::kSegPoints;
  a.items = a.rows * a.nseg;
  const auto& st = grid.strides;
  a.sn = st[0];
  a.sd = r == 3 ? st[1] : 0;
  a.sh = st[static_cast<size_t>(r - 1)];
  a.sw = st[static_cast<size_t>(r)];
  a.sk = st[static_cast<size_t>(r + 1)];
  a.row_contiguous = a.sk == 1 && (a.W == 1 || a.sw == r);
  a.stream = a.row_contiguous && a.tables->stream_contiguous_rows;  // the plan's choice
  HWY_DYNAMIC_DISPATCH(AffineGridRun)(a);
}

}  // namespace gridops::kernels
#endif  // HWY_ONCE
