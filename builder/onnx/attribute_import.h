// ONNX AttributeProto -> loom::Attribute. Scalars and lists map one to one;
// a TENSOR attribute becomes Attribute::tensor. Graphs, sparse tensors and
// type protos (control flow, training ops) are unsupported.
#pragma once

#include <string>

#include "common/status.h"
#include "common/attributes.h"
#include "onnx/onnx_pb.h"

namespace loom {
namespace onnx_import {

// `node_label` ("conv1 (Conv)") prefixes messages.
Status ConvertAttribute(const onnx::AttributeProto& a, const std::string& node_label, Attribute* out);

}  // namespace onnx_import
}  // namespace loom
