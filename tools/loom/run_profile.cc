#include "tools/loom/run_profile.h"

#include <cstdio>
#include <fstream>

#include "tools/loom/cli_util.h"
#include "tools/loom/json_writer.h"

namespace loom {
namespace cli {
namespace {

std::string Where(const NodeDesc& n) {
  if (n.device == "cpu") return "cpu";
  return n.on_fallback ? "cpu (fallback)" : n.device;
}

}  // namespace

void PrintProfile(const Engine& engine, const ExecutionContext& ctx, bool simulated) {
  const std::vector<NodeProfile>& profile = ctx.profile();
  const std::vector<NodeDesc>& nodes = engine.nodes();
  std::printf("\n%-4s %-28s %-10s %-15s %10s %12s %6s %10s %10s %10s\n", "#", "node", "op", "device", "host ms",
              "cycles", "util", "dma rd KB", "dma wr KB", "board ms");
  double cpu_ms = 0, device_host_ms = 0, board_ms = 0, cpu_predicted_ms = 0;
  uint64_t cycles = 0, launches = 0, macs = 0, array_macs = 0;
  double clock_mhz = 0;
  for (size_t i = 0; i < nodes.size() && i < profile.size(); ++i) {
    const NodeDesc& n = nodes[i];
    const NodeProfile& p = profile[i];
    std::string name = n.name.size() > 28 ? n.name.substr(0, 25) + "..." : n.name;
    std::printf("%-4zu %-28s %-10s %-15s %10.3f", i, name.c_str(), n.op.c_str(), Where(n).c_str(), p.ms);
    if (p.device.launched) {
      std::printf(" %12llu %5.1f%% %10.1f %10.1f %10.3f", static_cast<unsigned long long>(p.device.cycles),
                  100.0 * p.device.Utilization(), p.device.dma_read_bytes / 1024.0, p.device.dma_write_bytes / 1024.0,
                  p.device.BoardMs());
      if (p.device.nodes > 1) std::printf("  (launch of %d nodes)", p.device.nodes);
      cycles += p.device.cycles;
      board_ms += p.device.BoardMs();
      macs += p.device.macs;
      array_macs += p.device.array_macs;
      clock_mhz = p.device.clock_mhz;
      device_host_ms += p.ms;
      ++launches;
    } else if (n.device == "fpga" && !n.on_fallback) {
      std::printf(" %12s", "(in launch)");
      device_host_ms += p.ms;
    } else {
      cpu_ms += p.ms;
      cpu_predicted_ms += n.predicted_ms;
    }
    std::printf("\n");
  }
  std::printf("\nCPU nodes: %s on this host", FormatMs(cpu_ms).c_str());
  if (cpu_predicted_ms > 0) std::printf(" (%s predicted for the target's CPU)", FormatMs(cpu_predicted_ms).c_str());
  std::printf("\n");
  if (launches == 0) return;
  std::printf("accelerator: %llu launch%s, %llu cycles = %s at %.0f MHz, %llu MACs (%.1f%% of the array's issue)\n",
              static_cast<unsigned long long>(launches), launches == 1 ? "" : "es",
              static_cast<unsigned long long>(cycles), FormatMs(board_ms).c_str(), clock_mhz,
              static_cast<unsigned long long>(macs), array_macs ? 100.0 * macs / array_macs : 0.0);
  if (simulated) {
    std::printf("  (simulated: %s of host time; on the board the launches take the time above)\n",
                FormatMs(device_host_ms).c_str());
    const double cpu_on_board = cpu_predicted_ms > 0 ? cpu_predicted_ms : cpu_ms;
    std::printf("projected on-board latency: %s (accelerator %s + CPU %s, %s)\n",
                FormatMs(board_ms + cpu_on_board).c_str(), FormatMs(board_ms).c_str(), FormatMs(cpu_on_board).c_str(),
                cpu_predicted_ms > 0 ? "CPU from the build target's cost model" : "CPU as measured on this host");
  }
}

Status WriteTrace(const Engine& engine, const ExecutionContext& ctx, const std::string& path) {
  const std::vector<NodeProfile>& profile = ctx.profile();
  const std::vector<NodeDesc>& nodes = engine.nodes();
  JsonWriter j;
  j.BeginObject().Key("traceEvents").BeginArray();
  auto thread_name = [&](int tid, const char* name) {
    j.BeginObject().Field("name", "thread_name").Field("ph", "M").IntField("pid", 1).IntField("tid", tid);
    j.Key("args").BeginObject().Field("name", name).EndObject().EndObject();
  };
  thread_name(1, "CPU");
  thread_name(2, "FPGA");
  for (size_t i = 0; i < nodes.size() && i < profile.size(); ++i) {
    const NodeDesc& n = nodes[i];
    const NodeProfile& p = profile[i];
    const bool fpga = n.device == "fpga" && !n.on_fallback;
    j.BeginObject().Field("name", n.name.empty() ? n.op : n.name).Field("cat", n.op).Field("ph", "X");
    j.NumberField("ts", p.start_ms * 1e3).NumberField("dur", p.ms * 1e3).IntField("pid", 1).IntField("tid", fpga ? 2 : 1);
    j.Key("args").BeginObject().Field("kernel", n.running_kernel);
    if (p.device.launched) {
      j.Key("cycles").UInt(p.device.cycles);
      j.NumberField("utilization", p.device.Utilization());
      j.Key("dma_read_bytes").UInt(p.device.dma_read_bytes);
      j.Key("dma_write_bytes").UInt(p.device.dma_write_bytes);
      j.NumberField("board_ms", p.device.BoardMs());
      j.IntField("launch_nodes", p.device.nodes);
    }
    j.EndObject().EndObject();
  }
  j.EndArray().Field("displayTimeUnit", "ms").EndObject();
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) return Status::IoError("cannot write trace '" + path + "'");
  out << j.str() << "\n";
  out.close();
  if (!out) return Status::IoError("cannot write trace '" + path + "'");
  return Status::Ok();
}

}  // namespace cli
}  // namespace loom
