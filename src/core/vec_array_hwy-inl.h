// Small arrays of Highway vectors and masks that compile on every Highway target.
//
// NOTE [ Sizeless vectors ]
// On Arm SVE (Highway's SVE, SVE2, SVE_256 and SVE2_128 targets) and RISC-V V, a vector or
// mask is a "sizeless" type (svfloat32_t, svbool_t, ...): it may be a local variable, a
// parameter or a return value, but not an array element nor a class member, and a pointer
// to one allows no arithmetic. `VF v[4]`, `VI* out` indexed as out[k], or a struct of
// vectors therefore do not compile there. VecArray<D, N> and MaskArray<D, N> stand in for
// such arrays: on every other target they are exactly the plain array (operator[] returns
// a reference to the vector, the generated code is the array's), on sizeless targets the
// lanes live in an aligned buffer of N * MaxLanes(d) elements and operator[] returns a
// proxy that loads on read and stores on write. A read through the proxy converts to the
// vector type where a function parameter names that type (Highway's ops on SVE are
// overloads per type); where a template would deduce the proxy instead, write VF(a[k]).
// VecConst<D> is a broadcast value kept as a class member (the vector itself, or on
// sizeless targets the scalar, broadcast on each Get()).
//
// Highway's per-target include guard: include this after <hwy/highway.h> in a file that
// foreach_target.h re-includes; it is compiled once per target.
#if defined(GRIDOPS_CORE_VEC_ARRAY_HWY_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef GRIDOPS_CORE_VEC_ARRAY_HWY_INL_H_
#undef GRIDOPS_CORE_VEC_ARRAY_HWY_INL_H_
#else
#define GRIDOPS_CORE_VEC_ARRAY_HWY_INL_H_
#endif

#include <cstddef>

#include <hwy/highway.h>

// 1 on the targets whose vectors are sizeless types (NOTE [ Sizeless vectors ]).
#undef GRIDOPS_HWY_SIZELESS
#if HWY_TARGET == HWY_SVE || HWY_TARGET == HWY_SVE2 || HWY_TARGET == HWY_SVE_256 || \
    HWY_TARGET == HWY_SVE2_128 || HWY_TARGET == HWY_RVV
#define GRIDOPS_HWY_SIZELESS 1
#else
#define GRIDOPS_HWY_SIZELESS 0
#endif

HWY_BEFORE_NAMESPACE();
namespace gridops::simd {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

#if !GRIDOPS_HWY_SIZELESS

template <class D, size_t N>
class VecArray {
 public:
  using V = hn::Vec<D>;
  // Defined here, not implicitly: the vectors' constructors need this target's attributes.
  HWY_INLINE VecArray() {}
  HWY_INLINE V& operator[](size_t i) { return v_[i]; }
  HWY_INLINE const V& operator[](size_t i) const { return v_[i]; }

 private:
  V v_[N];
};

template <class D, size_t N>
class MaskArray {
 public:
  using M = hn::Mask<D>;
  HWY_INLINE MaskArray() {}
  HWY_INLINE M& operator[](size_t i) { return m_[i]; }
  HWY_INLINE const M& operator[](size_t i) const { return m_[i]; }

 private:
  M m_[N];
};

template <class D>
class VecConst {
 public:
  using V = hn::Vec<D>;
  HWY_INLINE VecConst() {}
  HWY_INLINE explicit VecConst(hn::TFromD<D> s) : v_(hn::Set(D(), s)) {}
  HWY_INLINE V Get() const { return v_; }

 private:
  V v_;
};

#else  // GRIDOPS_HWY_SIZELESS

template <class D, size_t N>
class VecArray {
 public:
  using V = hn::Vec<D>;
  using T = hn::TFromD<D>;
  class Ref {
   public:
    HWY_INLINE explicit Ref(T* p) : p_(p) {}
    HWY_INLINE operator V() const { return hn::Load(D(), p_); }  // NOLINT: a vector's stand-in
    HWY_INLINE Ref& operator=(V v) {
      hn::Store(v, D(), p_);
      return *this;
    }
    HWY_INLINE Ref& operator=(const Ref& r) { return *this = static_cast<V>(r); }

   private:
    T* p_;
  };
  HWY_INLINE Ref operator[](size_t i) { return Ref(lanes_ + i * kMax); }
  HWY_INLINE V operator[](size_t i) const { return hn::Load(D(), lanes_ + i * kMax); }

 private:
  static constexpr size_t kMax = hn::MaxLanes(D());
  HWY_ALIGN T lanes_[N * kMax];
};

/// Masks kept as vectors of D (all-ones lanes where true).
template <class D, size_t N>
class MaskArray {
 public:
  using M = hn::Mask<D>;
  using T = hn::TFromD<D>;
  class Ref {
   public:
    HWY_INLINE explicit Ref(T* p) : p_(p) {}
    HWY_INLINE operator M() const { return hn::MaskFromVec(hn::Load(D(), p_)); }  // NOLINT
    HWY_INLINE Ref& operator=(M m) {
      hn::Store(hn::VecFromMask(D(), m), D(), p_);
      return *this;
    }
    HWY_INLINE Ref& operator=(const Ref& r) { return *this = static_cast<M>(r); }

   private:
    T* p_;
  };
  HWY_INLINE Ref operator[](size_t i) { return Ref(lanes_ + i * kMax); }
  HWY_INLINE M operator[](size_t i) const {
    return hn::MaskFromVec(hn::Load(D(), lanes_ + i * kMax));
  }

 private:
  static constexpr size_t kMax = hn::MaxLanes(D());
  HWY_ALIGN T lanes_[N * kMax];
};

template <class D>
class VecConst {
 public:
  using V = hn::Vec<D>;
  VecConst() = default;
  HWY_INLINE explicit VecConst(hn::TFromD<D> s) : s_(s) {}
  HWY_INLINE V Get() const { return hn::Set(D(), s_); }

 private:
  hn::TFromD<D> s_{};
};

#endif  // GRIDOPS_HWY_SIZELESS

}  // namespace HWY_NAMESPACE
}  // namespace gridops::simd
HWY_AFTER_NAMESPACE();

#endif  // per-target include guard
