#include "kernels/common/device_context.h"

#include <cstdlib>
#include <new>

namespace loom {
namespace {

class CpuConfig final : public DeviceConfig {
 public:
  Device device() const override { return Device::kCpu; }
  std::string name() const override { return "cpu"; }
};

class HostAllocator final : public MemoryAllocator {
 public:
  Status Allocate(size_t bytes, size_t alignment, MemorySpace space, MemoryBlock* out) override {
    if (space != MemorySpace::kHost) {
      return Status::Unsupported(std::string("host memory allocator cannot provide ") + MemorySpaceName(space) +
                                 " memory");
    }
    *out = MemoryBlock();
    out->space = space;
    out->bytes = bytes;
    if (bytes == 0) return Status::Ok();
    if (alignment < sizeof(void*)) alignment = sizeof(void*);
    const size_t rounded = (bytes + alignment - 1) / alignment * alignment;
    void* p = std::aligned_alloc(alignment, rounded);
    if (p == nullptr) {
      return Status::OutOfRange("cannot allocate " + std::to_string(bytes) + " bytes of host memory");
    }
    out->host = p;
    return Status::Ok();
  }
  void Free(const MemoryBlock& block) override { std::free(block.host); }
};

}  // namespace

const DeviceConfig& CpuDeviceConfig() {
  static const CpuConfig config;
  return config;
}

MemoryAllocator& HostMemoryAllocator() {
  static HostAllocator allocator;
  return allocator;
}

}  // namespace loom
