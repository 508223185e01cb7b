// The build with an explicit kernel registry, for tests that register fake
// kernels. BuildPlan (builder.h) calls this with KernelRegistry::Global().
#pragma once

#include <string>
#include <vector>

#include "builder/builder.h"
#include "kernels/common/registry.h"

namespace loom {

Status BuildPlanWithRegistry(const std::string& onnx_path, const BuildOptions& options,
                             const KernelRegistry& registry, std::vector<uint8_t>* plan, BuildReport* report);

Status BuildPlanFileWithRegistry(const std::string& onnx_path, const std::string& plan_path,
                                 const BuildOptions& options, const KernelRegistry& registry, BuildReport* report);

}  // namespace loom
