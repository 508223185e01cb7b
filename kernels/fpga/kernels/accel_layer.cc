// The node checks are the CPU int8 kernels' own helpers (tensor_quant.h,
// linear_output.h, nn/conv_geometry.h), called the way those kernels call
// them, so the accelerator takes a subset of the nodes the CPU int8 kernels
// take and builds its output stages from the very same requantize.h calls.
// The accelerator's limits come after them: layer.h's Validate*, the tiling
// (one output pixel's input tile, one kernel row of weights) and 32-bit
// tensor offsets.
#include "kernels/fpga/kernels/accel_layer.h"

#include <limits>
#include <string>
#include <utility>

#include "kernels/common/attribute_readers.h"
#include "kernels/common/kernel_checks.h"
#include "kernels/common/matmul_shape.h"
#include "kernels/cpu/int8/gemm_operands.h"
#include "kernels/cpu/int8/gemm_s8.h"
#include "kernels/cpu/int8/linear_output.h"
#include "kernels/cpu/int8/tensor_quant.h"
#include "kernels/cpu/nn/conv_geometry.h"
#include "kernels/fpga/lowering/tiling.h"

namespace loom {
namespace fpga {
namespace {

using lowering::ConvLayer;

std::string Str(int64_t v) { return std::to_string(v); }

uint32_t Blocks(const contract::AccelConfig& config, uint32_t channels) { return (channels + config.n - 1) / config.n; }

// A refusal as the placer shows it ("fpga16 cannot run it: <reason>"): the
// node's label is added by the caller, so the lowering's "<name> (<Op>): "
// and the kernel helpers' "unsupported " prefixes are dropped.
Status Reason(const Status& status, const std::string& label = "") {
  if (status.ok()) return status;
  std::string message = status.message();
  if (!label.empty() && message.rfind(label + ": ", 0) == 0) message.erase(0, label.size() + 2);
  const std::string unsupported = "unsupported ";
  if (message.rfind(unsupported, 0) == 0) message.erase(0, unsupported.size());
  return Status(status.code(), std::move(message));
}

// The CPU contract is int8 throughout; the accelerator's uint8 mode has no
// CPU kernel to agree with, so other dtypes are refused up front with the
// shortest reason.
Status CheckInt8(const TensorInfo& t) {
  if (!t.present || t.dtype == DType::kInt8) return Status::Ok();
  return Status::Unsupported(std::string(DTypeName(t.dtype)) + " activations");
}

// Every tensor and constant image must be addressable by the commands'
// 32-bit offsets from its slot base (strictly below 4 GiB: the lowering's
// row pitches are 32-bit too).
Status CheckAddressable(const char* what, uint64_t bytes) {
  if (bytes < (uint64_t{1} << 32)) return Status::Ok();
  return Status::Unsupported(std::string(what) + " of " + Str(static_cast<int64_t>(bytes)) +
                             " bytes exceeds the accelerator's 32-bit offsets");
}

Status SetActivations(const contract::AccelConfig& config, const KernelSetup& s, std::vector<int> inputs,
                      AccelLayer* out) {
  out->activation_inputs = std::move(inputs);
  out->inputs.clear();
  for (int i : out->activation_inputs) {
    Hwc hwc;
    RETURN_IF_ERROR(HwcOf(s.inputs[static_cast<size_t>(i)].shape, &hwc));
    RETURN_IF_ERROR(CheckAddressable("input", PaddedBytes(config, hwc)));
    out->inputs.push_back(hwc);
  }
  RETURN_IF_ERROR(HwcOf(s.outputs[0].shape, &out->output));
  return CheckAddressable("output", PaddedBytes(config, out->output));
}

// A window of a 2-D geometry (axes 1 and 2 of nn::WindowGeometry).
lowering::Window WindowOf(const nn::WindowGeometry& g) {
  auto u = [](int64_t v) { return static_cast<uint32_t>(v); };
  lowering::Window w;
  w.kh = u(g.kernel[1]);
  w.kw = u(g.kernel[2]);
  w.stride_y = u(g.stride[1]);
  w.stride_x = u(g.stride[2]);
  w.dilation_y = u(g.dilation[1]);
  w.dilation_x = u(g.dilation[2]);
  w.pad_top = u(g.pad_begin[1]);
  w.pad_bottom = u(g.pad_end[1]);
  w.pad_left = u(g.pad_begin[2]);
  w.pad_right = u(g.pad_end[2]);
  return w;
}

// X of a Conv or MaxPool: 2-D, batch 1.
Status CheckImage(const TensorInfo& x, const char* kind) {
  if (x.rank() >= 3 && x.rank() != 4) return Status::Unsupported(Str(x.rank() - 2) + "-D " + kind);
  if (x.rank() == 4 && x.shape[0] != 1) return Status::Unsupported("batch " + Str(x.shape[0]));
  return Status::Ok();
}

// The accelerator's floor-mode window and the CPU's geometry agree on the
// output size for every pads/auto_pad combination the CPU takes; this
// guards the conversion between them.
Status CheckWindow(const lowering::Window& w, const nn::WindowGeometry& g, uint32_t in_h, uint32_t in_w) {
  if (w.OutH(in_h) == g.out[1] && w.OutW(in_w) == g.out[2]) return Status::Ok();
  return Status::Internal("the accelerator's window gives " + Str(w.OutH(in_h)) + "x" + Str(w.OutW(in_w)) +
                          " outputs, the node " + Str(g.out[1]) + "x" + Str(g.out[2]));
}

// Whether the lowering can tile a windowed layer of `channels` input
// channels: one output pixel's input tile must fit the input buffer.
Status CheckSpatialTiling(const contract::AccelConfig& config, const lowering::Window& w, uint32_t h, uint32_t wd,
                          uint32_t channels, const std::string& label) {
  lowering::TileGrid grid;
  return Reason(lowering::ChooseTileGrid(lowering::AxisWindow::Y(w, h), lowering::AxisWindow::X(w, wd),
                                         lowering::TileBudgetOf(config, Blocks(config, channels)), label, &grid),
                label);
}

// ---------------------------------------------------------------- Conv, Gemm, MatMul

// The stages, bias and input zero point of a linear node whose shape and
// weights `layer` already holds; then the accelerator's checks.
Status FinishLinear(const contract::AccelConfig& config, const KernelSetup& s, const int8::LinearSpec& spec,
                    const int8::ActQuant& xq, int64_t depth, ConvLayer* layer) {
  std::vector<requant::OutputStage> stages;
  RETURN_IF_ERROR(Reason(int8::MakeLinearOutputStages(s, spec, xq, &stages)));
  // The CPU kernels' reduction limit: beyond it no CPU kernel defines the node.
  if (depth > int8::kGemmS8MaxDepth)
    return Status::Unsupported("reduction over " + Str(depth) + " inputs (above " + Str(int8::kGemmS8MaxDepth) + ")");
  const TensorInfo& bias = s.inputs[spec.bias_input];
  // The CPU reads the bias at run time; the accelerator bakes it into its
  // parameter image.
  if (bias.const_data == nullptr) return Status::Unsupported("non-constant bias");
  const int32_t* b = static_cast<const int32_t*>(bias.const_data);
  layer->bias.assign(b, b + layer->out_c);
  layer->multipliers.clear();
  for (const requant::OutputStage& stage : stages) layer->multipliers.push_back(stage.m);
  // MakeLinearOutputStages gives every channel Y's zero point and range.
  layer->output_zero_point = stages.front().zero_point;
  layer->output_range = stages.front().range;
  layer->input_zero_point = xq.zero_point;
  layer->act_unsigned = false;
  layer->out_int32 = false;

  const std::string label = layer->name + " (Conv)";
  RETURN_IF_ERROR(Reason(lowering::ValidateConv(config, *layer), label));
  RETURN_IF_ERROR(CheckSpatialTiling(config, layer->window, layer->in_h, layer->in_w, layer->in_c, label));
  lowering::WeightPlan plan;
  RETURN_IF_ERROR(Reason(lowering::PlanWeights(config, Blocks(config, layer->in_c), Blocks(config, layer->out_c),
                                               layer->window.kh, layer->window.kw, label, &plan),
                         label));
  RETURN_IF_ERROR(CheckAddressable("weight image", lowering::WeightImageBytes(config, *layer)));
  return CheckAddressable("parameter image", lowering::ParamImageBytes(config, *layer));
}

Status ConvFromSetup(const KernelSetup& s, const contract::AccelConfig& config, AccelLayer* out) {
  RETURN_IF_ERROR(Reason(CheckNode(s, 2, 3, 1, 1)));
  const TensorInfo& x = s.inputs[0];
  const TensorInfo& w = s.inputs[1];
  int8::ActQuant xq;
  RETURN_IF_ERROR(Reason(int8::ReadActQuant(s, x, "input X", &xq)));
  RETURN_IF_ERROR(CheckImage(x, "conv"));
  nn::ConvChannels ch;
  RETURN_IF_ERROR(nn::ParseConvChannels(s, x, w, "X", "W", &ch));
  if (ch.group != 1)
    return Status::Unsupported(std::string(ch.in_per_group == 1 ? "depthwise" : "grouped") + " conv (group " +
                               Str(ch.group) + ")");
  const std::vector<int64_t> spatial(x.shape.begin() + 2, x.shape.end());
  std::vector<int64_t> kernel(w.shape.begin() + 2, w.shape.end());
  for (int64_t d : kernel)
    if (d < 1) return s.Invalid("W has an empty kernel dim: " + ShapeToString(w.shape));
  nn::WindowGeometry g;
  RETURN_IF_ERROR(Reason(nn::ParseWindowGeometry(s, spatial, &kernel, nn::WindowOptions(), &g)));
  RETURN_IF_ERROR(CheckOutput(s, 0, DType::kInt8, {1, ch.out, g.out[1], g.out[2]}));
  RETURN_IF_ERROR(SetActivations(config, s, {0}, out));

  ConvLayer& layer = out->conv;
  layer = ConvLayer();
  layer.name = "conv";
  layer.in_h = out->inputs[0].h;
  layer.in_w = out->inputs[0].w;
  layer.in_c = out->inputs[0].c;
  layer.out_c = out->output.c;
  layer.window = WindowOf(g);
  RETURN_IF_ERROR(CheckWindow(layer.window, g, layer.in_h, layer.in_w));
  if (w.const_data != nullptr && w.dtype == DType::kInt8) {
    // W [M, C, kH, kW] is already the layer's [out_c][in_c][kh][kw].
    const int8_t* data = static_cast<const int8_t*>(w.const_data);
    layer.weights.assign(data, data + w.num_elements());
  }
  int8::LinearSpec spec;
  spec.weight_axis = 0;
  spec.channels = ch.out;
  out->kind = AccelLayer::Kind::kConv;
  return FinishLinear(config, s, spec, xq, ch.in_per_group * g.KernelSize(), &layer);
}

// Gemm and MatMul: Y [M, N] = A [M, K] · B + bias as a 1 × M image of K
// channels through a 1 × 1 kernel.
struct Product {
  int64_t m = 0, k = 0, n = 0;
  bool b_is_nk = false;  // B is [N, K], the layer's [out_c][in_c] (else [K, N], transposed here)
  int8::LinearSpec spec;
};

Status GemmProduct(const KernelSetup& s, Product* out) {
  int8::GemmOperands g;
  RETURN_IF_ERROR(Reason(int8::ReadGemmOperands(s, &g)));
  *out = {g.m, g.k, g.n, g.trans_b, g.spec};
  return Status::Ok();
}

Status MatMulProduct(const KernelSetup& s, Product* out) {
  const TensorInfo& a = s.inputs[0];
  const TensorInfo& b = s.inputs[1];
  if (b.rank() != 2) return Status::Unsupported("MatMul B of shape " + ShapeToString(b.shape) + " (must be 2-D)");
  if (s.attrs.GetInt("loom.trans_b", 0) != 0) return Status::Unsupported("MatMul with loom.trans_b");
  if (a.rank() != 2 && a.rank() != 3) return Status::Unsupported("MatMul A of " + Str(a.rank()) + " dims");
  if (a.rank() == 3 && a.shape[0] != 1) return Status::Unsupported("batch " + Str(a.shape[0]));
  MatMulShape shape;
  RETURN_IF_ERROR(PlanMatMul(s, a.shape, b.shape, &shape));
  RETURN_IF_ERROR(CheckOutput(s, 0, DType::kInt8, shape.output));
  out->m = shape.batches * shape.m;
  out->k = shape.k;
  out->n = shape.n;
  out->b_is_nk = false;
  out->spec.weight_axis = 1;
  out->spec.channels = shape.n;
  return Status::Ok();
}

Status ProductFromSetup(const KernelSetup& s, const contract::AccelConfig& config,
                        Status (*shape)(const KernelSetup&, Product*), AccelLayer* out) {
  RETURN_IF_ERROR(Reason(CheckNode(s, 2, 3, 1, 1)));
  int8::ActQuant aq;
  RETURN_IF_ERROR(Reason(int8::ReadActQuant(s, s.inputs[0], "input A", &aq)));
  Product p;
  RETURN_IF_ERROR(shape(s, &p));
  RETURN_IF_ERROR(SetActivations(config, s, {0}, out));
  ConvLayer& layer = out->conv;
  layer = lowering::GemmLayer(static_cast<uint32_t>(p.m), static_cast<uint32_t>(p.k), static_cast<uint32_t>(p.n),
                              s.op == "Gemm" ? "gemm" : "matmul");
  const TensorInfo& b = s.inputs[1];
  if (b.const_data != nullptr && b.dtype == DType::kInt8) {
    const int8_t* data = static_cast<const int8_t*>(b.const_data);
    for (int64_t o = 0; o < p.n; ++o)
      for (int64_t i = 0; i < p.k; ++i) layer.weights[o * p.k + i] = p.b_is_nk ? data[o * p.k + i] : data[i * p.n + o];
  }
  out->kind = AccelLayer::Kind::kConv;
  return FinishLinear(config, s, p.spec, aq, p.k, &layer);
}

Status GemmFromSetup(const KernelSetup& s, const contract::AccelConfig& config, AccelLayer* out) {
  return ProductFromSetup(s, config, GemmProduct, out);
}

Status MatMulFromSetup(const KernelSetup& s, const contract::AccelConfig& config, AccelLayer* out) {
  return ProductFromSetup(s, config, MatMulProduct, out);
}

// ---------------------------------------------------------------- Add, MaxPool

Status AddFromSetup(const KernelSetup& s, const contract::AccelConfig& config, AccelLayer* out) {
  if (s.inputs.size() < 2 || s.outputs.empty()) return s.Invalid("expects inputs A and B, output C");
  RETURN_IF_ERROR(CheckInt8(s.inputs[1]));
  int8::ActQuant aq, bq, yq;
  RETURN_IF_ERROR(Reason(int8::ReadActQuant(s, s.inputs[0], "input A", &aq)));
  RETURN_IF_ERROR(Reason(int8::ReadActQuant(s, s.inputs[1], "input B", &bq)));
  RETURN_IF_ERROR(Reason(int8::ReadActQuant(s, s.outputs[0], "output C", &yq)));
  RETURN_IF_ERROR(Reason(CheckNode(s, 2, 2, 1, 1)));
  const TensorInfo& a = s.inputs[0];
  const TensorInfo& b = s.inputs[1];
  if (a.shape != b.shape)
    return Status::Unsupported("Add with broadcasting (" + ShapeToString(a.shape) + " and " + ShapeToString(b.shape) +
                               ")");
  // The accelerator reads both operands as activations in device memory.
  if (a.const_data != nullptr || b.const_data != nullptr) return Status::Unsupported("Add of a constant");
  RETURN_IF_ERROR(CheckOutput(s, 0, DType::kInt8, a.shape));
  RETURN_IF_ERROR(SetActivations(config, s, {0, 1}, out));
  requant::Range range;
  RETURN_IF_ERROR(Reason(int8::FusedActivationRange(s, yq, &range)));
  lowering::AddLayer& layer = out->add;
  layer = lowering::AddLayer();
  layer.h = out->output.h;
  layer.w = out->output.w;
  layer.c = out->output.c;
  layer.act_unsigned = false;
  RETURN_IF_ERROR(
      Reason(int8::RequantStatus(s, requant::MakeAddParams(aq.scale, aq.zero_point, bq.scale, bq.zero_point, yq.scale,
                                                           yq.zero_point, range, &layer.params))));
  out->kind = AccelLayer::Kind::kAdd;
  return Reason(lowering::ValidateAdd(config, layer), layer.name + " (Add)");
}

Status MaxPoolFromSetup(const KernelSetup& s, const contract::AccelConfig& config, AccelLayer* out) {
  if (s.inputs.size() != 1 || !s.HasInput(0) || s.outputs.empty()) return s.Invalid("expects 1 input and an output");
  int8::ActQuant xq, yq;
  RETURN_IF_ERROR(Reason(int8::ReadActQuant(s, s.inputs[0], "input X", &xq)));
  RETURN_IF_ERROR(Reason(int8::ReadActQuant(s, s.outputs[0], "output Y", &yq)));
  if (s.outputs.size() > 2) return s.Invalid("unexpected number of outputs: " + Str(s.outputs.size()));
  if (s.outputs.size() == 2 && s.outputs[1].present) return Status::Unsupported("MaxPool Indices output");
  // The accelerator's MaxPool stores its input bytes unchanged.
  if (xq != yq) return Status::Unsupported("maxpool rescales");
  const TensorInfo& x = s.inputs[0];
  if (x.rank() < 3) return s.Invalid("X has " + Str(x.rank()) + " dims, expected at least 3");
  RETURN_IF_ERROR(CheckImage(x, "maxpool"));
  int64_t ceil_mode = 0, storage_order = 0;
  RETURN_IF_ERROR(ReadIntAttr(s, "ceil_mode", 0, &ceil_mode));
  RETURN_IF_ERROR(ReadIntAttr(s, "storage_order", 0, &storage_order));
  if (ceil_mode != 0) return Status::Unsupported("MaxPool ceil_mode " + Str(ceil_mode));
  // storage_order only orders Indices, which is refused above.
  if (storage_order != 0 && storage_order != 1)
    return s.Invalid("storage_order " + Str(storage_order) + " is not 0 or 1");
  nn::WindowGeometry g;
  RETURN_IF_ERROR(Reason(nn::ParseWindowGeometry(s, {x.shape[2], x.shape[3]}, nullptr, nn::WindowOptions(), &g)));
  RETURN_IF_ERROR(CheckOutput(s, 0, DType::kInt8, {1, x.shape[1], g.out[1], g.out[2]}));
  RETURN_IF_ERROR(SetActivations(config, s, {0}, out));
  lowering::MaxPoolLayer& layer = out->maxpool;
  layer = lowering::MaxPoolLayer();
  layer.h = out->inputs[0].h;
  layer.w = out->inputs[0].w;
  layer.c = out->inputs[0].c;
  layer.window = WindowOf(g);
  layer.zero_point = xq.zero_point;
  layer.act_unsigned = false;
  RETURN_IF_ERROR(CheckWindow(layer.window, g, layer.h, layer.w));
  out->kind = AccelLayer::Kind::kMaxPool;
  const std::string label = layer.name + " (MaxPool)";
  RETURN_IF_ERROR(Reason(lowering::ValidateMaxPool(config, layer), label));
  return CheckSpatialTiling(config, layer.window, layer.h, layer.w, layer.c, label);
}

}  // namespace

uint64_t AccelLayer::Macs() const { return kind == Kind::kConv ? conv.Macs() : 0; }

Status HwcOf(const Shape& shape, Hwc* out) {
  const size_t rank = shape.size();
  if (rank < 2 || rank > 4)
    return Status::InvalidArgument("a tensor of shape " + ShapeToString(shape) +
                                   " has no accelerator shape (2-D, [1, M, K] or [1, C, H, W])");
  for (int64_t d : shape) {
    if (d < 0) return Status::InvalidArgument("shape " + ShapeToString(shape) + " has a negative dim");
    if (d == 0) return Status::Unsupported("empty tensor " + ShapeToString(shape));
    if (d > std::numeric_limits<uint32_t>::max())
      return Status::Unsupported("dim " + Str(d) + " (the accelerator's sizes are 32-bit)");
  }
  if (rank > 2 && shape[0] != 1) return Status::Unsupported("batch " + Str(shape[0]));
  auto u = [](int64_t v) { return static_cast<uint32_t>(v); };
  if (rank == 4) {
    *out = {u(shape[2]), u(shape[3]), u(shape[1])};
  } else {
    *out = {1, u(shape[rank - 2]), u(shape[rank - 1])};
  }
  return Status::Ok();
}

uint64_t PaddedBytes(const contract::AccelConfig& config, const Hwc& hwc) {
  const uint64_t blocks = (uint64_t{hwc.c} + config.n - 1) / config.n;
  return uint64_t{hwc.h} * hwc.w * blocks * config.n;
}

Status AccelLayerFromSetup(const KernelSetup& setup, const contract::AccelConfig& config, AccelLayer* out) {
  *out = AccelLayer();
  if (!setup.domain.empty() && setup.domain != "ai.onnx")
    return Status::Unsupported("op " + setup.op + " of domain " + setup.domain);
  using FromSetup = Status (*)(const KernelSetup&, const contract::AccelConfig&, AccelLayer*);
  static const std::pair<const char*, FromSetup> kOps[] = {{"Conv", ConvFromSetup},
                                                           {"Gemm", GemmFromSetup},
                                                           {"MatMul", MatMulFromSetup},
                                                           {"Add", AddFromSetup},
                                                           {"MaxPool", MaxPoolFromSetup}};
  for (const auto& [op, from_setup] : kOps) {
    if (setup.op != op) continue;
    // The activations' dtype first: a float or uint8 node gets the short reason.
    if (!setup.inputs.empty()) RETURN_IF_ERROR(CheckInt8(setup.inputs[0]));
    if (!setup.outputs.empty()) RETURN_IF_ERROR(CheckInt8(setup.outputs[0]));
    const Status status = from_setup(setup, config, out);
    if (!status.ok()) *out = AccelLayer();
    return status;
  }
  return Status::Unsupported("op " + setup.op);
}

Status LowerAccelLayer(const contract::AccelConfig& config, const AccelLayer& layer,
                       const std::vector<lowering::DramTensor>& inputs, lowering::DramTensor output,
                       const lowering::ConstantPlacement& constants, lowering::Program* out) {
  if (inputs.size() != layer.inputs.size())
    return Status::InvalidArgument("the layer has " + Str(static_cast<int64_t>(layer.inputs.size())) +
                                   " activation inputs, " + Str(static_cast<int64_t>(inputs.size())) + " were placed");
  switch (layer.kind) {
    case AccelLayer::Kind::kConv:
      return lowering::LowerConv(config, layer.conv, inputs[0], output, constants, out);
    case AccelLayer::Kind::kAdd:
      return lowering::LowerAdd(config, layer.add, inputs[0], inputs[1], output, out);
    case AccelLayer::Kind::kMaxPool:
      return lowering::LowerMaxPool(config, layer.maxpool, inputs[0], output, out);
  }
  return Status::Internal("unknown accelerator layer kind");
}

}  // namespace fpga
}  // namespace loom
