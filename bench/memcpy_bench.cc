// The bandwidth reference: a plain copy of 64 MiB (read + write counted), 1 and 2 threads.
#include <cstring>
#include <vector>

#include "bench_util.h"

namespace {

void register_all() {
  static std::vector<char> src(64 << 20, 1), dst(64 << 20);
  gridops::bench::add("copy64MiB", "memcpy", int64_t{2} * (64 << 20), [](benchmark::State& st) {
    for (auto _ : st) {
      const int64_t n = static_cast<int64_t>(src.size());
      gridops::parallel_for(n, 1 << 20, [&](int64_t b, int64_t e) {
        std::memcpy(dst.data() + b, src.data() + b, static_cast<size_t>(e - b));
      });
      benchmark::DoNotOptimize(dst.data());
    }
  });
}

}  // namespace

int main(int argc, char** argv) { return gridops::bench::run_main(argc, argv, register_all); }
