// Every operator gives the same bits on 1 thread and on 2, 3 and 7 threads of a runner that
// hands out its chunks in a shuffled order (issue 11), and more than one thread really ran.
#include <gtest/gtest.h>

#include <algorithm>
#include <exception>
#include <functional>
#include <mutex>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "gridops/gridops.h"
#include "gridops/parallel.h"
#include "support/test_util.h"

namespace gridops {
namespace {

/// A runner with `threads` std::threads that splits [0, n) into chunks of at least `grain`
/// (about 4 per thread), shuffles them and deals them out to the threads in that order.
/// Records which threads ran a chunk.
class ShuffledRunner {
 public:
  ShuffledRunner(int threads, uint64_t seed) : threads_(threads), rng_(seed) {
    set_parallel_runner([this](int64_t n, int64_t grain, const std::function<void(int64_t, int64_t)>& body) {
      run(n, grain, body);
    });
  }
  ~ShuffledRunner() { set_parallel_runner(nullptr); }
  ShuffledRunner(const ShuffledRunner&) = delete;
  ShuffledRunner& operator=(const ShuffledRunner&) = delete;

  /// How many different threads ran at least one chunk, and how many chunks there were.
  size_t threads_seen() const { return seen_.size(); }
  int64_t chunks() const { return chunks_; }

 private:
  void run(int64_t n, int64_t grain, const std::function<void(int64_t, int64_t)>& body) {
    if (n <= 0) return;
    const int64_t want = std::max<int64_t>(1, int64_t{threads_} * 4);
    const int64_t size = std::max<int64_t>(std::max<int64_t>(grain, 1), (n + want - 1) / want);
    std::vector<std::pair<int64_t, int64_t>> parts;
    for (int64_t b = 0; b < n; b += size) parts.emplace_back(b, std::min(n, b + size));
    std::shuffle(parts.begin(), parts.end(), rng_);
    chunks_ += static_cast<int64_t>(parts.size());
    std::exception_ptr error;
    std::mutex mu;
    // Thread t takes the shuffled chunks t, t + threads, ...: with two chunks or more,
    // at least two threads run (a shared queue could be drained by the first thread).
    auto work = [&](int t) {
      for (size_t i = static_cast<size_t>(t); i < parts.size(); i += static_cast<size_t>(threads_)) {
        {
          std::lock_guard<std::mutex> lock(mu);
          if (error) return;
          seen_.insert(std::this_thread::get_id());
        }
        try {
          body(parts[i].first, parts[i].second);
        } catch (...) {
          std::lock_guard<std::mutex> lock(mu);
          if (!error) error = std::current_exception();
        }
      }
    };
    std::vector<std::thread> pool;
    for (int t = 1; t < threads_; ++t) pool.emplace_back(work, t);
    work(0);
    for (auto& t : pool) t.join();
    if (error) std::rethrow_exception(error);
  }

  int threads_;
  std::mt19937_64 rng_;
  std::set<std::thread::id> seen_;
  int64_t chunks_ = 0;
};

/// Runs `op` on one thread (the default runner), then on 2, 3 and 7 shuffled threads, and
/// compares the bits; `op` returns its output.
void expect_deterministic(const std::string& what, const std::function<Tensor()>& op) {
  SCOPED_TRACE(what);
  set_num_threads(1);
  const Tensor one = op();
  set_num_threads(0);
  ASSERT_GT(one.num_elements(), 0);
  for (int threads : {2, 3, 7}) {
    SCOPED_TRACE("threads " + std::to_string(threads));
    ShuffledRunner runner(threads, testing::test_seed() + static_cast<uint64_t>(threads));
    const Tensor many = op();
    int64_t where = -1;
    EXPECT_TRUE(testing::bitwise_equal(one, many, &where)) << "first difference at " << where;
    EXPECT_GT(runner.chunks(), 1) << "the problem was not split";
    EXPECT_GT(runner.threads_seen(), 1u) << "only one thread ran";
  }
}

Tensor ok(StatusOr<Tensor> r) {
  EXPECT_TRUE(r.ok()) << r.status().to_string();
  return r.ok() ? std::move(r).value() : Tensor();
}

TEST(ThreadDeterminism, GridSample) {
  std::mt19937_64 rng(testing::test_seed());
  for (InterpolationMode mode : {InterpolationMode::kLinear, InterpolationMode::kNearest, InterpolationMode::kCubic}) {
    for (ChannelLayout layout : {ChannelLayout::kChannelsFirst, ChannelLayout::kChannelsLast}) {
      for (int r : {2, 3}) {
        Dims xs = r == 2 ? Dims{2, 4, 40, 36} : Dims{1, 2, 12, 10, 14};
        if (layout == ChannelLayout::kChannelsLast) std::rotate(xs.begin() + 1, xs.begin() + 2, xs.end());
        const Dims gs = r == 2 ? Dims{2, 256, 250, 2} : Dims{1, 32, 60, 64, 3};
        Tensor x(DType::kFloat32, xs), grid(DType::kFloat32, gs);
        testing::fill_random(x, rng, -1, 1);
        testing::fill_random(grid, rng, -1.1, 1.1);
        GridSampleDesc d;
        d.mode = mode;
        d.layout = layout;
        d.padding = GridPadding::kReflection;
        expect_deterministic("mode " + std::to_string(static_cast<int>(mode)) + " layout " +
                                 std::to_string(static_cast<int>(layout)) + " rank " + std::to_string(r),
                             [&] { return ok(grid_sample(d, x, grid)); });
      }
    }
  }
}

TEST(ThreadDeterminism, AffineGrid) {
  std::mt19937_64 rng(testing::test_seed() + 1);
  for (DType dt : {DType::kFloat32, DType::kFloat64}) {
    for (int r : {2, 3}) {
      Tensor theta(dt, {2, r, r + 1});
      testing::fill_random(theta, rng, -2, 2);
      const Dims size = r == 2 ? Dims{2, 1, 300, 331} : Dims{2, 1, 19, 41, 73};
      AffineGridDesc d;
      d.align_corners = static_cast<int64_t>(rng() % 2);
      expect_deterministic(std::string(to_string(dt)) + " rank " + std::to_string(r),
                           [&] { return ok(affine_grid(d, theta, size)); });
    }
  }
}

TEST(ThreadDeterminism, Gather) {
  std::mt19937_64 rng(testing::test_seed() + 2);
  for (DType dt : {DType::kFloat32, DType::kInt8, DType::kFloat64}) {
    for (int64_t axis : {0, 1}) {
      Tensor data(dt, {256, 300});
      testing::fill_random_bytes(data, rng);
      Tensor idx(DType::kInt64, {200, 9});
      const int64_t s = data.shape()[static_cast<size_t>(axis)];
      for (int64_t i = 0; i < idx.num_elements(); ++i) idx.data_as<int64_t>()[i] = static_cast<int64_t>(rng() % (2 * s)) - s;
      GatherDesc d;
      d.axis = axis;
      expect_deterministic(std::string(to_string(dt)) + " axis " + std::to_string(axis),
                           [&] { return ok(gather(d, data, idx)); });
    }
  }
}

TEST(ThreadDeterminism, Pad) {
  std::mt19937_64 rng(testing::test_seed() + 3);
  for (PadMode mode : {PadMode::kConstant, PadMode::kEdge, PadMode::kReflect, PadMode::kWrap}) {
    Tensor src(DType::kFloat32, {8, 200, 90});
    testing::fill_random(src, rng, -1, 1);
    PadDesc d;
    d.mode = mode;
    d.pads_begin = {1, 5, -3};
    d.pads_end = {0, 9, 17};
    expect_deterministic("mode " + std::to_string(static_cast<int>(mode)), [&] { return ok(pad(d, src, nullptr)); });
  }
}

TEST(ThreadDeterminism, Resample) {
  std::mt19937_64 rng(testing::test_seed() + 4);
  for (ResampleAlgorithm a : {ResampleAlgorithm::kLinear, ResampleAlgorithm::kNearest}) {
    for (MemoryFormat f : {MemoryFormat::kPlain, MemoryFormat::kChannelsLast, MemoryFormat::kBlocked16}) {
      ResampleMemoryDesc src{DType::kFloat32, {2, 16, 60, 68}, f};
      ResampleMemoryDesc dst{DType::kFloat32, {2, 16, 114, 160}, f};
      Tensor x(DType::kFloat32, {*src.buffer_elements()});
      testing::fill_random(x, rng, -1, 1);
      ResampleDesc d;
      d.algorithm = a;
      expect_deterministic("algorithm " + std::to_string(static_cast<int>(a)) + " format " +
                               std::to_string(static_cast<int>(f)),
                           [&] {
                             Tensor y(DType::kFloat32, {*dst.buffer_elements()});
                             Status s = resample_forward(d, src, x.data(), dst, y.data());
                             EXPECT_TRUE(s.ok()) << s.to_string();
                             return y;
                           });
    }
  }
}

}  // namespace
}  // namespace gridops
