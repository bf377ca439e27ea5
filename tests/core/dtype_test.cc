#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "core/convert.h"
#include "gridops/dtype.h"

#ifdef GRIDOPS_HAVE_HWY
#include <hwy/targets.h>
#endif

namespace gridops {
namespace {

float bits_to_f32(uint32_t b) {
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}

TEST(DType, NamesRoundTrip) {
#define CHECK_NAME(e, T, n)                                   \
  EXPECT_STREQ(to_string(DType::e), n);                       \
  ASSERT_TRUE(parse_dtype(n).has_value());                    \
  EXPECT_EQ(*parse_dtype(n), DType::e);                       \
  EXPECT_EQ(dtype_size(DType::e), sizeof(T));
  GRIDOPS_FOR_EACH_DTYPE(CHECK_NAME)
#undef CHECK_NAME
  EXPECT_FALSE(parse_dtype("float128").has_value());
}

// Every binary16 value widens exactly and narrows back to itself.
TEST(Float16, AllValuesRoundTrip) {
  for (uint32_t b = 0; b < 65536; ++b) {
    const float16 h{static_cast<uint16_t>(b)};
    const float f = f16_to_f32(h);
    if (std::isnan(f)) {
      EXPECT_TRUE(std::isnan(f16_to_f32(f32_to_f16(f)))) << b;
      continue;
    }
    EXPECT_EQ(f32_to_f16(f).bits, b) << "bits " << b;
  }
}

// Reference narrowing through double arithmetic: nearest representable half, ties to even.
uint16_t slow_f16(float f) {
  if (std::isnan(f)) return 0x7E00;
  double best_err = INFINITY;
  uint16_t best = 0;
  for (uint32_t b = 0; b < 0x7C00; ++b) {  // all finite non-negative halves
    const double v = f16_to_f32(float16{static_cast<uint16_t>(b)});
    const double err = std::fabs(v - std::fabs(static_cast<double>(f)));
    if (err < best_err || (err == best_err && (b & 1) == 0)) {
      best_err = err;
      best = static_cast<uint16_t>(b);
    }
  }
  // Overflow: at or above 65520 rounds to inf.
  if (std::fabs(static_cast<double>(f)) >= 65520.0) best = 0x7C00;
  return static_cast<uint16_t>(best | (std::signbit(f) ? 0x8000 : 0));
}

TEST(Float16, RoundsToNearestEven) {
  // Ties: 1 + 2^-11 is halfway between 1 and 1 + 2^-10 -> 1 (even).
  EXPECT_EQ(f32_to_f16(1.0f + std::ldexp(1.0f, -11)).bits, 0x3C00);
  // 1 + 3 * 2^-11 is halfway between 1+2^-10 (odd) and 1+2^-9 -> 1+2^-9.
  EXPECT_EQ(f32_to_f16(1.0f + 3 * std::ldexp(1.0f, -11)).bits, 0x3C02);
  EXPECT_EQ(f32_to_f16(65504.0f).bits, 0x7BFF);
  EXPECT_EQ(f32_to_f16(65519.0f).bits, 0x7BFF);
  EXPECT_EQ(f32_to_f16(65520.0f).bits, 0x7C00);
  EXPECT_EQ(f32_to_f16(-INFINITY).bits, 0xFC00);
  // Subnormals: smallest is 2^-24; 2^-25 ties to 0; just above rounds up.
  EXPECT_EQ(f32_to_f16(std::ldexp(1.0f, -24)).bits, 0x0001);
  EXPECT_EQ(f32_to_f16(std::ldexp(1.0f, -25)).bits, 0x0000);
  EXPECT_EQ(f32_to_f16(std::nextafter(std::ldexp(1.0f, -25), 1.0f)).bits, 0x0001);
  EXPECT_EQ(f32_to_f16(3 * std::ldexp(1.0f, -25)).bits, 0x0002);  // 1.5 ulp ties to even 2
  // A sweep against the slow reference.
  uint32_t x = 12345;
  for (int i = 0; i < 3000; ++i) {
    x = x * 1664525u + 1013904223u;
    const float f = bits_to_f32((x & 0x8FFFFFFFu) | 0x30000000u);  // magnitudes near half range
    ASSERT_EQ(f32_to_f16(f).bits, slow_f16(f)) << f;
  }
}

TEST(BFloat16, RoundsToNearestEven) {
  EXPECT_EQ(f32_to_bf16(1.0f).bits, 0x3F80);
  EXPECT_EQ(f32_to_bf16(bits_to_f32(0x3F808000u)).bits, 0x3F80);  // tie -> even
  EXPECT_EQ(f32_to_bf16(bits_to_f32(0x3F818000u)).bits, 0x3F82);  // tie -> even (up)
  EXPECT_EQ(f32_to_bf16(bits_to_f32(0x3F808001u)).bits, 0x3F81);
  EXPECT_EQ(f32_to_bf16(bits_to_f32(0x7F7FFFFFu)).bits, 0x7F80);  // max float -> inf
  EXPECT_TRUE(std::isnan(bf16_to_f32(f32_to_bf16(NAN))));
  for (uint32_t b = 0; b < 65536; ++b) {
    const bfloat16 h{static_cast<uint16_t>(b)};
    const float f = bf16_to_f32(h);
    if (!std::isnan(f)) {
      EXPECT_EQ(f32_to_bf16(f).bits, b);
    }
  }
}

TEST(Float64Narrowing, RoundsOnce) {
  // 1 + 2^-11 + 2^-40 is just above the half tie: a single rounding goes up, rounding
  // through float first would also go up; 1 + 2^-11 + 2^-40 is lost in float (double
  // rounding would give the tie -> 1.0), single rounding gives 1 + 2^-10.
  const double d = 1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40);
  EXPECT_EQ(f64_to_f16(d).bits, 0x3C01);
  EXPECT_EQ(f32_to_f16(static_cast<float>(d)).bits, 0x3C00);  // what double rounding gives
  const double e = 1.0 + std::ldexp(1.0, -8) + std::ldexp(1.0, -40);
  EXPECT_EQ(f64_to_bf16(e).bits, 0x3F81);
  EXPECT_EQ(f64_to_bf16(1.0 + std::ldexp(1.0, -8)).bits, 0x3F80);  // exact tie -> even
}

TEST(BulkConversion, MatchesScalar) {
  std::vector<float> f(1000);
  for (size_t i = 0; i < f.size(); ++i) f[i] = static_cast<float>(i) * 0.37f - 100.0f;
  std::vector<float16> h(f.size());
  std::vector<bfloat16> b(f.size());
  std::vector<float> back(f.size());
  convert_f32_to_f16(f.data(), h.data(), f.size());
  convert_f32_to_bf16(f.data(), b.data(), f.size());
  for (size_t i = 0; i < f.size(); ++i) {
    EXPECT_EQ(h[i].bits, f32_to_f16(f[i]).bits);
    EXPECT_EQ(b[i].bits, f32_to_bf16(f[i]).bits);
  }
  convert_f16_to_f32(h.data(), back.data(), f.size());
  for (size_t i = 0; i < f.size(); ++i) EXPECT_EQ(back[i], f16_to_f32(h[i]));
  convert_bf16_to_f32(b.data(), back.data(), f.size());
  for (size_t i = 0; i < f.size(); ++i) EXPECT_EQ(back[i], bf16_to_f32(b[i]));
}

// Bulk conversions on every Highway target this CPU runs agree bit for bit with the scalar
// code, over every half and bfloat16 value and floats with every exponent (subnormals,
// ties, overflow, NaN payloads, infinities).
void check_bulk_matches_scalar() {
  std::vector<float16> h(65536);
  std::vector<bfloat16> b(65536);
  for (uint32_t i = 0; i < 65536; ++i) {
    h[i].bits = static_cast<uint16_t>(i);
    b[i].bits = static_cast<uint16_t>(i);
  }
  std::vector<float> f(65536);
  convert_f16_to_f32(h.data(), f.data(), h.size());
  for (uint32_t i = 0; i < 65536; ++i) {
    const float want = f16_to_f32(h[i]);
    uint32_t a, w;
    std::memcpy(&a, &f[i], 4);
    std::memcpy(&w, &want, 4);
    ASSERT_EQ(a, w) << "f16 bits " << i;
  }
  convert_bf16_to_f32(b.data(), f.data(), b.size());
  for (uint32_t i = 0; i < 65536; ++i) {
    const float want = bf16_to_f32(b[i]);
    ASSERT_EQ(std::memcmp(&f[i], &want, 4), 0) << "bf16 bits " << i;
  }
  std::vector<float> x;
  uint32_t s = 99;
  for (int i = 0; i < 200000; ++i) {
    s = s * 1664525u + 1013904223u;
    x.push_back(bits_to_f32(s));  // every exponent, NaNs and infinities included
  }
  for (uint32_t m : {0x00000001u, 0x00800000u, 0x33000000u, 0x3F808000u, 0x3F818000u,
                     0x477FF000u, 0x477FEFFFu, 0x7F800000u, 0x7FC00001u, 0xFF800001u}) {
    x.push_back(bits_to_f32(m));
  }
  std::vector<float16> ho(x.size());
  std::vector<bfloat16> bo(x.size());
  convert_f32_to_f16(x.data(), ho.data(), x.size());
  convert_f32_to_bf16(x.data(), bo.data(), x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    ASSERT_EQ(ho[i].bits, f32_to_f16(x[i]).bits) << std::hexfloat << x[i];
    ASSERT_EQ(bo[i].bits, f32_to_bf16(x[i]).bits) << std::hexfloat << x[i];
  }
}

TEST(BulkConversion, EveryTargetMatchesScalarBitForBit) {
#ifdef GRIDOPS_HAVE_HWY
  const std::vector<int64_t> targets = hwy::SupportedAndGeneratedTargets();
  ASSERT_FALSE(targets.empty());
  for (int64_t target : targets) {
    SCOPED_TRACE(hwy::TargetName(target));
    hwy::SetSupportedTargetsForTest(target);
    check_bulk_matches_scalar();
  }
  hwy::SetSupportedTargetsForTest(0);
#else
  check_bulk_matches_scalar();
#endif
}

TEST(Convert, IntegersTruncateAndSaturate) {
  using convert::store_real;
  EXPECT_EQ(store_real<int8_t>(2.9f), 2);
  EXPECT_EQ(store_real<int8_t>(-2.9f), -2);
  EXPECT_EQ(store_real<int8_t>(127.9f), 127);
  EXPECT_EQ(store_real<int8_t>(128.0f), 127);
  EXPECT_EQ(store_real<int8_t>(-128.9f), -128);
  EXPECT_EQ(store_real<int8_t>(-1e30f), -128);
  EXPECT_EQ(store_real<uint8_t>(-0.9f), 0);
  EXPECT_EQ(store_real<uint8_t>(-5.0f), 0);
  EXPECT_EQ(store_real<uint8_t>(255.5f), 255);
  EXPECT_EQ(store_real<uint8_t>(NAN), 0);
  EXPECT_EQ(store_real<int32_t>(INFINITY), std::numeric_limits<int32_t>::max());
  EXPECT_EQ(store_real<int64_t>(9.3e18), std::numeric_limits<int64_t>::max());
  EXPECT_EQ(store_real<int64_t>(-9.3e18), std::numeric_limits<int64_t>::min());
  EXPECT_EQ(store_real<int64_t>(-9223372036854775808.0), std::numeric_limits<int64_t>::min());
  EXPECT_EQ(store_real<uint64_t>(1.9e19), std::numeric_limits<uint64_t>::max());
  EXPECT_EQ(store_real<uint64_t>(1.8e19), uint64_t{18000000000000000000ull});
  EXPECT_EQ(store_real<bool>(0.0f), false);
  EXPECT_EQ(store_real<bool>(0.25f), true);
  EXPECT_EQ(store_real<bool>(NAN), true);
}

}  // namespace
}  // namespace gridops
