#include "common/timing_cache.h"

#include <cmath>
#include <cstdio>

#include "common/json_reader.h"

namespace loom {
namespace {

constexpr char kFormat[] = "loom timing cache";
constexpr int kVersion = 1;

std::string TensorText(DType dtype, const Shape& shape) {
  if (dtype == DType::kUndefined) return "-";
  return std::string(DTypeName(dtype)) + " " + ShapeToString(shape);
}

// A JSON string literal (RFC 8259 escapes).
std::string Quote(const std::string& s) {
  std::string out = "\"";
  for (const char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof(buf), "\\u%04x", static_cast<unsigned>(c));
          out += buf;
        } else {
          out.push_back(c);
        }
    }
  }
  return out + "\"";
}

std::string NumberText(double v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.9g", v);
  return buf;
}

// "an object", "a string": for messages.
std::string WithArticle(JsonValue::Kind kind) {
  const std::string name = JsonKindName(kind);
  if (kind == JsonValue::Kind::kNull) return name;
  return (name[0] == 'a' || name[0] == 'o' ? "an " : "a ") + name;
}

Status Member(const JsonValue& object, const std::string& where, const char* key, JsonValue::Kind kind,
              const JsonValue** out) {
  *out = object.Find(key);
  if (*out == nullptr) return Status::InvalidArgument(where + "no \"" + key + "\" member");
  if ((*out)->kind != kind) {
    return Status::InvalidArgument(where + "\"" + key + "\" is " + WithArticle((*out)->kind) + ", expected " +
                                   WithArticle(kind));
  }
  return Status::Ok();
}

Status ParseEntry(const JsonValue& item, const std::string& where, TimingCache* out) {
  if (item.kind != JsonValue::Kind::kObject)
    return Status::InvalidArgument(where + "is " + WithArticle(item.kind) + ", expected an object");
  const JsonValue *signature = nullptr, *ms = nullptr;
  RETURN_IF_ERROR(Member(item, where, "signature", JsonValue::Kind::kString, &signature));
  RETURN_IF_ERROR(Member(item, where, "ms", JsonValue::Kind::kNumber, &ms));
  if (!(ms->number >= 0))
    return Status::InvalidArgument(where + "\"ms\" is " + NumberText(ms->number) + ", expected a time >= 0");
  TimingEntry entry;
  entry.ms = ms->number;
  if (const JsonValue* node = item.Find("node"); node != nullptr && node->kind == JsonValue::Kind::kString)
    entry.node = node->string;
  if (const JsonValue* count = item.Find("count"); count != nullptr) {
    if (count->kind != JsonValue::Kind::kNumber || !(count->number >= 1 && count->number <= 1e9) ||
        count->number != std::floor(count->number)) {
      return Status::InvalidArgument(
          where + "\"count\" is " +
          (count->kind == JsonValue::Kind::kNumber ? NumberText(count->number) : WithArticle(count->kind)) +
          ", expected a count >= 1");
    }
    entry.count = static_cast<int>(count->number);
  }
  if (!out->nodes.emplace(signature->string, entry).second)
    return Status::InvalidArgument(where + "repeats signature " + Quote(signature->string));
  return Status::Ok();
}

}  // namespace

std::string NodeSignature(const std::string& op, const std::vector<std::string>& fused,
                          const std::vector<DType>& input_dtypes, const std::vector<Shape>& input_shapes,
                          const std::vector<DType>& output_dtypes, const std::vector<Shape>& output_shapes) {
  std::string s = op;
  for (const std::string& f : fused) s += "+" + f;
  s += "(";
  for (size_t i = 0; i < input_dtypes.size(); ++i)
    s += (i ? ", " : "") + TensorText(input_dtypes[i], i < input_shapes.size() ? input_shapes[i] : Shape());
  s += " ->";
  for (size_t i = 0; i < output_dtypes.size(); ++i)
    s += (i ? ", " : " ") + TensorText(output_dtypes[i], i < output_shapes.size() ? output_shapes[i] : Shape());
  return s + ")";
}

std::string SerializeTimingCache(const TimingCache& cache) {
  std::string text = "{\n  \"format\": " + Quote(kFormat) + ",\n  \"version\": " + std::to_string(kVersion) +
                     ",\n  \"cpu\": " + Quote(cache.cpu) + ",\n  \"threads\": " + std::to_string(cache.threads) +
                     ",\n  \"nodes\": [";
  bool first = true;
  for (const auto& [signature, entry] : cache.nodes) {
    text += std::string(first ? "" : ",") + "\n    {\"signature\": " + Quote(signature) +
            ", \"ms\": " + NumberText(entry.ms) + ", \"node\": " + Quote(entry.node) +
            ", \"count\": " + std::to_string(entry.count) + "}";
    first = false;
  }
  return text + (first ? "]\n}\n" : "\n  ]\n}\n");
}

Status ParseTimingCache(std::string_view text, TimingCache* out) {
  *out = TimingCache();
  JsonValue root;
  RETURN_IF_ERROR(ParseJson(text, &root));
  if (root.kind != JsonValue::Kind::kObject)
    return Status::InvalidArgument("the file holds " + WithArticle(root.kind) + ", expected an object");
  const JsonValue* format = root.Find("format");
  if (format == nullptr || format->kind != JsonValue::Kind::kString || format->string != kFormat)
    return Status::InvalidArgument(std::string("no \"format\": \"") + kFormat + "\" (not a timing cache?)");
  const JsonValue *version = nullptr, *cpu = nullptr, *threads = nullptr, *nodes = nullptr;
  RETURN_IF_ERROR(Member(root, "", "version", JsonValue::Kind::kNumber, &version));
  if (version->number != kVersion) {
    return Status::InvalidArgument("version " + NumberText(version->number) + ", this Loom reads version " +
                                   std::to_string(kVersion));
  }
  RETURN_IF_ERROR(Member(root, "", "cpu", JsonValue::Kind::kString, &cpu));
  RETURN_IF_ERROR(Member(root, "", "threads", JsonValue::Kind::kNumber, &threads));
  if (!(threads->number >= 1 && threads->number <= 4096) || threads->number != std::floor(threads->number))
    return Status::InvalidArgument("\"threads\" is " + NumberText(threads->number) + ", expected a count >= 1");
  RETURN_IF_ERROR(Member(root, "", "nodes", JsonValue::Kind::kArray, &nodes));
  out->cpu = cpu->string;
  out->threads = static_cast<int>(threads->number);
  for (size_t i = 0; i < nodes->array.size(); ++i)
    RETURN_IF_ERROR(ParseEntry(nodes->array[i], "nodes[" + std::to_string(i) + "]: ", out));
  return Status::Ok();
}

}  // namespace loom
