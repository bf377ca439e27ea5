// Resample's memory descs: names and parsing of the algorithms and formats, buffer sizes,
// element offsets and layouts, output dims from factors. See docs/ops/resample.md.
#include "ops/resample_formats.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/checked.h"
#include "gridops/ops/resample.h"

namespace gridops {

namespace resample_internal {

constexpr const char* kOp = "resample";

// --- memory descs -----------------------------------------------------------------------

bool is_supported_dtype(DType d) {
  return d == DType::kFloat32 || d == DType::kBFloat16 || d == DType::kFloat16 ||
         d == DType::kFloat64;
}

bool is_valid_format(MemoryFormat f) {
  return f == MemoryFormat::kPlain || f == MemoryFormat::kChannelsLast ||
         f == MemoryFormat::kBlocked8 || f == MemoryFormat::kBlocked16;
}

int64_t block_of(MemoryFormat f) {
  return f == MemoryFormat::kBlocked8 ? 8 : (f == MemoryFormat::kBlocked16 ? 16 : 1);
}

/// A readable name of a desc's format even when the rank is invalid.
std::string format_name(const ResampleMemoryDesc& md) {
  const int r = static_cast<int>(md.dims.size()) - 2;
  std::string tag = format_tag(md.format, r);
  if (!tag.empty()) return tag;
  switch (md.format) {
    case MemoryFormat::kPlain: return "plain";
    case MemoryFormat::kChannelsLast: return "channels_last";
    case MemoryFormat::kBlocked8: return "blocked8";
    case MemoryFormat::kBlocked16: return "blocked16";
  }
  return "format code " + std::to_string(static_cast<int>(md.format));
}

/// Checks one desc completely and returns its buffer size in elements. `what` is "src",
/// "dst", ... Messages start with "resample: <what>".
StatusOr<int64_t> checked_buffer_elements(const ResampleMemoryDesc& md, std::string_view what) {
  if (!is_supported_dtype(md.dtype)) {
    const int code = static_cast<int>(md.dtype);
    return invalid_argument(kOp, ": ", what,
                            " dtype must be one of {float32, bfloat16, float16, float64}, got ",
                            code >= 0 && code < kNumDTypes ? to_string(md.dtype)
                                                           : "an unknown dtype code");
  }
  const int rank = static_cast<int>(md.dims.size());
  if (rank < 3 || rank > 5) {
    return invalid_argument(kOp, ": ", what,
                            " dims must be (N, C, D1..Dr) with r in 1..3 (rank 3, 4 or 5), got "
                            "rank ",
                            rank, " ", dims_to_string(md.dims));
  }
  if (!is_valid_format(md.format)) {
    return invalid_argument(kOp, ": ", what,
                            " format must be plain, channels_last, blocked8 or blocked16, got "
                            "format code ",
                            static_cast<int>(md.format));
  }
  for (int i = 0; i < rank; ++i) {
    if (md.dims[i] < 0) {
      return invalid_argument(kOp, ": ", what, " dims must be >= 0, got ", md.dims[i],
                              " at axis ", i, " of ", dims_to_string(md.dims));
    }
  }
  // Blocked formats hold ceil(C / B) * B channels.
  const int64_t b = block_of(md.format);
  const int64_t c = md.dims[1];
  if (c > INT64_MAX - (b - 1)) {  // the padded channel count c + b - 1 rounded down
    return invalid_argument(kOp, ": ", what, " buffer size of dims ", dims_to_string(md.dims),
                            " in format ", format_name(md), " overflows 64 bits");
  }
  const int64_t padded_c = (c / b + (c % b != 0 ? 1 : 0)) * b;
  int64_t n = 1;
  bool ok = true;
  bool empty = false;
  for (int i = 0; i < rank; ++i) {
    const int64_t d = i == 1 ? padded_c : md.dims[i];
    if (d == 0) empty = true;
    ok = ok && detail::mul_ok(n, d, &n);
  }
  if (empty) return int64_t{0};
  int64_t bytes;
  if (!ok || !detail::mul_ok(n, static_cast<int64_t>(dtype_size(md.dtype)), &bytes)) {
    return invalid_argument(kOp, ": ", what, " buffer size of dims ", dims_to_string(md.dims),
                            " in format ", format_name(md), " overflows 64 bits");
  }
  return n;
}

/// a * b wrapping modulo 2^64. Only an empty buffer (a zero dim elsewhere) can have
/// stride products beyond int64, and its strides are never used; wrapping keeps that
/// case free of signed overflow. For non-empty validated buffers the products fit.
int64_t wrap_mul(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
}

/// The element layout of a desc (assumed valid). See ResampleLayout.
kernels::ResampleLayout layout_of(const ResampleMemoryDesc& md) {
  kernels::ResampleLayout l;
  const int r = static_cast<int>(md.dims.size()) - 2;
  const int64_t c = md.dims[1];
  int64_t spatial = 1;  // product of the spatial lengths
  for (int k = 0; k < r; ++k) spatial = wrap_mul(spatial, md.dims[2 + k]);
  // Row-major strides of the spatial block, times the innermost extent below it.
  auto spatial_strides = [&](int64_t inner) {
    int64_t acc = inner;
    for (int k = r - 1; k >= 0; --k) {
      l.spatial_stride[k] = acc;
      acc = wrap_mul(acc, md.dims[2 + k]);
    }
  };
  switch (md.format) {
    case MemoryFormat::kPlain:  // (N, C, D...)
      l.padded_c = c;
      spatial_strides(1);
      l.c_block_stride = spatial;
      l.n_stride = wrap_mul(c, spatial);
      break;
    case MemoryFormat::kChannelsLast:  // (N, D..., C)
      l.padded_c = c;
      spatial_strides(c);
      l.c_block_stride = 1;
      l.n_stride = wrap_mul(spatial, c);
      break;
    case MemoryFormat::kBlocked8:
    case MemoryFormat::kBlocked16: {  // (N, ceil(C/B), D..., B)
      const int64_t b = block_of(md.format);
      const int64_t blocks = c / b + (c % b != 0 ? 1 : 0);
      l.block = b;
      l.padded_c = blocks * b;
      l.c_inner_stride = 1;
      spatial_strides(b);
      l.c_block_stride = wrap_mul(spatial, b);
      l.n_stride = wrap_mul(blocks, wrap_mul(spatial, b));
      break;
    }
  }
  return l;
}

}  // namespace resample_internal

using namespace resample_internal;  // NOLINT(google-build-using-namespace)

// --- names ------------------------------------------------------------------------------

const char* to_string(ResampleAlgorithm a) noexcept {
  switch (a) {
    case ResampleAlgorithm::kNearest: return "nearest";
    case ResampleAlgorithm::kLinear: return "linear";
  }
  return "unknown";
}

StatusOr<ResampleAlgorithm> parse_resample_algorithm(std::string_view s) {
  if (s == "nearest") return ResampleAlgorithm::kNearest;
  if (s == "linear" || s == "bilinear" || s == "trilinear") return ResampleAlgorithm::kLinear;
  return invalid_argument(kOp, ": algorithm must be one of {nearest, linear, bilinear, "
                          "trilinear}, got '", s, "'");
}

std::string format_tag(MemoryFormat f, int spatial_rank) {
  if (spatial_rank < 1 || spatial_rank > 3) return std::string();
  static constexpr const char* kTags[4][3] = {
      {"ncw", "nchw", "ncdhw"},
      {"nwc", "nhwc", "ndhwc"},
      {"nCw8c", "nChw8c", "nCdhw8c"},
      {"nCw16c", "nChw16c", "nCdhw16c"},
  };
  if (!is_valid_format(f)) return std::string();
  return kTags[static_cast<int>(f)][spatial_rank - 1];
}

StatusOr<MemoryFormat> parse_memory_format(std::string_view s, int* spatial_rank) {
  struct Word {
    const char* name;
    MemoryFormat format;
  };
  static constexpr Word kWords[] = {{"plain", MemoryFormat::kPlain},
                                    {"channels_last", MemoryFormat::kChannelsLast},
                                    {"blocked8", MemoryFormat::kBlocked8},
                                    {"blocked16", MemoryFormat::kBlocked16}};
  for (const Word& w : kWords) {
    if (s == w.name) {
      if (spatial_rank) *spatial_rank = 0;
      return w.format;
    }
  }
  // Tags are case-sensitive, as in oneDNN: "nChw8c" is blocked, "nchw8c" is not a tag.
  for (MemoryFormat f : {MemoryFormat::kPlain, MemoryFormat::kChannelsLast,
                         MemoryFormat::kBlocked8, MemoryFormat::kBlocked16}) {
    for (int r = 1; r <= 3; ++r) {
      if (s == format_tag(f, r)) {
        if (spatial_rank) *spatial_rank = r;
        return f;
      }
    }
  }
  return invalid_argument(kOp, ": memory format must be a tag (ncw, nchw, ncdhw, nwc, nhwc, "
                          "ndhwc, nCw8c, nChw8c, nCdhw8c, nCw16c, nChw16c, nCdhw16c) or one of "
                          "{plain, channels_last, blocked8, blocked16}, got '", s, "'");
}

// --- ResampleMemoryDesc -----------------------------------------------------------------

StatusOr<int64_t> ResampleMemoryDesc::buffer_elements() const {
  return checked_buffer_elements(*this, "memory desc");
}

int64_t ResampleMemoryDesc::offset(std::span<const int64_t> index) const noexcept {
  assert(index.size() == dims.size() && dims.size() >= 3 && dims.size() <= 5);
  const kernels::ResampleLayout l = layout_of(*this);
  const int64_t c = index[1];
  int64_t off = index[0] * l.n_stride + (c / l.block) * l.c_block_stride +
                (c % l.block) * l.c_inner_stride;
  for (size_t k = 2; k < index.size(); ++k) off += index[k] * l.spatial_stride[k - 2];
  return off;
}

// --- output dims from factors -----------------------------------------------------------

StatusOr<Dims> resample_dst_dims(std::span<const int64_t> src_dims,
                                 std::span<const double> factors) {
  const int rank = static_cast<int>(src_dims.size());
  if (rank < 3 || rank > 5) {
    return invalid_argument(kOp, ": src dims must be (N, C, D1..Dr) with r in 1..3 (rank 3, 4 "
                            "or 5), got rank ",
                            rank, " ", dims_to_string(src_dims));
  }
  const int r = rank - 2;
  for (int i = 0; i < rank; ++i) {
    if (src_dims[i] < 0) {
      return invalid_argument(kOp, ": src dims must be >= 0, got ", src_dims[i], " at axis ", i,
                              " of ", dims_to_string(src_dims));
    }
  }
  if (static_cast<int>(factors.size()) != r) {
    return invalid_argument(kOp, ": factors must have one entry per spatial axis (", r,
                            " for src dims ", dims_to_string(src_dims), "), got ",
                            factors.size());
  }
  Dims out(src_dims.begin(), src_dims.end());
  for (int k = 0; k < r; ++k) {
    const double f = factors[k];
    if (!std::isfinite(f) || !(f > 0.0)) {
      return invalid_argument(kOp, ": factor ", k, " must be finite and > 0, got ", f);
    }
    const int64_t in = src_dims[2 + k];
    const double o = std::floor(static_cast<double>(in) * f);
    // 2^63 is the first double that does not fit in int64.
    if (!(o < 9223372036854775808.0)) {
      return invalid_argument(kOp, ": output length floor(", in, " * ", f, ") of spatial axis ",
                              k, " does not fit in 64 bits");
    }
    const auto len = static_cast<int64_t>(o);
    if (in >= 1 && len == 0) {
      return invalid_argument(kOp, ": factor ", k, " = ", f, " gives output length floor(", in,
                              " * ", f, ") = 0 for a non-empty input axis; need >= 1");
    }
    out[2 + k] = len;
  }
  return out;
}

}  // namespace gridops
