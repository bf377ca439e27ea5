// Shared by the binding files: the conversions of a user's arguments (each wrong type or
// value a TypeError / ValueError naming the argument, never pybind11's "Unable to cast
// Python instance to C++ type"), the per-call thread count, docstring and shape helpers,
// and the registration function of each operator group (module.cc calls them in turn).
#pragma once

#include <pybind11/pybind11.h>

#include <optional>
#include <string>
#include <vector>

#include "arrays.h"
#include "gridops/gridops.h"

namespace gridops::py_binding {

// --- argument conversions (args.cc) ------------------------------------------------------

/// The object's type name and its repr (cut to 80 characters), for error messages.
std::string type_and_repr(py::handle obj);
/// The value of an int (anything with __index__, not a bool), or nullopt for anything else;
/// a ValueError naming `what` when it does not fit in 64 bits.
std::optional<int64_t> index_value(py::handle obj, const std::string& what);
/// An int (or anything with __index__: NumPy and torch integers, 0-d arrays), not a bool.
int64_t int_arg(py::handle obj_in, const std::string& what);
/// A real number: an int or a float (or a NumPy / torch real scalar), not a str or a bool.
double number_arg(py::handle obj_in, const std::string& what);
/// A sequence (list, tuple, ...) that is not a str, of `n` entries where n >= 0.
py::sequence sequence_arg(py::handle obj, const std::string& what, const std::string& form,
                          ssize_t n = -1);
/// An int or a sequence of ints (NumPy arrays and torch tensors through tolist()).
Dims int_list(py::handle obj_in, const std::string& what);
/// A number or a sequence of numbers (NumPy arrays and torch tensors through tolist()).
std::vector<double> float_list(py::handle obj, const std::string& what);
/// align_corners: True/False or 0/1.
int64_t align_flag(py::handle obj, const std::string& what);
/// "channels_first" / "NCHW" / "nchw" or "channels_last" / "NHWC" / "nhwc".
ChannelLayout parse_layout(const std::string& s, const char* op);
/// The result of a call that allocates its output, wrapped (as a torch tensor if as_torch).
py::object finish(StatusOr<Tensor> r, bool as_torch);

/// A thread count given as `what` (threads=, set_num_threads): an int in 0..kMaxThreads
/// (0: the default); a bool, float, str or anything else is a TypeError, an int outside the
/// range a ValueError, both naming the argument.
int thread_count(py::handle obj, const std::string& what);

/// gridops' thread count for one call, on the calling thread only (ScopedNumThreads): the
/// process-wide count and other threads' calls are untouched.
struct ScopedThreads {
  std::optional<ScopedNumThreads> scope;
  explicit ScopedThreads(py::handle threads) {
    if (threads.is_none()) return;
    scope.emplace(thread_count(threads, "threads"));
  }
};

/// A function's docstring followed by the common text on arrays and errors (kept alive for
/// the module's lifetime).
const char* with_arrays(const char* text);

template <class T>
std::vector<int64_t> dims_of(const T& d) {
  return std::vector<int64_t>(d.begin(), d.end());
}

// --- the operator groups' registrations (one file each) ----------------------------------

void init_grid_sample(py::module_& m);  // grid_sample.cc: GridSample and its backward
void init_affine(py::module_& m);       // affine.cc: AffineWarp, AffineGrid and its backward
void init_resize(py::module_& m);       // resize.cc: ONNX Resize
void init_gather(py::module_& m);       // gather.cc
void init_pad(py::module_& m);          // pad.cc
void init_resample(py::module_& m);     // resample.cc: Resample and its backward
void init_ms_deform_attn(py::module_& m);  // ms_deform_attn.cc: deformable attention
void init_onnx(py::module_& m);         // onnx_module.cc (only when built with gridops::onnx)

}  // namespace gridops::py_binding
