#include "engine/plan_convert.h"

#include <memory>
#include <utility>

namespace loom {
namespace {

template <typename T>
std::vector<T> ToVector(const flatbuffers::Vector<T>* v) {
  if (v == nullptr) return {};
  return std::vector<T>(v->begin(), v->end());
}

std::string ToString(const flatbuffers::String* s) { return s ? s->str() : std::string(); }

Attribute::Kind ToKind(plan::AttributeKind kind) {
  switch (kind) {
    case plan::AttributeKind::INT: return Attribute::Kind::kInt;
    case plan::AttributeKind::FLOAT: return Attribute::Kind::kFloat;
    case plan::AttributeKind::STRING: return Attribute::Kind::kString;
    case plan::AttributeKind::INTS: return Attribute::Kind::kInts;
    case plan::AttributeKind::FLOATS: return Attribute::Kind::kFloats;
    case plan::AttributeKind::STRINGS: return Attribute::Kind::kStrings;
    case plan::AttributeKind::TENSOR: return Attribute::Kind::kTensor;
  }
  return Attribute::Kind::kInt;
}

}  // namespace

Shape ToShape(const flatbuffers::Vector<int64_t>* dims) { return ToVector(dims); }

TensorInfo ToTensorInfo(const plan::Tensor& tensor, const uint8_t* constants) {
  TensorInfo info;
  if (tensor.storage() == plan::Storage::NONE) return info;
  info.present = true;
  info.dtype = static_cast<DType>(tensor.dtype());
  info.shape = ToShape(tensor.shape());
  if (const plan::QuantParams* q = tensor.quant()) {
    info.quant.scale = ToVector(q->scale());
    info.quant.zero_point = ToVector(q->zero_point());
    info.quant.axis = q->axis();
  }
  if (tensor.storage() == plan::Storage::CONSTANT) info.const_data = constants + tensor.offset();
  return info;
}

Attributes ToAttributes(const plan::Node& node) {
  Attributes attrs;
  if (node.attributes() == nullptr) return attrs;
  for (const plan::Attribute* a : *node.attributes()) {
    Attribute out;
    out.name = a->name()->str();
    out.kind = ToKind(a->kind());
    switch (a->kind()) {
      case plan::AttributeKind::INT: out.i = a->i(); break;
      case plan::AttributeKind::FLOAT: out.f = a->f(); break;
      case plan::AttributeKind::STRING: out.s = ToString(a->s()); break;
      case plan::AttributeKind::INTS: out.ints = ToVector(a->ints()); break;
      case plan::AttributeKind::FLOATS: out.floats = ToVector(a->floats()); break;
      case plan::AttributeKind::STRINGS:
        if (a->strings() != nullptr)
          for (const flatbuffers::String* s : *a->strings()) out.strings.push_back(ToString(s));
        break;
      case plan::AttributeKind::TENSOR: {
        auto t = std::make_shared<AttrTensor>();
        t->dtype = static_cast<DType>(a->tensor()->dtype());
        t->dims = ToShape(a->tensor()->dims());
        t->data = ToVector(a->tensor()->data());
        out.tensor = std::move(t);
        break;
      }
    }
    attrs.Set(std::move(out));
  }
  return attrs;
}

}  // namespace loom
