// Resize workloads W8a-W8d (docs/BENCHMARKS.md) per layout (nchw, nhwc; 3-D: ncdhw, ndhwc):
// gridops Resize (plan built once, run timed) against PyTorch (upsample_bicubic2d,
// _upsample_bilinear2d_aa, upsample_trilinear3d _out variants on contiguous or
// channels-last tensors) and OpenCV cv::resize (INTER_CUBIC, INTER_AREA, INTER_LINEAR; per
// plane for nchw, per image for nhwc, in a cv::parallel_for_ (*_pfor), and for nhwc also one
// image after another; 2-D only). Names: <workload>/<layout>/<impl>/threads:<n>.
// Before timing, each peer's output is compared with gridops' and the largest difference
// printed (a note, not a failure: OpenCV's INTER_AREA is a box filter, not the tent).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "bench_util.h"
#include "gridops/ops/resize.h"
#include "gridops/tensor.h"
#include "ops/resize_impls.h"

#ifdef GRIDOPS_BENCH_TORCH
#include <ATen/ATen.h>
#include <c10/core/InferenceMode.h>
#endif
#ifdef GRIDOPS_BENCH_OPENCV
#include <opencv2/imgproc.hpp>
#endif

namespace {

using gridops::DType;
using gridops::Dims;

enum class Kind { kBicubic, kAntialiasBilinear, kTrilinearAlignCorners };

struct Workload {
  const char* id;
  Dims src;  // logical (N, C, spatial...)
  double scale;
  Kind kind;
  DType dtype;
};

const Workload kWorkloads[] = {
    {"W8a", {8, 3, 512, 512}, 2.0, Kind::kBicubic, DType::kFloat32},
    {"W8b", {8, 3, 512, 512}, 2.0, Kind::kBicubic, DType::kUInt8},
    {"W8c", {8, 3, 1024, 1024}, 0.25, Kind::kAntialiasBilinear, DType::kFloat32},
    {"W8d", {1, 16, 64, 128, 128}, 2.0, Kind::kTrilinearAlignCorners, DType::kFloat32},
};

int64_t product(const Dims& d) {
  int64_t p = 1;
  for (int64_t v : d) p *= v;
  return p;
}

/// Physical dims of a logical (N, C, S...) shape in a layout.
Dims physical(const Dims& logical, bool channels_last) {
  if (!channels_last) return logical;
  Dims p{logical[0]};
  for (size_t i = 2; i < logical.size(); ++i) p.push_back(logical[i]);
  p.push_back(logical[1]);
  return p;
}

gridops::ResizeDesc desc_of(const Workload& w, bool channels_last) {
  gridops::ResizeDesc d;
  const int r = static_cast<int>(w.src.size()) - 2;
  for (int k = 0; k < r; ++k) {
    d.axes.push_back(channels_last ? 1 + k : 2 + k);
    d.scales.push_back(w.scale);
  }
  switch (w.kind) {
    case Kind::kBicubic: d.mode = gridops::ResizeMode::kCubic; break;  // A = -0.75, half_pixel
    case Kind::kAntialiasBilinear:
      d.mode = gridops::ResizeMode::kLinear;
      d.antialias = true;
      d.exclude_outside = true;  // PyTorch's (and PIL's) antialias drops outside taps
      break;
    case Kind::kTrilinearAlignCorners:
      d.mode = gridops::ResizeMode::kLinear;
      d.coordinate_mode = gridops::ResizeCoordinateMode::kAlignCorners;
      break;
  }
  return d;
}

struct Data {
  gridops::Tensor in, out, ref;  // physical layout; ref: gridops' output
};

double max_diff(const gridops::Tensor& a, const gridops::Tensor& b) {
  double m = 0;
  for (int64_t i = 0; i < a.num_elements(); ++i) {
    const double x = a.dtype() == DType::kUInt8 ? a.data_as<uint8_t>()[i] : a.data_as<float>()[i];
    const double y = b.dtype() == DType::kUInt8 ? b.data_as<uint8_t>()[i] : b.data_as<float>()[i];
    m = std::max(m, std::fabs(x - y));
  }
  return m;
}

void note(const std::string& name, const gridops::Tensor& got, const gridops::Tensor& ref) {
  std::fprintf(stderr, "note: %s max |diff| vs gridops = %g\n", name.c_str(), max_diff(got, ref));
}

#ifdef GRIDOPS_BENCH_TORCH
void add_torch(const std::string& wname, const Workload& w, bool cl, int64_t bytes, std::shared_ptr<Data> data) {
  try {
    c10::InferenceMode guard;
    const int r = static_cast<int>(w.src.size()) - 2;
    std::vector<int64_t> in_l(w.src.begin(), w.src.end()), out_l = in_l;
    for (int k = 0; k < r; ++k) out_l[2 + static_cast<size_t>(k)] = static_cast<int64_t>(std::floor(in_l[2 + static_cast<size_t>(k)] * w.scale));
    auto strides = [&](const std::vector<int64_t>& l) {
      // Strides of the logical dims for our physical layout.
      std::vector<int64_t> s(l.size());
      if (!cl) {
        int64_t acc = 1;
        for (size_t i = l.size(); i-- > 0;) { s[i] = acc; acc *= l[i]; }
      } else {
        int64_t acc = l[1];
        s[1] = 1;
        for (size_t i = l.size(); i-- > 2;) { s[i] = acc; acc *= l[i]; }
        s[0] = acc;
      }
      return s;
    };
    const auto opts = at::TensorOptions().dtype(w.dtype == DType::kUInt8 ? at::kByte : at::kFloat);
    auto out = std::make_shared<gridops::Tensor>(w.dtype, data->out.shape());
    auto x = std::make_shared<at::Tensor>(at::from_blob(data->in.data(), in_l, strides(in_l), opts));
    auto y = std::make_shared<at::Tensor>(at::from_blob(out->data(), out_l, strides(out_l), opts));
    std::vector<int64_t> osz(out_l.begin() + 2, out_l.end());
    // The closure owns every buffer torch reads or writes (from_blob does not).
    auto fn = [=, keep_out = out, keep_data = data]() {
      (void)keep_out;
      (void)keep_data;
      c10::InferenceMode g;
      switch (w.kind) {
        case Kind::kBicubic: at::upsample_bicubic2d_out(*y, *x, osz, false, c10::nullopt, c10::nullopt); break;
        case Kind::kAntialiasBilinear: at::_upsample_bilinear2d_aa_out(*y, *x, osz, false, c10::nullopt, c10::nullopt); break;
        case Kind::kTrilinearAlignCorners:
          at::upsample_trilinear3d_out(*y, *x, osz, true, c10::nullopt, c10::nullopt, c10::nullopt);
          break;
      }
    };
    fn();
    note(wname + "/torch", *out, data->ref);
    gridops::bench::add(wname, "torch", bytes, [=](benchmark::State& st) {
      for (auto _ : st) fn();
    });
  } catch (const std::exception& e) {
    std::fprintf(stderr, "note: torch has no %s (%.200s)\n", wname.c_str(), e.what());
  }
}
#endif

#ifdef GRIDOPS_BENCH_OPENCV
/// cv::resize per plane (nchw) or per interleaved image (nhwc), the planes or images spread
/// over OpenCV's threads with a cv::parallel_for_ (impl `<impl>_pfor`): one resize call
/// threads its output in stripes of about 64 Ki pixels and ran a W8 call mostly or wholly
/// on one thread, so the loop over planes is how a user with many images threads it.
/// nhwc also registers one image after another (impl `<impl>`), as each of those larger calls'
/// own threads came close to the parallel loop.
void add_opencv(const std::string& wname, const Workload& w, bool cl, int64_t bytes, std::shared_ptr<Data> data,
                int interpolation, const char* impl) {
  if (w.src.size() != 4) return;  // cv::resize is 2-D
  const int H = static_cast<int>(w.src[2]), W = static_cast<int>(w.src[3]);
  const int OH = static_cast<int>(std::floor(H * w.scale)), OW = static_cast<int>(std::floor(W * w.scale));
  const int C = static_cast<int>(w.src[1]), N = static_cast<int>(w.src[0]);
  const int depth = w.dtype == DType::kUInt8 ? CV_8U : CV_32F;
  const size_t es = gridops::dtype_size(w.dtype);
  auto out = std::make_shared<gridops::Tensor>(w.dtype, data->out.shape());
  // Images (nhwc) or planes (nchw) [lo, hi), one resize call each.
  auto some = [=](int lo, int hi) {
    for (int k = lo; k < hi; ++k) {
      const int type = cl ? CV_MAKETYPE(depth, C) : depth;
      const size_t in_px = static_cast<size_t>(H) * W * (cl ? C : 1);
      const size_t out_px = static_cast<size_t>(OH) * OW * (cl ? C : 1);
      cv::Mat s(H, W, type, static_cast<char*>(data->in.data()) + static_cast<size_t>(k) * in_px * es);
      cv::Mat d(OH, OW, type, static_cast<char*>(out->data()) + static_cast<size_t>(k) * out_px * es);
      cv::resize(s, d, d.size(), 0, 0, interpolation);
    }
  };
  const int count = cl ? N : N * C;
  for (const bool pfor : cl ? std::vector<bool>{false, true} : std::vector<bool>{true}) {
    auto fn = [=]() {
      if (pfor) {
        cv::parallel_for_(cv::Range(0, count), [&](const cv::Range& r) { some(r.start, r.end); });
      } else {
        some(0, count);
      }
    };
    const std::string name = std::string(impl) + (pfor ? "_pfor" : "");
    std::memset(out->data(), 0, out->nbytes());
    fn();
    note(wname + "/" + name, *out, data->ref);
    gridops::bench::add(wname, name, bytes, [=](benchmark::State& st) {
      for (auto _ : st) fn();
    });
  }
}
#endif

void register_all() {
  for (const Workload& w : kWorkloads) {
    for (bool cl : {false, true}) {
      const bool three_d = w.src.size() == 5;
      const std::string wname = std::string(w.id) + "/" + (cl ? (three_d ? "ndhwc" : "nhwc") : (three_d ? "ncdhw" : "nchw"));
      const gridops::ResizeDesc d = desc_of(w, cl);
      const Dims in_p = physical(w.src, cl);
      auto plan = gridops::make_resize_plan(d, w.dtype, in_p);
      if (!plan.ok()) {
        std::fprintf(stderr, "%s: %s\n", wname.c_str(), plan.status().to_string().c_str());
        continue;
      }
      auto data = std::make_shared<Data>();
      data->in = gridops::Tensor(w.dtype, in_p);
      const std::vector<float> r = gridops::bench::random_floats(static_cast<size_t>(product(in_p)), 0, 255);
      for (size_t i = 0; i < r.size(); ++i) {
        if (w.dtype == DType::kUInt8) data->in.data_as<uint8_t>()[i] = static_cast<uint8_t>(r[i]);
        else data->in.data_as<float>()[i] = r[i];
      }
      data->out = gridops::Tensor(w.dtype, plan->dst_shape());
      data->ref = gridops::Tensor(w.dtype, plan->dst_shape());
      if (!plan->run(data->in, data->ref.mutable_view()).ok()) continue;
      const int64_t bytes = static_cast<int64_t>((product(in_p) + product(plan->dst_shape())) * gridops::dtype_size(w.dtype));
      auto add_plan = [&](const std::string& impl, const gridops::ResizePlan& pl) {
        auto p = std::make_shared<gridops::ResizePlan>(pl);
        gridops::bench::add(wname, impl, bytes, [=](benchmark::State& st) {
          for (auto _ : st) {
            auto s = p->run(data->in, data->out.mutable_view());
            if (!s.ok()) st.SkipWithError(s.message().c_str());
          }
        });
      };
      add_plan("gridops", *plan);
      // Each entry of the list that takes the workload, forced by name ("ref" included).
      for (const gridops::detail::ResizeEntry& e : gridops::detail::resize_entries()) {
        gridops::ResizeDesc forced = d;
        forced.impl = e.name;
        auto ep = gridops::make_resize_plan(forced, w.dtype, in_p);
        if (ep.ok()) add_plan(e.name, *ep);
      }
#ifdef GRIDOPS_BENCH_TORCH
      add_torch(wname, w, cl, bytes, data);
#endif
#ifdef GRIDOPS_BENCH_OPENCV
      switch (w.kind) {
        case Kind::kBicubic: add_opencv(wname, w, cl, bytes, data, cv::INTER_CUBIC, "opencv_cubic"); break;
        case Kind::kAntialiasBilinear:
          add_opencv(wname, w, cl, bytes, data, cv::INTER_AREA, "opencv_area");
          add_opencv(wname, w, cl, bytes, data, cv::INTER_LINEAR, "opencv_linear");
          break;
        case Kind::kTrilinearAlignCorners: break;
      }
#endif
    }
  }
}

}  // namespace

int main(int argc, char** argv) { return gridops::bench::run_main(argc, argv, register_all); }
