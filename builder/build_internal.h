// The build with an explicit kernel registry and target, for tests that
// register fake kernels or devices. BuildPlan (builder.h) calls this with
// KernelRegistry::Global() and the target named in BuildOptions.
#pragma once

#include <string>
#include <vector>

#include "builder/builder.h"
#include "builder/place/target.h"
#include "kernels/common/registry.h"

namespace loom {

struct BuildEnvironment {
  const KernelRegistry* registry = &KernelRegistry::Global();
  // Overrides BuildOptions::target when set.
  const place::Target* target = nullptr;
};

Status BuildPlanIn(const BuildEnvironment& env, const std::string& onnx_path, const BuildOptions& options,
                   std::vector<uint8_t>* plan, BuildReport* report);

// Shorthands with only a registry.
Status BuildPlanWithRegistry(const std::string& onnx_path, const BuildOptions& options,
                             const KernelRegistry& registry, std::vector<uint8_t>* plan, BuildReport* report);

Status BuildPlanFileWithRegistry(const std::string& onnx_path, const std::string& plan_path,
                                 const BuildOptions& options, const KernelRegistry& registry, BuildReport* report);

}  // namespace loom
