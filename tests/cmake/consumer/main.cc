// Wraps its own buffer in a gridops view, pads it (gridops::gridops), writes the result as
// .npy bytes and reads them back (gridops::onnx); prints the version and the values.
#include <cstdio>
#include <vector>

#include "gridops/gridops.h"
#include "gridops/onnx/npy.h"

int main() {
  std::vector<float> data = {1, 2, 3};
  const gridops::TensorView in(gridops::DType::kFloat32, data.data(), {3});
  gridops::PadDesc desc;
  desc.pads_begin = {1};
  desc.pads_end = {2};
  auto out = gridops::pad(desc, in);
  if (!out.ok()) return 10;
  auto npy = gridops::onnx::serialize_npy(*out);
  if (!npy.ok()) return 11;
  auto back = gridops::onnx::parse_npy(*npy, "padded.npy");
  if (!back.ok()) return 12;
  std::printf("gridops %s:", GRIDOPS_VERSION_STRING);
  for (int64_t i = 0; i < back->num_elements(); ++i) std::printf(" %g", static_cast<double>(back->data_as<float>()[i]));
  std::printf("\n");
  return 0;
}
