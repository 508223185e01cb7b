#include "loom/engine.h"

#include <algorithm>
#include <atomic>
#include <thread>
#include <utility>
#include <vector>

#include "common/logging.h"
#include "engine/constant_checks.h"
#include "engine/engine_impl.h"
#include "engine/plan_convert.h"
#include "engine/plan_verifier.h"
#include "kernels/common/registry.h"

namespace loom {
namespace {

std::string Str(const flatbuffers::String* s) { return s ? s->str() : std::string(); }

TensorDesc MakeDesc(const plan::Tensor& t) {
  TensorDesc d;
  d.name = Str(t.name());
  d.dtype = static_cast<DType>(t.dtype());
  d.shape = ToShape(t.shape());
  d.size_bytes = static_cast<size_t>(t.size_bytes());
  d.layout = static_cast<Layout>(t.layout());
  d.memory_space = static_cast<MemorySpace>(t.memory_space());
  d.constant = t.storage() == plan::Storage::CONSTANT;
  if (const plan::QuantParams* q = t.quant()) {
    if (q->scale()) d.quant.scale.assign(q->scale()->begin(), q->scale()->end());
    if (q->zero_point()) d.quant.zero_point.assign(q->zero_point()->begin(), q->zero_point()->end());
    d.quant.axis = q->axis();
  }
  return d;
}

TensorSlot MakeSlot(const plan::Tensor& t) {
  TensorSlot slot;
  switch (t.storage()) {
    case plan::Storage::CONSTANT: slot.kind = TensorSlot::Kind::kConstant; break;
    case plan::Storage::ARENA: slot.kind = TensorSlot::Kind::kArena; break;
    default: slot.kind = TensorSlot::Kind::kNone; break;
  }
  slot.offset = t.offset();
  slot.size_bytes = t.size_bytes();
  return slot;
}

// Appends the tensors of `list` to *io and their descriptions to *desc.
void AddNodeTensors(const plan::Plan& p, const flatbuffers::Vector<int32_t>* list, std::vector<int32_t>* io,
                    std::vector<std::string>* names, std::vector<DType>* dtypes, std::vector<Shape>* shapes) {
  if (list == nullptr) return;
  for (int32_t idx : *list) {
    io->push_back(idx);
    if (idx < 0) {
      names->emplace_back();
      dtypes->push_back(DType::kUndefined);
      shapes->emplace_back();
      continue;
    }
    const plan::Tensor& t = *p.tensors()->Get(idx);
    names->push_back(Str(t.name()));
    dtypes->push_back(static_cast<DType>(t.dtype()));
    shapes->push_back(ToShape(t.shape()));
  }
}

// The device a node's kernel runs on must be the one the plan placed it on.
Status CheckKernelDevice(const std::string& label, const KernelDef& def, Device placed) {
  if (def.device == placed) return Status::Ok();
  return Status::Corrupt(label + ": placed on " + DeviceName(placed) + " but its kernel '" + def.id + "' runs on " +
                         DeviceName(def.device));
}

// Whether the attached device runs the plan's off-CPU nodes: it must be of
// their kind and of the configuration they were built for. Otherwise the
// reason, naming both sides.
Status DeviceFor(const std::string& planned_fingerprint, Device placed, const LoadOptions& options) {
  if (options.device == nullptr || options.device->config().device() != placed) {
    return Status::Unsupported(std::string("placed on ") + DeviceName(placed) + ", but no " + DeviceName(placed) +
                               " device is attached");
  }
  const std::string attached = options.device->config().fingerprint();
  if (attached == planned_fingerprint) return Status::Ok();
  return Status::Unsupported("the plan was built for accelerator '" + planned_fingerprint +
                             "' but the attached device is '" + attached + "' (" + options.device->config().name() +
                             ")");
}

// Every tensor of the node must use a layout its kernel takes.
Status CheckLayouts(const std::string& label, const KernelDef& def, const KernelSetup& setup) {
  auto check = [&](const std::vector<TensorInfo>& tensors, const char* what) {
    for (size_t i = 0; i < tensors.size(); ++i) {
      if (!tensors[i].present || (def.layouts & LayoutBit(tensors[i].layout))) continue;
      return Status::Corrupt(label + ": " + what + " " + std::to_string(i) + " has layout " +
                             LayoutName(tensors[i].layout) + ", which kernel '" + def.id + "' does not take");
    }
    return Status::Ok();
  };
  RETURN_IF_ERROR(check(setup.inputs, "input"));
  return check(setup.outputs, "output");
}

// Prepares every node's kernel with its setup. Device nodes are prepared in
// order on the calling thread (a device runtime need not be thread-safe);
// CPU kernels, whose Prepare touches only the kernel itself and the mapped
// constants, are spread over up to `num_threads` threads (0: one per core),
// the costliest-looking first (by constant bytes: packing and transforming
// weights is most of a load). The error of the first failing node in
// execution order is returned, whatever the threads' timing.
Status PrepareKernels(std::vector<PreparedNode>& nodes, const std::vector<KernelSetup>& setups, int num_threads) {
  std::vector<Status> status(nodes.size(), Status::Ok());
  std::vector<size_t> cpu;
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (nodes[i].device != nullptr) {
      status[i] = nodes[i].kernel->Prepare(setups[i]);
    } else {
      cpu.push_back(i);
    }
  }
  auto constant_bytes = [&](size_t i) {
    size_t bytes = 0;
    for (const TensorInfo& t : setups[i].inputs)
      if (t.present && t.const_data != nullptr) bytes += t.num_bytes();
    return bytes;
  };
  std::stable_sort(cpu.begin(), cpu.end(), [&](size_t a, size_t b) { return constant_bytes(a) > constant_bytes(b); });
  if (num_threads <= 0) num_threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  num_threads = static_cast<int>(std::min<size_t>(static_cast<size_t>(num_threads), std::max<size_t>(1, cpu.size())));
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t k = next++; k < cpu.size(); k = next++) status[cpu[k]] = nodes[cpu[k]].kernel->Prepare(setups[cpu[k]]);
  };
  std::vector<std::thread> helpers;
  for (int t = 1; t < num_threads; ++t) helpers.emplace_back(work);
  work();
  for (std::thread& t : helpers) t.join();
  for (size_t i = 0; i < nodes.size(); ++i)
    if (!status[i].ok()) return status[i].WithContext(nodes[i].label);
  return Status::Ok();
}

// By tensor index: the constants the prepared kernels read (their inputs
// but those a derived constant replaced, the derived constants they took)
// and the graph outputs that are constants.
std::vector<bool> ConstantsRead(const plan::Plan& p, const std::vector<PreparedNode>& nodes,
                                const std::vector<KernelSetup>& setups) {
  std::vector<bool> read(p.tensors()->size(), false);
  for (size_t i = 0; i < nodes.size(); ++i) {
    const plan::Node& node = *p.nodes()->Get(static_cast<flatbuffers::uoffset_t>(i));
    if (node.inputs() != nullptr)
      for (flatbuffers::uoffset_t k = 0; k < node.inputs()->size(); ++k) {
        const int32_t idx = node.inputs()->Get(k);
        if (idx >= 0 && nodes[i].kernel->ReadsConstantInput(k)) read[static_cast<size_t>(idx)] = true;
      }
    if (node.derived() != nullptr)
      for (flatbuffers::uoffset_t k = 0; k < node.derived()->size(); ++k)
        if (setups[i].derived[k].taken) read[static_cast<size_t>(node.derived()->Get(k)->tensor())] = true;
  }
  for (int32_t idx : *p.outputs()) read[static_cast<size_t>(idx)] = true;
  return read;
}

}  // namespace

Status EngineImpl::Create(std::unique_ptr<PlanFile> file, const LoadOptions& options,
                          std::unique_ptr<EngineImpl>* out) {
  const KernelRegistry& registry = options.registry ? *options.registry : KernelRegistry::Global();
  const plan::Plan* plan_ptr = nullptr;
  RETURN_IF_ERROR(VerifyPlanMetadata(file->metadata(), file->metadata_bytes(), file->layout(), &plan_ptr));
  const plan::Plan& p = *plan_ptr;
  std::unique_ptr<EngineImpl> e(new EngineImpl());
  e->file = std::move(file);
  // Constants are checked before any kernel reads them, or (constants with
  // their own checksums) those the kernels read, once they are prepared.
  const bool per_constant = p.constant_checksums() && !options.check_all_constants;
  if (per_constant) {
    if (p.constants_checksum() != e->file->layout().constants_checksum)
      return Status::Corrupt("plan header's constants checksum differs from the metadata's copy (file damaged)");
    RETURN_IF_ERROR(CheckConstantPadding(p, e->constants(), e->file->constants_bytes()));
  } else {
    RETURN_IF_ERROR(e->file->CheckConstants());
  }

  e->info.format_major = p.format_major();
  e->info.format_minor = p.format_minor();
  e->info.producer = Str(p.producer());
  e->info.model_hash = Str(p.model_hash());
  e->info.model_producer = Str(p.model_producer());
  e->info.accelerator_fingerprint = Str(p.accelerator_fingerprint());
  e->info.arena_bytes = static_cast<size_t>(p.arena_bytes());
  e->info.arena_lower_bound_bytes = static_cast<size_t>(p.arena_lower_bound_bytes());
  e->info.constants_bytes = e->file->constants_bytes();
  e->info.file_bytes = e->file->file_bytes();
  e->arena_bytes = static_cast<size_t>(p.arena_bytes());
  e->info.target = Str(p.target());
  e->info.clock_mhz = p.clock_mhz();
  if (p.boundaries() != nullptr) {
    for (const plan::Boundary* b : *p.boundaries()) {
      BoundaryDesc d;
      d.tensor = Str(p.tensors()->Get(b->tensor())->name());
      d.from = DeviceName(static_cast<Device>(b->from()));
      d.to = DeviceName(static_cast<Device>(b->to()));
      d.predicted_ms = b->predicted_ms();
      e->info.boundaries.push_back(std::move(d));
    }
  }
  e->device = options.device;
  // Off-CPU nodes run on the attached device when it is the one the plan
  // was built for; otherwise on their CPU fallbacks if the caller allows it.
  Status device_status = Status::Ok();
  bool fallback = false;
  int fallback_nodes = 0;

  for (const plan::Tensor* t : *p.tensors()) {
    e->slots.push_back(MakeSlot(*t));
    e->tensor_descs.push_back(MakeDesc(*t));
    if (t->storage() == plan::Storage::ARENA && t->memory_space() == plan::MemorySpace::DEVICE_VISIBLE)
      e->arena_space = MemorySpace::kDeviceVisible;
  }
  if (p.inputs() != nullptr) {
    for (int32_t idx : *p.inputs()) {
      e->input_tensors.push_back(idx);
      e->inputs.push_back(MakeDesc(*p.tensors()->Get(idx)));
    }
  }
  for (int32_t idx : *p.outputs()) {
    e->output_tensors.push_back(idx);
    e->outputs.push_back(MakeDesc(*p.tensors()->Get(idx)));
  }

  const uint8_t* constants = e->constants();
  std::vector<KernelSetup> setups;
  setups.reserve(p.nodes()->size());
  for (size_t i = 0; i < p.nodes()->size(); ++i) {
    const plan::Node& node = *p.nodes()->Get(static_cast<flatbuffers::uoffset_t>(i));
    PreparedNode prepared;
    prepared.label = NodeLabel(node, i);

    NodeDesc desc;
    desc.name = Str(node.name());
    desc.op = node.op()->str();
    desc.kernel = node.kernel()->str();
    desc.device = node.device() == plan::Device::FPGA ? "fpga" : "cpu";
    desc.placement_reason = Str(node.placement_reason());
    desc.predicted_ms = node.predicted_ms();
    desc.fallback_kernel = Str(node.fallback_kernel());
    const Device placed = static_cast<Device>(node.device());
    if (placed != Device::kCpu && device_status.ok() && !fallback) {
      device_status = DeviceFor(e->info.accelerator_fingerprint, placed, options);
      if (!device_status.ok()) {
        if (!options.allow_cpu_fallback) {
          return Status(device_status.code(), prepared.label + ": " + device_status.message() +
                                                  " (allow CPU fallback to run such nodes on the CPU)");
        }
        fallback = true;
      }
    }
    const bool on_fallback = placed != Device::kCpu && fallback;
    if (on_fallback && desc.fallback_kernel.empty())
      return Status::Unsupported(prepared.label + ": runs on " + DeviceName(placed) + " and has no CPU fallback (" +
                                 device_status.message() + ")");
    desc.on_fallback = on_fallback;
    desc.running_kernel = on_fallback ? desc.fallback_kernel : desc.kernel;
    fallback_nodes += on_fallback ? 1 : 0;
    if (node.fused() != nullptr)
      for (const flatbuffers::String* f : *node.fused()) desc.fused.push_back(f->str());
    prepared.first_input = static_cast<uint32_t>(e->node_io.size());
    AddNodeTensors(p, node.inputs(), &e->node_io, &desc.inputs, &desc.input_dtypes, &desc.input_shapes);
    prepared.num_inputs = static_cast<uint32_t>(e->node_io.size()) - prepared.first_input;
    prepared.first_output = static_cast<uint32_t>(e->node_io.size());
    AddNodeTensors(p, node.outputs(), &e->node_io, &desc.outputs, &desc.output_dtypes, &desc.output_shapes);
    prepared.num_outputs = static_cast<uint32_t>(e->node_io.size()) - prepared.first_output;

    const KernelDef* def = registry.FindById(desc.running_kernel);
    if (def == nullptr || def->create == nullptr) {
      return Status::NotFound(prepared.label + ": kernel '" + desc.running_kernel +
                              "' is not available in this engine");
    }
    const std::string domain = Str(node.domain());
    if (def->op != desc.op || def->domain != domain) {
      return Status::Corrupt(prepared.label + ": kernel '" + desc.running_kernel + "' implements " + def->op +
                             ", not " + desc.op);
    }
    RETURN_IF_ERROR(CheckKernelDevice(prepared.label, *def, on_fallback ? Device::kCpu : placed));
    if (placed != Device::kCpu && !on_fallback) prepared.device = options.device.get();
    KernelSetup setup;
    setup.device_config = prepared.device ? &prepared.device->config() : nullptr;
    setup.runtime = prepared.device;
    setup.op = desc.op;
    setup.domain = domain;
    setup.opset = node.opset();
    setup.attrs = ToAttributes(node);
    if (node.inputs() != nullptr) {
      for (int32_t idx : *node.inputs())
        setup.inputs.push_back(idx < 0 ? TensorInfo() : ToTensorInfo(*p.tensors()->Get(idx), constants));
    }
    if (node.outputs() != nullptr) {
      for (int32_t idx : *node.outputs())
        setup.outputs.push_back(idx < 0 ? TensorInfo() : ToTensorInfo(*p.tensors()->Get(idx), constants));
    }
    if (node.derived() != nullptr) {
      for (const plan::DerivedConstant* d : *node.derived()) {
        const plan::Tensor& t = *p.tensors()->Get(d->tensor());
        setup.derived.push_back({d->key()->str(), constants + t.offset(), static_cast<size_t>(t.size_bytes())});
      }
    }
    RETURN_IF_ERROR(CheckLayouts(prepared.label, *def, setup));
    prepared.kernel = def->create();
    if (prepared.kernel == nullptr) return Status::Internal(prepared.label + ": kernel factory returned null");

    setups.push_back(std::move(setup));
    e->nodes.push_back(std::move(prepared));
    e->node_descs.push_back(std::move(desc));
  }
  const Status prepared = PrepareKernels(e->nodes, setups, options.num_threads);
  if (per_constant) {
    // A kernel that refused its node may have read a damaged constant: the
    // damage is the error then.
    RETURN_IF_ERROR(CheckConstantChecksums(p, e->constants(),
                                           prepared.ok() ? ConstantsRead(p, e->nodes, setups) : std::vector<bool>()));
  }
  RETURN_IF_ERROR(prepared);
  if (fallback_nodes > 0) {
    e->notes.push_back(std::to_string(fallback_nodes) + " node(s) placed on the accelerator run on the CPU instead: " +
                       device_status.message());
    e->arena_space = MemorySpace::kHost;  // no device-visible memory without the device
    e->device = nullptr;
    LOOM_LOG(kWarn, "%s", e->notes.back().c_str());
  }
  LOOM_LOG(kInfo, "loaded plan %u.%u: %zu nodes, %zu tensors, arena %zu bytes, constants %zu bytes",
           e->info.format_major, e->info.format_minor, e->nodes.size(), e->slots.size(), e->arena_bytes,
           e->info.constants_bytes);
  *out = std::move(e);
  return Status::Ok();
}

size_t EngineImpl::ScratchBytes(int num_threads) const {
  size_t bytes = 0;
  for (const PreparedNode& n : nodes) {
    const size_t b = n.kernel->ScratchBytes(num_threads);
    if (b > bytes) bytes = b;
  }
  return bytes;
}

Engine::Engine(std::unique_ptr<EngineImpl> impl) : impl_(std::move(impl)) {}
Engine::~Engine() = default;

Status Engine::Load(const std::string& path, std::shared_ptr<const Engine>* out) {
  return Load(path, LoadOptions(), out);
}

Status Engine::LoadFromBuffer(const void* data, size_t size, std::shared_ptr<const Engine>* out) {
  return LoadFromBuffer(data, size, LoadOptions(), out);
}

Status Engine::Load(const std::string& path, const KernelRegistry& registry, std::shared_ptr<const Engine>* out) {
  LoadOptions options;
  options.registry = &registry;
  return Load(path, options, out);
}

Status Engine::LoadFromBuffer(const void* data, size_t size, const KernelRegistry& registry,
                              std::shared_ptr<const Engine>* out) {
  LoadOptions options;
  options.registry = &registry;
  return LoadFromBuffer(data, size, options, out);
}

Status Engine::Load(const std::string& path, const LoadOptions& options, std::shared_ptr<const Engine>* out) {
  std::unique_ptr<PlanFile> file;
  RETURN_IF_ERROR(PlanFile::Open(path, &file, ConstantsCheck::kByCaller));
  std::unique_ptr<EngineImpl> impl;
  const Status s = EngineImpl::Create(std::move(file), options, &impl);
  if (!s.ok()) return s.WithContext("plan '" + path + "'");
  out->reset(new Engine(std::move(impl)));
  return Status::Ok();
}

Status Engine::LoadFromBuffer(const void* data, size_t size, const LoadOptions& options,
                              std::shared_ptr<const Engine>* out) {
  std::unique_ptr<PlanFile> file;
  RETURN_IF_ERROR(PlanFile::FromBuffer(data, size, &file, ConstantsCheck::kByCaller));
  std::unique_ptr<EngineImpl> impl;
  RETURN_IF_ERROR(EngineImpl::Create(std::move(file), options, &impl));
  out->reset(new Engine(std::move(impl)));
  return Status::Ok();
}

const std::vector<TensorDesc>& Engine::inputs() const { return impl_->inputs; }
const std::vector<TensorDesc>& Engine::outputs() const { return impl_->outputs; }
const std::vector<NodeDesc>& Engine::nodes() const { return impl_->node_descs; }
const std::vector<TensorDesc>& Engine::tensors() const { return impl_->tensor_descs; }
const PlanInfo& Engine::info() const { return impl_->info; }
const std::vector<std::string>& Engine::notes() const { return impl_->notes; }

const TensorDesc* Engine::FindInput(std::string_view name) const {
  for (const TensorDesc& d : impl_->inputs)
    if (d.name == name) return &d;
  return nullptr;
}

const TensorDesc* Engine::FindOutput(std::string_view name) const {
  for (const TensorDesc& d : impl_->outputs)
    if (d.name == name) return &d;
  return nullptr;
}

}  // namespace loom
