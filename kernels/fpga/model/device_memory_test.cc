#include "kernels/fpga/model/device_memory.h"

#include <gtest/gtest.h>

namespace loom {
namespace fpga {
namespace {

TEST(DeviceMemoryTest, ReadsAndWritesInsideTheRangeOnly) {
  DeviceMemory memory(256, 0x1000);
  const uint8_t bytes[4] = {1, 2, 3, 4};
  ASSERT_TRUE(memory.Write(0x10fc, bytes, 4).ok());
  uint8_t back[4] = {};
  ASSERT_TRUE(memory.Read(0x10fc, back, 4).ok());
  EXPECT_EQ(back[3], 4);
  EXPECT_EQ(memory.data()[0xff], 4);

  const Status past_end = memory.Write(0x10fd, bytes, 4);
  EXPECT_EQ(past_end.code(), StatusCode::kOutOfRange);
  EXPECT_NE(past_end.message().find("write of 4 bytes at 0x10fd outside device memory [0x1000, 0x1100)"),
            std::string::npos)
      << past_end.message();
  EXPECT_FALSE(memory.Read(0xfff, back, 1).ok());
  EXPECT_FALSE(memory.Read(~uint64_t{0}, back, 2).ok());  // wraps around 2^64
  EXPECT_TRUE(memory.Read(0x1100, back, 0).ok());
}

TEST(DeviceMemoryTest, AllocatesAlignedUntilFull) {
  DeviceMemory memory(256);
  EXPECT_EQ(memory.base(), DeviceMemory::kDefaultBase);
  uint64_t a = 0, b = 0, c = 0;
  ASSERT_TRUE(memory.Allocate(10, 8, &a).ok());
  ASSERT_TRUE(memory.Allocate(100, 64, &b).ok());
  EXPECT_EQ(a, memory.base());
  EXPECT_EQ(b, memory.base() + 64);
  EXPECT_EQ(memory.Allocate(100, 64, &c).code(), StatusCode::kOutOfRange);
  EXPECT_EQ(memory.Allocate(1, 3, &c).code(), StatusCode::kInvalidArgument);
  memory.ResetAllocator();
  ASSERT_TRUE(memory.Allocate(256, 32, &c).ok());
  EXPECT_EQ(c, memory.base());
}

}  // namespace
}  // namespace fpga
}  // namespace loom
