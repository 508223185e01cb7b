#include "builder/passes/fold_pad.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace loom {
namespace passes {

namespace {

// What a Pad node does, when it is the constant-mode kind with known pads.
struct PadInfo {
  std::vector<int64_t> pads;  // 2 * rank: begins then ends, every axis
  float value = 0;
  bool all_zero = true;
};

bool ConstInts(const ir::Graph& g, int id, std::vector<int64_t>* out) {
  if (id < 0) return false;
  const ir::Value& v = g.value(id);
  if (!v.is_constant() || v.dtype != DType::kInt64 || v.shape.size() != 1) return false;
  const int64_t* p = v.data->as<int64_t>();
  out->assign(p, p + v.shape[0]);
  return true;
}

// Reads `pad` (any opset); false when it is not a constant-mode Pad on a
// float32 tensor of known rank with constant pads and constant value.
bool ReadPad(const ir::Graph& g, const ir::Node& pad, PadInfo* info) {
  if (pad.inputs.empty() || pad.inputs[0] < 0 || pad.outputs.size() != 1 || pad.outputs[0] < 0) return false;
  const ir::Value& x = g.value(pad.inputs[0]);
  if (!x.shape_known || x.dtype != DType::kFloat32) return false;
  const int64_t rank = static_cast<int64_t>(x.shape.size());
  if (pad.attrs.GetString("mode", "constant") != "constant") return false;
  std::vector<int64_t> given;
  std::vector<int64_t> axes;
  if (pad.opset < 11) {
    given = pad.attrs.GetInts(pad.attrs.Has("pads") ? "pads" : "paddings");
    info->value = pad.attrs.GetFloat("value", 0.f);
  } else {
    if (pad.inputs.size() < 2 || !ConstInts(g, pad.inputs[1], &given)) return false;
    if (pad.inputs.size() > 2 && pad.inputs[2] >= 0) {
      const ir::Value& v = g.value(pad.inputs[2]);
      if (!v.is_constant() || v.dtype != DType::kFloat32 || NumElements(v.shape) != 1) return false;
      info->value = v.data->as<float>()[0];
    }
    if (pad.inputs.size() > 3 && pad.inputs[3] >= 0 && !ConstInts(g, pad.inputs[3], &axes)) return false;
  }
  if (axes.empty()) {
    for (int64_t d = 0; d < rank; ++d) axes.push_back(d);
  }
  if (given.size() != 2 * axes.size()) return false;
  info->pads.assign(static_cast<size_t>(2 * rank), 0);
  std::vector<bool> seen(static_cast<size_t>(rank), false);
  const size_t n = axes.size();
  for (size_t i = 0; i < n; ++i) {
    const int64_t a = axes[i] < 0 ? axes[i] + rank : axes[i];
    if (a < 0 || a >= rank || seen[static_cast<size_t>(a)]) return false;
    seen[static_cast<size_t>(a)] = true;
    info->pads[static_cast<size_t>(a)] = given[i];
    info->pads[static_cast<size_t>(a + rank)] = given[i + n];
  }
  for (int64_t p : info->pads) {
    if (p < 0) return false;  // negative pads crop
    if (p != 0) info->all_zero = false;
  }
  return true;
}

// Adds the spatial part of `pad` (rank 2 + k) to the consumer's k-dim `pads`
// attribute (begins then ends); false if the consumer has another rank.
bool AddSpatialPads(const std::vector<int64_t>& pad, ir::Node* node) {
  const size_t rank = pad.size() / 2;
  if (rank < 3) return false;
  const size_t k = rank - 2;
  std::vector<int64_t> pads = node->attrs.GetInts("pads", std::vector<int64_t>(2 * k, 0));
  if (pads.size() != 2 * k) return false;
  for (size_t i = 0; i < k; ++i) {
    pads[i] += pad[2 + i];
    pads[k + i] += pad[rank + 2 + i];
  }
  node->attrs.SetInts("pads", pads);
  return true;
}

bool AllZero(const std::vector<int64_t>& v) {
  for (int64_t x : v)
    if (x != 0) return false;
  return true;
}

// Whether every pad of `node` is smaller than its dilated window on that axis
// (no window lies wholly in the padding, which the accelerator's layers and
// many kernels refuse); false when the window is unknown.
bool PadsInsideWindows(const ir::Graph& g, const ir::Node& node) {
  const std::vector<int64_t> pads = node.attrs.GetInts("pads");
  const size_t k = pads.size() / 2;
  std::vector<int64_t> kernel = node.attrs.GetInts("kernel_shape");
  if (kernel.empty() && node.op == "Conv" && node.inputs.size() > 1 && node.inputs[1] >= 0) {
    const ir::Value& w = g.value(node.inputs[1]);
    if (w.shape_known && w.shape.size() == k + 2) kernel.assign(w.shape.begin() + 2, w.shape.end());
  }
  const std::vector<int64_t> dilations = node.attrs.GetInts("dilations", std::vector<int64_t>(k, 1));
  if (kernel.size() != k || dilations.size() != k) return false;
  for (size_t i = 0; i < k; ++i) {
    const int64_t extent = (kernel[i] - 1) * dilations[i] + 1;
    if (pads[i] >= extent || pads[k + i] >= extent) return false;
  }
  return true;
}

// Whether `consumer` (reading the Pad's output as its data input) computes the
// same with the Pad's pads added to its own, and if so rewrites its attributes.
bool FoldInto(const ir::Graph& g, const PadInfo& pad, ir::Node* consumer) {
  if (pad.all_zero) return true;
  // Only the spatial dims may be padded.
  const size_t rank = pad.pads.size() / 2;
  if (rank < 3 || pad.pads[0] != 0 || pad.pads[1] != 0 || pad.pads[rank] != 0 || pad.pads[rank + 1] != 0) return false;
  if (consumer->attrs.GetString("auto_pad", "NOTSET") != "NOTSET") return false;
  ir::Node folded = *consumer;
  if (consumer->op == "Conv") {
    if (pad.value != 0.f) return false;
  } else if (consumer->op == "AveragePool") {
    if (pad.value != 0.f || consumer->attrs.GetInt("ceil_mode", 0) != 0) return false;
    // The padded zeros count in the divisor; the pool's own pads must too.
    if (consumer->attrs.GetInt("count_include_pad", 0) == 0 && !AllZero(consumer->attrs.GetInts("pads"))) return false;
    folded.attrs.SetInt("count_include_pad", 1);
  } else if (consumer->op == "MaxPool") {
    if (!(std::isinf(pad.value) && pad.value < 0) || consumer->attrs.GetInt("ceil_mode", 0) != 0) return false;
  } else {
    return false;
  }
  if (!AddSpatialPads(pad.pads, &folded) || !PadsInsideWindows(g, folded)) return false;
  *consumer = std::move(folded);
  return true;
}

class FoldPad : public Pass {
 public:
  const char* name() const override { return "fold_pad"; }
  int min_opt_level() const override { return 2; }

  Status Run(ir::Graph& g, PassContext&, int* changes) override {
    ir::UseLists uses = g.BuildUseLists();
    for (size_t i = 0; i < g.nodes().size(); ++i) {
      ir::Node& pad = g.nodes()[i];
      if (pad.dead || pad.op != "Pad" || !pad.domain.empty()) continue;
      PadInfo info;
      if (!ReadPad(g, pad, &info)) continue;
      const int y = pad.outputs[0];
      const int x = pad.inputs[0];
      int left = 0;
      bool folded_any = false;
      for (int c : uses.consumers[static_cast<size_t>(y)]) {
        ir::Node& consumer = g.node(c);
        const bool data_input_only = !consumer.inputs.empty() && consumer.inputs[0] == y &&
                                     std::count(consumer.inputs.begin(), consumer.inputs.end(), y) == 1;
        if (consumer.dead || !consumer.domain.empty() || !data_input_only || !FoldInto(g, info, &consumer)) {
          ++left;
          continue;
        }
        consumer.inputs[0] = x;
        if (std::find(consumer.fused.begin(), consumer.fused.end(), "Pad") == consumer.fused.end())
          consumer.fused.push_back("Pad");
        folded_any = true;
      }
      if (!folded_any) continue;
      ++*changes;
      if (left == 0 && !g.IsGraphOutput(y)) g.nodes()[i].dead = true;
    }
    return Status::Ok();
  }
};

}  // namespace

std::unique_ptr<Pass> MakeFoldPad() { return std::make_unique<FoldPad>(); }

}  // namespace passes
}  // namespace loom
