// A per-channel Mul folded into the 1x1 ConvNchwc after it (fold_channel_scale.h).
#include "builder/passes/fold_channel_scale.h"

#include <utility>

#include "builder/passes/fuse_activation.h"

namespace loom {
namespace passes {
namespace {

bool IsFloat(const ir::Graph& g, int v) {
  return v >= 0 && g.value(v).dtype == DType::kFloat32 && g.value(v).shape_known;
}

// Whether s [N, Cb, 1, 1, 8] scales x [N, Cb, H, W, 8] channel by channel.
bool IsChannelScale(const Shape& s, const Shape& x) {
  return x.size() == 5 && s.size() == 5 && s[0] == x[0] && s[1] == x[1] && s[2] == 1 && s[3] == 1 && s[4] == x[4] &&
         x[2] * x[3] > 1;
}

// The 1x1 ConvNchwc on the CPU that may take a scale of its input.
bool IsPointwiseConv(const ir::Graph& g, const ir::Node& n) {
  if (n.dead || n.domain != "loom" || n.op != "ConvNchwc" || n.device != Device::kCpu) return false;
  if (n.inputs.size() < 2 || n.inputs.size() > 4 || n.attrs.Has("loom.input_scale")) return false;
  const int w = n.inputs[1];
  if (w < 0 || !g.value(w).is_constant()) return false;
  const Shape& ws = g.value(w).shape;
  return ws.size() == 6 && ws[2] == 1 && ws[3] == 1;
}

class FoldChannelScale : public Pass {
 public:
  const char* name() const override { return "fold_channel_scale"; }
  int min_opt_level() const override { return 3; }

  Status Run(ir::Graph& g, PassContext& ctx, int* changes) override {
    const ir::UseLists uses = g.BuildUseLists();
    for (ir::Node& mul : g.nodes()) {
      if (mul.dead || !mul.domain.empty() || mul.op != "Mul" || mul.device != Device::kCpu) continue;
      if (mul.inputs.size() != 2 || mul.outputs.size() != 1 || !IsFloat(g, mul.outputs[0])) continue;
      const int out = mul.outputs[0];
      if (g.IsGraphOutput(out) || uses.consumers[static_cast<size_t>(out)].size() != 1) continue;
      ir::Node& conv = g.node(uses.consumers[static_cast<size_t>(out)][0]);
      if (!IsPointwiseConv(g, conv) || conv.inputs[0] != out) continue;
      for (int side = 0; side < 2; ++side) {
        const int x = mul.inputs[static_cast<size_t>(side)], s = mul.inputs[static_cast<size_t>(1 - side)];
        if (!IsFloat(g, x) || !IsFloat(g, s)) continue;
        const Shape& xs = g.value(x).shape;
        if (xs != g.value(out).shape || !IsChannelScale(g.value(s).shape, xs)) continue;
        const int64_t cout = g.value(conv.inputs[1]).shape[0] * g.value(conv.inputs[1]).shape[5];
        if (cout >= xs[2] * xs[3]) continue;  // scaling the weights would cost more than the Mul
        ir::Node folded = conv;
        folded.inputs[0] = x;
        folded.inputs.resize(4, -1);  // absent bias and residual keep their slots
        folded.inputs.push_back(s);
        folded.attrs.SetInt("loom.input_scale", 1);
        folded.fused.push_back("Mul");
        folded.predicted_ms += mul.predicted_ms;
        if (!DeviceTakesNode(g, ctx, folded, Device::kCpu)) continue;
        conv = std::move(folded);
        mul.dead = true;
        ++*changes;
        break;
      }
    }
    return Status::Ok();
  }
};

}  // namespace

std::unique_ptr<Pass> MakeFoldChannelScale() { return std::make_unique<FoldChannelScale>(); }

}  // namespace passes
}  // namespace loom
