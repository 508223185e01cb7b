#include "kernels/fpga/model/testing/model_test_util.h"

#include <cmath>

#include "kernels/fpga/model/little_endian.h"

namespace loom {
namespace fpga {
namespace testing {

ModelHarness::ModelHarness(const contract::AccelConfig& config, size_t memory_bytes)
    : config_(config), memory_(memory_bytes), model_(config, &memory_) {}

uint32_t ModelHarness::Put(const std::vector<uint8_t>& bytes) {
  uint64_t addr = 0;
  Status status = memory_.Allocate(bytes.size(), 64, &addr);
  EXPECT_TRUE(status.ok()) << status.message();
  status = memory_.Write(addr, bytes.data(), bytes.size());
  EXPECT_TRUE(status.ok()) << status.message();
  return static_cast<uint32_t>(addr - memory_.base());
}

std::vector<uint8_t> ModelHarness::Get(uint32_t offset, size_t bytes) const {
  std::vector<uint8_t> out(bytes);
  const Status status = memory_.Read(memory_.base() + offset, out.data(), bytes);
  EXPECT_TRUE(status.ok()) << status.message();
  return out;
}

RunArgs ModelHarness::Args(uint64_t cmd_addr, uint32_t count, uint64_t seed) const {
  RunArgs args;
  args.cmd_addr = cmd_addr;
  args.base.fill(memory_.base());
  args.count = count;
  args.schedule_seed = seed;
  return args;
}

RunResult ModelHarness::Run(const std::vector<contract::Command>& stream, uint64_t seed) {
  uint64_t cmd_addr = 0;
  Status status = WriteStream(stream, &memory_, &cmd_addr);
  EXPECT_TRUE(status.ok()) << status.message();
  RunResult result;
  status = model_.Run(Args(cmd_addr, static_cast<uint32_t>(stream.size()), seed), &result);
  EXPECT_TRUE(status.ok()) << status.message();
  return result;
}

contract::LoadWgt TinyLoad(uint32_t dram_offset) {
  contract::LoadWgt op;
  op.dram_offset = dram_offset;
  op.rows = 1;
  return op;
}

contract::Conv TinyConv() {
  contract::Conv op;
  op.in_w = op.in_cb = op.cb_count = 1;
  op.kh = op.kw = op.stride_y = op.stride_x = op.dilation_y = op.dilation_x = 1;
  op.oh = op.ow = 1;
  return op;
}

contract::Store TinyStore(uint32_t dram_offset) {
  contract::Store op;
  op.oh = op.ow = 1;
  op.dram_offset = dram_offset;
  op.out_int32 = 1;
  op.per_tensor = 1;
  return op;
}

int32_t ConvLayer::FoldedBias(int oc) const {
  int64_t sum = 0;
  const size_t taps = size_t(c_in) * kh * kw;
  for (size_t t = 0; t < taps; ++t) sum += weights[oc * taps + t];
  return static_cast<int32_t>(bias[oc] - x_zero_point * sum);
}

void Randomize(ConvLayer* layer, std::mt19937* rng) {
  auto uniform = [rng](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(*rng); };
  layer->x.resize(size_t(layer->c_in) * layer->h * layer->w);
  for (int32_t& v : layer->x) v = layer->act_unsigned ? uniform(0, 255) : uniform(-128, 127);
  layer->weights.resize(size_t(layer->c_out) * layer->c_in * layer->kh * layer->kw);
  for (int8_t& v : layer->weights) v = static_cast<int8_t>(uniform(-127, 127));
  layer->bias.resize(layer->c_out);
  for (int32_t& v : layer->bias) v = uniform(-20000, 20000);
  layer->stages.resize(layer->c_out);
  const float in_scale = 0.05f,
              out_scale = 0.25f * std::sqrt(static_cast<float>(layer->c_in * layer->kh * layer->kw) / 9);
  for (requant::OutputStage& stage : layer->stages) {
    const float weight_scale = 0.002f + 0.0002f * uniform(0, 100);
    const Status status = requant::MakeOutputStage(in_scale, weight_scale, out_scale, 5, requant::Range{}, &stage);
    EXPECT_TRUE(status.ok()) << status.message();
  }
}

std::vector<int64_t> ReferenceConvAcc(const ConvLayer& l) {
  const int oh = l.out_h(), ow = l.out_w();
  std::vector<int64_t> out(size_t(l.c_out) * oh * ow);
  for (int oc = 0; oc < l.c_out; ++oc) {
    for (int oy = 0; oy < oh; ++oy) {
      for (int ox = 0; ox < ow; ++ox) {
        int64_t acc = l.bias[oc];
        for (int ic = 0; ic < l.c_in; ++ic) {
          for (int ky = 0; ky < l.kh; ++ky) {
            for (int kx = 0; kx < l.kw; ++kx) {
              const int iy = oy * l.stride_y - l.pad_top + ky * l.dilation_y;
              const int ix = ox * l.stride_x - l.pad_left + kx * l.dilation_x;
              if (iy < 0 || iy >= l.h || ix < 0 || ix >= l.w) continue;
              const int64_t w = l.weights[((size_t(oc) * l.c_in + ic) * l.kh + ky) * l.kw + kx];
              acc += w * (l.x[(size_t(ic) * l.h + iy) * l.w + ix] - l.x_zero_point);
            }
          }
        }
        out[(size_t(oc) * oh + oy) * ow + ox] = acc;
      }
    }
  }
  return out;
}

std::vector<int32_t> ReferenceConv(const ConvLayer& l) {
  const std::vector<int64_t> acc = ReferenceConvAcc(l);
  const size_t plane = size_t(l.out_h()) * l.out_w();
  std::vector<int32_t> out(acc.size());
  for (size_t i = 0; i < acc.size(); ++i) {
    EXPECT_EQ(acc[i], static_cast<int32_t>(acc[i])) << "reference accumulator outside int32";
    out[i] = requant::Requantize(static_cast<int32_t>(acc[i]), l.stages[i / plane]);
  }
  return out;
}

std::vector<uint8_t> ToNhwc(const std::vector<int32_t>& nchw, int c, int h, int w, int n) {
  const int padded = Blocks(c, n) * n;
  std::vector<uint8_t> out(size_t(h) * w * padded, 0);
  for (int ch = 0; ch < c; ++ch) {
    for (int p = 0; p < h * w; ++p) out[size_t(p) * padded + ch] = static_cast<uint8_t>(nchw[size_t(ch) * h * w + p]);
  }
  return out;
}

std::vector<int32_t> FromNhwc(const std::vector<uint8_t>& bytes, int c, int h, int w, int n, Element element) {
  const int padded = Blocks(c, n) * n;
  const size_t size = element == Element::kInt32 ? 4 : 1;
  std::vector<int32_t> out(size_t(c) * h * w);
  for (int ch = 0; ch < c; ++ch) {
    for (int p = 0; p < h * w; ++p) {
      const uint8_t* v = &bytes[(size_t(p) * padded + ch) * size];
      out[size_t(ch) * h * w + p] = element == Element::kInt32   ? LoadLeInt32(v)
                                    : element == Element::kUint8 ? *v
                                                                 : static_cast<int8_t>(*v);
    }
  }
  return out;
}

std::vector<uint8_t> TileWeights(const ConvLayer& l, int n) {
  const int in_blocks = Blocks(l.c_in, n), out_blocks = Blocks(l.c_out, n);
  const size_t block_rows = size_t(in_blocks) * l.kh * l.kw * n;
  std::vector<uint8_t> out(out_blocks * block_rows * n, 0);
  for (int oc = 0; oc < l.c_out; ++oc) {
    for (int ic = 0; ic < l.c_in; ++ic) {
      for (int ky = 0; ky < l.kh; ++ky) {
        for (int kx = 0; kx < l.kw; ++kx) {
          const size_t tile = (size_t(ic / n) * l.kh + ky) * l.kw + kx;
          const size_t row = (oc / n) * block_rows + tile * n + ic % n;
          out[row * n + oc % n] = static_cast<uint8_t>(l.weights[((size_t(oc) * l.c_in + ic) * l.kh + ky) * l.kw + kx]);
        }
      }
    }
  }
  return out;
}

std::vector<uint8_t> ParamRecords(const ConvLayer& l, int n) {
  std::vector<uint8_t> out(size_t(Blocks(l.c_out, n)) * n * contract::kParamRecordBytes, 0);
  for (int oc = 0; oc < l.c_out; ++oc) {
    uint8_t* record = &out[size_t(oc) * contract::kParamRecordBytes];
    StoreLeInt32(l.FoldedBias(oc), record);
    StoreLeInt32(l.stages[oc].m.multiplier, record + 4);
    record[8] = static_cast<uint8_t>(static_cast<int8_t>(l.stages[oc].m.shift));
  }
  return out;
}

}  // namespace testing
}  // namespace fpga
}  // namespace loom
