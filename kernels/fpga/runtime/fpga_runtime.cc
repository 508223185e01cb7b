#include "kernels/fpga/runtime/fpga_runtime.h"

#include <cstdio>
#include <utility>

namespace loom {
namespace fpga {

std::string FpgaDeviceConfig::name() const { return "fpga" + std::to_string(config_.n); }

std::string FpgaDeviceConfig::fingerprint() const { return AccelFingerprint(config_); }

std::string AccelFingerprint(const contract::AccelConfig& config) {
  char id[16];
  std::snprintf(id, sizeof id, "0x%08X", config.config_id);
  return std::string("loom-accel ") + config.name + " " + id;
}

FpgaRuntime::FpgaRuntime(std::unique_ptr<AccelDevice> device)
    : device_(std::move(device)), config_(device_->config()) {}

FpgaRuntime::~FpgaRuntime() {
  for (const auto& [host, buffer] : blocks_) device_->Free(buffer);
}

Status FpgaRuntime::Launch(const LaunchArgs& args, LaunchResult* result) {
  std::lock_guard<std::mutex> lock(mutex_);
  return fpga::Launch(*device_, args, result);
}

Status FpgaRuntime::WaitIdle() {
  std::lock_guard<std::mutex> lock(mutex_);
  return fpga::WaitIdle(*device_, launch_timeout_ms());
}

Status FpgaRuntime::AllocateBuffer(size_t bytes, size_t alignment, DeviceBuffer* out) {
  std::lock_guard<std::mutex> lock(mutex_);
  return device_->Allocate(bytes, alignment, out);
}

void FpgaRuntime::FreeBuffer(const DeviceBuffer& buffer) {
  std::lock_guard<std::mutex> lock(mutex_);
  device_->Free(buffer);
}

Status FpgaRuntime::Flush(const DeviceBuffer& buffer, size_t offset, size_t bytes) {
  std::lock_guard<std::mutex> lock(mutex_);
  return device_->Flush(buffer, offset, bytes);
}

Status FpgaRuntime::Invalidate(const DeviceBuffer& buffer, size_t offset, size_t bytes) {
  std::lock_guard<std::mutex> lock(mutex_);
  return device_->Invalidate(buffer, offset, bytes);
}

Status FpgaRuntime::FlushBlock(const MemoryBlock& block, size_t offset, size_t bytes) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = blocks_.find(block.host);
  if (it == blocks_.end()) return NotOurs(block);
  return device_->Flush(it->second, offset, bytes);
}

Status FpgaRuntime::InvalidateBlock(const MemoryBlock& block, size_t offset, size_t bytes) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = blocks_.find(block.host);
  if (it == blocks_.end()) return NotOurs(block);
  return device_->Invalidate(it->second, offset, bytes);
}

Status FpgaRuntime::NotOurs(const MemoryBlock& block) const {
  return Status::InvalidArgument(device_->name() + ": a block of " + std::to_string(block.bytes) +
                                 " bytes that is not device memory of this device");
}

Status FpgaRuntime::Allocate(size_t bytes, size_t alignment, MemorySpace space, MemoryBlock* out) {
  *out = MemoryBlock();
  out->space = space;
  out->bytes = bytes;
  if (bytes == 0) return Status::Ok();
  DeviceBuffer buffer;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    RETURN_IF_ERROR(device_->Allocate(bytes, alignment < 64 ? 64 : alignment, &buffer));
    blocks_[buffer.host] = buffer;
  }
  out->host = buffer.host;
  out->device_address = buffer.device_address;
  return Status::Ok();
}

void FpgaRuntime::Free(const MemoryBlock& block) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = blocks_.find(block.host);
  if (it == blocks_.end()) return;
  device_->Free(it->second);
  blocks_.erase(it);
}

}  // namespace fpga
}  // namespace loom
