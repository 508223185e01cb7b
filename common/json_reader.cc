#include "common/json_reader.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>

namespace loom {
namespace {

constexpr int kMaxDepth = 64;

class Parser {
 public:
  explicit Parser(std::string_view text) : text_(text) {}

  Status Parse(JsonValue* out) {
    RETURN_IF_ERROR(Value(out, 0));
    SkipSpace();
    if (pos_ != text_.size()) return Error("unexpected text after the value");
    return Status::Ok();
  }

 private:
  Status Error(const std::string& what) const {
    int line = 1, column = 1;
    for (size_t i = 0; i < pos_ && i < text_.size(); ++i) {
      if (text_[i] == '\n') {
        ++line;
        column = 1;
      } else {
        ++column;
      }
    }
    return Status::InvalidArgument("line " + std::to_string(line) + ", column " + std::to_string(column) + ": " + what);
  }

  void SkipSpace() {
    while (pos_ < text_.size() &&
           (text_[pos_] == ' ' || text_[pos_] == '\t' || text_[pos_] == '\n' || text_[pos_] == '\r'))
      ++pos_;
  }

  bool Consume(char c) {
    SkipSpace();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }

  Status Value(JsonValue* out, int depth) {
    if (depth > kMaxDepth) return Error("nested deeper than " + std::to_string(kMaxDepth) + " levels");
    SkipSpace();
    if (pos_ >= text_.size()) return Error("expected a value, found the end of the text");
    const char c = text_[pos_];
    if (c == '{') return Object(out, depth);
    if (c == '[') return Array(out, depth);
    if (c == '"') {
      out->kind = JsonValue::Kind::kString;
      return String(&out->string);
    }
    if (c == '-' || (c >= '0' && c <= '9')) return Number(out);
    for (const char* word : {"true", "false", "null"}) {
      if (text_.substr(pos_).rfind(word, 0) == 0) {
        pos_ += std::string_view(word).size();
        out->kind = word[0] == 'n' ? JsonValue::Kind::kNull : JsonValue::Kind::kBool;
        out->boolean = word[0] == 't';
        return Status::Ok();
      }
    }
    return Error(std::string("unexpected character '") + c + "'");
  }

  Status Object(JsonValue* out, int depth) {
    ++pos_;  // '{'
    out->kind = JsonValue::Kind::kObject;
    if (Consume('}')) return Status::Ok();
    while (true) {
      SkipSpace();
      if (pos_ >= text_.size() || text_[pos_] != '"') return Error("expected a member name in quotes");
      std::string key;
      RETURN_IF_ERROR(String(&key));
      if (!Consume(':')) return Error("expected ':' after member \"" + key + "\"");
      JsonValue value;
      RETURN_IF_ERROR(Value(&value, depth + 1));
      out->object.emplace_back(std::move(key), std::move(value));
      if (Consume('}')) return Status::Ok();
      if (!Consume(',')) return Error("expected ',' or '}'");
    }
  }

  Status Array(JsonValue* out, int depth) {
    ++pos_;  // '['
    out->kind = JsonValue::Kind::kArray;
    if (Consume(']')) return Status::Ok();
    while (true) {
      JsonValue value;
      RETURN_IF_ERROR(Value(&value, depth + 1));
      out->array.push_back(std::move(value));
      if (Consume(']')) return Status::Ok();
      if (!Consume(',')) return Error("expected ',' or ']'");
    }
  }

  // A JSON number: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
  Status Number(JsonValue* out) {
    const size_t start = pos_;
    auto digits = [&] {
      const size_t from = pos_;
      while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') ++pos_;
      return pos_ > from;
    };
    if (text_[pos_] == '-') ++pos_;
    if (pos_ < text_.size() && text_[pos_] == '0') {
      ++pos_;
    } else if (!digits()) {
      return Error("expected digits in a number");
    }
    if (pos_ < text_.size() && text_[pos_] == '.') {
      ++pos_;
      if (!digits()) return Error("expected digits after '.'");
    }
    if (pos_ < text_.size() && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
      ++pos_;
      if (pos_ < text_.size() && (text_[pos_] == '+' || text_[pos_] == '-')) ++pos_;
      if (!digits()) return Error("expected digits in an exponent");
    }
    double value = 0;
    const auto [end, ec] = std::from_chars(text_.data() + start, text_.data() + pos_, value);
    if (ec != std::errc() || end != text_.data() + pos_ || !std::isfinite(value)) {
      pos_ = start;
      return Error("number out of range");
    }
    out->kind = JsonValue::Kind::kNumber;
    out->number = value;
    return Status::Ok();
  }

  static void AppendUtf8(uint32_t code, std::string* out) {
    if (code < 0x80) {
      out->push_back(static_cast<char>(code));
    } else if (code < 0x800) {
      out->push_back(static_cast<char>(0xC0 | (code >> 6)));
      out->push_back(static_cast<char>(0x80 | (code & 0x3F)));
    } else {
      out->push_back(static_cast<char>(0xE0 | (code >> 12)));
      out->push_back(static_cast<char>(0x80 | ((code >> 6) & 0x3F)));
      out->push_back(static_cast<char>(0x80 | (code & 0x3F)));
    }
  }

  Status String(std::string* out) {
    ++pos_;  // '"'
    out->clear();
    while (pos_ < text_.size()) {
      const char c = text_[pos_];
      if (c == '"') {
        ++pos_;
        return Status::Ok();
      }
      if (static_cast<unsigned char>(c) < 0x20) return Error("control character in a string");
      if (c != '\\') {
        out->push_back(c);
        ++pos_;
        continue;
      }
      if (++pos_ >= text_.size()) break;
      const char e = text_[pos_++];
      switch (e) {
        case '"':
          out->push_back('"');
          break;
        case '\\':
          out->push_back('\\');
          break;
        case '/':
          out->push_back('/');
          break;
        case 'b':
          out->push_back('\b');
          break;
        case 'f':
          out->push_back('\f');
          break;
        case 'n':
          out->push_back('\n');
          break;
        case 'r':
          out->push_back('\r');
          break;
        case 't':
          out->push_back('\t');
          break;
        case 'u': {
          uint32_t code = 0;
          const auto [end, ec] =
              std::from_chars(text_.data() + pos_, text_.data() + std::min(pos_ + 4, text_.size()), code, 16);
          if (ec != std::errc() || end != text_.data() + pos_ + 4) return Error("expected 4 hex digits after \\u");
          if (code >= 0xD800 && code <= 0xDFFF) return Error("surrogate \\u escapes are not supported");
          pos_ += 4;
          AppendUtf8(code, out);
          break;
        }
        default:
          --pos_;
          return Error(std::string("unknown escape '\\") + e + "'");
      }
    }
    return Error("unterminated string");
  }

  std::string_view text_;
  size_t pos_ = 0;
};

}  // namespace

const JsonValue* JsonValue::Find(std::string_view key) const {
  for (const auto& [name, value] : object)
    if (name == key) return &value;
  return nullptr;
}

const char* JsonKindName(JsonValue::Kind kind) {
  switch (kind) {
    case JsonValue::Kind::kNull:
      return "null";
    case JsonValue::Kind::kBool:
      return "boolean";
    case JsonValue::Kind::kNumber:
      return "number";
    case JsonValue::Kind::kString:
      return "string";
    case JsonValue::Kind::kArray:
      return "array";
    case JsonValue::Kind::kObject:
      return "object";
  }
  return "value";
}

Status ParseJson(std::string_view text, JsonValue* out) {
  *out = JsonValue();
  return Parser(text).Parse(out);
}

}  // namespace loom
