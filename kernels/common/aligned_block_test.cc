// AllocateAlignedBlock (aligned_block.h): small and large blocks are 64-byte
// aligned, writable end to end and independent; large ones on Linux start on
// a 2 MiB boundary.
#include "kernels/common/aligned_block.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <vector>

namespace loom {
namespace {

TEST(AlignedBlockTest, AlignedWritableAndIndependent) {
  const size_t sizes[] = {0, 1, 63, 4096, kHugePageBytes - 1, kHugePageBytes, kHugePageBytes * 3 + 12345};
  std::vector<std::shared_ptr<void>> blocks;
  for (size_t bytes : sizes) {
    std::shared_ptr<void> b = AllocateAlignedBlock(bytes);
    ASSERT_NE(b.get(), nullptr) << bytes;
    EXPECT_EQ(reinterpret_cast<uintptr_t>(b.get()) % 64, 0u) << bytes;
#if defined(__linux__)
    if (bytes >= kHugePageBytes) {
      EXPECT_EQ(reinterpret_cast<uintptr_t>(b.get()) % kHugePageBytes, 0u) << bytes;
    }
#endif
    std::memset(b.get(), static_cast<int>(blocks.size() + 1), bytes);
    blocks.push_back(b);
  }
  for (size_t i = 0; i < blocks.size(); ++i) {
    const unsigned char* p = static_cast<const unsigned char*>(blocks[i].get());
    for (size_t at : {size_t{0}, sizes[i] / 2, sizes[i] - 1}) {
      if (sizes[i] == 0) break;
      EXPECT_EQ(p[at], i + 1) << "block " << i << " byte " << at;
    }
  }
}

}  // namespace
}  // namespace loom
