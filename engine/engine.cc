#include "loom/engine.h"

#include <utility>

#include "common/logging.h"
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

}  // namespace

Status EngineImpl::Create(std::unique_ptr<PlanFile> file, const KernelRegistry& registry,
                          std::unique_ptr<EngineImpl>* out) {
  const plan::Plan* plan_ptr = nullptr;
  RETURN_IF_ERROR(VerifyPlanMetadata(file->metadata(), file->metadata_bytes(), file->layout(), &plan_ptr));
  const plan::Plan& p = *plan_ptr;
  std::unique_ptr<EngineImpl> e(new EngineImpl());
  e->file = std::move(file);

  e->info.format_major = p.format_major();
  e->info.format_minor = p.format_minor();
  e->info.producer = Str(p.producer());
  e->info.model_hash = Str(p.model_hash());
  e->info.model_producer = Str(p.model_producer());
  e->info.accelerator_fingerprint = Str(p.accelerator_fingerprint());
  e->info.arena_bytes = static_cast<size_t>(p.arena_bytes());
  e->info.constants_bytes = e->file->constants_bytes();
  e->info.file_bytes = e->file->file_bytes();
  e->arena_bytes = static_cast<size_t>(p.arena_bytes());

  for (const plan::Tensor* t : *p.tensors()) e->slots.push_back(MakeSlot(*t));
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
  for (size_t i = 0; i < p.nodes()->size(); ++i) {
    const plan::Node& node = *p.nodes()->Get(static_cast<flatbuffers::uoffset_t>(i));
    PreparedNode prepared;
    prepared.label = NodeLabel(node, i);
    prepared.name = Str(node.name());
    if (prepared.name.empty()) prepared.name = "node #" + std::to_string(i);

    NodeDesc desc;
    desc.name = Str(node.name());
    desc.op = node.op()->str();
    desc.kernel = node.kernel()->str();
    desc.device = node.device() == plan::Device::FPGA ? "fpga" : "cpu";
    desc.placement_reason = Str(node.placement_reason());
    if (node.fused() != nullptr)
      for (const flatbuffers::String* f : *node.fused()) desc.fused.push_back(f->str());
    prepared.first_input = static_cast<uint32_t>(e->node_io.size());
    AddNodeTensors(p, node.inputs(), &e->node_io, &desc.inputs, &desc.input_dtypes, &desc.input_shapes);
    prepared.num_inputs = static_cast<uint32_t>(e->node_io.size()) - prepared.first_input;
    prepared.first_output = static_cast<uint32_t>(e->node_io.size());
    AddNodeTensors(p, node.outputs(), &e->node_io, &desc.outputs, &desc.output_dtypes, &desc.output_shapes);
    prepared.num_outputs = static_cast<uint32_t>(e->node_io.size()) - prepared.first_output;

    const KernelDef* def = registry.FindById(desc.kernel);
    if (def == nullptr || def->create == nullptr) {
      return Status::NotFound(prepared.label + ": kernel '" + desc.kernel + "' is not available in this engine");
    }
    const std::string domain = Str(node.domain());
    if (def->op != desc.op || def->domain != domain) {
      return Status::Corrupt(prepared.label + ": kernel '" + desc.kernel + "' implements " + def->op + ", not " +
                             desc.op);
    }
    KernelSetup setup;
    setup.node_name = prepared.name;
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
    prepared.kernel = def->create();
    if (prepared.kernel == nullptr) return Status::Internal(prepared.label + ": kernel factory returned null");
    const Status s = prepared.kernel->Prepare(setup);
    if (!s.ok()) return NodeError(s, prepared);

    e->nodes.push_back(std::move(prepared));
    e->node_descs.push_back(std::move(desc));
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
  return Load(path, KernelRegistry::Global(), out);
}

Status Engine::LoadFromBuffer(const void* data, size_t size, std::shared_ptr<const Engine>* out) {
  return LoadFromBuffer(data, size, KernelRegistry::Global(), out);
}

Status Engine::Load(const std::string& path, const KernelRegistry& registry, std::shared_ptr<const Engine>* out) {
  std::unique_ptr<PlanFile> file;
  RETURN_IF_ERROR(PlanFile::Open(path, &file));
  std::unique_ptr<EngineImpl> impl;
  const Status s = EngineImpl::Create(std::move(file), registry, &impl);
  if (!s.ok()) return s.WithContext("plan '" + path + "'");
  out->reset(new Engine(std::move(impl)));
  return Status::Ok();
}

Status Engine::LoadFromBuffer(const void* data, size_t size, const KernelRegistry& registry,
                              std::shared_ptr<const Engine>* out) {
  std::unique_ptr<PlanFile> file;
  RETURN_IF_ERROR(PlanFile::FromBuffer(data, size, &file));
  std::unique_ptr<EngineImpl> impl;
  RETURN_IF_ERROR(EngineImpl::Create(std::move(file), registry, &impl));
  out->reset(new Engine(std::move(impl)));
  return Status::Ok();
}

const std::vector<TensorDesc>& Engine::inputs() const { return impl_->inputs; }
const std::vector<TensorDesc>& Engine::outputs() const { return impl_->outputs; }
const std::vector<NodeDesc>& Engine::nodes() const { return impl_->node_descs; }
const PlanInfo& Engine::info() const { return impl_->info; }

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
