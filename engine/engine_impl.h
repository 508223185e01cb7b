// The loaded, verified and prepared form of a plan, shared read-only by every
// ExecutionContext of an Engine. Everything a run needs is precomputed here as
// flat integer tables so that ExecutionContext::Run only walks them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/device.h"
#include "common/status.h"
#include "engine/plan_file.h"
#include "kernels/common/kernel.h"
#include "loom/engine.h"

namespace loom {

class KernelRegistry;

// Where a tensor's data lives at run time.
struct TensorSlot {
  enum class Kind : uint8_t { kNone, kConstant, kArena };
  Kind kind = Kind::kNone;
  uint64_t offset = 0;  // in the constants section or the arena
  uint64_t size_bytes = 0;
};

struct PreparedNode {
  std::unique_ptr<Kernel> kernel;
  DeviceRuntime* device = nullptr;  // KernelArgs::device: null for CPU nodes
  std::string label;  // "conv1 (Conv)" (common/node_label.h): prefixes the kernel's errors
  // Ranges in EngineImpl::node_io (tensor indices, -1 for omitted).
  uint32_t first_input = 0;
  uint32_t num_inputs = 0;
  uint32_t first_output = 0;
  uint32_t num_outputs = 0;
};

class EngineImpl {
 public:
  // Verifies the plan in `file`, checks that every node's kernel (from the
  // options' registry) runs on the node's device with the layouts of its
  // tensors, and prepares it with that device's configuration.
  static Status Create(std::unique_ptr<PlanFile> file, const LoadOptions& options, std::unique_ptr<EngineImpl>* out);

  const uint8_t* constants() const { return file->constants(); }
  // Largest scratch any node needs with `num_threads` threads.
  size_t ScratchBytes(int num_threads) const;

  // Declared first so kernels (which may point into constants) go first.
  std::unique_ptr<PlanFile> file;
  // LoadOptions::device; declared before the nodes so their kernels go first.
  std::shared_ptr<DeviceRuntime> device;
  std::vector<TensorSlot> slots;        // by tensor index
  std::vector<PreparedNode> nodes;      // in execution order
  std::vector<int32_t> node_io;         // see PreparedNode
  std::vector<int32_t> input_tensors;   // graph inputs, index-aligned with `inputs`
  std::vector<int32_t> output_tensors;  // graph outputs, index-aligned with `outputs`
  std::vector<TensorDesc> inputs;
  std::vector<TensorDesc> outputs;
  std::vector<NodeDesc> node_descs;
  std::vector<TensorDesc> tensor_descs;
  PlanInfo info;
  std::vector<std::string> notes;  // Engine::notes()
  size_t arena_bytes = 0;
  // Device-visible when a device reads or writes arena tensors directly.
  MemorySpace arena_space = MemorySpace::kHost;
};

}  // namespace loom
