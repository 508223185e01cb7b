#include "tools/loom/host_cpu.h"

#include <cstdlib>
#include <fstream>
#include <sstream>

namespace loom {
namespace cli {
namespace {

// "CPU part" values of Arm Ltd. cores (implementer 0x41), from Arm's
// technical reference manuals (MIDR_EL1.PartNum).
struct ArmPart {
  long part;
  const char* name;
};
constexpr ArmPart kArmParts[] = {
    {0xc07, "Cortex-A7"},  {0xc08, "Cortex-A8"},  {0xc09, "Cortex-A9"},  {0xc0f, "Cortex-A15"},
    {0xd03, "Cortex-A53"}, {0xd04, "Cortex-A35"}, {0xd05, "Cortex-A55"}, {0xd07, "Cortex-A57"},
    {0xd08, "Cortex-A72"}, {0xd09, "Cortex-A73"}, {0xd0b, "Cortex-A76"},
};

// The value of the first "key : value" line, trimmed; empty when absent.
std::string Field(const std::string& text, const std::string& key) {
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    const size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string name = line.substr(0, colon);
    while (!name.empty() && (name.back() == ' ' || name.back() == '\t')) name.pop_back();
    if (name != key) continue;
    const size_t start = line.find_first_not_of(" \t", colon + 1);
    return start == std::string::npos ? std::string() : line.substr(start);
  }
  return std::string();
}

}  // namespace

std::string CpuNameFromCpuinfo(const std::string& cpuinfo) {
  const std::string implementer = Field(cpuinfo, "CPU implementer");
  const std::string part = Field(cpuinfo, "CPU part");
  if (!part.empty() && std::strtol(implementer.c_str(), nullptr, 0) == 0x41) {
    const long number = std::strtol(part.c_str(), nullptr, 0);
    for (const ArmPart& p : kArmParts)
      if (p.part == number) return p.name;
    return "Arm core " + part;
  }
  const std::string model = Field(cpuinfo, "model name");
  return model.empty() ? "unknown" : model;
}

std::string HostCpuName() {
  std::ifstream file("/proc/cpuinfo");
  std::stringstream text;
  text << file.rdbuf();
  return CpuNameFromCpuinfo(text.str());
}

}  // namespace cli
}  // namespace loom
