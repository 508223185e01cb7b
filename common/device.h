// The devices a plan node can run on. The numeric values are the plan
// schema's Device values (schemas/plan.fbs), so the builder, the plan and the
// engine map them one to one.
#pragma once

#include <string_view>

namespace loom {

enum class Device : int { kCpu = 0, kFpga = 1 };

// Where a block of memory lives. The numeric values are the plan schema's
// MemorySpace values.
enum class MemorySpace : int {
  kHost = 0,           // ordinary host memory
  kDeviceVisible = 1,  // memory the accelerator reads and writes directly (DMA)
};

// "cpu" or "fpga".
const char* DeviceName(Device d);
// Parses DeviceName() output; false for anything else.
bool ParseDevice(std::string_view name, Device* out);
// "host" or "device_visible".
const char* MemorySpaceName(MemorySpace space);

}  // namespace loom
