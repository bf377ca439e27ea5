// W6a probe (2026-11-30): gridops' Gather against bare loops of the same slice copies.
// W6a: 50,000 rows of 1 KiB (float32 x 256) from a 100,000-row table, int64 indices.
// Each round runs every variant 3 times in turn; medians and minima over 15 rounds.
//   variants: gridops::GatherPlan::run; a bare loop (prefetch the slice `ahead` slices on,
//   then 64-byte loads and streaming stores, as gather_slices_stream_hwy) at several
//   prefetch distances; the bare loop split over 2 std::threads (threads = 2); the bare
//   loop in the slices' address order (a counting sort of the indices by idx >> 6 inside
//   the timing, output slices then written out of order).
//   order: 0 random indices (W6a), 1 the same sorted, 2 idx = 2j, 3 idx = j.
// Build (x86-64 with AVX-512, from the repository root, after scripts/bench.sh built
// build/bench):
//   g++ -O2 -march=native -std=c++20 -Iinclude -Ibuild/bench/include -o /tmp/w6a_probe \
//     bench/probes/gather_w6a_probe.cc build/bench/libgridops.a \
//     -fopenmp -ltbb -lhwy -lpthread
// Run: /tmp/w6a_probe THREADS ORDER
#include <immintrin.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <thread>
#include <vector>

#include "gridops/gridops.h"
#include "gridops/parallel.h"

namespace {
double now_ms() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Slices q in [0, k) of `inner` bytes in the order ord (null: 0, 1, ...): out + j * inner <-
// src + idx[j] * inner, the slice `ahead` positions on prefetched.
void copy_slices(char* out, const char* src, const int64_t* idx, const int32_t* ord, int64_t k,
                 int64_t inner, int64_t ahead) {
  for (int64_t q = 0; q < k; ++q) {
    const int64_t j = ord ? ord[q] : q;
    if (q + ahead < k) {
      const int64_t jj = ord ? ord[q + ahead] : q + ahead;
      const char* p = src + idx[jj] * inner;
      for (int64_t b = 0; b < inner; b += 64) _mm_prefetch(p + b, _MM_HINT_T0);
    }
    char* o = out + j * inner;
    const char* a = src + idx[j] * inner;
    for (int64_t i = 0; i < inner; i += 64) {
      _mm512_stream_si512(reinterpret_cast<__m512i*>(o + i), _mm512_loadu_si512(a + i));
    }
  }
  _mm_sfence();
}

// ord <- 0..k-1 ordered by idx >> shift (stable counting sort).
void address_order(const int64_t* idx, int64_t k, int64_t rows, int shift, int32_t* ord,
                   std::vector<int32_t>& cnt) {
  const int64_t nb = (rows >> shift) + 1;
  cnt.assign(static_cast<size_t>(nb + 1), 0);
  for (int64_t j = 0; j < k; ++j) cnt[static_cast<size_t>((idx[j] >> shift) + 1)]++;
  for (int64_t b = 0; b < nb; ++b) cnt[static_cast<size_t>(b + 1)] += cnt[static_cast<size_t>(b)];
  for (int64_t j = 0; j < k; ++j) ord[cnt[static_cast<size_t>(idx[j] >> shift)]++] = static_cast<int32_t>(j);
}
}  // namespace

int main(int argc, char** argv) {
  const int threads = argc > 1 ? std::atoi(argv[1]) : 1;
  const int order = argc > 2 ? std::atoi(argv[2]) : 0;
  const int64_t rows = 100000, inner = 1024, k = 50000;
  gridops::set_num_threads(threads);
  char* src = static_cast<char*>(std::aligned_alloc(4096, static_cast<size_t>(rows * inner)));
  char* out = static_cast<char*>(std::aligned_alloc(64, static_cast<size_t>(k * inner)));
  for (int64_t i = 0; i < rows * inner; ++i) src[i] = static_cast<char>(i);
  std::memset(out, 1, static_cast<size_t>(k * inner));
  std::mt19937_64 rng(7);
  std::vector<int64_t> idx(static_cast<size_t>(k));
  for (auto& x : idx) x = static_cast<int64_t>(rng() % static_cast<uint64_t>(rows));
  if (order == 1) std::sort(idx.begin(), idx.end());
  for (int64_t j = 0; j < k && order >= 2; ++j) idx[static_cast<size_t>(j)] = order == 2 ? 2 * j : j;

  gridops::GatherDesc desc;
  desc.axis = 0;
  const auto plan = *gridops::make_gather_plan(desc, gridops::DType::kFloat32, std::vector<int64_t>{rows, 256},
                                               gridops::DType::kInt64, std::vector<int64_t>{k});
  const gridops::TensorView dv(gridops::DType::kFloat32, src, {rows, 256});
  const gridops::TensorView iv(gridops::DType::kInt64, idx.data(), {k});
  const gridops::MutableTensorView ov(gridops::DType::kFloat32, out, {k, 256});

  std::vector<int32_t> ord0(static_cast<size_t>(k)), ord1(static_cast<size_t>(k)), cnt0, cnt1;
  // Runs the bare loop over [0, k) on `threads` std::threads (halves at 2).
  auto bare = [&](int64_t ahead, bool by_address) {
    auto part = [&](int64_t j0, int64_t j1, std::vector<int32_t>& ord, std::vector<int32_t>& cnt) {
      const int32_t* o = nullptr;
      if (by_address) {
        address_order(idx.data() + j0, j1 - j0, rows, 6, ord.data(), cnt);
        o = ord.data();
      }
      copy_slices(out + j0 * inner, src, idx.data() + j0, o, j1 - j0, inner, ahead);
    };
    if (threads < 2) return part(0, k, ord0, cnt0);
    std::thread th([&] { part(k / 2, k, ord1, cnt1); });
    part(0, k / 2, ord0, cnt0);
    th.join();
  };
  struct Variant {
    const char* name;
    int64_t ahead;  // 0: gridops
    bool by_address;
  };
  const std::vector<Variant> vs = {{"gridops", 0, false},       {"bare, 8 ahead", 8, false},
                                   {"bare, 4 ahead", 4, false}, {"bare, 16 ahead", 16, false},
                                   {"bare, 24 ahead", 24, false}, {"bare, address order", 8, true}};
  std::vector<std::vector<double>> t(vs.size());
  for (int r = 0; r < 15; ++r) {
    for (size_t v = 0; v < vs.size(); ++v) {
      for (int q = 0; q < 3; ++q) {
        const double a = now_ms();
        if (vs[v].ahead == 0) {
          if (!plan.run(dv, iv, ov).ok()) std::abort();
        } else {
          bare(vs[v].ahead, vs[v].by_address);
        }
        t[v].push_back(now_ms() - a);
      }
    }
  }
  std::printf("threads %d, order %d (%s)\n", threads, order, plan.impl_name());
  for (size_t v = 0; v < vs.size(); ++v) {
    auto& x = t[v];
    std::sort(x.begin(), x.end());
    std::printf("  %-22s median %.3f ms, min %.3f\n", vs[v].name, x[x.size() / 2], x[0]);
  }
  return 0;
}
