#include "engine/plan_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "schemas/plan_checksum.h"
#include "schemas/plan_format.h"
#include "schemas/plan_generated.h"

namespace loom {
namespace {

static_assert(sizeof(plan::FileHeader) == kPlanHeaderBytes, "FileHeader must be 64 bytes");

std::string Version(uint16_t major, uint16_t minor) { return std::to_string(major) + "." + std::to_string(minor); }

uint16_t LoadU16(const uint8_t* p) { return static_cast<uint16_t>(p[0] | p[1] << 8); }

// True if every byte in [begin, end) is zero.
bool AllZero(const uint8_t* data, uint64_t begin, uint64_t end) {
  for (uint64_t i = begin; i < end; ++i)
    if (data[i] != 0) return false;
  return true;
}

// [offset, offset + bytes) lies inside [0, size), without overflow.
bool InsideFile(uint64_t offset, uint64_t bytes, size_t size) { return offset <= size && bytes <= size - offset; }

std::string ErrnoText() { return std::strerror(errno); }

#if defined(MAP_POPULATE)
constexpr int kMapPopulate = MAP_POPULATE;
#else
constexpr int kMapPopulate = 0;
#endif

}  // namespace

Status CheckPlanBytes(const uint8_t* data, size_t size, PlanLayout* layout, ConstantsCheck constants_check) {
  if (size == 0) return Status::Corrupt("plan is empty (0 bytes)");
  const size_t magic_bytes = size < sizeof(kPlanMagic) ? size : sizeof(kPlanMagic);
  if (std::memcmp(data, kPlanMagic, magic_bytes) != 0)
    return Status::Corrupt("not a Loom plan (bad magic; expected \"LOOMPLAN\")");
  if (size < 12) return Status::Corrupt("plan truncated inside its header (" + std::to_string(size) + " bytes)");
  // The version comes first: a newer plan may have a different header.
  const uint16_t major = LoadU16(data + 8);
  const uint16_t minor = LoadU16(data + 10);
  if (major < kPlanFormatOldestMajor || major > kPlanFormatMajor) {
    const char* relation = major > kPlanFormatMajor ? "newer" : "older";
    return Status::VersionMismatch("plan format " + Version(major, minor) + " is " + relation +
                                   " than this engine (reads " + std::to_string(kPlanFormatOldestMajor) + ".x to " +
                                   std::to_string(kPlanFormatMajor) + ".x); rebuild the plan with a matching loom");
  }
  if (size < kPlanHeaderBytes) {
    return Status::Corrupt("plan truncated: " + std::to_string(size) + " bytes, the header alone needs " +
                           std::to_string(kPlanHeaderBytes));
  }
  plan::FileHeader header;
  std::memcpy(static_cast<void*>(&header), data, sizeof(header));
  PlanLayout l;
  l.format_major = header.format_major();
  l.format_minor = header.format_minor();
  l.metadata_offset = header.metadata_offset();
  l.metadata_bytes = header.metadata_bytes();
  l.constants_offset = header.constants_offset();
  l.constants_bytes = header.constants_bytes();

  if (header.header_bytes() < kPlanHeaderBytes || header.header_bytes() > l.metadata_offset) {
    return Status::Corrupt("plan header size is " + std::to_string(header.header_bytes()) + ", expected at least " +
                           std::to_string(kPlanHeaderBytes) + " and at most the metadata offset " +
                           std::to_string(l.metadata_offset));
  }
  if (l.metadata_offset % 8 != 0)
    return Status::Corrupt("plan metadata offset " + std::to_string(l.metadata_offset) + " is not 8-byte aligned");
  if (l.metadata_bytes == 0) return Status::Corrupt("plan metadata section is empty");
  if (!InsideFile(l.metadata_offset, l.metadata_bytes, size)) {
    return Status::Corrupt("plan metadata section [" + std::to_string(l.metadata_offset) + ", +" +
                           std::to_string(l.metadata_bytes) + ") extends past the end of the file (" +
                           std::to_string(size) + " bytes; truncated?)");
  }
  if (l.constants_offset % kPlanAlignment != 0) {
    return Status::Corrupt("plan constants offset " + std::to_string(l.constants_offset) + " is not a multiple of " +
                           std::to_string(kPlanAlignment));
  }
  if (!InsideFile(l.constants_offset, l.constants_bytes, size)) {
    return Status::Corrupt("plan constants section [" + std::to_string(l.constants_offset) + ", +" +
                           std::to_string(l.constants_bytes) + ") extends past the end of the file (" +
                           std::to_string(size) + " bytes; truncated?)");
  }
  const uint64_t metadata_end = l.metadata_offset + l.metadata_bytes;
  const uint64_t constants_end = l.constants_offset + l.constants_bytes;
  if (l.constants_bytes != 0 && l.constants_offset < metadata_end)
    return Status::Corrupt("plan constants section overlaps the metadata section");
  // Padding is zero, so any change to the file is detected.
  const uint64_t header_end = header.header_bytes();
  const bool padding_zero =
      AllZero(data, header_end, l.metadata_offset) &&
      (l.constants_bytes == 0 ? AllZero(data, metadata_end, size)
                              : AllZero(data, metadata_end, l.constants_offset) && AllZero(data, constants_end, size));
  if (!padding_zero) return Status::Corrupt("plan has non-zero bytes outside its sections (padding)");

  if (PlanSectionChecksum(l.format_major, data + l.metadata_offset, l.metadata_bytes) != header.metadata_checksum())
    return Status::Corrupt("plan metadata section checksum mismatch (file damaged)");
  l.constants_checksum = header.constants_checksum();
  if (constants_check == ConstantsCheck::kWholeSection) RETURN_IF_ERROR(CheckConstantsSection(data, l));
  *layout = l;
  return Status::Ok();
}

Status CheckConstantsSection(const uint8_t* data, const PlanLayout& layout) {
  if (PlanSectionChecksum(layout.format_major, data + layout.constants_offset, layout.constants_bytes) !=
      layout.constants_checksum)
    return Status::Corrupt("plan constants section checksum mismatch (file damaged)");
  return Status::Ok();
}

PlanFile::~PlanFile() {
  if (mapping_ != nullptr) munmap(mapping_, size_);
}

Status PlanFile::Open(const std::string& path, std::unique_ptr<PlanFile>* out, ConstantsCheck constants_check) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    const bool missing = errno == ENOENT;
    const std::string why = ErrnoText();
    if (missing) return Status::NotFound("cannot open plan '" + path + "': " + why);
    return Status::IoError("cannot open plan '" + path + "': " + why);
  }
  struct stat st;
  if (fstat(fd, &st) != 0) {
    const std::string why = ErrnoText();
    ::close(fd);
    return Status::IoError("cannot stat plan '" + path + "': " + why);
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    return Status::InvalidArgument("plan '" + path + "' is not a regular file");
  }
  std::unique_ptr<PlanFile> file(new PlanFile());
  file->size_ = static_cast<size_t>(st.st_size);
  if (file->size_ > 0) {
    // Pre-faulted in one call (Linux): the checksums read every page right
    // away, and faulting them in one by one measured slower (resnet18 plan,
    // map + checksum: 25 -> 16 ms; vit_b_16: 299 -> 269 ms).
    void* p = mmap(nullptr, file->size_, PROT_READ, MAP_PRIVATE | kMapPopulate, fd, 0);
    if (p == MAP_FAILED) {
      const std::string why = ErrnoText();
      ::close(fd);
      return Status::IoError("cannot map plan '" + path + "': " + why);
    }
    file->mapping_ = p;
    file->data_ = static_cast<const uint8_t*>(p);
  }
  ::close(fd);
  Status s = CheckPlanBytes(file->data_, file->size_, &file->layout_, constants_check);
  if (!s.ok()) return s.WithContext("plan '" + path + "'");
  *out = std::move(file);
  return Status::Ok();
}

Status PlanFile::FromBuffer(const void* data, size_t size, std::unique_ptr<PlanFile>* out,
                            ConstantsCheck constants_check) {
  if (data == nullptr && size != 0) return Status::InvalidArgument("plan buffer is null");
  std::unique_ptr<PlanFile> file(new PlanFile());
  RETURN_IF_ERROR(file->copy_.Allocate(size, "the plan copy"));
  if (size != 0) std::memcpy(file->copy_.data(), data, size);
  file->data_ = file->copy_.data();
  file->size_ = size;
  RETURN_IF_ERROR(CheckPlanBytes(file->data_, file->size_, &file->layout_, constants_check));
  *out = std::move(file);
  return Status::Ok();
}

Status PlanFile::CheckConstants() const { return CheckConstantsSection(data_, layout_); }

}  // namespace loom
