// JSON output of the gridops command (info --json, conformance --json): a string escaper
// and a small writer that puts commas and nesting in place. Header-only, so that the tests
// check the escaper directly (tests/onnx/cli_json_test.cc).
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

namespace gridops::cli {

/// `text` as a JSON string literal, quotes included (RFC 8259). '"' and '\' are escaped;
/// control characters (C0, DEL and the C1 range) and U+2028/U+2029 are written as \uXXXX
/// (\n, \r, \t, \b, \f in their short forms), so the output holds no byte a terminal
/// acts on; well-formed UTF-8 is kept; each byte that is not part of well-formed UTF-8
/// (a stray continuation byte, an overlong form, a surrogate, a truncated sequence, a
/// code point above U+10FFFF) becomes U+FFFD, so the result is always valid UTF-8.
inline std::string json_string(std::string_view text) {
  std::string s = "\"";
  auto hex4 = [&](uint32_t cp) {
    char buf[8];
    std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(cp));
    s += buf;
  };
  const size_t n = text.size();
  for (size_t i = 0; i < n;) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x80) {
      switch (c) {
        case '"': s += "\\\""; break;
        case '\\': s += "\\\\"; break;
        case '\n': s += "\\n"; break;
        case '\r': s += "\\r"; break;
        case '\t': s += "\\t"; break;
        case '\b': s += "\\b"; break;
        case '\f': s += "\\f"; break;
        default:
          if (c < 0x20 || c == 0x7F) {
            hex4(c);
          } else {
            s += static_cast<char>(c);
          }
      }
      ++i;
      continue;
    }
    // The length a lead byte announces (0: not a lead byte).
    const size_t len = c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3 : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
    bool ok = len > 0 && i + len <= n;
    uint32_t cp = ok ? static_cast<uint32_t>(c & (0x7F >> len)) : 0;
    for (size_t k = 1; ok && k < len; ++k) {
      const auto d = static_cast<unsigned char>(text[i + k]);
      ok = (d & 0xC0) == 0x80;
      cp = (cp << 6) | (d & 0x3Fu);
    }
    ok = ok && !(len == 3 && cp < 0x800) && !(len == 4 && cp < 0x10000) && !(cp >= 0xD800 && cp <= 0xDFFF) &&
         cp <= 0x10FFFF;
    if (!ok) {
      s += "\xEF\xBF\xBD";  // U+FFFD for this one byte; the next byte starts afresh
      ++i;
    } else if ((cp >= 0x80 && cp <= 0x9F) || cp == 0x2028 || cp == 0x2029) {
      hex4(cp);
      i += len;
    } else {
      s.append(text, i, len);
      i += len;
    }
  }
  s += '"';
  return s;
}

/// Writes one JSON value to a string: objects and arrays opened and closed in order, with
/// the commas between members. The caller keeps the nesting right (key() only inside an
/// object, before each member's value).
class JsonWriter {
 public:
  JsonWriter& begin_object() { return open('{'); }
  JsonWriter& end_object() { return close('}'); }
  JsonWriter& begin_array() { return open('['); }
  JsonWriter& end_array() { return close(']'); }
  JsonWriter& key(std::string_view k) {
    comma();
    out_ += json_string(k);
    out_ += ": ";
    after_key_ = true;
    return *this;
  }
  JsonWriter& value(std::string_view v) { return raw(json_string(v)); }
  JsonWriter& value(const char* v) { return raw(json_string(v)); }
  JsonWriter& value(bool v) { return raw(v ? "true" : "false"); }
  JsonWriter& value(int64_t v) { return raw(std::to_string(v)); }
  JsonWriter& value(int v) { return raw(std::to_string(v)); }
  JsonWriter& value(size_t v) { return raw(std::to_string(v)); }
  JsonWriter& null() { return raw("null"); }
  /// The text so far (complete once every object and array is closed).
  const std::string& str() const { return out_; }

 private:
  void comma() {
    if (after_key_) {
      after_key_ = false;
      return;
    }
    if (!first_.empty()) {
      if (!first_.back()) out_ += ", ";
      first_.back() = false;
    }
  }
  JsonWriter& raw(std::string_view text) {
    comma();
    out_ += text;
    return *this;
  }
  JsonWriter& open(char c) {
    comma();
    out_ += c;
    first_.push_back(true);
    return *this;
  }
  JsonWriter& close(char c) {
    first_.pop_back();
    out_ += c;
    return *this;
  }

  std::string out_;
  std::vector<bool> first_;  // per open object or array: no member written yet
  bool after_key_ = false;
};

}  // namespace gridops::cli
