#include "tools/tensor_io/proto_wire.h"

#include <cstring>

namespace loom {

Status WireReader::Malformed(const std::string& why) const {
  return Status::InvalidArgument(std::string("malformed ") + message_ + ": " + why);
}

Status WireReader::BadWireType(uint64_t field, int wire_type) const {
  return Malformed("field " + std::to_string(field) + " has wire type " + std::to_string(wire_type));
}

Status WireReader::Varint(uint64_t* v) {
  *v = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (p_ == end_) return Malformed("truncated varint");
    const uint8_t b = *p_++;
    *v |= static_cast<uint64_t>(b & 0x7f) << shift;
    if ((b & 0x80) == 0) return Status::Ok();
  }
  return Malformed("varint longer than 10 bytes");
}

Status WireReader::Fixed(void* out, size_t bytes) {
  if (static_cast<size_t>(end_ - p_) < bytes) return Malformed("truncated fixed-size value");
  std::memcpy(out, p_, bytes);
  p_ += bytes;
  return Status::Ok();
}

Status WireReader::Payload(const uint8_t** data, size_t* size) {
  uint64_t len = 0;
  RETURN_IF_ERROR(Varint(&len));
  if (len > static_cast<uint64_t>(end_ - p_)) return Malformed("truncated length-delimited field");
  *data = p_;
  *size = static_cast<size_t>(len);
  p_ += len;
  return Status::Ok();
}

Status WireReader::Next(uint64_t* field, int* wire_type) {
  uint64_t tag = 0;
  RETURN_IF_ERROR(Varint(&tag));
  *field = tag >> 3;
  *wire_type = static_cast<int>(tag & 7);
  if (*field == 0) return Malformed("field number 0");
  return Status::Ok();
}

Status WireReader::Skip(uint64_t field, int wire_type) {
  uint64_t ignored = 0;
  const uint8_t* data = nullptr;
  size_t size = 0;
  switch (wire_type) {
    case kVarint: return Varint(&ignored);
    case kFixed64: return Fixed(&ignored, 8);
    case kFixed32: return Fixed(&ignored, 4);
    case kLengthDelimited: return Payload(&data, &size);
    default: return BadWireType(field, wire_type);
  }
}

Status WireReader::Int(uint64_t field, int wire_type, int64_t* out) {
  if (wire_type != kVarint) return BadWireType(field, wire_type);
  uint64_t v = 0;
  RETURN_IF_ERROR(Varint(&v));
  *out = static_cast<int64_t>(v);
  return Status::Ok();
}

Status WireReader::Float(uint64_t field, int wire_type, float* out) {
  if (wire_type != kFixed32) return BadWireType(field, wire_type);
  return Fixed(out, 4);
}

Status WireReader::Bytes(uint64_t field, int wire_type, const uint8_t** data, size_t* size) {
  if (wire_type != kLengthDelimited) return BadWireType(field, wire_type);
  return Payload(data, size);
}

Status WireReader::String(uint64_t field, int wire_type, std::string* out) {
  const uint8_t* data = nullptr;
  size_t size = 0;
  RETURN_IF_ERROR(Bytes(field, wire_type, &data, &size));
  out->assign(reinterpret_cast<const char*>(data), size);
  return Status::Ok();
}

Status WireReader::Message(uint64_t field, int wire_type, const char* message, WireReader* out) {
  const uint8_t* data = nullptr;
  size_t size = 0;
  RETURN_IF_ERROR(Bytes(field, wire_type, &data, &size));
  *out = WireReader(data, size, message);
  return Status::Ok();
}

Status WireReader::RepeatedVarints(uint64_t field, int wire_type, std::vector<uint64_t>* out) {
  uint64_t v = 0;
  if (wire_type == kVarint) {
    RETURN_IF_ERROR(Varint(&v));
    out->push_back(v);
    return Status::Ok();
  }
  WireReader packed;
  RETURN_IF_ERROR(Message(field, wire_type, message_, &packed));
  while (!packed.done()) {
    RETURN_IF_ERROR(packed.Varint(&v));
    out->push_back(v);
  }
  return Status::Ok();
}

Status WireReader::RepeatedFixed(uint64_t field, int wire_type, size_t width, std::vector<uint8_t>* out) {
  if (wire_type == (width == 4 ? kFixed32 : kFixed64)) {
    uint8_t v[8];
    RETURN_IF_ERROR(Fixed(v, width));
    out->insert(out->end(), v, v + width);
    return Status::Ok();
  }
  const uint8_t* data = nullptr;
  size_t size = 0;
  RETURN_IF_ERROR(Bytes(field, wire_type, &data, &size));
  if (size % width != 0) {
    return Malformed("packed run of " + std::to_string(size) + " bytes is not a multiple of " +
                     std::to_string(width));
  }
  out->insert(out->end(), data, data + size);
  return Status::Ok();
}

}  // namespace loom
