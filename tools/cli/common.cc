// The gridops command's exit statuses and terminal text (common.h).
#include "common.h"

#include <cstdio>
#include <string>

namespace gridops::cli {

// The exit status for an error of this code.
int exit_code(const Status& s) {
  switch (s.code()) {
    case StatusCode::kOk: return 0;
    case StatusCode::kUnimplemented: return kExitUnsupported;
    case StatusCode::kOutOfMemory:
    case StatusCode::kInternal: return kExitResource;
    default: return kExitInvalid;
  }
}

int fail(const Status& s) {
  std::fprintf(stderr, "gridops: %s\n", printable_message(s.message()).c_str());
  return exit_code(s);
}

// The text with control characters (C0, DEL, C1) and invalid UTF-8 bytes written as \xNN
// (and '\' as "\\"), so that a model's names cannot move the cursor or reprogram the
// terminal; valid UTF-8 text is kept. keep_newlines: '\n' stays a line break (the text of a
// multi-line message; ESC, NUL, CR and the rest are still escaped, in the names it quotes
// too).
std::string printable(const std::string& text, bool keep_newlines) {
  std::string s;
  auto escape = [&](unsigned char c) {
    char buf[8];
    std::snprintf(buf, sizeof buf, "\\x%02X", c);
    s += buf;
  };
  const size_t n = text.size();
  for (size_t i = 0; i < n;) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c == '\\') {
      s += "\\\\";
      ++i;
    } else if (c == '\n' && keep_newlines) {
      s += '\n';
      ++i;
    } else if (c < 0x20 || c == 0x7F) {
      escape(c);
      ++i;
    } else if (c < 0x80) {
      s += static_cast<char>(c);
      ++i;
    } else {
      // A well-formed UTF-8 sequence (no overlongs, surrogates or C1 controls) is kept.
      const size_t len = c >= 0xF0 && c <= 0xF4 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 && c < 0xE0 ? 2 : 0;
      bool ok = len > 0 && i + len <= n && c < 0xF5;
      uint32_t cp = ok ? (c & (0x7F >> len)) : 0;
      for (size_t k = 1; ok && k < len; ++k) {
        const auto d = static_cast<unsigned char>(text[i + k]);
        ok = (d & 0xC0) == 0x80;
        cp = (cp << 6) | (d & 0x3F);
      }
      ok = ok && !(cp >= 0x80 && cp <= 0x9F) && !(cp >= 0xD800 && cp <= 0xDFFF) && cp <= 0x10FFFF &&
           !(len == 3 && cp < 0x800) && !(len == 4 && cp < 0x10000);
      if (ok) {
        s.append(text, i, len);
        i += len;
      } else {
        escape(c);
        ++i;
      }
    }
  }
  return s;
}

}  // namespace gridops::cli
