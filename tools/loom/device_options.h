// The run-side commands' device options: which device runs a plan's FPGA
// nodes and how to reach it.
//   --device cpu|fpga-model|fpga-rtl|fpga-xrt|fpga-zynq   (default cpu)
//   --xclbin PATH          fpga-xrt: the accelerator's xclbin
//   --fpga-base ADDR       fpga-zynq: register base for /dev/mem (0x43C00000)
//   --fpga-uio PATH        fpga-zynq: the registers through a UIO node instead
//   --udmabuf PATH         fpga-zynq: the DMA buffer (default /dev/udmabuf0)
//   --allow-cpu-fallback   run FPGA nodes on their CPU fallbacks when the
//                          device is absent or another accelerator
//   --check-all-constants  check every byte of the plan's constants while
//                          loading, not only the constants the kernels read
// An unknown device is an error listing the valid ones, and so is an option
// of one backend given for another device.
#pragma once

#include <CLI/CLI.hpp>
#include <memory>
#include <string>

#include "common/status.h"
#include "loom/engine.h"

namespace loom {
namespace cli {

struct DeviceOptions {
  std::string device = "cpu";
  std::string xclbin;
  std::string fpga_base;
  std::string fpga_uio;
  std::string udmabuf;  // empty: the factory's /dev/udmabuf0
  bool allow_cpu_fallback = false;
  bool check_all_constants = false;
};

void AddDeviceOptions(CLI::App* cmd, DeviceOptions* options);

// Opens the device (unless "cpu") and loads the plan for it; prints the
// engine's notes (e.g. that FPGA nodes fall back to the CPU) once on stderr.
Status LoadEngineOn(const std::string& plan, const DeviceOptions& options, std::shared_ptr<const Engine>* engine);

}  // namespace cli
}  // namespace loom
