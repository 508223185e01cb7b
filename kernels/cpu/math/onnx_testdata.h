// Test-only reader for ONNX's backend node test cases
// (/usr/share/libonnx-testdata/data/node/<case>/{model.onnx,test_data_set_N/*.pb}).
// Decodes just enough of the protobuf wire format to get the model's opset,
// its nodes (op, inputs, attributes) and TensorProto files, so kernel tests
// can run the cases without protobuf or python.
#pragma once

#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "common/dtype.h"
#include "common/attributes.h"

namespace loom {
namespace onnx_testdata {

// A cursor over protobuf wire-format bytes.
class Wire {
 public:
  Wire(const uint8_t* begin, const uint8_t* end) : p_(begin), end_(end) {}
  explicit Wire(const std::string& s)
      : Wire(reinterpret_cast<const uint8_t*>(s.data()), reinterpret_cast<const uint8_t*>(s.data()) + s.size()) {}

  bool ok() const { return ok_; }
  bool done() const { return p_ >= end_ || !ok_; }

  // Reads the next field key.
  bool Next(uint32_t* field, uint32_t* wire_type) {
    if (done()) return false;
    const uint64_t key = Varint();
    *field = static_cast<uint32_t>(key >> 3);
    *wire_type = static_cast<uint32_t>(key & 7);
    return ok_;
  }
  uint64_t Varint() {
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (p_ >= end_) break;
      const uint8_t b = *p_++;
      v |= static_cast<uint64_t>(b & 0x7f) << shift;
      if (!(b & 0x80)) return v;
    }
    ok_ = false;
    return 0;
  }
  // A length-delimited payload.
  Wire Bytes() {
    const uint64_t n = Varint();
    if (!ok_ || n > static_cast<uint64_t>(end_ - p_)) {
      ok_ = false;
      return Wire(end_, end_);
    }
    Wire w(p_, p_ + n);
    p_ += n;
    return w;
  }
  std::string String() {
    Wire w = Bytes();
    return std::string(reinterpret_cast<const char*>(w.p_), w.end_ - w.p_);
  }
  template <typename T>
  T Fixed() {
    T v{};
    if (static_cast<size_t>(end_ - p_) < sizeof(T)) {
      ok_ = false;
      return v;
    }
    std::memcpy(&v, p_, sizeof(T));
    p_ += sizeof(T);
    return v;
  }
  void Skip(uint32_t wire_type) {
    switch (wire_type) {
      case 0:
        Varint();
        break;
      case 1:
        Fixed<uint64_t>();
        break;
      case 2:
        Bytes();
        break;
      case 5:
        Fixed<uint32_t>();
        break;
      default:
        ok_ = false;
    }
  }
  // Repeated scalar fields, packed (wire type 2) or not.
  void Varints(uint32_t wire_type, std::vector<uint64_t>* out) {
    if (wire_type != 2) {
      out->push_back(Varint());
      return;
    }
    Wire w = Bytes();
    while (!w.done()) out->push_back(w.Varint());
    ok_ = ok_ && w.ok();
  }
  template <typename T>
  void Fixeds(uint32_t wire_type, std::vector<T>* out) {
    if (wire_type != 2) {
      out->push_back(Fixed<T>());
      return;
    }
    Wire w = Bytes();
    while (!w.done()) out->push_back(w.Fixed<T>());
    ok_ = ok_ && w.ok();
  }

 private:
  const uint8_t* p_;
  const uint8_t* end_;
  bool ok_ = true;
};

struct Tensor {
  std::string name;
  DType dtype = DType::kUndefined;
  Shape dims;
  std::vector<uint8_t> bytes;  // row-major, DTypeSize(dtype) per element
};

// Parses a TensorProto. Returns false for malformed data or strings.
inline bool ParseTensor(Wire w, Tensor* t) {
  std::vector<uint64_t> dims, ints;
  std::vector<float> floats;
  std::vector<double> doubles;
  std::string raw;
  bool has_raw = false;
  int32_t data_type = 0;
  uint32_t field, wt;
  while (w.Next(&field, &wt)) {
    switch (field) {
      case 1:
        w.Varints(wt, &dims);
        break;
      case 2:
        data_type = static_cast<int32_t>(w.Varint());
        break;
      case 4:
        w.Fixeds<float>(wt, &floats);
        break;
      case 5:
      case 7:
      case 11:
        w.Varints(wt, &ints);
        break;
      case 8:
        t->name = w.String();
        break;
      case 9:
        raw = w.String();
        has_raw = true;
        break;
      case 10:
        w.Fixeds<double>(wt, &doubles);
        break;
      default:
        w.Skip(wt);
    }
  }
  if (!w.ok() || !IsKnownDType(data_type)) return false;
  t->dtype = static_cast<DType>(data_type);
  const size_t width = DTypeSize(t->dtype);
  if (width == 0) return false;
  t->dims.assign(dims.begin(), dims.end());
  const size_t n = static_cast<size_t>(NumElements(t->dims));
  if (has_raw) {
    if (raw.size() != n * width) return false;
    t->bytes.assign(raw.begin(), raw.end());
    return true;
  }
  t->bytes.assign(n * width, 0);
  for (size_t i = 0; i < n; ++i) {
    uint8_t* p = t->bytes.data() + i * width;
    if (!floats.empty() && i < floats.size()) {
      std::memcpy(p, &floats[i], 4);
    } else if (!doubles.empty() && i < doubles.size()) {
      std::memcpy(p, &doubles[i], 8);
    } else if (i < ints.size()) {
      std::memcpy(p, &ints[i], width);  // little-endian truncation
    } else {
      return false;
    }
  }
  return true;
}

inline bool ReadFile(const std::string& path, std::string* out) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return false;
  out->assign(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
  return true;
}

inline bool ReadTensorFile(const std::string& path, Tensor* t) {
  std::string bytes;
  return ReadFile(path, &bytes) && ParseTensor(Wire(bytes), t);
}

struct Node {
  std::string op_type;
  std::string domain;
  std::vector<std::string> inputs;
  std::vector<std::string> outputs;
  Attributes attrs;
};

// A graph input or output: its name and declared element type.
struct ValueInfo {
  std::string name;
  int32_t elem_type = 0;
};

// The test data stores some tensors under another dtype of the same width
// (bfloat16 as uint16): take the dtype the graph declares.
inline void ApplyDeclaredType(const ValueInfo& v, Tensor* t) {
  if (v.elem_type == 0 || !IsKnownDType(v.elem_type)) return;
  const DType declared = static_cast<DType>(v.elem_type);
  if (declared != t->dtype && DTypeSize(declared) == DTypeSize(t->dtype)) t->dtype = declared;
}

struct Model {
  int opset = 0;  // of the default domain
  std::vector<Node> nodes;
  std::vector<ValueInfo> inputs;  // graph inputs, in order
  std::vector<ValueInfo> outputs;
  std::vector<Tensor> initializers;
};

inline bool ParseAttribute(Wire w, Attribute* a) {
  std::vector<uint64_t> ints;
  std::vector<float> floats;
  int type = 0;
  uint32_t field, wt;
  while (w.Next(&field, &wt)) {
    switch (field) {
      case 1:
        a->name = w.String();
        break;
      case 2:
        a->f = w.Fixed<float>();
        break;
      case 3:
        a->i = static_cast<int64_t>(w.Varint());
        break;
      case 4:
        a->s = w.String();
        break;
      case 7:
        w.Fixeds<float>(wt, &floats);
        break;
      case 8:
        w.Varints(wt, &ints);
        break;
      case 9:
        a->strings.push_back(w.String());
        break;
      case 20:
        type = static_cast<int>(w.Varint());
        break;
      default:
        w.Skip(wt);
    }
  }
  switch (type) {
    case 1:
      a->kind = Attribute::Kind::kFloat;
      break;
    case 2:
      a->kind = Attribute::Kind::kInt;
      break;
    case 3:
      a->kind = Attribute::Kind::kString;
      break;
    case 6:
      a->kind = Attribute::Kind::kFloats;
      break;
    case 7:
      a->kind = Attribute::Kind::kInts;
      break;
    case 8:
      a->kind = Attribute::Kind::kStrings;
      break;
    default:
      return false;  // tensors and graphs are not needed here
  }
  a->floats = floats;
  for (uint64_t v : ints) a->ints.push_back(static_cast<int64_t>(v));
  return w.ok();
}

inline bool ParseNode(Wire w, Node* n) {
  uint32_t field, wt;
  while (w.Next(&field, &wt)) {
    switch (field) {
      case 1:
        n->inputs.push_back(w.String());
        break;
      case 2:
        n->outputs.push_back(w.String());
        break;
      case 4:
        n->op_type = w.String();
        break;
      case 7:
        n->domain = w.String();
        break;
      case 5: {
        Attribute a;
        if (!ParseAttribute(w.Bytes(), &a)) return false;
        n->attrs.Set(std::move(a));
        break;
      }
      default:
        w.Skip(wt);
    }
  }
  return w.ok();
}

inline ValueInfo ParseValueInfo(Wire w) {
  ValueInfo v;
  uint32_t field, wt;
  while (w.Next(&field, &wt)) {
    if (field == 1) {
      v.name = w.String();
    } else if (field == 2) {  // TypeProto.tensor_type.elem_type
      Wire type = w.Bytes();
      uint32_t f2, wt2;
      while (type.Next(&f2, &wt2)) {
        if (f2 != 1) {
          type.Skip(wt2);
          continue;
        }
        Wire tensor = type.Bytes();
        uint32_t f3, wt3;
        while (tensor.Next(&f3, &wt3)) {
          if (f3 == 1)
            v.elem_type = static_cast<int32_t>(tensor.Varint());
          else
            tensor.Skip(wt3);
        }
      }
    } else {
      w.Skip(wt);
    }
  }
  return v;
}

inline bool ParseModel(const std::string& bytes, Model* m) {
  Wire w(bytes);
  uint32_t field, wt;
  while (w.Next(&field, &wt)) {
    if (field == 8) {  // opset_import
      Wire o = w.Bytes();
      std::string domain;
      int64_t version = 0;
      uint32_t f2, wt2;
      while (o.Next(&f2, &wt2)) {
        if (f2 == 1)
          domain = o.String();
        else if (f2 == 2)
          version = static_cast<int64_t>(o.Varint());
        else
          o.Skip(wt2);
      }
      if (domain.empty() || domain == "ai.onnx") m->opset = static_cast<int>(version);
    } else if (field == 7) {  // graph
      Wire g = w.Bytes();
      uint32_t f2, wt2;
      while (g.Next(&f2, &wt2)) {
        if (f2 == 1) {
          Node n;
          if (!ParseNode(g.Bytes(), &n)) return false;
          m->nodes.push_back(std::move(n));
        } else if (f2 == 5) {
          Tensor t;
          if (!ParseTensor(g.Bytes(), &t)) return false;
          m->initializers.push_back(std::move(t));
        } else if (f2 == 11) {
          m->inputs.push_back(ParseValueInfo(g.Bytes()));
        } else if (f2 == 12) {
          m->outputs.push_back(ParseValueInfo(g.Bytes()));
        } else {
          g.Skip(wt2);
        }
      }
      if (!g.ok()) return false;
    } else {
      w.Skip(wt);
    }
  }
  return w.ok();
}

}  // namespace onnx_testdata
}  // namespace loom
