// Throughput of AVX-512 gathers from L1-resident data, next to a load + lane permutation.
// Used for the gather-cost figures in docs/benchmarks/experiments.md.
//
//   g++ -O2 -mavx512f -mavx512dq docs/benchmarks/probes/gather_probe.cc -o /tmp/gather_probe
#include <immintrin.h>

#include <chrono>
#include <cstdio>
#include <vector>

int main() {
  std::vector<double> buf(4096, 1.0);
  const __m512i idx = _mm512_setr_epi64(0, 40, 80, 120, 160, 200, 240, 280);
  const __m512i idx32 = _mm512_setr_epi32(0, 40, 80, 120, 160, 200, 240, 280, 320, 360, 400, 440,
                                          480, 520, 560, 600);
  const auto* fb = reinterpret_cast<const float*>(buf.data());
  constexpr int kN = 10000000;
  for (int rep = 0; rep < 2; ++rep) {
    __m512d a0 = _mm512_setzero_pd(), a1 = a0, a2 = a0, a3 = a0;
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < kN; ++i) {  // 4 independent 8 x 64-bit gathers per iteration
      a0 = _mm512_add_pd(a0, _mm512_i64gather_pd(idx, buf.data(), 8));
      a1 = _mm512_add_pd(a1, _mm512_i64gather_pd(idx, buf.data() + 1, 8));
      a2 = _mm512_add_pd(a2, _mm512_i64gather_pd(idx, buf.data() + 2, 8));
      a3 = _mm512_add_pd(a3, _mm512_i64gather_pd(idx, buf.data() + 3, 8));
    }
    const double tq = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    __m512 f0 = _mm512_setzero_ps(), f1 = f0;
    t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < kN; ++i) {  // 2 independent 16 x 32-bit gathers per iteration
      f0 = _mm512_add_ps(f0, _mm512_i32gather_ps(idx32, fb, 4));
      f1 = _mm512_add_ps(f1, _mm512_i32gather_ps(idx32, fb + 1, 4));
    }
    const double td = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("8 x 64-bit gather: %.2f ns each; 16 x 32-bit gather: %.2f ns each (%g %g)\n",
                tq / (4.0 * kN) * 1e9, td / (2.0 * kN) * 1e9,
                _mm512_reduce_add_pd(_mm512_add_pd(_mm512_add_pd(a0, a1), _mm512_add_pd(a2, a3))),
                static_cast<double>(_mm512_reduce_add_ps(_mm512_add_ps(f0, f1))));
  }
  return 0;
}
