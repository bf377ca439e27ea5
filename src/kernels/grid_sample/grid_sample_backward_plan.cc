// The fast GridSample backward's plan time (NOTE [ GridSample backward fast path ] in
// grid_sample_backward_fast.cc): its scope (declines), its tables (the schedule of a run,
// for each entry's band kernel and chunk cap) and their line in the dispatch log.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>

#include "core/coords.h"
#include "gridops/parallel.h"
#include "kernels/grid_sample/grid_sample.h"
#include "kernels/grid_sample/grid_sample_backward_band.h"
#include "kernels/grid_sample/grid_sample_backward_tables.h"

namespace gridops::kernels {
namespace {

using grid_sample_backward_tables::BandsSchedule;
using grid_sample_backward_tables::BandsTables;

constexpr int64_t kScratchBytes = int64_t{96} << 20;  // per-chunk scratch aimed at
constexpr int64_t kMinChunk = 4096;                   // output points per chunk, at least
constexpr int64_t kMaxBuckets = int64_t{1} << 20;     // counting-sort buckets, at most
constexpr int64_t kGrain = 1024;                      // points per parallel chunk, at least
constexpr int64_t kBandsPerThread = 4;                // bands per thread (load balance)
constexpr int64_t kMinParallelWork = 1 << 15;  // chunk points x taps x CP below which one band

/// Floats per channel row: C padded to 4 (C <= 4) or to whole vectors of the band kernel.
int64_t padded_channels(int64_t C) {
  int64_t lanes = 4;
#ifdef GRIDOPS_HAVE_HWY
  lanes = std::max<int64_t>(1, grid_sample_simd::band_lanes_hwy());
#endif
  if (C <= 4 && 4 % lanes == 0) return 4;
  return (C + lanes - 1) / lanes * lanes;
}

/// The band kernel of the CPU's Highway target (the portable one without Highway), and its
/// name in the schedule.
#ifdef GRIDOPS_HAVE_HWY
constexpr const char* kBandName = "hwy";
#else
constexpr const char* kBandName = "portable";
#endif
auto grid_sample_backward_band() -> void (*)(const grid_sample_simd::BandArgs&) {
#ifdef GRIDOPS_HAVE_HWY
  return grid_sample_simd::band_hwy;
#else
  return grid_sample_simd::band_portable;
#endif
}

/// The tables for problem p with band kernel `band`; chunk_cap > 0 caps the chunk.
std::shared_ptr<const void> make_tables(const GridSampleProblem& p,
                                        void (*band)(const grid_sample_simd::BandArgs&),
                                        const char* band_name, int64_t chunk_cap) {
  auto t = std::make_shared<BandsTables>();
  const int r = p.spatial_rank;
  const int K = coords::taps_per_axis(p.mode);
  const int64_t C = p.channels;
  int64_t out_points = 1, in_points = 1;
  for (int64_t d : p.out_sizes) out_points *= d;
  int64_t dense[3] = {0, 0, 0};
  for (int d = r - 1; d >= 0; --d) {
    dense[d] = in_points;
    in_points *= p.in_sizes[static_cast<size_t>(d)];  // every input axis >= 1 (scope)
  }
  const int64_t CP = padded_channels(C);
  const int64_t RK = static_cast<int64_t>(r) * K;
  const int threads = std::max(1, get_num_threads());
  t->CP = CP;
  t->threads = threads;
  t->band = band;
  t->band_name = band_name;
  for (const bool want_gg : {false, true}) {
    BandsSchedule& s = t->sched[want_gg ? 1 : 0];
    const int64_t point_bytes = 4 * CP + 2 * (12 * RK + 4) + 4 * 2 + 8 + (want_gg ? 4 * r + 8 : 0);
    int64_t chunk = std::min(out_points, std::max(kMinChunk, kScratchBytes / point_bytes));
    if (chunk_cap > 0) chunk = std::min(chunk, chunk_cap);
    const int64_t L0 = p.in_sizes[0];
    // Sort keys: (axis-0 index >> s0, rest of the lowest tap's offset >> s1), at most about
    // kMaxBuckets (and not many more than points) buckets; axis-0 groups of 2^s0 indices.
    int s0 = 0;
    while (((L0 - 1) >> s0) + 1 > kMaxBuckets) ++s0;
    const int64_t G0 = ((L0 - 1) >> s0) + 1;
    const int64_t max_buckets = std::max(G0, std::min(kMaxBuckets, 2 * chunk));
    int s1 = 0;
    while (((dense[0] - 1) >> s1) + 1 > max_buckets / G0) ++s1;  // G0 * M <= max_buckets
    const int64_t M = ((dense[0] - 1) >> s1) + 1;
    int64_t combos = 1;
    for (int d = 0; d < r; ++d) combos *= K;
    const bool small = chunk * combos * CP < kMinParallelWork;  // waking threads costs more
    // Whole batch entries per thread (one parallel region per call) when they divide evenly
    // enough; else entries one after the other, each split into bands. Both give the same
    // bits (NOTE above).
    const bool by_batch = threads > 1 && !small && p.batch >= threads &&
                          (p.batch % threads == 0 || p.batch >= 4 * threads);
    s.chunk = chunk;
    s.s0 = s0;
    s.s1 = s1;
    s.G0 = G0;
    s.M = M;
    s.by_batch = by_batch;
    s.bands = by_batch || threads <= 1 || small ? 1 : std::min<int64_t>(G0, kBandsPerThread * threads);
  }
  return t;
}

}  // namespace

std::string grid_sample_backward_fast_declines(const GridSampleProblem& p) {
  if (p.spatial_rank < 1 || p.spatial_rank > 3) {
    return "spatial rank " + std::to_string(p.spatial_rank) + " (fast backward: 1 to 3)";
  }
  for (DType dt : {p.src_dtype, p.grid_dtype}) {
    if (dt != DType::kFloat32 && dt != DType::kFloat16 && dt != DType::kBFloat16) {
      return std::string(dt == p.src_dtype ? "src" : "grid") + " dtype " + to_string(dt) +
             " (fast backward: float32, float16, bfloat16)";
    }
  }
  // Its bands read src rows only; constant's taps outside read the fill value.
  if (p.padding == GridPadding::kConstant) return "padding_mode constant (fast backward: not yet)";
  for (int64_t len : p.in_sizes) {
    if (len < 1 || len > (int64_t{1} << 30)) {
      return "input axis of length " + std::to_string(len) + " (fast backward: 1 to 2^30)";
    }
  }
  return {};
}

std::shared_ptr<const void> grid_sample_backward_bands_prepare(const GridSampleProblem& p) {
  return make_tables(p, grid_sample_backward_band(), kBandName, 0);
}

std::shared_ptr<const void> grid_sample_backward_bands_portable_prepare(const GridSampleProblem& p) {
  return make_tables(p, grid_sample_simd::band_portable, "portable", 0);
}

std::shared_ptr<const void> grid_sample_backward_bands_four_chunks_prepare(
    const GridSampleProblem& p) {
  int64_t out_points = 1;
  for (int64_t d : p.out_sizes) out_points *= d;
  return make_tables(p, grid_sample_backward_band(), kBandName, out_points / 4 + 1);
}

std::string grid_sample_backward_bands_schedule(const GridSampleProblem&, const void* tables) {
  const auto& t = *static_cast<const BandsTables*>(tables);
  auto one = [](const BandsSchedule& s) {
    const char* split = s.by_batch ? "batch_entries" : s.bands > 1 ? "bands" : "one_band";
    return "split=" + std::string(split) + ", bands=" + std::to_string(s.bands) +
           ", chunk=" + std::to_string(s.chunk);
  };
  return "band_kernel=" + std::string(t.band_name) + ", row_floats=" + std::to_string(t.CP) +
         ", threads=" + std::to_string(t.threads) + ", " + one(t.sched[1]) +
         "; without grad_grid: " + one(t.sched[0]);
}

}  // namespace gridops::kernels
