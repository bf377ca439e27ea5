// grid_sample.generic, the fast GridSample forward's catch-all path: every problem the fast
// paths cover (grid_sample_fast_declines), any view; steps 1-3 of NOTE [ GridSample fast
// path ] (grid_sample_hwy-inl.h), then step 4 in scalar code over taps, float16/bfloat16
// loaded and stored through core/convert.h.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>

#include "kernels/grid_sample/grid_sample.h"
#include "kernels/grid_sample/grid_sample_fast.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/grid_sample/grid_sample_generic_hwy.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include "kernels/grid_sample/grid_sample_hwy-inl.h"

HWY_BEFORE_NAMESPACE();
namespace gridops::kernels::grid_sample_simd {
namespace HWY_NAMESPACE {

/// Step 4, any layout and float16/bfloat16 (or strided channels-last): scalar over taps.
template <class T>
void GenericChannels(const Ctx& c, Work& wk, int64_t n, int64_t cnt) {
  const auto P = static_cast<size_t>(c.P);
  const bool nearest = c.mode == InterpolationMode::kNearest;
  const T* sbase = reinterpret_cast<const T*>(c.src) + n * c.s_batch;
  T* dbase = reinterpret_cast<T*>(c.dst) + n * c.d_batch;
  const int NT = c.NT;
  for (int64_t ch = 0; ch < c.channels; ++ch) {
    const T* plane = sbase + ch * c.s_channel;
    T* dplane = dbase + ch * c.d_channel;
    for (int64_t p = 0; p < cnt; ++p) {
      T& out = dplane[wk.doff[static_cast<size_t>(p)]];
      if (nearest) {
        out = wk.w[static_cast<size_t>(p)] > 0.0f ? plane[wk.off[static_cast<size_t>(p)]] : T{};
        continue;
      }
      float acc = 0.0f;
      for (int k = 0; k < NT; ++k) {
        const size_t at = static_cast<size_t>(k) * P + static_cast<size_t>(p);
        acc += wk.w[at] * convert::load_real<float>(plane[wk.off[at]]);
      }
      out = convert::store_real<T>(acc);
    }
  }
}

/// Items [begin, end): blocks of P output points.
void RunGeneric(const Ctx& c, int64_t begin, int64_t end) {
  Work wk(c);
  for (int64_t item = begin; item < end; ++item) {
    const int64_t n = item / c.blocks_per_batch;
    const int64_t p0 = (item % c.blocks_per_batch) * c.P;
    const int64_t cnt = std::min(c.P, c.out_points - p0);
    BlockTaps(c, wk, n, p0, cnt, CombineTaps);
    if (c.src_dtype == DType::kFloat32) {
      GenericChannels<float>(c, wk, n, cnt);
    } else if (c.src_dtype == DType::kFloat16) {
      GenericChannels<float16>(c, wk, n, cnt);
    } else {
      GenericChannels<bfloat16>(c, wk, n, cnt);
    }
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace gridops::kernels::grid_sample_simd
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace gridops::kernels {
GRIDOPS_GRID_SAMPLE_FAST_PATH(generic)

namespace grid_sample_simd {
HWY_EXPORT(RunGeneric);
}  // namespace grid_sample_simd

std::string grid_sample_generic_declines(const GridSampleProblem& p) {
  return grid_sample_fast_declines(p);
}

std::string grid_sample_generic_declines_views(const GridSampleProblem& p, const void* tables,
                                               const GridSampleViews& v) {
  return grid_sample_path_declines_views(p, tables, v, nullptr);
}

void grid_sample_generic_run(const GridSampleProblem& p, const void* tables,
                             const GridSampleViews& v) {
  grid_sample_simd::Ctx c;
  if (!grid_sample_path_begin(p, tables, v, &c)) return;
  grid_sample_fast_run_blocks(c, HWY_DYNAMIC_DISPATCH(grid_sample_simd::RunGeneric));
  grid_sample_fast_finish(p, tables, v);
}

}  // namespace gridops::kernels
#endif  // HWY_ONCE
