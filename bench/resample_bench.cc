// Resampling workloads W5a-W5f (../shared/bench/WORKLOADS.md) per layout (nchw, nhwc,
// nChw16c; 3-D: ncdhw, ndhwc, nCdhw16c) and type (f32, bf16): gridops against oneDNN's
// resampling (primitive built once, execute timed), PyTorch (upsample_*_out and their
// backward _out variants, contiguous or channels-last tensors), OpenCV cv::resize per plane
// (nchw f32 forward) and a memcpy of the output size (the bandwidth reference).
// Names: <workload>/<layout>/<type>/<impl>/threads:<n>.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <unordered_map>
#include <string>
#include <vector>

#include "bench_util.h"
#include "core/cache_size.h"
#include "gridops/dtype.h"
#include "gridops/ops/resample.h"
#include "ops/resample_impls.h"

#ifdef GRIDOPS_BENCH_ONEDNN
#include <dnnl.hpp>
#endif
#ifdef GRIDOPS_BENCH_TORCH
#include <ATen/ATen.h>
#include <c10/core/InferenceMode.h>
#endif
#ifdef GRIDOPS_BENCH_OPENCV
#include <opencv2/imgproc.hpp>
#endif

namespace {

using gridops::DType;
using gridops::Dims;
using gridops::MemoryFormat;
using gridops::ResampleAlgorithm;

struct Workload {
  const char* id;
  Dims src, dst;  // logical (N, C, spatial...)
  ResampleAlgorithm alg;
  bool backward;
};

const Workload kWorkloads[] = {
    {"W5a", {8, 64, 64, 64}, {8, 64, 128, 128}, ResampleAlgorithm::kLinear, false},
    {"W5b", {8, 64, 64, 64}, {8, 64, 128, 128}, ResampleAlgorithm::kNearest, false},
    {"W5c", {8, 64, 128, 128}, {8, 64, 64, 64}, ResampleAlgorithm::kLinear, false},
    {"W5d", {1, 32, 32, 64, 64}, {1, 32, 64, 128, 128}, ResampleAlgorithm::kLinear, false},
    {"W5e", {8, 64, 64, 64}, {8, 64, 128, 128}, ResampleAlgorithm::kLinear, true},
    {"W5f", {8, 64, 64, 64}, {8, 64, 128, 128}, ResampleAlgorithm::kNearest, true},
};

int64_t product(const Dims& d) {
  int64_t p = 1;
  for (int64_t v : d) p *= v;
  return p;
}

/// A 64-byte aligned buffer of elements (f32 or bf16 bits) with the same physical layout
/// for every impl (aligned as a user's tensor allocator would; all impls share it).
template <class T>
struct AlignedVec {
  std::shared_ptr<T> p;
  size_t n = 0;
  explicit AlignedVec(size_t count = 0) : n(count) {
    if (n == 0) return;
    const size_t bytes = (n * sizeof(T) + 63) / 64 * 64;
    p.reset(static_cast<T*>(std::aligned_alloc(64, bytes)), [](T* q) { std::free(q); });
  }
  T* data() const { return p.get(); }
  size_t size() const { return n; }
  T& operator[](size_t i) const { return p.get()[i]; }
};

struct Buf {
  DType dt;
  AlignedVec<float> f;
  AlignedVec<gridops::bfloat16> b;
  Buf(DType t, size_t n) : dt(t) {
    if (t == DType::kFloat32) {
      f = AlignedVec<float>(n);
    } else {
      b = AlignedVec<gridops::bfloat16>(n);
    }
  }
  /// A deep copy.
  Buf clone() const {
    Buf c(dt, size());
    std::memcpy(c.data(), const_cast<Buf*>(this)->data(), bytes());
    return c;
  }
  void* data() { return dt == DType::kFloat32 ? static_cast<void*>(f.data()) : b.data(); }
  size_t size() const { return dt == DType::kFloat32 ? f.size() : b.size(); }
  size_t bytes() const { return size() * (dt == DType::kFloat32 ? 4 : 2); }
  double at(size_t i) const {
    return dt == DType::kFloat32 ? f[i] : gridops::bf16_to_f32(b[i]);
  }
};

void fill(Buf& buf, uint64_t seed) {
  const auto v = gridops::bench::random_floats(buf.size(), -1.0f, 1.0f, seed);
  for (size_t i = 0; i < v.size(); ++i) {
    if (buf.dt == DType::kFloat32) {
      buf.f[i] = v[i];
    } else {
      buf.b[i] = gridops::f32_to_bf16(v[i]);
    }
  }
}

/// Max |a - b| over the buffers, relative to max |b| (1 when sizes differ).
double rel_diff(const Buf& a, const Buf& b) {
  if (a.size() != b.size()) return 1.0;
  double m = 0, s = 1e-30;
  for (size_t i = 0; i < a.size(); ++i) {
    m = std::max(m, std::fabs(a.at(i) - b.at(i)));
    s = std::max(s, std::fabs(b.at(i)));
  }
  return m / s;
}

void check(const std::string& name, const Buf& got, const Buf& want) {
  const double tol = got.dt == DType::kFloat32 ? 1e-5 : 2e-2;
  const double d = rel_diff(got, want);
  if (!(d <= tol)) {
    std::fprintf(stderr, "WARNING: %s differs from gridops: max rel diff %.3g (tol %.1g)\n",
                 name.c_str(), d, tol);
  }
}

const char* layout_name(MemoryFormat f, int r) {
  static std::string names[4][4];
  std::string& s = names[static_cast<int>(f)][r];
  s = gridops::format_tag(f, r);
  return s.c_str();
}

// --- peers --------------------------------------------------------------------------------

#ifdef GRIDOPS_BENCH_ONEDNN
dnnl::engine& dnnl_engine() {
  static dnnl::engine eng(dnnl::engine::kind::cpu, 0);
  return eng;
}
dnnl::memory::format_tag dnnl_tag(MemoryFormat f, int r) {
  using tag = dnnl::memory::format_tag;
  switch (f) {
    case MemoryFormat::kPlain: return r == 2 ? tag::nchw : tag::ncdhw;
    case MemoryFormat::kChannelsLast: return r == 2 ? tag::nhwc : tag::ndhwc;
    case MemoryFormat::kBlocked8: return r == 2 ? tag::nChw8c : tag::nCdhw8c;
    case MemoryFormat::kBlocked16: return r == 2 ? tag::nChw16c : tag::nCdhw16c;
  }
  return tag::any;
}
void add_onednn(const std::string& wname, const Workload& w, MemoryFormat f, DType dt,
                int64_t bytes, const std::shared_ptr<Buf>& in, const std::shared_ptr<Buf>& out,
                const Buf& reference) {
  const int r = static_cast<int>(w.src.size()) - 2;
  // Debian's oneDNN 2.6 crashes (SIGSEGV inside its JIT-generated code) when the 3-D W5d
  // primitives run here (ncdhw and ndhwc seen), so W5d has no oneDNN rows unless
  // GRIDOPS_BENCH_ONEDNN_W5D=1. GRIDOPS_BENCH_SKIP_ONEDNN=<substring> skips others.
  if (w.id == std::string("W5d") && std::getenv("GRIDOPS_BENCH_ONEDNN_W5D") == nullptr) {
    std::fprintf(stderr, "note: %s: oneDNN skipped (crashes in oneDNN 2.6 here)\n", wname.c_str());
    return;
  }
  if (const char* skip = std::getenv("GRIDOPS_BENCH_SKIP_ONEDNN");
      skip != nullptr && wname.find(skip) != std::string::npos) {
    return;
  }
  const auto ddt = dt == DType::kFloat32 ? dnnl::memory::data_type::f32
                                         : dnnl::memory::data_type::bf16;
  const dnnl::memory::desc smd(dnnl::memory::dims(w.src.begin(), w.src.end()), ddt,
                               dnnl_tag(f, r));
  const dnnl::memory::desc dmd(dnnl::memory::dims(w.dst.begin(), w.dst.end()), ddt,
                               dnnl_tag(f, r));
  const auto alg = w.alg == ResampleAlgorithm::kNearest ? dnnl::algorithm::resampling_nearest
                                                        : dnnl::algorithm::resampling_linear;
  try {
    auto& eng = dnnl_engine();
    const dnnl::resampling_forward::primitive_desc fpd(
        {dnnl::prop_kind::forward_training, alg, smd, dmd}, eng);
    std::shared_ptr<dnnl::primitive> prim;
    std::unordered_map<int, dnnl::memory> args;
    if (!w.backward) {
      prim = std::make_shared<dnnl::resampling_forward>(fpd);
      args = {{DNNL_ARG_SRC, dnnl::memory(smd, eng, in->data())},
              {DNNL_ARG_DST, dnnl::memory(dmd, eng, out->data())}};
    } else {
      const dnnl::resampling_backward::primitive_desc bpd({alg, smd, dmd}, eng, fpd);
      prim = std::make_shared<dnnl::resampling_backward>(bpd);
      args = {{DNNL_ARG_DIFF_DST, dnnl::memory(dmd, eng, in->data())},
              {DNNL_ARG_DIFF_SRC, dnnl::memory(smd, eng, out->data())}};
    }
    auto strm = std::make_shared<dnnl::stream>(eng);
    prim->execute(*strm, args);
    strm->wait();
    check(wname + "/onednn", *out, reference);
    gridops::bench::add(wname, "onednn", bytes, [=, keep_in = in, keep_out = out](benchmark::State& st) {
      for (auto _ : st) {
        prim->execute(*strm, args);
        strm->wait();
      }
    });
  } catch (const dnnl::error& e) {
    std::fprintf(stderr, "note: oneDNN has no %s (%s)\n", wname.c_str(), e.what());
  }
}
#endif

#ifdef GRIDOPS_BENCH_TORCH
void add_torch(const std::string& wname, const Workload& w, MemoryFormat f, DType dt,
               int64_t bytes, const std::shared_ptr<Buf>& in, const std::shared_ptr<Buf>& out,
               const Buf& reference) {
  if (f != MemoryFormat::kPlain && f != MemoryFormat::kChannelsLast) return;
  const int r = static_cast<int>(w.src.size()) - 2;
  const auto mf = f == MemoryFormat::kPlain
                      ? at::MemoryFormat::Contiguous
                      : (r == 2 ? at::MemoryFormat::ChannelsLast : at::MemoryFormat::ChannelsLast3d);
  const auto opts = at::TensorOptions().dtype(dt == DType::kFloat32 ? at::kFloat : at::kBFloat16);
  try {
    c10::InferenceMode guard;
    const Dims& in_dims = w.backward ? w.dst : w.src;
    const Dims& out_dims = w.backward ? w.src : w.dst;
    // Tensors over the same buffers gridops uses (same physical layout).
    auto strides = [&](const Dims& dims) {
      std::vector<int64_t> st(dims.size());
      if (f == MemoryFormat::kPlain) {
        int64_t acc = 1;
        for (size_t k = dims.size(); k-- > 0;) {
          st[k] = acc;
          acc *= dims[k];
        }
      } else {  // (N, spatial..., C) physical
        int64_t acc = dims[1];
        st[1] = 1;
        for (size_t k = dims.size(); k-- > 2;) {
          st[k] = acc;
          acc *= dims[k];
        }
        st[0] = acc;
      }
      return st;
    };
    auto x = std::make_shared<at::Tensor>(at::from_blob(in->data(), in_dims, strides(in_dims), opts));
    auto y = std::make_shared<at::Tensor>(at::from_blob(out->data(), out_dims, strides(out_dims), opts));
    const std::vector<int64_t> osz(w.dst.begin() + 2, w.dst.end());
    const std::vector<int64_t> isz(w.src.begin(), w.src.end());
    const bool lin = w.alg == ResampleAlgorithm::kLinear;
    auto fn = [=]() {
      c10::InferenceMode g;
      if (!w.backward) {
        if (r == 2) {
          if (lin) {
            at::upsample_bilinear2d_out(*y, *x, osz, false, c10::nullopt, c10::nullopt);
          } else {
            at::_upsample_nearest_exact2d_out(*y, *x, osz, c10::nullopt, c10::nullopt);
          }
        } else {
          at::upsample_trilinear3d_out(*y, *x, osz, false, c10::nullopt, c10::nullopt,
                                       c10::nullopt);
        }
      } else {
        if (lin) {
          at::upsample_bilinear2d_backward_out(*y, *x, osz, isz, false, c10::nullopt,
                                               c10::nullopt);
        } else {
          at::_upsample_nearest_exact2d_backward_out(*y, *x, osz, isz, c10::nullopt,
                                                     c10::nullopt);
        }
      }
    };
    fn();
    if (!y->is_contiguous(mf)) std::fprintf(stderr, "note: torch %s output not in layout\n", wname.c_str());
    check(wname + "/torch", *out, reference);
    gridops::bench::add(wname, "torch", bytes, [=, keep_in = in, keep_out = out](benchmark::State& st) {
      for (auto _ : st) fn();
    });
  } catch (const std::exception& e) {
    std::fprintf(stderr, "note: torch has no %s (%.200s)\n", wname.c_str(), e.what());
  }
}
#endif

#ifdef GRIDOPS_BENCH_OPENCV
void add_opencv(const std::string& wname, const Workload& w, MemoryFormat f, DType dt,
                int64_t bytes, const std::shared_ptr<Buf>& in, const std::shared_ptr<Buf>& out,
                const Buf& reference) {
  if (f != MemoryFormat::kPlain || dt != DType::kFloat32 || w.backward || w.src.size() != 4) {
    return;
  }
  const int interp = w.alg == ResampleAlgorithm::kLinear ? cv::INTER_LINEAR
                                                         : cv::INTER_NEAREST_EXACT;
  const int ih = static_cast<int>(w.src[2]), iw = static_cast<int>(w.src[3]);
  const int oh = static_cast<int>(w.dst[2]), ow = static_cast<int>(w.dst[3]);
  const int planes = static_cast<int>(w.src[0] * w.src[1]);
  auto fn = [=]() {
    cv::parallel_for_(cv::Range(0, planes), [&](const cv::Range& range) {
      for (int p = range.start; p < range.end; ++p) {
        const cv::Mat s(ih, iw, CV_32F, in->f.data() + static_cast<size_t>(p) * ih * iw);
        cv::Mat d(oh, ow, CV_32F, out->f.data() + static_cast<size_t>(p) * oh * ow);
        cv::resize(s, d, d.size(), 0, 0, interp);
      }
    });
  };
  fn();
  check(wname + "/opencv", *out, reference);
  gridops::bench::add(wname, "opencv", bytes, [=](benchmark::State& st) {
    for (auto _ : st) fn();
  });
}
#endif

void register_all() {
  // GRIDOPS_BENCH_LLC_MIB=<n>: the plans choose their stores as on a host whose last-level
  // cache is n MiB (core/cache_size.h), e.g. 16 for the store policy of an AMD Zen 2
  // part, or the C library's package-wide figure to compare against the instance's.
  if (const char* llc = std::getenv("GRIDOPS_BENCH_LLC_MIB"); llc != nullptr) {
    gridops::kernels::set_last_level_cache_bytes_override(std::atoll(llc) * (int64_t{1} << 20));
    std::fprintf(stderr, "note: last-level cache taken as %s MiB\n", llc);
  }
  for (const Workload& w : kWorkloads) {
    const int r = static_cast<int>(w.src.size()) - 2;
    for (DType dt : {DType::kFloat32, DType::kBFloat16}) {
      for (MemoryFormat f :
           {MemoryFormat::kPlain, MemoryFormat::kChannelsLast, MemoryFormat::kBlocked16}) {
        const std::string wname = std::string(w.id) + "/" + layout_name(f, r) + "/" +
                                  (dt == DType::kFloat32 ? "f32" : "bf16");
        gridops::ResampleMemoryDesc s{dt, w.src, f}, d{dt, w.dst, f};
        gridops::ResampleDesc desc;
        desc.algorithm = w.alg;
        auto plan = gridops::make_resample_plan(desc, s, d);
        if (!plan.ok()) {
          std::fprintf(stderr, "%s: %s\n", wname.c_str(), plan.status().to_string().c_str());
          continue;
        }
        const auto& in_md = w.backward ? d : s;
        const auto& out_md = w.backward ? s : d;
        auto in = std::make_shared<Buf>(dt, static_cast<size_t>(*in_md.buffer_elements()));
        auto out = std::make_shared<Buf>(dt, static_cast<size_t>(*out_md.buffer_elements()));
        fill(*in, 7);
        const int64_t bytes = static_cast<int64_t>(in->bytes() + out->bytes());
        auto runner = [=](const gridops::ResamplePlan& pl) {
          auto p = std::make_shared<gridops::ResamplePlan>(pl);
          return [=]() {
            const gridops::Status st = w.backward ? p->backward(in->data(), out->data())
                                                  : p->forward(in->data(), out->data());
            if (!st.ok()) std::fprintf(stderr, "%s\n", st.to_string().c_str());
          };
        };
        auto run = runner(*plan);
        run();
        if (std::string(plan->impl_name()) == "ref") {
          std::fprintf(stderr, "WARNING: %s runs on '%s'\n", wname.c_str(), plan->impl_name());
        }
        gridops::bench::add(wname, "gridops", bytes, [=](benchmark::State& st) {
          for (auto _ : st) run();
        });
        const Buf reference = out->clone();  // peers write into the same output buffer
        // Each entry of the list that takes the workload, forced by name ("ref" included).
        for (const gridops::detail::ResampleEntry& e : gridops::detail::resample_forward_entries()) {
          gridops::ResampleDesc forced = desc;
          forced.impl = e.name;
          auto ep = gridops::make_resample_plan(forced, s, d);
          if (!ep.ok()) continue;
          auto run_e = runner(*ep);
          gridops::bench::add(wname, e.name, bytes, [=](benchmark::State& st) {
            for (auto _ : st) run_e();
          });
        }
        if (std::getenv("GRIDOPS_BENCH_VERBOSE")) std::fprintf(stderr, "setup %s\n", wname.c_str());
#ifdef GRIDOPS_BENCH_ONEDNN
        add_onednn(wname, w, f, dt, bytes, in, out, reference);
#endif
#ifdef GRIDOPS_BENCH_TORCH
        add_torch(wname, w, f, dt, bytes, in, out, reference);
#endif
#ifdef GRIDOPS_BENCH_OPENCV
        add_opencv(wname, w, f, dt, bytes, in, out, reference);
#endif
        // Where the output is larger than the input (the upsampling forwards), the time
        // to write the output alone (docs/BENCHMARKS.md, "Output-write reference").
        if (out->bytes() > in->bytes()) {
          gridops::bench::add_write_output(wname, static_cast<int64_t>(out->bytes()));
        }
        // The bandwidth reference: a copy of the output size (read + write), from one
        // shared pair of buffers as large as the largest output.
        static AlignedVec<char> msrc_v(size_t{140} << 20), mdst_v(size_t{140} << 20);
        static const bool init = (std::memset(msrc_v.data(), 1, msrc_v.size()), true);
        (void)init;
        const AlignedVec<char>* msrc = &msrc_v;
        const AlignedVec<char>* mdst = &mdst_v;
        const int64_t copy_bytes = static_cast<int64_t>(out->bytes());
        gridops::bench::add(wname, "memcpy", 2 * copy_bytes,
                            [=](benchmark::State& st) {
                              for (auto _ : st) {
                                const int64_t n = copy_bytes;
                                gridops::parallel_for(n, 1 << 20, [&](int64_t b, int64_t e) {
                                  std::memcpy(mdst->data() + b, msrc->data() + b,
                                              static_cast<size_t>(e - b));
                                });
                                benchmark::DoNotOptimize(mdst->data());
                              }
                            });
      }
    }
  }
}

}  // namespace

int main(int argc, char** argv) { return gridops::bench::run_main(argc, argv, register_all); }
