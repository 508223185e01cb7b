// TensorProto decoding: ONNX's own test data and onnx.helper-written typed
// fields against python-generated expectations, hand-encoded wire-format
// edge cases, malformed input, and (with the builder on) a cross-check
// against ONNX's protobuf classes.
#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "tools/tensor_io/host_tensor.h"
#include "tools/tensor_io/test_expectations.h"

#if LOOM_TEST_WITH_ONNX_PROTO
#include <onnx/onnx_pb.h>
#endif

namespace loom {
namespace {

const std::string kTestData = LOOM_TENSOR_IO_TESTDATA;
const std::string kNodeData = testing::OnnxNodeTestData();

std::string PathOf(const testing::Expectation& e) {
  if (e.path.rfind("node/", 0) == 0) return kNodeData + "/" + e.path.substr(5);
  return kTestData + "/" + e.path;
}

TEST(TensorProtoTest, MatchesPythonExpectations) {
  int checked = 0, refused = 0;
  for (const auto& e : testing::LoadExpectations(kTestData + "/expected.txt")) {
    if (e.path.rfind("npy/", 0) == 0) continue;
    const std::string path = PathOf(e);
    if (e.path.rfind("node/", 0) == 0 && !std::ifstream(path).good()) GTEST_SKIP() << "libonnx-testdata not installed";
    HostTensor t;
    const Status s = ReadTensorProto(path, &t);
    if (e.refuse) {
      EXPECT_EQ(s.code(), StatusCode::kUnsupported) << path;
      EXPECT_NE(s.ToString().find("string"), std::string::npos) << s.ToString();
      ++refused;
      continue;
    }
    ASSERT_TRUE(s.ok()) << path << ": " << s.ToString();
    EXPECT_EQ(static_cast<int>(t.dtype), e.dtype) << path;
    EXPECT_EQ(ShapeToString(t.shape), e.dims) << path;
    EXPECT_EQ(testing::Fnv1a64(t.data), e.hash) << path;
    ++checked;
  }
  EXPECT_EQ(checked, 38);
  EXPECT_EQ(refused, 2);
}

TEST(TensorProtoTest, ReadsNames) {
  HostTensor t;
  ASSERT_TRUE(ReadTensorProto(kTestData + "/pb/int32_data_int8.pb", &t).ok());
  EXPECT_EQ(t.name, "int32_data_int8");
  ASSERT_EQ(t.num_elements(), 6u);
  for (int i = 0; i < 6; ++i) EXPECT_EQ(t.as<int8_t>()[i], static_cast<int8_t>(i * 37 - 50));
}

// A minimal protobuf encoder for hand-made messages.
class Encoder {
 public:
  Encoder& Varint(uint64_t v) {
    while (v >= 0x80) {
      bytes.push_back(static_cast<uint8_t>(v | 0x80));
      v >>= 7;
    }
    bytes.push_back(static_cast<uint8_t>(v));
    return *this;
  }
  Encoder& Tag(int field, int wire) { return Varint(static_cast<uint64_t>(field) << 3 | static_cast<uint64_t>(wire)); }
  Encoder& Bytes(int field, const std::vector<uint8_t>& b) {
    Tag(field, 2).Varint(b.size());
    bytes.insert(bytes.end(), b.begin(), b.end());
    return *this;
  }
  Encoder& Fixed32(int field, uint32_t v) {
    Tag(field, 5);
    for (int i = 0; i < 4; ++i) bytes.push_back(static_cast<uint8_t>(v >> (8 * i)));
    return *this;
  }
  Encoder& Fixed64(int field, uint64_t v) {
    Tag(field, 1);
    for (int i = 0; i < 8; ++i) bytes.push_back(static_cast<uint8_t>(v >> (8 * i)));
    return *this;
  }
  Status Parse(HostTensor* t) const { return ParseTensorProto(bytes.data(), bytes.size(), t); }
  std::vector<uint8_t> bytes;
};

std::vector<uint8_t> PackedVarints(const std::vector<uint64_t>& values) {
  Encoder e;
  for (uint64_t v : values) e.Varint(v);
  return e.bytes;
}

TEST(TensorProtoTest, UnpackedRepeatedFieldsAndUnknownFields) {
  Encoder good;
  good.Tag(1, 0).Varint(2).Tag(1, 0).Varint(2).Tag(2, 0).Varint(7);  // dims one per tag; int64
  // Unknown fields of every wire type are skipped.
  good.Tag(99, 0).Varint(12345).Fixed32(98, 1).Fixed64(97, 2).Bytes(96, {1, 2, 3}).Bytes(12, {'d'});
  for (int64_t v : {int64_t{-1}, int64_t{0}, int64_t{1} << 40, int64_t{-5}})
    good.Tag(7, 0).Varint(static_cast<uint64_t>(v));
  good.Bytes(8, {'n'});
  HostTensor t;
  ASSERT_TRUE(good.Parse(&t).ok());
  EXPECT_EQ(t.shape, (Shape{2, 2}));
  EXPECT_EQ(t.name, "n");
  ASSERT_EQ(t.data.size(), 32u);
  EXPECT_EQ(t.as<int64_t>()[0], -1);
  EXPECT_EQ(t.as<int64_t>()[2], 1LL << 40);
  EXPECT_EQ(t.as<int64_t>()[3], -5);
}

TEST(TensorProtoTest, PackedInt32DataNarrowsPerType) {
  Encoder e;
  e.Bytes(1, PackedVarints({3}));
  e.Tag(2, 0).Varint(5);  // int16
  e.Bytes(5, PackedVarints({static_cast<uint64_t>(-300LL), 7, 32767}));
  HostTensor t;
  ASSERT_TRUE(e.Parse(&t).ok());
  EXPECT_EQ(t.dtype, DType::kInt16);
  EXPECT_EQ(t.as<int16_t>()[0], -300);
  EXPECT_EQ(t.as<int16_t>()[2], 32767);

  Encoder b;  // bool from int32_data, normalised to 0/1
  b.Bytes(1, PackedVarints({3})).Tag(2, 0).Varint(9).Bytes(5, PackedVarints({0, 1, 1}));
  ASSERT_TRUE(b.Parse(&t).ok());
  EXPECT_EQ(t.data, (std::vector<uint8_t>{0, 1, 1}));

  Encoder f;  // float_data, one fixed32 per tag
  float v = 1.5f;
  uint32_t bits;
  std::memcpy(&bits, &v, 4);
  f.Bytes(1, PackedVarints({2})).Tag(2, 0).Varint(1).Fixed32(4, bits).Fixed32(4, bits);
  ASSERT_TRUE(f.Parse(&t).ok());
  EXPECT_EQ(t.as<float>()[1], 1.5f);
}

TEST(TensorProtoTest, RefusesMalformedOrUnsupported) {
  struct Case {
    const char* name;
    Encoder message;
    const char* text;
  };
  std::vector<Case> cases;
  auto add = [&](const char* name, Encoder e, const char* text) { cases.push_back({name, std::move(e), text}); };
  {
    Encoder e;
    e.Bytes(1, PackedVarints({2})).Tag(2, 0).Varint(1).Bytes(9, {1, 2, 3});
    add("raw size", e, "raw_data has 3 bytes, expected 8");
  }
  {
    Encoder e;
    e.Bytes(1, PackedVarints({3})).Tag(2, 0).Varint(7).Bytes(7, PackedVarints({1, 2}));
    add("too few values", e, "int64_data holds 2 values, expected 3");
  }
  {
    Encoder e;
    e.Tag(2, 0).Varint(1).Tag(14, 0).Varint(1);
    add("external", e, "external data");
  }
  {
    Encoder e;
    e.Tag(2, 0).Varint(8).Bytes(6, {'a'});
    add("string", e, "string");
  }
  {
    Encoder e;
    e.Tag(2, 0).Varint(14);
    add("complex", e, "complex64");
  }
  {
    Encoder e;
    e.Tag(2, 0).Varint(77);
    add("unknown dtype", e, "unknown data_type 77");
  }
  {
    Encoder e;
    e.Bytes(1, PackedVarints({1ull << 40, 1ull << 40})).Tag(2, 0).Varint(1);
    add("absurd dims", e, "does not fit");
  }
  {
    Encoder e;
    e.Bytes(1, PackedVarints({static_cast<uint64_t>(-2LL)})).Tag(2, 0).Varint(1);
    add("negative dim", e, "negative dimension");
  }
  {
    Encoder e;
    e.Tag(2, 0).Varint(1).Tag(5, 3);
    add("group wire type", e, "wire type 3");
  }
  {
    Encoder e;
    e.Tag(2, 0).Varint(1).Tag(9, 2).Varint(100);
    add("length past end", e, "truncated");
  }
  {
    Encoder e;
    e.Tag(2, 0);
    for (int i = 0; i < 11; ++i) e.bytes.push_back(0xff);
    add("long varint", e, "varint");
  }
  {
    Encoder e;
    e.Bytes(1, PackedVarints({1})).Tag(2, 0).Varint(1).Bytes(4, {1, 2, 3});
    add("packed floats not multiple of 4", e, "not a multiple of 4");
  }
  {
    Encoder e;
    e.Bytes(1, PackedVarints({1})).Tag(2, 0).Varint(1).Bytes(9, {0, 0, 0, 0}).Fixed32(4, 0);
    add("raw and typed", e, "both raw_data and typed data");
  }
  {
    Encoder e;
    e.Bytes(1, PackedVarints({1}));
    add("no data type", e, "unknown data_type 0");
  }
  for (const Case& c : cases) {
    HostTensor t;
    const Status s = c.message.Parse(&t);
    EXPECT_FALSE(s.ok()) << c.name;
    EXPECT_NE(s.ToString().find(c.text), std::string::npos) << c.name << ": " << s.ToString();
  }
}

TEST(TensorProtoTest, TruncationsAndRandomBytesNeverCrash) {
  std::ifstream in(kTestData + "/pb/float_data.pb", std::ios::binary);
  std::vector<uint8_t> file((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_FALSE(file.empty());
  HostTensor full;
  ASSERT_TRUE(ParseTensorProto(file.data(), file.size(), &full).ok());
  for (size_t len = 0; len < file.size(); ++len) {
    // A cut at a field boundary is a valid shorter message; here only the
    // trailing name can go missing that way.
    HostTensor t;
    if (ParseTensorProto(file.data(), len, &t).ok()) {
      EXPECT_EQ(t.data, full.data) << "length " << len;
      EXPECT_TRUE(t.name.empty()) << "length " << len;
    }
  }
  std::mt19937 rng(5);
  int accepted = 0;
  for (int i = 0; i < 3000; ++i) {
    std::vector<uint8_t> bad = file;
    const int edits = 1 + i % 5;
    for (int k = 0; k < edits; ++k) bad[rng() % bad.size()] = static_cast<uint8_t>(rng());
    if (i % 7 == 0) bad.resize(rng() % (bad.size() + 1));
    HostTensor t;
    if (ParseTensorProto(bad.data(), bad.size(), &t).ok()) {
      ++accepted;
      EXPECT_EQ(t.data.size(), t.num_elements() * DTypeSize(t.dtype));
    }
  }
  std::printf("random mutations accepted as valid tensors: %d of 3000\n", accepted);
  HostTensor t;
  EXPECT_FALSE(ReadTensorProto(kTestData + "/no_such_file.pb", &t).ok());
}

#if LOOM_TEST_WITH_ONNX_PROTO
// Cross-check against ONNX's protobuf classes: the libonnx test files, and
// typed-field messages serialized by libprotobuf itself.
TEST(TensorProtoTest, AgreesWithOnnxProtobuf) {
  int compared = 0;
  for (const auto& e : testing::LoadExpectations(kTestData + "/expected.txt")) {
    if (e.path.rfind("npy/", 0) == 0 || e.refuse) continue;
    std::ifstream in(PathOf(e), std::ios::binary);
    if (!in.good()) continue;
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    onnx::TensorProto proto;
    ASSERT_TRUE(proto.ParseFromString(bytes)) << e.path;
    HostTensor t;
    ASSERT_TRUE(ParseTensorProto(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), &t).ok()) << e.path;
    EXPECT_EQ(static_cast<int>(t.dtype), proto.data_type()) << e.path;
    EXPECT_EQ(t.name, proto.name()) << e.path;
    ASSERT_EQ(t.shape.size(), static_cast<size_t>(proto.dims_size())) << e.path;
    for (int i = 0; i < proto.dims_size(); ++i) EXPECT_EQ(t.shape[i], proto.dims(i)) << e.path;
    if (proto.has_raw_data()) {
      EXPECT_EQ(std::string(t.data.begin(), t.data.end()), proto.raw_data()) << e.path;
    }
    ++compared;
  }
  EXPECT_GT(compared, 10);

  onnx::TensorProto proto;
  proto.set_data_type(onnx::TensorProto::UINT8);
  proto.add_dims(4);
  for (int v : {0, 7, 200, 255}) proto.add_int32_data(v);
  std::string bytes = proto.SerializeAsString();
  HostTensor t;
  ASSERT_TRUE(ParseTensorProto(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), &t).ok());
  EXPECT_EQ(t.data, (std::vector<uint8_t>{0, 7, 200, 255}));

  proto.Clear();
  proto.set_data_type(onnx::TensorProto::DOUBLE);
  proto.add_dims(1);
  proto.add_dims(2);
  proto.add_double_data(-2.5);
  proto.add_double_data(1e300);
  bytes = proto.SerializeAsString();
  ASSERT_TRUE(ParseTensorProto(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), &t).ok());
  EXPECT_EQ(t.as<double>()[0], -2.5);
  EXPECT_EQ(t.as<double>()[1], 1e300);
}
#endif

}  // namespace
}  // namespace loom
