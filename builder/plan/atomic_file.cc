#include "builder/plan/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

namespace loom {
namespace plan_writer {

Status WriteFileAtomically(const std::string& path, const std::vector<uint8_t>& bytes) {
  const std::filesystem::path target(path);
  if (target.filename().empty()) return Status::InvalidArgument("output path '" + path + "' names no file");
  std::string tmp = (target.parent_path() / ("." + target.filename().string() + ".tmp.XXXXXX")).string();
  if (target.parent_path().empty()) tmp = "." + target.filename().string() + ".tmp.XXXXXX";
  const int fd = ::mkstemp(&tmp[0]);
  if (fd < 0) return Status::IoError("cannot create a temporary file next to '" + path + "': " + std::strerror(errno));
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const std::string err = std::strerror(errno);
      ::close(fd);
      ::unlink(tmp.c_str());
      return Status::IoError("cannot write '" + path + "': " + err);
    }
    done += static_cast<size_t>(n);
  }
  if (::fchmod(fd, 0644) != 0 || ::close(fd) != 0) {
    ::unlink(tmp.c_str());
    return Status::IoError("cannot write '" + path + "': " + std::strerror(errno));
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const std::string err = std::strerror(errno);
    ::unlink(tmp.c_str());
    return Status::IoError("cannot write '" + path + "': " + err);
  }
  return Status::Ok();
}

}  // namespace plan_writer
}  // namespace loom
