// gridops_output_digest's shared part: hashing, the seeded random numbers, buffers and
// views, and the driver that runs each problem per entry and thread count and prints
// its line. The tool itself and its output: output_digest.cc.
#pragma once

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <numeric>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "gridops/dtype.h"
#include "gridops/isa.h"
#include "gridops/ops/affine_grid.h"
#include "gridops/ops/affine_warp.h"
#include "gridops/ops/gather.h"
#include "gridops/ops/grid_sample.h"
#include "gridops/ops/pad.h"
#include "gridops/ops/resample.h"
#include "gridops/ops/resize.h"
#include "gridops/parallel.h"
#include "gridops/status.h"
#include "gridops/tensor.h"

namespace gridops_digest {

using gridops::Dims;
using gridops::DType;
using gridops::MutableTensorView;
using gridops::Status;
using gridops::StatusCode;
using gridops::TensorView;

// --- hashing, random numbers ----------------------------------------------------------

constexpr uint64_t kFnvBasis = 0xcbf29ce484222325ull;
inline uint64_t fnv1a(const void* p, size_t n, uint64_t h = kFnvBasis) {
  const auto* b = static_cast<const unsigned char*>(p);
  for (size_t i = 0; i < n; ++i) {
    h ^= b[i];
    h *= 0x100000001b3ull;
  }
  return h;
}
inline uint64_t fnv1a(const std::string& s, uint64_t h = kFnvBasis) { return fnv1a(s.data(), s.size(), h); }

/// splitmix64: the same stream on every platform and standard library.
struct Rng {
  uint64_t s;
  explicit Rng(uint64_t seed) : s(seed) {}
  uint64_t next() {
    uint64_t z = (s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  /// Uniform in [lo, hi] (inclusive).
  int64_t range(int64_t lo, int64_t hi) {
    return lo + static_cast<int64_t>(next() % static_cast<uint64_t>(hi - lo + 1));
  }
  double unit() { return static_cast<double>(next() >> 11) * (1.0 / 9007199254740992.0); }
  double uniform(double lo, double hi) { return lo + (hi - lo) * unit(); }
  bool coin(double p) { return unit() < p; }
  template <class T>
  T pick(std::initializer_list<T> xs) {
    return xs.begin()[range(0, static_cast<int64_t>(xs.size()) - 1)];
  }
};

// --- buffers and views ----------------------------------------------------------------

/// A 64-byte-aligned buffer (so that alignment is the same from run to run).
struct Buffer {
  std::shared_ptr<unsigned char> mem;
  size_t bytes = 0;
  void alloc(size_t n) {
    bytes = n;
    const size_t rounded = (std::max<size_t>(n, 1) + 63) / 64 * 64;
    mem.reset(static_cast<unsigned char*>(std::aligned_alloc(64, rounded)),
              [](unsigned char* p) { std::free(p); });
    std::memset(mem.get(), 0xA5, rounded);
  }
  unsigned char* data() const { return mem.get(); }
};

/// How a view lies in its buffer: strides and the element offset of index 0.
struct Layout {
  Dims strides;
  int64_t base = 0;
  int64_t elements = 0;  ///< the buffer's size in elements
  std::string tag;       ///< c (contiguous), g (gaps), n (negative), o (offset), p (permuted)
};

inline Layout contiguous_layout(const Dims& shape) {
  Layout l;
  l.strides = gridops::contiguous_strides(shape);
  l.elements = 1;
  for (int64_t d : shape) l.elements *= d;
  l.tag = "c";
  return l;
}

/// A random layout for `shape`: contiguous with probability p_contig, else a mix of gaps,
/// a negative stride, an offset and a permuted axis order.
inline Layout random_layout(Rng& rng, const Dims& shape, double p_contig = 0.4) {
  const int r = static_cast<int>(shape.size());
  if (rng.coin(p_contig) || r == 0) return contiguous_layout(shape);
  Layout l;
  std::vector<int> order(static_cast<size_t>(r));  // order[0]: the outermost axis in memory
  std::iota(order.begin(), order.end(), 0);
  const bool permute = r > 1 && rng.coin(0.3);
  if (permute) {
    for (int i = r - 1; i > 0; --i) std::swap(order[static_cast<size_t>(i)], order[static_cast<size_t>(rng.range(0, i))]);
  }
  const bool gaps = rng.coin(0.5);
  l.strides.assign(static_cast<size_t>(r), 0);
  int64_t stride = gaps && rng.coin(0.3) ? 2 : 1;
  for (int i = r - 1; i >= 0; --i) {
    const int ax = order[static_cast<size_t>(i)];
    l.strides[static_cast<size_t>(ax)] = stride;
    stride = stride * std::max<int64_t>(shape[static_cast<size_t>(ax)], 1) + (gaps ? rng.range(0, 3) : 0);
  }
  const bool negative = rng.coin(0.35);
  if (negative) {
    const int ax = static_cast<int>(rng.range(0, r - 1));
    l.strides[static_cast<size_t>(ax)] = -l.strides[static_cast<size_t>(ax)];
  }
  const int64_t offset = rng.coin(0.4) ? rng.range(1, 3) : 0;
  int64_t lo = 0, hi = 0;
  for (int d = 0; d < r; ++d) {
    const int64_t span = (shape[static_cast<size_t>(d)] - 1) * l.strides[static_cast<size_t>(d)];
    if (span < 0) lo += span; else hi += span;
  }
  l.base = offset - lo;
  l.elements = l.base + hi + 1 + (rng.coin(0.5) ? rng.range(0, 2) : 0);
  l.tag = std::string(gaps ? "g" : "") + (negative ? "n" : "") + (offset ? "o" : "") +
          (permute ? "p" : "");
  if (l.tag.empty()) l.tag = "c";
  return l;
}

/// Writes v (converted) to the element at p.
inline void put(DType dt, void* p, double v, double v2 = 0.0) {
  switch (dt) {
    case DType::kFloat16: { auto h = gridops::f64_to_f16(v); std::memcpy(p, &h, 2); return; }
    case DType::kBFloat16: { auto h = gridops::f64_to_bf16(v); std::memcpy(p, &h, 2); return; }
    case DType::kString: return;
    default: break;
  }
  gridops::visit_dtype(dt, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
      *static_cast<T*>(p) = static_cast<T>(v);
    } else if constexpr (std::is_same_v<T, std::complex<float>> ||
                         std::is_same_v<T, std::complex<double>>) {
      using R = typename T::value_type;
      *static_cast<T*>(p) = T(static_cast<R>(v), static_cast<R>(v2));
    } else if constexpr (std::is_same_v<T, bool>) {
      *static_cast<T*>(p) = v != 0.0;
    } else if constexpr (std::is_integral_v<T>) {
      *static_cast<T*>(p) = static_cast<T>(static_cast<int64_t>(v));
    }
  });
}

/// A random value for dtype dt: floats in [lo, hi] (quantized to 1/q when q > 0); integers
/// over a range that suits the type.
inline double random_value(Rng& rng, DType dt, double lo, double hi, int q) {
  switch (dt) {
    case DType::kBool: return static_cast<double>(rng.range(0, 1));
    case DType::kUInt8: return static_cast<double>(rng.range(0, 255));
    case DType::kInt8: return static_cast<double>(rng.range(-128, 127));
    case DType::kUInt16: case DType::kUInt32: case DType::kUInt64:
      return static_cast<double>(rng.range(0, 60000));
    case DType::kInt16: case DType::kInt32: case DType::kInt64:
      return static_cast<double>(rng.range(-30000, 30000));
    default: break;
  }
  const double v = rng.uniform(lo, hi);
  return q > 0 ? std::round(v * q) / q : v;
}

/// An input: its buffer filled whole with random values, and its view.
struct Input {
  Buffer buf;
  Layout layout;
  TensorView view;
};

inline Input make_input(Rng& rng, DType dt, const Dims& shape, Layout layout, double lo, double hi,
                 int q = 0) {
  Input in;
  in.layout = std::move(layout);
  const size_t es = gridops::dtype_size(dt);
  in.buf.alloc(static_cast<size_t>(in.layout.elements) * es);
  for (int64_t i = 0; i < in.layout.elements; ++i) {
    put(dt, in.buf.data() + static_cast<size_t>(i) * es, random_value(rng, dt, lo, hi, q),
        random_value(rng, dt, lo, hi, q));
  }
  in.view = TensorView(dt, in.buf.data() + static_cast<size_t>(in.layout.base) * es, shape,
                       in.layout.strides);
  return in;
}

/// An output: a fresh 0xA5-filled buffer per run, with the problem's layout.
struct Output {
  Buffer buf;
  MutableTensorView view;
};

inline Output make_output(DType dt, const Dims& shape, const Layout& layout) {
  Output out;
  const size_t es = gridops::dtype_size(dt);
  out.buf.alloc(static_cast<size_t>(layout.elements) * es);
  out.view = MutableTensorView(dt, out.buf.data() + static_cast<size_t>(layout.base) * es, shape,
                               layout.strides);
  return out;
}

inline std::string dims(const Dims& d) {
  std::string s;
  for (size_t i = 0; i < d.size(); ++i) s += (i ? "x" : "") + std::to_string(d[i]);
  return s.empty() ? "scalar" : s;
}

inline DType pick_float(Rng& rng) {
  const double u = rng.unit();
  return u < 0.55 ? DType::kFloat32 : u < 0.7 ? DType::kFloat16 : u < 0.85 ? DType::kBFloat16
                                                                            : DType::kFloat64;
}

// --- the driver -----------------------------------------------------------------------

struct Options {
  std::vector<int> threads{1, 2};
  std::vector<std::string> ops;  // empty: all
  uint64_t seed = 0x5eed2026;
  std::multimap<std::string, std::string> extra;
};

struct Driver {
  Options opt;
  int64_t lines = 0, ok = 0, declined = 0, errors = 0;
  uint64_t digest = kFnvBasis;

  void emit(const std::string& line) {
    std::printf("%s\n", line.c_str());
    digest = fnv1a(line + "\n", digest);
    ++lines;
  }

  /// The run's result text from a status and the hash of the output buffers.
  std::string result(const Status& s, const std::vector<const Buffer*>& outs) {
    if (s.ok()) {
      uint64_t h = kFnvBasis;
      for (const Buffer* b : outs) h = fnv1a(b->data(), b->bytes, h);
      char hex[17];
      std::snprintf(hex, sizeof hex, "%016" PRIx64, h);
      ++ok;
      return hex;
    }
    if (s.code() == StatusCode::kUnimplemented && s.message().find("declines") != std::string::npos) {
      ++declined;
      return "declined";
    }
    ++errors;
    std::string m = s.message();
    std::replace(m.begin(), m.end(), '\n', ' ');
    return std::string("error:") + gridops::to_string(s.code()) + ":" + m;
  }

  bool wanted(const std::string& op) const {
    return opt.ops.empty() || std::find(opt.ops.begin(), opt.ops.end(), op) != opt.ops.end();
  }

  /// `attempt(entry)` plans with desc.impl = entry ("" for auto) and runs; it returns the
  /// result text and sets *impl to the plan's chosen implementation.
  void run_problem(const std::string& op, std::vector<std::string> entries, int index,
                   const std::string& what,
                   const std::function<std::string(const std::string&, std::string*)>& attempt) {
    auto range = opt.extra.equal_range(op);
    for (auto it = range.first; it != range.second; ++it) entries.push_back(it->second);
    entries.insert(entries.begin(), "auto");
    for (const std::string& e : entries) {
      for (int t : opt.threads) {
        gridops::ScopedNumThreads scoped(t);
        std::string impl;
        std::string r = attempt(e == "auto" ? std::string() : e, &impl);
        std::string line = op + " " + e + " " + std::to_string(index) + " t" + std::to_string(t) +
                           " " + r;
        if (e == "auto" && !impl.empty()) line += " impl=" + impl;
        emit(line + " | " + what);
      }
    }
  }

  Rng rng_for(const std::string& op, int index) const {
    return Rng(fnv1a(op, opt.seed) + static_cast<uint64_t>(index) * 0x9e3779b97f4a7c15ull);
  }
};

// The operators' problem sets, one function each (output_digest_sampling.cc: GridSample,
// AffineGrid, AffineWarp; output_digest.cc: the rest).
void run_grid_sample(Driver& drv);
void run_grid_sample_backward(Driver& drv);
void run_grid_sample_ext(Driver& drv);
void run_affine_grid(Driver& drv);
void run_affine_grid_backward(Driver& drv);
void run_affine_warp(Driver& drv);
void run_resample(Driver& drv, bool backward);
void run_resize(Driver& drv);
void run_gather(Driver& drv);
void run_pad(Driver& drv);

}  // namespace gridops_digest
