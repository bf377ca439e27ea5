// `gridops run`'s output files: every output written, or none (outputs.cc).
#pragma once

#include <map>
#include <string>

#include "gridops/tensor.h"

namespace gridops::cli {

/// Writes every output of `outs` to out_dir (created if missing) as <stem>.npy or
/// <stem>.pb (format "npy" or "pb"), all or nothing, and prints one line per output; the
/// exit status (0, or kExitInvalid / kExitResource with the reason on stderr).
int write_outputs(const std::map<std::string, Tensor>& outs, const std::string& out_dir, const std::string& format);

}  // namespace gridops::cli
