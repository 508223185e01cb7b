#include "builder/quantize/insert_qdq.h"

#include "builder/quantize/op_roles.h"
#include "builder/quantize/quant_scheme.h"

namespace loom {
namespace quantize {

namespace {

bool IsFloatConstant(const ir::Value& v) { return v.is_constant() && v.dtype == DType::kFloat32; }

int ScalarConstant(ir::Graph* g, const std::string& base, DType dtype, const Shape& shape, const void* data,
                   size_t bytes) {
  return g->AddConstant(g->UniqueValueName(base), dtype, shape, ir::Buffer::CopyOf(data, bytes));
}

// A DequantizeLinear of int8 constant `q` (params `p`) writing a new float value like `like`.
int AddDequantize(ir::Graph* g, int q, const QuantParams& p, const ir::Value& like) {
  const Shape param_shape = p.per_channel() ? Shape{static_cast<int64_t>(p.scale.size())} : Shape{};
  std::vector<int8_t> zp(p.zero_point.begin(), p.zero_point.end());
  const std::string& base = g->value(q).name;
  const int scale = ScalarConstant(g, base + "_scale", DType::kFloat32, param_shape, p.scale.data(),
                                   p.scale.size() * sizeof(float));
  const int zero = ScalarConstant(g, base + "_zero_point", DType::kInt8, param_shape, zp.data(), zp.size());
  ir::Value out = like;
  out.name = g->UniqueValueName(like.name + "_dequantized");
  out.data = nullptr;
  out.quant = QuantParams();
  const int out_id = g->AddValue(out);
  ir::Node dq;
  dq.name = base + "_DequantizeLinear";
  dq.op = "DequantizeLinear";
  dq.opset = 13;
  dq.inputs = {q, scale, zero};
  dq.outputs = {out_id};
  if (p.per_channel()) dq.attrs.SetInt("axis", p.axis);
  g->AddNode(std::move(dq));
  return out_id;
}

int ProducerOf(const ir::Graph& g, int id) {
  for (size_t i = 0; i < g.nodes().size(); ++i) {
    const ir::Node& n = g.nodes()[i];
    if (n.dead) continue;
    for (int o : n.outputs)
      if (o == id) return static_cast<int>(i);
  }
  return -1;
}

}  // namespace

const QuantParams* QdqWriter::ParamsOf(const ir::Graph& g, int id) const {
  auto it = params_.find(g.value(id).name);
  return it == params_.end() ? nullptr : &it->second;
}

bool QdqWriter::IsCandidate(const ir::Graph& g, const ir::Node& n, const std::vector<bool>& candidate,
                            const ir::UseLists& uses) const {
  const OutputRule rule = OutputRuleOf(n);
  if (n.dead || rule == OutputRule::kNone || keep_fp32_.count(n.name) || n.outputs.empty()) return false;
  const int out = n.outputs[0];
  if (out < 0 || g.value(out).dtype != DType::kFloat32 || !ParamsOf(g, out)) return false;
  for (size_t k = 1; k < n.outputs.size(); ++k) {
    const int o = n.outputs[k];
    if (o >= 0 && (!uses.consumers[static_cast<size_t>(o)].empty() || g.IsGraphOutput(o))) return false;
  }
  const WeightRoles roles = WeightRolesOf(n);
  if (roles.weight >= 0) {
    if (n.inputs.size() <= static_cast<size_t>(roles.weight) || n.inputs[static_cast<size_t>(roles.weight)] < 0)
      return false;
    const ir::Value& w = g.value(n.inputs[static_cast<size_t>(roles.weight)]);
    if (!IsFloatConstant(w) || (n.op == "MatMul" && w.shape.size() != 2)) return false;
    if (n.inputs.size() > static_cast<size_t>(roles.bias) && n.inputs[static_cast<size_t>(roles.bias)] >= 0 &&
        !IsFloatConstant(g.value(n.inputs[static_cast<size_t>(roles.bias)])))
      return false;
  }
  for (size_t k = 0; k < n.inputs.size(); ++k) {
    const int id = n.inputs[k];
    if (id < 0 || static_cast<int>(k) == roles.weight || static_cast<int>(k) == roles.bias) continue;
    const ir::Value& v = g.value(id);
    if (!IsDataInput(n, k)) {
      if (IsFloatingPoint(v.dtype) && !v.is_constant()) return false;
      continue;
    }
    if (v.dtype != DType::kFloat32) return false;
    if (v.is_constant()) {
      if (n.op != "Add" && n.op != "Mul" && n.op != "Concat") return false;
    } else if (!ParamsOf(g, id)) {
      return false;
    }
  }
  if (rule == OutputRule::kSameAsInput) {
    const int p = n.inputs.empty() || n.inputs[0] < 0 ? -1 : uses.producer[static_cast<size_t>(n.inputs[0])];
    if (p < 0 || !candidate[static_cast<size_t>(p)]) return false;
  }
  return true;
}

int QdqWriter::Quantize(ir::Graph* g, int id, std::map<int, int>* done) {
  auto it = done->find(id);
  if (it != done->end()) return it->second;
  for (const auto& [source, dequantized] : *done)
    if (dequantized == id) return id;  // a reader rewired to an earlier pair
  const QuantParams p = *ParamsOf(*g, id);
  const ir::Value v = g->value(id);
  Pair pair;
  pair.source = id;
  int dequantized = -1;
  if (g->IsGraphOutput(id)) {
    // The producer writes a renamed float tensor; the DequantizeLinear writes
    // the graph output under its own name.
    ir::Value copy = v;
    copy.name = g->UniqueValueName(v.name + "_float");
    pair.source = g->AddValue(copy);
    renamed_[copy.name] = v.name;
    const int producer = ProducerOf(*g, id);
    if (producer >= 0)
      for (int& o : g->node(producer).outputs)
        if (o == id) o = pair.source;
    dequantized = id;
  } else {
    ir::Value dq = v;
    dq.name = g->UniqueValueName(v.name + "_dequantized");
    dequantized = g->AddValue(dq);
    g->ReplaceNodeInputUses(id, dequantized);
  }
  ir::Value q = v;
  q.name = g->UniqueValueName(v.name + "_quantized");
  q.dtype = DType::kInt8;
  q.quant = p;
  const int q_id = g->AddValue(q);
  const float scale = p.scale[0];
  const int8_t zp = static_cast<int8_t>(p.zero_point[0]);
  const int scale_id = ScalarConstant(g, v.name + "_scale", DType::kFloat32, {}, &scale, sizeof(scale));
  const int zp_id = ScalarConstant(g, v.name + "_zero_point", DType::kInt8, {}, &zp, 1);
  ir::Node qn;
  qn.name = v.name + "_QuantizeLinear";
  qn.op = "QuantizeLinear";
  qn.opset = 13;
  qn.inputs = {pair.source, scale_id, zp_id};
  qn.outputs = {q_id};
  g->AddNode(std::move(qn));
  ir::Node dqn;
  dqn.name = v.name + "_DequantizeLinear";
  dqn.op = "DequantizeLinear";
  dqn.opset = 13;
  dqn.inputs = {q_id, scale_id, zp_id};
  dqn.outputs = {dequantized};
  g->AddNode(std::move(dqn));
  pair.quantized = q_id;
  pair.dequantized = dequantized;
  pairs_.push_back(pair);
  (*done)[id] = dequantized;
  return dequantized;
}

Status QdqWriter::QuantizeWeight(ir::Graph* g, ir::Node* n, int input, int axis) {
  const int w = n->inputs[static_cast<size_t>(input)];
  const ir::Value wv = g->value(w);
  std::vector<int8_t> q;
  QuantParams p;
  Status s = QuantizeWeights(wv.data->as<float>(), wv.shape, axis, &q, &p);
  if (!s.ok()) return s.WithContext(n->Label() + ": weight '" + wv.name + "'");
  const int q_id = g->AddConstant(g->UniqueValueName(wv.name + "_int8"), DType::kInt8, wv.shape,
                                  ir::Buffer::CopyOf(q.data(), q.size()));
  g->value(q_id).quant = p;
  const int out = AddDequantize(g, q_id, p, wv);
  weights_.push_back({out, w});
  n->inputs[static_cast<size_t>(input)] = out;
  return Status::Ok();
}

Status QdqWriter::QuantizeConstantInput(ir::Graph* g, ir::Node* n, int input) {
  const int c = n->inputs[static_cast<size_t>(input)];
  const ir::Value cv = g->value(c);
  std::vector<int8_t> q;
  QuantParams p;
  Status s = QuantizeConstant(cv.data->as<float>(), NumElements(cv.shape), &q, &p);
  if (!s.ok()) return s.WithContext(n->Label() + ": constant '" + cv.name + "'");
  const int q_id = g->AddConstant(g->UniqueValueName(cv.name + "_int8"), DType::kInt8, cv.shape,
                                  ir::Buffer::CopyOf(q.data(), q.size()));
  g->value(q_id).quant = p;
  const int out = AddDequantize(g, q_id, p, cv);
  weights_.push_back({out, c});
  n->inputs[static_cast<size_t>(input)] = out;
  return Status::Ok();
}

Status QdqWriter::Insert(ir::Graph* g) {
  const ir::UseLists uses = g->BuildUseLists();
  const size_t count = g->nodes().size();
  std::vector<bool> candidate(count, false);
  for (size_t i = 0; i < count; ++i) candidate[i] = IsCandidate(*g, g->nodes()[i], candidate, uses);
  std::map<int, int> done;
  for (size_t i = 0; i < count; ++i) {
    if (!candidate[i]) continue;
    const int index = static_cast<int>(i);
    const WeightRoles roles = WeightRolesOf(g->node(index));
    if (roles.weight >= 0) {
      // Copy the node out: adding nodes may move the node storage.
      ir::Node n = g->node(index);
      RETURN_IF_ERROR(QuantizeWeight(g, &n, roles.weight, roles.weight_axis));
      g->node(index) = std::move(n);
    }
    for (size_t k = 0; k < g->node(index).inputs.size(); ++k) {
      const int id = g->node(index).inputs[k];
      if (id < 0 || static_cast<int>(k) == roles.weight || static_cast<int>(k) == roles.bias) continue;
      if (!IsDataInput(g->node(index), k)) continue;
      if (g->value(id).is_constant()) {
        ir::Node n = g->node(index);
        RETURN_IF_ERROR(QuantizeConstantInput(g, &n, static_cast<int>(k)));
        g->node(index) = std::move(n);
      } else {
        Quantize(g, id, &done);
      }
    }
    Quantize(g, g->node(index).outputs[0], &done);
  }
  return g->SortTopologically();
}

void QdqWriter::RemoveUnfolded(ir::Graph* g) const {
  const ir::UseLists uses = g->BuildUseLists();
  auto producer = [&](int id) { return uses.producer[static_cast<size_t>(id)]; };
  for (const Pair& pair : pairs_) {
    const int q = producer(pair.quantized);
    const int dq = producer(pair.dequantized);
    if (q < 0 || dq < 0 || g->node(q).op != "QuantizeLinear") continue;  // folded into its producer
    const std::vector<int>& readers = uses.consumers[static_cast<size_t>(pair.quantized)];
    if (readers.size() != 1 || readers[0] != dq) continue;  // an int8 node reads it: a border
    if (g->IsGraphOutput(pair.dequantized)) {
      const int p = producer(pair.source);
      if (p >= 0)
        for (int& o : g->node(p).outputs)
          if (o == pair.source) o = pair.dequantized;
    } else {
      g->ReplaceNodeInputUses(pair.dequantized, pair.source);
    }
    g->node(q).dead = true;
    g->node(dq).dead = true;
  }
  for (const WeightDq& w : weights_) {
    const int dq = producer(w.dequantized);
    if (dq < 0 || g->node(dq).dead || uses.consumers[static_cast<size_t>(w.dequantized)].empty()) continue;
    g->ReplaceNodeInputUses(w.dequantized, w.original);
    g->node(dq).dead = true;
  }
}

std::string QdqWriter::SourceName(const std::string& value_name) const {
  auto it = renamed_.find(value_name);
  return it == renamed_.end() ? value_name : it->second;
}

}  // namespace quantize
}  // namespace loom
