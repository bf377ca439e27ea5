// AxisStep, step 2 of NOTE [ GridSample fast path ] (grid_sample_hwy-inl.h) for one axis:
// the padded tap indices and weights of a vector of grid values. Included once per Highway
// target by grid_sample_hwy-inl.h, after its vector types and Ctx.
#if defined(GRIDOPS_KERNELS_GRID_SAMPLE_AXIS_STEP_HWY_INL_H_) == defined(HWY_TARGET_TOGGLE)  // NOLINT
#ifdef GRIDOPS_KERNELS_GRID_SAMPLE_AXIS_STEP_HWY_INL_H_
#undef GRIDOPS_KERNELS_GRID_SAMPLE_AXIS_STEP_HWY_INL_H_
#else
#define GRIDOPS_KERNELS_GRID_SAMPLE_AXIS_STEP_HWY_INL_H_
#endif

#include <cmath>
#include <cstdint>

#include <hwy/highway.h>

#include "core/coords_hwy-inl.h"
#include "kernels/grid_sample/grid_sample.h"
#include "kernels/grid_sample/grid_sample_fast.h"

HWY_BEFORE_NAMESPACE();
namespace gridops::kernels::grid_sample_simd {
namespace HWY_NAMESPACE {

/// Step 2 for one axis and one vector of points: the K padded tap indices and weights of
/// grid values g (unnormalized first unless the grid is in pixels; padded: zeros -> index 0 and weight 0 when outside, border -> clamp,
/// reflection -> period reduction in float, exact below 2^24). Lanes whose coordinate is
/// non-finite or has |x| >= 2^22 are recomputed alone with grid_sample_axis_taps_exact;
/// every lane's result depends on its own coordinate only, so any grouping of points
/// into vectors gives the same bits.
class AxisStep {
 public:
  AxisStep(const Ctx& c, int d)
      : mode_(c.mode),
        padding_(c.padding),
        align_(c.align_corners),
        pixels_(c.pixels),
        K_(c.K),
        len_(c.len[d]),
        L_(static_cast<float>(len_)),
        Lm1_(static_cast<float>(len_ - 1)),
        len_i_(static_cast<int32_t>(len_)),
        lenm1_i_(static_cast<int32_t>(len_ - 1)),
        windowed_(c.windowed),
        org_i_(static_cast<int32_t>(c.origin[d])),
        extm1_i_(static_cast<int32_t>(c.ext[d] - 1)) {
    // The interior test: every tap of x inside src's box [origin, origin + ext - 1] for
    // x in [in_lo_, in_hi_] (nearest) or [in_lo_, in_hi_) (linear, cubic). Exact floats:
    // the sizes are below 2^22.
    const int64_t first = c.origin[d], last = c.origin[d] + c.ext[d] - 1;
    const int64_t below = K_ == 4 ? 1 : 0, above = K_ == 4 ? 2 : K_ == 2 ? 1 : 0;
    in_lo_ = VecConst<DF>(static_cast<float>(first + below));
    in_hi_ = VecConst<DF>(static_cast<float>(last - above + (K_ == 1 ? 0 : 1)));
    // Reflection: period and whether the axis degenerates to index 0 (reflect with len 1).
    refl_single_ = padding_ == GridPadding::kReflection && align_ && len_ == 1;
    const int64_t period = padding_ == GridPadding::kWrap ? len_
                           : align_                       ? 2 * (len_ - 1)
                                                          : 2 * len_;
    per_f_ = VecConst<DF>(static_cast<float>(period > 0 ? period : 1));
    inv_per_ = VecConst<DF>(1.0f / static_cast<float>(period > 0 ? period : 1));
    per_i_ = VecConst<DI>(static_cast<int32_t>(period > 0 ? period : 1));
    per_m1_i_ = VecConst<DI>(static_cast<int32_t>(period - 1));
  }

  HWY_INLINE void operator()(VF gv, VI4& iv_out, VF4& wv_out) const { Taps<0>(gv, iv_out, wv_out); }

  /// As operator(), with kK taps per axis known at compile time (1 nearest, 2 linear, 4
  /// cubic; 0: the plan's, K_): the loops over taps unroll and the tap arrays can stay in
  /// registers (with K_ they live in memory). Same operations, same bits.
  template <int kK>
  HWY_INLINE void Taps(VF gv, VI4& iv_out, VF4& wv_out) const {
    const DF df;
    const DI di;
    const VF x = pixels_ ? gv : gc::UnnormalizeV(df, gv, L_.Get(), Lm1_.Get(), align_);
    if (Interior<kK>(x, iv_out, wv_out)) return;
    Vector<kK>(x, iv_out, wv_out);
    const auto nice = hn::Lt(hn::Abs(x), hn::Set(df, 4194304.0f));  // 2^22; false for NaN, inf
    if (HWY_UNLIKELY(!hn::AllTrue(df, nice))) {
      // Those lanes again, each alone, with the reference's scalar formulas (the other
      // lanes keep the vector results, so a lane never depends on its neighbours).
      constexpr size_t kMax = hn::MaxLanes(df);
      HWY_ALIGN float xs[kMax];
      HWY_ALIGN int32_t ii[4][kMax];
      HWY_ALIGN float ww[4][kMax];
      hn::Store(x, df, xs);
      for (int k = 0; k < K(kK); ++k) {
        hn::Store(iv_out[k], di, ii[k]);
        hn::Store(wv_out[k], df, ww[k]);
      }
      for (size_t l = 0; l < hn::Lanes(df); ++l) {
        if (std::fabs(xs[l]) < 4194304.0f) continue;
        int32_t i4[4];
        float w4[4];
        grid_sample_axis_taps_exact(mode_, padding_, align_, xs[l], len_, i4, w4);
        for (int k = 0; k < K(kK); ++k) {
          ii[k][l] = i4[k];
          ww[k][l] = w4[k];
        }
      }
      for (int k = 0; k < K(kK); ++k) {
        iv_out[k] = hn::Load(di, ii[k]);
        wv_out[k] = hn::Load(df, ww[k]);
      }
    }
    if (windowed_) {
      // Full indices to src's box. Taps with a nonzero weight (and the zero-weight ones
      // inside the full input) are inside it (checked by the operator layer), so the clamp
      // moves only zeros-padding taps outside the full input (index 0, weight 0).
      for (int k = 0; k < K(kK); ++k) {
        iv_out[k] = hn::Min(hn::Max(hn::Sub(iv_out[k], org_i_.Get()), hn::Zero(di)), extm1_i_.Get());
      }
    }
  }

 private:
  /// The taps per axis: kK where known at compile time, else the plan's.
  HWY_INLINE int K(int kK) const { return kK > 0 ? kK : K_; }
  /// The mode, from kK where known at compile time.
  HWY_INLINE bool Nearest(int kK) const {
    return kK > 0 ? kK == 1 : mode_ == InterpolationMode::kNearest;
  }
  HWY_INLINE bool Linear(int kK) const {
    return kK > 0 ? kK == 2 : mode_ == InterpolationMode::kLinear;
  }

  /// NOTE [ GridSample interior vectors ]: when every lane's taps lie inside src's box
  /// (false for NaN, infinities and huge values), no padding, redo or clamp changes
  /// anything: the taps are the vector formulas' indices minus the box origin, with the
  /// weights unmasked. Same values as the general path (which would find every tap
  /// inside); returns false, computing nothing, otherwise.
  template <int kK>
  HWY_INLINE bool Interior(VF x, VI4& iv_out, VF4& wv_out) const {
    const DF df;
    const DI di;
    const auto below_hi = K(kK) == 1 ? hn::Le(x, in_hi_.Get()) : hn::Lt(x, in_hi_.Get());
    if (!hn::AllTrue(df, hn::And(hn::Ge(x, in_lo_.Get()), below_hi))) return false;
    if (Nearest(kK)) {
      iv_out[0] = hn::Sub(hn::ConvertTo(di, hn::Round(x)), org_i_.Get());
      wv_out[0] = hn::Set(df, 1.0f);
      return true;
    }
    const VF f = hn::Floor(x);
    const VF t = hn::Sub(x, f);
    const VI i0 = hn::Sub(hn::ConvertTo(di, f), org_i_.Get());
    if (Linear(kK)) {
      wv_out[0] = hn::Sub(hn::Set(df, 1.0f), t);
      wv_out[1] = t;
      iv_out[0] = i0;
      iv_out[1] = hn::Add(i0, hn::Set(di, 1));
      return true;
    }
    gc::CubicWeightsV(df, t, wv_out);
    for (int k = 0; k < 4; ++k) iv_out[k] = hn::Add(i0, hn::Set(di, k - 1));
    return true;
  }

  /// The taps of unnormalized coordinates x by the vector formulas (meaningless in lanes
  /// where x is not finite or |x| >= 2^22; operator() redoes those).
  template <int kK>
  HWY_INLINE void Vector(VF x, VI4& iv_out, VF4& wv_out) const {
    const DF df;
    const DI di;
    const VF one = hn::Set(df, 1.0f);
    if (Nearest(kK)) {
      const VI i = hn::ConvertTo(di, hn::Round(x));  // ties to even, like round_half_even
      auto inside = hn::FirstN(di, hn::Lanes(di));
      iv_out[0] = Pad(i, &inside);
      wv_out[0] = hn::IfThenElseZero(hn::RebindMask(df, inside), one);
      return;
    }
    const VF f = hn::Floor(x);
    const VF t = hn::Sub(x, f);
    const VI i0 = hn::ConvertTo(di, f);
    VF4 wv;
    VI4 iv;
    if (Linear(kK)) {
      wv[0] = hn::Sub(one, t);
      wv[1] = t;
      iv[0] = i0;
      iv[1] = hn::Add(i0, hn::Set(di, 1));
    } else {
      gc::CubicWeightsV(df, t, wv);  // coords::cubic_weights
      for (int k = 0; k < 4; ++k) iv[k] = hn::Add(i0, hn::Set(di, k - 1));
    }
    for (int k = 0; k < K(kK); ++k) {
      auto inside = hn::FirstN(di, hn::Lanes(di));
      iv_out[k] = Pad(iv[k], &inside);
      const VF wk = wv[k];
      wv_out[k] = padding_ == GridPadding::kZeros
                      ? hn::IfThenElseZero(hn::RebindMask(df, inside), wk)
                      : wk;
    }
  }

  // i modulo the period (reflection's or wrap's) in [0, period), by the reduction in float
  // (exact: |values| < 2^24).
  HWY_INLINE VI ReducePeriod(VI i) const {
    const DF df;
    const DI di;
    const VF fi = hn::ConvertTo(df, i);
    const VF q = hn::Floor(hn::Mul(fi, inv_per_.Get()));
    VI m = hn::ConvertTo(di, hn::Sub(fi, hn::Mul(q, per_f_.Get())));
    const VI per_i = per_i_.Get();
    m = hn::IfThenElse(hn::Lt(m, hn::Zero(di)), hn::Add(m, per_i), m);
    return hn::IfThenElse(hn::Gt(m, per_m1_i_.Get()), hn::Sub(m, per_i), m);
  }

  // Pads integer tap indices, the vector form of coords::grid_pad_index (int32, |i| < 2^24:
  // zeros -> index 0 when outside, border -> clamp, reflection and wrap -> the period
  // reduction in float, exact below 2^24); returns the index and sets *inside for zeros
  // padding.
  HWY_INLINE VI Pad(VI i, hn::Mask<DI>* inside) const {
    const DI di;
    const VI zero_i = hn::Zero(di);
    switch (padding_) {
      case GridPadding::kZeros: {
        *inside = hn::And(hn::Gt(i, hn::Set(di, -1)), hn::Lt(i, len_i_.Get()));  // 1.0.3: no Ge
        return hn::IfThenElseZero(*inside, i);
      }
      case GridPadding::kBorder: return hn::Min(hn::Max(i, zero_i), lenm1_i_.Get());
      case GridPadding::kReflection: {
        if (refl_single_) return zero_i;
        const VI m = ReducePeriod(i);
        const VI per_i = per_i_.Get(), per_m1_i = per_m1_i_.Get();
        const VI mirrored = align_ ? hn::Sub(per_i, m) : hn::Sub(per_m1_i, m);
        return hn::IfThenElse(hn::Lt(m, len_i_.Get()), m, mirrored);
      }
      case GridPadding::kWrap: return ReducePeriod(i);  // period len, no mirror
      // The fast paths run constant as zeros and fill as border (grid_sample_fast_prepare).
      case GridPadding::kConstant:
      case GridPadding::kFill:
        break;
    }
    return zero_i;
  }

  InterpolationMode mode_;
  GridPadding padding_;
  bool align_;
  bool pixels_;  // pixel grid: the values are the coordinates
  int K_;
  int64_t len_;
  VecConst<DF> L_, Lm1_;
  VecConst<DI> len_i_, lenm1_i_;
  bool windowed_;
  VecConst<DI> org_i_, extm1_i_;
  VecConst<DF> in_lo_, in_hi_;
  bool refl_single_ = false;
  VecConst<DF> per_f_, inv_per_;
  VecConst<DI> per_i_, per_m1_i_;
};

}  // namespace HWY_NAMESPACE
}  // namespace gridops::kernels::grid_sample_simd
HWY_AFTER_NAMESPACE();

#endif  // include guard
