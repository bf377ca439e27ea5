// The one threading seam: parallel_for over a range, oneTBB by default (OpenMP in builds
// without it), replaceable.
#pragma once

#include <cstdint>
#include <functional>

namespace gridops {

/// A host-provided runner: must call `body(begin, end)` over disjoint chunks that cover
/// [0, n) exactly once, possibly concurrently, and return when all are done.
using ParallelRunner =
    std::function<void(int64_t n, int64_t grain, const std::function<void(int64_t, int64_t)>& body)>;

/// The most threads the default runner uses; set_num_threads clamps to it.
inline constexpr int kMaxThreads = 1024;

/// Sets the number of threads the default runner uses (<= 0: the default, OMP_NUM_THREADS
/// when set to a positive count, else the cores this process may run on; above
/// kMaxThreads: kMaxThreads).
void set_num_threads(int n) noexcept;
/// The number of threads the default runner uses (for the calling thread: its
/// ScopedNumThreads count while one lives).
int get_num_threads() noexcept;
/// For the calling thread only: the gridops calls it makes while this object lives use `n`
/// threads (n <= 0: the default count, as set_num_threads(0) gives), whatever
/// set_num_threads says; other threads and get_num_threads() elsewhere are unaffected.
/// Nests (the destructor restores the enclosing scope's count). For per-call thread counts
/// in hosts that call gridops from several threads at once.
class ScopedNumThreads {
 public:
  explicit ScopedNumThreads(int n) noexcept;
  ~ScopedNumThreads();
  ScopedNumThreads(const ScopedNumThreads&) = delete;
  ScopedNumThreads& operator=(const ScopedNumThreads&) = delete;

 private:
  int saved_;
};

/// Replaces the default runner (an empty function restores it).
void set_parallel_runner(ParallelRunner runner);

/// Runs `body(begin, end)` over chunks of [0, n), each at least `grain` long except the
/// last. Results of gridops kernels never depend on how the range is split. An exception
/// thrown by `body` stops the remaining chunks from starting and is rethrown to the caller
/// (after the chunks already running have finished).
void parallel_for(int64_t n, int64_t grain, const std::function<void(int64_t, int64_t)>& body);

}  // namespace gridops
