#include "builder/testing/int8_layers.h"

#include <random>
#include <vector>

namespace loom {
namespace testing {

int Int8Layers::Activation(const std::string& name, const Shape& shape) {
  const int id = b_->Tensor(name, shape, DType::kInt8);
  b_->g.value(id).quant.scale = {0.05f};
  b_->g.value(id).quant.zero_point = {-3};
  return id;
}

int Int8Layers::Input(const std::string& name, const Shape& shape) {
  const int id = Activation(name, shape);
  b_->g.inputs().push_back(id);
  return id;
}

int Int8Layers::Conv(int x, int64_t out_c, int64_t k, int64_t stride, int64_t group, const std::string& name,
                     int* node) {
  const Shape& in = b_->g.value(x).shape;
  const int64_t in_c = in[1], pad = k / 2;
  const int64_t out_h = (in[2] + 2 * pad - k) / stride + 1, out_w = (in[3] + 2 * pad - k) / stride + 1;
  std::mt19937 rng(seed_++);
  std::uniform_int_distribution<int> values(-127, 127);
  std::vector<int8_t> weights(static_cast<size_t>(out_c * (in_c / group) * k * k));
  for (int8_t& w : weights) w = static_cast<int8_t>(values(rng));
  const int w = b_->g.AddConstant(name + ".w", DType::kInt8, {out_c, in_c / group, k, k},
                                  ir::Buffer::CopyOf(weights.data(), weights.size()));
  b_->g.value(w).quant.scale.assign(static_cast<size_t>(out_c), 0.002f);
  b_->g.value(w).quant.zero_point.assign(static_cast<size_t>(out_c), 0);
  const std::vector<int32_t> bias(static_cast<size_t>(out_c), 100);
  const int bias_id =
      b_->g.AddConstant(name + ".b", DType::kInt32, {out_c}, ir::Buffer::CopyOf(bias.data(), bias.size() * 4));
  b_->g.value(bias_id).quant.scale.assign(static_cast<size_t>(out_c), 0.05f * 0.002f);
  b_->g.value(bias_id).quant.zero_point.assign(static_cast<size_t>(out_c), 0);
  const int y = Activation(name + ".y", {1, out_c, out_h, out_w});
  const int n = b_->Node("Conv", {x, w, bias_id}, {y}, name);
  ir::Node& conv = b_->node(n);
  conv.attrs.SetInts("kernel_shape", {k, k});
  conv.attrs.SetInts("pads", {pad, pad, pad, pad});
  conv.attrs.SetInts("strides", {stride, stride});
  conv.attrs.SetInt("group", group);
  if (node != nullptr) *node = n;
  return y;
}

int Int8Layers::Add(int a, int b, const std::string& name, int* node) {
  const int y = Activation(name + ".y", b_->g.value(a).shape);
  const int n = b_->Node("Add", {a, b}, {y}, name);
  if (node != nullptr) *node = n;
  return y;
}

int Int8Layers::MaxPool(int x, int64_t k, const std::string& name, int* node) {
  const Shape& in = b_->g.value(x).shape;
  const int y = Activation(name + ".y", {in[0], in[1], in[2] / k, in[3] / k});
  const int n = b_->Node("MaxPool", {x}, {y}, name);
  b_->node(n).attrs.SetInts("kernel_shape", {k, k});
  b_->node(n).attrs.SetInts("strides", {k, k});
  if (node != nullptr) *node = n;
  return y;
}

}  // namespace testing
}  // namespace loom
