#include "builder/passes/fold_scale_into_conv.h"

#include <vector>

#include "builder/passes/match_util.h"

namespace loom {
namespace passes {

namespace {

bool IsConstFloat(const ir::Graph& g, int id) {
  return id >= 0 && g.value(id).is_constant() && g.value(id).dtype == DType::kFloat32;
}

bool IsAnchor(const ir::Node& n) {
  return n.domain.empty() && (n.op == "Conv" || n.op == "Gemm" || n.op == "MatMul") && n.outputs.size() == 1 &&
         n.inputs.size() >= 2 && !n.attrs.Has("loom.activation");
}

// A float32 constant holding `values`, of `shape`.
int AddFloats(ir::Graph& g, const std::string& name, const Shape& shape, const std::vector<double>& values) {
  std::shared_ptr<ir::Buffer> data = ir::Buffer::Allocate(values.size() * sizeof(float));
  float* out = reinterpret_cast<float*>(data->mutable_data());
  for (size_t i = 0; i < values.size(); ++i) out[i] = static_cast<float>(values[i]);
  return g.AddConstant(g.UniqueValueName(name), DType::kFloat32, shape, data);
}

class FoldScaleIntoConv : public Pass {
 public:
  const char* name() const override { return "fold_scale_into_conv"; }
  int min_opt_level() const override { return 2; }

  Status Run(ir::Graph& g, PassContext&, int* changes) override {
    ir::UseLists uses = g.BuildUseLists();
    for (ir::Node& mul : g.nodes()) {
      if (mul.dead || mul.op != "Mul" || !mul.domain.empty() || mul.inputs.size() != 2 || mul.outputs.size() != 1 ||
          mul.outputs[0] < 0)
        continue;
      for (int side = 0; side < 2; ++side) {
        const int y = mul.inputs[static_cast<size_t>(side)];
        const int s = mul.inputs[static_cast<size_t>(1 - side)];
        if (y < 0 || s < 0 || y == s) continue;
        const int p = uses.producer[static_cast<size_t>(y)];
        if (p < 0 || SoleConsumer(g, uses, y, "Mul") < 0) continue;
        ir::Node& anchor = g.node(p);
        if (anchor.dead || !IsAnchor(anchor)) continue;
        if (Fold(g, &anchor, mul, s)) {
          mul.dead = true;
          ++*changes;
          break;
        }
      }
    }
    return Status::Ok();
  }

 private:
  static bool Fold(ir::Graph& g, ir::Node* anchor, const ir::Node& mul, int s_id) {
    const Shape y_shape = g.value(anchor->outputs[0]).shape;
    const ir::Value& z = g.value(mul.outputs[0]);
    if (!g.value(anchor->outputs[0]).shape_known || !z.shape_known || z.shape != y_shape ||
        g.value(anchor->outputs[0]).dtype != DType::kFloat32 || z.dtype != DType::kFloat32 || y_shape.size() < 2)
      return false;
    const bool conv = anchor->op == "Conv";
    if (conv && y_shape.size() < 3) return false;
    const size_t axis = conv ? 1 : y_shape.size() - 1;
    std::vector<double> s;
    if (!PerChannelConst(g, s_id, y_shape, axis, &s)) return false;
    const int64_t channels = y_shape[axis];

    // The weights, and how channel m's weights lie in them: w[i] belongs to
    // channel (i / inner) % channels.
    const int w_id = anchor->inputs[1];
    if (!IsConstFloat(g, w_id)) return false;
    const Shape w_shape = g.value(w_id).shape;
    int64_t inner = 0;
    if (conv) {
      if (w_shape.size() < 3 || w_shape[0] != channels) return false;
      inner = NumElements(w_shape) / channels;
    } else if (anchor->op == "Gemm") {
      if (w_shape.size() != 2) return false;
      const bool trans_b = anchor->attrs.GetInt("transB", 0) != 0;
      if (w_shape[trans_b ? 0 : 1] != channels) return false;
      inner = trans_b ? w_shape[1] : 1;
    } else {
      if (w_shape.size() != 2 || w_shape[1] != channels || anchor->attrs.GetInt("loom.trans_b", 0) != 0) return false;
      inner = 1;
    }
    // The bias: Conv's B and MatMul's Loom bias are [channels]; Gemm's C is
    // scaled per column whatever its broadcastable shape.
    const bool has_bias = anchor->inputs.size() > 2 && anchor->inputs[2] >= 0;
    if (has_bias) {
      const int b_id = anchor->inputs[2];
      if (!IsConstFloat(g, b_id)) return false;
      const Shape& b_shape = g.value(b_id).shape;
      if (anchor->op == "Gemm") {
        if (b_shape.empty() || b_shape.size() > 2 || (b_shape.back() != channels && b_shape.back() != 1)) return false;
        if (b_shape.back() == 1 && channels != 1) return false;  // one value for every column: cannot scale per column
      } else if (b_shape != Shape{channels}) {
        return false;
      }
    }

    const std::string base = anchor->name.empty() ? mul.name : anchor->name;
    const float* w = g.value(w_id).data->as<float>();
    const int64_t w_count = NumElements(w_shape);
    std::vector<double> new_w(static_cast<size_t>(w_count));
    for (int64_t i = 0; i < w_count; ++i)
      new_w[static_cast<size_t>(i)] = static_cast<double>(w[i]) * s[static_cast<size_t>((i / inner) % channels)];
    const int new_w_id = AddFloats(g, base + ".weight_scaled", w_shape, new_w);
    int new_b_id = -1;
    if (has_bias) {
      const int b_id = anchor->inputs[2];
      const Shape b_shape = g.value(b_id).shape;
      const float* b = g.value(b_id).data->as<float>();
      const int64_t b_count = NumElements(b_shape);
      std::vector<double> new_b(static_cast<size_t>(b_count));
      for (int64_t i = 0; i < b_count; ++i)
        new_b[static_cast<size_t>(i)] = static_cast<double>(b[i]) * s[static_cast<size_t>(i % channels)];
      new_b_id = AddFloats(g, base + ".bias_scaled", b_shape, new_b);
    }
    anchor->inputs[1] = new_w_id;
    if (has_bias) anchor->inputs[2] = new_b_id;
    anchor->outputs[0] = mul.outputs[0];
    anchor->fused.push_back("Mul");
    return true;
  }
};

}  // namespace

std::unique_ptr<Pass> MakeFoldScaleIntoConv() { return std::make_unique<FoldScaleIntoConv>(); }

}  // namespace passes
}  // namespace loom
