#include "tests/conformance/unsupported_list.h"

#include <cstdio>
#include <fstream>
#include <sstream>

namespace loom {
namespace conformance {
namespace {

std::string Trim(const std::string& s) {
  const char* ws = " \t\r\n";
  size_t begin = s.find_first_not_of(ws);
  if (begin == std::string::npos) return "";
  size_t end = s.find_last_not_of(ws);
  return s.substr(begin, end - begin + 1);
}

}  // namespace

std::string FirstLine(const std::string& message, size_t max_chars) {
  std::string line = Trim(message.substr(0, message.find('\n')));
  if (line.size() > max_chars) line = line.substr(0, max_chars - 3) + "...";
  return line;
}

Status ParseUnsupportedList(const std::string& text, UnsupportedList* out) {
  out->clear();
  std::istringstream in(text);
  std::string line;
  int line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    std::string trimmed = Trim(line);
    if (trimmed.empty() || trimmed[0] == '#') continue;
    size_t hash = trimmed.find('#');
    std::string name = Trim(trimmed.substr(0, hash));
    std::string reason = hash == std::string::npos ? "" : Trim(trimmed.substr(hash + 1));
    if (name.find_first_of(" \t") != std::string::npos || name.find('/') == std::string::npos) {
      return Status::InvalidArgument("line " + std::to_string(line_no) + ": expected 'suite/case  # reason', got '" +
                                     trimmed + "'");
    }
    if (!out->emplace(name, reason).second) {
      return Status::InvalidArgument("line " + std::to_string(line_no) + ": case '" + name + "' listed twice");
    }
  }
  return Status::Ok();
}

Status ReadUnsupportedList(const std::string& path, UnsupportedList* out) {
  std::ifstream file(path);
  if (!file) return Status::NotFound("cannot open unsupported list '" + path + "'");
  std::stringstream text;
  text << file.rdbuf();
  Status s = ParseUnsupportedList(text.str(), out);
  return s.ok() ? s : s.WithContext(path);
}

std::string FormatUnsupportedList(const UnsupportedList& list) {
  std::string text =
      "# ONNX backend test cases Loom refuses as unsupported, one per line:\n"
      "#   suite/case  # first line of the build error\n"
      "# Regenerate with: loom_conformance --update-unsupported\n";
  for (const auto& [name, reason] : list) {
    text += name;
    if (!reason.empty()) text += "  # " + FirstLine(reason);
    text += "\n";
  }
  return text;
}

Status WriteUnsupportedList(const std::string& path, const UnsupportedList& list) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream file(tmp, std::ios::trunc);
    if (!file) return Status::IoError("cannot write '" + tmp + "'");
    file << FormatUnsupportedList(list);
    if (!file.flush()) return Status::IoError("cannot write '" + tmp + "'");
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) return Status::IoError("cannot rename '" + tmp + "' to '" + path + "'");
  return Status::Ok();
}

}  // namespace conformance
}  // namespace loom
