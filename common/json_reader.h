// A small JSON reader (RFC 8259) for the files Loom itself writes, such as
// timing caches (common/timing_cache.h): the whole text is parsed into a
// tree of JsonValue. Errors name the line and column and what was expected
// ("line 3, column 14: expected ',' or '}'"). Strings keep \u escapes of
// the Basic Multilingual Plane as UTF-8; nesting is limited to 64 levels so
// a hostile file cannot exhaust the stack.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/status.h"

namespace loom {

struct JsonValue {
  enum class Kind { kNull, kBool, kNumber, kString, kArray, kObject };
  Kind kind = Kind::kNull;
  bool boolean = false;
  double number = 0;
  std::string string;
  std::vector<JsonValue> array;
  std::vector<std::pair<std::string, JsonValue>> object;  // in file order

  // The member `key` of an object (the first, if repeated), or null.
  const JsonValue* Find(std::string_view key) const;
};

// "object", "string", ...: for messages.
const char* JsonKindName(JsonValue::Kind kind);

// Parses `text` (one value, surrounded by whitespace only) into *out;
// InvalidArgument naming the position otherwise.
Status ParseJson(std::string_view text, JsonValue* out);

}  // namespace loom
