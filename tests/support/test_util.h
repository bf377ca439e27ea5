// Helpers shared by the tests: seeded random data, strided copies, and comparisons.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "gridops/tensor.h"

namespace gridops::testing {

/// The seed for randomized tests: GRIDOPS_SEED from the environment, else one drawn from
/// std::random_device once per process, so every run draws new problems. The seed is
/// printed when the program starts and after every failed assertion ("rerun with
/// GRIDOPS_SEED=<n>"), and randomized tests also record it with SCOPED_TRACE.
uint64_t test_seed();

/// The Highway targets this CPU runs among those compiled into gridops, best first (empty
/// when built without Highway), less those named in GRIDOPS_TEST_SKIP_TARGETS (a comma
/// list of Highway target names, e.g. "NEON" or "AVX2,SSE4"; the first call prints what
/// it left out). The tests that loop over every target use this list: scripts/test-arm64.sh
/// sets the variable in its SVE runs to the targets its NEON run already covered, which
/// qemu would otherwise emulate a second and third time.
std::vector<int64_t> hwy_targets();

/// Every target this CPU runs among those compiled, whatever GRIDOPS_TEST_SKIP_TARGETS says
/// (for naming a target: a problem line's target must read back).
std::vector<int64_t> hwy_targets_all();

/// "AVX3", "AVX2", "SSE4", ...
std::string hwy_target_name(int64_t target);

/// Makes Highway dispatch to `target` only, for one scope (then to the CPU's best again).
class ScopedHwyTarget {
 public:
  explicit ScopedHwyTarget(int64_t target);
  ~ScopedHwyTarget();
  ScopedHwyTarget(const ScopedHwyTarget&) = delete;
  ScopedHwyTarget& operator=(const ScopedHwyTarget&) = delete;
};

/// A view of `t` with the same logical contents but non-trivial strides: a copy laid out
/// in reverse axis order (or with negative strides when `negative`) inside `storage`.
/// Returns a TensorView over storage that reads the same elements as t.
TensorView scrambled_copy(const Tensor& t, Tensor& storage, bool negative);

/// Fills a tensor with uniform random values in [lo, hi] converted to its dtype (strings
/// get short random words; complex gets independent parts; bool 0/1).
void fill_random(Tensor& t, std::mt19937_64& rng, double lo, double hi);

/// Element i (row-major) of a contiguous tensor as double (real part for complex; string
/// unsupported).
double element_as_double(const Tensor& t, int64_t i);

/// Every dtype except string: one of each element size (1, 2, 4, 8, 16 bytes).
inline constexpr DType kFixedSizeDTypes[] = {
    DType::kBool,    DType::kInt8,     DType::kInt16,    DType::kInt32,     DType::kInt64,
    DType::kUInt8,   DType::kUInt16,   DType::kUInt32,   DType::kUInt64,    DType::kFloat16,
    DType::kBFloat16, DType::kFloat32, DType::kFloat64,  DType::kComplex64, DType::kComplex128};

/// Random bytes for a fixed-size tensor (NaN payloads and all); bool elements get 0 or 1.
void fill_random_bytes(Tensor& t, std::mt19937_64& rng);

/// Product of dims (dims assumed valid).
int64_t product(const Dims& dims);

/// The row-major multi-index of flat index f in dims.
Dims unravel(int64_t f, const Dims& dims);

/// True when two tensors have the same dtype, shape and bit-identical elements (strings
/// compared by value). Fills *where with the first differing flat index.
bool bitwise_equal(const Tensor& a, const Tensor& b, int64_t* where = nullptr);

/// A contiguous copy of the box [start, start + shape) of the contiguous tensor t (same
/// rank; fixed-size element types).
Tensor copy_box(const Tensor& t, const Dims& start, const Dims& shape);

/// Writes the contiguous tensor part into the box of dst that starts at `start` (the
/// inverse of copy_box).
void paste_box(const Tensor& part, Tensor& dst, const Dims& start);

/// Random cut points of [0, len): chunks [begin, end) of sizes 1..max(1, len/2 + 1), in
/// order (uneven, often tiny), for chunked-execution tests.
std::vector<std::pair<int64_t, int64_t>> random_chunks(std::mt19937_64& rng, int64_t len);

/// The message of a failed Status, or "(succeeded)" when it did not fail (so that a
/// substring match on it fails too).
inline std::string error_message(const Status& s) { return s.ok() ? "(succeeded)" : s.message(); }
template <class T>
std::string error_message(const StatusOr<T>& r) {
  return error_message(r.status());
}

}  // namespace gridops::testing
