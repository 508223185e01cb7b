#include "builder/passes/eliminate_common_subexpressions.h"

#include <algorithm>
#include <cstring>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace loom {
namespace passes {

namespace {

template <typename T>
void Append(std::string* key, const T& v) {
  key->append(reinterpret_cast<const char*>(&v), sizeof(v));
}

template <typename T>
void AppendVector(std::string* key, const std::vector<T>& v) {
  Append(key, v.size());
  if (!v.empty()) key->append(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T));
}

void AppendString(std::string* key, const std::string& s) {
  Append(key, s.size());
  key->append(s);
}

// Everything about a constant but its bytes.
std::string ConstantKey(const ir::Value& v) {
  std::string key;
  Append(&key, v.dtype);
  AppendVector(&key, v.shape);
  Append(&key, v.layout);
  Append(&key, v.memory_space);
  Append(&key, v.padded_bytes);
  AppendVector(&key, v.quant.scale);
  AppendVector(&key, v.quant.zero_point);
  Append(&key, v.quant.axis);
  Append(&key, v.data->size());
  return key;
}

// Attributes by value, in name order (bitwise floats: NaN equals NaN, 0 and
// -0 differ).
void AppendAttributes(std::string* key, const Attributes& attrs) {
  std::vector<const Attribute*> sorted;
  for (const Attribute& a : attrs.all()) sorted.push_back(&a);
  std::sort(sorted.begin(), sorted.end(), [](const Attribute* a, const Attribute* b) { return a->name < b->name; });
  for (const Attribute* a : sorted) {
    AppendString(key, a->name);
    Append(key, a->kind);
    switch (a->kind) {
      case Attribute::Kind::kInt:
        Append(key, a->i);
        break;
      case Attribute::Kind::kFloat:
        Append(key, a->f);
        break;
      case Attribute::Kind::kString:
        AppendString(key, a->s);
        break;
      case Attribute::Kind::kInts:
        AppendVector(key, a->ints);
        break;
      case Attribute::Kind::kFloats:
        AppendVector(key, a->floats);
        break;
      case Attribute::Kind::kStrings:
        Append(key, a->strings.size());
        for (const std::string& s : a->strings) AppendString(key, s);
        break;
      case Attribute::Kind::kTensor:
        if (a->tensor) {
          Append(key, a->tensor->dtype);
          AppendVector(key, a->tensor->dims);
          AppendVector(key, a->tensor->data);
        }
        break;
    }
  }
}

bool Mergeable(const ir::Node& n) {
  static const char* const kNever[] = {
      "RandomNormal", "RandomUniform", "RandomNormalLike", "RandomUniformLike", "Multinomial", "Bernoulli", "If",
      "Loop",         "Scan"};
  if (n.outputs.empty()) return false;
  for (const char* op : kNever)
    if (n.op == op) return false;
  return true;
}

std::string NodeKey(const ir::Node& n) {
  std::string key;
  AppendString(&key, n.op);
  AppendString(&key, n.domain);
  Append(&key, n.opset);
  Append(&key, n.device);
  AppendVector(&key, n.inputs);
  Append(&key, n.outputs.size());
  for (int o : n.outputs) key.push_back(o >= 0 ? '1' : '0');
  Append(&key, n.fused.size());
  for (const std::string& f : n.fused) AppendString(&key, f);
  AppendAttributes(&key, n.attrs);
  return key;
}

class EliminateCommonSubexpressions : public Pass {
 public:
  const char* name() const override { return "eliminate_common_subexpressions"; }

  Status Run(ir::Graph& g, PassContext&, int* changes) override {
    *changes += MergeConstants(g);
    std::unordered_map<std::string, int> seen;  // node key -> node index
    for (size_t i = 0; i < g.nodes().size(); ++i) {
      ir::Node& n = g.nodes()[i];
      if (n.dead || !Mergeable(n)) continue;
      bool output = false;
      for (int o : n.outputs) output = output || (o >= 0 && g.IsGraphOutput(o));
      const std::string key = NodeKey(n);
      auto it = seen.find(key);
      if (it == seen.end()) {
        seen.emplace(key, static_cast<int>(i));
        continue;
      }
      if (output) continue;
      const ir::Node& first = g.node(it->second);
      for (size_t k = 0; k < n.outputs.size(); ++k)
        if (n.outputs[k] >= 0) g.ReplaceNodeInputUses(n.outputs[k], first.outputs[k]);
      g.nodes()[i].dead = true;
      ++*changes;
    }
    return Status::Ok();
  }

 private:
  // Gives every set of equal constants read by nodes one value; returns the
  // number of nodes that now read a shared constant instead of their own.
  static int MergeConstants(ir::Graph& g) {
    std::vector<bool> read(g.values().size(), false);
    for (const ir::Node& n : g.nodes())
      if (!n.dead)
        for (int in : n.inputs)
          if (in >= 0) read[static_cast<size_t>(in)] = true;
    std::unordered_map<std::string, std::vector<int>> buckets;  // key + hash of the bytes -> ids
    std::vector<int> replacement(g.values().size(), -1);
    int merged = 0;
    for (size_t id = 0; id < g.values().size(); ++id) {
      const ir::Value& v = g.values()[id];
      if (!read[id] || !v.is_constant() || g.IsGraphInput(static_cast<int>(id))) continue;
      const std::string_view bytes(reinterpret_cast<const char*>(v.data->data()), v.data->size());
      std::string key = ConstantKey(v);
      Append(&key, std::hash<std::string_view>()(bytes));
      std::vector<int>& bucket = buckets[key];
      for (int other : bucket) {
        const ir::Value& o = g.value(other);
        if (o.data == v.data || std::memcmp(o.data->data(), v.data->data(), v.data->size()) == 0) {
          replacement[id] = other;
          break;
        }
      }
      if (replacement[id] >= 0) {
        ++merged;
      } else {
        bucket.push_back(static_cast<int>(id));
      }
    }
    if (merged == 0) return 0;
    int rewired = 0;
    for (ir::Node& n : g.nodes()) {
      bool changed = false;
      for (int& in : n.inputs) {
        if (in < 0 || replacement[static_cast<size_t>(in)] < 0) continue;
        in = replacement[static_cast<size_t>(in)];
        changed = true;
      }
      rewired += changed;
    }
    return rewired;
  }
};

}  // namespace

std::unique_ptr<Pass> MakeEliminateCommonSubexpressions() { return std::make_unique<EliminateCommonSubexpressions>(); }

}  // namespace passes
}  // namespace loom
