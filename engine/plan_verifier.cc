#include "engine/plan_verifier.h"

#include <cmath>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include "common/device.h"
#include "common/dtype.h"
#include "common/layout.h"
#include "common/node_label.h"
#include "engine/plan_convert.h"
#include "schemas/plan_format.h"

namespace loom {
namespace {

Status Bad(std::string message) { return Status::Corrupt(std::move(message)); }

bool IsKnownDevice(int device) { return device >= 0 && device <= static_cast<int>(plan::Device::MAX); }

std::string Range(uint64_t offset, uint64_t bytes) {
  return "[" + std::to_string(offset) + ", +" + std::to_string(bytes) + ")";
}

// The flatbuffers Verifier checks the alignment of a vector's length only;
// 64-bit elements must be 8-byte aligned too (on armhf, unaligned 64-bit loads
// can fault). Empty vectors are not padded by FlatBufferBuilder, and have no
// elements to load.
bool Aligned(const flatbuffers::Vector<int64_t>* v) {
  return v == nullptr || v->size() == 0 || reinterpret_cast<uintptr_t>(v->data()) % alignof(int64_t) == 0;
}

// Checks dims >= 0 and computes numel * DTypeSize(dtype) without overflow.
Status CheckedBytes(const std::string& label, const Shape& shape, DType dtype, uint64_t* bytes) {
  for (size_t k = 0; k < shape.size(); ++k) {
    if (shape[k] < 0)
      return Bad(label + ": dim " + std::to_string(k) + " is " + std::to_string(shape[k]) + ", expected >= 0");
  }
  const int64_t numel = NumElements(shape);
  if (numel < 0) return Bad(label + ": shape " + ShapeToString(shape) + " has too many elements");
  if (__builtin_mul_overflow(static_cast<uint64_t>(numel), DTypeSize(dtype), bytes))
    return Bad(label + ": shape " + ShapeToString(shape) + " is too large");
  return Status::Ok();
}

Status CheckQuant(const std::string& label, const plan::QuantParams& q, const Shape& shape) {
  const size_t n = q.scale() ? q.scale()->size() : 0;
  if (n == 0) return Bad(label + ": quantization parameters have no scale");
  if (!Aligned(q.zero_point())) return Bad(label + ": misaligned zero points");
  for (float s : *q.scale())
    if (!std::isfinite(s)) return Bad(label + ": quantization scale is not finite");
  if (q.zero_point() && q.zero_point()->size() != 0 && q.zero_point()->size() != n) {
    return Bad(label + ": " + std::to_string(q.zero_point()->size()) + " zero points for " + std::to_string(n) +
               " scales");
  }
  if (n > 1) {
    const int32_t axis = q.axis();
    if (axis < 0 || axis >= static_cast<int32_t>(shape.size()) || shape[axis] != static_cast<int64_t>(n)) {
      return Bad(label + ": " + std::to_string(n) + " per-channel scales do not match axis " + std::to_string(axis) +
                 " of shape " + ShapeToString(shape));
    }
  }
  return Status::Ok();
}

Status CheckTensor(const plan::Plan& p, int32_t i, const PlanLayout& layout) {
  const plan::Tensor& t = *p.tensors()->Get(i);
  const std::string label = TensorLabel(p, i);
  const int storage = static_cast<int>(t.storage());
  if (storage < 0 || storage > static_cast<int>(plan::Storage::MAX))
    return Bad(label + ": unknown storage kind " + std::to_string(storage));
  // Whether a node's kernel takes the layout is the engine's check.
  const int layout_kind = static_cast<int>(t.layout());
  if (!IsKnownLayout(layout_kind)) return Bad(label + ": unknown layout " + std::to_string(layout_kind));
  const int space = static_cast<int>(t.memory_space());
  if (space < 0 || space > static_cast<int>(plan::MemorySpace::MAX))
    return Bad(label + ": unknown memory space " + std::to_string(space));
  if (t.storage() != plan::Storage::ARENA && t.memory_space() != plan::MemorySpace::HOST) {
    return Bad(label + (t.storage() == plan::Storage::CONSTANT ? ": a constant" : ": an omitted") +
               " tensor cannot be in " + MemorySpaceName(static_cast<MemorySpace>(space)) + " memory");
  }
  const int32_t dtype_value = static_cast<int32_t>(t.dtype());
  if (!IsKnownDType(dtype_value)) return Bad(label + ": unknown dtype " + std::to_string(dtype_value));
  if (!Aligned(t.shape())) return Bad(label + ": misaligned shape");
  const DType dtype = static_cast<DType>(dtype_value);
  const Shape shape = ToShape(t.shape());
  uint64_t bytes = 0;
  if (t.storage() == plan::Storage::NONE) {
    if (t.size_bytes() != 0) return Bad(label + ": an omitted tensor has " + std::to_string(t.size_bytes()) + " bytes");
    return Status::Ok();
  }
  const size_t element = DTypeSize(dtype);
  if (element == 0) return Status::Unsupported(label + ": dtype " + DTypeName(dtype) + " cannot be executed");
  RETURN_IF_ERROR(CheckedBytes(label, shape, dtype, &bytes));
  if (t.layout() == plan::Layout::NHWC_PADDED) {
    // Padded channels: at least the unpadded bytes, in whole elements.
    if (t.size_bytes() < bytes || t.size_bytes() % element != 0) {
      return Bad(label + ": size_bytes is " + std::to_string(t.size_bytes()) + ", expected a multiple of " +
                 std::to_string(element) + " of at least " + std::to_string(bytes) + " for " + DTypeName(dtype) +
                 " " + ShapeToString(shape) + " in layout nhwc_padded");
    }
  } else if (t.size_bytes() != bytes) {
    return Bad(label + ": size_bytes is " + std::to_string(t.size_bytes()) + ", expected " + std::to_string(bytes) +
               " for " + DTypeName(dtype) + " " + ShapeToString(shape));
  }
  const bool constant = t.storage() == plan::Storage::CONSTANT;
  const uint64_t limit = constant ? layout.constants_bytes : p.arena_bytes();
  const char* section = constant ? "the constants section" : "the arena";
  if (t.offset() > limit || t.size_bytes() > limit - t.offset()) {
    return Bad(label + ": data " + Range(t.offset(), t.size_bytes()) + " lies outside " + section + " (" +
               std::to_string(limit) + " bytes)");
  }
  if (t.offset() % element != 0) {
    return Bad(label + ": offset " + std::to_string(t.offset()) + " in " + section + " is not aligned to its " +
               std::to_string(element) + "-byte elements");
  }
  if (t.quant() != nullptr) RETURN_IF_ERROR(CheckQuant(label, *t.quant(), shape));
  return Status::Ok();
}

Status CheckAttribute(const std::string& node, const plan::Attribute& a) {
  const std::string label = node + ": attribute '" + a.name()->str() + "'";
  if (a.name()->size() == 0) return Bad(node + ": attribute with an empty name");
  const int kind = static_cast<int>(a.kind());
  if (kind < 0 || kind > static_cast<int>(plan::AttributeKind::MAX))
    return Bad(label + ": unknown kind " + std::to_string(kind));
  if (!Aligned(a.ints())) return Bad(label + ": misaligned ints");
  if (a.kind() != plan::AttributeKind::TENSOR) return Status::Ok();
  const plan::TensorValue* v = a.tensor();
  if (v == nullptr) return Bad(label + ": tensor value missing");
  if (!Aligned(v->dims())) return Bad(label + ": misaligned tensor dims");
  const int32_t dtype_value = static_cast<int32_t>(v->dtype());
  if (!IsKnownDType(dtype_value) || DTypeSize(static_cast<DType>(dtype_value)) == 0)
    return Bad(label + ": tensor dtype " + std::to_string(dtype_value) + " is not supported");
  uint64_t bytes = 0;
  RETURN_IF_ERROR(CheckedBytes(label, ToShape(v->dims()), static_cast<DType>(dtype_value), &bytes));
  const uint64_t have = v->data() ? v->data()->size() : 0;
  if (have != bytes)
    return Bad(label + ": tensor holds " + std::to_string(have) + " bytes, expected " + std::to_string(bytes));
  return Status::Ok();
}

// Tracks which tensors hold data at each point of the execution order.
struct TensorState {
  bool available = false;  // constant, graph input, omitted, or produced already
  bool graph_input = false;
  bool produced = false;
};

Status CheckGraphEnds(const plan::Plan& p, const flatbuffers::Vector<int32_t>* list, const char* what,
                      std::vector<TensorState>* state) {
  const int32_t n = static_cast<int32_t>(p.tensors()->size());
  std::set<std::string> names;
  std::set<int32_t> seen;
  for (size_t k = 0; k < (list ? list->size() : 0); ++k) {
    const int32_t idx = list->Get(k);
    if (idx < 0 || idx >= n) {
      return Bad(std::string("graph ") + what + " " + std::to_string(k) + " refers to tensor " + std::to_string(idx) +
                 ", but the plan has " + std::to_string(n) + " tensors");
    }
    const plan::Tensor& t = *p.tensors()->Get(idx);
    const std::string label = std::string("graph ") + what + " " + TensorLabel(p, idx);
    if (t.storage() != plan::Storage::ARENA) return Bad(label + " is not an arena tensor");
    if (t.name() == nullptr || t.name()->size() == 0)
      return Bad(std::string("graph ") + what + " " + std::to_string(k) + " has no name");
    if (!names.insert(t.name()->str()).second || !seen.insert(idx).second) return Bad(label + " is listed twice");
    TensorState& s = (*state)[idx];
    if (what[0] == 'i') {
      s.graph_input = true;
      s.available = true;
    } else {
      if (s.graph_input) return Bad(label + " is also a graph input");
      if (!s.produced) return Bad(label + " is not produced by any node");
    }
  }
  return Status::Ok();
}

Status CheckNode(const plan::Plan& p, size_t index, std::vector<TensorState>* state) {
  const plan::Node& node = *p.nodes()->Get(static_cast<flatbuffers::uoffset_t>(index));
  const std::string label = NodeLabel(node, index);
  const int32_t n = static_cast<int32_t>(p.tensors()->size());
  if (node.op()->size() == 0) return Bad(label + ": empty op type");
  if (node.kernel()->size() == 0) return Bad(label + ": empty kernel id");
  const int device = static_cast<int>(node.device());
  if (!IsKnownDevice(device))
    return Bad(label + ": unknown device " + std::to_string(device));
  const auto* inputs = node.inputs();
  for (size_t k = 0; k < (inputs ? inputs->size() : 0); ++k) {
    const int32_t idx = inputs->Get(k);
    if (idx == -1) continue;
    if (idx < 0 || idx >= n) {
      return Bad(label + ": input " + std::to_string(k) + " refers to tensor " + std::to_string(idx) +
                 ", but the plan has " + std::to_string(n) + " tensors");
    }
    if (!(*state)[idx].available)
      return Bad(label + ": input " + std::to_string(k) + " (" + TensorLabel(p, idx) +
                 ") is read before any node writes it");
  }
  const auto* outputs = node.outputs();
  for (size_t k = 0; k < (outputs ? outputs->size() : 0); ++k) {
    const int32_t idx = outputs->Get(k);
    if (idx == -1) continue;
    if (idx < 0 || idx >= n) {
      return Bad(label + ": output " + std::to_string(k) + " refers to tensor " + std::to_string(idx) +
                 ", but the plan has " + std::to_string(n) + " tensors");
    }
    const std::string what = label + ": output " + std::to_string(k) + " (" + TensorLabel(p, idx) + ")";
    if (p.tensors()->Get(idx)->storage() != plan::Storage::ARENA) return Bad(what + " is not an arena tensor");
    TensorState& s = (*state)[idx];
    if (s.graph_input) return Bad(what + " is a graph input");
    if (s.produced) return Bad(what + " is written by an earlier node too");
    s.produced = true;
    s.available = true;
  }
  if (node.derived() != nullptr) {
    for (size_t k = 0; k < node.derived()->size(); ++k) {
      const int32_t idx = node.derived()->Get(static_cast<flatbuffers::uoffset_t>(k))->tensor();
      const std::string what = label + ": derived constant " + std::to_string(k);
      if (idx < 0 || idx >= n)
        return Bad(what + " refers to tensor " + std::to_string(idx) + ", but the plan has " + std::to_string(n) +
                   " tensors");
      const plan::Tensor& t = *p.tensors()->Get(idx);
      if (t.storage() != plan::Storage::CONSTANT || t.dtype() != plan::DType::UINT8 || t.shape() == nullptr ||
          t.shape()->size() != 1)
        return Bad(what + " (" + TensorLabel(p, idx) + ") is not a 1-D uint8 constant");
      if (t.offset() % kPlanAlignment != 0)  // kernels read packed data with aligned loads
        return Bad(what + " (" + TensorLabel(p, idx) + ") is at constants offset " + std::to_string(t.offset()) +
                   ", not a multiple of " + std::to_string(kPlanAlignment));
    }
  }
  if (node.attributes() != nullptr) {
    std::set<std::string> names;
    for (const plan::Attribute* a : *node.attributes()) {
      RETURN_IF_ERROR(CheckAttribute(label, *a));
      if (!names.insert(a->name()->str()).second)
        return Bad(label + ": attribute '" + a->name()->str() + "' appears twice");
    }
  }
  return Status::Ok();
}

}  // namespace

std::string TensorLabel(const plan::Plan& plan, int32_t index) {
  const plan::Tensor* t = plan.tensors()->Get(index);
  if (t->name() == nullptr || t->name()->size() == 0) return "tensor #" + std::to_string(index);
  return "tensor '" + t->name()->str() + "'";
}

std::string NodeLabel(const plan::Node& node, size_t index) {
  return NodeLabel(node.name() ? node.name()->str() : "", node.op() ? node.op()->str() : "?", index);
}

Status VerifyPlanMetadata(const uint8_t* metadata, size_t size, const PlanLayout& layout, const plan::Plan** out) {
  if (size < 8 || !plan::PlanBufferHasIdentifier(metadata))
    return Bad("plan metadata does not carry the file identifier \"LOOM\"");
  flatbuffers::Verifier verifier(metadata, size);
  if (!plan::VerifyPlanBuffer(verifier)) return Bad("plan metadata is malformed (flatbuffers verification failed)");
  const plan::Plan& p = *plan::GetPlan(metadata);

  if (p.format_major() != layout.format_major || p.format_minor() != layout.format_minor) {
    return Bad("plan header says format " + std::to_string(layout.format_major) + "." +
               std::to_string(layout.format_minor) + " but its metadata says " + std::to_string(p.format_major()) +
               "." + std::to_string(p.format_minor()));
  }
  if (p.constants_bytes() != layout.constants_bytes) {
    return Bad("plan metadata says the constants section has " + std::to_string(p.constants_bytes()) +
               " bytes, the header says " + std::to_string(layout.constants_bytes));
  }
  if (p.arena_bytes() > std::numeric_limits<size_t>::max() / 2) {
    return Status::Unsupported("plan needs an arena of " + std::to_string(p.arena_bytes()) +
                               " bytes, more than this platform can address");
  }
  if (p.tensors() == nullptr) return Bad("plan has no tensor table");
  if (p.nodes() == nullptr || p.nodes()->size() == 0) return Bad("plan has no nodes");
  const int32_t n = static_cast<int32_t>(p.tensors()->size());
  std::vector<TensorState> state(static_cast<size_t>(n));
  for (int32_t i = 0; i < n; ++i) {
    RETURN_IF_ERROR(CheckTensor(p, i, layout));
    const plan::Storage storage = p.tensors()->Get(i)->storage();
    state[i].available = storage == plan::Storage::CONSTANT || storage == plan::Storage::NONE;
  }
  if (p.outputs() == nullptr || p.outputs()->size() == 0) return Bad("plan lists no graph outputs");
  // No memory planner needs more than every arena tensor side by side (plus
  // alignment); a larger request is damage, not a reason to allocate.
  uint64_t arena_limit = 4096;
  for (const plan::Tensor* t : *p.tensors()) {
    if (t->storage() == plan::Storage::ARENA)
      arena_limit += (t->size_bytes() + kPlanAlignment - 1) / kPlanAlignment * kPlanAlignment;
  }
  if (p.arena_bytes() > arena_limit) {
    return Bad("plan asks for an arena of " + std::to_string(p.arena_bytes()) +
               " bytes, but its arena tensors need at most " + std::to_string(arena_limit));
  }
  RETURN_IF_ERROR(CheckGraphEnds(p, p.inputs(), "input", &state));
  for (size_t i = 0; i < p.nodes()->size(); ++i) RETURN_IF_ERROR(CheckNode(p, i, &state));
  RETURN_IF_ERROR(CheckGraphEnds(p, p.outputs(), "output", &state));
  if (p.boundaries() != nullptr) {
    for (size_t i = 0; i < p.boundaries()->size(); ++i) {
      const plan::Boundary& b = *p.boundaries()->Get(static_cast<flatbuffers::uoffset_t>(i));
      if (b.tensor() < 0 || b.tensor() >= n)
        return Bad("boundary " + std::to_string(i) + " names tensor " + std::to_string(b.tensor()) + ", but the plan has " +
                   std::to_string(n));
      if (!IsKnownDevice(static_cast<int>(b.from())) || !IsKnownDevice(static_cast<int>(b.to())))
        return Bad("boundary " + std::to_string(i) + " names an unknown device");
    }
  }
  *out = &p;
  return Status::Ok();
}

}  // namespace loom
