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

#include "kernels/common/kernel.h"

namespace loom {

enum class Device { kCpu = 0, kFpga = 1 };
const char* DeviceName(Device d);

using KernelFactory = std::unique_ptr<Kernel> (*)();

struct KernelDef {
  std::string id;      // stable, written into plans: "cpu.<Op>[.<variant>]"
  std::string op;      // ONNX op type it implements
  std::string domain;  // "" for the default ONNX domain
  Device device = Device::kCpu;
  KernelFactory create = nullptr;
};

class KernelRegistry {
 public:
  // Registers `create` under id "cpu.<op>" (plus ".<variant>" if given).
  void AddCpu(const char* op, KernelFactory create, const char* variant = nullptr,
              const char* domain = "");
  void Add(KernelDef def);

  const KernelDef* FindById(std::string_view id) const;
  // All kernels for (op, domain), in registration (= preference) order.
  std::vector<const KernelDef*> FindByOp(std::string_view op, std::string_view domain = "") const;
  const std::vector<KernelDef>& all() const { return defs_; }

  // The process-wide registry with every built-in kernel, filled on first use.
  static const KernelRegistry& Global();

 private:
  std::vector<KernelDef> defs_;
};

template <typename K> std::unique_ptr<Kernel> MakeKernel() { return std::make_unique<K>(); }

}  // namespace loom
