// Gather workloads W6a-W6c (../shared/bench/WORKLOADS.md): gridops against PyTorch's
// index_select_out (int64 indices, output preallocated) and a memcpy of the output size
// (the bandwidth reference, `memcpy_output`); and each entry of the Gather list that takes
// the workload, forced by name ("ref" included), as <id>/<entry>.
#include <cstdio>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "bench_util.h"
#include "gridops/ops/gather.h"
#include "ops/gather_impls.h"
#include "gridops/tensor.h"

#ifdef GRIDOPS_BENCH_TORCH
#include <ATen/ATen.h>
#include <c10/core/InferenceMode.h>
#endif

namespace {

using gridops::Dims;
using gridops::DType;

struct State {
  gridops::Tensor data, indices, dst;
  gridops::GatherPlan plan;
};

void register_workload(const std::string& id, int64_t axis, const Dims& shape, int64_t nidx) {
  auto st = std::make_shared<State>();
  st->data = gridops::Tensor(DType::kFloat32, shape);
  const std::vector<float> v =
      gridops::bench::random_floats(static_cast<size_t>(st->data.num_elements()), -1.f, 1.f);
  std::memcpy(st->data.data(), v.data(), st->data.nbytes());
  st->indices = gridops::Tensor(DType::kInt64, Dims{nidx});
  std::mt19937_64 rng(7);
  for (int64_t i = 0; i < nidx; ++i) {
    st->indices.data_as<int64_t>()[i] =
        static_cast<int64_t>(rng() % static_cast<uint64_t>(shape[static_cast<size_t>(axis)]));
  }
  gridops::GatherDesc desc;
  desc.axis = axis;
  auto plan = gridops::make_gather_plan(desc, DType::kFloat32, shape, DType::kInt64, Dims{nidx});
  if (!plan.ok()) {
    std::fprintf(stderr, "%s: %s\n", id.c_str(), plan.status().to_string().c_str());
    return;
  }
  st->plan = *plan;
  st->dst = gridops::Tensor(DType::kFloat32, st->plan.dst_shape());
  if (!st->plan.run(st->data.view(), st->indices.view(), st->dst.mutable_view()).ok()) std::abort();
  const int64_t out_bytes = static_cast<int64_t>(st->dst.nbytes());
  // Every input read once (the gathered slices and the indices) plus the output written.
  const int64_t bytes = 2 * out_bytes + static_cast<int64_t>(st->indices.nbytes());

  gridops::bench::add(id, "gridops", bytes, [st](benchmark::State& s) {
    const gridops::TensorView data = st->data.view(), idx = st->indices.view();
    const gridops::MutableTensorView dst = st->dst.mutable_view();
    for (auto _ : s) {
      if (!st->plan.run(data, idx, dst).ok()) s.SkipWithError("gridops gather failed");
      benchmark::DoNotOptimize(st->dst.data());
    }
  });

  // Every entry of the list that takes the workload, forced by name ("ref" included):
  // <id>/<entry>/threads:<n>, beside the automatic choice "gridops".
  for (const auto& e : gridops::detail::gather_entries()) {
    gridops::GatherDesc forced = desc;
    forced.impl = e.name;
    auto p = gridops::make_gather_plan(forced, DType::kFloat32, shape, DType::kInt64, Dims{nidx});
    if (!p.ok()) continue;
    auto entry_plan = std::make_shared<gridops::GatherPlan>(*std::move(p));
    gridops::bench::add(id, e.name, bytes, [st, entry_plan](benchmark::State& s) {
      const gridops::TensorView data = st->data.view(), idx = st->indices.view();
      const gridops::MutableTensorView dst = st->dst.mutable_view();
      for (auto _ : s) {
        if (!entry_plan->run(data, idx, dst).ok()) s.SkipWithError("gridops gather failed");
        benchmark::DoNotOptimize(st->dst.data());
      }
    });
  }

  gridops::bench::add_memcpy_output(id, out_bytes);

#ifdef GRIDOPS_BENCH_TORCH
  {
    c10::InferenceMode guard;
    std::vector<int64_t> sizes(shape.begin(), shape.end());
    const at::Tensor x = at::from_blob(st->data.data(), sizes, at::kFloat);
    const at::Tensor idx = at::from_blob(st->indices.data(), {nidx}, at::kLong);
    std::vector<int64_t> out_sizes(st->dst.shape().begin(), st->dst.shape().end());
    auto out = std::make_shared<at::Tensor>(at::empty(out_sizes, at::kFloat));
    at::index_select_out(*out, x, axis, idx);
    if (std::memcmp(out->data_ptr(), st->dst.data(), st->dst.nbytes()) != 0) {
      std::fprintf(stderr, "WARNING: %s/torch differs from gridops' result\n", id.c_str());
    }
    gridops::bench::add(id, "torch", bytes, [x, idx, out, axis](benchmark::State& s) {
      c10::InferenceMode g;
      for (auto _ : s) {
        at::index_select_out(*out, x, axis, idx);
        benchmark::DoNotOptimize(out->data_ptr());
      }
    });
  }
#endif
}

void register_all() {
  register_workload("W6a", 0, {100000, 256}, 50000);
  register_workload("W6b", 1, {64, 4096, 64}, 2048);
  register_workload("W6c", 1, {1024, 1024}, 512);
}

}  // namespace

int main(int argc, char** argv) { return gridops::bench::run_main(argc, argv, register_all); }
