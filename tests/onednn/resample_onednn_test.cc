// gridops resampling against the real oneDNN (Debian's 2.6): forward and backward, nearest
// and linear, 1-D/2-D/3-D, f32 and bf16, plain / channels-last / blocked 8c / 16c, up, down
// and non-integer factors.
//
// Tolerances. f32: 1e-5 relative plus an absolute floor. oneDNN computes the source
// coordinate s = (o + 0.5) I / O - 0.5 in float, so its weights are off by up to
// ulp(s) / 2 <= 2^-24 * I (measured: 1.3e-6 at I = 64 on a result of 0.0065); with data in
// [-1, 1] a weight error e changes a tap pair by at most 2e per axis. The floor is therefore
// 1e-6 + 2^-22 * max(I) * r for forward, times the most outputs any input receives from
// (prod_k (ceil(O_k / I_k) + 2)) for backward. gridops' own double computation is tested
// tighter in tests/ops/resample_values_test.cc. gridops' nearest backward (float32 sums on the fast
// path) is also checked against the exact adjoint rounded once, within the stated bound of
// docs/ops/resample.md.
// bf16: both round a value that is within the above distance of the exact result to bf16
// with round-to-nearest-even; they can disagree only when the exact value lies that close
// to a bf16 rounding midpoint, and then by one bf16 ulp. One ulp of a normal bf16 value v is
// at most 2^-7 |v|, hence 2^-7 relative (of the larger of the two) plus the same floor.
//
// Nearest ties. At an exact tie ((2o + 1) I divisible by 2O) gridops takes the ERRATA index
// floor((2o + 1) I / (2O)) (round half up). Where oneDNN picks another index there, the test
// prints the case and the position and checks gridops against the exact integer formula; a
// difference anywhere else fails.
#include <gtest/gtest.h>

#include <oneapi/dnnl/dnnl.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "core/convert.h"
#include "gridops/ops/resample.h"
#include "support/test_util.h"

namespace gridops {
namespace {

using testing::product;
using testing::unravel;

using dnnl::memory;
using Tag = memory::format_tag;

constexpr MemoryFormat kAllFormats[] = {MemoryFormat::kPlain, MemoryFormat::kChannelsLast,
                                        MemoryFormat::kBlocked8, MemoryFormat::kBlocked16};

Tag dnnl_tag(MemoryFormat f, int r) {
  static const Tag tags[4][3] = {{Tag::ncw, Tag::nchw, Tag::ncdhw},
                                 {Tag::nwc, Tag::nhwc, Tag::ndhwc},
                                 {Tag::nCw8c, Tag::nChw8c, Tag::nCdhw8c},
                                 {Tag::nCw16c, Tag::nChw16c, Tag::nCdhw16c}};
  return tags[static_cast<int>(f)][r - 1];
}

memory::data_type dnnl_dt(DType d) {
  return d == DType::kFloat32 ? memory::data_type::f32 : memory::data_type::bf16;
}

dnnl::algorithm dnnl_alg(ResampleAlgorithm a) {
  return a == ResampleAlgorithm::kNearest ? dnnl::algorithm::resampling_nearest
                                          : dnnl::algorithm::resampling_linear;
}

ResampleMemoryDesc gmd(DType dt, const Dims& dims, MemoryFormat f) {
  ResampleMemoryDesc m;
  m.dtype = dt;
  m.dims = dims;
  m.format = f;
  return m;
}

/// The exact nearest index (ERRATA Resampling 1), written independently of the library.
int64_t exact_nearest(int64_t o, int64_t in, int64_t out) {
  const int64_t i = (2 * o + 1) * in / (2 * out);
  return i < in ? i : in - 1;
}
bool is_tie(int64_t o, int64_t in, int64_t out) { return (2 * o + 1) * in % (2 * out) == 0; }

bool close(double a, double b, DType dt, double abs_floor) {
  const double m = std::max(std::fabs(a), std::fabs(b));
  const double rel = dt == DType::kFloat32 ? 1e-5 : std::ldexp(1.0, -7);
  return std::fabs(a - b) <= rel * m + abs_floor;
}

struct Case {
  Dims src, dst;
};

/// Everything one comparison needs; T is float or bfloat16.
template <class T>
class Comparison {
 public:
  Comparison(dnnl::engine& eng, dnnl::stream& strm, const Case& c, ResampleAlgorithm a, DType dt,
             MemoryFormat fs, MemoryFormat fd, std::mt19937_64& rng)
      : eng_(eng), strm_(strm), c_(c), a_(a), dt_(dt), fs_(fs), fd_(fd), rng_(rng) {
    r_ = static_cast<int>(c.src.size()) - 2;
    int64_t max_in = 1;
    double fan_in = 1;
    for (int k = 0; k < r_; ++k) {
      max_in = std::max(max_in, c.src[2 + k]);
      fan_in *= static_cast<double>((c.dst[2 + k] + c.src[2 + k] - 1) / c.src[2 + k] + 2);
    }
    fwd_abs_ = 1e-6 + std::ldexp(1.0, -22) * static_cast<double>(max_in) * r_;
    bwd_abs_ = fwd_abs_ * fan_in;
  }

  void run() {
    const std::string name = std::string(to_string(a_)) + " " + to_string(dt_) + " " +
                             dims_to_string(c_.src) + " " + format_tag(fs_, r_) + " -> " +
                             dims_to_string(c_.dst) + " " + format_tag(fd_, r_);
    SCOPED_TRACE(name);
    name_ = name;
    const auto gs = gmd(dt_, c_.src, fs_), gd = gmd(dt_, c_.dst, fd_);
    // ---- forward
    const std::vector<double> x = random_logical(product(c_.src));
    const std::vector<T> gsrc = pack(x, gs);
    std::vector<T> gdst(static_cast<size_t>(*gd.buffer_elements()),
                        convert::store_real<T>(std::nan("")));
    ResampleDesc desc;
    desc.algorithm = a_;
    ASSERT_TRUE(resample_forward(desc, gs, gsrc.data(), gd, gdst.data()).ok());

    memory src_mem = to_onednn(x, c_.src, fs_);
    // gridops' layout of fs is oneDNN's (zero padding included): the raw buffers agree.
    ASSERT_EQ(src_mem.get_desc().get_size(), gsrc.size() * sizeof(T));
    ASSERT_EQ(0, std::memcmp(src_mem.get_data_handle(), gsrc.data(), gsrc.size() * sizeof(T)))
        << "ResampleMemoryDesc::offset disagrees with oneDNN's " << format_tag(fs_, r_);

    MemoryFormat onednn_fd = fd_;
    dnnl::resampling_forward::primitive_desc fwd_pd;
    try {
      fwd_pd = make_fwd_pd(fd_);
    } catch (const dnnl::error& e) {
      // Compare through logical indices with a dst in the src format instead.
      std::printf("[ note ] oneDNN rejects %s -> %s (%s); comparing with oneDNN dst in %s\n",
                  format_tag(fs_, r_).c_str(), format_tag(fd_, r_).c_str(), e.what(),
                  format_tag(fs_, r_).c_str());
      onednn_fd = fs_;
      fwd_pd = make_fwd_pd(fs_);
    }
    memory dst_mem(fwd_pd.dst_desc(), eng_);
    dnnl::resampling_forward(fwd_pd).execute(
        strm_, {{DNNL_ARG_SRC, src_mem}, {DNNL_ARG_DST, dst_mem}});
    strm_.wait();
    const auto od = gmd(dt_, c_.dst, onednn_fd);
    const T* onednn_y = static_cast<const T*>(dst_mem.get_data_handle());
    for (int64_t f = 0; f < product(c_.dst); ++f) {
      const Dims o = unravel(f, c_.dst);
      const double g = convert::load_real<double>(gdst[gd.offset(o)]);
      const double d = convert::load_real<double>(onednn_y[od.offset(o)]);
      if (a_ == ResampleAlgorithm::kNearest) {
        // gridops is the exact formula everywhere; oneDNN may differ only at exact ties.
        Dims i = o;
        bool tie = false;
        for (int k = 0; k < r_; ++k) {
          i[2 + k] = exact_nearest(o[2 + k], c_.src[2 + k], c_.dst[2 + k]);
          tie = tie || is_tie(o[2 + k], c_.src[2 + k], c_.dst[2 + k]);
        }
        int64_t src_flat = 0;
        for (size_t k = 0; k < i.size(); ++k) src_flat = src_flat * c_.src[k] + i[k];
        ASSERT_EQ(g, x[src_flat]) << "gridops nearest at " << dims_to_string(o);
        if (g != d) {
          ASSERT_TRUE(tie) << "oneDNN and gridops differ at non-tie " << dims_to_string(o)
                           << ": " << d << " vs " << g;
          report_tie("forward", o);
        }
      } else {
        ASSERT_TRUE(close(d, g, dt_, fwd_abs_)) << "forward at " << dims_to_string(o) << ": oneDNN " << d
                                      << ", gridops " << g;
      }
    }

    // ---- backward
    const std::vector<double> gy = random_logical(product(c_.dst));
    const std::vector<T> gdiff_dst = pack(gy, gd);
    std::vector<T> gdiff_src(static_cast<size_t>(*gs.buffer_elements()),
                             convert::store_real<T>(std::nan("")));
    ASSERT_TRUE(resample_backward(desc, gs, gdiff_src.data(), gd, gdiff_dst.data()).ok());

    memory diff_dst_mem = to_onednn(gy, c_.dst, onednn_fd);
    const memory::desc diff_src_md(memory::dims(c_.src.begin(), c_.src.end()), dnnl_dt(dt_),
                                   dnnl_tag(fs_, r_));
    const memory::desc diff_dst_md(memory::dims(c_.dst.begin(), c_.dst.end()), dnnl_dt(dt_),
                                   dnnl_tag(onednn_fd, r_));
    const dnnl::resampling_backward::desc bd(dnnl_alg(a_), diff_src_md, diff_dst_md);
    const dnnl::resampling_backward::primitive_desc bwd_pd(bd, eng_, fwd_pd);
    memory diff_src_mem(bwd_pd.diff_src_desc(), eng_);
    dnnl::resampling_backward(bwd_pd).execute(
        strm_, {{DNNL_ARG_DIFF_DST, diff_dst_mem}, {DNNL_ARG_DIFF_SRC, diff_src_mem}});
    strm_.wait();
    const T* onednn_gx = static_cast<const T*>(diff_src_mem.get_data_handle());

    // Which src positions an exact tie touches: oneDNN may send a tie output to the
    // neighbouring index, changing the gradient of both.
    std::vector<std::vector<bool>> tie_touched(r_);
    std::vector<std::vector<double>> expected_nearest;
    for (int k = 0; k < r_; ++k) {
      tie_touched[k].assign(static_cast<size_t>(c_.src[2 + k]), false);
      for (int64_t o = 0; o < c_.dst[2 + k]; ++o) {
        if (!is_tie(o, c_.src[2 + k], c_.dst[2 + k])) continue;
        const int64_t i = exact_nearest(o, c_.src[2 + k], c_.dst[2 + k]);
        tie_touched[k][i] = true;
        if (i > 0) tie_touched[k][i - 1] = true;
        if (i + 1 < c_.src[2 + k]) tie_touched[k][i + 1] = true;
      }
    }
    std::vector<double> exact_gx, terms, sum_abs;
    if (a_ == ResampleAlgorithm::kNearest) exact_gx = nearest_adjoint(gy, &terms, &sum_abs);
    for (int64_t f = 0; f < product(c_.src); ++f) {
      const Dims i = unravel(f, c_.src);
      const double g = convert::load_real<double>(gdiff_src[gs.offset(i)]);
      const double d = convert::load_real<double>(onednn_gx[gs.offset(i)]);
      if (a_ == ResampleAlgorithm::kNearest) {
        // gridops sums in float32: within the bound of docs/ops/resample.md of the double
        // sum rounded once.
        const double want = convert::load_real<double>(convert::store_real<T>(exact_gx[f]));
        ASSERT_LE(std::fabs(g - want), nearest_bwd_bound(terms[f], sum_abs[f]))
            << "gridops nearest backward at " << dims_to_string(i) << ": " << g << " vs exact "
            << exact_gx[f] << " (" << terms[f] << " terms)";
      }
      if (!close(d, g, dt_, bwd_abs_)) {
        bool touched = false;
        for (int k = 0; k < r_; ++k) touched = touched || tie_touched[k][i[2 + k]];
        ASSERT_TRUE(a_ == ResampleAlgorithm::kNearest && touched)
            << "backward at " << dims_to_string(i) << ": oneDNN " << d << ", gridops " << g;
        report_tie("backward", i);
      }
    }
  }

  int tie_reports() const { return tie_reports_; }

 private:
  std::vector<double> random_logical(int64_t n) {
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    std::vector<double> v(static_cast<size_t>(n));
    for (double& e : v) e = convert::load_real<double>(convert::store_real<T>(u(rng_)));
    return v;
  }

  /// Logical values laid out with ResampleMemoryDesc::offset (padding zero).
  std::vector<T> pack(const std::vector<double>& v, const ResampleMemoryDesc& m) {
    std::vector<T> buf(static_cast<size_t>(*m.buffer_elements()), convert::store_real<T>(0.0));
    for (int64_t f = 0; f < static_cast<int64_t>(v.size()); ++f) {
      buf[m.offset(unravel(f, m.dims))] = convert::store_real<T>(v[f]);
    }
    return buf;
  }

  /// A oneDNN memory in format f holding v, laid out by oneDNN's own reorder from plain.
  memory to_onednn(const std::vector<double>& v, const Dims& dims, MemoryFormat f) {
    const memory::dims d(dims.begin(), dims.end());
    memory plain({d, dnnl_dt(dt_), dnnl_tag(MemoryFormat::kPlain, r_)}, eng_);
    T* p = static_cast<T*>(plain.get_data_handle());
    for (size_t i = 0; i < v.size(); ++i) p[i] = convert::store_real<T>(v[i]);
    memory out({d, dnnl_dt(dt_), dnnl_tag(f, r_)}, eng_);
    dnnl::reorder(plain, out).execute(strm_, plain, out);
    strm_.wait();
    return out;
  }

  dnnl::resampling_forward::primitive_desc make_fwd_pd(MemoryFormat fd) {
    const memory::desc s(memory::dims(c_.src.begin(), c_.src.end()), dnnl_dt(dt_),
                         dnnl_tag(fs_, r_));
    const memory::desc d(memory::dims(c_.dst.begin(), c_.dst.end()), dnnl_dt(dt_),
                         dnnl_tag(fd, r_));
    const dnnl::resampling_forward::desc fd_desc(dnnl::prop_kind::forward_training, dnnl_alg(a_),
                                                 s, d);
    return dnnl::resampling_forward::primitive_desc(fd_desc, eng_);
  }

  /// The nearest adjoint from the exact index formula, in double; the number of terms and
  /// the sum of their absolute values of every element.
  std::vector<double> nearest_adjoint(const std::vector<double>& gy, std::vector<double>* terms,
                                      std::vector<double>* sum_abs) {
    std::vector<double> gx(static_cast<size_t>(product(c_.src)), 0.0);
    terms->assign(gx.size(), 0.0);
    sum_abs->assign(gx.size(), 0.0);
    for (int64_t f = 0; f < product(c_.dst); ++f) {
      const Dims o = unravel(f, c_.dst);
      int64_t s = o[0] * c_.src[1] + o[1];
      for (int k = 0; k < r_; ++k) {
        s = s * c_.src[2 + k] + exact_nearest(o[2 + k], c_.src[2 + k], c_.dst[2 + k]);
      }
      gx[s] += gy[f];
      (*terms)[s] += 1;
      (*sum_abs)[s] += std::fabs(gy[f]);
    }
    return gx;
  }

  /// The fast path's nearest backward bound (docs/ops/resample.md, "Fast path"): k terms of
  /// absolute sum S, u = 2^-24; S here is a double sum (relative error far below 2^-40).
  double nearest_bwd_bound(double k, double S) const {
    const double u = std::ldexp(1.0, -24);
    S *= 1.0 + std::ldexp(1.0, -40);
    if (dt_ == DType::kFloat32) return k * u * S * (1.0 + std::ldexp(1.0, -28)) + std::ldexp(1.0, -150);
    return (std::ldexp(1.0, -7) + std::max(k - 1.0, 0.0) * u * (1.0 + std::ldexp(1.0, -7))) * S +
           std::ldexp(1.0, -133);
  }

  void report_tie(const char* pass, const Dims& where) {
    if (tie_reports_ < 3) {
      std::printf("[ tie  ] %s %s: oneDNN differs from the exact nearest index at %s; gridops "
                  "checked against floor((2o+1)I/(2O))\n",
                  name_.c_str(), pass, dims_to_string(where).c_str());
    }
    ++tie_reports_;
  }

  dnnl::engine& eng_;
  dnnl::stream& strm_;
  Case c_;
  ResampleAlgorithm a_;
  DType dt_;
  MemoryFormat fs_, fd_;
  std::mt19937_64& rng_;
  int r_ = 1;
  double fwd_abs_ = 1e-6, bwd_abs_ = 1e-6;
  std::string name_;
  int tie_reports_ = 0;
};

/// Runs every algorithm, the four same-format pairs and two cross pairs for each case.
void compare_all(int rank, DType dt, const std::vector<Case>& cases) {
  dnnl::engine eng(dnnl::engine::kind::cpu, 0);
  dnnl::stream strm(eng);
  if (dt == DType::kBFloat16) {
    // oneDNN 2.6 implements bf16 resampling only on CPUs with AVX-512 (its avx512_core and
    // up; also under ONEDNN_MAX_CPU_ISA): elsewhere no primitive exists to compare with.
    try {
      const memory::desc s({1, 16, 4}, memory::data_type::bf16, memory::format_tag::ncw);
      const memory::desc d({1, 16, 8}, memory::data_type::bf16, memory::format_tag::ncw);
      const dnnl::resampling_forward::desc fd(dnnl::prop_kind::forward_training,
                                              dnnl::algorithm::resampling_linear, s, d);
      (void)dnnl::resampling_forward::primitive_desc(fd, eng);
    } catch (const dnnl::error& e) {
      GTEST_SKIP() << "oneDNN has no bf16 resampling primitive on this CPU (oneDNN 2.6 needs "
                      "AVX-512, avx512_core, for it): "
                   << e.what();
    }
  }
  std::mt19937_64 rng(testing::test_seed() + static_cast<uint64_t>(rank));
  SCOPED_TRACE(testing::test_seed());
  const std::pair<MemoryFormat, MemoryFormat> pairs[] = {
      {MemoryFormat::kPlain, MemoryFormat::kPlain},
      {MemoryFormat::kChannelsLast, MemoryFormat::kChannelsLast},
      {MemoryFormat::kBlocked8, MemoryFormat::kBlocked8},
      {MemoryFormat::kBlocked16, MemoryFormat::kBlocked16},
      {MemoryFormat::kPlain, MemoryFormat::kChannelsLast},
      {MemoryFormat::kBlocked16, MemoryFormat::kBlocked8}};
  int ties = 0;
  for (const Case& c : cases) {
    ASSERT_EQ(static_cast<int>(c.src.size()) - 2, rank);
    for (ResampleAlgorithm a : {ResampleAlgorithm::kNearest, ResampleAlgorithm::kLinear}) {
      for (const auto& [fs, fd] : pairs) {
        auto go = [&](auto tag) {
          using T = typename decltype(tag)::type;
          Comparison<T> cmp(eng, strm, c, a, dt, fs, fd, rng);
          cmp.run();
          ties += cmp.tie_reports();
        };
        if (dt == DType::kFloat32) go(TypeTag<float>{});
        else go(TypeTag<bfloat16>{});
        if (::testing::Test::HasFatalFailure()) return;
      }
    }
  }
  std::printf("[ info ] rank %d %s: %d element(s) where oneDNN's nearest differs at an exact "
              "tie\n",
              rank, to_string(dt), ties);
}

const std::vector<Case> k1D = {{{2, 19, 5}, {2, 19, 7}},   {{2, 19, 7}, {2, 19, 5}},
                               {{2, 19, 3}, {2, 19, 8}},   {{1, 5, 64}, {1, 5, 41}},
                               {{1, 3, 2}, {1, 3, 41}},    {{1, 3, 4}, {1, 3, 2}},
                               {{1, 17, 1}, {1, 17, 3}}};
const std::vector<Case> k2D = {{{1, 19, 5, 7}, {1, 19, 7, 5}},
                               {{1, 3, 3, 64}, {1, 3, 8, 41}},
                               {{2, 9, 4, 2}, {2, 9, 2, 41}},
                               {{1, 16, 6, 6}, {1, 16, 12, 3}}};
const std::vector<Case> k3D = {{{1, 10, 3, 4, 5}, {1, 10, 5, 3, 8}},
                               {{1, 17, 2, 6, 4}, {1, 17, 4, 3, 2}},
                               {{1, 8, 7, 5, 3}, {1, 8, 5, 7, 6}}};

TEST(OneDnnResample, F32Rank1) { compare_all(1, DType::kFloat32, k1D); }
TEST(OneDnnResample, F32Rank2) { compare_all(2, DType::kFloat32, k2D); }
TEST(OneDnnResample, F32Rank3) { compare_all(3, DType::kFloat32, k3D); }
TEST(OneDnnResample, Bf16Rank1) { compare_all(1, DType::kBFloat16, k1D); }
TEST(OneDnnResample, Bf16Rank2) { compare_all(2, DType::kBFloat16, k2D); }
TEST(OneDnnResample, Bf16Rank3) { compare_all(3, DType::kBFloat16, k3D); }

// The tie named in ERRATA 1 (I = 2, O = 41, o = 20): gridops takes index 1; print what
// oneDNN takes.
TEST(OneDnnResample, NearestTieOfErrata) {
  dnnl::engine eng(dnnl::engine::kind::cpu, 0);
  dnnl::stream strm(eng);
  const memory::desc s({1, 1, 2}, memory::data_type::f32, Tag::ncw);
  const memory::desc d({1, 1, 41}, memory::data_type::f32, Tag::ncw);
  const dnnl::resampling_forward::primitive_desc pd(
      {dnnl::prop_kind::forward_training, dnnl::algorithm::resampling_nearest, s, d}, eng);
  memory sm(s, eng), dm(d, eng);
  float* sp = static_cast<float*>(sm.get_data_handle());
  sp[0] = 10.0f;
  sp[1] = 20.0f;
  dnnl::resampling_forward(pd).execute(strm, {{DNNL_ARG_SRC, sm}, {DNNL_ARG_DST, dm}});
  strm.wait();
  const float onednn = static_cast<const float*>(dm.get_data_handle())[20];

  ResampleDesc desc;
  desc.algorithm = ResampleAlgorithm::kNearest;
  float y[41];
  ASSERT_TRUE(resample_forward(desc, gmd(DType::kFloat32, {1, 1, 2}, MemoryFormat::kPlain), sp,
                               gmd(DType::kFloat32, {1, 1, 41}, MemoryFormat::kPlain), y)
                  .ok());
  EXPECT_EQ(y[20], 20.0f);  // floor(41 * 2 / 82) = 1
  std::printf("[ info ] I=2, O=41, o=20: gridops index 1 (value %g), oneDNN value %g (%s)\n",
              static_cast<double>(y[20]), static_cast<double>(onednn),
              onednn == y[20] ? "same" : "differs at this exact tie");
}

}  // namespace
}  // namespace gridops
