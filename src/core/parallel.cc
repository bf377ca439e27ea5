#include "gridops/parallel.h"

#include <algorithm>
#include <atomic>
#include <mutex>

#ifdef _OPENMP
#include <omp.h>
#endif

namespace gridops {
namespace {

std::atomic<int> g_num_threads{0};
std::mutex g_runner_mutex;
ParallelRunner& runner_slot() {
  static ParallelRunner r;
  return r;
}

int default_threads() noexcept {
#ifdef _OPENMP
  return omp_get_max_threads();
#else
  return 1;
#endif
}

}  // namespace

void set_num_threads(int n) noexcept { g_num_threads.store(n > 0 ? n : 0); }

int get_num_threads() noexcept {
  const int n = g_num_threads.load();
  return n > 0 ? n : default_threads();
}

void set_parallel_runner(ParallelRunner runner) {
  std::lock_guard<std::mutex> lock(g_runner_mutex);
  runner_slot() = std::move(runner);
}

void parallel_for(int64_t n, int64_t grain, const std::function<void(int64_t, int64_t)>& body) {
  if (n <= 0) return;
  grain = std::max<int64_t>(grain, 1);
  {
    std::lock_guard<std::mutex> lock(g_runner_mutex);
    if (runner_slot()) {
      ParallelRunner r = runner_slot();
      r(n, grain, body);
      return;
    }
  }
  const int64_t max_chunks = (n + grain - 1) / grain;
  const int threads = static_cast<int>(std::min<int64_t>(get_num_threads(), max_chunks));
  if (threads <= 1) {
    body(0, n);
    return;
  }
#ifdef _OPENMP
  // Static even split; each thread gets one contiguous chunk.
#pragma omp parallel num_threads(threads)
  {
    const int t = omp_get_thread_num();
    const int nt = omp_get_num_threads();
    const int64_t q = n / nt, r = n % nt;
    const int64_t begin = t * q + std::min<int64_t>(t, r);
    const int64_t end = begin + q + (t < r ? 1 : 0);
    if (begin < end) body(begin, end);
  }
#else
  body(0, n);
#endif
}

}  // namespace gridops
