// The generated contract header (hw/contract/gen_contract.py) against
// references written independently here: bit-by-bit reads and writes of a
// command, field values placed where each opcode's kFields says, and a few
// layouts spelled out by hand from hw/contract/accel.json.
#include "loom/fpga/accel_contract.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <set>
#include <type_traits>
#include <vector>

namespace loom {
namespace fpga {
namespace contract {
namespace {

// ---- bit-by-bit reference

bool RefBit(const Command& command, unsigned k) { return ((command[k / 64] >> (k % 64)) & 1) != 0; }

uint64_t RefGet(const Command& command, unsigned lsb, unsigned width) {
  uint64_t value = 0;
  for (unsigned i = 0; i < width; ++i) value |= uint64_t{RefBit(command, lsb + i)} << i;
  return value;
}

void RefSet(Command& command, unsigned lsb, unsigned width, uint64_t value) {
  for (unsigned i = 0; i < width; ++i) {
    const unsigned k = lsb + i;
    const uint64_t bit = uint64_t{1} << (k % 64);
    command[k / 64] = ((value >> i) & 1) != 0 ? command[k / 64] | bit : command[k / 64] & ~bit;
  }
}

// ---- field values as int64, whatever the member type

int64_t MinOf(const Field& field) { return field.is_signed ? -(int64_t{1} << (field.width - 1)) : 0; }

int64_t MaxOf(const Field& field) {
  return field.is_signed ? (int64_t{1} << (field.width - 1)) - 1 : (int64_t{1} << field.width) - 1;
}

// The field's bits as they sit in a command (two's complement for signed).
uint64_t BitsOf(int64_t value, const Field& field) {
  const uint64_t mask = field.width == 64 ? ~uint64_t{0} : (uint64_t{1} << field.width) - 1;
  return static_cast<uint64_t>(value) & mask;
}

template <typename Op>
std::vector<int64_t> ValuesOf(const Op& op) {
  std::vector<int64_t> values;
  Op::ForEachField(op, [&](const Field&, auto value) { values.push_back(value); });
  return values;
}

// Sets field number index of op to value (converted to the member's type).
template <typename Op>
void SetField(Op* op, std::size_t index, int64_t value) {
  std::size_t i = 0;
  Op::ForEachField(*op, [&](const Field&, auto& member) {
    if (i++ == index) member = static_cast<std::remove_reference_t<decltype(member)>>(value);
  });
}

bool DepsEqual(const Deps& a, const Deps& b) {
  return a.pop_prev == b.pop_prev && a.pop_next == b.pop_next && a.push_prev == b.push_prev &&
         a.push_next == b.push_next;
}

// Every bit that the common fields or one of op's fields own.
template <typename Op>
std::vector<bool> OwnedBits() {
  std::vector<bool> owned(kCommandBits, false);
  for (unsigned k = 0; k < 8; ++k) owned[k] = true;  // opcode and the four dependency flags
  for (const Field& field : Op::kFields) {
    for (unsigned k = field.lsb; k < field.lsb + field.width; ++k) owned[k] = true;
  }
  return owned;
}

// ---- every opcode

template <typename List>
struct GTestTypes;
template <typename... Ops>
struct GTestTypes<OpList<Ops...>> {
  using Types = ::testing::Types<Ops...>;
};

template <typename Op>
class CommandTest : public ::testing::Test {};
TYPED_TEST_SUITE(CommandTest, GTestTypes<AllOps>::Types);

TYPED_TEST(CommandTest, RandomValuesRoundTripAndSitWhereTheLayoutSays) {
  using Op = TypeParam;
  std::mt19937_64 rng(0x10017 + static_cast<unsigned>(Op::kOpcode));
  const std::vector<bool> owned = OwnedBits<Op>();
  for (int iteration = 0; iteration < 500; ++iteration) {
    Op op;
    op.deps = {rng() % 2 == 0, rng() % 2 == 0, rng() % 2 == 0, rng() % 2 == 0};
    for (std::size_t i = 0; i < Op::kFields.size(); ++i) {
      const Field& field = Op::kFields[i];
      SetField(&op, i, std::uniform_int_distribution<int64_t>(MinOf(field), MaxOf(field))(rng));
    }
    Command command;
    ASSERT_TRUE(Encode(op, &command));

    EXPECT_EQ(RefGet(command, 0, 4), static_cast<uint64_t>(Op::kOpcode));
    EXPECT_EQ(OpcodeOf(command), Op::kOpcode);
    EXPECT_EQ(RefBit(command, 4), op.deps.pop_prev);
    EXPECT_EQ(RefBit(command, 5), op.deps.pop_next);
    EXPECT_EQ(RefBit(command, 6), op.deps.push_prev);
    EXPECT_EQ(RefBit(command, 7), op.deps.push_next);
    EXPECT_TRUE(DepsEqual(DepsOf(command), op.deps));
    const std::vector<int64_t> values = ValuesOf(op);
    for (std::size_t i = 0; i < Op::kFields.size(); ++i) {
      const Field& field = Op::kFields[i];
      EXPECT_EQ(RefGet(command, field.lsb, field.width), BitsOf(values[i], field)) << field.name;
    }
    for (unsigned k = 0; k < kCommandBits; ++k) {
      ASSERT_TRUE(owned[k] || !RefBit(command, k)) << "bit " << k << " belongs to no field";
    }

    Op decoded;
    ASSERT_TRUE(Decode(command, &decoded));
    EXPECT_TRUE(DepsEqual(decoded.deps, op.deps));
    EXPECT_EQ(ValuesOf(decoded), values);
  }
}

TYPED_TEST(CommandTest, RangeEndsFitAndOneBeyondIsRejected) {
  using Op = TypeParam;
  for (std::size_t i = 0; i < Op::kFields.size(); ++i) {
    const Field& field = Op::kFields[i];
    for (const int64_t value : {MinOf(field), MaxOf(field)}) {
      Op op;
      SetField(&op, i, value);
      Command command;
      ASSERT_TRUE(Encode(op, &command)) << field.name << " = " << value;
      Op decoded;
      ASSERT_TRUE(Decode(command, &decoded));
      EXPECT_EQ(ValuesOf(decoded)[i], value) << field.name;
    }
    std::vector<int64_t> beyond;
    if (field.width < 32) beyond.push_back(MaxOf(field) + 1);
    if (field.is_signed && field.width < 32) beyond.push_back(MinOf(field) - 1);
    for (const int64_t value : beyond) {
      Op op;
      SetField(&op, i, value);
      const Command untouched = {1, 2, 3, 4};
      Command command = untouched;
      EXPECT_FALSE(Encode(op, &command)) << field.name << " = " << value;
      EXPECT_EQ(command, untouched) << field.name;
    }
  }
}

TYPED_TEST(CommandTest, DecodeRejectsEveryOtherOpcode) {
  using Op = TypeParam;
  Command command;
  ASSERT_TRUE(Encode(Op{}, &command));
  for (uint64_t code = 0; code < 16; ++code) {
    SetBits(command, 0, 4, code);
    Op decoded;
    EXPECT_EQ(Decode(command, &decoded), code == static_cast<uint64_t>(Op::kOpcode)) << "opcode " << code;
  }
}

template <typename... Ops>
constexpr std::size_t CountOf(OpList<Ops...>) {
  return sizeof...(Ops);
}

TEST(CommandLayoutTest, EveryValidOpcodeHasAStruct) {
  std::size_t valid = 0;
  for (uint32_t code = 0; code < 16; ++code) valid += IsValidOpcode(code) ? 1 : 0;
  EXPECT_FALSE(IsValidOpcode(0));  // zeroed memory is never a command
  EXPECT_EQ(valid, CountOf(AllOps{}));
}

// Fields that cross a 64-bit word boundary, spelled out by hand.
TEST(CommandLayoutTest, FieldsStraddlingWordsSplitLowBitsFirst) {
  LoadAct load;
  load.y_size = 0xABC;  // bits 58..69: low 6 bits end word 0, high 6 bits start word 1
  Command command;
  ASSERT_TRUE(Encode(load, &command));
  EXPECT_EQ(command[0] >> 58, uint64_t{0xABC & 0x3F});
  EXPECT_EQ(command[1] & 0x3F, uint64_t{0xABC >> 6});
  EXPECT_EQ(command[0] & ((uint64_t{1} << 58) - 1), uint64_t{1});  // only the opcode

  Store store;
  store.multiplier = 0x89ABCDEF;  // bits 163..194: 29 bits in word 2, 3 in word 3
  store.shift = -1;               // bits 195..200, right after it
  ASSERT_TRUE(Encode(store, &command));
  EXPECT_EQ(command[2] >> 35, uint64_t{0x89ABCDEF} & ((uint64_t{1} << 29) - 1));
  EXPECT_EQ(command[2] & ((uint64_t{1} << 35) - 1), 0u);
  EXPECT_EQ(command[3], (uint64_t{0x89ABCDEF} >> 29) | (uint64_t{0x3F} << 3));
  Store decoded;
  ASSERT_TRUE(Decode(command, &decoded));
  EXPECT_EQ(decoded.multiplier, 0x89ABCDEFu);
  EXPECT_EQ(decoded.shift, -1);
}

TEST(CommandLayoutTest, GetBitsAndSetBitsMatchTheBitByBitReference) {
  std::mt19937_64 rng(0xB175);
  for (int iteration = 0; iteration < 20000; ++iteration) {
    const Command command = {rng(), rng(), rng(), rng()};
    const unsigned width = 1 + static_cast<unsigned>(rng() % 64);
    const unsigned lsb = static_cast<unsigned>(rng() % (kCommandBits - width + 1));
    ASSERT_EQ(GetBits(command, lsb, width), RefGet(command, lsb, width)) << lsb << ", " << width;
    const uint64_t value = rng();
    Command actual = command, expected = command;
    SetBits(actual, lsb, width, value);
    RefSet(expected, lsb, width, value);
    ASSERT_EQ(actual, expected) << lsb << ", " << width;
  }
  const Command ones = {~uint64_t{0}, ~uint64_t{0}, ~uint64_t{0}, ~uint64_t{0}};
  EXPECT_EQ(GetBits(ones, 192, 64), ~uint64_t{0});
  EXPECT_EQ(GetBits(ones, 255, 1), 1u);
  EXPECT_EQ(GetBits(ones, 250, 7), 0u);  // past the end
  Command unchanged = ones;
  SetBits(unchanged, 250, 7, 0);
  EXPECT_EQ(unchanged, ones);
}

TEST(CommandLayoutTest, QueuesAndNames) {
  EXPECT_EQ(QueueOf(Opcode::kLoadAct), Queue::kLoad);
  EXPECT_EQ(QueueOf(Opcode::kConv), Queue::kCompute);
  EXPECT_EQ(QueueOf(Opcode::kLoadParam), Queue::kStore);
  EXPECT_FALSE(QueueHasPrev(Queue::kLoad));
  EXPECT_TRUE(QueueHasNext(Queue::kLoad));
  EXPECT_TRUE(QueueHasPrev(Queue::kStore));
  EXPECT_FALSE(QueueHasNext(Queue::kStore));
  EXPECT_STREQ(OpcodeName(Opcode::kMaxpool), "MAXPOOL");
  EXPECT_STREQ(ErrorName(ErrorCode::kBadOpcode), "BAD_OPCODE");
  EXPECT_EQ(static_cast<uint32_t>(ErrorCode::kNone), 0u);
  EXPECT_EQ(kCommandBytes, sizeof(Command));
  EXPECT_EQ(kVersion, (kVersionMajor << 16) | kVersionMinor);
}

TEST(AccelConfigTest, ConfigsAreFoundByNameAndHaveDistinctIds) {
  // Usable at compile time (a pointer comparison is not a constant expression
  // under -fsanitize=undefined, so the check reads a field).
  static_assert(FindConfig("pynq_z2")->n == 16 && FindConfig("kv260")->n == 32, "usable at compile time");
  ASSERT_NE(FindConfig("pynq_z2"), nullptr);
  EXPECT_EQ(FindConfig("pynq_z2")->n, 16u);
  ASSERT_NE(FindConfig("kv260"), nullptr);
  EXPECT_EQ(FindConfig("kv260")->n, 32u);
  EXPECT_EQ(FindConfig("pynq"), nullptr);
  EXPECT_EQ(FindConfig("pynq_z2x"), nullptr);
  std::set<uint32_t> ids;
  for (const AccelConfig& config : kConfigs) {
    EXPECT_EQ(config.n & (config.n - 1), 0u) << config.name;  // a power of two
    ids.insert(config.config_id);
  }
  EXPECT_EQ(ids.size(), kConfigs.size());
}

}  // namespace
}  // namespace contract
}  // namespace fpga
}  // namespace loom
