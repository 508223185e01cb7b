// Reads the protobuf wire format for the ONNX decoders of this directory
// (TensorProto, and the parts of ModelProto a single-node test needs),
// without libprotobuf. A message is a sequence of (tag = field << 3 | wire
// type, value); wire types: 0 varint, 1 fixed64, 2 length-delimited,
// 5 fixed32. Repeated numeric fields arrive packed (one length-delimited run)
// or one value per tag; the Repeated* readers accept both.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"

namespace loom {

class WireReader {
 public:
  WireReader() = default;
  // `message` names the message type in errors: "malformed <message>: ...".
  WireReader(const uint8_t* data, size_t size, const char* message)
      : p_(data), end_(data + size), message_(message) {}
  bool done() const { return p_ == end_; }

  // Calls visit(field, wire_type) -> Status for each field until the end or
  // an error; `visit` reads (or skips) the field's value.
  template <typename Visit>
  Status ForEachField(Visit visit) {
    while (!done()) {
      uint64_t field = 0;
      int wire_type = 0;
      RETURN_IF_ERROR(Next(&field, &wire_type));
      RETURN_IF_ERROR(visit(field, wire_type));
    }
    return Status::Ok();
  }

  // Field values; each checks that the field has the wire type it expects.
  Status Int(uint64_t field, int wire_type, int64_t* out);  // a varint
  Status Float(uint64_t field, int wire_type, float* out);  // a fixed32
  // A length-delimited payload: [*data, *data + *size).
  Status Bytes(uint64_t field, int wire_type, const uint8_t** data, size_t* size);
  Status String(uint64_t field, int wire_type, std::string* out);
  // A nested message; `message` names its type in errors.
  Status Message(uint64_t field, int wire_type, const char* message, WireReader* out);
  // Appends a repeated varint field.
  Status RepeatedVarints(uint64_t field, int wire_type, std::vector<uint64_t>* out);
  // Appends the bytes of a repeated fixed-size field (4: float, 8: double).
  Status RepeatedFixed(uint64_t field, int wire_type, size_t width, std::vector<uint8_t>* out);
  Status Skip(uint64_t field, int wire_type);

 private:
  enum WireType { kVarint = 0, kFixed64 = 1, kLengthDelimited = 2, kFixed32 = 5 };

  // The next field's number and wire type.
  Status Next(uint64_t* field, int* wire_type);
  Status Varint(uint64_t* v);
  Status Fixed(void* out, size_t bytes);
  Status Payload(const uint8_t** data, size_t* size);
  Status Malformed(const std::string& why) const;
  Status BadWireType(uint64_t field, int wire_type) const;

  const uint8_t* p_ = nullptr;
  const uint8_t* end_ = nullptr;
  const char* message_ = "message";
};

}  // namespace loom
