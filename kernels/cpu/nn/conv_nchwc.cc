// loom.ConvNchwc and loom.ConvNchwcStem (conv_nchwc.h): validation, the
// choice of the path and the split of the work over threads.
//
// Work is cut into tasks (image, range, group of output blocks: a pair, or
// four on the avx512 path, eight for its general rows of 12 pixels or
// more), the group innermost so that a thread's
// consecutive tasks reuse one range of the input from L2. A range holds up
// to ~192 KB of input pixels (all input blocks: few ranges, so the weights,
// which may not fit L2, are streamed few times) and at most 512 output
// pixels, so a group's output range is still in L1
// when Sigmoid/Tanh/Swish run over it. Pointwise ranges are runs of
// flattened pixels, general ranges whole output rows.
//
// 3x3 stride-1 convs for which the attribute loom.winograd (a tactic the
// builder timed, Tactics) or else ChooseWinogradTile picks a tile run
// through the Winograd convolution on the blocked tensors instead
// (conv_winograd.h, channel_block 8): its filters are transformed from W
// un-blocked to OIHW, or taken from the plan as a derived constant, as the
// NCHW Conv does.
#include "kernels/cpu/nn/conv_nchwc.h"

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "kernels/common/kernel_checks.h"
#include "kernels/cpu/nn/conv_geometry.h"
#include "kernels/cpu/nn/conv_winograd.h"
#include "kernels/cpu/nn/residual_input.h"

namespace loom {
namespace nn {

void PairWeights(const float* w, int64_t out_blocks, int64_t block_floats, float* out) {
  constexpr int64_t kRun = kNchwcBlock;
  const int64_t runs = block_floats / kRun;
  for (int64_t ob = 0; ob + 1 < out_blocks; ob += 2) {
    const float* lo = w + ob * block_floats;
    const float* hi = lo + block_floats;
    for (int64_t k = 0; k < runs; ++k, out += 2 * kRun) {
      std::copy(lo + k * kRun, lo + (k + 1) * kRun, out);
      std::copy(hi + k * kRun, hi + (k + 1) * kRun, out + kRun);
    }
  }
  if (out_blocks % 2) std::copy(w + (out_blocks - 1) * block_floats, w + out_blocks * block_floats, out);
}

const ConvNchwcIsa* ConvNchwcIsaFor(NchwcIsa isa) {
#if defined(__x86_64__)
  if (isa == NchwcIsa::kAvx2) return ConvNchwcIsaAvx2();
  if (isa == NchwcIsa::kAvx512) return ConvNchwcIsaAvx512();
#endif
  return isa == NchwcIsa::kGeneric ? ConvNchwcIsaGeneric() : nullptr;
}

namespace {

constexpr int64_t kB = kNchwcBlock;
// Below this many multiply-adds a run stays on the calling thread.
constexpr double kMinParallelMacs = 1 << 17;
constexpr int64_t kRangeInputBytes = 192 << 10;
constexpr int64_t kMaxRangePixels = 512;

int64_t FloorDiv(int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

// The number of ranges per image, from `ranges` to `units`, for which the
// tasks (`per_range` per range) split evenly over ParallelFor's chunks (4
// per thread), else over the threads with one task per chunk, else are many.
int64_t BalancedRanges(int64_t per_range, int64_t ranges, int64_t units, int threads) {
  const int64_t chunks = 4 * threads;
  int64_t fallback = 0;
  for (int64_t r = ranges; r <= std::min(units, 4 * ranges + chunks); ++r) {
    const int64_t tasks = per_range * r;
    if (tasks % chunks == 0 || tasks >= 16 * chunks) return r;
    if (!fallback && tasks <= chunks && tasks % threads == 0) fallback = r;
  }
  return fallback ? fallback : ranges;
}

class ConvNchwcKernel final : public Kernel {
 public:
  // stem: loom.ConvNchwcStem (X NCHW, W [Cout/8, Cin, KH, KW, 8]).
  explicit ConvNchwcKernel(bool stem) : stem_(stem) {}
  Status Prepare(const KernelSetup& setup) override;
  size_t ScratchBytes(int num_threads) const override;
  Status Run(const KernelArgs& args) const override;
  std::vector<DerivedConstant> DerivedConstants() const override;
  bool ReadsConstantInput(size_t i) const override { return !(i == 1 && (filters_derived_ || pairs_derived_)); }
  KernelTactics Tactics() const override;

 private:
  // Sets up winograd_ when the conv takes that path (3x3, stride 1, dilation
  // 1, constant W, a tile chosen by loom.winograd or ChooseWinogradTile).
  Status PrepareWinograd(const KernelSetup& setup, const WindowGeometry& wg);

  // X and W's shapes against the op's layout; sets g_'s channel counts.
  Status CheckLayout(const KernelSetup& setup);
  // Sets has_scale_ from loom.input_scale and checks S.
  Status ParseInputScale(const KernelSetup& setup);
  // Sets up the paired copy of W when the path reads W paired (not for
  // Winograd): the plan's, else made here from a constant W, else in Run.
  void PreparePairs(const KernelSetup& setup);
  // Floats of W (one image's scaled copy).
  size_t ScaledWeightFloats() const;
  // Floats of W per output block.
  int64_t BlockFloats() const;
  // out = W (paired when pairs_) with input channel c scaled by s[c].
  void ScaleWeights(const float* w, const float* s, float* out) const;

  const bool stem_;
  ConvNchwcGeometry g_;
  int64_t batch_ = 0;
  bool pointwise_ = false;
  bool has_bias_ = false, has_residual_ = false;
  bool has_scale_ = false;  // input 4: S (loom.input_scale)
  Activation act_;
  bool scalar_act_ = false;  // act_ runs over the stored output (Sigmoid, Tanh, Swish)
  ConvNchwcFn fn_ = nullptr;
  int blocks_per_task_ = 2;         // the path's
  int serial_blocks_per_task_ = 2;  // the same on one thread
  int64_t units_ = 0;        // pixels (pointwise) or output rows (general) per image
  int64_t min_ranges_ = 1;   // ranges per image with the largest ranges
  double macs_ = 0;
  std::unique_ptr<WinogradConvF32> winograd_;
  int default_tile_ = -1;   // ChooseWinogradTile's rule for a conv that may take Winograd, else -1
  std::string filter_key_;  // winograd_'s transformed filters as a derived constant
  size_t filter_bytes_ = 0;
  bool filters_derived_ = false;  // winograd_ uses the plan's transformed filters: W is never read
  bool pairs_ = false;            // the tiles read W paired (PairWeights)
  std::vector<float> paired_;     // the paired W made in Prepare
  const float* paired_w_ = nullptr;  // paired_ or the plan's; null: pair W in Run
  std::string pair_key_;             // the paired W as a derived constant
  bool pairs_derived_ = false;       // paired_w_ is the plan's: W is never read
};

// OIHW from [Cout/8, Cin/8, 3, 3, 8 (ci), 8 (co)].
std::vector<float> UnblockWeights(const float* w, int64_t out_blocks, int64_t in_blocks) {
  const int64_t cin = in_blocks * kB, taps = 9;
  std::vector<float> oihw(static_cast<size_t>(out_blocks * kB * cin * taps));
  for (int64_t ob = 0; ob < out_blocks; ++ob)
    for (int64_t ib = 0; ib < in_blocks; ++ib)
      for (int64_t t = 0; t < taps; ++t)
        for (int64_t ci = 0; ci < kB; ++ci)
          for (int64_t co = 0; co < kB; ++co) oihw[((ob * kB + co) * cin + ib * kB + ci) * taps + t] = *w++;
  return oihw;
}

Status ConvNchwcKernel::PrepareWinograd(const KernelSetup& setup, const WindowGeometry& wg) {
  winograd_.reset();
  filters_derived_ = false;
  default_tile_ = -1;
  int requested = -1;
  if (const Attribute* a = setup.attrs.Find("loom.winograd")) {
    if (a->kind != Attribute::Kind::kInt || (a->i != 0 && a->i != 2 && a->i != 4))
      return setup.Invalid("attribute loom.winograd must be 0, 2 or 4");
    requested = static_cast<int>(a->i);
  }
  const TensorInfo& w = setup.inputs[1];
  if (stem_ || has_scale_ || !w.const_data || !wg.IsWinograd3x3()) {
    if (requested > 0)
      return setup.Invalid("loom.winograd " + std::to_string(requested) +
                           " needs a 3x3 stride-1 convolution with constant weights");
    return Status::Ok();
  }
  const WinogradConvShape ws = WinogradShapeOf(batch_, g_.in_blocks * kB, g_.out_blocks * kB, wg, kB);
  default_tile_ = ChooseWinogradTile(ws);
  const int tile = ChooseWinogradTile(ws, requested);
  if (!tile) return Status::Ok();
  winograd_ = std::make_unique<WinogradConvF32>();
  filter_key_ = WinogradConvF32::FilterKey(ws, tile);
  filter_bytes_ = WinogradConvF32::FilterBytes(ws, tile);
  const void* derived = setup.FindDerived(filter_key_, filter_bytes_);
  std::vector<float> oihw;
  if (setup.pack_constants && derived == nullptr)
    oihw = UnblockWeights(static_cast<const float*>(w.const_data), g_.out_blocks, g_.in_blocks);
  winograd_->Prepare(ws, tile, oihw.empty() ? nullptr : oihw.data(), act_);
  if (derived) winograd_->UseTransformedFilters(static_cast<const float*>(derived));
  filters_derived_ = derived != nullptr;
  return Status::Ok();
}

KernelTactics ConvNchwcKernel::Tactics() const {
  if (default_tile_ < 0) return {};
  KernelTactics t{"loom.winograd", {default_tile_}, ""};
  for (int tile : {0, 2, 4})
    if (tile != default_tile_) t.values.push_back(tile);
  // A 3x3 stride-1 conv's time is its shapes' (the bias, residual and
  // activation cost about the same on every path).
  t.timing_key = "ConvNchwc 3x3 " + std::to_string(batch_) + "x" + std::to_string(g_.in_channels) + "x" +
                 std::to_string(g_.in_h) + "x" + std::to_string(g_.in_w) + " -> " + std::to_string(g_.out_blocks * kB) +
                 "x" + std::to_string(g_.out_h) + "x" + std::to_string(g_.out_w) + " pad " +
                 std::to_string(g_.pad_top) + "," + std::to_string(g_.pad_left);
  return t;
}

Status ConvNchwcKernel::Prepare(const KernelSetup& setup) {
  RETURN_IF_ERROR(CheckNode(setup, 2, 5, 1, 1));
  if (!setup.HasInput(0) || !setup.HasInput(1)) return setup.Invalid("X and W are required");
  const TensorInfo& x = setup.inputs[0];
  const TensorInfo& w = setup.inputs[1];
  if (x.dtype != DType::kFloat32) return setup.Invalid(std::string("X has dtype ") + DTypeName(x.dtype));
  if (w.dtype != DType::kFloat32) return setup.Invalid(std::string("W has dtype ") + DTypeName(w.dtype));
  RETURN_IF_ERROR(CheckLayout(setup));
  for (int64_t d : x.shape)
    if (d < 1) return setup.Invalid("X has an empty dim: " + ShapeToString(x.shape));
  for (int64_t d : w.shape)
    if (d < 1) return setup.Invalid("W has an empty dim: " + ShapeToString(w.shape));
  int64_t group = 1;
  if (const Attribute* a = setup.attrs.Find("group")) group = a->kind == Attribute::Kind::kInt ? a->i : 0;
  if (group != 1) return setup.Invalid("attribute group must be 1");
  batch_ = x.shape[0];
  WindowGeometry wg;
  const std::vector<int64_t> kernel = {w.shape[2], w.shape[3]};
  RETURN_IF_ERROR(ParseWindowGeometry(setup, {x.shape[2], x.shape[3]}, &kernel, WindowOptions(), &wg));
  g_.in_h = wg.in[1];
  g_.in_w = wg.in[2];
  g_.out_h = wg.out[1];
  g_.out_w = wg.out[2];
  g_.kernel_h = wg.kernel[1];
  g_.kernel_w = wg.kernel[2];
  g_.stride_h = wg.stride[1];
  g_.stride_w = wg.stride[2];
  g_.dilation_h = wg.dilation[1];
  g_.dilation_w = wg.dilation[2];
  g_.pad_top = wg.pad_begin[1];
  g_.pad_left = wg.pad_begin[2];
  if (g_.out_h < 1 || g_.out_w < 1)
    return setup.Invalid("empty output " + std::to_string(g_.out_h) + "x" + std::to_string(g_.out_w));
  // Columns ow with 0 <= ow * sw - pl and ow * sw - pl + (KW - 1) * dw < W.
  g_.interior_begin = std::min((g_.pad_left + g_.stride_w - 1) / g_.stride_w, g_.out_w);
  g_.interior_end = FloorDiv(g_.in_w - 1 + g_.pad_left - (g_.kernel_w - 1) * g_.dilation_w, g_.stride_w) + 1;
  g_.interior_end = std::max(g_.interior_begin, std::min(g_.interior_end, g_.out_w));

  const Shape out_shape = {batch_, g_.out_blocks, g_.out_h, g_.out_w, kB};
  RETURN_IF_ERROR(CheckOutput(setup, 0, DType::kFloat32, out_shape));
  has_bias_ = setup.HasInput(2);
  if (has_bias_) {
    const TensorInfo& b = setup.inputs[2];
    if (b.dtype != DType::kFloat32) return setup.Invalid(std::string("B has dtype ") + DTypeName(b.dtype));
    if (b.shape != Shape{g_.out_blocks * kB})
      return setup.Invalid("B has shape " + ShapeToString(b.shape) + ", expected [" +
                           std::to_string(g_.out_blocks * kB) + "]");
  }
  RETURN_IF_ERROR(ParseActivation(setup, &act_));
  RETURN_IF_ERROR(ParseResidual(setup, 3, DType::kFloat32, out_shape, &has_residual_));
  scalar_act_ = act_.kind == ActivationKind::kSigmoid || act_.kind == ActivationKind::kTanh ||
                act_.kind == ActivationKind::kSwish;

  RETURN_IF_ERROR(ParseInputScale(setup));
  RETURN_IF_ERROR(PrepareWinograd(setup, wg));
  pointwise_ =
      !stem_ && g_.kernel_h == 1 && g_.kernel_w == 1 && g_.stride_h == 1 && g_.stride_w == 1 && !wg.HasPadding();
  const ConvNchwcIsa* isa = ConvNchwcIsaFor(ActiveNchwcIsa());
  fn_ = stem_ ? isa->stem : pointwise_ ? isa->pointwise : isa->general;
  // The general tiles of 8 blocks (6 pixels) fill rows of 12 or more
  // pixels; a row of 7 runs faster as one 7-pixel tile of 4 blocks (resnet18's
  // 7x7 convs: 1.08 against 1.27 ms; its 14x14 ones 0.83 against 0.87), or on
  // one thread of 6 (2.10 -> 1.96 ms). With threads, 6-block groups of 64
  // blocks (11) leave one thread a group more than the other, and more
  // ranges would stream each group's weights once per range.
  const bool general = !stem_ && !pointwise_;
  blocks_per_task_ = general && g_.out_w >= 12 ? isa->general_blocks_per_task : isa->blocks_per_task;
  serial_blocks_per_task_ = blocks_per_task_;
  if (general && g_.out_w >= 7 && g_.out_w < 12 && isa->general_blocks_per_task == 8) serial_blocks_per_task_ = 6;
  pairs_ = isa->paired_weights && !winograd_;
  PreparePairs(setup);
  const int64_t in_channels = g_.in_channels;
  int64_t range_pixels = std::min(kMaxRangePixels, kRangeInputBytes / (in_channels * int64_t{sizeof(float)}));
  range_pixels = std::max<int64_t>(6, range_pixels / 6 * 6);
  units_ = pointwise_ ? g_.out_h * g_.out_w : g_.out_h;
  const int64_t range_units = pointwise_ ? range_pixels : std::max<int64_t>(1, range_pixels / g_.out_w);
  min_ranges_ = (units_ + range_units - 1) / range_units;
  macs_ =
      static_cast<double>(batch_) * g_.out_h * g_.out_w * g_.out_blocks * kB * in_channels * g_.kernel_h * g_.kernel_w;
  return Status::Ok();
}

Status ConvNchwcKernel::ParseInputScale(const KernelSetup& setup) {
  has_scale_ = false;
  const Attribute* a = setup.attrs.Find("loom.input_scale");
  if (a && a->kind != Attribute::Kind::kInt) return setup.Invalid("attribute loom.input_scale must be an int");
  if (!a || a->i == 0) {
    if (setup.HasInput(4)) return setup.Invalid("input 4 needs loom.input_scale = 1");
    return Status::Ok();
  }
  if (stem_) return setup.Invalid("loom.input_scale is not supported by ConvNchwcStem");
  if (!setup.HasInput(4)) return setup.Invalid("loom.input_scale without a scale input");
  const TensorInfo& s = setup.inputs[4];
  if (s.dtype != DType::kFloat32) return setup.Invalid(std::string("scale has dtype ") + DTypeName(s.dtype));
  const Shape want = {batch_, g_.in_blocks, 1, 1, kB};
  if (s.shape != want)
    return setup.Invalid("scale has shape " + ShapeToString(s.shape) + ", expected " + ShapeToString(want));
  has_scale_ = true;
  return Status::Ok();
}

int64_t ConvNchwcKernel::BlockFloats() const { return g_.in_channels * g_.kernel_h * g_.kernel_w * kB; }

size_t ConvNchwcKernel::ScaledWeightFloats() const { return static_cast<size_t>(g_.out_blocks * BlockFloats()); }

void ConvNchwcKernel::PreparePairs(const KernelSetup& setup) {
  paired_.clear();
  paired_w_ = nullptr;
  pairs_derived_ = false;
  pair_key_.clear();
  if (!pairs_) return;
  const TensorInfo& w = setup.inputs[1];
  if (!w.const_data) return;
  // Everything the bytes depend on besides W: the layout (version), W's shape.
  pair_key_ = std::string(stem_ ? "ConvNchwcStem" : "ConvNchwc") + ".paired_w.v1:" + ShapeToString(w.shape);
  const size_t bytes = ScaledWeightFloats() * sizeof(float);
  if (const void* derived = setup.FindDerived(pair_key_, bytes)) {
    paired_w_ = static_cast<const float*>(derived);
    pairs_derived_ = true;
    return;
  }
  paired_.resize(ScaledWeightFloats());
  PairWeights(static_cast<const float*>(w.const_data), g_.out_blocks, BlockFloats(), paired_.data());
  paired_w_ = paired_.data();
}

size_t ConvNchwcKernel::ScratchBytes(int num_threads) const {
  size_t bytes = 0;
  if (pairs_ && !paired_w_) bytes += ScaledWeightFloats() * sizeof(float);  // W paired in Run
  if (has_scale_) bytes += static_cast<size_t>(batch_) * ScaledWeightFloats() * sizeof(float);
  return bytes + (winograd_ ? winograd_->ScratchBytes(num_threads) : 0);
}

void ConvNchwcKernel::ScaleWeights(const float* w, const float* s, float* out) const {
  // Runs of 8 (a block's) or 16 (a pair's) output channels, one per input
  // channel ib * 8 + ci and tap, block by block or pair by pair, the input
  // channel outermost in the stem's W: s[ib * 8 + ci] scales a run.
  const int64_t taps = g_.kernel_h * g_.kernel_w;
  for (int64_t ob = 0; ob < g_.out_blocks;) {
    const int64_t run = pairs_ && ob + 1 < g_.out_blocks ? 2 * kB : kB;
    for (int64_t ib = 0; ib < g_.in_blocks; ++ib)
      for (int64_t t = 0; t < taps; ++t)
        for (int64_t ci = 0; ci < kB; ++ci) {
          const float f = s[ib * kB + ci];
          for (int64_t co = 0; co < run; ++co) *out++ = *w++ * f;
        }
    ob += run / kB;
  }
}

std::vector<DerivedConstant> ConvNchwcKernel::DerivedConstants() const {
  if (winograd_ && winograd_->transformed_filters())
    return {{filter_key_, winograd_->transformed_filters(), filter_bytes_}};
  if (!paired_.empty()) return {{pair_key_, paired_.data(), paired_.size() * sizeof(float)}};
  return {};
}

Status ConvNchwcKernel::CheckLayout(const KernelSetup& setup) {
  const TensorInfo& x = setup.inputs[0];
  const TensorInfo& w = setup.inputs[1];
  g_ = ConvNchwcGeometry();
  if (stem_) {
    if (x.rank() != 4) return setup.Invalid("X has shape " + ShapeToString(x.shape) + ", expected [N, C, H, W]");
    if (w.rank() != 5 || w.shape[4] != kB)
      return setup.Invalid("W has shape " + ShapeToString(w.shape) + ", expected [Cout/8, Cin, KH, KW, 8]");
    if (w.shape[1] != x.shape[1])
      return setup.Invalid("W has " + std::to_string(w.shape[1]) + " input channels, X has " +
                           std::to_string(x.shape[1]));
    g_.in_channels = x.shape[1];
  } else {
    if (x.rank() != 5 || x.shape[4] != kB)
      return setup.Invalid("X has shape " + ShapeToString(x.shape) + ", expected [N, C/8, H, W, 8]");
    if (w.rank() != 6 || w.shape[4] != kB || w.shape[5] != kB)
      return setup.Invalid("W has shape " + ShapeToString(w.shape) + ", expected [Cout/8, Cin/8, KH, KW, 8, 8]");
    if (w.shape[1] != x.shape[1])
      return setup.Invalid("W has " + std::to_string(w.shape[1]) + " input blocks, X has " +
                           std::to_string(x.shape[1]));
    g_.in_blocks = x.shape[1];
    g_.in_channels = x.shape[1] * kB;
  }
  g_.out_blocks = w.shape[0];
  return Status::Ok();
}

Status ConvNchwcKernel::Run(const KernelArgs& args) const {
  const float* x = args.in<float>(0);
  const float* w = args.in<float>(1);
  const float* bias = has_bias_ ? args.in<float>(2) : nullptr;
  const float* residual = has_residual_ ? args.in<float>(3) : nullptr;
  float* y = args.out<float>(0);
  const int64_t image_weights = static_cast<int64_t>(ScaledWeightFloats());
  float* scratch = static_cast<float*>(args.scratch);
  if (pairs_) {
    if (paired_w_) {
      w = paired_w_;
    } else {  // W is computed by the graph: paired once per run, on the calling thread
      PairWeights(w, g_.out_blocks, BlockFloats(), scratch);
      w = scratch;
      scratch += image_weights;
    }
  }
  if (has_scale_) {  // Cout * Cin floats per image, fewer than X's (fold_channel_scale): on the calling thread
    const float* s = args.in<float>(4);
    for (int64_t n = 0; n < batch_; ++n) ScaleWeights(w, s + n * g_.in_channels, scratch + n * image_weights);
    w = scratch;
  }
  if (winograd_) {
    winograd_->Run(x, bias, y, args.scratch, args.pool, residual);
    return Status::Ok();
  }
  const int64_t in_image = g_.in_channels * g_.in_h * g_.in_w;
  const int64_t out_plane = g_.out_h * g_.out_w * kB, out_image = g_.out_blocks * out_plane;
  const int64_t w_block = g_.in_channels * g_.kernel_h * g_.kernel_w * kB;  // both layouts
  const int64_t unit_floats = pointwise_ ? kB : g_.out_w * kB;
  const int threads = args.pool ? args.pool->NumThreads() : 1;
  ThreadPool* pool = threads > 1 && macs_ >= kMinParallelMacs ? args.pool : nullptr;
  const int per_task = pool ? blocks_per_task_ : serial_blocks_per_task_;
  const int64_t groups = (g_.out_blocks + per_task - 1) / per_task;
  const int64_t ranges = pool ? BalancedRanges(batch_ * groups, min_ranges_, units_, threads) : min_ranges_;
  ParallelFor(pool, batch_ * ranges * groups, 1, [&](int64_t begin, int64_t end, int) {
    for (int64_t t = begin; t < end; ++t) {
      const int64_t group = t % groups, range = (t / groups) % ranges, n = t / (groups * ranges);
      const int64_t ob = per_task * group;
      ConvNchwcWork wk;
      wk.x = x + n * in_image;
      wk.w = w + (has_scale_ ? n * image_weights : 0) + ob * w_block;
      wk.bias = bias ? bias + ob * kB : nullptr;
      wk.residual = residual ? residual + n * out_image + ob * out_plane : nullptr;
      wk.y = y + n * out_image + ob * out_plane;
      wk.blocks = static_cast<int>(std::min<int64_t>(per_task, g_.out_blocks - ob));
      wk.begin = range * units_ / ranges;  // ranges of nearly equal sizes
      wk.end = (range + 1) * units_ / ranges;
      fn_(g_, act_, wk);
      if (scalar_act_)
        for (int b = 0; b < wk.blocks; ++b)
          ApplyActivation(act_, wk.y + b * out_plane + wk.begin * unit_floats, (wk.end - wk.begin) * unit_floats);
    }
  });
  return Status::Ok();
}

}  // namespace

std::unique_ptr<Kernel> MakeConvNchwcKernel() { return std::make_unique<ConvNchwcKernel>(false); }
std::unique_ptr<Kernel> MakeConvNchwcStemKernel() { return std::make_unique<ConvNchwcKernel>(true); }

}  // namespace nn
}  // namespace loom
