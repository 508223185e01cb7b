// Building small ONNX models in tests, and scratch folders to save them in.
//
//   OnnxModel m(13);
//   m.Input("x", {1, 4});                       // float32; -1 = symbolic dim
//   m.Node("Relu", {"x"}, {"y"});
//   m.Output("y", {1, 4});
//   std::string path = m.Save(dir.path() + "/m.onnx");
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "onnx/onnx_pb.h"

namespace loom {
namespace testing {

// A fresh folder under the system temp dir, removed with its contents.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  const std::string& path() const { return path_; }
  std::string File(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

class OnnxModel {
 public:
  explicit OnnxModel(int opset = 13, int ir_version = 8);

  // dims: -1 -> dim_param named by `dim_names` (or "d<i>"), -2 -> no dim info.
  OnnxModel& Input(const std::string& name, const std::vector<int64_t>& dims,
                   int elem_type = onnx::TensorProto::FLOAT, const std::vector<std::string>& dim_names = {});
  // An output; dims as for Input (ONNX's checker wants a declared rank).
  OnnxModel& Output(const std::string& name, const std::vector<int64_t>& dims,
                    int elem_type = onnx::TensorProto::FLOAT);
  OnnxModel& Initializer(const std::string& name, const std::vector<int64_t>& dims, const std::vector<float>& values);
  OnnxModel& InitializerInt64(const std::string& name, const std::vector<int64_t>& dims,
                              const std::vector<int64_t>& values);
  // Returns the node for adding attributes.
  onnx::NodeProto* Node(const std::string& op, const std::vector<std::string>& inputs,
                        const std::vector<std::string>& outputs, const std::string& name = "");

  onnx::ModelProto& proto() { return model_; }
  std::string Serialize() const;
  std::string Save(const std::string& path) const;

 private:
  onnx::ModelProto model_;
};

void SetIntAttr(onnx::NodeProto* n, const std::string& name, int64_t v);
void SetFloatAttr(onnx::NodeProto* n, const std::string& name, float v);
void SetIntsAttr(onnx::NodeProto* n, const std::string& name, const std::vector<int64_t>& v);

void WriteBytes(const std::string& path, const std::string& bytes);

}  // namespace testing
}  // namespace loom
