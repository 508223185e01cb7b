#include "builder/quantize/calibration_cache.h"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <vector>

#include "builder/plan/atomic_file.h"
#include "tools/tensor_io/file_util.h"

namespace loom {
namespace quantize {
namespace {

constexpr char kFormatLine[] = "loom calibration cache 1";
constexpr char kFormatPrefix[] = "loom calibration cache ";

bool IsControl(unsigned char c) { return c < 0x20 || c == 0x7f; }
bool IsSpace(char c) { return c == ' ' || c == '\t'; }

std::string Trim(const std::string& s) {
  size_t b = 0, e = s.size();
  while (b < e && IsSpace(s[b])) ++b;
  while (e > b && IsSpace(s[e - 1])) --e;
  return s.substr(b, e - b);
}

// A line for an error message: at most 60 bytes, control bytes escaped.
std::string Excerpt(const std::string& line) {
  std::string s;
  for (size_t i = 0; i < line.size() && i < 60; ++i) {
    const unsigned char c = static_cast<unsigned char>(line[i]);
    s += IsControl(c) ? "?" : std::string(1, line[i]);
  }
  return "'" + s + (line.size() > 60 ? "...'" : "'");
}

std::string QuoteName(const std::string& name) {
  static const char kHex[] = "0123456789abcdef";
  std::string s = "\"";
  for (const char ch : name) {
    const unsigned char c = static_cast<unsigned char>(ch);
    switch (ch) {
      case '"': s += "\\\""; break;
      case '\\': s += "\\\\"; break;
      case '\n': s += "\\n"; break;
      case '\r': s += "\\r"; break;
      case '\t': s += "\\t"; break;
      default:
        if (IsControl(c)) {
          s += "\\x";
          s += kHex[c >> 4];
          s += kHex[c & 15];
        } else {
          s += ch;
        }
    }
  }
  return s + "\"";
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Parses a QuoteName() string at line[*pos], leaving *pos after the closing
// quote. On failure returns the reason.
bool ParseQuotedName(const std::string& line, size_t* pos, std::string* name, std::string* why) {
  size_t i = *pos;
  if (i >= line.size() || line[i] != '"') {
    *why = "expected a double-quoted tensor name";
    return false;
  }
  name->clear();
  for (++i; i < line.size(); ++i) {
    const char c = line[i];
    if (c == '"') {
      *pos = i + 1;
      return true;
    }
    if (c != '\\') {
      name->push_back(c);
      continue;
    }
    if (++i == line.size()) break;
    switch (line[i]) {
      case '"': name->push_back('"'); break;
      case '\\': name->push_back('\\'); break;
      case 'n': name->push_back('\n'); break;
      case 'r': name->push_back('\r'); break;
      case 't': name->push_back('\t'); break;
      case 'x': {
        const int hi = i + 1 < line.size() ? HexValue(line[i + 1]) : -1;
        const int lo = i + 2 < line.size() ? HexValue(line[i + 2]) : -1;
        if (hi < 0 || lo < 0) {
          *why = "'\\x' in the tensor name needs two hex digits";
          return false;
        }
        name->push_back(static_cast<char>(hi * 16 + lo));
        i += 2;
        break;
      }
      default: *why = std::string("unknown escape '\\") + line[i] + "' in the tensor name"; return false;
    }
  }
  *why = "unterminated tensor name (no closing '\"')";
  return false;
}

std::string FloatText(float x) {
  char buf[32];
  const std::to_chars_result r = std::to_chars(buf, buf + sizeof(buf), x);
  return std::string(buf, r.ptr);
}

// The next whitespace-separated token of `line` from *pos.
std::string NextToken(const std::string& line, size_t* pos) {
  while (*pos < line.size() && IsSpace(line[*pos])) ++*pos;
  const size_t start = *pos;
  while (*pos < line.size() && !IsSpace(line[*pos])) ++*pos;
  return line.substr(start, *pos - start);
}

bool ParseFloat(const std::string& token, float* out) {
  const char* end = token.data() + token.size();
  const std::from_chars_result r = std::from_chars(token.data(), end, *out);
  return !token.empty() && r.ec == std::errc() && r.ptr == end;
}

bool ValidRange(const ActivationRange& r) {
  return std::isfinite(r.lo) && std::isfinite(r.hi) && r.lo <= 0.f && r.hi >= 0.f;
}

// One line of header text: nonempty, no control bytes, no outer spaces.
bool FitsOnOneLine(const std::string& s) {
  if (s.empty() || s != Trim(s)) return false;
  for (const char c : s) {
    if (IsControl(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

}  // namespace

Status WriteCalibrationCache(const std::string& path, const CalibrationCache& cache) {
  const std::string what = "calibration cache '" + path + "'";
  if (!FitsOnOneLine(cache.model_hash))
    return Status::InvalidArgument(what + ": model hash " + Excerpt(cache.model_hash) + " is not one line of text");
  if (!FitsOnOneLine(cache.method))
    return Status::InvalidArgument(what + ": method " + Excerpt(cache.method) + " is not one line of text");
  std::string text = std::string(kFormatLine) + "\nmodel " + cache.model_hash + "\nmethod " + cache.method +
                     "\n# \"<tensor name>\" <lo> <hi>: the real range each activation's int8 scale covers\n";
  for (const auto& [name, range] : cache.ranges) {
    if (!ValidRange(range)) {
      return Status::InvalidArgument(what + ": tensor " + QuoteName(name) + " has range [" + FloatText(range.lo) +
                                     ", " + FloatText(range.hi) + "], expected finite lo <= 0 <= hi");
    }
    text += QuoteName(name) + " " + FloatText(range.lo) + " " + FloatText(range.hi) + "\n";
  }
  return plan_writer::WriteFileAtomically(path, std::vector<uint8_t>(text.begin(), text.end()));
}

Status ReadCalibrationCache(const std::string& path, CalibrationCache* out) {
  const std::string what = "calibration cache '" + path + "'";
  std::vector<uint8_t> bytes;
  Status s = ReadWholeFile(path, &bytes);
  if (s.code() == StatusCode::kNotFound) return Status::NotFound(what + " does not exist");
  if (!s.ok()) return s;
  *out = CalibrationCache();
  std::map<std::string, int> line_of;  // tensor name -> line number
  const std::string text(bytes.begin(), bytes.end());
  enum { kFormat, kModel, kMethod, kRanges } expect = kFormat;
  int line_no = 0;
  for (size_t start = 0; start < text.size();) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(start, end - start);
    start = end + 1;
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const std::string trimmed = Trim(line);
    if (trimmed.empty() || trimmed[0] == '#') continue;
    auto error = [&](const std::string& why) {
      return Status::InvalidArgument(what + " line " + std::to_string(line_no) + ": " + why);
    };
    switch (expect) {
      case kFormat:
        if (trimmed != kFormatLine) {
          if (trimmed.rfind(kFormatPrefix, 0) == 0) {
            return error("format version " + trimmed.substr(sizeof(kFormatPrefix) - 1) +
                         ", this Loom reads version 1: delete the cache to calibrate again");
          }
          return error(std::string("expected '") + kFormatLine + "', got " + Excerpt(trimmed) +
                       " (not a calibration cache?)");
        }
        expect = kModel;
        break;
      case kModel:
        if (trimmed.rfind("model ", 0) != 0 || Trim(trimmed.substr(6)).empty())
          return error("expected 'model <hash>', got " + Excerpt(trimmed));
        out->model_hash = Trim(trimmed.substr(6));
        expect = kMethod;
        break;
      case kMethod:
        if (trimmed.rfind("method ", 0) != 0 || Trim(trimmed.substr(7)).empty())
          return error("expected 'method <name>', got " + Excerpt(trimmed));
        out->method = Trim(trimmed.substr(7));
        expect = kRanges;
        break;
      case kRanges: {
        size_t pos = 0;
        while (pos < line.size() && IsSpace(line[pos])) ++pos;
        std::string name, why;
        if (!ParseQuotedName(line, &pos, &name, &why))
          return error(why + " (expected \"<tensor name>\" <lo> <hi>), got " + Excerpt(trimmed));
        if (pos < line.size() && !IsSpace(line[pos]))
          return error("expected a space after the tensor name, got " + Excerpt(trimmed));
        const std::string lo_text = NextToken(line, &pos), hi_text = NextToken(line, &pos);
        const std::string rest = NextToken(line, &pos);
        ActivationRange r;
        if (lo_text.empty() || hi_text.empty() || !rest.empty())
          return error("expected \"<tensor name>\" <lo> <hi>, got " + Excerpt(trimmed));
        if (!ParseFloat(lo_text, &r.lo)) return error("lo " + Excerpt(lo_text) + " is not a number");
        if (!ParseFloat(hi_text, &r.hi)) return error("hi " + Excerpt(hi_text) + " is not a number");
        if (!ValidRange(r)) {
          return error("tensor " + QuoteName(name) + " has range [" + lo_text + ", " + hi_text +
                       "], expected finite lo <= 0 <= hi");
        }
        const auto [it, inserted] = line_of.emplace(name, line_no);
        if (!inserted) {
          return error("tensor " + QuoteName(name) + " is listed twice (also on line " + std::to_string(it->second) +
                       ")");
        }
        out->ranges[name] = r;
        break;
      }
    }
  }
  if (expect != kRanges) {
    static const char* const kMissing[] = {"format line", "'model' line", "'method' line"};
    return Status::InvalidArgument(what + (line_no == 0 ? " is empty" : " ends at line " + std::to_string(line_no)) +
                                   ": its " + kMissing[expect] + " is missing");
  }
  return Status::Ok();
}

Status CheckCacheMatches(const std::string& path, const CalibrationCache& cache, const std::string& model_hash,
                         const std::string& method) {
  const std::string what = "calibration cache '" + path + "'";
  const std::string fix = ": delete it or pass another --calib-cache";
  if (cache.model_hash != model_hash)
    return Status::InvalidArgument(what + " was made for model " + cache.model_hash + ", not " + model_hash + fix);
  if (cache.method != method) {
    return Status::InvalidArgument(what + " was made with method '" + cache.method + "', not '" + method + "'" + fix);
  }
  return Status::Ok();
}

}  // namespace quantize
}  // namespace loom
