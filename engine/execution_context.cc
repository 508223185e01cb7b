// ExecutionContext: the per-thread mutable state of a run. Everything is
// allocated in Engine::CreateContext (the arena from the allocator that
// ChooseAllocator picks, scratch, thread pool, pointer tables); Run only fills
// the node argument table from the tensor pointer table when bindings
// changed, then calls each kernel, so it never touches the heap on success.
#include <chrono>
#include <cstdint>
#include <cstring>
#include <exception>
#include <utility>

#include "engine/aligned_buffer.h"
#include "engine/engine_impl.h"
#include "kernels/common/device_context.h"
#include "kernels/common/thread_pool.h"
#include "schemas/plan_format.h"
#include "loom/engine.h"

namespace loom {
namespace {

constexpr int kMaxThreads = 256;

std::string DescribeTensor(const TensorDesc& d) {
  return std::string(DTypeName(d.dtype)) + " " + ShapeToString(d.shape);
}

// Index of the tensor named `name` in `list`, or -1.
int FindByName(const std::vector<TensorDesc>& list, std::string_view name) {
  for (size_t i = 0; i < list.size(); ++i)
    if (list[i].name == name) return static_cast<int>(i);
  return -1;
}

std::string Names(const std::vector<TensorDesc>& list) {
  std::string s;
  for (const TensorDesc& d : list) s += (s.empty() ? "'" : ", '") + d.name + "'";
  return s.empty() ? "none" : s;
}

Status CheckBuffer(const char* what, const TensorDesc& d, const void* data, size_t bytes) {
  if (bytes != d.size_bytes) {
    return Status::InvalidArgument(std::string(what) + " '" + d.name + "': buffer has " + std::to_string(bytes) +
                                   " bytes, expected " + std::to_string(d.size_bytes) + " (" + DescribeTensor(d) + ")");
  }
  if (data == nullptr && bytes != 0)
    return Status::InvalidArgument(std::string(what) + " '" + d.name + "': buffer is null");
  const size_t align = DTypeSize(d.dtype);
  if (align > 1 && reinterpret_cast<uintptr_t>(data) % align != 0) {
    return Status::InvalidArgument(std::string(what) + " '" + d.name + "': buffer is not aligned to " +
                                   std::to_string(align) + " bytes (" + DTypeName(d.dtype) + ")");
  }
  return Status::Ok();
}

// The allocator a context's arena comes from (ContextOptions::allocator).
Status ChooseAllocator(const EngineImpl& plan, const ContextOptions& options, MemoryAllocator** out) {
  if (options.allocator != nullptr) {
    *out = options.allocator;
  } else if (plan.arena_space == MemorySpace::kHost) {
    *out = &HostMemoryAllocator();
  } else if (plan.device != nullptr) {
    *out = &plan.device->allocator();
  } else {
    return Status::Unsupported("the plan's arena must be device-visible memory, but no device is attached");
  }
  return Status::Ok();
}

// The activation arena: a MemoryBlock returned to its allocator on destruction.
class Arena {
 public:
  Arena() = default;
  Arena(const Arena&) = delete;
  Arena& operator=(const Arena&) = delete;
  ~Arena() {
    if (allocator_ != nullptr) allocator_->Free(block_);
  }

  // At least one byte, so that tensors of zero bytes still get a non-null address.
  Status Allocate(MemoryAllocator* allocator, size_t bytes, MemorySpace space) {
    const Status s = allocator->Allocate(bytes == 0 ? 1 : bytes, kPlanAlignment, space, &block_);
    if (!s.ok()) return s.WithContext("the activation arena (" + std::to_string(bytes) + " bytes)");
    if (block_.host == nullptr)
      return Status::Internal("the arena allocator returned no host address for the activation arena");
    allocator_ = allocator;
    return Status::Ok();
  }

  uint8_t* data() const { return static_cast<uint8_t*>(block_.host); }
  const MemoryBlock& block() const { return block_; }

 private:
  MemoryAllocator* allocator_ = nullptr;
  MemoryBlock block_;
};

}  // namespace

class ExecutionContext::Impl {
 public:
  std::shared_ptr<const Engine> engine;
  const EngineImpl* plan = nullptr;
  Arena arena;
  AlignedBuffer scratch;
  std::unique_ptr<StaticThreadPool> pool;
  // Data of every tensor: constants in place, arena offsets, or bound caller
  // memory. Constants are stored without const: only arena tensors are ever
  // written (the verifier guarantees that node outputs are arena tensors).
  std::vector<void*> tensor_data;
  std::vector<uint8_t> input_bound;  // per graph input
  std::vector<void*> node_args;      // tensor_data by EngineImpl::node_io
  bool args_stale = true;
  bool profiling = false;
  std::vector<NodeProfile> profile;  // per node when profiling (sized at creation)

  void DefaultPointers() {
    tensor_data.assign(plan->slots.size(), nullptr);
    for (size_t i = 0; i < plan->slots.size(); ++i) {
      const TensorSlot& slot = plan->slots[i];
      if (slot.kind == TensorSlot::Kind::kConstant)
        tensor_data[i] = const_cast<uint8_t*>(plan->constants() + slot.offset);
      else if (slot.kind == TensorSlot::Kind::kArena)
        tensor_data[i] = arena.data() + slot.offset;
    }
  }
};

Status Engine::CreateContext(const ContextOptions& options, std::unique_ptr<ExecutionContext>* out) const {
  if (options.num_threads < 1 || options.num_threads > kMaxThreads) {
    return Status::InvalidArgument("num_threads is " + std::to_string(options.num_threads) + ", expected 1.." +
                                   std::to_string(kMaxThreads));
  }
  auto impl = std::make_unique<ExecutionContext::Impl>();
  impl->engine = shared_from_this();
  impl->plan = impl_.get();
  MemoryAllocator* allocator = nullptr;
  RETURN_IF_ERROR(ChooseAllocator(*impl_, options, &allocator));
  RETURN_IF_ERROR(impl->arena.Allocate(allocator, impl_->arena_bytes, impl_->arena_space));
  RETURN_IF_ERROR(impl->scratch.Allocate(impl_->ScratchBytes(options.num_threads), "kernel scratch memory"));
  // Touch host memory once now, so that the first run does not pay its page faults.
  if (impl->arena.block().space == MemorySpace::kHost) std::memset(impl->arena.data(), 0, impl->arena.block().bytes);
  std::memset(impl->scratch.data(), 0, impl->scratch.size());
  try {
    impl->pool = std::make_unique<StaticThreadPool>(options.num_threads);
  } catch (const std::exception& e) {
    return Status::Internal(std::string("cannot start ") + std::to_string(options.num_threads) +
                            " threads: " + e.what());
  }
  impl->DefaultPointers();
  impl->input_bound.assign(impl_->inputs.size(), 0);
  impl->node_args.assign(impl_->node_io.size(), nullptr);
  impl->profiling = options.profile;
  if (options.profile) impl->profile.resize(impl_->nodes.size());
  out->reset(new ExecutionContext(std::move(impl)));
  return Status::Ok();
}

ExecutionContext::ExecutionContext(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
ExecutionContext::~ExecutionContext() = default;

const Engine& ExecutionContext::engine() const { return *impl_->engine; }

Status ExecutionContext::SetInput(std::string_view name, const void* data, size_t bytes) {
  const EngineImpl& plan = *impl_->plan;
  const int i = FindByName(plan.inputs, name);
  if (i < 0) {
    return Status::NotFound("no graph input named '" + std::string(name) + "' (inputs: " + Names(plan.inputs) + ")");
  }
  RETURN_IF_ERROR(CheckBuffer("input", plan.inputs[i], data, bytes));
  impl_->tensor_data[plan.input_tensors[i]] = const_cast<void*>(data);  // read only: inputs are never written
  impl_->input_bound[i] = 1;
  impl_->args_stale = true;
  return Status::Ok();
}

Status ExecutionContext::SetOutput(std::string_view name, void* data, size_t bytes) {
  const EngineImpl& plan = *impl_->plan;
  const int i = FindByName(plan.outputs, name);
  if (i < 0) {
    return Status::NotFound("no graph output named '" + std::string(name) + "' (outputs: " + Names(plan.outputs) + ")");
  }
  RETURN_IF_ERROR(CheckBuffer("output", plan.outputs[i], data, bytes));
  impl_->tensor_data[plan.output_tensors[i]] = data;
  impl_->args_stale = true;
  return Status::Ok();
}

Status ExecutionContext::Run() {
  Impl& c = *impl_;
  const EngineImpl& plan = *c.plan;
  for (size_t i = 0; i < plan.inputs.size(); ++i) {
    if (!c.input_bound[i]) {
      return Status::InvalidArgument("input '" + plan.inputs[i].name + "' is not bound (call SetInput before Run)");
    }
  }
  if (c.args_stale) {
    for (size_t k = 0; k < plan.node_io.size(); ++k) {
      const int32_t idx = plan.node_io[k];
      c.node_args[k] = idx < 0 ? nullptr : c.tensor_data[idx];
    }
    c.args_stale = false;
  }
  KernelArgs args;
  args.scratch = c.scratch.data();
  args.pool = c.pool.get();
  args.arena = &c.arena.block();
  if (c.profiling) return RunProfiled(args);
  for (const PreparedNode& node : plan.nodes) {
    args.inputs = c.node_args.data() + node.first_input;
    args.num_inputs = node.num_inputs;
    args.outputs = c.node_args.data() + node.first_output;
    args.num_outputs = node.num_outputs;
    args.device = node.device;
    const Status s = node.kernel->Run(args);
    if (!s.ok()) return s.WithContext(node.label);
  }
  return Status::Ok();
}

// Run's loop with a clock around every node and the device counters kept.
Status ExecutionContext::RunProfiled(KernelArgs args) {
  Impl& c = *impl_;
  const EngineImpl& plan = *c.plan;
  using Clock = std::chrono::steady_clock;
  const Clock::time_point start = Clock::now();
  for (size_t i = 0; i < plan.nodes.size(); ++i) {
    const PreparedNode& node = plan.nodes[i];
    NodeProfile& record = c.profile[i];
    record = NodeProfile();
    args.inputs = c.node_args.data() + node.first_input;
    args.num_inputs = node.num_inputs;
    args.outputs = c.node_args.data() + node.first_output;
    args.num_outputs = node.num_outputs;
    args.device = node.device;
    args.stats = &record.device;
    const Clock::time_point t0 = Clock::now();
    const Status s = node.kernel->Run(args);
    const Clock::time_point t1 = Clock::now();
    record.start_ms = std::chrono::duration<double, std::milli>(t0 - start).count();
    record.ms = std::chrono::duration<double, std::milli>(t1 - t0).count();
    if (!s.ok()) return s.WithContext(node.label);
  }
  return Status::Ok();
}

const std::vector<NodeProfile>& ExecutionContext::profile() const { return impl_->profile; }

const void* ExecutionContext::OutputData(std::string_view name) const {
  const int i = FindByName(impl_->plan->outputs, name);
  if (i < 0) return nullptr;
  return impl_->tensor_data[impl_->plan->output_tensors[i]];
}

}  // namespace loom
