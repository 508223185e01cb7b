#include "kernels/fpga/lowering/testing/lowering_test_util.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <sstream>

#include "kernels/fpga/lowering/command_stream.h"
#include "kernels/fpga/model/little_endian.h"

namespace loom {
namespace fpga {
namespace lowering {
namespace testing {
namespace {

using fpga::testing::Blocks;
using fpga::testing::Element;

constexpr uint8_t kGuardByte = 0xA5;
constexpr size_t kGuardBytes = 64;
constexpr uint8_t kUnwrittenByte = 0xCD;  // output memory before each run

int Uniform(std::mt19937* rng, int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(*rng); }
bool Chance(std::mt19937* rng, int percent) { return Uniform(rng, 0, 99) < percent; }

std::vector<int32_t> RandomValues(size_t size, bool is_unsigned, std::mt19937* rng) {
  std::vector<int32_t> v(size);
  for (int32_t& x : v) x = is_unsigned ? Uniform(rng, 0, 255) : Uniform(rng, -128, 127);
  return v;
}

int32_t RandomZeroPoint(bool is_unsigned, std::mt19937* rng) {
  return is_unsigned ? Uniform(rng, 0, 255) : Uniform(rng, -128, 127);
}

requant::Range DtypeRange(bool is_unsigned) { return is_unsigned ? requant::Range{0, 255} : requant::Range{-128, 127}; }

// An output zero point and clamp: the full range, ReLU-like [zp, max] or
// ReLU6-like [zp, zp + k].
void RandomOutput(bool is_unsigned, std::mt19937* rng, int32_t* zero_point, requant::Range* range) {
  *zero_point = RandomZeroPoint(is_unsigned, rng);
  *range = DtypeRange(is_unsigned);
  const int kind = Uniform(rng, 0, 2);
  if (kind >= 1) range->min = *zero_point;
  if (kind == 2) range->max = std::min(range->max, *zero_point + Uniform(rng, 10, 120));
}

// NCHW values -> NHWC bytes whose padding channels hold random bytes: the
// accelerator must never read them as data.
std::vector<uint8_t> PackWithScribbledPadding(const std::vector<int32_t>& nchw, uint32_t c, uint32_t h, uint32_t w,
                                              uint32_t n, std::mt19937* rng) {
  std::vector<uint8_t> bytes = fpga::testing::ToNhwc(nchw, c, h, w, n);
  const uint32_t padded = Blocks(c, n) * n;
  for (size_t p = 0; p < size_t{h} * w; ++p) {
    for (uint32_t ch = c; ch < padded; ++ch) bytes[p * padded + ch] = static_cast<uint8_t>(Uniform(rng, 0, 255));
  }
  return bytes;
}

::testing::AssertionResult Compare(const std::string& name, uint64_t seed, const std::vector<int32_t>& expected,
                                   const std::vector<int32_t>& got, uint32_t h, uint32_t w) {
  for (size_t i = 0; i < expected.size(); ++i) {
    if (expected[i] != got[i]) {
      const size_t plane = size_t{h} * w;
      return ::testing::AssertionFailure() << name << ", seed " << seed << ": channel " << i / plane << " y "
                                           << i % plane / w << " x " << i % w << ": expected " << expected[i]
                                           << ", got " << got[i];
    }
  }
  return ::testing::AssertionSuccess();
}

// The model's counters against the program's own accounting.
::testing::AssertionResult CheckCounters(const std::string& name, const RunResult& r, const Program& p) {
  const uint64_t fetched = p.commands.size() * contract::kCommandBytes;
  if (r.macs != p.stats.array_macs || r.bytes_written != p.stats.dma_write_bytes ||
      r.bytes_read != p.stats.dma_read_bytes + fetched) {
    return ::testing::AssertionFailure() << name << ": model counted " << r.macs << " MACs, " << r.bytes_read
                                         << " bytes read, " << r.bytes_written << " written; the program "
                                         << p.stats.array_macs << ", " << p.stats.dma_read_bytes + fetched << ", "
                                         << p.stats.dma_write_bytes;
  }
  return ::testing::AssertionSuccess();
}

// Runs a loaded program under every seed; `check(seed)` compares the output.
template <typename Check>
::testing::AssertionResult RunSeeds(Bench* bench, const std::string& name, const Program& program, DramTensor out,
                                    uint64_t out_bytes, const std::vector<uint64_t>& seeds, Check check) {
  const Status tokens = CheckTokenBalance(program.commands, bench->config().queue_depth);
  if (!tokens.ok()) return ::testing::AssertionFailure() << name << ": " << tokens.message();
  for (uint64_t seed : seeds) {
    bench->Write(out, std::vector<uint8_t>(out_bytes, kUnwrittenByte));
    const RunResult result = bench->Run(seed);
    if (!result.ok()) {
      return ::testing::AssertionFailure() << name << ", seed " << seed << ": " << contract::ErrorName(result.error)
                                           << " " << result.error_detail;
    }
    ::testing::AssertionResult counters = CheckCounters(name, result, program);
    if (!counters) return counters;
    ::testing::AssertionResult same = check(seed);
    if (!same) return same;
  }
  const std::string guard = bench->BrokenGuard();
  if (!guard.empty()) return ::testing::AssertionFailure() << name << ": " << guard;
  return ::testing::AssertionSuccess();
}

// Lowers with lower(&program), loads it and compares the int8/uint8 c × h × w
// output at `out` with `expected` under every seed.
template <typename Lower>
::testing::AssertionResult LowerAndCompare(Bench* bench, const std::string& name, Lower lower, DramTensor out,
                                           uint32_t c, uint32_t h, uint32_t w, bool is_unsigned,
                                           const std::vector<int32_t>& expected, const std::vector<uint64_t>& seeds) {
  Program program;
  const Status lowered = lower(&program);
  if (!lowered.ok()) return ::testing::AssertionFailure() << name << ": " << lowered.message();
  bench->Load(program);
  const uint32_t n = bench->config().n;
  const uint64_t bytes = ActivationLayoutOf(bench->config(), h, w, c).bytes;
  const Element element = is_unsigned ? Element::kUint8 : Element::kInt8;
  return RunSeeds(bench, name, program, out, bytes, seeds, [&](uint64_t seed) {
    return Compare(name, seed, expected, fpga::testing::FromNhwc(bench->Get(out, bytes), c, h, w, n, element), h, w);
  });
}

std::string WindowName(const Window& w) {
  std::ostringstream s;
  s << "k" << w.kh << "x" << w.kw << " s" << w.stride_y << "x" << w.stride_x << " d" << w.dilation_y << "x"
    << w.dilation_x << " p" << w.pad_top << "," << w.pad_bottom << "," << w.pad_left << "," << w.pad_right;
  return s.str();
}

Window WindowOf(const fpga::testing::ConvLayer& r) {
  auto u = [](int v) { return static_cast<uint32_t>(v); };
  return {u(r.kh),         u(r.kw),         u(r.stride_y), u(r.stride_x),  u(r.dilation_y),
          u(r.dilation_x), u(r.pad_top), u(r.pad_bottom), u(r.pad_left), u(r.pad_right)};
}

SecondDevice* second_device = nullptr;

// The second device's run against the model's: error, command, DMA bytes and
// every byte of memory.
void ExpectSameRun(const RunResult& model, const DeviceMemory& model_memory, const RunResult& other,
                   const DeviceMemory& other_memory) {
  EXPECT_EQ(other.error, model.error) << "second device: " << contract::ErrorName(other.error) << " ("
                                      << other.error_detail << "), model: " << contract::ErrorName(model.error)
                                      << " (" << model.error_detail << ")";
  EXPECT_EQ(other.error_cmd, model.error_cmd) << "model: " << model.error_detail;
  if (model.ok() && other.ok()) {
    EXPECT_EQ(other.bytes_read, model.bytes_read) << "DMA bytes read";
    EXPECT_EQ(other.bytes_written, model.bytes_written) << "DMA bytes written";
  }
  const uint8_t* a = model_memory.data();
  const uint8_t* b = other_memory.data();
  std::ostringstream where;
  size_t count = 0;
  for (size_t i = 0; i < model_memory.size(); ++i) {
    if (a[i] == b[i]) continue;
    if (count++ < 8) {
      where << " 0x" << std::hex << model_memory.base() + i << std::dec << " (model " << int{a[i]}
            << ", second device " << int{b[i]} << ")";
    }
  }
  if (count > 0) {
    ADD_FAILURE() << "second device: " << count << " bytes of memory differ from the model's:" << where.str();
  }
}

}  // namespace

void SetSecondDevice(SecondDevice* device) { second_device = device; }

const contract::AccelConfig& TinyConfig() {
  static const contract::AccelConfig config{"tiny_test", 8, 100, 64, 8, 256, 256, 128, 64, 4, 4, 0};
  return config;
}

std::vector<const contract::AccelConfig*> TestConfigs() {
  return {contract::FindConfig("pynq_z2"), contract::FindConfig("kv260"), &TinyConfig()};
}

int LongRunFactor() {
  const char* value = std::getenv("LOOM_FPGA_LONG");
  if (value == nullptr || *value == '\0') return 1;
  const int factor = std::atoi(value);
  return factor > 1 ? factor : 10;
}

int SweepCount(int count) {
  count *= LongRunFactor();
#if defined(LOOM_SANITIZE)
  count = std::max(1, count / 4);
#endif
  return count;
}

// ---------------------------------------------------------------- Bench

DramTensor Bench::Put(uint32_t slot, const std::vector<uint8_t>& bytes) {
  const uint64_t offset = (next_[slot] + 63) & ~uint64_t{63};
  next_[slot] = offset + bytes.size() + kGuardBytes;
  std::vector<uint8_t> guarded = bytes;
  guarded.insert(guarded.end(), kGuardBytes, kGuardByte);
  const DramTensor at{slot, static_cast<uint32_t>(offset)};
  placed_.push_back({at, std::move(guarded)});
  return at;
}

void Bench::Load(const Program& program, const ConstantPlacement& constants) {
  Load(program);
  Write(constants.weights, program.weight_image);
  Write(constants.params, program.param_image);
}

void Bench::Load(const Program& program) {
  std::vector<uint8_t> bytes(program.commands.size() * contract::kCommandBytes);
  for (size_t i = 0; i < program.commands.size(); ++i)
    CommandToBytes(program.commands[i], &bytes[i * contract::kCommandBytes]);
  const DramTensor stream = Put(0, bytes);
  bytes_per_slot_ = static_cast<size_t>(*std::max_element(next_.begin(), next_.end()));
  memory_ = std::make_unique<DeviceMemory>(bytes_per_slot_ * contract::kBaseSlots);
  model_ = std::make_unique<AccelModel>(config_, memory_.get());
  for (const auto& [at, data] : placed_) Write(at, data);
  cmd_addr_ = Address(stream);
  cmd_count_ = static_cast<uint32_t>(program.commands.size());
}

void Bench::Write(DramTensor at, const std::vector<uint8_t>& bytes) {
  const Status status = memory_->Write(Address(at), bytes.data(), bytes.size());
  EXPECT_TRUE(status.ok()) << status.message();
}

std::vector<uint8_t> Bench::Get(DramTensor at, size_t bytes) const {
  std::vector<uint8_t> out(bytes);
  const Status status = memory_->Read(Address(at), out.data(), bytes);
  EXPECT_TRUE(status.ok()) << status.message();
  return out;
}

RunResult Bench::Run(uint64_t seed) {
  RunArgs args;
  args.cmd_addr = cmd_addr_;
  for (uint32_t s = 0; s < contract::kBaseSlots; ++s) args.base[s] = memory_->base() + s * bytes_per_slot_;
  args.count = cmd_count_;
  args.schedule_seed = seed;
  std::unique_ptr<DeviceMemory> second_memory;
  if (second_device != nullptr) {
    second_memory = std::make_unique<DeviceMemory>(memory_->size(), memory_->base());
    std::copy(memory_->data(), memory_->data() + memory_->size(), second_memory->data());
  }
  RunResult result;
  const Status status = model_->Run(args, &result);
  EXPECT_TRUE(status.ok()) << status.message();
  if (second_device != nullptr) ExpectSameRun(result, *memory_, second_device->Run(args, second_memory.get()),
                                              *second_memory);
  return result;
}

std::string Bench::BrokenGuard() const {
  for (const auto& [at, data] : placed_) {
    const std::vector<uint8_t> got = Get({at.slot, static_cast<uint32_t>(at.offset + data.size() - kGuardBytes)},
                                         kGuardBytes);
    for (size_t i = 0; i < kGuardBytes; ++i) {
      if (got[i] != kGuardByte) {
        return "guard band after slot " + std::to_string(at.slot) + " offset " + std::to_string(at.offset) +
               " overwritten";
      }
    }
  }
  return "";
}

// ---------------------------------------------------------------- Conv

ConvLayer ToLoweringLayer(const ConvCase& c) {
  const fpga::testing::ConvLayer& r = c.ref;
  ConvLayer layer;
  layer.name = c.name;
  layer.in_h = r.h;
  layer.in_w = r.w;
  layer.in_c = r.c_in;
  layer.out_c = r.c_out;
  layer.window = WindowOf(r);
  layer.act_unsigned = r.act_unsigned;
  layer.input_zero_point = r.x_zero_point;
  layer.weights = r.weights;
  for (int o = 0; o < r.c_out; ++o) {
    layer.bias.push_back(r.FoldedBias(o));
    layer.multipliers.push_back(r.stages[o].m);
  }
  layer.output_zero_point = r.stages.empty() ? 0 : r.stages[0].zero_point;
  layer.output_range = r.stages.empty() ? requant::Range{} : r.stages[0].range;
  layer.out_int32 = c.out_int32;
  return layer;
}

void RandomizeValues(ConvCase* c, std::mt19937* rng) {
  fpga::testing::ConvLayer& l = c->ref;
  l.x = RandomValues(size_t(l.c_in) * l.h * l.w, l.act_unsigned, rng);
  l.x_zero_point = RandomZeroPoint(l.act_unsigned, rng);
  l.weights.resize(size_t(l.c_out) * l.c_in * l.kh * l.kw);
  for (int8_t& w : l.weights) w = static_cast<int8_t>(Uniform(rng, -128, 127));
  l.bias.resize(l.c_out);
  for (int32_t& b : l.bias) b = Uniform(rng, -20000, 20000);
  int32_t zero_point = 0;
  requant::Range range;
  RandomOutput(c->out_unsigned, rng, &zero_point, &range);
  // Scales around what maps a typical accumulator (std ≈ 74·74·√K) to ±40,
  // times 2^[-2, 3]: the larger ones saturate.
  const double typical = 40.0 / (std::sqrt(double(l.c_in) * l.kh * l.kw) * 74.0 * 74.0);
  l.stages.resize(l.c_out);
  for (requant::OutputStage& stage : l.stages) {
    const double scale = typical * std::exp2(Uniform(rng, -20, 30) / 10.0);
    const Status status = requant::QuantizeMultiplier(scale, &stage.m);
    EXPECT_TRUE(status.ok()) << status.message();
    stage.zero_point = zero_point;
    stage.range = range;
  }
}

ConvCase RandomConvCase(const contract::AccelConfig& config, ConvProfile profile, std::mt19937* rng) {
  const bool tiny = config.inp_rows < 1024;
  const uint32_t inp_half = config.inp_rows / 2;
  ConvCase c;
  fpga::testing::ConvLayer& l = c.ref;
  for (;;) {
    l = fpga::testing::ConvLayer();
    l.kh = l.kw = 1;
    l.stride_y = l.stride_x = 1;
    l.dilation_y = l.dilation_x = 1;
    if (profile == ConvProfile::kGemm) {
      l.h = 1;
      l.w = Uniform(rng, 1, 64);
      l.c_in = Uniform(rng, 1, Chance(rng, 20) ? (tiny ? 1000 : 2000) : 400);
      l.c_out = Uniform(rng, 1, 100);
    } else {
      const bool wide = profile == ConvProfile::kWide;
      static const int kKernels[] = {1, 1, 2, 3, 3, 3, 4, 5, 7};
      l.kh = wide ? (tiny || Chance(rng, 50) ? 1 : 3) : kKernels[Uniform(rng, 0, 8)];
      l.kw = wide || Chance(rng, 80) ? l.kh : kKernels[Uniform(rng, 0, 8)];
      l.stride_y = Chance(rng, 10) ? 3 : Uniform(rng, 1, 2);
      l.stride_x = Chance(rng, 80) ? l.stride_y : Uniform(rng, 1, 3);
      l.dilation_y = l.dilation_x = Chance(rng, 15) ? 2 : 1;
      const int ext_y = (l.kh - 1) * l.dilation_y + 1, ext_x = (l.kw - 1) * l.dilation_x + 1;
      l.pad_top = Uniform(rng, 0, std::min(ext_y - 1, 3));
      l.pad_bottom = Uniform(rng, 0, std::min(ext_y - 1, 3));
      l.pad_left = Uniform(rng, 0, std::min(ext_x - 1, 3));
      l.pad_right = Uniform(rng, 0, std::min(ext_x - 1, 3));
      const bool medium = profile == ConvProfile::kMedium;
      const int min_side = medium ? 20 : 1, max_side = wide ? 6 : medium ? 48 : 16;
      l.h = Uniform(rng, min_side, max_side);
      l.w = Uniform(rng, min_side, max_side);
      const int max_c = wide ? 64 : medium ? 40 : (tiny ? 24 : 48);
      l.c_in = Uniform(rng, 1, max_c);
      l.c_out = Uniform(rng, 1, max_c);
      if (wide && Chance(rng, 50)) {
        l.c_in = Uniform(rng, 200, 512);
      } else if (wide) {
        l.c_out = Uniform(rng, 200, 512);
      }
      if (l.out_h() < 1 || l.out_w() < 1 || l.h + l.pad_top + l.pad_bottom < ext_y ||
          l.w + l.pad_left + l.pad_right < ext_x)
        continue;
      // One output pixel's input tile must fit half the input buffer.
      if (uint64_t(ext_y) * ext_x * Blocks(l.c_in, config.n) > inp_half) continue;
    }
    break;
  }
  l.act_unsigned = Chance(rng, 35);
  c.out_unsigned = l.act_unsigned;
  c.out_int32 = Chance(rng, 10);
  std::ostringstream name;
  name << config.name << " " << l.c_in << "x" << l.h << "x" << l.w << " -> " << l.c_out << " "
       << WindowName(WindowOf(l)) << (l.act_unsigned ? " u8" : " s8") << (c.out_int32 ? " i32" : "");
  c.name = name.str();
  RandomizeValues(&c, rng);
  return c;
}

::testing::AssertionResult RunConvCase(const contract::AccelConfig& config, const ConvCase& c,
                                       const std::vector<uint64_t>& seeds, ProgramStats* stats) {
  const fpga::testing::ConvLayer& r = c.ref;
  const uint32_t n = config.n;
  const ConvLayer layer = ToLoweringLayer(c);
  const uint32_t oh = layer.OutH(), ow = layer.OutW();
  const ActivationLayout out_layout = ActivationLayoutOf(config, oh, ow, layer.out_c, c.out_int32);
  const uint64_t weight_bytes = WeightImageBytes(config, layer), param_bytes = ParamImageBytes(config, layer);
  std::mt19937 rng(7);
  Bench bench(config);
  const DramTensor in = bench.Put(1, PackWithScribbledPadding(r.x, r.c_in, r.h, r.w, n, &rng));
  const DramTensor out = bench.Reserve(2, out_layout.bytes);
  const ConstantPlacement constants{bench.Reserve(3, weight_bytes), bench.Reserve(3, param_bytes)};
  Program program;
  const Status lowered = LowerConv(config, layer, in, out, constants, &program);
  if (!lowered.ok()) return ::testing::AssertionFailure() << c.name << ": " << lowered.message();
  if (stats != nullptr) *stats = program.stats;
  bench.Load(program, constants);

  std::vector<int32_t> expected;
  if (c.out_int32) {
    for (int64_t acc : fpga::testing::ReferenceConvAcc(r)) expected.push_back(static_cast<int32_t>(acc));
  } else {
    expected = fpga::testing::ReferenceConv(r);
  }
  const Element element = c.out_int32 ? Element::kInt32 : c.out_unsigned ? Element::kUint8 : Element::kInt8;
  // Padding channels: clamp(0) bytes, or int32 zeros.
  const uint8_t padding_byte =
      c.out_int32 ? 0 : static_cast<uint8_t>(requant::Clamp(0, layer.output_range));
  const uint32_t element_bytes = c.out_int32 ? 4 : 1;
  return RunSeeds(&bench, c.name, program, out, out_layout.bytes, seeds, [&](uint64_t seed) {
    const std::vector<uint8_t> bytes = bench.Get(out, out_layout.bytes);
    ::testing::AssertionResult same =
        Compare(c.name, seed, expected, fpga::testing::FromNhwc(bytes, r.c_out, oh, ow, n, element), oh, ow);
    if (!same) return same;
    const uint32_t padded = out_layout.blocks * n;
    for (size_t p = 0; p < size_t{oh} * ow; ++p) {
      for (size_t i = size_t{layer.out_c} * element_bytes; i < size_t{padded} * element_bytes; ++i) {
        const uint8_t got = bytes[p * padded * element_bytes + i];
        if (got != padding_byte) {
          return ::testing::AssertionFailure() << c.name << ", seed " << seed << ": padding byte " << i
                                               << " of pixel " << p << " is " << int{got} << ", expected "
                                               << int{padding_byte};
        }
      }
    }
    return ::testing::AssertionSuccess();
  });
}

// ---------------------------------------------------------------- Add

AddCase RandomAddCase(const contract::AccelConfig& config, std::mt19937* rng) {
  (void)config;
  AddCase c;
  AddLayer& l = c.layer;
  l.h = Uniform(rng, 1, 30);
  l.w = Uniform(rng, 1, 30);
  l.c = Uniform(rng, 1, 100);
  l.act_unsigned = Chance(rng, 35);
  int32_t zero_point = 0;
  requant::Range range;
  RandomOutput(l.act_unsigned, rng, &zero_point, &range);
  auto scale = [&] { return 0.01f * std::exp2(Uniform(rng, 0, 40) / 10.0f); };
  const Status status = requant::MakeAddParams(scale(), RandomZeroPoint(l.act_unsigned, rng), scale(),
                                               RandomZeroPoint(l.act_unsigned, rng), scale(), zero_point, range,
                                               &l.params);
  EXPECT_TRUE(status.ok()) << status.message();
  const size_t size = size_t{l.c} * l.h * l.w;
  c.a = RandomValues(size, l.act_unsigned, rng);
  c.b = RandomValues(size, l.act_unsigned, rng);
  l.name = "add " + std::to_string(l.c) + "x" + std::to_string(l.h) + "x" + std::to_string(l.w) +
           (l.act_unsigned ? " u8" : " s8");
  return c;
}

std::vector<int32_t> ReferenceAdd(const AddCase& c) {
  std::vector<int32_t> out(c.a.size());
  for (size_t i = 0; i < out.size(); ++i) out[i] = requant::RequantizeAdd(c.a[i], c.b[i], c.layer.params);
  return out;
}

::testing::AssertionResult RunAddCase(const contract::AccelConfig& config, const AddCase& c,
                                      const std::vector<uint64_t>& seeds) {
  const AddLayer& l = c.layer;
  const uint32_t n = config.n;
  const ActivationLayout layout = ActivationLayoutOf(config, l.h, l.w, l.c);
  std::mt19937 rng(11);
  Bench bench(config);
  const DramTensor a = bench.Put(1, PackWithScribbledPadding(c.a, l.c, l.h, l.w, n, &rng));
  const DramTensor b = bench.Put(2, PackWithScribbledPadding(c.b, l.c, l.h, l.w, n, &rng));
  const DramTensor out = bench.Reserve(3, layout.bytes);
  return LowerAndCompare(
      &bench, l.name, [&](Program* program) { return LowerAdd(config, l, a, b, out, program); }, out, l.c, l.h, l.w,
      l.act_unsigned, ReferenceAdd(c), seeds);
}

// ---------------------------------------------------------------- MaxPool

MaxPoolCase RandomMaxPoolCase(const contract::AccelConfig& config, std::mt19937* rng) {
  MaxPoolCase c;
  MaxPoolLayer& l = c.layer;
  const uint32_t inp_half = config.inp_rows / 2;
  for (;;) {
    l = MaxPoolLayer();
    Window& w = l.window;
    w.kh = Uniform(rng, 1, 4);
    w.kw = Chance(rng, 80) ? w.kh : Uniform(rng, 1, 4);
    w.stride_y = Uniform(rng, 1, 3);
    w.stride_x = Chance(rng, 80) ? w.stride_y : Uniform(rng, 1, 3);
    w.dilation_y = w.dilation_x = Chance(rng, 15) ? 2 : 1;
    w.pad_top = Uniform(rng, 0, std::min<int>(w.ExtentY() - 1, 2));
    w.pad_bottom = Uniform(rng, 0, std::min<int>(w.ExtentY() - 1, 2));
    w.pad_left = Uniform(rng, 0, std::min<int>(w.ExtentX() - 1, 2));
    w.pad_right = Uniform(rng, 0, std::min<int>(w.ExtentX() - 1, 2));
    l.h = Uniform(rng, 1, 25);
    l.w = Uniform(rng, 1, 25);
    l.c = Uniform(rng, 1, config.inp_rows < 1024 ? 40 : 80);
    if (l.OutH() == 0 || l.OutW() == 0) continue;
    if (uint64_t{w.ExtentY()} * w.ExtentX() * Blocks(l.c, config.n) > inp_half) continue;
    break;
  }
  l.act_unsigned = Chance(rng, 35);
  l.zero_point = RandomZeroPoint(l.act_unsigned, rng);
  c.x = RandomValues(size_t{l.c} * l.h * l.w, l.act_unsigned, rng);
  l.name = "maxpool " + std::to_string(l.c) + "x" + std::to_string(l.h) + "x" + std::to_string(l.w) + " " +
           WindowName(l.window) + (l.act_unsigned ? " u8" : " s8");
  return c;
}

std::vector<int32_t> ReferenceMaxPool(const MaxPoolCase& c) {
  const MaxPoolLayer& l = c.layer;
  const Window& w = l.window;
  const uint32_t oh = l.OutH(), ow = l.OutW();
  std::vector<int32_t> out(size_t{l.c} * oh * ow);
  for (uint32_t ch = 0; ch < l.c; ++ch) {
    for (uint32_t oy = 0; oy < oh; ++oy) {
      for (uint32_t ox = 0; ox < ow; ++ox) {
        int32_t best = DtypeRange(l.act_unsigned).min;  // a window of padding only: -inf, clamped
        for (uint32_t ky = 0; ky < w.kh; ++ky) {
          for (uint32_t kx = 0; kx < w.kw; ++kx) {
            const int64_t iy = int64_t{oy} * w.stride_y - w.pad_top + int64_t{ky} * w.dilation_y;
            const int64_t ix = int64_t{ox} * w.stride_x - w.pad_left + int64_t{kx} * w.dilation_x;
            if (iy < 0 || iy >= l.h || ix < 0 || ix >= l.w) continue;
            best = std::max(best, c.x[(size_t{ch} * l.h + iy) * l.w + ix]);
          }
        }
        out[(size_t{ch} * oh + oy) * ow + ox] = best;
      }
    }
  }
  return out;
}

::testing::AssertionResult RunMaxPoolCase(const contract::AccelConfig& config, const MaxPoolCase& c,
                                          const std::vector<uint64_t>& seeds) {
  const MaxPoolLayer& l = c.layer;
  const uint32_t n = config.n;
  const uint32_t oh = l.OutH(), ow = l.OutW();
  const ActivationLayout out_layout = ActivationLayoutOf(config, oh, ow, l.c);
  std::mt19937 rng(13);
  Bench bench(config);
  const DramTensor in = bench.Put(1, PackWithScribbledPadding(c.x, l.c, l.h, l.w, n, &rng));
  const DramTensor out = bench.Reserve(2, out_layout.bytes);
  return LowerAndCompare(
      &bench, l.name, [&](Program* program) { return LowerMaxPool(config, l, in, out, program); }, out, l.c, oh, ow,
      l.act_unsigned, ReferenceMaxPool(c), seeds);
}

// ---------------------------------------------------------------- ResNet-18

const std::vector<ResNetConv>& ResNet18Convs() {
  static const std::vector<ResNetConv> convs = {
      {"conv1", 3, 224, 64, 7, 2},
      {"layer1.0.conv1", 64, 56, 64, 3, 1},   {"layer1.0.conv2", 64, 56, 64, 3, 1},
      {"layer1.1.conv1", 64, 56, 64, 3, 1},   {"layer1.1.conv2", 64, 56, 64, 3, 1},
      {"layer2.0.conv1", 64, 56, 128, 3, 2},  {"layer2.0.conv2", 128, 28, 128, 3, 1},
      {"layer2.0.downsample", 64, 56, 128, 1, 2},
      {"layer2.1.conv1", 128, 28, 128, 3, 1}, {"layer2.1.conv2", 128, 28, 128, 3, 1},
      {"layer3.0.conv1", 128, 28, 256, 3, 2}, {"layer3.0.conv2", 256, 14, 256, 3, 1},
      {"layer3.0.downsample", 128, 28, 256, 1, 2},
      {"layer3.1.conv1", 256, 14, 256, 3, 1}, {"layer3.1.conv2", 256, 14, 256, 3, 1},
      {"layer4.0.conv1", 256, 14, 512, 3, 2}, {"layer4.0.conv2", 512, 7, 512, 3, 1},
      {"layer4.0.downsample", 256, 14, 512, 1, 2},
      {"layer4.1.conv1", 512, 7, 512, 3, 1},  {"layer4.1.conv2", 512, 7, 512, 3, 1},
  };
  return convs;
}

ResNetConv ResNet18SpaceToDepthStem() { return {"conv1.space_to_depth", 12, 115, 64, 4, 1, 0}; }

std::vector<ResNetConv> ResNet18ConvShapes(int divisor) {
  std::vector<ResNetConv> all = ResNet18Convs(), shapes;
  all.insert(all.begin() + 1, ResNet18SpaceToDepthStem());
  for (ResNetConv r : all) {
    const bool seen = std::any_of(shapes.begin(), shapes.end(), [&](const ResNetConv& o) {
      return o.c_in == r.c_in && o.c_out == r.c_out && o.k == r.k && o.stride == r.stride && o.pad == r.pad &&
             o.size == std::max((r.size + divisor - 1) / divisor, r.k);
    });
    r.size = std::max((r.size + divisor - 1) / divisor, r.k);
    if (!seen) shapes.push_back(r);
  }
  return shapes;
}

ConvCase ResNetConvCase(const ResNetConv& r, std::mt19937* rng) {
  ConvCase c;
  c.name = r.name;
  c.ref.c_in = r.c_in;
  c.ref.h = c.ref.w = r.size;
  c.ref.c_out = r.c_out;
  c.ref.kh = c.ref.kw = r.k;
  c.ref.stride_y = c.ref.stride_x = r.stride;
  c.ref.pad_top = c.ref.pad_bottom = c.ref.pad_left = c.ref.pad_right = r.pad < 0 ? r.k / 2 : r.pad;
  RandomizeValues(&c, rng);
  return c;
}

std::vector<std::pair<std::string, AddCase>> ResNet18Adds(std::mt19937* rng) {
  std::vector<std::pair<std::string, AddCase>> adds;
  const int stages[4][2] = {{64, 56}, {128, 28}, {256, 14}, {512, 7}};
  for (int s = 0; s < 4; ++s) {
    for (int block = 0; block < 2; ++block) {
      AddCase c = RandomAddCase(*contract::FindConfig("pynq_z2"), rng);
      AddLayer& l = c.layer;
      l.c = stages[s][0];
      l.h = l.w = stages[s][1];
      const size_t size = size_t{l.c} * l.h * l.w;
      c.a = RandomValues(size, l.act_unsigned, rng);
      c.b = RandomValues(size, l.act_unsigned, rng);
      l.name = "layer" + std::to_string(s + 1) + "." + std::to_string(block) + ".add";
      adds.emplace_back(l.name, std::move(c));
    }
  }
  return adds;
}

MaxPoolCase ResNet18MaxPool(std::mt19937* rng) {
  MaxPoolCase c;
  MaxPoolLayer& l = c.layer;
  l.c = 64;
  l.h = l.w = 112;
  l.window.kh = l.window.kw = 3;
  l.window.stride_y = l.window.stride_x = 2;
  l.window.pad_top = l.window.pad_bottom = l.window.pad_left = l.window.pad_right = 1;
  l.act_unsigned = true;  // after ReLU
  l.zero_point = RandomZeroPoint(l.act_unsigned, rng);
  c.x = RandomValues(size_t{l.c} * l.h * l.w, l.act_unsigned, rng);
  l.name = "maxpool";
  return c;
}

}  // namespace testing
}  // namespace lowering
}  // namespace fpga
}  // namespace loom
