#include "kernels/fpga/model/command_builder.h"

#include <gtest/gtest.h>

#include "kernels/fpga/model/little_endian.h"

namespace loom {
namespace fpga {
namespace {

TEST(CommandBuilderTest, AppendsEncodedCommands) {
  std::vector<contract::Command> stream;
  contract::Add add;
  add.rows = 5;
  add.a_zp = -256;
  add.deps.push_next = true;
  ASSERT_TRUE(AppendCommand(add, &stream).ok());
  ASSERT_EQ(stream.size(), 1u);
  contract::Add back;
  ASSERT_TRUE(contract::Decode(stream[0], &back));
  EXPECT_EQ(back.rows, 5u);
  EXPECT_EQ(back.a_zp, -256);
  EXPECT_TRUE(back.deps.push_next);
}

TEST(CommandBuilderTest, NamesTheFieldThatDoesNotFit) {
  std::vector<contract::Command> stream;
  contract::Conv conv;
  conv.kh = 16;  // 4 bits
  Status status = AppendCommand(conv, &stream);
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message(), "CONV: kh = 16 does not fit its 4 bits");
  contract::Store store;
  store.zero_point = 256;  // 9 bits signed
  status = AppendCommand(store, &stream);
  EXPECT_EQ(status.message(), "STORE: zero_point = 256 does not fit its 9 signed bits");
  EXPECT_TRUE(stream.empty());
}

TEST(CommandBuilderTest, WritesTheStreamLittleEndianAndAligned) {
  DeviceMemory memory(1024);
  uint64_t unaligned = 0;
  ASSERT_TRUE(memory.Allocate(3, 1, &unaligned).ok());
  std::vector<contract::Command> stream = {{0x0123456789abcdefull, 1, 2, 3}, {4, 5, 6, 7}};
  uint64_t cmd_addr = 0;
  ASSERT_TRUE(WriteStream(stream, &memory, &cmd_addr).ok());
  EXPECT_EQ(cmd_addr % contract::kCommandBytes, 0u);
  const uint8_t* bytes = memory.data() + (cmd_addr - memory.base());
  EXPECT_EQ(bytes[0], 0xef);
  EXPECT_EQ(bytes[7], 0x01);
  EXPECT_EQ(CommandFromBytes(bytes + contract::kCommandBytes), stream[1]);
}

}  // namespace
}  // namespace fpga
}  // namespace loom
