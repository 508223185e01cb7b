// onnx.TensorProto decoded straight from the protobuf wire format, without
// libprotobuf. A message is a sequence of (tag = field << 3 | wire type,
// value); wire types: 0 varint, 1 fixed64, 2 length-delimited, 5 fixed32.
// Repeated numeric fields arrive packed (one length-delimited run) or one
// value per tag; both are accepted. Fields used (onnx.proto):
//   1 dims (int64)   2 data_type   4 float_data   5 int32_data   6 string_data
//   7 int64_data     8 name        9 raw_data    10 double_data 11 uint64_data
//  13 external_data 14 data_location (1 = EXTERNAL)
// int32_data also carries int8/int16/uint8/uint16/bool and the bit patterns of
// float16/bfloat16, one element per value. Unknown fields are skipped.
#include <cstring>
#include <string>

#include "tools/tensor_io/file_util.h"
#include "tools/tensor_io/host_tensor.h"

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "TensorProto decoding assumes a little-endian host");

namespace loom {
namespace {

enum WireType { kVarint = 0, kFixed64 = 1, kLengthDelimited = 2, kFixed32 = 5 };

Status BadWireType(uint64_t field, int wire_type) {
  return Status::InvalidArgument("malformed TensorProto: field " + std::to_string(field) + " has wire type " +
                                 std::to_string(wire_type));
}

class WireReader {
 public:
  WireReader(const uint8_t* p, size_t n) : p_(p), end_(p + n) {}
  bool done() const { return p_ == end_; }

  Status Varint(uint64_t* v) {
    *v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (p_ == end_) return Truncated("varint");
      const uint8_t b = *p_++;
      *v |= static_cast<uint64_t>(b & 0x7f) << shift;
      if ((b & 0x80) == 0) return Status::Ok();
    }
    return Status::InvalidArgument("malformed TensorProto: varint longer than 10 bytes");
  }
  Status Fixed(void* out, size_t bytes) {
    if (static_cast<size_t>(end_ - p_) < bytes) return Truncated("fixed-size value");
    std::memcpy(out, p_, bytes);
    p_ += bytes;
    return Status::Ok();
  }
  // A length-delimited payload: [*data, *data + *size).
  Status Bytes(const uint8_t** data, size_t* size) {
    uint64_t len = 0;
    RETURN_IF_ERROR(Varint(&len));
    if (len > static_cast<uint64_t>(end_ - p_)) return Truncated("length-delimited field");
    *data = p_;
    *size = static_cast<size_t>(len);
    p_ += len;
    return Status::Ok();
  }
  Status Skip(int wire_type, uint64_t field) {
    uint64_t ignored = 0;
    const uint8_t* data = nullptr;
    size_t size = 0;
    switch (wire_type) {
      case kVarint: return Varint(&ignored);
      case kFixed64: return Fixed(&ignored, 8);
      case kFixed32: return Fixed(&ignored, 4);
      case kLengthDelimited: return Bytes(&data, &size);
      default: return BadWireType(field, wire_type);
    }
  }

 private:
  static Status Truncated(const char* what) {
    return Status::InvalidArgument(std::string("malformed TensorProto: truncated ") + what);
  }
  const uint8_t* p_;
  const uint8_t* end_;
};

// Collects a repeated varint field, packed or not.
Status ReadVarints(WireReader* r, uint64_t field, int wire_type, std::vector<uint64_t>* out) {
  if (wire_type == kVarint) {
    uint64_t v = 0;
    RETURN_IF_ERROR(r->Varint(&v));
    out->push_back(v);
    return Status::Ok();
  }
  if (wire_type != kLengthDelimited) return BadWireType(field, wire_type);
  const uint8_t* data = nullptr;
  size_t size = 0;
  RETURN_IF_ERROR(r->Bytes(&data, &size));
  WireReader packed(data, size);
  while (!packed.done()) {
    uint64_t v = 0;
    RETURN_IF_ERROR(packed.Varint(&v));
    out->push_back(v);
  }
  return Status::Ok();
}

// Collects a repeated fixed-size field (float, double), packed or not.
Status ReadFixed(WireReader* r, uint64_t field, int wire_type, size_t width, std::vector<uint8_t>* out) {
  const int single = width == 4 ? kFixed32 : kFixed64;
  if (wire_type == single) {
    uint8_t v[8];
    RETURN_IF_ERROR(r->Fixed(v, width));
    out->insert(out->end(), v, v + width);
    return Status::Ok();
  }
  if (wire_type != kLengthDelimited) return BadWireType(field, wire_type);
  const uint8_t* data = nullptr;
  size_t size = 0;
  RETURN_IF_ERROR(r->Bytes(&data, &size));
  if (size % width != 0) {
    return Status::InvalidArgument("malformed TensorProto: packed run of " + std::to_string(size) +
                                   " bytes is not a multiple of " + std::to_string(width));
  }
  out->insert(out->end(), data, data + size);
  return Status::Ok();
}

struct Fields {
  std::vector<uint64_t> dims;
  int64_t data_type = 0;
  std::string name;
  const uint8_t* raw = nullptr;
  size_t raw_size = 0;
  bool has_raw = false;
  std::vector<uint8_t> floats;   // float_data, little-endian bytes
  std::vector<uint8_t> doubles;  // double_data
  std::vector<uint64_t> int32s, int64s, uint64s;
  bool has_strings = false;
  bool external = false;
};

Status ReadFields(const uint8_t* data, size_t size, Fields* f) {
  WireReader r(data, size);
  while (!r.done()) {
    uint64_t tag = 0;
    RETURN_IF_ERROR(r.Varint(&tag));
    const uint64_t field = tag >> 3;
    const int wire = static_cast<int>(tag & 7);
    if (field == 0) return Status::InvalidArgument("malformed TensorProto: field number 0");
    switch (field) {
      case 1: RETURN_IF_ERROR(ReadVarints(&r, field, wire, &f->dims)); break;
      case 2: {
        if (wire != kVarint) return Status::InvalidArgument("malformed TensorProto: data_type is not a varint");
        uint64_t v = 0;
        RETURN_IF_ERROR(r.Varint(&v));
        f->data_type = static_cast<int64_t>(v);
        break;
      }
      case 4: RETURN_IF_ERROR(ReadFixed(&r, field, wire, 4, &f->floats)); break;
      case 5: RETURN_IF_ERROR(ReadVarints(&r, field, wire, &f->int32s)); break;
      case 6:
        f->has_strings = true;
        RETURN_IF_ERROR(r.Skip(wire, field));
        break;
      case 7: RETURN_IF_ERROR(ReadVarints(&r, field, wire, &f->int64s)); break;
      case 8:
      case 9: {
        if (wire != kLengthDelimited)
          return Status::InvalidArgument("malformed TensorProto: field " + std::to_string(field) + " is not bytes");
        const uint8_t* p = nullptr;
        size_t n = 0;
        RETURN_IF_ERROR(r.Bytes(&p, &n));
        if (field == 8) {
          f->name.assign(reinterpret_cast<const char*>(p), n);
        } else {
          f->raw = p;
          f->raw_size = n;
          f->has_raw = true;
        }
        break;
      }
      case 10: RETURN_IF_ERROR(ReadFixed(&r, field, wire, 8, &f->doubles)); break;
      case 11: RETURN_IF_ERROR(ReadVarints(&r, field, wire, &f->uint64s)); break;
      case 14: {
        if (wire != kVarint) return Status::InvalidArgument("malformed TensorProto: data_location is not a varint");
        uint64_t v = 0;
        RETURN_IF_ERROR(r.Varint(&v));
        f->external = v == 1;
        break;
      }
      default: RETURN_IF_ERROR(r.Skip(wire, field)); break;
    }
  }
  return Status::Ok();
}

// Narrows varint values into elements of `width` bytes (two's complement).
void StoreInts(const std::vector<uint64_t>& values, size_t width, uint8_t* out) {
  for (size_t i = 0; i < values.size(); ++i) std::memcpy(out + i * width, &values[i], width);
}

std::string Count(size_t have, uint64_t want, const char* field) {
  return std::string(field) + " holds " + std::to_string(have) + " values, expected " + std::to_string(want);
}

}  // namespace

Status ParseTensorProto(const uint8_t* data, size_t size, HostTensor* out) {
  if (data == nullptr && size != 0) return Status::InvalidArgument("TensorProto buffer is null");
  Fields f;
  RETURN_IF_ERROR(ReadFields(data, size, &f));
  const std::string who = f.name.empty() ? "TensorProto" : "TensorProto '" + f.name + "'";
  if (f.external) return Status::Unsupported(who + ": external data is not supported");
  if (f.data_type < 0 || f.data_type > INT32_MAX || !IsKnownDType(static_cast<int32_t>(f.data_type)) ||
      f.data_type == 0) {
    return Status::InvalidArgument(who + ": unknown data_type " + std::to_string(f.data_type));
  }
  const DType dtype = static_cast<DType>(f.data_type);
  const size_t width = DTypeSize(dtype);
  if (dtype == DType::kString || f.has_strings) return Status::Unsupported(who + ": string tensors are not supported");
  if (width == 0) return Status::Unsupported(who + ": dtype " + DTypeName(dtype) + " is not supported");

  Shape shape;
  for (uint64_t d : f.dims) {
    if (d > static_cast<uint64_t>(INT64_MAX)) return Status::InvalidArgument(who + ": negative dimension");
    shape.push_back(static_cast<int64_t>(d));
  }
  const int64_t numel = NumElements(shape);
  uint64_t bytes = 0;
  if (numel < 0 || __builtin_mul_overflow(static_cast<uint64_t>(numel), width, &bytes) || bytes > size * 16 + 64) {
    // Typed fields need at least one byte per element, raw_data `width` bytes:
    // a tensor much larger than its message is malformed, not a reason to allocate.
    return Status::InvalidArgument(who + ": shape " + ShapeToString(shape) + " does not fit a " + std::to_string(size) +
                                   "-byte message");
  }
  const uint64_t n = static_cast<uint64_t>(numel);
  std::vector<uint8_t> result;
  if (f.has_raw) {
    if (!f.floats.empty() || !f.doubles.empty() || !f.int32s.empty() || !f.int64s.empty() || !f.uint64s.empty())
      return Status::InvalidArgument(who + ": has both raw_data and typed data");
    if (f.raw_size != bytes) {
      return Status::InvalidArgument(who + ": raw_data has " + std::to_string(f.raw_size) + " bytes, expected " +
                                     std::to_string(bytes) + " for " + DTypeName(dtype) + " " + ShapeToString(shape));
    }
    result.assign(f.raw, f.raw + f.raw_size);
  } else {
    result.resize(static_cast<size_t>(bytes));
    switch (dtype) {
      case DType::kFloat32:
        if (f.floats.size() != bytes)
          return Status::InvalidArgument(who + ": " + Count(f.floats.size() / 4, n, "float_data"));
        result = f.floats;
        break;
      case DType::kFloat64:
        if (f.doubles.size() != bytes)
          return Status::InvalidArgument(who + ": " + Count(f.doubles.size() / 8, n, "double_data"));
        result = f.doubles;
        break;
      case DType::kInt64:
        if (f.int64s.size() != n) return Status::InvalidArgument(who + ": " + Count(f.int64s.size(), n, "int64_data"));
        StoreInts(f.int64s, 8, result.data());
        break;
      case DType::kUInt32:
      case DType::kUInt64:
        if (f.uint64s.size() != n)
          return Status::InvalidArgument(who + ": " + Count(f.uint64s.size(), n, "uint64_data"));
        StoreInts(f.uint64s, width, result.data());
        break;
      default:  // int32, int16, int8, uint16, uint8, bool, float16, bfloat16
        if (f.int32s.size() != n) return Status::InvalidArgument(who + ": " + Count(f.int32s.size(), n, "int32_data"));
        StoreInts(f.int32s, width, result.data());
        break;
    }
  }
  if (dtype == DType::kBool) {
    for (uint8_t& b : result) b = b != 0;
  }
  out->name = f.name;
  out->dtype = dtype;
  out->shape = std::move(shape);
  out->data = std::move(result);
  return Status::Ok();
}

Status ReadTensorProto(const std::string& path, HostTensor* out) {
  std::vector<uint8_t> file;
  RETURN_IF_ERROR(ReadWholeFile(path, &file));
  const Status s = ParseTensorProto(file.data(), file.size(), out);
  if (!s.ok()) return s.WithContext("'" + path + "'");
  return Status::Ok();
}

}  // namespace loom
