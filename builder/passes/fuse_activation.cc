#include "builder/passes/fuse_activation.h"

#include <cmath>
#include <limits>

#include "builder/exec/kernel_choice.h"

namespace loom {
namespace passes {

namespace {

// An int8 Add is an anchor too: its output stage clamps like a Conv's (the
// float Add kernels have no epilogue, so a float Add never is).
bool IsAnchor(const ir::Graph& g, const ir::Node& n) {
  if (!n.domain.empty()) return false;
  if (n.op == "Add")
    return n.outputs.size() == 1 && n.outputs[0] >= 0 && g.value(n.outputs[0]).dtype == DType::kInt8 &&
           !g.value(n.outputs[0]).quant.empty();
  return n.op == "Conv" || n.op == "ConvTranspose" || n.op == "Gemm" || n.op == "MatMul";
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

bool Takes(const ir::Graph& g, const PassContext& ctx, const ir::Node& node, Device device) {
  return DeviceTakesNode(g, ctx, node, device);
}

bool EveryDeviceTakes(const ir::Graph& g, const PassContext& ctx, const ir::Node& anchor, const ir::Node& fused) {
  return EveryDeviceTakesFusion(g, ctx, anchor, fused);
}

class FuseActivation : public Pass {
 public:
  explicit FuseActivation(bool before_placement) : before_placement_(before_placement) {}
  const char* name() const override { return "fuse_activation"; }
  int min_opt_level() const override { return 2; }

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
      if (anchor.dead || !IsAnchor(g, anchor) || anchor.outputs.size() != 1 || anchor.attrs.Has("loom.activation"))
        continue;
      Attributes extra;
      if (!ActivationAttributes(g, act, &extra)) continue;

      ir::Node fused = anchor;
      for (const Attribute& a : extra.all()) fused.attrs.Set(a);
      fused.outputs[0] = act.outputs[0];
      fused.fused.push_back(act.op);
      // Before placement, only fusions every device of the anchor takes:
      // the placer then prices the pair as one node. After it, the anchor's
      // device runs both if its kernel takes the fusion: an activation
      // placed elsewhere (an accelerator without a Relu kernel leaves it on
      // the CPU) moves onto the anchor's device, which saves a node and a
      // hand-over between devices.
      if (before_placement_ ? !EveryDeviceTakes(g, ctx, anchor, fused) : !Takes(g, ctx, fused, anchor.device))
        continue;  // a kernel does not implement this fusion
      anchor = std::move(fused);
      act.dead = true;
      ++*changes;
    }
    return Status::Ok();
  }

 private:
  bool before_placement_;
};

}  // namespace

bool DeviceTakesNode(const ir::Graph& g, const PassContext& ctx, const ir::Node& node, Device device) {
  const DeviceConfig* config = ctx.ConfigFor(device);
  exec::ChosenKernel chosen;
  return config != nullptr &&
         exec::ChooseKernel(*ctx.registry, exec::MakeKernelSetup(g, node, config), device, &chosen).ok();
}

std::vector<Device> TargetDevices(const PassContext& ctx) {
  std::vector<Device> devices = {Device::kCpu};
  if (ctx.target != nullptr) {
    devices.clear();
    for (const place::TargetDevice& d : ctx.target->devices()) devices.push_back(d.device);
  }
  return devices;
}

bool EveryDeviceTakesFusion(const ir::Graph& g, const PassContext& ctx, const ir::Node& anchor,
                            const ir::Node& fused) {
  bool any = false;
  for (Device d : TargetDevices(ctx)) {
    if (!DeviceTakesNode(g, ctx, anchor, d)) continue;
    if (!DeviceTakesNode(g, ctx, fused, d)) return false;
    any = true;
  }
  return any;
}

std::unique_ptr<Pass> MakeFuseActivation(bool before_placement) {
  return std::make_unique<FuseActivation>(before_placement);
}

}  // namespace passes
}  // namespace loom
