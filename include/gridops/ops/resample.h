// Resampling (oneDNN resampling, forward and backward), 1-D/2-D/3-D spatial.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gridops/ops/modes.h"
#include "gridops/status.h"
#include "gridops/tensor.h"

namespace gridops {

/// Memory formats, as oneDNN's format tags. Logical dims are always (N, C, D1..Dr).
enum class MemoryFormat {
  kPlain,         ///< ncw / nchw / ncdhw
  kChannelsLast,  ///< nwc / nhwc / ndhwc
  kBlocked8,      ///< nCw8c / nChw8c / nCdhw8c
  kBlocked16,     ///< nCw16c / nChw16c / nCdhw16c
};

/// The oneDNN tag for a rank: "nchw", "nhwc", "nChw8c", ...
std::string format_tag(MemoryFormat f, int spatial_rank);
/// Parses "nchw", "nhwc", "nChw16c", ... (and "plain", "channels_last", "blocked8",
/// "blocked16") to a format; *spatial_rank receives the rank a tag implies (0 for words).
StatusOr<MemoryFormat> parse_memory_format(std::string_view s, int* spatial_rank = nullptr);

/// A tensor's logical dims, dtype and memory format; its memory is dense in that format.
/// Blocked formats pad C up to a multiple of the block; the padding is ignored on input
/// and written as zeros on output.
struct ResampleMemoryDesc {
  DType dtype = DType::kFloat32;
  Dims dims;  ///< (N, C, D1, ..., Dr), r in 1..3
  MemoryFormat format = MemoryFormat::kPlain;

  /// Number of elements the buffer holds (blocked formats include the padded channels).
  StatusOr<int64_t> buffer_elements() const;
  /// Element offset of logical position (n, c, spatial...) in the buffer.
  int64_t offset(std::span<const int64_t> index) const noexcept;
};

/// What to compute.
struct ResampleDesc {
  ResampleAlgorithm algorithm = ResampleAlgorithm::kNearest;
  /// Forces an implementation by name ("ref", ...); empty: the first that accepts.
  std::string impl;
};

/// Destination dims from factors: src_dims is the full (N, C, I1..Ir) and the result the
/// full (N, C, O1..Or) with O_k = floor(I_k * factor_k) computed in double (ERRATA
/// Resampling 2). factors has one entry per spatial axis, each finite and > 0; O_k must fit
/// int64 and be >= 1 where I_k >= 1 (an empty output from a non-empty axis is an error).
StatusOr<Dims> resample_dst_dims(std::span<const int64_t> src_dims, std::span<const double> factors);

/// A window of the forward, for chunked execution (docs/dask.md): src holds only the box
/// [in_origin, in_origin + I) of a full input of spatial sizes full_in, and dst is the box
/// [out_origin, out_origin + O) of the full output of spatial sizes full_out (I, O: the
/// descs' spatial dims). The taps of every output position are computed from the full
/// sizes (as the unwindowed operator on the full tensors would) and read at index -
/// in_origin, and the implementation is the one the full problem picks: dst is the same
/// bits as that box of the unwindowed result. The plan checks that the taps of the dst
/// box (resample_input_box) lie inside the src box. Forward only.
struct ResampleWindow {
  Dims full_in;     ///< I_1..I_r of the full input, each >= 1
  Dims full_out;    ///< O_1..O_r of the full output, each >= 0
  Dims in_origin;   ///< src's position in the full input
  Dims out_origin;  ///< dst's position in the full output
};

/// The input range [lo, hi) per spatial axis that the outputs [out_begin, out_end) of a
/// resampling from full_in to full_out read (every tap, including zero-weight ones);
/// an empty output range gives [0, 0).
StatusOr<std::vector<std::pair<int64_t, int64_t>>> resample_input_box(
    ResampleAlgorithm algorithm, std::span<const int64_t> full_in,
    std::span<const int64_t> full_out, std::span<const int64_t> out_begin,
    std::span<const int64_t> out_end);

/// A validated resampling problem (forward or backward share it).
class ResamplePlan {
 public:
  /// dst = A src.
  Status forward(const void* src, void* dst) const;
  /// diff_src = A^T diff_dst (the exact adjoint of forward, ERRATA Resampling 3); diff_src
  /// and diff_dst use the src and dst memory descs of the plan.
  Status backward(const void* diff_dst, void* diff_src) const;
  const ResampleMemoryDesc& src_desc() const noexcept { return src_; }
  const ResampleMemoryDesc& dst_desc() const noexcept { return dst_; }
  const char* impl_name() const noexcept { return impl_name_; }

 private:
  friend StatusOr<ResamplePlan> make_resample_plan(const ResampleDesc&, const ResampleMemoryDesc&,
                                                   const ResampleMemoryDesc&);
  friend StatusOr<ResamplePlan> make_resample_plan(const ResampleDesc&, const ResampleMemoryDesc&,
                                                   const ResampleMemoryDesc&,
                                                   const ResampleWindow&);
  bool windowed_ = false;
  ResampleMemoryDesc src_, dst_;
  const char* impl_name_ = "";
  const void* impl_ = nullptr;  ///< the chosen forward entry (detail::ResampleEntry)
  /// The problem (a window's included) and the planned forward and backward entries with
  /// their shared tables (src/ops/resample.cc, PlanState).
  std::shared_ptr<const void> planned_;
};

/// src and dst: same N, C, spatial rank and dtype (float32, bfloat16, float16, float64);
/// formats may differ.
StatusOr<ResamplePlan> make_resample_plan(const ResampleDesc& desc, const ResampleMemoryDesc& src,
                                          const ResampleMemoryDesc& dst);

/// The same for a window of the forward (ResampleWindow); backward() of such a plan is an
/// error.
StatusOr<ResamplePlan> make_resample_plan(const ResampleDesc& desc, const ResampleMemoryDesc& src,
                                          const ResampleMemoryDesc& dst,
                                          const ResampleWindow& window);

/// One-shot forward.
Status resample_forward(const ResampleDesc& desc, const ResampleMemoryDesc& src_md,
                        const void* src, const ResampleMemoryDesc& dst_md, void* dst);
/// One-shot backward.
Status resample_backward(const ResampleDesc& desc, const ResampleMemoryDesc& diff_src_md,
                         void* diff_src, const ResampleMemoryDesc& diff_dst_md,
                         const void* diff_dst);

}  // namespace gridops
