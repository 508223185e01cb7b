// Test support for device backends: one lowered int8 Conv placed in a
// device's buffers (slot 1 the input, slot 2 the output, slot 3 the weight
// and parameter images; the command stream in a buffer of its own), to flush,
// launch, invalidate and compare with the int64 reference, as the engine
// will drive a device.
#pragma once

#include <cstdint>
#include <vector>

#include "common/status.h"
#include "kernels/fpga/device/accel_device.h"
#include "kernels/fpga/device/accel_driver.h"
#include "kernels/fpga/lowering/lowering.h"
#include "kernels/fpga/lowering/testing/lowering_test_util.h"

namespace loom {
namespace fpga {
namespace testing {

class DeviceConv {
 public:
  // Lowers `c` for device->config() and allocates and fills the buffers
  // (failures are test failures).
  DeviceConv(AccelDevice* device, const lowering::testing::ConvCase& c);
  ~DeviceConv();
  DeviceConv(const DeviceConv&) = delete;
  DeviceConv& operator=(const DeviceConv&) = delete;

  // Flushes the constants, the stream and (unless input is false) the input.
  void FlushAll(bool input = true);
  // The run's arguments (the device addresses of the buffers).
  LaunchArgs Args() const;
  // fpga::Launch on the device.
  Status Launch(LaunchResult* result);
  // Invalidates the output and unpacks it (NCHW values).
  std::vector<int32_t> Output();
  // The CPU's view of the output is still all zeros (no Invalidate yet).
  bool OutputStale() const;
  // ReferenceConv of the case.
  std::vector<int32_t> Expected() const;

  const lowering::Program& program() const { return program_; }

 private:
  void Alloc(DeviceBuffer* buffer, uint64_t bytes);

  AccelDevice* device_;
  lowering::testing::ConvCase case_;
  lowering::Program program_;
  DeviceBuffer input_, output_, constants_, stream_;
  uint64_t out_bytes_ = 0;
};

// A small random int8/uint8 Conv for pynq_z2 whose outputs are not all
// equal (so a stale input shows).
lowering::testing::ConvCase SmallConv(uint32_t seed);

}  // namespace testing
}  // namespace fpga
}  // namespace loom
