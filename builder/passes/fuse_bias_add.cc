#include "builder/passes/fuse_bias_add.h"

#include <vector>

#include "builder/passes/match_util.h"

namespace loom {
namespace passes {

namespace {

bool IsAnchor(const ir::Node& n) {
  return n.domain.empty() && (n.op == "Conv" || n.op == "Gemm" || n.op == "MatMul") && n.outputs.size() == 1 &&
         n.inputs.size() >= 2 && !n.attrs.Has("loom.activation");
}

class FuseBiasAdd : public Pass {
 public:
  const char* name() const override { return "fuse_bias_add"; }
  int min_opt_level() const override { return 2; }

  Status Run(ir::Graph& g, PassContext&, int* changes) override {
    ir::UseLists uses = g.BuildUseLists();
    for (ir::Node& add : g.nodes()) {
      if (add.dead || add.op != "Add" || !add.domain.empty() || add.inputs.size() != 2 || add.outputs.size() != 1)
        continue;
      for (int side = 0; side < 2; ++side) {
        const int y = add.inputs[static_cast<size_t>(side)];
        const int c = add.inputs[static_cast<size_t>(1 - side)];
        if (y < 0 || c < 0 || y == c || add.outputs[0] < 0) continue;
        const int p = uses.producer[static_cast<size_t>(y)];
        if (p < 0 || SoleConsumer(g, uses, y, "Add") < 0) continue;
        ir::Node& anchor = g.node(p);
        if (anchor.dead || !IsAnchor(anchor)) continue;
        if (Fold(g, &anchor, add, c)) {
          add.dead = true;
          ++*changes;
          break;
        }
      }
    }
    return Status::Ok();
  }

 private:
  static bool Fold(ir::Graph& g, ir::Node* anchor, const ir::Node& add, int c) {
    const ir::Value& y = g.value(anchor->outputs[0]);
    const ir::Value& z = g.value(add.outputs[0]);
    if (!y.shape_known || !z.shape_known || y.shape != z.shape || y.dtype != DType::kFloat32 ||
        z.dtype != DType::kFloat32 || y.shape.size() < 2)
      return false;
    const bool conv = anchor->op == "Conv";
    if (conv && y.shape.size() < 3) return false;
    const size_t axis = conv ? 1 : y.shape.size() - 1;
    std::vector<double> bias;
    if (!PerChannelConst(g, c, y.shape, axis, &bias)) return false;
    const int64_t channels = y.shape[axis];

    ir::Node folded = *anchor;
    if (anchor->op == "MatMul") {
      const ir::Value& a = g.value(anchor->inputs[0]);
      const ir::Value& b = g.value(anchor->inputs[1]);
      if (!a.shape_known || !b.shape_known || a.shape.size() < 2 || b.shape.size() < 2) return false;
      if (anchor->attrs.size() == 0 && a.shape.size() == 2 && b.shape.size() == 2 && anchor->opset >= 11 &&
          anchor->inputs.size() == 2) {
        folded.op = "Gemm";  // alpha = beta = 1, no transposition
      }
    }
    // The bias already there: Conv's B, Gemm's beta * C, MatMul's Loom bias.
    const bool has_bias = anchor->inputs.size() > 2 && anchor->inputs[2] >= 0;
    if (has_bias) {
      std::vector<double> old;
      if (anchor->op == "Conv" || anchor->op == "MatMul") {
        const ir::Value& b = g.value(anchor->inputs[2]);
        if (b.shape.size() != 1 || !PerChannelConst(g, anchor->inputs[2], {channels}, 0, &old)) return false;
      } else if (!PerChannelConst(g, anchor->inputs[2], y.shape, axis, &old)) {
        return false;
      }
      const double beta = anchor->op == "Gemm" ? anchor->attrs.GetFloat("beta", 1.f) : 1.0;
      for (size_t i = 0; i < bias.size(); ++i) bias[i] += beta * old[i];
      if (anchor->op == "Gemm") folded.attrs.SetFloat("beta", 1.f);
    }
    std::shared_ptr<ir::Buffer> data = ir::Buffer::Allocate(static_cast<size_t>(channels) * sizeof(float));
    float* out = reinterpret_cast<float*>(data->mutable_data());
    for (size_t i = 0; i < bias.size(); ++i) out[i] = static_cast<float>(bias[i]);
    const std::string base = anchor->name.empty() ? add.name : anchor->name;
    const int bias_id = g.AddConstant(g.UniqueValueName(base + ".bias_add"), DType::kFloat32, {channels}, data);
    folded.inputs.resize(3, -1);
    folded.inputs[2] = bias_id;
    folded.outputs[0] = add.outputs[0];
    folded.fused.push_back("Add");
    *anchor = std::move(folded);
    return true;
  }
};

}  // namespace

std::unique_ptr<Pass> MakeFuseBiasAdd() { return std::make_unique<FuseBiasAdd>(); }

}  // namespace passes
}  // namespace loom
