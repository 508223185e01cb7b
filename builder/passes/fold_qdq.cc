#include "builder/passes/fold_qdq.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "builder/exec/kernel_choice.h"
#include "builder/quantize/op_roles.h"
#include "builder/quantize/quant_scheme.h"

namespace loom {
namespace passes {

namespace {

bool Is(const ir::Node& n, const char* op) { return !n.dead && n.domain.empty() && n.op == op; }
bool IsQ(const ir::Node& n) { return Is(n, "QuantizeLinear"); }
bool IsDQ(const ir::Node& n) { return Is(n, "DequantizeLinear"); }

// The constant parameters of a QuantizeLinear / DequantizeLinear node.
struct QdqParams {
  QuantParams quant;
  DType qtype = DType::kUInt8;
};

bool ReadParams(const ir::Graph& g, const ir::Node& n, QdqParams* out) {
  if (n.inputs.size() < 2 || n.inputs[0] < 0 || n.inputs[1] < 0) return false;
  const ir::Value& scale = g.value(n.inputs[1]);
  if (!scale.is_constant() || scale.dtype != DType::kFloat32 || scale.shape.size() > 1) return false;
  const int64_t count = NumElements(scale.shape);
  out->quant.scale.assign(scale.data->as<float>(), scale.data->as<float>() + count);
  out->quant.zero_point.assign(static_cast<size_t>(count), 0);
  out->qtype = IsDQ(n) ? g.value(n.inputs[0]).dtype : DType::kUInt8;
  if (n.inputs.size() > 2 && n.inputs[2] >= 0) {
    const ir::Value& zp = g.value(n.inputs[2]);
    if (!zp.is_constant() || NumElements(zp.shape) != count) return false;
    out->qtype = zp.dtype;
    for (int64_t i = 0; i < count; ++i) {
      if (zp.dtype == DType::kInt8) out->quant.zero_point[static_cast<size_t>(i)] = zp.data->as<int8_t>()[i];
      else if (zp.dtype == DType::kUInt8) out->quant.zero_point[static_cast<size_t>(i)] = zp.data->as<uint8_t>()[i];
      else return false;
    }
  }
  for (float s : out->quant.scale)
    if (!(s > 0) || !std::isfinite(s)) return false;
  const ir::Value& x = g.value(n.inputs[0]);
  int64_t axis = n.attrs.GetInt("axis", 1);
  if (axis < 0) axis += static_cast<int64_t>(x.shape.size());
  out->quant.axis = static_cast<int32_t>(axis);
  return true;
}

bool SameParams(const QuantParams& a, const QuantParams& b) {
  return a.scale == b.scale && a.zero_point == b.zero_point && (!a.per_channel() || a.axis == b.axis);
}

bool PerTensorInt8(const QdqParams& p) { return p.qtype == DType::kInt8 && !p.quant.per_channel(); }

int AddInt8Constant(ir::Graph* g, const std::string& base, const Shape& shape, const std::vector<int8_t>& values) {
  return g->AddConstant(g->UniqueValueName(base), DType::kInt8, shape,
                        ir::Buffer::CopyOf(values.data(), values.size()));
}

// uint8 activations become int8: a QuantizeLinear to uint8 read only by
// DequantizeLinear nodes of its parameters gets zero point zp - 128 (int8),
// and so do they.
void MoveUint8ToInt8(ir::Graph* g) {
  const ir::UseLists uses = g->BuildUseLists();
  for (ir::Node& q : g->nodes()) {
    QdqParams p;
    if (!IsQ(q) || q.outputs.empty() || q.outputs[0] < 0 || !ReadParams(*g, q, &p)) continue;
    const int y = q.outputs[0];
    if (p.qtype != DType::kUInt8 || p.quant.per_channel() || g->IsGraphOutput(y)) continue;
    const std::vector<int>& readers = uses.consumers[static_cast<size_t>(y)];
    const bool all_dq = !readers.empty() && std::all_of(readers.begin(), readers.end(), [&](int c) {
      QdqParams d;
      const ir::Node& n = g->node(c);
      return IsDQ(n) && n.inputs[0] == y && ReadParams(*g, n, &d) && SameParams(d.quant, p.quant);
    });
    if (!all_dq) continue;
    const Shape zp_shape = g->value(q.inputs[1]).shape;
    const int zp = AddInt8Constant(g, g->value(y).name + "_zero_point",
                                   zp_shape, {static_cast<int8_t>(p.quant.zero_point[0] - 128)});
    q.inputs.resize(3);
    q.inputs[2] = zp;
    for (int c : readers) {
      g->node(c).inputs.resize(3);
      g->node(c).inputs[2] = zp;
    }
    g->value(y).dtype = DType::kInt8;
  }
}

// The int8 weight behind a DequantizeLinear of a constant: symmetric, per
// tensor or per channel along `axis`.
struct Weight {
  std::vector<int8_t> values;
  Shape shape;
  QuantParams params;
};

bool ReadWeight(const ir::Graph& g, const ir::UseLists& uses, int id, int axis, Weight* out) {
  const int p = uses.producer[static_cast<size_t>(id)];
  QdqParams qp;
  if (p < 0 || !IsDQ(g.node(p)) || !ReadParams(g, g.node(p), &qp)) return false;
  const ir::Value& w = g.value(g.node(p).inputs[0]);
  if (!w.is_constant() || axis >= static_cast<int>(w.shape.size())) return false;
  if (qp.quant.per_channel() &&
      (qp.quant.axis != axis || w.shape[static_cast<size_t>(axis)] != static_cast<int64_t>(qp.quant.scale.size())))
    return false;
  const int64_t n = NumElements(w.shape);
  out->values.resize(static_cast<size_t>(n));
  if (w.dtype == DType::kInt8 && qp.qtype == DType::kInt8) {
    for (int64_t zp : qp.quant.zero_point)
      if (zp != 0) return false;
    std::memcpy(out->values.data(), w.data->data(), static_cast<size_t>(n));
  } else if (w.dtype == DType::kUInt8 && qp.qtype == DType::kUInt8) {
    for (int64_t zp : qp.quant.zero_point)
      if (zp != 128) return false;
    for (int64_t i = 0; i < n; ++i) {
      const int v = w.data->as<uint8_t>()[i] - 128;
      if (v < -127) return false;  // -128 has no symmetric counterpart
      out->values[static_cast<size_t>(i)] = static_cast<int8_t>(v);
    }
  } else {
    return false;
  }
  out->shape = w.shape;
  out->params.scale = qp.quant.scale;
  out->params.zero_point.assign(qp.quant.scale.size(), 0);
  out->params.axis = axis;
  return true;
}

class Folder {
 public:
  Folder(ir::Graph* g, const KernelRegistry& registry, std::vector<FoldedNode>* folded)
      : g_(*g), registry_(registry), folded_(folded) {}

  void Run() {
    MoveUint8ToInt8(&g_);
    AnnotateQuantizedValues();
    for (size_t i = 0; i < g_.nodes().size(); ++i) {
      const ir::Node& n = g_.node(static_cast<int>(i));
      if (n.dead || IsQ(n) || IsDQ(n) || !n.domain.empty()) continue;
      uses_ = g_.BuildUseLists();
      TryFold(static_cast<int>(i));
    }
  }

 private:
  // Every int8 tensor a per-tensor QuantizeLinear produces carries its parameters.
  void AnnotateQuantizedValues() {
    for (const ir::Node& q : g_.nodes()) {
      QdqParams p;
      if (IsQ(q) && !q.outputs.empty() && q.outputs[0] >= 0 && ReadParams(g_, q, &p) && PerTensorInt8(p))
        g_.value(q.outputs[0]).quant = p.quant;
    }
  }

  // The int8 value behind a DequantizeLinear that produces float input `id`.
  bool Int8Source(int id, int* source) {
    const int p = uses_.producer[static_cast<size_t>(id)];
    QdqParams qp;
    if (p < 0 || !IsDQ(g_.node(p)) || !ReadParams(g_, g_.node(p), &qp) || !PerTensorInt8(qp)) return false;
    const int s = g_.node(p).inputs[0];
    ir::Value& v = g_.value(s);
    if (v.dtype != DType::kInt8) return false;
    if (v.quant.empty() && (v.is_constant() || g_.IsGraphInput(s))) v.quant = qp.quant;
    if (!SameParams(v.quant, qp.quant)) return false;
    *source = s;
    return true;
  }

  // The QuantizeLinear that is the only reader of float value `id`.
  int SoleQuantizer(int id) const {
    if (id < 0 || g_.IsGraphOutput(id)) return -1;
    const std::vector<int>& readers = uses_.consumers[static_cast<size_t>(id)];
    if (readers.size() != 1) return -1;
    const ir::Node& q = g_.node(readers[0]);
    QdqParams p;
    if (!IsQ(q) || q.inputs[0] != id || !ReadParams(g_, q, &p) || !PerTensorInt8(p)) return -1;
    return readers[0];
  }

  // The single float output of node `n` (other outputs omitted or unread).
  int SoleOutput(const ir::Node& n) const {
    int out = -1;
    for (size_t k = 0; k < n.outputs.size(); ++k) {
      const int o = n.outputs[k];
      if (o < 0) continue;
      if (k == 0) {
        out = o;
      } else if (!uses_.consumers[static_cast<size_t>(o)].empty() || g_.IsGraphOutput(o)) {
        return -1;
      }
    }
    return out >= 0 && IsFloatingPoint(g_.value(out).dtype) ? out : -1;
  }

  bool Accepts(const ir::Node& n) const {
    exec::ChosenKernel chosen;
    if (!exec::ChooseKernel(registry_, exec::MakeKernelSetup(g_, n), Device::kCpu, &chosen).ok()) return false;
    const std::string& id = chosen.def->id;
    if (id.size() > 5 && id.compare(id.size() - 5, 5, ".int8") == 0) return true;
    return quantize::MovesValuesOnly(n.op) && n.inputs[0] >= 0 && !n.outputs.empty() &&
           SameParams(g_.value(n.inputs[0]).quant, g_.value(n.outputs[0]).quant);
  }

  // Int8 weight and int32 bias inputs of a Conv/Gemm/MatMul.
  bool QuantizeWeightAndBias(const quantize::WeightRoles& roles, ir::Node* n) {
    Weight w;
    if (!ReadWeight(g_, uses_, n->inputs[static_cast<size_t>(roles.weight)], roles.weight_axis, &w)) return false;
    if (n->op == "MatMul" && w.shape.size() != 2) return false;
    const int64_t channels = w.shape[static_cast<size_t>(roles.weight_axis)];
    const QuantParams& x = g_.value(n->inputs[0]).quant;
    std::vector<int32_t> bias;
    const int b = static_cast<size_t>(roles.bias) < n->inputs.size() ? n->inputs[static_cast<size_t>(roles.bias)] : -1;
    if (b < 0) {
      if (!quantize::FoldBias(nullptr, w.values, w.shape, roles.weight_axis, w.params, x, &bias).ok()) return false;
    } else {
      const ir::Value& bv = g_.value(b);
      const int p = uses_.producer[static_cast<size_t>(b)];
      if (bv.is_constant() && bv.dtype == DType::kFloat32 && NumElements(bv.shape) == channels) {
        if (!quantize::FoldBias(bv.data->as<float>(), w.values, w.shape, roles.weight_axis, w.params, x, &bias).ok())
          return false;
      } else if (p >= 0 && IsDQ(g_.node(p))) {
        const ir::Value& q = g_.value(g_.node(p).inputs[0]);
        if (!q.is_constant() || q.dtype != DType::kInt32 || NumElements(q.shape) != channels) return false;
        if (!quantize::FoldQuantizedBias(q.data->as<int32_t>(), w.values, w.shape, roles.weight_axis, x, &bias).ok())
          return false;
      } else {
        return false;
      }
    }
    const std::string base = n->name.empty() ? n->op : n->name;
    const int w_id = AddInt8Constant(&g_, base + "_weight_int8", w.shape, w.values);
    g_.value(w_id).quant = w.params;
    const int b_id = g_.AddConstant(g_.UniqueValueName(base + "_bias_int32"), DType::kInt32, {channels},
                                    ir::Buffer::CopyOf(bias.data(), bias.size() * sizeof(int32_t)));
    QuantParams& bq = g_.value(b_id).quant;
    for (size_t m = 0; m < static_cast<size_t>(channels); ++m)
      bq.scale.push_back(x.scale[0] * w.params.scale[w.params.per_channel() ? m : 0]);
    bq.zero_point.assign(bq.scale.size(), 0);
    n->inputs[static_cast<size_t>(roles.weight)] = w_id;
    n->inputs.resize(std::max(n->inputs.size(), static_cast<size_t>(roles.bias) + 1), -1);
    n->inputs[static_cast<size_t>(roles.bias)] = b_id;
    return true;
  }

  void TryFold(int index) {
    ir::Node n = g_.node(index);
    const quantize::WeightRoles roles = quantize::WeightRolesOf(n);
    for (size_t i = 0; i < n.inputs.size(); ++i) {
      const int id = n.inputs[i];
      if (id < 0 || static_cast<int>(i) == roles.weight || static_cast<int>(i) == roles.bias) continue;
      if (!IsFloatingPoint(g_.value(id).dtype)) continue;
      if (!quantize::IsDataInput(n, i)) {
        if (!g_.value(id).is_constant()) return;
        continue;
      }
      int source = -1;
      if (!Int8Source(id, &source)) return;
      n.inputs[i] = source;
    }
    if (roles.weight >= 0 && (n.inputs.size() <= static_cast<size_t>(roles.weight) || n.inputs[0] < 0 ||
                              !QuantizeWeightAndBias(roles, &n)))
      return;

    const int out = SoleOutput(n);
    if (out < 0) return;
    int q = SoleQuantizer(out);
    if (q >= 0) {
      n.outputs[0] = g_.node(q).outputs[0];
      if (!Accepts(n)) return;
      Commit(index, std::move(n), out, q);
      return;
    }
    // The output goes through one Relu/Clip into a QuantizeLinear: both fold,
    // the node writing the activation's parameters.
    if (g_.IsGraphOutput(out) || uses_.consumers[static_cast<size_t>(out)].size() != 1) return;
    const int a = uses_.consumers[static_cast<size_t>(out)][0];
    ir::Node act = g_.node(a);
    if (!(Is(act, "Relu") || Is(act, "Clip")) || act.inputs[0] != out || act.outputs.size() != 1) return;
    q = SoleQuantizer(act.outputs[0]);
    if (q < 0) return;
    const int final_value = g_.node(q).outputs[0];
    ir::Value mid = g_.value(out);
    mid.name = g_.UniqueValueName(mid.name + "_quantized");
    mid.dtype = DType::kInt8;
    mid.quant = g_.value(final_value).quant;
    const int mid_id = g_.AddValue(mid);
    n.outputs[0] = mid_id;
    act.inputs[0] = mid_id;
    act.outputs[0] = final_value;
    if (!Accepts(n) || !Accepts(act)) return;
    Commit(index, std::move(n), out, -1);
    const int act_float = g_.node(a).outputs[0];
    Commit(a, std::move(act), act_float, q);
  }

  void Commit(int index, ir::Node n, int float_output, int quantizer) {
    if (folded_) folded_->push_back({n.name, g_.value(float_output).name, n.outputs[0]});
    g_.node(index) = std::move(n);
    if (quantizer >= 0) g_.node(quantizer).dead = true;
    uses_ = g_.BuildUseLists();
  }

  ir::Graph& g_;
  const KernelRegistry& registry_;
  std::vector<FoldedNode>* folded_;
  ir::UseLists uses_;
};

class FoldQdqPass : public Pass {
 public:
  const char* name() const override { return "fold_qdq"; }
  Status Run(ir::Graph& graph, PassContext& ctx, int* changes) override {
    std::vector<FoldedNode> folded;
    RETURN_IF_ERROR(FoldQdq(&graph, *ctx.registry, &folded));
    *changes = static_cast<int>(folded.size());
    return Status::Ok();
  }
};

}  // namespace

Status FoldQdq(ir::Graph* graph, const KernelRegistry& registry, std::vector<FoldedNode>* folded) {
  Folder(graph, registry, folded).Run();
  return Status::Ok();
}

std::unique_ptr<Pass> MakeFoldQdq() { return std::make_unique<FoldQdqPass>(); }

}  // namespace passes
}  // namespace loom
