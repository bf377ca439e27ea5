// gridops.resample, resample_input_box, resample_backward and ResamplePlan: Resample reads
// and writes dense buffers in a memory format (plain, channels-last, blocked).
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "bindings.h"
#include "docstrings.h"

namespace gridops::py_binding {
namespace {

MemoryFormat parse_format(const std::string& s, int* rank_hint) {
  if (s == "channels_first") {
    *rank_hint = 0;
    return MemoryFormat::kPlain;
  }
  return value_or_throw(parse_memory_format(s, rank_hint));
}

int64_t block_of(MemoryFormat f) {
  return f == MemoryFormat::kBlocked8 ? 8 : f == MemoryFormat::kBlocked16 ? 16 : 0;
}

// The array shape a memory desc is stored as: plain (N, C, D...), channels-last
// (N, D..., C), blocked (N, ceil(C / b), D..., b).
Dims array_shape(const ResampleMemoryDesc& md) {
  const Dims& d = md.dims;
  const size_t r = d.size() - 2;
  Dims s;
  switch (md.format) {
    case MemoryFormat::kPlain: return d;
    case MemoryFormat::kChannelsLast:
      s.push_back(d[0]);
      for (size_t i = 0; i < r; ++i) s.push_back(d[2 + i]);
      s.push_back(d[1]);
      return s;
    case MemoryFormat::kBlocked8: case MemoryFormat::kBlocked16: {
      const int64_t b = block_of(md.format);
      s.push_back(d[0]);
      s.push_back((d[1] + b - 1) / b);
      for (size_t i = 0; i < r; ++i) s.push_back(d[2 + i]);
      s.push_back(b);
      return s;
    }
  }
  return d;
}

const char* to_string_layout(MemoryFormat f) {
  switch (f) {
    case MemoryFormat::kPlain: return "channels_first (N, C, D...)";
    case MemoryFormat::kChannelsLast: return "channels_last (N, D..., C)";
    case MemoryFormat::kBlocked8: return "blocked8 (N, ceil(C/8), D..., 8)";
    case MemoryFormat::kBlocked16: return "blocked16 (N, ceil(C/16), D..., 16)";
  }
  return "?";
}

// The logical (N, C, D...) dims of an array stored in `f`.
Dims logical_dims(const Dims& shape, MemoryFormat f, py::handle channels, int rank_hint,
                  const std::string& what) {
  const int64_t b = block_of(f);
  const size_t extra = b ? 3 : 2;
  if (shape.size() < extra + 1 || shape.size() > extra + 3) {
    throw PyError{PyExc_ValueError, what + ": expected rank " + std::to_string(extra + 1) + " to " +
                                        std::to_string(extra + 3) + " for layout " +
                                        to_string_layout(f) + " (1 to 3 spatial axes), got shape " +
                                        dims_to_string(shape)};
  }
  const int r = static_cast<int>(shape.size() - extra);
  if (rank_hint && rank_hint != r) {
    throw PyError{PyExc_ValueError, what + ": layout '" + format_tag(f, rank_hint) + "' has " +
                                        std::to_string(rank_hint) + " spatial axes, the array has " +
                                        std::to_string(r) + " (shape " + dims_to_string(shape) + ")"};
  }
  Dims d{shape[0], 0};
  if (f == MemoryFormat::kPlain) {
    d[1] = shape[1];
    for (int i = 0; i < r; ++i) d.push_back(shape[2 + i]);
  } else if (f == MemoryFormat::kChannelsLast) {
    d[1] = shape.back();
    for (int i = 0; i < r; ++i) d.push_back(shape[1 + i]);
  } else {
    if (shape.back() != b) {
      throw PyError{PyExc_ValueError, what + ": a blocked" + std::to_string(b) +
                                          " array's last axis must be " + std::to_string(b) +
                                          ", got shape " + dims_to_string(shape)};
    }
    const int64_t c = channels.is_none() ? shape[1] * b : int_arg(channels, what + ": channels");
    if (c < 0 || (c + b - 1) / b != shape[1]) {
      throw PyError{PyExc_ValueError, what + ": channels=" + std::to_string(c) + " needs " +
                                          std::to_string((c + b - 1) / b) + " blocks of " +
                                          std::to_string(b) + ", the array has " +
                                          std::to_string(shape[1])};
    }
    d[1] = c;
    for (int i = 0; i < r; ++i) d.push_back(shape[2 + i]);
  }
  const int64_t given = channels.is_none() ? 0 : int_arg(channels, what + ": channels");
  if (!channels.is_none() && !b && given != d[1]) {
    throw PyError{PyExc_ValueError, what + ": channels=" + std::to_string(given) +
                                        " does not match the array's " + std::to_string(d[1])};
  }
  return d;
}

bool dense(const TensorView& v) {
  const Dims c = contiguous_strides(v.shape);
  for (size_t i = 0; i < v.shape.size(); ++i) {
    if (v.shape[i] > 1 && v.strides[i] != c[i]) return false;
  }
  return true;
}

// Resample reads and writes dense buffers (ResamplePlan takes pointers): check that an
// array is exactly the buffer of `md`, or make a dense copy of an input (counted).
struct DenseIn {
  InArray array;
  Tensor copy;
  const void* data = nullptr;
};

void require_buffer(const TensorView& v, const ResampleMemoryDesc& md, const std::string& what,
                    bool is_output) {
  const Dims want = array_shape(md);
  if (v.dtype != md.dtype) {
    throw PyError{dtype_error_type(), what + ": expected dtype " + std::string(to_string(md.dtype)) +
                                          ", got " + to_string(v.dtype)};
  }
  if (v.shape != want) {
    throw PyError{PyExc_ValueError, what + ": expected shape " + dims_to_string(want) + " (layout " +
                                        format_tag(md.format, static_cast<int>(md.dims.size()) - 2) +
                                        "), got " + dims_to_string(v.shape)};
  }
  if (is_output && !dense(v)) {
    throw PyError{PyExc_ValueError, what + ": resample writes dense (C-contiguous) arrays only, got "
                                           "strides " + dims_to_string(v.strides) + " for shape " +
                                           dims_to_string(v.shape)};
  }
}

void densify(DenseIn& in, const std::string& what) {
  if (dense(in.array.view)) {
    in.data = in.array.view.data;
    return;
  }
  // A zero pad is a strided copy into a new dense tensor (through the library).
  PadDesc d;
  d.pads_begin.assign(in.array.view.rank(), 0);
  d.pads_end.assign(in.array.view.rank(), 0);
  {
    StatusOr<Tensor> r = Status(StatusCode::kInternal, "unset");
    {
      py::gil_scoped_release nogil;
      r = gridops::pad(d, in.array.view);
    }
    in.copy = value_or_throw(std::move(r));
  }
  (void)what;
  ++input_copies();
  in.data = in.copy.data();
}

struct PyResamplePlan {
  ResamplePlan plan;

  py::object forward(py::object input, py::object out, bool as_torch_default) const {
    DenseIn in;
    in.array = get_array(input, "resample: input");
    require_buffer(in.array.view, plan.src_desc(), "resample: input", false);
    densify(in, "resample: input");
    return run_dense(in, out, in.array.from_torch || as_torch_default, plan.dst_desc(), true);
  }
  py::object backward(py::object grad_output, py::object out) const {
    DenseIn in;
    in.array = get_array(grad_output, "resample_backward: grad_output");
    require_buffer(in.array.view, plan.dst_desc(), "resample_backward: grad_output", false);
    densify(in, "resample_backward: grad_output");
    return run_dense(in, out, in.array.from_torch, plan.src_desc(), false);
  }

  py::object run_dense(const DenseIn& in, py::handle out, bool as_torch, const ResampleMemoryDesc& omd,
                 bool fwd) const {
    const char* what = fwd ? "resample: out" : "resample_backward: out";
    if (!out.is_none()) {
      InArray dst = get_array(out, what, true);
      require_buffer(dst.view, omd, what, true);
      // The pointers carry no extents: reject an out= that overlaps the input here.
      const int64_t ib = static_cast<int64_t>(value_or_throw(
                             fwd ? plan.src_desc().buffer_elements() : plan.dst_desc().buffer_elements())) *
                         static_cast<int64_t>(dtype_size(omd.dtype));
      const int64_t ob = value_or_throw(omd.buffer_elements()) * static_cast<int64_t>(dtype_size(omd.dtype));
      const auto* i0 = static_cast<const char*>(in.data);
      const auto* o0 = static_cast<const char*>(dst.view.data);
      if (ib > 0 && ob > 0 && i0 < o0 + ob && o0 < i0 + ib) {
        throw PyError{PyExc_ValueError, std::string(what) + ": must not overlap the input in memory"};
      }
      Status s;
      {
        py::gil_scoped_release nogil;
        s = fwd ? plan.forward(in.data, dst.view.mutable_data())
                : plan.backward(in.data, dst.view.mutable_data());
      }
      check(s);
      return py::reinterpret_borrow<py::object>(out);
    }
    Tensor t = value_or_throw(Tensor::create(omd.dtype, array_shape(omd)));
    Status s;
    {
      py::gil_scoped_release nogil;
      s = fwd ? plan.forward(in.data, t.data()) : plan.backward(in.data, t.data());
    }
    check(s);
    return wrap_tensor(std::move(t), as_torch);
  }
};

PyResamplePlan make_py_resample_plan(const Dims& src_dims, const Dims& dst_dims, DType dt,
                                     const std::string& mode, MemoryFormat in_fmt,
                                     MemoryFormat out_fmt, const ResampleWindow* window = nullptr) {
  ResampleDesc d;
  d.algorithm = value_or_throw(parse_resample_algorithm(mode));
  ResampleMemoryDesc s{dt, src_dims, in_fmt}, o{dt, dst_dims, out_fmt};
  if (window != nullptr) return PyResamplePlan{value_or_throw(make_resample_plan(d, s, o, *window))};
  return PyResamplePlan{value_or_throw(make_resample_plan(d, s, o))};
}

// Spatial output dims from size= or scale_factor= (exactly one).
Dims resample_out_dims(const Dims& src_dims, py::handle size, py::handle scale_factor) {
  const size_t r = src_dims.size() - 2;
  if (size.is_none() == scale_factor.is_none()) {
    throw PyError{PyExc_ValueError, "resample: give exactly one of size and scale_factor"};
  }
  if (!size.is_none()) {
    Dims s = int_list(size, "resample: size");
    if (s.size() == 1 && r > 1) s.assign(r, s[0]);
    if (s.size() != r) {
      throw PyError{PyExc_ValueError, "resample: size must have " + std::to_string(r) +
                                          " entries (one per spatial axis), got " + std::to_string(s.size())};
    }
    Dims out{src_dims[0], src_dims[1]};
    out.insert(out.end(), s.begin(), s.end());
    return out;
  }
  std::vector<double> f;
  if (py::isinstance<py::sequence>(scale_factor) && !py::isinstance<py::str>(scale_factor)) {
    for (py::handle x : py::reinterpret_borrow<py::sequence>(scale_factor)) {
      f.push_back(number_arg(x, "resample: scale_factor"));
    }
  } else {
    f.push_back(number_arg(scale_factor, "resample: scale_factor"));
  }
  if (f.size() == 1 && r > 1) f.assign(r, f[0]);
  if (f.size() != r) {
    throw PyError{PyExc_ValueError, "resample: scale_factor must have " + std::to_string(r) +
                                        " entries (one per spatial axis), got " + std::to_string(f.size())};
  }
  return value_or_throw(resample_dst_dims(src_dims, f));
}

// A channels-first request on a torch channels_last tensor (strides of NHWC) is read as
// the channels-last format without a copy.
MemoryFormat adopt_strided_format(const InArray& a, MemoryFormat f, const Dims& logical) {
  if (f != MemoryFormat::kPlain || dense(a.view)) return f;
  ResampleMemoryDesc cl{a.view.dtype, logical, MemoryFormat::kChannelsLast};
  const Dims cl_shape = array_shape(cl);
  const Dims cl_strides = contiguous_strides(cl_shape);
  // logical axis i of the plain view sits at position perm[i] of the channels-last shape
  const size_t r = logical.size() - 2;
  for (size_t i = 0; i < logical.size(); ++i) {
    const size_t pos = i == 0 ? 0 : i == 1 ? r + 1 : i - 1;
    if (a.view.shape[i] > 1 && a.view.strides[i] != cl_strides[pos]) return f;
  }
  return MemoryFormat::kChannelsLast;
}

py::object py_resample(py::object input, py::object size, py::object scale_factor,
                    const std::string& mode, const std::string& layout, py::object channels,
                    py::object out_layout, py::object out, py::object window) {
  std::unique_ptr<ResampleWindow> win;
  if (!window.is_none()) {
    // (full_input_size, full_output_size, input_origin, output_origin), spatial entries.
    const py::sequence seq = sequence_arg(
        window, "resample: window",
        "(full_input_size, full_output_size, input_origin, output_origin)", 4);
    win = std::make_unique<ResampleWindow>();
    win->full_in = int_list(seq[0], "resample: window full_input_size");
    win->full_out = int_list(seq[1], "resample: window full_output_size");
    win->in_origin = int_list(seq[2], "resample: window input_origin");
    win->out_origin = int_list(seq[3], "resample: window output_origin");
    if (size.is_none() || !scale_factor.is_none()) {
      throw PyError{PyExc_ValueError, "resample: with a window, give size (the output box's "
                                      "spatial sizes), not scale_factor"};
    }
  }
  int rank_hint = 0;
  MemoryFormat in_fmt = parse_format(layout, &rank_hint);
  int out_rank_hint = 0;
  const MemoryFormat out_fmt =
      out_layout.is_none() ? in_fmt : parse_format(out_layout.cast<std::string>(), &out_rank_hint);
  DenseIn in;
  in.array = get_array(input, "resample: input");
  const Dims src_dims = logical_dims(in.array.view.shape, in_fmt, channels, rank_hint, "resample: input");
  const Dims dst_dims = resample_out_dims(src_dims, size, scale_factor);
  const MemoryFormat read_fmt = adopt_strided_format(in.array, in_fmt, src_dims);
  PyResamplePlan p = make_py_resample_plan(src_dims, dst_dims, in.array.view.dtype, mode, read_fmt,
                                           out_fmt, win.get());
  if (read_fmt != in_fmt) {
    // The same memory, addressed as channels-last (dense in that order).
    in.data = in.array.view.data;
  } else {
    require_buffer(in.array.view, p.plan.src_desc(), "resample: input", false);
    densify(in, "resample: input");
  }
  return p.run_dense(in, out, in.array.from_torch, p.plan.dst_desc(), true);
}

py::object py_resample_backward(py::object grad_output, py::object input_size, const std::string& mode,
                             const std::string& layout, py::object out_layout, py::object out) {
  int rank_hint = 0;
  const MemoryFormat g_fmt = parse_format(layout, &rank_hint);
  int out_rank_hint = 0;
  const MemoryFormat in_fmt =
      out_layout.is_none() ? g_fmt : parse_format(out_layout.cast<std::string>(), &out_rank_hint);
  const Dims src_dims = int_list(input_size, "resample_backward: input_size");
  DenseIn g;
  g.array = get_array(grad_output, "resample_backward: grad_output");
  const Dims dst_dims = logical_dims(g.array.view.shape, g_fmt,
                                     src_dims.size() > 1 ? py::cast(src_dims[1]) : py::none(),
                                     rank_hint, "resample_backward: grad_output");
  PyResamplePlan p = make_py_resample_plan(src_dims, dst_dims, g.array.view.dtype, mode, in_fmt, g_fmt);
  require_buffer(g.array.view, p.plan.dst_desc(), "resample_backward: grad_output", false);
  densify(g, "resample_backward: grad_output");
  return p.run_dense(g, out, g.array.from_torch, p.plan.src_desc(), false);
}

}  // namespace

void init_resample(py::module_& m) {
  using py::arg;
  m.def("resample", &py_resample, arg("input"), arg("size") = py::none(),
        arg("scale_factor") = py::none(), arg("mode") = "linear", py::kw_only(),
        arg("layout") = "channels_first", arg("channels") = py::none(),
        arg("out_layout") = py::none(), arg("out") = py::none(), arg("window") = py::none(),
        with_arrays(doc::kResample));

  m.def("resample_input_box", [](py::object full_input_size, py::object full_output_size,
                                 py::object out_begin, py::object out_end, const std::string& mode) {
          const auto alg = value_or_throw(parse_resample_algorithm(mode));
          const Dims fi = int_list(full_input_size, "resample_input_box: full_input_size");
          const Dims fo = int_list(full_output_size, "resample_input_box: full_output_size");
          const Dims b = int_list(out_begin, "resample_input_box: out_begin");
          const Dims e = int_list(out_end, "resample_input_box: out_end");
          py::list out;
          for (const auto& [lo, hi] : value_or_throw(resample_input_box(alg, fi, fo, b, e))) {
            out.append(py::make_tuple(lo, hi));
          }
          return out;
        },
        arg("full_input_size"), arg("full_output_size"), arg("out_begin"), arg("out_end"),
        arg("mode") = "linear", doc::kResampleInputBox);

  m.def("resample_backward", &py_resample_backward, arg("grad_output"), arg("input_size"),
        arg("mode") = "linear", py::kw_only(), arg("layout") = "channels_first",
        arg("out_layout") = py::none(), arg("out") = py::none(), with_arrays(doc::kResampleBackward));

  py::class_<PyResamplePlan>(m, "ResamplePlan", doc::kResamplePlan)
      .def(py::init([](py::object input_size, py::object output_size, const std::string& mode,
                       py::object dtype, const std::string& layout, py::object out_layout) {
             int h1 = 0, h2 = 0;
             const MemoryFormat f = parse_format(layout, &h1);
             const MemoryFormat of =
                 out_layout.is_none() ? f : parse_format(out_layout.cast<std::string>(), &h2);
             Dims src = int_list(input_size, "ResamplePlan: input_size");
             Dims dst = int_list(output_size, "ResamplePlan: output_size");
             if (dst.size() + 2 == src.size() && src.size() >= 2) {  // spatial sizes only
               dst.insert(dst.begin(), {src[0], src[1]});
             }
             const DType dt = dtype_from_py(dtype, "ResamplePlan: dtype");
             return make_py_resample_plan(src, dst, dt, mode, f, of);
           }),
           arg("input_size"), arg("output_size"), arg("mode") = "linear", arg("dtype") = "float32",
           arg("layout") = "channels_first", arg("out_layout") = py::none())
      .def("__call__", [](const PyResamplePlan& p, py::object x, py::object out) {
             return p.forward(x, out, false);
           }, arg("input"), py::kw_only(), arg("out") = py::none(),
           "__call__(input, *, out=None): resamples (the same as forward).")
      .def("forward", [](const PyResamplePlan& p, py::object x, py::object out) {
             return p.forward(x, out, false);
           }, arg("input"), py::kw_only(), arg("out") = py::none(),
           "forward(input, *, out=None): resamples input (the plan's input_shape) to output_shape.")
      .def("backward", &PyResamplePlan::backward, arg("grad_output"), py::kw_only(),
           arg("out") = py::none(),
           "backward(grad_output, *, out=None): the adjoint, output_shape -> input_shape.")
      .def_property_readonly("input_shape", [](const PyResamplePlan& p) {
        return py::tuple(py::cast(dims_of(array_shape(p.plan.src_desc()))));
      })
      .def_property_readonly("output_shape", [](const PyResamplePlan& p) {
        return py::tuple(py::cast(dims_of(array_shape(p.plan.dst_desc()))));
      })
      .def_property_readonly("impl_name", [](const PyResamplePlan& p) { return std::string(p.plan.impl_name()); });
}

}  // namespace gridops::py_binding
