#include "builder/passes/space_to_depth_stem.h"

#include <cstring>
#include <limits>
#include <vector>

#include "builder/build_log.h"
#include "builder/exec/kernel_choice.h"

namespace loom {
namespace passes {

namespace {

// The geometry of one rewrite (NCHW; square stride s).
struct Stem {
  int64_t n = 0, c = 0, h = 0, w = 0;  // input x
  int64_t m = 0, kh = 0, kw = 0;       // weights
  int64_t oh = 0, ow = 0;              // output
  int64_t s = 0;
  int64_t pt = 0, pl = 0;  // leading pads, as in the old Conv
  int64_t hp = 0, wp = 0;  // padded input: s * (out - 1 + new kernel)
  int64_t qh = 0, qw = 0;  // new kernel: ceil(k / s)
  int64_t PadBottom() const { return hp - h - pt; }
  int64_t PadRight() const { return wp - w - pl; }
};

bool AllOnes(const std::vector<int64_t>& v) {
  for (int64_t x : v)
    if (x != 1) return false;
  return true;
}

// Whether `conv` has the form this pass rewrites, and its geometry.
bool Matches(const ir::Graph& g, const ir::Node& conv, Stem* st) {
  if (!conv.domain.empty() || conv.op != "Conv" || conv.inputs.size() < 2 || conv.outputs.size() != 1) return false;
  if (conv.inputs[0] < 0 || conv.inputs[1] < 0 || conv.outputs[0] < 0) return false;
  const ir::Value& x = g.value(conv.inputs[0]);
  const ir::Value& w = g.value(conv.inputs[1]);
  const ir::Value& y = g.value(conv.outputs[0]);
  if (x.dtype != DType::kInt8 || x.quant.empty() || x.quant.per_channel() || x.shape.size() != 4) return false;
  if (w.dtype != DType::kInt8 || !w.is_constant() || w.shape.size() != 4 || y.shape.size() != 4) return false;
  // The new taps past K hold 0, which adds nothing only if 0 is the weights'
  // zero point.
  for (int64_t zp : w.quant.zero_point)
    if (zp != 0) return false;
  if (conv.attrs.GetInt("group", 1) != 1 || !AllOnes(conv.attrs.GetInts("dilations", {1, 1}))) return false;
  const std::string auto_pad = conv.attrs.GetString("auto_pad", "NOTSET");
  if (auto_pad != "NOTSET" && auto_pad != "VALID") return false;
  const std::vector<int64_t> strides = conv.attrs.GetInts("strides", {1, 1});
  if (strides.size() != 2 || strides[0] != strides[1] || strides[0] < 2) return false;
  const std::vector<int64_t> pads =
      auto_pad == "VALID" ? std::vector<int64_t>(4, 0) : conv.attrs.GetInts("pads", std::vector<int64_t>(4, 0));
  if (pads.size() != 4) return false;
  for (int64_t p : pads)
    if (p < 0) return false;
  st->n = x.shape[0], st->c = x.shape[1], st->h = x.shape[2], st->w = x.shape[3];
  st->m = w.shape[0], st->kh = w.shape[2], st->kw = w.shape[3];
  st->oh = y.shape[2], st->ow = y.shape[3];
  st->s = strides[0];
  st->pt = pads[0], st->pl = pads[1];
  if (w.shape[1] != st->c || st->kh < 1 || st->kw < 1 || st->oh < 1 || st->ow < 1) return false;
  st->qh = (st->kh + st->s - 1) / st->s;
  st->qw = (st->kw + st->s - 1) / st->s;
  st->hp = st->s * (st->oh - 1 + st->qh);
  st->wp = st->s * (st->ow - 1 + st->qw);
  // Rows and columns past the old window are read only by zero taps. A Conv
  // that never reads the end of its input (the rewrite would crop it) stays.
  return st->PadBottom() >= 0 && st->PadRight() >= 0;
}

// w'[o, (by*s+bx)*C + c, qy, qx] = w[o, c, s*qy+by, s*qx+bx] (zero past K).
std::shared_ptr<ir::Buffer> RearrangedWeights(const ir::Value& w, const Stem& st) {
  const int64_t cs = st.c * st.s * st.s;
  auto out = ir::Buffer::Allocate(static_cast<size_t>(st.m * cs * st.qh * st.qw));
  std::memset(out->mutable_data(), 0, out->size());
  const int8_t* src = w.data->as<int8_t>();
  int8_t* dst = reinterpret_cast<int8_t*>(out->mutable_data());
  for (int64_t o = 0; o < st.m; ++o)
    for (int64_t c = 0; c < st.c; ++c)
      for (int64_t ky = 0; ky < st.kh; ++ky)
        for (int64_t kx = 0; kx < st.kw; ++kx) {
          const int64_t channel = ((ky % st.s) * st.s + kx % st.s) * st.c + c;
          dst[((o * cs + channel) * st.qh + ky / st.s) * st.qw + kx / st.s] =
              src[((o * st.c + c) * st.kh + ky) * st.kw + kx];
        }
  return out;
}

ir::Value Activation(const std::string& name, const ir::Value& like, Shape shape) {
  ir::Value v;
  v.name = name;
  v.dtype = like.dtype;
  v.shape = std::move(shape);
  v.shape_known = true;
  v.quant = like.quant;
  return v;
}

// Adds Pad (when any), SpaceToDepth and the new Conv to `g` and marks the
// old Conv dead; returns the new Conv's index. Nodes go at the end (the
// pass sorts the graph afterwards).
int Rewrite(ir::Graph& g, int conv_index, const Stem& st) {
  const ir::Node conv = g.node(conv_index);
  const ir::Value x = g.value(conv.inputs[0]);
  const std::string base = conv.name;
  int padded = conv.inputs[0];
  if (st.pt != 0 || st.pl != 0 || st.PadBottom() != 0 || st.PadRight() != 0) {
    const std::vector<int64_t> pads = {0, 0, st.pt, st.pl, 0, 0, st.PadBottom(), st.PadRight()};
    const int pads_id = g.AddConstant(g.UniqueValueName(base + "_s2d_pads"), DType::kInt64, {8},
                                      ir::Buffer::CopyOf(pads.data(), pads.size() * sizeof(int64_t)));
    const int8_t zero_point = static_cast<int8_t>(x.quant.zero_point.empty() ? 0 : x.quant.zero_point[0]);
    const int value_id =
        g.AddConstant(g.UniqueValueName(base + "_s2d_pad_value"), DType::kInt8, {}, ir::Buffer::CopyOf(&zero_point, 1));
    padded = g.AddValue(Activation(g.UniqueValueName(base + "_s2d_padded"), x, {st.n, st.c, st.hp, st.wp}));
    ir::Node pad;
    pad.name = base + "/s2d_pad";
    pad.op = "Pad";
    pad.opset = 13;
    pad.attrs.SetString("mode", "constant");
    pad.inputs = {conv.inputs[0], pads_id, value_id};
    pad.outputs = {padded};
    g.AddNode(std::move(pad));
  }
  const int blocks = g.AddValue(
      Activation(g.UniqueValueName(base + "_s2d"), x, {st.n, st.c * st.s * st.s, st.hp / st.s, st.wp / st.s}));
  ir::Node s2d;
  s2d.name = base + "/space_to_depth";
  s2d.op = "SpaceToDepth";
  s2d.opset = 13;
  s2d.attrs.SetInt("blocksize", st.s);
  s2d.inputs = {padded};
  s2d.outputs = {blocks};
  g.AddNode(std::move(s2d));

  const ir::Value w = g.value(conv.inputs[1]);  // a copy: AddConstant grows the values
  const int weights = g.AddConstant(g.UniqueValueName(w.name + "_s2d"), DType::kInt8,
                                    {st.m, st.c * st.s * st.s, st.qh, st.qw}, RearrangedWeights(w, st));
  g.value(weights).quant = w.quant;
  ir::Node stem = conv;
  stem.inputs[0] = blocks;
  stem.inputs[1] = weights;
  stem.attrs.Erase("auto_pad");
  stem.attrs.SetInts("kernel_shape", {st.qh, st.qw});
  stem.attrs.SetInts("strides", {1, 1});
  stem.attrs.SetInts("pads", {0, 0, 0, 0});
  stem.attrs.SetInts("dilations", {1, 1});
  g.node(conv_index).dead = true;
  return g.AddNode(std::move(stem));
}

// The accelerator's predicted time for `node`, or infinity if its kernels
// refuse it.
double FpgaMs(const ir::Graph& g, const PassContext& ctx, const ir::Node& node) {
  const DeviceConfig* config = ctx.ConfigFor(Device::kFpga);
  exec::ChosenKernel chosen;
  if (!exec::ChooseKernel(*ctx.registry, exec::MakeKernelSetup(g, node, config), Device::kFpga, &chosen).ok())
    return std::numeric_limits<double>::infinity();
  return ctx.target->cost_model().NodeMs(g, node, Device::kFpga);
}

class SpaceToDepthStem : public Pass {
 public:
  const char* name() const override { return "space_to_depth_stem"; }
  int min_opt_level() const override { return 2; }

  Status Run(ir::Graph& g, PassContext& ctx, int* changes) override {
    if (ctx.target == nullptr || !ctx.target->Has(Device::kFpga)) return Status::Ok();
    const size_t count = g.nodes().size();
    for (size_t i = 0; i < count; ++i) {
      const int index = static_cast<int>(i);
      Stem st;
      if (g.node(index).dead || !Matches(g, g.node(index), &st)) continue;
      // Price both forms on a copy (constants are shared, not copied).
      ir::Graph trial = g;
      const double before = FpgaMs(trial, ctx, trial.node(index));
      const int stem = Rewrite(trial, index, st);
      double after = FpgaMs(trial, ctx, trial.node(stem));
      for (size_t n = count; n < trial.nodes().size(); ++n)
        if (static_cast<int>(n) != stem)
          after += ctx.target->cost_model().NodeMs(trial, trial.node(static_cast<int>(n)), Device::kCpu);
      if (!(after < before)) continue;
      BuildLog().info("space_to_depth_stem: {} as a {}x{} conv over {} channels: predicted {:.3f} ms vs {:.3f} ms",
                      g.node(index).Label(), st.qh, st.qw, st.c * st.s * st.s, after, before);
      Rewrite(g, index, st);
      ++*changes;
    }
    if (*changes > 0) RETURN_IF_ERROR(g.SortTopologically());
    return Status::Ok();
  }
};

}  // namespace

std::unique_ptr<Pass> MakeSpaceToDepthStem() { return std::make_unique<SpaceToDepthStem>(); }

}  // namespace passes
}  // namespace loom
