// Typed node attributes, as kernels see them. The builder fills them from ONNX
// (plus Loom's own attributes, named "loom.*", that passes add, such as a fused
// activation); the engine fills them from the plan. Kernels read them only in
// Prepare.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/dtype.h"

namespace loom {

// A small constant tensor held by an attribute (ConstantOfShape's `value`).
struct AttrTensor {
  DType dtype = DType::kUndefined;
  Shape dims;
  std::vector<uint8_t> data;  // row-major, DTypeSize(dtype) bytes per element
};

struct Attribute {
  enum class Kind { kInt, kFloat, kString, kInts, kFloats, kStrings, kTensor };
  std::string name;
  Kind kind = Kind::kInt;
  int64_t i = 0;
  float f = 0.f;
  std::string s;
  std::vector<int64_t> ints;
  std::vector<float> floats;
  std::vector<std::string> strings;
  std::shared_ptr<const AttrTensor> tensor;
};

const char* AttributeKindName(Attribute::Kind kind);

class Attributes {
 public:
  // Adds or replaces the attribute with a.name.
  void Set(Attribute a);
  void SetInt(std::string name, int64_t v);
  void SetFloat(std::string name, float v);
  void SetString(std::string name, std::string v);
  void SetInts(std::string name, std::vector<int64_t> v);
  void SetFloats(std::string name, std::vector<float> v);
  bool Erase(std::string_view name);

  const Attribute* Find(std::string_view name) const;
  bool Has(std::string_view name) const { return Find(name) != nullptr; }

  // Getters return `def` when the attribute is absent (or of another kind;
  // kernels that care check Find()->kind).
  int64_t GetInt(std::string_view name, int64_t def) const;
  float GetFloat(std::string_view name, float def) const;
  std::string GetString(std::string_view name, const std::string& def) const;
  std::vector<int64_t> GetInts(std::string_view name, const std::vector<int64_t>& def = {}) const;
  std::vector<float> GetFloats(std::string_view name, const std::vector<float>& def = {}) const;

  const std::vector<Attribute>& all() const { return attrs_; }
  size_t size() const { return attrs_.size(); }

 private:
  std::vector<Attribute> attrs_;
};

}  // namespace loom
