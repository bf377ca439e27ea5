#include "demo.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include <stb/stb_image_write.h>

#include "gridops/gridops.h"

int gridops_stb_easy_font_print(float x, float y, char* text, unsigned char color[4], void* buf, int size);

namespace gridops::cli {
namespace {

constexpr int kCell = 200;    // square cell for each tile's picture
constexpr int kLabel = 34;    // label strip under it (two lines)
constexpr int kMargin = 8;

// An RGB canvas of floats in [0, 1].
struct Canvas {
  int w, h;
  std::vector<float> px;  // h * w * 3
  Canvas(int width, int height) : w(width), h(height), px(static_cast<size_t>(width * height * 3), 1.0f) {}
  void set(int x, int y, float r, float g, float b) {
    if (x < 0 || y < 0 || x >= w || y >= h) return;
    float* p = &px[static_cast<size_t>((y * w + x) * 3)];
    p[0] = r;
    p[1] = g;
    p[2] = b;
  }
};

// The built-in test image: a colour gradient, a checkerboard, a disc and an "F" that shows
// orientation. (3, H, W) float32, values in [0, 1].
Tensor make_test_image(int64_t size) {
  Tensor t(DType::kFloat32, {1, 3, size, size});
  float* p = t.data_as<float>();
  const int64_t plane = size * size;
  for (int64_t y = 0; y < size; ++y) {
    for (int64_t x = 0; x < size; ++x) {
      const float u = static_cast<float>(x) / static_cast<float>(size - 1);
      const float v = static_cast<float>(y) / static_cast<float>(size - 1);
      const bool check = ((x / (size / 8)) + (y / (size / 8))) % 2 == 0;
      float r = 0.25f + 0.6f * u, g = 0.25f + 0.6f * v, b = check ? 0.85f : 0.35f;
      const float dx = u - 0.68f, dy = v - 0.68f;
      if (dx * dx + dy * dy < 0.03f) {
        r = 0.95f;
        g = 0.2f;
        b = 0.15f;
      }
      // The letter F: a vertical bar and two horizontal bars, top left.
      const bool bar = u > 0.15f && u < 0.25f && v > 0.12f && v < 0.58f;
      const bool top = u > 0.15f && u < 0.50f && v > 0.12f && v < 0.21f;
      const bool mid = u > 0.15f && u < 0.42f && v > 0.31f && v < 0.39f;
      if (bar || top || mid) r = g = b = 0.05f;
      p[0 * plane + y * size + x] = r;
      p[1 * plane + y * size + x] = g;
      p[2 * plane + y * size + x] = b;
    }
  }
  return t;
}

// Draws text with stb_easy_font at 2x scale.
void draw_text(Canvas& c, int x0, int y0, const std::string& text) {
  std::vector<char> buf(60000);
  std::string s = text;
  unsigned char black[4] = {0, 0, 0, 255};
  const int quads = gridops_stb_easy_font_print(0, 0, s.data(), black, buf.data(), static_cast<int>(buf.size()));
  for (int q = 0; q < quads; ++q) {
    float xs[4], ys[4];
    for (int k = 0; k < 4; ++k) {
      std::memcpy(&xs[k], buf.data() + (q * 4 + k) * 16, 4);
      std::memcpy(&ys[k], buf.data() + (q * 4 + k) * 16 + 4, 4);
    }
    const int qx0 = static_cast<int>(*std::min_element(xs, xs + 4) * 2), qx1 = static_cast<int>(*std::max_element(xs, xs + 4) * 2);
    const int qy0 = static_cast<int>(*std::min_element(ys, ys + 4) * 2), qy1 = static_cast<int>(*std::max_element(ys, ys + 4) * 2);
    for (int y = qy0; y < qy1; ++y)
      for (int x = qx0; x < qx1; ++x) c.set(x0 + x, y0 + y, 0.05f, 0.05f, 0.1f);
  }
}

// Pastes a (1, 3, H, W) float image (H, W <= kCell) centred in cell (col, row), with a label.
void paste(Canvas& c, int col, int row, const Tensor& img, const std::string& line1, const std::string& line2) {
  const int cx = kMargin + col * (kCell + kMargin), cy = kMargin + row * (kCell + kLabel + kMargin);
  const int h = static_cast<int>(img.shape()[2]), w = static_cast<int>(img.shape()[3]);
  const int ox = cx + (kCell - w) / 2, oy = cy + (kCell - h) / 2;
  // A light frame around the cell.
  for (int x = cx - 1; x <= cx + kCell; ++x) {
    c.set(x, cy - 1, 0.8f, 0.8f, 0.8f);
    c.set(x, cy + kCell, 0.8f, 0.8f, 0.8f);
  }
  for (int y = cy - 1; y <= cy + kCell; ++y) {
    c.set(cx - 1, y, 0.8f, 0.8f, 0.8f);
    c.set(cx + kCell, y, 0.8f, 0.8f, 0.8f);
  }
  const float* p = img.data_as<float>();
  const int64_t plane = static_cast<int64_t>(h) * w;
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      c.set(ox + x, oy + y, p[y * w + x], p[plane + y * w + x], p[2 * plane + y * w + x]);
  draw_text(c, cx + 2, cy + kCell + 3, line1);
  draw_text(c, cx + 2, cy + kCell + 18, line2);
}

StatusOr<Tensor> resample_to(const Tensor& src, int64_t h, int64_t w, ResampleAlgorithm alg) {
  ResampleMemoryDesc sd{DType::kFloat32, src.shape(), MemoryFormat::kPlain};
  ResampleMemoryDesc dd{DType::kFloat32, {1, 3, h, w}, MemoryFormat::kPlain};
  GRIDOPS_ASSIGN_OR_RETURN(Tensor out, Tensor::create(DType::kFloat32, dd.dims));
  ResampleDesc rd;
  rd.algorithm = alg;
  GRIDOPS_RETURN_IF_ERROR(resample_forward(rd, sd, src.data(), dd, out.data()));
  return out;
}

// Clamps every value into [0, 1] for display (cubic overshoots).
void clamp01(Tensor& t) {
  float* p = t.data_as<float>();
  for (int64_t i = 0; i < t.num_elements(); ++i) p[i] = std::min(1.0f, std::max(0.0f, p[i]));
}

}  // namespace

Status write_demo_sheet(const std::string& path) {
  const int cols = 5, rows = 5;
  Canvas canvas(kMargin + cols * (kCell + kMargin), kMargin + rows * (kCell + kLabel + kMargin));
  const Tensor image = make_test_image(160);

  // Row 0: the input and resampling up and down.
  paste(canvas, 0, 0, image, "input", "160x160 built in");
  GRIDOPS_ASSIGN_OR_RETURN(Tensor small, resample_to(image, 32, 32, ResampleAlgorithm::kLinear));
  // Downsampled results are shown enlarged 4x (nearest) so their pixels can be seen.
  GRIDOPS_ASSIGN_OR_RETURN(Tensor down_n, resample_to(image, 40, 40, ResampleAlgorithm::kNearest));
  GRIDOPS_ASSIGN_OR_RETURN(Tensor down_n4, resample_to(down_n, 160, 160, ResampleAlgorithm::kNearest));
  paste(canvas, 1, 0, down_n4, "resample nearest", "160->40 (4x view)");
  GRIDOPS_ASSIGN_OR_RETURN(Tensor down_l, resample_to(image, 40, 40, ResampleAlgorithm::kLinear));
  GRIDOPS_ASSIGN_OR_RETURN(Tensor down_l4, resample_to(down_l, 160, 160, ResampleAlgorithm::kNearest));
  paste(canvas, 2, 0, down_l4, "resample linear", "160->40 (4x view)");
  GRIDOPS_ASSIGN_OR_RETURN(Tensor up_n, resample_to(small, 160, 160, ResampleAlgorithm::kNearest));
  paste(canvas, 3, 0, up_n, "resample nearest", "up 32 -> 160");
  GRIDOPS_ASSIGN_OR_RETURN(Tensor up_l, resample_to(small, 160, 160, ResampleAlgorithm::kLinear));
  paste(canvas, 4, 0, up_l, "resample linear", "up 32 -> 160");

  // Rows 1-3: AffineGrid (rotate 25 degrees, zoom out 1.5x) + GridSample of the 32x32 image
  // up to 160x160, for every mode (row) and padding (column), plus the grid itself.
  Tensor theta(DType::kFloat32, {1, 2, 3});
  const float a = 25.0f * 3.14159265f / 180.0f, s = 1.5f;
  const float th[6] = {s * std::cos(a), -s * std::sin(a), 0.1f, s * std::sin(a), s * std::cos(a), 0.05f};
  std::memcpy(theta.data(), th, sizeof th);
  const int64_t size[4] = {1, 3, 160, 160};
  GRIDOPS_ASSIGN_OR_RETURN(Tensor grid, affine_grid(AffineGridDesc{}, theta, size));
  const InterpolationMode modes[3] = {InterpolationMode::kLinear, InterpolationMode::kNearest, InterpolationMode::kCubic};
  const GridPadding pads[3] = {GridPadding::kZeros, GridPadding::kBorder, GridPadding::kReflection};
  for (int m = 0; m < 3; ++m) {
    for (int p = 0; p < 3; ++p) {
      GridSampleDesc gd;
      gd.mode = modes[m];
      gd.padding = pads[p];
      GRIDOPS_ASSIGN_OR_RETURN(Tensor out, grid_sample(gd, small, grid));
      clamp01(out);
      paste(canvas, p, 1 + m, out, "grid_sample",
            std::string(to_string(modes[m])) + ", " + to_string(pads[p]));
    }
  }
  // Column 3 of rows 1-3: the sampling grid's x and y as colours, and the 32x32 source.
  {
    Tensor vis(DType::kFloat32, {1, 3, 160, 160});
    const float* g = grid.data_as<float>();
    float* v = vis.data_as<float>();
    for (int64_t i = 0; i < 160 * 160; ++i) {
      v[i] = std::min(1.0f, std::max(0.0f, 0.5f + 0.5f * g[2 * i] / 2.0f));
      v[160 * 160 + i] = std::min(1.0f, std::max(0.0f, 0.5f + 0.5f * g[2 * i + 1] / 2.0f));
      v[2 * 160 * 160 + i] = (std::fabs(g[2 * i]) <= 1 && std::fabs(g[2 * i + 1]) <= 1) ? 0.8f : 0.2f;
    }
    paste(canvas, 3, 1, vis, "affine_grid x,y", "blue: in [-1, 1]");
    GRIDOPS_ASSIGN_OR_RETURN(Tensor small5, resample_to(small, 160, 160, ResampleAlgorithm::kNearest));
    paste(canvas, 3, 2, small5, "sampled source", "32x32 (5x view)");
  }

  // Row 4: Pad of the 32x32 image by 16 on every side of H and W, every mode, shown 2x.
  const PadMode pad_modes[5] = {PadMode::kConstant, PadMode::kEdge, PadMode::kReflect, PadMode::kSymmetric, PadMode::kWrap};
  for (int k = 0; k < 5; ++k) {
    PadDesc pd;
    pd.mode = pad_modes[k];
    pd.pads_begin = {0, 0, 16, 16};
    pd.pads_end = {0, 0, 16, 16};
    const float gray = 0.6f;
    const TensorView value(DType::kFloat32, &gray, Dims{});
    GRIDOPS_ASSIGN_OR_RETURN(Tensor padded, pad(pd, small, pd.mode == PadMode::kConstant ? &value : nullptr));
    GRIDOPS_ASSIGN_OR_RETURN(Tensor big, resample_to(padded, 128, 128, ResampleAlgorithm::kNearest));
    paste(canvas, k, 4, big, std::string("pad ") + to_string(pad_modes[k]),
          pd.mode == PadMode::kConstant ? "16px, value 0.6" : "16px each side");
  }

  std::vector<unsigned char> rgb(canvas.px.size());
  for (size_t i = 0; i < rgb.size(); ++i) {
    rgb[i] = static_cast<unsigned char>(std::lround(std::min(1.0f, std::max(0.0f, canvas.px[i])) * 255.0f));
  }
  errno = 0;
  if (!stbi_write_png(path.c_str(), canvas.w, canvas.h, 3, rgb.data(), canvas.w * 3)) {
    const int err = errno;
    return invalid_argument("demo: cannot write PNG '", path, "'", err ? std::string(": ") + std::strerror(err) : "");
  }
  return Status();
}

}  // namespace gridops::cli
