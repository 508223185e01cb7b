// .npy reader and writer (numpy's format, versions 1.0-3.0):
//   "\x93NUMPY" major minor, header length (uint16 for 1.x, uint32 for 2.x/3.x),
//   then a Python dict literal such as
//     {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
//   padded with spaces and a newline, then the raw C-order data.
// The reader parses that literal with a tiny strict parser; every size is
// checked against the file before anything is allocated.
#include <cstring>
#include <string>

#include "tools/tensor_io/file_util.h"
#include "tools/tensor_io/host_tensor.h"

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "npy I/O assumes a little-endian host");

namespace loom {
namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicBytes = 6;

struct NpyHeader {
  std::string descr;
  bool fortran_order = false;
  bool has_descr = false, has_order = false, has_shape = false;
  Shape shape;
};

// A recursive-descent parser for the header's dict literal.
class HeaderParser {
 public:
  explicit HeaderParser(const std::string& text) : s_(text) {}

  Status Parse(NpyHeader* h) {
    SkipSpace();
    if (!Eat('{')) return Error("expected '{'");
    for (;;) {
      SkipSpace();
      if (Eat('}')) break;
      std::string key;
      RETURN_IF_ERROR(ParseString(&key));
      SkipSpace();
      if (!Eat(':')) return Error("expected ':' after '" + key + "'");
      SkipSpace();
      if (key == "descr") {
        if (Peek() == '[') return Status::Unsupported("structured dtypes (descr is a list) are not supported");
        RETURN_IF_ERROR(ParseString(&h->descr));
        h->has_descr = true;
      } else if (key == "fortran_order") {
        RETURN_IF_ERROR(ParseBool(&h->fortran_order));
        h->has_order = true;
      } else if (key == "shape") {
        RETURN_IF_ERROR(ParseShape(&h->shape));
        h->has_shape = true;
      } else {
        return Error("unexpected key '" + key + "'");
      }
      SkipSpace();
      if (Eat(',')) continue;
      SkipSpace();
      if (Eat('}')) break;
      return Error("expected ',' or '}'");
    }
    SkipSpace();
    if (pos_ != s_.size()) return Error("trailing characters after the dict");
    if (!h->has_descr || !h->has_order || !h->has_shape)
      return Error("header lacks one of 'descr', 'fortran_order', 'shape'");
    return Status::Ok();
  }

 private:
  char Peek() const { return pos_ < s_.size() ? s_[pos_] : '\0'; }
  bool Eat(char c) {
    if (Peek() != c) return false;
    ++pos_;
    return true;
  }
  void SkipSpace() {
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\n' || s_[pos_] == '\t' || s_[pos_] == '\r')) ++pos_;
  }
  Status Error(const std::string& what) const {
    return Status::InvalidArgument("malformed header: " + what + " at offset " + std::to_string(pos_));
  }
  Status ParseString(std::string* out) {
    const char quote = Peek();
    if (quote != '\'' && quote != '"') return Error("expected a string");
    ++pos_;
    out->clear();
    while (pos_ < s_.size() && s_[pos_] != quote) {
      if (s_[pos_] == '\\') return Error("escapes are not supported in header strings");
      out->push_back(s_[pos_++]);
    }
    if (!Eat(quote)) return Error("unterminated string");
    return Status::Ok();
  }
  Status ParseBool(bool* out) {
    if (s_.compare(pos_, 4, "True") == 0) {
      pos_ += 4;
      *out = true;
    } else if (s_.compare(pos_, 5, "False") == 0) {
      pos_ += 5;
      *out = false;
    } else {
      return Error("expected True or False");
    }
    return Status::Ok();
  }
  Status ParseShape(Shape* out) {
    if (!Eat('(')) return Error("expected '(' for the shape");
    out->clear();
    for (;;) {
      SkipSpace();
      if (Eat(')')) return Status::Ok();
      if (Peek() < '0' || Peek() > '9') return Error("expected a dimension");
      int64_t v = 0;
      while (Peek() >= '0' && Peek() <= '9') {
        if (v > (INT64_MAX - 9) / 10) return Error("dimension too large");
        v = v * 10 + (s_[pos_++] - '0');
      }
      if (Peek() == 'L') ++pos_;  // Python 2 longs
      out->push_back(v);
      SkipSpace();
      if (Eat(',')) continue;
      SkipSpace();
      if (Eat(')')) return Status::Ok();
      return Error("expected ',' or ')' in the shape");
    }
  }

  const std::string& s_;
  size_t pos_ = 0;
};

Status ParseDescr(const std::string& descr, DType* out) {
  if (descr.size() < 2) return Status::InvalidArgument("unknown dtype '" + descr + "'");
  const char order = descr[0];
  const std::string code = descr.substr(1);
  if (code == "O" || code[0] == 'U' || code[0] == 'S' || code[0] == 'V' || code[0] == 'c' || code[0] == 'M' ||
      code[0] == 'm') {
    return Status::Unsupported("dtype '" + descr + "' (object, string, complex or date types are not supported)");
  }
  DType t;
  if (!ParseDType(code == "?" ? "b1" : code, &t) || code.size() != 2)
    return Status::Unsupported("dtype '" + descr + "' is not supported");
  if (order == '>' && DTypeSize(t) > 1)
    return Status::Unsupported("big-endian dtype '" + descr + "' is not supported (save it little-endian)");
  if (order != '<' && order != '|' && order != '=' && order != '>')
    return Status::InvalidArgument("unknown byte order in dtype '" + descr + "'");
  *out = t;
  return Status::Ok();
}

Status DescrFor(DType t, std::string* out) {
  switch (t) {
    case DType::kFloat16: *out = "<f2"; return Status::Ok();
    case DType::kFloat32: *out = "<f4"; return Status::Ok();
    case DType::kFloat64: *out = "<f8"; return Status::Ok();
    case DType::kInt8: *out = "|i1"; return Status::Ok();
    case DType::kInt16: *out = "<i2"; return Status::Ok();
    case DType::kInt32: *out = "<i4"; return Status::Ok();
    case DType::kInt64: *out = "<i8"; return Status::Ok();
    case DType::kUInt8: *out = "|u1"; return Status::Ok();
    case DType::kUInt16: *out = "<u2"; return Status::Ok();
    case DType::kUInt32: *out = "<u4"; return Status::Ok();
    case DType::kUInt64: *out = "<u8"; return Status::Ok();
    case DType::kBool: *out = "|b1"; return Status::Ok();
    default: return Status::Unsupported(std::string("dtype ") + DTypeName(t) + " cannot be stored in .npy");
  }
}

uint32_t LoadLe(const uint8_t* p, int bytes) {
  uint32_t v = 0;
  for (int i = bytes - 1; i >= 0; --i) v = v << 8 | p[i];
  return v;
}

Status ParseNpy(const std::vector<uint8_t>& file, HostTensor* out) {
  if (file.size() < kMagicBytes + 4 || std::memcmp(file.data(), kMagic, kMagicBytes) != 0)
    return Status::InvalidArgument("not a .npy file (bad magic)");
  const int major = file[6];
  if (major < 1 || major > 3)
    return Status::Unsupported(".npy version " + std::to_string(major) + "." + std::to_string(file[7]) +
                               " (supported: 1.0-3.0)");
  const size_t len_bytes = major == 1 ? 2 : 4;
  const size_t prefix = kMagicBytes + 2 + len_bytes;
  if (file.size() < prefix) return Status::InvalidArgument("truncated .npy header");
  const size_t header_len = LoadLe(file.data() + 8, static_cast<int>(len_bytes));
  if (header_len > file.size() - prefix)
    return Status::InvalidArgument("truncated .npy header (" + std::to_string(header_len) + " header bytes, file has " +
                                   std::to_string(file.size()) + ")");
  const std::string text(reinterpret_cast<const char*>(file.data() + prefix), header_len);
  NpyHeader h;
  RETURN_IF_ERROR(HeaderParser(text).Parse(&h));
  if (h.fortran_order) return Status::Unsupported("fortran_order arrays are not supported (save in C order)");
  DType dtype;
  RETURN_IF_ERROR(ParseDescr(h.descr, &dtype));
  const int64_t numel = NumElements(h.shape);
  uint64_t bytes = 0;
  if (numel < 0 || __builtin_mul_overflow(static_cast<uint64_t>(numel), DTypeSize(dtype), &bytes))
    return Status::InvalidArgument("shape " + ShapeToString(h.shape) + " is too large");
  const size_t data_at = prefix + header_len;
  if (bytes != file.size() - data_at) {
    return Status::InvalidArgument("data has " + std::to_string(file.size() - data_at) + " bytes, expected " +
                                   std::to_string(bytes) + " for " + DTypeName(dtype) + " " + ShapeToString(h.shape) +
                                   (bytes > file.size() - data_at ? " (truncated?)" : ""));
  }
  out->name.clear();
  out->dtype = dtype;
  out->shape = h.shape;
  out->data.assign(file.begin() + static_cast<std::ptrdiff_t>(data_at), file.end());
  if (dtype == DType::kBool) {
    for (uint8_t& b : out->data) b = b != 0;
  }
  return Status::Ok();
}

std::string ShapeTuple(const Shape& shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  if (shape.size() == 1) s += ",";
  return s + ")";
}

}  // namespace

Status ReadNpy(const std::string& path, HostTensor* out) {
  std::vector<uint8_t> file;
  RETURN_IF_ERROR(ReadWholeFile(path, &file));
  const Status s = ParseNpy(file, out);
  if (!s.ok()) return s.WithContext("'" + path + "'");
  return Status::Ok();
}

Status WriteNpy(const std::string& path, const HostTensor& tensor) {
  std::string descr;
  Status s = DescrFor(tensor.dtype, &descr);
  if (!s.ok()) return s.WithContext("'" + path + "'");
  const int64_t numel = NumElements(tensor.shape);
  if (numel < 0 || static_cast<uint64_t>(numel) * DTypeSize(tensor.dtype) != tensor.data.size()) {
    return Status::InvalidArgument("'" + path + "': tensor holds " + std::to_string(tensor.data.size()) +
                                   " bytes, which does not match " + DTypeName(tensor.dtype) + " " +
                                   ShapeToString(tensor.shape));
  }
  std::string header =
      "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + ShapeTuple(tensor.shape) + ", }";
  // Version 1.0 unless the header needs more than 65535 bytes.
  const bool v2 = header.size() + 1 + kMagicBytes + 4 > 65535;
  const size_t prefix = kMagicBytes + 2 + (v2 ? 4 : 2);
  const size_t total = (prefix + header.size() + 1 + 63) / 64 * 64;
  header.append(total - prefix - header.size() - 1, ' ');
  header.push_back('\n');
  std::vector<uint8_t> file(kMagic, kMagic + kMagicBytes);
  file.push_back(v2 ? 2 : 1);
  file.push_back(0);
  for (size_t i = 0; i < (v2 ? 4u : 2u); ++i) file.push_back(static_cast<uint8_t>(header.size() >> (8 * i)));
  file.insert(file.end(), header.begin(), header.end());
  file.insert(file.end(), tensor.data.begin(), tensor.data.end());
  return WriteWholeFile(path, file.data(), file.size());
}

}  // namespace loom
