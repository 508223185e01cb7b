#include "builder/passes/fuse_conv_batchnorm.h"

#include <cmath>

namespace loom {
namespace passes {

namespace {

bool IsConstFloat(const ir::Graph& g, int id) {
  return id >= 0 && g.value(id).is_constant() && g.value(id).dtype == DType::kFloat32;
}

// A constant float32 vector of exactly `n` elements.
const float* ConstVector(const ir::Graph& g, int id, int64_t n) {
  if (!IsConstFloat(g, id)) return nullptr;
  const ir::Value& v = g.value(id);
  if (v.shape.size() != 1 || v.shape[0] != n) return nullptr;
  return v.data->as<float>();
}

bool OnlyFirstOutputUsed(const ir::Graph& g, const ir::Node& n, const ir::UseLists& uses) {
  for (size_t i = 1; i < n.outputs.size(); ++i) {
    const int o = n.outputs[i];
    if (o >= 0 && (!uses.consumers[static_cast<size_t>(o)].empty() || g.IsGraphOutput(o))) return false;
  }
  return !n.outputs.empty() && n.outputs[0] >= 0;
}

class FuseConvBatchNorm : public Pass {
 public:
  const char* name() const override { return "fuse_conv_batchnorm"; }
  int min_opt_level() const override { return 2; }

  Status Run(ir::Graph& g, PassContext&, int* changes) override {
    ir::UseLists uses = g.BuildUseLists();
    for (ir::Node& bn : g.nodes()) {
      if (bn.dead || bn.op != "BatchNormalization" || !bn.domain.empty() || bn.inputs.size() != 5) continue;
      if (bn.attrs.GetInt("training_mode", 0) != 0 || bn.attrs.GetInt("spatial", 1) != 1) continue;
      if (!OnlyFirstOutputUsed(g, bn, uses)) continue;
      const int x = bn.inputs[0];
      if (x < 0 || uses.consumers[static_cast<size_t>(x)].size() != 1 || g.IsGraphOutput(x)) continue;
      const int p = uses.producer[static_cast<size_t>(x)];
      if (p < 0) continue;
      ir::Node& conv = g.node(p);
      if (conv.dead || conv.op != "Conv" || !conv.domain.empty() || conv.outputs.size() != 1) continue;
      if (conv.attrs.Has("loom.activation") || conv.inputs.size() < 2 || !IsConstFloat(g, conv.inputs[1])) continue;
      if (Fold(g, &conv, bn)) {
        bn.dead = true;
        ++*changes;
      }
    }
    return Status::Ok();
  }

 private:
  static bool Fold(ir::Graph& g, ir::Node* conv, const ir::Node& bn) {
    const ir::Value& w = g.value(conv->inputs[1]);
    if (w.shape.size() < 3 || w.shape[0] <= 0) return false;
    const int64_t m = w.shape[0];
    const float* scale = ConstVector(g, bn.inputs[1], m);
    const float* bias = ConstVector(g, bn.inputs[2], m);
    const float* mean = ConstVector(g, bn.inputs[3], m);
    const float* var = ConstVector(g, bn.inputs[4], m);
    const bool has_conv_bias = conv->inputs.size() > 2 && conv->inputs[2] >= 0;
    const float* conv_bias = has_conv_bias ? ConstVector(g, conv->inputs[2], m) : nullptr;
    if (!scale || !bias || !mean || !var || (has_conv_bias && !conv_bias)) return false;
    const float epsilon = bn.attrs.GetFloat("epsilon", 1e-5f);

    const int64_t per_channel = NumElements(w.shape) / m;
    std::shared_ptr<ir::Buffer> new_w = ir::Buffer::Allocate(w.data->size());
    std::shared_ptr<ir::Buffer> new_b = ir::Buffer::Allocate(static_cast<size_t>(m) * sizeof(float));
    const float* src = w.data->as<float>();
    float* dst = reinterpret_cast<float*>(new_w->mutable_data());
    float* b = reinterpret_cast<float*>(new_b->mutable_data());
    // In double, so each folded value is rounded to float once.
    for (int64_t c = 0; c < m; ++c) {
      const double s = static_cast<double>(scale[c]) / std::sqrt(static_cast<double>(var[c]) + epsilon);
      for (int64_t k = 0; k < per_channel; ++k)
        dst[c * per_channel + k] = static_cast<float>(static_cast<double>(src[c * per_channel + k]) * s);
      b[c] = static_cast<float>((static_cast<double>(conv_bias ? conv_bias[c] : 0.f) - mean[c]) * s + bias[c]);
    }
    const std::string base = conv->name.empty() ? bn.name : conv->name;
    const Shape w_shape = w.shape;
    const int w_id = g.AddConstant(g.UniqueValueName(base + ".weight_bn"), DType::kFloat32, w_shape, new_w);
    const int b_id = g.AddConstant(g.UniqueValueName(base + ".bias_bn"), DType::kFloat32, {m}, new_b);
    conv->inputs.resize(3);
    conv->inputs[1] = w_id;
    conv->inputs[2] = b_id;
    conv->outputs[0] = bn.outputs[0];
    conv->fused.push_back("BatchNormalization");
    return true;
  }
};

}  // namespace

std::unique_ptr<Pass> MakeFuseConvBatchNorm() { return std::make_unique<FuseConvBatchNorm>(); }

}  // namespace passes
}  // namespace loom
