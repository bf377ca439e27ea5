// The demo contact sheet: every operator and mode applied to a built-in image.
#pragma once

#include <string>

#include "gridops/status.h"

namespace gridops::cli {

/// Draws the contact sheet and writes it as a PNG to `path`.
Status write_demo_sheet(const std::string& path);

}  // namespace gridops::cli
