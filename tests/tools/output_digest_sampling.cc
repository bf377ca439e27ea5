// gridops_output_digest's problem sets for GridSample (forward, backward), AffineGrid
// (forward, backward) and AffineWarp; see output_digest.cc.
#include <sstream>
#include <string>
#include <vector>

#include "tools/output_digest.h"

namespace gridops_digest {

// --- GridSample -------------------------------------------------------------------------

const std::vector<std::string> kGridSampleEntries = {
    "grid_sample.u8_few_channels", "grid_sample.blocked", "grid_sample.fused_small_c",
    "grid_sample.pairs", "grid_sample.channels", "grid_sample.generic", "ref"};
const std::vector<std::string> kGridSampleBackwardEntries = {"grid_sample_backward.bands", "ref"};

struct GridSampleCase {
  gridops::GridSampleDesc desc;
  DType src_dt, grid_dt;
  Dims src_shape, grid_shape, dst_shape;
  int r;
  std::string what;
};

/// p_fast: the probability of a channels-first float32 src (what most fast paths take).
GridSampleCase grid_sample_case(Rng& rng, int index, bool backward, double p_fast) {
  GridSampleCase c;
  const double u = rng.unit();
  c.r = u < 0.15 ? 1 : u < 0.7 ? 2 : 3;
  c.desc.mode = rng.pick({gridops::InterpolationMode::kLinear, gridops::InterpolationMode::kNearest,
                          gridops::InterpolationMode::kCubic});
  c.desc.padding = rng.pick({gridops::GridPadding::kZeros, gridops::GridPadding::kBorder,
                             gridops::GridPadding::kReflection});
  c.desc.align_corners = rng.range(0, 1);
  c.desc.layout = rng.coin(0.35) ? gridops::ChannelLayout::kChannelsLast
                                 : gridops::ChannelLayout::kChannelsFirst;
  c.src_dt = pick_float(rng);
  if (rng.coin(p_fast)) {
    c.src_dt = DType::kFloat32;
    c.desc.layout = gridops::ChannelLayout::kChannelsFirst;
  } else if (!backward && rng.coin(0.18)) {
    c.src_dt = DType::kUInt8;
    c.r = 2;
  }
  c.grid_dt = rng.coin(0.7) ? DType::kFloat32 : pick_float(rng);
  int64_t n = rng.range(1, 2);
  int64_t ch = rng.pick<int64_t>({1, 2, 3, 4, 5, 8, 16});
  const int64_t max_in = c.r == 1 ? 24 : c.r == 2 ? 12 : 6;
  Dims in(static_cast<size_t>(c.r)), out(static_cast<size_t>(c.r));
  for (int d = 0; d < c.r; ++d) {
    in[static_cast<size_t>(d)] = rng.range(1, max_in);
    out[static_cast<size_t>(d)] = rng.range(1, max_in);
  }
  if (!backward && index % 8 == 3) {  // the uint8 few-channel path's problem
    c.src_dt = DType::kUInt8;
    c.grid_dt = DType::kFloat32;
    c.r = 2;
    ch = rng.range(1, 4);
    if (c.desc.mode == gridops::InterpolationMode::kCubic) c.desc.mode = gridops::InterpolationMode::kLinear;
    in = {rng.range(1, 12), rng.range(1, 12)};
    out = {rng.range(1, 12), rng.range(1, 12)};
  }
  if (index % 12 == 5) {  // big enough for the threaded fast paths
    n = 1;
    ch = rng.pick<int64_t>({3, 16});
    c.r = 2;
    in = {rng.range(60, 80), rng.range(60, 90)};
    out = {rng.range(60, 80), rng.range(60, 90)};
  }
  const bool last = c.desc.layout == gridops::ChannelLayout::kChannelsLast;
  c.src_shape = {n};
  if (!last) c.src_shape.push_back(ch);
  c.src_shape.insert(c.src_shape.end(), in.begin(), in.end());
  if (last) c.src_shape.push_back(ch);
  c.grid_shape = {n};
  c.grid_shape.insert(c.grid_shape.end(), out.begin(), out.end());
  c.grid_shape.push_back(c.r);
  c.dst_shape = {n};
  if (!last) c.dst_shape.push_back(ch);
  c.dst_shape.insert(c.dst_shape.end(), out.begin(), out.end());
  if (last) c.dst_shape.push_back(ch);
  std::ostringstream os;
  os << "r=" << c.r << " mode=" << to_string(c.desc.mode) << " pad=" << to_string(c.desc.padding)
     << " ac=" << c.desc.align_corners << " " << to_string(c.desc.layout)
     << " src=" << to_string(c.src_dt) << ":" << dims(c.src_shape) << " grid=" << to_string(c.grid_dt)
     << ":" << dims(c.grid_shape);
  c.what = os.str();
  return c;
}

/// One forward problem through every listed entry and the automatic choice, into dst
/// buffers of layout dl.
void forward_problem(Driver& drv, const std::string& op, int i, const std::string& what,
                     const GridSampleCase& c, const Input& src, const Input& grid,
                     const Layout& dl) {
  drv.run_problem(op, kGridSampleEntries, i, what, [&](const std::string& e, std::string* impl) {
    gridops::GridSampleDesc d = c.desc;
    d.impl = e;
    auto plan = gridops::make_grid_sample_plan(d, c.src_dt, c.src_shape, c.grid_dt, c.grid_shape);
    if (!plan.ok()) return drv.result(plan.status(), {});
    *impl = plan->impl_name();
    Output dst = make_output(c.src_dt, plan->dst_shape(), dl);
    return drv.result(plan->run(src.view, grid.view, dst.view), {&dst.buf});
  });
}

/// One backward problem the same way, the gradients asked for into layouts gsl and ggl.
void backward_problem(Driver& drv, const std::string& op, int i, const std::string& what,
                      const GridSampleCase& c, const Input& gdst, const Input& src,
                      const Input& grid, const Layout& gsl, const Layout& ggl, bool want_src,
                      bool want_grid) {
  drv.run_problem(op, kGridSampleBackwardEntries, i, what,
                  [&](const std::string& e, std::string* impl) {
    gridops::GridSampleDesc d = c.desc;
    d.impl = e;
    auto plan = gridops::make_grid_sample_backward_plan(d, c.src_dt, c.src_shape, c.grid_dt,
                                                        c.grid_shape);
    if (!plan.ok()) return drv.result(plan.status(), {});
    *impl = plan->impl_name();
    Output gs = make_output(c.src_dt, c.src_shape, gsl);
    Output gg = make_output(c.grid_dt, c.grid_shape, ggl);
    Status s = plan->run(gdst.view, src.view, grid.view, want_src ? &gs.view : nullptr,
                         want_grid ? &gg.view : nullptr);
    return drv.result(s, {&gs.buf, &gg.buf});
  });
}

void run_grid_sample(Driver& drv) {
  const std::string op = "grid_sample";
  if (!drv.wanted(op)) return;
  for (int i = 0; i < 96; ++i) {
    Rng rng = drv.rng_for(op, i);
    GridSampleCase c = grid_sample_case(rng, i, false, 0.25);
    const int q = rng.coin(0.4) ? 32 : 0;
    Input src = make_input(rng, c.src_dt, c.src_shape, random_layout(rng, c.src_shape), -2, 2);
    Input grid = make_input(rng, c.grid_dt, c.grid_shape, random_layout(rng, c.grid_shape, 0.6),
                            -1.25, 1.25, q);
    const Layout dl = random_layout(rng, c.dst_shape, 0.6);
    const std::string what = c.what + " views=" + src.layout.tag + "," + grid.layout.tag + "," +
                             dl.tag + (q ? " q" : "");
    forward_problem(drv, op, i, what, c, src, grid, dl);
  }
}

void run_grid_sample_backward(Driver& drv) {
  const std::string op = "grid_sample_backward";
  if (!drv.wanted(op)) return;
  for (int i = 0; i < 64; ++i) {
    Rng rng = drv.rng_for(op, i);
    GridSampleCase c = grid_sample_case(rng, i, true, 0.2);
    const int q = rng.coin(0.4) ? 32 : 0;
    Input src = make_input(rng, c.src_dt, c.src_shape, random_layout(rng, c.src_shape), -2, 2);
    Input grid = make_input(rng, c.grid_dt, c.grid_shape, random_layout(rng, c.grid_shape, 0.6),
                            -1.25, 1.25, q);
    Input gdst = make_input(rng, c.src_dt, c.dst_shape, random_layout(rng, c.dst_shape), -1, 1);
    const Layout gsl = random_layout(rng, c.src_shape, 0.6);
    const Layout ggl = random_layout(rng, c.grid_shape, 0.6);
    const int want = static_cast<int>(rng.range(0, 4));  // 0-2: both, 3: src only, 4: grid only
    const bool want_src = want != 4, want_grid = want != 3;
    const std::string what = c.what + " views=" + src.layout.tag + "," + grid.layout.tag + "," +
                             gdst.layout.tag + "," + gsl.tag + "," + ggl.tag +
                             " want=" + (want_src ? "s" : "") + (want_grid ? "g" : "") +
                             (q ? " q" : "");
    backward_problem(drv, op, i, what, c, gdst, src, grid, gsl, ggl, want_src, want_grid);
  }
}

/// GridSample's extensions (issue 51): wrap, constant and fill paddings, pixel units and
/// displacement grids, forward and backward, over the same problem shapes as above. Its own
/// random stream ("grid_sample_ext"), so the lines of the other sets do not move.
void run_grid_sample_ext(Driver& drv) {
  const std::string op = "grid_sample_ext";
  if (!drv.wanted(op)) return;
  for (int i = 0; i < 96; ++i) {
    Rng rng = drv.rng_for(op, i);
    const bool backward = i % 3 == 2;
    GridSampleCase c = grid_sample_case(rng, i, backward, 0.3);
    c.desc.padding = rng.pick({gridops::GridPadding::kWrap, gridops::GridPadding::kConstant,
                               gridops::GridPadding::kFill, gridops::GridPadding::kZeros,
                               gridops::GridPadding::kReflection});
    c.desc.units = rng.coin(0.4) ? gridops::GridUnits::kPixels : gridops::GridUnits::kNormalized;
    c.desc.kind = rng.coin(0.4) ? gridops::GridKind::kDisplacement : gridops::GridKind::kAbsolute;
    const double fill = c.src_dt == DType::kUInt8 ? static_cast<double>(rng.range(0, 255))
                                                  : static_cast<double>(rng.range(-8, 8)) * 0.25;
    if (c.desc.padding == gridops::GridPadding::kConstant ||
        c.desc.padding == gridops::GridPadding::kFill) {
      c.desc.fill_value = fill;
    }
    const double span = c.desc.units == gridops::GridUnits::kPixels ? 14.0 : 1.25;
    const double lo = c.desc.kind == gridops::GridKind::kDisplacement ? -span / 3 : -span;
    const double hi = c.desc.kind == gridops::GridKind::kDisplacement ? span / 3 : span;
    Input src = make_input(rng, c.src_dt, c.src_shape, random_layout(rng, c.src_shape), -2, 2);
    Input grid = make_input(rng, c.grid_dt, c.grid_shape, random_layout(rng, c.grid_shape, 0.6),
                            lo, hi, rng.coin(0.4) ? 32 : 0);
    const std::string what = c.what.substr(0, c.what.find(" pad=")) +
                             c.what.substr(c.what.find(" ac=")) + " ext=" + to_string(c.desc.padding) + "," +
                             to_string(c.desc.units) + "," + to_string(c.desc.kind) +
                             (backward ? " backward" : "") + " views=" + src.layout.tag + "," +
                             grid.layout.tag;
    if (!backward) {
      const Layout dl = random_layout(rng, c.dst_shape, 0.6);
      forward_problem(drv, op, i, what + "," + dl.tag, c, src, grid, dl);
      continue;
    }
    Input gdst = make_input(rng, c.src_dt, c.dst_shape, random_layout(rng, c.dst_shape), -1, 1);
    const Layout gsl = random_layout(rng, c.src_shape, 0.6);
    const Layout ggl = random_layout(rng, c.grid_shape, 0.6);
    backward_problem(drv, op, i, what, c, gdst, src, grid, gsl, ggl, true, true);
  }
}

// --- AffineGrid ---------------------------------------------------------------------------

const std::vector<std::string> kAffineGridEntries = {"affine_grid.rows", "ref"};
const std::vector<std::string> kAffineGridBackwardEntries = {"affine_grid_backward.row_sums",
                                                             "ref"};

struct AffineGridCase {
  int64_t ac;
  DType dt;
  Dims theta_shape, size, grid_shape;
  std::string what;
};

AffineGridCase affine_grid_case(Rng& rng, int index) {
  AffineGridCase c;
  const int r = rng.coin(0.6) ? 2 : 3;
  c.ac = rng.range(0, 1);
  c.dt = pick_float(rng);
  const int64_t n = rng.range(1, 3);
  c.theta_shape = {n, r, r + 1};
  c.size = {n, rng.range(1, 3)};
  for (int d = 0; d < r; ++d) c.size.push_back(rng.range(1, r == 2 ? 40 : 12));
  if (index % 10 == 3) c.size = r == 2 ? Dims{n, 1, rng.range(150, 260), rng.range(150, 260)}
                                       : Dims{n, 1, rng.range(20, 32), rng.range(20, 40), rng.range(20, 40)};
  c.grid_shape = {n};
  c.grid_shape.insert(c.grid_shape.end(), c.size.begin() + 2, c.size.end());
  c.grid_shape.push_back(r);
  c.what = std::string("ac=") + std::to_string(c.ac) + " dt=" + to_string(c.dt) +
           " theta=" + dims(c.theta_shape) + " size=" + dims(c.size);
  return c;
}

void run_affine_grid(Driver& drv) {
  const std::string op = "affine_grid";
  if (!drv.wanted(op)) return;
  for (int i = 0; i < 60; ++i) {
    Rng rng = drv.rng_for(op, i);
    AffineGridCase c = affine_grid_case(rng, i);
    Input theta = make_input(rng, c.dt, c.theta_shape, random_layout(rng, c.theta_shape), -1.5, 1.5,
                             rng.coin(0.3) ? 8 : 0);
    const Layout gl = random_layout(rng, c.grid_shape, 0.5);
    drv.run_problem(op, kAffineGridEntries, i, c.what + " views=" + theta.layout.tag + "," + gl.tag,
                    [&](const std::string& e, std::string* impl) {
      gridops::AffineGridDesc d;
      d.align_corners = c.ac;
      d.impl = e;
      auto plan = gridops::make_affine_grid_plan(d, c.dt, c.theta_shape, c.size);
      if (!plan.ok()) return drv.result(plan.status(), {});
      *impl = plan->impl_name();
      Output g = make_output(c.dt, plan->grid_shape(), gl);
      return drv.result(plan->run(theta.view, g.view), {&g.buf});
    });
  }
}

void run_affine_grid_backward(Driver& drv) {
  const std::string op = "affine_grid_backward";
  if (!drv.wanted(op)) return;
  for (int i = 0; i < 50; ++i) {
    Rng rng = drv.rng_for(op, i);
    AffineGridCase c = affine_grid_case(rng, i);
    Input gg = make_input(rng, c.dt, c.grid_shape, random_layout(rng, c.grid_shape), -1, 1,
                          rng.coin(0.3) ? 16 : 0);
    const Layout tl = random_layout(rng, c.theta_shape, 0.5);
    drv.run_problem(op, kAffineGridBackwardEntries, i, c.what + " views=" + gg.layout.tag + "," + tl.tag,
                    [&](const std::string& e, std::string* impl) {
      gridops::AffineGridDesc d;
      d.align_corners = c.ac;
      d.impl = e;
      auto plan = gridops::make_affine_grid_backward_plan(d, c.dt, c.theta_shape, c.size);
      if (!plan.ok()) return drv.result(plan.status(), {});
      *impl = plan->impl_name();
      Output t = make_output(c.dt, c.theta_shape, tl);
      return drv.result(plan->run(gg.view, t.view), {&t.buf});
    });
  }
}

// --- AffineWarp ---------------------------------------------------------------------------

const std::vector<std::string> kAffineWarpEntries = {"affine_warp.fused", "ref"};

void run_affine_warp(Driver& drv) {
  const std::string op = "affine_warp";
  if (!drv.wanted(op)) return;
  for (int i = 0; i < 72; ++i) {
    Rng rng = drv.rng_for(op, i);
    GridSampleCase c = grid_sample_case(rng, i, false, 0.5);
    const int r = c.r;
    const int64_t n = c.src_shape[0];
    const DType theta_dt = rng.coin(0.75) ? DType::kFloat32 : pick_float(rng);
    const Dims theta_shape = {n, r, r + 1};
    Dims size(c.grid_shape.begin() + 1, c.grid_shape.end() - 1);
    // Near the identity (most taps inside) or anything.
    Input theta = make_input(rng, theta_dt, theta_shape, random_layout(rng, theta_shape), -0.3, 0.3,
                             rng.coin(0.3) ? 16 : 0);
    if (rng.coin(0.7)) {
      for (int64_t b = 0; b < n; ++b) {
        for (int k = 0; k < r; ++k) {
          const int64_t idx[3] = {b, k, k};
          void* p = const_cast<void*>(theta.view.element_ptr(idx));
          put(theta_dt, p, rng.uniform(0.7, 1.3));
        }
      }
    }
    Input src = make_input(rng, c.src_dt, c.src_shape, random_layout(rng, c.src_shape), -2, 2);
    const Layout dl = random_layout(rng, c.dst_shape, 0.6);
    const std::string what = c.what + " theta=" + to_string(theta_dt) + " views=" + src.layout.tag +
                             "," + theta.layout.tag + "," + dl.tag;
    drv.run_problem(op, kAffineWarpEntries, i, what, [&](const std::string& e, std::string* impl) {
      gridops::AffineWarpDesc d;
      d.mode = c.desc.mode;
      d.padding = c.desc.padding;
      d.align_corners = c.desc.align_corners;
      d.layout = c.desc.layout;
      d.impl = e;
      auto plan = gridops::make_affine_warp_plan(d, c.src_dt, c.src_shape, theta_dt, theta_shape, size);
      if (!plan.ok()) return drv.result(plan.status(), {});
      *impl = plan->impl_name();
      Output dst = make_output(c.src_dt, plan->dst_shape(), dl);
      return drv.result(plan->run(src.view, theta.view, dst.view), {&dst.buf});
    });
  }
}

}  // namespace gridops_digest
