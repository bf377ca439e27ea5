// Shared by the gridops command's files: exit statuses and messages for the terminal.
#pragma once

#include <string>

#include "gridops/status.h"

namespace gridops::cli {

// Exit statuses (docs/onnx.md): 0 ok, 1 a conformance case failed, 2 invalid model, input or
// usage, 3 unsupported by gridops, 4 out of memory or the outputs could not be written.
constexpr int kExitInvalid = 2, kExitUnsupported = 3, kExitResource = 4;

/// The text with control characters (C0, DEL, C1) and invalid UTF-8 bytes written as \xNN
/// (and '\' as "\\"), so that a model's names cannot move the cursor or reprogram the
/// terminal; valid UTF-8 text is kept. keep_newlines: '\n' stays a line break.
std::string printable(const std::string& text, bool keep_newlines = false);
/// A message for the terminal: line breaks kept, every other control byte escaped.
inline std::string printable_message(const std::string& text) { return printable(text, true); }

/// The exit status for an error of this code.
int exit_code(const Status& s);
/// Prints "gridops: <message>" to stderr and returns exit_code(s).
int fail(const Status& s);

}  // namespace gridops::cli
