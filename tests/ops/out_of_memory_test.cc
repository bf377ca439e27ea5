// An allocation failure inside a threaded kernel (std::bad_alloc thrown from a chunk of
// parallel_for) is reported by every operator as kOutOfMemory naming the operator, not
// thrown to the caller. The failure is injected with a host runner that throws.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <new>
#include <string>
#include <vector>

#include "gridops/ops/affine_grid.h"
#include "gridops/ops/gather.h"
#include "gridops/ops/grid_sample.h"
#include "gridops/ops/pad.h"
#include "gridops/ops/resample.h"
#include "gridops/parallel.h"
#include "gridops/tensor.h"

namespace gridops {
namespace {

using ::testing::HasSubstr;

/// Installs a runner whose every call throws std::bad_alloc, for one scope.
class ThrowingRunner {
 public:
  ThrowingRunner() {
    set_parallel_runner([](int64_t, int64_t, const std::function<void(int64_t, int64_t)>&) {
      throw std::bad_alloc();
    });
  }
  ~ThrowingRunner() { set_parallel_runner(nullptr); }
  ThrowingRunner(const ThrowingRunner&) = delete;
  ThrowingRunner& operator=(const ThrowingRunner&) = delete;
};

void expect_out_of_memory(const Status& s, const std::string& op) {
  EXPECT_EQ(s.code(), StatusCode::kOutOfMemory) << s.to_string();
  EXPECT_THAT(s.message(), HasSubstr(op + ": out of memory for the kernel's scratch (dst partly written)"));
}

#ifdef GRIDOPS_HAVE_HWY  // the threaded (fast) kernels; the references run on one thread

TEST(OutOfMemory, GridSample) {
  Tensor x(DType::kFloat32, {2, 16, 32, 32});
  Tensor grid(DType::kFloat32, {2, 32, 32, 2});
  ThrowingRunner guard;
  expect_out_of_memory(grid_sample(GridSampleDesc{}, x, grid).status(), "grid_sample");
}

TEST(OutOfMemory, AffineGrid) {
  Tensor theta(DType::kFloat32, {2, 2, 3});
  const int64_t size[] = {2, 3, 64, 64};
  ThrowingRunner guard;
  expect_out_of_memory(affine_grid(AffineGridDesc{}, theta, size).status(), "affine_grid");
}

TEST(OutOfMemory, Gather) {
  Tensor data(DType::kFloat32, {64, 256});
  Tensor indices(DType::kInt64, {32});  // zeros: valid
  ThrowingRunner guard;
  expect_out_of_memory(gather(GatherDesc{}, data, indices).status(), "gather");
}

TEST(OutOfMemory, Pad) {
  Tensor data(DType::kFloat32, {4, 64, 64});
  PadDesc desc;
  desc.pads_begin = {0, 3, 3};
  desc.pads_end = {0, 3, 3};
  ThrowingRunner guard;
  expect_out_of_memory(pad(desc, data).status(), "pad");
}

TEST(OutOfMemory, ResampleForwardAndBackward) {
  const ResampleMemoryDesc src{DType::kFloat32, {2, 16, 32, 32}, MemoryFormat::kChannelsLast};
  const ResampleMemoryDesc dst{DType::kFloat32, {2, 16, 64, 64}, MemoryFormat::kChannelsLast};
  ResampleDesc desc;
  desc.algorithm = ResampleAlgorithm::kLinear;
  auto plan = make_resample_plan(desc, src, dst);
  ASSERT_TRUE(plan.ok()) << plan.status().to_string();
  std::vector<float> a(2 * 16 * 32 * 32), b(2 * 16 * 64 * 64);
  ThrowingRunner guard;
  expect_out_of_memory(plan->forward(a.data(), b.data()), "resample");
  expect_out_of_memory(plan->backward(b.data(), a.data()), "resample");
}

#endif

TEST(OutOfMemory, TheRunnerIsRestoredAfterwards) {
  { ThrowingRunner guard; }
  Tensor data(DType::kFloat32, {8, 8});
  Tensor indices(DType::kInt64, {4});
  EXPECT_TRUE(gather(GatherDesc{}, data, indices).ok());
}

}  // namespace
}  // namespace gridops
