// gridops_output_digest: hashes the output bytes of every operator over a fixed, seeded
// set of random problems, once per implementation entry it can force by name (plus the
// automatic choice, "auto") and per thread count, so that two builds (before and after a
// restructuring) can be compared line by line: same lines, same bits. Not a test itself;
// scripts/output_digest.sh runs it under each ISA cap and writes one file per cap.
//
// Only the public API (include/gridops) is used, so the same source builds against any
// version of the library. The entry names are hard-coded strings (the names are the
// stable part of the implementation lists); --extra=<op>:<name> adds more (e.g. test_only
// entries). A forced entry that declines a problem prints "declined".
//
// Each problem's inputs fill their whole buffer (gaps of strided views included) with
// seeded random values; each output buffer is filled with 0xA5 before the run and hashed
// whole (FNV-1a 64), so writes outside the view show too. Views: contiguous, padded
// strides, a negative stride, an element offset, permuted axis order.
//
// Output: "# ..." header lines, then one line per (operator, entry, problem, threads):
//   <op> <entry> <problem> t<threads> <fnv64 hex | declined | error:<code>:<message>>
//   [impl=<chosen>] | <problem description>
// then "summary lines=... ok=... declined=... errors=... digest=<fnv64 of the lines>".
//
// Usage: gridops_output_digest [--max-isa=<level>] [--threads=1,2] [--ops=a,b]
//        [--seed=N] [--extra=<op>:<entry>]...
// GRIDOPS_IMPL is unset at start (it would override "auto").
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "tools/output_digest.h"

namespace gridops_digest {

// --- Resample -----------------------------------------------------------------------------

const std::vector<std::string> kResampleEntries = {
    "resample.plain", "resample.channels_bf16", "resample.channels_vector16",
    "resample.channels_vector8", "resample.generic", "ref"};

void run_resample(Driver& drv, bool backward) {
  const std::string op = backward ? "resample_backward" : "resample_forward";
  if (!drv.wanted(op)) return;
  for (int i = 0; i < 72; ++i) {
    Rng rng = drv.rng_for(op, i);
    const double u = rng.unit();
    const int r = u < 0.2 ? 1 : u < 0.75 ? 2 : 3;
    gridops::ResampleMemoryDesc s, d;
    const double v = rng.unit();
    s.dtype = v < 0.5 ? DType::kFloat32 : v < 0.72 ? DType::kBFloat16 : v < 0.87 ? DType::kFloat16
                                                                              : DType::kFloat64;
    d.dtype = s.dtype;
    const int64_t n = rng.range(1, 2), ch = rng.pick<int64_t>({1, 3, 8, 16, 17, 32});
    s.dims = {n, ch};
    d.dims = {n, ch};
    const int64_t max_in = r == 1 ? 30 : r == 2 ? 12 : 6;
    for (int k = 0; k < r; ++k) {
      s.dims.push_back(rng.range(1, max_in));
      d.dims.push_back(rng.range(1, max_in + 3));
    }
    if (i % 12 == 7) {
      const bool many = rng.coin(0.5);
      s.dims = {1, many ? 32 : 3, rng.range(40, 60), rng.range(40, 60)};
      d.dims = {1, s.dims[1], rng.range(30, 80), rng.range(30, 80)};
    }
    auto fmt = [&] {
      return rng.pick({gridops::MemoryFormat::kPlain, gridops::MemoryFormat::kChannelsLast,
                       gridops::MemoryFormat::kBlocked8, gridops::MemoryFormat::kBlocked16});
    };
    s.format = fmt();
    d.format = rng.coin(0.7) ? s.format : fmt();
    gridops::ResampleDesc desc;
    desc.algorithm = rng.coin(0.5) ? gridops::ResampleAlgorithm::kLinear
                                   : gridops::ResampleAlgorithm::kNearest;
    if (i % 8 == 2) {  // bfloat16 linear, channels-last or blocked by 16 (the AVX512_BF16 path)
      s.dtype = d.dtype = DType::kBFloat16;
      s.dims[1] = d.dims[1] = rng.pick<int64_t>({16, 32});
      s.format = d.format = rng.coin(0.6) ? gridops::MemoryFormat::kChannelsLast
                                          : gridops::MemoryFormat::kBlocked16;
      desc.algorithm = gridops::ResampleAlgorithm::kLinear;
    }
    const gridops::ResampleMemoryDesc& in_md = backward ? d : s;
    const gridops::ResampleMemoryDesc& out_md = backward ? s : d;
    auto in_elems = in_md.buffer_elements();
    auto out_elems = out_md.buffer_elements();
    if (!in_elems.ok() || !out_elems.ok()) continue;
    Buffer in;
    const size_t es = gridops::dtype_size(s.dtype);
    in.alloc(static_cast<size_t>(*in_elems) * es);
    for (int64_t k = 0; k < *in_elems; ++k) {
      put(s.dtype, in.data() + static_cast<size_t>(k) * es, random_value(rng, s.dtype, -2, 2, 0));
    }
    std::ostringstream os;
    os << "alg=" << to_string(desc.algorithm) << " dt=" << to_string(s.dtype) << " src="
       << gridops::format_tag(s.format, r) << ":" << dims(s.dims) << " dst="
       << gridops::format_tag(d.format, r) << ":" << dims(d.dims);
    drv.run_problem(op, kResampleEntries, i, os.str(), [&](const std::string& e, std::string* impl) {
      gridops::ResampleDesc dd = desc;
      dd.impl = e;
      auto plan = gridops::make_resample_plan(dd, s, d);
      if (!plan.ok()) return drv.result(plan.status(), {});
      *impl = plan->impl_name();
      Buffer out;
      out.alloc(static_cast<size_t>(*out_elems) * es);
      Status st = backward ? plan->backward(in.data(), out.data()) : plan->forward(in.data(), out.data());
      return drv.result(st, {&out});
    });
  }
}

// --- Resize -------------------------------------------------------------------------------

const std::vector<std::string> kResizeEntries = {"resize.gather", "resize.fused_rows",
                                                 "resize.passes", "ref"};

void run_resize(Driver& drv) {
  const std::string op = "resize";
  if (!drv.wanted(op)) return;
  using gridops::ResizeCoordinateMode;
  for (int i = 0; i < 96; ++i) {
    Rng rng = drv.rng_for(op, i);
    gridops::ResizeDesc desc;
    desc.mode = rng.pick({gridops::ResizeMode::kNearest, gridops::ResizeMode::kLinear,
                          gridops::ResizeMode::kCubic});
    desc.coordinate_mode = rng.pick({ResizeCoordinateMode::kHalfPixel, ResizeCoordinateMode::kHalfPixel,
                                     ResizeCoordinateMode::kHalfPixelSymmetric,
                                     ResizeCoordinateMode::kPytorchHalfPixel,
                                     ResizeCoordinateMode::kAlignCorners,
                                     ResizeCoordinateMode::kAsymmetric,
                                     ResizeCoordinateMode::kTfHalfPixelForNN,
                                     ResizeCoordinateMode::kTfCropAndResize});
    desc.nearest_mode = rng.pick({gridops::ResizeNearestMode::kRoundPreferFloor,
                                  gridops::ResizeNearestMode::kRoundPreferCeil,
                                  gridops::ResizeNearestMode::kFloor, gridops::ResizeNearestMode::kCeil,
                                  gridops::ResizeNearestMode::kSimple});
    desc.cubic_coeff_a = rng.coin(0.7) ? -0.75 : -0.5;
    desc.exclude_outside = rng.coin(0.2);
    desc.antialias = desc.mode != gridops::ResizeMode::kNearest && rng.coin(0.25);
    if (desc.coordinate_mode == ResizeCoordinateMode::kTfCropAndResize) {
      desc.extrapolation_value = rng.coin(0.5) ? 0.0 : 1.5;
    }
    const double v = rng.unit();
    DType dt = v < 0.4 ? DType::kFloat32 : v < 0.6 ? DType::kUInt8 : v < 0.68 ? DType::kFloat16
                     : v < 0.76 ? DType::kBFloat16 : v < 0.84 ? DType::kFloat64 : v < 0.9 ? DType::kInt32
                     : v < 0.95 ? DType::kInt16 : DType::kInt8;
    const int rank = static_cast<int>(rng.pick<int64_t>({1, 2, 3, 4, 4, 4}));
    Dims shape;
    for (int d = 0; d < rank; ++d) shape.push_back(rng.range(1, rank <= 2 ? 20 : 9));
    if (i % 12 == 9) shape = {1, 3, rng.range(60, 100), rng.range(80, 120)};
    // Which axes: every axis, or the last two (NCHW), or the middle ones (NHWC).
    int which = static_cast<int>(shape.size()) >= 3 ? static_cast<int>(rng.range(0, 2)) : 0;
    if (i % 4 == 1) {  // an NHWC image, float32 or uint8 (the fused rows' problem)
      dt = rng.coin(0.5) ? DType::kFloat32 : DType::kUInt8;
      shape = {rng.range(1, 2), rng.range(2, 16), rng.range(2, 16), rng.range(2, 4)};
      if (i % 24 == 1) shape = {1, rng.range(60, 90), rng.range(60, 90), 3};
      if (desc.mode == gridops::ResizeMode::kNearest) desc.mode = gridops::ResizeMode::kLinear;
      which = 2;
    }
    const int full = static_cast<int>(shape.size());
    Dims axes;
    if (which == 1) axes = {full - 2, full - 1};
    if (which == 2) axes = {1, full - 2};
    if (which == 2 && full == 3) axes = {1};
    if (!axes.empty() && rng.coin(0.3)) for (int64_t& a : axes) a -= full;  // negative axes
    desc.axes = axes;
    const size_t k = axes.empty() ? shape.size() : axes.size();
    const bool by_scales = rng.coin(0.5);
    for (size_t a = 0; a < k; ++a) {
      const int64_t len = shape[static_cast<size_t>(axes.empty() ? static_cast<int64_t>(a)
                                                                 : (axes[a] + full) % full)];
      if (by_scales) {
        desc.scales.push_back(rng.pick({0.5, 0.75, 1.0, 1.5, 2.0, 3.0, 0.3, 1.7}));
      } else {
        desc.sizes.push_back(std::max<int64_t>(1, rng.range(std::max<int64_t>(1, len / 2), len * 2 + 1)));
      }
    }
    if (!by_scales) {
      desc.aspect_policy = rng.pick({gridops::ResizeAspectPolicy::kStretch,
                                     gridops::ResizeAspectPolicy::kStretch,
                                     gridops::ResizeAspectPolicy::kNotLarger,
                                     gridops::ResizeAspectPolicy::kNotSmaller});
    }
    if (desc.coordinate_mode == ResizeCoordinateMode::kTfCropAndResize && rng.coin(0.7)) {
      for (size_t a = 0; a < k; ++a) desc.roi.push_back(rng.uniform(-0.2, 0.4));
      for (size_t a = 0; a < k; ++a) desc.roi.push_back(rng.uniform(0.6, 1.2));
    }
    Input src = make_input(rng, dt, shape, random_layout(rng, shape), -2, 2);
    auto dst_shape = gridops::resize_output_shape(desc, shape);
    const Layout dl = dst_shape.ok() ? random_layout(rng, *dst_shape, 0.6) : Layout{};
    std::ostringstream os;
    os << "mode=" << to_string(desc.mode) << " coord=" << to_string(desc.coordinate_mode)
       << " nearest=" << to_string(desc.nearest_mode) << " a=" << desc.cubic_coeff_a
       << " excl=" << desc.exclude_outside << " aa=" << desc.antialias << " dt=" << to_string(dt)
       << " shape=" << dims(shape) << " axes=" << dims(axes) << (by_scales ? " scales" : " sizes=")
       << (by_scales ? "" : dims(desc.sizes)) << " policy=" << to_string(desc.aspect_policy)
       << " roi=" << desc.roi.size() << " views=" << src.layout.tag << "," << dl.tag;
    drv.run_problem(op, kResizeEntries, i, os.str(), [&](const std::string& e, std::string* impl) {
      gridops::ResizeDesc d = desc;
      d.impl = e;
      auto plan = gridops::make_resize_plan(d, dt, shape);
      if (!plan.ok()) return drv.result(plan.status(), {});
      *impl = plan->impl_name();
      Output dst = make_output(dt, plan->dst_shape(), dl);
      return drv.result(plan->run(src.view, dst.view), {&dst.buf});
    });
  }
}

// --- Gather -------------------------------------------------------------------------------

const std::vector<std::string> kGatherEntries = {"gather.vector", "gather.slices", "ref"};

void run_gather(Driver& drv) {
  const std::string op = "gather";
  if (!drv.wanted(op)) return;
  for (int i = 0; i < 64; ++i) {
    Rng rng = drv.rng_for(op, i);
    const DType dt = rng.pick({DType::kFloat32, DType::kFloat32, DType::kUInt8, DType::kInt8,
                               DType::kFloat16, DType::kBFloat16, DType::kFloat64, DType::kInt64,
                               DType::kInt32, DType::kBool, DType::kComplex64, DType::kInt16});
    const DType it = rng.coin(0.5) ? DType::kInt32 : DType::kInt64;
    const int rank = static_cast<int>(rng.range(1, 4));
    Dims shape;
    for (int d = 0; d < rank; ++d) shape.push_back(rng.range(1, rank <= 2 ? 24 : 7));
    const int irank = static_cast<int>(rng.range(0, 2));
    Dims ishape;
    for (int d = 0; d < irank; ++d) ishape.push_back(rng.range(1, 9));
    int64_t axis = rng.range(-rank, rank - 1);
    if (i % 12 == 2) {
      shape = {rng.range(2000, 3000), rng.pick<int64_t>({1, 3, 64})};
      ishape = {rng.range(1500, 2500)};
      axis = 0;
    }
    const int64_t s = shape[static_cast<size_t>((axis + rank) % rank)];
    Input data = make_input(rng, dt, shape, random_layout(rng, shape), -3, 3);
    Input idx = make_input(rng, it, ishape, random_layout(rng, ishape, 0.6), 0, 0);
    // Valid indices in [-s, s-1] over the whole buffer.
    for (int64_t k = 0; k < idx.layout.elements; ++k) {
      put(it, idx.buf.data() + static_cast<size_t>(k) * gridops::dtype_size(it),
          static_cast<double>(rng.range(-s, s - 1)));
    }
    gridops::GatherDesc desc;
    desc.axis = axis;
    auto out_shape = gridops::gather_output_shape(desc, shape, ishape);
    const Layout dl = out_shape.ok() ? random_layout(rng, *out_shape, 0.6) : Layout{};
    std::ostringstream os;
    os << "dt=" << to_string(dt) << " idx=" << to_string(it) << " data=" << dims(shape)
       << " indices=" << dims(ishape) << " axis=" << axis << " views=" << data.layout.tag << ","
       << idx.layout.tag << "," << dl.tag;
    drv.run_problem(op, kGatherEntries, i, os.str(), [&](const std::string& e, std::string* impl) {
      gridops::GatherDesc d = desc;
      d.impl = e;
      auto plan = gridops::make_gather_plan(d, dt, shape, it, ishape);
      if (!plan.ok()) return drv.result(plan.status(), {});
      *impl = plan->impl_name();
      Output dst = make_output(dt, plan->dst_shape(), dl);
      return drv.result(plan->run(data.view, idx.view, dst.view), {&dst.buf});
    });
  }
}

// --- Pad ----------------------------------------------------------------------------------

const std::vector<std::string> kPadEntries = {"pad.lines", "pad.lines_vec", "pad.rows", "ref"};

void run_pad(Driver& drv) {
  const std::string op = "pad";
  if (!drv.wanted(op)) return;
  for (int i = 0; i < 84; ++i) {
    Rng rng = drv.rng_for(op, i);
    gridops::PadDesc desc;
    desc.mode = rng.pick({gridops::PadMode::kConstant, gridops::PadMode::kConstant,
                          gridops::PadMode::kEdge, gridops::PadMode::kReflect,
                          gridops::PadMode::kSymmetric, gridops::PadMode::kWrap});
    const DType dt = rng.pick({DType::kFloat32, DType::kFloat32, DType::kUInt8, DType::kUInt8,
                               DType::kInt16, DType::kFloat16, DType::kFloat64, DType::kInt64,
                               DType::kBool, DType::kComplex128, DType::kInt8});
    const int rank = static_cast<int>(rng.range(1, 4));
    Dims shape;
    for (int d = 0; d < rank; ++d) shape.push_back(rng.range(1, rank <= 2 ? 40 : 9));
    if (i % 12 == 4) shape = {1, rng.range(3, 8), rng.range(60, 100), rng.range(100, 140)};
    if (i % 12 == 10) shape = {rng.range(2, 4), rng.range(100, 140), rng.range(100, 140), 3};
    for (int64_t len : shape) {
      const int64_t lo = desc.mode == gridops::PadMode::kConstant ? -std::min<int64_t>(len, 3)
                                                                   : -std::min<int64_t>(len - 1, 2);
      const int64_t hi = desc.mode == gridops::PadMode::kReflect ? std::min<int64_t>(len - 1, 5)
                         : desc.mode == gridops::PadMode::kConstant || desc.mode == gridops::PadMode::kEdge ? 6
                                                                                      : std::min<int64_t>(len, 5);
      desc.pads_begin.push_back(rng.coin(0.2) ? 0 : rng.range(lo, hi));
      desc.pads_end.push_back(rng.coin(0.2) ? 0 : rng.range(lo, hi));
    }
    Input src = make_input(rng, dt, shape, random_layout(rng, shape), -3, 3);
    const bool with_value = desc.mode == gridops::PadMode::kConstant && rng.coin(0.5);
    Input value = make_input(rng, dt, {1}, contiguous_layout({1}), -3, 3);
    auto out_shape = gridops::pad_output_shape(desc, shape);
    const Layout dl = out_shape.ok() ? random_layout(rng, *out_shape, 0.6) : Layout{};
    std::ostringstream os;
    os << "mode=" << to_string(desc.mode) << " dt=" << to_string(dt) << " shape=" << dims(shape)
       << " begin=" << dims(desc.pads_begin) << " end=" << dims(desc.pads_end)
       << (with_value ? " value" : "") << " views=" << src.layout.tag << "," << dl.tag;
    drv.run_problem(op, kPadEntries, i, os.str(), [&](const std::string& e, std::string* impl) {
      gridops::PadDesc d = desc;
      d.impl = e;
      auto plan = gridops::make_pad_plan(d, dt, shape);
      if (!plan.ok()) return drv.result(plan.status(), {});
      *impl = plan->impl_name();
      Output dst = make_output(dt, plan->dst_shape(), dl);
      return drv.result(plan->run(src.view, dst.view, with_value ? &value.view : nullptr), {&dst.buf});
    });
  }
}

}  // namespace gridops_digest

namespace {

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  for (char ch : s) {
    if (ch == sep) { out.push_back(cur); cur.clear(); } else { cur += ch; }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

}  // namespace

using gridops_digest::Driver;
using gridops_digest::Status;

int main(int argc, char** argv) {
  unsetenv("GRIDOPS_IMPL");
  Driver drv;
  std::string cap;
  for (int a = 1; a < argc; ++a) {
    const std::string arg = argv[a];
    auto value = [&](const char* key) -> const char* {
      const size_t n = std::strlen(key);
      return arg.compare(0, n, key) == 0 ? argv[a] + n : nullptr;
    };
    if (const char* v = value("--max-isa=")) {
      cap = v;
    } else if (const char* v = value("--threads=")) {
      drv.opt.threads.clear();
      for (const std::string& t : split(v, ',')) drv.opt.threads.push_back(std::atoi(t.c_str()));
    } else if (const char* v = value("--ops=")) {
      drv.opt.ops = split(v, ',');
    } else if (const char* v = value("--seed=")) {
      drv.opt.seed = std::strtoull(v, nullptr, 0);
    } else if (const char* v = value("--extra=")) {
      const std::string s = v;
      const size_t colon = s.find(':');
      if (colon == std::string::npos) {
        std::fprintf(stderr, "--extra wants <op>:<entry>, got '%s'\n", v);
        return 2;
      }
      drv.opt.extra.emplace(s.substr(0, colon), s.substr(colon + 1));
    } else {
      std::fprintf(stderr,
                   "usage: %s [--max-isa=<level>] [--threads=1,2] [--ops=a,b] [--seed=N] "
                   "[--extra=<op>:<entry>]...\n",
                   argv[0]);
      return 2;
    }
  }
  if (!cap.empty()) {
    if (Status s = gridops::set_max_isa(cap); !s.ok()) {
      std::fprintf(stderr, "%s\n", s.to_string().c_str());
      return 2;
    }
  }
  std::printf("# gridops_output_digest seed=0x%" PRIx64 " cap=%s effective=%s\n", drv.opt.seed,
              gridops::max_isa().c_str(), gridops::effective_isa().c_str());
  using namespace gridops_digest;
  run_grid_sample(drv);
  run_grid_sample_backward(drv);
  run_affine_grid(drv);
  run_affine_grid_backward(drv);
  run_affine_warp(drv);
  run_resample(drv, false);
  run_resample(drv, true);
  run_resize(drv);
  run_gather(drv);
  run_pad(drv);
  run_grid_sample_ext(drv);
  std::printf("summary lines=%" PRId64 " ok=%" PRId64 " declined=%" PRId64 " errors=%" PRId64
              " digest=%016" PRIx64 "\n",
              drv.lines, drv.ok, drv.declined, drv.errors, drv.digest);
  return 0;
}
