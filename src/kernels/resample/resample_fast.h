// The fast resampling paths: their plan-time tables (resample_tables.cc) and entry
// points (resample_plain_hwy.cc, resample_channels_hwy.cc; Highway, shared helpers in
// resample_hwy-inl.h). See docs/ops/resample.md, "Fast path", for the arithmetic.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/cache_size.h"
#include "kernels/resample/resample.h"

namespace gridops::kernels {

/// The fast kernels' outputs of at least this many bytes may be streamed (non-temporal
/// stores pay off for outputs well beyond the caches): 4 MiB, measured on the 32 MiB-L3
/// host, scaled to this machine's last-level cache (NOTE [ Stream thresholds by cache
/// size ], core/cache_size.h).
inline int64_t resample_stream_min_bytes() noexcept { return scale_to_llc(int64_t{4} << 20); }
/// NOTE [ Nearest forward store policy ] (resample_hwy-inl.h): the channels-last nearest
/// forward streams only when input and output together take at least this many bytes
/// (32 MiB there, scaled the same way).
inline int64_t resample_stream_working_set_bytes() noexcept {
  return scale_to_llc(int64_t{32} << 20);
}

/// Per-axis tables, built once per plan from coords::resample_nearest_index /
/// resample_linear_taps. Forward: taps and float32 weights per output position (arrays
/// padded with index 0 and weight 0 to a multiple of 16 so whole vectors can be loaded).
/// Backward: the adjoint in CSR form, built from the same forward tables: for each input
/// position its (output position, weight) uses in increasing output order (tap 0 before
/// tap 1 where both taps of one output hit the same input).
struct ResampleAxisTable {
  int64_t in = 1, out = 1;
  std::vector<int32_t> i0, i1;
  std::vector<float> w0, w1;
  std::vector<int64_t> begin;  ///< in + 1 entries
  std::vector<int32_t> use_o;
  std::vector<float> use_w;
};

/// The adjoint of the innermost axis in vector-chunk form, for the plain (W-contiguous)
/// backward kernels: chunk k covers inputs [k * lanes, (k + 1) * lanes) and has slots
/// [slot_begin[k], slot_begin[k + 1]); slot s holds, per lane, the output index, weight and
/// a validity flag of that lane's s-th use (lanes with fewer uses are invalid there).
struct ResampleChunkTable {
  int64_t lanes = 0;
  std::vector<int64_t> slot_begin;
  std::vector<int32_t> idx;
  std::vector<float> w;
  std::vector<int32_t> valid;
};

/// For the plain kernels: how each vector of N outputs along W fetches its taps from a
/// source row of length Iw. Chunk k (outputs [k N, k N + N)) loads one vector (mode 1) or
/// two adjacent vectors (mode 2) at row[start] and picks every lane's taps with a lane
/// permutation (rel0/rel1: tap index - start, in [0, N) or [0, 2 N)); mode 0 chunks (taps
/// spread wider, or rows shorter than the window) use gathers. Loads stay inside
/// [0, Iw), so the row may be the tensor itself. Built by resample_plain_prepare
/// (O(Ow)).
struct ResampleTapChunks {
  std::vector<int32_t> start, mode, rel0, rel1;
};

/// For the plain backward kernels: per slot of ResampleChunkTable, the window of one
/// (mode 1) or two (mode 2) vectors of a row of Ow floats its used lanes are fetched
/// from by a lane permutation (rel: index - start, per slot and lane; unused lanes 0), or
/// a gather (mode 0). NOTE [ Resample plain backward windows ].
struct ResampleSlotWindows {
  std::vector<int32_t> start, mode, rel;
};

/// Everything the fast kernels precompute for one plan.
struct ResampleFastTables {
  ResampleAxisTable axis[kResampleMaxSpatialRank];
  ResampleChunkTable chunks;  ///< resample.plain only (built by resample_plain_prepare)
  ResampleTapChunks w_taps;    ///< resample.plain only: the forward's W taps
  ResampleSlotWindows w_slots;  ///< resample.plain only: the backward's windows of chunks
  /// Schedule field of the channel-vector linear forward (NOTE [ Resample direct linear
  /// forward ], resample_channels_hwy.cc): each output of a group of full chunks computed
  /// directly from the outer interpolation at its two W taps, rather than through the
  /// scratch row of every input column. The same bits either way.
  bool direct_linear = false;
};

// The paths (each an entry of the implementation list in src/ops/resample.cc; all need
// Highway). Every path computes the same values (NOTE [ Fast resample arithmetic ]):
// - resample.plain: both tensors unblocked and contiguous along the last spatial axis;
//   vectors run along W with in-register taps.
// - resample.channels_vector16 / resample.channels_vector8: both tensors hold runs of 16 / 8
//   contiguous channels at every pixel (channels-last, blocked16, blocked8); vectors run
//   along the channels.
// - resample.channels_bf16: resample.channels_vector16's bfloat16 linear forward with the
//   AVX512_BF16 conversion instructions and, unless W is downsampled by 2 or more, the
//   columns of the outer interpolation kept in registers (x86-64 CPUs that have them; same
//   bits).
// - resample.generic: any layout, one channel at a time.
// Forward: dst = A src in float32 arithmetic (nearest: a copy). Backward: diff_src =
// A^T diff_dst (float32 arithmetic; nearest: float32 sums, within the bound of
// docs/ops/resample.md). `tables` from the path's prepare function.

/// Why every fast path declines p (dtype, sizes; empty: the paths may take it).
/// resample_tables.cc, with the tables.
std::string resample_fast_declines(const ResampleProblem& p);
/// The per-axis tables of an accepted problem (may throw std::bad_alloc).
std::shared_ptr<ResampleFastTables> resample_make_tables(const ResampleProblem& p);
/// resample_make_tables as the list's prepare hook (direct_linear: W downsampled by 2 or
/// more, or float32 with 1 or 2 spatial axes).
std::shared_ptr<const void> resample_fast_prepare(const ResampleProblem& p);
/// The same tables with the scratch row wherever it is correct (direct_linear only where
/// W is downsampled by 2 or more): the test-only entry resample.channels_vector16_scratch_row.
std::shared_ptr<const void> resample_fast_prepare_scratch_row(const ResampleProblem& p);
/// "linear_forward=direct|scratch_row" for a linear problem (empty for nearest).
std::string resample_fast_schedule(const ResampleProblem& p, const void* tables);

std::string resample_plain_declines(const ResampleProblem& p);
/// The per-axis tables plus the W adjoint in vector-chunk form.
std::shared_ptr<const void> resample_plain_prepare(const ResampleProblem& p);
void resample_plain_forward(const ResampleProblem& p, const void* tables, const void* src,
                            void* dst);
void resample_plain_backward(const ResampleProblem& p, const void* tables, const void* diff_dst,
                             void* diff_src);

std::string resample_channels16_declines(const ResampleProblem& p);
void resample_channels16_forward(const ResampleProblem& p, const void* tables, const void* src,
                                 void* dst);
void resample_channels16_backward(const ResampleProblem& p, const void* tables,
                                  const void* diff_dst, void* diff_src);
std::string resample_channels8_declines(const ResampleProblem& p);
void resample_channels8_forward(const ResampleProblem& p, const void* tables, const void* src,
                                void* dst);
void resample_channels8_backward(const ResampleProblem& p, const void* tables,
                                 const void* diff_dst, void* diff_src);

/// resample.channels_bf16 (resample_channels_bf16_hwy.cc): the bfloat16 linear forward of
/// resample.channels_vector16 with AVX512_BF16 conversions and its own loops (same bits);
/// x86-64 CPUs with AVX512_BF16 only, both tensors channels-last with C a multiple of 16 or
/// both blocked by 16. Backward: resample_channels16_backward (its entry runs it). Tables:
/// resample_fast_prepare.
std::string resample_channels_bf16_declines(const ResampleProblem& p);
/// Why this host cannot run resample.channels_bf16 whatever the problem (the CPU, the ISA
/// cap or the build); empty when it can.
std::string resample_channels_bf16_unavailable();
void resample_channels_bf16_forward(const ResampleProblem& p, const void* tables,
                                    const void* src, void* dst);


/// resample.generic declines what resample_fast_declines declines.
void resample_generic_forward(const ResampleProblem& p, const void* tables, const void* src,
                              void* dst);
void resample_generic_backward(const ResampleProblem& p, const void* tables,
                               const void* diff_dst, void* diff_src);

}  // namespace gridops::kernels
