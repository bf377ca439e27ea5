// The plan-time tables of the fast resampling paths (resample_fast.h) and the declines
// they share: plain C++, no Highway. Taps and weights from coords::resample_nearest_index
// and coords::resample_linear_taps.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/coords.h"
#include "gridops/dtype.h"
#include "kernels/resample/resample.h"
#include "kernels/resample/resample_fast.h"

namespace gridops::kernels {
namespace {

constexpr int64_t kPad = 16;  // forward tables are padded to a multiple of this

ResampleAxisTable make_axis(const ResampleProblem& p, int k) {
  ResampleAxisTable a;
  a.in = p.in[k];
  a.out = p.out[k];
  const int64_t padded = (a.out + kPad - 1) / kPad * kPad;
  a.i0.assign(static_cast<size_t>(padded), 0);
  a.i1.assign(static_cast<size_t>(padded), 0);
  a.w0.assign(static_cast<size_t>(padded), 0.0f);
  a.w1.assign(static_cast<size_t>(padded), 0.0f);
  const bool lin = p.algorithm == ResampleAlgorithm::kLinear;
  // A window (ResampleProblem::windowed): the full problem's taps, shifted into the src box.
  const int64_t fin = p.windowed ? p.full_in[k] : a.in;
  const int64_t fout = p.windowed ? p.full_out[k] : a.out;
  const int64_t oo = p.windowed ? p.out_origin[k] : 0;
  const int64_t io = p.windowed ? p.in_origin[k] : 0;
  for (int64_t o = 0; o < a.out; ++o) {
    if (lin) {
      const coords::LinearTaps t = coords::resample_linear_taps(o + oo, fin, fout);
      a.i0[o] = static_cast<int32_t>(t.i0 - io);
      a.i1[o] = static_cast<int32_t>(t.i1 - io);
      a.w0[o] = static_cast<float>(t.w0);
      a.w1[o] = static_cast<float>(t.w1);
    } else {
      a.i0[o] = a.i1[o] =
          static_cast<int32_t>(coords::resample_nearest_index(o + oo, fin, fout) - io);
      a.w0[o] = 1.0f;
    }
  }
  // The adjoint, from the same tables: count, then fill in increasing o (tap 0 first).
  const int taps = lin ? 2 : 1;
  a.begin.assign(static_cast<size_t>(a.in) + 1, 0);
  for (int64_t o = 0; o < a.out; ++o) {
    ++a.begin[static_cast<size_t>(a.i0[o]) + 1];
    if (taps == 2) ++a.begin[static_cast<size_t>(a.i1[o]) + 1];
  }
  for (int64_t i = 0; i < a.in; ++i) a.begin[i + 1] += a.begin[i];
  a.use_o.resize(static_cast<size_t>(a.begin[a.in]));
  a.use_w.resize(a.use_o.size());
  std::vector<int64_t> fill(a.begin.begin(), a.begin.end() - 1);
  for (int64_t o = 0; o < a.out; ++o) {
    int64_t at = fill[a.i0[o]]++;
    a.use_o[at] = static_cast<int32_t>(o);
    a.use_w[at] = a.w0[o];
    if (taps == 2) {
      at = fill[a.i1[o]]++;
      a.use_o[at] = static_cast<int32_t>(o);
      a.use_w[at] = a.w1[o];
    }
  }
  return a;
}

}  // namespace

std::shared_ptr<ResampleFastTables> resample_make_tables(const ResampleProblem& p) {
  auto t = std::make_shared<ResampleFastTables>();
  for (int k = 0; k < p.spatial_rank; ++k) t->axis[k] = make_axis(p, k);
  return t;
}

std::string resample_fast_declines(const ResampleProblem& p) {
  if (p.dtype != DType::kFloat32 && p.dtype != DType::kBFloat16) {
    return std::string("dtype ") + to_string(p.dtype) +
           " is not float32 or bfloat16 (the reference handles it)";
  }
  if (p.spatial_rank < 1 || p.spatial_rank > kResampleMaxSpatialRank) return "bad spatial rank";
  if (p.n == 0 || p.c == 0) return "empty problem (N or C is 0)";
  for (int k = 0; k < p.spatial_rank; ++k) {
    if (p.in[k] == 0 || p.out[k] == 0) return "empty spatial axis";
    if (p.in[k] > (int64_t{1} << 30) || p.out[k] > (int64_t{1} << 30)) {
      return "spatial axis longer than 2^30 (32-bit index tables)";
    }
  }
  return std::string();
}

namespace {

/// W downsampled by 2 or more: the direct form whatever the schedule (most input columns
/// feed no output).
bool w_downsampled_by_2(const ResampleProblem& p) {
  const int r = p.spatial_rank;
  return p.in[r - 1] >= 2 * p.out[r - 1];
}

}  // namespace

std::shared_ptr<const void> resample_fast_prepare(const ResampleProblem& p) {
  auto t = resample_make_tables(p);
  t->direct_linear = w_downsampled_by_2(p) || (p.dtype == DType::kFloat32 && p.spatial_rank <= 2);
  return t;
}

std::shared_ptr<const void> resample_fast_prepare_scratch_row(const ResampleProblem& p) {
  auto t = resample_make_tables(p);
  t->direct_linear = w_downsampled_by_2(p);
  return t;
}

std::string resample_fast_schedule(const ResampleProblem& p, const void* tables) {
  if (p.algorithm != ResampleAlgorithm::kLinear) return std::string();
  const auto& t = *static_cast<const ResampleFastTables*>(tables);
  return t.direct_linear ? "linear_forward=direct" : "linear_forward=scratch_row";
}

}  // namespace gridops::kernels
