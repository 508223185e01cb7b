// Kernel lookup by stable id. Plans store a kernel id per node ("cpu.Conv");
// the builder finds the candidates for an op in preference order and keeps the
// first whose Prepare accepts the node. The registry is filled by explicit
// Register* calls (no static initializers): adding a kernel is one line in its
// group's register file.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/device.h"
#include "common/layout.h"
#include "kernels/common/kernel.h"

namespace loom {

using KernelFactory = std::unique_ptr<Kernel> (*)();

struct KernelDef {
  std::string id;      // stable, written into plans: "cpu.<Op>[.<variant>]"
  std::string op;      // ONNX op type it implements
  std::string domain;  // "" for the default ONNX domain
  Device device = Device::kCpu;
  KernelFactory create = nullptr;
  // Layouts the kernel reads and writes (LayoutBit mask). The builder and
  // the engine refuse a node whose tensors use another; CPU kernels take
  // row-major data.
  unsigned layouts = LayoutBit(Layout::kRowMajor);
  // False for a kernel that is only ever named by id (the CPU fallback of a
  // device node, which a plan names): FindByOp does not offer it.
  bool candidate = true;
};

class KernelRegistry {
 public:
  // Registers `create` under id "cpu.<op>" (plus ".<variant>" if given).
  void AddCpu(const char* op, KernelFactory create, const char* variant = nullptr,
              const char* domain = "");
  void Add(KernelDef def);

  const KernelDef* FindById(std::string_view id) const;
  // The candidate kernels for (op, domain), in registration (= preference) order.
  std::vector<const KernelDef*> FindByOp(std::string_view op, std::string_view domain = "") const;
  const std::vector<KernelDef>& all() const { return defs_; }

  // The process-wide registry with every built-in kernel, filled on first use
  // by RegisterBuiltinKernels.
  static const KernelRegistry& Global();

 private:
  std::vector<KernelDef> defs_;
};

// Adds the kernel groups of this build configuration. Defined by the one
// file of kernels/registration/ that the build links (kernels/common knows
// no group).
void RegisterBuiltinKernels(KernelRegistry* r);

template <typename K> std::unique_ptr<Kernel> MakeKernel() { return std::make_unique<K>(); }

}  // namespace loom
