// Kernel lookup for a node while building: the registry lists the candidates
// for (op, domain) in preference order; the first whose Prepare accepts the
// node's KernelSetup is chosen. Used by placement, constant folding and shape
// completion, so they all agree on which implementation runs a node.
//
// Errors are bare, as kernels return them ("unsupported op 'Foo'", "weight has
// 3 dims, expected 4"): the caller adds the node's label (ir::Node::Label()).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "builder/ir/graph.h"
#include "common/status.h"
#include "kernels/common/kernel.h"
#include "kernels/common/registry.h"

namespace loom {
namespace exec {

// The node as its kernel sees it: dtypes, shapes (possibly unknown = empty
// for values with shape_known false), layouts, attributes and const_data
// pointers into the constants' buffers (valid while the graph's values live),
// prepared for the device configured by `device` (null: the CPU). Its
// pack_constants is false: a kernel chosen with it only says whether it takes
// the node (EvaluateNode, which runs kernels, sets it back to true).
KernelSetup MakeKernelSetup(const ir::Graph& graph, const ir::Node& node, const DeviceConfig* device = nullptr);

// A CPU node's kernel as the graph names it (ir::Node::kernel_id), created
// and prepared with the node's setup and `pack_constants`.
struct PreparedNodeKernel {
  const KernelDef* def = nullptr;
  KernelSetup setup;
  std::unique_ptr<Kernel> kernel;
};

// Errors name the node (an unregistered kernel id, the kernel's refusal).
Status PrepareNodeKernel(const ir::Graph& graph, const ir::Node& node, const KernelRegistry& registry,
                         bool pack_constants, PreparedNodeKernel* out);

struct ChosenKernel {
  const KernelDef* def = nullptr;
  std::unique_ptr<Kernel> kernel;  // prepared with the setup it was chosen for
};

// Candidates of `device` for the node's op. When none exists the error reads
// "unsupported op 'Foo'".
Status FindCandidates(const KernelRegistry& registry, const KernelSetup& setup, Device device,
                      std::vector<const KernelDef*>* candidates);

// Prepares candidates in order and keeps the first that accepts (a candidate
// whose KernelDef::layouts lacks a layout of the node's tensors refuses
// without being prepared). If all refuse, returns the refusal of the generic
// kernel ("<device>.<Op>") if there is one, else the first candidate's.
Status ChooseKernel(const KernelRegistry& registry, const KernelSetup& setup, Device device, ChosenKernel* out);

// Output shapes from the first candidate whose InferOutputShapes succeeds.
Status InferOutputShapes(const KernelRegistry& registry, const KernelSetup& setup, std::vector<Shape>* shapes);

}  // namespace exec
}  // namespace loom
