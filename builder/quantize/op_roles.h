// What the int8 scheme needs to know about an op's inputs and outputs, shared
// by the QDQ folding pass and the quantizer that writes QDQ.
#pragma once

#include <string>

#include "builder/ir/graph.h"

namespace loom {
namespace quantize {

// Where a Conv/Gemm/MatMul keeps its constant weight and its bias; other ops
// have none (weight = -1).
struct WeightRoles {
  int weight = -1;      // input index of the weight
  int weight_axis = 0;  // the weight's output-channel axis
  int bias = -1;        // input index of the bias (MatMul: Loom's third input)
};
WeightRoles WeightRolesOf(const ir::Node& n);

// True for input `i` of `n` when its float values are data that int8 carries
// (Clip's bounds or Resize's scales are not).
bool IsDataInput(const ir::Node& n, size_t i);

// Ops that only move values: with equal input and output parameters, any
// kernel of theirs computes the int8 result exactly.
bool MovesValuesOnly(const std::string& op);

// How the quantizer sets an op's output parameters:
//   kOwnRange     from the output's calibrated range (Conv, Add, Sigmoid, ...);
//   kSameAsInput  the data input's (MaxPool, Resize and MovesValuesOnly ops);
//   kActivation   its own range, which the producer of its input also takes
//                 when the activation is that input's only reader (Relu, Clip);
//   kNone         no int8 form.
enum class OutputRule { kNone, kOwnRange, kSameAsInput, kActivation };
OutputRule OutputRuleOf(const ir::Node& n);

}  // namespace quantize
}  // namespace loom
