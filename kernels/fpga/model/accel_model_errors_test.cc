// Device errors: each bad stream ends the run with the right ERROR code,
// ERROR_CMD and a detail naming the command, opcode and field; Run itself
// returns Ok. A failed Status only for misuse of the API.
#include <gtest/gtest.h>

#include "kernels/fpga/model/little_endian.h"
#include "kernels/fpga/model/testing/model_test_util.h"

namespace loom {
namespace fpga {
namespace {

using contract::Command;
using contract::ErrorCode;
using testing::Append;
using testing::ModelHarness;
using testing::PynqZ2;

// Runs `s` and checks the error, its command and that the detail contains `text`.
void ExpectError(ModelHarness* m, const std::vector<Command>& s, ErrorCode code, uint32_t index,
                 const std::string& text) {
  const RunResult result = m->Run(s);
  EXPECT_EQ(result.error, code) << contract::ErrorName(result.error) << ": " << result.error_detail;
  EXPECT_EQ(result.error_cmd, index);
  EXPECT_NE(result.error_detail.find(text), std::string::npos) << result.error_detail;
}

class ErrorTest : public ::testing::Test {
 protected:
  ModelHarness m_{PynqZ2(), size_t{1} << 20};
  const uint32_t data_ = m_.Reserve(64 * 1024);
  std::vector<Command> s_;

  void LoadsThen() {  // two good commands before the bad one
    Append(&s_, testing::TinyLoad(data_));
    Append(&s_, testing::TinyConv());
  }
};

TEST_F(ErrorTest, UnknownOpcodesAreBadOpcode) {
  for (uint64_t opcode : {0, 8, 9, 15}) {
    s_.clear();
    LoadsThen();
    Command bad{};
    contract::SetBits(bad, contract::kOpcodeField.lsb, contract::kOpcodeField.width, opcode);
    s_.push_back(bad);
    Append(&s_, testing::TinyConv());
    ExpectError(&m_, s_, ErrorCode::kBadOpcode, 2, "command 2: opcode " + std::to_string(opcode) + " is not a command");
  }
}

TEST_F(ErrorTest, FlagsTowardAMissingNeighbourAreBadTokens) {
  LoadsThen();
  contract::LoadWgt load = testing::TinyLoad(data_);
  load.deps.pop_prev = true;
  Append(&s_, load);
  ExpectError(&m_, s_, ErrorCode::kBadTokens, 2,
              "command 2 (LOAD_WGT): pop_prev set, but the load unit has no previous");

  s_.clear();
  contract::Store store = testing::TinyStore(data_);
  store.deps.push_next = true;
  Append(&s_, store);
  ExpectError(&m_, s_, ErrorCode::kBadTokens, 0, "command 0 (STORE): push_next set, but the store unit has no next");
}

TEST_F(ErrorTest, MisalignedAddressesAndPitches) {
  LoadsThen();
  Append(&s_, testing::TinyLoad(data_ + 4));
  ExpectError(&m_, s_, ErrorCode::kMisaligned, 2, "command 2 (LOAD_WGT): device address");

  s_.clear();
  contract::Store store = testing::TinyStore(data_);
  store.pixel_pitch = 12;
  Append(&s_, store);
  ExpectError(&m_, s_, ErrorCode::kMisaligned, 0, "pixel_pitch 0xc is not a multiple of 8");

  // The command stream itself must be 32-byte aligned.
  uint64_t cmd_addr = 0;
  ASSERT_TRUE(WriteStream(s_, &m_.memory(), &cmd_addr).ok());
  RunResult result;
  ASSERT_TRUE(m_.model().Run(m_.Args(cmd_addr + 8, 1), &result).ok());
  EXPECT_EQ(result.error, ErrorCode::kMisaligned);
  EXPECT_EQ(result.error_cmd, 0u);
}

TEST_F(ErrorTest, ReadingPastAnOnChipBufferIsSramRange) {
  LoadsThen();
  contract::Conv c = testing::TinyConv();
  c.inp_base = PynqZ2().inp_rows - 10;
  c.in_w = 4;
  c.ow = 4;
  c.oh = 3;  // last input row: inp_rows - 10 + 2·4 + 3 = inp_rows + 1
  Append(&s_, c);
  ExpectError(&m_, s_, ErrorCode::kSramRange, 2,
              "command 2 (CONV): input row " + std::to_string(PynqZ2().inp_rows + 1) + " past the input buffer (" +
                  std::to_string(PynqZ2().inp_rows) + " rows)");

  s_.clear();
  contract::LoadAct a;
  a.dram_offset = data_;
  a.sram_row = PynqZ2().inp_rows - 3;
  a.y_size = a.x_size = 2;
  a.cb = 1;
  Append(&s_, a);
  ExpectError(&m_, s_, ErrorCode::kSramRange, 0, "past the input buffer");

  s_.clear();
  contract::Store st = testing::TinyStore(data_);
  st.per_tensor = 0;
  st.param_row = PynqZ2().param_rows - 1;  // STORE reads N records
  Append(&s_, st);
  ExpectError(&m_, s_, ErrorCode::kSramRange, 0, "past the parameter buffer");
}

TEST_F(ErrorTest, AddressesOutsideDeviceMemoryAreBusErrors) {
  LoadsThen();
  Append(&s_, testing::TinyLoad(static_cast<uint32_t>(m_.memory().size())));
  ExpectError(&m_, s_, ErrorCode::kBusError, 2, "command 2 (LOAD_WGT): read of 16 bytes");

  s_.clear();
  Append(&s_, testing::TinyStore(static_cast<uint32_t>(m_.memory().size() - 32)));  // 64 bytes, half outside
  ExpectError(&m_, s_, ErrorCode::kBusError, 0, "command 0 (STORE): write of 64 bytes");

  // Fetching past the end of memory: the last command of memory claims a successor.
  const uint64_t last = m_.memory().base() + m_.memory().size() - contract::kCommandBytes;
  Command load{};
  ASSERT_TRUE(contract::Encode(testing::TinyLoad(data_), &load));
  uint8_t bytes[contract::kCommandBytes];
  CommandToBytes(load, bytes);
  ASSERT_TRUE(m_.memory().Write(last, bytes, sizeof bytes).ok());
  RunResult result;
  ASSERT_TRUE(m_.model().Run(m_.Args(last, 2), &result).ok());
  EXPECT_EQ(result.error, ErrorCode::kBusError);
  EXPECT_EQ(result.error_cmd, 1u);
  EXPECT_NE(result.error_detail.find("command 1: fetch: read of 32 bytes"), std::string::npos) << result.error_detail;
}

TEST_F(ErrorTest, FieldsOutOfRangeAreBadField) {
  LoadsThen();
  contract::Conv c = testing::TinyConv();
  c.kw = 3;  // wider than the 1-pixel tile
  Append(&s_, c);
  ExpectError(&m_, s_, ErrorCode::kBadField, 2,
              "command 2 (CONV): input column 2 (ox 0, kx 2) outside the tile width in_w 1");

  for (auto zero : {&contract::Conv::stride_y, &contract::Conv::dilation_x, &contract::Conv::cb_count}) {
    s_.clear();
    c = testing::TinyConv();
    c.*zero = 0;
    Append(&s_, c);
    ExpectError(&m_, s_, ErrorCode::kBadField, 0, "is 0, must be at least 1");
  }

  s_.clear();
  c = testing::TinyConv();
  c.cb_begin = 1;  // in_cb is 1
  Append(&s_, c);
  ExpectError(&m_, s_, ErrorCode::kBadField, 0, "channel block 1 outside the tile's in_cb 1");

  s_.clear();
  contract::Store st = testing::TinyStore(data_);
  st.out_int32 = 0;
  st.qmin = 10;
  st.qmax = 9;
  Append(&s_, st);
  ExpectError(&m_, s_, ErrorCode::kBadField, 0, "clamp [qmin 10, qmax 9]");

  // A parameter record with a shift no requantization can use.
  std::vector<uint8_t> record(contract::kParamRecordBytes, 0);
  record[8] = 40;
  contract::LoadParam p;
  p.dram_offset = m_.Put(record);
  p.count = 1;
  s_.clear();
  Append(&s_, p);
  ExpectError(&m_, s_, ErrorCode::kBadField, 0, "parameter record 0 (param row 0): shift 40 outside [-31, 31]");
}

TEST_F(ErrorTest, TheRunStopsAtTheFirstError) {
  Append(&s_, testing::TinyLoad(data_ + 4));  // misaligned
  Append(&s_, testing::TinyLoad(data_));      // never runs: the load queue runs in order
  for (uint64_t seed : {0, 1, 2}) {
    const RunResult result = m_.Run(s_, seed);
    EXPECT_EQ(result.error, ErrorCode::kMisaligned);
    EXPECT_EQ(result.error_cmd, 0u);
    EXPECT_EQ(result.commands[static_cast<int>(contract::Queue::kLoad)], 0u);
  }
}

TEST_F(ErrorTest, MisuseIsAFailedStatus) {
  EXPECT_EQ(m_.model().Run(m_.Args(0, 0), nullptr).code(), StatusCode::kInvalidArgument);
  AccelModel no_memory(PynqZ2(), nullptr);
  RunResult result;
  EXPECT_EQ(no_memory.Run(RunArgs(), &result).code(), StatusCode::kInvalidArgument);
}

TEST_F(ErrorTest, AnEmptyStreamSucceeds) {
  RunResult result;
  ASSERT_TRUE(m_.model().Run(m_.Args(m_.memory().base(), 0), &result).ok());
  EXPECT_TRUE(result.ok());
  EXPECT_EQ(result.bytes_read, 0u);
}

}  // namespace
}  // namespace fpga
}  // namespace loom
