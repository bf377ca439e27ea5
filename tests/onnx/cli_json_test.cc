// The JSON string escaper and writer of the gridops command (tools/cli/json.h).
#include <gtest/gtest.h>

#include <string>

#include "../../tools/cli/json.h"

namespace gridops::cli {
namespace {

TEST(CliJson, PlainTextIsQuoted) {
  EXPECT_EQ(json_string(""), "\"\"");
  EXPECT_EQ(json_string("abc 123"), "\"abc 123\"");
}

TEST(CliJson, QuoteAndBackslashAreEscaped) {
  EXPECT_EQ(json_string("a\"b\\c/d"), "\"a\\\"b\\\\c/d\"");
}

TEST(CliJson, ControlCharactersAreEscaped) {
  EXPECT_EQ(json_string("\n\r\t\b\f"), "\"\\n\\r\\t\\b\\f\"");
  EXPECT_EQ(json_string(std::string("a\x1b[2Jb", 6)), "\"a\\u001b[2Jb\"");
  EXPECT_EQ(json_string(std::string("n\0l", 3)), "\"n\\u0000l\"");
  EXPECT_EQ(json_string("\x01\x1f\x7f"), "\"\\u0001\\u001f\\u007f\"");
  // C1 controls (U+0080..U+009F, CSI is U+009B) and the JavaScript line separators.
  EXPECT_EQ(json_string("\xc2\x9b\xc2\x85"), "\"\\u009b\\u0085\"");
  EXPECT_EQ(json_string("\xe2\x80\xa8\xe2\x80\xa9"), "\"\\u2028\\u2029\"");
}

TEST(CliJson, WellFormedUtf8IsKept) {
  EXPECT_EQ(json_string("\xc3\xa9"), "\"\xc3\xa9\"");                  // U+00E9
  EXPECT_EQ(json_string("\xe6\x97\xa5\xe6\x9c\xac"), "\"\xe6\x97\xa5\xe6\x9c\xac\"");  // U+65E5 U+672C
  EXPECT_EQ(json_string("\xf0\x9f\x98\x80"), "\"\xf0\x9f\x98\x80\"");  // U+1F600
  EXPECT_EQ(json_string("\xc2\xa0"), "\"\xc2\xa0\"");                  // U+00A0, after the C1 range
  EXPECT_EQ(json_string("\xf4\x8f\xbf\xbf"), "\"\xf4\x8f\xbf\xbf\"");  // U+10FFFF
}

TEST(CliJson, EachByteOutsideWellFormedUtf8IsAReplacementCharacter) {
  const std::string r = "\xef\xbf\xbd";
  EXPECT_EQ(json_string("a\x80z"), "\"a" + r + "z\"");                      // stray continuation
  EXPECT_EQ(json_string("\xc0\xaf"), "\"" + r + r + "\"");                  // overlong '/'
  EXPECT_EQ(json_string("\xe0\x80\xaf"), "\"" + r + r + r + "\"");          // overlong, 3 bytes
  EXPECT_EQ(json_string("\xed\xa0\x80"), "\"" + r + r + r + "\"");          // surrogate U+D800
  EXPECT_EQ(json_string("\xf4\x90\x80\x80"), "\"" + r + r + r + r + "\"");  // above U+10FFFF
  EXPECT_EQ(json_string("\xe6\x97"), "\"" + r + r + "\"");                  // truncated
  EXPECT_EQ(json_string("\xe6\x97x"), "\"" + r + r + "x\"");                // cut by ASCII
  EXPECT_EQ(json_string("\xff\xfe"), "\"" + r + r + "\"");
}

TEST(CliJson, WriterPutsCommasAndNesting) {
  JsonWriter j;
  j.begin_object().key("a").value(int64_t{1}).key("b").begin_array().value("x").value(true).null();
  j.begin_object().end_object().begin_array().end_array().end_array();
  j.key("c").value(false).key("d\"").value(size_t{7}).end_object();
  EXPECT_EQ(j.str(), "{\"a\": 1, \"b\": [\"x\", true, null, {}, []], \"c\": false, \"d\\\"\": 7}");
}

}  // namespace
}  // namespace gridops::cli
