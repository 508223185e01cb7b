// Int8 layers in IR for placement and cost-model tests, following the int8
// tensor contract (kernels/cpu/int8/README.md): per-tensor activations,
// constant symmetric per-channel weights, int32 bias. The CPU int8 kernels
// accept them, and so does the accelerator where its limits allow:
//   IrBuilder b;
//   Int8Layers l(&b);
//   int x = l.Input("x", {1, 64, 28, 28});
//   int y = l.Conv(x, 64, 3, 1, 1, "conv1");  // 3x3, stride 1, group 1
#pragma once

#include <cstdint>
#include <string>

#include "builder/testing/ir_builder.h"

namespace loom {
namespace testing {

class Int8Layers {
 public:
  explicit Int8Layers(IrBuilder* b) : b_(b) {}

  // A graph input.
  int Input(const std::string& name, const Shape& shape);
  // Conv with a k x k kernel, "same" padding, `stride` and `group`; returns
  // the output value. `node` (optional) gets the node index.
  int Conv(int x, int64_t out_c, int64_t k, int64_t stride, int64_t group, const std::string& name,
           int* node = nullptr);
  // Elementwise Add of two activations of one shape.
  int Add(int a, int b, const std::string& name, int* node = nullptr);
  // k x k MaxPool with stride k.
  int MaxPool(int x, int64_t k, const std::string& name, int* node = nullptr);

 private:
  int Activation(const std::string& name, const Shape& shape);

  IrBuilder* b_;
  uint32_t seed_ = 1;
};

}  // namespace testing
}  // namespace loom
