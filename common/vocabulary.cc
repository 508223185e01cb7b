#include <string>

#include "common/device.h"
#include "common/layout.h"
#include "common/node_label.h"

namespace loom {

const char* DeviceName(Device d) { return d == Device::kFpga ? "fpga" : "cpu"; }

bool ParseDevice(std::string_view name, Device* out) {
  for (Device d : {Device::kCpu, Device::kFpga}) {
    if (name == DeviceName(d)) {
      *out = d;
      return true;
    }
  }
  return false;
}

const char* MemorySpaceName(MemorySpace space) {
  return space == MemorySpace::kDeviceVisible ? "device_visible" : "host";
}

const char* LayoutName(Layout layout) {
  switch (layout) {
    case Layout::kRowMajor: return "row_major";
    case Layout::kNhwc: return "nhwc";
    case Layout::kNhwcPadded: return "nhwc_padded";
  }
  return "unknown";
}

bool IsKnownLayout(int value) { return value >= 0 && value <= static_cast<int>(Layout::kNhwcPadded); }

bool ParseLayout(std::string_view name, Layout* out) {
  for (Layout l : {Layout::kRowMajor, Layout::kNhwc, Layout::kNhwcPadded}) {
    if (name == LayoutName(l)) {
      *out = l;
      return true;
    }
  }
  return false;
}

std::string NodeLabel(std::string_view name, std::string_view op, size_t index) {
  std::string label = name.empty() ? "node #" + std::to_string(index) : std::string(name);
  return label + " (" + std::string(op) + ")";
}

}  // namespace loom
