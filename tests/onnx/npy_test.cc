#include "gridops/onnx/npy.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <complex>
#include <cstring>

#include "support/test_util.h"

namespace gridops::onnx {
namespace {

using ::testing::HasSubstr;

// Builds a .npy file by hand: version, header dict text, raw data.
std::string make_npy(int major, const std::string& dict, const std::string& data) {
  std::string header = dict;
  const size_t prefix = major == 1 ? 10 : 12;
  size_t total = prefix + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header.push_back('\n');
  std::string out("\x93NUMPY", 6);
  out.push_back(static_cast<char>(major));
  out.push_back(0);
  const size_t hl = header.size();
  out.push_back(static_cast<char>(hl & 0xFF));
  out.push_back(static_cast<char>(hl >> 8));
  if (major != 1) {
    out.push_back(0);
    out.push_back(0);
  }
  return out + header + data;
}

template <class T>
std::string bytes_of(std::initializer_list<T> v) {
  std::string s;
  for (T x : v) s.append(reinterpret_cast<const char*>(&x), sizeof(T));
  return s;
}

TEST(Npy, RoundTripsEveryDtype) {
  std::mt19937_64 rng(gridops::testing::test_seed());
#define ROUND_TRIP(e, T, n)                                                          \
  {                                                                                  \
    Tensor t(DType::e, {2, 3});                                                      \
    gridops::testing::fill_random(t, rng, -100, 100);                                \
    auto bytes = serialize_npy(t);                                                   \
    ASSERT_TRUE(bytes.ok()) << n;                                                    \
    auto back = parse_npy(*bytes);                                                   \
    ASSERT_TRUE(back.ok()) << n << ": " << back.status().to_string();               \
    if (DType::e == DType::kBFloat16) {                                              \
      ASSERT_EQ(back->dtype(), DType::kFloat32);                                     \
      for (int i = 0; i < 6; ++i)                                                    \
        EXPECT_EQ(back->data_as<float>()[i], bf16_to_f32(t.data_as<bfloat16>()[i])); \
    } else {                                                                         \
      EXPECT_TRUE(gridops::testing::bitwise_equal(t, *back)) << n;                   \
    }                                                                                \
  }
  GRIDOPS_FOR_EACH_DTYPE(ROUND_TRIP)
#undef ROUND_TRIP
}

TEST(Npy, ScalarsAndEmptyArrays) {
  Tensor s(DType::kFloat64, {});
  s.data_as<double>()[0] = 2.5;
  auto b = serialize_npy(s);
  ASSERT_TRUE(b.ok());
  EXPECT_THAT(*b, HasSubstr("'shape': ()"));
  auto back = parse_npy(*b);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->rank(), 0);
  EXPECT_EQ(back->data_as<double>()[0], 2.5);
  Tensor e(DType::kInt32, {0, 4});
  auto eb = parse_npy(*serialize_npy(e));
  ASSERT_TRUE(eb.ok());
  EXPECT_EQ(eb->shape(), (Dims{0, 4}));
}

TEST(Npy, ReadsFortranOrder) {
  // A 2x3 array [[0,1,2],[3,4,5]] stored column-major: 0 3 1 4 2 5.
  const std::string f = make_npy(1, "{'descr': '<i4', 'fortran_order': True, 'shape': (2, 3), }",
                                 bytes_of<int32_t>({0, 3, 1, 4, 2, 5}));
  auto t = parse_npy(f);
  ASSERT_TRUE(t.ok()) << t.status().to_string();
  for (int i = 0; i < 6; ++i) EXPECT_EQ(t->data_as<int32_t>()[i], i);
}

TEST(Npy, ReadsBigEndianAndVersions2And3) {
  std::string be;
  for (int32_t v : {1, -2, 300}) {
    for (int b = 3; b >= 0; --b) be.push_back(static_cast<char>((static_cast<uint32_t>(v) >> (8 * b)) & 0xFF));
  }
  for (int major : {1, 2, 3}) {
    auto t = parse_npy(make_npy(major, "{'descr': '>i4', 'fortran_order': False, 'shape': (3,), }", be));
    ASSERT_TRUE(t.ok()) << t.status().to_string();
    EXPECT_EQ(t->data_as<int32_t>()[0], 1);
    EXPECT_EQ(t->data_as<int32_t>()[1], -2);
    EXPECT_EQ(t->data_as<int32_t>()[2], 300);
  }
  // Big-endian complex: each part swapped separately.
  std::string c;
  for (float v : {1.5f, -2.0f}) {
    uint32_t u;
    std::memcpy(&u, &v, 4);
    for (int b = 3; b >= 0; --b) c.push_back(static_cast<char>((u >> (8 * b)) & 0xFF));
  }
  auto z = parse_npy(make_npy(1, "{'descr': '>c8', 'fortran_order': False, 'shape': (1,), }", c));
  ASSERT_TRUE(z.ok());
  EXPECT_EQ(z->data_as<std::complex<float>>()[0], std::complex<float>(1.5f, -2.0f));
}

TEST(Npy, UnicodeStrings) {
  Tensor t(DType::kString, {3});
  t.data_as<std::string>()[0] = "a";
  t.data_as<std::string>()[1] = "";
  t.data_as<std::string>()[2] = "h\xC3\xA9llo \xE2\x82\xAC";  // héllo €
  auto b = serialize_npy(t);
  ASSERT_TRUE(b.ok());
  EXPECT_THAT(*b, HasSubstr("'<U7'"));
  auto back = parse_npy(*b);
  ASSERT_TRUE(back.ok());
  EXPECT_TRUE(gridops::testing::bitwise_equal(t, *back));
  Tensor bad(DType::kString, {1});
  bad.data_as<std::string>()[0] = "\xFF";
  EXPECT_THAT(serialize_npy(bad).status().message(), HasSubstr("not valid UTF-8"));
}

TEST(Npy, RejectsMalformedFilesClearly) {
  const std::string ok_dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }";
  const std::string data = bytes_of<float>({1, 2});
  struct Case {
    std::string bytes, message;
  } cases[] = {
      {"", "missing the \\x93NUMPY magic"},
      {"\x93NUMPX\x01\x00\x00\x00", "magic"},
      {make_npy(4, ok_dict, data), "unsupported format version 4"},
      {make_npy(1, "{'descr': '|O', 'fortran_order': False, 'shape': (2,), }", data), "object arrays"},
      {make_npy(1, "{'descr': '<f3', 'fortran_order': False, 'shape': (2,), }", data), "unsupported descr '<f3'"},
      {make_npy(1, "{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (2,), }", data), "structured"},
      {make_npy(1, "{'descr': '<f4', 'fortran_order': Maybe, 'shape': (2,), }", data), "fortran_order"},
      {make_npy(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (-2,), }", data), "non-negative"},
      {make_npy(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,), }", data), "overflows"},
      {make_npy(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296), }", data), "overflows"},
      {make_npy(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }", data), "expected 12 data bytes"},
      {make_npy(1, "{'descr': '<f4', 'shape': (2,), }", data), "must have 'descr', 'fortran_order' and 'shape'"},
      {make_npy(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2,)", data), "expected ',' or '}'"},
      {make_npy(1, ok_dict, data).substr(0, 20), "truncated header"},
      // Found by fuzzing: a zero-width string dtype with a huge shape needs no data bytes.
      {make_npy(1, "{'descr': '<U0', 'fortran_order': False, 'shape': (4000000000000,), }", ""), "zero-width string"},
  };
  for (const auto& c : cases) {
    auto r = parse_npy(c.bytes, "f.npy");
    ASSERT_FALSE(r.ok()) << c.message;
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
    EXPECT_THAT(r.status().message(), HasSubstr(c.message));
    EXPECT_THAT(r.status().message(), HasSubstr("f.npy"));
  }
}

TEST(Npy, TruncationAtEveryLengthIsAnError) {
  Tensor t(DType::kInt16, {3, 2});
  auto b = serialize_npy(t);
  ASSERT_TRUE(b.ok());
  for (size_t n = 0; n < b->size(); ++n) {
    EXPECT_FALSE(parse_npy(std::string_view(*b).substr(0, n)).ok()) << n;
  }
  EXPECT_TRUE(parse_npy(*b).ok());
}

TEST(Npy, FilesOnDisk) {
  Tensor t(DType::kUInt16, {4});
  for (int i = 0; i < 4; ++i) t.data_as<uint16_t>()[i] = static_cast<uint16_t>(i * 1000);
  const std::string path = ::testing::TempDir() + "/gridops_npy_test.npy";
  ASSERT_TRUE(write_npy(t, path).ok());
  auto back = read_npy(path);
  ASSERT_TRUE(back.ok());
  EXPECT_TRUE(gridops::testing::bitwise_equal(t, *back));
  EXPECT_THAT(read_npy("/nonexistent/x.npy").status().message(), HasSubstr("cannot open"));
}

}  // namespace
}  // namespace gridops::onnx
