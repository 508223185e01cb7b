// Small helpers for passes that recognize chains of ONNX nodes.
#pragma once

#include <vector>

#include "builder/ir/graph.h"

namespace loom {
namespace passes {

// Whether `id` is a float32 constant with a single element (its value in
// *value).
bool ScalarConst(const ir::Graph& g, int id, float* value);

// The node that is the only reader of `id`, if it is a live `op` of the
// default domain with one output and `id` is not a graph output; -1
// otherwise.
int SoleConsumer(const ir::Graph& g, const ir::UseLists& uses, int id, const char* op);

// The input of two-input node `n` that is not `id`; -1 if `id` is not one
// of its inputs.
int OtherInput(const ir::Node& n, int id);

// The values of float32 constant `id` as one value per channel of a tensor
// of shape `out` whose channels run along `axis`, if ONNX broadcasting of the
// constant against `out` gives exactly that and leaves `out`'s shape (a
// scalar gives every channel the same value).
bool PerChannelConst(const ir::Graph& g, int id, const Shape& out, size_t axis, std::vector<double>* values);

}  // namespace passes
}  // namespace loom
