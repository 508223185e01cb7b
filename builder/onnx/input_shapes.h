// Static input shapes. Loom plans are fully static, so every graph input needs
// concrete dims before shape inference:
//   - `overrides` (BuildOptions::input_shapes, `--shape x=1x3x224x224`) set or
//     replace an input's dims; an unknown name or a wrong rank is an error;
//   - a symbolic or missing LEADING dim (the batch) defaults to 1, with a note;
//   - any other symbolic dim is an error that names the input and the dim.
// When an override changes a concrete dim, the model's stale value_info and
// output shapes are dropped so shape inference recomputes them.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "common/dtype.h"
#include "common/status.h"
#include "onnx/onnx_pb.h"

namespace loom {
namespace onnx_import {

Status ApplyInputShapes(const std::map<std::string, Shape>& overrides, onnx::ModelProto* model,
                        std::vector<std::string>* notes);

}  // namespace onnx_import
}  // namespace loom
