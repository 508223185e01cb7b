#include "kernels/fpga/device/testing/device_conv.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <random>

#include "kernels/fpga/model/little_endian.h"
#include "kernels/fpga/model/testing/model_test_util.h"

namespace loom {
namespace fpga {
namespace testing {

namespace c = contract;
namespace lt = lowering::testing;

DeviceConv::DeviceConv(AccelDevice* device, const lt::ConvCase& conv) : device_(device), case_(conv) {
  const c::AccelConfig& config = device->config();
  const auto& r = conv.ref;
  const lowering::ConvLayer layer = lt::ToLoweringLayer(conv);
  const auto in = lowering::ActivationLayoutOf(config, r.h, r.w, r.c_in);
  const auto out = lowering::ActivationLayoutOf(config, r.out_h(), r.out_w(), r.c_out);
  const uint64_t weights = lowering::WeightImageBytes(config, layer);
  const uint64_t params = lowering::ParamImageBytes(config, layer);
  const uint32_t params_at = static_cast<uint32_t>((weights + 63) / 64 * 64);
  const Status lowered = lowering::LowerConv(config, layer, {1, 0}, {2, 0}, {{3, 0}, {3, params_at}}, &program_);
  EXPECT_TRUE(lowered.ok()) << lowered.message();
  Alloc(&input_, in.bytes);
  Alloc(&output_, out.bytes);
  Alloc(&constants_, params_at + params);
  Alloc(&stream_, program_.commands.size() * c::kCommandBytes);
  if (::testing::Test::HasFailure()) return;
  const std::vector<uint8_t> x = ToNhwc(r.x, r.c_in, r.h, r.w, config.n);
  std::memcpy(input_.host, x.data(), x.size());
  std::memcpy(constants_.host, program_.weight_image.data(), program_.weight_image.size());
  std::memcpy(constants_.host + params_at, program_.param_image.data(), program_.param_image.size());
  for (size_t i = 0; i < program_.commands.size(); ++i)
    CommandToBytes(program_.commands[i], stream_.host + i * c::kCommandBytes);
  out_bytes_ = out.bytes;
}

DeviceConv::~DeviceConv() {
  for (DeviceBuffer* b : {&input_, &output_, &constants_, &stream_}) {
    if (b->bytes != 0) device_->Free(*b);
  }
}

void DeviceConv::Alloc(DeviceBuffer* buffer, uint64_t bytes) {
  const Status s = device_->Allocate(bytes, 64, buffer);
  EXPECT_TRUE(s.ok()) << s.message();
}

void DeviceConv::FlushAll(bool input) {
  if (input) {
    EXPECT_TRUE(device_->Flush(input_, 0, input_.bytes).ok());
  }
  EXPECT_TRUE(device_->Flush(constants_, 0, constants_.bytes).ok());
  EXPECT_TRUE(device_->Flush(stream_, 0, stream_.bytes).ok());
}

LaunchArgs DeviceConv::Args() const {
  LaunchArgs args;
  args.cmd_addr = stream_.device_address;
  args.base = {0, input_.device_address, output_.device_address, constants_.device_address};
  args.count = static_cast<uint32_t>(program_.commands.size());
  args.commands = program_.commands.data();
  return args;
}

Status DeviceConv::Launch(LaunchResult* result) { return fpga::Launch(*device_, Args(), result); }

std::vector<int32_t> DeviceConv::Output() {
  EXPECT_TRUE(device_->Invalidate(output_, 0, output_.bytes).ok());
  const auto& r = case_.ref;
  return FromNhwc(std::vector<uint8_t>(output_.host, output_.host + out_bytes_), r.c_out, r.out_h(), r.out_w(),
                  device_->config().n, case_.out_unsigned ? Element::kUint8 : Element::kInt8);
}

bool DeviceConv::OutputStale() const {
  return std::all_of(output_.host, output_.host + out_bytes_, [](uint8_t b) { return b == 0; });
}

std::vector<int32_t> DeviceConv::Expected() const { return ReferenceConv(case_.ref); }

lt::ConvCase SmallConv(uint32_t seed) {
  std::mt19937 rng(seed);
  for (;;) {
    lt::ConvCase conv = lt::RandomConvCase(*c::FindConfig("pynq_z2"), lt::ConvProfile::kSmall, &rng);
    const std::vector<int32_t> y = ReferenceConv(conv.ref);
    if (!conv.out_int32 && std::adjacent_find(y.begin(), y.end(), std::not_equal_to<>()) != y.end()) return conv;
  }
}

}  // namespace testing
}  // namespace fpga
}  // namespace loom
