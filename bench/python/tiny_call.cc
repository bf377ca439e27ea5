// The C++ side of bench/python/bench.py's tiny-call row: the same 1x3x8x8 GridSample
// (float32, grid 1x8x8x2, bilinear, zeros) called from C++, one-shot into a preallocated
// dst and through a plan; prints the best mean time per call in microseconds.
#include <chrono>
#include <cstdio>
#include <random>
#include <vector>

#include "gridops/gridops.h"

namespace {

template <class F>
double best_us(F&& f) {
  using clock = std::chrono::steady_clock;
  double best = 1e30;
  const auto end = clock::now() + std::chrono::milliseconds(500);
  while (clock::now() < end) {
    const int n = 2000;
    const auto t0 = clock::now();
    for (int i = 0; i < n; ++i) f();
    const double us = std::chrono::duration<double, std::micro>(clock::now() - t0).count() / n;
    if (us < best) best = us;
  }
  return best;
}

}  // namespace

int main() {
  gridops::set_num_threads(1);
  std::mt19937 rng(0);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  std::vector<float> x(3 * 8 * 8), g(8 * 8 * 2), y(3 * 8 * 8);
  for (float& v : x) v = u(rng);
  for (float& v : g) v = u(rng);
  const gridops::TensorView xv(gridops::DType::kFloat32, x.data(), {1, 3, 8, 8});
  const gridops::TensorView gv(gridops::DType::kFloat32, g.data(), {1, 8, 8, 2});
  const gridops::MutableTensorView yv(gridops::DType::kFloat32, y.data(), {1, 3, 8, 8});
  const gridops::GridSampleDesc desc;
  bool ok = true;
  const double one_shot = best_us([&] { ok &= gridops::grid_sample(desc, xv, gv, yv).ok(); });
  auto plan = gridops::make_grid_sample_plan(desc, gridops::DType::kFloat32, xv.shape,
                                             gridops::DType::kFloat32, gv.shape);
  if (!plan.ok()) return 1;
  const double planned = best_us([&] { ok &= plan->run(xv, gv, yv).ok(); });
  if (!ok) return 1;
  std::printf("grid_sample(desc, x, g, dst) %.2f us\nplan.run(x, g, dst) %.2f us\n", one_shot, planned);
  return 0;
}
