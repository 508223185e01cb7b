// Status: the one error type of Loom. A code plus a message that names the
// node, op, tensor and the expected vs. actual value, e.g.
//   "conv1 (Conv): weight has 3 dims, expected 4".
// No exceptions cross an API boundary; functions that can fail return Status.
#pragma once

#include <string>
#include <utility>

namespace loom {

enum class StatusCode {
  kOk = 0,
  kInvalidArgument,    // bad argument or malformed input from the caller
  kNotFound,           // missing file, tensor, kernel, ...
  kUnsupported,        // well-formed but beyond what Loom implements
  kCorrupt,            // a plan or model that fails verification
  kVersionMismatch,    // a plan written by a newer, incompatible format
  kOutOfRange,         // data-dependent index or size outside its bounds
  kIoError,            // read/write failure
  kDeviceError,        // accelerator or driver failure
  kInternal,           // a bug in Loom
};

const char* StatusCodeName(StatusCode code);

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}

  static Status Ok() { return Status(); }
  static Status InvalidArgument(std::string m) { return {StatusCode::kInvalidArgument, std::move(m)}; }
  static Status NotFound(std::string m) { return {StatusCode::kNotFound, std::move(m)}; }
  static Status Unsupported(std::string m) { return {StatusCode::kUnsupported, std::move(m)}; }
  static Status Corrupt(std::string m) { return {StatusCode::kCorrupt, std::move(m)}; }
  static Status VersionMismatch(std::string m) { return {StatusCode::kVersionMismatch, std::move(m)}; }
  static Status OutOfRange(std::string m) { return {StatusCode::kOutOfRange, std::move(m)}; }
  static Status IoError(std::string m) { return {StatusCode::kIoError, std::move(m)}; }
  static Status DeviceError(std::string m) { return {StatusCode::kDeviceError, std::move(m)}; }
  static Status Internal(std::string m) { return {StatusCode::kInternal, std::move(m)}; }

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }

  // The message; unsupported errors always read "unsupported: ...".
  std::string ToString() const;

  // Returns a copy whose message is "<prefix>: <message>" (same code).
  Status WithContext(const std::string& prefix) const;

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

}  // namespace loom

#define LOOM_STATUS_CONCAT_INNER(a, b) a##b
#define LOOM_STATUS_CONCAT(a, b) LOOM_STATUS_CONCAT_INNER(a, b)

// Evaluates `expr` (a Status) and returns it from the caller if it failed.
#define RETURN_IF_ERROR(expr)                                                \
  do {                                                                       \
    ::loom::Status LOOM_STATUS_CONCAT(status_, __LINE__) = (expr);           \
    if (!LOOM_STATUS_CONCAT(status_, __LINE__).ok())                         \
      return LOOM_STATUS_CONCAT(status_, __LINE__);                          \
  } while (0)

// Returns Status::InvalidArgument(msg) (or another factory) when `cond` fails.
#define LOOM_CHECK_OR_RETURN(cond, status_expr) \
  do {                                          \
    if (!(cond)) return (status_expr);          \
  } while (0)
