// Loom's build-time graph IR: what the ONNX importer produces, the passes
// rewrite and the plan writer serializes.
//
// A Graph owns Values (tensors: name, dtype, static shape, optional constant
// data) and Nodes (op, typed attributes, input/output value ids). Value ids are
// stable indices into values(); a node input of -1 is an omitted optional
// input. nodes() is kept in a valid execution (topological) order; passes
// remove nodes by marking them dead and calling Compact().
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/attributes.h"
#include "common/device.h"
#include "common/dtype.h"
#include "common/layout.h"
#include "common/quant_params.h"
#include "common/status.h"

namespace loom {
namespace ir {

// Immutable, refcounted, 64-byte-aligned bytes of a constant tensor. Passes
// that change a constant make a new buffer, so sharing is always safe.
class Buffer {
 public:
  // Zero-filled buffer of `size` bytes.
  static std::shared_ptr<Buffer> Allocate(size_t size);
  static std::shared_ptr<Buffer> CopyOf(const void* data, size_t size);
  ~Buffer();
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;

  const uint8_t* data() const { return data_; }
  uint8_t* mutable_data() { return data_; }
  size_t size() const { return size_; }
  template <typename T> const T* as() const { return reinterpret_cast<const T*>(data_); }

 private:
  Buffer() = default;
  static uint8_t* AllocateBytes(size_t capacity);
  uint8_t* data_ = nullptr;
  size_t size_ = 0;
};
using ConstData = std::shared_ptr<const Buffer>;

struct Value {
  std::string name;
  DType dtype = DType::kUndefined;
  Shape shape;
  bool shape_known = false;  // false until import or inference settles every dim
  ConstData data;            // non-null for constants
  Layout layout = Layout::kRowMajor;  // how the data is arranged; shape stays in ONNX order
  // Where an activation lives at run time: device-visible when an
  // accelerator node reads or writes it (set after placement).
  MemorySpace memory_space = MemorySpace::kHost;
  QuantParams quant;
  // For Layout::kNhwcPadded: the bytes with channels padded (set by whoever
  // gives the value that layout); 0 otherwise.
  size_t padded_bytes = 0;

  bool is_constant() const { return data != nullptr; }
  // Bytes of data for the static shape and the layout (0 when unknown or not
  // storable).
  size_t num_bytes() const;
};

struct Node {
  std::string name;
  std::string op;
  std::string domain;  // "" for the default ONNX domain
  int opset = 17;
  Attributes attrs;
  std::vector<int> inputs;   // value ids; -1 for an omitted optional input
  std::vector<int> outputs;  // value ids; -1 for an omitted optional output
  std::vector<std::string> fused;  // ops absorbed into this node by passes
  // Filled by placement (device, reason, predicted time) and kernel selection.
  Device device = Device::kCpu;
  std::string placement_reason;
  double predicted_ms = 0;
  std::string kernel_id;
  // For a node off the CPU: the CPU kernel that can run it instead (same
  // tensors, same layouts), written into the plan as its fallback.
  std::string fallback_kernel_id;
  // Constants the node's kernel derives from its constant inputs, computed
  // at build time (exec/derive_constants.h): each a key and the id of a
  // UINT8 [bytes] constant value. Set last, just before the plan is written.
  struct Derived {
    std::string key;
    int value = -1;
  };
  std::vector<Derived> derived;
  bool dead = false;  // removed by a pass; dropped by Graph::Compact()

  // "conv1 (Conv)" for messages (common/node_label.h). Graph::AddNode names
  // nodes that arrive without a name.
  std::string Label() const;
};

// Producer and consumers of every value, for passes. Invalidated by edits.
struct UseLists {
  std::vector<int> producer;                // node index or -1
  std::vector<std::vector<int>> consumers;  // node indices (a node appears once per use)
};

class Graph {
 public:
  std::vector<Value>& values() { return values_; }
  const std::vector<Value>& values() const { return values_; }
  std::vector<Node>& nodes() { return nodes_; }
  const std::vector<Node>& nodes() const { return nodes_; }
  std::vector<int>& inputs() { return inputs_; }
  const std::vector<int>& inputs() const { return inputs_; }
  std::vector<int>& outputs() { return outputs_; }
  const std::vector<int>& outputs() const { return outputs_; }

  Value& value(int id) { return values_[static_cast<size_t>(id)]; }
  const Value& value(int id) const { return values_[static_cast<size_t>(id)]; }
  Node& node(int index) { return nodes_[static_cast<size_t>(index)]; }
  const Node& node(int index) const { return nodes_[static_cast<size_t>(index)]; }

  // Adds a value and returns its id.
  int AddValue(Value v);
  // Adds a constant value with the given data (size must match dtype/shape).
  int AddConstant(std::string name, DType dtype, Shape shape, ConstData data);
  // Appends a node and returns its index (callers keep the order valid, or
  // call SortTopologically()).
  int AddNode(Node n);
  // A value name not used yet, derived from `base`.
  std::string UniqueValueName(const std::string& base) const;

  bool IsGraphInput(int value_id) const;
  bool IsGraphOutput(int value_id) const;

  UseLists BuildUseLists() const;
  // Replaces every use of `from` (node inputs and graph outputs) by `to`.
  void ReplaceAllUses(int from, int to);
  // Replaces uses of `from` as a node input only.
  void ReplaceNodeInputUses(int from, int to);

  // Drops dead nodes, keeping the order of the others.
  void Compact();
  // Reorders live nodes so that producers precede consumers (stable: keeps
  // the current order where it is valid). Fails naming a node on a cycle.
  Status SortTopologically();
  // Checks the invariants passes rely on: ids in range, each value produced
  // at most once, producers before consumers, constants not produced by nodes.
  Status Validate() const;

  int live_node_count() const;

 private:
  std::vector<Value> values_;
  std::vector<Node> nodes_;
  std::vector<int> inputs_;
  std::vector<int> outputs_;
};

}  // namespace ir
}  // namespace loom
