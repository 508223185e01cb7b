#include "kernels/fpga/model/device_memory.h"

#include <cstring>
#include <sstream>

namespace loom {
namespace fpga {

DeviceMemory::DeviceMemory(size_t size, uint64_t base) : bytes_(size, 0), base_(base), next_(base) {}

bool DeviceMemory::Contains(uint64_t addr, size_t bytes) const {
  if (addr < base_) return false;
  const uint64_t offset = addr - base_;
  return offset <= bytes_.size() && bytes <= bytes_.size() - offset;
}

Status DeviceMemory::CheckRange(const char* access, uint64_t addr, size_t bytes) const {
  if (Contains(addr, bytes)) return Status::Ok();
  std::ostringstream m;
  m << std::hex << std::showbase << access << " of " << std::dec << bytes << std::hex << " bytes at " << addr
    << " outside device memory [" << base_ << ", " << base_ + bytes_.size() << ")";
  return Status::OutOfRange(m.str());
}

Status DeviceMemory::Read(uint64_t addr, void* dst, size_t bytes) const {
  RETURN_IF_ERROR(CheckRange("read", addr, bytes));
  if (bytes > 0) std::memcpy(dst, bytes_.data() + (addr - base_), bytes);
  return Status::Ok();
}

Status DeviceMemory::Write(uint64_t addr, const void* src, size_t bytes) {
  RETURN_IF_ERROR(CheckRange("write", addr, bytes));
  if (bytes > 0) std::memcpy(bytes_.data() + (addr - base_), src, bytes);
  return Status::Ok();
}

Status DeviceMemory::Allocate(size_t bytes, size_t align, uint64_t* addr) {
  if (align == 0 || (align & (align - 1)) != 0)
    return Status::InvalidArgument("device allocation alignment " + std::to_string(align) + " is not a power of two");
  const uint64_t start = (next_ + align - 1) & ~static_cast<uint64_t>(align - 1);
  if (start < next_ || !Contains(start, bytes)) {
    return Status::OutOfRange("device memory full: " + std::to_string(bytes) + " bytes requested, " +
                              std::to_string(base_ + bytes_.size() - next_) + " free");
  }
  next_ = start + bytes;
  *addr = start;
  return Status::Ok();
}

}  // namespace fpga
}  // namespace loom
