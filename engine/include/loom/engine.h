// Loom's run-time API: load a plan, create an execution context per thread,
// bind inputs and outputs, run.
//
//   std::shared_ptr<const loom::Engine> engine;
//   loom::Status s = loom::Engine::Load("model.plan", &engine);
//   if (!s.ok()) { fprintf(stderr, "%s\n", s.ToString().c_str()); return 1; }
//   std::unique_ptr<loom::ExecutionContext> ctx;
//   s = engine->CreateContext({/*num_threads=*/1}, &ctx);
//   s = ctx->SetInput("input", image.data(), image.size() * sizeof(float));
//   s = ctx->SetOutput("logits", logits.data(), logits.size() * sizeof(float));
//   s = ctx->Run();
//
// An Engine is immutable after Load and may be shared by any number of
// threads; each thread uses its own ExecutionContext, which owns the
// activation arena and the bindings. Run() does not allocate heap memory.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/device.h"
#include "common/device_run_stats.h"
#include "common/dtype.h"
#include "common/layout.h"
#include "common/quant_params.h"
#include "common/status.h"

namespace loom {

class DeviceRuntime;
class EngineImpl;
class ExecutionContext;
class KernelRegistry;
struct KernelArgs;
class MemoryAllocator;

// A graph input or output.
struct TensorDesc {
  std::string name;
  DType dtype = DType::kUndefined;
  Shape shape;
  size_t size_bytes = 0;
  Layout layout = Layout::kRowMajor;              // how the bytes are arranged (shape in ONNX order)
  MemorySpace memory_space = MemorySpace::kHost;  // as the plan records it
  QuantParams quant;    // empty for float tensors
  bool constant = false;  // stored in the plan's constants section
};

// One node of a loaded plan, for tools (`loom inspect`).
struct NodeDesc {
  std::string name;
  std::string op;                  // ONNX op (of the fused node's anchor)
  std::vector<std::string> fused;  // absorbed ONNX ops
  std::string kernel;              // kernel id
  std::string device;              // "cpu" or "fpga": where the plan placed it
  std::string placement_reason;
  double predicted_ms = 0;         // the build target's prediction on `device` (0: none)
  std::string fallback_kernel;     // CPU kernel for an off-CPU node (plan format 1.2)
  // What this engine runs: `kernel`, or `fallback_kernel` when the node runs
  // on the CPU instead of its device (LoadOptions::allow_cpu_fallback).
  std::string running_kernel;
  bool on_fallback = false;
  std::vector<std::string> inputs;   // tensor names ("" for omitted)
  std::vector<std::string> outputs;
  // Dtypes and shapes of inputs/outputs, index-aligned with them (kUndefined
  // and {} for omitted ones).
  std::vector<DType> input_dtypes;
  std::vector<Shape> input_shapes;
  std::vector<DType> output_dtypes;
  std::vector<Shape> output_shapes;
};

// A tensor handed between devices (plan format 1.2).
struct BoundaryDesc {
  std::string tensor;  // the tensor on the receiving side
  std::string from;    // "cpu" or "fpga"
  std::string to;
  double predicted_ms = 0;
};

struct PlanInfo {
  uint16_t format_major = 0;
  uint16_t format_minor = 0;
  std::string producer;
  std::string model_hash;
  size_t arena_bytes = 0;
  size_t arena_lower_bound_bytes = 0;  // the least any memory plan could have; 0 before format 1.3
  size_t constants_bytes = 0;
  size_t file_bytes = 0;
  std::string model_producer;           // as recorded in the source model
  std::string accelerator_fingerprint;  // empty when every node runs on the CPU
  std::string target;                   // the build target ("cpu", "fpga16"); empty before format 1.2
  double clock_mhz = 0;                 // the target's accelerator clock for its predictions
  std::vector<BoundaryDesc> boundaries;
};

struct LoadOptions {
  // Where kernel ids are looked up; null means KernelRegistry::Global()
  // (every built-in kernel). Only used during Load.
  const KernelRegistry* registry = nullptr;
  // The accelerator that runs the plan's nodes placed off the CPU
  // (kernels/common/device_context.h). Null when none is attached: a plan
  // with such nodes is then refused. The engine keeps it alive.
  std::shared_ptr<DeviceRuntime> device;
  // Run nodes placed off the CPU on their CPU fallback kernels when no
  // device, or a device of another configuration, is attached (instead of
  // refusing the plan). Engine::notes() then says so once.
  bool allow_cpu_fallback = false;
  // Threads that prepare the CPU nodes' kernels (pack and transform their
  // weights) while loading, the calling thread included; 0 means one per
  // core. They exist only during Load.
  int num_threads = 0;
  // Check the whole constants section against its checksum. By default a
  // plan whose constants carry their own checksums (format 2.2) has only
  // the constants its kernels read checked (and the zeros between them),
  // so that raw weights replaced by derived constants are not read at all.
  bool check_all_constants = false;
};

struct ContextOptions {
  // Threads used inside one Run (the calling thread included).
  int num_threads = 1;
  // Where the context's activation arena comes from. Null means: the
  // attached device's allocator when the plan asks for device-visible
  // memory, plain host memory otherwise. Must outlive the context.
  MemoryAllocator* allocator = nullptr;
  // Record per-node times (and device counters) in every Run, readable
  // through ExecutionContext::profile().
  bool profile = false;
};

// One node's record from the last profiled Run.
struct NodeProfile {
  double start_ms = 0;  // since Run started
  double ms = 0;        // host wall-clock time of the node
  DeviceRunStats device;
};

// Contexts keep their engine alive (shared ownership).
class Engine : public std::enable_shared_from_this<Engine> {
 public:
  // Reads and verifies a plan file. The file is mapped into memory and its
  // constants are used in place.
  static Status Load(const std::string& path, std::shared_ptr<const Engine>* out);
  // Verifies and copies a plan held in memory.
  static Status LoadFromBuffer(const void* data, size_t size, std::shared_ptr<const Engine>* out);
  // Same, looking kernels up in `registry` instead of KernelRegistry::Global()
  // (custom kernels, tests). The registry is only used during the call.
  static Status Load(const std::string& path, const KernelRegistry& registry, std::shared_ptr<const Engine>* out);
  static Status LoadFromBuffer(const void* data, size_t size, const KernelRegistry& registry,
                               std::shared_ptr<const Engine>* out);
  // The general forms: a registry and an attached device.
  static Status Load(const std::string& path, const LoadOptions& options, std::shared_ptr<const Engine>* out);
  static Status LoadFromBuffer(const void* data, size_t size, const LoadOptions& options,
                               std::shared_ptr<const Engine>* out);

  ~Engine();

  const std::vector<TensorDesc>& inputs() const;
  const std::vector<TensorDesc>& outputs() const;
  // Returns null if there is no input/output with that name.
  const TensorDesc* FindInput(std::string_view name) const;
  const TensorDesc* FindOutput(std::string_view name) const;
  const std::vector<NodeDesc>& nodes() const;
  // Every tensor of the plan, in plan order (for tools: dtypes, quantization).
  const std::vector<TensorDesc>& tensors() const;
  const PlanInfo& info() const;
  // What Load decided that a user should hear about once, e.g. that the
  // FPGA nodes run on their CPU fallbacks.
  const std::vector<std::string>& notes() const;

  Status CreateContext(const ContextOptions& options, std::unique_ptr<ExecutionContext>* out) const;

 private:
  friend class ExecutionContext;
  explicit Engine(std::unique_ptr<EngineImpl> impl);
  std::unique_ptr<EngineImpl> impl_;
};

class ExecutionContext {
 public:
  ~ExecutionContext();

  // Binds caller memory to a graph input or output; `bytes` must equal the
  // tensor's size_bytes. The memory must stay valid until the next Run
  // returns. Inputs are read in place (no copy); outputs are written in place.
  Status SetInput(std::string_view name, const void* data, size_t bytes);
  Status SetOutput(std::string_view name, void* data, size_t bytes);

  // Runs the plan once. Unbound outputs are written into the context's own
  // memory, readable through OutputData(). Every input must be bound.
  Status Run();

  // The data of an output after Run (the caller's buffer if bound).
  const void* OutputData(std::string_view name) const;

  const Engine& engine() const;

  // Per node, in plan order, from the last Run (empty unless the context was
  // created with ContextOptions::profile).
  const std::vector<NodeProfile>& profile() const;

 private:
  friend class Engine;
  class Impl;
  explicit ExecutionContext(std::unique_ptr<Impl> impl);
  Status RunProfiled(KernelArgs args);
  std::unique_ptr<Impl> impl_;
};

}  // namespace loom
