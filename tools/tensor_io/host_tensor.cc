#include "tools/tensor_io/host_tensor.h"

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "tools/tensor_io/file_util.h"

namespace loom {

size_t HostTensor::num_elements() const {
  const int64_t n = NumElements(shape);
  return n < 0 ? 0 : static_cast<size_t>(n);
}

Status ReadWholeFile(const std::string& path, std::vector<uint8_t>* out) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) {
    const int err = errno;
    const std::string why = std::strerror(err);
    if (err == ENOENT) return Status::NotFound("cannot open '" + path + "': " + why);
    return Status::IoError("cannot open '" + path + "': " + why);
  }
  out->clear();
  uint8_t chunk[1 << 16];
  for (;;) {
    const size_t n = std::fread(chunk, 1, sizeof(chunk), f);
    out->insert(out->end(), chunk, chunk + n);
    if (n < sizeof(chunk)) break;
  }
  const bool failed = std::ferror(f) != 0;
  std::fclose(f);
  if (failed) return Status::IoError("cannot read '" + path + "' (is it a directory?)");
  return Status::Ok();
}

Status WriteWholeFile(const std::string& path, const void* data, size_t size) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) return Status::IoError("cannot create '" + path + "': " + std::strerror(errno));
  const bool ok = (size == 0 || std::fwrite(data, 1, size, f) == size);
  const bool closed = std::fclose(f) == 0;
  if (!ok || !closed) return Status::IoError("cannot write '" + path + "': " + std::strerror(errno));
  return Status::Ok();
}

}  // namespace loom
