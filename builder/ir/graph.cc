#include "builder/ir/graph.h"

#include <sys/mman.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>
#include <queue>
#include <unordered_set>

#include "common/node_label.h"
#include "schemas/plan_format.h"

namespace loom {
namespace ir {

namespace {

constexpr size_t kHugePage = size_t{2} << 20;

size_t Capacity(size_t size) {
  const size_t rounded = (size + kPlanAlignment - 1) / kPlanAlignment * kPlanAlignment;
  return rounded == 0 ? kPlanAlignment : rounded;
}

// Large constants (weights) are aligned to 2 MiB and offered to the kernel as
// transparent huge pages: a model's weights then take a few hundred page
// faults instead of tens of thousands while they are copied and folded.
size_t AlignmentFor(size_t capacity) { return capacity >= kHugePage ? kHugePage : kPlanAlignment; }

}  // namespace

uint8_t* Buffer::AllocateBytes(size_t capacity) {
  const size_t alignment = AlignmentFor(capacity);
  void* p = ::operator new(capacity, std::align_val_t(alignment));
#ifdef MADV_HUGEPAGE
  if (alignment == kHugePage) madvise(p, capacity / kHugePage * kHugePage, MADV_HUGEPAGE);
#endif
  return static_cast<uint8_t*>(p);
}

std::shared_ptr<Buffer> Buffer::Allocate(size_t size) {
  std::shared_ptr<Buffer> b(new Buffer());
  b->data_ = AllocateBytes(Capacity(size));
  b->size_ = size;
  std::memset(b->data_, 0, Capacity(size));
  return b;
}

std::shared_ptr<Buffer> Buffer::CopyOf(const void* data, size_t size) {
  std::shared_ptr<Buffer> b(new Buffer());
  b->data_ = AllocateBytes(Capacity(size));
  b->size_ = size;
  if (size) std::memcpy(b->data_, data, size);
  std::memset(b->data_ + size, 0, Capacity(size) - size);  // the padding only
  return b;
}

Buffer::~Buffer() { ::operator delete(data_, std::align_val_t(AlignmentFor(Capacity(size_)))); }

size_t Value::num_bytes() const {
  if (!shape_known) return 0;
  if (layout == Layout::kNhwcPadded) return padded_bytes;
  const int64_t n = NumElements(shape);
  return n < 0 ? 0 : static_cast<size_t>(n) * DTypeSize(dtype);
}

std::string Node::Label() const { return NodeLabel(name, op, 0); }

int Graph::AddValue(Value v) {
  values_.push_back(std::move(v));
  return static_cast<int>(values_.size()) - 1;
}

int Graph::AddConstant(std::string name, DType dtype, Shape shape, ConstData data) {
  Value v;
  v.name = std::move(name);
  v.dtype = dtype;
  v.shape = std::move(shape);
  v.shape_known = true;
  v.data = std::move(data);
  return AddValue(std::move(v));
}

int Graph::AddNode(Node n) {
  // Every node has a name, so every message names it the same way.
  if (n.name.empty()) n.name = n.op + "_" + std::to_string(nodes_.size());
  nodes_.push_back(std::move(n));
  return static_cast<int>(nodes_.size()) - 1;
}

std::string Graph::UniqueValueName(const std::string& base) const {
  std::unordered_set<std::string> names;
  names.reserve(values_.size());
  for (const Value& v : values_) names.insert(v.name);
  if (!names.count(base)) return base;
  for (int i = 1;; ++i) {
    std::string candidate = base + "_" + std::to_string(i);
    if (!names.count(candidate)) return candidate;
  }
}

bool Graph::IsGraphInput(int value_id) const {
  return std::find(inputs_.begin(), inputs_.end(), value_id) != inputs_.end();
}

bool Graph::IsGraphOutput(int value_id) const {
  return std::find(outputs_.begin(), outputs_.end(), value_id) != outputs_.end();
}

UseLists Graph::BuildUseLists() const {
  UseLists u;
  u.producer.assign(values_.size(), -1);
  u.consumers.assign(values_.size(), {});
  for (size_t i = 0; i < nodes_.size(); ++i) {
    const Node& n = nodes_[i];
    if (n.dead) continue;
    for (int in : n.inputs)
      if (in >= 0) u.consumers[static_cast<size_t>(in)].push_back(static_cast<int>(i));
    for (int out : n.outputs)
      if (out >= 0) u.producer[static_cast<size_t>(out)] = static_cast<int>(i);
  }
  return u;
}

void Graph::ReplaceAllUses(int from, int to) {
  ReplaceNodeInputUses(from, to);
  for (int& o : outputs_)
    if (o == from) o = to;
}

void Graph::ReplaceNodeInputUses(int from, int to) {
  for (Node& n : nodes_) {
    if (n.dead) continue;
    for (int& in : n.inputs)
      if (in == from) in = to;
  }
}

void Graph::Compact() {
  nodes_.erase(std::remove_if(nodes_.begin(), nodes_.end(), [](const Node& n) { return n.dead; }),
               nodes_.end());
}

int Graph::live_node_count() const {
  return static_cast<int>(std::count_if(nodes_.begin(), nodes_.end(), [](const Node& n) { return !n.dead; }));
}

Status Graph::SortTopologically() {
  Compact();
  const size_t n = nodes_.size();
  std::vector<int> producer(values_.size(), -1);
  for (size_t i = 0; i < n; ++i)
    for (int out : nodes_[i].outputs)
      if (out >= 0 && static_cast<size_t>(out) < values_.size())
        producer[static_cast<size_t>(out)] = static_cast<int>(i);
  std::vector<int> pending(n, 0);
  std::vector<std::vector<int>> dependents(n);
  for (size_t i = 0; i < n; ++i) {
    for (int in : nodes_[i].inputs) {
      if (in < 0 || static_cast<size_t>(in) >= values_.size()) continue;
      const int p = producer[static_cast<size_t>(in)];
      if (p < 0) continue;
      ++pending[i];
      dependents[static_cast<size_t>(p)].push_back(static_cast<int>(i));
    }
  }
  // Kahn's algorithm; a min-heap on the original index keeps the order stable.
  std::priority_queue<int, std::vector<int>, std::greater<int>> ready;
  for (size_t i = 0; i < n; ++i)
    if (pending[i] == 0) ready.push(static_cast<int>(i));
  std::vector<int> order;
  order.reserve(n);
  while (!ready.empty()) {
    const int i = ready.top();
    ready.pop();
    order.push_back(i);
    for (int d : dependents[static_cast<size_t>(i)])
      if (--pending[static_cast<size_t>(d)] == 0) ready.push(d);
  }
  if (order.size() != n) {
    for (size_t i = 0; i < n; ++i)
      if (pending[i] > 0)
        return Status::InvalidArgument("graph has a cycle through " + nodes_[i].Label());
  }
  std::vector<Node> sorted;
  sorted.reserve(n);
  for (int i : order) sorted.push_back(std::move(nodes_[static_cast<size_t>(i)]));
  nodes_ = std::move(sorted);
  return Status::Ok();
}

Status Graph::Validate() const {
  const int num_values = static_cast<int>(values_.size());
  std::vector<char> available(values_.size(), 0);
  for (int i = 0; i < num_values; ++i)
    if (values_[static_cast<size_t>(i)].is_constant()) available[static_cast<size_t>(i)] = 1;
  for (int in : inputs_) {
    if (in < 0 || in >= num_values) return Status::Internal("graph input id out of range");
    available[static_cast<size_t>(in)] = 1;
  }
  std::vector<char> produced(values_.size(), 0);
  for (const Node& n : nodes_) {
    if (n.dead) continue;
    for (int in : n.inputs) {
      if (in < -1 || in >= num_values) return Status::Internal(n.Label() + ": input id out of range");
      if (in >= 0 && !available[static_cast<size_t>(in)])
        return Status::Internal(n.Label() + ": input '" + values_[static_cast<size_t>(in)].name +
                                "' is used before it is produced");
    }
    for (int out : n.outputs) {
      if (out < -1 || out >= num_values) return Status::Internal(n.Label() + ": output id out of range");
      if (out < 0) continue;
      const Value& v = values_[static_cast<size_t>(out)];
      if (produced[static_cast<size_t>(out)] || v.is_constant() || IsGraphInput(out))
        return Status::Internal(n.Label() + ": output '" + v.name + "' is produced more than once");
      produced[static_cast<size_t>(out)] = 1;
      available[static_cast<size_t>(out)] = 1;
    }
  }
  for (int out : outputs_) {
    if (out < 0 || out >= num_values) return Status::Internal("graph output id out of range");
    if (!available[static_cast<size_t>(out)])
      return Status::Internal("graph output '" + values_[static_cast<size_t>(out)].name + "' is never produced");
  }
  return Status::Ok();
}

}  // namespace ir
}  // namespace loom
