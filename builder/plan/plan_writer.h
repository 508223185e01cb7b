// Serializes a placed, memory-planned graph into the plan file format of
// schemas/plan.fbs:
//   [0, 64)        FileHeader (magic, format version, section offsets, checksums)
//   [64, ...)      metadata flatbuffer (root Plan, identifier "LOOM")
//   [k * 64, ...)  constants section; each constant 64-byte aligned
// Padding between sections is zero (sealing and attribute encoding are
// schemas/plan_codec.h's). Only values the plan uses (node inputs and outputs,
// graph inputs and outputs) become plan tensors, in first-use order, with
// their layout and memory space; constants that share one buffer are stored
// once.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "builder/ir/graph.h"
#include "builder/memory/arena_plan.h"
#include "common/status.h"

namespace loom {
namespace plan_writer {

struct PlanInfo {
  std::string producer;        // "loom 0.1.0"
  std::string model_hash;      // 16 hex digits
  std::string model_producer;  // "pytorch 1.13.1"
  // The accelerator configuration FPGA nodes were lowered for; empty when
  // every node runs on the CPU.
  std::string accelerator_fingerprint;
  std::string target;    // the build target's name
  double clock_mhz = 0;  // its accelerator clock (0 for the CPU-only target)
  // Values handed between devices, in execution order.
  struct Boundary {
    int value = -1;  // the value on the receiving side
    Device from = Device::kCpu;
    Device to = Device::kCpu;
    double predicted_ms = 0;
  };
  std::vector<Boundary> boundaries;
};

struct WrittenPlan {
  std::vector<uint8_t> bytes;
  size_t constants_bytes = 0;
  size_t metadata_bytes = 0;
};

Status WritePlan(const ir::Graph& graph, const memory::ArenaPlan& arena, const PlanInfo& info, WrittenPlan* out);

// "00ab..." : 16 lower-case hex digits.
std::string HashToHex(uint64_t hash);

}  // namespace plan_writer
}  // namespace loom
