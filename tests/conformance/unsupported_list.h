// The checked-in list of ONNX test cases Loom refuses as unsupported
// (tests/conformance/unsupported.txt). One case per line:
//   node/test_foo  # unsupported: op 'Foo'
// Blank lines and lines starting with '#' are comments. The runner fails when
// a case becomes unsupported without being listed, or a listed case passes.
#pragma once

#include <map>
#include <string>

#include "common/status.h"

namespace loom {
namespace conformance {

// Case name ("node/test_abs") -> reason (may be empty).
using UnsupportedList = std::map<std::string, std::string>;

Status ParseUnsupportedList(const std::string& text, UnsupportedList* out);
Status ReadUnsupportedList(const std::string& path, UnsupportedList* out);
// Sorted, one "case  # reason" per line under a short header comment.
std::string FormatUnsupportedList(const UnsupportedList& list);
Status WriteUnsupportedList(const std::string& path, const UnsupportedList& list);

// The first line of `message`, trimmed and cut to `max_chars`.
std::string FirstLine(const std::string& message, size_t max_chars = 200);

}  // namespace conformance
}  // namespace loom
