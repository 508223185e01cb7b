// onnx.TensorProto decoded straight from the protobuf wire format (see
// proto_wire.h), without libprotobuf. Fields used (onnx.proto):
//   1 dims (int64)   2 data_type   4 float_data   5 int32_data   6 string_data
//   7 int64_data     8 name        9 raw_data    10 double_data 11 uint64_data
//  13 external_data 14 data_location (1 = EXTERNAL)
// int32_data also carries int8/int16/uint8/uint16/bool and the bit patterns of
// float16/bfloat16, one element per value. Unknown fields are skipped.
#include <cstring>
#include <string>

#include "tools/tensor_io/file_util.h"
#include "tools/tensor_io/host_tensor.h"
#include "tools/tensor_io/proto_wire.h"

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "TensorProto decoding assumes a little-endian host");

namespace loom {
namespace {

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
  WireReader r(data, size, "TensorProto");
  int64_t location = 0;
  RETURN_IF_ERROR(r.ForEachField([&](uint64_t field, int wire) -> Status {
    switch (field) {
      case 1: return r.RepeatedVarints(field, wire, &f->dims);
      case 2: return r.Int(field, wire, &f->data_type);
      case 4: return r.RepeatedFixed(field, wire, 4, &f->floats);
      case 5: return r.RepeatedVarints(field, wire, &f->int32s);
      case 6:
        f->has_strings = true;
        return r.Skip(field, wire);
      case 7: return r.RepeatedVarints(field, wire, &f->int64s);
      case 8: return r.String(field, wire, &f->name);
      case 9:
        f->has_raw = true;
        return r.Bytes(field, wire, &f->raw, &f->raw_size);
      case 10: return r.RepeatedFixed(field, wire, 8, &f->doubles);
      case 11: return r.RepeatedVarints(field, wire, &f->uint64s);
      case 14: return r.Int(field, wire, &location);
      default: return r.Skip(field, wire);
    }
  }));
  f->external = location == 1;
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
