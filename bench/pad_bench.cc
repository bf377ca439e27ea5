// Pad workloads W7a-W7e (../shared/bench/WORKLOADS.md): gridops against PyTorch
// (constant_pad_nd_out, replication_pad2d_out / 1d, reflection_pad2d_out / 1d, and
// at::pad(..., "circular") for wrap; PyTorch has no symmetric pad), OpenCV copyMakeBorder
// per plane (threaded over planes or row bands with cv::parallel_for_), and a memcpy of the
// output size (the bandwidth reference, `memcpy_output`); and each entry of the Pad list
// that takes the workload, forced by name ("ref" included), as <id>/<entry>.
#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "bench_util.h"
#include "gridops/ops/pad.h"
#include "gridops/tensor.h"
#include "ops/pad_impls.h"

#ifdef GRIDOPS_BENCH_TORCH
#include <ATen/ATen.h>
#include <c10/core/InferenceMode.h>
#endif
#ifdef GRIDOPS_BENCH_OPENCV
#include <opencv2/core.hpp>
#endif

namespace {

using gridops::Dims;
using gridops::DType;
using gridops::PadMode;

struct Workload {
  std::string id;  // "W7a" or "W7e/<mode>/f32"
  PadMode mode;
  Dims shape, begin, end;
};

int64_t count_of(const Dims& s) {
  int64_t n = 1;
  for (int64_t d : s) n *= d;
  return n;
}

/// One workload's buffers, shared by gridops and the peers (kept alive for the process).
struct State {
  Workload w;
  gridops::Tensor src;
  gridops::Tensor dst;
  gridops::PadPlan plan;
};

void check_same(const std::string& what, const void* a, const void* b, size_t n) {
  if (std::memcmp(a, b, n) != 0) {
    std::fprintf(stderr, "WARNING: %s differs from gridops' result\n", what.c_str());
  }
}

#ifdef GRIDOPS_BENCH_OPENCV
int cv_border(PadMode m) {
  switch (m) {
    case PadMode::kConstant:
      return cv::BORDER_CONSTANT;
    case PadMode::kEdge:
      return cv::BORDER_REPLICATE;
    case PadMode::kReflect:
      return cv::BORDER_REFLECT_101;
    case PadMode::kSymmetric:
      return cv::BORDER_REFLECT;
    case PadMode::kWrap:
      return cv::BORDER_WRAP;
  }
  return cv::BORDER_CONSTANT;
}
#endif

void register_workload(const Workload& w) {
  auto st = std::make_shared<State>();
  st->w = w;
  st->src = gridops::Tensor(DType::kFloat32, w.shape);
  const std::vector<float> v =
      gridops::bench::random_floats(static_cast<size_t>(count_of(w.shape)), -1.f, 1.f);
  std::memcpy(st->src.data(), v.data(), st->src.nbytes());
  gridops::PadDesc desc;
  desc.mode = w.mode;
  desc.pads_begin = w.begin;
  desc.pads_end = w.end;
  auto plan = gridops::make_pad_plan(desc, DType::kFloat32, w.shape);
  if (!plan.ok()) {
    std::fprintf(stderr, "%s: %s\n", w.id.c_str(), plan.status().to_string().c_str());
    return;
  }
  st->plan = *plan;
  st->dst = gridops::Tensor(DType::kFloat32, st->plan.dst_shape());
  // Reference result (gridops) for the peers' checks.
  if (!st->plan.run(st->src.view(), st->dst.mutable_view()).ok()) std::abort();
  const std::vector<char> want(static_cast<const char*>(st->dst.data()),
                               static_cast<const char*>(st->dst.data()) + st->dst.nbytes());
  const int64_t out_bytes = static_cast<int64_t>(st->dst.nbytes());
  const int64_t bytes = static_cast<int64_t>(st->src.nbytes()) + out_bytes;

  gridops::bench::add(w.id, "gridops", bytes, [st](benchmark::State& s) {
    const gridops::TensorView src = st->src.view();
    const gridops::MutableTensorView dst = st->dst.mutable_view();
    for (auto _ : s) {
      if (!st->plan.run(src, dst).ok()) s.SkipWithError("gridops pad failed");
      benchmark::DoNotOptimize(st->dst.data());
    }
  });

  // Every entry of the list that takes the workload, forced by name ("ref" included):
  // <id>/<entry>/threads:<n>, beside the automatic choice "gridops".
  for (const auto& e : gridops::detail::pad_entries()) {
    gridops::PadDesc forced = desc;
    forced.impl = e.name;
    auto p = gridops::make_pad_plan(forced, DType::kFloat32, w.shape);
    if (!p.ok()) continue;
    auto entry_plan = std::make_shared<gridops::PadPlan>(*std::move(p));
    gridops::bench::add(w.id, e.name, bytes, [st, entry_plan](benchmark::State& s) {
      const gridops::TensorView src = st->src.view();
      const gridops::MutableTensorView dst = st->dst.mutable_view();
      for (auto _ : s) {
        if (!entry_plan->run(src, dst).ok()) s.SkipWithError("gridops pad failed");
        benchmark::DoNotOptimize(st->dst.data());
      }
    });
  }

  gridops::bench::add_memcpy_output(w.id, out_bytes);

#ifdef GRIDOPS_BENCH_TORCH
  {
    c10::InferenceMode guard;
    std::vector<int64_t> sizes(w.shape.begin(), w.shape.end());
    at::Tensor x = at::from_blob(st->src.data(), sizes, at::kFloat);
    std::vector<int64_t> out_sizes(st->dst.shape().begin(), st->dst.shape().end());
    auto out = std::make_shared<at::Tensor>(at::empty(out_sizes, at::kFloat));
    // torch's pad lists: innermost axis first, (begin, end) pairs.
    std::vector<int64_t> pads;
    for (size_t d = w.shape.size(); d-- > 0;) {
      pads.push_back(w.begin[d]);
      pads.push_back(w.end[d]);
    }
    const int rank = static_cast<int>(w.shape.size());
    std::function<void()> fn;
    switch (w.mode) {
      case PadMode::kConstant:
        fn = [x, out, pads] { at::constant_pad_nd_out(*out, x, pads, 0); };
        break;
      case PadMode::kEdge:
        if (rank == 4) {
          fn = [x, out, pads] { at::replication_pad2d_out(*out, x, {pads[0], pads[1], pads[2], pads[3]}); };
        } else {
          fn = [x, out, pads] { at::replication_pad1d_out(*out, x, {pads[0], pads[1]}); };
        }
        break;
      case PadMode::kReflect:
        if (rank == 4) {
          fn = [x, out, pads] { at::reflection_pad2d_out(*out, x, {pads[0], pads[1], pads[2], pads[3]}); };
        } else {
          fn = [x, out, pads] { at::reflection_pad1d_out(*out, x, {pads[0], pads[1]}); };
        }
        break;
      case PadMode::kWrap: {
        // No out= variant: at::pad allocates its result (the fastest public call).
        // Circular padding wants a batch axis: a 2-D (H, W) input goes in as (1, H, W).
        std::vector<int64_t> p(pads.begin(), pads.begin() + (rank == 4 ? 4 : 2));
        const at::Tensor xin = rank == 2 ? x.unsqueeze(0) : x;
        fn = [xin, out, p] { *out = at::pad(xin, p, "circular"); };
        break;
      }
      case PadMode::kSymmetric:
        break;  // PyTorch has no symmetric pad
    }
    if (fn) {
      bool ok = true;
      try {
        fn();
        check_same(w.id + "/torch", out->data_ptr(), want.data(), want.size());
      } catch (const std::exception& e) {
        std::fprintf(stderr, "%s/torch unavailable: %s\n", w.id.c_str(), e.what());
        ok = false;
      }
      if (ok) {
        gridops::bench::add(w.id, "torch", bytes, [fn, out](benchmark::State& s) {
          c10::InferenceMode g;
          for (auto _ : s) {
            fn();
            benchmark::DoNotOptimize(out->data_ptr());
          }
        });
      }
    }
  }
#endif

#ifdef GRIDOPS_BENCH_OPENCV
  {
    // Planes: all leading axes; each plane is a 2-D (H, W) image.
    const size_t r = w.shape.size();
    const int h = static_cast<int>(w.shape[r - 2]), wd = static_cast<int>(w.shape[r - 1]);
    const int oh = static_cast<int>(st->dst.shape()[r - 2]), ow = static_cast<int>(st->dst.shape()[r - 1]);
    const int64_t planes = count_of(w.shape) / (int64_t{h} * wd);
    const int top = static_cast<int>(w.begin[r - 2]), bottom = static_cast<int>(w.end[r - 2]);
    const int left = static_cast<int>(w.begin[r - 1]), right = static_cast<int>(w.end[r - 1]);
    const int border = cv_border(w.mode) | cv::BORDER_ISOLATED;
    auto out = std::make_shared<std::vector<char>>(static_cast<size_t>(out_bytes));
    float* src = st->src.data_as<float>();
    float* dstp = reinterpret_cast<float*>(out->data());
    std::function<void()> fn;
    if (planes > 1) {
      // One copyMakeBorder per plane, planes spread over the threads.
      fn = [=] {
        cv::parallel_for_(cv::Range(0, static_cast<int>(planes)), [&](const cv::Range& rg) {
          for (int p = rg.start; p < rg.end; ++p) {
            const cv::Mat in(h, wd, CV_32F, src + int64_t{p} * h * wd);
            cv::Mat o(oh, ow, CV_32F, dstp + int64_t{p} * oh * ow);
            cv::copyMakeBorder(in, o, top, bottom, left, right, border, cv::Scalar(0));
          }
        });
      };
    } else {
      // One plane padded on W only: row bands spread over the threads.
      fn = [=] {
        const int bands = 16;
        cv::parallel_for_(cv::Range(0, bands), [&](const cv::Range& rg) {
          for (int b = rg.start; b < rg.end; ++b) {
            const int r0 = h * b / bands, r1 = h * (b + 1) / bands;
            const cv::Mat in(r1 - r0, wd, CV_32F, src + int64_t{r0} * wd);
            cv::Mat o(r1 - r0, ow, CV_32F, dstp + int64_t{r0} * ow);
            cv::copyMakeBorder(in, o, 0, 0, left, right, border, cv::Scalar(0));
          }
        });
      };
    }
    if (planes > 1 || (top == 0 && bottom == 0)) {
      fn();
      check_same(w.id + "/opencv", out->data(), want.data(), want.size());
      gridops::bench::add(w.id, "opencv", bytes, [fn, out](benchmark::State& s) {
        for (auto _ : s) {
          fn();
          benchmark::DoNotOptimize(out->data());
        }
      });
    }
  }
#endif
}

void register_all() {
  const Dims nchw = {8, 64, 128, 128}, hw_b = {0, 0, 3, 3}, hw_e = {0, 0, 3, 3};
  register_workload({"W7a", PadMode::kConstant, nchw, hw_b, hw_e});
  register_workload({"W7b", PadMode::kEdge, nchw, hw_b, hw_e});
  register_workload({"W7c", PadMode::kReflect, nchw, hw_b, hw_e});
  register_workload({"W7d", PadMode::kSymmetric, nchw, hw_b, hw_e});
  for (PadMode m : {PadMode::kConstant, PadMode::kEdge, PadMode::kReflect, PadMode::kSymmetric,
                    PadMode::kWrap}) {
    register_workload({std::string("W7e/") + gridops::to_string(m) + "/f32", m, {4096, 1000},
                       {0, 0}, {0, 24}});
  }
}

}  // namespace

int main(int argc, char** argv) { return gridops::bench::run_main(argc, argv, register_all); }
