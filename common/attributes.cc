#include "common/attributes.h"

#include <algorithm>

namespace loom {

const char* AttributeKindName(Attribute::Kind kind) {
  switch (kind) {
    case Attribute::Kind::kInt: return "int";
    case Attribute::Kind::kFloat: return "float";
    case Attribute::Kind::kString: return "string";
    case Attribute::Kind::kInts: return "ints";
    case Attribute::Kind::kFloats: return "floats";
    case Attribute::Kind::kStrings: return "strings";
    case Attribute::Kind::kTensor: return "tensor";
  }
  return "unknown";
}

void Attributes::Set(Attribute a) {
  for (Attribute& existing : attrs_) {
    if (existing.name == a.name) {
      existing = std::move(a);
      return;
    }
  }
  attrs_.push_back(std::move(a));
}

void Attributes::SetInt(std::string name, int64_t v) {
  Attribute a;
  a.name = std::move(name);
  a.kind = Attribute::Kind::kInt;
  a.i = v;
  Set(std::move(a));
}

void Attributes::SetFloat(std::string name, float v) {
  Attribute a;
  a.name = std::move(name);
  a.kind = Attribute::Kind::kFloat;
  a.f = v;
  Set(std::move(a));
}

void Attributes::SetString(std::string name, std::string v) {
  Attribute a;
  a.name = std::move(name);
  a.kind = Attribute::Kind::kString;
  a.s = std::move(v);
  Set(std::move(a));
}

void Attributes::SetInts(std::string name, std::vector<int64_t> v) {
  Attribute a;
  a.name = std::move(name);
  a.kind = Attribute::Kind::kInts;
  a.ints = std::move(v);
  Set(std::move(a));
}

void Attributes::SetFloats(std::string name, std::vector<float> v) {
  Attribute a;
  a.name = std::move(name);
  a.kind = Attribute::Kind::kFloats;
  a.floats = std::move(v);
  Set(std::move(a));
}

bool Attributes::Erase(std::string_view name) {
  auto it = std::find_if(attrs_.begin(), attrs_.end(), [&](const Attribute& a) { return a.name == name; });
  if (it == attrs_.end()) return false;
  attrs_.erase(it);
  return true;
}

const Attribute* Attributes::Find(std::string_view name) const {
  for (const Attribute& a : attrs_)
    if (a.name == name) return &a;
  return nullptr;
}

int64_t Attributes::GetInt(std::string_view name, int64_t def) const {
  const Attribute* a = Find(name);
  return a && a->kind == Attribute::Kind::kInt ? a->i : def;
}

float Attributes::GetFloat(std::string_view name, float def) const {
  const Attribute* a = Find(name);
  return a && a->kind == Attribute::Kind::kFloat ? a->f : def;
}

std::string Attributes::GetString(std::string_view name, const std::string& def) const {
  const Attribute* a = Find(name);
  return a && a->kind == Attribute::Kind::kString ? a->s : def;
}

std::vector<int64_t> Attributes::GetInts(std::string_view name, const std::vector<int64_t>& def) const {
  const Attribute* a = Find(name);
  return a && a->kind == Attribute::Kind::kInts ? a->ints : def;
}

std::vector<float> Attributes::GetFloats(std::string_view name, const std::vector<float>& def) const {
  const Attribute* a = Find(name);
  return a && a->kind == Attribute::Kind::kFloats ? a->floats : def;
}

}  // namespace loom
