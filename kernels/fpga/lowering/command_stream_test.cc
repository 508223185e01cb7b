// CommandStream's token derivation on hand-built streams, and
// CheckTokenBalance on balanced and broken ones.
#include "kernels/fpga/lowering/command_stream.h"

#include <gtest/gtest.h>

namespace loom {
namespace fpga {
namespace lowering {
namespace {

using contract::Command;

const contract::AccelConfig& Pynq() { return *contract::FindConfig("pynq_z2"); }

constexpr SramRegion kInput0{Sram::kInput, 0}, kInput1{Sram::kInput, 1};
constexpr SramRegion kWeight0{Sram::kWeight, 0};
constexpr SramRegion kAcc0{Sram::kAccumulator, 0}, kAcc1{Sram::kAccumulator, 1};

contract::LoadAct Load() {
  contract::LoadAct op;
  op.y_size = op.x_size = op.cb = 1;
  return op;
}

contract::Conv Conv() {
  contract::Conv op;
  op.in_w = op.in_cb = op.cb_count = op.kh = op.kw = 1;
  op.stride_y = op.stride_x = op.dilation_y = op.dilation_x = op.oh = op.ow = 1;
  return op;
}

std::string Flags(const Command& c) {
  const contract::Deps d = contract::DepsOf(c);
  std::string s = contract::OpcodeName(contract::OpcodeOf(c));
  if (d.pop_prev) s += " pop_prev";
  if (d.pop_next) s += " pop_next";
  if (d.push_prev) s += " push_prev";
  if (d.push_next) s += " push_next";
  return s;
}

std::vector<std::string> AllFlags(const std::vector<Command>& commands) {
  std::vector<std::string> out;
  for (const Command& c : commands) out.push_back(Flags(c));
  return out;
}

// Two tiles double-buffered in the input and accumulator halves, one weight
// load: loads of tile 1 and the store of tile 0 overlap the computes.
TEST(CommandStreamTest, DoubleBufferedTilesGetVtaStyleTokens) {
  CommandStream s(Pynq(), "test");
  ASSERT_TRUE(s.Append(Load(), {}, {kInput0}).ok());               // 0 LOAD_ACT tile 0
  ASSERT_TRUE(s.Append(contract::LoadWgt{}, {}, {kWeight0}).ok());  // 1 LOAD_WGT
  ASSERT_TRUE(s.Append(Conv(), {kInput0, kWeight0}, {kAcc0}).ok()); // 2 CONV tile 0
  ASSERT_TRUE(s.Append(Load(), {}, {kInput1}).ok());               // 3 LOAD_ACT tile 1
  ASSERT_TRUE(s.Append(contract::Store{}, {kAcc0}, {}).ok());       // 4 STORE tile 0
  ASSERT_TRUE(s.Append(Conv(), {kInput1, kWeight0}, {kAcc1}).ok()); // 5 CONV tile 1
  ASSERT_TRUE(s.Append(Load(), {}, {kInput0}).ok());               // 6 LOAD_ACT tile 2
  ASSERT_TRUE(s.Append(contract::Store{}, {kAcc1}, {}).ok());       // 7 STORE tile 1
  ASSERT_TRUE(s.Append(Conv(), {kInput0, kWeight0}, {kAcc0}).ok()); // 8 CONV tile 2 (acc 0 again)
  ASSERT_TRUE(s.Append(contract::Store{}, {kAcc0}, {}).ok());       // 9 STORE tile 2
  std::vector<Command> commands;
  ASSERT_TRUE(s.Finish(&commands).ok());
  EXPECT_EQ(AllFlags(commands), (std::vector<std::string>{
                                    "LOAD_ACT",
                                    "LOAD_WGT push_next",           // CONV 2 needs loads 0, 1
                                    "CONV pop_prev push_prev push_next",  // frees input 0 (load 6)
                                    "LOAD_ACT push_next",           // CONV 5 needs it
                                    "STORE pop_prev push_prev",     // frees acc 0 for CONV 8
                                    "CONV pop_prev push_next",
                                    "LOAD_ACT pop_next push_next",  // waits for CONV 2
                                    "STORE pop_prev",
                                    "CONV pop_prev pop_next push_next",
                                    "STORE pop_prev",
                                }));
  EXPECT_TRUE(CheckTokenBalance(commands, 2).ok());
}

// A CONV that depends on an earlier load than the one its unit last waited
// for needs no token (units are in order); a load waits for the last reader
// of the half it overwrites only.
TEST(CommandStreamTest, EarlierPopsCoverEarlierProducers) {
  CommandStream s(Pynq(), "test");
  ASSERT_TRUE(s.Append(Load(), {}, {kInput0}).ok());
  ASSERT_TRUE(s.Append(Load(), {}, {kInput1}).ok());
  ASSERT_TRUE(s.Append(Conv(), {kInput1}, {kAcc0}).ok());  // pops for load 1 (covers load 0)
  ASSERT_TRUE(s.Append(Conv(), {kInput0}, {kAcc0}).ok());  // nothing new
  ASSERT_TRUE(s.Append(Load(), {}, {kInput0}).ok());       // waits for CONV 3 only
  std::vector<Command> commands;
  ASSERT_TRUE(s.Finish(&commands).ok());
  EXPECT_EQ(AllFlags(commands), (std::vector<std::string>{"LOAD_ACT", "LOAD_ACT push_next", "CONV pop_prev",
                                                          "CONV push_prev", "LOAD_ACT pop_next"}));
  EXPECT_TRUE(CheckTokenBalance(commands).ok());
}

TEST(CommandStreamTest, LoadToStoreDependencyIsAnError) {
  CommandStream s(Pynq(), "layer (Test)");
  ASSERT_TRUE(s.Append(contract::Store{}, {kInput0}, {}).ok());
  ASSERT_TRUE(s.Append(Load(), {}, {kInput0}).ok());
  std::vector<Command> commands;
  const Status status = s.Finish(&commands);
  EXPECT_EQ(status.code(), StatusCode::kInternal);
  EXPECT_NE(status.message().find("share no token FIFO"), std::string::npos) << status.message();
}

TEST(CommandStreamTest, FieldThatDoesNotFitIsNamed) {
  CommandStream s(Pynq(), "big (Conv)");
  contract::Conv op = Conv();
  op.oh = 5000;
  const Status status = s.Append(op, {}, {});
  EXPECT_EQ(status.code(), StatusCode::kUnsupported);
  EXPECT_NE(status.message().find("big (Conv): CONV field oh = 5000"), std::string::npos) << status.message();
}

Command WithDeps(Command c, bool pop_prev, bool pop_next, bool push_prev, bool push_next) {
  contract::SetBits(c, contract::kPopPrevField.lsb, 1, pop_prev);
  contract::SetBits(c, contract::kPopNextField.lsb, 1, pop_next);
  contract::SetBits(c, contract::kPushPrevField.lsb, 1, push_prev);
  contract::SetBits(c, contract::kPushNextField.lsb, 1, push_next);
  return c;
}

Command Encoded(const contract::LoadWgt& op) {
  Command c{};
  EXPECT_TRUE(contract::Encode(op, &c));
  return c;
}
Command Encoded(const contract::Conv& op) {
  Command c{};
  EXPECT_TRUE(contract::Encode(op, &c));
  return c;
}

TEST(CheckTokenBalanceTest, FindsEveryKindOfImbalance) {
  const Command load = Encoded(contract::LoadWgt{}), conv = Encoded(Conv());
  // Balanced: load pushes, compute pops.
  EXPECT_TRUE(CheckTokenBalance({WithDeps(load, 0, 0, 0, 1), WithDeps(conv, 1, 0, 0, 0)}).ok());
  // A pop before its push (in stream order) would rely on a later command.
  Status s = CheckTokenBalance({WithDeps(conv, 1, 0, 0, 0), WithDeps(load, 0, 0, 0, 1)});
  EXPECT_NE(s.message().find("command 0 (CONV) pops a load->compute token"), std::string::npos) << s.message();
  // A token left over.
  s = CheckTokenBalance({WithDeps(load, 0, 0, 0, 1), conv});
  EXPECT_NE(s.message().find("1 load->compute token(s) pushed but never popped"), std::string::npos) << s.message();
  // A flag toward a neighbour the load unit does not have.
  s = CheckTokenBalance({WithDeps(load, 1, 0, 0, 0)});
  EXPECT_NE(s.message().find("does not have"), std::string::npos) << s.message();
  // More tokens in flight than the FIFO holds.
  std::vector<Command> many(3, WithDeps(load, 0, 0, 0, 1));
  many.insert(many.end(), 3, WithDeps(conv, 1, 0, 0, 0));
  EXPECT_TRUE(CheckTokenBalance(many).ok());
  EXPECT_TRUE(CheckTokenBalance(many, 3).ok());
  s = CheckTokenBalance(many, 2);
  EXPECT_NE(s.message().find("3th load->compute token; the FIFO holds 2"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace lowering
}  // namespace fpga
}  // namespace loom
