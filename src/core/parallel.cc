#include "gridops/parallel.h"

#include <algorithm>
#include <atomic>
#include <exception>
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

void set_num_threads(int n) noexcept { g_num_threads.store(n > 0 ? (n < kMaxThreads ? n : kMaxThreads) : 0); }

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
  // Work claiming: the range is cut into contiguous chunks (about kChunksPerThread per
  // thread, never shorter than grain) and each thread takes the next unclaimed chunk
  // until none is left, so a thread that is descheduled or given slower chunks does not
  // hold up the others. Which thread runs which chunk varies from run to run; no kernel's
  // result depends on it (each chunk writes its own disjoint part of the output).
  constexpr int64_t kChunksPerThread = 8;
  const int64_t chunk = std::max(grain, (n + threads * kChunksPerThread - 1) / (threads * kChunksPerThread));
  const int64_t chunks = (n + chunk - 1) / chunk;
  std::atomic<int64_t> next{0};
  // An exception must not leave an OpenMP region (that terminates the program): the first
  // one is kept, the other threads stop claiming chunks, and it is rethrown here.
  std::exception_ptr error;
  std::mutex error_mutex;
#pragma omp parallel num_threads(threads)
  {
    for (int64_t i = next.fetch_add(1, std::memory_order_relaxed); i < chunks;
         i = next.fetch_add(1, std::memory_order_relaxed)) {
      const int64_t begin = i * chunk;
      try {
        body(begin, std::min(n, begin + chunk));
      } catch (...) {
        std::lock_guard<std::mutex> lock(error_mutex);
        if (!error) error = std::current_exception();
        next.store(chunks, std::memory_order_relaxed);
      }
    }
  }
  if (error) std::rethrow_exception(error);
#else
  body(0, n);
#endif
}

}  // namespace gridops
