// Structural checks of a parsed ONNX model before import: node order (with a
// clear "cycle" error), ONNX's own checker, and operator domains Loom can run.
#pragma once

#include <string>

#include "common/status.h"
#include "kernels/common/registry.h"
#include "onnx/onnx_pb.h"

namespace loom {
namespace onnx_import {

// Reorders the main graph's nodes so every node follows the producers of its
// inputs (keeping the file order where it is already valid). A cycle is an
// error naming a node on it.
Status SortNodesTopologically(onnx::GraphProto* graph);

// onnx::checker::check_model, with its exceptions turned into a Status.
Status RunOnnxChecker(const onnx::ModelProto& model);

// Nodes outside the default domain ("" / "ai.onnx") are unsupported unless
// `registry` has a kernel for their (op, domain).
Status CheckDomains(const onnx::ModelProto& model, const KernelRegistry& registry);

// Attributes ONNX's shape inference divides by (strides, dilations,
// kernel_shape, blocksize, group) must be >= 1: libonnx does not check them
// and would crash on zero.
Status CheckDivisorAttributes(const onnx::ModelProto& model);

// The name node `index` of a graph takes in Loom: its own, else its first
// output's, else "<op>_<index>". Messages label it with NodeLabel().
std::string ImportedNodeName(const onnx::NodeProto& n, int index);

// True for "" and "ai.onnx".
bool IsDefaultDomain(const std::string& domain);

// Collapses an ONNX exception text (often several lines) into one line.
std::string OneLine(const std::string& text);

}  // namespace onnx_import
}  // namespace loom
