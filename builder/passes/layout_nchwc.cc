// Channel-blocked regions around float32 CPU Convs (layout_nchwc.h).
#include "builder/passes/layout_nchwc.h"

#include <algorithm>
#include <numeric>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "builder/build_log.h"
#include "builder/exec/kernel_choice.h"
#include "kernels/cpu/nn/conv_geometry.h"

namespace loom {
namespace passes {
namespace {

constexpr int64_t kBlock = 8;

enum class Kind { kNone, kConv, kStem, kDepthwise, kUnary, kBinary, kConcat, kGlobalPool, kPool };

// A node that may join a region: its kind, the input slots that hold blocked
// tensors inside a region and, for a Conv, its explicit geometry.
struct Member {
  Kind kind = Kind::kNone;
  std::vector<size_t> blocked_slots;
  std::vector<int64_t> kernel_shape, strides, pads, dilations;
};

// Which NCHWc kernels the registry has.
struct Available {
  bool conversions = false, conv = false, stem = false, depthwise = false, pool = false;
};

bool HasCpuKernel(const KernelRegistry& r, const char* op) {
  for (const KernelDef* d : r.FindByOp(op, "loom"))
    if (d->device == Device::kCpu) return true;
  return false;
}

bool IsFloat(const ir::Graph& g, int v) {
  if (v < 0) return false;
  const ir::Value& value = g.value(v);
  return value.dtype == DType::kFloat32 && value.shape_known && value.layout == Layout::kRowMajor;
}

// A float32 [N, C, H, W] tensor with C a multiple of the block.
bool Blockable(const ir::Graph& g, int v) {
  if (!IsFloat(g, v)) return false;
  const Shape& s = g.value(v).shape;
  return s.size() == 4 && s[1] > 0 && s[1] % kBlock == 0;
}

// The shape padded with leading 1s to rank 4 (a per-channel [C, 1, 1] operand).
Shape AsRank4(const Shape& s) {
  Shape r(4 - std::min<size_t>(4, s.size()), 1);
  r.insert(r.end(), s.begin(), s.end());
  return r;
}

Shape BlockedShape(const Shape& nchw) { return {nchw[0], nchw[1] / kBlock, nchw[2], nchw[3], kBlock}; }

const std::set<std::string>& UnaryOps() {
  static const std::set<std::string> ops = {
      "Relu",     "LeakyRelu",      "Sigmoid", "Tanh", "HardSigmoid", "HardSwish", "Elu",   "Selu", "Celu",  "Softplus",
      "Softsign", "Gelu",           "Abs",     "Neg",  "Exp",         "Sqrt",      "Floor", "Ceil", "Round", "Erf",
      "Clip",     "ThresholdedRelu"};
  return ops;
}

bool UnaryMember(const ir::Graph& g, const ir::Node& n, Member* m) {
  const bool swish = n.domain == "loom" && n.op == "Swish";
  if (!swish && !(n.domain.empty() && UnaryOps().count(n.op))) return false;
  if (n.inputs.empty() || !Blockable(g, n.inputs[0]) || !IsFloat(g, n.outputs[0]) ||
      g.value(n.outputs[0]).shape != g.value(n.inputs[0]).shape)
    return false;
  for (size_t i = 1; i < n.inputs.size(); ++i) {  // Clip's bounds: constant scalars
    const int b = n.inputs[i];
    if (n.op != "Clip" || i > 2) return false;
    if (b >= 0 && (!IsFloat(g, b) || !g.value(b).is_constant() || NumElements(g.value(b).shape) != 1)) return false;
  }
  m->kind = Kind::kUnary;
  m->blocked_slots = {0};
  return true;
}

// Per channel against output shape `s`: [N or 1, C, 1, 1] or [C, 1, 1].
bool PerChannel(const Shape& operand, const Shape& s) {
  if (operand.size() != 3 && operand.size() != 4) return false;
  const Shape o = AsRank4(operand);
  return (o[0] == 1 || o[0] == s[0]) && o[1] == s[1] && o[2] == 1 && o[3] == 1;
}

bool BinaryMember(const ir::Graph& g, const ir::Node& n, Member* m) {
  static const std::set<std::string> ops = {"Add", "Sub", "Mul", "Div", "Max", "Min"};
  if (!n.domain.empty() || !ops.count(n.op) || n.inputs.size() != 2 || !Blockable(g, n.outputs[0])) return false;
  const Shape& s = g.value(n.outputs[0]).shape;
  bool full = false;
  for (size_t i = 0; i < 2; ++i) {
    const int v = n.inputs[i];
    if (!IsFloat(g, v)) return false;
    const Shape& vs = g.value(v).shape;
    if (vs == s) {
      full = true;
    } else if (NumElements(vs) == 1) {
      continue;  // a scalar broadcasts against the 5-D tensor as it did against the 4-D one
    } else if (!PerChannel(vs, s)) {
      return false;
    }
    m->blocked_slots.push_back(i);
  }
  m->kind = Kind::kBinary;
  return full;
}

bool ConcatMember(const ir::Graph& g, const ir::Node& n, Member* m) {
  if (!n.domain.empty() || n.op != "Concat" || n.inputs.empty() || !Blockable(g, n.outputs[0])) return false;
  const int64_t axis = n.attrs.GetInt("axis", 0);
  if (axis != 1 && axis != -3) return false;
  for (size_t i = 0; i < n.inputs.size(); ++i) {
    if (!Blockable(g, n.inputs[i])) return false;
    m->blocked_slots.push_back(i);
  }
  m->kind = Kind::kConcat;
  return true;
}

bool GlobalPoolMember(const ir::Graph& g, const ir::Node& n, Member* m) {
  if (!n.domain.empty() || n.op != "GlobalAveragePool" || n.inputs.size() != 1 || !Blockable(g, n.inputs[0]) ||
      !Blockable(g, n.outputs[0]))
    return false;
  m->kind = Kind::kGlobalPool;
  m->blocked_slots = {0};
  return true;
}

// MaxPool (without Indices) and AveragePool over 2-D windows with explicit
// pads: the same attributes on the blocked tensors.
bool PoolMember(const ir::Graph& g, const ir::Node& n, const Available& available, Member* m) {
  if (!available.pool || !n.domain.empty() || (n.op != "MaxPool" && n.op != "AveragePool") || n.inputs.size() != 1 ||
      !Blockable(g, n.inputs[0]) || !Blockable(g, n.outputs[0]))
    return false;
  const Attribute* auto_pad = n.attrs.Find("auto_pad");
  if (auto_pad && auto_pad->s != "NOTSET") return false;
  m->kind = Kind::kPool;
  m->blocked_slots = {0};
  return true;
}

bool ConvMember(const ir::Graph& g, const ir::Node& n, const Available& available, Member* m) {
  if (!n.domain.empty() || n.op != "Conv" || n.inputs.size() < 2 || n.inputs.size() > 4) return false;
  const int x = n.inputs[0], w = n.inputs[1], y = n.outputs[0];
  if (!IsFloat(g, x) || !Blockable(g, y) || !IsFloat(g, w) || !g.value(w).is_constant()) return false;
  const Shape& xs = g.value(x).shape;
  if (xs.size() != 4) return false;
  const Shape& ws = g.value(w).shape;
  const Shape& ys = g.value(y).shape;
  const int64_t cin = xs[1], cout = ys[1], group = n.attrs.GetInt("group", 1);
  if (ws.size() != 4 || ws[0] != cout) return false;
  if (n.inputs.size() > 2 && n.inputs[2] >= 0) {
    const int b = n.inputs[2];
    if (!IsFloat(g, b) || !g.value(b).is_constant() || g.value(b).shape != Shape{cout}) return false;
  }
  const bool residual = n.inputs.size() > 3 && n.inputs[3] >= 0;
  if (residual != (n.attrs.GetInt("loom.residual", 0) != 0)) return false;
  if (residual && (!IsFloat(g, n.inputs[3]) || g.value(n.inputs[3]).shape != ys)) return false;
  if (!Blockable(g, x)) {  // the stem: X stays NCHW
    if (group != 1 || ws[1] != cin || !available.stem) return false;
    m->kind = Kind::kStem;
  } else if (group == 1 && ws[1] == cin && available.conv) {
    m->kind = Kind::kConv;
  } else if (group == cin && cin == cout && ws[1] == 1 && available.depthwise) {
    m->kind = Kind::kDepthwise;
  } else {
    return false;
  }
  // The geometry as the Conv kernel reads it (auto_pad resolved).
  const std::vector<int64_t> spatial = {xs[2], xs[3]};
  std::vector<int64_t> kernel = {ws[2], ws[3]};
  nn::WindowGeometry geo;
  if (!nn::ParseWindowGeometry(exec::MakeKernelSetup(g, n), spatial, &kernel, nn::WindowOptions(), &geo).ok() ||
      geo.rank != 2 || geo.out[1] != ys[2] || geo.out[2] != ys[3])
    return false;
  m->kernel_shape = {geo.kernel[1], geo.kernel[2]};
  m->strides = {geo.stride[1], geo.stride[2]};
  m->pads = {geo.pad_begin[1], geo.pad_begin[2], geo.pad_end[1], geo.pad_end[2]};
  m->dilations = {geo.dilation[1], geo.dilation[2]};
  if (m->kind != Kind::kStem) m->blocked_slots = {0};
  if (residual) m->blocked_slots.push_back(3);
  return true;
}

Member Classify(const ir::Graph& g, const ir::Node& n, const Available& available) {
  Member m;
  if (n.dead || n.device != Device::kCpu || n.outputs.size() != 1 || n.outputs[0] < 0) return m;
  if (!(ConvMember(g, n, available, &m) || UnaryMember(g, n, &m) || BinaryMember(g, n, &m) || ConcatMember(g, n, &m) ||
        GlobalPoolMember(g, n, &m) || PoolMember(g, n, available, &m)))
    m = Member();
  return m;
}

size_t Find(std::vector<size_t>& parent, size_t i) {
  while (parent[i] != i) i = parent[i] = parent[parent[i]];
  return i;
}

// Whether NCHW value `y` of a member is read by a node that is no member
// (or in a slot that is not blocked) or is a graph output: it then leaves its
// region. (A member reading it in a blocked slot is in the same region.)
bool ReadOutside(const ir::Graph& g, const ir::UseLists& uses, const std::vector<Member>& members, int y) {
  if (g.IsGraphOutput(y)) return true;
  for (int c : uses.consumers[static_cast<size_t>(y)]) {
    const Member& m = members[static_cast<size_t>(c)];
    const std::vector<int>& inputs = g.node(c).inputs;
    for (size_t slot = 0; slot < inputs.size(); ++slot)
      if (inputs[slot] == y && std::find(m.blocked_slots.begin(), m.blocked_slots.end(), slot) == m.blocked_slots.end())
        return true;
  }
  return false;
}

// Which nodes join a converted region: members connected through blocked
// slots, in regions of at least 2 Convs. (Counting the conversions too does
// not pay: GoogLeNet and SqueezeNet, whose 3x3 Convs stay NCHW around
// blocked 1x1 Convs with about one copying conversion per Conv, measured
// faster converted.)
std::vector<bool> Regions(const ir::Graph& g, const ir::UseLists& uses, const std::vector<Member>& members) {
  const size_t count = members.size();
  std::vector<size_t> parent(count);
  std::iota(parent.begin(), parent.end(), size_t{0});
  for (size_t i = 0; i < count; ++i) {
    for (size_t slot : members[i].blocked_slots) {
      const int p = uses.producer[static_cast<size_t>(g.node(static_cast<int>(i)).inputs[slot])];
      if (p >= 0 && members[static_cast<size_t>(p)].kind != Kind::kNone)
        parent[Find(parent, i)] = Find(parent, static_cast<size_t>(p));
    }
  }
  std::vector<int> convs(count, 0);
  for (size_t i = 0; i < count; ++i)
    if (members[i].kind == Kind::kConv || members[i].kind == Kind::kStem || members[i].kind == Kind::kDepthwise)
      ++convs[Find(parent, i)];
  std::vector<bool> keep(count, false);
  for (size_t i = 0; i < count; ++i) keep[i] = members[i].kind != Kind::kNone && convs[Find(parent, i)] >= 2;
  return keep;
}

// Reorders NCHW floats [N, C, H, W] into [N, C/8, H, W, 8].
ir::ConstData BlockNchw(const float* src, const Shape& s) {
  const int64_t n = s[0], c = s[1], hw = s[2] * s[3];
  std::shared_ptr<ir::Buffer> out = ir::Buffer::Allocate(static_cast<size_t>(n * c * hw) * sizeof(float));
  float* dst = reinterpret_cast<float*>(out->mutable_data());
  for (int64_t i = 0; i < n; ++i)
    for (int64_t ch = 0; ch < c; ++ch)
      for (int64_t p = 0; p < hw; ++p)
        dst[((i * (c / kBlock) + ch / kBlock) * hw + p) * kBlock + ch % kBlock] = src[(i * c + ch) * hw + p];
  return out;
}

// ONNX OIHW weights as ConvNchwc's [Cout/8, Cin/8, KH, KW, 8 (ci), 8 (co)].
ir::ConstData BlockConvWeights(const float* w, const Shape& s) {
  const int64_t cout = s[0], cin = s[1], taps = s[2] * s[3], cib = cin / kBlock;
  std::shared_ptr<ir::Buffer> out = ir::Buffer::Allocate(static_cast<size_t>(cout * cin * taps) * sizeof(float));
  float* dst = reinterpret_cast<float*>(out->mutable_data());
  for (int64_t o = 0; o < cout; ++o)
    for (int64_t i = 0; i < cin; ++i)
      for (int64_t t = 0; t < taps; ++t)
        dst[(((o / kBlock * cib + i / kBlock) * taps + t) * kBlock + i % kBlock) * kBlock + o % kBlock] =
            w[(o * cin + i) * taps + t];
  return out;
}

// Depthwise [C, 1, KH, KW] as DepthwiseConvNchwc's [C/8, KH, KW, 8] and
// [Cout, Cin, KH, KW] as ConvNchwcStem's [Cout/8, Cin, KH, KW, 8 (co)]: the
// NCHW reorder of a [1, Cout, Cin * KH * KW, 1] tensor.
ir::ConstData BlockOutputChannels(const float* w, const Shape& s) {
  return BlockNchw(w, {1, s[0], s[1] * s[2] * s[3], 1});
}

class Rewriter {
 public:
  Rewriter(ir::Graph& g, const ir::UseLists& uses, const std::vector<Member>& members, const std::vector<bool>& keep)
      : g_(g), uses_(uses), members_(members), keep_(keep) {}

  // Rewrites the kept nodes in place and inserts the conversions next to
  // them; returns the new node list.
  std::vector<ir::Node> Run() {
    std::vector<ir::Node> order;
    order.reserve(g_.nodes().size());
    for (size_t i = 0; i < g_.nodes().size(); ++i) {
      ir::Node n = g_.node(static_cast<int>(i));
      if (!keep_[i]) {
        order.push_back(std::move(n));
        continue;
      }
      const Member& m = members_[i];
      for (size_t slot : m.blocked_slots) n.inputs[slot] = Blocked(n.inputs[slot], &order);
      const int y = n.outputs[0];
      const int yb = NewBlockedValue(y);
      blocked_[y] = yb;
      n.outputs[0] = yb;
      n.kernel_id.clear();
      Convert(m, &n);
      order.push_back(std::move(n));
      if (ReadOutside(g_, uses_, members_, y))
        order.push_back(Conversion(yb, y, g_.value(y).name + ".from_nchwc", "FromNchwc"));
    }
    return order;
  }

  int conversions() const { return conversions_; }

 private:
  int NewBlockedValue(int nchw) {
    const ir::Value& v = g_.value(nchw);
    ir::Value b;
    b.name = g_.UniqueValueName(v.name + ".nchwc");
    b.dtype = DType::kFloat32;
    b.shape = BlockedShape(AsRank4(v.shape));
    b.shape_known = true;
    b.memory_space = v.memory_space;
    return g_.AddValue(std::move(b));
  }

  // The blocked form of `v` for a region node: the region's own value, a
  // converted constant or a conversion shared by every reader.
  int Blocked(int v, std::vector<ir::Node>* order) {
    const auto it = blocked_.find(v);
    if (it != blocked_.end()) return it->second;
    const std::string name = g_.value(v).name;
    const Shape s = AsRank4(g_.value(v).shape);
    int b = -1;
    if (g_.value(v).is_constant()) {
      ir::ConstData data = BlockNchw(g_.value(v).data->as<float>(), s);
      b = g_.AddConstant(g_.UniqueValueName(name + ".nchwc"), DType::kFloat32, BlockedShape(s), std::move(data));
    } else {
      b = NewBlockedValue(v);
      order->push_back(Conversion(v, b, name + ".to_nchwc", "ToNchwc"));
    }
    blocked_[v] = b;
    return b;
  }

  // `from` -> `to` through loom.ToNchwc / loom.FromNchwc, or a Reshape when
  // H*W == 1 (the same bytes).
  ir::Node Conversion(int from, int to, std::string name, const char* op) {
    ++conversions_;
    ir::Node c;
    c.name = std::move(name);
    c.inputs = {from};
    c.outputs = {to};
    c.device = Device::kCpu;
    c.placement_reason = "cpu: channel-blocked layout conversion";
    const Shape to_shape = g_.value(to).shape;
    const Shape& blocked = g_.value(std::string(op) == "ToNchwc" ? to : from).shape;
    if (blocked[2] * blocked[3] == 1) {
      c.op = "Reshape";
      c.opset = 14;
      const std::string shape_name = g_.UniqueValueName(g_.value(to).name + ".shape");
      c.inputs.push_back(g_.AddConstant(shape_name, DType::kInt64, {static_cast<int64_t>(to_shape.size())},
                                        ir::Buffer::CopyOf(to_shape.data(), to_shape.size() * sizeof(int64_t))));
    } else {
      c.op = op;
      c.domain = "loom";
      c.opset = 1;
    }
    return c;
  }

  int BlockedWeights(int w, Kind kind) {
    const auto it = weights_.find(w);
    if (it != weights_.end()) return it->second;
    const Shape s = g_.value(w).shape;
    const float* data = g_.value(w).data->as<float>();
    Shape shape = {s[0] / kBlock, s[1] / kBlock, s[2], s[3], kBlock, kBlock};
    if (kind == Kind::kDepthwise) shape = {s[0] / kBlock, s[2], s[3], kBlock};
    if (kind == Kind::kStem) shape = {s[0] / kBlock, s[1], s[2], s[3], kBlock};
    ir::ConstData blocked = kind == Kind::kConv ? BlockConvWeights(data, s) : BlockOutputChannels(data, s);
    const std::string name = g_.UniqueValueName(g_.value(w).name + ".nchwc");
    const int b = g_.AddConstant(name, DType::kFloat32, shape, std::move(blocked));
    weights_[w] = b;
    return b;
  }

  // The node's op and attributes in the blocked layout (inputs and output
  // already rewired).
  void Convert(const Member& m, ir::Node* n) {
    switch (m.kind) {
      case Kind::kConv:
      case Kind::kStem:
      case Kind::kDepthwise: {
        n->op = m.kind == Kind::kConv ? "ConvNchwc" : m.kind == Kind::kStem ? "ConvNchwcStem" : "DepthwiseConvNchwc";
        n->domain = "loom";
        n->opset = 1;
        n->inputs[1] = BlockedWeights(n->inputs[1], m.kind);
        if (n->inputs.size() == 3 && n->inputs[2] < 0) n->inputs.pop_back();
        Attributes attrs;
        attrs.SetInts("kernel_shape", m.kernel_shape);
        attrs.SetInts("strides", m.strides);
        attrs.SetInts("pads", m.pads);
        attrs.SetInts("dilations", m.dilations);
        for (const Attribute& a : n->attrs.all())
          if (a.name.rfind("loom.", 0) == 0) attrs.Set(a);
        n->attrs = std::move(attrs);
        break;
      }
      case Kind::kConcat:
        n->attrs.SetInt("axis", 1);
        break;
      case Kind::kGlobalPool:  // mean over H and W of [N, C/8, H, W, 8]
        n->op = "ReduceMean";
        n->opset = 13;
        n->attrs = Attributes();
        n->attrs.SetInts("axes", {2, 3});
        n->attrs.SetInt("keepdims", 1);
        n->fused.push_back("GlobalAveragePool");
        break;
      case Kind::kPool:
        n->op += "Nchwc";
        n->domain = "loom";
        n->opset = 1;
        n->attrs.Erase("auto_pad");
        n->attrs.Erase("storage_order");
        break;
      default:
        break;
    }
  }

  ir::Graph& g_;
  const ir::UseLists& uses_;
  const std::vector<Member>& members_;
  const std::vector<bool>& keep_;
  std::unordered_map<int, int> blocked_;  // NCHW value -> its blocked form
  std::unordered_map<int, int> weights_;  // ONNX weights -> blocked weights
  int conversions_ = 0;
};

class LayoutNchwc : public Pass {
 public:
  const char* name() const override { return "layout_nchwc"; }
  int min_opt_level() const override { return 3; }

  Status Run(ir::Graph& g, PassContext& ctx, int* changes) override {
    Available available;
    available.conversions = HasCpuKernel(*ctx.registry, "ToNchwc") && HasCpuKernel(*ctx.registry, "FromNchwc");
    available.conv = HasCpuKernel(*ctx.registry, "ConvNchwc");
    available.stem = HasCpuKernel(*ctx.registry, "ConvNchwcStem");
    available.depthwise = HasCpuKernel(*ctx.registry, "DepthwiseConvNchwc");
    available.pool = HasCpuKernel(*ctx.registry, "MaxPoolNchwc") && HasCpuKernel(*ctx.registry, "AveragePoolNchwc");
    if (!available.conversions || !(available.conv || available.depthwise)) return Status::Ok();
    std::vector<Member> members;
    members.reserve(g.nodes().size());
    for (const ir::Node& n : g.nodes()) members.push_back(Classify(g, n, available));
    const ir::UseLists uses = g.BuildUseLists();
    const std::vector<bool> keep = Regions(g, uses, members);
    const int converted = static_cast<int>(std::count(keep.begin(), keep.end(), true));
    if (converted == 0) return Status::Ok();
    Rewriter rewriter(g, uses, members, keep);
    g.nodes() = rewriter.Run();
    BuildLog().info("layout_nchwc: {} nodes in the blocked layout, {} conversions", converted, rewriter.conversions());
    *changes += converted;
    return Status::Ok();
  }
};

}  // namespace

std::unique_ptr<Pass> MakeLayoutNchwc() { return std::make_unique<LayoutNchwc>(); }

}  // namespace passes
}  // namespace loom
