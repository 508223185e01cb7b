#include "kernels/common/attribute_readers.h"

#include <utility>

#include "kernels/common/kernel_checks.h"

namespace loom {
namespace {

Status WrongKind(const KernelSetup& s, const Attribute& a, Attribute::Kind want) {
  return s.Invalid("attribute '" + a.name + "' is " + AttributeKindName(a.kind) + ", expected " +
                   AttributeKindName(want));
}

}  // namespace

Status ReadIntAttr(const KernelSetup& s, const char* name, int64_t def, int64_t* out) {
  const Attribute* a = s.attrs.Find(name);
  if (!a) {
    *out = def;
    return Status::Ok();
  }
  if (a->kind != Attribute::Kind::kInt) return WrongKind(s, *a, Attribute::Kind::kInt);
  *out = a->i;
  return Status::Ok();
}

Status ReadFloatAttr(const KernelSetup& s, const char* name, float def, float* out) {
  const Attribute* a = s.attrs.Find(name);
  if (!a) {
    *out = def;
    return Status::Ok();
  }
  if (a->kind == Attribute::Kind::kInt) {  // an integer literal
    *out = static_cast<float>(a->i);
    return Status::Ok();
  }
  if (a->kind != Attribute::Kind::kFloat) return WrongKind(s, *a, Attribute::Kind::kFloat);
  *out = a->f;
  return Status::Ok();
}

Status ReadStringAttr(const KernelSetup& s, const char* name, const std::string& def, std::string* out) {
  const Attribute* a = s.attrs.Find(name);
  if (!a) {
    *out = def;
    return Status::Ok();
  }
  if (a->kind != Attribute::Kind::kString) return WrongKind(s, *a, Attribute::Kind::kString);
  *out = a->s;
  return Status::Ok();
}

Status ReadIntsAttr(const KernelSetup& s, const char* name, std::vector<int64_t>* out, bool* present) {
  const Attribute* a = s.attrs.Find(name);
  out->clear();
  if (present) *present = a != nullptr;
  if (!a) return Status::Ok();
  if (a->kind == Attribute::Kind::kInt) {  // a single int where a list is expected
    out->push_back(a->i);
    return Status::Ok();
  }
  if (a->kind != Attribute::Kind::kInts) return WrongKind(s, *a, Attribute::Kind::kInts);
  *out = a->ints;
  return Status::Ok();
}

Status ReadIntsAttr(const KernelSetup& s, const char* name, size_t n, const std::vector<int64_t>& def,
                    std::vector<int64_t>* out) {
  bool present = false;
  std::vector<int64_t> values;  // `out` may alias `def`
  RETURN_IF_ERROR(ReadIntsAttr(s, name, &values, &present));
  if (!present) {
    *out = def;
    return Status::Ok();
  }
  if (values.size() != n)
    return s.Invalid(std::string("attribute '") + name + "' has " + std::to_string(values.size()) +
                     " values, expected " + std::to_string(n));
  *out = std::move(values);
  return Status::Ok();
}

Status ReadAxisAttr(const KernelSetup& s, const char* name, int64_t def, int64_t rank, int* axis) {
  int64_t v = 0;
  RETURN_IF_ERROR(ReadIntAttr(s, name, def, &v));
  int64_t n = 0;
  if (!NormalizeAxis(v, rank, &n))
    return s.Invalid(std::string("attribute '") + name + "' = " + std::to_string(v) + " out of range [" +
                     std::to_string(-rank) + ", " + std::to_string(rank) + ")");
  *axis = static_cast<int>(n);
  return Status::Ok();
}

}  // namespace loom
