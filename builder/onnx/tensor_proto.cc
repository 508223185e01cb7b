#include "builder/onnx/tensor_proto.h"

#include <cstring>

namespace loom {
namespace onnx_import {

namespace {

// Copies `count` values of a repeated field into `dst`, narrowing each to T.
template <typename T, typename Field>
void CopyNarrowed(const Field& field, uint8_t* dst) {
  for (int i = 0; i < field.size(); ++i) {
    const T v = static_cast<T>(field.Get(i));
    std::memcpy(dst + static_cast<size_t>(i) * sizeof(T), &v, sizeof(T));
  }
}

// Number of elements held by the typed field matching `dtype`.
int TypedFieldSize(const onnx::TensorProto& t, DType dtype) {
  switch (dtype) {
    case DType::kFloat32: return t.float_data_size();
    case DType::kInt64: return t.int64_data_size();
    case DType::kFloat64: return t.double_data_size();
    case DType::kUInt32:
    case DType::kUInt64: return t.uint64_data_size();
    default: return t.int32_data_size();
  }
}

void CopyTypedField(const onnx::TensorProto& t, DType dtype, uint8_t* dst) {
  switch (dtype) {
    case DType::kFloat32: CopyNarrowed<float>(t.float_data(), dst); break;
    case DType::kInt64: CopyNarrowed<int64_t>(t.int64_data(), dst); break;
    case DType::kFloat64: CopyNarrowed<double>(t.double_data(), dst); break;
    case DType::kUInt32: CopyNarrowed<uint32_t>(t.uint64_data(), dst); break;
    case DType::kUInt64: CopyNarrowed<uint64_t>(t.uint64_data(), dst); break;
    case DType::kInt32: CopyNarrowed<int32_t>(t.int32_data(), dst); break;
    case DType::kInt16: CopyNarrowed<int16_t>(t.int32_data(), dst); break;
    case DType::kUInt16:
    case DType::kFloat16:
    case DType::kBFloat16: CopyNarrowed<uint16_t>(t.int32_data(), dst); break;
    case DType::kInt8: CopyNarrowed<int8_t>(t.int32_data(), dst); break;
    case DType::kUInt8: CopyNarrowed<uint8_t>(t.int32_data(), dst); break;
    case DType::kBool:
      for (int i = 0; i < t.int32_data_size(); ++i) dst[i] = t.int32_data(i) != 0 ? 1 : 0;
      break;
    default: break;
  }
}

}  // namespace

Status ConvertElemType(int32_t elem_type, const std::string& what, DType* out) {
  if (!IsKnownDType(elem_type) || elem_type == 0)
    return Status::InvalidArgument(what + " has unknown element type " + std::to_string(elem_type));
  const DType t = static_cast<DType>(elem_type);
  if (DTypeSize(t) == 0) return Status::Unsupported(what + " has dtype " + DTypeName(t) + ", unsupported");
  *out = t;
  return Status::Ok();
}

Status ConvertTensorProto(const onnx::TensorProto& t, const std::string& what, ConstantTensor* out) {
  RETURN_IF_ERROR(ConvertElemType(t.data_type(), what, &out->dtype));
  if (t.has_segment()) return Status::Unsupported(what + " is segmented, unsupported");
  if (t.data_location() == onnx::TensorProto::EXTERNAL)
    return Status::Internal(what + " still refers to external data");
  out->shape.assign(t.dims().begin(), t.dims().end());
  const int64_t n = NumElements(out->shape);
  if (n < 0) return Status::InvalidArgument(what + " has invalid dims " + ShapeToString(out->shape));
  const size_t elem = DTypeSize(out->dtype);
  if (static_cast<uint64_t>(n) > (uint64_t{1} << 40) / elem)
    return Status::Unsupported(what + " is too large (" + std::to_string(n) + " elements)");
  const size_t bytes = static_cast<size_t>(n) * elem;
  if (t.has_raw_data()) {
    if (t.raw_data().size() != bytes)
      return Status::InvalidArgument(what + ": raw_data has " + std::to_string(t.raw_data().size()) +
                                     " bytes, expected " + std::to_string(bytes) + " for " +
                                     DTypeName(out->dtype) + " " + ShapeToString(out->shape));
    out->data = ir::Buffer::CopyOf(t.raw_data().data(), bytes);
    return Status::Ok();
  }
  const int count = TypedFieldSize(t, out->dtype);
  if (count != n)
    return Status::InvalidArgument(what + " holds " + std::to_string(count) + " values, expected " +
                                   std::to_string(n) + " for shape " + ShapeToString(out->shape));
  std::shared_ptr<ir::Buffer> buffer = ir::Buffer::Allocate(bytes);
  CopyTypedField(t, out->dtype, buffer->mutable_data());
  out->data = std::move(buffer);
  return Status::Ok();
}

}  // namespace onnx_import
}  // namespace loom
