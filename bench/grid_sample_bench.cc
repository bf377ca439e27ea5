// GridSample workloads W1-W3 (../shared/bench/WORKLOADS.md): gridops against PyTorch
// (at::grid_sampler_2d / 3d) and OpenCV (cv::remap per plane, on the interleaved image,
// and with fixed-point maps; planes or images one after another, and in a cv::parallel_for_
// for the *_pfor rows) in one binary. Names: <workload>/<impl>/threads:<n>; the
// layout and type rows <workload>/<nchw|nhwc>/<f32|u8>/<impl>/threads:<n>. The f32
// channels-first rows have impl "gridops" (the automatic choice) and one per entry of the
// implementation list that takes the workload ("ref" included).
//
// Peers are called the fastest way a user would: torch's functional grid_sampler_2d/3d
// under InferenceMode (1.13's grid_sampler_*_out is the generated wrapper that computes
// into a temporary and copies), OpenCV remap with maps precomputed once (CV_32FC1 pairs, and
// CV_16SC2 + CV_16UC1 from convertMaps for *_fixed). Every peer's result is compared with
// gridops' once in the setup (not timed); a warning is printed when they disagree.
#include "grid_sample_bench_data.h"

namespace {


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
  auto own = std::make_shared<std::vector<float>>(d->dst.size());
  const gridops::TensorView src(DType::kFloat32, d->src.data(), d->src_shape);
  const gridops::TensorView grid(DType::kFloat32, d->grid.data(), d->grid_shape);
  const gridops::MutableTensorView checked(DType::kFloat32, d->dst.data(), d->dst_shape);
  const gridops::MutableTensorView dst(DType::kFloat32, own->data(), d->dst_shape);
  if (impl.empty() && !pl->run(src, grid, checked).ok()) std::fprintf(stderr, "%s: run failed\n", id.c_str());
  if (!pl->run(src, grid, dst).ok()) std::fprintf(stderr, "%s: run failed\n", id.c_str());
  gridops::bench::add(id, impl.empty() ? "gridops" : impl, bytes_of(*d), [=](benchmark::State& st) {
    (void)own;  // keeps the row's own dst alive
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
  for (const auto& e : gridops::detail::grid_sample_entries()) add_gridops_impl(id, d, m, p, e.name);
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

/// OpenCV remap on (N, C, H, W): per plane (impl opencv_remap[_fixed]) and on the
/// interleaved (N, H, W, C) image (impl opencv_remap_nhwc). One remap call threads its
/// output rows in stripes of about 64 Ki pixels, so a call on a W1 plane or image (128 x 128)
/// runs on one thread: the planes and images are then spread over OpenCV's threads with a
/// cv::parallel_for_, as its users thread many small images (impl suffix _pfor; the calls
/// inside run serially, as OpenCV runs a nested loop). `serial_too` also registers the
/// planes one after another (W2: 3 large planes, each call threaded, which was as fast as
/// the parallel loop or faster for some modes); a single image is one call (no _pfor).
void add_opencv(const std::string& id, const std::shared_ptr<Data>& d, InterpolationMode m,
                GridPadding p, bool fixed_too, bool nhwc_too, bool serial_too) {
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
  // Planes [lo, hi) of the N * C, each one remap call.
  auto remap_planes = [=](const std::vector<std::pair<cv::Mat, cv::Mat>>& mp, int lo, int hi) {
    for (int k = lo; k < hi; ++k) {
      const size_t b = static_cast<size_t>(k / c);
      cv::Mat s(h, w, CV_32FC1, src + static_cast<size_t>(k) * plane_in);
      cv::Mat o(ho, wo, CV_32FC1, out->data() + static_cast<size_t>(k) * plane_out);
      cv::remap(s, o, mp[b].first, mp[b].second, interp, border, cv::Scalar(0));
    }
  };
  // One plane after another, or the planes in a cv::parallel_for_ (impl *_pfor).
  auto run_planes = [=](const std::vector<std::pair<cv::Mat, cv::Mat>>& mp, bool pfor) {
    if (!pfor) {
      remap_planes(mp, 0, n * c);
      return;
    }
    cv::parallel_for_(cv::Range(0, n * c),
                      [&](const cv::Range& r) { remap_planes(mp, r.start, r.end); });
  };
  const int64_t bytes = bytes_of(*d);
  gridops::bench::set_threads(2);
  // OpenCV interpolates with 5-bit fixed-point weights (INTER_BITS): it differs from the
  // float result by up to ~1/32 of the local value range.
  for (const bool fx : {false, true}) {
    if (fx && !fixed_too) continue;
    for (const bool pfor : serial_too ? std::vector<bool>{false, true} : std::vector<bool>{true}) {
      const std::string impl =
          std::string("opencv_remap") + (fx ? "_fixed" : "") + (pfor ? "_pfor" : "");
      const auto* mp = fx ? fixed.get() : maps.get();
      std::fill(out->begin(), out->end(), 0.0f);
      run_planes(*mp, pfor);
      report(id + "/" + impl, compare(out->data(), d->dst.data(), numel(d->dst_shape)), 2e-2,
             0.5);
      gridops::bench::add(id, impl, bytes, [=](benchmark::State& st) {
        (void)d;  // keeps the workload's buffers alive
        const auto& m = fx ? *fixed : *maps;
        for (auto _ : st) {
          run_planes(m, pfor);
          benchmark::DoNotOptimize(out->data());
        }
      });
    }
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
    // Images [lo, hi), each one remap call on the interleaved image.
    auto remap_images = [=](int lo, int hi) {
      for (int b = lo; b < hi; ++b) {
        cv::Mat s(h, w, CV_32FC(c), s_nhwc->data() + static_cast<size_t>(b) * plane_in * c);
        cv::Mat o(ho, wo, CV_32FC(c), o_nhwc->data() + static_cast<size_t>(b) * plane_out * c);
        cv::remap(s, o, (*maps)[static_cast<size_t>(b)].first,
                  (*maps)[static_cast<size_t>(b)].second, interp, border, cv::Scalar::all(0));
      }
    };
    // One image after another, or (several images, impl *_pfor) spread over OpenCV's threads.
    auto run_nhwc = [=](bool pfor) {
      if (!pfor) {
        remap_images(0, n);
        return;
      }
      cv::parallel_for_(cv::Range(0, n), [&](const cv::Range& r) { remap_images(r.start, r.end); });
    };
    try {
      run_nhwc(false);
    } catch (const cv::Exception& e) {
      std::fprintf(stderr, "%s/opencv_remap_nhwc: not supported (%s)\n", id.c_str(), e.what());
      return;
    }
    // Several images: in the parallel loop; one: the single (threaded) call.
    {
      const bool pfor = n > 1;
      const std::string suffix = pfor ? "_pfor" : "";
      std::fill(o_nhwc->begin(), o_nhwc->end(), 0.0f);
      run_nhwc(pfor);
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
      report(id + "/opencv_remap_nhwc" + suffix,
             Compare{max_abs, mean_abs / static_cast<double>(numel(d->dst_shape))}, 2e-2, 0.5);
      for (const std::string& name :
           {id + "|opencv_remap_nhwc" + suffix, id + "/nhwc/f32|opencv_remap" + suffix}) {
        const size_t bar = name.find('|');
        gridops::bench::add(name.substr(0, bar), name.substr(bar + 1), bytes,
                            [=](benchmark::State& st) {
                              (void)d;  // keeps the workload's buffers alive
                              for (auto _ : st) {
                                run_nhwc(pfor);
                                benchmark::DoNotOptimize(o_nhwc->data());
                              }
                            });
      }
    }
  }
}
#endif


// --- W10: displacement (flow) warps (issue 51) ----------------------------------------------
//
// The W1a, W2a and W3a warps (the same sample points) with the grid given as a pixel
// displacement d = x - o (x the pixel coordinate of W1a's grid, o the output index), as
// optical-flow, frame-interpolation and registration code holds it: gridops takes d
// directly (grid_units=pixels, grid_kind=displacement; impl gridops_displacement), against
// gridops on the absolute normalized grid (gridops_absolute: the ratio the issue bounds by
// 1.1) and the ways users compose it today, all per call: PyTorch normalize(base + d) then
// grid_sampler (torch_compose; base precomputed, align_corners=0 arithmetic), OpenCV
// map = base + d then remap per plane in a parallel loop (opencv_compose_pfor, 2-D).

/// The pixel displacement of a normalized absolute grid (align_corners=0).
std::vector<float> displacement_of(const Data& d) {
  const int r = static_cast<int>(d.grid_shape.size()) - 2;
  std::vector<float> flow(d.grid.size());
  const int64_t points = numel(d.grid_shape) / r;
  const int64_t per_batch = points / d.grid_shape[0];
  for (int64_t q = 0; q < points; ++q) {
    int64_t rem = q % per_batch;
    int64_t o[3] = {0, 0, 0};
    for (int a = r - 1; a >= 0; --a) {
      o[a] = rem % d.grid_shape[static_cast<size_t>(a) + 1];
      rem /= d.grid_shape[static_cast<size_t>(a) + 1];
    }
    for (int k = 0; k < r; ++k) {
      const int a = r - 1 - k;
      const float len = static_cast<float>(d.src_shape[static_cast<size_t>(a) + 2]);
      const float g = d.grid[static_cast<size_t>(q * r + k)];
      flow[static_cast<size_t>(q * r + k)] =
          ((g + 1.0f) * len - 1.0f) / 2.0f - static_cast<float>(o[a]);
    }
  }
  return flow;
}

void add_w10(const std::string& id, const std::shared_ptr<Data>& d, InterpolationMode m) {
  auto flow = std::make_shared<std::vector<float>>(displacement_of(*d));
  const gridops::TensorView src(DType::kFloat32, d->src.data(), d->src_shape);
  const gridops::TensorView grid(DType::kFloat32, d->grid.data(), d->grid_shape);
  const gridops::TensorView fl(DType::kFloat32, flow->data(), d->grid_shape);
  const gridops::MutableTensorView dst(DType::kFloat32, d->dst.data(), d->dst_shape);
  gridops::GridSampleDesc abs_desc;
  abs_desc.mode = m;
  gridops::GridSampleDesc disp_desc = abs_desc;
  disp_desc.units = gridops::GridUnits::kPixels;
  disp_desc.kind = gridops::GridKind::kDisplacement;
  auto pa = gridops::make_grid_sample_plan(abs_desc, DType::kFloat32, d->src_shape,
                                           DType::kFloat32, d->grid_shape);
  auto pd = gridops::make_grid_sample_plan(disp_desc, DType::kFloat32, d->src_shape,
                                           DType::kFloat32, d->grid_shape);
  if (!pa.ok() || !pd.ok()) {
    std::fprintf(stderr, "%s: no plan\n", id.c_str());
    return;
  }
  auto plan_abs = std::make_shared<gridops::GridSamplePlan>(pa.value());
  auto plan_disp = std::make_shared<gridops::GridSamplePlan>(pd.value());
  std::fprintf(stderr, "[info] %s: gridops implementations '%s' (absolute), '%s' (displacement)\n",
               id.c_str(), plan_abs->impl_name(), plan_disp->impl_name());
  auto other = std::make_shared<std::vector<float>>(d->dst.size());
  const gridops::MutableTensorView dst2(DType::kFloat32, other->data(), d->dst_shape);
  if (!plan_abs->run(src, grid, dst).ok() || !plan_disp->run(src, fl, dst2).ok()) return;
  report(id + "/gridops_displacement (against the absolute grid)",
         compare(other->data(), d->dst.data(), numel(d->dst_shape)), 1e-4, 1e-2);
  const int64_t bytes = bytes_of(*d);
  gridops::bench::add(id, "gridops_absolute", bytes, [=](benchmark::State& st) {
    (void)d;
    for (auto _ : st) benchmark::DoNotOptimize(plan_abs->run(src, grid, dst).ok());
  });
  gridops::bench::add(id, "gridops_displacement", bytes, [=](benchmark::State& st) {
    (void)d;
    (void)flow;
    (void)other;
    for (auto _ : st) benchmark::DoNotOptimize(plan_disp->run(src, fl, dst2).ok());
  });
  const int r = static_cast<int>(d->grid_shape.size()) - 2;
#ifdef GRIDOPS_BENCH_TORCH
  {
    c10::InferenceMode guard;
    auto opts = at::TensorOptions().dtype(at::kFloat);
    at::Tensor x = at::from_blob(d->src.data(), d->src_shape, opts);
    at::Tensor f = at::from_blob(flow->data(), d->grid_shape, opts);
    // The base grid (1, D1_out, ..., r) of output indices, and the normalization
    // g = (x + 0.5) * 2 / L - 1 as a scale and shift per component (align_corners=0).
    std::vector<at::Tensor> comps;
    std::vector<int64_t> out(d->grid_shape.begin() + 1, d->grid_shape.end() - 1);
    std::vector<float> scale, shift;
    for (int k = 0; k < r; ++k) {
      const int a = r - 1 - k;
      std::vector<int64_t> shp(static_cast<size_t>(r), 1);
      shp[static_cast<size_t>(a)] = out[static_cast<size_t>(a)];
      comps.push_back(at::arange(out[static_cast<size_t>(a)], opts).view(shp).expand(out));
      const float len = static_cast<float>(d->src_shape[static_cast<size_t>(a) + 2]);
      scale.push_back(2.0f / len);
      shift.push_back(1.0f / len - 1.0f);
    }
    at::Tensor base = at::stack(comps, -1).unsqueeze(0).contiguous();
    at::Tensor sc = at::tensor(scale, opts), sh = at::tensor(shift, opts);
    const bool is3d = r == 3;
    const int mode = m == InterpolationMode::kLinear ? 0 : m == InterpolationMode::kNearest ? 1 : 2;
    auto call = [=]() {
      at::Tensor g = (f + base) * sc + sh;
      return is3d ? at::grid_sampler_3d(x, g, mode, 0, false) : at::grid_sampler_2d(x, g, mode, 0, false);
    };
    gridops::bench::set_threads(2);
    at::Tensor y = call();
    report(id + "/torch_compose", compare(y.data_ptr<float>(), d->dst.data(), numel(d->dst_shape)),
           1e-4, 1e-2);
    gridops::bench::add(id, "torch_compose", bytes, [=](benchmark::State& st) {
      (void)d;
      (void)flow;
      c10::InferenceMode g2;
      for (auto _ : st) {
        at::Tensor o = call();
        benchmark::DoNotOptimize(o.data_ptr());
      }
    });
  }
#endif
#ifdef GRIDOPS_BENCH_OPENCV
  if (r == 2) {
    const int n = static_cast<int>(d->src_shape[0]), c = static_cast<int>(d->src_shape[1]);
    const int h = static_cast<int>(d->src_shape[2]), w = static_cast<int>(d->src_shape[3]);
    const int ho = static_cast<int>(d->grid_shape[1]), wo = static_cast<int>(d->grid_shape[2]);
    // The flow as two planes per batch (how OpenCV code holds it), the base maps, and the
    // per-call maps base + flow.
    auto fx = std::make_shared<std::vector<cv::Mat>>(), fy = std::make_shared<std::vector<cv::Mat>>();
    for (int b = 0; b < n; ++b) {
      cv::Mat a(ho, wo, CV_32FC1), bb(ho, wo, CV_32FC1);
      const float* fp = flow->data() + static_cast<size_t>(b) * ho * wo * 2;
      for (int i = 0; i < ho; ++i)
        for (int j = 0; j < wo; ++j) {
          a.at<float>(i, j) = fp[(i * wo + j) * 2];
          bb.at<float>(i, j) = fp[(i * wo + j) * 2 + 1];
        }
      fx->push_back(a);
      fy->push_back(bb);
    }
    cv::Mat bx(ho, wo, CV_32FC1), by(ho, wo, CV_32FC1);
    for (int i = 0; i < ho; ++i)
      for (int j = 0; j < wo; ++j) {
        bx.at<float>(i, j) = static_cast<float>(j);
        by.at<float>(i, j) = static_cast<float>(i);
      }
    auto out = std::make_shared<std::vector<float>>(d->dst.size());
    float* srcp = d->src.data();
    const int interp = cv_interp(m);
    const size_t plane_in = static_cast<size_t>(h) * w, plane_out = static_cast<size_t>(ho) * wo;
    auto run = [=]() {
      std::vector<cv::Mat> mx(static_cast<size_t>(n)), my(static_cast<size_t>(n));
      cv::parallel_for_(cv::Range(0, n), [&](const cv::Range& rg) {
        for (int b = rg.start; b < rg.end; ++b) {
          cv::add(bx, (*fx)[static_cast<size_t>(b)], mx[static_cast<size_t>(b)]);
          cv::add(by, (*fy)[static_cast<size_t>(b)], my[static_cast<size_t>(b)]);
        }
      });
      cv::parallel_for_(cv::Range(0, n * c), [&](const cv::Range& rg) {
        for (int k = rg.start; k < rg.end; ++k) {
          const size_t b = static_cast<size_t>(k / c);
          cv::Mat s(h, w, CV_32FC1, srcp + static_cast<size_t>(k) * plane_in);
          cv::Mat o(ho, wo, CV_32FC1, out->data() + static_cast<size_t>(k) * plane_out);
          cv::remap(s, o, mx[b], my[b], interp, cv::BORDER_CONSTANT, cv::Scalar(0));
        }
      });
    };
    gridops::bench::set_threads(2);
    run();
    report(id + "/opencv_compose_pfor", compare(out->data(), d->dst.data(), numel(d->dst_shape)),
           2e-2, 0.5);
    gridops::bench::add(id, "opencv_compose_pfor", bytes, [=](benchmark::State& st) {
      (void)d;
      for (auto _ : st) {
        run();
        benchmark::DoNotOptimize(out->data());
      }
    });
  }
#endif
}

void register_w10() {
  using IM = InterpolationMode;
  {
    const Dims gs{4, 128, 128, 2};
    add_w10("W10a", make_data({4, 64, 128, 128}, gs, random_grid(gs)), IM::kLinear);
  }
  {
    const Dims gs{1, 1024, 1024, 2};
    add_w10("W10b", make_data({1, 3, 1024, 1024}, gs, smooth_grid(1024, 1024)), IM::kLinear);
  }
  {
    const Dims gs{1, 64, 64, 64, 3};
    add_w10("W10c", make_data({1, 16, 64, 64, 64}, gs, random_grid(gs)), IM::kLinear);
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
      add_opencv(k.id, dk, k.mode, k.padding, false, true, false);
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
      add_opencv(k.id, dk, k.mode, k.padding, true, true, true);
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
  // W10: the W1a, W2a, W3a warps from displacement fields.
  register_w10();
}

}  // namespace

int main(int argc, char** argv) { return gridops::bench::run_main(argc, argv, register_all); }
