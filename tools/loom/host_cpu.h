// The name of the CPU this program runs on, for the timing caches `loom
// bench` writes (common/timing_cache.h): the builder compares it with the
// target's CPU ("Cortex-A9" for fpga16, "Cortex-A53" for fpga32).
#pragma once

#include <string>

namespace loom {
namespace cli {

// From /proc/cpuinfo text: an Arm core by its part number ("Cortex-A53"),
// else the "model name" line ("Intel(R) Xeon(R) ..."), else "unknown".
std::string CpuNameFromCpuinfo(const std::string& cpuinfo);

// CpuNameFromCpuinfo of this machine's /proc/cpuinfo.
std::string HostCpuName();

}  // namespace cli
}  // namespace loom
