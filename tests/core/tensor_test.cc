#include "gridops/tensor.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>
#include <new>
#include <limits>
#include <mutex>
#include <utility>
#include <vector>

#include "gridops/parallel.h"
#include "support/test_util.h"

namespace gridops {
namespace {

using ::testing::HasSubstr;

TEST(Tensor, ContiguousStridesAndElementAccess) {
  Tensor t(DType::kInt32, {2, 3, 4});
  EXPECT_EQ(t.num_elements(), 24);
  EXPECT_EQ(t.nbytes(), 96u);
  for (int i = 0; i < 24; ++i) t.data_as<int32_t>()[i] = i;
  TensorView v = t.view();
  EXPECT_EQ(v.strides, (Dims{12, 4, 1}));
  EXPECT_TRUE(v.is_contiguous());
  EXPECT_EQ(v.at<int32_t>({1, 2, 3}), 23);
  EXPECT_EQ(dims_to_string(v.shape), "(2, 3, 4)");
  EXPECT_EQ(dims_to_string(Dims{5}), "(5,)");
  EXPECT_EQ(dims_to_string(Dims{}), "()");
}

TEST(Tensor, StringsAreConstructedAndCloned) {
  Tensor t(DType::kString, {3});
  EXPECT_EQ(t.data_as<std::string>()[1], "");
  t.data_as<std::string>()[1] = "hello, a string long enough to allocate";
  auto c_or = t.clone();
  ASSERT_TRUE(c_or.ok());
  Tensor c = std::move(c_or).value();
  EXPECT_EQ(c.data_as<std::string>()[1], "hello, a string long enough to allocate");
}

TEST(Tensor, ScrambledCopiesReadTheSameElements) {
  std::mt19937_64 rng(testing::test_seed());
  Tensor t(DType::kFloat32, {2, 3, 5});
  testing::fill_random(t, rng, -1, 1);
  for (bool neg : {false, true}) {
    Tensor storage;
    TensorView v = testing::scrambled_copy(t, storage, neg);
    EXPECT_FALSE(v.is_contiguous());
    EXPECT_TRUE(validate_view(v, "v").ok());
    for (int64_t i = 0; i < 2; ++i)
      for (int64_t j = 0; j < 3; ++j)
        for (int64_t k = 0; k < 5; ++k)
          EXPECT_EQ(v.at<float>({i, j, k}), t.view().at<float>({i, j, k}));
  }
}

TEST(ValidateView, RejectsNegativeDimension) {
  float x = 0;
  TensorView v(DType::kFloat32, &x, {2, -1, 3}, {3, 3, 1});
  Status s = validate_view(v, "op: src");
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("op: src: dimension 1 must be >= 0, got -1"));
}

TEST(ValidateView, RejectsNullDataForNonEmptyShape) {
  TensorView v(DType::kFloat32, nullptr, {2, 2});
  Status s = validate_view(v, "op: src");
  EXPECT_THAT(s.message(), HasSubstr("op: src: data pointer is null for non-empty shape (2, 2)"));
  TensorView e(DType::kFloat32, nullptr, {2, 0});
  EXPECT_TRUE(validate_view(e, "op: src").ok());
}

TEST(ValidateView, RejectsElementCountOverflow) {
  float x = 0;
  const int64_t big = int64_t{1} << 32;
  TensorView v(DType::kFloat32, &x, {big, big}, {0, 0});
  Status s = validate_view(v, "op: src");
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("overflows 64 bits"));
}

TEST(ValidateView, RejectsByteExtentOverflow) {
  float x = 0;
  TensorView v(DType::kFloat32, &x, {3}, {std::numeric_limits<int64_t>::max() / 2});
  EXPECT_THAT(validate_view(v, "op: src").message(), HasSubstr("byte extent"));
  TensorView w(DType::kFloat64, &x, {2}, {std::numeric_limits<int64_t>::max() / 4});
  EXPECT_THAT(validate_view(w, "op: src").message(), HasSubstr("overflows 64 bits"));
}

TEST(ValidateView, RejectsRankAndStrideMismatch) {
  float x = 0;
  TensorView v(DType::kFloat32, &x, {1, 1}, {1});
  EXPECT_THAT(validate_view(v, "op: src").message(), HasSubstr("expected 2 strides"));
  TensorView big(DType::kFloat32, &x, Dims(kMaxRank + 1, 1));
  EXPECT_THAT(validate_view(big, "op: src").message(), HasSubstr("rank must be <= 16, got 17"));
}

TEST(ExpectView, NamesExpectedAndActual) {
  Tensor t(DType::kInt8, {2, 3});
  Status s = expect_view(t.view(), "op: dst", DType::kFloat32, Dims{2, 3});
  EXPECT_THAT(s.message(), HasSubstr("op: dst: expected dtype float32, got int8"));
  s = expect_view(t.view(), "op: dst", DType::kInt8, Dims{3, 2});
  EXPECT_THAT(s.message(), HasSubstr("op: dst: expected shape (3, 2), got (2, 3)"));
}

TEST(TensorCreate, ReportsOverflowInsteadOfAllocating) {
  auto r = Tensor::create(DType::kFloat64, {int64_t{1} << 61, 8});
  EXPECT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("overflows 64 bits"));
  auto n = Tensor::create(DType::kFloat64, {-3});
  EXPECT_THAT(n.status().message(), HasSubstr("must be >= 0, got -3"));
}

TEST(Status, FormatsCodeAndMessage) {
  Status s = invalid_argument("op: x must be ", 3, ", got ", 4);
  EXPECT_EQ(s.to_string(), "invalid argument: op: x must be 3, got 4");
  EXPECT_EQ(Status().to_string(), "ok");
  StatusOr<int> v = 5;
  EXPECT_TRUE(v.ok());
  EXPECT_EQ(*v, 5);
  StatusOr<int> e = unimplemented("nope");
  EXPECT_EQ(e.status().code(), StatusCode::kUnimplemented);
}

TEST(Parallel, CoversRangeExactlyOnceForAnyThreadCount) {
  for (int threads : {1, 2, 3, 8}) {
    set_num_threads(threads);
    for (int64_t n : {0, 1, 5, 1000}) {
      std::vector<int> hits(static_cast<size_t>(n), 0);
      parallel_for(n, 7, [&](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i) hits[static_cast<size_t>(i)]++;
      });
      for (int h : hits) EXPECT_EQ(h, 1);
    }
  }
  set_num_threads(0);
}

TEST(Parallel, ChunksAreAtLeastGrainLongExceptTheLast) {
  for (int threads : {1, 2, 4}) {
    set_num_threads(threads);
    for (int64_t n : {1, 13, 100, 1001, 100000}) {
      for (int64_t grain : {1, 7, 64, 5000}) {
        std::mutex m;
        std::vector<std::pair<int64_t, int64_t>> chunks;
        parallel_for(n, grain, [&](int64_t b, int64_t e) {
          std::lock_guard<std::mutex> lock(m);
          chunks.emplace_back(b, e);
        });
        std::sort(chunks.begin(), chunks.end());
        ASSERT_FALSE(chunks.empty());
        EXPECT_EQ(chunks.front().first, 0);
        EXPECT_EQ(chunks.back().second, n);
        for (size_t i = 0; i < chunks.size(); ++i) {
          EXPECT_LT(chunks[i].first, chunks[i].second);
          if (i + 1 < chunks.size()) {
            EXPECT_EQ(chunks[i].second, chunks[i + 1].first) << "n=" << n << " grain=" << grain;
            EXPECT_GE(chunks[i].second - chunks[i].first, grain) << "n=" << n << " grain=" << grain;
          }
        }
      }
    }
  }
  set_num_threads(0);
}

TEST(Parallel, AnExceptionInTheBodyReachesTheCaller) {
  for (int threads : {1, 2, 4}) {
    set_num_threads(threads);
    std::atomic<int64_t> done{0};
    EXPECT_THROW(parallel_for(1000, 10,
                              [&](int64_t b, int64_t e) {
                                if (b <= 500 && 500 < e) throw std::bad_alloc();
                                done += e - b;
                              }),
                 std::bad_alloc);
    EXPECT_LT(done.load(), 1000);
    // The runner still works afterwards.
    std::atomic<int64_t> sum{0};
    parallel_for(1000, 10, [&](int64_t b, int64_t e) { sum += e - b; });
    EXPECT_EQ(sum.load(), 1000);
  }
  set_num_threads(0);
}

// NOTE [ Owned chunks, then stealing ] (src/core/parallel.cc): each thread runs its own
// share of the chunks first, then takes what is left of the others'. A chunk that cannot
// finish until every other chunk has run (as when its thread is descheduled) must not
// stop the others from running: they take the rest of its share.
TEST(Parallel, AHeldUpChunkDoesNotHoldUpTheRestOfItsShare) {
  // The held-up chunk's thread waits for the others: it needs a second thread to run them
  // (the default runner uses at most the machine's cores).
  if (std::thread::hardware_concurrency() < 2) GTEST_SKIP() << "needs 2 or more cores";
  for (int threads : {2, 3}) {
    set_num_threads(threads);
    constexpr int64_t n = 1000;
    std::atomic<int64_t> done{0};
    std::atomic<bool> rest_ran_first{false};
    parallel_for(n, 1, [&](int64_t b, int64_t e) {
      if (b == 0) {
        // The first chunk waits (at most 20 s) for all the others, its own share's included.
        const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(20);
        while (done.load() < n - e && std::chrono::steady_clock::now() < until) {
          std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }
        rest_ran_first = done.load() == n - e;
      }
      done += e - b;
    });
    EXPECT_TRUE(rest_ran_first.load()) << "threads=" << threads;
    EXPECT_EQ(done.load(), n);
  }
  set_num_threads(0);
}

// NOTE [ Default runner: TBB arenas ] (src/core/parallel.cc): a call runs the chunks no
// other thread has started itself and waits only for chunks already running, so threads
// that are busy elsewhere (or descheduled) do not hold it up. Here another call holds
// its threads (every one it gets, the pool's worker included, waits in a chunk until this
// call has returned); this call must still run all its chunks and return.
TEST(Parallel, ThreadsBusyElsewhereDoNotHoldUpACall) {
  set_num_threads(2);
  std::atomic<bool> release{false};
  std::atomic<int> held{0};
  std::thread other([&] {
    parallel_for(2, 1, [&](int64_t, int64_t) {
      ++held;
      const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(20);
      while (!release.load() && std::chrono::steady_clock::now() < until) {
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      }
      --held;
    });
  });
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (held.load() == 0 && std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(50));  // let the other call take what it can
  std::atomic<int64_t> sum{0};
  parallel_for(1000, 1, [&](int64_t b, int64_t e) { sum += e - b; });
  const int still_held = held.load();
  release = true;
  other.join();
  EXPECT_EQ(sum.load(), 1000);
  EXPECT_GT(still_held, 0) << "the call waited until the other call's threads were released";
  set_num_threads(0);
}

TEST(Parallel, TheDefaultThreadCountFollowsOmpNumThreads) {
  const char* saved = std::getenv("OMP_NUM_THREADS");
  const std::string keep = saved ? saved : "";
  set_num_threads(0);
  ::setenv("OMP_NUM_THREADS", "3", 1);
  EXPECT_EQ(get_num_threads(), 3);
  ::setenv("OMP_NUM_THREADS", "5,2", 1);  // OpenMP's nested list: the first level's count
  EXPECT_EQ(get_num_threads(), 5);
  ::setenv("OMP_NUM_THREADS", "999999", 1);
  EXPECT_EQ(get_num_threads(), kMaxThreads);
  set_num_threads(2);  // an explicit count wins
  EXPECT_EQ(get_num_threads(), 2);
  set_num_threads(0);
  ::unsetenv("OMP_NUM_THREADS");
  const int cores = get_num_threads();
  EXPECT_GE(cores, 1);
  ::setenv("OMP_NUM_THREADS", "none", 1);  // not a count: the cores
  EXPECT_EQ(get_num_threads(), cores);
  if (saved) {
    ::setenv("OMP_NUM_THREADS", keep.c_str(), 1);
  } else {
    ::unsetenv("OMP_NUM_THREADS");
  }
}

TEST(Parallel, HostRunnerIsUsed) {
  int calls = 0;
  set_parallel_runner([&](int64_t n, int64_t, const std::function<void(int64_t, int64_t)>& body) {
    ++calls;
    body(0, n);
  });
  int64_t sum = 0;
  parallel_for(10, 1, [&](int64_t b, int64_t e) { sum += e - b; });
  set_parallel_runner(nullptr);
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(sum, 10);
}

}  // namespace
}  // namespace gridops

namespace gridops {
namespace {
TEST(TensorView, NumElementsOfEmptyShapeWithHugeDimsIsZero) {
  const int64_t big = int64_t{1} << 62;
  TensorView v(DType::kFloat32, nullptr, {2, big, big, 0, 3}, {0, 0, 0, 0, 0});
  EXPECT_EQ(v.num_elements(), 0);
  EXPECT_TRUE(validate_view(v, "v").ok());
}
}  // namespace
}  // namespace gridops
