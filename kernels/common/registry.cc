#include "kernels/common/registry.h"

namespace loom {

void KernelRegistry::AddCpu(const char* op, KernelFactory create, const char* variant, const char* domain) {
  KernelDef def;
  def.id = std::string("cpu.") + op;
  if (variant) def.id += std::string(".") + variant;
  def.op = op;
  def.domain = domain ? domain : "";
  def.device = Device::kCpu;
  def.create = create;
  Add(std::move(def));
}

void KernelRegistry::Add(KernelDef def) { defs_.push_back(std::move(def)); }

const KernelDef* KernelRegistry::FindById(std::string_view id) const {
  for (const KernelDef& d : defs_)
    if (d.id == id) return &d;
  return nullptr;
}

std::vector<const KernelDef*> KernelRegistry::FindByOp(std::string_view op, std::string_view domain) const {
  std::vector<const KernelDef*> out;
  for (const KernelDef& d : defs_)
    if (d.op == op && d.domain == domain && d.candidate) out.push_back(&d);
  return out;
}

const KernelRegistry& KernelRegistry::Global() {
  static const KernelRegistry* registry = [] {
    auto* r = new KernelRegistry();
    RegisterBuiltinKernels(r);
    return r;
  }();
  return *registry;
}

}  // namespace loom
