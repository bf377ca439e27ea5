#include "gridops/onnx/tensor_proto.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <complex>

#include "proto_convert.h"
#include "support/test_util.h"

namespace gridops::onnx {
namespace {

using ::testing::HasSubstr;
using P = ::onnx::TensorProto;

TEST(TensorProto, RoundTripsEveryDtypeThroughRawData) {
  std::mt19937_64 rng(gridops::testing::test_seed());
#define ROUND_TRIP(e, T, n)                                              \
  {                                                                      \
    Tensor t(DType::e, {3, 2});                                          \
    gridops::testing::fill_random(t, rng, -100, 100);                    \
    auto bytes = serialize_tensor_proto(t, "x");                         \
    ASSERT_TRUE(bytes.ok()) << n;                                        \
    std::string name;                                                    \
    auto back = parse_tensor_proto(*bytes, "test", &name);               \
    ASSERT_TRUE(back.ok()) << n << ": " << back.status().to_string();    \
    EXPECT_EQ(name, "x");                                                \
    EXPECT_TRUE(gridops::testing::bitwise_equal(t, *back)) << n;         \
  }
  GRIDOPS_FOR_EACH_DTYPE(ROUND_TRIP)
#undef ROUND_TRIP
}

TEST(TensorProto, ReadsTypedFields) {
  P p;
  p.set_data_type(P::FLOAT16);
  p.add_dims(2);
  p.add_int32_data(0x3C00);  // 1.0
  p.add_int32_data(0xC000);  // -2.0
  auto t = tensor_from_proto(p, "t");
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(f16_to_f32(t->data_as<float16>()[1]), -2.0f);

  P c;
  c.set_data_type(P::COMPLEX64);
  c.add_dims(1);
  c.add_float_data(1.0f);
  c.add_float_data(-3.0f);
  auto ct = tensor_from_proto(c, "t");
  ASSERT_TRUE(ct.ok());
  EXPECT_EQ(ct->data_as<std::complex<float>>()[0], std::complex<float>(1.0f, -3.0f));

  P u;
  u.set_data_type(P::UINT32);
  u.add_uint64_data(4000000000u);
  auto ut = tensor_from_proto(u, "t");
  ASSERT_TRUE(ut.ok());
  EXPECT_EQ(ut->rank(), 0);
  EXPECT_EQ(ut->data_as<uint32_t>()[0], 4000000000u);

  P s;
  s.set_data_type(P::STRING);
  s.add_dims(2);
  s.add_string_data("ab");
  s.add_string_data("");
  auto st = tensor_from_proto(s, "t");
  ASSERT_TRUE(st.ok());
  EXPECT_EQ(st->data_as<std::string>()[0], "ab");
}

TEST(TensorProto, RejectsWhatItCannotRead) {
  P ext;
  ext.set_data_type(P::FLOAT);
  ext.set_data_location(P::EXTERNAL);
  EXPECT_THAT(tensor_from_proto(ext, "t").status().message(), HasSubstr("external data is not supported"));
  P f8;
  f8.set_data_type(17);  // FLOAT8E4M3FN
  EXPECT_THAT(tensor_from_proto(f8, "t").status().message(), HasSubstr("unsupported ONNX element type 17"));
  P short_raw;
  short_raw.set_data_type(P::FLOAT);
  short_raw.add_dims(4);
  short_raw.set_raw_data(std::string(12, '\0'));
  EXPECT_THAT(tensor_from_proto(short_raw, "t").status().message(), HasSubstr("raw_data holds 12 bytes, expected 4 elements of 4 bytes"));
  P wrong_count;
  wrong_count.set_data_type(P::INT64);
  wrong_count.add_dims(3);
  wrong_count.add_int64_data(1);
  EXPECT_THAT(tensor_from_proto(wrong_count, "t").status().message(), HasSubstr("int64_data holds 1 values, expected 3"));
  P neg;
  neg.set_data_type(P::FLOAT);
  neg.add_dims(-1);
  EXPECT_THAT(tensor_from_proto(neg, "t").status().message(), HasSubstr("must be >= 0"));
  P big;
  big.set_data_type(P::FLOAT);
  big.add_dims(int64_t{1} << 40);
  big.add_dims(int64_t{1} << 40);
  EXPECT_THAT(tensor_from_proto(big, "t").status().message(), HasSubstr("overflows 64 bits"));
  // Found by fuzzing: huge dims with a typed field that holds nothing must not allocate.
  P huge;
  huge.set_data_type(P::FLOAT);
  huge.add_dims(int64_t{1} << 40);
  EXPECT_THAT(tensor_from_proto(huge, "t").status().message(), HasSubstr("float_data holds 0 values, expected 1099511627776"));
  P u32;
  u32.set_data_type(P::UINT32);
  u32.add_uint64_data(uint64_t{1} << 33);
  EXPECT_THAT(tensor_from_proto(u32, "t").status().message(), HasSubstr("does not fit uint32"));
  EXPECT_THAT(parse_tensor_proto("\xFF\xFF\xFF", "x.pb").status().message(), HasSubstr("not a valid TensorProto"));
}

TEST(TensorProto, TruncatedFilesAreErrors) {
  Tensor t(DType::kFloat32, {4, 4});
  auto b = serialize_tensor_proto(t, "x");
  ASSERT_TRUE(b.ok());
  int errors = 0;
  for (size_t n = 0; n + 1 < b->size(); ++n) {
    auto r = parse_tensor_proto(std::string_view(*b).substr(0, n), "x.pb");
    errors += !r.ok();
  }
  // Every proper prefix either fails to parse or has a payload that no longer fits the dims.
  EXPECT_EQ(errors, static_cast<int>(b->size()) - 1);
}

}  // namespace
}  // namespace gridops::onnx
