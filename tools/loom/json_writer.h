// A tiny JSON writer for the CLI's --json output: objects, arrays, strings
// (escaped per RFC 8259), numbers (non-finite ones become null) and booleans,
// pretty-printed with two-space indentation. Callers nest Begin/End calls
// correctly; Key() precedes every value inside an object.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace loom {
namespace cli {

class JsonWriter {
 public:
  JsonWriter& BeginObject();
  JsonWriter& EndObject();
  // A compact array prints on one line ([2, 3]), and so does all it contains.
  JsonWriter& BeginArray(bool compact = false);
  JsonWriter& EndArray();
  JsonWriter& Key(std::string_view key);
  JsonWriter& String(std::string_view value);
  JsonWriter& Number(double value);
  JsonWriter& Int(int64_t value);
  JsonWriter& UInt(uint64_t value);
  JsonWriter& Bool(bool value);
  JsonWriter& Null();

  // Shorthands for a key followed by a value.
  JsonWriter& Field(std::string_view key, std::string_view value) { return Key(key).String(value); }
  JsonWriter& Field(std::string_view key, const char* value) { return Key(key).String(value); }
  JsonWriter& IntField(std::string_view key, int64_t value) { return Key(key).Int(value); }
  JsonWriter& NumberField(std::string_view key, double value) { return Key(key).Number(value); }

  const std::string& str() const { return out_; }

  // `s` as a JSON string literal, quotes included.
  static std::string Quote(std::string_view s);

 private:
  void BeforeValue();
  void Newline();

  std::string out_;
  struct Level {
    bool is_object;
    bool compact;
    int count;
  };
  std::vector<Level> stack_;
  bool after_key_ = false;
};

}  // namespace cli
}  // namespace loom
