// int8 Conv (1-D, 2-D, 3-D; groups, strides, dilations, pads, auto_pad as the
// float Conv takes them, kernels/cpu/nn/conv_geometry.h), with a fused Relu or
// Clip as the output clamp. The tensor contract is README.md's: int8 X and Y
// per tensor, constant symmetric int8 W per output channel, int32 bias.
//
// Two paths, picked in Prepare:
//   depthwise  one input channel per group (1-D/2-D): the direct loop of
//              depthwise_conv.h, one output plane per task.
//   gemm       everything else: per image and group, Y_g = W_g · im2col(X_g)
//              on the GEMM core (gemm_s8.h), W packed once in Prepare as the
//              A operand (output channels are rows, so a row's output stage
//              is fixed). The im2col is implicit: a padded input is copied
//              once per image into scratch around a border of the input zero
//              point (a real 0), and each task gathers its block of columns,
//              element (k, p) = input[tap_offset[k] + column_offset[p]],
//              straight into packed B panels. A 1x1 stride-1 unpadded Conv
//              reads X in place (the gather degenerates to row copies).
//              With the avx512vnni-u8 or avx2-u8 GEMM implementation (the
//              default on CPUs with AVX-512 VNNI / AVX2) the same blocks run
//              on the u8 · s8 core of gemm_u8s8.h instead: W packed in
//              k-quads of bytes (avx2-u8: split for vpmaddubsw, with its
//              sparse remainder, for reductions of kMinSplitDepth or more),
//              the gather adding 128 to each activation,
//              the bias corrected by WeightOffsets; bit-exact with the int16
//              core.
//   winograd   3x3, stride 1, dilation 1, one group, 2-D, where
//              UseWinogradS8 picks it: exact int8 Winograd F(2x2, 3x3)
//              (conv_winograd_s8.h), the filters transformed in Prepare.
// Tasks are blocks of output positions (B blocks sized to stay in L2) of
// one (image, group), split further by output-channel rows when there are
// fewer blocks than threads.
#include <algorithm>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "kernels/common/attribute_readers.h"
#include "kernels/common/kernel_checks.h"
#include "kernels/cpu/int8/conv_winograd_s8.h"
#include "kernels/cpu/int8/depthwise_conv.h"
#include "kernels/cpu/int8/gemm_s8.h"
#include "kernels/cpu/int8/gemm_u8s8.h"
#include "kernels/cpu/int8/linear_output.h"
#include "kernels/cpu/nn/conv_geometry.h"

namespace loom {
namespace int8 {
namespace {

using nn::kMaxSpatialRank;
using nn::WindowGeometry;

size_t AlignUp(size_t v) { return (v + 63) / 64 * 64; }

// Packed B bytes a task keeps in cache.
constexpr int64_t kBBlockBytes = 256 * 1024;
// Shallowest reduction the avx2-u8 implementation runs on split weights:
// below it (ResNet-18's 7x7 stem, K = 147, and its strided 1x1 downsamples)
// the int16 core measured faster, the per-tile work (remainder, store) and
// the packing weighing more than the cheaper k-quad steps.
constexpr int64_t kMinSplitDepth = 256;

class ConvKernel final : public Kernel {
 public:
  Status Prepare(const KernelSetup& setup) override;
  size_t ScratchBytes(int num_threads) const override;
  Status Run(const KernelArgs& args) const override;

 private:
  void RunGemm(const KernelArgs& args) const;
  void RunDepthwise(const KernelArgs& args) const;
  void RunWinograd(const KernelArgs& args) const;
  // Copies the in_channels_ planes of one image into the padded buffer.
  void PadImage(const int8_t* x, int8_t* dst, ThreadPool* pool) const;

  WindowGeometry g_;
  bool depthwise_ = false;
  std::unique_ptr<WinogradS8Conv> winograd_;  // the winograd path when set
  int64_t batch_ = 0, in_channels_ = 0, out_channels_ = 0, group_ = 1;
  int64_t cin_g_ = 0, cout_g_ = 0, k_ = 0;  // k_ = cin_g_ * kernel size
  int32_t x_zero_point_ = 0;
  const int8_t* weights_ = nullptr;       // W's constant data (depthwise path)
  OutputSteps steps_;                     // the output stage of each output channel
  std::vector<PackedS8Matrix> packed_w_;  // per group (gemm path, int16 core)
  bool u8_ = false;                       // the u8 · s8 core instead
  std::vector<std::vector<int8_t>> quad_w_;  // per group (u8 · s8 core)
  std::vector<int32_t> weight_offsets_;      // per output channel (u8 · s8 core)
  bool split_ = false;                       // quad_w_ split for vpmaddubsw (avx2-u8)
  std::vector<std::vector<int64_t>> remainder_begin_;  // per group, cout_g_ + 1
  std::vector<std::vector<QuadRemainder>> remainder_;  // per group
  // gemm path: padded input dims (= input dims without padding), offsets, blocks.
  int64_t padded_[kMaxSpatialRank] = {1, 1, 1};
  size_t padded_bytes_ = 0;             // 0 when X is read in place
  std::vector<int32_t> tap_offset_;     // k_ entries
  std::vector<int32_t> column_offset_;  // one per output position
  int64_t block_cols_ = 0;              // output positions per task, a multiple of kGemmS8Nr
  size_t block_bytes_ = 0;              // per-thread packed B block
  size_t depthwise_bytes_ = 0;          // per-thread scratch of the depthwise path
};

Status ConvKernel::Prepare(const KernelSetup& setup) {
  // First, cheaply: a float node falls through to the float kernels.
  if (!setup.HasInput(0)) return setup.Invalid("missing input X");
  ActQuant xq;
  RETURN_IF_ERROR(ReadActQuant(setup, setup.inputs[0], "input X", &xq));
  RETURN_IF_ERROR(CheckNode(setup, 2, 3, 1, 1));
  const TensorInfo& x = setup.inputs[0];
  const TensorInfo& w = setup.inputs[1];
  nn::ConvChannels channels;
  RETURN_IF_ERROR(nn::ParseConvChannels(setup, x, w, "X", "W", &channels));
  batch_ = channels.batch;
  in_channels_ = channels.in;
  out_channels_ = channels.out;
  group_ = channels.group;
  cin_g_ = channels.in_per_group;
  cout_g_ = channels.out_per_group;
  std::vector<int64_t> spatial(x.shape.begin() + 2, x.shape.end());
  std::vector<int64_t> kernel(w.shape.begin() + 2, w.shape.end());
  for (int64_t d : kernel)
    if (d < 1) return setup.Invalid("W has an empty kernel dim: " + ShapeToString(w.shape));
  RETURN_IF_ERROR(nn::ParseWindowGeometry(setup, spatial, &kernel, nn::WindowOptions(), &g_));
  Shape out_shape = {batch_, out_channels_};
  for (int64_t d : g_.OutDims()) out_shape.push_back(d);
  RETURN_IF_ERROR(CheckOutput(setup, 0, DType::kInt8, out_shape));
  LinearSpec spec;
  spec.weight_axis = 0;
  spec.channels = out_channels_;
  std::vector<requant::OutputStage> stages;
  RETURN_IF_ERROR(MakeLinearOutputStages(setup, spec, xq, &stages));
  x_zero_point_ = xq.zero_point;
  weights_ = static_cast<const int8_t*>(w.const_data);
  k_ = cin_g_ * g_.KernelSize();
  if (k_ > kGemmS8MaxDepth)
    return setup.Unsupported("reduction over " + std::to_string(k_) + " inputs per output (above " +
                             std::to_string(kGemmS8MaxDepth) + ")");
  steps_.Build(stages);

  winograd_.reset();
  if (group_ == 1 && g_.IsWinograd3x3() && UseWinogradS8(in_channels_, out_channels_, g_.out[1], g_.out[2])) {
    winograd_ = std::make_unique<WinogradS8Conv>();
    winograd_->Prepare(weights_, in_channels_, out_channels_, g_.in[1], g_.in[2], g_.pad_begin[1], g_.pad_begin[2],
                       g_.out[1], g_.out[2], x_zero_point_, &steps_);
    return Status::Ok();
  }
  depthwise_ = cin_g_ == 1 && g_.rank <= 2;
  if (depthwise_) {
    depthwise_bytes_ = DepthwiseScratchBytes(g_);
    return Status::Ok();
  }
  int64_t plane = 1;
  for (int a = 0; a < kMaxSpatialRank; ++a) {
    padded_[a] = g_.in[a] + g_.pad_begin[a] + g_.pad_end[a];
    plane *= padded_[a];
  }
  if (static_cast<double>(plane) * in_channels_ >= static_cast<double>(std::numeric_limits<int32_t>::max()))
    return setup.Unsupported("input image of " + std::to_string(plane * in_channels_) + " elements (above 2^31)");
  padded_bytes_ = g_.HasPadding() ? AlignUp(static_cast<size_t>(plane * in_channels_)) : 0;
  tap_offset_.resize(static_cast<size_t>(k_));
  size_t t = 0;
  for (int64_t c = 0; c < cin_g_; ++c)
    for (int64_t kd = 0; kd < g_.kernel[0]; ++kd)
      for (int64_t kh = 0; kh < g_.kernel[1]; ++kh)
        for (int64_t kw = 0; kw < g_.kernel[2]; ++kw)
          tap_offset_[t++] = static_cast<int32_t>(c * plane + kd * g_.dilation[0] * padded_[1] * padded_[2] +
                                                  kh * g_.dilation[1] * padded_[2] + kw * g_.dilation[2]);
  column_offset_.resize(static_cast<size_t>(g_.OutSize()));
  t = 0;
  for (int64_t od = 0; od < g_.out[0]; ++od)
    for (int64_t oh = 0; oh < g_.out[1]; ++oh)
      for (int64_t ow = 0; ow < g_.out[2]; ++ow)
        column_offset_[t++] = static_cast<int32_t>(od * g_.stride[0] * padded_[1] * padded_[2] +
                                                   oh * g_.stride[1] * padded_[2] + ow * g_.stride[2]);
  const GemmS8Impl impl = ActiveGemmS8Impl();
  split_ = impl == GemmS8Impl::kAvx2U8 && GemmU8S8SplitAvailable() && k_ >= kMinSplitDepth;
  u8_ = split_ || (impl == GemmS8Impl::kAvx512VnniU8 && GemmU8S8Available());
  // Columns per task: as many B panels as fit the block budget, spread evenly.
  const int64_t panels = NumBPanels(g_.OutSize());
  const int64_t panel_bytes = u8_ ? QuadBPanelSize(k_) : BPanelSize(k_) * static_cast<int64_t>(sizeof(int16_t));
  const int64_t fit = std::max<int64_t>(1, kBBlockBytes / std::max<int64_t>(1, panel_bytes));
  const int64_t blocks = std::max<int64_t>(1, (panels + fit - 1) / fit);
  block_cols_ = std::max<int64_t>(1, (panels + blocks - 1) / blocks) * kGemmS8Nr;
  block_bytes_ = AlignUp(static_cast<size_t>(block_cols_ / kGemmS8Nr * panel_bytes));
  if (u8_) {
    quad_w_.resize(static_cast<size_t>(group_));
    weight_offsets_.resize(static_cast<size_t>(out_channels_));
    WeightOffsets(weights_, k_, out_channels_, k_, weight_offsets_.data());
    for (int64_t gi = 0; gi < group_; ++gi) {
      quad_w_[gi].resize(static_cast<size_t>(NumAPanels(cout_g_) * QuadAPanelSize(k_)));
      PackAQuads(weights_ + gi * cout_g_ * k_, k_, cout_g_, k_, quad_w_[gi].data());
    }
    if (split_) {
      remainder_begin_.resize(static_cast<size_t>(group_));
      remainder_.resize(static_cast<size_t>(group_));
      for (int64_t gi = 0; gi < group_; ++gi)
        SplitQuadWeights(quad_w_[gi].data(), cout_g_, k_, &remainder_begin_[gi], &remainder_[gi]);
    }
    return Status::Ok();
  }
  packed_w_.resize(static_cast<size_t>(group_));
  for (int64_t gi = 0; gi < group_; ++gi) packed_w_[gi].PackA(weights_ + gi * cout_g_ * k_, k_, cout_g_, k_);
  return Status::Ok();
}

size_t ConvKernel::ScratchBytes(int num_threads) const {
  if (winograd_) return winograd_->ScratchBytes(num_threads);
  const size_t threads = static_cast<size_t>(std::max(1, num_threads));
  if (depthwise_) return threads * depthwise_bytes_;
  return padded_bytes_ + threads * block_bytes_;
}

void ConvKernel::PadImage(const int8_t* x, int8_t* dst, ThreadPool* pool) const {
  const int64_t rows = in_channels_ * padded_[0] * padded_[1];
  ParallelFor(pool, rows, 256, [&](int64_t begin, int64_t end, int) {
    for (int64_t r = begin; r < end; ++r) {
      const int64_t h = r % padded_[1], d = (r / padded_[1]) % padded_[0], c = r / (padded_[0] * padded_[1]);
      int8_t* out = dst + r * padded_[2];
      const int64_t ih = h - g_.pad_begin[1], id = d - g_.pad_begin[0];
      if (ih < 0 || ih >= g_.in[1] || id < 0 || id >= g_.in[0]) {
        std::memset(out, x_zero_point_, static_cast<size_t>(padded_[2]));
        continue;
      }
      const int8_t* src = x + ((c * g_.in[0] + id) * g_.in[1] + ih) * g_.in[2];
      std::memset(out, x_zero_point_, static_cast<size_t>(g_.pad_begin[2]));
      std::memcpy(out + g_.pad_begin[2], src, static_cast<size_t>(g_.in[2]));
      std::memset(out + g_.pad_begin[2] + g_.in[2], x_zero_point_, static_cast<size_t>(g_.pad_end[2]));
    }
  });
}

void ConvKernel::RunGemm(const KernelArgs& args) const {
  const int8_t* x = args.in<int8_t>(0);
  const int32_t* bias = args.in<int32_t>(2);
  int8_t* y = args.out<int8_t>(0);
  const int64_t in_size = g_.InSize(), out_size = g_.OutSize();
  const int64_t plane = padded_[0] * padded_[1] * padded_[2];
  int8_t* padded = static_cast<int8_t*>(args.scratch);
  char* blocks = static_cast<char*>(args.scratch) + padded_bytes_;
  const int64_t col_blocks = (out_size + block_cols_ - 1) / block_cols_;
  // Split output channels too when there are fewer column blocks than threads.
  const int threads = args.pool ? args.pool->NumThreads() : 1;
  const int64_t row_panels = NumAPanels(cout_g_);
  int64_t row_splits = 1;
  if (threads > 1 && group_ * col_blocks < 2 * threads)
    row_splits = std::min<int64_t>(row_panels, (2 * threads + group_ * col_blocks - 1) / (group_ * col_blocks));
  const int64_t rows_per_split = (row_panels + row_splits - 1) / row_splits * kGemmS8Mr;
  const int64_t kp = KPairs(k_);

  for (int64_t n = 0; n < batch_; ++n) {
    const int8_t* src = x + n * in_channels_ * in_size;
    if (padded_bytes_) {
      PadImage(src, padded, args.pool);
      src = padded;
    }
    int8_t* yn = y + n * out_channels_ * out_size;
    ParallelFor(args.pool, group_ * col_blocks * row_splits, 1, [&](int64_t begin, int64_t end, int thread) {
      int16_t* packed_b = reinterpret_cast<int16_t*>(blocks + static_cast<size_t>(thread) * block_bytes_);
      int64_t packed_task = -1;  // the (group, column block) packed_b holds
      for (int64_t task = begin; task < end; ++task) {
        const int64_t split = task % row_splits, gc = task / row_splits;
        const int64_t cb = gc % col_blocks, gi = gc / col_blocks;
        const int64_t p0 = cb * block_cols_, cols = std::min(block_cols_, out_size - p0);
        const int64_t r0 = split * rows_per_split, rows = std::min(rows_per_split, cout_g_ - r0);
        if (rows <= 0) continue;
        const int64_t m0 = gi * cout_g_ + r0;
        if (u8_) {
          uint8_t* quad_b = reinterpret_cast<uint8_t*>(packed_b);
          if (packed_task != gc) {
            PackBGatherU8(src + gi * cin_g_ * plane, tap_offset_.data(), k_, column_offset_.data() + p0, cols, quad_b);
            packed_task = gc;
          }
          GemmU8S8Block blk;
          blk.a = quad_w_[gi].data() + (r0 / kGemmS8Mr) * QuadAPanelSize(k_);
          blk.b = quad_b;
          blk.rows = rows;
          blk.cols = cols;
          blk.kq = KQuads(k_);
          blk.y = yn + m0 * out_size + p0;
          blk.ldy = out_size;
          blk.bias = bias + m0;
          blk.offset = weight_offsets_.data() + m0;
          if (split_) {
            blk.remainder = remainder_[gi].data();
            blk.row_begin = remainder_begin_[gi].data() + r0;
          }
          blk.steps = &steps_;
          blk.channel0 = m0;
          GemmU8S8(blk);
          continue;
        }
        if (packed_task != gc) {
          PackBGather(src + gi * cin_g_ * plane, tap_offset_.data(), k_, column_offset_.data() + p0, cols, packed_b);
          packed_task = gc;
        }
        GemmS8Block blk;
        blk.a = packed_w_[gi].APanels(r0);
        blk.b = packed_b;
        blk.rows = rows;
        blk.cols = cols;
        blk.kp = kp;
        blk.y = yn + m0 * out_size + p0;
        blk.ldy = out_size;
        blk.bias = bias + m0;
        blk.steps = &steps_;
        blk.channel0 = m0;
        blk.per_row = true;
        GemmS8(blk);
      }
    });
  }
}

void ConvKernel::RunDepthwise(const KernelArgs& args) const {
  const int8_t* x = args.in<int8_t>(0);
  const int32_t* bias = args.in<int32_t>(2);
  int8_t* y = args.out<int8_t>(0);
  const int64_t in_size = g_.InSize(), out_size = g_.OutSize(), taps = g_.KernelSize();
  ParallelFor(args.pool, batch_ * out_channels_, 1, [&](int64_t begin, int64_t end, int thread) {
    void* scratch = static_cast<char*>(args.scratch) + static_cast<size_t>(thread) * depthwise_bytes_;
    for (int64_t plane = begin; plane < end; ++plane) {
      const int64_t n = plane / out_channels_, m = plane % out_channels_;
      const int64_t c = m / cout_g_;
      DepthwisePlane(g_, x + (n * in_channels_ + c) * in_size, x_zero_point_, weights_ + m * taps, bias[m], steps_, m,
                     y + plane * out_size, scratch);
    }
  });
}

void ConvKernel::RunWinograd(const KernelArgs& args) const {
  const int8_t* x = args.in<int8_t>(0);
  int8_t* y = args.out<int8_t>(0);
  for (int64_t n = 0; n < batch_; ++n)
    winograd_->Run(x + n * in_channels_ * g_.InSize(), args.in<int32_t>(2), y + n * out_channels_ * g_.OutSize(),
                   args.scratch, args.pool);
}

Status ConvKernel::Run(const KernelArgs& args) const {
  if (winograd_) {
    RunWinograd(args);
  } else if (depthwise_) {
    RunDepthwise(args);
  } else {
    RunGemm(args);
  }
  return Status::Ok();
}

}  // namespace

std::unique_ptr<Kernel> MakeConvKernel() { return std::make_unique<ConvKernel>(); }

}  // namespace int8
}  // namespace loom
