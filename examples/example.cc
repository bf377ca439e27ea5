// A small tour of gridops: runs every operator on built-in data and prints what it did.
#include <cstdio>
#include <string>
#include <vector>

#include "gridops/gridops.h"

namespace {

using namespace gridops;

void print_matrix(const char* title, const Tensor& t) {
  std::printf("%s %s\n", title, dims_to_string(t.shape()).c_str());
  const int64_t cols = t.rank() ? t.shape().back() : 1;
  for (int64_t i = 0; i < t.num_elements(); ++i) {
    if (t.dtype() == DType::kFloat32) {
      std::printf(" %7.3f", static_cast<double>(t.data_as<float>()[i]));
    } else if (t.dtype() == DType::kInt32) {
      std::printf(" %3d", t.data_as<int32_t>()[i]);
    }
    if ((i + 1) % cols == 0) std::printf("\n");
  }
}

bool check(const Status& s, const char* what) {
  if (!s.ok()) std::fprintf(stderr, "%s failed: %s\n", what, s.to_string().c_str());
  return s.ok();
}

}  // namespace

int main() {
  using namespace gridops;
  bool ok = true;

  // A 4x4 image, one channel: values 0..15.
  Tensor image(DType::kFloat32, {1, 1, 4, 4});
  for (int i = 0; i < 16; ++i) image.data_as<float>()[i] = static_cast<float>(i);
  print_matrix("input image", image);

  // AffineGrid: a rotation by 90 degrees, sampled on a 4x4 output grid.
  Tensor theta(DType::kFloat32, {1, 2, 3});
  const float rot[6] = {0, -1, 0, 1, 0, 0};
  for (int i = 0; i < 6; ++i) theta.data_as<float>()[i] = rot[i];
  const int64_t size[4] = {1, 1, 4, 4};
  AffineGridDesc ag;
  ag.align_corners = 0;
  auto grid = affine_grid(ag, theta, size);
  ok &= check(grid.status(), "affine_grid");
  if (grid.ok()) std::printf("\naffine_grid: theta (1, 2, 3) rotation -> grid %s\n",
                             dims_to_string(grid->shape()).c_str());

  // GridSample with that grid, every mode and padding.
  if (grid.ok()) {
    for (auto mode : {InterpolationMode::kLinear, InterpolationMode::kNearest,
                      InterpolationMode::kCubic}) {
      for (auto padding : {GridPadding::kZeros, GridPadding::kBorder, GridPadding::kReflection}) {
        GridSampleDesc gs;
        gs.mode = mode;
        gs.padding = padding;
        auto out = grid_sample(gs, image, *grid);
        if (!check(out.status(), "grid_sample")) {
          ok = false;
          continue;
        }
        const std::string title = std::string("\ngrid_sample mode=") + to_string(mode) +
                                  " padding=" + to_string(padding) + " (rotated image)";
        print_matrix(title.c_str(), *out);
      }
    }
  }

  // Resample: 4x4 -> 6x6 linear, then its backward (the adjoint) back to 4x4.
  ResampleMemoryDesc src_md{DType::kFloat32, {1, 1, 4, 4}, MemoryFormat::kPlain};
  ResampleMemoryDesc dst_md{DType::kFloat32, {1, 1, 6, 6}, MemoryFormat::kChannelsLast};
  ResampleDesc rd;
  rd.algorithm = ResampleAlgorithm::kLinear;
  Tensor up(DType::kFloat32, {1, 1, 6, 6});
  ok &= check(resample_forward(rd, src_md, image.data(), dst_md, up.data()), "resample_forward");
  print_matrix("\nresample linear 4x4 -> 6x6", up);
  Tensor back(DType::kFloat32, {1, 1, 4, 4});
  ok &= check(resample_backward(rd, src_md, back.data(), dst_md, up.data()), "resample_backward");
  print_matrix("\nresample backward (adjoint) of that 6x6 -> 4x4", back);

  // Gather rows 3, 0 and -1 (the last) of a 4x4 matrix.
  Tensor mat(DType::kInt32, {4, 4});
  for (int i = 0; i < 16; ++i) mat.data_as<int32_t>()[i] = i;
  Tensor idx(DType::kInt64, {3});
  const int64_t rows[3] = {3, 0, -1};
  for (int i = 0; i < 3; ++i) idx.data_as<int64_t>()[i] = rows[i];
  auto g = gather(GatherDesc{}, mat, idx);
  ok &= check(g.status(), "gather");
  if (g.ok()) print_matrix("\ngather axis 0, indices [3, 0, -1]", *g);
  // An out-of-range index is a clear error, not a crash.
  idx.data_as<int64_t>()[1] = 7;
  auto bad = gather(GatherDesc{}, mat, idx);
  std::printf("\ngather with index 7: %s\n", bad.status().to_string().c_str());

  // Pad the 3x4 matrix of the Pad-1 document in every mode.
  Tensor small(DType::kInt32, {3, 4});
  for (int i = 0; i < 12; ++i) small.data_as<int32_t>()[i] = i + 1;
  for (auto mode : {PadMode::kConstant, PadMode::kEdge, PadMode::kReflect, PadMode::kSymmetric,
                    PadMode::kWrap}) {
    PadDesc pd;
    pd.mode = mode;
    pd.pads_begin = {0, 1};
    pd.pads_end = {2, 3};
    auto p = pad(pd, small);
    if (!check(p.status(), "pad")) {
      ok = false;
      continue;
    }
    const std::string title = std::string("\npad mode=") + to_string(mode) +
                              " pads_begin=[0, 1] pads_end=[2, 3]";
    print_matrix(title.c_str(), *p);
  }

  std::printf("\n%s\n", ok ? "all operators ran" : "some operators failed");
  return ok ? 0 : 1;
}
