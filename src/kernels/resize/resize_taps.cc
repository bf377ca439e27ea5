// The Resize tap tables: per output position, the input indices and double weights of
// its taps (resize_taps.h; docs/ops/resize.md, "Taps").
#include "kernels/resize/resize_taps.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

#include "core/coords.h"

namespace gridops::kernels {
namespace {

coords::ResizeCoord coord_of(ResizeCoordinateMode m) {
  return static_cast<coords::ResizeCoord>(static_cast<int>(m));
}

/// Appends tap (i clamped, w) to a table, merging it into the previous tap when both read
/// the same input index (edge replication folds every tap beyond an edge onto it).
void push_tap(ResizeAxisTable* tb, int64_t first, int64_t i, double w) {
  const int64_t c = coords::clamp_index(i, tb->in);
  if (static_cast<int64_t>(tb->idx.size()) > first && tb->idx.back() == c) {
    tb->w.back() += w;
    return;
  }
  tb->idx.push_back(c);
  tb->w.push_back(w);
}

/// The taps of output position o at input coordinate x (docs/ops/resize.md, "Taps").
void add_taps(const ResizeDesc& d, const ResizeAxis& ax, double x, ResizeAxisTable* tb) {
  const int64_t first = static_cast<int64_t>(tb->idx.size());
  const int64_t in = ax.in;
  const double f = std::floor(x);
  const double r = x - f;
  const int64_t fi = coords::to_index(f);
  if (d.mode == ResizeMode::kNearest) {
    int64_t i = fi;
    if (r != 0.0) {
      bool up = false;
      switch (d.nearest_mode) {
        case ResizeNearestMode::kRoundPreferFloor: up = r > 0.5; break;
        case ResizeNearestMode::kRoundPreferCeil: up = r >= 0.5; break;
        case ResizeNearestMode::kFloor: up = false; break;
        case ResizeNearestMode::kCeil: up = true; break;
        case ResizeNearestMode::kSimple: up = ax.scale < 1.0; break;
      }
      if (up) ++i;
    }
    push_tap(tb, first, i, 1.0);
    return;
  }
  const bool linear = d.mode == ResizeMode::kLinear;
  if (!d.antialias || ax.scale >= 1.0) {
    if (r == 0.0) {
      push_tap(tb, first, fi, 1.0);
    } else if (linear) {
      if (!(d.exclude_outside && (fi < 0 || fi >= in))) push_tap(tb, first, fi, 1.0 - r);
      if (!(d.exclude_outside && (fi + 1 < 0 || fi + 1 >= in))) push_tap(tb, first, fi + 1, r);
    } else {
      const double a = d.cubic_coeff_a;
      const double w[4] = {coords::keys_cubic(r + 1.0, a), coords::keys_cubic(r, a),
                           coords::keys_cubic(1.0 - r, a), coords::keys_cubic(2.0 - r, a)};
      for (int k = 0; k < 4; ++k) {
        const int64_t j = fi - 1 + k;
        if (d.exclude_outside && (j < 0 || j >= in)) continue;
        push_tap(tb, first, j, w[k]);
      }
    }
  } else {
    // Antialias: the kernel stretched by 1/scale, normalized to sum 1.
    const double s = ax.scale;
    const double support = (linear ? 1.0 : 2.0) / s;
    // Every tap with |j - x| < support; the window never leaves [-support - 1, in + support]
    // because x lies in [-0.5, in), and folding the taps beyond an edge keeps it <= in + 2.
    const int64_t lo = coords::to_index(std::ceil(x - support));
    const int64_t hi = coords::to_index(std::floor(x + support));
    double sum = 0.0;
    for (int64_t j = lo; j <= hi; ++j) {
      const double arg = s * (static_cast<double>(j) - x);
      const double w = linear ? coords::tent(arg) : coords::keys_cubic(arg, d.cubic_coeff_a);
      if (w == 0.0) continue;
      sum += w;
      if (d.exclude_outside && (j < 0 || j >= in)) continue;
      push_tap(tb, first, j, w);
    }
    if (!d.exclude_outside && sum != 0.0) {
      for (size_t k = static_cast<size_t>(first); k < tb->w.size(); ++k) tb->w[k] /= sum;
    }
  }
  if (d.exclude_outside) {
    double sum = 0.0;
    for (size_t k = static_cast<size_t>(first); k < tb->w.size(); ++k) sum += tb->w[k];
    if (sum != 0.0) {
      for (size_t k = static_cast<size_t>(first); k < tb->w.size(); ++k) tb->w[k] /= sum;
    }
  }
}

}  // namespace

bool resize_axis_table(const ResizeDesc& d, const ResizeAxis& ax, int axis, ResizeAxisTable* tb) {
  tb->axis = axis;
  tb->in = ax.in;
  tb->out = ax.out;
  tb->begin.reserve(static_cast<size_t>(ax.out) + 1);
  const coords::ResizeCoord cm = coord_of(d.coordinate_mode);
  bool identity = ax.in == ax.out;
  for (int64_t o = 0; o < ax.out; ++o) {
    tb->begin.push_back(static_cast<int64_t>(tb->idx.size()));
    bool outside = false;
    const double x = coords::resize_coordinate(cm, o, ax.in, ax.out, ax.scale, ax.length,
                                               ax.roi_start, ax.roi_end, &outside);
    if (outside) {
      if (tb->outside.empty()) tb->outside.assign(static_cast<size_t>(ax.out), 0);
      tb->outside[static_cast<size_t>(o)] = 1;
      tb->any_outside = true;
      identity = false;
      continue;
    }
    const size_t before = tb->idx.size();
    add_taps(d, ax, x, tb);
    const size_t n = tb->idx.size() - before;
    tb->max_taps = std::max<int64_t>(tb->max_taps, static_cast<int64_t>(n));
    if (identity && !(n == 1 && tb->idx[before] == o && tb->w[before] == 1.0)) identity = false;
  }
  tb->begin.push_back(static_cast<int64_t>(tb->idx.size()));
  return !identity;
}


void resize_full_axis_table(const ResizeDesc& d, const ResizeAxis& ax, int a, ResizeAxisTable* tb,
                            bool* identity) {
  *identity = !(ax.resized && resize_axis_table(d, ax, a, tb));
  if (*identity) {
    *tb = ResizeAxisTable();
    tb->axis = a;
    tb->in = ax.in;
    tb->out = ax.out;
    tb->max_taps = ax.out > 0 ? 1 : 0;
    for (int64_t o = 0; o < ax.out; ++o) {
      tb->begin.push_back(o);
      tb->idx.push_back(o);
      tb->w.push_back(1.0);
    }
    tb->begin.push_back(ax.out);
  }
}

std::pair<int64_t, int64_t> resize_tap_range(const ResizeAxisTable& tb, int64_t ob, int64_t oe) {
  int64_t lo = INT64_MAX, hi = -1;
  for (int64_t o = ob; o < oe; ++o) {
    for (int64_t t = tb.begin[static_cast<size_t>(o)]; t < tb.begin[static_cast<size_t>(o) + 1]; ++t) {
      lo = std::min(lo, tb.idx[static_cast<size_t>(t)]);
      hi = std::max(hi, tb.idx[static_cast<size_t>(t)]);
    }
  }
  if (hi < 0) return {0, 0};
  return {lo, hi + 1};
}

ResizeAxisTable resize_window_axis_table(const ResizeAxisTable& full, int axis, int64_t io,
                                         int64_t is, int64_t ob, int64_t os) {
  ResizeAxisTable tb;
  tb.axis = axis;
  tb.in = is;
  tb.out = os;
  for (int64_t o = ob; o < ob + os; ++o) {
    tb.begin.push_back(static_cast<int64_t>(tb.idx.size()));
    const int64_t t0 = full.begin[static_cast<size_t>(o)], t1 = full.begin[static_cast<size_t>(o) + 1];
    for (int64_t t = t0; t < t1; ++t) {
      tb.idx.push_back(full.idx[static_cast<size_t>(t)] - io);
      tb.w.push_back(full.w[static_cast<size_t>(t)]);
    }
    tb.max_taps = std::max(tb.max_taps, t1 - t0);
    if (!full.outside.empty() && full.outside[static_cast<size_t>(o)] != 0) {
      if (tb.outside.empty()) tb.outside.assign(static_cast<size_t>(os), 0);
      tb.outside[static_cast<size_t>(o - ob)] = 1;
      tb.any_outside = true;
    }
  }
  tb.begin.push_back(static_cast<int64_t>(tb.idx.size()));
  return tb;
}

}  // namespace gridops::kernels
