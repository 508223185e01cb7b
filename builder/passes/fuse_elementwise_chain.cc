#include "builder/passes/fuse_elementwise_chain.h"

#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "builder/exec/kernel_choice.h"
#include "builder/passes/fuse_activation.h"
#include "builder/passes/match_util.h"
#include "kernels/cpu/math/elementwise_chain.h"

namespace loom {
namespace passes {
namespace {

// One node as a step of the chain (the kernel's encoding, with a value id for
// a tensor operand).
struct ChainStep {
  int operand = -1;  // value id of a tensor operand; -1 for none or the scalar params[0]
  bool swapped = false;
  float params[2] = {0.f, 0.f};
};

bool IsRowMajorFloat(const ir::Graph& g, int v) {
  if (v < 0) return false;
  const ir::Value& value = g.value(v);
  return value.dtype == DType::kFloat32 && value.shape_known && value.layout == Layout::kRowMajor;
}

bool IsBinaryStep(const ir::Node& n) { return n.domain.empty() && math::IsChainBinaryOp(n.op); }

// Clip's bounds (+-inf when absent), if they are constant.
bool ClipBounds(const ir::Graph& g, const ir::Node& n, float bounds[2]) {
  const float inf = std::numeric_limits<float>::infinity();
  if (n.opset < 11) {
    bounds[0] = n.attrs.GetFloat("min", -inf);
    bounds[1] = n.attrs.GetFloat("max", inf);
    return n.inputs.size() == 1;
  }
  bounds[0] = -inf;
  bounds[1] = inf;
  for (size_t b = 1; b < n.inputs.size(); ++b)
    if (b > 2 || (n.inputs[b] >= 0 && !ScalarConst(g, n.inputs[b], &bounds[b - 1]))) return false;
  return true;
}

// Whether CPU node `n` can be a step reading chain value `x`.
bool AsStep(const ir::Graph& g, const ir::Node& n, int x, ChainStep* step) {
  if (n.dead || n.device != Device::kCpu || n.outputs.size() != 1 || n.inputs.empty()) return false;
  const int y = n.outputs[0];
  if (!IsRowMajorFloat(g, x) || !IsRowMajorFloat(g, y) || g.value(y).shape != g.value(x).shape) return false;
  if (IsBinaryStep(n)) {
    if (n.inputs.size() != 2) return false;
    const int side = n.inputs[0] == x ? 0 : 1;
    const int other = n.inputs[static_cast<size_t>(1 - side)];
    if (n.inputs[static_cast<size_t>(side)] != x || other == x || !IsRowMajorFloat(g, other)) return false;
    int64_t channels = 0, inner = 0;
    if (math::ClassifyChainOperand(g.value(other).shape, g.value(x).shape, &channels, &inner) ==
        math::ChainOperand::kNone)
      return false;
    step->swapped = side == 1;
    if (!ScalarConst(g, other, &step->params[0])) step->operand = other;
    return true;
  }
  if (n.inputs[0] != x) return false;
  if (n.domain.empty() && n.op == "Clip") return ClipBounds(g, n, step->params);
  if (n.inputs.size() != 1 || !(n.domain.empty() || (n.domain == "loom" && n.op == "Swish"))) return false;
  return math::ChainUnaryParams(exec::MakeKernelSetup(g, n), step->params).ok();
}

// The chain's X when node `n` starts it: a unary node's input; for a binary
// node, a computed input of its output's shape (the left one if both are).
int ChainInput(const ir::Graph& g, const ir::Node& n) {
  if (n.inputs.empty() || n.outputs.size() != 1 || n.outputs[0] < 0) return -1;
  if (!IsBinaryStep(n)) return n.inputs[0];
  for (int v : n.inputs) {
    if (v >= 0 && !g.value(v).is_constant() && g.value(v).shape == g.value(n.outputs[0]).shape) return v;
  }
  return -1;
}

ir::Node MakeChainNode(const ir::Graph& g, int x, const std::vector<int>& nodes, const std::vector<ChainStep>& steps) {
  const ir::Node& tail = g.node(nodes.back());
  ir::Node chain;
  chain.name = tail.name;
  chain.op = "ElementwiseChain";
  chain.domain = "loom";
  chain.opset = 1;
  chain.inputs = {x};
  chain.outputs = tail.outputs;
  chain.device = Device::kCpu;
  chain.placement_reason = tail.placement_reason;
  Attribute ops;
  ops.name = "steps";
  ops.kind = Attribute::Kind::kStrings;
  std::vector<int64_t> operands, swapped;
  std::vector<float> params;
  for (size_t i = 0; i < nodes.size(); ++i) {
    const ir::Node& n = g.node(nodes[i]);
    const ChainStep& s = steps[i];
    int64_t k = 0;
    if (s.operand >= 0) {  // an input of its own, shared by steps reading the same value (never X's slot)
      for (size_t j = 1; j < chain.inputs.size() && k == 0; ++j)
        if (chain.inputs[j] == s.operand) k = static_cast<int64_t>(j);
      if (k == 0) {
        k = static_cast<int64_t>(chain.inputs.size());
        chain.inputs.push_back(s.operand);
      }
    }
    ops.strings.push_back(n.op);
    operands.push_back(k);
    swapped.push_back(s.swapped ? 1 : 0);
    params.insert(params.end(), {s.params[0], s.params[1]});
    if (n.fused.empty()) {
      chain.fused.push_back(n.op);
    } else {
      chain.fused.insert(chain.fused.end(), n.fused.begin(), n.fused.end());
    }
    chain.predicted_ms += n.predicted_ms;
  }
  chain.attrs.Set(std::move(ops));
  chain.attrs.SetInts("operands", std::move(operands));
  chain.attrs.SetInts("swapped", std::move(swapped));
  chain.attrs.SetFloats("params", std::move(params));
  return chain;
}

class FuseElementwiseChain : public Pass {
 public:
  const char* name() const override { return "fuse_elementwise_chain"; }
  int min_opt_level() const override { return 3; }

  Status Run(ir::Graph& g, PassContext& ctx, int* changes) override {
    const ir::UseLists uses = g.BuildUseLists();
    for (size_t i = 0; i < g.nodes().size(); ++i) {
      const int x = ChainInput(g, g.node(static_cast<int>(i)));
      ChainStep first;
      if (x < 0 || !AsStep(g, g.node(static_cast<int>(i)), x, &first)) continue;
      std::vector<int> nodes = {static_cast<int>(i)};
      std::vector<ChainStep> steps = {first};
      // Nodes are in execution order: a chain grows forward from its first node.
      for (;;) {
        const int value = g.node(nodes.back()).outputs[0];
        const std::vector<int>& consumers = uses.consumers[static_cast<size_t>(value)];
        ChainStep step;
        if (g.IsGraphOutput(value) || consumers.size() != 1 || !AsStep(g, g.node(consumers[0]), value, &step)) break;
        nodes.push_back(consumers[0]);
        steps.push_back(step);
      }
      if (nodes.size() < 2) continue;
      ir::Node chain = MakeChainNode(g, x, nodes, steps);
      if (!DeviceTakesNode(g, ctx, chain, Device::kCpu)) continue;
      // The last node's place: every operand is computed by then.
      g.node(nodes.back()) = std::move(chain);
      for (size_t j = 0; j + 1 < nodes.size(); ++j) g.node(nodes[j]).dead = true;
      *changes += static_cast<int>(nodes.size());
    }
    return Status::Ok();
  }
};

}  // namespace

std::unique_ptr<Pass> MakeFuseElementwiseChain() { return std::make_unique<FuseElementwiseChain>(); }

}  // namespace passes
}  // namespace loom
