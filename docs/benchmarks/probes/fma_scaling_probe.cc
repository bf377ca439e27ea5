// Whether the machine's two CPUs are two cores: the same FMA-throughput-bound loop on 1
// thread and on 2 threads (2x the work). About 2.0x means two full cores; hardware
// threads of one core would share its FMA units and give little more than 1x.
//
//   g++ -O2 -mavx512f -pthread docs/benchmarks/probes/fma_scaling_probe.cc -o /tmp/fma_probe
#include <immintrin.h>

#include <chrono>
#include <cstdio>
#include <thread>

// 24 independent FMA chains: enough to keep both FMA units of a core busy (latency 4,
// 2 per cycle), so a second hardware thread on the same core would gain little.
static double work(int n) {
  constexpr int kChains = 24;
  __m512 a[kChains];
  for (int i = 0; i < kChains; ++i) a[i] = _mm512_set1_ps(1.0f + static_cast<float>(i) * 1e-3f);
  const __m512 m = _mm512_set1_ps(0.9999999f), b = _mm512_set1_ps(1e-7f);
  for (int it = 0; it < n; ++it) {
    for (int i = 0; i < kChains; ++i) a[i] = _mm512_fmadd_ps(a[i], m, b);
  }
  __m512 s = a[0];
  for (int i = 1; i < kChains; ++i) s = _mm512_add_ps(s, a[i]);
  return _mm512_reduce_add_ps(s);
}

int main() {
  constexpr int kN = 40000000;
  for (int rep = 0; rep < 3; ++rep) {
    auto t0 = std::chrono::steady_clock::now();
    const double r1 = work(kN);
    const double t1 = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    t0 = std::chrono::steady_clock::now();
    double r2 = 0;
    std::thread th([&] { r2 = work(kN); });
    const double r3 = work(kN);
    th.join();
    const double t2 = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("1 thread %.3f s (%.2f G FMA/s); 2 threads (2x work) %.3f s: scaling %.2fx (%g)\n",
                t1, 24.0 * 16 * kN / t1 * 1e-9, t2, 2 * t1 / t2, r1 + r2 + r3);
  }
  return 0;
}
