#include "builder/passes/fuse_activation.h"

#include <cmath>
#include <limits>

#include "builder/exec/kernel_choice.h"

namespace loom {
namespace passes {

namespace {

bool IsAnchor(const ir::Node& n) {
  return n.domain.empty() && (n.op == "Conv" || n.op == "ConvTranspose" || n.op == "Gemm" || n.op == "MatMul");
}

bool IsActivation(const ir::Node& n) {
  static const char* const kOps[] = {"Relu", "Clip", "LeakyRelu", "Sigmoid", "HardSigmoid", "HardSwish", "Tanh"};
  if (!n.domain.empty()) return false;
  for (const char* op : kOps)
    if (n.op == op) return true;
  return false;
}

// Reads an optional constant float32 scalar Clip bound; false if not constant.
bool ClipBound(const ir::Graph& g, const ir::Node& n, size_t input, float* value) {
  if (n.inputs.size() <= input || n.inputs[input] < 0) return true;
  const ir::Value& v = g.value(n.inputs[input]);
  if (!v.is_constant() || v.dtype != DType::kFloat32 || NumElements(v.shape) != 1) return false;
  *value = v.data->as<float>()[0];
  return true;
}

// The Loom attributes describing activation `act`; false if it cannot fuse.
bool ActivationAttributes(const ir::Graph& g, const ir::Node& act, Attributes* out) {
  out->SetString("loom.activation", act.op);
  if (act.op == "Clip") {
    const float inf = std::numeric_limits<float>::infinity();
    float lo = -inf, hi = inf;
    if (act.opset < 11) {
      lo = act.attrs.GetFloat("min", -inf);
      hi = act.attrs.GetFloat("max", inf);
    } else if (!ClipBound(g, act, 1, &lo) || !ClipBound(g, act, 2, &hi)) {
      return false;
    }
    if (std::isnan(lo) || std::isnan(hi)) return false;
    if (lo > std::numeric_limits<float>::lowest()) out->SetFloat("loom.activation_min", lo);
    if (hi < std::numeric_limits<float>::max()) out->SetFloat("loom.activation_max", hi);
  } else if (act.op == "LeakyRelu") {
    out->SetFloat("loom.activation_alpha", act.attrs.GetFloat("alpha", 0.01f));
  } else if (act.op == "HardSigmoid") {
    out->SetFloat("loom.activation_alpha", act.attrs.GetFloat("alpha", 0.2f));
    out->SetFloat("loom.activation_beta", act.attrs.GetFloat("beta", 0.5f));
  }
  return true;
}

class FuseActivation : public Pass {
 public:
  const char* name() const override { return "fuse_activation"; }

  Status Run(ir::Graph& g, PassContext& ctx, int* changes) override {
    ir::UseLists uses = g.BuildUseLists();
    for (ir::Node& act : g.nodes()) {
      if (act.dead || !IsActivation(act) || act.inputs.empty() || act.outputs.size() != 1) continue;
      const int x = act.inputs[0];
      if (x < 0 || act.outputs[0] < 0 || uses.consumers[static_cast<size_t>(x)].size() != 1 || g.IsGraphOutput(x))
        continue;
      // Float, or int8 whose output parameters the anchor then writes.
      const ir::Value& xv = g.value(x);
      if (!IsFloatingPoint(xv.dtype) && !(xv.dtype == DType::kInt8 && !xv.quant.empty())) continue;
      const int p = uses.producer[static_cast<size_t>(x)];
      if (p < 0) continue;
      ir::Node& anchor = g.node(p);
      if (anchor.dead || !IsAnchor(anchor) || anchor.outputs.size() != 1 || anchor.attrs.Has("loom.activation"))
        continue;
      // The anchor's device runs both, if its kernel takes the fusion: an
      // activation placed elsewhere (an accelerator without a Relu kernel
      // leaves it on the CPU) moves onto the anchor's device, which saves
      // a node and a hand-over between devices.
      const DeviceConfig* device = ctx.ConfigFor(anchor.device);
      if (device == nullptr) continue;
      Attributes extra;
      if (!ActivationAttributes(g, act, &extra)) continue;

      ir::Node fused = anchor;
      for (const Attribute& a : extra.all()) fused.attrs.Set(a);
      fused.outputs[0] = act.outputs[0];
      fused.fused.push_back(act.op);
      exec::ChosenKernel chosen;
      if (!exec::ChooseKernel(*ctx.registry, exec::MakeKernelSetup(g, fused, device), anchor.device, &chosen).ok())
        continue;  // the device's kernel does not implement this fusion
      anchor = std::move(fused);
      act.dead = true;
      ++*changes;
    }
    return Status::Ok();
  }
};

}  // namespace

std::unique_ptr<Pass> MakeFuseActivation() { return std::make_unique<FuseActivation>(); }

}  // namespace passes
}  // namespace loom
