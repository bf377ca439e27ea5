// The docstrings of gridops' Python API (help(gridops.grid_sample) shows them).
#pragma once

namespace gridops::py_binding::doc {

inline constexpr const char* kArrays = R"(
Arrays: any object with the buffer protocol or __array_interface__ (NumPy arrays,
including non-contiguous and negative-stride views, are read in place) or __dlpack__
(PyTorch CPU tensors, bfloat16 included). Inputs are never copied. The result is a NumPy
array that owns gridops memory, or a torch.Tensor (through DLPack, no copy) when the first
array argument is one. With out= the result is written into that writable array (any
strides) and out is returned. The GIL is released while the kernel runs.

Errors: ValueError for invalid arguments (the message names the argument, the expected and
the actual value), gridops.DTypeError (a TypeError and a ValueError) for unsupported
dtypes, TypeError for objects that are not arrays, MemoryError when an allocation fails.
Nothing is written to out= when an error is raised.)";

inline constexpr const char* kGridSample = R"(grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=False, *, layout="channels_first", out=None, full_size=None, origin=None, grid_units="normalized", grid_kind="absolute", fill_value=0.0)

Samples input at the normalized positions in grid (ONNX GridSample 16/20/22, any spatial
rank r >= 1).

input: (N, C, D1, ..., Dr), or (N, D1, ..., Dr, C) with layout="channels_last"; every
  dtype: float16, bfloat16, float32, float64, complex, integers and bool (interpolated
  integers truncate toward zero and saturate, where OpenCV's remap rounds; see
  docs/ops/grid_sample.md).
grid: (N, D1_out, ..., Dr_out, r) of float16/bfloat16/float32/float64, the last axis in
  (x, y, z, ...) order (innermost spatial axis first), values in [-1, 1].
mode: "bilinear"/"linear", "nearest", "bicubic"/"cubic" (every ONNX spelling; linear and
  cubic apply to any rank).
padding_mode: "zeros", "border", "reflection", and the gridops extensions "wrap" (index
  modulo the axis length), "constant" (taps outside read fill_value) and "fill" (a sample
  outside the input's bounds takes fill_value; inside ones clamp their taps).
align_corners: False/True (0/1 accepted).
layout: "channels_first" (PyTorch/ONNX) or "channels_last".
grid_units: "normalized" ([-1, 1], ONNX) or "pixels" (p is the centre of pixel p).
grid_kind: "absolute" or "displacement" (grid holds offsets added to each output point's
  own coordinate, inside the kernel: the same bits as the absolute grid base + d).
fill_value: the value of "constant" (finite) and "fill" (any, NaN included); 0 otherwise.
  docs/ops/grid_sample.md, "Grid conventions" and "Padding modes".
full_size, origin: an input window (both or neither; docs/ops/grid_sample.md, "Input
  window"): input holds only the box at `origin` (one int per spatial axis) of a full
  input of spatial sizes `full_size`; coordinates are computed against the full input and
  the result is the same bits as grid_sample on the full input. The box must contain
  grid_sample_input_box(grid, full_size, ...), else ValueError (nothing is written).
Returns (N, C, D1_out, ..., Dr_out) (or channels-last), the dtype of input.

Differences from torch.nn.functional.grid_sample: any spatial rank (torch: 2-D and 3-D);
bicubic for every rank (torch: 2-D only); integer and bool inputs; the channels-last
layout.
)";

inline constexpr const char* kGridSampleInputBox = R"(grid_sample_input_box(grid, full_size, mode="bilinear", padding_mode="zeros", align_corners=False, *, grid_units="normalized", grid_kind="absolute", fill_value=0.0) -> list of (lo, hi)

The part of a full input of spatial sizes full_size (D1 first) that grid_sample may read
for this grid: per spatial axis the half-open range [lo, hi), the taps' range widened by
K - 1 (K = 1, 2, 4 for nearest, linear, cubic) and clipped to the input. Pass that box with
full_size= and origin= to grid_sample to run on the box only (gridops.dask does).
grid_units, grid_kind, fill_value: as grid_sample's (wrap reads the whole axis as soon as a
tap leaves it).
)";

inline constexpr const char* kResampleInputBox = R"(resample_input_box(full_input_size, full_output_size, out_begin, out_end, mode="linear") -> list of (lo, hi)

The input range [lo, hi) per spatial axis that the outputs [out_begin, out_end) of a
resampling from full_input_size to full_output_size (spatial sizes) read.
)";

inline constexpr const char* kResizeInputBox = R"(resize_input_box(full_input_shape, out_begin, out_end, scales=None, sizes=None, mode="nearest", *, coordinate_transformation_mode="half_pixel", nearest_mode="round_prefer_floor", cubic_coeff_a=-0.75, exclude_outside=False, antialias=False, keep_aspect_ratio_policy="stretch", axes=None, roi=None) -> list of (lo, hi)

The input range [lo, hi) per axis that the outputs [out_begin, out_end) of resize(...) on
a full input of shape full_input_shape read ((0, 0) where they read nothing).
)";

inline constexpr const char* kGridSampleBackward = R"(grid_sample_backward(grad_output, input, grid, mode="bilinear", padding_mode="zeros", align_corners=False, *, layout="channels_first", input_grad=True, grid_grad=True, grad_input_out=None, grad_grid_out=None, grid_units="normalized", grid_kind="absolute", fill_value=0.0)

The gradients of grid_sample with respect to input and grid, given grad_output (the
gradient of a loss with respect to grid_sample's result); PyTorch's grid_sampler backward
(torch.autograd through F.grid_sample), with its conventions at the non-differentiable
points (docs/ops/grid_sample.md, "Backward").

input, grid, mode, padding_mode, align_corners, layout: as in the forward call; input and
  grad_output float16, bfloat16, float32 or float64.
input_grad / grid_grad: compute that gradient (False: skipped, returned as None).
grad_input_out / grad_grid_out: write that gradient into this array (overwritten).
Returns (grad_input, grad_grid).
)";

inline constexpr const char* kAffineGridBackward = R"(affine_grid_backward(grad_grid, size, align_corners=False, *, out=None)

The gradient of affine_grid with respect to theta, given grad_grid (the gradient of a loss
with respect to the grid): (N, 2, 3) for a 4-entry size, (N, 3, 4) for a 5-entry size.
)";

inline constexpr const char* kResize = R"(resize(input, scales=None, sizes=None, mode="nearest", *, coordinate_transformation_mode="half_pixel", nearest_mode="round_prefer_floor", cubic_coeff_a=-0.75, exclude_outside=False, antialias=False, keep_aspect_ratio_policy="stretch", extrapolation_value=0.0, axes=None, roi=None, out=None, window=None)

ONNX Resize (10-19) on any axes of any rank and dtype; the argument names and defaults are
ONNX Resize-19's attributes and inputs (docs/ops/resize.md).

scales: one float per resized axis (output = floor(in * scale)); sizes: one int per
  resized axis; give exactly one. A single number (an int for sizes) applies to every
  spatial axis, those after N and C (or each of axes=), as F.interpolate's scale_factor.
mode: "nearest", "linear" (also bilinear/trilinear), "cubic" (also bicubic); PyTorch's
  "nearest-exact" and "area" are refused with the equivalent to use.
coordinate_transformation_mode: half_pixel, half_pixel_symmetric, pytorch_half_pixel,
  align_corners, asymmetric, tf_half_pixel_for_nn, tf_crop_and_resize (with roi and
  extrapolation_value).
nearest_mode: round_prefer_floor, round_prefer_ceil, floor, ceil.
axes: the resized axes (default: all); roi: [starts..., ends...] for tf_crop_and_resize.
torch.nn.functional.interpolate(mode="bilinear", align_corners=False) is
resize(x, sizes=..., mode="linear", axes=[2, 3]) with half_pixel, for every output length
(ONNX's pytorch_half_pixel maps a length-1 output to input coordinate 0, which PyTorch does
not); bicubic is mode="cubic"; antialias=True matches interpolate's antialias with
exclude_outside=True (docs/coming-from.md). Interpolated integer results truncate toward
zero and saturate (ERRATA GridSample 7: a uint8 result averages about half a grey level
below the float result; OpenCV and Pillow round; docs/ops/resize.md). A torch tensor in channels-last memory format gives a
channels-last result (as F.interpolate; one copy).
window: (full_input_shape, input_origin, output_origin, output_shape): resize planned for
  the full input, run on input = its box at input_origin, giving the box at output_origin
  of shape output_shape of the full result (the same bits; docs/ops/resize.md, "Window").
  input must contain resize_input_box(...) of the output box, else ValueError.
)";

inline constexpr const char* kAffineGrid = R"(affine_grid(theta, size, align_corners=False, *, out=None, window=None)

A sampling grid from a batch of affine matrices (ONNX AffineGrid 20, as
torch.nn.functional.affine_grid).

theta: (N, 2, 3) for 2-D or (N, 3, 4) for 3-D; float16/bfloat16/float32/float64.
size: (N, C, H, W) or (N, C, D, H, W) (a torch.Size works).
Returns (N, H, W, 2) or (N, D, H, W, 3) of theta's dtype.
window: (origin, shape), spatial, outermost first: only that box of the grid, (N, shape...,
  r), the same bits as that part of the whole grid.
)";

inline constexpr const char* kAffineWarp = R"(affine_warp(input, theta, size, mode="bilinear", padding_mode="zeros", align_corners=False, *, layout="channels_first", out=None, window=None, full_size=None, origin=None, threads=None)

grid_sample(input, affine_grid(theta, (N, C, *size), align_corners), mode, padding_mode,
align_corners) fused: no grid is materialized; the grid values are AffineGrid's bits.
docs/ops/affine_warp.md.

input: (N, C, W), (N, C, H, W) or (N, C, D, H, W) (channels_last: channels at the end).
theta: (N, r, r + 1), float16/bfloat16/float32/float64.
size: the r output spatial sizes, or (N, C, *spatial) (a torch.Size works).
window: (origin, shape), spatial: only that box of the output, with the whole output's
  coordinates (the same bits as that part of the whole result).
full_size=, origin=: input is only the box at origin of a full input of spatial sizes
  full_size; it must contain affine_warp_input_box(...) (else an error, nothing written).
threads: gridops threads for this call (process-wide while it runs); None: the current.
The fast kernel takes float32 input and theta, channels-first, bilinear and nearest;
the rest runs the reference (nearest bit-exact, linear within 2^-19 * max|input|).
)";

inline constexpr const char* kAffineWarpInputBox = R"(affine_warp_input_box(theta, full_size, size, out_origin, out_shape, mode="bilinear", padding_mode="zeros", align_corners=False) -> list of (lo, hi)

The part of a full input of spatial sizes full_size that affine_warp reads for the output
box at out_origin with shape out_shape of an output of spatial sizes size: per spatial axis
[lo, hi), the exact hull of the taps (from the box's corners) widened by K - 1 (K = 1, 2, 4
for nearest, linear, cubic) and clipped. Pass it as full_size= and origin= to affine_warp.
)";

inline constexpr const char* kGather = R"(gather(data, indices, axis=0, *, out=None)

Takes slices of data along axis at indices (ONNX Gather; numpy.take(data, indices, axis)
for in-range indices).

data: any rank >= 1, any dtype but strings.
indices: int32 or int64, any rank (a 0-d array removes the axis); negative indices count
  from the end; every index is checked before anything is written (IndexError-like
  conditions raise ValueError).
Returns data.shape[:axis] + indices.shape + data.shape[axis+1:].
)";

inline constexpr const char* kPad = R"(pad(input, pads, mode="constant", value=None, axes=None, *, out=None, order="onnx", constant_values=None)

Pads (or, with negative pads, crops) input (ONNX Pad 18-21 / OpenVINO Pad-12).

pads: either the ONNX form, a flat sequence [b_1, ..., b_k, e_1, ..., e_k] (all begins,
  then all ends, for the k axes padded), or NumPy's pad_width: an int, one (before, after)
  pair for every axis, or one pair per axis. A flat sequence is always read as ONNX pads
  (numpy.pad would read (1, 2) as one pair for every axis: write ((1, 2),) for that).
order: "onnx" (the forms above) or "torch": pads is torch.nn.functional.pad's tuple,
  (before, after) pairs from the last axis backwards, (left, right, top, bottom, ...),
  covering the last len(pads) // 2 axes (then axes= must be None).
mode: "constant", "edge" (PyTorch's "replicate"), "reflect", "symmetric" (numpy's), "wrap"
  (PyTorch's "circular"); numpy.pad's statistical modes and "linear_ramp" are refused.
value: the constant (default 0); a Python number (complex for complex inputs) converted to
  input's dtype (an error if it does not fit) or a one-element array of input's dtype;
  only with mode="constant". constant_values: numpy.pad's name for it (one scalar).
axes: the axes pads apply to (default: all); negative axes count from the end.
A torch tensor in channels-last memory format gives a channels-last result (as F.pad).
)";

inline constexpr const char* kPadBackward = R"(pad_backward(grad, input_shape, pads, mode="constant", axes=None, *, out=None, order="onnx")

The gradient of gridops.pad with respect to its input (the adjoint of the data movement):
grad has the padded output's shape, the result input_shape; element i of the result is
the sum of grad over the output elements that copy input element i (reflect and wrap
borders read an element several times; cropped elements and the constant border give or
take nothing; the pad value gets no gradient). The sum runs in increasing row-major order
of the output positions, from +0, in float32 (float64 for float64 and complex128 grads;
complex: each part), rounded once to grad's dtype: the same bits for every implementation
and thread count.

pads, mode, axes and order: as in gridops.pad (the same pad, PyTorch's mode names too).
dtypes: float32, float64, float16, bfloat16, complex64, complex128.
)";

inline constexpr const char* kMsDeformAttn = R"(ms_deform_attn(value, spatial_shapes, level_start_index, sampling_locations, attention_weights, *, out=None)

Multi-scale deformable attention (Deformable DETR's MSDeformAttn core): for each batch n,
query q and head m, the sum over levels l and points p of attention_weights[n, q, m, l, p]
times the bilinear sample of level l of value at sampling_locations[n, q, m, l, p] (x, y in
[0, 1]: pixel x * W_l - 0.5, y * H_l - 0.5; zeros outside the level, NaN locations sample
0), as F.grid_sample(value_l, 2 * loc - 1, "bilinear", "zeros", align_corners=False).

value: (N, S, M, D), S = sum of H_l * W_l; spatial_shapes: (L, 2) (H_l, W_l), an array or
nested sequence of ints; level_start_index: (L,) the first row of each level in value;
sampling_locations: (N, Lq, M, L, P, 2); attention_weights: (N, Lq, M, L, P).
Returns (N, Lq, M * D). dtypes: float32, float64, float16, bfloat16 (all tensors the same;
the half types summed in float, rounded once).
)";

inline constexpr const char* kMsDeformAttnBackward = R"(ms_deform_attn_backward(grad_output, value, spatial_shapes, level_start_index, sampling_locations, attention_weights, *, value_grad=True, locations_grad=True, weights_grad=True)

The gradients of ms_deform_attn with respect to value, sampling_locations and
attention_weights, given grad_output (N, Lq, M * D): a tuple of three (None for those not
asked for). Deterministic: the value gradient adds each head's queries in order, the same
bits for any thread count. A point outside its level (or NaN) has zero gradient.
)";

inline constexpr const char* kResample = R"(resample(input, size=None, scale_factor=None, mode="linear", *, layout="channels_first", channels=None, out_layout=None, out=None, window=None)

Resizes the spatial axes (oneDNN resampling forward, 1-D/2-D/3-D): "linear" interpolates
with half-pixel centers (torch.nn.functional.interpolate with align_corners=False),
"nearest" takes floor((o + 0.5) * in / out) (interpolate's "nearest-exact").

size: output spatial sizes (an int for every axis, or one per axis); scale_factor: a
  float or one per axis, output = floor(input * factor). Give exactly one.
mode: "linear" (also "bilinear", "trilinear") or "nearest"; "bicubic", "nearest-exact" and
  "area" are refused naming the equivalent (gridops.resize has cubic and antialias).
layout: the memory format of input (and of the result unless out_layout is given):
  "channels_first"/"plain" (N, C, D...), "channels_last" (N, D..., C), "blocked8" /
  "blocked16" (N, ceil(C/b), D..., b), or a oneDNN tag (nchw, nhwc, nChw8c, ...).
channels: the channel count of a blocked input (default: all blocks full).
The kernels read dense buffers: a non-dense input is copied once (a torch channels_last
tensor is read in place as channels-last, and without out= or out_layout its result is
a channels-last tensor too, as F.interpolate's); out= must be dense.
dtypes: float32, float64, float16, bfloat16.
window: (full_input_size, full_output_size, input_origin, output_origin), spatial entries:
  input is the box at input_origin of a full input, and the result the box at
  output_origin, of spatial sizes `size`, of the full output (docs/ops/resample.md,
  "Window"): the same bits as that box of resample on the full input. input must contain
  resample_input_box(...) of the output box, else ValueError.
)";

inline constexpr const char* kResampleBackward = R"(resample_backward(grad_output, input_size, mode="linear", *, layout="channels_first", out_layout=None, out=None)

The gradient of resample with respect to its input: the exact adjoint (transpose) of the
forward interpolation, accumulated in float32 or wider.

grad_output: the gradient of resample's result, in layout.
input_size: the full logical input dims (N, C, D1, ..., Dr) of the forward call.
Returns the gradient (N, C, D1, ..., Dr) in out_layout (default: layout).
)";

inline constexpr const char* kSetNumThreads = R"(set_num_threads(n)

Sets the number of threads gridops' kernels use: an int in 0..1024 (0: the default,
OMP_NUM_THREADS or the cores); another int is a ValueError, a non-int a TypeError. Global to
the process (a call's threads= applies to that call on its own thread only); results do not
depend on it.)";

inline constexpr const char* kGetNumThreads = R"(get_num_threads() -> int

The number of threads gridops' kernels use.)";

inline constexpr const char* kSetMaxIsa = R"(set_max_isa(level)

Caps the instruction sets gridops dispatches to, like the environment variable
GRIDOPS_MAX_ISA (read at import) and oneDNN's ONEDNN_MAX_CPU_ISA. Levels on x86-64:
"scalar", "sse4", "avx2", "avx512", "avx512_bf16", "native" (no cap); on aarch64:
"scalar", "neon", "sve", "sve2", "native". A cap never raises the level above the CPU's.
Global to the process; set it before making plans (a plan keeps the implementation it
chose). Raises ValueError for a name that is not a level of this build or one below the
build's baseline.)";

inline constexpr const char* kMaxIsa = R"(max_isa() -> str

The instruction-set cap in force ("native" when none).)";

inline constexpr const char* kEffectiveIsa = R"(effective_isa() -> str

The best level the CPU has under the cap: what gridops dispatches to now.)";

inline constexpr const char* kIsaReport = R"(isa_report() -> str

A few lines for people: the CPU's level, the cap and where it came from, the Highway
targets compiled, usable and dispatched, whether the AVX512_BF16 kernels run.)";

inline constexpr const char* kGridSamplePlan = R"(GridSamplePlan(input_shape, grid_shape, dtype="float32", grid_dtype=None, mode="bilinear", padding_mode="zeros", align_corners=False, layout="channels_first")

A validated grid_sample problem for repeated calls on the same shapes and dtypes:
plan(input, grid, *, out=None). dtype accepts a name, a NumPy dtype or a torch dtype;
grid_dtype defaults to dtype. .output_shape, .impl_name.)";

inline constexpr const char* kAffineGridPlan = R"(AffineGridPlan(theta_shape, size, dtype="float32", align_corners=False)

A validated affine_grid problem: plan(theta, *, out=None). .output_shape, .impl_name.)";

inline constexpr const char* kGatherPlan = R"(GatherPlan(data_shape, indices_shape, dtype="float32", indices_dtype="int64", axis=0)

A validated gather problem: plan(data, indices, *, out=None). .output_shape, .impl_name.)";

inline constexpr const char* kPadPlan = R"(PadPlan(input_shape, pads, dtype="float32", mode="constant", axes=None)

A validated pad problem (pads as in gridops.pad): plan(input, value=None, *, out=None).
.output_shape, .impl_name.)";

inline constexpr const char* kResizePlan = R"(ResizePlan(input_shape, dtype="float32", scales=None, sizes=None, mode="nearest", *, coordinate_transformation_mode="half_pixel", nearest_mode="round_prefer_floor", cubic_coeff_a=-0.75, exclude_outside=False, antialias=False, keep_aspect_ratio_policy="stretch", extrapolation_value=0.0, axes=None, roi=None)

A validated resize problem with its tables built: plan(input, *, out=None).
.output_shape, .impl_name.)";

inline constexpr const char* kResamplePlan = R"(ResamplePlan(input_size, output_size, mode="linear", dtype="float32", layout="channels_first", out_layout=None)

A validated resampling problem. input_size is the logical (N, C, D1..Dr); output_size the
logical (N, C, O1..Or) or the spatial sizes (O1..Or). plan(x) / plan.forward(x, *, out=None)
resamples, plan.backward(grad_output, *, out=None) is its adjoint. .input_shape and
.output_shape are the array shapes in the layouts; .impl_name.)";

}  // namespace gridops::py_binding::doc
