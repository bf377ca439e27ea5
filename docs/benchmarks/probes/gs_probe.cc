// GridSample probe: one W2-like problem (1 x C x HW x HW float32, grid 1 x HW x HW x 2)
// timed as the best of ITERS runs, with a checksum of dst so that variants can be
// compared for the same bits. Used for the A/B runs in docs/benchmarks/experiments.md.
//
//   g++ -O2 -std=c++20 -fopenmp -Iinclude docs/benchmarks/probes/gs_probe.cc \
//       build/bench/libgridops.a -lhwy -o /tmp/gs_probe
//   HW=1024 ITERS=15 /tmp/gs_probe C smooth|ident|rand MODE [THREADS]
//
// MODE: 0 linear, 1 nearest, 2 cubic. smooth is W2a-c's warp (rotation 10 degrees,
// scale 1.05, ripple), ident a near-identity grid, rand W2d's uniform grid.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "gridops/ops/grid_sample.h"
#include "gridops/parallel.h"

using namespace gridops;

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: gs_probe C smooth|ident|rand MODE [THREADS]\n");
    return 2;
  }
  const int C = std::atoi(argv[1]);
  const char* kind = argv[2];
  const int mode = std::atoi(argv[3]);
  const int threads = argc > 4 ? std::atoi(argv[4]) : 1;
  const int64_t H = std::getenv("HW") ? std::atoi(std::getenv("HW")) : 1024, W = H;
  const int iters = std::getenv("ITERS") ? std::atoi(std::getenv("ITERS")) : 15;
  std::vector<float> src(static_cast<size_t>(C * H * W)), grid(static_cast<size_t>(H * W * 2)),
      dst(static_cast<size_t>(C * H * W));
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> U(-1, 1);
  for (auto& v : src) v = U(rng);
  const double th = 10.0 * M_PI / 180.0, s = 1.05;
  for (int64_t i = 0; i < H; ++i) {
    for (int64_t j = 0; j < W; ++j) {
      const double u = (2.0 * j + 1) / W - 1, v = (2.0 * i + 1) / H - 1;
      double x, y;
      if (kind[0] == 'i') {
        x = u * 0.999;
        y = v * 0.999;
      } else if (kind[0] == 'r') {
        x = U(rng) * 1.1;
        y = U(rng) * 1.1;
      } else {
        x = s * (std::cos(th) * u - std::sin(th) * v) + 0.02 * std::sin(2 * M_PI * 3 * v);
        y = s * (std::sin(th) * u + std::cos(th) * v) + 0.02 * std::sin(2 * M_PI * 3 * u);
      }
      grid[static_cast<size_t>((i * W + j) * 2)] = static_cast<float>(x);
      grid[static_cast<size_t>((i * W + j) * 2 + 1)] = static_cast<float>(y);
    }
  }
  set_num_threads(threads);
  GridSampleDesc d;
  d.mode = static_cast<InterpolationMode>(mode);
  const Dims ss{1, C, H, W}, gs{1, H, W, 2};
  auto plan = make_grid_sample_plan(d, DType::kFloat32, ss, DType::kFloat32, gs);
  if (!plan.ok()) return 1;
  const TensorView sv(DType::kFloat32, src.data(), ss), gv(DType::kFloat32, grid.data(), gs);
  const MutableTensorView dv(DType::kFloat32, dst.data(), plan->dst_shape());
  double best = 1e9;
  for (int it = 0; it < iters; ++it) {
    const auto t0 = std::chrono::steady_clock::now();
    if (!plan->run(sv, gv, dv).ok()) return 1;
    best = std::min(best, std::chrono::duration<double, std::milli>(
                              std::chrono::steady_clock::now() - t0).count());
  }
  double cs = 0;
  for (float v : dst) cs += v;
  std::printf("C=%d grid=%s mode=%d thr=%d impl=%s best %.3f ms checksum %.6f\n", C, kind, mode,
              threads, plan->impl_name(), best, cs);
  return 0;
}
