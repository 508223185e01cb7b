#include "hw/sim/host_device_memory.h"

#include <vector>

namespace loom {
namespace hw_sim {
namespace {

Status Copy(const fpga::DeviceMemory& from, fpga::DeviceMemory& to, uint64_t addr, size_t bytes) {
  std::vector<uint8_t> buffer(bytes);
  RETURN_IF_ERROR(from.Read(addr, buffer.data(), bytes));
  return to.Write(addr, buffer.data(), bytes);
}

}  // namespace

Status HostDeviceMemory::SyncToDevice(uint64_t addr, size_t bytes) {
  return Copy(host_, device_, addr, bytes).WithContext("SyncToDevice");
}

Status HostDeviceMemory::SyncFromDevice(uint64_t addr, size_t bytes) {
  return Copy(device_, host_, addr, bytes).WithContext("SyncFromDevice");
}

}  // namespace hw_sim
}  // namespace loom
