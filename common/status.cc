#include "common/status.h"

namespace loom {

const char* StatusCodeName(StatusCode code) {
  switch (code) {
    case StatusCode::kOk: return "ok";
    case StatusCode::kInvalidArgument: return "invalid argument";
    case StatusCode::kNotFound: return "not found";
    case StatusCode::kUnsupported: return "unsupported";
    case StatusCode::kCorrupt: return "corrupt";
    case StatusCode::kVersionMismatch: return "version mismatch";
    case StatusCode::kOutOfRange: return "out of range";
    case StatusCode::kIoError: return "i/o error";
    case StatusCode::kDeviceError: return "device error";
    case StatusCode::kInternal: return "internal error";
  }
  return "unknown";
}

std::string Status::ToString() const {
  if (ok()) return "ok";
  if (code_ == StatusCode::kUnsupported && message_.find("unsupported") == std::string::npos)
    return "unsupported: " + message_;
  return message_;
}

Status Status::WithContext(const std::string& prefix) const {
  if (ok()) return *this;
  return Status(code_, prefix + ": " + ToString());
}

}  // namespace loom
