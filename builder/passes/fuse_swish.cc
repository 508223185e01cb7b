#include "builder/passes/fuse_swish.h"

#include <string>
#include <vector>

#include "builder/passes/fuse_activation.h"

namespace loom {
namespace passes {
namespace {

bool IsAnchor(const ir::Node& n) {
  return n.domain.empty() && n.outputs.size() == 1 &&
         (n.op == "Conv" || n.op == "ConvTranspose" || n.op == "Gemm" || n.op == "MatMul");
}

bool IsFloat32(const ir::Graph& g, int v) { return v >= 0 && g.value(v).dtype == DType::kFloat32; }

// Whether a device of the target other than the CPU takes `node`.
bool OtherDeviceTakes(const ir::Graph& g, const PassContext& ctx, const ir::Node& node) {
  for (Device d : TargetDevices(ctx))
    if (d != Device::kCpu && DeviceTakesNode(g, ctx, node, d)) return true;
  return false;
}

class FuseSwish : public Pass {
 public:
  explicit FuseSwish(bool before_placement) : before_placement_(before_placement) {}
  const char* name() const override { return "fuse_swish"; }
  int min_opt_level() const override { return 2; }

  Status Run(ir::Graph& g, PassContext& ctx, int* changes) override {
    ir::UseLists uses = g.BuildUseLists();
    for (size_t mi = 0; mi < g.nodes().size(); ++mi) {
      ir::Node& mul = g.node(static_cast<int>(mi));
      if (mul.dead || mul.op != "Mul" || !mul.domain.empty() || mul.inputs.size() != 2 || mul.outputs.size() != 1 ||
          !IsFloat32(g, mul.outputs[0]))
        continue;
      int sig_index = -1, x = -1;
      for (int k = 0; k < 2 && sig_index < 0; ++k) {
        const int s = mul.inputs[k], other = mul.inputs[1 - k];
        if (s < 0 || other < 0 || s == other) continue;
        const int p = uses.producer[static_cast<size_t>(s)];
        if (p < 0) continue;
        const ir::Node& sig = g.node(p);
        if (sig.dead || sig.op != "Sigmoid" || !sig.domain.empty() || sig.inputs.size() != 1 ||
            sig.inputs[0] != other || sig.outputs.size() != 1)
          continue;
        if (uses.consumers[static_cast<size_t>(s)].size() != 1 || g.IsGraphOutput(s)) continue;
        if (!IsFloat32(g, other) || !IsFloat32(g, s)) continue;
        sig_index = p;
        x = other;
      }
      if (sig_index < 0) continue;
      ir::Node& sig = g.node(sig_index);

      // Into the anchor producing x.
      const int p = uses.producer[static_cast<size_t>(x)];
      if (p >= 0 && IsAnchor(g.node(p)) && !g.node(p).dead) {
        ir::Node& anchor = g.node(p);
        const std::vector<int>& xc = uses.consumers[static_cast<size_t>(x)];
        const bool only_pair = xc.size() == 2 && ((xc[0] == sig_index && xc[1] == static_cast<int>(mi)) ||
                                                  (xc[1] == sig_index && xc[0] == static_cast<int>(mi)));
        if (only_pair && !g.IsGraphOutput(x) && !anchor.attrs.Has("loom.activation")) {
          ir::Node fused = anchor;
          fused.attrs.SetString("loom.activation", "Swish");
          fused.outputs[0] = mul.outputs[0];
          fused.fused.push_back("Sigmoid");
          fused.fused.push_back("Mul");
          if (before_placement_ ? EveryDeviceTakesFusion(g, ctx, anchor, fused)
                                : DeviceTakesNode(g, ctx, fused, anchor.device)) {
            anchor = std::move(fused);
            sig.dead = true;
            mul.dead = true;
            ++*changes;
            continue;
          }
        }
        // An anchor another device may run (an accelerator) keeps its graph.
        if (before_placement_ ? OtherDeviceTakes(g, ctx, anchor) : anchor.device != Device::kCpu) continue;
      }

      // One elementwise node.
      ir::Node swish;
      swish.name = mul.name;
      swish.op = "Swish";
      swish.domain = "loom";
      swish.opset = 1;
      swish.attrs.SetFloat("alpha", 1.f);
      swish.inputs = {x};
      swish.outputs = {mul.outputs[0]};
      swish.fused = {"Sigmoid", "Mul"};
      swish.device = Device::kCpu;
      if (before_placement_) {
        if (OtherDeviceTakes(g, ctx, sig) || OtherDeviceTakes(g, ctx, mul)) continue;
      } else if (sig.device != Device::kCpu || mul.device != Device::kCpu) {
        continue;
      }
      if (!DeviceTakesNode(g, ctx, swish, Device::kCpu)) continue;
      if (!before_placement_) swish.placement_reason = mul.placement_reason;
      mul = std::move(swish);
      sig.dead = true;
      ++*changes;
    }
    return Status::Ok();
  }

 private:
  bool before_placement_;
};

}  // namespace

std::unique_ptr<Pass> MakeFuseSwish(bool before_placement) { return std::make_unique<FuseSwish>(before_placement); }

}  // namespace passes
}  // namespace loom
