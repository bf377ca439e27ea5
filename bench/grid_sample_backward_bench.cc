// Workload W9 (docs/BENCHMARKS.md): GridSample backward, both gradients, of W1a (2-D
// bilinear), W1c (2-D bicubic) and W3a (3-D trilinear), zeros padding, align_corners=0,
// float32, gridops against PyTorch's at::grid_sampler_2d_backward / _3d_backward
// (libtorch) in one binary. Names: W9a (W1a), W9b (W1c), W9c (W3a): <id>/<impl>/threads:<n>,
// <impl> "gridops" (the automatic choice), each entry of the backward list that takes the
// workload (forced by name; test-only ones and "ref" included), and the peers.
// grad_dst is uniform in [-1, 1]. The peer's gradients are compared with gridops' once in
// the setup (not timed); a warning is printed when they disagree.
#include <cmath>
#include <cstdio>
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

namespace {

using gridops::DType;
using gridops::Dims;
using gridops::GridPadding;
using gridops::InterpolationMode;

int64_t numel(const Dims& d) {
  int64_t n = 1;
  for (int64_t v : d) n *= v;
  return n;
}

struct Data {
  Dims src_shape, grid_shape, dst_shape;
  std::vector<float> src, grid, grad_dst, grad_src, grad_grid;
  InterpolationMode mode = InterpolationMode::kLinear;
};

std::shared_ptr<Data> make_data(Dims src_shape, Dims grid_shape, InterpolationMode mode) {
  auto d = std::make_shared<Data>();
  d->src_shape = src_shape;
  d->grid_shape = grid_shape;
  d->dst_shape = {src_shape[0], src_shape[1]};
  for (size_t i = 1; i + 1 < grid_shape.size(); ++i) d->dst_shape.push_back(grid_shape[i]);
  d->src = gridops::bench::random_floats(static_cast<size_t>(numel(src_shape)), -1.0f, 1.0f, 7);
  d->grid = gridops::bench::random_floats(static_cast<size_t>(numel(grid_shape)), -1.1f, 1.1f, 11);
  d->grad_dst = gridops::bench::random_floats(static_cast<size_t>(numel(d->dst_shape)), -1.0f, 1.0f, 13);
  d->grad_src.assign(d->src.size(), 0.0f);
  d->grad_grid.assign(d->grid.size(), 0.0f);
  d->mode = mode;
  return d;
}

int64_t bytes_of(const Data& d) {
  // Reads src, grid, grad_dst; writes grad_src and grad_grid.
  return 4 * (2 * numel(d.src_shape) + 2 * numel(d.grid_shape) + numel(d.dst_shape));
}

/// Registers gridops with entry `impl` forced ("": the automatic choice) as <id>/<label>;
/// an entry that declines the workload is skipped.
void add_gridops(const std::string& id, const std::shared_ptr<Data>& d, const std::string& label,
                 const char* impl) {
  gridops::GridSampleDesc desc;
  desc.mode = d->mode;
  desc.impl = impl;
  auto plan = gridops::make_grid_sample_backward_plan(desc, DType::kFloat32, d->src_shape,
                                                      DType::kFloat32, d->grid_shape);
  if (!plan.ok()) {
    std::fprintf(stderr, "%s/%s: %s\n", id.c_str(), label.c_str(), plan.status().to_string().c_str());
    return;
  }
  auto pl = std::make_shared<gridops::GridSampleBackwardPlan>(plan.value());
  const gridops::TensorView gd(DType::kFloat32, d->grad_dst.data(), d->dst_shape);
  const gridops::TensorView src(DType::kFloat32, d->src.data(), d->src_shape);
  const gridops::TensorView grid(DType::kFloat32, d->grid.data(), d->grid_shape);
  const gridops::MutableTensorView gs(DType::kFloat32, d->grad_src.data(), d->src_shape);
  const gridops::MutableTensorView gg(DType::kFloat32, d->grad_grid.data(), d->grid_shape);
  if (!pl->run(gd, src, grid, &gs, &gg).ok()) std::fprintf(stderr, "%s/%s: run failed\n", id.c_str(), label.c_str());
  std::fprintf(stderr, "[info] %s/%s: gridops implementation '%s'\n", id.c_str(), label.c_str(), pl->impl_name());
  gridops::bench::add(id, label, bytes_of(*d), [=](benchmark::State& st) {
    (void)d;
    for (auto _ : st) {
      const gridops::Status s = pl->run(gd, src, grid, &gs, &gg);
      benchmark::DoNotOptimize(s.ok());
    }
  });
}

#ifdef GRIDOPS_BENCH_TORCH
void add_torch(const std::string& id, const std::shared_ptr<Data>& d) {
  c10::InferenceMode guard;
  auto opts = at::TensorOptions().dtype(at::kFloat);
  at::Tensor x = at::from_blob(d->src.data(), d->src_shape, opts);
  at::Tensor g = at::from_blob(d->grid.data(), d->grid_shape, opts);
  at::Tensor go = at::from_blob(d->grad_dst.data(), d->dst_shape, opts);
  const int mode = d->mode == InterpolationMode::kLinear ? 0 : d->mode == InterpolationMode::kNearest ? 1 : 2;
  const bool is3d = d->src_shape.size() == 5;
  auto call = [=]() {
    return is3d ? at::grid_sampler_3d_backward(go, x, g, mode, 0, false, {true, true})
                : at::grid_sampler_2d_backward(go, x, g, mode, 0, false, {true, true});
  };
  auto want = call();
  const at::Tensor wi = std::get<0>(want).contiguous(), wg = std::get<1>(want).contiguous();
  double max_i = 0, max_g = 0;
  for (int64_t i = 0; i < wi.numel(); ++i) {
    max_i = std::max(max_i, std::fabs(static_cast<double>(wi.data_ptr<float>()[i]) - d->grad_src[static_cast<size_t>(i)]));
  }
  for (int64_t i = 0; i < wg.numel(); ++i) {
    max_g = std::max(max_g, std::fabs(static_cast<double>(wg.data_ptr<float>()[i]) - d->grad_grid[static_cast<size_t>(i)]) /
                                (1.0 + std::fabs(static_cast<double>(wg.data_ptr<float>()[i]))));
  }
  const bool ok = max_i <= 1e-3 && max_g <= 1e-3;
  std::fprintf(stderr, "%s %s/torch: max |diff| grad_src %.3g, max rel diff grad_grid %.3g vs gridops\n",
               ok ? "[check]" : "[WARNING: results differ]", id.c_str(), max_i, max_g);
  gridops::bench::add(id, "torch", bytes_of(*d), [=](benchmark::State& st) {
    (void)d;
    c10::InferenceMode g2;
    for (auto _ : st) {
      auto out = call();
      benchmark::DoNotOptimize(std::get<0>(out).data_ptr());
    }
  });
}
#endif

void register_all() {
  gridops::bench::set_threads(2);
  struct Case {
    const char* id;
    Dims src, grid;
    InterpolationMode mode;
  } cases[] = {
      {"W9a", {4, 64, 128, 128}, {4, 128, 128, 2}, InterpolationMode::kLinear},
      {"W9b", {4, 64, 128, 128}, {4, 128, 128, 2}, InterpolationMode::kCubic},
      {"W9c", {1, 16, 64, 64, 64}, {1, 64, 64, 64, 3}, InterpolationMode::kLinear},
  };
  for (const Case& c : cases) {
    auto d = make_data(c.src, c.grid, c.mode);
    for (const auto& e : gridops::detail::grid_sample_backward_entries()) {
      add_gridops(c.id, d, e.name, e.name);
    }
    add_gridops(c.id, d, "gridops", "");  // last: the peers' check compares with its gradients
#ifdef GRIDOPS_BENCH_TORCH
    add_torch(c.id, d);
#endif
  }
}

}  // namespace

int main(int argc, char** argv) { return gridops::bench::run_main(argc, argv, register_all); }
