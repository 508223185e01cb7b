// .npy: numpy-written fixtures, round trips of every dtype, and refusals.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>

#include "tools/tensor_io/file_util.h"
#include "tools/tensor_io/host_tensor.h"
#include "tools/tensor_io/test_expectations.h"

namespace loom {
namespace {

const std::string kTestData = LOOM_TENSOR_IO_TESTDATA;

std::string TempPath(const std::string& tag) {
  return ::testing::TempDir() + "loom_npy_test_" + tag + "_" + std::to_string(getpid()) + ".npy";
}

bool Contains(const Status& s, const std::string& text) { return s.ToString().find(text) != std::string::npos; }

TEST(NpyTest, ReadsNumpyWrittenFiles) {
  int checked = 0;
  for (const auto& e : testing::LoadExpectations(kTestData + "/expected.txt")) {
    if (e.path.rfind("npy/", 0) != 0) continue;
    HostTensor t;
    const Status s = ReadNpy(kTestData + "/" + e.path, &t);
    ASSERT_TRUE(s.ok()) << e.path << ": " << s.ToString();
    EXPECT_EQ(static_cast<int>(t.dtype), e.dtype) << e.path;
    EXPECT_EQ(ShapeToString(t.shape), e.dims) << e.path;
    EXPECT_EQ(testing::Fnv1a64(t.data), e.hash) << e.path;
    EXPECT_TRUE(t.name.empty());
    ++checked;
  }
  EXPECT_EQ(checked, 15);
}

TEST(NpyTest, KnownValues) {
  HostTensor t;
  ASSERT_TRUE(ReadNpy(kTestData + "/npy/i8_7.npy.bin", &t).ok());
  ASSERT_EQ(t.num_elements(), 7u);
  for (int i = 0; i < 7; ++i) EXPECT_EQ(t.as<int64_t>()[i], i * 37 - 50);
  ASSERT_TRUE(ReadNpy(kTestData + "/npy/b1_5.npy.bin", &t).ok());
  EXPECT_EQ(t.data, (std::vector<uint8_t>{1, 0, 0, 1, 0}));
}

TEST(NpyTest, RoundTripsEveryDtype) {
  const DType types[] = {DType::kFloat16, DType::kFloat32, DType::kFloat64, DType::kInt8,
                         DType::kInt16,   DType::kInt32,   DType::kInt64,   DType::kUInt8,
                         DType::kUInt16,  DType::kUInt32,  DType::kUInt64,  DType::kBool};
  const Shape shapes[] = {{}, {0}, {3}, {2, 3, 4}, {1, 1, 1, 1, 5}};
  const std::string path = TempPath("roundtrip");
  for (DType type : types) {
    for (const Shape& shape : shapes) {
      HostTensor t;
      t.dtype = type;
      t.shape = shape;
      t.data.resize(static_cast<size_t>(NumElements(shape)) * DTypeSize(type));
      for (size_t i = 0; i < t.data.size(); ++i)
        t.data[i] = type == DType::kBool ? static_cast<uint8_t>(i % 2) : static_cast<uint8_t>(i * 7 + 1);
      ASSERT_TRUE(WriteNpy(path, t).ok()) << DTypeName(type);
      HostTensor back;
      const Status s = ReadNpy(path, &back);
      ASSERT_TRUE(s.ok()) << DTypeName(type) << " " << ShapeToString(shape) << ": " << s.ToString();
      EXPECT_EQ(back.dtype, type);
      EXPECT_EQ(back.shape, shape);
      EXPECT_EQ(back.data, t.data) << DTypeName(type) << " " << ShapeToString(shape);
      std::vector<uint8_t> file;
      ASSERT_TRUE(ReadWholeFile(path, &file).ok());
      EXPECT_EQ((file.size() - t.data.size()) % 64, 0u) << "header not padded to 64 bytes";
    }
  }
  std::remove(path.c_str());
}

TEST(NpyTest, RefusesUnsupportedLayoutsAndTypes) {
  HostTensor t;
  const std::string fortran = kTestData + "/npy/bad_fortran.npy.bin";
  Status s = ReadNpy(fortran, &t);
  EXPECT_EQ(s.code(), StatusCode::kUnsupported);
  EXPECT_TRUE(Contains(s, "fortran_order")) << s.ToString();
  EXPECT_TRUE(Contains(s, fortran)) << s.ToString();
  s = ReadNpy(kTestData + "/npy/bad_bigendian.npy.bin", &t);
  EXPECT_TRUE(Contains(s, "big-endian")) << s.ToString();
  s = ReadNpy(kTestData + "/npy/bad_object.npy.bin", &t);
  EXPECT_EQ(s.code(), StatusCode::kUnsupported);
  EXPECT_TRUE(Contains(s, "'|O'")) << s.ToString();

  t.dtype = DType::kBFloat16;
  t.shape = {1};
  t.data = {0, 0};
  s = WriteNpy(TempPath("bf16"), t);
  EXPECT_TRUE(Contains(s, "bfloat16")) << s.ToString();
  t.dtype = DType::kFloat32;
  s = WriteNpy(TempPath("short"), t);  // 2 bytes for one float32
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
}

TEST(NpyTest, RefusesEveryTruncation) {
  std::vector<uint8_t> file;
  ASSERT_TRUE(ReadWholeFile(kTestData + "/npy/f4_3x4.npy.bin", &file).ok());
  const std::string path = TempPath("truncated");
  for (size_t len = 0; len < file.size(); ++len) {
    ASSERT_TRUE(WriteWholeFile(path, file.data(), len).ok());
    HostTensor t;
    const Status s = ReadNpy(path, &t);
    EXPECT_FALSE(s.ok()) << "length " << len;
    EXPECT_TRUE(Contains(s, path)) << s.ToString();
  }
  std::remove(path.c_str());
}

// A file with the given header text (padded), and `data_bytes` zero bytes.
Status ReadWithHeader(const std::string& header, size_t data_bytes) {
  std::string h = header;
  while ((10 + h.size() + 1) % 64 != 0) h.push_back(' ');
  h.push_back('\n');
  std::vector<uint8_t> file = {
      0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, static_cast<uint8_t>(h.size()), static_cast<uint8_t>(h.size() >> 8)};
  file.insert(file.end(), h.begin(), h.end());
  file.resize(file.size() + data_bytes, 0);
  const std::string path = TempPath("header");
  EXPECT_TRUE(WriteWholeFile(path, file.data(), file.size()).ok());
  HostTensor t;
  const Status s = ReadNpy(path, &t);
  std::remove(path.c_str());
  return s;
}

TEST(NpyTest, ParsesAndRefusesHeaders) {
  EXPECT_TRUE(ReadWithHeader("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", 24).ok());
  EXPECT_TRUE(ReadWithHeader("{\"shape\": (3,), \"fortran_order\": False, \"descr\": \"<i2\"}", 6).ok());
  EXPECT_TRUE(ReadWithHeader("{'descr': '<f4', 'fortran_order': False, 'shape': (2L, 3L), }", 24).ok());
  EXPECT_TRUE(ReadWithHeader("{'descr': '|u1', 'fortran_order': False, 'shape': (), }", 1).ok());
  // Absurd shapes are refused before anything is allocated.
  Status s = ReadWithHeader("{'descr': '<f8', 'fortran_order': False, 'shape': (99999999999, 99999999999), }", 8);
  EXPECT_TRUE(Contains(s, "too large")) << s.ToString();
  s = ReadWithHeader("{'descr': '<f8', 'fortran_order': False, 'shape': (1000000000,), }", 8);
  EXPECT_TRUE(Contains(s, "truncated")) << s.ToString();
  s = ReadWithHeader("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", 12);
  EXPECT_TRUE(Contains(s, "12 bytes, expected 8")) << s.ToString();
  EXPECT_FALSE(ReadWithHeader("{'descr': '<f4', 'fortran_order': False}", 4).ok());
  EXPECT_FALSE(ReadWithHeader("{'descr': '<f4', 'fortran_order': Maybe, 'shape': (1,)}", 4).ok());
  EXPECT_FALSE(ReadWithHeader("{'descr': '<f4', 'fortran_order': False, 'shape': (-1,)}", 4).ok());
  EXPECT_FALSE(ReadWithHeader("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (1,)}", 4).ok());
  EXPECT_FALSE(ReadWithHeader("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), 'extra': 1}", 4).ok());
  EXPECT_FALSE(ReadWithHeader("{'descr': '<c8', 'fortran_order': False, 'shape': (1,)}", 8).ok());
  EXPECT_FALSE(ReadWithHeader("{'descr': '<f4', 'fortran_order': False, 'shape': (1,)} junk", 4).ok());
  EXPECT_FALSE(ReadWithHeader("{'descr': '<f4", 4).ok());
  EXPECT_FALSE(ReadWithHeader("", 4).ok());
}

TEST(NpyTest, FileErrorsNameThePath) {
  HostTensor t;
  const std::string missing = TempPath("missing");
  Status s = ReadNpy(missing, &t);
  EXPECT_EQ(s.code(), StatusCode::kNotFound);
  EXPECT_TRUE(Contains(s, missing));
  s = ReadNpy(::testing::TempDir(), &t);
  EXPECT_FALSE(s.ok());
  s = ReadNpy(kTestData + "/expected.txt", &t);
  EXPECT_TRUE(Contains(s, "not a .npy file")) << s.ToString();
}

}  // namespace
}  // namespace loom
