// GridSample W2 uint8 rows of gridops_bench_grid_sample (registered by register_all in
// grid_sample_bench.cc; shared data in grid_sample_bench_data.h).
#include "grid_sample_bench_data.h"

namespace {


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

}  // namespace

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
