// AffineGrid workloads W4a (2-D) and W4b (3-D) of ../shared/bench/WORKLOADS.md: gridops
// against PyTorch's affine_grid_generator (libtorch), 1 and 2 threads, float32; plus gridops
// alone in float16, bfloat16 and float64 (W4a/contig/f16/...).
//
// Rows per workload:
//   gridops  plan once, AffineGridPlan::run into a preallocated grid;
//   <entry>  the same with each entry of the list that takes the workload forced by name
//            (affine_grid.rows, ref);
//   torch    at::affine_grid_generator under c10::InferenceMode. Its out= variant
//            (affine_grid_generator_out) is generated as "call the functional, then copy
//            into out", so it is strictly slower; the functional is the fastest call;
//   memset   the physical limit of a write-only operator: memset of the same output
//            bytes, split over the threads like gridops (not a peer, a reference).
// GB/s counts theta read once plus the grid written once. The copy bandwidth reference
// is copy64MiB/memcpy in gridops_bench_memcpy, run in the same session.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "bench_util.h"
#include "gridops/ops/affine_grid.h"
#include "ops/affine_grid_impls.h"
#include "gridops/dtype.h"
#include "gridops/tensor.h"

#ifdef GRIDOPS_BENCH_TORCH
#include <ATen/ATen.h>
#include <c10/core/InferenceMode.h>
#endif

namespace {

using gridops::Dims;
using gridops::DType;

struct Workload {
  const char* id;
  Dims theta_shape;
  Dims size;
  int64_t align_corners;
};

// A smooth random-ish theta: near-identity with rotation and translation per batch.
std::vector<float> make_theta(const Dims& shape) {
  const int64_t n = shape[0], rows = shape[1], cols = shape[2];
  std::vector<float> th(static_cast<size_t>(n * rows * cols));
  const std::vector<float> noise = gridops::bench::random_floats(th.size(), -0.2f, 0.2f, 7);
  for (int64_t b = 0; b < n; ++b) {
    for (int64_t k = 0; k < rows; ++k) {
      for (int64_t j = 0; j < cols; ++j) {
        const size_t i = static_cast<size_t>((b * rows + k) * cols + j);
        th[i] = (k == j ? 1.0f : 0.0f) + noise[i];
      }
    }
  }
  return th;
}

void register_workload(const Workload& w) {
  const Dims& ts = w.theta_shape;
  auto theta = std::make_shared<std::vector<float>>(make_theta(ts));
  gridops::AffineGridDesc desc;
  desc.align_corners = w.align_corners;
  auto plan_or = gridops::make_affine_grid_plan(desc, DType::kFloat32, ts, w.size);
  if (!plan_or.ok()) {
    std::fprintf(stderr, "%s: %s\n", w.id, plan_or.status().to_string().c_str());
    return;
  }
  auto plan = std::make_shared<gridops::AffineGridPlan>(std::move(plan_or).value());
  auto grid = std::make_shared<gridops::Tensor>(DType::kFloat32, plan->grid_shape());
  const gridops::TensorView theta_view(DType::kFloat32, theta->data(), ts);
  const int64_t out_bytes = static_cast<int64_t>(grid->nbytes());
  const int64_t bytes = static_cast<int64_t>(theta->size() * sizeof(float)) + out_bytes;
  std::printf("%s: gridops implementation '%s', grid %s (%.1f MiB)\n", w.id, plan->impl_name(),
              gridops::dims_to_string(plan->grid_shape()).c_str(),
              static_cast<double>(out_bytes) / (1 << 20));

  gridops::bench::add(w.id, "gridops", bytes, [=](benchmark::State& st) {
    const gridops::MutableTensorView out = grid->mutable_view();
    for (auto _ : st) {
      const gridops::Status s = plan->run(theta_view, out);
      if (!s.ok()) {
        st.SkipWithError(s.to_string().c_str());
        break;
      }
      benchmark::DoNotOptimize(grid->data());
      benchmark::ClobberMemory();
    }
  });

  // Every entry of the list that takes the workload, forced by name ("ref" included):
  // <id>/<entry>/threads:<n>, beside the automatic choice "gridops".
  for (const auto& e : gridops::detail::affine_grid_entries()) {
    gridops::AffineGridDesc forced = desc;
    forced.impl = e.name;
    auto p = gridops::make_affine_grid_plan(forced, DType::kFloat32, ts, w.size);
    if (!p.ok()) continue;
    auto entry_plan = std::make_shared<gridops::AffineGridPlan>(*std::move(p));
    gridops::bench::add(w.id, e.name, bytes, [=](benchmark::State& st) {
      const gridops::MutableTensorView out = grid->mutable_view();
      for (auto _ : st) {
        const gridops::Status s = entry_plan->run(theta_view, out);
        if (!s.ok()) {
          st.SkipWithError(s.to_string().c_str());
          break;
        }
        benchmark::DoNotOptimize(grid->data());
        benchmark::ClobberMemory();
      }
    });
  }

  auto scratch = std::make_shared<std::vector<char>>(static_cast<size_t>(out_bytes));
  gridops::bench::add(w.id, "memset", bytes, [=](benchmark::State& st) {
    for (auto _ : st) {
      const int64_t n = out_bytes;
      gridops::parallel_for(n, 1 << 20, [&](int64_t b, int64_t e) {
        std::memset(scratch->data() + b, 0, static_cast<size_t>(e - b));
      });
      benchmark::DoNotOptimize(scratch->data());
      benchmark::ClobberMemory();
    }
  });

#ifdef GRIDOPS_BENCH_TORCH
  {
    // Check once (not timed) that torch computes the same grid (a few ulp: PyTorch uses
    // linspace and a batched matmul, see docs/ops/affine_grid.md).
    c10::InferenceMode guard;
    const at::Tensor t = at::from_blob(theta->data(), ts, at::kFloat);
    const at::Tensor ref = at::affine_grid_generator(t, w.size, w.align_corners != 0);
    if (!plan->run(theta_view, grid->mutable_view()).ok()) std::fprintf(stderr, "run failed\n");
    const float* a = grid->data_as<float>();
    const float* b = ref.contiguous().data_ptr<float>();
    double worst = 0.0;
    for (int64_t i = 0; i < grid->num_elements(); ++i) {
      worst = std::max(worst, static_cast<double>(std::fabs(a[i] - b[i])));
    }
    std::printf("%s: max |gridops - torch| = %.3g %s\n", w.id, worst,
                worst <= 1e-5 ? "(ok)" : "WARNING: results differ beyond 1e-5");
  }
  gridops::bench::add(w.id, "torch", bytes, [=](benchmark::State& st) {
    c10::InferenceMode guard;
    const at::Tensor t = at::from_blob(theta->data(), ts, at::kFloat);
    for (auto _ : st) {
      at::Tensor out = at::affine_grid_generator(t, w.size, w.align_corners != 0);
      benchmark::DoNotOptimize(out.data_ptr());
    }
  });
#endif
}

// Other dtypes, gridops and the memset limit only (the workloads are float32; this shows
// that the float16/bfloat16 rounding and the float64 path also write at memory speed).
// Named <id>/contig/<type>/<impl>/threads:<n>.
void register_dtype(const Workload& w, DType dt, const char* type_name) {
  const Dims& ts = w.theta_shape;
  gridops::AffineGridDesc desc;
  desc.align_corners = w.align_corners;
  auto plan_or = gridops::make_affine_grid_plan(desc, dt, ts, w.size);
  if (!plan_or.ok()) return;
  auto plan = std::make_shared<gridops::AffineGridPlan>(std::move(plan_or).value());
  auto theta = std::make_shared<gridops::Tensor>(dt, ts);
  const std::vector<float> th = make_theta(ts);
  for (size_t i = 0; i < th.size(); ++i) {
    gridops::visit_dtype(dt, [&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
        theta->data_as<T>()[i] = static_cast<T>(th[i]);
      } else if constexpr (std::is_same_v<T, gridops::float16>) {
        theta->data_as<T>()[i] = gridops::f32_to_f16(th[i]);
      } else if constexpr (std::is_same_v<T, gridops::bfloat16>) {
        theta->data_as<T>()[i] = gridops::f32_to_bf16(th[i]);
      }
    });
  }
  auto grid = std::make_shared<gridops::Tensor>(dt, plan->grid_shape());
  const int64_t out_bytes = static_cast<int64_t>(grid->nbytes());
  const int64_t bytes = static_cast<int64_t>(theta->nbytes()) + out_bytes;
  const std::string id = std::string(w.id) + "/contig/" + type_name;
  gridops::bench::add(id, "gridops", bytes, [=](benchmark::State& st) {
    const gridops::MutableTensorView out = grid->mutable_view();
    const gridops::TensorView tv = theta->view();
    for (auto _ : st) {
      const gridops::Status s = plan->run(tv, out);
      if (!s.ok()) {
        st.SkipWithError(s.to_string().c_str());
        break;
      }
      benchmark::DoNotOptimize(grid->data());
      benchmark::ClobberMemory();
    }
  });
  auto scratch = std::make_shared<std::vector<char>>(static_cast<size_t>(out_bytes));
  gridops::bench::add(id, "memset", bytes, [=](benchmark::State& st) {
    for (auto _ : st) {
      gridops::parallel_for(out_bytes, 1 << 20, [&](int64_t b, int64_t e) {
        std::memset(scratch->data() + b, 0, static_cast<size_t>(e - b));
      });
      benchmark::DoNotOptimize(scratch->data());
      benchmark::ClobberMemory();
    }
  });
}

}  // namespace

int main(int argc, char** argv) {
  // W4a: theta (8,2,3), size (8,3,512,512); W4b: theta (2,3,4), size (2,1,64,128,128);
  // align_corners = 0 (the ONNX default).
  register_workload({"W4a", Dims{8, 2, 3}, Dims{8, 3, 512, 512}, 0});
  register_workload({"W4b", Dims{2, 3, 4}, Dims{2, 1, 64, 128, 128}, 0});
  for (const Workload& w : {Workload{"W4a", Dims{8, 2, 3}, Dims{8, 3, 512, 512}, 0},
                            Workload{"W4b", Dims{2, 3, 4}, Dims{2, 1, 64, 128, 128}, 0}}) {
    register_dtype(w, DType::kFloat16, "f16");
    register_dtype(w, DType::kBFloat16, "bf16");
    register_dtype(w, DType::kFloat64, "f64");
  }
  gridops::bench::add_isa_context();
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
