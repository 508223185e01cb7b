#include "builder/passes/fuse_layer_norm.h"

#include <vector>

#include "builder/passes/match_util.h"

namespace loom {
namespace passes {

namespace {

// A ReduceMean over the last axis of a rank-`rank` input that keeps dims.
bool MeanOverLastAxis(const ir::Node& n, size_t rank) {
  if (n.dead || n.op != "ReduceMean" || !n.domain.empty() || n.inputs.size() != 1 || n.outputs.size() != 1)
    return false;
  if (n.attrs.GetInt("keepdims", 1) != 1) return false;
  const std::vector<int64_t> axes = n.attrs.GetInts("axes", {});
  return axes.size() == 1 && (axes[0] == -1 || axes[0] == static_cast<int64_t>(rank) - 1);
}

// A float32 constant that broadcasts over the last axis (c values) only.
bool LastAxisConst(const ir::Graph& g, int id, int64_t c) {
  if (id < 0) return false;
  const ir::Value& v = g.value(id);
  if (!v.is_constant() || v.dtype != DType::kFloat32) return false;
  const int64_t n = NumElements(v.shape);
  if (n == 1) return true;
  if (n != c || v.shape.empty() || v.shape.back() != c) return false;
  for (size_t i = 0; i + 1 < v.shape.size(); ++i)
    if (v.shape[i] != 1) return false;
  return true;
}

class FuseLayerNorm : public Pass {
 public:
  const char* name() const override { return "fuse_layer_norm"; }
  int min_opt_level() const override { return 3; }

  Status Run(ir::Graph& g, PassContext&, int* changes) override {
    const ir::UseLists uses = g.BuildUseLists();
    const size_t count = g.nodes().size();
    for (size_t i = 0; i < count; ++i) {
      std::vector<int> chain;  // the nodes replaced, in order
      ir::Node fused;
      if (!Match(g, uses, static_cast<int>(i), &chain, &fused)) continue;
      for (int n : chain) g.node(n).dead = true;
      // The new node takes the place of the last one: its inputs (x and the
      // constants) are all available there.
      g.node(chain.back()) = std::move(fused);
      ++*changes;
    }
    return Status::Ok();
  }

 private:
  static bool Match(ir::Graph& g, const ir::UseLists& uses, int mean_node, std::vector<int>* chain, ir::Node* fused) {
    const ir::Node& mean = g.node(mean_node);
    if (mean.inputs.empty() || mean.inputs[0] < 0) return false;
    const int x = mean.inputs[0];
    const ir::Value& xv = g.value(x);
    if (xv.dtype != DType::kFloat32 || !xv.shape_known || xv.shape.empty() || xv.shape.back() <= 0) return false;
    if (!MeanOverLastAxis(mean, xv.shape.size()) || mean.outputs[0] < 0) return false;
    const int64_t c = xv.shape.back();

    const int sub = SoleConsumer(g, uses, mean.outputs[0], "Sub");
    if (sub < 0 || g.node(sub).inputs.size() != 2 || g.node(sub).inputs[0] != x) return false;
    const int d = g.node(sub).outputs[0];
    // d feeds the square and the division, nothing else.
    if (g.IsGraphOutput(d) || uses.consumers[static_cast<size_t>(d)].size() != 2) return false;
    int square = -1, div = -1;
    for (int n : uses.consumers[static_cast<size_t>(d)]) {
      const ir::Node& node = g.node(n);
      float exponent = 0;
      if (node.op == "Pow" && node.inputs.size() == 2 && node.inputs[0] == d &&
          ScalarConst(g, node.inputs[1], &exponent) && exponent == 2.f)
        square = n;
      else if (node.op == "Div" && node.inputs.size() == 2 && node.inputs[0] == d)
        div = n;
    }
    if (square < 0 || div < 0 || g.node(square).outputs.size() != 1) return false;
    const int var = SoleConsumer(g, uses, g.node(square).outputs[0], "ReduceMean");
    if (var < 0 || !MeanOverLastAxis(g.node(var), xv.shape.size())) return false;
    const int add_eps = SoleConsumer(g, uses, g.node(var).outputs[0], "Add");
    float epsilon = 0;
    if (add_eps < 0 || !ScalarConst(g, OtherInput(g.node(add_eps), g.node(var).outputs[0]), &epsilon) || epsilon < 0)
      return false;
    const int sqrt = SoleConsumer(g, uses, g.node(add_eps).outputs[0], "Sqrt");
    if (sqrt < 0 || g.node(div).inputs[1] != g.node(sqrt).outputs[0] ||
        uses.consumers[static_cast<size_t>(g.node(sqrt).outputs[0])].size() != 1)
      return false;
    *chain = {mean_node, sub, square, var, add_eps, sqrt, div};

    // Optional scale, then optional bias.
    int y = g.node(div).outputs[0];
    int scale = -1, bias = -1;
    const int mul = SoleConsumer(g, uses, y, "Mul");
    if (mul >= 0 && LastAxisConst(g, OtherInput(g.node(mul), y), c)) {
      scale = OtherInput(g.node(mul), y);
      chain->push_back(mul);
      y = g.node(mul).outputs[0];
      const int add = SoleConsumer(g, uses, y, "Add");
      if (add >= 0 && LastAxisConst(g, OtherInput(g.node(add), y), c)) {
        bias = OtherInput(g.node(add), y);
        chain->push_back(add);
        y = g.node(add).outputs[0];
      }
    }
    if (g.value(y).shape != xv.shape) return false;  // a constant broadcast the output up
    if (scale < 0) {
      const std::vector<float> ones(static_cast<size_t>(c), 1.f);
      scale = g.AddConstant(g.UniqueValueName(g.value(x).name + "_layer_norm_scale"), DType::kFloat32, {c},
                            ir::Buffer::CopyOf(ones.data(), ones.size() * sizeof(float)));
    }
    fused->name = g.node(chain->back()).name;
    fused->op = "LayerNormalization";
    fused->opset = 17;
    fused->attrs.SetInt("axis", -1);
    fused->attrs.SetFloat("epsilon", epsilon);
    fused->inputs = {x, scale};
    if (bias >= 0) fused->inputs.push_back(bias);
    fused->outputs = {y};
    fused->fused = {"ReduceMean", "Sub", "Pow", "ReduceMean", "Add", "Sqrt", "Div"};
    return true;
  }
};

}  // namespace

std::unique_ptr<Pass> MakeFuseLayerNorm() { return std::make_unique<FuseLayerNorm>(); }

}  // namespace passes
}  // namespace loom
