#include "engine/plan_convert.h"

#include "schemas/plan_codec.h"

namespace loom {
namespace {

template <typename T>
std::vector<T> ToVector(const flatbuffers::Vector<T>* v) {
  if (v == nullptr) return {};
  return std::vector<T>(v->begin(), v->end());
}

}  // namespace

Shape ToShape(const flatbuffers::Vector<int64_t>* dims) { return ToVector(dims); }

TensorInfo ToTensorInfo(const plan::Tensor& tensor, const uint8_t* constants) {
  TensorInfo info;
  if (tensor.storage() == plan::Storage::NONE) return info;
  info.present = true;
  info.dtype = plan_codec::FromPlan(tensor.dtype());
  info.shape = ToShape(tensor.shape());
  info.layout = plan_codec::FromPlan(tensor.layout());
  if (const plan::QuantParams* q = tensor.quant()) {
    info.quant.scale = ToVector(q->scale());
    info.quant.zero_point = ToVector(q->zero_point());
    info.quant.axis = q->axis();
  }
  if (tensor.storage() == plan::Storage::CONSTANT) info.const_data = constants + tensor.offset();
  return info;
}

Attributes ToAttributes(const plan::Node& node) { return plan_codec::DecodeAttributes(node.attributes()); }

}  // namespace loom
