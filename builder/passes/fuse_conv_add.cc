// Conv + residual Add as one Conv (fuse_conv_add.h).
#include "builder/passes/fuse_conv_add.h"

#include <utility>

#include "builder/passes/fuse_activation.h"

namespace loom {
namespace passes {
namespace {

bool IsFloatConv(const ir::Graph& g, const ir::Node& n) {
  if (n.dead || !n.domain.empty() || n.op != "Conv" || n.device != Device::kCpu) return false;
  if (n.inputs.size() < 2 || n.inputs.size() > 3 || n.outputs.size() != 1 || n.outputs[0] < 0) return false;
  if (n.attrs.Has("loom.activation") || n.attrs.Has("loom.residual")) return false;
  for (int in : n.inputs)
    if (in >= 0 && g.value(in).dtype != DType::kFloat32) return false;
  return g.value(n.outputs[0]).dtype == DType::kFloat32;
}

// Whether value `r` may join the Conv at node index `conv` as its residual.
bool ResidualFits(const ir::Graph& g, const ir::UseLists& uses, int r, int conv_out, int conv) {
  if (r < 0 || r == conv_out) return false;
  const ir::Value& rv = g.value(r);
  const ir::Value& cv = g.value(conv_out);
  if (rv.dtype != DType::kFloat32 || !rv.shape_known || !cv.shape_known || rv.shape != cv.shape) return false;
  if (rv.layout != Layout::kRowMajor || cv.layout != Layout::kRowMajor || rv.memory_space != cv.memory_space)
    return false;
  // Available where the Conv runs.
  const int producer = uses.producer[static_cast<size_t>(r)];
  if (producer < 0) return rv.is_constant() || g.IsGraphInput(r);
  return producer < conv;
}

class FuseConvAdd : public Pass {
 public:
  const char* name() const override { return "fuse_conv_add"; }
  int min_opt_level() const override { return 2; }

  Status Run(ir::Graph& g, PassContext& ctx, int* changes) override {
    ir::UseLists uses = g.BuildUseLists();
    for (ir::Node& add : g.nodes()) {
      if (add.dead || !add.domain.empty() || add.op != "Add" || add.device != Device::kCpu) continue;
      if (add.inputs.size() != 2 || add.outputs.size() != 1 || add.outputs[0] < 0) continue;
      const ir::Value& out = g.value(add.outputs[0]);
      if (out.dtype != DType::kFloat32) continue;
      for (int side = 0; side < 2; ++side) {
        const int c = add.inputs[static_cast<size_t>(side)], r = add.inputs[static_cast<size_t>(1 - side)];
        if (c < 0 || g.IsGraphOutput(c) || uses.consumers[static_cast<size_t>(c)].size() != 1) continue;
        const int p = uses.producer[static_cast<size_t>(c)];
        if (p < 0 || !IsFloatConv(g, g.node(p)) || g.value(c).shape != out.shape) continue;
        if (!ResidualFits(g, uses, r, c, p)) continue;
        ir::Node& conv = g.node(p);
        ir::Node fused = conv;
        fused.inputs.resize(3, -1);  // an absent bias keeps its slot
        fused.inputs.push_back(r);
        fused.attrs.SetInt("loom.residual", 1);
        fused.outputs[0] = add.outputs[0];
        fused.fused.push_back("Add");
        fused.predicted_ms += add.predicted_ms;
        if (!DeviceTakesNode(g, ctx, fused, Device::kCpu)) continue;
        conv = std::move(fused);
        add.dead = true;
        // The Add's output now comes from the Conv; the Conv's old output has no use left.
        uses.producer[static_cast<size_t>(add.outputs[0])] = p;
        ++*changes;
        break;
      }
    }
    return Status::Ok();
  }
};

}  // namespace

std::unique_ptr<Pass> MakeFuseConvAdd() { return std::make_unique<FuseConvAdd>(); }

}  // namespace passes
}  // namespace loom
