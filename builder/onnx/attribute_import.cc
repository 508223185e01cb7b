#include "builder/onnx/attribute_import.h"

#include <cstring>

#include "builder/onnx/tensor_proto.h"

namespace loom {
namespace onnx_import {

namespace {

const char* OnnxAttributeTypeName(onnx::AttributeProto::AttributeType t) {
  switch (t) {
    case onnx::AttributeProto::GRAPH: return "graph";
    case onnx::AttributeProto::GRAPHS: return "graphs";
    case onnx::AttributeProto::SPARSE_TENSOR: return "sparse tensor";
    case onnx::AttributeProto::SPARSE_TENSORS: return "sparse tensors";
    case onnx::AttributeProto::TENSORS: return "tensors";
    case onnx::AttributeProto::TYPE_PROTO: return "type";
    case onnx::AttributeProto::TYPE_PROTOS: return "types";
    default: return "unknown";
  }
}

// Old models may leave `type` unset; infer it from the field that is filled.
onnx::AttributeProto::AttributeType EffectiveType(const onnx::AttributeProto& a) {
  if (a.type() != onnx::AttributeProto::UNDEFINED) return a.type();
  if (a.has_f()) return onnx::AttributeProto::FLOAT;
  if (a.has_i()) return onnx::AttributeProto::INT;
  if (a.has_s()) return onnx::AttributeProto::STRING;
  if (a.has_t()) return onnx::AttributeProto::TENSOR;
  if (a.has_g()) return onnx::AttributeProto::GRAPH;
  if (a.floats_size()) return onnx::AttributeProto::FLOATS;
  if (a.ints_size()) return onnx::AttributeProto::INTS;
  if (a.strings_size()) return onnx::AttributeProto::STRINGS;
  return onnx::AttributeProto::UNDEFINED;
}

}  // namespace

Status ConvertAttribute(const onnx::AttributeProto& a, const std::string& node_label, Attribute* out) {
  out->name = a.name();
  switch (EffectiveType(a)) {
    case onnx::AttributeProto::FLOAT:
      out->kind = Attribute::Kind::kFloat;
      out->f = a.f();
      return Status::Ok();
    case onnx::AttributeProto::INT:
      out->kind = Attribute::Kind::kInt;
      out->i = a.i();
      return Status::Ok();
    case onnx::AttributeProto::STRING:
      out->kind = Attribute::Kind::kString;
      out->s = a.s();
      return Status::Ok();
    case onnx::AttributeProto::FLOATS:
      out->kind = Attribute::Kind::kFloats;
      out->floats.assign(a.floats().begin(), a.floats().end());
      return Status::Ok();
    case onnx::AttributeProto::INTS:
      out->kind = Attribute::Kind::kInts;
      out->ints.assign(a.ints().begin(), a.ints().end());
      return Status::Ok();
    case onnx::AttributeProto::STRINGS:
      out->kind = Attribute::Kind::kStrings;
      out->strings.assign(a.strings().begin(), a.strings().end());
      return Status::Ok();
    case onnx::AttributeProto::TENSOR: {
      ConstantTensor c;
      RETURN_IF_ERROR(ConvertTensorProto(a.t(), node_label + ": attribute '" + a.name() + "'", &c));
      auto t = std::make_shared<AttrTensor>();
      t->dtype = c.dtype;
      t->dims = c.shape;
      t->data.assign(c.data->data(), c.data->data() + c.data->size());
      out->kind = Attribute::Kind::kTensor;
      out->tensor = std::move(t);
      return Status::Ok();
    }
    case onnx::AttributeProto::UNDEFINED:
      return Status::InvalidArgument(node_label + ": attribute '" + a.name() + "' has no type");
    default:
      return Status::Unsupported(node_label + ": unsupported attribute '" + a.name() + "' of type " +
                                 OnnxAttributeTypeName(EffectiveType(a)));
  }
}

}  // namespace onnx_import
}  // namespace loom
