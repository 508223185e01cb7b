#include "builder/exec/kernel_choice.h"

namespace loom {
namespace exec {

namespace {

// Unsupported when `def` does not take the layout of one of the node's tensors.
Status CheckLayouts(const KernelDef& def, const KernelSetup& setup) {
  auto check = [&](const std::vector<TensorInfo>& tensors, const char* what) {
    for (size_t i = 0; i < tensors.size(); ++i) {
      if (!tensors[i].present || (def.layouts & LayoutBit(tensors[i].layout))) continue;
      return setup.Unsupported(std::string("layout ") + LayoutName(tensors[i].layout) + " of " + what + " " +
                               std::to_string(i) + " (kernel '" + def.id + "')");
    }
    return Status::Ok();
  };
  RETURN_IF_ERROR(check(setup.inputs, "input"));
  return check(setup.outputs, "output");
}

}  // namespace

KernelSetup MakeKernelSetup(const ir::Graph& graph, const ir::Node& node, const DeviceConfig* device) {
  KernelSetup s;
  s.pack_constants = false;
  s.device_config = device;
  s.op = node.op;
  s.domain = node.domain;
  s.opset = node.opset;
  s.attrs = node.attrs;
  auto info = [&](int id) {
    TensorInfo t;
    if (id < 0) return t;
    const ir::Value& v = graph.value(id);
    t.present = true;
    t.dtype = v.dtype;
    t.shape = v.shape;
    t.layout = v.layout;
    t.quant = v.quant;
    if (v.data) t.const_data = v.data->data();
    return t;
  };
  for (int in : node.inputs) s.inputs.push_back(info(in));
  for (int out : node.outputs) s.outputs.push_back(info(out));
  return s;
}

Status PrepareNodeKernel(const ir::Graph& graph, const ir::Node& node, const KernelRegistry& registry,
                         bool pack_constants, PreparedNodeKernel* out) {
  out->def = registry.FindById(node.kernel_id);
  if (out->def == nullptr || out->def->create == nullptr)
    return Status::Internal(node.Label() + ": kernel '" + node.kernel_id + "' is not registered");
  out->setup = MakeKernelSetup(graph, node);
  out->setup.pack_constants = pack_constants;
  out->kernel = out->def->create();
  Status s = out->kernel->Prepare(out->setup);
  return s.ok() ? s : s.WithContext(node.Label());
}

Status FindCandidates(const KernelRegistry& registry, const KernelSetup& setup, Device device,
                      std::vector<const KernelDef*>* candidates) {
  candidates->clear();
  for (const KernelDef* d : registry.FindByOp(setup.op, setup.domain))
    if (d->device == device && d->create) candidates->push_back(d);
  if (!candidates->empty()) return Status::Ok();
  std::string what = "unsupported op '" + setup.op + "'";
  if (!setup.domain.empty()) what += " in domain '" + setup.domain + "'";
  if (device != Device::kCpu) what += std::string(" on ") + DeviceName(device);
  return Status::Unsupported(what);
}

Status ChooseKernel(const KernelRegistry& registry, const KernelSetup& setup, Device device, ChosenKernel* out) {
  std::vector<const KernelDef*> candidates;
  RETURN_IF_ERROR(FindCandidates(registry, setup, device, &candidates));
  Status first, generic;
  const std::string generic_id = std::string(DeviceName(device)) + "." + setup.op;
  for (const KernelDef* d : candidates) {
    Status s = CheckLayouts(*d, setup);
    std::unique_ptr<Kernel> k = d->create();
    if (!k) return Status::Internal("kernel factory of '" + d->id + "' returned null");
    if (s.ok()) s = k->Prepare(setup);
    if (s.ok()) {
      out->def = d;
      out->kernel = std::move(k);
      return s;
    }
    if (first.ok()) first = s;
    if (d->id == generic_id) generic = s;
  }
  return generic.ok() ? first : generic;
}

Status InferOutputShapes(const KernelRegistry& registry, const KernelSetup& setup, std::vector<Shape>* shapes) {
  std::vector<const KernelDef*> candidates;
  RETURN_IF_ERROR(FindCandidates(registry, setup, Device::kCpu, &candidates));
  Status first;
  for (const KernelDef* d : candidates) {
    std::unique_ptr<Kernel> k = d->create();
    if (!k) continue;
    shapes->clear();
    Status s = k->InferOutputShapes(setup, shapes);
    if (s.ok() && shapes->size() == setup.outputs.size()) return s;
    if (s.ok()) s = setup.Invalid("kernel '" + d->id + "' inferred " + std::to_string(shapes->size()) +
                                  " output shapes, expected " + std::to_string(setup.outputs.size()));
    if (first.ok()) first = s;
  }
  return first;
}

}  // namespace exec
}  // namespace loom
