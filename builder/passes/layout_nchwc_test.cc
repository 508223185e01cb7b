#include "builder/passes/layout_nchwc.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "builder/testing/ir_builder.h"
#include "builder/testing/nchwc_reference_kernels.h"
#include "builder/testing/pass_runner.h"
#include "kernels/cpu/nn/conv_winograd.h"

namespace loom {
namespace passes {
namespace {

using testing::IrBuilder;

// The pass trusts the contract's kernels; the references make the registry hold them.
int RunPass(IrBuilder& b, bool with_nchwc = true) {
  const KernelRegistry& global = KernelRegistry::Global();
  const KernelRegistry registry =
      with_nchwc ? testing::WithNchwcReferenceKernels(global) : testing::WithoutNchwcKernels(global);
  return testing::RunPass(*MakeLayoutNchwc(), b, &registry);
}

std::vector<float> Ramp(size_t n, float scale = 0.01f) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<float>(i) * scale - 1.f;
  return v;
}

// A Conv node with the given attributes; returns its index.
int AddConv(IrBuilder& b, const std::vector<int>& inputs, int y, const std::string& name,
            std::vector<int64_t> pads = {0, 0, 0, 0}, int64_t group = 1) {
  const int n = b.Node("Conv", inputs, {y}, name);
  b.node(n).attrs.SetInts("pads", std::move(pads));
  if (group != 1) b.node(n).attrs.SetInt("group", group);
  return n;
}

std::vector<std::string> Ops(const ir::Graph& g) {
  std::vector<std::string> ops;
  for (const ir::Node& n : g.nodes()) ops.push_back(n.op);
  return ops;
}

const ir::Node* Named(const ir::Graph& g, const std::string& name) {
  for (const ir::Node& n : g.nodes())
    if (n.name == name) return &n;
  return nullptr;
}

Shape ShapeOf(const ir::Graph& g, int v) { return g.value(v).shape; }

// Element by element: constant `blocked` holds ONNX weights `w` [O, I, KH, KW]
// in the contract's layout, Wb[ob, ib, i, j, ci, co] = W[ob*8 + co, ib*8 + ci, i, j]
// (group 1), or Wb[ob, i, kh, kw, co] = W[ob*8 + co, i, kh, kw] when I is no
// multiple of 8 (the stem; depthwise, I == 1).
void ExpectBlockedWeights(const ir::Graph& g, int w, int blocked) {
  const Shape& s = g.value(w).shape;
  const float* src = g.value(w).data->as<float>();
  const float* got = g.value(blocked).data->as<float>();
  ASSERT_EQ(NumElements(g.value(blocked).shape), NumElements(s));
  const int64_t in = s[1], taps = s[2] * s[3];
  for (int64_t o = 0; o < s[0]; ++o)
    for (int64_t i = 0; i < in; ++i)
      for (int64_t t = 0; t < taps; ++t) {
        const int64_t at = in % 8 != 0 ? ((o / 8 * in + i) * taps + t) * 8 + o % 8
                                       : (((o / 8) * (in / 8) + i / 8) * taps + t) * 64 + (i % 8) * 8 + o % 8;
        ASSERT_EQ(got[at], src[(o * in + i) * taps + t]) << "o " << o << " i " << i << " tap " << t;
      }
}

// MobileNet-style inverted residual block: 1x1 expand (Clip) -> depthwise 3x3
// (Clip) -> 1x1 project + residual x, as the fusions before leave it; with
// `stem`, x is the output of a first Conv (3 -> c, 3x3 / 2, pads 1, 1, 1, 0,
// Relu) reading image [1, 3, 2 * hw - 1, 2 * hw].
struct MobilenetBlock {
  IrBuilder b;
  int image = -1, ws = -1, bs = -1, x, w1, b1, wd, bd, w2, e, d, y;
  explicit MobilenetBlock(int64_t c = 8, int64_t hidden = 16, int64_t hw = 5, bool stem = false) {
    if (stem) {
      image = b.Input("image", {1, 3, 2 * hw - 1, 2 * hw});
      ws = b.Const("ws", {c, 3, 3, 3}, Ramp(static_cast<size_t>(c * 27), 0.003f));
      bs = b.Const("bs", {c}, Ramp(static_cast<size_t>(c)));
      x = b.Tensor("x", {1, c, hw, hw});
      ir::Node& n = b.node(AddConv(b, {image, ws, bs}, x, "stem", {1, 1, 1, 0}));
      n.attrs.SetInts("strides", {2, 2});
      n.attrs.SetString("loom.activation", "Relu");
      n.fused = {"Relu"};
    } else {
      x = b.Input("x", {1, c, hw, hw});
    }
    w1 = b.Const("w1", {hidden, c, 1, 1}, Ramp(static_cast<size_t>(hidden * c)));
    b1 = b.Const("b1", {hidden}, Ramp(static_cast<size_t>(hidden)));
    wd = b.Const("wd", {hidden, 1, 3, 3}, Ramp(static_cast<size_t>(hidden * 9)));
    bd = b.Const("bd", {hidden}, Ramp(static_cast<size_t>(hidden)));
    w2 = b.Const("w2", {c, hidden, 1, 1}, Ramp(static_cast<size_t>(c * hidden)));
    e = b.Tensor("e", {1, hidden, hw, hw});
    d = b.Tensor("d", {1, hidden, hw, hw});
    y = b.Tensor("y", {1, c, hw, hw});
    for (int n : {AddConv(b, {x, w1, b1}, e, "expand"), AddConv(b, {e, wd, bd}, d, "dw", {1, 1, 1, 1}, hidden)}) {
      b.node(n).attrs.SetString("loom.activation", "Clip");
      b.node(n).attrs.SetFloat("loom.activation_min", 0.f);
      b.node(n).attrs.SetFloat("loom.activation_max", 6.f);
      b.node(n).fused = {"Clip"};
    }
    const int project = AddConv(b, {d, w2, -1, x}, y, "project");
    b.node(project).attrs.SetInt("loom.residual", 1);
    b.Output(y);
  }
};

TEST(LayoutNchwcTest, MobilenetBlockRunsBlocked) {
  MobilenetBlock m;
  const ir::Graph& g = m.b.g;
  EXPECT_EQ(RunPass(m.b), 3);
  ASSERT_EQ(Ops(g), (std::vector<std::string>{"ToNchwc", "ConvNchwc", "DepthwiseConvNchwc", "ConvNchwc", "FromNchwc"}));
  for (const ir::Node& n : g.nodes()) {
    EXPECT_EQ(n.domain, "loom") << n.name;
    EXPECT_EQ(n.device, Device::kCpu) << n.name;
  }
  const ir::Node& to = g.node(0);
  EXPECT_EQ(to.name, "x.to_nchwc");
  ASSERT_EQ(to.inputs, std::vector<int>{m.x});
  const int xb = to.outputs[0];
  EXPECT_EQ(ShapeOf(g, xb), (Shape{1, 1, 5, 5, 8}));

  const ir::Node& expand = g.node(1);
  EXPECT_EQ(expand.name, "expand");
  ASSERT_EQ(expand.inputs.size(), 3u);
  EXPECT_EQ(expand.inputs[0], xb);
  EXPECT_EQ(expand.inputs[2], m.b1);  // the bias stays [Cout]
  EXPECT_EQ(ShapeOf(g, expand.inputs[1]), (Shape{2, 1, 1, 1, 8, 8}));
  EXPECT_EQ(ShapeOf(g, expand.outputs[0]), (Shape{1, 2, 5, 5, 8}));
  EXPECT_EQ(expand.attrs.GetString("loom.activation", ""), "Clip");
  EXPECT_EQ(expand.attrs.GetFloat("loom.activation_max", 0.f), 6.f);
  EXPECT_EQ(expand.attrs.GetInts("kernel_shape"), (std::vector<int64_t>{1, 1}));
  EXPECT_EQ(expand.attrs.GetInts("pads"), (std::vector<int64_t>{0, 0, 0, 0}));
  EXPECT_FALSE(expand.attrs.Has("group"));
  EXPECT_EQ(expand.fused, std::vector<std::string>{"Clip"});

  const ir::Node& dw = g.node(2);
  EXPECT_EQ(dw.name, "dw");
  EXPECT_EQ(dw.inputs[0], expand.outputs[0]);
  EXPECT_EQ(ShapeOf(g, dw.inputs[1]), (Shape{2, 3, 3, 8}));
  EXPECT_EQ(dw.attrs.GetInts("kernel_shape"), (std::vector<int64_t>{3, 3}));
  EXPECT_EQ(dw.attrs.GetInts("strides"), (std::vector<int64_t>{1, 1}));
  EXPECT_EQ(dw.attrs.GetInts("pads"), (std::vector<int64_t>{1, 1, 1, 1}));
  EXPECT_EQ(dw.attrs.GetInts("dilations"), (std::vector<int64_t>{1, 1}));
  EXPECT_EQ(dw.attrs.GetFloat("loom.activation_min", -1.f), 0.f);

  const ir::Node& project = g.node(3);
  EXPECT_EQ(project.name, "project");
  ASSERT_EQ(project.inputs.size(), 4u);
  EXPECT_EQ(project.inputs[0], dw.outputs[0]);
  EXPECT_LT(project.inputs[2], 0);
  EXPECT_EQ(project.inputs[3], xb);  // one conversion of x for both readers
  EXPECT_EQ(project.attrs.GetInt("loom.residual", 0), 1);

  const ir::Node& from = g.node(4);
  EXPECT_EQ(from.name, "y.from_nchwc");
  EXPECT_EQ(from.inputs, std::vector<int>{project.outputs[0]});
  EXPECT_EQ(from.outputs, std::vector<int>{m.y});
  EXPECT_EQ(g.outputs(), std::vector<int>{m.y});
  EXPECT_EQ(g.value(m.y).name, "y");
  EXPECT_EQ(ShapeOf(g, m.y), (Shape{1, 8, 5, 5}));

  ExpectBlockedWeights(g, m.w1, expand.inputs[1]);
  ExpectBlockedWeights(g, m.wd, dw.inputs[1]);
}

// A 3x3 group-1 weight with Cin = Cout = 16, checked element by element
// (taps and both channel blocks).
TEST(LayoutNchwcTest, ConvWeightsReorderPerTap) {
  IrBuilder b;
  const int x = b.Input("x", {1, 16, 4, 4}), w = b.Const("w", {16, 16, 3, 3}, Ramp(16 * 16 * 9, 0.001f));
  const int w2 = b.Const("w2", {16, 16, 1, 1}, Ramp(256));
  const int a = b.Tensor("a", {1, 16, 2, 2}), y = b.Tensor("y", {1, 16, 2, 2});
  AddConv(b, {x, w}, a, "c3");
  AddConv(b, {a, w2}, y, "c1");
  b.Output(y);
  EXPECT_EQ(RunPass(b), 2);
  const ir::Node* c3 = Named(b.g, "c3");
  ASSERT_NE(c3, nullptr);
  ASSERT_EQ(c3->inputs.size(), 2u);  // no bias
  EXPECT_EQ(ShapeOf(b.g, c3->inputs[1]), (Shape{2, 2, 3, 3, 8, 8}));
  ExpectBlockedWeights(b.g, w, c3->inputs[1]);
}

TEST(LayoutNchwcTest, LoneConvAndOddChannelsStayNchw) {
  for (const int64_t c : {int64_t{8}, int64_t{12}}) {
    IrBuilder b;
    const int x = b.Input("x", {1, c, 4, 4}), w = b.Const("w", {c, c, 1, 1}, Ramp(static_cast<size_t>(c * c)));
    const int a = b.Tensor("a", {1, c, 4, 4}), y = b.Tensor("y", {1, c, 4, 4});
    AddConv(b, {x, w}, a, "c1");
    if (c == 8) {  // one Conv (the Relu joins, but one Conv does not pay)
      b.Node("Relu", {a}, {y});
    } else {  // two Convs, 12 channels
      AddConv(b, {a, w}, y, "c2");
    }
    b.Output(y);
    EXPECT_EQ(RunPass(b), 0) << c;
    for (const ir::Node& n : b.g.nodes()) EXPECT_TRUE(n.domain.empty()) << n.name;
  }
}

// Two 1x1 Convs whose outputs are added, reading one input or one each:
// one conversion per input, shared by its readers.
TEST(LayoutNchwcTest, OneConversionPerEnteringTensor) {
  for (const bool shared_input : {true, false}) {
    IrBuilder b;
    const Shape s = {1, 8, 4, 4};
    const int x1 = b.Input("x1", s), x2 = shared_input ? x1 : b.Input("x2", s);
    const int w = b.Const("w", {8, 8, 1, 1}, Ramp(64));
    const int a1 = b.Tensor("a1", s), a2 = b.Tensor("a2", s), y = b.Tensor("y", s);
    AddConv(b, {x1, w}, a1, "c1");
    AddConv(b, {x2, w}, a2, "c2");
    b.Node("Add", {a1, a2}, {y});
    b.Output(y);
    EXPECT_EQ(RunPass(b), 3) << shared_input;
    const std::vector<std::string> ops = Ops(b.g);
    EXPECT_EQ(std::count(ops.begin(), ops.end(), "ToNchwc"), shared_input ? 1 : 2);
    const ir::Node* c1 = Named(b.g, "c1");
    const ir::Node* c2 = Named(b.g, "c2");
    ASSERT_TRUE(c1 && c2);
    EXPECT_EQ(c1->inputs[1], c2->inputs[1]);  // one blocked copy of the shared weights
    EXPECT_EQ(c1->inputs[0] == c2->inputs[0], shared_input);
  }
}

// The 3x3 Conv the NCHW kernel runs through Winograd joins the region of the
// 1x1 Convs around it (loom.ConvNchwc runs it through Winograd too).
TEST(LayoutNchwcTest, WinogradConvJoinsTheRegion) {
  nn::WinogradConvShape ws;
  ws.in_channels = ws.out_channels = 32;
  ws.in_h = ws.in_w = 8;
  ws.pad_top = ws.pad_left = ws.pad_bottom = ws.pad_right = 1;
  ASSERT_NE(nn::ChooseWinogradTile(ws), 0);
  IrBuilder b;
  const Shape s = {1, 32, 8, 8};
  const int x = b.Input("x", s), w1 = b.Const("w1", {32, 32, 1, 1}, Ramp(1024));
  const int w3 = b.Const("w3", {32, 32, 3, 3}, Ramp(9216, 0.0001f));
  const int a = b.Tensor("a", s), c = b.Tensor("c", s), y = b.Tensor("y", s);
  AddConv(b, {x, w1}, a, "c1");
  AddConv(b, {a, w3}, c, "c3", {1, 1, 1, 1});
  AddConv(b, {c, w1}, y, "c2");
  b.Output(y);
  EXPECT_EQ(RunPass(b), 3);
  EXPECT_EQ(Ops(b.g), (std::vector<std::string>{"ToNchwc", "ConvNchwc", "ConvNchwc", "ConvNchwc", "FromNchwc"}));
  const ir::Node* c3 = Named(b.g, "c3");
  ASSERT_NE(c3, nullptr);
  EXPECT_EQ(ShapeOf(b.g, c3->inputs[1]), (Shape{4, 4, 3, 3, 8, 8}));
  EXPECT_EQ(c3->attrs.GetInts("pads"), (std::vector<int64_t>{1, 1, 1, 1}));
}

// Squeeze-and-excitation with 4 squeeze channels (efficientnet style): the
// reducing Conv (16 -> 4) stays NCHW, so the pooled tensor leaves the region
// through a Reshape (H*W == 1); the expanding one (4 -> 16) reads it as the
// stem kernel and writes the blocked excitation; the pool becomes a
// ReduceMean over the blocked tensor; Sigmoid and the broadcast Mul join.
TEST(LayoutNchwcTest, SqueezeExcitationUsesReshapes) {
  IrBuilder b;
  const Shape s = {1, 16, 4, 4}, pooled = {1, 16, 1, 1};
  const int x = b.Input("x", s), w = b.Const("w", {16, 16, 1, 1}, Ramp(256));
  const int wr = b.Const("wr", {4, 16, 1, 1}, Ramp(64)), we = b.Const("we", {16, 4, 1, 1}, Ramp(64));
  const int a = b.Tensor("a", s), p = b.Tensor("p", pooled), r = b.Tensor("r", {1, 4, 1, 1});
  const int e = b.Tensor("e", pooled), sg = b.Tensor("sg", pooled), m = b.Tensor("m", s), y = b.Tensor("y", s);
  AddConv(b, {x, w}, a, "c1");
  b.Node("GlobalAveragePool", {a}, {p}, "pool");
  AddConv(b, {p, wr}, r, "reduce");
  AddConv(b, {r, we}, e, "expand");
  b.Node("Sigmoid", {e}, {sg}, "gate");
  b.Node("Mul", {a, sg}, {m}, "scale");
  AddConv(b, {m, w}, y, "c2");
  b.Output(y);
  EXPECT_EQ(RunPass(b), 6);
  EXPECT_EQ(Ops(b.g), (std::vector<std::string>{"ToNchwc", "ConvNchwc", "ReduceMean", "Reshape", "Conv",
                                                "ConvNchwcStem", "Sigmoid", "Mul", "ConvNchwc", "FromNchwc"}));
  const ir::Node* pool = Named(b.g, "pool");
  ASSERT_NE(pool, nullptr);
  EXPECT_EQ(pool->attrs.GetInts("axes"), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(pool->attrs.GetInt("keepdims", 0), 1);
  EXPECT_EQ(ShapeOf(b.g, pool->outputs[0]), (Shape{1, 2, 1, 1, 8}));
  const ir::Node* leave = Named(b.g, "p.from_nchwc");
  ASSERT_NE(leave, nullptr);
  EXPECT_EQ(leave->op, "Reshape");
  EXPECT_EQ(leave->inputs[0], pool->outputs[0]);
  EXPECT_EQ(leave->outputs, std::vector<int>{p});
  EXPECT_EQ(ShapeOf(b.g, leave->inputs[1]), Shape{4});
  const ir::Node* expand = Named(b.g, "expand");
  ASSERT_NE(expand, nullptr);
  EXPECT_EQ(expand->inputs[0], r);
  EXPECT_EQ(ShapeOf(b.g, expand->outputs[0]), (Shape{1, 2, 1, 1, 8}));
  ExpectBlockedWeights(b.g, we, expand->inputs[1]);
  const ir::Node* scale = Named(b.g, "scale");
  ASSERT_NE(scale, nullptr);
  EXPECT_EQ(ShapeOf(b.g, scale->inputs[0]), (Shape{1, 2, 4, 4, 8}));
  EXPECT_EQ(ShapeOf(b.g, scale->inputs[1]), (Shape{1, 2, 1, 1, 8}));
}

// A MaxPool (ceil_mode, SqueezeNet style) and an AveragePool between
// blocked Convs join their region when the NCHWc pooling kernels are
// registered; their attributes stay, auto_pad NOTSET and storage_order go.
TEST(LayoutNchwcTest, PoolsBetweenConvsJoin) {
  IrBuilder b;
  const int x = b.Input("x", {1, 8, 9, 9});
  const int w1 = b.Const("w1", {16, 8, 1, 1}, Ramp(128)), w2 = b.Const("w2", {8, 16, 1, 1}, Ramp(128));
  const int a = b.Tensor("a", {1, 16, 9, 9}), p = b.Tensor("p", {1, 16, 4, 4}), q = b.Tensor("q", {1, 16, 2, 2});
  const int y = b.Tensor("y", {1, 8, 2, 2});
  AddConv(b, {x, w1}, a, "c1");
  ir::Node& max = b.node(b.Node("MaxPool", {a}, {p}, "max"));
  max.attrs.SetInts("kernel_shape", {3, 3});
  max.attrs.SetInts("strides", {2, 2});
  max.attrs.SetInt("ceil_mode", 1);
  max.attrs.SetString("auto_pad", "NOTSET");
  max.attrs.SetInt("storage_order", 0);
  ir::Node& avg = b.node(b.Node("AveragePool", {p}, {q}, "avg"));
  avg.attrs.SetInts("kernel_shape", {2, 2});
  avg.attrs.SetInts("strides", {2, 2});
  AddConv(b, {q, w2}, y, "c2");
  b.Output(y);
  EXPECT_EQ(RunPass(b), 4);
  EXPECT_EQ(Ops(b.g), (std::vector<std::string>{"ToNchwc", "ConvNchwc", "MaxPoolNchwc", "AveragePoolNchwc",
                                                "ConvNchwc", "FromNchwc"}));
  const ir::Node* pool = Named(b.g, "max");
  ASSERT_NE(pool, nullptr);
  EXPECT_EQ(pool->domain, "loom");
  EXPECT_EQ(pool->attrs.GetInts("kernel_shape"), (std::vector<int64_t>{3, 3}));
  EXPECT_EQ(pool->attrs.GetInt("ceil_mode", 0), 1);
  EXPECT_EQ(pool->attrs.Find("auto_pad"), nullptr);
  EXPECT_EQ(pool->attrs.Find("storage_order"), nullptr);
  EXPECT_EQ(ShapeOf(b.g, pool->outputs[0]), (Shape{1, 2, 4, 4, 8}));
}

// A MaxPool with auto_pad SAME_UPPER stays NCHW (and splits the region).
TEST(LayoutNchwcTest, PoolWithAutoPadStays) {
  IrBuilder b;
  const int x = b.Input("x", {1, 8, 8, 8});
  const int w1 = b.Const("w1", {16, 8, 1, 1}, Ramp(128)), w2 = b.Const("w2", {8, 16, 1, 1}, Ramp(128));
  const int a = b.Tensor("a", {1, 16, 8, 8}), p = b.Tensor("p", {1, 16, 4, 4}), y = b.Tensor("y", {1, 8, 4, 4});
  AddConv(b, {x, w1}, a, "c1");
  ir::Node& max = b.node(b.Node("MaxPool", {a}, {p}, "max"));
  max.attrs.SetInts("kernel_shape", {2, 2});
  max.attrs.SetInts("strides", {2, 2});
  max.attrs.SetString("auto_pad", "SAME_UPPER");
  AddConv(b, {p, w2}, y, "c2");
  b.Output(y);
  EXPECT_EQ(RunPass(b), 0);
  EXPECT_EQ(Ops(b.g), (std::vector<std::string>{"Conv", "MaxPool", "Conv"}));
}

// SqueezeNet fire module: squeeze 1x1 (Relu node), two expands, Concat along
// the channels (axis -3), a per-channel constant Mul; the Concat output is
// also a graph output, read as NCHW by a Softmax.
TEST(LayoutNchwcTest, FireModuleConcat) {
  IrBuilder b;
  const int x = b.Input("x", {1, 16, 6, 6});
  const int ws = b.Const("ws", {8, 16, 1, 1}, Ramp(128)), w1 = b.Const("w1", {16, 8, 1, 1}, Ramp(128));
  const int w3 = b.Const("w3", {16, 8, 3, 3}, Ramp(1152, 0.001f)), k = b.Const("k", {32, 1, 1}, Ramp(32));
  const int sq = b.Tensor("sq", {1, 8, 6, 6}), sr = b.Tensor("sr", {1, 8, 6, 6});
  const int e1 = b.Tensor("e1", {1, 16, 6, 6}), e3 = b.Tensor("e3", {1, 16, 6, 6});
  const int cat = b.Tensor("cat", {1, 32, 6, 6}), y = b.Tensor("y", {1, 32, 6, 6}), z = b.Tensor("z", {1, 32, 6, 6});
  AddConv(b, {x, ws}, sq, "squeeze");
  b.Node("Relu", {sq}, {sr}, "relu");
  AddConv(b, {sr, w1}, e1, "e1");
  AddConv(b, {sr, w3}, e3, "e3", {1, 1, 1, 1});
  b.node(b.Node("Concat", {e1, e3}, {cat}, "concat")).attrs.SetInt("axis", -3);
  b.Node("Mul", {cat, k}, {y}, "mul");
  b.Node("Softmax", {cat}, {z}, "softmax");
  b.Output(y);
  b.Output(cat);
  b.Output(z);
  EXPECT_EQ(RunPass(b), 6);
  EXPECT_EQ(Ops(b.g), (std::vector<std::string>{"ToNchwc", "ConvNchwc", "Relu", "ConvNchwc", "ConvNchwc", "Concat",
                                                "FromNchwc", "Mul", "FromNchwc", "Softmax"}));
  const ir::Node* concat = Named(b.g, "concat");
  ASSERT_NE(concat, nullptr);
  EXPECT_EQ(concat->attrs.GetInt("axis", 0), 1);
  EXPECT_EQ(ShapeOf(b.g, concat->outputs[0]), (Shape{1, 4, 6, 6, 8}));
  const ir::Node* mul = Named(b.g, "mul");
  ASSERT_NE(mul, nullptr);
  EXPECT_EQ(ShapeOf(b.g, mul->inputs[1]), (Shape{1, 4, 1, 1, 8}));
  EXPECT_EQ(b.ConstValues(mul->inputs[1]), b.ConstValues(k));
  // Graph outputs: the same values, names and NCHW shapes, written by FromNchwc.
  EXPECT_EQ(b.g.outputs(), (std::vector<int>{y, cat, z}));
  EXPECT_EQ(Named(b.g, "cat.from_nchwc")->outputs, std::vector<int>{cat});
  EXPECT_EQ(Named(b.g, "y.from_nchwc")->outputs, std::vector<int>{y});
  EXPECT_EQ(ShapeOf(b.g, cat), (Shape{1, 32, 6, 6}));
  EXPECT_EQ(Named(b.g, "softmax")->inputs, std::vector<int>{cat});
}

// auto_pad SAME_UPPER with stride 2 becomes explicit pads.
TEST(LayoutNchwcTest, ResolvesAutoPad) {
  MobilenetBlock m(8, 16, 5);
  ir::Node& dw = m.b.node(1);
  dw.attrs.Erase("pads");
  dw.attrs.SetString("auto_pad", "SAME_UPPER");
  dw.attrs.SetInts("strides", {2, 2});
  m.b.g.value(m.d).shape = {1, 16, 3, 3};
  m.b.node(2).inputs.resize(2);  // no residual of another size
  m.b.node(2).attrs.Erase("loom.residual");
  m.b.g.value(m.y).shape = {1, 8, 3, 3};
  EXPECT_EQ(RunPass(m.b), 3);
  const ir::Node* n = Named(m.b.g, "dw");
  ASSERT_NE(n, nullptr);
  EXPECT_FALSE(n->attrs.Has("auto_pad"));
  EXPECT_EQ(n->attrs.GetInts("pads"), (std::vector<int64_t>{1, 1, 1, 1}));
  EXPECT_EQ(n->attrs.GetInts("strides"), (std::vector<int64_t>{2, 2}));
}

// A network's first Conv (3 -> 8, 3x3 / 2, asymmetric pads, Relu) before
// a MobileNet block: it reads the NCHW image itself as ConvNchwcStem and
// writes the block's blocked input, so no ToNchwc is left.
TEST(LayoutNchwcTest, StemConvReadsNchw) {
  MobilenetBlock net(8, 16, 5, true);
  const ir::Graph& g = net.b.g;
  EXPECT_EQ(RunPass(net.b), 4);
  ASSERT_EQ(Ops(g),
            (std::vector<std::string>{"ConvNchwcStem", "ConvNchwc", "DepthwiseConvNchwc", "ConvNchwc", "FromNchwc"}));
  const ir::Node& stem = g.node(0);
  EXPECT_EQ(stem.name, "stem");
  EXPECT_EQ(stem.domain, "loom");
  ASSERT_EQ(stem.inputs.size(), 3u);
  EXPECT_EQ(stem.inputs[0], net.image);  // NCHW, as the graph input
  EXPECT_EQ(stem.inputs[2], net.bs);
  EXPECT_EQ(ShapeOf(g, stem.inputs[1]), (Shape{1, 3, 3, 3, 8}));
  ExpectBlockedWeights(g, net.ws, stem.inputs[1]);
  EXPECT_EQ(ShapeOf(g, stem.outputs[0]), (Shape{1, 1, 5, 5, 8}));
  EXPECT_EQ(stem.attrs.GetInts("kernel_shape"), (std::vector<int64_t>{3, 3}));
  EXPECT_EQ(stem.attrs.GetInts("strides"), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(stem.attrs.GetInts("pads"), (std::vector<int64_t>{1, 1, 1, 0}));
  EXPECT_EQ(stem.attrs.GetInts("dilations"), (std::vector<int64_t>{1, 1}));
  EXPECT_EQ(stem.attrs.GetString("loom.activation", ""), "Relu");
  EXPECT_EQ(stem.fused, std::vector<std::string>{"Relu"});
  // The block reads the stem's output directly, the residual included.
  const ir::Node& expand = g.node(1);
  EXPECT_EQ(expand.inputs[0], stem.outputs[0]);
  EXPECT_EQ(g.node(3).inputs[3], stem.outputs[0]);
  EXPECT_EQ(g.node(4).outputs, std::vector<int>{net.y});
}

// The stem alone with a Relu (one Conv) is no region; with a 3x3 Conv after
// it (blocked Winograd) the two are one, the stem reading the NCHW input;
// without the stem kernel, the first Conv stays NCHW and a ToNchwc converts
// its output.
TEST(LayoutNchwcTest, StemJoinsOnlyARegion) {
  {
    IrBuilder b;
    const int x = b.Input("x", {1, 3, 8, 8}), w = b.Const("w", {8, 3, 3, 3}, Ramp(216));
    const int a = b.Tensor("a", {1, 8, 8, 8}), y = b.Tensor("y", {1, 8, 8, 8});
    AddConv(b, {x, w}, a, "stem", {1, 1, 1, 1});
    b.Node("Relu", {a}, {y});
    b.Output(y);
    EXPECT_EQ(RunPass(b), 0);
    EXPECT_EQ(Ops(b.g), (std::vector<std::string>{"Conv", "Relu"}));
  }
  {
    IrBuilder b;
    const Shape s = {1, 32, 8, 8};
    const int x = b.Input("x", {1, 3, 8, 8}), w = b.Const("w", {32, 3, 3, 3}, Ramp(864, 0.001f));
    const int w3 = b.Const("w3", {32, 32, 3, 3}, Ramp(9216, 0.0001f));
    const int a = b.Tensor("a", s), y = b.Tensor("y", s);
    AddConv(b, {x, w}, a, "stem", {1, 1, 1, 1});
    AddConv(b, {a, w3}, y, "c3", {1, 1, 1, 1});
    b.Output(y);
    EXPECT_EQ(RunPass(b), 2);
    EXPECT_EQ(Ops(b.g), (std::vector<std::string>{"ConvNchwcStem", "ConvNchwc", "FromNchwc"}));
  }
  {
    MobilenetBlock net(8, 16, 5, true);
    const KernelRegistry all = testing::WithNchwcReferenceKernels(KernelRegistry::Global());
    KernelRegistry registry;
    for (const KernelDef& d : all.all())
      if (d.op != "ConvNchwcStem") registry.Add(d);
    EXPECT_EQ(testing::RunPass(*MakeLayoutNchwc(), net.b, &registry), 3);
    EXPECT_EQ(Ops(net.b.g), (std::vector<std::string>{"Conv", "ToNchwc", "ConvNchwc", "DepthwiseConvNchwc", "ConvNchwc",
                                                      "FromNchwc"}));
  }
}

TEST(LayoutNchwcTest, LeavesOtherNodesAlone) {
  {  // the depthwise Conv on another device: each 1x1 Conv alone
    MobilenetBlock m;
    m.b.node(1).device = Device::kFpga;
    EXPECT_EQ(RunPass(m.b), 0);
  }
  {  // float64
    IrBuilder b;
    const Shape s = {1, 8, 4, 4};
    const int x = b.Input("x", s, DType::kFloat64), a = b.Tensor("a", s, DType::kFloat64);
    const int y = b.Tensor("y", s, DType::kFloat64);
    const int w = b.g.AddConstant("w", DType::kFloat64, {8, 8, 1, 1}, ir::Buffer::Allocate(64 * 8));
    AddConv(b, {x, w}, a, "c1");
    AddConv(b, {a, w}, y, "c2");
    b.Output(y);
    EXPECT_EQ(RunPass(b), 0);
  }
  {  // no NCHWc kernels in the registry
    MobilenetBlock m;
    EXPECT_EQ(RunPass(m.b, false), 0);
    EXPECT_EQ(Ops(m.b.g), (std::vector<std::string>{"Conv", "Conv", "Conv"}));
  }
}

}  // namespace
}  // namespace passes
}  // namespace loom
