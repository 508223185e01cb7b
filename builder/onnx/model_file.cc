#include "builder/onnx/model_file.h"

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <vector>

#include "common/checksum.h"

namespace loom {
namespace onnx_import {
namespace fs = std::filesystem;

namespace {

Status ReadWholeFile(const std::string& path, std::string* bytes) {
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  if (ec || !fs::exists(st)) return Status::NotFound("cannot open model '" + path + "': no such file");
  if (fs::is_directory(st)) return Status::InvalidArgument("cannot open model '" + path + "': is a directory");
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::IoError("cannot open model '" + path + "': " + std::strerror(errno));
  in.seekg(0, std::ios::end);
  const std::streamoff size = in.tellg();
  if (size < 0) return Status::IoError("cannot read model '" + path + "'");
  in.seekg(0, std::ios::beg);
  bytes->resize(static_cast<size_t>(size));
  if (size > 0 && !in.read(&(*bytes)[0], size)) return Status::IoError("cannot read model '" + path + "'");
  return Status::Ok();
}

// Reads [offset, offset + length) of `path` into `out`.
Status ReadFileRange(const fs::path& path, uint64_t offset, uint64_t length, std::string* out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::IoError("cannot open external data file '" + path.string() + "'");
  in.seekg(static_cast<std::streamoff>(offset));
  out->resize(static_cast<size_t>(length));
  if (length > 0 && !in.read(&(*out)[0], static_cast<std::streamsize>(length)))
    return Status::IoError("cannot read external data file '" + path.string() + "'");
  return Status::Ok();
}

bool ParseUnsigned(const std::string& s, uint64_t* out) {
  if (s.empty() || s.size() > 20) return false;
  for (char c : s)
    if (c < '0' || c > '9') return false;
  errno = 0;
  char* end = nullptr;
  const unsigned long long v = std::strtoull(s.c_str(), &end, 10);
  if (errno != 0 || *end != '\0' || v > static_cast<unsigned long long>(INT64_MAX)) return false;
  *out = v;
  return true;
}

// True if `p` (canonical) lies inside directory `dir` (canonical).
bool IsInside(const fs::path& p, const fs::path& dir) {
  auto pi = p.begin();
  for (auto di = dir.begin(); di != dir.end(); ++di, ++pi) {
    if (di->empty()) continue;  // trailing separator
    if (pi == p.end() || *pi != *di) return false;
  }
  return pi != p.end();
}

Status InlineTensor(const fs::path& dir, onnx::TensorProto* t) {
  if (t->data_location() != onnx::TensorProto::EXTERNAL) return Status::Ok();
  const std::string what = "tensor '" + t->name() + "'";
  std::string location;
  uint64_t offset = 0, length = 0;
  bool has_length = false;
  for (const onnx::StringStringEntryProto& kv : t->external_data()) {
    if (kv.key() == "location") {
      location = kv.value();
    } else if (kv.key() == "offset") {
      if (!ParseUnsigned(kv.value(), &offset))
        return Status::InvalidArgument(what + ": external data offset '" + kv.value() + "' is not a valid number");
    } else if (kv.key() == "length") {
      if (!ParseUnsigned(kv.value(), &length))
        return Status::InvalidArgument(what + ": external data length '" + kv.value() + "' is not a valid number");
      has_length = true;
    }
  }
  if (location.empty()) return Status::InvalidArgument(what + ": external data has no location");
  const fs::path rel(location);
  if (rel.is_absolute() || rel.has_root_name() || rel.has_root_directory())
    return Status::InvalidArgument(what + ": external data location '" + location +
                                   "' is absolute; it must be relative to the model's folder");
  std::error_code ec;
  const fs::path base = fs::weakly_canonical(dir, ec);
  if (ec) return Status::IoError(what + ": cannot resolve the model folder '" + dir.string() + "'");
  const fs::path resolved = fs::weakly_canonical(base / rel, ec);
  if (ec || !IsInside(resolved, base))
    return Status::InvalidArgument(what + ": external data location '" + location +
                                   "' points outside the model's folder");
  if (!fs::is_regular_file(resolved, ec))
    return Status::NotFound(what + ": external data file '" + location + "' not found next to the model");
  const uint64_t file_size = fs::file_size(resolved, ec);
  if (ec) return Status::IoError(what + ": cannot read the size of '" + location + "'");
  if (offset > file_size)
    return Status::OutOfRange(what + ": external data offset " + std::to_string(offset) + " is past the end of '" +
                              location + "' (" + std::to_string(file_size) + " bytes)");
  if (!has_length) length = file_size - offset;
  if (length > file_size - offset)
    return Status::OutOfRange(what + ": external data range [" + std::to_string(offset) + ", " +
                              std::to_string(offset + length) + ") is past the end of '" + location + "' (" +
                              std::to_string(file_size) + " bytes)");
  std::string bytes;
  RETURN_IF_ERROR(ReadFileRange(resolved, offset, length, &bytes));
  t->set_raw_data(std::move(bytes));
  t->clear_external_data();
  t->set_data_location(onnx::TensorProto::DEFAULT);
  return Status::Ok();
}

}  // namespace

Status ParseModelBytes(const void* data, size_t size, const std::string& what, onnx::ModelProto* model) {
  if (size == 0) return Status::InvalidArgument("model '" + what + "' is empty");
  if (size > static_cast<size_t>(INT_MAX))
    return Status::Unsupported("model '" + what + "' is larger than 2 GiB; store its weights as external data");
  if (!model->ParseFromArray(data, static_cast<int>(size)))
    return Status::InvalidArgument("'" + what + "' is not an ONNX model (protobuf parse failed)");
  if (model->ir_version() <= 0)
    return Status::InvalidArgument("'" + what + "' is not an ONNX model (no ir_version)");
  if (!model->has_graph()) return Status::InvalidArgument("ONNX model '" + what + "' has no graph");
  return Status::Ok();
}

Status ReadModelFile(const std::string& path, onnx::ModelProto* model, uint64_t* hash) {
  std::string bytes;
  RETURN_IF_ERROR(ReadWholeFile(path, &bytes));
  *hash = Checksum64(bytes.data(), bytes.size());
  return ParseModelBytes(bytes.data(), bytes.size(), path, model);
}

Status InlineExternalData(const std::string& model_dir, onnx::ModelProto* model) {
  const fs::path dir = model_dir.empty() ? fs::path(".") : fs::path(model_dir);
  onnx::GraphProto* g = model->mutable_graph();
  for (onnx::TensorProto& t : *g->mutable_initializer()) RETURN_IF_ERROR(InlineTensor(dir, &t));
  for (onnx::NodeProto& n : *g->mutable_node()) {
    for (onnx::AttributeProto& a : *n.mutable_attribute()) {
      if (a.has_t()) RETURN_IF_ERROR(InlineTensor(dir, a.mutable_t()));
      for (onnx::TensorProto& t : *a.mutable_tensors()) RETURN_IF_ERROR(InlineTensor(dir, &t));
    }
  }
  return Status::Ok();
}

}  // namespace onnx_import
}  // namespace loom
