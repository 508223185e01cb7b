// Fields used (onnx.proto); everything else is skipped:
//   ModelProto          7 graph  8 opset_import
//   OperatorSetIdProto  1 domain  2 version
//   GraphProto          1 node  5 initializer  11 input  12 output
//   NodeProto           1 input  2 output  4 op_type  5 attribute  7 domain
//   AttributeProto      1 name  2 f  3 i  4 s  5 t  7 floats  8 ints
//                       9 strings  20 type
//   ValueInfoProto      1 name  2 type: TypeProto 1 tensor_type: 1 elem_type
#include "tools/tensor_io/model_proto.h"

#include <cstring>
#include <memory>
#include <utility>

#include "tools/tensor_io/file_util.h"
#include "tools/tensor_io/proto_wire.h"

namespace loom {
namespace {

// AttributeProto.type values that Attributes can hold.
bool AttributeKindOf(int64_t type, Attribute::Kind* kind) {
  using K = Attribute::Kind;
  switch (type) {
    case 1: *kind = K::kFloat; return true;
    case 2: *kind = K::kInt; return true;
    case 3: *kind = K::kString; return true;
    case 4: *kind = K::kTensor; return true;
    case 6: *kind = K::kFloats; return true;
    case 7: *kind = K::kInts; return true;
    case 8: *kind = K::kStrings; return true;
    default: return false;
  }
}

// A tensor attribute; *readable is false for tensors HostTensor cannot hold.
Status ReadAttrTensor(WireReader* r, uint64_t field, int wire, Attribute* a, bool* readable) {
  const uint8_t* data = nullptr;
  size_t size = 0;
  RETURN_IF_ERROR(r->Bytes(field, wire, &data, &size));
  HostTensor t;
  const Status s = ParseTensorProto(data, size, &t);
  if (s.code() == StatusCode::kUnsupported) {  // e.g. a string tensor
    *readable = false;
    return Status::Ok();
  }
  RETURN_IF_ERROR(s);
  auto tensor = std::make_shared<AttrTensor>();
  tensor->dtype = t.dtype;
  tensor->dims = std::move(t.shape);
  tensor->data = std::move(t.data);
  a->tensor = std::move(tensor);
  return Status::Ok();
}

// Reads one attribute; *readable is false for kinds Attributes cannot hold.
Status ParseAttribute(WireReader r, Attribute* a, bool* readable) {
  int64_t type = 0;
  std::vector<uint8_t> floats;
  std::vector<uint64_t> ints;
  *readable = true;
  RETURN_IF_ERROR(r.ForEachField([&](uint64_t field, int wire) -> Status {
    switch (field) {
      case 1: return r.String(field, wire, &a->name);
      case 2: return r.Float(field, wire, &a->f);
      case 3: return r.Int(field, wire, &a->i);
      case 4: return r.String(field, wire, &a->s);
      case 5: return ReadAttrTensor(&r, field, wire, a, readable);
      case 7: return r.RepeatedFixed(field, wire, 4, &floats);
      case 8: return r.RepeatedVarints(field, wire, &ints);
      case 9:
        a->strings.emplace_back();
        return r.String(field, wire, &a->strings.back());
      case 20: return r.Int(field, wire, &type);
      default: return r.Skip(field, wire);
    }
  }));
  a->floats.resize(floats.size() / 4);
  if (!floats.empty()) std::memcpy(a->floats.data(), floats.data(), floats.size());
  for (uint64_t v : ints) a->ints.push_back(static_cast<int64_t>(v));
  if (!AttributeKindOf(type, &a->kind) || (a->kind == Attribute::Kind::kTensor && !a->tensor)) *readable = false;
  return Status::Ok();
}

Status ParseNode(WireReader r, OnnxNode* node) {
  return r.ForEachField([&](uint64_t field, int wire) -> Status {
    WireReader sub;
    Attribute a;
    bool readable = true;
    switch (field) {
      case 1:
      case 2: {
        std::vector<std::string>& names = field == 1 ? node->inputs : node->outputs;
        names.emplace_back();
        return r.String(field, wire, &names.back());
      }
      case 4: return r.String(field, wire, &node->op_type);
      case 7: return r.String(field, wire, &node->domain);
      case 5:
        RETURN_IF_ERROR(r.Message(field, wire, "AttributeProto", &sub));
        RETURN_IF_ERROR(ParseAttribute(sub, &a, &readable));
        if (readable) {
          node->attrs.Set(std::move(a));
        } else {
          node->unreadable_attrs.push_back(a.name);
        }
        return Status::Ok();
      default: return r.Skip(field, wire);
    }
  });
}

// The varint at `path` (field numbers of nested messages) in `r`; 0 if absent.
Status NestedInt(WireReader r, const std::vector<uint64_t>& path, size_t depth, int64_t* out) {
  return r.ForEachField([&](uint64_t field, int wire) -> Status {
    if (field != path[depth]) return r.Skip(field, wire);
    if (depth + 1 == path.size()) return r.Int(field, wire, out);
    WireReader sub;
    RETURN_IF_ERROR(r.Message(field, wire, "TypeProto", &sub));
    return NestedInt(sub, path, depth + 1, out);
  });
}

Status ParseValueInfo(WireReader r, OnnxValueInfo* v) {
  return r.ForEachField([&](uint64_t field, int wire) -> Status {
    WireReader type;
    int64_t elem_type = 0;
    if (field == 1) return r.String(field, wire, &v->name);
    if (field != 2) return r.Skip(field, wire);
    RETURN_IF_ERROR(r.Message(field, wire, "TypeProto", &type));
    RETURN_IF_ERROR(NestedInt(type, {1, 1}, 0, &elem_type));  // tensor_type.elem_type
    v->elem_type = static_cast<int32_t>(elem_type);
    return Status::Ok();
  });
}

Status ParseGraph(WireReader r, OnnxModel* m) {
  return r.ForEachField([&](uint64_t field, int wire) -> Status {
    WireReader sub;
    const uint8_t* data = nullptr;
    size_t size = 0;
    switch (field) {
      case 1:
        m->nodes.emplace_back();
        RETURN_IF_ERROR(r.Message(field, wire, "NodeProto", &sub));
        return ParseNode(sub, &m->nodes.back());
      case 5:
        m->initializers.emplace_back();
        RETURN_IF_ERROR(r.Bytes(field, wire, &data, &size));
        return ParseTensorProto(data, size, &m->initializers.back());
      case 11:
      case 12: {
        std::vector<OnnxValueInfo>& values = field == 11 ? m->inputs : m->outputs;
        values.emplace_back();
        RETURN_IF_ERROR(r.Message(field, wire, "ValueInfoProto", &sub));
        return ParseValueInfo(sub, &values.back());
      }
      default: return r.Skip(field, wire);
    }
  });
}

Status ParseOpset(WireReader r, OnnxModel* m) {
  std::string domain;
  int64_t version = 0;
  RETURN_IF_ERROR(r.ForEachField([&](uint64_t field, int wire) -> Status {
    if (field == 1) return r.String(field, wire, &domain);
    if (field == 2) return r.Int(field, wire, &version);
    return r.Skip(field, wire);
  }));
  m->opsets[domain == "ai.onnx" ? "" : domain] = version;
  return Status::Ok();
}

}  // namespace

Status ParseModelProto(const uint8_t* data, size_t size, OnnxModel* out) {
  WireReader r(data, size, "ModelProto");
  *out = OnnxModel();
  return r.ForEachField([&](uint64_t field, int wire) -> Status {
    WireReader sub;
    if (field == 7) {
      RETURN_IF_ERROR(r.Message(field, wire, "GraphProto", &sub));
      return ParseGraph(sub, out);
    }
    if (field != 8) return r.Skip(field, wire);
    RETURN_IF_ERROR(r.Message(field, wire, "OperatorSetIdProto", &sub));
    return ParseOpset(sub, out);
  });
}

Status ReadModelProto(const std::string& path, OnnxModel* out) {
  std::vector<uint8_t> file;
  RETURN_IF_ERROR(ReadWholeFile(path, &file));
  const Status s = ParseModelProto(file.data(), file.size(), out);
  if (!s.ok()) return s.WithContext("'" + path + "'");
  return Status::Ok();
}

}  // namespace loom
