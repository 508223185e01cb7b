#include "tools/loom/host_cpu.h"

#include <gtest/gtest.h>

namespace loom {
namespace cli {
namespace {

TEST(HostCpu, NamesArmCoresByPartNumber) {
  EXPECT_EQ(CpuNameFromCpuinfo("processor\t: 0\nmodel name\t: ARMv7 Processor rev 0 (v7l)\nCPU implementer\t: 0x41\n"
                               "CPU architecture: 7\nCPU part\t: 0xc09\n"),
            "Cortex-A9");
  EXPECT_EQ(CpuNameFromCpuinfo("processor\t: 0\nCPU implementer\t: 0x41\nCPU part\t: 0xd03\n"), "Cortex-A53");
  EXPECT_EQ(CpuNameFromCpuinfo("CPU implementer\t: 0x41\nCPU part\t: 0xfff\n"), "Arm core 0xfff");
}

TEST(HostCpu, OtherwiseTakesTheModelName) {
  EXPECT_EQ(CpuNameFromCpuinfo("vendor_id\t: GenuineIntel\nmodel name\t: Intel(R) Xeon(R) CPU @ 2.00GHz\n"),
            "Intel(R) Xeon(R) CPU @ 2.00GHz");
  EXPECT_EQ(CpuNameFromCpuinfo(""), "unknown");
}

TEST(HostCpu, ThisMachineHasAName) { EXPECT_FALSE(HostCpuName().empty()); }

}  // namespace
}  // namespace cli
}  // namespace loom
