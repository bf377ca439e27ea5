// GridSample workloads W1-W3 (../shared/bench/WORKLOADS.md): gridops against PyTorch
// (at::grid_sampler_2d / 3d) and OpenCV (cv::remap per plane, on the interleaved image,
// and with fixed-point maps) in one binary. Names: <workload>/<impl>/threads:<n>; the
// layout and type rows <workload>/<nchw|nhwc>/<f32|u8>/<impl>/threads:<n>. The f32
// channels-first rows have impl "gridops" (the automatic choice) and one per entry of the
// implementation list that takes the workload ("ref" included).
//
// Peers are called the fastest way a user would: torch's functional grid_sampler_2d/3d
// under InferenceMode (1.13's grid_sampler_*_out is the generated wrapper that computes
// into a temporary and copies), OpenCV remap with maps precomputed once (CV_32FC1 pairs, and
// CV_16SC2 + CV_16UC1 from convertMaps for *_fixed). Every peer's result is compared with
// gridops' once in the setup (not timed); a warning is printed when they disagree.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "bench_util.h"
#include "gridops/ops/grid_sample.h"
#include "ops/grid_sample_impls.h"

#ifdef GRIDOPS_BENCH_TORCH
#include <ATen/ATen.h>
#include <c10/core/InferenceMode.h>
#endif
#ifdef GRIDOPS_BENCH_OPENCV
#include <opencv2/imgproc.hpp>
#endif

namespace {

using gridops::ChannelLayout;
using gridops::DType;
using gridops::Dims;
using gridops::GridPadding;
using gridops::InterpolationMode;

/// One workload's data, built once.
struct Data {
  Dims src_shape, grid_shape, dst_shape;  // channels-first
  std::vector<float> src, grid, dst;
  std::vector<float> src_nhwc, dst_nhwc;  // for the interleaved OpenCV peer
};

int64_t numel(const Dims& d) {
  int64_t n = 1;
  for (int64_t v : d) n *= v;
  return n;
}

std::shared_ptr<Data> make_data(Dims src_shape, Dims grid_shape, std::vector<float> grid) {
  auto d = std::make_shared<Data>();
  d->src_shape = src_shape;
  d->grid_shape = grid_shape;
  d->dst_shape = {src_shape[0], src_shape[1]};
  for (size_t i = 1; i + 1 < grid_shape.size(); ++i) d->dst_shape.push_back(grid_shape[i]);
  d->src = gridops::bench::random_floats(static_cast<size_t>(numel(src_shape)), -1.0f, 1.0f, 7);
  d->grid = std::move(grid);
  d->dst.assign(static_cast<size_t>(numel(d->dst_shape)), 0.0f);
  return d;
}

/// W1/W2d/W3: uniform random grid in [-1.1, 1.1].
std::vector<float> random_grid(const Dims& grid_shape) {
  return gridops::bench::random_floats(static_cast<size_t>(numel(grid_shape)), -1.1f, 1.1f, 11);
}

/// W2a-c: a smooth warp: rotation by 10 degrees, scale 1.05, plus a sinusoidal ripple of
/// amplitude 0.02 (normalized units) with 3 periods across the image.
std::vector<float> smooth_grid(int64_t h, int64_t w) {
  std::vector<float> g(static_cast<size_t>(h * w * 2));
  const double th = 10.0 * M_PI / 180.0, s = 1.05, pi2 = 2.0 * M_PI;
  for (int64_t i = 0; i < h; ++i) {
    for (int64_t j = 0; j < w; ++j) {
      const double u = (2.0 * static_cast<double>(j) + 1.0) / static_cast<double>(w) - 1.0;
      const double v = (2.0 * static_cast<double>(i) + 1.0) / static_cast<double>(h) - 1.0;
      const double x = s * (std::cos(th) * u - std::sin(th) * v) + 0.02 * std::sin(pi2 * 3.0 * v);
      const double y = s * (std::sin(th) * u + std::cos(th) * v) + 0.02 * std::sin(pi2 * 3.0 * u);
      g[static_cast<size_t>((i * w + j) * 2)] = static_cast<float>(x);
      g[static_cast<size_t>((i * w + j) * 2 + 1)] = static_cast<float>(y);
    }
  }
  return g;
}

struct Compare {
  double max_abs = 0, mean_abs = 0;
};

Compare compare(const float* a, const float* b, int64_t n) {
  Compare c;
  for (int64_t i = 0; i < n; ++i) {
    const double d = std::fabs(static_cast<double>(a[i]) - static_cast<double>(b[i]));
    c.max_abs = std::max(c.max_abs, d);
    c.mean_abs += d;
  }
  c.mean_abs /= static_cast<double>(n > 0 ? n : 1);
  return c;
}

void report(const std::string& what, const Compare& c, double mean_tol, double max_tol) {
  const bool ok = c.mean_abs <= mean_tol && c.max_abs <= max_tol;
  std::fprintf(stderr, "%s %s: max |diff| %.3g, mean |diff| %.3g vs gridops\n",
               ok ? "[check]" : "[WARNING: results differ]", what.c_str(), c.max_abs, c.mean_abs);
}

int64_t bytes_of(const Data& d) {
  return 4 * (numel(d.src_shape) + numel(d.grid_shape) + numel(d.dst_shape));
}

/// gridops channels-first: the automatic choice (impl "gridops"; after one checked run so
/// peers can compare with dst), then each entry of the implementation list that takes the
/// workload, forced by name ("ref" included), into a dst of its own.
void add_gridops_impl(const std::string& id, const std::shared_ptr<Data>& d, InterpolationMode m,
                      GridPadding p, const std::string& impl) {
  gridops::GridSampleDesc desc;
  desc.mode = m;
  desc.padding = p;
  desc.align_corners = 0;
  desc.impl = impl;
  auto plan = gridops::make_grid_sample_plan(desc, DType::kFloat32, d->src_shape,
                                             DType::kFloat32, d->grid_shape);
  if (!plan.ok()) {
    if (impl.empty()) std::fprintf(stderr, "%s: %s\n", id.c_str(), plan.status().to_string().c_str());
    return;  // a forced entry that declines the workload is not registered
  }
  if (impl.empty()) {
    // Every workload should take a fast entry of the implementation list, not "ref".
    std::fprintf(stderr, "%s %s: gridops implementation '%s'\n",
                 std::strcmp(plan.value().impl_name(), "ref") == 0 ? "[WARNING]" : "[info]",
                 id.c_str(), plan.value().impl_name());
  }
  auto pl = std::make_shared<gridops::GridSamplePlan>(plan.value());
  auto own = impl.empty() ? nullptr : std::make_shared<std::vector<float>>(d->dst.size());
  const gridops::TensorView src(DType::kFloat32, d->src.data(), d->src_shape);
  const gridops::TensorView grid(DType::kFloat32, d->grid.data(), d->grid_shape);
  const gridops::MutableTensorView dst(DType::kFloat32, own ? own->data() : d->dst.data(),
                                       d->dst_shape);
  if (!pl->run(src, grid, dst).ok()) std::fprintf(stderr, "%s: run failed\n", id.c_str());
  gridops::bench::add(id, impl.empty() ? "gridops" : impl, bytes_of(*d), [=](benchmark::State& st) {
    (void)own;  // keeps a forced entry's dst alive
    (void)d;  // keeps the workload's buffers alive
    for (auto _ : st) {
      const gridops::Status s = pl->run(src, grid, dst);
      benchmark::DoNotOptimize(s.ok());
    }
  });
}

void add_gridops(const std::string& id, const std::shared_ptr<Data>& d, InterpolationMode m,
                 GridPadding p) {
  add_gridops_impl(id, d, m, p, "");
  for (const auto& e : gridops::detail::grid_sample_impls()) add_gridops_impl(id, d, m, p, e.name);
}

/// gridops channels-last on an interleaved copy of src: `<id>/nhwc/f32/gridops`, paired
/// with OpenCV's interleaved remap registered under the same prefix.
void add_gridops_nhwc(const std::string& id, const std::shared_ptr<Data>& d, InterpolationMode m,
                      GridPadding p) {
  const int64_t n = d->src_shape[0], c = d->src_shape[1];
  Dims s_nhwc{n}, d_nhwc{n};
  int64_t plane_in = 1, plane_out = 1;
  for (size_t i = 2; i < d->src_shape.size(); ++i) {
    s_nhwc.push_back(d->src_shape[i]);
    plane_in *= d->src_shape[i];
  }
  for (size_t i = 2; i < d->dst_shape.size(); ++i) {
    d_nhwc.push_back(d->dst_shape[i]);
    plane_out *= d->dst_shape[i];
  }
  s_nhwc.push_back(c);
  d_nhwc.push_back(c);
  auto src = std::make_shared<std::vector<float>>(d->src.size());
  auto out = std::make_shared<std::vector<float>>(d->dst.size());
  for (int64_t b = 0; b < n; ++b)
    for (int64_t ch = 0; ch < c; ++ch)
      for (int64_t q = 0; q < plane_in; ++q)
        (*src)[static_cast<size_t>((b * plane_in + q) * c + ch)] =
            d->src[static_cast<size_t>((b * c + ch) * plane_in + q)];
  gridops::GridSampleDesc desc;
  desc.mode = m;
  desc.padding = p;
  desc.layout = ChannelLayout::kChannelsLast;
  auto plan = gridops::make_grid_sample_plan(desc, DType::kFloat32, s_nhwc, DType::kFloat32,
                                             d->grid_shape);
  if (!plan.ok()) return;
  auto pl = std::make_shared<gridops::GridSamplePlan>(plan.value());
  const gridops::TensorView sv(DType::kFloat32, src->data(), s_nhwc);
  const gridops::TensorView gv(DType::kFloat32, d->grid.data(), d->grid_shape);
  const gridops::MutableTensorView dv(DType::kFloat32, out->data(), d_nhwc);
  if (!pl->run(sv, gv, dv).ok()) return;
  double max_abs = 0;
  for (int64_t b = 0; b < n; ++b)
    for (int64_t ch = 0; ch < c; ++ch)
      for (int64_t q = 0; q < plane_out; ++q)
        max_abs = std::max(max_abs,
                           static_cast<double>(std::fabs(
                               (*out)[static_cast<size_t>((b * plane_out + q) * c + ch)] -
                               d->dst[static_cast<size_t>((b * c + ch) * plane_out + q)])));
  report(id + "/nhwc/f32/gridops (against gridops NCHW)", Compare{max_abs, 0.0}, 1e-5, 1e-4);
  gridops::bench::add(id + "/nhwc/f32", "gridops", bytes_of(*d), [=](benchmark::State& st) {
    (void)d;  // keeps the buffers alive
    (void)src;
    (void)out;
    for (auto _ : st) {
      const gridops::Status s = pl->run(sv, gv, dv);
      benchmark::DoNotOptimize(s.ok());
    }
  });
}

#ifdef GRIDOPS_BENCH_TORCH
void add_torch(const std::string& id, const std::shared_ptr<Data>& d, int mode, int pad) {
  c10::InferenceMode guard;
  auto opts = at::TensorOptions().dtype(at::kFloat);
  at::Tensor x = at::from_blob(d->src.data(), d->src_shape, opts);
  at::Tensor g = at::from_blob(d->grid.data(), d->grid_shape, opts);
  const bool is3d = d->src_shape.size() == 5;
  auto call = [=]() {
    return is3d ? at::grid_sampler_3d(x, g, mode, pad, false)
                : at::grid_sampler_2d(x, g, mode, pad, false);
  };
  gridops::bench::set_threads(2);
  at::Tensor y = call();
  // torch reflects the coordinate, gridops each tap (ERRATA GridSample 4): they differ near
  // the borders for reflection, so the check there is on the mean only.
  report(id + "/torch", compare(y.data_ptr<float>(), d->dst.data(), numel(d->dst_shape)),
         pad == 2 ? 1e-2 : 1e-5, pad == 2 ? 2.0 : 1e-3);
  gridops::bench::add(id, "torch", bytes_of(*d), [=](benchmark::State& st) {
    (void)d;  // keeps the workload's buffers alive
    c10::InferenceMode g2;
    for (auto _ : st) {
      at::Tensor out = call();
      benchmark::DoNotOptimize(out.data_ptr());
    }
  });
}
#endif

#ifdef GRIDOPS_BENCH_OPENCV
int cv_border(GridPadding p) {
  // zeros: constant 0 per tap; border: replicate; reflection with align_corners=0: mirror
  // about -0.5 and L-0.5 (edge repeated) = BORDER_REFLECT.
  return p == GridPadding::kZeros ? cv::BORDER_CONSTANT
         : p == GridPadding::kBorder ? cv::BORDER_REPLICATE
                                     : cv::BORDER_REFLECT;
}
int cv_interp(InterpolationMode m) {
  return m == InterpolationMode::kLinear ? cv::INTER_LINEAR
         : m == InterpolationMode::kNearest ? cv::INTER_NEAREST
                                            : cv::INTER_CUBIC;
}

/// OpenCV remap on (N, C, H, W): per plane (impl opencv_remap[_fixed]) and on the
/// interleaved (N, H, W, C) image (impl opencv_remap_nhwc).
void add_opencv(const std::string& id, const std::shared_ptr<Data>& d, InterpolationMode m,
                GridPadding p, bool fixed_too, bool nhwc_too) {
  const int n = static_cast<int>(d->src_shape[0]), c = static_cast<int>(d->src_shape[1]);
  const int h = static_cast<int>(d->src_shape[2]), w = static_cast<int>(d->src_shape[3]);
  const int ho = static_cast<int>(d->grid_shape[1]), wo = static_cast<int>(d->grid_shape[2]);
  // Pixel-coordinate maps (align_corners=0): x = ((g + 1) * W - 1) / 2, one pair per batch.
  auto maps = std::make_shared<std::vector<std::pair<cv::Mat, cv::Mat>>>();
  auto fixed = std::make_shared<std::vector<std::pair<cv::Mat, cv::Mat>>>();
  for (int b = 0; b < n; ++b) {
    cv::Mat mx(ho, wo, CV_32FC1), my(ho, wo, CV_32FC1);
    const float* g = d->grid.data() + static_cast<size_t>(b) * ho * wo * 2;
    for (int i = 0; i < ho; ++i) {
      for (int j = 0; j < wo; ++j) {
        const float gx = g[(i * wo + j) * 2], gy = g[(i * wo + j) * 2 + 1];
        mx.at<float>(i, j) = ((gx + 1.0f) * static_cast<float>(w) - 1.0f) / 2.0f;
        my.at<float>(i, j) = ((gy + 1.0f) * static_cast<float>(h) - 1.0f) / 2.0f;
      }
    }
    maps->emplace_back(mx, my);
    cv::Mat f1, f2;
    cv::convertMaps(mx, my, f1, f2, CV_16SC2, m == InterpolationMode::kNearest);
    fixed->emplace_back(f1, f2);
  }
  const int interp = cv_interp(m), border = cv_border(p);
  float* src = d->src.data();
  const size_t plane_in = static_cast<size_t>(h) * w, plane_out = static_cast<size_t>(ho) * wo;
  auto out = std::make_shared<std::vector<float>>(d->dst.size());
  auto run_planes = [=](const std::vector<std::pair<cv::Mat, cv::Mat>>& mp) {
    for (int b = 0; b < n; ++b) {
      for (int ch = 0; ch < c; ++ch) {
        const size_t k = static_cast<size_t>(b) * c + static_cast<size_t>(ch);
        cv::Mat s(h, w, CV_32FC1, src + k * plane_in);
        cv::Mat o(ho, wo, CV_32FC1, out->data() + k * plane_out);
        cv::remap(s, o, mp[static_cast<size_t>(b)].first, mp[static_cast<size_t>(b)].second,
                  interp, border, cv::Scalar(0));
      }
    }
  };
  const int64_t bytes = bytes_of(*d);
  gridops::bench::set_threads(2);
  // OpenCV interpolates with 5-bit fixed-point weights (INTER_BITS): it differs from the
  // float result by up to ~1/32 of the local value range.
  run_planes(*maps);
  report(id + "/opencv_remap", compare(out->data(), d->dst.data(), numel(d->dst_shape)), 2e-2,
         0.5);
  gridops::bench::add(id, "opencv_remap", bytes, [=](benchmark::State& st) {
    (void)d;  // keeps the workload's buffers alive
    for (auto _ : st) {
      run_planes(*maps);
      benchmark::DoNotOptimize(out->data());
    }
  });
  if (fixed_too) {
    run_planes(*fixed);
    report(id + "/opencv_remap_fixed", compare(out->data(), d->dst.data(), numel(d->dst_shape)),
           2e-2, 0.5);
    gridops::bench::add(id, "opencv_remap_fixed", bytes, [=](benchmark::State& st) {
    (void)d;  // keeps the workload's buffers alive
      for (auto _ : st) {
        run_planes(*fixed);
        benchmark::DoNotOptimize(out->data());
      }
    });
  }
  if (nhwc_too && c <= CV_CN_MAX) {
    // Interleaved copy of src (not timed).
    auto s_nhwc = std::make_shared<std::vector<float>>(d->src.size());
    auto o_nhwc = std::make_shared<std::vector<float>>(d->dst.size());
    for (int b = 0; b < n; ++b)
      for (int ch = 0; ch < c; ++ch)
        for (size_t q = 0; q < plane_in; ++q)
          (*s_nhwc)[(static_cast<size_t>(b) * plane_in + q) * c + static_cast<size_t>(ch)] =
              src[(static_cast<size_t>(b) * c + static_cast<size_t>(ch)) * plane_in + q];
    auto run_nhwc = [=]() {
      for (int b = 0; b < n; ++b) {
        cv::Mat s(h, w, CV_32FC(c), s_nhwc->data() + static_cast<size_t>(b) * plane_in * c);
        cv::Mat o(ho, wo, CV_32FC(c), o_nhwc->data() + static_cast<size_t>(b) * plane_out * c);
        cv::remap(s, o, (*maps)[static_cast<size_t>(b)].first,
                  (*maps)[static_cast<size_t>(b)].second, interp, border, cv::Scalar::all(0));
      }
    };
    try {
      run_nhwc();
    } catch (const cv::Exception& e) {
      std::fprintf(stderr, "%s/opencv_remap_nhwc: not supported (%s)\n", id.c_str(), e.what());
      return;
    }
    // Compare in NCHW order.
    double max_abs = 0, mean_abs = 0;
    for (int b = 0; b < n; ++b)
      for (int ch = 0; ch < c; ++ch)
        for (size_t q = 0; q < plane_out; ++q) {
          const double dd = std::fabs(
              static_cast<double>((*o_nhwc)[(static_cast<size_t>(b) * plane_out + q) * c +
                                            static_cast<size_t>(ch)]) -
              static_cast<double>(
                  d->dst[(static_cast<size_t>(b) * c + static_cast<size_t>(ch)) * plane_out + q]));
          max_abs = std::max(max_abs, dd);
          mean_abs += dd;
        }
    report(id + "/opencv_remap_nhwc",
           Compare{max_abs, mean_abs / static_cast<double>(numel(d->dst_shape))}, 2e-2, 0.5);
    for (const std::string& name : {id + "|opencv_remap_nhwc", id + "/nhwc/f32|opencv_remap"}) {
      const size_t bar = name.find('|');
      gridops::bench::add(name.substr(0, bar), name.substr(bar + 1), bytes,
                          [=](benchmark::State& st) {
                            (void)d;  // keeps the workload's buffers alive
                            for (auto _ : st) {
                              run_nhwc();
                              benchmark::DoNotOptimize(o_nhwc->data());
                            }
                          });
    }
  }
}
#endif

struct Case {
  const char* id;
  InterpolationMode mode;
  GridPadding padding;
};

// --- W2 uint8: few-channel image warps on 8-bit images (issue 17, item 3) ----------------

/// One uint8 W2 workload: src (1, 3, 1024, 1024) as random bytes, kept both channels-first
/// and interleaved (channels-last), and the float32 grid of the f32 rows.
struct U8Data {
  Dims nchw, nhwc, grid_shape, dst_nchw, dst_nhwc;
  std::vector<uint8_t> src_nchw, src_nhwc, out_nchw, out_nhwc;
  std::vector<float> grid;
};

int64_t u8_bytes(const U8Data& d) {
  return numel(d.nchw) + 4 * numel(d.grid_shape) + numel(d.dst_nchw);
}

/// |a - b| over n bytes (a and b both NCHW), against mean and max tolerances.
void report_u8(const std::string& what, const uint8_t* a, const uint8_t* b, int64_t n,
               double mean_tol, double max_tol) {
  Compare c;
  for (int64_t i = 0; i < n; ++i) {
    const double dd = std::fabs(static_cast<double>(a[i]) - static_cast<double>(b[i]));
    c.max_abs = std::max(c.max_abs, dd);
    c.mean_abs += dd;
  }
  c.mean_abs /= static_cast<double>(n > 0 ? n : 1);
  report(what, c, mean_tol, max_tol);
}

/// gridops on uint8, `<id>/<nchw|nhwc>/u8/gridops`; the NCHW result is kept in out_nchw for
/// the peers' checks, the NHWC one is checked against it (the same bits are expected).
void add_gridops_u8(const std::string& id, const std::shared_ptr<U8Data>& d, InterpolationMode m,
                    GridPadding p) {
  for (const bool last : {false, true}) {
    gridops::GridSampleDesc desc;
    desc.mode = m;
    desc.padding = p;
    desc.layout = last ? ChannelLayout::kChannelsLast : ChannelLayout::kChannelsFirst;
    const Dims& ss = last ? d->nhwc : d->nchw;
    const Dims& ds = last ? d->dst_nhwc : d->dst_nchw;
    auto plan = gridops::make_grid_sample_plan(desc, DType::kUInt8, ss, DType::kFloat32,
                                               d->grid_shape);
    const std::string row = id + (last ? "/nhwc/u8" : "/nchw/u8");
    if (!plan.ok()) {
      std::fprintf(stderr, "%s: %s\n", row.c_str(), plan.status().to_string().c_str());
      continue;
    }
    std::fprintf(stderr, "[info] %s/gridops runs '%s'\n", row.c_str(), plan.value().impl_name());
    auto pl = std::make_shared<gridops::GridSamplePlan>(plan.value());
    std::vector<uint8_t>& out = last ? d->out_nhwc : d->out_nchw;
    const gridops::TensorView sv(DType::kUInt8, (last ? d->src_nhwc : d->src_nchw).data(), ss);
    const gridops::TensorView gv(DType::kFloat32, d->grid.data(), d->grid_shape);
    const gridops::MutableTensorView dv(DType::kUInt8, out.data(), ds);
    if (!pl->run(sv, gv, dv).ok()) {
      std::fprintf(stderr, "%s: run failed\n", row.c_str());
      continue;
    }
    if (last) {
      // Back to NCHW order for the comparison with the channels-first result.
      const int64_t c = d->nchw[1], plane = d->dst_nchw[2] * d->dst_nchw[3];
      std::vector<uint8_t> t(out.size());
      for (int64_t q = 0; q < plane; ++q)
        for (int64_t ch = 0; ch < c; ++ch)
          t[static_cast<size_t>(ch * plane + q)] = out[static_cast<size_t>(q * c + ch)];
      report_u8(row + "/gridops (against gridops NCHW)", t.data(), d->out_nchw.data(),
                numel(d->dst_nchw), 0.0, 0.0);
    }
    gridops::bench::add(row, "gridops", u8_bytes(*d), [=](benchmark::State& st) {
      (void)d;  // keeps the buffers alive
      for (auto _ : st) {
        const gridops::Status s = pl->run(sv, gv, dv);
        benchmark::DoNotOptimize(s.ok());
      }
    });
  }
}

#ifdef GRIDOPS_BENCH_OPENCV
/// OpenCV remap on uint8 images, maps precomputed once (float CV_32FC1 pairs, and the
/// CV_16SC2 + CV_16UC1 fixed-point pair from convertMaps for *_fixed):
///   <id>/nchw/u8: opencv_remap[_fixed] per CV_8UC1 plane, opencv_remap_nhwc on the
///                 interleaved CV_8UC3 image;
///   <id>/nhwc/u8: opencv_remap[_fixed] on the interleaved CV_8UC3 image.
/// OpenCV quantizes coordinates to 1/32 pixel (INTER_BITS) and rounds the sum, gridops
/// computes at the grid's precision and truncates (ERRATA GridSample 7): linear results may
/// differ by up to 1 + 2 * 255/64 (the two coordinates' quantization on the steepest data,
/// plus rounding against truncation), nearest ones not at all.
void add_opencv_u8(const std::string& id, const std::shared_ptr<U8Data>& d, InterpolationMode m,
                   GridPadding p) {
  const int c = static_cast<int>(d->nchw[1]);
  const int h = static_cast<int>(d->nchw[2]), w = static_cast<int>(d->nchw[3]);
  const int ho = static_cast<int>(d->grid_shape[1]), wo = static_cast<int>(d->grid_shape[2]);
  auto mx = std::make_shared<cv::Mat>(ho, wo, CV_32FC1);
  auto my = std::make_shared<cv::Mat>(ho, wo, CV_32FC1);
  for (int i = 0; i < ho; ++i) {
    for (int j = 0; j < wo; ++j) {
      const float gx = d->grid[static_cast<size_t>((i * wo + j) * 2)];
      const float gy = d->grid[static_cast<size_t>((i * wo + j) * 2 + 1)];
      mx->at<float>(i, j) = ((gx + 1.0f) * static_cast<float>(w) - 1.0f) / 2.0f;
      my->at<float>(i, j) = ((gy + 1.0f) * static_cast<float>(h) - 1.0f) / 2.0f;
    }
  }
  auto f1 = std::make_shared<cv::Mat>(), f2 = std::make_shared<cv::Mat>();
  cv::convertMaps(*mx, *my, *f1, *f2, CV_16SC2, m == InterpolationMode::kNearest);
  const int interp = cv_interp(m), border = cv_border(p);
  const size_t plane_in = static_cast<size_t>(h) * w, plane_out = static_cast<size_t>(ho) * wo;
  auto out = std::make_shared<std::vector<uint8_t>>(plane_out * static_cast<size_t>(c));
  uint8_t* src_nchw = d->src_nchw.data();
  uint8_t* src_nhwc = d->src_nhwc.data();
  auto run_planes = [=](const cv::Mat& m1, const cv::Mat& m2) {
    for (int ch = 0; ch < c; ++ch) {
      cv::Mat s(h, w, CV_8UC1, src_nchw + static_cast<size_t>(ch) * plane_in);
      cv::Mat o(ho, wo, CV_8UC1, out->data() + static_cast<size_t>(ch) * plane_out);
      cv::remap(s, o, m1, m2, interp, border, cv::Scalar(0));
    }
  };
  auto run_nhwc = [=](const cv::Mat& m1, const cv::Mat& m2) {
    cv::Mat s(h, w, CV_8UC(c), src_nhwc);
    cv::Mat o(ho, wo, CV_8UC(c), out->data());
    cv::remap(s, o, m1, m2, interp, border, cv::Scalar::all(0));
  };
  const bool linear = m == InterpolationMode::kLinear;
  const double mean_tol = linear ? 3.0 : 0.0, max_tol = linear ? 1.0 + 2.0 * 255.0 / 64.0 : 0.0;
  const int64_t n = numel(d->dst_nchw), bytes = u8_bytes(*d);
  auto check_nhwc = [&](const std::string& what) {
    std::vector<uint8_t> t(out->size());
    for (size_t q = 0; q < plane_out; ++q)
      for (int ch = 0; ch < c; ++ch)
        t[static_cast<size_t>(ch) * plane_out + q] = (*out)[q * static_cast<size_t>(c) + static_cast<size_t>(ch)];
    report_u8(what, t.data(), d->out_nchw.data(), n, mean_tol, max_tol);
  };
  gridops::bench::set_threads(2);
  struct Row {
    std::string workload, impl;
    bool nhwc, fixed;
  };
  const Row rows[] = {{id + "/nchw/u8", "opencv_remap", false, false},
                      {id + "/nchw/u8", "opencv_remap_fixed", false, true},
                      {id + "/nchw/u8", "opencv_remap_nhwc", true, false},
                      {id + "/nhwc/u8", "opencv_remap", true, false},
                      {id + "/nhwc/u8", "opencv_remap_fixed", true, true}};
  for (const Row& r : rows) {
    const cv::Mat& m1 = r.fixed ? *f1 : *mx;
    const cv::Mat& m2 = r.fixed ? *f2 : *my;
    const std::string what = r.workload + "/" + r.impl;
    if (r.nhwc) {
      run_nhwc(m1, m2);
      check_nhwc(what);
    } else {
      run_planes(m1, m2);
      report_u8(what, out->data(), d->out_nchw.data(), n, mean_tol, max_tol);
    }
    const bool nhwc = r.nhwc, fixed = r.fixed;
    gridops::bench::add(r.workload, r.impl, bytes, [=](benchmark::State& st) {
      (void)d;  // keeps the workload's buffers alive
      const cv::Mat& a = fixed ? *f1 : *mx;
      const cv::Mat& b = fixed ? *f2 : *my;
      for (auto _ : st) {
        if (nhwc) {
          run_nhwc(a, b);
        } else {
          run_planes(a, b);
        }
        benchmark::DoNotOptimize(out->data());
      }
    });
  }
}
#endif

/// W2 uint8 rows: W2a (bilinear, smooth warp), W2b (nearest, smooth warp), W2d (bilinear,
/// random grid), zeros padding, align_corners 0, like the float32 W2 rows.
void register_w2_u8() {
  using IM = InterpolationMode;
  const int64_t c = 3, h = 1024, w = 1024;
  const Dims gs{1, h, w, 2};
  auto make = [&](std::vector<float> grid) {
    auto d = std::make_shared<U8Data>();
    d->nchw = {1, c, h, w};
    d->nhwc = {1, h, w, c};
    d->grid_shape = gs;
    d->dst_nchw = {1, c, h, w};
    d->dst_nhwc = {1, h, w, c};
    const std::vector<float> r =
        gridops::bench::random_floats(static_cast<size_t>(c * h * w), 0.0f, 256.0f, 7);
    d->src_nchw.resize(r.size());
    d->src_nhwc.resize(r.size());
    for (int64_t ch = 0; ch < c; ++ch)
      for (int64_t q = 0; q < h * w; ++q) {
        const uint8_t v = static_cast<uint8_t>(std::min(255.0f, r[static_cast<size_t>(ch * h * w + q)]));
        d->src_nchw[static_cast<size_t>(ch * h * w + q)] = v;
        d->src_nhwc[static_cast<size_t>(q * c + ch)] = v;
      }
    d->out_nchw.assign(r.size(), 0);
    d->out_nhwc.assign(r.size(), 0);
    d->grid = std::move(grid);
    return d;
  };
  const Case cases[] = {{"W2a", IM::kLinear, GridPadding::kZeros},
                        {"W2b", IM::kNearest, GridPadding::kZeros},
                        {"W2d", IM::kLinear, GridPadding::kZeros}};
  for (const Case& k : cases) {
    auto d = make(std::string(k.id) == "W2d" ? random_grid(gs) : smooth_grid(h, w));
    add_gridops_u8(k.id, d, k.mode, k.padding);
#ifdef GRIDOPS_BENCH_OPENCV
    add_opencv_u8(k.id, d, k.mode, k.padding);
#endif
  }
}

void register_all() {
  using IM = InterpolationMode;
  using GP = GridPadding;
  gridops::bench::set_threads(2);
  // W1: X (4,64,128,128), random grid (4,128,128,2) in [-1.1, 1.1].
  {
    const Dims gs{4, 128, 128, 2};
    auto d = make_data({4, 64, 128, 128}, gs, random_grid(gs));
    const Case cases[] = {{"W1a", IM::kLinear, GP::kZeros},     {"W1b", IM::kNearest, GP::kZeros},
                          {"W1c", IM::kCubic, GP::kZeros},      {"W1d", IM::kLinear, GP::kReflection},
                          {"W1e", IM::kLinear, GP::kBorder},    {"W1f", IM::kCubic, GP::kReflection}};
    for (const Case& k : cases) {
      // Each case gets its own dst so the peers' checks compare with this case's result.
      auto dk = std::make_shared<Data>(*d);
      add_gridops(k.id, dk, k.mode, k.padding);
      add_gridops_nhwc(k.id, dk, k.mode, k.padding);
#ifdef GRIDOPS_BENCH_TORCH
      add_torch(k.id, dk, static_cast<int>(k.mode == IM::kLinear ? 0 : k.mode == IM::kNearest ? 1 : 2),
                static_cast<int>(k.padding));
#endif
#ifdef GRIDOPS_BENCH_OPENCV
      add_opencv(k.id, dk, k.mode, k.padding, false, true);
#endif
    }
  }
  // W2: X (1,3,1024,1024), smooth warp (a-c) or random grid (d).
  {
    const Dims gs{1, 1024, 1024, 2};
    auto smooth = make_data({1, 3, 1024, 1024}, gs, smooth_grid(1024, 1024));
    auto rnd = make_data({1, 3, 1024, 1024}, gs, random_grid(gs));
    const Case cases[] = {{"W2a", IM::kLinear, GP::kZeros},
                          {"W2b", IM::kNearest, GP::kZeros},
                          {"W2c", IM::kCubic, GP::kZeros},
                          {"W2d", IM::kLinear, GP::kZeros}};
    for (const Case& k : cases) {
      auto dk = std::make_shared<Data>(std::string(k.id) == "W2d" ? *rnd : *smooth);
      add_gridops(k.id, dk, k.mode, k.padding);
      add_gridops_nhwc(k.id, dk, k.mode, k.padding);
#ifdef GRIDOPS_BENCH_TORCH
      add_torch(k.id, dk, static_cast<int>(k.mode == IM::kLinear ? 0 : k.mode == IM::kNearest ? 1 : 2),
                0);
#endif
#ifdef GRIDOPS_BENCH_OPENCV
      add_opencv(k.id, dk, k.mode, k.padding, true, true);
#endif
    }
  }
  // W3: X (1,16,64,64,64), random grid (1,64,64,64,3).
  {
    const Dims gs{1, 64, 64, 64, 3};
    auto d = make_data({1, 16, 64, 64, 64}, gs, random_grid(gs));
    const Case cases[] = {{"W3a", IM::kLinear, GP::kZeros},
                          {"W3b", IM::kNearest, GP::kZeros},
                          {"W3c", IM::kLinear, GP::kReflection},
                          {"W3d", IM::kCubic, GP::kZeros}};
    for (const Case& k : cases) {
      auto dk = std::make_shared<Data>(*d);
      add_gridops(k.id, dk, k.mode, k.padding);
#ifdef GRIDOPS_BENCH_TORCH
      if (k.mode != IM::kCubic) {  // torch has no 3-D bicubic
        add_torch(k.id, dk, k.mode == IM::kLinear ? 0 : 1, static_cast<int>(k.padding));
      }
#endif
    }
  }
  // W2 uint8: the same image warps on 8-bit images.
  register_w2_u8();
}

}  // namespace

int main(int argc, char** argv) { return gridops::bench::run_main(argc, argv, register_all); }
