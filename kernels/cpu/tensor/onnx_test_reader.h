// Test-only reader for ONNX backend test cases (model.onnx plus
// test_data_set_0/{input,output}_N.pb): a small protobuf wire-format decoder
// for the few ModelProto/NodeProto/AttributeProto/TensorProto fields a
// single-op test needs, so kernel tests can check themselves against ONNX's
// own expected outputs without linking protobuf. Header-only: included by
// tests, not compiled into the kernel library.
#pragma once

#include <cstdint>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "common/dtype.h"
#include "common/attributes.h"
#include "kernels/cpu/testing/kernel_tester.h"

namespace loom {
namespace onnx_test {

// A view of protobuf bytes with field iteration.
class Wire {
 public:
  Wire(const uint8_t* p, size_t n) : p_(p), end_(p + n) {}
  explicit Wire(const std::string& s) : Wire(reinterpret_cast<const uint8_t*>(s.data()), s.size()) {}

  // Reads the next field; false at the end or on malformed input.
  bool Next(int* field, int* wire_type) {
    if (p_ >= end_ || !ok_) return false;
    uint64_t key = 0;
    if (!Varint(&key)) return false;
    *field = static_cast<int>(key >> 3);
    *wire_type = static_cast<int>(key & 7);
    return true;
  }
  bool Varint(uint64_t* v) {
    *v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (p_ >= end_) return Fail();
      const uint8_t b = *p_++;
      *v |= static_cast<uint64_t>(b & 0x7f) << shift;
      if (!(b & 0x80)) return true;
    }
    return Fail();
  }
  bool Bytes(Wire* sub) {
    uint64_t n = 0;
    if (!Varint(&n) || n > static_cast<uint64_t>(end_ - p_)) return Fail();
    *sub = Wire(p_, static_cast<size_t>(n));
    p_ += n;
    return true;
  }
  bool String(std::string* s) {
    Wire sub(nullptr, 0);
    if (!Bytes(&sub)) return false;
    s->assign(reinterpret_cast<const char*>(sub.p_), static_cast<size_t>(sub.end_ - sub.p_));
    return true;
  }
  bool Fixed(void* out, size_t n) {
    if (static_cast<size_t>(end_ - p_) < n) return Fail();
    std::memcpy(out, p_, n);
    p_ += n;
    return true;
  }
  bool Skip(int wire_type) {
    uint64_t v = 0;
    Wire sub(nullptr, 0);
    uint8_t buf[8];
    switch (wire_type) {
      case 0:
        return Varint(&v);
      case 1:
        return Fixed(buf, 8);
      case 2:
        return Bytes(&sub);
      case 5:
        return Fixed(buf, 4);
      default:
        return Fail();
    }
  }
  // Repeated varints, packed (wire type 2) or not (0).
  bool Varints(int wire_type, std::vector<int64_t>* out) {
    uint64_t v = 0;
    if (wire_type == 0) {
      if (!Varint(&v)) return false;
      out->push_back(static_cast<int64_t>(v));
      return true;
    }
    Wire sub(nullptr, 0);
    if (!Bytes(&sub)) return false;
    while (sub.p_ < sub.end_) {
      if (!sub.Varint(&v)) return Fail();
      out->push_back(static_cast<int64_t>(v));
    }
    return true;
  }
  // Repeated fixed-size values (float/double), packed or not.
  template <typename T>
  bool Fixeds(int wire_type, std::vector<T>* out) {
    T v;
    if (wire_type != 2) {
      if (!Fixed(&v, sizeof(T))) return false;
      out->push_back(v);
      return true;
    }
    Wire sub(nullptr, 0);
    if (!Bytes(&sub)) return false;
    while (sub.p_ < sub.end_) {
      if (!sub.Fixed(&v, sizeof(T))) return Fail();
      out->push_back(v);
    }
    return true;
  }
  bool ok() const { return ok_; }

 private:
  bool Fail() {
    ok_ = false;
    return false;
  }
  const uint8_t* p_;
  const uint8_t* end_;
  bool ok_ = true;
};

struct Tensor {
  DType dtype = DType::kUndefined;
  Shape dims;
  std::vector<uint8_t> data;  // row-major little-endian
};

inline bool ParseTensor(Wire w, Tensor* t) {
  int field = 0, wt = 0;
  std::vector<int64_t> ints;
  std::vector<float> floats;
  std::vector<double> doubles;
  std::string raw;
  bool has_raw = false;
  while (w.Next(&field, &wt)) {
    uint64_t v = 0;
    switch (field) {
      case 1:
        if (!w.Varints(wt, &t->dims)) return false;
        break;
      case 2:
        if (!w.Varint(&v)) return false;
        t->dtype = static_cast<DType>(v);
        break;
      case 4:
        if (!w.Fixeds<float>(wt, &floats)) return false;
        break;
      case 5:
      case 7:
      case 11:
        if (!w.Varints(wt, &ints)) return false;
        break;
      case 9:
        if (!w.String(&raw)) return false;
        has_raw = true;
        break;
      case 10:
        if (!w.Fixeds<double>(wt, &doubles)) return false;
        break;
      default:
        if (!w.Skip(wt)) return false;
    }
  }
  if (!w.ok()) return false;
  const size_t es = DTypeSize(t->dtype);
  const int64_t n = NumElements(t->dims);
  if (es == 0 || n < 0) return false;
  if (has_raw) {
    t->data.assign(raw.begin(), raw.end());
  } else if (t->dtype == DType::kFloat32) {
    t->data.resize(floats.size() * 4);
    if (!floats.empty()) std::memcpy(t->data.data(), floats.data(), t->data.size());
  } else if (t->dtype == DType::kFloat64) {
    t->data.resize(doubles.size() * 8);
    if (!doubles.empty()) std::memcpy(t->data.data(), doubles.data(), t->data.size());
  } else {
    t->data.resize(ints.size() * es);
    for (size_t i = 0; i < ints.size(); ++i) std::memcpy(t->data.data() + i * es, &ints[i], es);  // little-endian
  }
  return t->data.size() == static_cast<size_t>(n) * es;
}

struct Node {
  std::string op, domain;
  std::vector<std::string> inputs, outputs;
  Attributes attrs;
};

inline bool ParseAttribute(Wire w, Attribute* a, bool* supported) {
  int field = 0, wt = 0;
  int64_t type = 0;
  *supported = true;
  while (w.Next(&field, &wt)) {
    uint64_t v = 0;
    Wire sub(nullptr, 0);
    switch (field) {
      case 1:
        if (!w.String(&a->name)) return false;
        break;
      case 2:
        if (!w.Fixed(&a->f, 4)) return false;
        break;
      case 3:
        if (!w.Varint(&v)) return false;
        a->i = static_cast<int64_t>(v);
        break;
      case 4:
        if (!w.String(&a->s)) return false;
        break;
      case 5: {
        if (!w.Bytes(&sub)) return false;
        auto t = std::make_shared<AttrTensor>();
        Tensor parsed;
        if (!ParseTensor(sub, &parsed)) return false;
        t->dtype = parsed.dtype;
        t->dims = parsed.dims;
        t->data = parsed.data;
        a->tensor = t;
        break;
      }
      case 7:
        if (!w.Fixeds<float>(wt, &a->floats)) return false;
        break;
      case 8:
        if (!w.Varints(wt, &a->ints)) return false;
        break;
      case 9: {
        std::string s;
        if (!w.String(&s)) return false;
        a->strings.push_back(s);
        break;
      }
      case 20:
        if (!w.Varint(&v)) return false;
        type = static_cast<int64_t>(v);
        break;
      default:
        if (!w.Skip(wt)) return false;
    }
  }
  using K = Attribute::Kind;
  switch (type) {
    case 1:
      a->kind = K::kFloat;
      break;
    case 2:
      a->kind = K::kInt;
      break;
    case 3:
      a->kind = K::kString;
      break;
    case 4:
      a->kind = K::kTensor;
      break;
    case 6:
      a->kind = K::kFloats;
      break;
    case 7:
      a->kind = K::kInts;
      break;
    case 8:
      a->kind = K::kStrings;
      break;
    default:
      *supported = false;
  }
  return w.ok();
}

inline bool ParseNode(Wire w, Node* n, bool* supported) {
  int field = 0, wt = 0;
  *supported = true;
  while (w.Next(&field, &wt)) {
    std::string s;
    Wire sub(nullptr, 0);
    switch (field) {
      case 1:
        if (!w.String(&s)) return false;
        n->inputs.push_back(s);
        break;
      case 2:
        if (!w.String(&s)) return false;
        n->outputs.push_back(s);
        break;
      case 4:
        if (!w.String(&n->op)) return false;
        break;
      case 7:
        if (!w.String(&n->domain)) return false;
        break;
      case 5: {
        if (!w.Bytes(&sub)) return false;
        Attribute a;
        bool ok_kind = true;
        if (!ParseAttribute(sub, &a, &ok_kind)) return false;
        if (!ok_kind) *supported = false;
        n->attrs.Set(a);
        break;
      }
      default:
        if (!w.Skip(wt)) return false;
    }
  }
  return w.ok();
}

// The parts of a test model that a single-op kernel test needs.
struct Model {
  int opset = 0;  // default domain
  std::vector<Node> nodes;
  std::vector<std::string> inputs, outputs;  // graph input/output names
  std::vector<std::pair<std::string, Tensor>> initializers;
  bool supported = true;  // false: attribute kinds we skip
};

inline bool ParseValueInfoName(Wire w, std::string* name) {
  int field = 0, wt = 0;
  while (w.Next(&field, &wt)) {
    if (field == 1) {
      if (!w.String(name)) return false;
    } else if (!w.Skip(wt)) {
      return false;
    }
  }
  return w.ok();
}

inline bool ParseModel(const std::string& bytes, Model* m) {
  Wire w(bytes);
  int field = 0, wt = 0;
  while (w.Next(&field, &wt)) {
    Wire sub(nullptr, 0);
    if (field == 8) {  // opset_import
      if (!w.Bytes(&sub)) return false;
      std::string domain;
      uint64_t version = 0;
      int f2 = 0, wt2 = 0;
      while (sub.Next(&f2, &wt2)) {
        if (f2 == 1) {
          if (!sub.String(&domain)) return false;
        } else if (f2 == 2) {
          if (!sub.Varint(&version)) return false;
        } else if (!sub.Skip(wt2)) {
          return false;
        }
      }
      if (domain.empty() || domain == "ai.onnx") m->opset = static_cast<int>(version);
    } else if (field == 7) {  // graph
      if (!w.Bytes(&sub)) return false;
      int f2 = 0, wt2 = 0;
      while (sub.Next(&f2, &wt2)) {
        Wire item(nullptr, 0);
        if (f2 == 5) {
          if (!sub.Bytes(&item)) return false;
          Tensor t;
          if (!ParseTensor(item, &t)) return false;
          int f3 = 0, wt3 = 0;
          std::string name;
          while (item.Next(&f3, &wt3)) {
            if (f3 == 8) {
              if (!item.String(&name)) return false;
            } else if (!item.Skip(wt3)) {
              return false;
            }
          }
          m->initializers.emplace_back(name, t);
        } else if (f2 == 1 || f2 == 11 || f2 == 12) {
          if (!sub.Bytes(&item)) return false;
          if (f2 == 1) {
            Node n;
            bool ok_kinds = true;
            if (!ParseNode(item, &n, &ok_kinds)) return false;
            if (!ok_kinds) m->supported = false;
            m->nodes.push_back(n);
          } else {
            std::string name;
            if (!ParseValueInfoName(item, &name)) return false;
            (f2 == 11 ? m->inputs : m->outputs).push_back(name);
          }
        } else if (!sub.Skip(wt2)) {
          return false;
        }
      }
    } else if (!w.Skip(wt)) {
      return false;
    }
  }
  return w.ok();
}

inline bool ReadFile(const std::string& path, std::string* out) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return false;
  std::ostringstream ss;
  ss << f.rdbuf();
  *out = ss.str();
  return true;
}

inline bool ReadTensorFile(const std::string& path, Tensor* t) {
  std::string bytes;
  return ReadFile(path, &bytes) && ParseTensor(Wire(bytes), t);
}

inline testing::TestTensor ToTestTensor(const Tensor& t, bool constant) {
  testing::TestTensor x;
  x.dtype = t.dtype;
  x.shape = t.dims;
  x.bytes = t.data;
  x.constant = constant;
  return x;
}

}  // namespace onnx_test
}  // namespace loom
