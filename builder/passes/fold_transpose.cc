#include "builder/passes/fold_transpose.h"

#include <utility>
#include <vector>

namespace loom {
namespace passes {

namespace {

// The Transpose's permutation (default: reversed dims); empty if invalid.
std::vector<int64_t> PermOf(const ir::Node& t, size_t rank) {
  std::vector<int64_t> perm = t.attrs.GetInts("perm");
  if (!t.attrs.Has("perm"))
    for (size_t i = rank; i-- > 0;) perm.push_back(static_cast<int64_t>(i));
  if (perm.size() != rank) return {};
  std::vector<bool> seen(rank, false);
  for (int64_t p : perm) {
    if (p < 0 || p >= static_cast<int64_t>(rank) || seen[static_cast<size_t>(p)]) return {};
    seen[static_cast<size_t>(p)] = true;
  }
  return perm;
}

bool IsIdentity(const std::vector<int64_t>& perm) {
  for (size_t i = 0; i < perm.size(); ++i)
    if (perm[i] != static_cast<int64_t>(i)) return false;
  return true;
}

class FoldTranspose : public Pass {
 public:
  const char* name() const override { return "fold_transpose"; }
  int min_opt_level() const override { return 2; }

  Status Run(ir::Graph& g, PassContext&, int* changes) override {
    ir::UseLists uses = g.BuildUseLists();
    for (ir::Node& t : g.nodes()) {
      if (t.dead || t.op != "Transpose" || !t.domain.empty() || t.inputs.size() != 1 || t.outputs.size() != 1) continue;
      const int x = t.inputs[0];
      const int y = t.outputs[0];
      if (x < 0 || y < 0 || g.IsGraphOutput(y) || uses.consumers[static_cast<size_t>(y)].size() != 1) continue;
      const ir::Value& xv = g.value(x);
      if (xv.is_constant() || !xv.shape_known || xv.dtype != DType::kFloat32 || xv.shape.size() < 2) continue;
      std::vector<int64_t> perm = PermOf(t, xv.shape.size());
      if (perm.empty()) continue;
      ir::Node& product = g.node(uses.consumers[static_cast<size_t>(y)][0]);
      if (product.dead || !product.domain.empty() || product.inputs.size() < 2) continue;
      const size_t r = perm.size();
      std::swap(perm[r - 1], perm[r - 2]);
      const bool identity = IsIdentity(perm);
      if (product.op == "Gemm") {
        if (!identity || r != 2) continue;
        // Only B: the int8 Gemm kernels (CPU and accelerator) refuse transA,
        // so a folded A would keep a later-quantized Gemm in float.
        if (product.inputs[1] != y) continue;
        product.attrs.SetInt("transB", product.attrs.GetInt("transB", 0) != 0 ? 0 : 1);
      } else if (product.op == "MatMul") {
        if (product.inputs[1] != y || g.value(y).dtype != DType::kFloat32) continue;
        if (!identity && perm[r - 1] != static_cast<int64_t>(r - 1)) continue;
        if (product.attrs.GetInt("loom.trans_b", 0) != 0) {
          product.attrs.Erase("loom.trans_b");
        } else {
          product.attrs.SetInt("loom.trans_b", 1);
        }
      } else {
        continue;
      }
      if (identity) {
        for (int& in : product.inputs)
          if (in == y) in = x;
        t.dead = true;
        product.fused.push_back("Transpose");
      } else {
        t.attrs.SetInts("perm", perm);
        Shape& shape = g.value(y).shape;
        std::swap(shape[r - 1], shape[r - 2]);
      }
      ++*changes;
    }
    return Status::Ok();
  }
};

}  // namespace

std::unique_ptr<Pass> MakeFoldTranspose() { return std::make_unique<FoldTranspose>(); }

}  // namespace passes
}  // namespace loom
