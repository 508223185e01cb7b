#include "kernels/fpga/device/first_fit_allocator.h"

#include <gtest/gtest.h>

namespace loom {
namespace fpga {
namespace {

TEST(FirstFitAllocatorTest, AlignsDeviceAddressesAndReusesFreedBlocks) {
  FirstFitAllocator allocator(0x1000'0040, 1 << 20);  // base not 4 KB aligned
  uint64_t a = 0, b = 0, c = 0;
  ASSERT_TRUE(allocator.Allocate(100, 64, &a));
  EXPECT_EQ(a, 0u);
  ASSERT_TRUE(allocator.Allocate(100, 4096, &b));
  EXPECT_EQ((0x1000'0040 + b) % 4096, 0u);
  EXPECT_GE(b, 100u);
  EXPECT_FALSE(allocator.Allocate(1 << 20, 64, &c));  // no room
  allocator.Free(a, 100);
  ASSERT_TRUE(allocator.Allocate(64, 64, &c));
  EXPECT_EQ(c, 0u);  // first fit: the freed block
  allocator.Free(c, 64);
  allocator.Free(b, 100);
  ASSERT_TRUE(allocator.Allocate(1 << 20, 64, &c));  // everything merged again
  EXPECT_EQ(c, 0u);
}

}  // namespace
}  // namespace fpga
}  // namespace loom
