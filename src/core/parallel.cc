#include "gridops/parallel.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <exception>
#include <memory>
#include <mutex>

#if GRIDOPS_HAVE_TBB
#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/info.h>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/partitioner.h>
#include <oneapi/tbb/task_arena.h>

#include <vector>
#elif defined(_OPENMP)
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
  // OMP_NUM_THREADS, when it starts with a positive count, as OpenMP reads it (the runner
  // was OpenMP's, and hosts such as Dask's workers set it to keep libraries to one thread);
  // else the cores this process may run on.
  if (const char* env = std::getenv("OMP_NUM_THREADS")) {
    char* end = nullptr;
    const long v = std::strtol(env, &end, 10);
    if (end != env && v > 0) return static_cast<int>(std::min<long>(v, kMaxThreads));
  }
#if GRIDOPS_HAVE_TBB
  return std::max(1, tbb::info::default_concurrency());
#elif defined(_OPENMP)
  return omp_get_max_threads();
#else
  return 1;
#endif
}

#if GRIDOPS_HAVE_TBB
// NOTE [ Default runner: TBB arenas ]
// The default runner is oneTBB's: each calling thread keeps one task arena per thread
// count, and a call runs the chunks with parallel_for in it. It replaced an OpenMP region
// whose end-of-region barrier waits for a worker thread the kernel had not scheduled (slow
// tails on a loaded host; measurements in docs/perf/parallel.md): with TBB a chunk nobody
// has started is run by the caller, and the caller waits only for chunks already running.
// The arena is kept (a new one per call: 2 threads no faster than 1, the worker joining
// too late); tbb's workers are shared by all arenas of the process, at
// most tbb::info::default_concurrency() - 1 of them, so a thread count above the cores
// runs on the cores (no oversubscription).
tbb::task_arena& arena_for(int threads) {
  thread_local std::vector<std::unique_ptr<tbb::task_arena>> arenas;
  const auto i = static_cast<size_t>(threads);
  if (arenas.size() <= i) arenas.resize(i + 1);
  if (!arenas[i]) arenas[i] = std::make_unique<tbb::task_arena>(threads);
  return *arenas[i];
}
#endif

}  // namespace

void set_num_threads(int n) noexcept { g_num_threads.store(n > 0 ? (n < kMaxThreads ? n : kMaxThreads) : 0); }

namespace {
// The calling thread's ScopedNumThreads count: 0 none (the process-wide count), -1 the
// default count, else the count.
thread_local int t_scoped_threads = 0;
}  // namespace

int get_num_threads() noexcept {
  const int scoped = t_scoped_threads;
  if (scoped > 0) return scoped;
  if (scoped < 0) return default_threads();
  const int n = g_num_threads.load();
  return n > 0 ? n : default_threads();
}

ScopedNumThreads::ScopedNumThreads(int n) noexcept : saved_(t_scoped_threads) {
  t_scoped_threads = n > 0 ? (n < kMaxThreads ? n : kMaxThreads) : -1;
}

ScopedNumThreads::~ScopedNumThreads() { t_scoped_threads = saved_; }

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
#if GRIDOPS_HAVE_TBB || defined(_OPENMP)
  // NOTE [ Owned chunks, then stealing ]: the range is cut into contiguous chunks (about
  // kChunksPerThread per thread, never shorter than grain), and the chunks into `threads`
  // contiguous shares, share t belonging to thread t. Each thread claims the chunks of its
  // own share in order, then claims unclaimed chunks of the other shares, so that a thread
  // that is descheduled or given slower chunks does not hold up the others. On a quiet
  // machine each thread runs exactly its own share, the same part of the range on every
  // call: repeated calls on the same tensors find the data a thread touched last time in
  // its own core's caches (measured against a single shared counter that handed chunks
  // out first come, first served: docs/perf/parallel.md). No kernel's result depends on which thread runs which chunk (each chunk
  // writes its own disjoint part of the output). With TBB the shares are the tasks of a
  // static partition (share t to the arena's slot t), each claiming chunks from its own
  // share first as above; a share whose thread has not started is run by a thread that has.
  constexpr int64_t kChunksPerThread = 8;
  const int64_t chunk = std::max(grain, (n + threads * kChunksPerThread - 1) / (threads * kChunksPerThread));
  const int64_t chunks = (n + chunk - 1) / chunk;
  // Share t holds chunks [first(t), first(t + 1)); next[t] is its next unclaimed chunk.
  struct alignas(64) Counter {
    std::atomic<int64_t> next{0};
  };
  std::unique_ptr<Counter[]> next(new Counter[static_cast<size_t>(threads)]);
  const auto first = [&](int t) { return chunks * t / threads; };
  for (int t = 0; t < threads; ++t) next[static_cast<size_t>(t)].next.store(first(t), std::memory_order_relaxed);
  std::atomic<bool> stop{false};
  // An exception must not leave a worker (with OpenMP that terminates the program): the
  // first one is kept, the other threads stop claiming chunks, and it is rethrown here.
  std::exception_ptr error;
  std::mutex error_mutex;
  const auto run_from = [&](int self) {
    for (int k = 0; k < threads && !stop.load(std::memory_order_relaxed); ++k) {
      const int t = (self + k) % threads;  // own share first, then the others in turn
      const int64_t last = first(t + 1);
      for (int64_t i = next[static_cast<size_t>(t)].next.fetch_add(1, std::memory_order_relaxed);
           i < last && !stop.load(std::memory_order_relaxed);
           i = next[static_cast<size_t>(t)].next.fetch_add(1, std::memory_order_relaxed)) {
        const int64_t begin = i * chunk;
        try {
          body(begin, std::min(n, begin + chunk));
        } catch (...) {
          std::lock_guard<std::mutex> lock(error_mutex);
          if (!error) error = std::current_exception();
          stop.store(true, std::memory_order_relaxed);
        }
      }
    }
  };
#if GRIDOPS_HAVE_TBB
  arena_for(threads).execute([&] {
    tbb::parallel_for(
        tbb::blocked_range<int>(0, threads, 1),
        [&](const tbb::blocked_range<int>& r) {
          for (int t = r.begin(); t < r.end(); ++t) run_from(t);
        },
        tbb::static_partitioner());
  });
#else
#pragma omp parallel num_threads(threads)
  run_from(omp_get_thread_num());
#endif
  if (error) std::rethrow_exception(error);
#else
  body(0, n);
#endif
}

}  // namespace gridops
