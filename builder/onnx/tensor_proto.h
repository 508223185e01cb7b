// ONNX TensorProto -> Loom constant bytes. Accepts raw_data and the typed
// repeated fields for every numeric dtype plus bool, float16 and bfloat16;
// refuses strings, complex numbers and segmented tensors.
#pragma once

#include <string>

#include "builder/ir/graph.h"
#include "common/status.h"
#include "onnx/onnx_pb.h"

namespace loom {
namespace onnx_import {

struct ConstantTensor {
  DType dtype = DType::kUndefined;
  Shape shape;
  ir::ConstData data;
};

// `what` names the tensor in messages ("initializer 'W'").
Status ConvertTensorProto(const onnx::TensorProto& t, const std::string& what, ConstantTensor* out);

// Maps an ONNX elem_type to a DType Loom can store; Unsupported otherwise.
Status ConvertElemType(int32_t elem_type, const std::string& what, DType* out);

}  // namespace onnx_import
}  // namespace loom
