// Inputs that change while a call runs (issue 53, defect 1). A caller's other thread (in
// Python: any thread, since the GIL is released during a kernel) may write an input while
// gridops reads it. The result is then unspecified, but the call must neither crash nor read
// outside its inputs: every value that decides an address is either read once or clamped
// where the kernel reads it again. Each test runs a fixed number of calls while a second
// thread keeps flipping one value between valid and out of range; under AddressSanitizer
// (the sanitized pass of scripts/test.sh) a read outside the inputs aborts the test.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <thread>

#include "gridops/ops/affine_warp.h"
#include "gridops/ops/gather.h"
#include "gridops/ops/grid_sample.h"
#include "gridops/tensor.h"

namespace gridops {
namespace {

/// Flips *p between a and b (as raw bytes of T) until stopped, through an atomic view so
/// the flipping itself is well defined.
template <class T>
class Flipper {
 public:
  Flipper(T* p, T a, T b) : p_(p), a_(a), b_(b), thread_([this] { loop(); }) {}
  ~Flipper() {
    stop_.store(true);
    thread_.join();
    *p_ = a_;
  }
  int64_t flips() const { return flips_.load(); }

 private:
  void loop() {
    std::atomic_ref<T> v(*p_);
    uint32_t r = 12345;
    // Each value is held for a varying time (about 0.1 to 2 microseconds), so that a call's
    // check and its kernel's read fall on different values often.
    auto hold = [&] {
      r = r * 1664525u + 1013904223u;
      const uint32_t n = 200 + (r >> 20);
      for (uint32_t i = 0; i < n; ++i) asm volatile("" ::: "memory");
    };
    while (!stop_.load(std::memory_order_relaxed)) {
      v.store(b_, std::memory_order_relaxed);
      hold();
      v.store(a_, std::memory_order_relaxed);
      hold();
      flips_.fetch_add(1, std::memory_order_relaxed);
    }
  }
  T* p_;
  T a_, b_;
  std::atomic<bool> stop_{false};
  std::atomic<int64_t> flips_{0};
  std::thread thread_;
};

constexpr int kCalls = 300;

// gather: the indices are checked in one pass and read again by the kernel (both the
// reference and the fast entries). Index 0 flips between 1 and 2^40 (about 1 TB past data).
TEST(ConcurrentMutation, GatherIndices) {
  Tensor data(DType::kFloat32, {2000, 16});
  for (int64_t i = 0; i < data.num_elements(); ++i) data.data_as<float>()[i] = static_cast<float>(i);
  Tensor idx(DType::kInt64, {100000});
  for (int64_t i = 0; i < idx.num_elements(); ++i) idx.data_as<int64_t>()[i] = (i * 7) % 2000;
  idx.data_as<int64_t>()[0] = 1;
  for (const char* impl : {"", "ref"}) {
    SCOPED_TRACE(std::string("impl '") + impl + "'");
    GatherDesc desc;
    desc.axis = 0;
    desc.impl = impl;
    auto plan = make_gather_plan(desc, DType::kFloat32, data.shape(), DType::kInt64, idx.shape());
    ASSERT_TRUE(plan.ok()) << plan.status().to_string();
    Tensor out(DType::kFloat32, plan->dst_shape());
    int ok = 0, refused = 0;
    {
      Flipper<int64_t> flip(idx.data_as<int64_t>(), 1, int64_t{1} << 40);
      for (int it = 0; it < (impl[0] ? kCalls / 10 : kCalls); ++it) {
        const Status s = plan->run(data, idx, out.mutable_view());
        if (s.ok()) {
          ++ok;
          // Row 0 of the output is some row of data (index 1 or the clamped last row).
          const float v = out.data_as<float>()[0];
          EXPECT_TRUE(v == 16.0f || v == 1999.0f * 16.0f) << v;
        } else {
          ++refused;
          EXPECT_NE(s.message().find("is out of range"), std::string::npos) << s.message();
        }
      }
      std::printf("[ info ] %d calls ran, %d refused, %lld flips\n", ok, refused,
                  static_cast<long long>(flip.flips()));
    }
  }
}

// grid_sample with an input window, on the reference and the automatic choice: the grid is checked against the
// window, then read again by the kernel. One grid value flips between 0 and 0.9 (a tap far
// outside the small window src holds).
TEST(ConcurrentMutation, WindowedGridSampleGrid) {
  const Dims full{1 << 16, 1 << 16};
  Tensor src(DType::kFloat32, {1, 2, 16, 16});  // the box [0, 16) x [0, 16) of the full input
  for (int64_t i = 0; i < src.num_elements(); ++i) src.data_as<float>()[i] = 1.0f;
  Tensor grid(DType::kFloat32, {1, 64, 64, 2});
  float* g = grid.data_as<float>();
  const float inside = -1.0f + 7.0f / 65536.0f;  // pixel 3 of the full input
  for (int64_t i = 0; i < grid.num_elements(); ++i) g[i] = inside;
  for (const char* impl : {"ref", ""})
  for (InterpolationMode mode : {InterpolationMode::kLinear, InterpolationMode::kCubic,
                                 InterpolationMode::kNearest}) {
    SCOPED_TRACE(std::string(to_string(mode)) + " impl '" + impl + "'");
    GridSampleDesc desc;
    desc.mode = mode;
    desc.impl = impl;
    GridSampleWindow w;
    w.full = full;
    w.origin = {0, 0};
    auto plan = make_grid_sample_plan(desc, DType::kFloat32, src.shape(), DType::kFloat32,
                                      grid.shape(), w);
    ASSERT_TRUE(plan.ok()) << plan.status().to_string();
    Tensor out(DType::kFloat32, plan->dst_shape());
    int ok = 0;
    {
      // The last point's y: its tap row about 62,000 rows past the 16 rows src holds.
      Flipper<float> flip(g + grid.num_elements() - 1, inside, 0.9f);
      for (int it = 0; it < kCalls / 3; ++it) {
        const Status s = plan->run(src, grid, out.mutable_view());
        if (s.ok()) {
          ++ok;
          // src is all 1 in the window: every output is a sum of weights (or 0).
          for (int64_t i = 0; i < out.num_elements(); ++i) {
            const float v = out.data_as<float>()[i];
            ASSERT_TRUE(v >= -0.5f && v <= 1.5f) << "element " << i << " = " << v;
          }
        } else {
          EXPECT_NE(s.message().find("window"), std::string::npos) << s.message();
        }
      }
    }
    std::printf("[ info ] %s %s: %d of %d calls ran\n", to_string(mode), plan->impl_name(), ok,
                kCalls / 3);
  }
}

// affine_warp with windows on the reference path (bicubic): theta is read for the box check
// and again to build the grid. theta[0, 0, 2] (x translation) flips between 0 and -0.5 (input column about 50, inside
// the full input, 30 columns before the box src holds).
TEST(ConcurrentMutation, WindowedAffineWarpTheta) {
  Tensor src(DType::kFloat32, {1, 1, 40, 40});
  for (int64_t i = 0; i < src.num_elements(); ++i) src.data_as<float>()[i] = 2.0f;
  Tensor theta(DType::kFloat32, {1, 2, 3});
  const float t[6] = {0.1f, 0.0f, 0.0f, 0.0f, 0.1f, 0.0f};  // a small box around the centre
  std::memcpy(theta.data(), t, sizeof t);
  const Dims size{200, 200};
  const Dims out_shape{32, 32};
  AffineWarpDesc desc;
  desc.mode = InterpolationMode::kCubic;
  desc.impl = "ref";
  AffineWarpWindow w;
  w.out_origin = {84, 84};
  w.in_full = {200, 200};
  w.in_origin = {80, 80};
  auto plan = make_affine_warp_plan(desc, DType::kFloat32, src.shape(), DType::kFloat32,
                                    theta.shape(), size, out_shape, w);
  ASSERT_TRUE(plan.ok()) << plan.status().to_string();
  ASSERT_TRUE(plan->run(src, theta, Tensor(DType::kFloat32, plan->dst_shape()).mutable_view()).ok());
  Tensor out(DType::kFloat32, plan->dst_shape());
  int ok = 0;
  {
    Flipper<float> flip(theta.data_as<float>() + 2, 0.0f, -0.5f);
    for (int it = 0; it < kCalls; ++it) {
      const Status s = plan->run(src, theta, out.mutable_view());
      if (!s.ok()) continue;
      ++ok;
      // Every output is a weighted sum of src values (all 2) or of nothing: finite and
      // bounded by the cubic weights' absolute sum, never memory from outside src.
      for (int64_t i = 0; i < out.num_elements(); ++i) {
        const float v = out.data_as<float>()[i];
        ASSERT_TRUE(v > -4.0f && v < 6.0f) << "element " << i << " = " << v;
      }
    }
  }
  // How many calls saw theta change and were refused depends on the scheduler (on a loaded
  // machine the flipper may not run between a check and a kernel at all), so it is printed,
  // not asserted; what is asserted is that no output ever held memory from outside src.
  std::printf("[ info ] %d of %d calls ran\n", ok, kCalls);
}

}  // namespace
}  // namespace gridops
