// Shared benchmark helpers: thread control for gridops and every peer, naming, counters.
#pragma once

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "bench_context.h"
#include "gridops/parallel.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif
#ifdef _OPENMP
#include <omp.h>
#endif
#ifdef GRIDOPS_BENCH_TORCH
#include <ATen/Parallel.h>
#endif
#ifdef GRIDOPS_BENCH_OPENCV
#include <opencv2/core.hpp>
#endif

namespace gridops::bench {

/// Sets the thread count of gridops and of every peer linked into the binary.
inline void set_threads(int n) {
  gridops::set_num_threads(n);
#ifdef _OPENMP
  omp_set_num_threads(n);  // oneDNN (OpenMP runtime) and OpenMP-based peers
#endif
#ifdef GRIDOPS_BENCH_TORCH
  at::set_num_threads(n);
#endif
#ifdef GRIDOPS_BENCH_OPENCV
  cv::setNumThreads(n);
#endif
}

/// "<workload>/<impl>/threads:<n>", the naming every script pairs on (see docs/BENCHMARKS.md).
inline std::string name(const std::string& workload, const std::string& impl, int threads) {
  return workload + "/" + impl + "/threads:" + std::to_string(threads);
}

/// Registers `fn` as a benchmark for threads 1 and 2, with the name above (exactly: no
/// suffixes, so min time comes from --benchmark_min_time and tables read the JSON
/// "real_time" field, which Google Benchmark always records), and a bytes counter (every
/// input read once plus the output written once).
template <class Fn>
void add(const std::string& workload, const std::string& impl, int64_t bytes, Fn fn) {
  for (int threads : {1, 2}) {
    benchmark::RegisterBenchmark(name(workload, impl, threads).c_str(), [=](benchmark::State& st) {
      set_threads(threads);
      fn(st);
      st.SetBytesProcessed(static_cast<int64_t>(st.iterations()) * bytes);
      // Bytes per iteration, so that tables compute GB/s from real (wall) time; Google
      // Benchmark's own rate uses the main thread's CPU time.
      st.counters["bytes"] = static_cast<double>(bytes);
    })
        ->Unit(benchmark::kMillisecond)
        // The fastest repetition beside the median (scripts read either: GRIDOPS_BENCH_STAT):
        // on the benchmark VM the two-thread memory bandwidth switches between two states
        // every few seconds (docs/BENCHMARKS.md), and the fastest of several randomly
        // interleaved repetitions is more often than the median timed in the same state
        // on both sides of a ratio (not always: a stretch of the slow state can cover
        // every repetition of a row).
        ->ComputeStatistics("min", [](const std::vector<double>& v) {
          return v.empty() ? 0.0 : *std::min_element(v.begin(), v.end());
        });
  }
}

/// Registers the bandwidth reference `<workload>/memcpy_output`: a threaded memcpy of
/// `bytes` (the output size; read + write counted), buffers owned by the benchmark.
inline void add_memcpy_output(const std::string& workload, int64_t bytes) {
  struct Buffers {
    std::vector<char> src, dst;
  };
  auto b = std::make_shared<Buffers>();
  b->src.assign(static_cast<size_t>(bytes), 1);
  b->dst.assign(static_cast<size_t>(bytes), 0);
  add(workload, "memcpy_output", 2 * bytes, [b, bytes](benchmark::State& s) {
    for (auto _ : s) {
      gridops::parallel_for(bytes, 1 << 20, [&](int64_t lo, int64_t hi) {
        std::memcpy(b->dst.data() + lo, b->src.data() + lo, static_cast<size_t>(hi - lo));
      });
      benchmark::DoNotOptimize(b->dst.data());
    }
  });
}

#if defined(__x86_64__) || defined(__i386__)
/// [p, p + n) (p 64-byte aligned, n a multiple of 64) written with 64-byte streaming stores.
__attribute__((target("avx512f"))) inline void stream_fill_avx512(char* p, int64_t n) {
  const __m512i v = _mm512_set1_epi32(0x3f800000);
  for (int64_t i = 0; i < n; i += 64) _mm512_stream_si512(reinterpret_cast<__m512i*>(p + i), v);
}
/// The same with 16-byte streaming stores (SSE2).
inline void stream_fill_sse2(char* p, int64_t n) {
  const __m128i v = _mm_set1_epi32(0x3f800000);
  for (int64_t i = 0; i < n; i += 16) _mm_stream_si128(reinterpret_cast<__m128i*>(p + i), v);
}
#endif

/// Registers the reference `<workload>/write_output`: `bytes` (the output size) written
/// once with streaming stores (64-byte vectors where the CPU has AVX-512, else 16-byte;
/// memset off x86), threaded like the copy references; only the written bytes are
/// counted. For operators whose output is larger than their input: about the least time
/// their writes take (not a strict bound: ordinary stores whose lines stay in a large
/// last-level cache between calls can be faster). docs/BENCHMARKS.md, "Output-write
/// reference".
inline void add_write_output(const std::string& workload, int64_t bytes) {
  const int64_t n = (bytes + 63) / 64 * 64;
  struct Buffer {
    char* p = nullptr;
    int64_t n = 0;
    ~Buffer() { std::free(p); }
  };
  // One buffer for every row, replaced by a larger one when a row needs more (the rows
  // registered before keep theirs).
  static std::shared_ptr<Buffer> shared;
  if (!shared || shared->n < n) {
    auto nb = std::make_shared<Buffer>();
    nb->p = static_cast<char*>(std::aligned_alloc(64, static_cast<size_t>(n)));
    if (nb->p == nullptr) return;
    nb->n = n;
    std::memset(nb->p, 0, static_cast<size_t>(n));
    shared = nb;
  }
  auto b = shared;
  add(workload, "write_output", bytes, [b, n](benchmark::State& s) {
    for (auto _ : s) {
      gridops::parallel_for(n / 64, (1 << 20) / 64, [&](int64_t lo, int64_t hi) {
        char* p = b->p + lo * 64;
        const int64_t len = (hi - lo) * 64;
#if defined(__x86_64__) || defined(__i386__)
        static const bool avx512 = __builtin_cpu_supports("avx512f");
        if (avx512) {
          stream_fill_avx512(p, len);
        } else {
          stream_fill_sse2(p, len);
        }
        _mm_sfence();
#else
        std::memset(p, 1, static_cast<size_t>(len));
#endif
      });
      benchmark::DoNotOptimize(b->p);
    }
  });
}

/// Uniform random floats in [lo, hi] with a fixed seed.
inline std::vector<float> random_floats(size_t n, float lo, float hi, uint64_t seed = 1) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> u(lo, hi);
  std::vector<float> v(n);
  for (auto& x : v) x = u(rng);
  return v;
}

/// The body of every benchmark binary's main(): register, record the ISA level of every side
/// in the JSON context (bench_context.h), then run what the command line selects.
inline int run_main(int argc, char** argv, void (*register_all)()) {
  register_all();
  add_isa_context();
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}

}  // namespace gridops::bench
