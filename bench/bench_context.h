// The instruction-set level each side of a benchmark binary runs at, and the host's, recorded
// in the JSON context (Google Benchmark's custom context) so that scripts/bench_table.py and
// scripts/bench_targets.py can say whether a table is "native" or every side capped at one
// level (scripts/bench.sh, GRIDOPS_BENCH_ISA; docs/BENCHMARKS.md, "ISA-matched tables").
//
// Keys (every value a string):
//   isa_requested  GRIDOPS_BENCH_ISA as scripts/bench.sh set it ("native" when unset)
//   isa_host       the best level the CPU has: sse4, avx2, avx512, avx512_bf16 (x86-64), else
//                  the architecture
//   cpu_model      /proc/cpuinfo's "model name" (or "unknown")
//   cpu_flags_level  x86-64-v4 / -v3 / -v2 / x86-64 by the CPU's flags (GCC's
//                  __builtin_cpu_supports), or the architecture
//   isa_gridops    gridops::effective_isa() (after GRIDOPS_MAX_ISA); isa_gridops_cap: max_isa()
//   isa_torch      PyTorch's CPU capability as at::show_config() reports it, as a level
//                  (avx512, avx2, or "default": ATen's kernels built for the baseline,
//                  reported as "NO AVX"); isa_torch_detail: the reported name
//   isa_onednn     dnnl_get_effective_cpu_isa() as a level; isa_onednn_detail: oneDNN's name
//   isa_opencv     the highest of OpenCV's dispatched levels cv::checkHardwareSupport still
//                  reports (AVX512_SKX -> avx512, AVX2 -> avx2, SSE4_2 -> sse4, else baseline);
//                  isa_opencv_detail: cv::getCPUFeaturesLine()
// A side that is not linked into the binary is absent.
#pragma once

#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <utility>

#include "gridops/isa.h"

#ifdef GRIDOPS_BENCH_TORCH
#include <ATen/Version.h>
#endif
#ifdef GRIDOPS_BENCH_ONEDNN
#include <oneapi/dnnl/dnnl.h>
#endif
#ifdef GRIDOPS_BENCH_OPENCV
#include <opencv2/core/utility.hpp>
#endif

namespace gridops::bench {

/// "model name" of the first CPU in /proc/cpuinfo, or "unknown".
inline std::string cpu_model() {
  std::ifstream f("/proc/cpuinfo");
  std::string line;
  while (std::getline(f, line)) {
    if (line.rfind("model name", 0) == 0) {
      const size_t colon = line.find(':');
      if (colon != std::string::npos) {
        const size_t start = line.find_first_not_of(" \t", colon + 1);
        return start == std::string::npos ? "unknown" : line.substr(start);
      }
    }
  }
  return "unknown";
}

/// (best level the CPU has, x86-64 micro-architecture level of its flags).
inline std::pair<std::string, std::string> host_levels() {
#if defined(__x86_64__)
  __builtin_cpu_init();
  std::string level = "scalar";
  if (__builtin_cpu_supports("sse4.2")) level = "sse4";
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) level = "avx2";
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl")) {
    level = __builtin_cpu_supports("avx512bf16") ? "avx512_bf16" : "avx512";
  }
  const char* flags = __builtin_cpu_supports("x86-64-v4")   ? "x86-64-v4"
                      : __builtin_cpu_supports("x86-64-v3") ? "x86-64-v3"
                      : __builtin_cpu_supports("x86-64-v2") ? "x86-64-v2"
                                                            : "x86-64";
  return {level, flags};
#elif defined(__aarch64__)
  return {"aarch64", "aarch64"};
#else
  return {"unknown", "unknown"};
#endif
}

#ifdef GRIDOPS_BENCH_TORCH
/// (level, detail) of ATen's CPU capability: at::show_config()'s "CPU capability usage" line
/// (ATen 1.13 does not export at::native::get_cpu_capability()).
inline std::pair<std::string, std::string> torch_isa() {
  const std::string cfg = at::show_config();
  const std::string key = "CPU capability usage: ";
  const size_t at = cfg.find(key);
  if (at == std::string::npos) return {"unknown", "no CPU capability line in at::show_config()"};
  const size_t end = cfg.find('\n', at);
  const std::string v = cfg.substr(at + key.size(), end == std::string::npos ? end : end - at - key.size());
  const std::string level = v == "AVX512" ? "avx512" : v == "AVX2" ? "avx2" : v == "NO AVX" ? "default" : v;
  return {level, v};
}
#endif

#ifdef GRIDOPS_BENCH_ONEDNN
/// (level, oneDNN's name) of dnnl_get_effective_cpu_isa(), which ONEDNN_MAX_CPU_ISA caps.
inline std::pair<std::string, std::string> onednn_isa() {
  switch (dnnl_get_effective_cpu_isa()) {
    case dnnl_cpu_isa_sse41: return {"sse4", "sse41"};
    case dnnl_cpu_isa_avx: return {"avx", "avx"};
    case dnnl_cpu_isa_avx2: return {"avx2", "avx2"};
    case dnnl_cpu_isa_avx2_vnni: return {"avx2", "avx2_vnni"};
    case dnnl_cpu_isa_avx512_mic: return {"avx512", "avx512_mic"};
    case dnnl_cpu_isa_avx512_mic_4ops: return {"avx512", "avx512_mic_4ops"};
    case dnnl_cpu_isa_avx512_core: return {"avx512", "avx512_core"};
    case dnnl_cpu_isa_avx512_core_vnni: return {"avx512", "avx512_core_vnni"};
    case dnnl_cpu_isa_avx512_core_bf16: return {"avx512_bf16", "avx512_core_bf16"};
    case dnnl_cpu_isa_avx512_core_amx: return {"avx512_bf16", "avx512_core_amx"};
    default: return {"unknown", "unknown"};
  }
}
#endif

#ifdef GRIDOPS_BENCH_OPENCV
/// (level, cv::getCPUFeaturesLine()) of OpenCV's dispatch, which OPENCV_CPU_DISABLE caps
/// (a disabled feature is marked '?' in the line and checkHardwareSupport returns false).
inline std::pair<std::string, std::string> opencv_isa() {
  const std::string line = cv::getCPUFeaturesLine();
  if (cv::checkHardwareSupport(CV_CPU_AVX512_SKX)) return {"avx512", line};
  if (cv::checkHardwareSupport(CV_CPU_AVX2) && cv::checkHardwareSupport(CV_CPU_FMA3)) return {"avx2", line};
  if (cv::checkHardwareSupport(CV_CPU_SSE4_2)) return {"sse4", line};
  return {"baseline", line};
}
#endif

/// Adds the keys above to Google Benchmark's JSON context (call before
/// RunSpecifiedBenchmarks) and prints one line of them to stderr.
inline void add_isa_context() {
  const char* req = std::getenv("GRIDOPS_BENCH_ISA");
  const auto [host, flags] = host_levels();
  std::string summary;
  auto add = [&summary](const std::string& key, const std::string& value, bool show) {
    benchmark::AddCustomContext(key, value);
    if (show) summary += " " + key.substr(4) + "=" + value;  // drops "isa_"
  };
  add("isa_requested", req && *req ? req : "native", true);
  add("isa_host", host, true);
  benchmark::AddCustomContext("cpu_model", cpu_model());
  benchmark::AddCustomContext("cpu_flags_level", flags);
  add("isa_gridops", gridops::effective_isa(), true);
  add("isa_gridops_cap", gridops::max_isa(), false);
#ifdef GRIDOPS_BENCH_TORCH
  const auto torch = torch_isa();
  add("isa_torch", torch.first, true);
  add("isa_torch_detail", torch.second, false);
#endif
#ifdef GRIDOPS_BENCH_ONEDNN
  const auto dnnl = onednn_isa();
  add("isa_onednn", dnnl.first, true);
  add("isa_onednn_detail", dnnl.second, false);
#endif
#ifdef GRIDOPS_BENCH_OPENCV
  const auto cv = opencv_isa();
  add("isa_opencv", cv.first, true);
  add("isa_opencv_detail", cv.second, false);
#endif
  std::fprintf(stderr, "[isa]%s\n", summary.c_str());
}

}  // namespace gridops::bench
