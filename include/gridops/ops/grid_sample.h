// GridSample (ONNX GridSample 16/20/22, N-D): sample src at the normalized positions in grid.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gridops/ops/modes.h"
#include "gridops/status.h"
#include "gridops/tensor.h"

namespace gridops {

/// Where the channel axis of src and dst sits. The grid is always (N, D1_out..Dr_out, r).
enum class ChannelLayout {
  kChannelsFirst,  ///< (N, C, D1, ..., Dr): ONNX and PyTorch
  kChannelsLast,   ///< (N, D1, ..., Dr, C)
};

/// "channels_first", "channels_last".
const char* to_string(ChannelLayout l) noexcept;

/// What to compute. Shape-independent.
struct GridSampleDesc {
  InterpolationMode mode = InterpolationMode::kLinear;
  GridPadding padding = GridPadding::kZeros;
  /// 0 or 1, as the ONNX attribute; any other value is an error.
  int64_t align_corners = 0;
  ChannelLayout layout = ChannelLayout::kChannelsFirst;
  /// Grid conventions (gridops extensions; docs/ops/grid_sample.md, "Grid conventions"):
  /// kPixels: a grid value p on an axis is the centre of pixel p (align_corners then only
  /// sets the bounds of reflection and fill); kDisplacement: the grid holds offsets added,
  /// in the grid's coordinate precision, to each output point's own coordinate (pixels:
  /// its index; normalized: the identity AffineGrid's value for align_corners).
  GridUnits units = GridUnits::kNormalized;
  GridKind kind = GridKind::kAbsolute;
  /// The value of padding kConstant (finite) and kFill (any, NaN included); must be 0
  /// for the other paddings. Converted to src's dtype as a stored result is; for integer
  /// and bool dtypes it must be an integer the dtype holds.
  double fill_value = 0.0;
  /// Forces an implementation by name ("ref", ...); empty: the first that accepts.
  std::string impl;
};

/// An input window, for running on a part of a large input (chunked execution,
/// docs/dask.md): src holds only the box [origin, origin + extent) of a virtual full input
/// whose spatial sizes are `full` (extent = src's spatial sizes). Coordinates are
/// unnormalized and padded against `full`, exactly as grid_sample on the whole input would,
/// and the tap at full index i is read from src at i - origin; so the result is the same
/// bits as the unwindowed operator on the full input with the same implementation
/// (docs/ops/grid_sample.md, "Input window", states the one exception: non-finite input
/// values under a zero weight). Every tap the grid needs must lie in the box, with the
/// margin of grid_sample_input_box: otherwise run() fails and writes nothing.
struct GridSampleWindow {
  Dims full;    ///< spatial sizes D1..Dr of the virtual full input, each >= 0
  Dims origin;  ///< where src's first spatial element sits in the full input, each >= 0
};

/// The box of the full input (spatial sizes `full`, D1 first) that grid_sample with this
/// desc may read for `grid` (shape (N, D1_out..Dr_out, r), any floating dtype and
/// strides): per spatial axis the half-open range [lo, hi). Computed in one pass that keeps
/// each axis's extreme coordinates (and whether NaN or inf occur): the hull of their taps
/// bounds every point's taps (each step is monotone); zeros padding clips it to the input,
/// border clamps it, reflection folds its overhangs back once (the whole axis beyond one
/// fold). Then widened by K-1 on each side (K = 1, 2, 4 taps per axis for nearest, linear,
/// cubic; the fast path reads whole windows of K columns) and clipped to [0, full); an axis
/// whose taps are all outside gets [0, min(full, K)). A superset of the taps read, so a
/// GridSampleWindow that contains this box always runs
/// (on an axis without taps any window at least min(full, K) wide does).
StatusOr<std::vector<std::pair<int64_t, int64_t>>> grid_sample_input_box(
    const GridSampleDesc& desc, std::span<const int64_t> full, const TensorView& grid);

/// The output shape for src and grid shapes, or the reason they do not fit together.
StatusOr<Dims> grid_sample_output_shape(const GridSampleDesc& desc, std::span<const int64_t> src_shape,
                                        std::span<const int64_t> grid_shape);

/// A validated GridSample problem with its implementation chosen. Cheap to copy.
class GridSamplePlan {
 public:
  /// Runs the plan. The views must have the dtypes and shapes the plan was made for
  /// (any strides); dst must not overlap src or grid. Nothing is written on error.
  Status run(const TensorView& src, const TensorView& grid, const MutableTensorView& dst) const;
  /// The output shape.
  const Dims& dst_shape() const noexcept { return dst_shape_; }
  /// The name of the chosen implementation.
  const char* impl_name() const noexcept { return impl_name_; }

 private:
  friend StatusOr<GridSamplePlan> make_grid_sample_plan(const GridSampleDesc&, DType,
                                                        std::span<const int64_t>, DType,
                                                        std::span<const int64_t>);
  friend StatusOr<GridSamplePlan> make_grid_sample_plan(const GridSampleDesc&, DType,
                                                        std::span<const int64_t>, DType,
                                                        std::span<const int64_t>,
                                                        const GridSampleWindow&);
  GridSampleDesc desc_;
  bool windowed_ = false;
  GridSampleWindow window_;
  DType src_dtype_ = DType::kFloat32, grid_dtype_ = DType::kFloat32;
  Dims src_shape_, grid_shape_, dst_shape_;
  const char* impl_name_ = "";
  const void* impl_ = nullptr;  ///< the chosen entry
  /// The planned entries (the chosen one and those a run may hand its views to) with their
  /// plan-time tables (detail::PlannedEntries, src/ops/dispatch.h).
  std::shared_ptr<const void> planned_;
};

/// Validates everything shape- and type-dependent once and picks an implementation.
StatusOr<GridSamplePlan> make_grid_sample_plan(const GridSampleDesc& desc, DType src_dtype,
                                               std::span<const int64_t> src_shape,
                                               DType grid_dtype,
                                               std::span<const int64_t> grid_shape);

/// The same with an input window: src's shape is (N, C, extent...) (or channels-last) and
/// the window gives the full input's spatial sizes and src's origin in it; the output
/// shape is the unwindowed one's. run() additionally checks, in one pass over the grid,
/// that grid_sample_input_box of the grid lies inside the window.
StatusOr<GridSamplePlan> make_grid_sample_plan(const GridSampleDesc& desc, DType src_dtype,
                                               std::span<const int64_t> src_shape,
                                               DType grid_dtype,
                                               std::span<const int64_t> grid_shape,
                                               const GridSampleWindow& window);

/// One-shot: plan and run into a caller-provided dst.
Status grid_sample(const GridSampleDesc& desc, const TensorView& src, const TensorView& grid,
                   const MutableTensorView& dst);
/// One-shot: plan, allocate dst and run.
StatusOr<Tensor> grid_sample(const GridSampleDesc& desc, const TensorView& src,
                             const TensorView& grid);
/// One-shot with an input window, into a caller-provided dst.
Status grid_sample(const GridSampleDesc& desc, const GridSampleWindow& window,
                   const TensorView& src, const TensorView& grid, const MutableTensorView& dst);
/// One-shot with an input window, allocating dst.
StatusOr<Tensor> grid_sample(const GridSampleDesc& desc, const GridSampleWindow& window,
                             const TensorView& src, const TensorView& grid);

// --- backward ------------------------------------------------------------------------
//
// The gradients of grid_sample with respect to src and grid, given the gradient of a loss
// with respect to dst (PyTorch's grid_sampler_*_backward: grad_src is its grad_input).
// src (and dst) float16, bfloat16, float32 or float64; grid float16, bfloat16, float32 or
// float64. Semantics, conventions at the non-differentiable points and precision:
// docs/ops/grid_sample.md, "Backward".

/// A validated GridSample backward problem with its implementation chosen. Cheap to copy.
class GridSampleBackwardPlan {
 public:
  /// grad_dst has the forward's dst shape and src's dtype; src and grid are the forward's
  /// inputs. grad_src (src's shape and dtype) and grad_grid (grid's shape and dtype) are
  /// each optional: null skips that gradient (src's data is read only for grad_grid).
  /// Outputs are overwritten, not accumulated into; any strides; an output may not
  /// overlap an input or the other output. Nothing is written on error.
  Status run(const TensorView& grad_dst, const TensorView& src, const TensorView& grid,
             const MutableTensorView* grad_src, const MutableTensorView* grad_grid) const;
  /// The forward's dst shape (grad_dst's shape).
  const Dims& dst_shape() const noexcept { return dst_shape_; }
  const Dims& src_shape() const noexcept { return src_shape_; }
  const Dims& grid_shape() const noexcept { return grid_shape_; }
  /// The name of the chosen implementation.
  const char* impl_name() const noexcept { return impl_name_; }

 private:
  friend StatusOr<GridSampleBackwardPlan> make_grid_sample_backward_plan(
      const GridSampleDesc&, DType, std::span<const int64_t>, DType, std::span<const int64_t>);
  GridSampleDesc desc_;
  DType src_dtype_ = DType::kFloat32, grid_dtype_ = DType::kFloat32;
  Dims src_shape_, grid_shape_, dst_shape_;
  const char* impl_name_ = "";
  const void* impl_ = nullptr;
  std::shared_ptr<const void> prepared_;  // the planned entries (and their tables)
};

/// Validates the backward problem for the forward's src and grid dtypes and shapes and
/// picks an implementation.
StatusOr<GridSampleBackwardPlan> make_grid_sample_backward_plan(const GridSampleDesc& desc,
                                                                DType src_dtype,
                                                                std::span<const int64_t> src_shape,
                                                                DType grid_dtype,
                                                                std::span<const int64_t> grid_shape);

/// One-shot backward into caller-provided outputs (either may be null: skipped).
Status grid_sample_backward(const GridSampleDesc& desc, const TensorView& grad_dst,
                            const TensorView& src, const TensorView& grid,
                            const MutableTensorView* grad_src, const MutableTensorView* grad_grid);

/// The allocated gradients; a gradient that was not asked for is an empty Tensor.
struct GridSampleGradients {
  Tensor grad_src;
  Tensor grad_grid;
};

/// One-shot backward, allocating the gradients asked for.
StatusOr<GridSampleGradients> grid_sample_backward(const GridSampleDesc& desc,
                                                   const TensorView& grad_dst,
                                                   const TensorView& src, const TensorView& grid,
                                                   bool want_grad_src = true,
                                                   bool want_grad_grid = true);

}  // namespace gridops
