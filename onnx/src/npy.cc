#include "gridops/onnx/npy.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <sstream>

#include "file_io.h"

namespace gridops::onnx {
namespace {

constexpr char kMagic[] = "\x93NUMPY";

struct Descr {
  DType dtype = DType::kFloat32;
  size_t itemsize = 4;      // bytes per element in the file
  bool big_endian = false;
  enum Kind { kNumeric, kUnicode, kBytes } kind = kNumeric;
  int64_t chars = 0;        // for U and S
};

Status parse_error(std::string_view what, const std::string& msg) {
  return invalid_argument(what, ": not a valid .npy file: ", msg);
}

// A minimal reader for the header's Python dict literal.
class HeaderParser {
 public:
  HeaderParser(std::string_view s, std::string_view what) : s_(s), what_(what) {}

  Status parse(std::string* descr, bool* fortran, Dims* shape) {
    bool have_descr = false, have_fortran = false, have_shape = false;
    skip_ws();
    if (!eat('{')) return parse_error(what_, "header does not start with '{'");
    while (true) {
      skip_ws();
      if (eat('}')) break;
      std::string key;
      GRIDOPS_RETURN_IF_ERROR(read_string(&key));
      skip_ws();
      if (!eat(':')) return parse_error(what_, "expected ':' after key '" + key + "'");
      skip_ws();
      if (key == "descr") {
        if (peek() != '\'' && peek() != '"') {
          return parse_error(what_, "descr is not a plain type string (structured dtypes are not supported)");
        }
        GRIDOPS_RETURN_IF_ERROR(read_string(descr));
        have_descr = true;
      } else if (key == "fortran_order") {
        if (s_.substr(pos_, 4) == "True") {
          *fortran = true;
          pos_ += 4;
        } else if (s_.substr(pos_, 5) == "False") {
          *fortran = false;
          pos_ += 5;
        } else {
          return parse_error(what_, "fortran_order must be True or False");
        }
        have_fortran = true;
      } else if (key == "shape") {
        GRIDOPS_RETURN_IF_ERROR(read_shape(shape));
        have_shape = true;
      } else {
        return parse_error(what_, "unexpected header key '" + key + "'");
      }
      skip_ws();
      if (eat(',')) continue;
      skip_ws();
      if (eat('}')) break;
      return parse_error(what_, "expected ',' or '}' in header");
    }
    if (!have_descr || !have_fortran || !have_shape) {
      return parse_error(what_, "header must have 'descr', 'fortran_order' and 'shape'");
    }
    return Status();
  }

 private:
  char peek() const { return pos_ < s_.size() ? s_[pos_] : '\0'; }
  bool eat(char c) {
    if (peek() != c) return false;
    ++pos_;
    return true;
  }
  void skip_ws() {
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\n' || s_[pos_] == '\r')) ++pos_;
  }
  Status read_string(std::string* out) {
    const char q = peek();
    if (q != '\'' && q != '"') return parse_error(what_, "expected a quoted string in header");
    ++pos_;
    const size_t end = s_.find(q, pos_);
    if (end == std::string_view::npos) return parse_error(what_, "unterminated string in header");
    *out = std::string(s_.substr(pos_, end - pos_));
    pos_ = end + 1;
    return Status();
  }
  Status read_shape(Dims* shape) {
    shape->clear();
    if (!eat('(')) return parse_error(what_, "shape must be a tuple");
    while (true) {
      skip_ws();
      if (eat(')')) break;
      if (peek() < '0' || peek() > '9') return parse_error(what_, "shape entries must be non-negative integers");
      int64_t v = 0;
      while (peek() >= '0' && peek() <= '9') {
        const int d = peek() - '0';
        if (v > (std::numeric_limits<int64_t>::max() - d) / 10) {
          return parse_error(what_, "shape entry overflows 64 bits");
        }
        v = v * 10 + d;
        ++pos_;
      }
      // Python 2 headers may write 3L.
      eat('L');
      shape->push_back(v);
      if (static_cast<int>(shape->size()) > kMaxRank) {
        return parse_error(what_, "rank exceeds " + std::to_string(kMaxRank));
      }
      skip_ws();
      if (eat(',')) continue;
      skip_ws();
      if (eat(')')) break;
      return parse_error(what_, "expected ',' or ')' in shape");
    }
    return Status();
  }

  std::string_view s_;
  std::string_view what_;
  size_t pos_ = 0;
};

StatusOr<Descr> parse_descr(const std::string& d, std::string_view what) {
  if (d.size() < 2) return parse_error(what, "descr '" + d + "' is too short");
  Descr out;
  const char order = d[0];
  if (order == '>') out.big_endian = true;
  else if (order == '<' || order == '|' || order == '=') out.big_endian = false;
  else return parse_error(what, "descr '" + d + "' has unknown byte order '" + std::string(1, order) + "'");
  const char code = d[1];
  if (code == 'O') return parse_error(what, "object arrays (descr '" + d + "') are not supported");
  const std::string size_str = d.substr(2);
  int64_t size = 0;
  if (size_str.empty() || size_str.size() > 12 ||
      !std::all_of(size_str.begin(), size_str.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    if (code == '?' && size_str.empty()) {
      size = 1;
    } else {
      return parse_error(what, "descr '" + d + "' has no valid item size");
    }
  } else {
    size = std::stoll(size_str);
  }
  auto numeric = [&](DType dt) -> StatusOr<Descr> {
    out.dtype = dt;
    out.itemsize = static_cast<size_t>(size);
    return out;
  };
  switch (code) {
    case 'b':
    case '?':
      if (size == 1) return numeric(DType::kBool);
      break;
    case 'i':
      if (size == 1) return numeric(DType::kInt8);
      if (size == 2) return numeric(DType::kInt16);
      if (size == 4) return numeric(DType::kInt32);
      if (size == 8) return numeric(DType::kInt64);
      break;
    case 'u':
      if (size == 1) return numeric(DType::kUInt8);
      if (size == 2) return numeric(DType::kUInt16);
      if (size == 4) return numeric(DType::kUInt32);
      if (size == 8) return numeric(DType::kUInt64);
      break;
    case 'f':
      if (size == 2) return numeric(DType::kFloat16);
      if (size == 4) return numeric(DType::kFloat32);
      if (size == 8) return numeric(DType::kFloat64);
      break;
    case 'c':
      if (size == 8) return numeric(DType::kComplex64);
      if (size == 16) return numeric(DType::kComplex128);
      break;
    case 'U':
      // Zero-width strings would let a tiny file claim any number of elements.
      if (size == 0) return parse_error(what, "zero-width string descr '" + d + "' is not supported");
      if (size < 0 || size > (int64_t{1} << 28)) break;
      out.dtype = DType::kString;
      out.kind = Descr::kUnicode;
      out.chars = size;
      out.itemsize = static_cast<size_t>(size) * 4;
      return out;
    case 'S':
      if (size == 0) return parse_error(what, "zero-width string descr '" + d + "' is not supported");
      if (size < 0 || size > (int64_t{1} << 30)) break;
      out.dtype = DType::kString;
      out.kind = Descr::kBytes;
      out.chars = size;
      out.itemsize = static_cast<size_t>(size);
      return out;
    case 'O':
      return parse_error(what, "object arrays (descr '" + d + "') are not supported");
    default:
      break;
  }
  return parse_error(what, "unsupported descr '" + d + "'");
}

void append_utf8(std::string& s, uint32_t cp) {
  if (cp < 0x80) {
    s.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    s.push_back(static_cast<char>(0xC0 | (cp >> 6)));
    s.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    s.push_back(static_cast<char>(0xE0 | (cp >> 12)));
    s.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    s.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    s.push_back(static_cast<char>(0xF0 | (cp >> 18)));
    s.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    s.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    s.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

// Decodes UTF-8 to code points; false on malformed input.
bool decode_utf8(const std::string& s, std::vector<uint32_t>* out) {
  out->clear();
  size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    uint32_t cp;
    int extra;
    if (c < 0x80) { cp = c; extra = 0; }
    else if ((c & 0xE0) == 0xC0) { cp = c & 0x1F; extra = 1; }
    else if ((c & 0xF0) == 0xE0) { cp = c & 0x0F; extra = 2; }
    else if ((c & 0xF8) == 0xF0) { cp = c & 0x07; extra = 3; }
    else return false;
    if (static_cast<size_t>(extra) > s.size() - i - 1) return false;  // truncated sequence
    for (int k = 1; k <= extra; ++k) {
      const auto d = static_cast<unsigned char>(s[i + static_cast<size_t>(k)]);
      if ((d & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (d & 0x3F);
    }
    if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return false;
    out->push_back(cp);
    i += static_cast<size_t>(extra) + 1;
  }
  return true;
}

}  // namespace

StatusOr<Tensor> parse_npy(std::string_view bytes, std::string_view what) {
  if (bytes.size() < 10 || bytes.substr(0, 6) != std::string_view(kMagic, 6)) {
    return parse_error(what, "missing the \\x93NUMPY magic");
  }
  const auto major = static_cast<unsigned char>(bytes[6]);
  size_t header_len, header_start;
  if (major == 1) {
    header_len = static_cast<unsigned char>(bytes[8]) | (static_cast<size_t>(static_cast<unsigned char>(bytes[9])) << 8);
    header_start = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) return parse_error(what, "truncated header length");
    header_len = 0;
    for (int i = 0; i < 4; ++i) header_len |= static_cast<size_t>(static_cast<unsigned char>(bytes[8 + static_cast<size_t>(i)])) << (8 * i);
    header_start = 12;
  } else {
    return parse_error(what, "unsupported format version " + std::to_string(major));
  }
  if (header_len > bytes.size() - header_start) return parse_error(what, "truncated header");
  const std::string_view header = bytes.substr(header_start, header_len);
  std::string descr;
  bool fortran = false;
  Dims shape;
  GRIDOPS_RETURN_IF_ERROR(HeaderParser(header, what).parse(&descr, &fortran, &shape));
  GRIDOPS_ASSIGN_OR_RETURN(const Descr d, parse_descr(descr, what));
  GRIDOPS_ASSIGN_OR_RETURN(const int64_t count, checked_num_elements(shape, what));
  const std::string_view data = bytes.substr(header_start + header_len);
  if (d.itemsize == 0 && count > 0 && d.kind == Descr::kNumeric) return parse_error(what, "zero item size");
  int64_t need;
  if (__builtin_mul_overflow(count, static_cast<int64_t>(d.itemsize), &need)) {
    return parse_error(what, "data size overflows 64 bits");
  }
  if (static_cast<uint64_t>(need) != data.size()) {
    return parse_error(what, "expected " + std::to_string(need) + " data bytes for shape " +
                                 dims_to_string(shape) + " and descr '" + descr + "', got " +
                                 std::to_string(data.size()));
  }
  GRIDOPS_ASSIGN_OR_RETURN(Tensor t, Tensor::create(d.dtype, shape));
  // Destination index for the i-th stored element (Fortran order stores axis 0 fastest).
  const int r = static_cast<int>(shape.size());
  const Dims cstrides = contiguous_strides(shape);
  Dims idx(static_cast<size_t>(r), 0);
  auto next_dst = [&](int64_t i) -> int64_t {
    if (!fortran) return i;
    int64_t off = 0;
    for (int k = 0; k < r; ++k) off += idx[static_cast<size_t>(k)] * cstrides[static_cast<size_t>(k)];
    for (int k = 0; k < r; ++k) {
      if (++idx[static_cast<size_t>(k)] < shape[static_cast<size_t>(k)]) break;
      idx[static_cast<size_t>(k)] = 0;
    }
    return off;
  };
  const char* src = data.data();
  if (d.kind == Descr::kNumeric) {
    const size_t es = dtype_size(d.dtype);
    const size_t part = is_complex(d.dtype) ? es / 2 : es;
    char* dst = static_cast<char*>(t.data());
    for (int64_t i = 0; i < count; ++i) {
      char* out = dst + next_dst(i) * static_cast<int64_t>(es);
      std::memcpy(out, src + i * static_cast<int64_t>(es), es);
      if (d.big_endian && part > 1) {
        for (size_t p = 0; p < es; p += part) std::reverse(out + p, out + p + part);
      }
      if (d.dtype == DType::kBool) *out = *out != 0 ? 1 : 0;  // only 0/1 are valid bools
    }
  } else {
    std::string* dst = t.data_as<std::string>();
    for (int64_t i = 0; i < count; ++i) {
      std::string s;
      const char* e = src + i * static_cast<int64_t>(d.itemsize);
      if (d.kind == Descr::kBytes) {
        s.assign(e, d.itemsize);
        while (!s.empty() && s.back() == '\0') s.pop_back();
      } else {
        std::vector<uint32_t> cps;
        for (int64_t c = 0; c < d.chars; ++c) {
          uint32_t cp = 0;
          for (int b = 0; b < 4; ++b) {
            const auto byte = static_cast<unsigned char>(e[c * 4 + (d.big_endian ? 3 - b : b)]);
            cp |= static_cast<uint32_t>(byte) << (8 * b);
          }
          cps.push_back(cp);
        }
        while (!cps.empty() && cps.back() == 0) cps.pop_back();
        for (uint32_t cp : cps) {
          if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
            return parse_error(what, "invalid unicode code point " + std::to_string(cp));
          }
          append_utf8(s, cp);
        }
      }
      dst[next_dst(i)] = std::move(s);
    }
  }
  return t;
}

StatusOr<Tensor> read_npy(const std::string& path) {
  GRIDOPS_ASSIGN_OR_RETURN(const std::string bytes, detail::read_file(path, kDefaultMaxFileBytes));
  return parse_npy(bytes, path);
}

namespace {

// The .npy prefix: magic, version, header length and the header dict, padded so that the
// data starts on a 64-byte boundary.
std::string npy_header(const std::string& descr, const Dims& shape) {
  std::string header = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " +
                       dims_to_string(shape) + ", }";
  // Pad so that the data starts on a 64-byte boundary; the header ends with '\n'.
  size_t prefix = 10;
  size_t total = prefix + header.size() + 1;
  size_t padded = (total + 63) / 64 * 64;
  bool v2 = padded - prefix > 65535;
  if (v2) {
    prefix = 12;
    total = prefix + header.size() + 1;
    padded = (total + 63) / 64 * 64;
  }
  header.append(padded - total, ' ');
  header.push_back('\n');
  std::string out(kMagic, 6);
  out.push_back(static_cast<char>(v2 ? 2 : 1));
  out.push_back(0);
  const size_t hl = header.size();
  out.push_back(static_cast<char>(hl & 0xFF));
  out.push_back(static_cast<char>((hl >> 8) & 0xFF));
  if (v2) {
    out.push_back(static_cast<char>((hl >> 16) & 0xFF));
    out.push_back(static_cast<char>((hl >> 24) & 0xFF));
  }
  out += header;
  return out;
}

// The whole file, or only its prefix (magic to header) when `header_only`.
StatusOr<std::string> serialize_npy_impl(const Tensor& t, bool header_only) {
  std::string descr;
  size_t itemsize = dtype_size(t.dtype());
  std::vector<std::vector<uint32_t>> cps;
  switch (t.dtype()) {
    case DType::kBool: descr = "|b1"; break;
    case DType::kInt8: descr = "|i1"; break;
    case DType::kInt16: descr = "<i2"; break;
    case DType::kInt32: descr = "<i4"; break;
    case DType::kInt64: descr = "<i8"; break;
    case DType::kUInt8: descr = "|u1"; break;
    case DType::kUInt16: descr = "<u2"; break;
    case DType::kUInt32: descr = "<u4"; break;
    case DType::kUInt64: descr = "<u8"; break;
    case DType::kFloat16: descr = "<f2"; break;
    case DType::kBFloat16: descr = "<f4"; itemsize = 4; break;
    case DType::kFloat32: descr = "<f4"; break;
    case DType::kFloat64: descr = "<f8"; break;
    case DType::kComplex64: descr = "<c8"; break;
    case DType::kComplex128: descr = "<c16"; break;
    case DType::kString: {
      size_t longest = 1;
      for (int64_t i = 0; i < t.num_elements(); ++i) {
        std::vector<uint32_t> v;
        if (!decode_utf8(t.data_as<std::string>()[i], &v)) {
          return invalid_argument("npy: string element ", i, " is not valid UTF-8");
        }
        longest = std::max(longest, v.size());
        cps.push_back(std::move(v));
      }
      descr = "<U" + std::to_string(longest);
      itemsize = longest * 4;
      break;
    }
  }
  std::string out = npy_header(descr, t.shape());
  if (header_only) return out;
  const int64_t n = t.num_elements();
  if (t.dtype() == DType::kString) {
    const size_t longest = itemsize / 4;
    for (int64_t i = 0; i < n; ++i) {
      const auto& v = cps[static_cast<size_t>(i)];
      for (size_t c = 0; c < longest; ++c) {
        const uint32_t cp = c < v.size() ? v[c] : 0;
        for (int b = 0; b < 4; ++b) out.push_back(static_cast<char>((cp >> (8 * b)) & 0xFF));
      }
    }
  } else if (t.dtype() == DType::kBFloat16) {
    for (int64_t i = 0; i < n; ++i) {
      const float f = bf16_to_f32(t.data_as<bfloat16>()[i]);
      char b[4];
      std::memcpy(b, &f, 4);
      out.append(b, 4);
    }
  } else {
    out.append(static_cast<const char*>(t.data()), t.nbytes());
  }
  return out;
}

}  // namespace

StatusOr<std::string> serialize_npy(const Tensor& t) { return serialize_npy_impl(t, false); }

Status write_npy(const Tensor& t, const std::string& path) {
  if (t.dtype() != DType::kString && t.dtype() != DType::kBFloat16) {
    // Stored as is: the header, then the tensor's own bytes (no second copy in memory).
    GRIDOPS_ASSIGN_OR_RETURN(const std::string header, serialize_npy_impl(t, true));
    return detail::write_file_parts(
        path, {header, std::string_view(static_cast<const char*>(t.data()), t.nbytes())});
  }
  GRIDOPS_ASSIGN_OR_RETURN(const std::string bytes, serialize_npy(t));
  return detail::write_file(path, bytes);
}

Status write_npy_to_fd(const Tensor& t, int fd, const std::string& what) {
  if (t.dtype() != DType::kString && t.dtype() != DType::kBFloat16) {
    GRIDOPS_ASSIGN_OR_RETURN(const std::string header, serialize_npy_impl(t, true));
    return detail::write_fd_parts(fd, what, {header, std::string_view(static_cast<const char*>(t.data()), t.nbytes())});
  }
  GRIDOPS_ASSIGN_OR_RETURN(const std::string bytes, serialize_npy(t));
  return detail::write_fd_parts(fd, what, {bytes});
}

}  // namespace gridops::onnx
