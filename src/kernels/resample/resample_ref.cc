// Reference resampling: slow, N-D (1..3 spatial axes), every supported dtype, both
// algorithms, forward and the exact adjoint. Reads like the formulas in
// docs/ops/resample.md:
//
//   forward : dst[n, c, o] = sum over taps (i_1..i_r) of (w_1 * ... * w_r) * src[n, c, i]
//   backward: diff_src[n, c, i] = sum over o with w(o, i) != "no tap" of w(o, i) * diff_dst[n, c, o]
//
// with the per-axis taps of coords::resample_nearest_index (one tap, weight 1) and
// coords::resample_linear_taps (two taps, weights 1 - t and t).
#include <cassert>
#include <cstdint>
#include <vector>

#include "core/convert.h"
#include "core/coords.h"
#include "gridops/parallel.h"
#include "kernels/resample/resample.h"

namespace gridops::kernels {
namespace {

constexpr int kR = kResampleMaxSpatialRank;

/// One source tap of one output position along one axis.
struct Tap {
  int64_t index;  ///< source index along the axis (already clamped)
  double weight;
};

/// The taps of output position o along an axis of input length `in`, output length `out`
/// (ERRATA Resampling 1). Returns the number of taps written to t (1 or 2).
int axis_taps(ResampleAlgorithm alg, int64_t o, int64_t in, int64_t out, Tap t[2]) {
  if (alg == ResampleAlgorithm::kNearest) {
    t[0] = Tap{coords::resample_nearest_index(o, in, out), 1.0};
    return 1;
  }
  const coords::LinearTaps lt = coords::resample_linear_taps(o, in, out);
  t[0] = Tap{lt.i0, lt.w0};
  t[1] = Tap{lt.i1, lt.w1};
  return 2;
}

/// Forward taps of every output position of one axis: taps[o * 2 + j], j < count.
struct ForwardAxis {
  int count = 1;
  std::vector<Tap> taps;
  int64_t stride = 0;  ///< src spatial stride of this axis
};

/// The adjoint of one axis: for every source index i, the (output index, weight) pairs
/// that read it in the forward pass, in increasing output order (CSR).
struct BackwardAxis {
  std::vector<int64_t> begin;  ///< size in + 1
  std::vector<Tap> uses;       ///< Tap::index is the output position here
  int64_t stride = 0;          ///< diff_dst spatial stride of this axis
};

ForwardAxis make_forward_axis(const ResampleProblem& p, int k) {
  ForwardAxis a;
  if (k >= p.spatial_rank) {  // a missing axis: length 1, one tap of weight 1
    a.taps = {Tap{0, 1.0}, Tap{0, 0.0}};
    return a;
  }
  a.count = p.algorithm == ResampleAlgorithm::kNearest ? 1 : 2;
  a.stride = p.src.spatial_stride[k];
  a.taps.resize(static_cast<size_t>(p.out[k]) * 2);
  for (int64_t o = 0; o < p.out[k]; ++o) {
    Tap* t = &a.taps[static_cast<size_t>(o) * 2];
    if (p.windowed) {  // the full problem's taps, shifted into the src box
      const int nt = axis_taps(p.algorithm, o + p.out_origin[k], p.full_in[k], p.full_out[k], t);
      for (int j = 0; j < nt; ++j) {
        t[j].index -= p.in_origin[k];
        assert(t[j].index >= 0 && t[j].index < p.in[k]);
      }
    } else {
      axis_taps(p.algorithm, o, p.in[k], p.out[k], t);
    }
  }
  return a;
}

BackwardAxis make_backward_axis(const ResampleProblem& p, int k) {
  BackwardAxis a;
  if (k >= p.spatial_rank) {
    a.begin = {0, 1};
    a.uses = {Tap{0, 1.0}};
    return a;
  }
  const int64_t in = p.in[k], out = p.out[k];
  a.stride = p.dst.spatial_stride[k];
  a.begin.assign(static_cast<size_t>(in) + 1, 0);
  if (in == 0) return a;
  // Count, then fill: the uses of each i come out in increasing o (and tap) order.
  Tap t[2];
  for (int64_t o = 0; o < out; ++o) {
    const int nt = axis_taps(p.algorithm, o, in, out, t);
    for (int j = 0; j < nt; ++j) ++a.begin[static_cast<size_t>(t[j].index) + 1];
  }
  for (int64_t i = 0; i < in; ++i) a.begin[i + 1] += a.begin[i];
  a.uses.resize(static_cast<size_t>(a.begin[in]));
  std::vector<int64_t> fill(a.begin.begin(), a.begin.end() - 1);
  for (int64_t o = 0; o < out; ++o) {
    const int nt = axis_taps(p.algorithm, o, in, out, t);
    for (int j = 0; j < nt; ++j) a.uses[fill[t[j].index]++] = Tap{o, t[j].weight};
  }
  return a;
}

int64_t channel_offset(const ResampleLayout& l, int64_t n, int64_t c) {
  return n * l.n_stride + (c / l.block) * l.c_block_stride + (c % l.block) * l.c_inner_stride;
}

/// The spatial lengths padded to three axes with 1.
void lengths3(const ResampleProblem& p, const int64_t* len, int64_t out3[kR]) {
  for (int k = 0; k < kR; ++k) out3[k] = k < p.spatial_rank ? len[k] : 1;
}

void strides3(const ResampleProblem& p, const ResampleLayout& l, int64_t out3[kR]) {
  for (int k = 0; k < kR; ++k) out3[k] = k < p.spatial_rank ? l.spatial_stride[k] : 0;
}

/// Rows per parallel chunk: enough that a chunk does ~32k tap evaluations, so that small
/// problems run on one thread instead of paying the threading overhead. The split never
/// changes results (rows are independent).
int64_t grain_for(const ResampleProblem& p) {
  double work = 1.0;
  for (int k = 0; k < p.spatial_rank; ++k) {
    const double len = static_cast<double>(p.in[k] > p.out[k] ? p.in[k] : p.out[k]);
    work *= len * (p.algorithm == ResampleAlgorithm::kLinear ? 2.0 : 1.0);
  }
  const double rows = 32768.0 / (work > 1.0 ? work : 1.0);
  return rows > 1.0 ? static_cast<int64_t>(rows) : 1;
}

template <class T>
void forward_typed(const ResampleProblem& p, const T* src, T* dst) {
  ForwardAxis ax[kR];
  for (int k = 0; k < kR; ++k) ax[k] = make_forward_axis(p, k);
  int64_t O[kR], ds[kR];
  lengths3(p, p.out, O);
  strides3(p, p.dst, ds);
  const int64_t rows = p.n * p.dst.padded_c;
  parallel_for(rows, grain_for(p), [&](int64_t begin, int64_t end) {
    for (int64_t row = begin; row < end; ++row) {
      const int64_t n = row / p.dst.padded_c, c = row % p.dst.padded_c;
      T* d = dst + channel_offset(p.dst, n, c);
      const T* s = src + (c < p.c ? channel_offset(p.src, n, c) : 0);
      for (int64_t o0 = 0; o0 < O[0]; ++o0) {
        for (int64_t o1 = 0; o1 < O[1]; ++o1) {
          for (int64_t o2 = 0; o2 < O[2]; ++o2) {
            T& out = d[o0 * ds[0] + o1 * ds[1] + o2 * ds[2]];
            if (c >= p.c) {  // padded channel of a blocked dst
              out = convert::store_real<T>(0.0);
              continue;
            }
            const Tap* t0 = &ax[0].taps[static_cast<size_t>(o0) * 2];
            const Tap* t1 = &ax[1].taps[static_cast<size_t>(o1) * 2];
            const Tap* t2 = &ax[2].taps[static_cast<size_t>(o2) * 2];
            double acc = 0.0;
            bool first = true;  // start from the first term: keeps the sign of -0
            for (int j0 = 0; j0 < ax[0].count; ++j0) {
              for (int j1 = 0; j1 < ax[1].count; ++j1) {
                for (int j2 = 0; j2 < ax[2].count; ++j2) {
                  const double w = t0[j0].weight * t1[j1].weight * t2[j2].weight;
                  const T& x = s[t0[j0].index * ax[0].stride + t1[j1].index * ax[1].stride +
                                 t2[j2].index * ax[2].stride];
                  const double term = w * convert::load_real<double>(x);
                  acc = first ? term : acc + term;
                  first = false;
                }
              }
            }
            out = convert::store_real<T>(acc);
          }
        }
      }
    }
  });
}

template <class T>
void backward_typed(const ResampleProblem& p, const T* diff_dst, T* diff_src) {
  BackwardAxis ax[kR];
  for (int k = 0; k < kR; ++k) ax[k] = make_backward_axis(p, k);
  int64_t I[kR], ss[kR];
  lengths3(p, p.in, I);
  strides3(p, p.src, ss);
  // With an empty diff_dst (some O_k == 0) nothing reads src: all gradients are 0, and
  // diff_dst (possibly null) is never offset.
  bool dst_empty = false;
  for (int k = 0; k < p.spatial_rank; ++k) dst_empty = dst_empty || p.out[k] == 0;
  const int64_t rows = p.n * p.src.padded_c;
  parallel_for(rows, grain_for(p), [&](int64_t begin, int64_t end) {
    for (int64_t row = begin; row < end; ++row) {
      const int64_t n = row / p.src.padded_c, c = row % p.src.padded_c;
      const bool real = c < p.c && !dst_empty;
      T* d = diff_src + channel_offset(p.src, n, c);
      const T* g = real ? diff_dst + channel_offset(p.dst, n, c) : diff_dst;
      for (int64_t i0 = 0; i0 < I[0]; ++i0) {
        for (int64_t i1 = 0; i1 < I[1]; ++i1) {
          for (int64_t i2 = 0; i2 < I[2]; ++i2) {
            double acc = 0.0;  // no output reads this element: its gradient is 0
            if (real) {
              bool first = true;
              for (int64_t u0 = ax[0].begin[i0]; u0 < ax[0].begin[i0 + 1]; ++u0) {
                for (int64_t u1 = ax[1].begin[i1]; u1 < ax[1].begin[i1 + 1]; ++u1) {
                  for (int64_t u2 = ax[2].begin[i2]; u2 < ax[2].begin[i2 + 1]; ++u2) {
                    const Tap& a = ax[0].uses[u0];
                    const Tap& b = ax[1].uses[u1];
                    const Tap& e = ax[2].uses[u2];
                    // The same product, in the same order, as the forward weight.
                    const double w = a.weight * b.weight * e.weight;
                    const T& y =
                        g[a.index * ax[0].stride + b.index * ax[1].stride + e.index * ax[2].stride];
                    const double term = w * convert::load_real<double>(y);
                    acc = first ? term : acc + term;
                    first = false;
                  }
                }
              }
            }
            d[i0 * ss[0] + i1 * ss[1] + i2 * ss[2]] = convert::store_real<T>(acc);
          }
        }
      }
    }
  });
}

template <class F>
void visit_resample_dtype(DType dt, F&& f) {
  switch (dt) {
    case DType::kFloat32: f(TypeTag<float>{}); return;
    case DType::kFloat64: f(TypeTag<double>{}); return;
    case DType::kFloat16: f(TypeTag<float16>{}); return;
    case DType::kBFloat16: f(TypeTag<bfloat16>{}); return;
    default: assert(false && "resample: unsupported dtype reached the kernel"); return;
  }
}

void check_preconditions(const ResampleProblem& p) {
  assert(p.spatial_rank >= 1 && p.spatial_rank <= kR);
  assert(p.n >= 0 && p.c >= 0);
  assert(p.src.block >= 1 && p.dst.block >= 1);
  assert(p.src.padded_c >= p.c && p.dst.padded_c >= p.c);
  for (int k = 0; k < p.spatial_rank; ++k) assert(p.in[k] >= 0 && p.out[k] >= 0);
  (void)p;
}

}  // namespace

void resample_forward_ref(const ResampleProblem& p, const void* src, void* dst) {
  check_preconditions(p);
  visit_resample_dtype(p.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    forward_typed<T>(p, static_cast<const T*>(src), static_cast<T*>(dst));
  });
}

void resample_backward_ref(const ResampleProblem& p, const void* diff_dst, void* diff_src) {
  check_preconditions(p);
  visit_resample_dtype(p.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    backward_typed<T>(p, static_cast<const T*>(diff_dst), static_cast<T*>(diff_src));
  });
}

}  // namespace gridops::kernels
