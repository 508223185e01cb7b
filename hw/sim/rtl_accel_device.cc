#include "hw/sim/rtl_accel_device.h"

#include <cstring>

namespace loom {
namespace hw_sim {
namespace {

namespace c = fpga::contract;

Status OpenFromFactory(const fpga::AccelDeviceOptions& options, std::unique_ptr<fpga::AccelDevice>* out) {
  RtlAccelDeviceOptions rtl;
  rtl.memory_bytes = options.model_memory_bytes;
  return RtlAccelDevice::Open(rtl, out);
}

}  // namespace

RtlAccelDevice::RtlAccelDevice(const c::AccelConfig& config, const RtlAccelDeviceOptions& options)
    : config_(config),
      options_(options),
      memory_(options.memory_bytes, options.memory_base),
      allocator_(options.memory_base, options.memory_bytes),
      rtl_(std::make_unique<RtlDevice>(config, &memory_, options.rtl)) {}

Status RtlAccelDevice::Open(const RtlAccelDeviceOptions& options, std::unique_ptr<fpga::AccelDevice>* out) {
  // The one configuration the RTL is Verilated for; RtlDevice checks the
  // RTL's CONFIG_ID and VERSION against it.
  std::unique_ptr<RtlAccelDevice> device(new RtlAccelDevice(*c::FindConfig("pynq_z2"), options));
  if (!device->rtl_->status().ok()) return device->Named(device->rtl_->status());
  *out = std::move(device);
  return Status::Ok();
}

Status RtlAccelDevice::Named(const Status& status) const {
  if (status.ok()) return status;
  return Status(status.code(), name_ + ": " + status.message());
}

Status RtlAccelDevice::Allocate(size_t bytes, size_t alignment, fpga::DeviceBuffer* out) {
  if (bytes == 0 || alignment == 0 || (alignment & (alignment - 1)) != 0) {
    return Status::InvalidArgument(name_ + ": allocation of " + std::to_string(bytes) + " bytes aligned to " +
                                   std::to_string(alignment) + " (need bytes > 0 and a power-of-two alignment)");
  }
  uint64_t offset = 0;
  if (!allocator_.Allocate(bytes, alignment, &offset)) {
    return Status::DeviceError(name_ + ": cannot allocate " + std::to_string(bytes) + " bytes of device memory (" +
                               std::to_string(options_.memory_bytes >> 20) + " MiB in all)");
  }
  std::memset(memory_.host().data() + offset, 0, bytes);
  std::memset(memory_.device().data() + offset, 0, bytes);
  *out = fpga::DeviceBuffer{memory_.host().data() + offset, options_.memory_base + offset, bytes, offset};
  return Status::Ok();
}

void RtlAccelDevice::Free(const fpga::DeviceBuffer& buffer) { allocator_.Free(buffer.handle, buffer.bytes); }

Status RtlAccelDevice::CheckBuffer(const fpga::DeviceBuffer& buffer, size_t offset, size_t bytes,
                                   const char* what) const {
  if (buffer.handle + buffer.bytes > options_.memory_bytes || offset > buffer.bytes || bytes > buffer.bytes - offset) {
    return Status::InvalidArgument(name_ + ": " + what + " of [" + std::to_string(offset) + ", +" +
                                   std::to_string(bytes) + ") outside a buffer of " + std::to_string(buffer.bytes) +
                                   " bytes");
  }
  return Status::Ok();
}

Status RtlAccelDevice::Flush(const fpga::DeviceBuffer& buffer, size_t offset, size_t bytes) {
  RETURN_IF_ERROR(CheckBuffer(buffer, offset, bytes, "flush"));
  return Named(memory_.SyncToDevice(buffer.device_address + offset, bytes));
}

Status RtlAccelDevice::Invalidate(const fpga::DeviceBuffer& buffer, size_t offset, size_t bytes) {
  RETURN_IF_ERROR(CheckBuffer(buffer, offset, bytes, "invalidate"));
  return Named(memory_.SyncFromDevice(buffer.device_address + offset, bytes));
}

Status RtlAccelDevice::WriteRegister(uint32_t offset, uint32_t value) {
  return Named(rtl_->WriteRegister(offset, value));
}

Status RtlAccelDevice::ReadRegister(uint32_t offset, uint32_t* value) {
  return Named(rtl_->ReadRegister(offset, value));
}

Status RtlAccelDevice::WaitDone(uint32_t timeout_ms) {
  const uint64_t cycles = timeout_ms == 0 ? options_.rtl.max_cycles : uint64_t{timeout_ms} * config_.clock_mhz * 1000;
  const Status status = rtl_->WaitInterrupt(cycles);
  if (status.ok()) return status;
  return Status::DeviceError(name_ + ": no ap_done within " + std::to_string(timeout_ms) + " ms (" + status.message() +
                             ")");
}

void RegisterRtlAccelDevice() { fpga::RegisterAccelDeviceOpener("fpga-rtl", &OpenFromFactory); }

}  // namespace hw_sim
}  // namespace loom
