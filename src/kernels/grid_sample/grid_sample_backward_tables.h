// The fast GridSample backward's plan-time tables (built in grid_sample_backward_plan.cc,
// read by the run in grid_sample_backward_fast.cc; NOTE [ GridSample backward fast path ]).
#pragma once

#include <cstdint>

#include "kernels/grid_sample/grid_sample_backward_band.h"
#include "kernels/grid_sample/grid_sample_backward_workspace.h"

namespace gridops::kernels::grid_sample_backward_tables {

using grid_sample_backward_workspace::WorkspacePool;

/// One run kind's schedule (with or without the grid gradient: their scratch per point
/// differs, and so do the chunk and what depends on it).
struct BandsSchedule {
  int64_t chunk = 0;      ///< output points per chunk
  int s0 = 0, s1 = 0;     ///< sort keys: (axis-0 index >> s0) * M + (inner offset >> s1)
  int64_t G0 = 0, M = 0;  ///< axis-0 groups, inner buckets per group
  bool by_batch = false;  ///< whole batch entries per thread (one band each)
  int64_t bands = 1;      ///< else bands per chunk (1: on the calling thread)
};

/// The plan's tables (NOTE above): fixed by the problem, the SIMD target and the thread
/// count at plan time; the workspace is the plan's runs' reusable scratch.
struct BandsTables {
  int64_t CP = 0;
  int threads = 1;
  BandsSchedule sched[2];  ///< [grid gradient wanted]
  void (*band)(const grid_sample_simd::BandArgs&) = nullptr;
  const char* band_name = "";
  mutable WorkspacePool workspace;
};

}  // namespace gridops::kernels::grid_sample_backward_tables
