// Writes int8 quantization into a float graph the way ONNX Runtime's
// quantizer does, as QuantizeLinear/DequantizeLinear pairs (QDQ), which the
// fold_qdq pass then turns into int8 nodes:
//   - every float tensor a candidate node reads or writes as data gets one
//     QuantizeLinear (its parameters from `params`) and one DequantizeLinear
//     that all its readers then read (a graph output keeps its name: its
//     producer writes a renamed tensor);
//   - Conv/Gemm/MatMul weights become DequantizeLinear of symmetric
//     per-channel int8 constants; constant data inputs of Add/Mul/Concat
//     become per-tensor int8 constants; biases stay float for the folding.
// Candidates: nodes whose op has an int8 form (op_roles.h), not named in
// `keep_fp32`, whose data inputs and output have parameters; ops that only
// move values are candidates when their input's producer is one.
// Undo() restores what folding did not take, so no quantization noise is left
// in the float parts of the graph.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "builder/ir/graph.h"
#include "common/quant_params.h"
#include "common/status.h"

namespace loom {
namespace quantize {

class QdqWriter {
 public:
  // `params`: per-tensor int8 parameters by tensor name.
  QdqWriter(const std::map<std::string, QuantParams>& params, const std::set<std::string>& keep_fp32)
      : params_(params), keep_fp32_(keep_fp32) {}

  Status Insert(ir::Graph* graph);
  // After folding: removes inserted pairs nothing folded into and restores
  // float weights whose node stayed float.
  void RemoveUnfolded(ir::Graph* graph) const;

  // The name of the source tensor behind a value the writer renamed (graph
  // outputs), or the name itself.
  std::string SourceName(const std::string& value_name) const;

 private:
  // Value ids (node indices change when the graph is sorted).
  struct Pair {
    int source = -1;       // the float tensor quantized
    int quantized = -1;    // the QuantizeLinear's output
    int dequantized = -1;  // the DequantizeLinear's output
  };
  struct WeightDq {
    int dequantized = -1;  // the DequantizeLinear's output
    int original = -1;     // the float constant
  };

  bool IsCandidate(const ir::Graph& g, const ir::Node& n, const std::vector<bool>& candidate,
                   const ir::UseLists& uses) const;
  const QuantParams* ParamsOf(const ir::Graph& g, int id) const;
  // Quantizes tensor `id` once; returns the DequantizeLinear's output.
  int Quantize(ir::Graph* g, int id, std::map<int, int>* done);
  Status QuantizeWeight(ir::Graph* g, ir::Node* n, int input, int axis);
  Status QuantizeConstantInput(ir::Graph* g, ir::Node* n, int input);

  const std::map<std::string, QuantParams>& params_;
  const std::set<std::string>& keep_fp32_;
  std::vector<Pair> pairs_;
  std::vector<WeightDq> weights_;
  std::map<std::string, std::string> renamed_;  // new producer-side name -> graph output name
};

}  // namespace quantize
}  // namespace loom
